// gunbai audit --impact: the corrected branch of a disputed outcome,
// compared event by event with the game as played. Expectations worked by
// hand from the Daimyo firing and morale rules (rules/daimyo/RULES.md).
#include "replay/impact.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;

// red-teppo (arquebus, first volley, effective range: +2 +1 = +3) fires 2
// stands at blue-yumi: 4+1 = 5 + 3 = 8, a hit; 2+2 = 4 + 3 = 7, a miss. So
// 1 hit and no stand lost; the log claims 3 hits and 1 stand lost. As
// played blue-yumi has 4 - 1 = 3 stands; corrected it keeps 4 with 1 hit
// carried.
constexpr char kDisputedVolley[] = R"pb(
  events {
    seq: 1
    turn: 1
    turn_start { initiative_clan: "red" }
  }
  events {
    seq: 2
    turn: 1
    clan: "red"
    activation {}
  }
  events {
    seq: 3
    turn: 1
    clan: "red"
    firing {
      unit: "red-teppo"
      target: "blue-yumi"
      stands_firing: 2
      dice: [ 4, 1, 2, 2 ]
      facts { range: RANGE_BAND_EFFECTIVE }
      claimed_hits: 3
      claimed_stands_lost: 1
    }
  }
  events {
    seq: 4
    turn: 1
    clan: "blue"
    activation {}
  }
)pb";

v1::AuditReport AuditWithImpact(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(ruleset.ok());
  auto report = replay::AuditLog(log, *ruleset);
  EXPECT_TRUE(report.ok()) << report.status();
  absl::Status impact = replay::AddImpacts(log, *ruleset, *report);
  EXPECT_TRUE(impact.ok()) << impact;
  return *report;
}

TEST(ImpactTest, CorrectedHitsKeepTheStandToTheEnd) {
  // The log ends the turn without blue-yumi's stand-lost morale test, so as
  // played it is missing (daimyo.morale.missing at seq 5); corrected, no
  // stand was lost and none is owed, which is not a violation: the
  // comparison runs to the end.
  const auto log = LogWithEvents(std::string(kDisputedVolley) + R"pb(
    events {
      seq: 5
      turn: 1
      turn_end {}
    }
  )pb");
  const v1::AuditReport report = AuditWithImpact(log);
  ASSERT_EQ(report.impacts_size(), 1);
  const v1::DisputeImpact& impact = report.impacts(0);
  EXPECT_EQ(impact.seq(), 3u);
  EXPECT_EQ(impact.rule_id(), "daimyo.fire.hit");
  EXPECT_EQ(impact.claimed(), "3 hits");
  EXPECT_EQ(impact.computed(), "1 hit");
  // One step: right after the volley, blue-yumi differs, and stays so.
  ASSERT_EQ(impact.steps_size(), 1);
  EXPECT_EQ(impact.steps(0).seq(), 3u);
  ASSERT_EQ(impact.steps(0).differences_size(), 1);
  EXPECT_EQ(impact.steps(0).differences(0).subject(), "blue-yumi");
  EXPECT_EQ(impact.steps(0).differences(0).as_played(), "3 stands");
  EXPECT_EQ(impact.steps(0).differences(0).corrected(), "4 stands");
  ASSERT_EQ(impact.final_differences_size(), 1);
  EXPECT_EQ(impact.final_differences(0).corrected(), "4 stands");
  EXPECT_EQ(impact.ended_at_seq(), 0u);
  EXPECT_EQ(impact.compared_through_seq(), 5u);
}

TEST(ImpactTest, AnEventImpossibleInTheCorrectedBranchEndsTheComparison) {
  // As played, blue-yumi lost a stand and takes its reason-1 test at the
  // end of the turn (seq 5, natural 12). Corrected, it lost none: the test
  // is not owed (daimyo.morale.not_owed), so seq 5 ends the comparison and
  // the last event compared is the blue activation, seq 4.
  const auto log = LogWithEvents(std::string(kDisputedVolley) + R"pb(
    events {
      seq: 5
      turn: 1
      clan: "blue"
      morale_test {
        unit: "blue-yumi"
        reason: 1
        dice: [ 6, 6 ]
      }
    }
    events {
      seq: 6
      turn: 1
      turn_end {}
    }
  )pb");
  const v1::AuditReport report = AuditWithImpact(log);
  ASSERT_EQ(report.impacts_size(), 1);
  const v1::DisputeImpact& impact = report.impacts(0);
  EXPECT_EQ(impact.ended_at_seq(), 5u);
  EXPECT_THAT(impact.ended_reason(), HasSubstr("daimyo.morale.not_owed"));
  EXPECT_EQ(impact.compared_through_seq(), 4u);
  ASSERT_EQ(impact.final_differences_size(), 1);
  EXPECT_EQ(impact.final_differences(0).subject(), "blue-yumi");
}

// Turn 2 after kDisputedVolley (and its turn_end at seq 5): red-teppo fires
// again at blue-yumi, and the turn ends with no morale test.
constexpr char kSecondTurn[] = R"pb(
  events {
    seq: 5
    turn: 1
    turn_end {}
  }
  events {
    seq: 6
    turn: 2
    turn_start { initiative_clan: "red" }
  }
  events {
    seq: 7
    turn: 2
    clan: "red"
    activation {}
  }
  events {
    seq: 8
    turn: 2
    clan: "red"
    firing {
      unit: "red-teppo"
      target: "blue-yumi"
      stands_firing: 2
      dice: [ 6, 1, 6, 1 ]
      facts { range: RANGE_BAND_EFFECTIVE }
      claimed_hits: 2
      claimed_stands_lost: 0
    }
  }
  events {
    seq: 9
    turn: 2
    turn_end {}
  }
)pb";

// Regression (issue 10): after the corrected event the branch follows the
// computed outcome of later events, carried hits included, instead of their
// claims. Turn 2: red-teppo (first volley spent, effective +1) fires 2
// stands: 6+1+1 = 8 and 6+1+1 = 8, 2 hits; the log claims 2 hits and no
// stand lost, right as played (3 stands, 0 carried + 2 = 2 < 3). Corrected,
// blue-yumi carries 1 hit from seq 3: 1 + 2 = 3 removes a stand, so after
// seq 8 it has 3 stands in both branches (they agree). It now owes a
// reason-1 test at the end of turn 2 that the log lacks: seq 9 is
// impossible in the corrected branch, which ends the comparison there.
TEST(ImpactTest, LaterStandLossesFollowCarriedHitsInTheBranch) {
  const auto log = LogWithEvents(std::string(kDisputedVolley) + kSecondTurn);
  const v1::AuditReport report = AuditWithImpact(log);
  ASSERT_EQ(report.impacts_size(), 1);
  const v1::DisputeImpact& impact = report.impacts(0);
  ASSERT_EQ(impact.steps_size(), 2);
  EXPECT_EQ(impact.steps(0).seq(), 3u);
  ASSERT_EQ(impact.steps(0).differences_size(), 1);
  EXPECT_EQ(impact.steps(0).differences(0).corrected(), "4 stands");
  EXPECT_EQ(impact.steps(1).seq(), 8u);
  EXPECT_EQ(impact.steps(1).differences_size(), 0);  // 3 stands each
  EXPECT_EQ(impact.final_differences_size(), 0);
  EXPECT_EQ(impact.compared_through_seq(), 8u);
  EXPECT_EQ(impact.ended_at_seq(), 9u);
  EXPECT_THAT(impact.ended_reason(), HasSubstr("daimyo.morale.missing"));
}

// The branch written out as a log (--branch-out): its claims at seq 3 and 8
// are the computed ones (1 hit, no stand; then 2 hits, 1 stand), it is cut
// before seq 9, and it audits with no dispute or violation.
TEST(ImpactTest, TheBranchWrittenOutAuditsClean) {
  const auto log = LogWithEvents(std::string(kDisputedVolley) + kSecondTurn);
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok());
  auto report = replay::AuditLog(log, *ruleset);
  ASSERT_TRUE(report.ok());
  std::vector<v1::BattleLog> branches;
  ASSERT_TRUE(replay::AddImpacts(log, *ruleset, *report, &branches).ok());
  ASSERT_EQ(branches.size(), 1u);
  const v1::BattleLog& branch = branches[0];
  EXPECT_EQ(branch.header().game_id(), "test-corrected-at-3");
  ASSERT_EQ(branch.events_size(), 8);  // seq 1 to 8: cut before 9
  EXPECT_EQ(branch.events(2).firing().claimed_hits(), 1u);
  EXPECT_EQ(branch.events(2).firing().claimed_stands_lost(), 0u);
  EXPECT_EQ(branch.events(7).firing().claimed_hits(), 2u);
  EXPECT_EQ(branch.events(7).firing().claimed_stands_lost(), 1u);
  auto audit = replay::AuditLog(branch, *ruleset);
  ASSERT_TRUE(audit.ok());
  EXPECT_EQ(audit->summary().violations(), 0u);
  EXPECT_EQ(audit->summary().disputes(), 0u);
}

TEST(ImpactTest, CleanLogHasNoImpacts) {
  // The same volley claimed right (1 hit, no stand) is not disputed.
  std::string events = kDisputedVolley;
  events.replace(events.find("claimed_hits: 3"), 15, "claimed_hits: 1");
  events.replace(events.find("claimed_stands_lost: 1"), 22,
                 "claimed_stands_lost: 0");
  const v1::AuditReport report = AuditWithImpact(LogWithEvents(events));
  EXPECT_EQ(report.summary().disputes(), 0u);
  EXPECT_EQ(report.impacts_size(), 0);
}

TEST(ImpactTest, TheOrdinaryAuditIsUnchanged) {
  // Following the computed outcome is only for the what-if branch: the
  // report's own findings are those of the game as played (the claimed 3
  // hits do remove the claimed 1 stand, so only the hits are disputed).
  const auto log = LogWithEvents(std::string(kDisputedVolley) + R"pb(
    events {
      seq: 5
      turn: 1
      turn_end {}
    }
  )pb");
  const v1::AuditReport report = AuditWithImpact(log);
  EXPECT_THAT(
      FindingKeys(report),
      ::testing::ElementsAre("3:SEVERITY_DISPUTE:daimyo.fire.hit",
                             "5:SEVERITY_VIOLATION:daimyo.morale.missing"));
}

}  // namespace
}  // namespace gunbai::testing
