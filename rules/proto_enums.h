// The one mapping between the proto enums of battle logs and rulesets and
// the domain enums of rules/types.h, for every ruleset's proto adapter and
// for replay/. Thread-safe: functions only.
#ifndef GUNBAI_RULES_PROTO_ENUMS_H_
#define GUNBAI_RULES_PROTO_ENUMS_H_

#include <optional>

#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "rules/types.h"

namespace gunbai::rules {

// Each returns nothing for the UNSPECIFIED value or a number the schema
// does not name.
std::optional<TroopType> TroopTypeFromProto(gunbai::v1::TroopType t);
std::optional<Mobility> MobilityFromProto(gunbai::v1::Mobility m);
std::optional<Quality> QualityFromProto(gunbai::v1::Quality q);
// Each reads UNSPECIFIED (and an unnamed number) as "none": no armour, no
// missile weapon, no melee weapon.
Armour ArmourFromProto(gunbai::v1::Armour a);
MissileWeapon MissileFromProto(gunbai::v1::MissileWeapon w);
// Nothing for UNSPECIFIED or an unnamed number, unlike MeleeFromProto.
std::optional<MeleeWeapon> NamedMeleeWeaponFromProto(gunbai::v1::MeleeWeapon w);
MeleeWeapon MeleeFromProto(gunbai::v1::MeleeWeapon w);
// UNSPECIFIED reads as effective range.
RangeBand BandFromProto(gunbai::v1::RangeBand b);
gunbai::v1::RangeBand BandToProto(RangeBand b);
// UNSPECIFIED reads as line.
Formation FormationFromProto(gunbai::v1::Formation f);
gunbai::v1::Formation FormationToProto(Formation f);
// UNSPECIFIED reads as no effect.
MoraleResult MoraleResultFromProto(gunbai::v1::MoraleResult r);
// The inverse, for claims written into a what-if branch or a generated log.
gunbai::v1::MoraleResult MoraleResultToProto(MoraleResult r);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_PROTO_ENUMS_H_
