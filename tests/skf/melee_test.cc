// Oracle cases for Samurai Knight Fever melee (rules/skf/melee.h), worked
// by hand from page 6 and the shipped example tables
// (rules/skf/skf.textproto):
//   per base: samurai 4 (page), legendary samurai 6 (page), mounted samurai
//   5, ashigaru 2, ronin 3, warrior monks 3, peasants 1;
//   columns: 1-3 6+ 1; 1-2 5+ 1, unmodified 6 scores 1 (page); 1-1 4+ 1,
//   6+ 2; 2-1 3+ 1, 5+ 2; 3-1 2+ 1, 4+ 2, 6+ 3; rounding against the
//   roller, end columns open;
//   modifiers: charging +1, uphill +1, flank +2, disordered -1, obstacle -2.
#include "rules/skf/melee.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/skf/skf_test_util.h"

namespace gunbai::testing {
namespace {

using rules::FindingVector;
using rules::Mobility;
using rules::Origin;
using rules::Severity;
using rules::TroopType;
using rules::skf::FindOddsColumn;
using rules::skf::HitsOnColumn;
using rules::skf::MeleePairing;
using rules::skf::MeleeValuePerBase;
using rules::skf::OddsLookup;
using rules::skf::OddsRounding;
using rules::skf::Tables;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Column(const Tables& t, int own, int enemy) {
  const OddsLookup odds = FindOddsColumn(t, own, enemy);
  if (odds.outcome != OddsLookup::Outcome::kFound) return "none";
  return rules::skf::ColumnName(t.columns[odds.column]);
}

MeleePairing Pairing(TroopType a, int a_bases, int a_die, TroopType b,
                     int b_bases, int b_die) {
  MeleePairing p;
  p.sides[0] = {"a", "A (a)", a, Mobility::kFoot, a_bases, {}, a_die};
  p.sides[1] = {"b", "B (b)", b, Mobility::kFoot, b_bases, {}, b_die};
  return p;
}

TEST(SkfMeleeTest, PerBaseValuesFromThePageAndTheExample) {
  const Tables t = ExampleTables();
  // Page 6: 3 samurai bases make 12, 4 legendary samurai bases make 24.
  EXPECT_EQ(MeleeValuePerBase(t, TroopType::kSamurai, Mobility::kFoot), 4);
  EXPECT_EQ(MeleeValuePerBase(t, TroopType::kLegendarySamurai, std::nullopt),
            6);
  // The mounted entry wins over the one for any mobility; an unknown
  // mobility takes only the one for any.
  EXPECT_EQ(MeleeValuePerBase(t, TroopType::kSamurai, Mobility::kMounted), 5);
  EXPECT_EQ(MeleeValuePerBase(t, TroopType::kSamurai, std::nullopt), 4);
  EXPECT_EQ(MeleeValuePerBase(t, TroopType::kHatamoto, Mobility::kFoot), 0);
}

TEST(SkfMeleeTest, PageExampleTwelveAgainstTwentyFour) {
  const Tables t = ExampleTables();
  // 3 x 4 = 12 against 4 x 6 = 24: the samurai roll on 1-2, the legendary
  // samurai on 2-1 (page 6).
  EXPECT_EQ(Column(t, 12, 24), "1-2");
  EXPECT_EQ(Column(t, 24, 12), "2-1");
  const MeleePairing p =
      Pairing(TroopType::kSamurai, 3, 5, TroopType::kLegendarySamurai, 4, 4);
  FindingVector sink;
  EXPECT_THAT(rules::skf::CheckMeleePairing(t, p, sink),
              ElementsAre(true, true));
  EXPECT_TRUE(sink.findings.empty());
  rules::Trace trace;
  // Samurai: 5 on 1-2, 5+ scores 1 hit.
  const auto samurai = rules::skf::ResolveMeleeSide(t, p, 0, &trace);
  EXPECT_EQ(samurai.own_value, 12);
  EXPECT_EQ(samurai.enemy_value, 24);
  EXPECT_EQ(samurai.score, 5);
  EXPECT_EQ(samurai.hits, 1);
  // Legendary samurai: 4 on 2-1, 3+ scores 1 (5+ would score 2).
  const auto legend = rules::skf::ResolveMeleeSide(t, p, 1, nullptr);
  EXPECT_EQ(legend.hits, 1);
  // The trace shows the arithmetic: 3 bases x 4 = 12, 24, the column, the
  // die, the score and the hits.
  ASSERT_GE(trace.size(), 7u);
  EXPECT_EQ(trace[0].value, 3);
  EXPECT_EQ(trace[0].origin, Origin::kDeclared);
  EXPECT_EQ(trace[1].value, 4);
  EXPECT_EQ(trace[2].value, 12);
  EXPECT_EQ(trace[2].rule_id, "skf.melee.unit_value");
  EXPECT_EQ(trace[3].value, 24);
  EXPECT_THAT(trace[4].label, HasSubstr("exactly 1-2"));
  EXPECT_EQ(trace[4].rule_id, "skf.melee.odds");
  EXPECT_EQ(trace[5].value, 5);
  EXPECT_EQ(trace[5].origin, Origin::kDice);
  EXPECT_EQ(trace.back().value, 1);
  EXPECT_EQ(trace.back().rule_id, "skf.melee.hit");
}

TEST(SkfMeleeTest, UnmodifiedSixAtOneTwoAlwaysHits) {
  const Tables t = ExampleTables();
  const auto& one_two = t.columns[1];
  ASSERT_EQ(rules::skf::ColumnName(one_two), "1-2");
  // Page 6: at 1-2 modifiers of -2 or worse make a hit impossible (6 - 2 =
  // 4, below 5+), but an unmodified 6 still scores one hit.
  EXPECT_EQ(HitsOnColumn(one_two, 6, -2).score, 4);
  EXPECT_EQ(HitsOnColumn(one_two, 6, -2).hits, 1);
  EXPECT_TRUE(HitsOnColumn(one_two, 6, -2).unmodified_six);
  EXPECT_EQ(HitsOnColumn(one_two, 6, -3).hits, 1);
  // 5 - 2 = 3: no hit; an unmodified 6 only.
  EXPECT_EQ(HitsOnColumn(one_two, 5, -2).hits, 0);
  // 6 - 1 = 5 hits off the table, not by the rule.
  EXPECT_EQ(HitsOnColumn(one_two, 6, -1).hits, 1);
  EXPECT_FALSE(HitsOnColumn(one_two, 6, -1).unmodified_six);
  // 1-1 has no such rule: 6 - 3 = 3, below 4+, no hit.
  EXPECT_EQ(HitsOnColumn(t.columns[2], 6, -3).hits, 0);
}

TEST(SkfMeleeTest, UnmodifiedSixShowsInTheTrace) {
  const Tables t = ExampleTables();
  MeleePairing p =
      Pairing(TroopType::kSamurai, 3, 6, TroopType::kLegendarySamurai, 4, 1);
  const std::vector<std::string> names = {"obstacle"};
  p.sides[0].modifiers = names;
  rules::Trace trace;
  const auto res = rules::skf::ResolveMeleeSide(t, p, 0, &trace);
  // 6 -2 = 4 on 1-2: an unmodified 6, 1 hit.
  EXPECT_EQ(res.modifier, -2);
  EXPECT_EQ(res.hits, 1);
  bool six = false;
  for (const auto& term : trace) six |= term.rule_id == "skf.melee.natural_six";
  EXPECT_TRUE(six);
}

TEST(SkfMeleeTest, TableLinesAndTopScores) {
  const Tables t = ExampleTables();
  // 3-1: 2+ 1, 4+ 2, 6+ 3; 1 scores nothing, 8 still 3.
  const auto& three_one = t.columns[4];
  ASSERT_EQ(rules::skf::ColumnName(three_one), "3-1");
  EXPECT_EQ(HitsOnColumn(three_one, 1, 0).hits, 0);
  EXPECT_EQ(HitsOnColumn(three_one, 3, 0).hits, 1);
  EXPECT_EQ(HitsOnColumn(three_one, 4, 0).hits, 2);
  EXPECT_EQ(HitsOnColumn(three_one, 6, 2).hits, 3);
  // 1-3: 6+ 1; an unmodified 6 with -1 is 5: nothing (no rule there).
  EXPECT_EQ(HitsOnColumn(t.columns[0], 6, -1).hits, 0);
}

TEST(SkfMeleeTest, RoundingReadings) {
  Tables t = ExampleTables();
  // 12 to 16 is 0.75, between 1-2 and 1-1; 16 to 12 is 1.33, between 1-1
  // and 2-1.
  t.rounding = OddsRounding::kAgainstRoller;
  EXPECT_EQ(Column(t, 12, 16), "1-2");
  EXPECT_EQ(Column(t, 16, 12), "1-1");
  t.rounding = OddsRounding::kForRoller;
  EXPECT_EQ(Column(t, 12, 16), "1-1");
  EXPECT_EQ(Column(t, 16, 12), "2-1");
  // Nearest as a proportion: 0.75^2 = 0.5625 > 0.5 x 1, nearer 1-1;
  // 1.33^2 = 1.78 < 1 x 2, nearer 1-1.
  t.rounding = OddsRounding::kNearest;
  EXPECT_EQ(Column(t, 12, 16), "1-1");
  EXPECT_EQ(Column(t, 16, 12), "1-1");
  // 9 to 16 = 0.5625: 0.316 < 0.5, nearer 1-2.
  EXPECT_EQ(Column(t, 9, 16), "1-2");
  // Unknown rounding: only exact ratios have a column.
  t.rounding = OddsRounding::kUnknown;
  EXPECT_EQ(FindOddsColumn(t, 12, 16).outcome,
            OddsLookup::Outcome::kNoRounding);
  EXPECT_EQ(Column(t, 12, 24), "1-2");
  EXPECT_EQ(Column(t, 8, 8), "1-1");
}

TEST(SkfMeleeTest, NearestTieGoesAgainstTheRoller) {
  Tables t = ExampleTables();
  t.rounding = OddsRounding::kNearest;
  // With only 1-1 and 4-1, 2-1 is exactly between them as a proportion
  // (2/1 = 4/2): the tie goes against the roller, to 1-1.
  t.columns = {t.columns[2], t.columns[4]};
  t.columns[1].own = 4;
  EXPECT_EQ(Column(t, 8, 4), "1-1");
}

TEST(SkfMeleeTest, OddsBeyondTheTable) {
  Tables t = ExampleTables();
  // 4 to 40 is worse than 1-3; 40 to 4 better than 3-1. Open ends: the end
  // columns take them.
  EXPECT_EQ(Column(t, 4, 40), "1-3");
  EXPECT_TRUE(FindOddsColumn(t, 4, 40).open_end);
  EXPECT_EQ(Column(t, 40, 4), "3-1");
  t.extreme_columns_open = false;
  // Against the roller, 10-1 rounds down to 3-1; 1-10 has nothing below.
  EXPECT_EQ(Column(t, 40, 4), "3-1");
  EXPECT_EQ(FindOddsColumn(t, 4, 40).outcome,
            OddsLookup::Outcome::kBeyondTable);
  t.rounding = OddsRounding::kForRoller;
  EXPECT_EQ(Column(t, 4, 40), "1-3");
  EXPECT_EQ(FindOddsColumn(t, 40, 4).outcome,
            OddsLookup::Outcome::kBeyondTable);
}

TEST(SkfMeleeTest, MultipleMeleeBasesInContactOnly) {
  const Tables t = ExampleTables();
  // Page 6's diagram: C fights A with two bases and B with two. Samurai C
  // (2 x 4 = 8) against ashigaru A (3 in contact, 3 x 2 = 6): 8 to 6 is
  // 1.33, rounded against the roller to 1-1; A's 6 to 8 is 0.75, to 1-2.
  // C against ronin B (2 x 3 = 6): the same columns.
  EXPECT_EQ(Column(t, 2 * 4, 3 * 2), "1-1");
  EXPECT_EQ(Column(t, 3 * 2, 2 * 4), "1-2");
  MeleePairing ca =
      Pairing(TroopType::kSamurai, 2, 4, TroopType::kAshigaru, 3, 5);
  // C: 4 on 1-1, 4+ 1 hit. A: 5 on 1-2, 5+ 1 hit.
  EXPECT_EQ(rules::skf::ResolveMeleeSide(t, ca, 0, nullptr).hits, 1);
  EXPECT_EQ(rules::skf::ResolveMeleeSide(t, ca, 1, nullptr).hits, 1);
  MeleePairing cb = Pairing(TroopType::kSamurai, 2, 6, TroopType::kRonin, 2, 3);
  // C: 8 to 6, 1-1: 6 scores 2. B: 6 to 8, 1-2: 3 scores nothing.
  EXPECT_EQ(rules::skf::ResolveMeleeSide(t, cb, 0, nullptr).hits, 2);
  EXPECT_EQ(rules::skf::ResolveMeleeSide(t, cb, 1, nullptr).hits, 0);
}

TEST(SkfMeleeTest, MissingPerBaseValueIsUnverifiable) {
  const Tables t = ExampleTables();
  // Hatamoto have no value in the example tables: neither side's hits can
  // be worked out, and the finding says where to add it.
  const MeleePairing p =
      Pairing(TroopType::kHatamoto, 2, 4, TroopType::kSamurai, 2, 4);
  FindingVector sink;
  EXPECT_THAT(rules::skf::CheckMeleePairing(t, p, sink),
              ElementsAre(false, false));
  ASSERT_EQ(sink.findings.size(), 1u);
  EXPECT_EQ(sink.findings[0].severity, Severity::kUnverifiable);
  EXPECT_EQ(sink.findings[0].rule_id, "skf.melee.unit_value");
  EXPECT_THAT(sink.findings[0].message, HasSubstr("hatamoto"));
  EXPECT_THAT(sink.findings[0].message, HasSubstr("skf.melee_values"));
}

TEST(SkfMeleeTest, MissingColumnAndRoundingAreUnverifiable) {
  Tables t = ExampleTables();
  t.rounding = OddsRounding::kUnknown;
  // 3 samurai (12) against 4 ashigaru (8): 1.5 and 0.67 are no column's.
  const MeleePairing p =
      Pairing(TroopType::kSamurai, 3, 4, TroopType::kAshigaru, 4, 4);
  FindingVector sink;
  EXPECT_THAT(rules::skf::CheckMeleePairing(t, p, sink),
              ElementsAre(false, false));
  EXPECT_THAT(RuleIds(sink.findings),
              ElementsAre("skf.melee.odds", "skf.melee.odds"));
  EXPECT_THAT(sink.findings[0].message, HasSubstr("skf.odds_rounding"));
  t.columns.clear();
  sink.findings.clear();
  rules::skf::CheckMeleePairing(t, p, sink);
  ASSERT_FALSE(sink.findings.empty());
  EXPECT_THAT(sink.findings[0].message, HasSubstr("skf.odds_columns"));
}

TEST(SkfMeleeTest, UnknownModifierIsAViolation) {
  const Tables t = ExampleTables();
  MeleePairing p =
      Pairing(TroopType::kSamurai, 3, 4, TroopType::kLegendarySamurai, 4, 4);
  const std::vector<std::string> names = {"uphill", "banzai", "uphill"};
  p.sides[0].modifiers = names;
  FindingVector sink;
  // Side 0 cannot be resolved; side 1 still can.
  EXPECT_THAT(rules::skf::CheckMeleePairing(t, p, sink),
              ElementsAre(false, true));
  EXPECT_THAT(RuleIds(sink.findings),
              ElementsAre("skf.melee.modifier.unknown",
                          "skf.melee.modifier.duplicate"));
  EXPECT_EQ(sink.findings[0].severity, Severity::kViolation);
  EXPECT_THAT(sink.findings[0].message, HasSubstr("\"banzai\""));
  EXPECT_THAT(sink.findings[0].message, HasSubstr("uphill"));
}

TEST(SkfMeleeTest, ModifiersAddUp) {
  const Tables t = ExampleTables();
  MeleePairing p =
      Pairing(TroopType::kSamurai, 3, 2, TroopType::kLegendarySamurai, 4, 1);
  const std::vector<std::string> names = {"charging", "flank"};
  p.sides[0].modifiers = names;
  // 2 +1 +2 = 5 on 1-2: 1 hit.
  const auto res = rules::skf::ResolveMeleeSide(t, p, 0, nullptr);
  EXPECT_EQ(res.modifier, 3);
  EXPECT_EQ(res.score, 5);
  EXPECT_EQ(res.hits, 1);
}

}  // namespace
}  // namespace gunbai::testing
