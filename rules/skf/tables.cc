#include "rules/skf/tables.h"

#include "absl/strings/str_cat.h"

namespace gunbai::rules::skf {

std::string ColumnName(const OddsColumn& column) {
  return absl::StrCat(column.own, "-", column.enemy);
}

absl::string_view TroopName(TroopType t) {
  switch (t) {
    case TroopType::kSamurai:
      return "samurai";
    case TroopType::kAshigaru:
      return "ashigaru";
    case TroopType::kRonin:
      return "ronin";
    case TroopType::kWarriorMonk:
      return "warrior monks";
    case TroopType::kPeasant:
      return "peasants";
    case TroopType::kHatamoto:
      return "hatamoto";
    case TroopType::kHeadquarters:
      return "headquarters";
    case TroopType::kLegendarySamurai:
      return "legendary samurai";
  }
  return "?";
}

absl::string_view MobilityName(Mobility m) {
  return m == Mobility::kMounted ? "mounted" : "foot";
}

absl::string_view RoundingName(OddsRounding r) {
  switch (r) {
    case OddsRounding::kUnknown:
      return "with no rounding rule";
    case OddsRounding::kAgainstRoller:
      return "rounded against the roller";
    case OddsRounding::kForRoller:
      return "rounded for the roller";
    case OddsRounding::kNearest:
      return "rounded to the nearest column";
  }
  return "?";
}

}  // namespace gunbai::rules::skf
