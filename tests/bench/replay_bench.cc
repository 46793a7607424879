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
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/all_readings.h"
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

// The audit under every combination of the reading options (gunbai audit
// --all-readings, 128 for Daimyo) against one audit, over a corpus of 20
// generated 8-turn games of 6 units a clan with 3 planted faults each (as
// `gunbai generate --coverage` plays them). items_per_second is events of
// the corpus per second; the ratio of the two CPU times is the cost of
// every reading. Arg 1 is on a table (--positions).
const std::vector<v1::BattleLog>& Corpus(bool table) {
  static auto* const corpora = new std::map<bool, std::vector<v1::BattleLog>>();
  auto it = corpora->find(table);
  if (it != corpora->end()) return it->second;
  std::vector<v1::BattleLog> logs;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    GeneratorOptions options;
    options.seed = seed;
    options.turns = 8;
    options.units_per_clan = 6;
    options.faults = 3;
    options.positions = table;
    logs.push_back(GenerateLog(options));
  }
  return corpora->emplace(table, std::move(logs)).first->second;
}

std::int64_t CorpusEvents(const std::vector<v1::BattleLog>& logs) {
  std::int64_t events = 0;
  for (const v1::BattleLog& log : logs) events += log.events_size();
  return events;
}

void BM_AuditCorpus(benchmark::State& state) {
  const std::vector<v1::BattleLog>& logs = Corpus(state.range(0) != 0);
  for (auto _ : state) {
    for (const v1::BattleLog& log : logs) {
      absl::StatusOr<v1::AuditReport> report = replay::AuditLog(log, Ruleset());
      if (!report.ok()) state.SkipWithError("the audit failed");
      benchmark::DoNotOptimize(report);
    }
  }
  state.SetItemsProcessed(state.iterations() * CorpusEvents(logs));
}
BENCHMARK(BM_AuditCorpus)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_AuditAllReadingsCorpus(benchmark::State& state) {
  const std::vector<v1::BattleLog>& logs = Corpus(state.range(0) != 0);
  std::int64_t branches = 0;
  std::int64_t applied = 0;
  for (auto _ : state) {
    branches = 0;
    applied = 0;
    for (const v1::BattleLog& log : logs) {
      absl::StatusOr<replay::AllReadingsAudit> all =
          replay::AuditAllReadings(log, Ruleset());
      if (!all.ok()) {
        state.SkipWithError("the audit failed");
        break;
      }
      branches += static_cast<std::int64_t>(all->branches.size());
      applied += all->events_applied;
      benchmark::DoNotOptimize(all);
    }
  }
  state.SetItemsProcessed(state.iterations() * CorpusEvents(logs));
  // Per game, and events applied per event of the log (1: one audit).
  state.counters["branches"] = static_cast<double>(branches) / logs.size();
  state.counters["applied"] =
      static_cast<double>(applied) / static_cast<double>(CorpusEvents(logs));
}
BENCHMARK(BM_AuditAllReadingsCorpus)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gunbai::generate

BENCHMARK_MAIN();
