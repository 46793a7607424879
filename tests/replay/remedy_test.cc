// The arbiter's remedies (replay/remedy.h), worked by hand on one small
// log: each field of the error-resolution procedure shown changing the
// remedy. The log, turn 1:
//   seq 1  turn_start, red's initiative, initiative dice 5 and 2
//   seq 2  red's activation
//   seq 3  red-samurai moves                         (movement segment)
//   seq 4  red-teppo fires at blue-yumi, dice 1s     (firing segment)
//   seq 5  red-teppo fires again, dice 1s: a second volley in the turn,
//          daimyo.fire.eligibility.once_per_turn, the one error
//   seq 6  blue's activation
//   seq 7  blue-yumi fires at red-teppo, dice 1s: blue's roll
//   seq 8  turn_end
// Every die is a 1: each stand rolls 1+1 = 2, and no modifier reaches the
// +6 a hit on 8 would need, so every volley claims 0 hits, rightly.
#include "replay/remedy.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "rules/builtin_rulesets.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Volley(int seq, const std::string& clan, const std::string& unit,
                   const std::string& target) {
  return Ev(seq, 1, clan,
            absl::StrCat("firing { unit: \"", unit, "\" target: \"", target,
                         "\" stands_firing: 2 dice: [1, 1, 1, 1] facts { "
                         "range: RANGE_BAND_EFFECTIVE } claimed_hits: 0 "
                         "claimed_stands_lost: 0 }"));
}

v1::BattleLog TheLog() {
  return LogWithEvents(
      Ev(1, 1, "",
         "turn_start { initiative_clan: \"red\" initiative_dice: [5, 2] }") +
      Activation(2, 1, "red") +
      Ev(3, 1, "red",
         "move { unit: \"red-samurai\" kind: MOVE_KIND_MOVE distance_mm: 50 "
         "}") +
      Volley(4, "red", "red-teppo", "blue-yumi") +
      Volley(5, "red", "red-teppo", "blue-yumi") + Activation(6, 1, "blue") +
      Volley(7, "blue", "blue-yumi", "red-teppo") + TurnEnd(8, 1));
}

// The default procedure with `edit` applied.
replay::LoadedProcedure Procedure(
    const std::function<void(v1::ErrorProcedure&)>& edit = nullptr) {
  replay::LoadedProcedure p = replay::DefaultProcedure();
  if (edit) edit(p.data);
  return p;
}

v1::Remedy RemedyOf(const replay::LoadedProcedure& procedure,
                    std::vector<std::uint64_t> raised_at = {}) {
  const v1::BattleLog log = TheLog();
  v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre(
          "5:SEVERITY_VIOLATION:daimyo.fire.eligibility.once_per_turn"));
  replay::RemedyOptions options;
  options.raised_at = std::move(raised_at);
  replay::AddRemedies(log, procedure, options, report);
  EXPECT_EQ(report.procedure().name(), procedure.data.name());
  EXPECT_EQ(report.procedure().digest(), procedure.digest);
  return report.findings_size() > 0 ? report.findings(0).remedy()
                                    : v1::Remedy();
}

std::vector<std::uint64_t> Rerolls(const v1::Remedy& r) {
  return {r.reroll_seqs().begin(), r.reroll_seqs().end()};
}

// The shipped default: a later roll seals, a raised error stays open, the
// segment is rolled again, the erring side redoes from the error, seen
// dice are rolled again.
TEST(RemedyTest, TheShippedDefaultIsTheDocumentedOne) {
  const replay::LoadedProcedure p = replay::DefaultProcedure();
  EXPECT_EQ(p.data.name(), "pbem-default");
  EXPECT_EQ(p.data.version(), "1.0");
  EXPECT_TRUE(p.data.later_roll_seals());
  EXPECT_TRUE(p.data.raised_error_stays_open());
  EXPECT_EQ(p.data.reroll_scope(), v1::REROLL_SCOPE_SEGMENT);
  EXPECT_EQ(p.data.redo_point(), v1::REDO_POINT_ERROR);
  EXPECT_TRUE(p.data.reroll_seen_dice());
  EXPECT_EQ(p.digest.size(), 64u);
}

// later_roll_seals: blue's volley at seq 7 is the other side's first roll
// after the error (seq 6 is an activation, no dice): the error stands.
TEST(RemedyTest, ALaterRollByTheOtherSideSealsTheError) {
  const v1::Remedy r = RemedyOf(Procedure());
  EXPECT_EQ(r.kind(), v1::Remedy::KIND_STANDS);
  EXPECT_EQ(r.sealed_by_seq(), 7u);
  EXPECT_THAT(r.text(), HasSubstr("sealed by the roll at seq 7 (blue)"));
}

// raised_error_stays_open: raised before seq 6 (so before the roll at 7),
// the error stays open and play goes back. The segment of seq 5 is the
// firing that began at seq 4 (seq 3 is a move): kept up to seq 3, red
// plays again from seq 4; rolled again: 4 and 5 (the segment) and 7 (seen
// after the error). Raised only at seq 8, after the roll: sealed by 7.
TEST(RemedyTest, AnErrorRaisedBeforeTheRollStaysOpen) {
  v1::Remedy r = RemedyOf(Procedure(), {6});
  EXPECT_EQ(r.kind(), v1::Remedy::KIND_REDO);
  EXPECT_EQ(r.resume_after_seq(), 3u);
  EXPECT_EQ(r.redo_clan(), "red");
  EXPECT_THAT(Rerolls(r), ElementsAre(4u, 5u, 7u));
  r = RemedyOf(Procedure(), {8});
  EXPECT_EQ(r.kind(), v1::Remedy::KIND_STANDS);
  EXPECT_EQ(r.sealed_by_seq(), 7u);
  // With raised_error_stays_open false, raising it changes nothing.
  r = RemedyOf(Procedure([](v1::ErrorProcedure& p) {
                 p.set_raised_error_stays_open(false);
               }),
               {6});
  EXPECT_EQ(r.kind(), v1::Remedy::KIND_STANDS);
}

// reroll_scope, with no sealing: the event alone (kept up to 4, rolled
// again 5 and the seen 7), the segment (kept up to 3: 4, 5, 7), or the
// turn (kept up to 0, nothing: the initiative at seq 1 too).
TEST(RemedyTest, TheRerollScopeSetsWhatIsRolledAgain) {
  auto open = [](v1::RerollScope scope) {
    return Procedure([scope](v1::ErrorProcedure& p) {
      p.set_later_roll_seals(false);
      p.set_reroll_scope(scope);
    });
  };
  v1::Remedy r = RemedyOf(open(v1::REROLL_SCOPE_EVENT));
  EXPECT_EQ(r.resume_after_seq(), 4u);
  EXPECT_THAT(Rerolls(r), ElementsAre(5u, 7u));
  r = RemedyOf(open(v1::REROLL_SCOPE_SEGMENT));
  EXPECT_EQ(r.resume_after_seq(), 3u);
  EXPECT_THAT(Rerolls(r), ElementsAre(4u, 5u, 7u));
  r = RemedyOf(open(v1::REROLL_SCOPE_TURN));
  EXPECT_EQ(r.resume_after_seq(), 0u);
  EXPECT_THAT(Rerolls(r), ElementsAre(1u, 4u, 5u, 7u));
}

// redo_point: from the error (kept up to 4 with the event scope) or from
// the start of red's activation (seq 2: kept up to 1), the rolls the same.
TEST(RemedyTest, TheRedoPointSetsWherePlayResumes) {
  const v1::Remedy r = RemedyOf(Procedure([](v1::ErrorProcedure& p) {
    p.set_later_roll_seals(false);
    p.set_reroll_scope(v1::REROLL_SCOPE_EVENT);
    p.set_redo_point(v1::REDO_POINT_ACTIVATION);
  }));
  EXPECT_EQ(r.resume_after_seq(), 1u);
  EXPECT_EQ(r.redo_clan(), "red");
  EXPECT_THAT(Rerolls(r), ElementsAre(5u, 7u));
}

// reroll_seen_dice false: blue's roll at 7, made after the error, is not
// listed (the players may make it again as it fell); the segment's are.
TEST(RemedyTest, SeenDiceAreRolledAgainOnlyWhenTheProcedureSaysSo) {
  const v1::Remedy r = RemedyOf(Procedure([](v1::ErrorProcedure& p) {
    p.set_later_roll_seals(false);
    p.set_reroll_seen_dice(false);
  }));
  EXPECT_EQ(r.resume_after_seq(), 3u);
  EXPECT_THAT(Rerolls(r), ElementsAre(4u, 5u));
}

// The plan keeps the log up to seq 3 (three events), which audits with no
// finding: the game to go on from; an error that stands keeps it whole.
TEST(RemedyTest, ThePlanKeepsALogThatAuditsClean) {
  const v1::BattleLog log = TheLog();
  v1::AuditReport report = AuditOrDie(log);
  replay::RemedyOptions options;
  options.raised_at = {6};
  replay::AddRemedies(log, replay::DefaultProcedure(), options, report);
  replay::RemedyPlan plan = replay::PlanRemedy(log, report);
  EXPECT_TRUE(plan.redo);
  EXPECT_EQ(plan.resume_after_seq, 3u);
  EXPECT_EQ(plan.redo_clan, "red");
  EXPECT_THAT(plan.reroll_seqs, ElementsAre(4u, 5u, 7u));
  ASSERT_EQ(plan.kept.events_size(), 3);
  EXPECT_EQ(plan.kept.events(2).seq(), 3u);
  const v1::AuditReport kept = AuditOrDie(plan.kept);
  for (const v1::Finding& f : kept.findings()) {
    EXPECT_NE(f.severity(), v1::SEVERITY_VIOLATION) << f.rule_id();
    EXPECT_NE(f.severity(), v1::SEVERITY_DISPUTE) << f.rule_id();
  }
  replay::AddRemedies(log, replay::DefaultProcedure(), {}, report);
  plan = replay::PlanRemedy(log, report);
  EXPECT_FALSE(plan.redo);
  EXPECT_THAT(plan.standing_seqs, ElementsAre(5u));
  EXPECT_EQ(plan.kept.events_size(), 8);
}

// A procedure file says where it is wrong.
TEST(RemedyTest, ABadProcedureFileIsRefusedSayingWhere) {
  auto bad = replay::LoadProcedure("name: \"x\"\nversion: \"1\"\nreroll: 3\n",
                                   "mine.textproto");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("mine.textproto:3:"));
  bad = replay::LoadProcedure("version: \"1\"", "mine.textproto");
  EXPECT_THAT(bad.status().message(), HasSubstr("needs a name and a version"));
  bad = replay::LoadProcedure("name: \"x\" version: \"1\"", "mine.textproto");
  EXPECT_THAT(bad.status().message(), HasSubstr("reroll_scope"));
}

}  // namespace
}  // namespace gunbai::testing
