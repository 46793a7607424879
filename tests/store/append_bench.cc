// Durable appends to SqliteGameStore (WAL, synchronous=FULL: every commit
// waits for an fsync). items_per_second is events per second;
// batches_per_second is commits per second. Each run starts from an empty
// store in a fresh directory under $GUNBAI_BENCH_DIR (default: the system
// temp directory), so the figure depends on that disk's fsync; run it on the
// disk gunbaid's data directory will live on.
//
// An iteration is what the game service does per accepted batch: build the
// stored events and the serialized answer, append at the known version.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "service/game_store.h"
#include "service/sqlite_game_store.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kGameId[] = "bench-game";

std::filesystem::path BenchRoot() {
  const char* dir = std::getenv("GUNBAI_BENCH_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return std::filesystem::temp_directory_path();
}

// A fresh store holding one empty game; removes its directory when done.
class FreshStore {
 public:
  FreshStore() {
    static std::atomic<int> counter{0};
    dir_ = BenchRoot() /
           absl::StrCat("gunbai_append_bench_", getpid(), "_", counter++);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
        SqliteGameStore::Open(dir_.string());
    if (!store.ok()) {
      error_ = store.status().ToString();
      return;
    }
    store_ = *std::move(store);
    GameRecord game;
    game.game_id = kGameId;
    game.secret_hex = "5ec7e7";
    if (absl::Status s = store_->CreateGame(game); !s.ok()) {
      error_ = s.ToString();
    }
  }
  ~FreshStore() {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  SqliteGameStore* store() { return store_.get(); }
  const std::string& error() const { return error_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<SqliteGameStore> store_;
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

void AppendBatches(benchmark::State& state, int batch_size) {
  FreshStore fresh;
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
void BM_AppendOneEvent(benchmark::State& state) { AppendBatches(state, 1); }
BENCHMARK(BM_AppendOneEvent)->Unit(benchmark::kMicrosecond)->UseRealTime();

// state.range(0) events per transaction: a turn sent at once.
void BM_AppendBatch(benchmark::State& state) {
  AppendBatches(state, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_AppendBatch)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace gunbai::service

BENCHMARK_MAIN();
