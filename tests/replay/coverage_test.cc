// RuleCoverage (gunbai generate --coverage): counts by hand.
#include "replay/coverage.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"

namespace gunbai::replay {
namespace {

// Two findings of one rule count 2; an outcome whose trace names a factor
// twice and the hit rule once counts each id once; an empty rule id is not
// counted.
TEST(RuleCoverageTest, CountsFindingsAndEachOutcomesDistinctTraceIds) {
  gunbai::v1::AuditReport report;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        findings { rule_id: "daimyo.fire.hit" }
        findings { rule_id: "daimyo.fire.hit" }
        outcomes {
          kind: "hits"
          trace { rule_id: "daimyo.fire.factor.raw" }
          trace { rule_id: "daimyo.fire.factor.raw" }
          trace { rule_id: "daimyo.fire.hit" }
          trace { rule_id: "" }
        }
      )pb",
      &report));
  RuleCoverage coverage;
  coverage.Add(report);
  coverage.Add(report);
  EXPECT_EQ(coverage.CountOf("daimyo.fire.hit"), 6);         // (2 + 1) x 2
  EXPECT_EQ(coverage.CountOf("daimyo.fire.factor.raw"), 2);  // 1 x 2
  EXPECT_EQ(coverage.CountOf("daimyo.melee.hit"), 0);
  EXPECT_EQ(coverage.counts().size(), 2u);
  // A scored game with a winner counts the victory rule once; a scored game
  // without one (a tie) does not.
  gunbai::v1::AuditReport won;
  won.mutable_result()->set_scored(true);
  won.mutable_result()->set_winner("oda");
  coverage.Add(won);
  gunbai::v1::AuditReport tied;
  tied.mutable_result()->set_scored(true);
  coverage.Add(tied);
  EXPECT_EQ(coverage.CountOf("game.victory.winner"), 1);
}

// A measured term counts the table rule that measured it as well as its
// own rule, each once an outcome however many terms name it; a declared
// term's (empty) measured_by counts nothing.
TEST(RuleCoverageTest, MeasuredTermsCountTheTableRuleThatMeasuredThem) {
  gunbai::v1::AuditReport report;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        outcomes {
          kind: "morale_result"
          trace {
            rule_id: "daimyo.morale.modifier.friend_routing_near"
            origin: TERM_ORIGIN_MEASURED
            measured_by: "daimyo.table.near"
          }
          trace {
            rule_id: "daimyo.morale.modifier.enemy_routing_near"
            origin: TERM_ORIGIN_MEASURED
            measured_by: "daimyo.table.near"
          }
          trace {
            rule_id: "daimyo.morale.modifier.general_near"
            origin: TERM_ORIGIN_DECLARED
          }
        }
      )pb",
      &report));
  RuleCoverage coverage;
  coverage.Add(report);
  EXPECT_EQ(coverage.CountOf("daimyo.table.near"), 1);
  EXPECT_EQ(coverage.CountOf("daimyo.morale.modifier.friend_routing_near"), 1);
  EXPECT_EQ(coverage.CountOf("daimyo.morale.modifier.general_near"), 1);
  EXPECT_EQ(coverage.CountOf("daimyo.table.morale.general_near"), 0);
  EXPECT_EQ(coverage.counts().size(), 4u);
}

// The rules that decide without a finding name themselves in their
// outcome's trace, so coverage counts them: read off nagashino-melee and
// sekigahara, each firing records one stand loss (daimyo.fire.stand_loss)
// and each melee round two (daimyo.melee.stand_loss, one a side) and one
// outcome (daimyo.melee.outcome).
TEST(RuleCoverageTest, StandLossesAndMeleeOutcomesCountTheirRules) {
  auto ruleset = BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok()) << ruleset.status();
  for (const char* name : {"nagashino-melee", "sekigahara"}) {
    std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) + "/" + name +
                     ".textproto");
    std::stringstream text;
    text << in.rdbuf();
    gunbai::v1::BattleLog log;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log))
        << name;
    int firings = 0, rounds = 0;
    for (const gunbai::v1::Event& e : log.events()) {
      firings += e.has_firing();
      rounds += e.has_melee_round();
    }
    AuditOptions options;
    options.record_outcomes = true;
    auto report = AuditLog(log, *ruleset, options);
    ASSERT_TRUE(report.ok()) << report.status();
    RuleCoverage coverage;
    coverage.Add(*report);
    EXPECT_EQ(coverage.CountOf("daimyo.fire.stand_loss"), firings) << name;
    EXPECT_EQ(coverage.CountOf("daimyo.melee.stand_loss"), 2 * rounds) << name;
    EXPECT_EQ(coverage.CountOf("daimyo.melee.outcome"), rounds) << name;
    EXPECT_GT(firings + rounds, 0) << name;
  }
}

// The stand-loss trace says the arithmetic: 3 hits on a unit of 4 stands
// carrying 2 make 5, one stand at 3 hits a stand, 2 carried; 7 hits on 2
// stands take both ("all it had"), nothing carried.
TEST(RuleCoverageTest, StandLossTraceByHand) {
  rules::UnitStatus unit;
  unit.stands = 4;
  unit.carried_hits = 2;
  rules::Trace trace =
      rules::StandLossTrace(unit, 3, 3, "daimyo.fire.stand_loss");
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].value, 1);
  EXPECT_EQ(trace[0].label,
            "3 hits + 2 carried = 5: 1 stand lost (3 hits a stand), 2 carried");
  EXPECT_EQ(trace[0].rule_id, "daimyo.fire.stand_loss");
  unit.stands = 2;
  unit.carried_hits = 0;
  trace = rules::StandLossTrace(unit, 7, 3, "daimyo.melee.stand_loss");
  EXPECT_EQ(trace[0].value, 2);
  EXPECT_EQ(trace[0].label,
            "7 hits: 2 stands lost (3 hits a stand, all it had), 0 carried");
}

// The built-in Daimyo ruleset has seven reading options (proto
// ReadingOptions fields 1 to 7): two booleans, each flipped once, and five
// enums of two named values, each set to the value not in use once: seven
// variants, in field order, each a loadable ruleset of its own digest.
TEST(ReadingVariantsTest, EveryOptionTakesEachOtherValueOnce) {
  auto base = BuiltinRuleset("daimyo");
  ASSERT_TRUE(base.ok()) << base.status();
  auto variants = ReadingVariants(*base);
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_EQ(variants->size(), 7u);
  // The values in use are those of rules/daimyo/daimyo.textproto.
  EXPECT_EQ((*variants)[0].option, "first_volley_spent_when_disordered");
  EXPECT_EQ((*variants)[0].in_use, "true");
  EXPECT_EQ((*variants)[0].alternative, "false");
  EXPECT_FALSE((*variants)[0]
                   .ruleset.data.options()
                   .first_volley_spent_when_disordered());
  EXPECT_EQ((*variants)[2].option, "leader_roll_stands");
  EXPECT_EQ((*variants)[2].in_use, "LEADER_ROLL_STANDS_AFTER_THE_LOSS");
  EXPECT_EQ((*variants)[2].alternative, "LEADER_ROLL_STANDS_AT_THE_ROLL");
  EXPECT_EQ((*variants)[6].option, "missile_ashigaru_spear");
  EXPECT_EQ((*variants)[6].alternative, "MISSILE_ASHIGARU_SPEAR_LONG_SPEAR");
  std::set<std::string> digests = {base->digest};
  for (const ReadingVariant& v : *variants) {
    // Only the option differs: every table is the built-in one.
    gunbai::v1::Ruleset data = v.ruleset.data;
    data.clear_options();
    gunbai::v1::Ruleset builtin = base->data;
    builtin.clear_options();
    EXPECT_EQ(data.SerializeAsString(), builtin.SerializeAsString())
        << v.option;
    digests.insert(v.ruleset.digest);
  }
  EXPECT_EQ(digests.size(), 8u);  // The base and seven distinct variants.
}

// A diff counts for its variant only when an outcome, a finding or the end
// of the game changed: a final state that differs alone (a flag no later
// event read) does not count.
TEST(ReadingVariantsTest, CountsGamesWhoseOutcomesChange) {
  ReadingVariant v;
  gunbai::v1::LogDiff state_only;
  state_only.set_status(gunbai::v1::LOG_DIFF_STATUS_CHANGED);
  state_only.set_final_state_changed(true);
  CountReadingDiff(state_only, v);
  gunbai::v1::LogDiff same;
  same.set_status(gunbai::v1::LOG_DIFF_STATUS_SAME);
  CountReadingDiff(same, v);
  gunbai::v1::LogDiff three_events;
  three_events.set_status(gunbai::v1::LOG_DIFF_STATUS_CHANGED);
  three_events.set_events_changed(3);
  CountReadingDiff(three_events, v);
  gunbai::v1::LogDiff result_only;
  result_only.set_status(gunbai::v1::LOG_DIFF_STATUS_CHANGED);
  result_only.set_result_changed(true);
  CountReadingDiff(result_only, v);
  EXPECT_EQ(v.games_changed, 2);   // three_events and result_only
  EXPECT_EQ(v.events_changed, 3);  // 3 + 0
}

}  // namespace
}  // namespace gunbai::replay
