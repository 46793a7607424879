// The legal-action list (replay/legal_actions.h, gunbaid's GetLegalActions
// and the web app's action form) at a point in the middle of an activation
// of a generated Daimyo game on a table: turn 2, the initiative clan's
// activation begun and its first event played. The argument is the number
// of units a clan fields (8, 16, 64). The bar (issue 28): 20 ms at 16 units
// a side.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "generate/daimyo/daimyo_game.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/audit.h"
#include "replay/legal_actions.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

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

struct Point {
  v1::BattleLog log;  // The game's header and order of battle.
  v1::GameSettings settings;
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  std::unique_ptr<rules::Engine> engine;
  std::string clan;
};

// The game of `units` units a clan, replayed up to the first event after
// turn 2's first activation.
Point& At(int units) {
  static auto* const points = new std::map<int, std::unique_ptr<Point>>();
  auto it = points->find(units);
  if (it != points->end()) return *it->second;
  GeneratorOptions options;
  options.seed = 1;
  options.turns = 3;
  options.units_per_clan = units;
  options.positions = true;
  v1::BattleLog game = GenerateLog(options);
  auto point = std::make_unique<Point>();
  point->log = game;
  point->log.clear_events();
  point->settings.set_policy(v1::APPEND_POLICY_STRICT);
  point->settings.set_dice_mode(v1::DICE_MODE_RECORDED);
  auto engine =
      replay::CreateEngine(point->log, Ruleset(), replay::AuditOptions(),
                           rules::EngineOutput{&point->findings});
  if (!engine.ok()) {
    std::fprintf(stderr, "%s\n", engine.status().ToString().c_str());
    std::abort();
  }
  point->engine = *std::move(engine);
  bool activated = false;
  for (const v1::Event& e : game.events()) {
    point->engine->Apply(e);
    if (e.turn() == 2 && e.has_activation()) {
      activated = true;
      point->clan = e.clan();
      continue;
    }
    if (activated) break;
  }
  return *points->emplace(units, std::move(point)).first->second;
}

void BM_LegalActionsMidActivation(benchmark::State& state) {
  Point& point = At(static_cast<int>(state.range(0)));
  replay::LegalActionsGame game;
  game.log = &point.log;
  game.settings = &point.settings;
  game.ruleset = &Ruleset();
  game.engine = point.engine.get();
  game.umpire = false;
  game.clan = point.clan;
  std::size_t offered = 0;
  for (auto _ : state) {
    auto answer = replay::ListLegalActions(game);
    if (!answer.ok()) {
      state.SkipWithError(answer.status().ToString().c_str());
      break;
    }
    offered = static_cast<std::size_t>(answer->actions_size());
    benchmark::DoNotOptimize(answer);
  }
  state.counters["actions"] = static_cast<double>(offered);
}
BENCHMARK(BM_LegalActionsMidActivation)
    ->Arg(8)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gunbai::generate

BENCHMARK_MAIN();
