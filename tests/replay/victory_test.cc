// Victory by points as a scenario setting (rules/SCENARIO.md): the tracker's
// arithmetic, and the audit's computed winner and disputed claim. Every
// expectation is worked by hand in its comment.
#include "rules/victory.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Two clans; red: an ashigaru and a samurai unit; blue: a legendary samurai
// and an ashigaru unit. Points: ashigaru 1, samurai 2, legendary samurai 3,
// camp 2 for ashigaru; 4 to win.
class VictoryTrackerTest : public ::testing::Test {
 protected:
  VictoryTrackerTest() {
    state_.clans = {"red", "blue"};
    AddUnit(0, rules::TroopType::kAshigaru);          // 0 red ashigaru
    AddUnit(0, rules::TroopType::kSamurai);           // 1 red samurai
    AddUnit(1, rules::TroopType::kLegendarySamurai);  // 2 blue legendary
    AddUnit(1, rules::TroopType::kAshigaru);          // 3 blue ashigaru
    settings_.points_to_win = 4;
    settings_.unit_points[static_cast<int>(rules::TroopType::kAshigaru)] = 1;
    settings_.unit_points[static_cast<int>(rules::TroopType::kSamurai)] = 2;
    settings_
        .unit_points[static_cast<int>(rules::TroopType::kLegendarySamurai)] = 3;
    settings_.camp_sack_points = 2;
    settings_.camp_sack_types[static_cast<int>(rules::TroopType::kAshigaru)] =
        true;
  }
  void AddUnit(int clan, rules::TroopType type) {
    rules::UnitProfile p;
    p.id = absl::StrCat("u", state_.profiles.size());
    p.clan = clan;
    p.troop_type = type;
    state_.profiles.push_back(p);
    rules::UnitStatus s;
    s.stands = 4;
    state_.units.push_back(s);
  }
  rules::BattleState state_;
  rules::VictorySettings settings_;
};

TEST_F(VictoryTrackerTest, RoutedAndEliminatedUnitsScoreOnceAtTurnEnd) {
  rules::VictoryTracker v(settings_, state_);
  // Turn 1: blue's legendary samurai routs: 3 for red. Not yet 4.
  state_.turn = 1;
  state_.units[2].routing = true;
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 3);
  EXPECT_EQ(v.points(1), 0);
  EXPECT_EQ(v.winner(), -1);
  // Turn 2: it rallies (its 3 points stay) and red's samurai is removed:
  // 2 for blue. Red 3, blue 2.
  state_.turn = 2;
  state_.units[2].routing = false;
  state_.units[1].removed = true;
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 3);
  EXPECT_EQ(v.points(1), 2);
  // Turn 3: the legendary samurai routs again: it does not score twice.
  state_.turn = 3;
  state_.units[2].routing = true;
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 3);
  EXPECT_EQ(v.winner(), -1);
  // Turn 4: blue's ashigaru is removed: red 3 + 1 = 4, at the total: red
  // wins at the end of turn 4.
  state_.turn = 4;
  state_.units[3].removed = true;
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 4);
  EXPECT_EQ(v.winner(), 0);
  EXPECT_EQ(v.decided_turn(), 4);
}

TEST_F(VictoryTrackerTest, EqualTopScoresAreATie) {
  settings_.points_to_win = 2;
  rules::VictoryTracker v(settings_, state_);
  // Red's samurai routs (2 for blue) and red's ashigaru sacks blue's camp
  // (2 for red). Red 2, blue 2: both at the total of 2 but tied at the top:
  // no winner, play another turn.
  state_.turn = 1;
  state_.units[1].routing = true;
  EXPECT_TRUE(v.CampTouched(state_, 0, 1));
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 2);
  EXPECT_EQ(v.points(1), 2);
  EXPECT_EQ(v.winner(), -1);
  // Turn 2: blue's ashigaru routs: red 3, blue 2: red wins at turn 2.
  state_.turn = 2;
  state_.units[3].routing = true;
  v.EndOfTurn(state_);
  EXPECT_EQ(v.winner(), 0);
  EXPECT_EQ(v.decided_turn(), 2);
}

TEST_F(VictoryTrackerTest, OnlyListedTypesSackAndNeverTheirOwnCamp) {
  rules::VictoryTracker v(settings_, state_);
  EXPECT_FALSE(v.CampTouched(state_, 1, 1));  // samurai may not sack
  EXPECT_FALSE(v.CampTouched(state_, 0, 0));  // own camp
  EXPECT_TRUE(v.CampTouched(state_, 0, 1));
  EXPECT_TRUE(v.CampTouched(state_, 0, 1));  // twice: scored once
  state_.turn = 1;
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 2);
  v.EndOfTurn(state_);
  EXPECT_EQ(v.points(0), 2);
}

// A Daimyo log with a scenario: red-teppo (ashigaru) ends a move touching
// blue's camp in turn 1; camp 2 points for ashigaru, 2 to win. At the end
// of turn 1 red has 2: red wins at turn 1.
v1::BattleLog CampLog(const std::string& claimed_winner) {
  v1::BattleLog log = LogWithEvents(R"pb(
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
      move { unit: "red-teppo" kind: MOVE_KIND_MOVE touches_enemy_camp: "blue" }
    }
    events {
      seq: 4
      turn: 1
      turn_end {}
    }
  )pb");
  v1::Event* end = log.add_events();
  end->set_seq(5);
  end->set_turn(1);
  end->mutable_game_end()->set_claimed_winner(claimed_winner);
  auto* v = log.mutable_header()->mutable_scenario()->mutable_victory();
  v->set_points_to_win(2);
  v->set_camp_sack_points(2);
  v->add_camp_sack_troop_types(v1::TROOP_TYPE_ASHIGARU);
  auto* points = v->add_unit_points();
  points->set_troop_type(v1::TROOP_TYPE_ASHIGARU);
  points->set_points(1);
  return log;
}

TEST(VictoryAuditTest, ComputedWinnerAndARightClaim) {
  const v1::AuditReport report = AuditOrDie(CampLog("red"));
  EXPECT_THAT(FindingKeys(report), IsEmpty());
  EXPECT_TRUE(report.result().scored());
  EXPECT_EQ(report.result().winner(), "red");
  EXPECT_EQ(report.result().decided_turn(), 1u);
  ASSERT_EQ(report.result().clans_size(), 2);
  EXPECT_EQ(report.result().clans(0).victory_points(), 2u);
  EXPECT_EQ(report.result().clans(1).victory_points(), 0u);
  // Units left: red-teppo and red-samurai; blue-yumi and blue-hq (4 + 1 = 5
  // stands).
  EXPECT_EQ(report.result().clans(1).units_left(), 2u);
  EXPECT_EQ(report.result().clans(1).stands_left(), 5u);
}

TEST(VictoryAuditTest, AWrongClaimIsDisputed) {
  const v1::AuditReport report = AuditOrDie(CampLog("blue"));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("5:SEVERITY_DISPUTE:game.victory.winner"));
  EXPECT_EQ(report.findings(0).claimed(), "blue wins");
  EXPECT_EQ(report.findings(0).computed(), "red wins");
}

TEST(VictoryAuditTest, NoScenarioNoVerdict) {
  v1::BattleLog log = CampLog("blue");
  log.mutable_header()->clear_scenario();
  const v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(FindingKeys(report), IsEmpty());
  EXPECT_FALSE(report.result().scored());
  EXPECT_EQ(report.result().winner(), "");
}

}  // namespace
}  // namespace gunbai::testing
