// Durable appends to SqliteGameStore (WAL, synchronous=FULL: every commit
// waits for an fsync). items_per_second is events per second;
// batches_per_second is commits per second. Each run starts from an empty
// store in a fresh directory under $GUNBAI_BENCH_DIR (default: the system
// temp directory), so the figure depends on that disk's fsync; run it on the
// disk gunbaid's data directory will live on.
//
// An iteration is what the game service does per accepted batch: build the
// stored events and the serialized answer, append at the known version.
//
// Concurrent games, side by side in one run (BM_Concurrent*, with 1 and 8
// threads, each thread appending one event at a time to its own game):
//  - RawSqlite: plain SQLite, one transaction per append, on one connection
//    with the store's settings (WAL, synchronous=FULL): the floor of one
//    fsync per append;
//  - StoreOneCommitEach: SqliteGameStore with group_commit off (each append
//    its own commit, the store before group commit);
//  - StoreGroupCommit: SqliteGameStore as gunbaid runs it (appends that
//    arrive during a commit share the next one).
//  - Postgres: PostgresGameStore as gunbaid runs it with --store=postgresql
//    (8 connections), on a PostgreSQL server this benchmark starts in a
//    temporary directory (tests/store/postgres_server.h) with the server's
//    defaults (fsync on, synchronous_commit on: each commit waits for the
//    WAL's fsync, as a database gunbaid is pointed at would).
// items_per_second is appends per second over all threads (wall time).
// BM_AppendOneEvent and BM_AppendBatch run on both stores (/Sqlite,
// /Postgres).
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "service/store/game_store.h"
#include "service/store/postgres_game_store.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/postgres_server.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kGameId[] = "bench-game";
constexpr int kMaxThreads = 8;

std::filesystem::path BenchRoot() {
  const char* dir = std::getenv("GUNBAI_BENCH_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return std::filesystem::temp_directory_path();
}

enum class Backend { kSqlite, kPostgres };

// The benchmark's PostgreSQL server, started on first use; null, with the
// reason in `error`, when it cannot start.
gunbai::testing::PostgresServer* Postgres(std::string& error) {
  // Stopped at exit, by the static's destructor.
  static absl::StatusOr<std::unique_ptr<gunbai::testing::PostgresServer>>
      server_or = gunbai::testing::PostgresServer::Start();
  auto* server = &server_or;
  if (!server->ok()) {
    error = server->status().ToString();
    return nullptr;
  }
  return server->value().get();
}

// A fresh store holding empty games; removes its directory (or leaves its
// database on the benchmark's server) when done.
class FreshStore {
 public:
  explicit FreshStore(bool group_commit = true, int games = 1,
                      Backend backend = Backend::kSqlite) {
    static std::atomic<int> counter{0};
    const int n = counter++;
    dir_ = BenchRoot() / absl::StrCat("gunbai_append_bench_", getpid(), "_", n);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    if (backend == Backend::kPostgres) {
      gunbai::testing::PostgresServer* server = Postgres(error_);
      if (server == nullptr) return;
      absl::StatusOr<std::string> uri =
          server->CreateDatabase(absl::StrCat("bench", n));
      if (!uri.ok()) {
        error_ = uri.status().ToString();
        return;
      }
      PostgresGameStore::Options options;
      options.password = server->password();
      options.connections = kMaxThreads;
      auto store = PostgresGameStore::Open(*uri, options);
      if (!store.ok()) {
        error_ = store.status().ToString();
        return;
      }
      store_ = *std::move(store);
    } else {
      SqliteGameStore::Options options;
      options.group_commit = group_commit;
      auto store = SqliteGameStore::Open(dir_.string(), options);
      if (!store.ok()) {
        error_ = store.status().ToString();
        return;
      }
      store_ = *std::move(store);
    }
    for (int g = 0; g < games; ++g) {
      GameRecord game;
      game.game_id = g == 0 ? std::string(kGameId) : absl::StrCat(kGameId, g);
      game.secret_hex = "5ec7e7";
      if (absl::Status s = store_->CreateGame(game); !s.ok()) {
        error_ = s.ToString();
      }
    }
  }
  ~FreshStore() {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  GameStore* store() { return store_.get(); }
  const std::filesystem::path& dir() const { return dir_; }
  const std::string& error() const { return error_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<GameStore> store_;
  std::string error_;
};

// A firing as a player would append it: about 100 bytes stored.
v1::StoredEvent MakeFiring(uint64_t seq) {
  v1::StoredEvent stored;
  stored.set_event_id(absl::StrCat("client-7f3a-", seq));
  stored.set_chain_hash(std::string(64, 'c'));
  v1::Event& event = *stored.mutable_event();
  event.set_seq(seq);
  event.set_turn(3);
  event.set_clan("oda");
  v1::Firing& firing = *event.mutable_firing();
  firing.set_unit("oda-ash-1");
  firing.set_target("takeda-sam-2");
  firing.set_stands_firing(4);
  for (int die = 0; die < 8; ++die) firing.add_dice(1 + die % 6);
  firing.mutable_facts()->set_range(v1::RANGE_BAND_EFFECTIVE);
  return stored;
}

void AppendBatches(benchmark::State& state, int batch_size, Backend backend) {
  FreshStore fresh(true, 1, backend);
  if (!fresh.error().empty()) {
    state.SkipWithError(fresh.error().c_str());
    return;
  }
  uint64_t version = 0;
  std::vector<v1::StoredEvent> events(batch_size);
  for (auto _ : state) {
    v1::AppendEventsResponse answer;
    for (int i = 0; i < batch_size; ++i) {
      events[i] = MakeFiring(version + i + 1);
      *answer.add_events() = events[i];
    }
    answer.set_version(version + batch_size);
    answer.set_head_hash(events.back().chain_hash());
    absl::StatusOr<AppendResult> result = fresh.store()->Append(
        kGameId, version, events, answer.SerializeAsString());
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      break;
    }
    version = result->version;
  }
  state.SetItemsProcessed(static_cast<int64_t>(version));
  state.counters["batches_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// One event per transaction: the latency a player's single order sees.
void BM_AppendOneEvent(benchmark::State& state, Backend backend) {
  AppendBatches(state, 1, backend);
}
BENCHMARK_CAPTURE(BM_AppendOneEvent, Sqlite, Backend::kSqlite)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AppendOneEvent, Postgres, Backend::kPostgres)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// state.range(0) events per transaction: a turn sent at once.
void BM_AppendBatch(benchmark::State& state, Backend backend) {
  AppendBatches(state, static_cast<int>(state.range(0)), backend);
}
BENCHMARK_CAPTURE(BM_AppendBatch, Sqlite, Backend::kSqlite)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AppendBatch, Postgres, Backend::kPostgres)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The game of thread `index` in the concurrent benchmarks.
std::string GameOfThread(int index) {
  return index == 0 ? std::string(kGameId) : absl::StrCat(kGameId, index);
}

// What the threads of one concurrent run share, made by a Setup before they
// start and dropped by the Teardown after.
struct Shared {
  std::unique_ptr<FreshStore> fresh;
  // RawSqlite's connection, its statements and the lock that serializes
  // them.
  sqlite3* raw = nullptr;
  sqlite3_stmt* insert = nullptr;
  std::mutex raw_mu;
  // Each thread's game's version, kept here in case one Setup serves
  // several calls of the benchmark function.
  uint64_t versions[kMaxThreads] = {};
  std::string error;
};
Shared* shared = nullptr;

void SetUpStore(bool group_commit, Backend backend = Backend::kSqlite) {
  shared = new Shared();
  shared->fresh =
      std::make_unique<FreshStore>(group_commit, kMaxThreads, backend);
  shared->error = shared->fresh->error();
}
void SetUpGroupCommit(const benchmark::State&) { SetUpStore(true); }
void SetUpOneCommitEach(const benchmark::State&) { SetUpStore(false); }
void SetUpPostgres(const benchmark::State&) {
  SetUpStore(true, Backend::kPostgres);
}

// Returns "" or what failed: exec of `sql` on `db`.
std::string ExecRaw(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) {
    return "";
  }
  std::string error = absl::StrCat(sql, ": ", message ? message : "?");
  sqlite3_free(message);
  return error;
}

// A raw SQLite file beside no store: the store's events table, WAL,
// synchronous=FULL.
void SetUpRaw(const benchmark::State&) {
  shared = new Shared();
  shared->fresh = std::make_unique<FreshStore>(true, 0);
  const std::string path = (shared->fresh->dir() / "raw.sqlite3").string();
  if (sqlite3_open(path.c_str(), &shared->raw) != SQLITE_OK) {
    shared->error = "cannot open " + path;
    return;
  }
  for (const char* sql : {
           "PRAGMA journal_mode=WAL",
           "PRAGMA synchronous=FULL",
           "CREATE TABLE events (game_id TEXT NOT NULL, position INTEGER NOT "
           "NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL, stored BLOB "
           "NOT NULL, PRIMARY KEY (game_id, position), UNIQUE (game_id, "
           "event_id)) STRICT",
       }) {
    shared->error = ExecRaw(shared->raw, sql);
    if (!shared->error.empty()) return;
  }
  if (sqlite3_prepare_v2(shared->raw,
                         "INSERT INTO events (game_id, position, seq, "
                         "event_id, stored) VALUES (?, ?, ?, ?, ?)",
                         -1, &shared->insert, nullptr) != SQLITE_OK) {
    shared->error = sqlite3_errmsg(shared->raw);
  }
}

void TearDownShared(const benchmark::State&) {
  if (shared->insert != nullptr) sqlite3_finalize(shared->insert);
  if (shared->raw != nullptr) sqlite3_close(shared->raw);
  delete shared;
  shared = nullptr;
}

void ReportAppends(benchmark::State& state, uint64_t first_version,
                   uint64_t version) {
  shared->versions[state.thread_index()] = version;
  state.SetItemsProcessed(static_cast<int64_t>(version - first_version));
}

// One event per append to this thread's own game, through the store.
void BM_ConcurrentStore(benchmark::State& state) {
  if (!shared->error.empty()) {
    state.SkipWithError(shared->error.c_str());
    return;
  }
  const std::string game_id = GameOfThread(state.thread_index());
  const uint64_t first_version = shared->versions[state.thread_index()];
  uint64_t version = first_version;
  for (auto _ : state) {
    std::vector<v1::StoredEvent> events = {MakeFiring(version + 1)};
    events[0].set_event_id(absl::StrCat(game_id, "-", version + 1));
    v1::AppendEventsResponse answer;
    *answer.add_events() = events[0];
    answer.set_version(version + 1);
    absl::StatusOr<AppendResult> result = shared->fresh->store()->Append(
        game_id, version, events, answer.SerializeAsString());
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      break;
    }
    version = result->version;
  }
  ReportAppends(state, first_version, version);
}

// One event per transaction, raw: BEGIN IMMEDIATE, INSERT, COMMIT.
void BM_ConcurrentRawSqlite(benchmark::State& state) {
  if (!shared->error.empty()) {
    state.SkipWithError(shared->error.c_str());
    return;
  }
  const std::string game_id = GameOfThread(state.thread_index());
  const uint64_t first_version = shared->versions[state.thread_index()];
  uint64_t version = first_version;
  for (auto _ : state) {
    v1::StoredEvent event = MakeFiring(version + 1);
    const std::string event_id = absl::StrCat(game_id, "-", version + 1);
    const std::string blob = event.SerializeAsString();
    std::lock_guard<std::mutex> lock(shared->raw_mu);
    std::string error = ExecRaw(shared->raw, "BEGIN IMMEDIATE");
    sqlite3_stmt* insert = shared->insert;
    sqlite3_bind_text(insert, 1, game_id.data(), game_id.size(), SQLITE_STATIC);
    sqlite3_bind_int64(insert, 2, static_cast<int64_t>(version + 1));
    sqlite3_bind_int64(insert, 3, static_cast<int64_t>(version + 1));
    sqlite3_bind_text(insert, 4, event_id.data(), event_id.size(),
                      SQLITE_STATIC);
    sqlite3_bind_blob(insert, 5, blob.data(), blob.size(), SQLITE_STATIC);
    if (error.empty() && sqlite3_step(insert) != SQLITE_DONE) {
      error = sqlite3_errmsg(shared->raw);
    }
    sqlite3_reset(insert);
    if (error.empty()) error = ExecRaw(shared->raw, "COMMIT");
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      break;
    }
    ++version;
  }
  ReportAppends(state, first_version, version);
}

BENCHMARK(BM_ConcurrentRawSqlite)
    ->Name("BM_Concurrent/RawSqlite")
    ->Setup(SetUpRaw)
    ->Teardown(TearDownShared)
    ->Threads(1)
    ->Threads(kMaxThreads)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ConcurrentStore)
    ->Name("BM_Concurrent/StoreOneCommitEach")
    ->Setup(SetUpOneCommitEach)
    ->Teardown(TearDownShared)
    ->Threads(1)
    ->Threads(kMaxThreads)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ConcurrentStore)
    ->Name("BM_Concurrent/StoreGroupCommit")
    ->Setup(SetUpGroupCommit)
    ->Teardown(TearDownShared)
    ->Threads(1)
    ->Threads(kMaxThreads)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ConcurrentStore)
    ->Name("BM_Concurrent/Postgres")
    ->Setup(SetUpPostgres)
    ->Teardown(TearDownShared)
    ->Threads(1)
    ->Threads(kMaxThreads)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace gunbai::service

BENCHMARK_MAIN();
