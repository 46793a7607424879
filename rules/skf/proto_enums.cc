#include "rules/skf/proto_enums.h"

namespace gunbai::rules::skf {

namespace v1 = ::gunbai::v1;

OddsRounding OddsRoundingFromProto(v1::SkfOddsRounding r) {
  switch (r) {
    case v1::SKF_ODDS_ROUNDING_AGAINST_ROLLER:
      return OddsRounding::kAgainstRoller;
    case v1::SKF_ODDS_ROUNDING_FOR_ROLLER:
      return OddsRounding::kForRoller;
    case v1::SKF_ODDS_ROUNDING_NEAREST:
      return OddsRounding::kNearest;
    default:
      return OddsRounding::kUnknown;
  }
}

}  // namespace gunbai::rules::skf
