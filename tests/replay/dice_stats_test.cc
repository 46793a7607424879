#include "replay/dice_stats.h"

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/cli.h"
#include "tests/replay/test_logs.h"

namespace gunbai::replay {
namespace {

using ::gunbai::testing::LogWithEvents;
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
  EXPECT_FALSE(red.sum_p_value.has_value());  // fewer than 36 pairs
  EXPECT_EQ(red.longest_run, 1);
  // Expected 10/6 each: chi-square = (2 * (2/3)^2 + 4 * (1/3)^2) / (5/3)
  // = (12/9) / (5/3) = 0.8.
  EXPECT_NEAR(red.face_chi_square, 0.8, 1e-12);
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

TEST(DiceStatisticsTest, RunProbabilityApproximation) {
  EXPECT_EQ(RunProbability(10, 1), 1.0);
  EXPECT_EQ(RunProbability(3, 4), 1.0);
  // 9 * 5/6 * 1/6 = 1.25, capped at 1.
  EXPECT_EQ(RunProbability(10, 2), 1.0);
  // 97 * 5/6 / 216.
  EXPECT_NEAR(RunProbability(100, 4), 97.0 * 5 / 6 / 216, 1e-12);
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

TEST(DiceSummaryTest, RunOfTwelveSixesIsFlagged) {
  // 6 5 4 3 2 1 ten times, then twelve 6s: faces 10,10,10,10,10,22 of 72,
  // chi-square (5 * 2^2 + 10^2) / 12 = 10, p about 0.075, not flagged; the
  // run: 61 * 5/6 * 6^-11, about 1.4e-7.
  std::vector<int> dice;
  for (int i = 0; i < 10; ++i) {
    for (int f = 6; f >= 1; --f) dice.push_back(f);
  }
  for (int i = 0; i < 12; ++i) dice.push_back(6);
  auto report = SummarizeDice({NamedLog(
      absl::StrCat("events { seq: 1 turn: 1 clan: \"red\" result_move { unit: "
                   "\"red-samurai\" dice: [",
                   absl::StrJoin(dice, ","), "] } }"))});
  ASSERT_TRUE(report.ok()) << report.status();
  const DiceGroupStats& red = report->clans[0];
  EXPECT_NEAR(red.face_chi_square, 10.0, 1e-12);
  EXPECT_GT(red.face_p_value, 0.01);
  EXPECT_EQ(red.longest_run, 12);
  EXPECT_EQ(red.longest_run_face, 6);
  EXPECT_NEAR(red.run_probability, 61.0 * 5 / 6 / std::pow(6.0, 11), 1e-15);
  EXPECT_TRUE(red.flagged);
  EXPECT_THAT(red.reasons, ElementsAre(HasSubstr("run of 12 6s")));
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

}  // namespace
}  // namespace gunbai::replay
