#include "rules/skf/proto_enums.h"

namespace gunbai::rules::skf {

namespace v1 = ::gunbai::v1;

std::optional<TroopType> TroopTypeFromProto(v1::TroopType t) {
  switch (t) {
    case v1::TROOP_TYPE_SAMURAI:
      return TroopType::kSamurai;
    case v1::TROOP_TYPE_ASHIGARU:
      return TroopType::kAshigaru;
    case v1::TROOP_TYPE_RONIN:
      return TroopType::kRonin;
    case v1::TROOP_TYPE_WARRIOR_MONK:
      return TroopType::kWarriorMonk;
    case v1::TROOP_TYPE_PEASANT:
      return TroopType::kPeasant;
    case v1::TROOP_TYPE_HATAMOTO:
      return TroopType::kHatamoto;
    case v1::TROOP_TYPE_HEADQUARTERS:
      return TroopType::kHeadquarters;
    case v1::TROOP_TYPE_LEGENDARY_SAMURAI:
      return TroopType::kLegendarySamurai;
    default:
      return std::nullopt;
  }
}

std::optional<Mobility> MobilityFromProto(v1::Mobility m) {
  switch (m) {
    case v1::MOBILITY_FOOT:
      return Mobility::kFoot;
    case v1::MOBILITY_MOUNTED:
      return Mobility::kMounted;
    default:
      return std::nullopt;
  }
}

std::optional<Quality> QualityFromProto(v1::Quality q) {
  switch (q) {
    case v1::QUALITY_ELITE:
      return Quality::kElite;
    case v1::QUALITY_VETERAN:
      return Quality::kVeteran;
    case v1::QUALITY_SEASONED:
      return Quality::kSeasoned;
    case v1::QUALITY_RAW:
      return Quality::kRaw;
    default:
      return std::nullopt;
  }
}

v1::MoraleResult MoraleResultToProto(MoraleResult r) {
  switch (r) {
    case MoraleResult::kHalt:
      return v1::MORALE_RESULT_HALT;
    case MoraleResult::kRetire:
      return v1::MORALE_RESULT_RETIRE;
    case MoraleResult::kRetreat:
      return v1::MORALE_RESULT_RETREAT;
    case MoraleResult::kRout:
      return v1::MORALE_RESULT_ROUT;
    case MoraleResult::kStandOrRetire:
      return v1::MORALE_RESULT_STAND_OR_RETIRE;
    case MoraleResult::kCounterCharge:
      return v1::MORALE_RESULT_COUNTER_CHARGE;
    case MoraleResult::kCharge:
      return v1::MORALE_RESULT_CHARGE;
    case MoraleResult::kRally:
      return v1::MORALE_RESULT_RALLY;
    case MoraleResult::kDispersed:
      return v1::MORALE_RESULT_DISPERSED;
    case MoraleResult::kFrenzy:
      return v1::MORALE_RESULT_FRENZY;
    default:
      return v1::MORALE_RESULT_NO_EFFECT;
  }
}

MoraleResult MoraleResultFromProto(v1::MoraleResult r) {
  switch (r) {
    case v1::MORALE_RESULT_HALT:
      return MoraleResult::kHalt;
    case v1::MORALE_RESULT_RETIRE:
      return MoraleResult::kRetire;
    case v1::MORALE_RESULT_RETREAT:
      return MoraleResult::kRetreat;
    case v1::MORALE_RESULT_ROUT:
      return MoraleResult::kRout;
    case v1::MORALE_RESULT_STAND_OR_RETIRE:
      return MoraleResult::kStandOrRetire;
    case v1::MORALE_RESULT_COUNTER_CHARGE:
      return MoraleResult::kCounterCharge;
    case v1::MORALE_RESULT_CHARGE:
      return MoraleResult::kCharge;
    case v1::MORALE_RESULT_RALLY:
      return MoraleResult::kRally;
    case v1::MORALE_RESULT_DISPERSED:
      return MoraleResult::kDispersed;
    case v1::MORALE_RESULT_FRENZY:
      return MoraleResult::kFrenzy;
    default:
      return MoraleResult::kNoEffect;
  }
}

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
