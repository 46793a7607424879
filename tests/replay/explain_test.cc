// replay::ExplainRule, the lookup behind `gunbai explain`, on the shipped
// rules docs: the expectations are read off rules/daimyo/RULES.md,
// rules/skf/RULES.md and rules/SCENARIO.md.
#include "replay/explain.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gunbai::replay {
namespace {

TEST(ExplainRuleTest, AnIdGivesItsRowWithItsDocsPassages) {
  const RuleLookup lookup = ExplainRule("daimyo.fire.hit", false);
  EXPECT_TRUE(lookup.exact);
  EXPECT_EQ(lookup.answer.query(), "daimyo.fire.hit");
  // One table row states it, in Daimyo's doc, as a dispute; the doc's
  // firing section names it again in its text ("Resolution (...)").
  ASSERT_EQ(lookup.answer.rules_size(), 1);
  EXPECT_EQ(lookup.answer.rules(0).ruleset(), "daimyo");
  EXPECT_EQ(lookup.answer.rules(0).severity(), "dispute");
  EXPECT_EQ(lookup.answer.rules(0).path(), "rules/daimyo/RULES.md");
  EXPECT_GE(lookup.answer.rules(0).mentions_size(), 1);
  for (const auto& m : lookup.answer.rules(0).mentions()) {
    EXPECT_FALSE(absl::StartsWith(m.text(), "|"))
        << "a table row: " << m.text();
  }
}

TEST(ExplainRuleTest, APrefixListsEveryRuleUnderIt) {
  const RuleLookup lookup = ExplainRule("skf.morale.", false);
  EXPECT_FALSE(lookup.exact);
  // SKF's doc states skf.morale.missing, .once, .unchecked, .total,
  // .result, .dice_count and .pass_score, among others.
  ASSERT_GE(lookup.answer.rules_size(), 7);
  for (const auto& rule : lookup.answer.rules()) {
    EXPECT_TRUE(absl::StartsWith(rule.id(), "skf.morale.")) << rule.id();
    EXPECT_EQ(rule.ruleset(), "skf");
  }
}

TEST(ExplainRuleTest, NothingMatchesAnUnknownId) {
  const RuleLookup lookup = ExplainRule("no.such.rule", false);
  EXPECT_FALSE(lookup.exact);
  EXPECT_EQ(lookup.answer.rules_size(), 0);
  EXPECT_EQ(lookup.answer.mentions_size(), 0);
}

TEST(ExplainRuleTest, TheListHasTheScenarioRulesFirst) {
  const RuleLookup lookup = ExplainRule("", true);
  EXPECT_FALSE(lookup.exact);
  ASSERT_GT(lookup.answer.rules_size(), 100);
  // The scenario doc comes first (its rules belong to no one ruleset).
  EXPECT_EQ(lookup.answer.rules(0).ruleset(), "");
  EXPECT_EQ(lookup.answer.rules(0).path(), "rules/SCENARIO.md");
}

}  // namespace
}  // namespace gunbai::replay
