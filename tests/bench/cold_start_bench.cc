// gunbaid's cold start (issue 11): loading a game of 100,000 events after a
// restart, with and without checkpoints. Each iteration starts a fresh
// GameServiceImpl over the same SQLite file (an empty cache, as after a
// restart) and times the first GetGameState, which loads the game: reads
// its record and every stored event into the cache, and replays them (all
// of them, or those after the latest checkpoint). Side by side:
//  - FullReplay: checkpoint_every 0, every event replayed;
//  - Checkpoint10kBack: the latest checkpoint 10,000 events back (a game
//    just short of its next checkpoint at the default N = 10,000);
//  - CheckpointAtEnd: a checkpoint after the last event;
//  - StoreReadOnly: the store's ReadEvents of the same game alone, the
//    floor the checkpoints do not lower (the events are still read, since
//    reads, watches and exports serve them from the cache).
//  - SaveRestore: SaveCheckpoint, and RestoreCheckpoint into a fresh
//    engine, of the replay after 100,000 events, in memory; counters give
//    the checkpoint's bytes and its findings'.
// The games: `replay/generator`, seed 1, 100,000 events (GeneratorOptions::
// target_events; the last turns only move, so the count comes out exact),
// 8 units a clan and a large battle of 150 (the benchmarks' argument).
// Files under $GUNBAI_BENCH_DIR (default: the system temp directory). The
// load runs on the server's threads: CPU is the whole process's (Google
// Benchmark's MeasureProcessCPUTime), the figure to read on a busy
// machine. Figures from a Release build by hand; the smoke test only proves
// it runs.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "generate/daimyo/daimyo_game.h"
#include "grpcpp/grpcpp.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/in_process_games.h"

namespace gunbai::service {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::gunbai::v1;

constexpr char kUmpire[] = "umpire-credential-0123456789";
// The game's events: 100,000, or $GUNBAI_COLD_START_EVENTS (at least
// 10,000; the smoke test runs a shorter game).
int EventCount() {
  const char* n = std::getenv("GUNBAI_COLD_START_EVENTS");
  return n == nullptr ? 100000 : std::max(std::atoi(n), 10000);
}
const int kEvents = EventCount();
constexpr int kBatch = 5000;
constexpr char kAtEnd[] = "checkpoint-at-end";
constexpr char kBack[] = "checkpoint-10k-back";

// The service in process (tests/store/in_process_games.h).
class Served : public gunbai::testing::InProcessGames {
 public:
  Served(GameStore* store, const replay::RulesetCatalog* catalog,
         int checkpoint_every)
      : InProcessGames(store, catalog, kUmpire, kDefaultMaxCachedGames,
                       checkpoint_every) {}
};

void Authorize(grpc::ClientContext& context) {
  gunbai::testing::AuthorizeAs(context, kUmpire);
}

// The store holding the two games, written once for all benchmarks.
struct World {
  fs::path dir;
  std::unique_ptr<SqliteGameStore> store;
  std::unique_ptr<replay::RulesetCatalog> catalog;
  v1::BattleLog log;
  std::string error;
};

bool Check(const grpc::Status& status, World& world) {
  if (!status.ok() && world.error.empty()) world.error = status.error_message();
  return status.ok();
}

// Creates `id` and appends the log's events [0, to) through a service that
// checkpoints every `every` events.
void Write(World& world, const std::string& id, int from, int to, int every) {
  Served served(world.store.get(), world.catalog.get(), every);
  if (from == 0) {
    v1::CreateGameRequest request;
    *request.mutable_header() = world.log.header();
    request.mutable_header()->set_game_id(id);
    *request.mutable_order_of_battle() = world.log.order_of_battle();
    request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
    request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
    grpc::ClientContext context;
    Authorize(context);
    v1::CreateGameResponse response;
    if (!Check(served.stub().CreateGame(&context, request, &response), world)) {
      return;
    }
  }
  for (int start = from; start < to; start += kBatch) {
    v1::AppendEventsRequest request;
    request.set_game_id(id);
    request.set_expected_version(start);
    for (int i = start; i < std::min(to, start + kBatch); ++i) {
      v1::AppendedEvent* appended = request.add_events();
      *appended->mutable_event() = world.log.events(i);
      appended->set_event_id(absl::StrCat("e", i));
    }
    grpc::ClientContext context;
    Authorize(context);
    v1::AppendEventsResponse response;
    if (!Check(served.stub().AppendEvents(&context, request, &response),
               world)) {
      return;
    }
  }
}

// The world of games of `units` units a clan, written on first use.
World& TheWorld(int units) {
  static auto* worlds = new std::map<int, World*>;
  World*& world = (*worlds)[units];
  if (world == nullptr)
    world = [units] {
      auto* w = new World;
      const char* root = std::getenv("GUNBAI_BENCH_DIR");
      w->dir = fs::path(root != nullptr && *root != '\0'
                            ? root
                            : fs::temp_directory_path().string()) /
               absl::StrCat("gunbai_cold_start_bench_", getpid(), "_", units);
      fs::remove_all(w->dir);
      auto store = SqliteGameStore::Open(w->dir.string());
      if (!store.ok()) {
        w->error = store.status().ToString();
        return w;
      }
      w->store = *std::move(store);
      auto catalog = replay::RulesetCatalog::Builtin();
      if (!catalog.ok()) {
        w->error = catalog.status().ToString();
        return w;
      }
      w->catalog =
          std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
      generate::GeneratorOptions options;
      options.seed = 1;
      options.target_events = kEvents;
      options.units_per_clan = units;
      w->log = generate::GenerateLog(options);
      // Checkpoints each 10,000 events through the last.
      Write(*w, kAtEnd, 0, kEvents, kDefaultCheckpointEvery);
      // Checkpoints through 90,000, then 10,000 events with none.
      Write(*w, kBack, 0, kEvents - 10000, kDefaultCheckpointEvery);
      Write(*w, kBack, kEvents - 10000, kEvents, 0);
      return w;
    }();
  return *world;
}

// Removes the worlds' files at exit.
const int kCleanUp = std::atexit([] {
  for (int units : {8, 150}) {
    std::error_code ignored;
    fs::remove_all(
        fs::path(std::getenv("GUNBAI_BENCH_DIR") != nullptr &&
                         *std::getenv("GUNBAI_BENCH_DIR") != '\0'
                     ? std::getenv("GUNBAI_BENCH_DIR")
                     : fs::temp_directory_path().string()) /
            absl::StrCat("gunbai_cold_start_bench_", getpid(), "_", units),
        ignored);
  }
});

void ColdStart(benchmark::State& state, const char* game, int every) {
  World& world = TheWorld(static_cast<int>(state.range(0)));
  if (!world.error.empty()) {
    state.SkipWithError(world.error.c_str());
    return;
  }
  int64_t replayed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto served =
        std::make_unique<Served>(world.store.get(), world.catalog.get(), every);
    v1::GetGameStateRequest request;
    request.set_game_id(game);
    v1::GetGameStateResponse response;
    grpc::ClientContext context;
    Authorize(context);
    state.ResumeTiming();
    grpc::Status status =
        served->stub().GetGameState(&context, request, &response);
    state.PauseTiming();
    if (!status.ok()) {
      state.SkipWithError(status.error_message().c_str());
      break;
    }
    replayed = served->games().CheckpointStatsForTest().events_replayed;
    served.reset();
    state.ResumeTiming();
  }
  state.counters["events_replayed"] = static_cast<double>(replayed);
  state.SetItemsProcessed(state.iterations() * kEvents);
}

void BM_ColdStartFullReplay(benchmark::State& state) {
  ColdStart(state, kAtEnd, 0);
}
void BM_ColdStartCheckpoint10kBack(benchmark::State& state) {
  ColdStart(state, kBack, kDefaultCheckpointEvery);
}
void BM_ColdStartCheckpointAtEnd(benchmark::State& state) {
  ColdStart(state, kAtEnd, kDefaultCheckpointEvery);
}

void BM_StoreReadOnly(benchmark::State& state) {
  World& world = TheWorld(static_cast<int>(state.range(0)));
  if (!world.error.empty()) {
    state.SkipWithError(world.error.c_str());
    return;
  }
  for (auto _ : state) {
    auto events = world.store->ReadEvents(kAtEnd, 0);
    if (!events.ok()) {
      state.SkipWithError(events.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(events->size());
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}

void BM_CheckpointSaveRestore(benchmark::State& state) {
  World& world = TheWorld(static_cast<int>(state.range(0)));
  if (!world.error.empty()) {
    state.SkipWithError(world.error.c_str());
    return;
  }
  auto ruleset = world.catalog->ForLog(world.log.header());
  if (!ruleset.ok()) {
    state.SkipWithError(ruleset.status().ToString().c_str());
    return;
  }
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  auto engine =
      replay::CreateEngine(world.log, **ruleset, replay::AuditOptions(),
                           rules::EngineOutput{&findings, nullptr});
  if (!engine.ok()) {
    state.SkipWithError(engine.status().ToString().c_str());
    return;
  }
  for (const v1::Event& event : world.log.events()) (*engine)->Apply(event);
  size_t bytes = 0;
  for (auto _ : state) {
    auto checkpoint = (*engine)->SaveCheckpoint();
    google::protobuf::RepeatedPtrField<v1::Finding> restored_findings;
    auto fresh =
        replay::CreateEngine(world.log, **ruleset, replay::AuditOptions(),
                             rules::EngineOutput{&restored_findings, nullptr});
    if (!checkpoint.ok() || !fresh.ok() ||
        !(*fresh)->RestoreCheckpoint(*checkpoint).ok()) {
      state.SkipWithError("save or restore failed");
      break;
    }
    bytes = checkpoint->size();
  }
  auto stored = world.store->LatestCheckpoint(kAtEnd, (*ruleset)->digest,
                                              (*engine)->CheckpointVersion());
  state.counters["checkpoint_bytes"] = static_cast<double>(bytes);
  if (stored.ok() && stored->has_value()) {
    state.counters["stored_state_bytes"] =
        static_cast<double>((*stored)->state.size());
    state.counters["stored_findings_bytes"] =
        static_cast<double>((*stored)->findings.size());
  }
  state.counters["units"] =
      static_cast<double>((*engine)->state().units.size());
}

// The load runs on the server's threads: CPU is the whole process's, and
// the rates are per wall second.
BENCHMARK(BM_ColdStartFullReplay)
    ->Arg(8)
    ->Arg(150)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_ColdStartCheckpoint10kBack)
    ->Arg(8)
    ->Arg(150)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_ColdStartCheckpointAtEnd)
    ->Arg(8)
    ->Arg(150)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_StoreReadOnly)
    ->Arg(8)
    ->Arg(150)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_CheckpointSaveRestore)
    ->Arg(8)
    ->Arg(150)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gunbai::service

BENCHMARK_MAIN();
