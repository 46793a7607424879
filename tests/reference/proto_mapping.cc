#include "tests/reference/proto_mapping.h"

namespace gunbai::reference {

namespace pb = gunbai::v1;

pb::TroopType ToPb(Troop t) {
  switch (t) {
    case Troop::kSamurai:
      return pb::TROOP_TYPE_SAMURAI;
    case Troop::kAshigaru:
      return pb::TROOP_TYPE_ASHIGARU;
    case Troop::kRonin:
      return pb::TROOP_TYPE_RONIN;
    case Troop::kMonk:
      return pb::TROOP_TYPE_WARRIOR_MONK;
    case Troop::kPeasant:
      return pb::TROOP_TYPE_PEASANT;
    case Troop::kHatamoto:
      return pb::TROOP_TYPE_HATAMOTO;
    case Troop::kHeadquarters:
      return pb::TROOP_TYPE_HEADQUARTERS;
  }
  return pb::TROOP_TYPE_UNSPECIFIED;
}
pb::Quality ToPb(Quality q) {
  return static_cast<pb::Quality>(static_cast<int>(q) + 1);
}
pb::Armour ToPb(Armour a) {
  return static_cast<pb::Armour>(static_cast<int>(a) + 1);
}
pb::MeleeWeapon ToPb(MeleeWeapon m) {
  return static_cast<pb::MeleeWeapon>(static_cast<int>(m) + 1);
}
pb::MissileWeapon ToPb(Missile m) {
  return static_cast<pb::MissileWeapon>(static_cast<int>(m) + 1);
}
pb::Formation ToPb(Formation f) {
  return static_cast<pb::Formation>(static_cast<int>(f) + 1);
}
pb::MoraleResult ToPb(MoraleResult r) {
  switch (r) {
    case MoraleResult::kNoEffect:
      return pb::MORALE_RESULT_NO_EFFECT;
    case MoraleResult::kHalt:
      return pb::MORALE_RESULT_HALT;
    case MoraleResult::kRetire:
      return pb::MORALE_RESULT_RETIRE;
    case MoraleResult::kRetreat:
      return pb::MORALE_RESULT_RETREAT;
    case MoraleResult::kRout:
      return pb::MORALE_RESULT_ROUT;
    case MoraleResult::kStandOrRetire:
      return pb::MORALE_RESULT_STAND_OR_RETIRE;
    case MoraleResult::kCounterCharge:
      return pb::MORALE_RESULT_COUNTER_CHARGE;
    case MoraleResult::kCharge:
      return pb::MORALE_RESULT_CHARGE;
    case MoraleResult::kRally:
      return pb::MORALE_RESULT_RALLY;
    case MoraleResult::kDispersed:
      return pb::MORALE_RESULT_DISPERSED;
    case MoraleResult::kFrenzy:
      return pb::MORALE_RESULT_FRENZY;
  }
  return pb::MORALE_RESULT_UNSPECIFIED;
}

}  // namespace gunbai::reference
