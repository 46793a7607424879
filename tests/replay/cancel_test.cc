// Issue 11, "deadlines honoured everywhere": a long audit asks its caller,
// every kCancelCheckEvents (4,096) events, whether the answer is still
// wanted (gunbaid asks whether the gRPC call was cancelled or its deadline
// passed), and stops with CANCELLED when it is not; asked and answered "go
// on", it gives exactly the report it gives unasked. The same holds for the
// what-if branches of --impact.
#include <cstdint>

#include "absl/status/status.h"
#include "generate/daimyo/daimyo_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/audit.h"
#include "replay/impact.h"
#include "replay/ruleset_loader.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;

replay::LoadedRuleset Daimyo() {
  auto catalog = replay::RulesetCatalog::Builtin();
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  auto chosen = catalog->ForLog(v1::Header());
  EXPECT_TRUE(chosen.ok()) << chosen.status();
  return **chosen;
}

v1::BattleLog GameOf(int events) {
  generate::GeneratorOptions options;
  options.seed = 7;
  options.target_events = events;
  return generate::GenerateLog(options);
}

TEST(CancelTest, AnAuditAskedToGoOnGivesTheSameReport) {
  const replay::LoadedRuleset ruleset = Daimyo();
  const v1::BattleLog log = GameOf(10'000);
  ASSERT_EQ(log.events_size(), 10'000);
  auto unasked = replay::AuditLog(log, ruleset);
  ASSERT_TRUE(unasked.ok()) << unasked.status();
  int asked = 0;
  replay::AuditOptions options;
  options.cancelled = [&asked] {
    ++asked;
    return false;
  };
  auto report = replay::AuditLog(log, ruleset, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->SerializeAsString(), unasked->SerializeAsString());
  // Asked after events 4,096 and 8,192: 10,000 / 4,096 = 2, remainder 1,808.
  EXPECT_EQ(asked, 2);
}

TEST(CancelTest, AnAuditWhoseCallerLeftStopsAtTheNextCheck) {
  const replay::LoadedRuleset ruleset = Daimyo();
  const v1::BattleLog log = GameOf(10'000);
  int asked = 0;
  replay::AuditOptions options;
  // The client goes away between the first check and the second.
  options.cancelled = [&asked] { return ++asked == 2; };
  auto report = replay::AuditLog(log, ruleset, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(asked, 2);  // Stopped at event 8,192, not asked again.
}

TEST(CancelTest, ImpactBranchesStopWhenTheCallerLeaves) {
  const replay::LoadedRuleset ruleset = Daimyo();
  // Planted faults give disputes, each a branch of the whole game replayed
  // twice (as played and corrected). (A game sized by events wears its
  // armies down early and plants its faults as stand-ins among the moves
  // that fill it; a game of 60 turns of 150 units a clan holds over 4,096
  // events and some disputes.)
  generate::GeneratorOptions generated;
  generated.seed = 7;
  generated.turns = 60;
  generated.units_per_clan = 150;
  generated.faults = 10;
  const v1::BattleLog log = generate::GenerateGame(generated).log;
  ASSERT_GT(log.events_size(), replay::kCancelCheckEvents);
  auto report = replay::AuditLog(log, ruleset);
  ASSERT_TRUE(report.ok()) << report.status();
  v1::AuditReport with_impacts = *report;
  ASSERT_TRUE(replay::AddImpacts(log, ruleset, with_impacts).ok());
  ASSERT_GT(with_impacts.impacts_size(), 0) << "no dispute to analyse";

  // Asked, never cancelled: the same impacts.
  int asked = 0;
  v1::AuditReport asked_report = *report;
  ASSERT_TRUE(replay::AddImpacts(log, ruleset, asked_report, nullptr, [&] {
                ++asked;
                return false;
              }).ok());
  EXPECT_EQ(asked_report.SerializeAsString(), with_impacts.SerializeAsString());
  // Once before each branch (3: fewer than the analysis bound), and inside
  // each branch every 4,096 events it replays.
  EXPECT_GE(asked, with_impacts.impacts_size());

  // Cancelled from the start: stops before the first branch.
  v1::AuditReport cancelled = *report;
  const absl::Status status =
      replay::AddImpacts(log, ruleset, cancelled, nullptr, [] { return true; });
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;

  // Cancelled at the third question, wherever it falls (inside the first
  // branch or before a later one): it stops there and is not asked again.
  int count = 0;
  v1::AuditReport late = *report;
  const absl::Status late_status = replay::AddImpacts(
      log, ruleset, late, nullptr, [&count] { return ++count == 3; });
  EXPECT_EQ(late_status.code(), absl::StatusCode::kCancelled) << late_status;
  EXPECT_EQ(count, 3);
}

}  // namespace
}  // namespace gunbai::testing
