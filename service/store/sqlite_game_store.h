// A GameStore in one SQLite file, `<data_dir>/gunbai.sqlite3`, in WAL mode
// with synchronous=FULL: an Append has reached the disk (the WAL is
// fsynced) when it returns. The schema carries a user_version and is
// migrated forward on Open; a file from a newer gunbai is refused.
//
// Group commit: appends that arrive while another commit is on its way to
// the disk wait for it, then the first of them (the leader) runs them all
// in one transaction, each inside its own SAVEPOINT with its own checks
// (game, event ids, expected version), and commits once: one fsync for the
// group. An append whose checks fail is rolled back to its savepoint alone
// and gets its own error; the others go on. Each caller returns only after
// the commit holding its append is durable, with its own result; when the
// commit fails, every append of the group fails with that error and none is
// stored. Options::group_commit = false commits each append alone.
//
// Storage faults: a write or sync that fails (disk full, I/O error) fails
// the call with RESOURCE_EXHAUSTED or INTERNAL, saying that nothing of it
// was acknowledged and what to do; the transaction is rolled back and the
// same store goes on serving calls (tests/store/store_fault_test.cc loops
// over every write and sync of an append).
//
// Thread safety: thread-safe. The store owns one connection, guarded by a
// mutex, so calls from many threads are serialized (SQLite writes one
// transaction at a time anyway, and a durable commit is bounded by fsync,
// not by CPU). Other processes may open the same file: each commit is one
// BEGIN IMMEDIATE transaction, and a call waits up to the busy timeout for
// another writer before it returns UNAVAILABLE.
#ifndef GUNBAI_SERVICE_STORE_SQLITE_GAME_STORE_H_
#define GUNBAI_SERVICE_STORE_SQLITE_GAME_STORE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
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
#include "service/store/game_store.h"

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
    // The SQLite VFS to open the file with (sqlite3_vfs_register); empty
    // for the default one. Tests name a fault-injecting VFS here.
    std::string vfs;
    // Whether concurrent appends share a commit (see above).
    bool group_commit = true;
    // WAL pages after which a commit checkpoints the WAL into the database
    // file (PRAGMA wal_autocheckpoint); 0 keeps SQLite's 1,000. Tests set 1
    // so that every append's commit is followed by a checkpoint.
    int wal_autocheckpoint_pages = 0;
  };

  // The most appends one group commit takes.
  static constexpr size_t kMaxGroupAppends = 64;

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

 private:
  class Statement;
  class Transaction;
  struct PendingAppend;

  SqliteGameStore(sqlite3* db, bool group_commit);

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
  // FindBatch, with mu_ held.
  absl::StatusOr<std::optional<std::string>> FindBatchLocked(
      absl::string_view game_id, absl::string_view first_event_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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
  // Runs the checks and inserts of `append` in the open write transaction.
  absl::StatusOr<AppendResult> AppendInTransaction(const PendingAppend& append)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Commits `append` in a transaction of its own.
  absl::StatusOr<AppendResult> AppendAlone(const PendingAppend& append)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues `append` and returns once a group commit has answered it.
  absl::StatusOr<AppendResult> AppendInGroup(PendingAppend& append)
      ABSL_LOCKS_EXCLUDED(mu_, queue_mu_);
  // Runs `group` in one transaction, each append in its own savepoint, and
  // commits once; sets each append's result.
  void CommitGroup(const std::vector<PendingAppend*>& group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Inserts `events` after position `version`, each serialized as it goes.
  absl::Status InsertEvents(absl::string_view game_id, uint64_t version,
                            const std::vector<gunbai::v1::StoredEvent>& events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const bool group_commit_;
  // Appends waiting for a group commit, oldest first; the first is the
  // leader's until its group is answered.
  absl::Mutex queue_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::deque<PendingAppend*> queue_ ABSL_GUARDED_BY(queue_mu_);

  absl::Mutex mu_;
  sqlite3* const db_ ABSL_PT_GUARDED_BY(mu_);
  // Prepared statements by SQL text, finalized on destruction.
  absl::flat_hash_map<std::string, sqlite3_stmt*> statements_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_STORE_SQLITE_GAME_STORE_H_
