#include "service/store/postgres_game_store.h"

#include <libpq-fe.h>
#include <sys/select.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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

// The channel every append notifies, with the game id as payload.
constexpr char kAppendChannel[] = "gunbai_appends";

// Any value fits; it only has to be the same in every replica.
constexpr int64_t kMigrationLock = 0x67756e626169;  // "gunbai"

// Rows one ReadEventPage query takes at a time.
constexpr int kPageRows = 64;
// Events one INSERT statement carries (4 parameters each, of at most 65535).
constexpr size_t kInsertRows = 1000;

// Schema migrations: kMigrations[i] takes version i to i + 1. Append only;
// never edit a migration that has shipped. Ids sort bytewise (COLLATE "C"
// where it matters), as in the SQLite store.
constexpr const char* kMigrations[] = {
    // 1: games with their version and dice attempts, credentials, event
    // streams, batch answers and checkpoints.
    R"sql(
CREATE TABLE games (
  game_id TEXT COLLATE "C" PRIMARY KEY,
  header BYTEA NOT NULL,
  order_of_battle BYTEA NOT NULL,
  settings BYTEA NOT NULL,
  dice BYTEA NOT NULL,
  secret_hex TEXT NOT NULL,
  ended BOOLEAN NOT NULL,
  field BYTEA,
  dice_attempts BIGINT NOT NULL DEFAULT 0,
  version BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE credentials (
  game_id TEXT COLLATE "C" NOT NULL REFERENCES games (game_id),
  position INTEGER NOT NULL,
  clan TEXT NOT NULL,
  token_sha256 TEXT NOT NULL,
  PRIMARY KEY (game_id, position),
  UNIQUE (game_id, clan)
);
CREATE TABLE events (
  game_id TEXT COLLATE "C" NOT NULL REFERENCES games (game_id),
  position BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  event_id TEXT NOT NULL,
  stored BYTEA NOT NULL,
  PRIMARY KEY (game_id, position),
  UNIQUE (game_id, seq),
  UNIQUE (game_id, event_id)
);
CREATE TABLE batches (
  game_id TEXT COLLATE "C" NOT NULL REFERENCES games (game_id),
  first_event_id TEXT NOT NULL,
  answer BYTEA NOT NULL,
  PRIMARY KEY (game_id, first_event_id)
);
CREATE TABLE checkpoints (
  game_id TEXT COLLATE "C" NOT NULL REFERENCES games (game_id),
  after_version BIGINT NOT NULL,
  after_seq BIGINT NOT NULL,
  head_hash TEXT NOT NULL,
  ruleset_digest TEXT NOT NULL,
  format INTEGER NOT NULL,
  state BYTEA NOT NULL,
  findings BYTEA NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (game_id, after_version)
);
)sql",
    // 2: the players' checkpoint keys and cosignatures (issue 34).
    R"sql(
CREATE TABLE witness_keys (
  game_id TEXT COLLATE "C" NOT NULL REFERENCES games (game_id),
  clan TEXT COLLATE "C" NOT NULL,
  verifier_key TEXT NOT NULL,
  PRIMARY KEY (game_id, clan)
);
CREATE TABLE cosignatures (
  game_id TEXT COLLATE "C" NOT NULL REFERENCES games (game_id),
  tree_size BIGINT NOT NULL,
  clan TEXT COLLATE "C" NOT NULL,
  signature_line TEXT NOT NULL,
  PRIMARY KEY (game_id, tree_size, clan)
);
)sql",
};
constexpr int kSchemaVersion = sizeof(kMigrations) / sizeof(kMigrations[0]);

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// The parameters of one statement: text (numbers, ids) or binary (bytes).
class Params {
 public:
  Params& Text(absl::string_view text) { return Add(text, /*binary=*/false); }
  Params& Bytes(absl::string_view bytes) { return Add(bytes, true); }
  Params& Int(int64_t value) {
    owned_.push_back(absl::StrCat(value));
    return Add(owned_.back(), false);
  }
  // A text[] of `items`, in PostgreSQL's array syntax.
  Params& TextArray(const std::vector<absl::string_view>& items) {
    std::string array = "{";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) array += ',';
      array += '"';
      for (char c : items[i]) {
        if (c == '"' || c == '\\') array += '\\';
        array += c;
      }
      array += '"';
    }
    array += '}';
    owned_.push_back(std::move(array));
    return Add(owned_.back(), false);
  }

  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  Params& Add(absl::string_view bytes, bool binary) {
    // libpq reads a text parameter up to its NUL; an empty view may have
    // no storage at all.
    if (!binary) {
      owned_.emplace_back(bytes);
      bytes = owned_.back();
    }
    values_.push_back(bytes.empty() ? "" : bytes.data());
    lengths_.push_back(static_cast<int>(bytes.size()));
    formats_.push_back(binary ? 1 : 0);
    return *this;
  }

  // A deque: its strings do not move as more are added.
  std::deque<std::string> owned_;
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// Returns the Status of a failed statement while doing `action`.
absl::Status ServerError(PGconn* conn, const PGresult* result,
                         absl::string_view action) {
  const char* state = result == nullptr
                          ? nullptr
                          : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const std::string sqlstate = state == nullptr ? "" : state;
  std::string detail = result != nullptr ? PQresultErrorMessage(result) : "";
  if (detail.empty()) detail = PQerrorMessage(conn);
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) {
    detail.pop_back();
  }
  const std::string message =
      absl::StrCat("postgresql: ", action, ": ", detail,
                   sqlstate.empty() ? "" : absl::StrCat(" (", sqlstate, ")"));
  if (PQstatus(conn) != CONNECTION_OK || absl::StartsWith(sqlstate, "08") ||
      absl::StartsWith(sqlstate, "57P")) {
    return absl::UnavailableError(absl::StrCat(
        message,
        "; the connection to the database was lost: what this call wrote "
        "was stored only if its commit reached the server; retry the call "
        "unchanged (a stored batch is answered from the store, never stored "
        "twice)"));
  }
  if (sqlstate == "53100") {
    return absl::ResourceExhaustedError(absl::StrCat(
        "storage failed, the database's disk is full (", message,
        "): nothing of this call was acknowledged and its transaction was "
        "rolled back; free space on the database server, then retry the "
        "call unchanged"));
  }
  if (sqlstate == "40001" || sqlstate == "40P01") {
    return absl::AbortedError(
        absl::StrCat(message, "; nothing was stored; retry the call"));
  }
  if (sqlstate == "23505") return absl::AlreadyExistsError(message);
  return absl::InternalError(message);
}

absl::Status ParseStored(absl::string_view bytes, absl::string_view what,
                         google::protobuf::MessageLite& message) {
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError(
        absl::StrCat("stored ", what, " does not parse"));
  }
  return absl::OkStatus();
}

// The bytes of a binary-format result cell.
absl::string_view Cell(const PGresult* result, int row, int column) {
  return absl::string_view(PQgetvalue(result, row, column),
                           PQgetlength(result, row, column));
}

// A binary-format integer cell (int2, int4 or int8, big endian); a boolean
// reads as 0 or 1.
int64_t IntCell(const PGresult* result, int row, int column) {
  const absl::string_view bytes = Cell(result, row, column);
  uint64_t value = 0;
  for (unsigned char c : bytes) value = (value << 8) | c;
  if (bytes.size() == 4) return static_cast<int32_t>(value);
  if (bytes.size() == 2) return static_cast<int16_t>(value);
  return static_cast<int64_t>(value);
}

// Connects to `uri` with `password` (none when empty), waiting at most
// `timeout`. Returns UNAVAILABLE when the server cannot be reached.
absl::StatusOr<PGconn*> Connect(const std::string& uri,
                                const std::string& password,
                                absl::Duration timeout) {
  const std::string seconds =
      absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(timeout)));
  std::vector<const char*> keys = {"dbname", "connect_timeout",
                                   "application_name"};
  std::vector<const char*> values = {uri.c_str(), seconds.c_str(), "gunbaid"};
  if (!password.empty()) {
    keys.push_back("password");
    values.push_back(password.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(),
                                   /*expand_dbname=*/1);
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("postgresql: out of memory");
  }
  // The server's notices (NOTICE: relation ... already exists) are not
  // for the daemon's log.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string detail = PQerrorMessage(conn);
    while (!detail.empty() && detail.back() == '\n') detail.pop_back();
    PQfinish(conn);
    return absl::UnavailableError(absl::StrCat(
        "postgresql: cannot connect to the store: ", detail,
        "; check that the server is up and the --store URI, and give the "
        "password in PGPASSWORD, a PGPASSFILE or --store-password-file"));
  }
  return conn;
}

}  // namespace

// One connection of the pool, used by one call at a time.
class PostgresGameStore::Connection {
 public:
  explicit Connection(PGconn* conn) : conn_(conn) {}
  ~Connection() { PQfinish(conn_); }

  PGconn* get() { return conn_; }

  // Locks game `game_id`'s row for the open transaction; NOT_FOUND when the
  // store holds no such game.
  absl::Status LockGame(absl::string_view game_id) {
    absl::StatusOr<ResultPtr> row =
        Run("SELECT 1 FROM games WHERE game_id = $1 FOR UPDATE",
            Params().Text(game_id), "lock a game");
    if (!row.ok()) return row.status();
    if (PQntuples(row->get()) == 0) return NoGameError(game_id);
    return absl::OkStatus();
  }

  // Resets a connection the server dropped; true when it is usable.
  bool EnsureUp() {
    if (PQstatus(conn_) == CONNECTION_OK) return true;
    PQreset(conn_);
    return PQstatus(conn_) == CONNECTION_OK;
  }

  // Runs `sql` with `params`; results come in binary. Returns the result of
  // a statement that succeeded.
  absl::StatusOr<ResultPtr> Run(const char* sql, const Params& params,
                                absl::string_view action) {
    ResultPtr result(
        PQexecParams(conn_, sql, params.size(), nullptr, params.values(),
                     params.lengths(), params.formats(), /*resultFormat=*/1),
        &PQclear);
    const ExecStatusType status =
        result == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      return ServerError(conn_, result.get(), action);
    }
    return result;
  }
  absl::StatusOr<ResultPtr> Run(const char* sql, absl::string_view action) {
    return Run(sql, Params(), action);
  }
  // Runs `sql`, several statements and no parameters (a migration).
  absl::Status RunScript(const char* sql, absl::string_view action) {
    ResultPtr result(PQexec(conn_, sql), &PQclear);
    if (result == nullptr || PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
      return ServerError(conn_, result.get(), action);
    }
    return absl::OkStatus();
  }

 private:
  PGconn* const conn_;
};

// A connection taken from the pool, given back on destruction.
class PostgresGameStore::Lease {
 public:
  Lease(PostgresGameStore* store, Connection* connection)
      : store_(store), connection_(connection) {}
  Lease(Lease&& other) noexcept
      : store_(other.store_), connection_(other.connection_) {
    other.connection_ = nullptr;
  }
  ~Lease() {
    if (connection_ != nullptr) store_->Give(connection_);
  }
  Connection* operator->() { return connection_; }

 private:
  PostgresGameStore* store_;
  Connection* connection_;
};

namespace {

// A transaction on a leased connection: BEGIN at Begin, rolled back on
// destruction unless committed.
template <typename Lease>
class Transaction {
 public:
  explicit Transaction(Lease& lease) : lease_(lease) {}
  ~Transaction() {
    if (open_) (void)lease_->Run("ROLLBACK", "roll back");
  }
  absl::Status Begin() {
    GUNBAI_RETURN_IF_ERROR(lease_->Run("BEGIN", "begin").status());
    open_ = true;
    return absl::OkStatus();
  }
  absl::Status Commit() {
    open_ = false;
    return lease_->Run("COMMIT", "commit").status();
  }

 private:
  Lease& lease_;
  bool open_ = false;
};

}  // namespace

bool PostgresGameStore::IsPostgresUri(absl::string_view uri) {
  return absl::StartsWith(uri, "postgresql://") ||
         absl::StartsWith(uri, "postgres://");
}

PostgresGameStore::PostgresGameStore(std::string uri, std::string password)
    : uri_(std::move(uri)), password_(std::move(password)) {}

absl::StatusOr<std::unique_ptr<PostgresGameStore>> PostgresGameStore::Open(
    const std::string& uri, const Options& options) {
  {
    char* error = nullptr;
    PQconninfoOption* parsed = PQconninfoParse(uri.c_str(), &error);
    if (parsed == nullptr) {
      std::string detail = error != nullptr ? error : "out of memory";
      PQfreemem(error);
      while (!detail.empty() && detail.back() == '\n') detail.pop_back();
      return absl::InvalidArgumentError(
          absl::StrCat("--store: not a PostgreSQL connection URI: ", detail));
    }
    bool has_password = false;
    for (PQconninfoOption* o = parsed; o->keyword != nullptr; ++o) {
      if (absl::string_view(o->keyword) == "password" && o->val != nullptr &&
          o->val[0] != '\0') {
        has_password = true;
      }
    }
    PQconninfoFree(parsed);
    if (has_password) {
      return absl::InvalidArgumentError(
          "--store: the URI holds a password, which anyone on the machine "
          "could read in the process list; give it in PGPASSWORD, a "
          "PGPASSFILE or --store-password-file instead");
    }
  }
  if (options.connections < 1) {
    return absl::InvalidArgumentError("a store needs at least one connection");
  }
  std::unique_ptr<PostgresGameStore> store(
      new PostgresGameStore(uri, options.password));
  {
    absl::MutexLock lock(&store->mu_);
    for (int i = 0; i < options.connections; ++i) {
      GUNBAI_ASSIGN_OR_RETURN(PGconn * conn, Connect(uri, options.password,
                                                     options.connect_timeout));
      store->pool_.push_back(std::make_unique<Connection>(conn));
      store->free_.push_back(store->pool_.back().get());
    }
  }
  GUNBAI_RETURN_IF_ERROR(store->Migrate());
  // Listening before Open returns: every append committed after it is told.
  GUNBAI_ASSIGN_OR_RETURN(PGconn * listener, store->ConnectListener());
  store->listen_thread_ =
      std::thread([s = store.get(), listener] { s->Listen(listener); });
  return store;
}

PostgresGameStore::~PostgresGameStore() {
  stopping_ = true;
  if (listen_thread_.joinable()) listen_thread_.join();
}

PostgresGameStore::Lease PostgresGameStore::Take() {
  absl::MutexLock lock(&mu_);
  while (free_.empty()) freed_.Wait(&mu_);
  Connection* connection = free_.back();
  free_.pop_back();
  connection->EnsureUp();
  return Lease(this, connection);
}

void PostgresGameStore::Give(Connection* connection) {
  absl::MutexLock lock(&mu_);
  free_.push_back(connection);
  freed_.Signal();
}

absl::Status PostgresGameStore::Migrate() {
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  GUNBAI_RETURN_IF_ERROR(lease
                             ->Run("SELECT pg_advisory_xact_lock($1)",
                                   Params().Int(kMigrationLock),
                                   "lock the schema")
                             .status());
  GUNBAI_RETURN_IF_ERROR(
      lease
          ->Run("CREATE TABLE IF NOT EXISTS gunbai_schema (version INTEGER "
                "NOT NULL)",
                "create the schema table")
          .status());
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr found,
      lease->Run("SELECT version FROM gunbai_schema", "read the schema"));
  int64_t version = 0;
  if (PQntuples(found.get()) == 0) {
    GUNBAI_RETURN_IF_ERROR(
        lease
            ->Run("INSERT INTO gunbai_schema (version) VALUES (0)",
                  "start the schema")
            .status());
  } else {
    version = IntCell(found.get(), 0, 0);
  }
  if (version > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("the database is at schema version ", version,
                     ", written by a newer gunbai (this one knows up to ",
                     kSchemaVersion, "); run the newer gunbaid"));
  }
  for (int64_t v = version; v < kSchemaVersion; ++v) {
    GUNBAI_RETURN_IF_ERROR(lease->RunScript(
        kMigrations[v], absl::StrCat("migrate to schema ", v + 1)));
  }
  GUNBAI_RETURN_IF_ERROR(lease
                             ->Run("UPDATE gunbai_schema SET version = $1",
                                   Params().Int(kSchemaVersion),
                                   "record the schema")
                             .status());
  return transaction.Commit();
}

absl::Status PostgresGameStore::CreateGame(const GameRecord& game) {
  GUNBAI_RETURN_IF_ERROR(CheckNewGame(game));
  v1::DiceCommitment dice = game.dice;
  dice.clear_revealed_secret();  // Revealed from secret_hex once ended.
  const std::string header = base::DeterministicBytes(game.header);
  const std::string order = base::DeterministicBytes(game.order_of_battle);
  const std::string settings = base::DeterministicBytes(game.settings);
  const std::string dice_bytes = base::DeterministicBytes(dice);
  const std::string field = base::DeterministicBytes(game.field);
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr inserted,
      lease->Run("INSERT INTO games (game_id, header, order_of_battle, "
                 "settings, dice, secret_hex, ended, field) VALUES ($1, $2, "
                 "$3, $4, $5, $6, $7, $8) ON CONFLICT (game_id) DO NOTHING "
                 "RETURNING 1",
                 Params()
                     .Text(game.game_id)
                     .Bytes(header)
                     .Bytes(order)
                     .Bytes(settings)
                     .Bytes(dice_bytes)
                     .Text(game.secret_hex)
                     .Text(game.ended ? "true" : "false")
                     .Bytes(field),
                 "create a game"));
  if (PQntuples(inserted.get()) == 0) return GameExistsError(game.game_id);
  int64_t position = 0;
  for (const auto& [clan, token_sha256] : game.credential_hashes) {
    GUNBAI_RETURN_IF_ERROR(
        lease
            ->Run("INSERT INTO credentials (game_id, position, clan, "
                  "token_sha256) VALUES ($1, $2, $3, $4)",
                  Params()
                      .Text(game.game_id)
                      .Int(++position)
                      .Text(clan)
                      .Text(token_sha256),
                  "store a credential")
            .status());
  }
  return transaction.Commit();
}

absl::StatusOr<GameRecord> PostgresGameStore::GetGame(
    absl::string_view game_id) {
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  GameRecord game;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        ResultPtr row,
        lease->Run("SELECT header, order_of_battle, settings, dice, "
                   "secret_hex, ended, field FROM games WHERE game_id = $1",
                   Params().Text(game_id), "read a game"));
    if (PQntuples(row.get()) == 0) return NoGameError(game_id);
    const PGresult* r = row.get();
    game.game_id = std::string(game_id);
    GUNBAI_RETURN_IF_ERROR(ParseStored(Cell(r, 0, 0), "header", game.header));
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(Cell(r, 0, 1), "order of battle", game.order_of_battle));
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(Cell(r, 0, 2), "settings", game.settings));
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(Cell(r, 0, 3), "dice commitment", game.dice));
    game.secret_hex = std::string(Cell(r, 0, 4));
    game.ended = IntCell(r, 0, 5) != 0;
    // NULL reads as no bytes: no field.
    GUNBAI_RETURN_IF_ERROR(
        ParseStored(Cell(r, 0, 6), "table and terrain", game.field));
    if (game.ended) game.dice.set_revealed_secret(game.secret_hex);
  }
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr credentials,
      lease->Run("SELECT clan, token_sha256 FROM credentials WHERE game_id = "
                 "$1 ORDER BY position",
                 Params().Text(game_id), "read a game's credentials"));
  for (int i = 0; i < PQntuples(credentials.get()); ++i) {
    game.credential_hashes.emplace_back(Cell(credentials.get(), i, 0),
                                        Cell(credentials.get(), i, 1));
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return game;
}

absl::StatusOr<std::vector<std::string>> PostgresGameStore::ListGames() {
  Lease lease = Take();
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr rows,
      lease->Run("SELECT game_id FROM games ORDER BY game_id COLLATE \"C\"",
                 "list the games"));
  std::vector<std::string> ids;
  for (int i = 0; i < PQntuples(rows.get()); ++i) {
    ids.emplace_back(Cell(rows.get(), i, 0));
  }
  return ids;
}

absl::StatusOr<std::optional<std::string>> PostgresGameStore::FindBatch(
    absl::string_view game_id, absl::string_view first_event_id) {
  Lease lease = Take();
  return FindBatchOn(*lease.operator->(), game_id, first_event_id);
}

absl::StatusOr<std::optional<std::string>> PostgresGameStore::FindBatchOn(
    Connection& connection, absl::string_view game_id,
    absl::string_view first_event_id) {
  // One statement: the game's row (NULL answer when no batch) or no row.
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr rows,
      connection.Run("SELECT b.answer FROM games g LEFT JOIN batches b ON "
                     "b.game_id = g.game_id AND b.first_event_id = $2 WHERE "
                     "g.game_id = $1",
                     Params().Text(game_id).Text(first_event_id),
                     "find a batch"));
  if (PQntuples(rows.get()) == 0) return NoGameError(game_id);
  if (PQgetisnull(rows.get(), 0, 0)) return std::nullopt;
  return std::string(Cell(rows.get(), 0, 0));
}

absl::StatusOr<AppendResult> PostgresGameStore::Append(
    absl::string_view game_id, uint64_t expected_version,
    const std::vector<v1::StoredEvent>& events, absl::string_view answer) {
  GUNBAI_RETURN_IF_ERROR(CheckAppendBatch(events));
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  // The game's row is locked until the commit: appends to one game, from
  // any replica, take their turns here, and each sees the version the one
  // before it committed. The same statement looks for the batch's ids.
  std::vector<absl::string_view> ids;
  ids.reserve(events.size());
  for (const v1::StoredEvent& e : events) ids.push_back(e.event_id());
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr row,
      // The ids are looked up by their unique index (materialized: ordered
      // by position, the planner would walk the whole game's events).
      lease->Run("WITH hits AS MATERIALIZED (SELECT event_id, position FROM "
                 "events WHERE game_id = $1 AND event_id = ANY ($2::text[])) "
                 "SELECT g.version, e.event_id, e.position FROM games g LEFT "
                 "JOIN LATERAL (SELECT * FROM hits ORDER BY position LIMIT 1) "
                 "e ON true WHERE g.game_id = $1 FOR UPDATE OF g",
                 Params().Text(game_id).TextArray(ids), "lock a game"));
  if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  const uint64_t version = static_cast<uint64_t>(IntCell(row.get(), 0, 0));
  if (!PQgetisnull(row.get(), 0, 1) || version != expected_version) {
    // Before refusing: the whole batch may have been stored by a call that
    // held the lock before this one (a retry sent at once elsewhere). The
    // statement above read the events as they were when it began, before
    // it waited for the lock; this one reads them as they are now.
    GUNBAI_ASSIGN_OR_RETURN(
        std::optional<std::string> answered,
        FindBatchOn(*lease.operator->(), game_id, events[0].event_id()));
    if (answered.has_value()) {
      AppendResult result;
      result.stored_answer = std::move(answered);
      return result;
    }
  }
  if (!PQgetisnull(row.get(), 0, 1)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "event \"", Cell(row.get(), 0, 1), "\" is already stored, at position ",
        IntCell(row.get(), 0, 2), " of game \"", game_id,
        "\"; a retried batch must be sent whole, as first sent"));
  }
  if (version != expected_version) {
    return StaleVersion(*lease.operator->(), game_id, expected_version,
                        version);
  }
  // The events, kInsertRows to a statement; the last statement also stores
  // the answer, advances the version and notifies the listeners (delivered
  // when, and only if, the transaction commits): one round trip for a
  // small batch.
  const uint64_t new_version = version + events.size();
  for (size_t first = 0; first < events.size(); first += kInsertRows) {
    const size_t end = std::min(events.size(), first + kInsertRows);
    const bool last = end == events.size();
    // One statement of five parameters whatever the batch: the positions,
    // seqs, ids and bytes as arrays (the bytes hex-encoded in the array's
    // text), unnested into rows.
    std::string positions = "{";
    std::string seqs = "{";
    std::vector<absl::string_view> event_ids;
    std::string stored = "{";
    for (size_t i = first; i < end; ++i) {
      const char* comma = i == first ? "" : ",";
      absl::StrAppend(&positions, comma, version + i + 1);
      absl::StrAppend(&seqs, comma, events[i].event().seq());
      event_ids.push_back(events[i].event_id());
      absl::StrAppend(
          &stored, comma, "\"\\\\x",
          absl::BytesToHexString(base::DeterministicBytes(events[i])), "\"");
    }
    absl::StrAppend(&positions, "}");
    absl::StrAppend(&seqs, "}");
    absl::StrAppend(&stored, "}");
    Params params;
    params.Text(game_id).Text(positions).Text(seqs).TextArray(event_ids).Text(
        stored);
    std::string sql =
        "INSERT INTO events (game_id, position, seq, event_id, stored) SELECT "
        "$1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], "
        "$5::bytea[])";
    if (last) {
      sql = absl::StrCat(
          "WITH stored_events AS (", sql,
          "), stored_batch AS (INSERT INTO batches (game_id, first_event_id, "
          "answer) VALUES ($1, $6, $7)), advanced AS (UPDATE games SET "
          "version = $8 WHERE game_id = $1) SELECT pg_notify('",
          kAppendChannel, "', $1)");
      params.Text(events.front().event_id())
          .Bytes(answer)
          .Int(static_cast<int64_t>(new_version));
    }
    absl::StatusOr<ResultPtr> inserted =
        lease->Run(sql.c_str(), params, "store events");
    if (!inserted.ok()) {
      if (absl::IsAlreadyExists(inserted.status())) {
        return absl::AlreadyExistsError(absl::StrCat(
            "a seq of this batch is already stored in game \"", game_id, "\" (",
            inserted.status().message(), "); seqs increase through a game"));
      }
      return inserted.status();
    }
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return AppendResult{new_version, events.back().chain_hash(), std::nullopt};
}

absl::Status PostgresGameStore::StaleVersion(Connection& connection,
                                             absl::string_view game_id,
                                             uint64_t expected_version,
                                             uint64_t version) {
  // The first event the caller has not seen (as in the SQLite store; none
  // for a caller ahead of the game).
  int64_t next_seq = 0;
  if (expected_version < version) {
    next_seq = static_cast<int64_t>(expected_version) + 1;
    GUNBAI_ASSIGN_OR_RETURN(
        ResultPtr row,
        connection.Run(
            "SELECT seq FROM events WHERE game_id = $1 AND position = $2",
            Params().Text(game_id).Int(static_cast<int64_t>(expected_version) +
                                       1),
            "read a game's next seq"));
    if (PQntuples(row.get()) > 0) next_seq = IntCell(row.get(), 0, 0);
  }
  return replay::StaleVersionError(expected_version, version, next_seq);
}

absl::StatusOr<std::vector<v1::StoredEvent>> PostgresGameStore::ReadEvents(
    absl::string_view game_id, uint64_t from_seq) {
  std::vector<v1::StoredEvent> events;
  uint64_t from = from_seq;
  while (true) {
    GUNBAI_ASSIGN_OR_RETURN(EventPage page,
                            ReadEventPage(game_id, from, size_t{8} << 20));
    for (v1::StoredEvent& e : page.events) events.push_back(std::move(e));
    if (page.next_seq == 0) return events;
    from = page.next_seq;
  }
}

absl::StatusOr<GameStore::EventPage> PostgresGameStore::ReadEventPage(
    absl::string_view game_id, uint64_t from_seq, size_t max_bytes) {
  EventPage page;
  Lease lease = Take();
  {
    GUNBAI_ASSIGN_OR_RETURN(ResultPtr row,
                            lease->Run("SELECT 1 FROM games WHERE game_id = $1",
                                       Params().Text(game_id), "find a game"));
    if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  }
  // Stored seqs fit in an int64; a larger from_seq matches nothing.
  if (from_seq > static_cast<uint64_t>(kMaxInt64)) return page;
  // The page's first position, found by seq; from there the rows are read
  // by position, a few at a time (events never change once stored): a page
  // of a long game costs the page, not the game.
  int64_t position = 0;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        ResultPtr row,
        lease->Run("SELECT position FROM events WHERE game_id = $1 AND seq >= "
                   "$2 ORDER BY seq LIMIT 1",
                   Params().Text(game_id).Int(static_cast<int64_t>(from_seq)),
                   "find a page"));
    if (PQntuples(row.get()) == 0) return page;
    position = IntCell(row.get(), 0, 0);
  }
  size_t bytes = 0;
  while (true) {
    GUNBAI_ASSIGN_OR_RETURN(
        ResultPtr rows,
        lease->Run("SELECT seq, stored, position FROM events WHERE game_id = "
                   "$1 AND position >= $2 AND seq >= $3 ORDER BY position "
                   "LIMIT $4",
                   Params()
                       .Text(game_id)
                       .Int(position)
                       .Int(static_cast<int64_t>(from_seq))
                       .Int(kPageRows),
                   "read events"));
    const int n = PQntuples(rows.get());
    for (int i = 0; i < n; ++i) {
      const absl::string_view stored = Cell(rows.get(), i, 1);
      if (!page.events.empty() && bytes + stored.size() > max_bytes) {
        page.next_seq = static_cast<uint64_t>(IntCell(rows.get(), i, 0));
        return page;
      }
      bytes += stored.size();
      GUNBAI_RETURN_IF_ERROR(
          ParseStored(stored, "event", page.events.emplace_back()));
    }
    if (n < kPageRows) return page;
    position = IntCell(rows.get(), n - 1, 2) + 1;
  }
}

absl::StatusOr<uint64_t> PostgresGameStore::Version(absl::string_view game_id) {
  Lease lease = Take();
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr row,
      lease->Run("SELECT version FROM games WHERE game_id = $1",
                 Params().Text(game_id), "read a game's version"));
  if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  return static_cast<uint64_t>(IntCell(row.get(), 0, 0));
}

absl::StatusOr<uint64_t> PostgresGameStore::NextDiceAttempt(
    absl::string_view game_id) {
  Lease lease = Take();
  // One statement, committed before it returns.
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr row,
      lease->Run("UPDATE games SET dice_attempts = dice_attempts + 1 WHERE "
                 "game_id = $1 RETURNING dice_attempts",
                 Params().Text(game_id), "take a dice attempt"));
  if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  return static_cast<uint64_t>(IntCell(row.get(), 0, 0));
}

absl::StatusOr<std::vector<GameStore::StoredBatch>>
PostgresGameStore::ReadBatches(absl::string_view game_id) {
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  {
    GUNBAI_ASSIGN_OR_RETURN(ResultPtr row,
                            lease->Run("SELECT 1 FROM games WHERE game_id = $1",
                                       Params().Text(game_id), "find a game"));
    if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  }
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr rows,
      lease->Run("SELECT b.first_event_id, b.answer FROM batches b JOIN "
                 "events e ON e.game_id = b.game_id AND e.event_id = "
                 "b.first_event_id WHERE b.game_id = $1 ORDER BY e.position",
                 Params().Text(game_id), "read a game's batches"));
  std::vector<StoredBatch> batches;
  for (int i = 0; i < PQntuples(rows.get()); ++i) {
    batches.push_back({std::string(Cell(rows.get(), i, 0)),
                       std::string(Cell(rows.get(), i, 1))});
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return batches;
}

absl::StatusOr<uint64_t> PostgresGameStore::DiceAttempts(
    absl::string_view game_id) {
  Lease lease = Take();
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr row,
      lease->Run("SELECT dice_attempts FROM games WHERE game_id = $1",
                 Params().Text(game_id), "read a game's dice attempts"));
  if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  return static_cast<uint64_t>(IntCell(row.get(), 0, 0));
}

absl::Status PostgresGameStore::RaiseDiceAttempts(absl::string_view game_id,
                                                  uint64_t taken) {
  GUNBAI_RETURN_IF_ERROR(CheckDiceAttempts(taken));
  Lease lease = Take();
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr row,
      lease->Run("UPDATE games SET dice_attempts = GREATEST(dice_attempts, "
                 "$2) WHERE game_id = $1 RETURNING 1",
                 Params().Text(game_id).Int(static_cast<int64_t>(taken)),
                 "raise a game's dice attempts"));
  if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  return absl::OkStatus();
}

absl::Status PostgresGameStore::MarkEnded(absl::string_view game_id) {
  Lease lease = Take();
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr row,
      lease->Run("UPDATE games SET ended = true WHERE game_id = $1 RETURNING 1",
                 Params().Text(game_id), "mark a game ended"));
  if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  return absl::OkStatus();
}

absl::Status PostgresGameStore::WriteCheckpoint(
    absl::string_view game_id, const StoredCheckpoint& checkpoint) {
  GUNBAI_RETURN_IF_ERROR(CheckCheckpoint(checkpoint));
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  GUNBAI_RETURN_IF_ERROR(lease->LockGame(game_id));
  // The newest is the one a load takes: the older ones go.
  GUNBAI_RETURN_IF_ERROR(lease
                             ->Run("DELETE FROM checkpoints WHERE game_id = $1",
                                   Params().Text(game_id),
                                   "drop old checkpoints")
                             .status());
  GUNBAI_RETURN_IF_ERROR(
      lease
          ->Run("INSERT INTO checkpoints (game_id, after_version, after_seq, "
                "head_hash, ruleset_digest, format, state, findings, sha256) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                Params()
                    .Text(game_id)
                    .Int(static_cast<int64_t>(checkpoint.after_version))
                    .Int(static_cast<int64_t>(checkpoint.after_seq))
                    .Text(checkpoint.head_hash)
                    .Text(checkpoint.ruleset_digest)
                    .Int(checkpoint.format)
                    .Bytes(checkpoint.state)
                    .Bytes(checkpoint.findings)
                    .Text(checkpoint.sha256),
                "store a checkpoint")
          .status());
  return transaction.Commit();
}

absl::Status PostgresGameStore::RegisterWitnessKey(
    absl::string_view game_id, absl::string_view clan,
    absl::string_view verifier_key) {
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  GUNBAI_RETURN_IF_ERROR(lease->LockGame(game_id));
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr held,
      lease->Run("SELECT verifier_key FROM witness_keys WHERE game_id = $1 "
                 "AND clan = $2",
                 Params().Text(game_id).Text(clan), "read a checkpoint key"));
  if (PQntuples(held.get()) > 0) {
    if (Cell(held.get(), 0, 0) == verifier_key) return transaction.Commit();
    return WitnessKeyTakenError(clan);
  }
  GUNBAI_RETURN_IF_ERROR(
      lease
          ->Run("INSERT INTO witness_keys (game_id, clan, verifier_key) "
                "VALUES ($1, $2, $3)",
                Params().Text(game_id).Text(clan).Text(verifier_key),
                "store a checkpoint key")
          .status());
  return transaction.Commit();
}

absl::Status PostgresGameStore::AddCosignature(
    absl::string_view game_id, const StoredCosignature& cosignature) {
  GUNBAI_RETURN_IF_ERROR(CheckCosignature(cosignature));
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  GUNBAI_RETURN_IF_ERROR(lease->LockGame(game_id));
  GUNBAI_RETURN_IF_ERROR(
      lease
          ->Run("INSERT INTO cosignatures (game_id, tree_size, clan, "
                "signature_line) VALUES ($1, $2, $3, $4) ON CONFLICT DO "
                "NOTHING",
                Params()
                    .Text(game_id)
                    .Int(static_cast<int64_t>(cosignature.tree_size))
                    .Text(cosignature.clan)
                    .Text(cosignature.signature_line),
                "store a cosignature")
          .status());
  return transaction.Commit();
}

absl::StatusOr<GameWitnesses> PostgresGameStore::ReadWitnesses(
    absl::string_view game_id) {
  Lease lease = Take();
  Transaction transaction(lease);
  GUNBAI_RETURN_IF_ERROR(transaction.Begin());
  {
    GUNBAI_ASSIGN_OR_RETURN(ResultPtr row,
                            lease->Run("SELECT 1 FROM games WHERE game_id = $1",
                                       Params().Text(game_id), "find a game"));
    if (PQntuples(row.get()) == 0) return NoGameError(game_id);
  }
  GameWitnesses out;
  {
    GUNBAI_ASSIGN_OR_RETURN(
        ResultPtr rows,
        lease->Run("SELECT clan, verifier_key FROM witness_keys WHERE "
                   "game_id = $1 ORDER BY clan",
                   Params().Text(game_id), "read the checkpoint keys"));
    for (int i = 0; i < PQntuples(rows.get()); ++i) {
      out.keys.emplace_back(std::string(Cell(rows.get(), i, 0)),
                            std::string(Cell(rows.get(), i, 1)));
    }
  }
  {
    GUNBAI_ASSIGN_OR_RETURN(
        ResultPtr rows,
        lease->Run("SELECT clan, tree_size, signature_line FROM cosignatures "
                   "WHERE game_id = $1 ORDER BY tree_size, clan",
                   Params().Text(game_id), "read the cosignatures"));
    for (int i = 0; i < PQntuples(rows.get()); ++i) {
      StoredCosignature& c = out.cosignatures.emplace_back();
      c.clan = std::string(Cell(rows.get(), i, 0));
      c.tree_size = static_cast<uint64_t>(IntCell(rows.get(), i, 1));
      c.signature_line = std::string(Cell(rows.get(), i, 2));
    }
  }
  GUNBAI_RETURN_IF_ERROR(transaction.Commit());
  return out;
}

absl::StatusOr<std::optional<StoredCheckpoint>>
PostgresGameStore::LatestCheckpoint(absl::string_view game_id,
                                    absl::string_view ruleset_digest,
                                    uint32_t format) {
  Lease lease = Take();
  GUNBAI_ASSIGN_OR_RETURN(
      ResultPtr rows,
      lease->Run("SELECT c.after_version, c.after_seq, c.head_hash, c.state, "
                 "c.findings, c.sha256 FROM games g LEFT JOIN LATERAL (SELECT "
                 "* FROM checkpoints WHERE game_id = g.game_id AND "
                 "ruleset_digest = $2 AND format = $3 ORDER BY after_version "
                 "DESC LIMIT 1) c ON true WHERE g.game_id = $1",
                 Params().Text(game_id).Text(ruleset_digest).Int(format),
                 "read a checkpoint"));
  if (PQntuples(rows.get()) == 0) return NoGameError(game_id);
  const PGresult* r = rows.get();
  if (PQgetisnull(r, 0, 0)) return std::nullopt;
  StoredCheckpoint c;
  c.after_version = static_cast<uint64_t>(IntCell(r, 0, 0));
  c.after_seq = static_cast<uint64_t>(IntCell(r, 0, 1));
  c.head_hash = std::string(Cell(r, 0, 2));
  c.ruleset_digest = std::string(ruleset_digest);
  c.format = format;
  c.state = std::string(Cell(r, 0, 3));
  c.findings = std::string(Cell(r, 0, 4));
  c.sha256 = std::string(Cell(r, 0, 5));
  return c;
}

void PostgresGameStore::OnAppend(AppendListener listener) {
  absl::MutexLock lock(&listener_mu_);
  listener_ = std::move(listener);
}

void PostgresGameStore::Tell(const std::string& game_id) {
  absl::MutexLock lock(&listener_mu_);
  if (listener_) listener_(game_id);
}

absl::StatusOr<PGconn*> PostgresGameStore::ConnectListener() {
  GUNBAI_ASSIGN_OR_RETURN(PGconn * conn,
                          Connect(uri_, password_, absl::Seconds(5)));
  ResultPtr listened(
      PQexec(conn, absl::StrCat("LISTEN ", kAppendChannel).c_str()), &PQclear);
  if (PQresultStatus(listened.get()) != PGRES_COMMAND_OK) {
    absl::Status s = ServerError(conn, listened.get(), "listen for appends");
    PQfinish(conn);
    return s;
  }
  return conn;
}

void PostgresGameStore::Listen(PGconn* conn) {
  while (!stopping_) {
    if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
      if (conn != nullptr) PQfinish(conn);
      conn = nullptr;
      absl::StatusOr<PGconn*> connected = ConnectListener();
      if (!connected.ok()) {
        absl::SleepFor(absl::Milliseconds(200));
        continue;
      }
      conn = *connected;
      // Appends may have committed while nobody listened.
      Tell("");
    }
    const int socket = PQsocket(conn);
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(socket, &readable);
    timeval wait{0, 100 * 1000};  // The stop flag is looked at this often.
    if (select(socket + 1, &readable, nullptr, nullptr, &wait) < 0) continue;
    if (PQconsumeInput(conn) == 0) continue;  // Reconnects on the next turn.
    while (PGnotify* note = PQnotifies(conn)) {
      const std::string game_id = note->extra != nullptr ? note->extra : "";
      PQfreemem(note);
      if (!game_id.empty()) Tell(game_id);
    }
  }
  if (conn != nullptr) PQfinish(conn);
}

}  // namespace gunbai::service
