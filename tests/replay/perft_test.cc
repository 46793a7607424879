// Perft for the legal-action list (issue 28, item 4): from known positions,
// the exact set of next events replay::ListLegalActions offers, each set
// worked out by hand from the rules (rules/daimyo/RULES.md) before the test
// was run, the way a chess move generator is checked against hand-counted
// positions. The army is tests/replay/test_logs.h's: red-teppo (ashigaru,
// arquebus, 6 stands, 3 a rank) and red-samurai (mounted samurai, lance),
// against blue-yumi (ashigaru, bow, 4 stands) and blue-hq (headquarters,
// 1 stand); no table, so ranges are declared.
//
// An action is written "kind unit target detail": the move's kind, the
// test's reason, the result move's kind. A firing or melee round is one
// action whatever its stands (the most allowed is offered).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/audit.h"
#include "replay/legal_actions.h"
#include "replay/ruleset_loader.h"
#include "tests/replay/test_logs.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::testing::Activation;
using ::gunbai::testing::Ev;
using ::gunbai::testing::LogWithEvents;
using ::gunbai::testing::TurnStart;
using ::testing::UnorderedElementsAreArray;

std::string Key(const v1::LegalAction& a) {
  std::string detail;
  const v1::Event& e = a.event();
  if (e.has_move()) {
    detail = e.move().kind() == v1::MOVE_KIND_MANOEUVRE    ? "manoeuvre"
             : e.move().kind() == v1::MOVE_KIND_TURN_ABOUT ? "turn_about"
                                                           : "move";
  } else if (e.has_morale_test()) {
    detail = absl::StrCat(e.morale_test().reason());
  } else if (e.has_result_move()) {
    detail = v1::ResultMoveKind_Name(e.result_move().kind());
  } else if (e.has_charge() && e.charge().counter_charge()) {
    detail = "counter";
  }
  std::vector<std::string> parts = {a.kind()};
  for (const std::string& p : {a.unit(), a.target(), detail}) {
    if (!p.empty()) parts.push_back(p);
  }
  return absl::StrJoin(parts, " ");
}

class PerftTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ruleset = BuiltinRuleset("daimyo");
    ASSERT_TRUE(ruleset.ok()) << ruleset.status();
    ruleset_ = *std::move(ruleset);
    settings_.set_policy(v1::APPEND_POLICY_STRICT);
    settings_.set_dice_mode(v1::DICE_MODE_SERVER);
  }

  // The actions offered to `clan` (as its player, or as the umpire) after
  // `events`, on `log` (BaseLog with a starting position, or without).
  std::vector<std::string> Offered(const v1::BattleLog& log,
                                   const std::string& clan, bool umpire) {
    const v1::GetLegalActionsResponse answer = Actions(log, clan, umpire);
    std::vector<std::string> keys;
    for (const v1::LegalAction& a : answer.actions()) keys.push_back(Key(a));
    return keys;
  }

  v1::GetLegalActionsResponse Actions(const v1::BattleLog& log,
                                      const std::string& clan, bool umpire) {
    v1::BattleLog base = log;
    base.clear_events();
    google::protobuf::RepeatedPtrField<v1::Finding> findings;
    auto engine = CreateEngine(base, ruleset_, AuditOptions(),
                               rules::EngineOutput{&findings, nullptr});
    EXPECT_TRUE(engine.ok()) << engine.status();
    if (!engine.ok()) return v1::GetLegalActionsResponse();
    for (const v1::Event& e : log.events()) (*engine)->Apply(e);
    // The position itself is sound: its events break no rule.
    for (const v1::Finding& f : findings) {
      EXPECT_NE(f.severity(), v1::SEVERITY_VIOLATION) << f.message();
    }
    LegalActionsGame game;
    game.log = &base;
    game.settings = &settings_;
    game.ruleset = &ruleset_;
    game.engine = engine->get();
    game.umpire = umpire;
    game.clan = clan;
    auto answer = ListLegalActions(game);
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? *std::move(answer) : v1::GetLegalActionsResponse();
  }

  std::vector<std::string> Player(const std::string& events,
                                  const std::string& clan) {
    return Offered(LogWithEvents(events), clan, /*umpire=*/false);
  }

  LoadedRuleset ruleset_;
  v1::GameSettings settings_;
};

// The moves of a unit in its clan's activation: the three kinds.
std::vector<std::string> Moves(const std::string& unit) {
  return {"move " + unit + " move", "move " + unit + " manoeuvre",
          "move " + unit + " turn_about"};
}

std::vector<std::string> Join(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Position 1, before the game: the umpire starts the first turn or ends the
// game (2); a player may do nothing (0) until a turn starts
// (daimyo.sequence.outside_turn).
TEST_F(PerftTest, P1BeforeTheGame) {
  EXPECT_THAT(Offered(LogWithEvents(""), "red", /*umpire=*/true),
              UnorderedElementsAreArray({"turn_start", "game_end"}));
  EXPECT_THAT(Player("", "red"),
              UnorderedElementsAreArray(std::vector<std::string>{}));
}

// Position 2, turn 1 started (red has the initiative), nobody activated:
// each clan may begin its activation (each clan is activated once a turn,
// in the order the log gives: turn sequence, step 2) or end its part of
// the turn; nothing else, since moves, firing and melee need an activated
// clan (daimyo.sequence.no_active_clan). 2 for each player; the umpire,
// asking for red, has those and the game's end (3), and no turn_start
// while the turn is in progress (daimyo.sequence.turn_end_missing).
TEST_F(PerftTest, P2TurnStarted) {
  const std::string events = TurnStart(1, 1, "red");
  EXPECT_THAT(Player(events, "red"),
              UnorderedElementsAreArray({"activation", "turn_end"}));
  EXPECT_THAT(Player(events, "blue"),
              UnorderedElementsAreArray({"activation", "turn_end"}));
  EXPECT_THAT(
      Offered(LogWithEvents(events), "red", /*umpire=*/true),
      UnorderedElementsAreArray({"game_end", "activation", "turn_end"}));
}

// Position 3, red's activation begun: each red unit moves (3 kinds: 6),
// each declares a charge on either enemy (4), red-teppo fires at either
// (2; red-samurai has no missile weapon:
// daimyo.fire.eligibility.missile_weapon), and red may end its part (1):
// 13. Blue may not begin its activation while red's is open (a live
// game's player rule) and may not fire (blue is not charged:
// daimyo.fire.eligibility.active_clan); it may end its part: 1.
TEST_F(PerftTest, P3RedActivated) {
  const std::string events = TurnStart(1, 1, "red") + Activation(2, 1, "red");
  EXPECT_THAT(Player(events, "red"),
              UnorderedElementsAreArray(Join(
                  {Moves("red-teppo"),
                   Moves("red-samurai"),
                   {"charge red-teppo blue-yumi", "charge red-teppo blue-hq",
                    "charge red-samurai blue-yumi",
                    "charge red-samurai blue-hq", "fire red-teppo blue-yumi",
                    "fire red-teppo blue-hq", "turn_end"}})));
  EXPECT_THAT(Player(events, "blue"), UnorderedElementsAreArray({"turn_end"}));
}

// Position 4, red-teppo has fired one stand at blue-yumi (dice 1+1: no hit,
// nothing owed): the activation is in its firing phase, so no move or
// charge (daimyo.sequence.phase_order), red-teppo has fired this turn
// (daimyo.fire.eligibility.once_per_turn) and red-samurai cannot fire: red
// may only end its part (1).
TEST_F(PerftTest, P4AfterAVolley) {
  const std::string events =
      TurnStart(1, 1, "red") + Activation(2, 1, "red") +
      Ev(3, 1, "red",
         "firing { unit: \"red-teppo\" target: \"blue-yumi\" stands_firing: 1 "
         "dice: [1, 1] facts { range: RANGE_BAND_EFFECTIVE } claimed_hits: 0 "
         "claimed_stands_lost: 0 }");
  EXPECT_THAT(Player(events, "red"), UnorderedElementsAreArray({"turn_end"}));
}

// Position 5, red-samurai has charged blue-yumi: blue-yumi, ashigaru and
// foot (Raw) charged by cavalry, owes one being-charged test for the
// highest of reasons 2 and 3, that is 3 (daimyo.morale.wrong_reason); and
// blue may end its part (the test stays owed, and a clan that has ended
// may still take what it owes): 2. It may not fire at its charger yet,
// though a unit being charged may (charged_fire_at_chargers): a volley
// ends the movement phase (daimyo.sequence.phase_order), and the charge's
// tests are due by then ("taken at once": the flow of a turn, step 2). The
// first hand count here had the volley (3); the engine's 2 sent us back
// to the text, and the text gives 2.
TEST_F(PerftTest, P5BeingCharged) {
  const std::string events =
      TurnStart(1, 1, "red") + Activation(2, 1, "red") +
      Ev(3, 1, "red", "charge { unit: \"red-samurai\" target: \"blue-yumi\" }");
  EXPECT_THAT(Player(events, "blue"),
              UnorderedElementsAreArray({"morale blue-yumi 3", "turn_end"}));
}

// Position 6, red has activated and ended its part of turn 1 (its
// turn_end closes its activation: reading 31): blue may begin its
// activation or end its part (2); red, having ended, owes nothing and may
// append nothing (0).
TEST_F(PerftTest, P6RedHasEnded) {
  const std::string events = TurnStart(1, 1, "red") + Activation(2, 1, "red") +
                             Ev(3, 1, "red", "turn_end {}");
  EXPECT_THAT(Player(events, "blue"),
              UnorderedElementsAreArray({"activation", "turn_end"}));
  EXPECT_THAT(Player(events, "red"),
              UnorderedElementsAreArray(std::vector<std::string>{}));
}

// Position 7, then blue's activation: blue-yumi and blue-hq move (6) and
// charge either red unit (4), blue-yumi fires at either (2), blue ends its
// part (1): 13.
TEST_F(PerftTest, P7BlueActivated) {
  const std::string events = TurnStart(1, 1, "red") + Activation(2, 1, "red") +
                             Ev(3, 1, "red", "turn_end {}") +
                             Activation(4, 1, "blue");
  EXPECT_THAT(Player(events, "blue"),
              UnorderedElementsAreArray(Join(
                  {Moves("blue-yumi"),
                   Moves("blue-hq"),
                   {"charge blue-yumi red-teppo",
                    "charge blue-yumi red-samurai", "charge blue-hq red-teppo",
                    "charge blue-hq red-samurai", "fire blue-yumi red-teppo",
                    "fire blue-yumi red-samurai", "turn_end"}})));
}

// Position 8, both clans have ended turn 1: the turn is over. The umpire
// starts turn 2 or ends the game (2); a player may do nothing (0).
TEST_F(PerftTest, P8TurnOver) {
  const std::string events = TurnStart(1, 1, "red") + Activation(2, 1, "red") +
                             Ev(3, 1, "red", "turn_end {}") +
                             Activation(4, 1, "blue") +
                             Ev(5, 1, "blue", "turn_end {}");
  EXPECT_THAT(Offered(LogWithEvents(events), "red", /*umpire=*/true),
              UnorderedElementsAreArray({"turn_start", "game_end"}));
  EXPECT_THAT(Player(events, "blue"),
              UnorderedElementsAreArray(std::vector<std::string>{}));
}

// A log that starts after turn 1 with blue-yumi routing (it routed on turn
// 1 and made that turn's rout move), then turn 2 starts.
v1::BattleLog RouterLog(const std::string& events) {
  v1::BattleLog log = LogWithEvents(events);
  v1::StartingPosition& p = *log.mutable_starting_position();
  p.set_turn(1);
  p.set_phase("turn ended");
  v1::UnitState& yumi = *p.add_units();
  yumi.set_id("blue-yumi");
  yumi.set_clan("blue");
  yumi.set_stands(4);
  yumi.set_routing(true);
  return log;
}

// Position 9, turn 2, blue activated with blue-yumi still routing: it may
// test to rally (reason 8, once, as it was routing when the activation
// began: daimyo.morale.rally_routed_this_activation) and owes its rout
// move this turn (daimyo.rout.move_missing), so blue may not end its part
// yet; it may not fire (daimyo.fire.eligibility.routing), move
// (daimyo.move.routing) or charge (daimyo.charge.eligibility). blue-hq
// moves (3) and charges either red unit (2): 1 + 1 + 3 + 2 = 7.
TEST_F(PerftTest, P9RouterInItsActivation) {
  const v1::BattleLog log =
      RouterLog(TurnStart(1, 2, "blue") + Activation(2, 2, "blue"));
  EXPECT_THAT(
      Offered(log, "blue", /*umpire=*/false),
      UnorderedElementsAreArray(
          Join({{"morale blue-yumi 8",
                 "result_move blue-yumi RESULT_MOVE_KIND_ROUT"},
                Moves("blue-hq"),
                {"charge blue-hq red-teppo", "charge blue-hq red-samurai"}})));
}

// Position 10, then blue-yumi makes its rout move: that is its one rout
// move this turn (daimyo.rout.once_a_turn), and its chance to rally has
// passed, since a router tests before its rout move (reading 30). Nothing
// is owed, so blue may end its part: blue-hq's 3 moves and 2 charges, and
// the turn_end: 6.
TEST_F(PerftTest, P10AfterTheRoutMove) {
  const v1::BattleLog log = RouterLog(
      TurnStart(1, 2, "blue") + Activation(2, 2, "blue") +
      Ev(3, 2, "blue",
         "result_move { unit: \"blue-yumi\" kind: RESULT_MOVE_KIND_ROUT }"));
  EXPECT_THAT(Offered(log, "blue", /*umpire=*/false),
              UnorderedElementsAreArray(
                  Join({Moves("blue-hq"),
                        {"charge blue-hq red-teppo",
                         "charge blue-hq red-samurai", "turn_end"}})));
}

// On a table (reading 37) each charge is offered with the pose it makes
// contact in. red-samurai (four 4 x 3 cm mounted stands in one rank) stands
// at (600, 500) facing 0: x 52..68, y 47..50, centre (60, 48.5).
// blue-yumi (four 4 x 2 cm stands in one rank) at (600, 700) facing 180:
// its front at y = 70, x 52..68. red-samurai's centre is straight ahead of
// it, off its front: the charge ends with red-samurai's front centre on
// blue-yumi's, (600, 700), facing 0, 20 cm from where it stands.
// blue-hq (one 4 x 4 cm stand) at (1000, 700) facing 180: x 98..102,
// y 70..74, centre (100, 72). Seen from it red-samurai's centre is 22.5 cm
// ahead but 40 cm across, towards -x: beyond the diagonals, off its right
// side (blue-hq faces -y, so its right is -x), the edge x = 98; the charge
// ends on that edge's middle, (980, 720), facing +x: 90 degrees.
// red-teppo stands far off at (150, 100).
v1::BattleLog ChargeTable(const std::string& events) {
  v1::BattleLog log = LogWithEvents(events);
  log.mutable_table()->set_width_mm(1800);
  log.mutable_table()->set_depth_mm(1200);
  const int places[4][3] = {
      {150, 100, 0}, {600, 500, 0}, {600, 700, 180}, {1000, 700, 180}};
  for (int i = 0; i < 4; ++i) {
    v1::Position& p =
        *log.mutable_order_of_battle()->mutable_units(i)->mutable_position();
    p.set_x_mm(places[i][0]);
    p.set_y_mm(places[i][1]);
    p.set_facing_deg(places[i][2]);
  }
  return log;
}

const v1::LegalAction* Find(const v1::GetLegalActionsResponse& answer,
                            const std::string& key) {
  for (const v1::LegalAction& a : answer.actions()) {
    if (Key(a) == key) return &a;
  }
  return nullptr;
}

TEST_F(PerftTest, P11ChargesOnATableEndInContact) {
  const v1::GetLegalActionsResponse answer =
      Actions(ChargeTable(TurnStart(1, 1, "red") + Activation(2, 1, "red")),
              "red", /*umpire=*/false);
  const v1::LegalAction* front = Find(answer, "charge red-samurai blue-yumi");
  ASSERT_NE(front, nullptr);
  EXPECT_TRUE(front->needs_destination());
  EXPECT_EQ(front->reach_mm(), 0u);  // the ruleset gives no move rate
  EXPECT_EQ(front->event().charge().to().x_mm(), 600);
  EXPECT_EQ(front->event().charge().to().y_mm(), 700);
  EXPECT_EQ(front->event().charge().to().facing_deg(), 0);
  EXPECT_FALSE(front->event().charge().fell_short());
  const v1::LegalAction* flank = Find(answer, "charge red-samurai blue-hq");
  ASSERT_NE(flank, nullptr);
  EXPECT_EQ(flank->event().charge().to().x_mm(), 980);
  EXPECT_EQ(flank->event().charge().to().y_mm(), 720);
  EXPECT_EQ(flank->event().charge().to().facing_deg(), 90);
}

// With a move rate of 15 cm for mounted units the 20 cm to blue-yumi is
// beyond reach: the charger goes 15 cm straight towards its contact pose,
// to (600, 650), and falls short.
TEST_F(PerftTest, P12AChargeBeyondTheMoveRateFallsShort) {
  v1::MovementRate* mounted = ruleset_.data.mutable_table()->add_movement();
  mounted->set_mobility(v1::MOBILITY_MOUNTED);
  mounted->set_move_mm(150);
  const v1::GetLegalActionsResponse answer =
      Actions(ChargeTable(TurnStart(1, 1, "red") + Activation(2, 1, "red")),
              "red", /*umpire=*/false);
  const v1::LegalAction* front = Find(answer, "charge red-samurai blue-yumi");
  ASSERT_NE(front, nullptr);
  EXPECT_EQ(front->reach_mm(), 150u);
  EXPECT_EQ(front->event().charge().to().x_mm(), 600);
  EXPECT_EQ(front->event().charge().to().y_mm(), 650);
  EXPECT_EQ(front->event().charge().to().facing_deg(), 0);
  EXPECT_TRUE(front->event().charge().fell_short());
}

// Position 13 (reading 39): red-samurai has charged blue-yumi and reached
// it. Its charge was its move: none of its three moves is offered, nor
// another charge; red-teppo's moves still are.
TEST_F(PerftTest, P13NoMoveAfterTheCharge) {
  const std::vector<std::string> keys = Offered(
      ChargeTable(TurnStart(1, 1, "red") + Activation(2, 1, "red") +
                  Ev(3, 1, "red",
                     "charge { unit: \"red-samurai\" target: \"blue-yumi\" "
                     "to { x_mm: 600 y_mm: 700 facing_deg: 0 } }")),
      "red", /*umpire=*/false);
  for (const std::string& key : keys) {
    EXPECT_THAT(key, ::testing::Not(::testing::StartsWith("move red-samurai")));
    EXPECT_THAT(key,
                ::testing::Not(::testing::StartsWith("charge red-samurai")));
  }
  for (const std::string& move : Moves("red-teppo")) {
    EXPECT_THAT(keys, ::testing::Contains(move));
  }
}

}  // namespace
}  // namespace gunbai::replay
