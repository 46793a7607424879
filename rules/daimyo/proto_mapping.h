// Maps the gunbai.v1 protos of a Daimyo log to the rules engine's domain
// types (Cartographer's FromProto): the starting state from the order of
// battle, and a firing's shot. Thread-safe: functions only.
#ifndef GUNBAI_RULES_DAIMYO_PROTO_MAPPING_H_
#define GUNBAI_RULES_DAIMYO_PROTO_MAPPING_H_

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "rules/battle_state.h"
#include "rules/daimyo/firing.h"
#include "rules/proto_enums.h"

namespace gunbai::rules::daimyo {

// Builds the starting state from a log's header and order of battle.
// Returns InvalidArgument naming the unit, leader or clan (by index and id)
// when an entry is unusable, and saying what to fix.
absl::StatusOr<BattleState> StateFromOrderOfBattle(
    const gunbai::v1::BattleLog& log);

// Builds a Shot for resolved unit indexes; its dice borrow from `firing`.
Shot ShotFromProto(const gunbai::v1::Firing& firing, int firer, int target);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_PROTO_MAPPING_H_
