// A GameStore in one SQLite file, `<data_dir>/gunbai.sqlite3`, in WAL mode
// with synchronous=FULL: an Append has reached the disk (the WAL is
// fsynced) when it returns. The schema carries a user_version and is
// migrated forward on Open; a file from a newer gunbai is refused.
//
// Thread safety: thread-safe. The store owns one connection, guarded by a
// mutex, so calls from many threads are serialized (SQLite writes one
// transaction at a time anyway, and a durable commit is bounded by fsync,
// not by CPU). Other processes may open the same file: each Append is one
// BEGIN IMMEDIATE transaction, and a call waits up to the busy timeout for
// another writer before it returns UNAVAILABLE.
#ifndef GUNBAI_SERVICE_SQLITE_GAME_STORE_H_
#define GUNBAI_SERVICE_SQLITE_GAME_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/game_store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gunbai::service {

class SqliteGameStore final : public GameStore {
 public:
  // The name of the database file inside the data directory.
  static constexpr char kFileName[] = "gunbai.sqlite3";

  struct Options {
    // How long a call waits for another process's write lock.
    absl::Duration busy_timeout = absl::Seconds(5);
  };

  // Opens (creating if needed) the directory `data_dir` and the database in
  // it, and migrates its schema. Returns INTERNAL when the directory or the
  // file cannot be created or opened, FAILED_PRECONDITION when the file was
  // written by a newer schema, UNAVAILABLE when it stays locked.
  static absl::StatusOr<std::unique_ptr<SqliteGameStore>> Open(
      const std::string& data_dir);
  static absl::StatusOr<std::unique_ptr<SqliteGameStore>> Open(
      const std::string& data_dir, const Options& options);

  // Closes the database.
  ~SqliteGameStore() override;

  SqliteGameStore(const SqliteGameStore&) = delete;
  SqliteGameStore& operator=(const SqliteGameStore&) = delete;

  // GameStore. Besides the codes GameStore documents, any call may return
  // UNAVAILABLE when the file stayed locked past the busy timeout,
  // RESOURCE_EXHAUSTED when the disk is full, DATA_LOSS for a stored row
  // that does not parse, and INTERNAL for other SQLite errors; each message
  // carries SQLite's.
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
  absl::StatusOr<uint64_t> Version(absl::string_view game_id) override;
  absl::StatusOr<uint64_t> NextDiceAttempt(absl::string_view game_id) override;
  absl::Status MarkEnded(absl::string_view game_id) override;

 private:
  class Statement;
  class Transaction;

  explicit SqliteGameStore(sqlite3* db);

  // Returns the cached prepared statement for `sql`, preparing it once. At
  // most one Statement per SQL text may be alive at a time.
  absl::StatusOr<Statement> Prepare(const char* sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `sql`, which returns no rows and binds nothing.
  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Configure(const Options& options)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Returns NOT_FOUND unless `game_id` is stored.
  absl::Status CheckGameExists(absl::string_view game_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<uint64_t> VersionLocked(absl::string_view game_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReadCredentials(GameRecord& game)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status InsertCredentials(const GameRecord& game)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns ALREADY_EXISTS if any of `events` has a stored event id.
  absl::Status CheckNoEventStored(
      absl::string_view game_id,
      const std::vector<gunbai::v1::StoredEvent>& events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns the FAILED_PRECONDITION of an Append built on
  // `expected_version` when the game holds `version` events.
  absl::Status StaleVersion(absl::string_view game_id,
                            uint64_t expected_version, uint64_t version)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Inserts `events`, serialized as `blobs`, after position `version`.
  absl::Status InsertEvents(absl::string_view game_id, uint64_t version,
                            const std::vector<gunbai::v1::StoredEvent>& events,
                            const std::vector<std::string>& blobs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  sqlite3* const db_ ABSL_PT_GUARDED_BY(mu_);
  // Prepared statements by SQL text, finalized on destruction.
  absl::flat_hash_map<std::string, sqlite3_stmt*> statements_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_SQLITE_GAME_STORE_H_
