#include "replay/dice_stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generate/daimyo/daimyo_game.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "service/cli/cli.h"
#include "tests/replay/test_logs.h"

namespace gunbai::replay {
namespace {

using ::gunbai::testing::LogWithEvents;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// BaseLog with players named: red is Aki, blue is Ben.
v1::BattleLog NamedLog(const std::string& events_text,
                       const std::string& game_id = "test") {
  v1::BattleLog log = LogWithEvents(events_text);
  log.mutable_header()->set_game_id(game_id);
  log.mutable_header()->mutable_clans(0)->set_player("Aki");
  log.mutable_header()->mutable_clans(1)->set_player("Ben");
  return log;
}

// Events of a game where each die is known (see DiceAttributionTest).
constexpr char kKnownDice[] = R"pb(
  events {
    seq: 1
    turn: 1
    clan: "red"
    turn_start { initiative_dice: [ 5 ] }
  }
  events {
    seq: 2
    turn: 1
    clan: "red"
    firing {
      unit: "red-teppo"
      target: "blue-yumi"
      dice: [ 1, 2, 3, 4 ]
    }
  }
  events {
    seq: 3
    turn: 1
    clan: "blue"
    melee_round {
      sides {
        unit: "blue-yumi"
        dice: [ 6, 6 ]
      }
      sides {
        unit: "red-samurai"
        dice: [ 2, 5 ]
      }
    }
  }
  events {
    seq: 4
    turn: 1
    clan: "blue"
    challenge {
      challenger: "blue-daimyo"
      challenged: "red-gen"
      accepted: true
      dice: [ 3, 3, 1, 4 ]
    }
  }
  events {
    seq: 5
    turn: 1
    clan: "red"
    morale_test {
      unit: "blue-yumi"
      dice: [ 2, 9 ]
    }
  }
  events {
    seq: 6
    turn: 1
    clan: "blue"
    leader_loss { leader: "red-gen" die: 6 }
  }
  events {
    seq: 7
    turn: 1
    clan: "red"
    leader_loss { leader: "blue-daimyo" }
  }
  events {
    seq: 8
    turn: 1
    clan: "blue"
    result_move {
      unit: "blue-yumi"
      dice: [ 4, 4 ]
    }
  }
  events {
    seq: 9
    turn: 2
    turn_start { initiative_dice: [ 1, 2 ] }
  }
)pb";

std::string Describe(const std::vector<AttributedDice>& dice) {
  std::vector<std::string> parts;
  for (const AttributedDice& d : dice) {
    parts.push_back(absl::StrCat(d.seq, ":", d.clan, ":",
                                 absl::StrJoin(d.dice, ","),
                                 d.in_pairs ? ":pairs" : ""));
  }
  return absl::StrJoin(parts, " ");
}

TEST(DiceAttributionTest, EveryDieGoesToTheClanThatRolledIt) {
  auto dice = AttributeDice(NamedLog(kKnownDice));
  ASSERT_TRUE(dice.ok()) << dice.status();
  // Melee: each side's unit's clan, whoever acts. Challenge: the
  // challenger's (blue) die, then the challenged's (red). Morale: the
  // unit's clan, not Event.clan. A leader-loss die of 0 and initiative dice
  // without Event.clan are left out.
  EXPECT_EQ(Describe(*dice),
            "1:red:5 2:red:1,2,3,4:pairs 3:blue:6,6:pairs 3:red:2,5:pairs "
            "4:blue:3 4:red:3 4:blue:1 4:red:4 5:blue:2,9:pairs 6:red:6 "
            "8:blue:4,4");
}

// The pairs come from the log's ruleset (RulesetPlugin::dice_in_pairs), not
// from the event kinds. The same events as above, read by each ruleset:
TEST(DiceAttributionTest, TheRulesetSaysWhichRollsArePairs) {
  v1::BattleLog daimyo = NamedLog(kKnownDice);
  daimyo.mutable_header()->mutable_ruleset()->set_name("daimyo");
  auto named = AttributeDice(daimyo);
  ASSERT_TRUE(named.ok()) << named.status();
  // Daimyo named, or no name (the first plug-in, Daimyo): firing, each
  // melee side and the morale test are 2d6 (rules/daimyo/RULES.md).
  EXPECT_EQ(Describe(*named),
            "1:red:5 2:red:1,2,3,4:pairs 3:blue:6,6:pairs 3:red:2,5:pairs "
            "4:blue:3 4:red:3 4:blue:1 4:red:4 5:blue:2,9:pairs 6:red:6 "
            "8:blue:4,4");

  v1::BattleLog skf = NamedLog(kKnownDice);
  skf.mutable_header()->mutable_ruleset()->set_name("skf");
  auto read = AttributeDice(skf);
  ASSERT_TRUE(read.ok()) << read.status();
  // Samurai Knight Fever (rules/skf/RULES.md): a melee side rolls one die
  // (these sides' two dice are one too many, skf.melee.dice_count, and are
  // read die by die, not as a 2d6 sum); a morale check of two dice is 2d6.
  // Its page has no firing: the four firing dice are single.
  EXPECT_EQ(Describe(*read),
            "1:red:5 2:red:1,2,3,4 3:blue:6,6 3:red:2,5 "
            "4:blue:3 4:red:3 4:blue:1 4:red:4 5:blue:2,9:pairs 6:red:6 "
            "8:blue:4,4");
  skf.mutable_events(4)->mutable_morale_test()->add_dice(3);
  read = AttributeDice(skf);
  ASSERT_TRUE(read.ok()) << read.status();
  // A morale check of three dice is not 2d6.
  EXPECT_THAT(Describe(*read), HasSubstr(" 5:blue:2,9,3 "));

  v1::BattleLog unknown = NamedLog(kKnownDice);
  unknown.mutable_header()->mutable_ruleset()->set_name("no-such-rules");
  read = AttributeDice(unknown);
  ASSERT_TRUE(read.ok()) << read.status();
  // A ruleset gunbai does not know: every die alone.
  EXPECT_EQ(Describe(*read),
            "1:red:5 2:red:1,2,3,4 3:blue:6,6 3:red:2,5 "
            "4:blue:3 4:red:3 4:blue:1 4:red:4 5:blue:2,9 6:red:6 "
            "8:blue:4,4");
}

TEST(DiceSummaryTest, AnSkfMeleeSideOfTwoDiceIsNoPair) {
  v1::BattleLog skf = NamedLog(kKnownDice);
  skf.mutable_header()->mutable_ruleset()->set_name("skf");
  auto report = SummarizeDice({skf});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_THAT(report->clans, SizeIs(2));
  // Red's dice as in KnownGameCountsExactly, but no roll of red's is a pair
  // under SKF (the firing and the melee side are single dice): 0 pairs.
  EXPECT_EQ(report->clans[0].dice, 10);
  EXPECT_EQ(report->clans[0].pairs, 0);
  // Blue: its melee side's 6, 6 is two single dice under SKF (under Daimyo
  // the one pair of blue's, KnownGameCountsExactly), and its morale check's
  // 2, 9 is a 2d6 roll whose 9 is no face, so no sum is counted.
  EXPECT_EQ(report->clans[1].pairs, 0);
}

TEST(DiceAttributionTest, UnknownUnitIsInvalidArgument) {
  auto dice = AttributeDice(NamedLog(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "ghost"
        dice: [ 1, 2 ]
      }
    }
  )pb"));
  ASSERT_FALSE(dice.ok());
  EXPECT_EQ(dice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dice.status().message(), HasSubstr("event 3"));
  EXPECT_THAT(dice.status().message(), HasSubstr("ghost"));
}

TEST(DiceSummaryTest, KnownGameCountsExactly) {
  auto report = SummarizeDice({NamedLog(kKnownDice)});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_THAT(report->clans, SizeIs(2));
  EXPECT_THAT(report->players, SizeIs(0));  // one game: clans only
  // Red: 5 | 1 2 3 4 | 2 5 | 3 | 4 | 6.
  const DiceGroupStats& red = report->clans[0];
  EXPECT_EQ(red.clan, "red");
  EXPECT_EQ(red.player, "Aki");
  EXPECT_EQ(red.dice, 10);
  EXPECT_EQ(red.invalid_dice, 0);
  EXPECT_THAT(red.face_counts, ElementsAre(1, 2, 2, 2, 2, 1));
  // Pairs 1+2, 3+4, 2+5: sums 3, 7, 7.
  EXPECT_EQ(red.pairs, 3);
  EXPECT_THAT(red.sum_counts, ElementsAre(0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0));
  // Fewer than 30 pairs (was 36 before the tails could be pooled).
  EXPECT_FALSE(red.sum_p_value.has_value());
  EXPECT_EQ(red.sum_cells, 0);
  EXPECT_EQ(red.longest_run, 1);
  // Expected 10/6 each: chi-square = (2 * (2/3)^2 + 4 * (1/3)^2) / (5/3)
  // = (12/9) / (5/3) = 0.8, worked out but not tested: 10 dice expect fewer
  // than 5 a face (new: the faces were tested from 1 die before).
  EXPECT_NEAR(red.face_chi_square, 0.8, 1e-12);
  EXPECT_TRUE(red.face_too_few_dice);
  EXPECT_EQ(red.face_p_value, 1.0);
  EXPECT_FALSE(red.flagged);
  // Blue: 6 6 | 3 | 1 | 2 (9 not a face) | 4 4.
  const DiceGroupStats& blue = report->clans[1];
  EXPECT_EQ(blue.dice, 7);
  EXPECT_EQ(blue.invalid_dice, 1);
  EXPECT_THAT(blue.face_counts, ElementsAre(1, 1, 1, 2, 0, 2));
  // 6+6 only: the morale pair holds a 9; result-move dice are not pairs.
  EXPECT_EQ(blue.pairs, 1);
  EXPECT_EQ(blue.sum_counts[10], 1);
  EXPECT_EQ(blue.longest_run, 2);
  EXPECT_EQ(blue.longest_run_face, 6);
  EXPECT_FALSE(report->AnyFlagged());
}

TEST(DiceStatisticsTest, FaceChiSquareByHand) {
  EXPECT_DOUBLE_EQ(FaceChiSquare({10, 10, 10, 10, 10, 10}), 0.0);
  // Expected 10 each: (10^2 + 5 * 2^2) / 10 = 12.
  EXPECT_DOUBLE_EQ(FaceChiSquare({20, 8, 8, 8, 8, 8}), 12.0);
  EXPECT_DOUBLE_EQ(FaceChiSquare({0, 0, 0, 0, 0, 0}), 0.0);
  // Tables: 11.07 is the 5% point and 12.83 the 2.5% point of 5 df; 15.09
  // the 1% point.
  const double p = ChiSquarePValue(12.0, 5);
  EXPECT_GT(p, 0.03);
  EXPECT_LT(p, 0.04);
}

TEST(DiceStatisticsTest, SumChiSquareByHand) {
  EXPECT_DOUBLE_EQ(SumChiSquare({1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1}), 0.0);
  // 36 sevens: (36 - 6)^2 / 6 for 7, plus every other expected count (30).
  EXPECT_DOUBLE_EQ(SumChiSquare({0, 0, 0, 0, 0, 36, 0, 0, 0, 0, 0}), 180.0);
}

TEST(DiceStatisticsTest, PValuesMatchTables) {
  EXPECT_EQ(ChiSquarePValue(0, 5), 1.0);
  EXPECT_NEAR(ChiSquarePValue(11.07, 5), 0.05, 2e-4);
  EXPECT_NEAR(ChiSquarePValue(15.09, 5), 0.01, 1e-4);
  EXPECT_NEAR(ChiSquarePValue(18.31, 10), 0.05, 2e-4);
  EXPECT_NEAR(ChiSquarePValue(23.21, 10), 0.01, 1e-4);
  // With 2 df, Q(1, x/2) = exp(-x/2) exactly; 1 df at 3.841 is 5%.
  EXPECT_NEAR(ChiSquarePValue(4.0, 2), std::exp(-2.0), 1e-12);
  EXPECT_NEAR(ChiSquarePValue(40.0, 2), std::exp(-20.0), 1e-18);
  EXPECT_NEAR(ChiSquarePValue(3.841, 1), 0.05, 1e-4);
  // Both branches: x < a + 1 (series) and beyond (continued fraction).
  EXPECT_NEAR(RegularizedUpperGamma(1.0, 0.5), std::exp(-0.5), 1e-12);
  EXPECT_NEAR(RegularizedUpperGamma(1.0, 3.0), std::exp(-3.0), 1e-12);
}

// Replaces RunProbabilityApproximation: the chance is now exact, so a run
// longer than the dice has chance 0 (the approximation said 1) and 10 dice
// show a run of 2 with chance 1 - (5/6)^9 (the approximation capped 1.25
// at 1).
TEST(DiceStatisticsTest, RunProbabilityExactByHand) {
  EXPECT_EQ(RunProbability(10, 1), 1.0);
  EXPECT_EQ(RunProbability(0, 0), 1.0);
  EXPECT_EQ(RunProbability(3, 4), 0.0);
  // 2 dice: the second shows the first's face, 1/6.
  EXPECT_NEAR(RunProbability(2, 2), 1.0 / 6, 1e-15);
  // 3 dice, run of 2: none only if dice 2 and 3 each differ from the die
  // before, (5/6)^2; so 1 - 25/36 = 11/36.
  EXPECT_NEAR(RunProbability(3, 2), 11.0 / 36, 1e-15);
  EXPECT_NEAR(RunProbability(10, 2), 1 - std::pow(5.0 / 6, 9), 1e-15);
  // 3 dice, run of 3: all three alike, 1/36.
  EXPECT_NEAR(RunProbability(3, 3), 1.0 / 36, 1e-15);
  // 4 dice, run of 3: dice 1-3 alike (1/36) or dice 2-4 alike (1/36), both
  // when all four are (1/216): 2/36 - 1/216 = 11/216.
  EXPECT_NEAR(RunProbability(4, 3), 11.0 / 216, 1e-15);
}

// Near certainty the chance stays a probability (issue 32: from 195 dice, a
// run of 2 summed a hair above 1, and a clan whose longest run was 2 got
// "chance nan" and invalid JSON). Worked by hand: n dice show no run of 2
// only when each die after the first differs from the one before it, so
// the chance is 1 - (5/6)^(n-1).
TEST(DiceStatisticsTest, RunProbabilityStaysAProbabilityNearCertainty) {
  for (std::int64_t n = 2; n <= 3000; ++n) {
    const double p = RunProbability(n, 2);
    ASSERT_LE(p, 1.0) << n << " dice";
    ASSERT_NEAR(p, 1 - std::pow(5.0 / 6, static_cast<double>(n - 1)), 1e-12)
        << n << " dice";
  }
  for (const std::vector<std::int64_t>& stretches :
       std::vector<std::vector<std::int64_t>>{{195}, {400}, {195, 200, 3}}) {
    const double p = RunProbabilityOfStretches(stretches, 2);
    EXPECT_FALSE(std::isnan(p));
    EXPECT_EQ(p, 1.0);  // 1 - (5/6)^194 and less: 1 at a double's precision
  }
}

// Counts, over all 6^n sequences of n dice, those with a run of at least L
// of one face, for n up to 6: an oracle for RunProbability.
TEST(DiceStatisticsTest, RunProbabilityMatchesEveryDiceSequence) {
  for (int n = 1; n <= 6; ++n) {
    const int sequences = static_cast<int>(std::pow(6, n));
    std::vector<int> longest_count(n + 2, 0);  // by longest run
    for (int code = 0; code < sequences; ++code) {
      int rest = code, last = -1, run = 0, longest = 0;
      for (int i = 0; i < n; ++i, rest /= 6) {
        run = rest % 6 == last ? run + 1 : 1;
        last = rest % 6;
        longest = std::max(longest, run);
      }
      ++longest_count[longest];
    }
    int at_least = 0;
    for (int run = n + 1; run >= 1; --run) {
      at_least += longest_count[run];
      EXPECT_NEAR(RunProbability(n, run),
                  static_cast<double>(at_least) / sequences, 1e-14)
          << n << " dice, run " << run;
    }
  }
}

TEST(DiceStatisticsTest, RunProbabilityOfStretchesByHand) {
  // Two stretches of 3 dice, run of 2: none in either, (25/36)^2.
  EXPECT_NEAR(RunProbabilityOfStretches({3, 3}, 2), 1 - 625.0 / 1296, 1e-15);
  // Stretches shorter than the run cannot show it.
  EXPECT_EQ(RunProbabilityOfStretches({1, 1, 1}, 2), 0.0);
  EXPECT_EQ(RunProbabilityOfStretches({}, 2), 0.0);
  EXPECT_EQ(RunProbabilityOfStretches({5}, 1), 1.0);
  // A long stretch takes O(dice): 10^6 dice, run of 9, close to the
  // expected number of such runs, 1 + (10^6 - 9) * 5/6 starts times 6^-8,
  // 0.49612 (less, as the runs overlap: 1 - exp(-0.49612) = 0.3911).
  EXPECT_NEAR(RunProbability(1000000, 9), 0.3911, 2e-3);
}

TEST(DiceStatisticsTest, PowerDivergenceByHand) {
  // 9/5 * sum o * ((o / e)^(2/3) - 1), empty cells adding nothing.
  EXPECT_DOUBLE_EQ(PowerDivergence({5, 5}, {5, 5}), 0.0);
  // 8 where 1 is expected: 8^(2/3) = 4, so 9/5 * 8 * 3 = 43.2.
  EXPECT_NEAR(PowerDivergence({8, 0, 0, 0, 0, 0, 0, 0}, std::vector(8, 1.0)),
              43.2, 1e-12);
  // 27 where 8 is expected: (27/8)^(2/3) = 9/4, so 9/5 * 27 * 5/4 = 60.75.
  EXPECT_NEAR(PowerDivergence({27, 0}, {8, 19}), 60.75, 1e-12);
  // Faces 10,10,10,10,10,22 (expected 12): 9/5 * (50 * ((5/6)^(2/3) - 1) +
  // 22 * ((11/6)^(2/3) - 1)) = 9/5 * (-5.7226 + 10.9547) = 9.4178, a little
  // under Pearson's 10.
  EXPECT_NEAR(FaceDivergence({10, 10, 10, 10, 10, 22}), 9.4178, 1e-4);
  EXPECT_EQ(FaceDivergence({0, 0, 0, 0, 0, 0}), 0.0);
}

TEST(DiceStatisticsTest, HolmByHand) {
  // Sorted 0.01, 0.03, 0.04: times 3, 2, 1 = 0.03, 0.06, 0.04, then each
  // raised to the largest before it: 0.03, 0.06, 0.06.
  EXPECT_THAT(HolmAdjust({0.01, 0.04, 0.03}),
              ElementsAre(DoubleNear(0.03, 1e-15), DoubleNear(0.06, 1e-15),
                          DoubleNear(0.06, 1e-15)));
  // Sorted 0.001, 0.02, 0.5: 0.003, 0.04, 0.5.
  EXPECT_THAT(HolmAdjust({0.5, 0.001, 0.02}),
              ElementsAre(DoubleNear(0.5, 1e-15), DoubleNear(0.003, 1e-15),
                          DoubleNear(0.04, 1e-15)));
  // 0.6 * 2 = 1.2 is capped at 1, and 0.7 raised to it.
  EXPECT_THAT(HolmAdjust({0.7, 0.6}), ElementsAre(1.0, 1.0));
  EXPECT_THAT(HolmAdjust({0.2}), ElementsAre(0.2));
  EXPECT_THAT(HolmAdjust({}), SizeIs(0));
}

// Each tail summed with exact fractions outside the engine: sum over
// j >= k of C(n, j) (1/6)^j (5/6)^(n - j).
TEST(DiceStatisticsTest, BinomialUpperTailByHand) {
  EXPECT_NEAR(BinomialUpperTail(12, 6), 0.00792503950197435, 1e-15);
  // 1 - (5/6)^30: at least one 6 in 30 dice (below the mode: 1 - lower).
  EXPECT_NEAR(BinomialUpperTail(30, 1), 0.9957872797669126, 1e-14);
  EXPECT_NEAR(BinomialUpperTail(1000, 200), 0.0031880755543325684, 1e-13);
  EXPECT_NEAR(BinomialUpperTail(1000, 150), 0.9289407161353176, 1e-12);
  EXPECT_EQ(BinomialUpperTail(30, 0), 1.0);
  EXPECT_EQ(BinomialUpperTail(30, 31), 0.0);
  // (1/6)^30 exactly: every die a 6.
  EXPECT_NEAR(BinomialUpperTail(30, 30), std::pow(6.0, -30),
              1e-9 * std::pow(6.0, -30));
  // A player's dice over a long event, where the exact sum is long: the
  // normal approximation gives z = (41999.5 - 41666.7) / 186.3 = 1.786,
  // p = 0.0370; the binomial's slight right skew puts it a hair above.
  EXPECT_NEAR(BinomialUpperTail(250000, 42000), 0.0370, 0.001);
}

// The normal approximation with continuity correction: mean 3.5 n,
// variance 35/12 n. 30 dice all 6 (180): z = (179.5 - 105) / sqrt(87.5) =
// 7.964; two 6s: z = (11.5 - 7) / sqrt(35/6) = 1.863, p = 0.0312 against
// the exact 1/36 = 0.0278 (the approximation overstates the tail of a sum
// of dice, erring safe).
TEST(DiceStatisticsTest, HighTotalByHand) {
  double z = 0;
  EXPECT_NEAR(HighTotalPValue(30, 180, z), 8.302375481129624e-16, 1e-24);
  EXPECT_NEAR(z, 7.964385008990246, 1e-12);
  EXPECT_NEAR(HighTotalPValue(2, 12, z), 0.031218683127736284, 1e-15);
  EXPECT_NEAR(z, 1.8631770102243563, 1e-12);
  EXPECT_GT(HighTotalPValue(2, 12, z), 1.0 / 36);
  EXPECT_NEAR(HighTotalPValue(30, 105, z), 0.5 + 0.0213, 0.001);  // the mean
  EXPECT_EQ(HighTotalPValue(0, 0, z), 1.0);
}

// Weighted Holm, by hand: p 0.001, 0.04, 0.2 with weights 0.5, 0.3, 0.2.
// By p / w: 0.002, 0.133, 1. The first times the whole weight 1 over 0.5:
// 0.002; the second times what is left (0.5) over 0.3: 0.0667; the last
// times 0.2 / 0.2: 0.2. And p 0.03, 0.01 weighted 0.9, 0.1: 0.03 / 0.9 =
// 0.0333 comes first (p / w 0.0333 against 0.1), then 0.01 * 0.1 / 0.1 =
// 0.01, raised to 0.0333. Equal weights are Holm's procedure.
TEST(DiceStatisticsTest, WeightedHolmByHand) {
  const std::vector<double> a =
      WeightedHolmAdjust({0.001, 0.04, 0.2}, {0.5, 0.3, 0.2});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_NEAR(a[0], 0.002, 1e-15);
  EXPECT_NEAR(a[1], 0.04 * 0.5 / 0.3, 1e-15);
  EXPECT_NEAR(a[2], 0.2, 1e-15);
  const std::vector<double> b = WeightedHolmAdjust({0.03, 0.01}, {0.9, 0.1});
  EXPECT_NEAR(b[0], 0.03 / 0.9, 1e-15);
  EXPECT_NEAR(b[1], 0.03 / 0.9, 1e-15);
  // Weights need not add up to 1: they are shares.
  const std::vector<double> c =
      WeightedHolmAdjust({0.01, 0.04, 0.03}, {2, 2, 2});
  EXPECT_EQ(c, HolmAdjust({0.01, 0.04, 0.03}));
  EXPECT_NEAR(c[0], 0.03, 1e-15);
  EXPECT_NEAR(c[1], 0.06, 1e-15);
  EXPECT_NEAR(c[2], 0.06, 1e-15);
}

TEST(DiceStatisticsTest, SumCellsPoolTheTailsByHand) {
  // Every cell must expect 5 = pairs * ways / 36. 11 cells: the 2s (1 way)
  // need 180 pairs. 9 cells (2-3, 4, ..., 10, 11-12): the 4s (3 ways) need
  // 60. 7 cells (2-4, 5, ...): the 5s (4 ways) need 45. 5 cells (2-5, 6, 7,
  // 8, 9-12): the 6s (5 ways) need 36. 3 cells (2-6, 7, 8-12): the 7s (6
  // ways) need 30.
  EXPECT_EQ(SumCellsFor(29), 0);
  EXPECT_EQ(SumCellsFor(30), 3);
  EXPECT_EQ(SumCellsFor(35), 3);
  EXPECT_EQ(SumCellsFor(36), 5);
  EXPECT_EQ(SumCellsFor(44), 5);
  EXPECT_EQ(SumCellsFor(45), 7);
  EXPECT_EQ(SumCellsFor(59), 7);
  EXPECT_EQ(SumCellsFor(60), 9);
  EXPECT_EQ(SumCellsFor(179), 9);
  EXPECT_EQ(SumCellsFor(180), 11);
  // 36 pairs all 2s, in 3 cells expecting 15, 6, 15: (36 - 15)^2 / 15 + 6
  // + 15 = 29.4 + 21 = 50.4.
  const std::array<std::int64_t, 11> twos = {36, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_NEAR(PooledSumChiSquare(twos, 3), 50.4, 1e-12);
  // In 11 cells, expecting 1 of each way: (36 - 1)^2 / 1 + 35 = 1260.
  EXPECT_NEAR(PooledSumChiSquare(twos, 11), 1260.0, 1e-9);
  EXPECT_DOUBLE_EQ(SumChiSquare(twos), PooledSumChiSquare(twos, 11));
}

// Returns `dice` as one result move of red (not summed in pairs).
std::vector<AttributedDice> Singles(const std::vector<std::uint32_t>& dice) {
  return {AttributedDice{1, "red", dice, false}};
}

TEST(DiceSummaryTest, TooFewDiceLeaveTheFacesUntested) {
  // 29 dice of 1..6 in turn (no run): faces not tested, no pairs; only the
  // run test, alone, so Holm leaves its p-value as it is.
  std::vector<std::uint32_t> dice;
  for (int i = 0; i < 29; ++i) dice.push_back(i % 6 + 1);
  DiceGroupStats g = SummarizeGroup(Singles(dice), "g", "red", "Aki");
  EXPECT_TRUE(g.face_too_few_dice);
  EXPECT_EQ(g.face_p_value, 1.0);
  EXPECT_EQ(g.face_adjusted_p_value, 1.0);
  EXPECT_FALSE(g.sum_p_value.has_value());
  EXPECT_EQ(g.longest_run, 1);
  EXPECT_EQ(g.run_probability, 1.0);
  EXPECT_EQ(g.group_p_value, 1.0);
  DiceReport report;
  report.games = 1;
  report.clans.push_back(g);
  EXPECT_THAT(FormatDiceText(report),
              HasSubstr("faces: too few dice to test (needs 30"));
  EXPECT_THAT(FormatDiceText(report),
              HasSubstr("2d6 sums of 0 pairs: too few pairs to test"));
  // The 30th die makes the test run: 5 of each, chi-square 0, p = 1.
  dice.push_back(6);
  g = SummarizeGroup(Singles(dice), "g", "red", "Aki");
  EXPECT_FALSE(g.face_too_few_dice);
  EXPECT_DOUBLE_EQ(g.face_chi_square, 0.0);
  EXPECT_EQ(g.face_p_value, 1.0);
}

TEST(DiceSummaryTest, FewPairsArePooled) {
  // 40 pairs, each 3 + 4 = 7: 5 cells (36 to 44 pairs) expecting 40 * 10/36
  // (2-5), 40 * 5/36 (6), 40/6 (7), 40 * 5/36 (8), 40 * 10/36 (9-12). The
  // empty cells add their expected counts, 40 - 40/6 = 200/6, and the 7s
  // (200/6)^2 / (40/6) = 1000/6: chi-square 1200/6 = 200.
  std::vector<std::uint32_t> dice;
  for (int i = 0; i < 40; ++i) {
    dice.push_back(3);
    dice.push_back(4);
  }
  const DiceGroupStats g =
      SummarizeGroup({AttributedDice{1, "red", dice, true}}, "g", "red", "Aki");
  EXPECT_EQ(g.pairs, 40);
  EXPECT_EQ(g.sum_cells, 5);
  ASSERT_TRUE(g.sum_chi_square.has_value());
  EXPECT_NEAR(*g.sum_chi_square, 200.0, 1e-9);
  // The tested divergence: only the 7s count, 40 observed where 40/6 are
  // expected, 9/5 * 40 * (6^(2/3) - 1) = 72 * (cbrt(36) - 1), 165.74.
  ASSERT_TRUE(g.sum_divergence.has_value());
  EXPECT_NEAR(*g.sum_divergence, 72 * (std::cbrt(36.0) - 1), 1e-9);
  EXPECT_TRUE(g.flagged);
  DiceReport report;
  report.games = 1;
  report.clans.push_back(g);
  EXPECT_THAT(FormatDiceText(report),
              HasSubstr("2d6 sums of 40 pairs: divergence 165.74 (chi-square "
                        "200.00), 4 df, tails pooled into 5 cells: p = "));
}

// A group below 1% alone is not flagged among three groups: Holm over the
// report multiplies the smallest group p-value by 3.
TEST(DiceSummaryTest, HolmOverTheGroupsOfAReport) {
  std::vector<DiceGroupStats> groups(3);
  const double group_p[3] = {0.004, 0.02, 0.5};
  for (int i = 0; i < 3; ++i) {
    groups[i].clan = absl::StrCat("c", i);
    groups[i].face_too_few_dice = false;
    groups[i].face_adjusted_p_value = group_p[i];
    groups[i].group_p_value = group_p[i];
  }
  DiceReport report = CombineDiceGroups(groups, 1);
  // 0.004 * 3 = 0.012, 0.02 * 2 = 0.04, 0.5.
  EXPECT_NEAR(report.clans[0].call_p_value, 0.012, 1e-15);
  EXPECT_NEAR(report.clans[1].call_p_value, 0.04, 1e-15);
  EXPECT_NEAR(report.clans[2].call_p_value, 0.5, 1e-15);
  EXPECT_FALSE(report.AnyFlagged());
  // At 0.003 the first is flagged (0.009), for its faces.
  groups[0].group_p_value = groups[0].face_adjusted_p_value = 0.003;
  report = CombineDiceGroups(groups, 1);
  EXPECT_TRUE(report.clans[0].flagged);
  EXPECT_FALSE(report.clans[1].flagged);
  EXPECT_THAT(report.clans[0].reasons, ElementsAre(HasSubstr("faces")));
}

// Returns a log of `events` firings, alternately red and blue, of 2 stands
// (4 dice) each, dice drawn from `faces` with `rng`.
template <typename Distribution>
v1::BattleLog RolledLog(int events, std::mt19937_64& rng, Distribution faces,
                        const std::string& game_id) {
  std::string text;
  for (int i = 0; i < events; ++i) {
    std::vector<int> dice;
    for (int d = 0; d < 4; ++d) dice.push_back(faces(rng) + 1);
    absl::StrAppend(&text, "events { seq: ", i + 1, " turn: 1 clan: \"",
                    i % 2 == 0 ? "red" : "blue", "\" firing { unit: \"",
                    i % 2 == 0 ? "red-teppo" : "blue-yumi",
                    "\" stands_firing: 2 dice: [", absl::StrJoin(dice, ","),
                    "] } }\n");
  }
  return NamedLog(text, game_id);
}

TEST(DiceSummaryTest, FairCorpusIsNotFlagged) {
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> fair(0, 5);
  std::vector<v1::BattleLog> logs;
  for (int g = 0; g < 3; ++g) {
    logs.push_back(RolledLog(600, rng, fair, absl::StrCat("fair-", g)));
  }
  auto report = SummarizeDice(logs);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_THAT(report->clans, SizeIs(6));
  ASSERT_THAT(report->players, SizeIs(2));
  EXPECT_EQ(report->players[0].player, "Aki");
  EXPECT_EQ(report->players[0].dice, 3 * 1200);
  EXPECT_EQ(report->players[0].pairs, 3 * 600);
  EXPECT_TRUE(report->players[0].sum_p_value.has_value());
  for (const auto& g : report->clans) {
    EXPECT_FALSE(g.flagged) << g.game_id << " " << g.clan;
  }
  for (const auto& g : report->players) EXPECT_FALSE(g.flagged) << g.player;
  EXPECT_FALSE(report->AnyFlagged());
  // 6 clan groups and 2 player groups: Holm over 8 can only raise a group
  // p-value.
  for (const auto& g : report->clans) {
    EXPECT_GE(g.call_p_value, g.group_p_value);
  }
}

// AuditService.DiceStats adds one log at a time and frees it: the report
// is the one of the whole corpus, and each group counts only its own
// clan's dice, the run going on from one event to the next.
TEST(DiceSummaryTest, SummarizerTakesOneLogAtATime) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> fair(0, 5);
  std::vector<v1::BattleLog> logs = {NamedLog(kKnownDice, "known")};
  for (int g = 0; g < 2; ++g) {
    logs.push_back(RolledLog(40, rng, fair, absl::StrCat("rolled-", g)));
  }
  DiceSummarizer summarizer;
  for (const v1::BattleLog& log : logs) {
    v1::BattleLog copy = log;  // Destroyed once added.
    ASSERT_TRUE(summarizer.AddLog(copy).ok());
  }
  const DiceReport one_at_a_time = std::move(summarizer).Finish();
  auto whole = SummarizeDice(logs);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(FormatDiceJson(one_at_a_time), FormatDiceJson(*whole));
  ASSERT_THAT(one_at_a_time.clans, SizeIs(6));
  ASSERT_THAT(one_at_a_time.players, SizeIs(2));
  // As KnownGameCountsExactly: red's 10 dice, blue's 7 and its run of two
  // sixes (seq 3); a player's counts are its clans' sums: Aki is red in
  // every log, 10 + 2 * 40 * 4 / 2 = 170 dice (each rolled log gives red
  // the even firings' 4 dice of 40 events).
  EXPECT_EQ(one_at_a_time.clans[0].dice, 10);
  EXPECT_EQ(one_at_a_time.clans[1].dice, 7);
  EXPECT_EQ(one_at_a_time.clans[1].longest_run, 2);
  EXPECT_EQ(one_at_a_time.players[0].player, "Aki");
  EXPECT_EQ(one_at_a_time.players[0].dice, 170);
}

// The summarizer, like the per-clan lists it replaces, gives a clan named
// twice in a header its dice in each of its groups; a log that names an
// unknown unit adds nothing and says which game.
TEST(DiceSummaryTest, SummarizerClanNamedTwiceAndBadLog) {
  v1::BattleLog twice = NamedLog(kKnownDice, "twice");
  *twice.mutable_header()->add_clans() = twice.header().clans(0);
  DiceSummarizer summarizer;
  ASSERT_TRUE(summarizer.AddLog(twice).ok());
  v1::BattleLog bad = NamedLog(R"pb(
                                 events {
                                   seq: 1
                                   turn: 1
                                   clan: "red"
                                   firing {
                                     unit: "ghost"
                                     target: "blue-yumi"
                                     dice: [ 1, 2 ]
                                   }
                                 }
                               )pb",
                               "bad");
  absl::Status added = summarizer.AddLog(bad);
  EXPECT_EQ(added.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(added.message(), HasSubstr("game bad"));
  const DiceReport report = std::move(summarizer).Finish();
  ASSERT_THAT(report.clans, SizeIs(3));  // red, blue, red again; not "bad".
  EXPECT_EQ(report.clans[2].clan, "red");
  EXPECT_EQ(report.clans[2].dice, 10);  // As clans[0]: red's 10 dice.
  EXPECT_EQ(report.games, 1);
}

TEST(DiceSummaryTest, LoadedSixesAreFlagged) {
  std::mt19937_64 rng(7);
  // Sixes three times as likely as each other face.
  std::discrete_distribution<int> loaded({1, 1, 1, 1, 1, 3});
  auto report = SummarizeDice({RolledLog(300, rng, loaded, "loaded")});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_THAT(report->clans, SizeIs(2));
  EXPECT_TRUE(report->clans[0].flagged);
  EXPECT_LT(report->clans[0].face_p_value, 1e-6);
  EXPECT_THAT(report->clans[0].reasons[0], HasSubstr("faces"));
  EXPECT_TRUE(report->AnyFlagged());
}

// Returns a log where red rolls 6 5 4 3 2 1 ten times, then twelve 6s, as
// one result move.
v1::BattleLog TwelveSixesLog() {
  std::vector<int> dice;
  for (int i = 0; i < 10; ++i) {
    for (int f = 6; f >= 1; --f) dice.push_back(f);
  }
  for (int i = 0; i < 12; ++i) dice.push_back(6);
  return NamedLog(
      absl::StrCat("events { seq: 1 turn: 1 clan: \"red\" result_move { unit: "
                   "\"red-samurai\" dice: [",
                   absl::StrJoin(dice, ","), "] } }"));
}

TEST(DiceSummaryTest, RunOfTwelveSixesIsFlagged) {
  // Faces 10,10,10,10,10,22 of 72: chi-square (5 * 2^2 + 10^2) / 12 = 10,
  // divergence 9.42 (PowerDivergenceByHand), p about 0.09, not flagged. The
  // run, exactly: a run of 12 starts at die 1 (6^-11) or at one of dice 2-61
  // after another face (5/6 * 6^-11 each), these starts being disjoint; so 51 *
  // 6^-11 less the chance of an earlier run, of order 6^-11, about 1.4e-7.
  // (Updated: the approximation said 61 * 5/6 * 6^-11.)
  auto report = SummarizeDice({TwelveSixesLog()});
  ASSERT_TRUE(report.ok()) << report.status();
  const DiceGroupStats& red = report->clans[0];
  EXPECT_NEAR(red.face_chi_square, 10.0, 1e-12);
  EXPECT_GT(red.face_p_value, 0.01);
  EXPECT_EQ(red.longest_run, 12);
  EXPECT_EQ(red.longest_run_face, 6);
  const double six_to_11 = std::pow(6.0, 11);
  EXPECT_NEAR(red.run_probability, 51 / six_to_11, 1e-6 * 51 / six_to_11);
  // The one-sided tests, worked with exact fractions: 22 6s of 72 dice,
  // sum over j >= 22 of C(72, j) (1/6)^j (5/6)^(72-j) = 0.0025682; faces
  // 1-5 have 10 each, below the 12 expected: P(X >= 10) = 0.78, times 5,
  // capped at 1; the total 10 * 15 + 22 * 6 = 282 against 3.5 * 72 = 252
  // with standard deviation sqrt(35/12 * 72) = 14.49: z = (281.5 - 252) /
  // 14.49 = 2.036, p = 0.0209.
  ASSERT_TRUE(red.sixes_p_value.has_value());
  EXPECT_NEAR(*red.sixes_p_value, 0.0025682085, 1e-9);
  EXPECT_EQ(*red.other_face_p_value, 1.0);
  EXPECT_NEAR(red.high_total_z, 2.0356934, 1e-6);
  EXPECT_NEAR(*red.high_total_p_value, 0.0208906, 1e-6);
  // Weighted Holm over red's five tests (no pairs, so no sums): weights
  // faces 0.1, run 0.1, 6s 0.45, another face 0.15, total 0.1, of 0.9 in
  // all. Smallest p / w first: the run's, times 0.9 / 0.1 = 9; then the 6s,
  // times (0.9 - 0.1) / 0.45; then the total, times 0.35 / 0.1. Over the
  // report's two clan groups (blue rolled nothing: p = 1), doubled.
  EXPECT_DOUBLE_EQ(red.run_adjusted_p_value, 9 * red.run_probability);
  EXPECT_NEAR(*red.sixes_adjusted_p_value, *red.sixes_p_value * 0.8 / 0.45,
              1e-15);
  EXPECT_NEAR(*red.high_total_adjusted_p_value,
              *red.high_total_p_value * 0.35 / 0.1, 1e-15);
  EXPECT_DOUBLE_EQ(red.group_p_value, 9 * red.run_probability);
  EXPECT_DOUBLE_EQ(red.call_p_value, 18 * red.run_probability);
  EXPECT_EQ(report->clans[1].call_p_value, 1.0);
  EXPECT_TRUE(red.flagged);
  EXPECT_THAT(red.reasons,
              ElementsAre(HasSubstr("too many 6s: 22 of 72 (expected 12.0), "
                                    "p = 0.0026, Holm 0.0046"),
                          HasSubstr("run of 12 6s")));
  const std::string text = FormatDiceText(*report);
  EXPECT_THAT(text, HasSubstr("Correction: weighted Holm over each group's "
                              "tests (shares: 6s 0.45, another face 0.15, "
                              "total 0.1, faces 0.1, sums 0.1, run 0.1), then "
                              "over the 2 groups of this report;"));
  EXPECT_THAT(text, HasSubstr("longest run: 12 in a row of face 6, chance "
                              "1.4e-07 (exact), Holm 1.3e-06"));
  EXPECT_THAT(text, HasSubstr("too many 6s (one-sided): 22, p = 0.0026, "
                              "Holm 0.0046"));
  EXPECT_THAT(text, HasSubstr("in this report p = 2.5e-06 (weighted Holm "
                              "over 2 groups)"));
  const std::string json = FormatDiceJson(*report);
  EXPECT_THAT(json, HasSubstr("\"correction\":\"weighted-holm\""));
  // The report's proto in proto3's JSON (the JSON API's): fields by number,
  // so face_divergence (25) comes well after face_chi_square (7).
  EXPECT_THAT(json, HasSubstr("\"face_chi_square\":10,\"face_p_value\":"));
  EXPECT_THAT(json, HasSubstr("\"face_divergence\":9.41"));
  EXPECT_THAT(json, HasSubstr("\"call_p_value\":2.53"));
  EXPECT_THAT(json, HasSubstr("\"flag_level\":0.01"));
  EXPECT_THAT(json, HasSubstr("\"longest_run\":12,\"longest_run_face\":6"));
  // It reads back as the report's proto, field for field.
  v1::DiceStatsReport back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &back).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      back, DiceReportToProto(*report)));
}

// Over two games the player groups hold half the report's weight (0.25
// each of 2) and the four clan groups the other half (0.125 each): the
// group whose p / w is smallest gets exactly p / w as its report p-value.
TEST(DiceSummaryTest, PlayerGroupsHoldHalfTheWeightAcrossGames) {
  std::vector<v1::BattleLog> logs = {TwelveSixesLog(), TwelveSixesLog()};
  logs[1].mutable_header()->set_game_id("second");
  auto report = SummarizeDice(logs);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->clans.size(), 4u);
  ASSERT_EQ(report->players.size(), 2u);
  double smallest = 2;
  for (const auto& g : report->clans) {
    smallest = std::min(smallest, g.group_p_value / 0.125);
  }
  for (const auto& g : report->players) {
    smallest = std::min(smallest, g.group_p_value / 0.25);
  }
  double reported = 2;
  for (const auto* groups : {&report->clans, &report->players}) {
    for (const auto& g : *groups) reported = std::min(reported, g.call_p_value);
  }
  EXPECT_NEAR(reported, smallest, 1e-15 + 1e-12 * smallest);
  // Red's player group (144 dice: 44 6s of 24 expected) is the one.
  EXPECT_DOUBLE_EQ(report->players[0].call_p_value,
                   report->players[0].group_p_value / 0.25);
  EXPECT_THAT(FormatDiceText(*report),
              HasSubstr("(the player groups holding 0.5 of the weight)"));
}

// The proto carries everything the text and JSON print (the client of
// gunbaid prints from it); run stretches are not printed.
TEST(DiceSummaryTest, ProtoRoundTripPrintsTheSame) {
  std::vector<v1::BattleLog> logs = {TwelveSixesLog(), NamedLog(kKnownDice)};
  logs[1].mutable_header()->set_game_id("known");
  auto report = SummarizeDice(logs);
  ASSERT_TRUE(report.ok()) << report.status();
  v1::DiceStatsReport wire;
  ASSERT_TRUE(
      wire.ParseFromString(DiceReportToProto(*report).SerializeAsString()));
  auto back = DiceReportFromProto(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(FormatDiceText(*back), FormatDiceText(*report));
  EXPECT_EQ(FormatDiceJson(*back), FormatDiceJson(*report));
}

// A gunbaid from before Holm sends raw p-values only (fields 1-17); the
// client corrects them with the tests it has (no one-sided ones): red's
// run, as in RunOfTwelveSixesIsFlagged, times (0.1 + 0.1) / 0.1 = 2 over
// its two tests (faces, run, weighing the same) and doubled again over the
// two groups.
TEST(DiceSummaryTest, ReportOfAnOldServerIsCorrected) {
  auto report = SummarizeDice({TwelveSixesLog()});
  ASSERT_TRUE(report.ok()) << report.status();
  v1::DiceStatsReport old = DiceReportToProto(*report);
  old.clear_correction();
  for (v1::DiceGroupStats& g : *old.mutable_clans()) {
    g.clear_face_too_few_dice();
    g.clear_face_adjusted_p_value();
    g.clear_run_adjusted_p_value();
    g.clear_group_p_value();
    g.clear_call_p_value();
    g.clear_face_divergence();
    g.clear_sixes_p_value();
    g.clear_sixes_adjusted_p_value();
    g.clear_other_face();
    g.clear_other_face_p_value();
    g.clear_other_face_adjusted_p_value();
    g.clear_high_total_z();
    g.clear_high_total_p_value();
    g.clear_high_total_adjusted_p_value();
  }
  auto back = DiceReportFromProto(old);
  ASSERT_TRUE(back.ok()) << back.status();
  const DiceGroupStats& red = back->clans[0];
  EXPECT_DOUBLE_EQ(red.call_p_value, 4 * red.run_probability);
  EXPECT_TRUE(red.flagged);
  EXPECT_EQ(back->clans[1].call_p_value, 1.0);
  EXPECT_FALSE(red.sixes_p_value.has_value());
  EXPECT_THAT(FormatDiceText(*back), HasSubstr("Holm over 2 groups"));
}

// What a shard of `gunbai dice` carries: the counts of KnownGameCountsExactly
// and the run stretches. Blue rolled 6 6 | 3 | 1 | 2 9 | 4 4 in that order:
// the 9 breaks the stretch, so 5 dice then 2; red's 10 dice are unbroken.
TEST(DiceTallyTest, TallyCarriesTheCountsAndStretches) {
  auto clans = TallyClans(NamedLog(kKnownDice));
  ASSERT_TRUE(clans.ok()) << clans.status();
  ASSERT_THAT(*clans, SizeIs(2));
  const v1::DiceTally red = DiceTallyToProto((*clans)[0]);
  EXPECT_EQ(red.clan(), "red");
  EXPECT_EQ(red.player(), "Aki");
  EXPECT_EQ(red.dice(), 10);
  EXPECT_THAT(red.face_counts(), ElementsAre(1, 2, 2, 2, 2, 1));
  EXPECT_EQ(red.pairs(), 3);
  EXPECT_THAT(red.run_stretches(), ElementsAre(10));
  const v1::DiceTally blue = DiceTallyToProto((*clans)[1]);
  EXPECT_EQ(blue.dice(), 7);
  EXPECT_EQ(blue.invalid_dice(), 1);
  EXPECT_THAT(blue.run_stretches(), ElementsAre(5, 2));
  EXPECT_EQ(blue.longest_run(), 2);
  EXPECT_EQ(blue.longest_run_face(), 6);
}

// Games added from tallies that went through the wire give the report the
// logs give: what makes a merge of shards equal one run.
TEST(DiceTallyTest, GamesAddedFromTalliesReportAsTheLogs) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> fair(0, 5);
  std::vector<v1::BattleLog> logs = {NamedLog(kKnownDice, "known"),
                                     TwelveSixesLog(),
                                     RolledLog(40, rng, fair, "rolled")};
  DiceSummarizer from_tallies;
  for (const v1::BattleLog& log : logs) {
    auto clans = TallyClans(log);
    ASSERT_TRUE(clans.ok()) << clans.status();
    std::vector<DiceGroupStats> back;
    for (const DiceGroupStats& group : *clans) {
      v1::DiceTally wire;
      ASSERT_TRUE(
          wire.ParseFromString(DiceTallyToProto(group).SerializeAsString()));
      auto parsed = DiceTallyFromProto(wire);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      back.push_back(*std::move(parsed));
    }
    from_tallies.AddGame(std::move(back));
  }
  auto whole = SummarizeDice(logs);
  ASSERT_TRUE(whole.ok()) << whole.status();
  const DiceReport merged = std::move(from_tallies).Finish();
  EXPECT_EQ(FormatDiceJson(merged), FormatDiceJson(*whole));
  EXPECT_EQ(FormatDiceText(merged), FormatDiceText(*whole));
  EXPECT_TRUE(merged.AnyFlagged());  // The twelve sixes.
}

// A tally edited by hand is refused, saying what does not fit.
TEST(DiceTallyTest, TalliesThatDoNotAddUpAreRefused) {
  auto clans = TallyClans(NamedLog(kKnownDice));
  ASSERT_TRUE(clans.ok()) << clans.status();
  const v1::DiceTally blue = DiceTallyToProto((*clans)[1]);
  ASSERT_TRUE(DiceTallyFromProto(blue).ok());
  struct Edit {
    const char* what;
    void (*edit)(v1::DiceTally&);
    const char* says;
  };
  const Edit edits[] = {
      {"five face counts",
       [](v1::DiceTally& t) { t.mutable_face_counts()->RemoveLast(); },
       "wants 6 face counts and 11 sum counts, has 5 and 11"},
      {"a face added", [](v1::DiceTally& t) { t.set_face_counts(0, 2); },
       "8 faces and 1 sums for 7 dice and 1 pairs"},
      {"a negative count", [](v1::DiceTally& t) { t.set_invalid_dice(-1); },
       "must be 0 to"},
      {"more dice than a log holds",
       [](v1::DiceTally& t) { t.set_dice(std::int64_t{1} << 40); },
       "must be 0 to"},
      {"more pairs than dice",
       [](v1::DiceTally& t) {
         t.set_pairs(4);
         t.set_sum_counts(0, 3);
       },
       "4 pairs"},
      {"stretches short of the dice",
       [](v1::DiceTally& t) { t.mutable_run_stretches()->RemoveLast(); },
       "the run stretches add up to 5, not to the 7 dice"},
      {"a stretch of 0", [](v1::DiceTally& t) { t.add_run_stretches(0); },
       "do not add up to the 7 dice: a stretch of 0"},
      {"a run longer than its stretch",
       [](v1::DiceTally& t) { t.set_longest_run(6); },
       "the longest run (6 of 6)"},
      {"a run of more sixes than were rolled",
       [](v1::DiceTally& t) { t.set_longest_run(3); },
       "the longest run (3 of 6)"},
      {"a run of face 7", [](v1::DiceTally& t) { t.set_longest_run_face(7); },
       "the longest run (2 of 7)"},
  };
  for (const Edit& e : edits) {
    v1::DiceTally edited = blue;
    e.edit(edited);
    auto parsed = DiceTallyFromProto(edited);
    ASSERT_FALSE(parsed.ok()) << e.what;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("game test, clan blue"))
        << e.what;
    EXPECT_THAT(parsed.status().message(), HasSubstr(e.says)) << e.what;
  }
}

TEST(DiceCliTest, TextReportOfTheGoldenLogs) {
  std::ostringstream out, err;
  const std::string dir = GUNBAI_TEST_DATA_DIR;
  const int code = service::RunCli(
      {"dice", dir + "/sekigahara.textproto", dir + "/anegawa-clean.textproto"},
      out, err);
  EXPECT_EQ(code, service::kExitClean) << err.str();
  EXPECT_THAT(out.str(),
              HasSubstr("Dice statistics - a test of fairness, not proof"));
  EXPECT_THAT(out.str(), HasSubstr("Game sekigahara-demo, clan tokugawa"));
}

TEST(DiceCliTest, JsonAndBadInput) {
  std::ostringstream out, err;
  const std::string dir = GUNBAI_TEST_DATA_DIR;
  EXPECT_EQ(service::RunCli(
                {"dice", "--format=json", dir + "/nagashino-melee.textproto"},
                out, err),
            service::kExitClean)
      << err.str();
  EXPECT_THAT(out.str(), HasSubstr("\"clan\":\"takeda\""));
  EXPECT_EQ(service::RunCli({"dice"}, out, err), service::kExitBadInput);
  EXPECT_EQ(service::RunCli({"dice", "/nonexistent.textproto"}, out, err),
            service::kExitBadInput);
}

// Issue 32, item 1, as a property: whatever the games, every number of a
// dice report is finite, every p-value is a probability, and the JSON
// parses (the NaN of a near-certain run chance made it invalid). Over
// generated games of every size (1 to 30 whole turns, 2 to 12 units a
// clan, up to 3 planted faults) alone, in reports of 5, 20 and all 40, and
// merged from tallies as `gunbai dice --merge` does, which must print the
// same report. (Whole turns: a game sized in events aborts in the
// generator for a few seeds, "no unit left to move", e.g. `gunbai generate
// --seed=34 --events=8000 --units=3`, a bug of its own.)
void ExpectFiniteReport(const DiceReport& report, const std::string& what) {
  auto check_group = [&](const DiceGroupStats& g) {
    const std::vector<double> numbers = {
        g.face_chi_square, g.face_divergence, g.high_total_z,
        g.sum_chi_square.value_or(0), g.sum_divergence.value_or(0)};
    for (double x : numbers) EXPECT_TRUE(std::isfinite(x)) << what;
    const std::vector<double> probabilities = {
        g.face_p_value,
        g.run_probability,
        g.face_adjusted_p_value,
        g.run_adjusted_p_value,
        g.group_p_value,
        g.call_p_value,
        g.sum_p_value.value_or(1),
        g.sum_adjusted_p_value.value_or(1),
        g.sixes_p_value.value_or(1),
        g.sixes_adjusted_p_value.value_or(1),
        g.other_face_p_value.value_or(1),
        g.other_face_adjusted_p_value.value_or(1),
        g.high_total_p_value.value_or(1),
        g.high_total_adjusted_p_value.value_or(1)};
    for (double p : probabilities) {
      EXPECT_TRUE(std::isfinite(p) && p >= 0 && p <= 1)
          << what << ": " << g.game_id << "/" << g.clan << "/" << g.player
          << " p = " << p;
    }
  };
  for (const auto& g : report.clans) check_group(g);
  for (const auto& g : report.players) check_group(g);
  const std::string json = FormatDiceJson(report);
  google::protobuf::Value parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok())
      << what;
  EXPECT_FALSE(absl::StrContains(json, "NaN")) << what;
  EXPECT_FALSE(absl::StrContains(json, "Infinity")) << what;
  EXPECT_FALSE(absl::StrContains(FormatDiceText(report), "nan")) << what;
}

TEST(DiceReportProperty, EveryNumberIsFiniteAndEveryJsonParses) {
  constexpr int kTurns[] = {1, 3, 8, 15, 30};
  std::vector<v1::BattleLog> logs;
  for (int seed = 1; seed <= 40; ++seed) {
    generate::GeneratorOptions options;
    options.seed = static_cast<std::uint64_t>(seed);
    options.turns = kTurns[seed % 5];
    options.units_per_clan = 2 + seed % 11;
    options.faults = seed % 4;
    logs.push_back(generate::GenerateGame(options).log);
  }
  for (std::size_t i = 0; i < logs.size(); ++i) {
    auto one = SummarizeDice({logs[i]});
    ASSERT_TRUE(one.ok()) << one.status();
    ExpectFiniteReport(*one, absl::StrCat("game ", i + 1));
  }
  for (std::size_t size : {5u, 20u, 40u}) {
    for (std::size_t from = 0; from + size <= logs.size(); from += size) {
      const std::vector<v1::BattleLog> some(logs.begin() + from,
                                            logs.begin() + from + size);
      auto report = SummarizeDice(some);
      ASSERT_TRUE(report.ok()) << report.status();
      const std::string what = absl::StrCat(size, " games from ", from + 1);
      ExpectFiniteReport(*report, what);
      // Merged from tallies through their proto, as shards' parts are.
      DiceSummarizer merged;
      for (const v1::BattleLog& log : some) {
        auto clans = TallyClans(log);
        ASSERT_TRUE(clans.ok()) << clans.status();
        std::vector<DiceGroupStats> carried;
        for (const DiceGroupStats& g : *clans) {
          auto back = DiceTallyFromProto(DiceTallyToProto(g));
          ASSERT_TRUE(back.ok()) << back.status();
          carried.push_back(*std::move(back));
        }
        merged.AddGame(std::move(carried));
      }
      const DiceReport merged_report = std::move(merged).Finish();
      ExpectFiniteReport(merged_report, what + ", merged");
      EXPECT_EQ(FormatDiceJson(merged_report), FormatDiceJson(*report)) << what;
    }
  }
}

}  // namespace
}  // namespace gunbai::replay
