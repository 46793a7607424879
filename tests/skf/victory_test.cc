// Samurai Knight Fever's victory points (page 6; rules/skf/RULES.md,
// "Victory"): the ruleset's points are scored, a log header that gives
// others is a finding, and a log with no total agreed is judged by the
// ruleset's default. Each log is audited through replay::AuditLog under the
// built-in ruleset; every expectation is worked by hand from page 6 in its
// comment: a routed or eliminated ashigaru unit yields 1 point, samurai 2,
// legendary samurai 3; ashigaru sacking an enemy camp 2; points are counted
// at the end of a turn and the first side at or above the total wins.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "rules/skf/engine.h"
#include "tests/skf/skf_test_util.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Oda: a legendary samurai, a samurai and an ashigaru unit. Takeda: four
// legendary samurai, a samurai and an ashigaru unit (4 x 3 + 2 + 1 = 15
// points to Oda if all fall). No scenario: the tests add one.
constexpr char kArmies[] = R"pb(
  header {
    game_id: "skf-victory-test"
    ruleset { name: "skf" version: "page6-example-1" }
    clans { id: "oda" }
    clans { id: "takeda" }
  }
  order_of_battle {
    units {
      id: "oda-leg"
      clan: "oda"
      troop_type: TROOP_TYPE_LEGENDARY_SAMURAI
      stands: 4
    }
    units { id: "oda-sam" clan: "oda" troop_type: TROOP_TYPE_SAMURAI stands: 4 }
    units {
      id: "oda-ash"
      clan: "oda"
      troop_type: TROOP_TYPE_ASHIGARU
      stands: 4
    }
    units {
      id: "tak-leg1"
      clan: "takeda"
      troop_type: TROOP_TYPE_LEGENDARY_SAMURAI
      stands: 4
    }
    units {
      id: "tak-leg2"
      clan: "takeda"
      troop_type: TROOP_TYPE_LEGENDARY_SAMURAI
      stands: 4
    }
    units {
      id: "tak-leg3"
      clan: "takeda"
      troop_type: TROOP_TYPE_LEGENDARY_SAMURAI
      stands: 4
    }
    units {
      id: "tak-leg4"
      clan: "takeda"
      troop_type: TROOP_TYPE_LEGENDARY_SAMURAI
      stands: 4
    }
    units {
      id: "tak-sam"
      clan: "takeda"
      troop_type: TROOP_TYPE_SAMURAI
      stands: 4
    }
    units {
      id: "tak-ash"
      clan: "takeda"
      troop_type: TROOP_TYPE_ASHIGARU
      stands: 4
    }
  }
)pb";

// Page 6's points as a header gives them, and a total of 5.
constexpr char kPageScenario[] = R"pb(
  victory {
    points_to_win: 5
    unit_points { troop_type: TROOP_TYPE_ASHIGARU points: 1 }
    unit_points { troop_type: TROOP_TYPE_SAMURAI points: 2 }
    unit_points { troop_type: TROOP_TYPE_LEGENDARY_SAMURAI points: 3 }
    camp_sack_points: 2
    camp_sack_troop_types: TROOP_TYPE_ASHIGARU
  }
)pb";

// Turn 1 (seqs 1-4): Takeda's ashigaru and Oda's legendary samurai are
// eliminated; turn 2 (seqs 5-7): Oda's samurai; game_end at seq 8.
std::vector<std::string> TwoTurns() {
  return {"tak-ash", "oda-leg", "", "oda-sam"};
}

// The armies with `scenario` (text of a Scenario; empty: none) and, for
// each name in `removed`, a removal, "" ending a turn and starting the
// next; then the end of the last turn and game_end claiming `winner`.
v1::BattleLog Log(const std::string& scenario,
                  const std::vector<std::string>& removed,
                  const std::string& winner) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kArmies, &log));
  if (!scenario.empty()) {
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        scenario, log.mutable_header()->mutable_scenario()));
  }
  std::uint64_t seq = 0;
  uint32_t turn = 1;
  auto add = [&]() {
    v1::Event* e = log.add_events();
    e->set_seq(++seq);
    e->set_turn(turn);
    return e;
  };
  add()->mutable_turn_start()->set_initiative_clan("oda");
  for (const std::string& unit : removed) {
    if (!unit.empty()) {
      add()->mutable_removal()->set_unit(unit);
      continue;
    }
    add()->mutable_turn_end();
    ++turn;
    add()->mutable_turn_start()->set_initiative_clan("oda");
  }
  add()->mutable_turn_end();
  add()->mutable_game_end()->set_claimed_winner(winner);
  return log;
}

v1::AuditReport Audit(const v1::BattleLog& log,
                      const replay::LoadedRuleset& ruleset) {
  auto report = replay::AuditLog(log, ruleset, replay::AuditOptions());
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : v1::AuditReport();
}

v1::AuditReport Audit(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset("skf");
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  return ruleset.ok() ? Audit(log, *ruleset) : v1::AuditReport();
}

// "seq severity rule_id subject" for each finding.
std::vector<std::string> Keys(const v1::AuditReport& report) {
  std::vector<std::string> keys;
  for (const v1::Finding& f : report.findings()) {
    keys.push_back(absl::StrCat(f.seq(), " ", v1::Severity_Name(f.severity()),
                                " ", f.rule_id(), " ", f.subject()));
  }
  return keys;
}

TEST(SkfVictoryTest, ShippedRulesetHasPageSixPoints) {
  // Page 6: ashigaru 1, samurai 2, legendary samurai 3, camp 2 for
  // ashigaru; the total is the players', the author's 15 the default.
  const rules::skf::Tables tables = ExampleTables();
  ASSERT_TRUE(tables.victory.has_value());
  const rules::VictorySettings& v = *tables.victory;
  EXPECT_EQ(v.unit_points[static_cast<int>(rules::TroopType::kAshigaru)], 1);
  EXPECT_EQ(v.unit_points[static_cast<int>(rules::TroopType::kSamurai)], 2);
  EXPECT_EQ(
      v.unit_points[static_cast<int>(rules::TroopType::kLegendarySamurai)], 3);
  EXPECT_EQ(v.unit_points[static_cast<int>(rules::TroopType::kRonin)], 0);
  EXPECT_EQ(v.camp_sack_points, 2);
  EXPECT_TRUE(v.camp_sack_types[static_cast<int>(rules::TroopType::kAshigaru)]);
  EXPECT_FALSE(v.camp_sack_types[static_cast<int>(rules::TroopType::kSamurai)]);
  EXPECT_EQ(v.points_to_win, 15);
}

TEST(SkfVictoryTest, AgreeingHeaderHasNoFinding) {
  // Page 6's points, 5 to win. Turn 1: Takeda's ashigaru falls (Oda 1) and
  // Oda's legendary samurai (Takeda 3): nobody at 5. Turn 2: Oda's samurai
  // (Takeda 3 + 2 = 5): Takeda wins at the end of turn 2, as claimed.
  const v1::AuditReport report =
      Audit(Log(kPageScenario, TwoTurns(), "takeda"));
  EXPECT_THAT(Keys(report), IsEmpty());
  EXPECT_EQ(report.result().winner(), "takeda");
  EXPECT_EQ(report.result().decided_turn(), 2u);
  ASSERT_EQ(report.result().clans_size(), 2);
  EXPECT_EQ(report.result().clans(0).victory_points(), 1u);
  EXPECT_EQ(report.result().clans(1).victory_points(), 5u);
}

TEST(SkfVictoryTest, AshigaruForFivePointsIsAFindingAndScoresOne) {
  // The header gives ashigaru 5. Read so, Oda would have 5 at the end of
  // turn 1 (Takeda 3) and win then, as the log claims. Page 6 gives 1: Oda
  // 1, Takeda 3 after turn 1, and Takeda 5 after turn 2: Takeda wins at
  // turn 2 and the claim is disputed. The finding names the troop type, the
  // header's 5 and the ruleset's 1.
  const std::string scenario = absl::StrReplaceAll(
      kPageScenario,
      {{"TROOP_TYPE_ASHIGARU points: 1", "TROOP_TYPE_ASHIGARU points: 5"}});
  const v1::AuditReport report = Audit(Log(scenario, TwoTurns(), "oda"));
  EXPECT_THAT(Keys(report),
              ElementsAre("0 SEVERITY_VIOLATION skf.victory.points_mismatch "
                          "ashigaru",
                          "8 SEVERITY_DISPUTE game.victory.winner oda"));
  const v1::Finding& mismatch = report.findings(0);
  EXPECT_EQ(mismatch.claimed(), "ashigaru 5 points");
  EXPECT_EQ(mismatch.computed(), "ashigaru 1 point");
  EXPECT_THAT(mismatch.message(),
              HasSubstr("header.scenario.victory.unit_points[0]"));
  const v1::Finding& winner = report.findings(1);
  EXPECT_EQ(winner.claimed(), "oda wins");
  EXPECT_EQ(winner.computed(), "takeda wins");
  EXPECT_THAT(winner.message(), HasSubstr("reached 5 points first, at the "
                                          "end of turn 2"));
  EXPECT_EQ(report.result().winner(), "takeda");
  EXPECT_EQ(report.result().clans(0).victory_points(), 1u);
  EXPECT_EQ(report.result().clans(1).victory_points(), 5u);
}

TEST(SkfVictoryTest, CampPointsAndSackersThatDisagreeAreFindings) {
  // The header gives 3 for a camp, sacked by samurai; page 6: 2, by
  // ashigaru. Three findings: the camp's points, samurai (the header lets
  // them sack) and ashigaru (it does not), in troop type order. The unit
  // points agree; the winner is as in AgreeingHeaderHasNoFinding.
  const std::string scenario = absl::StrReplaceAll(
      kPageScenario, {{"camp_sack_points: 2", "camp_sack_points: 3"},
                      {"camp_sack_troop_types: TROOP_TYPE_ASHIGARU",
                       "camp_sack_troop_types: TROOP_TYPE_SAMURAI"}});
  const v1::AuditReport report = Audit(Log(scenario, TwoTurns(), "takeda"));
  EXPECT_THAT(
      Keys(report),
      ElementsAre("0 SEVERITY_VIOLATION skf.victory.points_mismatch camp",
                  "0 SEVERITY_VIOLATION skf.victory.points_mismatch samurai",
                  "0 SEVERITY_VIOLATION skf.victory.points_mismatch ashigaru"));
  EXPECT_EQ(report.findings(0).claimed(), "camp 3 points");
  EXPECT_EQ(report.findings(0).computed(), "camp 2 points");
  EXPECT_EQ(report.result().winner(), "takeda");
}

TEST(SkfVictoryTest, TotalOnlyHeaderTakesThePagesPointsWithoutFinding) {
  // A header that agrees only the total (5) says nothing about the points:
  // page 6's are scored with no finding, and Takeda wins at turn 2 as in
  // AgreeingHeaderHasNoFinding.
  const v1::AuditReport report =
      Audit(Log("victory { points_to_win: 5 }", TwoTurns(), "takeda"));
  EXPECT_THAT(Keys(report), IsEmpty());
  EXPECT_EQ(report.result().winner(), "takeda");
  EXPECT_EQ(report.result().decided_turn(), 2u);
}

TEST(SkfVictoryTest, NoScenarioIsJudgedByTheDefaultTotal) {
  // No scenario: the ruleset's default total, the author's 15. Every Takeda
  // unit falls in turn 1: 4 x 3 + 2 + 1 = 15 for Oda, who wins at turn 1.
  const std::vector<std::string> all = {"tak-leg1", "tak-leg2", "tak-leg3",
                                        "tak-leg4", "tak-sam",  "tak-ash"};
  const v1::AuditReport right = Audit(Log("", all, "oda"));
  EXPECT_THAT(Keys(right), IsEmpty());
  EXPECT_TRUE(right.result().scored());
  EXPECT_EQ(right.result().winner(), "oda");
  EXPECT_EQ(right.result().decided_turn(), 1u);
  EXPECT_EQ(right.result().clans(0).victory_points(), 15u);

  const v1::AuditReport wrong = Audit(Log("", all, "takeda"));
  EXPECT_THAT(Keys(wrong),
              ElementsAre("9 SEVERITY_DISPUTE game.victory.winner takeda"));
  EXPECT_EQ(wrong.findings(0).computed(), "oda wins");

  // Without the ashigaru, Oda has 14: short of 15, nobody has won.
  const std::vector<std::string> but_one(all.begin(), all.end() - 1);
  const v1::AuditReport short_of_it = Audit(Log("", but_one, "oda"));
  EXPECT_THAT(Keys(short_of_it),
              ElementsAre("8 SEVERITY_DISPUTE game.victory.winner oda"));
  EXPECT_EQ(short_of_it.findings(0).computed(), "no winner");
  EXPECT_THAT(short_of_it.findings(0).message(),
              HasSubstr("oda 14, takeda 0, and 15 wins"));
}

TEST(SkfVictoryTest, RulesetWithoutVictoryScoresTheHeaderUnchecked) {
  // A ruleset file with no skf.victory (one copied before it existed): the
  // header's ashigaru 5 is scored, unchecked. Oda 5 after turn 1 (Takeda
  // 3): Oda wins at turn 1, as claimed.
  auto ruleset = replay::BuiltinRuleset("skf");
  ASSERT_TRUE(ruleset.ok());
  ruleset->data.mutable_skf()->clear_victory();
  const std::string scenario = absl::StrReplaceAll(
      kPageScenario,
      {{"TROOP_TYPE_ASHIGARU points: 1", "TROOP_TYPE_ASHIGARU points: 5"}});
  const v1::AuditReport report =
      Audit(Log(scenario, TwoTurns(), "oda"), *ruleset);
  EXPECT_THAT(Keys(report),
              ElementsAre("0 SEVERITY_UNVERIFIABLE skf.victory.unchecked "));
  EXPECT_EQ(report.result().winner(), "oda");
  EXPECT_EQ(report.result().decided_turn(), 1u);

  // With neither a ruleset default nor a total in the header, the winner
  // claim is not judged.
  const v1::AuditReport none = Audit(Log("", TwoTurns(), "oda"), *ruleset);
  EXPECT_THAT(Keys(none), IsEmpty());
  EXPECT_FALSE(none.result().scored());
}

TEST(SkfVictoryTest, RejectsBadVictoryData) {
  struct Case {
    std::string text;
    std::string field;
  } cases[] = {
      {"unit_points { points: 1 }",
       "skf.victory.unit_points[0]: the troop type is not set"},
      {"unit_points { troop_type: TROOP_TYPE_ASHIGARU points: 1 } "
       "unit_points { troop_type: TROOP_TYPE_ASHIGARU points: 5 }",
       "skf.victory.unit_points[1]: the troop type ashigaru is given twice"},
      {"unit_points { troop_type: TROOP_TYPE_SAMURAI points: 1001 }",
       "skf.victory.unit_points[0]: points is 1001; it is 0 to 1000"},
      {"camp_sack_points: 1001 camp_sack_troop_types: TROOP_TYPE_ASHIGARU",
       "skf.victory.camp_sack_points: 1001 points"},
      {"camp_sack_points: 2 camp_sack_troop_types: TROOP_TYPE_ASHIGARU "
       "camp_sack_troop_types: TROOP_TYPE_ASHIGARU",
       "skf.victory.camp_sack_troop_types[1]"},
      {"camp_sack_points: 2",
       "skf.victory.camp_sack_points: "
       "camp_sack_points and camp_sack_troop_types"},
      {"camp_sack_troop_types: TROOP_TYPE_ASHIGARU",
       "skf.victory.camp_sack_points"},
      {"default_points_to_win: 1000001", "skf.victory.default_points_to_win"},
  };
  for (const Case& c : cases) {
    v1::SkfRules rules;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        c.text, rules.mutable_victory()))
        << c.text;
    auto tables = rules::skf::TablesFromProto(rules, "f.textproto");
    ASSERT_FALSE(tables.ok()) << c.text;
    EXPECT_EQ(tables.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(tables.status().message()),
                HasSubstr(absl::StrCat("f.textproto: ", c.field)))
        << c.text;
  }
}

TEST(SkfVictoryTest, RulesetFileWithBadVictoryIsRefused) {
  // The shipped file with ashigaru listed twice for a camp, loaded as an
  // umpire's file: refused, naming the file and the field.
  const std::string text =
      absl::StrReplaceAll(std::string(rules::SkfRulesetText()),
                          {{"camp_sack_troop_types: TROOP_TYPE_ASHIGARU",
                            "camp_sack_troop_types: TROOP_TYPE_ASHIGARU "
                            "camp_sack_troop_types: TROOP_TYPE_ASHIGARU"}});
  auto loaded = replay::LoadRuleset(text, "house.textproto");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(
      std::string(loaded.status().message()),
      HasSubstr("house.textproto: skf.victory.camp_sack_troop_types[1]"));
}

TEST(SkfVictoryTest, UnsetTroopTypeInTheHeaderIsRefused) {
  // A header's unit_points entry without a troop type cannot be compared:
  // the log is refused, naming the field.
  const v1::BattleLog log =
      Log("victory { points_to_win: 5 unit_points { points: 1 } }", TwoTurns(),
          "takeda");
  auto ruleset = replay::BuiltinRuleset("skf");
  ASSERT_TRUE(ruleset.ok());
  auto report = replay::AuditLog(log, *ruleset, replay::AuditOptions());
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("header.scenario.victory.unit_points[0]"));
}

}  // namespace
}  // namespace gunbai::testing
