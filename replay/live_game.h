// A live game as gunbaid keeps it between calls, and the rules of an append
// below gRPC: the game's accepted events (their ids, chain hashes and dice
// attempts), their replay (the engine and its findings), and
// AppendToLiveGame, which takes a batch through every check an append
// makes, plays it (replay/live_batch.h), stores it through a
// LiveGameJournal and takes it into the game, or refuses it and says the
// game must be replayed again (its undo). The journal is the store as an
// append needs it (gunbaid's GameStore behind it), so an append is read and
// tested without gRPC or a database (tests/replay/live_game_test.cc).
// Thread-compatible: the caller serializes the calls on one game.
#ifndef GUNBAI_REPLAY_LIVE_GAME_H_
#define GUNBAI_REPLAY_LIVE_GAME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/merkle.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"

namespace gunbai::replay {

// The refusal of a batch built on `expected_version` events when the game
// holds `version` (the one stale-version rule of gunbaid and its stores):
// ABORTED, saying what to read and how to go on. Behind the game, the
// caller reads from `next_seq`, the seq of the first event it has not seen
// (the event at position expected_version + 1), then does what `then` says
// ("retry"); ahead of it (a version the game never had), it reads the game
// from the start and retries.
absl::Status StaleVersionError(std::uint64_t expected_version,
                               std::uint64_t version, std::int64_t next_seq,
                               absl::string_view then = "retry");

// The settings a new live game is created with, from those `asked`: the
// policy strict and the dice recorded unless asked otherwise; bound to
// `ruleset`, byte for byte (its digest: one asked for must be it, in any
// case of hex digits) and to the chain's current terms; server dice only
// under a ruleset that says how many dice each kind of event rolls.
// InvalidArgument otherwise, naming the setting and saying that nothing was
// created.
absl::StatusOr<gunbai::v1::GameSettings> NewGameSettings(
    const gunbai::v1::GameSettings& asked, const LoadedRuleset& ruleset);

// InvalidArgument, naming the clan, unless each player's seed is hex of at
// most 128 bytes.
absl::Status CheckPlayerSeeds(
    const google::protobuf::RepeatedPtrField<gunbai::v1::PlayerSeed>& seeds);

// The store of a live game as an append needs it. gunbaid's adapter puts a
// GameStore (service/store/game_store.h, where each call is specified)
// behind it, with the game it serves.
class LiveGameJournal {
 public:
  virtual ~LiveGameJournal() = default;
  // The answer stored with the batch whose first event id is
  // `first_event_id`, or nullopt when none was stored.
  virtual absl::StatusOr<std::optional<std::string>> FindBatch(
      absl::string_view first_event_id) = 0;
  // Brings the game up to date with the store, when another writer (a
  // replica) may have appended to it.
  virtual absl::Status CatchUp() = 0;
  // Takes the next server-dice attempt, durably before it returns.
  virtual absl::StatusOr<std::uint64_t> NextDiceAttempt() = 0;
  // Stores `events` after `expected_version` and `answer` with them, all or
  // nothing. When the batch (its first event id) is stored already, by a
  // call that got there first (a retry sent at once, through this replica
  // or another), nothing is written and its stored answer is returned;
  // nullopt when this call stored it.
  virtual absl::StatusOr<std::optional<std::string>> Append(
      std::uint64_t expected_version,
      const std::vector<gunbai::v1::StoredEvent>& events,
      absl::string_view answer) = 0;
  // Marks the game ended.
  virtual absl::Status MarkEnded() = 0;
};

// A live game's accepted events and their replay.
struct LiveGame {
  // The game's id (GameRecord.game_id).
  std::string id;
  // The game's header, order of battle, table, terrain and accepted events.
  gunbai::v1::BattleLog log;
  // Each accepted event's id, chain hash and dice attempt, in log order.
  std::vector<std::string> event_ids;
  std::vector<std::string> chain_hashes;
  std::vector<std::uint64_t> dice_attempts;
  // The events as the leaves of an RFC 9162 Merkle tree (replay/merkle.h),
  // each leaf an event's canonical (deterministic) bytes, the bytes its
  // chain hash is taken over: filled as events are absorbed.
  MerkleTree tree;
  // The replay of `log` (null when the rules are not to be applied) and the
  // findings it raised.
  const LoadedRuleset* ruleset = nullptr;
  std::unique_ptr<rules::Engine> engine;
  google::protobuf::RepeatedPtrField<gunbai::v1::Finding> findings;
  // The key the server's dice are drawn with (replay/server_dice.h).
  std::string dice_key;
  // The chain head of the game before its first event (GameGenesis).
  std::string genesis;
  // Whether the game is ended (its record's mark).
  bool ended = false;
  // False until the game is loaded, and again when `engine` may have run
  // past `log` (a refused batch) or the store may hold something else (a
  // write that failed): the owner loads the game again before using it.
  bool loaded = false;

  std::uint64_t version() const { return event_ids.size(); }
  // The seq of the last accepted event; 0 when there is none.
  std::uint64_t last_seq() const;
  // The chain head after the last accepted event (`genesis` before one).
  const std::string& head() const;
  // Empties the game and starts it again, not loaded and with no engine,
  // from a game's skeleton: `header`, `order_of_battle`, and the table and
  // terrain of `field` (a log that holds no events).
  void Reset(const gunbai::v1::Header& header,
             const gunbai::v1::OrderOfBattle& order_of_battle,
             const gunbai::v1::BattleLog& field);
  // Moves `events` into the game, each freed as it goes, and applies those
  // from position `replay_from` on to `engine` (when there is one). Returns
  // whether one of them ends the game.
  bool Absorb(std::vector<gunbai::v1::StoredEvent>& events,
              std::size_t replay_from);
};

// Gives `game` (Reset, its log's header read) the engine of `ruleset`,
// unless the game is bound to another ruleset: `bound_digest`, when not
// empty, is the digest of the one it was created under. Replaying it under
// other tables would judge its events by rules it was not played under, so
// then it gets no engine (its events are still served) and `problem` says
// so, and how to go on: FailedPrecondition naming both rulesets. Returns
// an error only when the engine cannot be made.
absl::Status ReplayUnderRuleset(LiveGame& game, const LoadedRuleset& ruleset,
                                absl::string_view bound_digest,
                                absl::Status& problem);

// Who appends a batch, and under which settings.
struct LiveAppender {
  const gunbai::v1::GameSettings* settings = nullptr;
  // The umpire may append any event; a player those its clan acts in.
  bool umpire = false;
  absl::string_view clan;
};

// What an accepted (or answered again) batch did.
struct AppendedBatch {
  // The AppendEventsResponse, serialized as it is stored and sent.
  std::string answer;
  // True when the batch was sent before: `answer` is its first answer and
  // nothing else was done.
  bool retried = false;
  // The game's version before the batch; the events it added; the index in
  // LiveGame::findings of the batch's first finding.
  std::uint64_t version_before = 0;
  std::size_t events = 0;
  int first_finding = 0;
  // True when the batch ended the game (marked in the journal).
  bool ended = false;
};

// Appends `request`'s batch (its events moved out) to `game`, the rules of
// an append in order:
//  1. a batch stored before (its first event id) gets its first answer;
//  2. a batch built on another version than the game's is refused
//     (StaleVersionError), after catching up with the journal and looking
//     the batch up again (stored meanwhile, it gets its first answer);
//  3. an ended game takes nothing (FailedPrecondition);
//  4. seqs increase from the game's last (InvalidArgument);
//  5. in server-dice mode the batch's dice attempt is taken, durably,
//     before any die is rolled (a refused batch burns it);
//  6. the batch is played (PlayLiveBatch: who may append what, the server's
//     dice, the rules, a strict game's refusal) and chained;
//  7. the batch is stored with its answer, then taken into the game; a
//     batch with game_end marks the game ended. A batch the journal finds
//     stored by a call that got there first gets that call's answer, and
//     the game is to be loaded again (its engine played this copy).
// On a refusal after step 5 nothing is stored or taken into `game`; when
// the engine already took part of the batch, or a write failed,
// `game.loaded` turns false: the game is to be loaded again (the undo).
// `game` must be loaded, with an engine.
absl::StatusOr<AppendedBatch> AppendToLiveGame(
    LiveGame& game, const LiveAppender& appender, LiveGameJournal& journal,
    gunbai::v1::AppendEventsRequest& request);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LIVE_GAME_H_
