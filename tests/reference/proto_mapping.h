// The reference model's types in the log's schema: the only place the two
// meet (the generated protobuf enums). Pure functions; thread-safe.
#ifndef GUNBAI_TESTS_REFERENCE_PROTO_MAPPING_H_
#define GUNBAI_TESTS_REFERENCE_PROTO_MAPPING_H_

#include "gunbai/v1/battle_log.pb.h"
#include "tests/reference/model.h"

namespace gunbai::reference {

gunbai::v1::TroopType ToPb(Troop t);
gunbai::v1::Quality ToPb(Quality q);
gunbai::v1::Armour ToPb(Armour a);
gunbai::v1::MeleeWeapon ToPb(MeleeWeapon m);
gunbai::v1::MissileWeapon ToPb(Missile m);
gunbai::v1::Formation ToPb(Formation f);
gunbai::v1::MoraleResult ToPb(MoraleResult r);

}  // namespace gunbai::reference

#endif  // GUNBAI_TESTS_REFERENCE_PROTO_MAPPING_H_
