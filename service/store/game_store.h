// The storage of live games: each game's record (header, order of battle,
// settings, dice commitment and secret, credential hashes) and its
// append-only stream of chained events. A GameStore only keeps what it is
// given; replaying, chaining and checking the events is the caller's work
// (service/game_service), so that a server database can replace the SQLite
// file without touching replay.
//
// The stream of a game has a version: the number of events it holds. An
// event's position in the stream is 1-based, so the version after an event
// equals its position. Appends are optimistic: the caller says which version
// it built its batch on, and a batch built on a stale version is refused
// whole.
//
// Thread safety: implementations must be safe to call from many threads at
// once; each call is atomic on its own.
#ifndef GUNBAI_SERVICE_STORE_GAME_STORE_H_
#define GUNBAI_SERVICE_STORE_GAME_STORE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"

namespace gunbai::service {

// Everything about a game except its events.
struct GameRecord {
  std::string game_id;
  gunbai::v1::Header header;
  gunbai::v1::OrderOfBattle order_of_battle;
  // The table and terrain of a game with positions: a BattleLog holding
  // only `table` and `terrain`; empty for a game without.
  gunbai::v1::BattleLog field;
  gunbai::v1::GameSettings settings;
  // GetGame fills dice.revealed_secret from secret_hex once the game has
  // ended, and leaves it empty before; CreateGame ignores it.
  gunbai::v1::DiceCommitment dice;
  // The dice secret (hex), kept server-side.
  std::string secret_hex;
  // (clan, SHA-256 hex of the clan's token), one per clan, in order.
  std::vector<std::pair<std::string, std::string>> credential_hashes;
  bool ended = false;
};

// A checkpoint of a game's replay (rules::Engine::SaveCheckpoint) after its
// first `after_version` events, so that gunbaid need not replay a long game
// from its first event when it loads it. The store keeps what it is given;
// the caller (service/store/game_checkpoint.h) computes and checks the digest.
struct StoredCheckpoint {
  // Events of the game it follows, the seq of the last and its chain hash.
  uint64_t after_version = 0;
  uint64_t after_seq = 0;
  std::string head_hash;
  // The SHA-256 hex of the ruleset it was replayed under, and the engine's
  // checkpoint format (rules::Engine::CheckpointVersion).
  std::string ruleset_digest;
  uint32_t format = 0;
  // The engine's bytes, the findings reported so far (serialized), and the
  // SHA-256 hex over both.
  std::string state;
  std::string findings;
  std::string sha256;
};

// A player's cosignature of one of the game's Merkle checkpoints (issue
// 34): the clan, the size of the tree the checkpoint signs, and the
// player's signature line of the C2SP note ("— NAME BASE64").
struct StoredCosignature {
  std::string clan;
  uint64_t tree_size = 0;
  std::string signature_line;
};

// The checkpoint keys a game's players registered, and their cosignatures.
struct GameWitnesses {
  // (clan, verifier key "NAME+HEX(id)+BASE64"), in clan order.
  std::vector<std::pair<std::string, std::string>> keys;
  // By tree size, then clan.
  std::vector<StoredCosignature> cosignatures;
};

// What an accepted batch left behind.
struct AppendResult {
  // Events in the game after the batch.
  uint64_t version = 0;
  // The chain_hash of the batch's last event. (The answer stored with the
  // batch is the caller's; FindBatch gives it back.)
  std::string head_hash;
  // Set when the batch (its first event id) was already stored, by another
  // call that got there first (a client's retry sent while its first call
  // was in flight, on this replica or another): its stored answer. Nothing
  // was written; `version` and `head_hash` are empty.
  std::optional<std::string> stored_answer;
};

class GameStore;

// Returns INVALID_ARGUMENT for a batch every GameStore::Append refuses before
// looking at its store: empty, over kMaxBatchEvents events, an event over
// kMaxStoredEventBytes, an empty event_id or chain_hash, an id twice, or a
// seq over INT64_MAX; OK otherwise.
absl::Status CheckAppendBatch(
    const std::vector<gunbai::v1::StoredEvent>& events);

// The other checks and answers every store gives alike, written once: the
// stores hold only their SQL.
//  - INVALID_ARGUMENT for a new game without an id, or with a clan given
//    two credentials (CreateGame);
absl::Status CheckNewGame(const GameRecord& game);
//  - INVALID_ARGUMENT for a dice attempt (RaiseDiceAttempts) or a
//    checkpoint's version or seq (WriteCheckpoint) over INT64_MAX, the
//    largest a store's integer column holds;
absl::Status CheckDiceAttempts(uint64_t taken);
absl::Status CheckCheckpoint(const StoredCheckpoint& checkpoint);
//  - NOT_FOUND for a game the store does not hold, ALREADY_EXISTS for a new
//    game whose id it does.
absl::Status NoGameError(absl::string_view game_id);
//  - ALREADY_EXISTS for a clan whose checkpoint key is another
//    (RegisterWitnessKey); INVALID_ARGUMENT for a cosignature without a
//    clan or a line, or of a tree size over INT64_MAX (AddCosignature).
absl::Status WitnessKeyTakenError(absl::string_view clan);
absl::Status CheckCosignature(const StoredCosignature& cosignature);
absl::Status GameExistsError(absl::string_view game_id);

class GameStore {
 public:
  // Bounds on one Append; larger batches are refused with INVALID_ARGUMENT.
  static constexpr size_t kMaxBatchEvents = 10'000;
  static constexpr size_t kMaxStoredEventBytes = size_t{1} << 20;

  virtual ~GameStore() = default;

  // Stores a new game with no events. Returns ALREADY_EXISTS if the id is
  // taken, INVALID_ARGUMENT for an empty id or a clan with two credentials.
  virtual absl::Status CreateGame(const GameRecord& game) = 0;

  // Returns the record of `game_id`, or NOT_FOUND for an unknown id.
  virtual absl::StatusOr<GameRecord> GetGame(absl::string_view game_id) = 0;

  // Returns the ids of all games, sorted.
  virtual absl::StatusOr<std::vector<std::string>> ListGames() = 0;

  // Returns the answer stored with the batch of `game_id` whose first event
  // id is `first_event_id`, or nullopt when there is none. Returns NOT_FOUND
  // for an unknown game. A retried batch is answered from here.
  virtual absl::StatusOr<std::optional<std::string>> FindBatch(
      absl::string_view game_id, absl::string_view first_event_id) = 0;

  // Appends `events` (already chained: each has its event_id and
  // chain_hash) to `game_id` atomically, and stores `answer` with the batch
  // under its first event id. Returns once the write is durable. Nothing is
  // written unless OK comes back. The store checks neither seqs nor chain
  // hashes. Returns, checked in this order:
  //  - INVALID_ARGUMENT for an empty batch, more than kMaxBatchEvents
  //    events, an event over kMaxStoredEventBytes serialized, an empty
  //    event_id or chain_hash, an id twice in the batch, or a seq over
  //    INT64_MAX;
  //  - NOT_FOUND for an unknown game;
  //  - OK with `stored_answer` when the whole batch is already stored: it
  //    is looked up again under the game's lock before any refusal below,
  //    so concurrent identical retries on any replicas are all answered;
  //  - ALREADY_EXISTS if any event id is already stored (a partial retry);
  //  - ABORTED unless the game holds exactly `expected_version`
  //    events, with the current version in the message ("stale version 3:
  //    the game has 5 events; read from seq 4 and retry").
  virtual absl::StatusOr<AppendResult> Append(
      absl::string_view game_id, uint64_t expected_version,
      const std::vector<gunbai::v1::StoredEvent>& events,
      absl::string_view answer) = 0;

  // Returns the events of `game_id` with seq >= `from_seq` (all when 0), in
  // stream order. Returns NOT_FOUND for an unknown game.
  virtual absl::StatusOr<std::vector<gunbai::v1::StoredEvent>> ReadEvents(
      absl::string_view game_id, uint64_t from_seq) = 0;

  // Returns the first events of `game_id` with seq >= `from_seq` (from the
  // start when 0), in stream order: as many as fit in `max_bytes` stored
  // (serialized), and always at least one, so that a page holds at most
  // max_bytes + kMaxStoredEventBytes. `next_seq` is the seq of the first
  // event left out, 0 when the page reaches the last event. Returns
  // NOT_FOUND for an unknown game.
  struct EventPage {
    std::vector<gunbai::v1::StoredEvent> events;
    uint64_t next_seq = 0;
  };
  virtual absl::StatusOr<EventPage> ReadEventPage(absl::string_view game_id,
                                                  uint64_t from_seq,
                                                  size_t max_bytes) = 0;

  // Returns the number of events of `game_id`, or NOT_FOUND.
  virtual absl::StatusOr<uint64_t> Version(absl::string_view game_id) = 0;

  // Takes the next server-dice attempt number of `game_id`: 1 on the first
  // call, then 2, 3, ... Durable when it returns, so no number is handed out
  // twice, even across a crash; the caller rolls a batch's dice under it
  // whether the batch is then accepted or refused. Returns NOT_FOUND for an
  // unknown game.
  virtual absl::StatusOr<uint64_t> NextDiceAttempt(
      absl::string_view game_id) = 0;

  // For copying a game to another store (gunbai store migrate):

  // A stored batch: its first event's id and the answer stored with it.
  struct StoredBatch {
    std::string first_event_id;
    std::string answer;
  };
  // Returns the batches of `game_id` in stream order (the order of their
  // first events), or NOT_FOUND.
  virtual absl::StatusOr<std::vector<StoredBatch>> ReadBatches(
      absl::string_view game_id) = 0;
  // Returns how many dice attempts of `game_id` were taken, or NOT_FOUND.
  virtual absl::StatusOr<uint64_t> DiceAttempts(absl::string_view game_id) = 0;
  // Raises the attempt counter of `game_id` to `taken` when it is lower
  // (the next NextDiceAttempt returns taken + 1), durably. NOT_FOUND for an
  // unknown game.
  virtual absl::Status RaiseDiceAttempts(absl::string_view game_id,
                                         uint64_t taken) = 0;

  // Marks `game_id` ended and reveals its secret in the record's
  // dice.revealed_secret. Marking an ended game again is OK and changes
  // nothing. Returns NOT_FOUND for an unknown game.
  virtual absl::Status MarkEnded(absl::string_view game_id) = 0;

  // Stores `checkpoint` of `game_id`, replacing the game's older ones.
  // Returns NOT_FOUND for an unknown game; the default, a store without
  // checkpoints, returns UNIMPLEMENTED.
  virtual absl::Status WriteCheckpoint(absl::string_view /*game_id*/,
                                       const StoredCheckpoint& /*checkpoint*/) {
    return absl::UnimplementedError("this store keeps no checkpoints");
  }

  // Returns the checkpoint of `game_id` with the most events, among those
  // replayed under `ruleset_digest` in checkpoint format `format`, or
  // nullopt when there is none (always, by default).
  virtual absl::StatusOr<std::optional<StoredCheckpoint>> LatestCheckpoint(
      absl::string_view /*game_id*/, absl::string_view /*ruleset_digest*/,
      uint32_t /*format*/) {
    return std::nullopt;
  }

  // Registers `verifier_key` as the checkpoint key of `clan` in `game_id`.
  // The same key again is OK and changes nothing; another key for a clan
  // that has one is ALREADY_EXISTS (a key is registered once). NOT_FOUND
  // for an unknown game; the default, a store without witnesses,
  // UNIMPLEMENTED.
  virtual absl::Status RegisterWitnessKey(absl::string_view /*game_id*/,
                                          absl::string_view /*clan*/,
                                          absl::string_view /*verifier_key*/) {
    return absl::UnimplementedError("this store keeps no checkpoint keys");
  }
  // Stores `cosignature` of `game_id`; the same clan's cosignature of the
  // same tree size again is OK and keeps the first. NOT_FOUND for an
  // unknown game; by default UNIMPLEMENTED.
  virtual absl::Status AddCosignature(
      absl::string_view /*game_id*/, const StoredCosignature& /*cosignature*/) {
    return absl::UnimplementedError("this store keeps no cosignatures");
  }
  // Returns the keys and cosignatures of `game_id`; NOT_FOUND for an
  // unknown game; by default none.
  virtual absl::StatusOr<GameWitnesses> ReadWitnesses(
      absl::string_view /*game_id*/) {
    return GameWitnesses();
  }

  // Called with the id of a game that has new events, or with "" when any
  // game may have (the store lost its notifications for a while). It runs on
  // a thread of the store's and must not call the store.
  using AppendListener = std::function<void(const std::string& game_id)>;

  // Registers `listener` for appends committed by any process sharing the
  // store, this one included, replacing an earlier one; an empty function
  // stops the calls. The default, a store no other process appends to,
  // never calls it.
  virtual void OnAppend(AppendListener /*listener*/) {}
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_STORE_GAME_STORE_H_
