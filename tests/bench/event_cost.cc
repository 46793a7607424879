// What each kind of event costs to replay and audit on a table, for the
// speed work of issue 29: a generated table game (the replay_bench's
// BM_ReplayAuditOnATable game) replayed `--reps` times through
// replay::Replay, each event's Apply timed on its own and summed by kind,
// beside what parsing the whole game from binary costs an event. A tool a
// person runs (the figures come from a Release build; the suite only runs
// a smoke), not a benchmark: the clock is read around every event, which
// adds some 50 ns to each.
//
//   event_cost [--units=16] [--turns=40] [--seed=1] [--reps=200]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "generate/daimyo/daimyo_game.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"

namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// The name of the event's body (its oneof field), e.g. "morale_test".
std::string KindOf(const gunbai::v1::Event& event) {
  const auto* body = event.GetDescriptor()->FindOneofByName("body");
  const auto* field =
      body == nullptr
          ? nullptr
          : event.GetReflection()->GetOneofFieldDescriptor(event, body);
  return field == nullptr ? "none" : field->name();
}

int Flag(int argc, char** argv, const std::string& name, int fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) == 0)
      return std::atoi(arg.c_str() + prefix.size());
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  namespace v1 = gunbai::v1;
  gunbai::generate::GeneratorOptions options;
  options.seed = static_cast<std::uint64_t>(Flag(argc, argv, "seed", 1));
  options.turns = Flag(argc, argv, "turns", 40);
  options.units_per_clan = Flag(argc, argv, "units", 16);
  options.positions = true;
  const int reps = std::max(1, Flag(argc, argv, "reps", 200));
  const v1::BattleLog log = gunbai::generate::GenerateLog(options);
  const std::string bytes = log.SerializeAsString();
  auto ruleset = gunbai::replay::BuiltinRuleset("daimyo");
  if (!ruleset.ok()) {
    std::fprintf(stderr, "event_cost: %s\n",
                 std::string(ruleset.status().message()).c_str());
    return 1;
  }
  std::map<std::string, double> spent;
  std::map<std::string, int> count;
  double start = 0, finish = 0, parse = 0;
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point p0 = Clock::now();
    v1::BattleLog parsed;
    parsed.ParseFromString(bytes);
    parse += Micros(Clock::now() - p0);
    v1::AuditReport report;
    const Clock::time_point s0 = Clock::now();
    auto replay = gunbai::replay::Replay::Start(
        log, *ruleset, gunbai::replay::AuditOptions(), &report);
    start += Micros(Clock::now() - s0);
    if (!replay.ok()) {
      std::fprintf(stderr, "event_cost: %s\n",
                   std::string(replay.status().message()).c_str());
      return 1;
    }
    for (const v1::Event& event : log.events()) {
      const std::string kind = KindOf(event);
      const Clock::time_point a = Clock::now();
      (*replay)->Apply(event);
      spent[kind] += Micros(Clock::now() - a);
      if (r == 0) ++count[kind];
    }
    const Clock::time_point f0 = Clock::now();
    (*replay)->Finish(static_cast<std::uint64_t>(log.events_size()));
    finish += Micros(Clock::now() - f0);
  }
  double events = 0;
  for (const auto& [kind, micros] : spent) events += micros;
  const int n = log.events_size();
  std::printf(
      "%d units a side, %d events: parse %.1f us a game (%.2f an event); "
      "replay and audit %.1f us a game (start %.1f, events %.1f, finish "
      "%.1f), %d runs\n",
      options.units_per_clan, n, parse / reps, parse / reps / n,
      (start + events + finish) / reps, start / reps, events / reps,
      finish / reps, reps);
  std::printf("  %-14s %6s %12s %12s\n", "event", "count", "us a game",
              "us an event");
  for (const auto& [kind, micros] : spent) {
    std::printf("  %-14s %6d %12.1f %12.2f\n", kind.c_str(), count[kind],
                micros / reps, micros / reps / count[kind]);
  }
  return 0;
}
