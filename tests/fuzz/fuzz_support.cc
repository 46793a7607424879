#include "tests/fuzz/fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/impact.h"
#include "replay/log_parser.h"

namespace gunbai::fuzz {
namespace {

[[noreturn]] void Fail(const char* what, int unit) {
  std::fprintf(stderr, "gunbai fuzz: state invariant broken: %s (unit %d)\n",
               what, unit);
  std::abort();
}

// Silences protobuf's log lines (a string that is not UTF-8, one per
// mutated input), which would bury libFuzzer's output; fatal ones still
// abort.
const bool kProtobufLogsSilenced =
    (google::protobuf::SetLogHandler(nullptr), true);

// The longest log whose disputes get their what-if branches.
constexpr int kMaxImpactEvents = 400;

bool IsUnitIndex(const rules::BattleState& state, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < state.units.size();
}

}  // namespace

const replay::RulesetCatalog& BuiltinCatalog() {
  static const replay::RulesetCatalog* const catalog = [] {
    auto loaded = replay::RulesetCatalog::Builtin();
    if (!loaded.ok()) {
      std::fprintf(stderr, "built-in rulesets: %s\n",
                   loaded.status().ToString().c_str());
      std::abort();
    }
    return new replay::RulesetCatalog(*std::move(loaded));
  }();
  return *catalog;
}

const std::vector<gunbai::v1::BattleLog>& SampleLogs() {
  static const auto* const logs = [] {
    auto* parsed = new std::vector<gunbai::v1::BattleLog>;
    for (const char* name :
         {"sekigahara.textproto", "anegawa-clean.textproto",
          "nagashino-melee.textproto", "skf-kawanakajima.textproto",
          // A log from a starting position (issue 13).
          "ruling-volley.textproto",
          // A log on a table, with positions and terrain (issue 14).
          "table-game.textproto"}) {
      const std::string path = std::string(GUNBAI_TEST_DATA_DIR) + "/" + name;
      std::ifstream in(path, std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      auto log =
          replay::ParseBattleLog(bytes.str(), replay::LogFormat::kText, path);
      if (!log.ok()) {
        std::fprintf(stderr, "%s\n", log.status().ToString().c_str());
        std::abort();
      }
      parsed->push_back(*std::move(log));
    }
    return parsed;
  }();
  return *logs;
}

void CheckStateInvariants(const rules::BattleState& state) {
  if (state.units.size() != state.profiles.size()) {
    Fail("units and profiles differ in number", -1);
  }
  for (std::size_t i = 0; i < state.units.size(); ++i) {
    const rules::UnitStatus& u = state.units[i];
    const int id = static_cast<int>(i);
    if (u.stands < 0 || u.stands > state.profiles[i].starting_stands) {
      Fail("stands outside 0..starting stands", id);
    }
    if (u.carried_hits < 0 || u.stands_lost < 0 ||
        u.stands_lost_this_turn < 0) {
      Fail("a negative count", id);
    }
    if (u.charging_target != -1 && !IsUnitIndex(state, u.charging_target)) {
      Fail("charge target is no unit", id);
    }
  }
  for (const rules::LeaderState& leader : state.leaders) {
    if (leader.attached_unit != -1 &&
        !IsUnitIndex(state, leader.attached_unit)) {
      Fail("leader attached to no unit", leader.attached_unit);
    }
  }
  // A unit in melee with itself was found by binary_log_fuzzer (a round
  // naming one unit on both sides); the engine now skips such a round.
  for (const rules::MeleeContact& melee : state.melees) {
    if (!IsUnitIndex(state, melee.a) || !IsUnitIndex(state, melee.b)) {
      Fail("melee with a side that is no unit", melee.a);
    }
    if (melee.a == melee.b) Fail("a unit in melee with itself", melee.a);
  }
}

void AuditUnderHeaderRuleset(const gunbai::v1::BattleLog& log, bool impact) {
  auto ruleset = BuiltinCatalog().ForLog(log.header());
  if (!ruleset.ok()) return;
  replay::AuditOptions options;
  options.record_outcomes = true;
  auto report = replay::AuditLog(log, **ruleset, options);
  if (!report.ok()) return;

  gunbai::v1::AuditReport stepped;
  auto replay =
      replay::Replay::Start(log, **ruleset, replay::AuditOptions(), &stepped);
  if (replay.ok()) {
    for (const gunbai::v1::Event& event : log.events()) {
      (*replay)->Apply(event);
      CheckStateInvariants((*replay)->state());
    }
    (*replay)->Finish(static_cast<std::uint64_t>(log.events_size()));
  }
  // The what-if branches replay the log once per dispute: bounded here so
  // that a run spends its time on new inputs (the RPC target sends
  // AuditLogRequest.impact unbounded).
  if (impact && report->summary().disputes() > 0 &&
      log.events_size() <= kMaxImpactEvents) {
    (void)replay::AddImpacts(log, **ruleset, *report);
  }
}

}  // namespace gunbai::fuzz
