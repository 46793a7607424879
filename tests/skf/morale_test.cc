// Oracle cases for Samurai Knight Fever after a melee (rules/skf/morale.h)
// and for the checks of the umpire's tables (rules/skf/engine.h,
// TablesFromProto). The morale check is not on page 6; these cases use a
// test check of 2d6 against Seasoned 7+, +1 a leader touching, -1 a base
// lost, -1 a disorder point; fail by 1 or 2 retreat, by 3 or more rout.
#include "rules/skf/morale.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "rules/skf/engine.h"
#include "tests/skf/skf_test_util.h"

namespace gunbai::testing {
namespace {

using rules::FindingVector;
using rules::MoraleResult;
using rules::Quality;
using rules::skf::MoraleInput;
using rules::skf::MoraleTest;
using ::testing::HasSubstr;

MoraleTest TestCheck() {
  MoraleTest t;
  t.dice = 2;
  t.pass_scores[static_cast<int>(Quality::kSeasoned)] = 7;
  t.failures = {{1, MoraleResult::kRetreat}, {3, MoraleResult::kRout}};
  t.per_leader_touching = 1;
  t.per_base_lost = -1;
  t.per_disorder_point = -1;
  return t;
}

TEST(SkfLeaderHitTest, DiesOnAOneNotOnATwo) {
  // Page 6: each leader touching a unit that fought rolls 1d6, dead on a 1.
  const int killed_at_or_below = ExampleTables().leader_killed_at_or_below;
  EXPECT_EQ(killed_at_or_below, 1);
  rules::Trace trace;
  EXPECT_TRUE(rules::skf::LeaderHitKills(killed_at_or_below, 1, &trace));
  EXPECT_FALSE(rules::skf::LeaderHitKills(killed_at_or_below, 2, nullptr));
  EXPECT_FALSE(rules::skf::LeaderHitKills(killed_at_or_below, 6, nullptr));
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].value, 1);
  EXPECT_EQ(trace[0].rule_id, "skf.leader_hit.roll");
}

TEST(SkfMoraleTest, ChecksWithModifiers) {
  const MoraleTest check = TestCheck();
  const std::uint32_t dice[] = {3, 2};
  MoraleInput in;
  in.id = "u";
  in.label = "U (u)";
  in.quality = Quality::kSeasoned;
  in.dice = dice;
  in.leaders_touching = 1;
  in.bases_lost = 1;
  in.disorder = 1;
  FindingVector sink;
  ASSERT_TRUE(rules::skf::CheckMoraleTest(check, in, sink));
  rules::Trace trace;
  // 3 + 2 + 1 - 1 - 1 = 4 against 7+: fails by 3, rout.
  const auto out = rules::skf::ResolveMoraleTest(check, in, &trace);
  EXPECT_EQ(out.total, 4);
  EXPECT_EQ(out.fail_by, 3);
  EXPECT_EQ(out.result, MoraleResult::kRout);
  EXPECT_EQ(trace.back().value, 4);
  // 6 + 2 = 8, -1 for the disorder only: 7 passes.
  const std::uint32_t high[] = {6, 2};
  in.dice = high;
  in.bases_lost = 0;
  in.leaders_touching = 0;
  EXPECT_EQ(rules::skf::ResolveMoraleTest(check, in, nullptr).result,
            MoraleResult::kNoEffect);
  // 4 + 2 - 1 = 5: fails by 2, retreat.
  const std::uint32_t mid[] = {4, 2};
  in.dice = mid;
  EXPECT_EQ(rules::skf::ResolveMoraleTest(check, in, nullptr).result,
            MoraleResult::kRetreat);
}

TEST(SkfMoraleTest, WrongDiceAndMissingPassScore) {
  const MoraleTest check = TestCheck();
  const std::uint32_t one[] = {6};
  MoraleInput in;
  in.id = "u";
  in.label = "U (u)";
  in.quality = Quality::kRaw;
  in.dice = one;
  FindingVector sink;
  EXPECT_FALSE(rules::skf::CheckMoraleTest(check, in, sink));
  EXPECT_THAT(
      RuleIds(sink.findings),
      ::testing::ElementsAre("skf.morale.dice_count", "skf.morale.pass_score"));
  EXPECT_EQ(sink.findings[1].severity, rules::Severity::kUnverifiable);
  EXPECT_THAT(sink.findings[1].message, HasSubstr("skf.morale.pass_scores"));
}

gunbai::v1::SkfRules Parse(const std::string& text) {
  gunbai::v1::SkfRules rules;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &rules));
  return rules;
}

TEST(SkfTablesTest, ShippedExampleSaysItIsAnExample) {
  const gunbai::v1::Ruleset data = ExampleRuleset();
  EXPECT_EQ(data.name(), "skf");
  EXPECT_THAT(data.source(), HasSubstr("EXAMPLE"));
  EXPECT_THAT(std::string(rules::SkfRulesetText()),
              HasSubstr("THIS FILE IS AN EXAMPLE, NOT THE PUBLISHED RULES"));
  EXPECT_TRUE(rules::skf::ValidateSkfRuleset(data, "skf.textproto").ok());
  // No morale check is shipped: the page has none.
  EXPECT_FALSE(ExampleTables().morale.has_value());
}

TEST(SkfTablesTest, RejectsBadData) {
  struct Case {
    std::string text;
    std::string field;
  } cases[] = {
      {"melee_values { troop_type: TROOP_TYPE_SAMURAI per_base: 0 }",
       "skf.melee_values[0]"},
      {"melee_values { per_base: 3 }", "troop_type is not set"},
      {"melee_values { troop_type: TROOP_TYPE_SAMURAI per_base: 4 } "
       "melee_values { troop_type: TROOP_TYPE_SAMURAI per_base: 5 }",
       "given twice"},
      {"odds_columns { own: 1 enemy: 1 } odds_columns { own: 2 enemy: 2 }",
       "skf.odds_columns[1]"},
      {"odds_columns { own: 0 enemy: 1 }", "skf.odds_columns[0]"},
      {"odds_columns { own: 1 enemy: 1 hits { min_score: 4 hits: 1 } "
       "hits { min_score: 4 hits: 2 } }",
       "two hit lines"},
      {"modifiers { name: \"x\" value: 1 } modifiers { name: \"x\" }",
       "used twice"},
      {"leader_hits { killed_at_or_below: 6 }", "leader_hits"},
      {"morale { dice: 2 failures { fail_by: 2 result: MORALE_RESULT_ROUT } }",
       "fail_by: 1"},
      {"morale { dice: 0 }", "morale.dice"},
  };
  for (const Case& c : cases) {
    auto tables = rules::skf::TablesFromProto(Parse(c.text), "f.textproto");
    ASSERT_FALSE(tables.ok()) << c.text;
    EXPECT_EQ(tables.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(tables.status().message()), HasSubstr(c.field))
        << c.text;
  }
}

TEST(SkfTablesTest, SortsColumnsLeastFavourableFirst) {
  auto tables = rules::skf::TablesFromProto(
      Parse("odds_columns { own: 2 enemy: 1 } odds_columns { own: 1 enemy: 2 "
            "} odds_columns { own: 1 enemy: 1 }"),
      "f");
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->columns.size(), 3u);
  EXPECT_EQ(rules::skf::ColumnName(tables->columns[0]), "1-2");
  EXPECT_EQ(rules::skf::ColumnName(tables->columns[2]), "2-1");
  EXPECT_EQ(tables->rounding, rules::skf::OddsRounding::kUnknown);
}

}  // namespace
}  // namespace gunbai::testing
