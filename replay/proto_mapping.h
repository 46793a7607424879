// Maps between the gunbai.v1 protos and the rules engine's domain types
// (Cartographer's FromProto/ToProto) that every ruleset shares; a ruleset's
// own mapping lives beside its engine (rules/daimyo/proto_mapping.h).
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_PROTO_MAPPING_H_
#define GUNBAI_REPLAY_PROTO_MAPPING_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/state.pb.h"
#include "rules/battle_state.h"
#include "rules/engine.h"
#include "rules/proto_enums.h"
#include "rules/types.h"

namespace gunbai::replay {

using rules::OriginToProto;  // rules/engine.h
using rules::SeverityToProto;
// The enum mappings every ruleset shares (rules/proto_enums.h).
using rules::BandFromProto;
using rules::FormationFromProto;
using rules::MoraleResultFromProto;
using rules::MoraleResultToProto;

// The version of the state digest SnapshotFromState writes (state.proto,
// BattleStateSnapshot.digest_version): 2 covers each unit's formation,
// front width and position on the table besides what version 1 did.
inline constexpr std::uint32_t kStateDigestVersion = 2;

// Returns a snapshot of `state` with its digest (version 2) filled in.
gunbai::v1::BattleStateSnapshot SnapshotFromState(
    const rules::BattleState& state);

// The version 1 digest of `state` (without formation, front width and
// position), which logs and reports written before version 2 carry: a
// starting position's digest of either version is checked.
std::string StateDigestV1(const rules::BattleState& state);

// Returns `snapshot` as a log's starting position: the same fields, by
// name and number (battle_log.proto), the digest kept, so that the log of
// the events after it starts where the snapshot's game stood.
gunbai::v1::StartingPosition StartingPositionFromSnapshot(
    const gunbai::v1::BattleStateSnapshot& snapshot);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_PROTO_MAPPING_H_
