#include "service/store/sqlite_game_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message_lite.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/live_game.h"
#include "replay/ruleset_loader.h"
#include "replay/text_errors.h"
#include "rules/digest.h"
#include "rules/status_macros.h"
#include "service/store/game_store.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// Schema migrations: kMigrations[i] takes user_version i to i + 1. Append
// only; never edit a migration that has shipped.
constexpr const char* kMigrations[] = {
    // 1: games, their credentials, event streams and batch answers.
    R"sql(
CREATE TABLE games (
  game_id TEXT PRIMARY KEY NOT NULL,
  header BLOB NOT NULL,
  order_of_battle BLOB NOT NULL,
  settings BLOB NOT NULL,
  dice BLOB NOT NULL,
  secret_hex TEXT NOT NULL,
  ended INTEGER NOT NULL
) STRICT;
CREATE TABLE credentials (
  game_id TEXT NOT NULL REFERENCES games (game_id),
  position INTEGER NOT NULL,
  clan TEXT NOT NULL,
  token_sha256 TEXT NOT NULL,
  PRIMARY KEY (game_id, position),
  UNIQUE (game_id, clan)
) STRICT;
CREATE TABLE events (
  game_id TEXT NOT NULL REFERENCES games (game_id),
  position INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  stored BLOB NOT NULL,
  PRIMARY KEY (game_id, position),
  UNIQUE (game_id, event_id)
) STRICT;
CREATE INDEX events_by_seq ON events (game_id, seq);
CREATE TABLE batches (
  game_id TEXT NOT NULL REFERENCES games (game_id),
  first_event_id TEXT NOT NULL,
  answer BLOB NOT NULL,
  PRIMARY KEY (game_id, first_event_id)
) STRICT;
)sql",
    // 2: the server-dice attempt counter of each game.
    R"sql(
ALTER TABLE games ADD COLUMN dice_attempts INTEGER NOT NULL DEFAULT 0;
)sql",
    // 3: checkpoints of each game's replay (GameStore::WriteCheckpoint).
    R"sql(
CREATE TABLE checkpoints (
  game_id TEXT NOT NULL REFERENCES games (game_id),
  after_version INTEGER NOT NULL,
  after_seq INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  format INTEGER NOT NULL,
  state BLOB NOT NULL,
  findings BLOB NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (game_id, after_version)
) STRICT;
)sql",
    // 4: a game's table and terrain (a BattleLog holding only those), for
    // games with positions; NULL for the others.
    R"sql(
ALTER TABLE games ADD COLUMN field BLOB;
)sql",
    // 5: the players' checkpoint keys and cosignatures (issue 34).
    R"sql(
CREATE TABLE witness_keys (
  game_id TEXT NOT NULL REFERENCES games (game_id),
  clan TEXT NOT NULL,
  verifier_key TEXT NOT NULL,
  PRIMARY KEY (game_id, clan)
) STRICT;
CREATE TABLE cosignatures (
  game_id TEXT NOT NULL REFERENCES games (game_id),
  tree_size INTEGER NOT NULL,
  clan TEXT NOT NULL,
  signature_line TEXT NOT NULL,
  PRIMARY KEY (game_id, tree_size, clan)
) STRICT;
)sql",
};
constexpr int kSchemaVersion = sizeof(kMigrations) / sizeof(kMigrations[0]);

// Returns the Status for SQLite result code `rc` while doing `action`.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view action) {
  std::string message =
      absl::StrCat("sqlite: ", action, ": ", sqlite3_errstr(rc));
  if (db != nullptr && sqlite3_errcode(db) == rc) {
    absl::StrAppend(&message, " (", sqlite3_errmsg(db), ")");
  }
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(
          absl::StrCat(message, "; another process kept the database locked"));
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(absl::StrCat(
          "storage failed, the disk is full (", message,
          "): nothing of this call was acknowledged and its transaction was "
          "rolled back; free space on the disk of the data directory, then "
          "retry the call unchanged"));
    case SQLITE_IOERR:
      return absl::InternalError(absl::StrCat(
          "storage failed, the disk reported an I/O error (", message,
          "): nothing of this call was acknowledged and its transaction was "
          "rolled back; check the disk of the data directory (the kernel "
          "log), then retry the call unchanged: a batch that did reach the "
          "disk is answered from the store, never stored twice"));
    case SQLITE_TOOBIG:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

// Flushes the entries of directory `dir` to disk.
absl::Status SyncDirectory(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    return absl::InternalError(absl::StrCat(
        "cannot sync directory ", dir, ": ",
        std::error_code(error, std::generic_category()).message()));
  }
  close(fd);
  return absl::OkStatus();
}

absl::Status ParseStored(absl::string_view bytes, absl::string_view what,
                         google::protobuf::MessageLite& message) {
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError(
        absl::StrCat("stored ", what, " does not parse"));
  }
  return absl::OkStatus();
}

// Writes `bytes` over the blob of `column` in the row `rowid` of `table`,
// a zeroblob of their size, through SQLite's incremental blob I/O: a page
// at a time, never a copy of the whole in memory.
absl::Status WriteBlob(sqlite3* db, const char* table, const char* column,
                       int64_t rowid, absl::string_view bytes) {
  if (bytes.empty()) return absl::OkStatus();
  const std::string action = absl::StrCat("write ", table, ".", column);
  sqlite3_blob* blob = nullptr;
  int rc = sqlite3_blob_open(db, "main", table, column, rowid,
                             /*flags=*/1, &blob);
  if (rc != SQLITE_OK) {
    sqlite3_blob_close(blob);  // Null after a failed open: does nothing.
    return SqliteError(db, rc, action);
  }
  rc =
      sqlite3_blob_write(blob, bytes.data(), static_cast<int>(bytes.size()), 0);
  const int closed = sqlite3_blob_close(blob);
  if (rc == SQLITE_OK) rc = closed;
  if (rc != SQLITE_OK) return SqliteError(db, rc, action);
  return absl::OkStatus();
}

}  // namespace

// A cached prepared statement in use: binds parameters, steps, reads
// columns, and on destruction resets the statement and clears its bindings
// for the next user. Bind errors are kept and returned by Step.
namespace {

// A value bound as a blob (Statement::Bind binds strings as text).
struct Blob {
  absl::string_view bytes;
};

}  // namespace

class SqliteGameStore::Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  Statement(Statement&& other) noexcept
      : stmt_(std::exchange(other.stmt_, nullptr)),
        bind_status_(std::move(other.bind_status_)) {}
  Statement& operator=(Statement&&) = delete;
  ~Statement() {
    if (stmt_ != nullptr) Reset();
  }

  // Binds parameter `index` (1-based) to text, a blob or an integer. The
  // value is copied.
  void BindText(int index, absl::string_view text) {
    Check(sqlite3_bind_text(stmt_, index, text.empty() ? "" : text.data(),
                            static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  void BindBlob(int index, absl::string_view bytes) {
    Check(sqlite3_bind_blob(stmt_, index, bytes.empty() ? "" : bytes.data(),
                            static_cast<int>(bytes.size()), SQLITE_TRANSIENT));
  }
  void BindInt64(int index, int64_t value) {
    Check(sqlite3_bind_int64(stmt_, index, value));
  }
  // Binds parameters 1, 2, ... to `values` in order: a Blob as a blob, an
  // integer as an integer, anything else as text. The one way a statement
  // of this file is bound.
  template <typename... Values>
  void Bind(const Values&... values) {
    int index = 0;
    (BindOne(++index, values), ...);
  }

  // Steps the statement: returns true with a row to read, false when done.
  absl::StatusOr<bool> Step() {
    if (!bind_status_.ok()) return bind_status_;
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(sqlite3_db_handle(stmt_), rc, Action());
  }

  // Steps a statement that returns no rows.
  absl::Status Run() {
    GUNBAI_ASSIGN_OR_RETURN(const bool row, Step());
    if (row) return absl::InternalError(Action() + " returned a row");
    return absl::OkStatus();
  }

  int64_t ColumnInt64(int column) {
    return sqlite3_column_int64(stmt_, column);
  }
  std::string ColumnBytes(int column) {
    const void* data = sqlite3_column_blob(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    if (data == nullptr) return "";
    return std::string(static_cast<const char*>(data), size);
  }

  // Makes the statement ready to bind and step again.
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    bind_status_ = absl::OkStatus();
  }

 private:
  void BindOne(int index, const Blob& blob) { BindBlob(index, blob.bytes); }
  template <typename Integer,
            typename = std::enable_if_t<std::is_integral_v<Integer>>>
  void BindOne(int index, Integer value) {
    BindInt64(index, static_cast<int64_t>(value));
  }
  void BindOne(int index, absl::string_view text) { BindText(index, text); }

  void Check(int rc) {
    if (rc != SQLITE_OK && bind_status_.ok()) {
      bind_status_ = SqliteError(sqlite3_db_handle(stmt_), rc,
                                 absl::StrCat("bind for ", Action()));
    }
  }
  std::string Action() const {
    absl::string_view sql = sqlite3_sql(stmt_);
    if (sql.size() > 60) sql = sql.substr(0, 60);
    return absl::StrCat("\"", sql, "\"");
  }

  sqlite3_stmt* stmt_;
  absl::Status bind_status_;
};

// A transaction that rolls back unless committed.
class SqliteGameStore::Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (open_ && !sqlite3_get_autocommit(db_)) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }

  // Begins a write transaction, which takes the database's write lock now
  // (waiting up to the busy timeout), or a read transaction.
  absl::Status BeginWrite() { return Begin("BEGIN IMMEDIATE"); }
  absl::Status BeginRead() { return Begin("BEGIN"); }

  // Commits; with synchronous=FULL the commit is durable when this returns.
  absl::Status Commit() {
    const int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, "COMMIT");
    open_ = false;
    return absl::OkStatus();
  }

 private:
  absl::Status Begin(const char* sql) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, sql);
    open_ = true;
    return absl::OkStatus();
  }

  sqlite3* const db_;
  bool open_ = false;
};

absl::StatusOr<std::unique_ptr<SqliteGameStore>> SqliteGameStore::Open(
    const std::string& data_dir) {
  return Open(data_dir, Options());
}

absl::StatusOr<std::unique_ptr<SqliteGameStore>> SqliteGameStore::Open(
    const std::string& data_dir, const Options& options) {
  namespace fs = std::filesystem;
  std::error_code error;
  const bool created = fs::create_directories(data_dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create the data directory ",
                                            data_dir, ": ", error.message()));
  }
  if (created) {
    // The directory holds dice secrets: keep it to its owner.
    fs::permissions(data_dir, fs::perms::owner_all, error);
  }
  const std::string path = (fs::path(data_dir) / kFileName).string();
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      options.vfs.empty() ? nullptr : options.vfs.c_str());
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, absl::StrCat("open ", path));
    sqlite3_close_v2(db);
    return status;
  }
  std::unique_ptr<SqliteGameStore> store(
      new SqliteGameStore(db, options.group_commit));
  absl::MutexLock lock(&store->mu_);
  GUNBAI_RETURN_IF_ERROR(store->Configure(options));
  GUNBAI_RETURN_IF_ERROR(store->Migrate());
  // SQLite syncs the directory when it creates the WAL, not the database
  // file; make a new file (and a new directory) survive a crash too.
  GUNBAI_RETURN_IF_ERROR(SyncDirectory(data_dir));
  if (created) {
    fs::path dir = fs::absolute(data_dir).lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path();  // A trailing '/'.
    GUNBAI_RETURN_IF_ERROR(SyncDirectory(dir.parent_path().string()));
  }
  return store;
}

SqliteGameStore::SqliteGameStore(sqlite3* db, bool group_commit)
    : group_commit_(group_commit), db_(db) {
  sqlite3_extended_result_codes(db_, 1);
}

SqliteGameStore::~SqliteGameStore() {
  absl::MutexLock lock(&mu_);
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

absl::Status SqliteGameStore::Configure(const Options& options) {
  const int rc = sqlite3_busy_timeout(
      db_, static_cast<int>(absl::ToInt64Milliseconds(options.busy_timeout)));
  if (rc != SQLITE_OK) return SqliteError(db_, rc, "busy_timeout");
  {
    // journal_mode answers with the mode it ended up in.
    GUNBAI_ASSIGN_OR_RETURN(Statement wal, Prepare("PRAGMA journal_mode=WAL"));
    GUNBAI_ASSIGN_OR_RETURN(const bool row, wal.Step());
    if (!row || wal.ColumnBytes(0) != "wal") {
      return absl::InternalError("sqlite: cannot switch to WAL journal mode");
    }
  }
  GUNBAI_RETURN_IF_ERROR(Exec("PRAGMA synchronous=FULL"));
  if (options.wal_autocheckpoint_pages > 0) {
    // PRAGMA takes no parameters; the number is ours.
    GUNBAI_RETURN_IF_ERROR(Exec(absl::StrCat("PRAGMA wal_autocheckpoint=",
                                             options.wal_autocheckpoint_pages)
                                    .c_str()));
  }
  return Exec("PRAGMA foreign_keys=ON");
}

absl::Status SqliteGameStore::Migrate() {
  auto read_version = [this]() -> absl::StatusOr<int64_t> {
    mu_.AssertHeld();
    GUNBAI_ASSIGN_OR_RETURN(Statement query, Prepare("PRAGMA user_version"));
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    return row ? query.ColumnInt64(0) : 0;
  };
  absl::StatusOr<int64_t> version = read_version();
  if (!version.ok()) return version.status();
  if (*version == kSchemaVersion) return absl::OkStatus();
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  version = read_version();  // Another process may have migrated meanwhile.
  if (!version.ok()) return version.status();
  if (*version > kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the database has schema version ", *version, "; this gunbai reads ",
        kSchemaVersion, " at most: upgrade gunbai"));
  }
  for (int64_t v = *version; v < kSchemaVersion; ++v) {
    GUNBAI_RETURN_IF_ERROR(Exec(kMigrations[v]));
  }
  // PRAGMA takes no parameters; the number is ours.
  GUNBAI_RETURN_IF_ERROR(
      Exec(absl::StrCat("PRAGMA user_version=", kSchemaVersion).c_str()));
  return transaction.Commit();
}

absl::StatusOr<SqliteGameStore::Statement> SqliteGameStore::Prepare(
    const char* sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) return Statement(it->second);
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                    &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return SqliteError(db_, rc, absl::StrCat("prepare \"", sql, "\""));
  }
  statements_.emplace(sql, stmt);
  return Statement(stmt);
}

absl::Status SqliteGameStore::Exec(const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, "exec");
  return absl::OkStatus();
}

absl::Status SqliteGameStore::CreateGame(const GameRecord& game) {
  GUNBAI_RETURN_IF_ERROR(CheckNewGame(game));
  v1::DiceCommitment dice = game.dice;
  dice.clear_revealed_secret();  // Revealed from secret_hex once ended.
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement insert,
        Prepare("INSERT INTO games (game_id, header, order_of_battle, "
                "settings, dice, "
                "secret_hex, ended, field) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (game_id) DO NOTHING"));
    insert.Bind(game.game_id, Blob{base::DeterministicBytes(game.header)},
                Blob{base::DeterministicBytes(game.order_of_battle)},
                Blob{base::DeterministicBytes(game.settings)},
                Blob{base::DeterministicBytes(dice)}, game.secret_hex,
                game.ended ? 1 : 0, Blob{base::DeterministicBytes(game.field)});
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  if (sqlite3_changes(db_) == 0) return GameExistsError(game.game_id);
  GUNBAI_RETURN_IF_ERROR(InsertCredentials(game));
  return transaction.Commit();
}

absl::Status SqliteGameStore::InsertCredentials(const GameRecord& game) {
  GUNBAI_ASSIGN_OR_RETURN(
      Statement insert,
      Prepare("INSERT INTO credentials (game_id, position, clan, token_sha256) "
              "VALUES (?, ?, ?, ?)"));
  int64_t position = 0;
  for (const auto& [clan, token_sha256] : game.credential_hashes) {
    insert.Reset();
    insert.Bind(game.game_id, ++position, clan, token_sha256);
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<GameRecord> SqliteGameStore::GetGame(absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GameRecord game;
  {
    GUNBAI_ASSIGN_OR_RETURN(Statement query,
                            Prepare("SELECT header, order_of_battle, settings, "
                                    "dice, secret_hex, ended, "
                                    "field FROM games WHERE game_id = ?"));
    query.Bind(game_id);
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (!row) {
      return NoGameError(game_id);
    }
    game.game_id = std::string(game_id);
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(query.ColumnBytes(0), "header", game.header));
    GUNBAI_RETURN_IF_ERROR(ParseStored(query.ColumnBytes(1), "order of battle",
                                       game.order_of_battle));
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(query.ColumnBytes(2), "settings", game.settings));
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(query.ColumnBytes(3), "dice commitment", game.dice));
    game.secret_hex = query.ColumnBytes(4);
    game.ended = query.ColumnInt64(5) != 0;
    // NULL (a game stored before tables) reads as no bytes: no field.
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(query.ColumnBytes(6), "table and terrain", game.field));
    if (game.ended) game.dice.set_revealed_secret(game.secret_hex);
  }
  GUNBAI_RETURN_IF_ERROR(ReadCredentials(game));
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return game;
}

absl::Status SqliteGameStore::ReadCredentials(GameRecord& game) {
  GUNBAI_ASSIGN_OR_RETURN(
      Statement query,
      Prepare("SELECT clan, token_sha256 FROM credentials WHERE game_id = ? "
              "ORDER BY position"));
  query.Bind(game.game_id);
  while (true) {
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (!row) return absl::OkStatus();
    game.credential_hashes.emplace_back(query.ColumnBytes(0),
                                        query.ColumnBytes(1));
  }
}

absl::StatusOr<std::vector<std::string>> SqliteGameStore::ListGames() {
  absl::MutexLock lock(&mu_);
  GUNBAI_ASSIGN_OR_RETURN(
      Statement query, Prepare("SELECT game_id FROM games ORDER BY game_id"));
  std::vector<std::string> ids;
  while (true) {
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (!row) return ids;
    ids.push_back(query.ColumnBytes(0));
  }
}

absl::StatusOr<std::optional<std::string>> SqliteGameStore::FindBatch(
    absl::string_view game_id, absl::string_view first_event_id) {
  absl::MutexLock lock(&mu_);
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  return FindBatchLocked(game_id, first_event_id);
}

absl::StatusOr<std::optional<std::string>> SqliteGameStore::FindBatchLocked(
    absl::string_view game_id, absl::string_view first_event_id) {
  GUNBAI_ASSIGN_OR_RETURN(Statement query,
                          Prepare("SELECT answer FROM batches WHERE game_id = "
                                  "? AND first_event_id = ?"));
  query.Bind(game_id, first_event_id);
  GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
  if (!row) return std::nullopt;
  return query.ColumnBytes(0);
}

// An append on its way to the disk: its arguments, and its answer once a
// commit has given one.
struct SqliteGameStore::PendingAppend {
  PendingAppend(absl::string_view game_id, uint64_t expected_version,
                const std::vector<v1::StoredEvent>& events,
                absl::string_view answer)
      : game_id(game_id),
        expected_version(expected_version),
        events(events),
        answer(answer) {}

  const absl::string_view game_id;
  const uint64_t expected_version;
  const std::vector<v1::StoredEvent>& events;
  const absl::string_view answer;
  absl::StatusOr<AppendResult> result = absl::UnknownError("not committed");
  // Set, under queue_mu_, once `result` is final.
  bool done = false;
  // Signalled when `done` is set or the append leads the queue.
  absl::CondVar turn;
};

namespace {

// Returns whether `status`, from one append of a group, is that append's own
// refusal (its checks failed), which its savepoint undoes without touching
// the rest of the group, rather than a failure of the storage.
bool IsRefusal(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<AppendResult> SqliteGameStore::Append(
    absl::string_view game_id, uint64_t expected_version,
    const std::vector<v1::StoredEvent>& events, absl::string_view answer) {
  // Checked outside the lock: other threads keep writing meanwhile. Each
  // event is serialized as it is inserted, not the batch at once: a batch
  // serialized whole was one more copy of it while it was stored.
  GUNBAI_RETURN_IF_ERROR(CheckAppendBatch(events));
  PendingAppend append(game_id, expected_version, events, answer);
  if (group_commit_) return AppendInGroup(append);
  absl::MutexLock lock(&mu_);
  return AppendAlone(append);
}

absl::StatusOr<AppendResult> SqliteGameStore::AppendAlone(
    const PendingAppend& append) {
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  GUNBAI_ASSIGN_OR_RETURN(AppendResult result, AppendInTransaction(append));
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return result;
}

absl::StatusOr<AppendResult> SqliteGameStore::AppendInGroup(
    PendingAppend& append) {
  queue_mu_.Lock();
  queue_.push_back(&append);
  while (!append.done && queue_.front() != &append) {
    append.turn.Wait(&queue_mu_);
  }
  if (append.done) {  // A leader committed it in its group.
    queue_mu_.Unlock();
    return std::move(append.result);
  }
  // This append leads: it takes those queued behind it, and the next group
  // queues up while this one is on its way to the disk.
  const size_t size = std::min(queue_.size(), kMaxGroupAppends);
  const std::vector<PendingAppend*> group(queue_.begin(),
                                          queue_.begin() + size);
  queue_mu_.Unlock();
  {
    absl::MutexLock lock(&mu_);
    CommitGroup(group);
  }
  queue_mu_.Lock();
  queue_.erase(queue_.begin(), queue_.begin() + size);
  for (PendingAppend* member : group) {
    if (member == &append) continue;
    // The member returns (and its PendingAppend goes) once queue_mu_ is
    // released; nothing touches it after that.
    member->done = true;
    member->turn.Signal();
  }
  if (!queue_.empty()) queue_.front()->turn.Signal();  // The next leader.
  queue_mu_.Unlock();
  return std::move(append.result);
}

void SqliteGameStore::CommitGroup(const std::vector<PendingAppend*>& group) {
  // A failure of the storage, or of the commit, fails every append of the
  // group: none of them is stored, so none may be acknowledged.
  auto fail_all = [&group](const absl::Status& status) {
    for (PendingAppend* append : group) append->result = status;
  };
  Transaction transaction(db_);
  if (absl::Status s = transaction.BeginWrite(); !s.ok()) return fail_all(s);
  for (PendingAppend* append : group) {
    if (absl::Status s = Exec("SAVEPOINT group_append"); !s.ok()) {
      return fail_all(s);
    }
    append->result = AppendInTransaction(*append);
    if (!append->result.ok()) {
      if (!IsRefusal(append->result.status())) {
        return fail_all(append->result.status());
      }
      // Undo whatever this append wrote; the others' writes stay.
      if (absl::Status s = Exec("ROLLBACK TO group_append"); !s.ok()) {
        return fail_all(s);
      }
    }
    if (absl::Status s = Exec("RELEASE group_append"); !s.ok()) {
      return fail_all(s);
    }
    if (sqlite3_get_autocommit(db_)) {  // SQLite rolled everything back.
      return fail_all(absl::InternalError(
          "sqlite: the group's transaction was rolled back; nothing of this "
          "call was stored; retry it unchanged"));
    }
  }
  if (absl::Status s = transaction.Commit(); !s.ok()) return fail_all(s);
}

absl::StatusOr<AppendResult> SqliteGameStore::AppendInTransaction(
    const PendingAppend& append) {
  const absl::string_view game_id = append.game_id;
  const std::vector<v1::StoredEvent>& events = append.events;
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  absl::Status stored = CheckNoEventStored(game_id, events);
  GUNBAI_ASSIGN_OR_RETURN(const uint64_t version, VersionLocked(game_id));
  if (!stored.ok() || version != append.expected_version) {
    // Before refusing: the whole batch may be stored already, by a call
    // that got there first; it is answered as that call was.
    GUNBAI_ASSIGN_OR_RETURN(std::optional<std::string> answered,
                            FindBatchLocked(game_id, events[0].event_id()));
    if (answered.has_value()) {
      AppendResult result;
      result.stored_answer = std::move(answered);
      return result;
    }
    GUNBAI_RETURN_IF_ERROR(stored);
    return StaleVersion(game_id, append.expected_version, version);
  }
  GUNBAI_RETURN_IF_ERROR(InsertEvents(game_id, version, events));
  {
    // The answer can be as large as the batch: the row is made with a
    // zeroblob of its size and the answer written into it page by page
    // (WriteBlob); bound as a value, it cost a whole record of it in
    // SQLite's memory, one more copy of the batch.
    GUNBAI_ASSIGN_OR_RETURN(
        Statement insert,
        Prepare("INSERT INTO batches (game_id, first_event_id, answer) "
                "VALUES (?, ?, zeroblob(?))"));
    insert.Bind(game_id, events.front().event_id(),
                static_cast<int64_t>(append.answer.size()));
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  GUNBAI_RETURN_IF_ERROR(WriteBlob(
      db_, "batches", "answer", sqlite3_last_insert_rowid(db_), append.answer));
  return AppendResult{version + events.size(), events.back().chain_hash(),
                      std::nullopt};
}

absl::Status SqliteGameStore::CheckGameExists(absl::string_view game_id) {
  GUNBAI_ASSIGN_OR_RETURN(Statement query,
                          Prepare("SELECT 1 FROM games WHERE game_id = ?"));
  query.Bind(game_id);
  GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
  if (!row) {
    return NoGameError(game_id);
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> SqliteGameStore::VersionLocked(
    absl::string_view game_id) {
  GUNBAI_ASSIGN_OR_RETURN(
      Statement query,
      Prepare(
          "SELECT COALESCE(MAX(position), 0) FROM events WHERE game_id = ?"));
  query.Bind(game_id);
  GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
  return row ? static_cast<uint64_t>(query.ColumnInt64(0)) : 0;
}

absl::Status SqliteGameStore::StaleVersion(absl::string_view game_id,
                                           uint64_t expected_version,
                                           uint64_t version) {
  // The first event the caller has not seen; its seq is usually its
  // position, but the store does not insist. A caller ahead of the game has
  // none (StaleVersionError tells it to read from the start), and
  // expected_version + 1 could overflow: a client may send any uint64.
  int64_t next_seq = 0;
  if (expected_version < version) {
    next_seq = static_cast<int64_t>(expected_version) + 1;
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT seq FROM events WHERE game_id = ? AND position = ?"));
    query.Bind(game_id, static_cast<int64_t>(expected_version) + 1);
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (row) next_seq = query.ColumnInt64(0);
  }
  return replay::StaleVersionError(expected_version, version, next_seq);
}

absl::Status SqliteGameStore::CheckNoEventStored(
    absl::string_view game_id, const std::vector<v1::StoredEvent>& events) {
  GUNBAI_ASSIGN_OR_RETURN(
      Statement query,
      Prepare(
          "SELECT position FROM events WHERE game_id = ? AND event_id = ?"));
  for (const v1::StoredEvent& event : events) {
    query.Reset();
    query.Bind(game_id, event.event_id());
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (row) {
      return absl::AlreadyExistsError(absl::StrCat(
          "event \"", event.event_id(), "\" is already stored, at position ",
          query.ColumnInt64(0), " of game \"", game_id,
          "\"; a retried batch must be sent whole, as first sent"));
    }
  }
  return absl::OkStatus();
}

absl::Status SqliteGameStore::InsertEvents(
    absl::string_view game_id, uint64_t version,
    const std::vector<v1::StoredEvent>& events) {
  GUNBAI_ASSIGN_OR_RETURN(
      Statement insert,
      Prepare("INSERT INTO events (game_id, position, seq, event_id, stored) "
              "VALUES (?, ?, ?, ?, ?)"));
  for (size_t i = 0; i < events.size(); ++i) {
    insert.Reset();
    insert.Bind(game_id, static_cast<int64_t>(version + i + 1),
                static_cast<int64_t>(events[i].event().seq()),
                events[i].event_id(),
                Blob{base::DeterministicBytes(events[i])});
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::StoredEvent>> SqliteGameStore::ReadEvents(
    absl::string_view game_id, uint64_t from_seq) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  std::vector<v1::StoredEvent> events;
  // Stored seqs fit in an int64; a larger from_seq matches nothing.
  if (from_seq > static_cast<uint64_t>(kMaxInt64)) return events;
  {
    // Reading all walks the primary key in order; reading a tail finds it
    // by seq and sorts the few rows.
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        from_seq == 0
            ? Prepare("SELECT stored FROM events WHERE game_id = ? "
                      "ORDER BY position")
            : Prepare(
                  "SELECT stored FROM events WHERE game_id = ? AND seq >= ? "
                  "ORDER BY position"));
    if (from_seq == 0) {
      query.Bind(game_id);
    } else {
      query.Bind(game_id, from_seq);
    }
    while (true) {
      GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
      if (!row) break;
      GUNBAI_RETURN_IF_ERROR(
          ParseStored(query.ColumnBytes(0), "event", events.emplace_back()));
    }
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return events;
}

absl::StatusOr<GameStore::EventPage> SqliteGameStore::ReadEventPage(
    absl::string_view game_id, uint64_t from_seq, size_t max_bytes) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  EventPage page;
  // Stored seqs fit in an int64; a larger from_seq matches nothing.
  if (from_seq > static_cast<uint64_t>(kMaxInt64)) return page;
  // The page's first position, found by seq; from there the rows are
  // walked by position, and left unread once the page is full: a page of a
  // long game costs the page, not the game.
  int64_t first = 0;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT position FROM events WHERE game_id = ? AND seq >= ? "
                "ORDER BY seq LIMIT 1"));
    query.Bind(game_id, static_cast<int64_t>(from_seq));
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (!row) return page;
    first = query.ColumnInt64(0);
  }
  GUNBAI_ASSIGN_OR_RETURN(
      Statement query,
      Prepare(
          "SELECT seq, stored FROM events WHERE game_id = ? AND position >= ? "
          "AND seq >= ? ORDER BY position"));
  query.Bind(game_id, first, static_cast<int64_t>(from_seq));
  size_t bytes = 0;
  while (true) {
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (!row) break;
    std::string stored = query.ColumnBytes(1);
    if (!page.events.empty() && bytes + stored.size() > max_bytes) {
      page.next_seq = static_cast<uint64_t>(query.ColumnInt64(0));
      break;
    }
    bytes += stored.size();
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(stored, "event", page.events.emplace_back()));
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return page;
}

absl::StatusOr<uint64_t> SqliteGameStore::Version(absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  GUNBAI_ASSIGN_OR_RETURN(const uint64_t version, VersionLocked(game_id));
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return version;
}

absl::StatusOr<uint64_t> SqliteGameStore::NextDiceAttempt(
    absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  int64_t attempt = 0;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement update,
        Prepare("UPDATE games SET dice_attempts = dice_attempts + 1 "
                "WHERE game_id = ? RETURNING dice_attempts"));
    update.Bind(game_id);
    GUNBAI_ASSIGN_OR_RETURN(const bool row, update.Step());
    if (!row) {
      return NoGameError(game_id);
    }
    attempt = update.ColumnInt64(0);
    GUNBAI_RETURN_IF_ERROR(update.Run());  // Runs the update to its end.
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return static_cast<uint64_t>(attempt);
}

absl::StatusOr<std::vector<GameStore::StoredBatch>>
SqliteGameStore::ReadBatches(absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  std::vector<StoredBatch> batches;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT b.first_event_id, b.answer FROM batches b JOIN events "
                "e ON e.game_id = b.game_id AND e.event_id = "
                "b.first_event_id WHERE b.game_id = ? ORDER BY e.position"));
    query.Bind(game_id);
    while (true) {
      GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
      if (!row) break;
      batches.push_back({query.ColumnBytes(0), query.ColumnBytes(1)});
    }
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return batches;
}

absl::StatusOr<uint64_t> SqliteGameStore::DiceAttempts(
    absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  GUNBAI_ASSIGN_OR_RETURN(
      Statement query,
      Prepare("SELECT dice_attempts FROM games WHERE game_id = ?"));
  query.Bind(game_id);
  GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
  if (!row) {
    return NoGameError(game_id);
  }
  return static_cast<uint64_t>(query.ColumnInt64(0));
}

absl::Status SqliteGameStore::RaiseDiceAttempts(absl::string_view game_id,
                                                uint64_t taken) {
  GUNBAI_RETURN_IF_ERROR(CheckDiceAttempts(taken));
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement update,
        Prepare("UPDATE games SET dice_attempts = MAX(dice_attempts, ?) "
                "WHERE game_id = ?"));
    update.Bind(static_cast<int64_t>(taken), game_id);
    GUNBAI_RETURN_IF_ERROR(update.Run());
  }
  return transaction.Commit();
}

absl::Status SqliteGameStore::MarkEnded(absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement update,
        Prepare("UPDATE games SET ended = 1 WHERE game_id = ?"));
    update.Bind(game_id);
    GUNBAI_RETURN_IF_ERROR(update.Run());
  }
  if (sqlite3_changes(db_) == 0) {
    return NoGameError(game_id);
  }
  return absl::OkStatus();
}

absl::Status SqliteGameStore::WriteCheckpoint(
    absl::string_view game_id, const StoredCheckpoint& checkpoint) {
  GUNBAI_RETURN_IF_ERROR(CheckCheckpoint(checkpoint));
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  {
    // The newest is the one a load takes: the older ones go.
    GUNBAI_ASSIGN_OR_RETURN(
        Statement remove, Prepare("DELETE FROM checkpoints WHERE game_id = ?"));
    remove.Bind(game_id);
    GUNBAI_RETURN_IF_ERROR(remove.Run());
  }
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement insert,
        Prepare("INSERT INTO checkpoints (game_id, after_version, after_seq, "
                "head_hash, ruleset_digest, format, state, findings, sha256) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    insert.Bind(game_id, static_cast<int64_t>(checkpoint.after_version),
                static_cast<int64_t>(checkpoint.after_seq),
                checkpoint.head_hash, checkpoint.ruleset_digest,
                checkpoint.format, Blob{checkpoint.state},
                Blob{checkpoint.findings}, checkpoint.sha256);
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  return transaction.Commit();
}

absl::Status SqliteGameStore::RegisterWitnessKey(
    absl::string_view game_id, absl::string_view clan,
    absl::string_view verifier_key) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT verifier_key FROM witness_keys WHERE game_id = ? AND "
                "clan = ?"));
    query.Bind(game_id, clan);
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (row) {
      if (query.ColumnBytes(0) == verifier_key) return transaction.Commit();
      return WitnessKeyTakenError(clan);
    }
  }
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement insert,
        Prepare("INSERT INTO witness_keys (game_id, clan, verifier_key) "
                "VALUES (?, ?, ?)"));
    insert.Bind(game_id, clan, verifier_key);
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  return transaction.Commit();
}

absl::Status SqliteGameStore::AddCosignature(
    absl::string_view game_id, const StoredCosignature& cosignature) {
  GUNBAI_RETURN_IF_ERROR(CheckCosignature(cosignature));
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginWrite());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement insert,
        Prepare("INSERT OR IGNORE INTO cosignatures (game_id, tree_size, "
                "clan, signature_line) VALUES (?, ?, ?, ?)"));
    insert.Bind(game_id, static_cast<int64_t>(cosignature.tree_size),
                cosignature.clan, cosignature.signature_line);
    GUNBAI_RETURN_IF_ERROR(insert.Run());
  }
  return transaction.Commit();
}

absl::StatusOr<GameWitnesses> SqliteGameStore::ReadWitnesses(
    absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  GameWitnesses out;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT clan, verifier_key FROM witness_keys WHERE game_id = "
                "? ORDER BY clan"));
    query.Bind(game_id);
    while (true) {
      GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
      if (!row) break;
      out.keys.emplace_back(query.ColumnBytes(0), query.ColumnBytes(1));
    }
  }
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT clan, tree_size, signature_line FROM cosignatures "
                "WHERE game_id = ? ORDER BY tree_size, clan"));
    query.Bind(game_id);
    while (true) {
      GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
      if (!row) break;
      StoredCosignature& c = out.cosignatures.emplace_back();
      c.clan = query.ColumnBytes(0);
      c.tree_size = static_cast<uint64_t>(query.ColumnInt64(1));
      c.signature_line = query.ColumnBytes(2);
    }
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return out;
}

absl::StatusOr<std::optional<StoredCheckpoint>>
SqliteGameStore::LatestCheckpoint(absl::string_view game_id,
                                  absl::string_view ruleset_digest,
                                  uint32_t format) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_);
  GUNBAI_RETURN_IF_ERROR(transaction.BeginRead());
  GUNBAI_RETURN_IF_ERROR(CheckGameExists(game_id));
  std::optional<StoredCheckpoint> found;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        Statement query,
        Prepare("SELECT after_version, after_seq, head_hash, state, findings, "
                "sha256 "
                "FROM checkpoints WHERE game_id = ? AND ruleset_digest = ? AND "
                "format = ? ORDER BY after_version DESC LIMIT 1"));
    query.Bind(game_id, ruleset_digest, format);
    GUNBAI_ASSIGN_OR_RETURN(const bool row, query.Step());
    if (row) {
      StoredCheckpoint& c = found.emplace();
      c.after_version = static_cast<uint64_t>(query.ColumnInt64(0));
      c.after_seq = static_cast<uint64_t>(query.ColumnInt64(1));
      c.head_hash = query.ColumnBytes(2);
      c.ruleset_digest = std::string(ruleset_digest);
      c.format = format;
      c.state = query.ColumnBytes(3);
      c.findings = query.ColumnBytes(4);
      c.sha256 = query.ColumnBytes(5);
    }
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return found;
}

}  // namespace gunbai::service

#undef GUNBAI_RETURN_IF_ERROR
