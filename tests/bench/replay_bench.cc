// Replay throughput on a generated 10,000-event game: parsing the binary
// log, replaying and auditing it, both, and both streamed. items_per_second is
// events per second. The bar: auditing an event costs at most 1.5x parsing it.
//
// The argument is the number of units a clan fields. With 12 (a usual army)
// the armies are worn down within the first few hundred events and the rest
// of the game is mostly moves (about 1% of the events are firings); with 150
// (a big battle) the fighting lasts longer (about 6% firings and 8% melee
// rounds).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/log_stream.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

constexpr int kEvents = 10000;

const replay::LoadedRuleset& Ruleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinRuleset("daimyo");
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
      std::abort();
    }
    return new replay::LoadedRuleset(*std::move(loaded));
  }();
  return *ruleset;
}

struct Fixture {
  const replay::LoadedRuleset& ruleset;
  v1::BattleLog log;
  std::string bytes;  // The log's binary serialization.
};

// Returns the game of `units_per_clan` units a clan, generated once.
const Fixture& Game(int units_per_clan) {
  static auto* const games = new std::map<int, Fixture>();
  auto it = games->find(units_per_clan);
  if (it != games->end()) return it->second;
  GeneratorOptions options;
  options.seed = 1;
  options.target_events = kEvents;
  options.units_per_clan = units_per_clan;
  Fixture game{Ruleset(), GenerateLog(options), ""};
  game.bytes = game.log.SerializeAsString();
  return games->emplace(units_per_clan, std::move(game)).first->second;
}

void BM_ParseBinary(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    v1::BattleLog log;
    if (!log.ParseFromString(game.bytes)) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(log);
  }
  state.SetItemsProcessed(state.iterations() * game.log.events_size());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(game.bytes.size()));
}
BENCHMARK(BM_ParseBinary)->Arg(12)->Arg(150)->Unit(benchmark::kMicrosecond);

void BM_ReplayAudit(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::StatusOr<v1::AuditReport> report =
        replay::AuditLog(game.log, game.ruleset);
    if (!report.ok() || replay::ReportHasFailures(*report)) {
      state.SkipWithError("the generated game does not audit clean");
    }
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations() * game.log.events_size());
}
BENCHMARK(BM_ReplayAudit)->Arg(12)->Arg(150)->Unit(benchmark::kMicrosecond);

// A game on a table (gunbai generate --positions): every volley, melee
// round, morale test, move and result move measured (range, arc, sight, the
// nearest target, cover, contact, flank, the 15 cm). Against BM_ParseBinary
// of the same game: what measuring costs an event.
const Fixture& TableGame(int units_per_clan) {
  static auto* const games = new std::map<int, Fixture>();
  auto it = games->find(units_per_clan);
  if (it != games->end()) return it->second;
  GeneratorOptions options;
  options.seed = 1;
  options.turns = 40;
  options.units_per_clan = units_per_clan;
  options.positions = true;
  Fixture game{Ruleset(), GenerateLog(options), ""};
  game.bytes = game.log.SerializeAsString();
  return games->emplace(units_per_clan, std::move(game)).first->second;
}

void BM_ParseBinaryOnATable(benchmark::State& state) {
  const Fixture& game = TableGame(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    v1::BattleLog log;
    if (!log.ParseFromString(game.bytes)) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(log);
  }
  state.SetItemsProcessed(state.iterations() * game.log.events_size());
}
BENCHMARK(BM_ParseBinaryOnATable)
    ->Arg(8)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond);

void BM_ReplayAuditOnATable(benchmark::State& state) {
  const Fixture& game = TableGame(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::StatusOr<v1::AuditReport> report =
        replay::AuditLog(game.log, game.ruleset);
    if (!report.ok() || replay::ReportHasFailures(*report)) {
      state.SkipWithError("the generated table game does not audit clean");
    }
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations() * game.log.events_size());
}
BENCHMARK(BM_ReplayAuditOnATable)
    ->Arg(8)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond);

void BM_ParseAndAudit(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    v1::BattleLog log;
    if (!log.ParseFromString(game.bytes)) state.SkipWithError("parse failed");
    absl::StatusOr<v1::AuditReport> report =
        replay::AuditLog(log, game.ruleset);
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations() * game.log.events_size());
}
BENCHMARK(BM_ParseAndAudit)->Arg(12)->Arg(150)->Unit(benchmark::kMicrosecond);

// The streamed audit of `gunbai audit FILE.pb` (replay/log_stream.h) over
// the same bytes in memory: each event parsed into one reused message and
// replayed; compare with BM_ParseAndAudit.
void BM_StreamAudit(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  const replay::OpenLogStream open = [&game] {
    return std::make_unique<google::protobuf::io::ArrayInputStream>(
        game.bytes.data(), static_cast<int>(game.bytes.size()), 64 << 10);
  };
  const replay::RulesetForHead ruleset_for =
      [&game](const v1::BattleLog&) -> absl::StatusOr<replay::LoadedRuleset> {
    return game.ruleset;
  };
  for (auto _ : state) {
    absl::StatusOr<v1::AuditReport> report = replay::AuditBinaryLogStream(
        open, ruleset_for, replay::AuditOptions(), replay::kMaxLogBytes);
    if (!report.ok() || replay::ReportHasFailures(*report)) {
      state.SkipWithError("the streamed audit failed");
    }
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations() * game.log.events_size());
}
BENCHMARK(BM_StreamAudit)->Arg(12)->Arg(150)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gunbai::generate

BENCHMARK_MAIN();
