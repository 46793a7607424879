// Tests of `gunbai diff`: the comparison of two audits (replay/diff), the
// baseline mode, the summary, and the CLI in process (service/cli/diff_cli):
// deterministic output for any number of workers, JSON that parses, logs
// that fail. Every expected change is worked by hand below from the dice in
// the logs; the traces of the built-in audit give the modifiers.
#include "replay/diff.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/diff.pb.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/audit.h"
#include "replay/corpus.h"
#include "replay/dice_stats.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "service/cli/diff_cli.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/game_service.h"
#include "service/render/report_format.h"
#include "service/store/sqlite_game_store.h"

namespace gunbai {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

v1::BattleLog LoadLog(const std::string& path) {
  auto log =
      replay::ParseBattleLog(ReadFile(path), replay::LogFormat::kText, path);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : v1::BattleLog();
}

std::string GoldenLog(const std::string& name) {
  return absl::StrCat(GUNBAI_TEST_DATA_DIR, "/", name);
}

std::string DiffData(const std::string& name) {
  return absl::StrCat(GUNBAI_DIFF_DATA_DIR, "/", name);
}

replay::LoadedRuleset Builtin() {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  return *ruleset;
}

// The text of the built-in Daimyo ruleset with `edit` applied.
template <typename Edit>
std::string EditedRulesetText(Edit edit) {
  v1::Ruleset data = Builtin().data;
  edit(data);
  std::string text;
  google::protobuf::TextFormat::PrintToString(data, &text);
  return text;
}

template <typename Edit>
replay::LoadedRuleset EditedRuleset(Edit edit) {
  auto loaded = replay::LoadRuleset(EditedRulesetText(edit), "edited");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return *loaded;
}

// Firing hits on 7 instead of 8; melee unchanged.
replay::LoadedRuleset FireHitScore7() {
  return EditedRuleset(
      [](v1::Ruleset& r) { r.mutable_firing()->set_hit_score(7); });
}

// A Raw firing unit has -2 instead of -1.
replay::LoadedRuleset RawFactorMinus2() {
  return EditedRuleset([](v1::Ruleset& r) {
    r.mutable_firing()->mutable_factors()->set_firer_raw(-2);
  });
}

struct Change {
  uint64_t seq;
  std::string subject;
  std::string kind;
  std::string old_value;
  std::string new_value;
  bool operator==(const Change&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Change& c) {
  return os << "{seq " << c.seq << " " << c.kind << " of " << c.subject << ": "
            << c.old_value << " -> " << c.new_value << "}";
}

std::vector<Change> ChangesOf(const v1::LogDiff& diff) {
  std::vector<Change> out;
  for (const v1::OutcomeChange& c : diff.outcome_changes()) {
    out.push_back({c.seq(), c.subject(), c.kind(), c.old_outcome().value(),
                   c.new_outcome().value()});
  }
  return out;
}

// "seq RULE claimed; computed" for each finding.
std::vector<std::string> FindingKeys(
    const google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  std::vector<std::string> out;
  for (const v1::Finding& f : findings) {
    out.push_back(absl::StrCat(f.seq(), " ", f.rule_id(), " [", f.subject(),
                               "] ", f.claimed(), "; ", f.computed()));
  }
  return out;
}

v1::AuditReport Audit(const v1::BattleLog& log,
                      const replay::LoadedRuleset& ruleset, bool outcomes) {
  replay::AuditOptions options;
  options.record_outcomes = outcomes;
  auto report = replay::AuditLog(log, ruleset, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return *report;
}

// ---- Two rulesets ----

// sekigahara.textproto under the built-in ruleset and with firing hits on
// 7. Each firing's stand totals (2d6 plus the modifiers of its trace in the
// built-in audit), and the hits on 8+ and 7+:
//   seq 4  tok-yumi   +2   9 10  4 12             3 / 3  unchanged
//   seq 5  tok-teppo  +3   8  6 11  7 10  7  7 14 4 / 7  (7, 7, 7 now hit)
//   seq 9  ish-teppo  +4   7  8 16  6 10          3 / 4
//   seq 10 ish-samurai +1  8  4  8  3  9  7       3 / 4
//   seq 21 tok-yumi   -2   9  7  8  3             2 / 3
//   seq 23 ish-teppo  +2   8  5  7  6  8  4       2 / 3
//   seq 33 tok-teppo  +2   8  4  8  7 14  8  5    4 / 5
//   seq 34 tok-teppo  6+6 twice, any modifier     2 / 2  unchanged
// The new side replays the game as it would have gone on 7+ (issue 10):
// each firing lands its computed hits and the stands they remove, and what
// follows from them, while outcomes the old side itself disputes stay as
// played. Worked by hand:
//   seq 5: 7 hits on ish-cav (4 stands, none carried): 2 stands lost, 1 hit
//     carried, 2 left (was 1 lost). Its daimyo Mitsunari owes 2 rolls.
//   seq 7: Mitsunari's roll (1 + 3 = 4, killed, claimed alive) is disputed
//     as played, so the branch keeps the claim: alive, one roll still owed.
//   seq 9, 10: 4 hits each (was 3), the claimed 1 stand each still right
//     (0 + 4 = 4: 1 stand, 1 carried).
//   seq 13: ish-cav's reason-1 test, 4+3 = 7, +2 Mitsunari, -2 x 2 stands
//     lost = 5 against 6+: fail by 1, halt (was 7, no effect).
//   seq 16: the turn ends with Mitsunari's second roll missing: a violation
//     only the new side has, so the games part there, and the changes at
//     seqs 21, 23, 33 (and the dispute at 21 that 7+ would remove) are not
//     listed. The end of the game differs.
// The claims: 3, 4, 3, 3, 3, 2, 4 (seqs 4 to 33). New disputes: 5 (4 vs
// 7), 9 (3 vs 4), 10 (3 vs 4), 13 (no effect vs halt).
TEST(DiffReportsTest, FireHitScore7ChangesTheSixFiringsWorkedByHand) {
  const v1::BattleLog log = LoadLog(GoldenLog("sekigahara.textproto"));
  const replay::LoadedRuleset old_ruleset = Builtin();
  const replay::LoadedRuleset new_ruleset = FireHitScore7();
  const v1::LogDiff diff = replay::DiffUnderRulesets(
      "sekigahara.textproto", log, {&old_ruleset, &new_ruleset, nullptr});

  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_CHANGED);
  EXPECT_EQ(diff.game_id(), "sekigahara-demo");
  EXPECT_TRUE(diff.outcomes_compared());
  const std::vector<Change> want = {
      {5, "ish-cav", "stands_lost", "1", "2"},
      {5, "tok-teppo", "hits", "4", "7"},
      {9, "ish-teppo", "hits", "3", "4"},
      {10, "ish-samurai", "hits", "3", "4"},
      {13, "ish-cav", "morale_result", "total 7: no effect", "total 5: halt"},
  };
  EXPECT_EQ(ChangesOf(diff), want);
  EXPECT_EQ(FindingKeys(diff.findings_added()),
            (std::vector<std::string>{
                "5 daimyo.fire.hit [tok-teppo] 4 hits; 7 hits",
                "9 daimyo.fire.hit [ish-teppo] 3 hits; 4 hits",
                "10 daimyo.fire.hit [ish-samurai] 3 hits; 4 hits",
                "13 daimyo.morale.result [ish-cav] no effect; halt",
                "16 daimyo.leader_loss.missing [mitsunari] ; ",
            }));
  EXPECT_TRUE(diff.findings_removed().empty());
  EXPECT_EQ(diff.events_changed(), 5u);
  ASSERT_TRUE(diff.has_first_changed_seq());
  EXPECT_EQ(diff.first_changed_seq(), 5u);
  ASSERT_TRUE(diff.has_parted_at_seq());
  EXPECT_EQ(diff.parted_at_seq(), 16u);
  EXPECT_THAT(diff.parted_reason(), HasSubstr("daimyo.leader_loss.missing"));
  EXPECT_GT(diff.changes_after_parting(), 0u);
  EXPECT_TRUE(diff.result_compared());
  // The games part at seq 16, so their ends are not compared: the old end
  // cannot be reached under 7+. They do differ past the parting (the
  // changes at 21, 23 and 33 above), and that is counted under it.
  EXPECT_FALSE(diff.final_state_changed());
  EXPECT_FALSE(diff.result_changed());
  EXPECT_TRUE(diff.ends_differ_past_parting());
  replay::DiffTally tally;
  tally.Add(0, diff);
  EXPECT_EQ(tally.Summary().logs_parted(), 1u);
  EXPECT_EQ(tally.Summary().logs_parted_ends_differ(), 1u);
  EXPECT_EQ(tally.Summary().results_changed(), 0u);
  EXPECT_EQ(tally.Summary().winners_changed(), 0u);
  EXPECT_EQ(tally.Summary().units_left_changed(), 0u);

  // Both traces come along: seq 5's stand 4 (1+3 +3 = 7) misses on 8 and
  // hits on 7.
  const v1::OutcomeChange& seq5 = diff.outcome_changes(1);
  bool old_miss = false, new_hit = false;
  for (const v1::Term& t : seq5.old_outcome().trace()) {
    old_miss |= t.label() == "stand 4: 1+3 +3 = 7, miss (8+ hits)";
  }
  for (const v1::Term& t : seq5.new_outcome().trace()) {
    new_hit |= t.label() == "stand 4: 1+3 +3 = 7, hit (7+ hits)";
  }
  EXPECT_TRUE(old_miss);
  EXPECT_TRUE(new_hit);
}

TEST(DiffReportsTest, RawFactorMinus2ChangesOnlySeq21) {
  const v1::BattleLog log = LoadLog(GoldenLog("sekigahara.textproto"));
  const replay::LoadedRuleset old_ruleset = Builtin();
  const replay::LoadedRuleset new_ruleset = RawFactorMinus2();
  const v1::LogDiff diff =
      replay::DiffUnderRulesets("s", log, {&old_ruleset, &new_ruleset});
  EXPECT_EQ(ChangesOf(diff),
            (std::vector<Change>{{21, "tok-yumi", "hits", "2", "1"}}));
  EXPECT_EQ(FindingKeys(diff.findings_removed()),
            (std::vector<std::string>{
                "21 daimyo.fire.hit [tok-yumi] 3 hits; 2 hits"}));
  EXPECT_EQ(FindingKeys(diff.findings_added()),
            (std::vector<std::string>{
                "21 daimyo.fire.hit [tok-yumi] 3 hits; 1 hit"}));
  EXPECT_EQ(diff.events_changed(), 1u);
  EXPECT_EQ(diff.first_changed_seq(), 21u);
  // No violation is new (the findings added and removed are disputes of
  // the same firing), so the games never part and their ends are compared:
  // neither the result nor the final state changes (the one hit less takes
  // no stand).
  EXPECT_FALSE(diff.has_parted_at_seq());
  EXPECT_FALSE(diff.ends_differ_past_parting());
  EXPECT_TRUE(diff.result_compared());
  EXPECT_FALSE(diff.result_changed());
  EXPECT_FALSE(diff.final_state_changed());
  replay::DiffTally tally;
  tally.Add(0, diff);
  EXPECT_EQ(tally.Summary().logs_parted(), 0u);
  EXPECT_EQ(tally.Summary().results_changed(), 0u);
}

// volley.textproto claims nothing, so replay lands the computed hits (see
// the hand working in the file): on 8, 2 hits carried and a clean game; on
// 7, 3 hits take a stand from asai-yumi (4 -> 3 stands), which then owes a
// morale test at the end of turn 1 (seq 5) that the log does not take. So
// the games part at seq 5: the log's end of turn cannot happen under 7+
// with the test unowned. Their ends (asai 4 stands against 3) are not
// compared, and the difference is counted under the parting.
TEST(DiffReportsTest, VolleyWithoutClaimsPartsWhereTheNewTestIsOwed) {
  const v1::BattleLog log = LoadLog(DiffData("volley.textproto"));
  const replay::LoadedRuleset old_ruleset = Builtin();
  const replay::LoadedRuleset new_ruleset = FireHitScore7();
  const v1::LogDiff diff =
      replay::DiffUnderRulesets("volley", log, {&old_ruleset, &new_ruleset});
  // Key order: seq, then subject, then kind.
  EXPECT_EQ(ChangesOf(diff),
            (std::vector<Change>{{3, "asai-yumi", "stands_lost", "0", "1"},
                                 {3, "oda-teppo", "hits", "2", "3"}}));
  EXPECT_EQ(
      FindingKeys(diff.findings_added()),
      (std::vector<std::string>{"5 daimyo.morale.missing [asai-yumi] ; "}));
  EXPECT_TRUE(diff.findings_removed().empty());
  EXPECT_EQ(diff.events_changed(), 2u);
  EXPECT_EQ(diff.first_changed_seq(), 3u);
  ASSERT_TRUE(diff.has_parted_at_seq());
  EXPECT_EQ(diff.parted_at_seq(), 5u);
  EXPECT_THAT(diff.parted_reason(), HasSubstr("daimyo.morale.missing"));
  EXPECT_FALSE(diff.result_changed());
  EXPECT_FALSE(diff.final_state_changed());
  EXPECT_TRUE(diff.ends_differ_past_parting());
  // The results stay in the diff for a reader, unjudged.
  ASSERT_EQ(diff.new_result().clans_size(), 2);
  EXPECT_EQ(diff.old_result().clans(1).clan(), "asai");
  EXPECT_EQ(diff.old_result().clans(1).stands_left(), 4u);
  EXPECT_EQ(diff.new_result().clans(1).stands_left(), 3u);
  EXPECT_EQ(diff.new_result().clans(0).stands_left(), 4u);  // oda untouched
}

TEST(DiffReportsTest, SameRulesetChangesNothing) {
  const replay::LoadedRuleset a = Builtin();
  // The same tables from text: another object, the same digest.
  const replay::LoadedRuleset b = EditedRuleset([](v1::Ruleset&) {});
  ASSERT_EQ(a.digest, b.digest);
  for (const char* name : {"sekigahara.textproto", "anegawa-clean.textproto",
                           "nagashino-melee.textproto"}) {
    const v1::LogDiff diff =
        replay::DiffUnderRulesets(name, LoadLog(GoldenLog(name)), {&a, &b});
    EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_SAME) << name;
    EXPECT_FALSE(diff.has_first_changed_seq()) << name;
    EXPECT_EQ(diff.events_changed(), 0u) << name;
  }
}

TEST(DiffReportsTest, NullRulesetsAreTheBuiltinOneTheHeaderNames) {
  auto catalog = replay::RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  const v1::LogDiff diff =
      replay::DiffUnderRulesets("s", LoadLog(GoldenLog("sekigahara.textproto")),
                                {nullptr, nullptr, &*catalog});
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_SAME);
  EXPECT_EQ(diff.old_ruleset().name(), "daimyo");
  EXPECT_EQ(diff.old_ruleset().digest(), Builtin().digest);
}

// Equal findings pair one to one: two on the old side and one on the new
// side leave one removed. An outcome only one side worked out is a change.
TEST(DiffReportsTest, RepeatsPairOneToOneAndOneSidedOutcomesCount) {
  v1::AuditReport old_report, new_report;
  v1::Finding f;
  f.set_seq(7);
  f.set_severity(v1::SEVERITY_VIOLATION);
  f.set_rule_id("daimyo.fire.eligibility.once_per_turn");
  f.set_subject("u");
  *old_report.add_findings() = f;
  *old_report.add_findings() = f;
  *new_report.add_findings() = f;
  v1::Outcome o;
  o.set_seq(7);
  o.set_subject("u");
  o.set_kind("hits");
  o.set_value("2");
  *old_report.add_outcomes() = o;
  *old_report.add_outcomes() = o;  // a repeated seq: the second occurrence
  *new_report.add_outcomes() = o;
  const v1::LogDiff diff = replay::DiffReports("x", old_report, new_report);
  EXPECT_EQ(diff.findings_removed_size(), 1);
  EXPECT_EQ(diff.findings_added_size(), 0);
  ASSERT_EQ(diff.outcome_changes_size(), 1);
  EXPECT_TRUE(diff.outcome_changes(0).has_old_outcome());
  EXPECT_FALSE(diff.outcome_changes(0).has_new_outcome());
  EXPECT_EQ(diff.events_changed(), 1u);
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_CHANGED);
}

// DiffUnderRulesets replays the two sides in step and compares each
// event's outcomes as soon as no later event has its seq, freeing them: its
// outcome changes must be those of DiffReports over the two whole reports
// (the old audit with outcomes, the new one the branch that keeps the
// claims the old side disputes), in the same order, also when the seqs of a
// log go back and repeat. Generated games (seeds 1-6), each also with the
// seqs of its second half cycling 1-7. The changes past a parting are only
// counted, also as in the whole reports' diff.
TEST(DiffReportsTest, InStepOutcomesAreTheWholeReportsDiff) {
  const replay::LoadedRuleset old_ruleset = Builtin();
  const replay::LoadedRuleset new_ruleset = FireHitScore7();
  const replay::DiffRulesets sides{&old_ruleset, &new_ruleset, nullptr};
  int compared = 0;
  int parted = 0;
  for (int seed = 1; seed <= 6; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.target_events = 300;
    const v1::BattleLog generated = generate::GenerateLog(options);
    v1::BattleLog shuffled = generated;
    const int n = shuffled.events_size();
    // The second half's seqs cycle 1-7: each seq comes back every seventh
    // event and is the seq of an event of the first half too.
    for (int i = n / 2; i < n; ++i) {
      shuffled.mutable_events(i)->set_seq(
          static_cast<std::uint64_t>(1 + i % 7));
    }
    for (const v1::BattleLog* log :
         {&generated, static_cast<const v1::BattleLog*>(&shuffled)}) {
      SCOPED_TRACE(
          absl::StrCat("seed ", seed, log == &shuffled ? " shuffled" : ""));
      const v1::LogDiff in_step = replay::DiffUnderRulesets("x", *log, sides);
      ASSERT_NE(in_step.status(), v1::LOG_DIFF_STATUS_FAILED);
      replay::AuditOptions old_options;
      old_options.record_outcomes = true;
      auto old_report = replay::AuditLog(*log, old_ruleset, old_options);
      ASSERT_TRUE(old_report.ok());
      replay::AuditOptions branch;  // As DiffUnderRulesets' new side.
      branch.record_outcomes = true;
      branch.follow_computed_from_seq = 1;
      for (const v1::Finding& f : old_report->findings()) {
        if (f.severity() == v1::SEVERITY_DISPUTE) {
          branch.keep_claims_at.push_back(f.seq());
        }
      }
      std::sort(branch.keep_claims_at.begin(), branch.keep_claims_at.end());
      auto new_report = replay::AuditLog(*log, new_ruleset, branch);
      ASSERT_TRUE(new_report.ok());
      const v1::LogDiff whole =
          replay::DiffReports("x", *old_report, *new_report);
      // Past a parting the in-step diff is cut; compare up to it.
      const std::uint64_t cut = in_step.has_parted_at_seq()
                                    ? in_step.parted_at_seq()
                                    : ~std::uint64_t{0};
      std::vector<std::string> expected, got;
      for (const v1::OutcomeChange& c : whole.outcome_changes()) {
        if (c.seq() <= cut) expected.push_back(c.ShortDebugString());
      }
      for (const v1::OutcomeChange& c : in_step.outcome_changes()) {
        got.push_back(c.ShortDebugString());
      }
      EXPECT_EQ(got, expected);
      compared += static_cast<int>(expected.size());
      // What the cut left out is counted, as CutAtParting of the whole
      // reports' diff counts it: outcome changes and findings after it.
      int after = 0;
      for (const v1::OutcomeChange& c : whole.outcome_changes()) {
        after += c.seq() > cut ? 1 : 0;
      }
      for (const auto* findings :
           {&whole.findings_added(), &whole.findings_removed()}) {
        for (const v1::Finding& f : *findings) after += f.seq() > cut ? 1 : 0;
      }
      EXPECT_EQ(in_step.changes_after_parting(),
                static_cast<std::uint32_t>(after));
      parted += in_step.has_parted_at_seq() ? 1 : 0;
    }
  }
  // Firing hits on 7 changes outcomes in every game: the test compares some,
  // and some games part.
  EXPECT_GT(compared, 12);
  EXPECT_GT(parted, 0);
}

// ---- Baselines ----

// A report saved without outcomes: the outcomes are not compared (and the
// audit does not record them), the findings are, with the changes of
// FireHitScore7ChangesTheSixFiringsWorkedByHand. Through JSON, as `gunbai
// audit --format=json` saves it.
TEST(BaselineTest, WithoutOutcomesComparesFindingsAndResult) {
  const v1::BattleLog log = LoadLog(GoldenLog("sekigahara.textproto"));
  v1::AuditReport saved;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  service::FormatJson(Audit(log, Builtin(), false)), &saved)
                  .ok());
  const replay::LoadedRuleset fire7 = FireHitScore7();
  const v1::LogDiff diff =
      replay::DiffAgainstBaseline("s", log, &saved, {nullptr, &fire7});
  EXPECT_FALSE(diff.outcomes_compared());
  EXPECT_TRUE(diff.outcome_changes().empty());
  EXPECT_EQ(diff.findings_added_size(), 5);
  EXPECT_EQ(diff.findings_removed_size(), 1);
  EXPECT_EQ(diff.events_changed(), 6u);  // 5, 9, 10, 21, 23, 33
  EXPECT_EQ(diff.first_changed_seq(), 5u);
  EXPECT_TRUE(diff.result_compared());
  EXPECT_FALSE(diff.result_changed());
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_CHANGED);
}

TEST(BaselineTest, WithOutcomesComparesOutcomesToo) {
  const v1::BattleLog log = LoadLog(GoldenLog("sekigahara.textproto"));
  const v1::AuditReport saved = Audit(log, Builtin(), true);
  const replay::LoadedRuleset fire7 = FireHitScore7();
  const v1::LogDiff diff =
      replay::DiffAgainstBaseline("s", log, &saved, {nullptr, &fire7});
  EXPECT_TRUE(diff.outcomes_compared());
  EXPECT_EQ(diff.outcome_changes_size(), 6);  // as worked by hand above
  // The same release against its own report: nothing changed.
  const replay::LoadedRuleset builtin = Builtin();
  EXPECT_EQ(replay::DiffAgainstBaseline("s", log, &saved, {nullptr, &builtin})
                .status(),
            v1::LOG_DIFF_STATUS_SAME);
}

// A game with no outcome at all (a turn that starts and ends: no firing,
// melee or test), saved with --outcomes: the report says it recorded them,
// so its empty list is compared, and nothing changed. Saved without, it is
// not compared.
TEST(BaselineTest, EmptyOutcomesRecordedAreCompared) {
  v1::BattleLog log = LoadLog(GoldenLog("anegawa-clean.textproto"));
  log.clear_events();
  v1::Event* start = log.add_events();
  start->set_seq(1);
  start->set_turn(1);
  start->mutable_turn_start()->set_initiative_clan("oda");
  start->mutable_turn_start()->add_initiative_dice(4);
  start->mutable_turn_start()->add_initiative_dice(2);
  v1::Event* end = log.add_events();
  end->set_seq(2);
  end->set_turn(1);
  end->mutable_turn_end();
  v1::AuditReport saved;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  service::FormatJson(Audit(log, Builtin(), true)), &saved)
                  .ok());
  EXPECT_TRUE(saved.outcomes_recorded());
  EXPECT_TRUE(saved.outcomes().empty());
  const replay::LoadedRuleset builtin = Builtin();
  const v1::LogDiff diff =
      replay::DiffAgainstBaseline("e", log, &saved, {nullptr, &builtin});
  EXPECT_TRUE(diff.outcomes_compared());
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_SAME);
  const v1::AuditReport without = Audit(log, Builtin(), false);
  EXPECT_FALSE(without.outcomes_recorded());
  EXPECT_FALSE(
      replay::DiffAgainstBaseline("e", log, &without, {nullptr, &builtin})
          .outcomes_compared());
}

// A report from before gunbai reported results: the end of the game is
// not compared, and says so.
TEST(BaselineTest, ReportWithoutResultOrDigest) {
  const v1::BattleLog log = LoadLog(GoldenLog("anegawa-clean.textproto"));
  v1::AuditReport saved = Audit(log, Builtin(), false);
  saved.clear_result();
  saved.clear_final_state_digest();
  const replay::LoadedRuleset builtin = Builtin();
  const v1::LogDiff diff =
      replay::DiffAgainstBaseline("a", log, &saved, {nullptr, &builtin});
  EXPECT_FALSE(diff.result_compared());
  EXPECT_FALSE(diff.final_state_changed());
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_SAME);
}

// A report from before digest version 2 (issue 29): its final digest is
// of the old version (here a different string, version 0), so it is not
// compared; the same digest string of version 2 that differs is.
TEST(BaselineTest, DigestsOfAnotherVersionAreNotCompared) {
  const v1::BattleLog log = LoadLog(GoldenLog("anegawa-clean.textproto"));
  v1::AuditReport saved = Audit(log, Builtin(), false);
  ASSERT_EQ(saved.final_state_digest_version(), 2u);
  saved.set_final_state_digest(std::string(64, '0'));
  const replay::LoadedRuleset builtin = Builtin();
  v1::LogDiff same_version =
      replay::DiffAgainstBaseline("a", log, &saved, {nullptr, &builtin});
  EXPECT_TRUE(same_version.final_state_changed());
  saved.clear_final_state_digest_version();
  const v1::LogDiff old_version =
      replay::DiffAgainstBaseline("a", log, &saved, {nullptr, &builtin});
  EXPECT_FALSE(old_version.final_state_changed());
}

TEST(BaselineTest, NoBaselineIsNotReplayed) {
  v1::BattleLog log;  // would fail to replay: no armies
  log.mutable_header()->set_game_id("lost");
  const v1::LogDiff diff =
      replay::DiffAgainstBaseline("lost.textproto", log, nullptr, {});
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_NO_BASELINE);
  EXPECT_EQ(diff.game_id(), "lost");
}

// ---- Failures and the summary ----

TEST(FailedLogTest, UnusableOrderOfBattleFailsWithTheReason) {
  v1::BattleLog log = LoadLog(GoldenLog("anegawa-clean.textproto"));
  log.mutable_order_of_battle()->mutable_units(0)->set_stands(0);
  const replay::LoadedRuleset builtin = Builtin();
  const v1::LogDiff diff =
      replay::DiffUnderRulesets("broken", log, {&builtin, &builtin});
  EXPECT_EQ(diff.status(), v1::LOG_DIFF_STATUS_FAILED);
  EXPECT_NE(diff.error().find("under the old ruleset: "), std::string::npos)
      << diff.error();
  EXPECT_NE(diff.error().find("stands"), std::string::npos) << diff.error();
}

// Positions, not the order of the calls, order the names; rule ids sort.
TEST(DiffTallyTest, SummaryIsTheSameInAnyOrder) {
  auto with_rules = [](const std::string& name, std::vector<std::string> added,
                       std::vector<std::string> removed) {
    v1::LogDiff d;
    d.set_name(name);
    d.set_status(v1::LOG_DIFF_STATUS_CHANGED);
    d.set_events_changed(static_cast<uint32_t>(added.size() + removed.size()));
    d.set_outcomes_compared(true);
    for (const auto& r : added) d.add_findings_added()->set_rule_id(r);
    for (const auto& r : removed) d.add_findings_removed()->set_rule_id(r);
    return d;
  };
  std::vector<v1::LogDiff> diffs = {
      with_rules("a", {"z.rule", "a.rule"}, {}),
      replay::FailedLogDiff("b", absl::InvalidArgumentError("bad b")),
      with_rules("c", {"a.rule"}, {"m.rule"}),
      replay::FailedLogDiff("d", absl::InvalidArgumentError("bad d")),
  };
  v1::LogDiff no_baseline;
  no_baseline.set_name("e");
  no_baseline.set_status(v1::LOG_DIFF_STATUS_NO_BASELINE);
  diffs.push_back(no_baseline);

  replay::DiffTally forward, backward;
  for (std::size_t i = 0; i < diffs.size(); ++i) forward.Add(i, diffs[i]);
  for (std::size_t i = diffs.size(); i-- > 0;) backward.Add(i, diffs[i]);
  const v1::DiffSummary s = forward.Summary();
  EXPECT_EQ(s.SerializeAsString(), backward.Summary().SerializeAsString());
  EXPECT_EQ(s.logs_total(), 5u);
  EXPECT_EQ(s.logs_compared(), 2u);
  EXPECT_EQ(s.logs_changed(), 2u);
  EXPECT_EQ(s.events_changed(), 4u);
  ASSERT_EQ(s.findings_by_rule_size(), 3);
  EXPECT_EQ(s.findings_by_rule(0).rule_id(), "a.rule");
  EXPECT_EQ(s.findings_by_rule(0).added(), 2u);
  EXPECT_EQ(s.findings_by_rule(1).rule_id(), "m.rule");
  EXPECT_EQ(s.findings_by_rule(1).removed(), 1u);
  EXPECT_EQ(s.findings_by_rule(2).rule_id(), "z.rule");
  ASSERT_EQ(s.failed_size(), 2);
  EXPECT_EQ(s.failed(0).name(), "b");
  EXPECT_EQ(s.failed(1).error(), "bad d");
  ASSERT_EQ(s.no_baseline_size(), 1);
  EXPECT_EQ(s.no_baseline(0), "e");
  EXPECT_TRUE(forward.AnyChanged());
  EXPECT_TRUE(forward.AnyFailed());
}

// ---- The daemon's side, without a daemon ----

// DiffRequestLogs (AuditService.Diff) gives each log the diff the local
// functions give, whatever order the workers finish in.
TEST(DiffRequestLogsTest, SameDiffsAsLocally) {
  v1::DiffRequest request;
  request.set_new_ruleset_textproto(EditedRulesetText(
      [](v1::Ruleset& r) { r.mutable_firing()->set_hit_score(7); }));
  for (const char* name : {"sekigahara.textproto", "anegawa-clean.textproto",
                           "nagashino-melee.textproto"}) {
    v1::DiffLogInput* input = request.add_logs();
    input->set_name(name);
    *input->mutable_log() = LoadLog(GoldenLog(name));
  }
  request.add_logs()->set_name("empty");  // no armies: fails alone
  std::vector<v1::LogDiff> got(request.logs_size());
  ASSERT_TRUE(
      replay::DiffRequestLogs(request, 4, [&](std::size_t i, v1::LogDiff d) {
        got[i] = std::move(d);
        return true;
      }).ok());
  auto catalog = replay::RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok());
  const replay::LoadedRuleset fire7 = FireHitScore7();
  for (int i = 0; i < 3; ++i) {
    const v1::LogDiff want =
        replay::DiffUnderRulesets(request.logs(i).name(), request.logs(i).log(),
                                  {nullptr, &fire7, &*catalog});
    EXPECT_EQ(got[i].SerializeAsString(), want.SerializeAsString()) << i;
  }
  EXPECT_EQ(got[3].status(), v1::LOG_DIFF_STATUS_FAILED);

  v1::DiffRequest both = request;
  both.set_compare_to_baselines(true);
  both.set_old_ruleset_textproto("name: \"daimyo\"");
  EXPECT_EQ(replay::DiffRequestLogs(both, 1, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  v1::DiffRequest bad = request;
  bad.set_new_ruleset_textproto("firing {");
  EXPECT_EQ(replay::DiffRequestLogs(bad, 1, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- gunbai diff in process ----

class DiffCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           absl::StrCat(
               "diff_cli_",
               ::testing::UnitTest::GetInstance()->current_test_info()->name(),
               "_", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "corpus" / "sub");
    fire7_ = (dir_ / "fire7.textproto").string();
    WriteFile(fire7_, EditedRulesetText([](v1::Ruleset& r) {
                r.mutable_firing()->set_hit_score(7);
              }));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Copies the golden logs and volley into the corpus.
  void AddGoldenLogs() {
    for (const char* name : {"sekigahara.textproto", "anegawa-clean.textproto",
                             "nagashino-melee.textproto"}) {
      fs::copy_file(GoldenLog(name), dir_ / "corpus" / name);
    }
    fs::copy_file(DiffData("volley.textproto"),
                  dir_ / "corpus" / "sub" / "volley.textproto");
  }

  int Run(std::vector<std::string> args, std::string* out,
          std::string* err = nullptr) {
    std::ostringstream o, e;
    const int code = service::RunDiffCli(args, o, e);
    *out = o.str();
    if (err != nullptr) *err = e.str();
    return code;
  }

  std::string Corpus() const { return (dir_ / "corpus").string(); }

  fs::path dir_;
  std::string fire7_;
};

TEST_F(DiffCliTest, TextNamesEachHandWorkedChange) {
  AddGoldenLogs();
  std::string out, err;
  EXPECT_EQ(Run({"--quiet", "--new-ruleset", fire7_, Corpus()}, &out, &err), 1)
      << err;
  EXPECT_EQ(err, "");
  const std::string seki = (dir_ / "corpus" / "sekigahara.textproto").string();
  // Worked by hand in FireHitScore7ChangesTheSixFiringsWorkedByHand.
  EXPECT_NE(out.find(seki + " (game sekigahara-demo): changed in 5 events, "
                            "first at seq 5\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  seq 5  hits of tok-teppo: 4 → 7\n"), std::string::npos);
  EXPECT_NE(out.find("  seq 5  stands_lost of ish-cav: 1 → 2\n"),
            std::string::npos);
  EXPECT_NE(out.find("  the games part at seq 16: event seq 16 is impossible "
                     "under the new ruleset (daimyo.leader_loss.missing"),
            std::string::npos)
      << out;
  // Only the stand lines whose verdict changed: seq 5's stand 4 (1+3 +3 =
  // 7) misses on 8 and hits on 7; stand 1 (2+3 +3 = 8) hits on both.
  EXPECT_NE(out.find("stand 4: 1+3 +3 = 7, miss (8+ hits)"), std::string::npos);
  EXPECT_EQ(out.find("stand 1: 2+3 +3 = 8, hit (8+ hits)"), std::string::npos);
  // The volley's games part at seq 5 (VolleyWithoutClaimsParts...): its
  // end (asai 4 stands against 3) is not compared, only said to differ.
  EXPECT_NE(out.find("  end of game not compared: the games part at seq 5, "
                     "so the old end cannot be reached under the new rules "
                     "(the ends differ past the parting)\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("  end of game changed:\n    asai: stands left 4 → 3\n"),
            std::string::npos)
      << out;
  // Melee still hits on 8: nagashino, a game of melees, is unchanged.
  EXPECT_NE(out.find("nagashino-melee.textproto (game nagashino-melee): "
                     "unchanged\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\nSummary: 4 logs, 4 compared, 3 changed;"),
            std::string::npos)
      << out;
}

// The output and the summary do not depend on the number of workers, in
// text and in JSON; the JSON is one gunbai.v1.DiffReport.
TEST_F(DiffCliTest, SameOutputForOneAndFourJobs) {
  AddGoldenLogs();
  for (int seed = 1; seed <= 12; ++seed) {
    generate::GeneratorOptions options;
    options.seed = static_cast<uint64_t>(seed);
    options.target_events = 150;
    options.units_per_clan = 4;
    options.faults = seed % 3;
    std::string text;
    google::protobuf::TextFormat::PrintToString(generate::GenerateLog(options),
                                                &text);
    WriteFile(
        (dir_ / "corpus" / absl::StrCat("gen-", seed, ".textproto")).string(),
        text);
  }
  WriteFile((dir_ / "corpus" / "sub" / "broken.textproto").string(),
            "header { game_id: ");
  for (const char* format : {"--format=text", "--format=json"}) {
    std::string one, four;
    const int code1 =
        Run({"--quiet", format, "--jobs=1", "--new-ruleset", fire7_, Corpus()},
            &one);
    const int code4 = Run(
        {"--quiet", format, "--jobs", "4", "--new-ruleset", fire7_, Corpus()},
        &four);
    EXPECT_EQ(code1, 2);  // the broken log
    EXPECT_EQ(code4, 2);
    EXPECT_EQ(one, four) << format;
  }
  std::string json;
  Run({"--quiet", "--format=json", "--new-ruleset", fire7_, Corpus()}, &json);
  v1::DiffReport report;
  auto parsed = google::protobuf::util::JsonStringToMessage(json, &report);
  ASSERT_TRUE(parsed.ok()) << parsed << "\n" << json.substr(0, 2000);
  ASSERT_EQ(report.logs_size(), 17);
  EXPECT_EQ(report.summary().logs_total(), 17u);
  EXPECT_EQ(report.summary().logs_compared(), 16u);
  ASSERT_EQ(report.summary().failed_size(), 1);
  EXPECT_NE(report.summary().failed(0).name().find("broken.textproto"),
            std::string::npos);
  // Sorted paths: anegawa-clean, gen-1, gen-10, gen-11, gen-12, gen-2 to
  // gen-9, nagashino-melee, sekigahara (14), sub/broken, sub/volley.
  for (int i = 1; i < report.logs_size(); ++i) {
    EXPECT_LT(report.logs(i - 1).name(), report.logs(i).name());
  }
  const v1::LogDiff& seki = report.logs(14);
  EXPECT_EQ(seki.game_id(), "sekigahara-demo");
  EXPECT_EQ(ChangesOf(seki).size(), 5u);  // worked by hand above
}

TEST_F(DiffCliTest, BaselinesFromSavedReports) {
  AddGoldenLogs();
  fs::create_directories(dir_ / "saved");
  // Saved as `gunbai audit --outcomes --format=json` would, except volley,
  // which has no saved report, and anegawa, saved without outcomes.
  for (const char* name : {"sekigahara.textproto", "anegawa-clean.textproto",
                           "nagashino-melee.textproto"}) {
    const bool outcomes = std::string(name) != "anegawa-clean.textproto";
    WriteFile((dir_ / "saved" / absl::StrCat(name, ".json")).string(),
              service::FormatJson(
                  Audit(LoadLog(GoldenLog(name)), Builtin(), outcomes)));
  }
  std::string out, err;
  EXPECT_EQ(Run({"--quiet", "--baseline", (dir_ / "saved").string(),
                 "--new-ruleset", fire7_, Corpus()},
                &out, &err),
            1)
      << err;
  EXPECT_NE(out.find("  old: the saved reports (--baseline)\n"),
            std::string::npos);
  EXPECT_NE(out.find("volley.textproto (game volley): no saved report of "
                     "this game; not compared\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  outcomes not compared: the saved report has none"),
            std::string::npos);
  EXPECT_NE(out.find("Summary: 4 logs, 3 compared, 2 changed;"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Outcomes not compared in 1 log: "), std::string::npos);
  EXPECT_NE(out.find("No saved report, not compared (1):\n  "),
            std::string::npos);

  // The same release against its own reports: exit 0.
  EXPECT_EQ(Run({"--quiet", "--baseline", (dir_ / "saved").string(),
                 (dir_ / "corpus" / "sekigahara.textproto").string()},
                &out, &err),
            0)
      << out << err;
  EXPECT_NE(out.find("sekigahara.textproto (game sekigahara-demo): unchanged"),
            std::string::npos);
}

TEST_F(DiffCliTest, BadUsageAndUnreadableInputExit2) {
  std::string out, err;
  EXPECT_EQ(Run({Corpus()}, &out, &err), 2);  // nothing to compare against
  EXPECT_NE(err.find("say what to compare"), std::string::npos) << err;
  EXPECT_EQ(Run({"--new-ruleset", fire7_}, &out, &err), 2);  // no corpus
  EXPECT_EQ(
      Run({"--baseline", "x", "--old-ruleset", fire7_, Corpus()}, &out, &err),
      2);
  EXPECT_EQ(Run({"--jobs=0", "--new-ruleset", fire7_, Corpus()}, &out, &err),
            2);
  EXPECT_EQ(Run({"--stored-games", "--new-ruleset", fire7_}, &out, &err), 2);
  EXPECT_EQ(Run({"--new-ruleset", "/no/such/ruleset", Corpus()}, &out, &err),
            2);
  EXPECT_NE(err.find("/no/such/ruleset"), std::string::npos) << err;
  // A missing log is a failed log, listed with the others.
  EXPECT_EQ(Run({"--quiet", "--new-ruleset", fire7_, "/no/such/log.textproto"},
                &out, &err),
            2);
  EXPECT_NE(out.find("/no/such/log.textproto: FAILED: "), std::string::npos)
      << out;
  EXPECT_EQ(Run({"--help"}, &out, &err), 0);
  EXPECT_NE(out.find("Examples:"), std::string::npos);
}

// Plain progress lines (stderr is not a terminal here) every 10%.
TEST_F(DiffCliTest, ProgressLinesUnlessQuiet) {
  AddGoldenLogs();
  std::string out, err;
  Run({"--new-ruleset", fire7_, Corpus()}, &out, &err);
  EXPECT_NE(err.find("gunbai diff: 4/4 logs, "), std::string::npos) << err;
  Run({"--quiet", "--new-ruleset", fire7_, Corpus()}, &out, &err);
  EXPECT_EQ(err, "");
}

// ---- The daemon's stored games ----

// GameService.ListGames, which `gunbai diff --stored-games` pages through:
// ids sorted, a page at a time, the umpire only. In process, over a real
// SQLite store.
TEST(ListGamesTest, PagesThroughSortedIdsForTheUmpireOnly) {
  const fs::path dir = fs::path(::testing::TempDir()) /
                       absl::StrCat("list_games_store_", getpid());
  fs::remove_all(dir);
  auto store = service::SqliteGameStore::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status();
  for (const char* id : {"mikatagahara", "anegawa", "kawanakajima"}) {
    service::GameRecord game;
    game.game_id = id;
    game.header.set_game_id(id);
    ASSERT_TRUE((*store)->CreateGame(game).ok());
  }
  auto catalog = replay::RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok());
  const std::string umpire = "umpire-credential-0123456789";
  service::GameServiceImpl games(store->get(), &*catalog, umpire);
  grpc::ServerBuilder builder;
  builder.RegisterService(&games);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto stub = v1::GameService::NewStub(
      server->InProcessChannel(grpc::ChannelArguments()));

  auto list = [&](const std::string& token, const std::string& page_token,
                  v1::ListGamesResponse* response) {
    grpc::ClientContext context;
    if (!token.empty()) {
      context.AddMetadata("authorization", "Bearer " + token);
    }
    v1::ListGamesRequest request;
    request.set_page_size(2);
    request.set_page_token(page_token);
    return stub->ListGames(&context, request, response).error_code();
  };
  v1::ListGamesResponse first, second, refused;
  ASSERT_EQ(list(umpire, "", &first), grpc::StatusCode::OK);
  ASSERT_EQ(first.games_size(), 2);
  EXPECT_EQ(first.games(0).game_id(), "anegawa");
  EXPECT_EQ(first.games(1).game_id(), "kawanakajima");
  EXPECT_EQ(first.games(0).version(), 0u);
  EXPECT_FALSE(first.games(0).ended());
  // The token is opaque (service/daemon/game_service.cc: the page's last id and
  // its MAC), and checked: an edited or made-up one is refused.
  EXPECT_NE(first.next_page_token(), "");
  EXPECT_NE(first.next_page_token(), "kawanakajima");
  ASSERT_EQ(list(umpire, first.next_page_token(), &second),
            grpc::StatusCode::OK);
  ASSERT_EQ(second.games_size(), 1);
  EXPECT_EQ(second.games(0).game_id(), "mikatagahara");
  EXPECT_EQ(second.next_page_token(), "");
  std::string edited = first.next_page_token();
  edited.back() = edited.back() == '0' ? '1' : '0';
  for (const std::string& forged : {std::string("kawanakajima"), edited}) {
    EXPECT_EQ(list(umpire, forged, &refused),
              grpc::StatusCode::INVALID_ARGUMENT)
        << forged;
  }
  EXPECT_EQ(list("", "", &refused), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list("someone-else-0123456789", "", &refused),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.games_size(), 0);
  server->Shutdown();
  fs::remove_all(dir);
}

// AuditService.Diff in process: a reply per log (its position in the
// request, in any order), then one with the summary of them all.
TEST(AuditServiceDiffTest, OneReplyPerLogThenTheSummary) {
  auto catalog = replay::RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok());
  service::AuditServiceImpl audits(&*catalog);
  grpc::ServerBuilder builder;
  builder.RegisterService(&audits);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto stub = v1::AuditService::NewStub(
      server->InProcessChannel(grpc::ChannelArguments()));

  v1::DiffRequest request;
  request.set_new_ruleset_textproto(EditedRulesetText(
      [](v1::Ruleset& r) { r.mutable_firing()->set_hit_score(7); }));
  v1::DiffLogInput* seki = request.add_logs();
  seki->set_name("seki");
  *seki->mutable_log() = LoadLog(GoldenLog("sekigahara.textproto"));
  request.add_logs()->set_name("empty");  // fails
  grpc::ClientContext context;
  auto reader = stub->Diff(&context, request);
  std::vector<v1::DiffResponse> replies;
  v1::DiffResponse reply;
  while (reader->Read(&reply)) replies.push_back(reply);
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(replies.size(), 3u);
  std::vector<bool> seen(2, false);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(replies[i].has_log());
    seen[replies[i].index()] = true;
    EXPECT_EQ(replies[i].log().name(), request.logs(replies[i].index()).name());
  }
  EXPECT_TRUE(seen[0] && seen[1]);
  ASSERT_TRUE(replies[2].has_summary());
  EXPECT_FALSE(replies[2].has_log());
  EXPECT_EQ(replies[2].summary().logs_total(), 2u);
  EXPECT_EQ(replies[2].summary().logs_changed(), 1u);
  EXPECT_EQ(replies[2].summary().outcomes_changed(), 5u);  // worked above
  EXPECT_EQ(replies[2].summary().failed_size(), 1);

  v1::DiceStatsRequest dice;
  *dice.add_logs() = seki->log();
  v1::DiceStatsResponse stats;
  grpc::ClientContext dice_context;
  ASSERT_TRUE(stub->DiceStats(&dice_context, dice, &stats).ok());
  EXPECT_EQ(stats.report().clans_size(), 2);
  EXPECT_EQ(stats.report().games(), 1);
  server->Shutdown();
}

// ---- Dice statistics through the proto ----

// AuditService.DiceStats returns the report as proto; printed after the
// round trip it reads exactly as printed locally.
TEST(DiceStatsProtoTest, RoundTripPrintsTheSame) {
  std::vector<v1::BattleLog> logs;
  for (const char* name : {"sekigahara.textproto", "anegawa-clean.textproto",
                           "nagashino-melee.textproto"}) {
    logs.push_back(LoadLog(GoldenLog(name)));
  }
  auto report = replay::SummarizeDice(logs);
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::DiceStatsReport proto = replay::DiceReportToProto(*report);
  EXPECT_NE(proto.note().find("not proof"), std::string::npos);
  EXPECT_EQ(proto.clans_size(), 6);
  EXPECT_EQ(proto.players_size(), static_cast<int>(report->players.size()));
  v1::DiceStatsReport wire;
  ASSERT_TRUE(wire.ParseFromString(proto.SerializeAsString()));
  auto back = replay::DiceReportFromProto(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(replay::FormatDiceText(*back), replay::FormatDiceText(*report));
  EXPECT_EQ(replay::FormatDiceJson(*back), replay::FormatDiceJson(*report));

  wire.mutable_clans(0)->clear_face_counts();
  EXPECT_EQ(replay::DiceReportFromProto(wire).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gunbai
