// A GameStore in a PostgreSQL 15 database, through libpq, for several
// gunbaid processes (replicas) sharing one database. The guarantees come
// from the database, not from a process's mutex:
//  - each game's row is locked (SELECT ... FOR UPDATE) by an append, and
//    the expected version is compared with the row's version in the same
//    transaction as the inserts, so of two appends built on one version,
//    on any replicas, exactly one commits;
//  - (game, position), (game, seq) and (game, event id) are unique
//    constraints, and a batch's answer is keyed by (game, first event id);
//  - an append returns once its transaction has committed, durably
//    (synchronous_commit as the server has it: on by default);
//  - a dice attempt is taken by an UPDATE ... RETURNING that has committed
//    before it returns.
// Each committed append sends a notification (NOTIFY gunbai_appends, the
// game id as payload) that every replica's listener receives: a watch on
// one replica sees appends made through another (OnAppend).
//
// The schema carries its version in the table gunbai_schema and is migrated
// forward on Open, under an advisory lock, so replicas starting together
// migrate once; a database from a newer gunbai is refused.
//
// Connections: a pool of Options::connections, each used by one call at a
// time; a call waits for a free one. A connection the server dropped is
// reset before its next use; a call that lost its connection fails with
// UNAVAILABLE, saying whether anything may have been stored.
//
// Thread safety: thread-safe.
#ifndef GUNBAI_SERVICE_STORE_POSTGRES_GAME_STORE_H_
#define GUNBAI_SERVICE_STORE_POSTGRES_GAME_STORE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/store/game_store.h"

struct pg_conn;

namespace gunbai::service {

class PostgresGameStore final : public GameStore {
 public:
  struct Options {
    // Connections in the pool.
    int connections = 4;
    // The password, when it is given neither in the environment (PGPASSWORD)
    // nor in a password file (PGPASSFILE, ~/.pgpass); empty for none.
    std::string password;
    // How long Open waits for the server.
    absl::Duration connect_timeout = absl::Seconds(10);
  };

  // Connects to the database `uri` (a libpq connection URI, postgresql://
  // USER@HOST:PORT/DBNAME?..., or key=value words) and migrates its schema.
  // A password in `uri` is refused (INVALID_ARGUMENT): it would be seen in
  // the process list. Returns UNAVAILABLE when the server cannot be
  // reached or refuses the credentials, FAILED_PRECONDITION when the
  // database was written by a newer schema, INTERNAL for other errors.
  static absl::StatusOr<std::unique_ptr<PostgresGameStore>> Open(
      const std::string& uri, const Options& options);

  // Returns whether `uri` names a PostgreSQL database (postgresql:// or
  // postgres://).
  static bool IsPostgresUri(absl::string_view uri);

  // Stops the listener and closes every connection.
  ~PostgresGameStore() override;

  PostgresGameStore(const PostgresGameStore&) = delete;
  PostgresGameStore& operator=(const PostgresGameStore&) = delete;

  // GameStore. Besides the codes GameStore documents, any call may return
  // UNAVAILABLE when the server cannot be reached (the message says whether
  // a write may have committed), RESOURCE_EXHAUSTED when its disk is full,
  // DATA_LOSS for a stored row that does not parse, and INTERNAL for other
  // server errors; each message carries the server's.
  absl::Status CreateGame(const GameRecord& game) override;
  absl::StatusOr<GameRecord> GetGame(absl::string_view game_id) override;
  absl::StatusOr<std::vector<std::string>> ListGames() override;
  absl::StatusOr<std::optional<std::string>> FindBatch(
      absl::string_view game_id, absl::string_view first_event_id) override;
  absl::StatusOr<AppendResult> Append(
      absl::string_view game_id, uint64_t expected_version,
      const std::vector<gunbai::v1::StoredEvent>& events,
      absl::string_view answer) override;
  absl::StatusOr<std::vector<gunbai::v1::StoredEvent>> ReadEvents(
      absl::string_view game_id, uint64_t from_seq) override;
  absl::StatusOr<EventPage> ReadEventPage(absl::string_view game_id,
                                          uint64_t from_seq,
                                          size_t max_bytes) override;
  absl::StatusOr<uint64_t> Version(absl::string_view game_id) override;
  absl::StatusOr<uint64_t> NextDiceAttempt(absl::string_view game_id) override;
  absl::StatusOr<std::vector<StoredBatch>> ReadBatches(
      absl::string_view game_id) override;
  absl::StatusOr<uint64_t> DiceAttempts(absl::string_view game_id) override;
  absl::Status RaiseDiceAttempts(absl::string_view game_id,
                                 uint64_t taken) override;
  absl::Status MarkEnded(absl::string_view game_id) override;
  absl::Status WriteCheckpoint(absl::string_view game_id,
                               const StoredCheckpoint& checkpoint) override;
  absl::StatusOr<std::optional<StoredCheckpoint>> LatestCheckpoint(
      absl::string_view game_id, absl::string_view ruleset_digest,
      uint32_t format) override;
  absl::Status RegisterWitnessKey(absl::string_view game_id,
                                  absl::string_view clan,
                                  absl::string_view verifier_key) override;
  absl::Status AddCosignature(absl::string_view game_id,
                              const StoredCosignature& cosignature) override;
  absl::StatusOr<GameWitnesses> ReadWitnesses(
      absl::string_view game_id) override;
  void OnAppend(AppendListener listener) override;

 private:
  class Connection;
  class Lease;

  PostgresGameStore(std::string conninfo_uri, std::string password);

  // Takes a free connection from the pool, waiting for one.
  Lease Take();
  void Give(Connection* connection);
  absl::Status Migrate();
  // Returns the ABORTED of an Append built on `expected_version` when the
  // game holds `version` events, naming the seq to read from.
  // FindBatch on `connection`, inside its transaction when one is open.
  static absl::StatusOr<std::optional<std::string>> FindBatchOn(
      Connection& connection, absl::string_view game_id,
      absl::string_view first_event_id);
  absl::Status StaleVersion(Connection& connection, absl::string_view game_id,
                            uint64_t expected_version, uint64_t version);
  // Connects a connection of its own and LISTENs on it.
  absl::StatusOr<pg_conn*> ConnectListener();
  // The listener thread: passes on the notifications of `conn` (reconnects
  // when it breaks) until the store is destroyed.
  void Listen(pg_conn* conn);
  // Calls the listener, if any, with `game_id`.
  void Tell(const std::string& game_id);

  const std::string uri_;
  const std::string password_;

  absl::Mutex mu_;
  absl::CondVar freed_;
  std::vector<std::unique_ptr<Connection>> pool_ ABSL_GUARDED_BY(mu_);
  std::vector<Connection*> free_ ABSL_GUARDED_BY(mu_);

  absl::Mutex listener_mu_;
  AppendListener listener_ ABSL_GUARDED_BY(listener_mu_);
  std::atomic<bool> stopping_{false};
  std::thread listen_thread_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_STORE_POSTGRES_GAME_STORE_H_
