#include "rules/daimyo/proto_mapping.h"

#include <algorithm>
#include <cstdint>

#include "rules/daimyo/daimyo_engine.h"
#include "rules/proto_enums.h"

namespace gunbai::rules::daimyo {

namespace v1 = ::gunbai::v1;

rules::daimyo::Shot ShotFromProto(const v1::Firing& firing, int firer,
                                  int target) {
  rules::daimyo::Shot shot;
  shot.firer = firer;
  shot.target = target;
  shot.stands_firing = static_cast<int>(
      std::min<uint32_t>(firing.stands_firing(), kMaxStands + 1));
  shot.dice = absl::MakeConstSpan(firing.dice().data(), firing.dice_size());
  const v1::FiringFacts& f = firing.facts();
  if (f.range() != v1::RANGE_BAND_UNSPECIFIED) {
    shot.facts.declared_band = BandFromProto(f.range());
  }
  if (f.has_distance_mm()) {
    shot.facts.distance_mm =
        static_cast<int>(std::min<uint32_t>(f.distance_mm(), 1000000));
  }
  shot.facts.woods_limit = f.woods_limit();
  shot.facts.target_in_cover = f.target_in_cover();
  shot.facts.target_in_building = f.target_in_building();
  shot.facts.target_in_column_or_flanked = f.target_in_column_or_flanked();
  shot.facts.firing_from_building = f.firing_from_building();
  if (f.has_firer_being_charged()) {
    shot.facts.firer_being_charged = f.firer_being_charged();
  }
  shot.facts.chargers_began_beyond_effective =
      f.chargers_began_beyond_effective();
  shot.facts.firer_in_cover = f.firer_in_cover();
  return shot;
}

ResultMoveKind ResultMoveKindFromProto(v1::ResultMoveKind kind) {
  switch (kind) {
    case v1::RESULT_MOVE_KIND_PUSH_BACK:
      return ResultMoveKind::kPushBack;
    case v1::RESULT_MOVE_KIND_ROUT:
      return ResultMoveKind::kRout;
    case v1::RESULT_MOVE_KIND_RETREAT:
      return ResultMoveKind::kRetreat;
    case v1::RESULT_MOVE_KIND_FOLLOW_UP:
      return ResultMoveKind::kFollowUp;
    case v1::RESULT_MOVE_KIND_PURSUIT:
      return ResultMoveKind::kPursuit;
    case v1::RESULT_MOVE_KIND_RETIRE:
      return ResultMoveKind::kRetire;
    default:
      return ResultMoveKind::kHold;
  }
}

}  // namespace gunbai::rules::daimyo
