// What a live game makes of one batch of appended events (gunbaid's
// AppendEvents), before anything is stored: whether the caller may append
// each event, the server's dice rolled into events declared without them,
// each event applied to the game's engine, chained and given its findings,
// and whether a strict game refuses the batch. The store, the cache and the
// answer are the caller's. Thread-compatible: one batch at a time per game.
#ifndef GUNBAI_REPLAY_LIVE_BATCH_H_
#define GUNBAI_REPLAY_LIVE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"

namespace gunbai::replay {

// The most events gunbaid stores in one batch (GameStore::kMaxBatchEvents):
// a request's and the turn_start gunbaid may add to it.
inline constexpr std::size_t kMaxLiveBatchEvents = 10'000;

// The type URL of the AppendRefusal a strict game's refusal carries as a
// payload of its status (and gunbaid as the status's details).
inline constexpr char kAppendRefusalTypeUrl[] =
    "type.googleapis.com/gunbai.v1.AppendRefusal";

// The game a batch is played into, and who sends it.
struct LiveBatchGame {
  absl::string_view game_id;
  const gunbai::v1::GameSettings* settings = nullptr;
  const LoadedRuleset* ruleset = nullptr;
  // The key the server's dice are drawn with (replay/server_dice.h), and
  // the batch's dice attempt, taken durably before any die is rolled. Used
  // only when settings->dice_mode() is DICE_MODE_SERVER.
  absl::string_view dice_key;
  std::uint64_t dice_attempt = 0;
  // The game's chain head before the batch (its genesis for a new game).
  absl::string_view head;
  // The caller: the umpire may append any event, a player only those its
  // clan acts in (Event.clan), under the turn rules of
  // game_service.proto ("Turns in a live game").
  bool umpire = false;
  absl::string_view clan;
};

// Returns InvalidArgument, naming the event and what to do, unless every
// event's seq is greater than the one before it, the first greater than
// `last_seq`.
absl::Status CheckBatchSeqsIncrease(
    const gunbai::v1::AppendEventsRequest& batch, std::uint64_t last_seq);

// Plays `batch`'s events (moved out of it) through `engine`, whose
// findings it writes into `findings`, and returns them as they would be
// stored: each with its event id, dice attempt, chain hash, the findings
// it raised and the outcomes the engine worked out (without traces). With
// server dice, a batch whose last event is a clan's turn_end that ends the
// turn gets the next turn_start (event id "gunbaid:turn_start:seq=N", its
// initiative dice rolled and its initiative clan from them) after it; a
// turn_start naming no initiative clan gets one from its dice. On an error
// nothing is to be stored, and `engine` and `findings` have taken part of
// the batch (the caller replays the game again): PermissionDenied for an
// event a player may not append, FailedPrecondition for a player's event
// after its clan ended the turn (but what the turn's end owes) and when
// the game is strict and the batch breaks a rule (the violations listed,
// and as an AppendRefusal payload under kAppendRefusalTypeUrl),
// InvalidArgument for one the server cannot roll for.
absl::StatusOr<std::vector<gunbai::v1::StoredEvent>> PlayLiveBatch(
    const LiveBatchGame& game, gunbai::v1::AppendEventsRequest& batch,
    rules::Engine& engine,
    google::protobuf::RepeatedPtrField<gunbai::v1::Finding>& findings);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LIVE_BATCH_H_
