// Random legal games sized by events, the kind the benchmarks replay
// (OpenSpiel's RandomSimTest): they must audit clean (no finding of any
// severity), hold exactly the events asked for, take their morale tests and
// carry out the results, and be the same for the same seed. The games of
// every size and mechanism, and planted faults, are tested in
// tests/generate.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "generate/daimyo/daimyo_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

constexpr int kEvents = 2000;

const replay::LoadedRuleset& Ruleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinRuleset("daimyo");
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return new replay::LoadedRuleset(*std::move(loaded));
  }();
  return *ruleset;
}

GeneratorOptions Options(std::uint64_t seed) {
  GeneratorOptions options;
  options.seed = seed;
  options.target_events = kEvents;
  return options;
}

// Returns the first findings of `report`, one a line, for failure messages.
std::string FirstFindings(const v1::AuditReport& report) {
  std::string out;
  for (int i = 0; i < report.findings_size() && i < 5; ++i) {
    const v1::Finding& f = report.findings(i);
    out += "seq " + std::to_string(f.seq()) + " " + f.rule_id() + ": " +
           f.message() + "\n";
  }
  return out;
}

struct EventMix {
  int firings = 0;
  int hits = 0;
  int stands_lost = 0;
  int leader_rolls = 0;
  int leaders_killed = 0;
  int moves = 0;
  int morale_tests = 0;
  int end_of_turn_tests = 0;  // Reasons 1 and 5.
  int failed_tests = 0;       // Halt, retire, retreat, rout or dispersed.
  int failures_moved = 0;  // Failed tests followed by the unit's result move.
  int result_moves = 0;
  int frenzies = 0;
  int charges = 0;
  int rallies = 0;  // Rally tests (reason 8), passed or not.
};

bool Failed(v1::MoraleResult r) {
  return r == v1::MORALE_RESULT_HALT || r == v1::MORALE_RESULT_RETIRE ||
         r == v1::MORALE_RESULT_RETREAT || r == v1::MORALE_RESULT_ROUT ||
         r == v1::MORALE_RESULT_DISPERSED;
}

void CountMorale(const v1::BattleLog& log, int i, EventMix& mix) {
  const v1::MoraleTest& test = log.events(i).morale_test();
  ++mix.morale_tests;
  if (test.reason() == 1 || test.reason() == 5) ++mix.end_of_turn_tests;
  if (test.reason() == 8) ++mix.rallies;
  if (test.claimed_result() == v1::MORALE_RESULT_FRENZY) ++mix.frenzies;
  if (!Failed(test.claimed_result())) return;
  ++mix.failed_tests;
  if (i + 1 < log.events_size() && log.events(i + 1).has_result_move() &&
      log.events(i + 1).result_move().unit() == test.unit()) {
    ++mix.failures_moved;
  }
}

EventMix Count(const v1::BattleLog& log) {
  EventMix mix;
  for (int i = 0; i < log.events_size(); ++i) {
    const v1::Event& event = log.events(i);
    if (event.has_firing()) {
      ++mix.firings;
      mix.hits += static_cast<int>(event.firing().claimed_hits());
      mix.stands_lost += static_cast<int>(event.firing().claimed_stands_lost());
    }
    if (event.has_leader_loss()) {
      ++mix.leader_rolls;
      if (event.leader_loss().claimed_killed()) ++mix.leaders_killed;
    }
    if (event.has_move()) ++mix.moves;
    if (event.has_morale_test()) CountMorale(log, i, mix);
    if (event.has_result_move()) ++mix.result_moves;
    if (event.has_charge()) ++mix.charges;
  }
  return mix;
}

EventMix CountSeeds(std::uint64_t first, std::uint64_t last) {
  EventMix total;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    const EventMix mix = Count(GenerateLog(Options(seed)));
    total.firings += mix.firings;
    total.hits += mix.hits;
    total.stands_lost += mix.stands_lost;
    total.leader_rolls += mix.leader_rolls;
    total.leaders_killed += mix.leaders_killed;
    total.moves += mix.moves;
    total.morale_tests += mix.morale_tests;
    total.end_of_turn_tests += mix.end_of_turn_tests;
    total.failed_tests += mix.failed_tests;
    total.failures_moved += mix.failures_moved;
    total.result_moves += mix.result_moves;
    total.frenzies += mix.frenzies;
    total.charges += mix.charges;
    total.rallies += mix.rallies;
  }
  return total;
}

TEST(GeneratorTest, GeneratedGamesAuditClean) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const v1::BattleLog log = GenerateLog(Options(seed));
    absl::StatusOr<v1::AuditReport> report = replay::AuditLog(log, Ruleset());
    ASSERT_TRUE(report.ok()) << report.status();
    const v1::AuditSummary& summary = report->summary();
    EXPECT_EQ(summary.violations(), 0u) << FirstFindings(*report);
    EXPECT_EQ(summary.disputes(), 0u) << FirstFindings(*report);
    EXPECT_EQ(summary.warnings(), 0u) << FirstFindings(*report);
    EXPECT_EQ(summary.unverifiable(), 0u) << FirstFindings(*report);
    EXPECT_FALSE(replay::ReportHasFailures(*report));
    EXPECT_EQ(report->events_replayed(), static_cast<uint64_t>(kEvents));
  }
}

TEST(GeneratorTest, GamesHaveExactlyTheEventsAskedFor) {
  for (int events : {1, 5, 6, 7, 9, 10, 23, 100, 2001}) {
    for (int units : {1, 2, 8}) {
      GeneratorOptions options = Options(7);
      options.target_events = events;
      options.units_per_clan = units;
      const v1::BattleLog log = GenerateLog(options);
      EXPECT_EQ(log.events_size(), std::max(events, 5))
          << events << " events, " << units << " units a clan";
      absl::StatusOr<v1::AuditReport> report = replay::AuditLog(log, Ruleset());
      ASSERT_TRUE(report.ok()) << report.status();
      EXPECT_EQ(report->findings_size(), 0)
          << events << " events, " << units << " units a clan:\n"
          << FirstFindings(*report);
    }
  }
}

TEST(GeneratorTest, GamesAreWellFormed) {
  const v1::BattleLog log = GenerateLog(Options(3));
  ASSERT_GE(log.events_size(), 2);
  EXPECT_TRUE(log.events(0).has_turn_start());
  EXPECT_TRUE(log.events(log.events_size() - 2).has_turn_end());
  EXPECT_TRUE(log.events(log.events_size() - 1).has_game_end());
  for (int i = 1; i < log.events_size(); ++i) {
    EXPECT_LT(log.events(i - 1).seq(), log.events(i).seq());
  }
}

TEST(GeneratorTest, GamesExerciseFiringAndLeaderLoss) {
  const EventMix total = CountSeeds(1, 20);
  EXPECT_GT(total.firings, 100);
  EXPECT_GT(total.hits, 100);
  EXPECT_GT(total.stands_lost, 50);
  EXPECT_GT(total.leader_rolls, 10);
  EXPECT_GT(total.leaders_killed, 0);
  EXPECT_GT(total.moves, 1000);
}

TEST(GeneratorTest, GamesTakeMoraleTestsAndCarryOutFailures) {
  const EventMix total = CountSeeds(1, 20);
  EXPECT_GT(total.morale_tests, 50);
  EXPECT_GT(total.end_of_turn_tests, 50);
  EXPECT_GT(total.failed_tests, 10);
  EXPECT_GT(total.failures_moved, 0);
  EXPECT_GE(total.result_moves, total.failures_moved);
  EXPECT_GT(total.rallies, 0);
  // Samurai roll their frenzy now and then; frenzied units then charge.
  EXPECT_GT(total.frenzies, 0);
  EXPECT_GT(total.charges, 0);
}

TEST(GeneratorTest, SameSeedGivesTheSameBytes) {
  for (std::uint64_t seed : {1u, 2u, 99u}) {
    const std::string a = base::DeterministicBytes(GenerateLog(Options(seed)));
    const std::string b = base::DeterministicBytes(GenerateLog(Options(seed)));
    EXPECT_EQ(a, b) << "seed " << seed;
  }
}

TEST(GeneratorTest, DifferentSeedsGiveDifferentGames) {
  const std::string one = base::DeterministicBytes(GenerateLog(Options(1)));
  const std::string two = base::DeterministicBytes(GenerateLog(Options(2)));
  EXPECT_NE(one, two);
}

TEST(GeneratorTest, GamesSurviveABinaryRoundTrip) {
  const v1::BattleLog log = GenerateLog(Options(5));
  v1::BattleLog parsed;
  ASSERT_TRUE(parsed.ParseFromString(base::DeterministicBytes(log)));
  EXPECT_EQ(base::DeterministicBytes(parsed), base::DeterministicBytes(log));
}

}  // namespace
}  // namespace gunbai::generate
