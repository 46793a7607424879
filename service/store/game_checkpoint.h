// Checkpoints of a live game's replay, as gunbaid stores them
// (GameStore::WriteCheckpoint): the engine's bytes (rules::Engine::
// SaveCheckpoint), the findings reported so far, and a SHA-256 over both,
// which is checked before a checkpoint is trusted. A checkpoint that fails
// its digest or its restore is ignored and the game replayed whole.
// Thread-safe: functions only.
#ifndef GUNBAI_SERVICE_STORE_GAME_CHECKPOINT_H_
#define GUNBAI_SERVICE_STORE_GAME_CHECKPOINT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/report.pb.h"
#include "rules/engine.h"
#include "service/store/game_store.h"

namespace gunbai::service {

// Events between two checkpoints of a game (gunbaid --checkpoint-every):
// a game is replayed from its last checkpoint, at most this many events,
// when gunbaid loads it.
inline constexpr int kDefaultCheckpointEvery = 10000;

// Returns the digest a checkpoint carries: SHA-256 hex over the engine's
// bytes and the findings' (framed by the first one's length).
std::string CheckpointDigest(absl::string_view state,
                             absl::string_view findings);

// Returns the checkpoint of `engine`, which has applied the game's first
// `after_version` events, the last with seq `after_seq` and chain hash
// `head_hash`, under the ruleset of digest `ruleset_digest`, and reported
// `findings`. Returns UNIMPLEMENTED for an engine without checkpoints.
absl::StatusOr<StoredCheckpoint> MakeCheckpoint(
    const rules::Engine& engine,
    const google::protobuf::RepeatedPtrField<gunbai::v1::Finding>& findings,
    uint64_t after_version, uint64_t after_seq, absl::string_view head_hash,
    absl::string_view ruleset_digest);

// Checks `checkpoint`'s digest, then restores it into `engine`, freshly
// created, and puts its findings into `findings` (replacing what is there).
// Returns DATA_LOSS when the digest or the findings do not check out, or
// the engine's error (rules::Engine::RestoreCheckpoint); `engine` and
// `findings` are then unusable for a replay: create them afresh.
absl::Status RestoreFromCheckpoint(
    const StoredCheckpoint& checkpoint, rules::Engine& engine,
    google::protobuf::RepeatedPtrField<gunbai::v1::Finding>& findings);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_STORE_GAME_CHECKPOINT_H_
