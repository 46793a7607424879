#include "rules/proto_enums.h"

namespace gunbai::rules {

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

Armour ArmourFromProto(v1::Armour a) {
  switch (a) {
    case v1::ARMOUR_LIGHT:
      return Armour::kLight;
    case v1::ARMOUR_MEDIUM:
      return Armour::kMedium;
    case v1::ARMOUR_HEAVY:
      return Armour::kHeavy;
    default:
      return Armour::kNone;
  }
}

MissileWeapon MissileFromProto(v1::MissileWeapon w) {
  switch (w) {
    case v1::MISSILE_WEAPON_BOW:
      return MissileWeapon::kBow;
    case v1::MISSILE_WEAPON_ARQUEBUS:
      return MissileWeapon::kArquebus;
    default:
      return MissileWeapon::kNone;
  }
}

std::optional<MeleeWeapon> NamedMeleeWeaponFromProto(v1::MeleeWeapon w) {
  switch (w) {
    case v1::MELEE_WEAPON_LONG_SPEAR:
      return MeleeWeapon::kLongSpear;
    case v1::MELEE_WEAPON_POLE_ARM:
      return MeleeWeapon::kPoleArm;
    case v1::MELEE_WEAPON_IMPROVISED:
      return MeleeWeapon::kImprovised;
    case v1::MELEE_WEAPON_LANCE:
      return MeleeWeapon::kLance;
    case v1::MELEE_WEAPON_SWORD:
      return MeleeWeapon::kSword;
    default:
      return std::nullopt;
  }
}

MeleeWeapon MeleeFromProto(v1::MeleeWeapon w) {
  return NamedMeleeWeaponFromProto(w).value_or(MeleeWeapon::kNone);
}

RangeBand BandFromProto(v1::RangeBand b) {
  switch (b) {
    case v1::RANGE_BAND_LONG:
      return RangeBand::kLong;
    case v1::RANGE_BAND_OUT_OF_RANGE:
      return RangeBand::kOutOfRange;
    default:
      return RangeBand::kEffective;
  }
}

v1::RangeBand BandToProto(RangeBand b) {
  switch (b) {
    case RangeBand::kEffective:
      return v1::RANGE_BAND_EFFECTIVE;
    case RangeBand::kLong:
      return v1::RANGE_BAND_LONG;
    case RangeBand::kOutOfRange:
      break;
  }
  return v1::RANGE_BAND_OUT_OF_RANGE;
}

Formation FormationFromProto(v1::Formation f) {
  switch (f) {
    case v1::FORMATION_COLUMN:
      return Formation::kColumn;
    case v1::FORMATION_BUILDING:
      return Formation::kBuilding;
    default:
      return Formation::kLine;
  }
}

v1::Formation FormationToProto(Formation f) {
  switch (f) {
    case Formation::kColumn:
      return v1::FORMATION_COLUMN;
    case Formation::kBuilding:
      return v1::FORMATION_BUILDING;
    case Formation::kLine:
      break;
  }
  return v1::FORMATION_LINE;
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

v1::MoraleResult MoraleResultToProto(MoraleResult r) {
  switch (r) {
    case MoraleResult::kNoEffect:
      return v1::MORALE_RESULT_NO_EFFECT;
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
  }
  return v1::MORALE_RESULT_NO_EFFECT;
}

}  // namespace gunbai::rules
