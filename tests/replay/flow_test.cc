// The flow of a turn through replay (rules/daimyo/RULES.md, "The flow of a
// turn", readings 28-31): how often a unit may charge and make a rout move,
// when a router's move and rally test come, and what a clan's own turn_end
// closes. Every expectation is worked by hand from the seed sentences the
// readings quote; the comments give the working.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The play-by-email sample's armies (samples/pbem/armies.textproto):
// oda-teppo (Seasoned Ashigaru, arquebus, 6 stands), asai-yumi (Veteran
// Ashigaru, bow, 4 stands), asai-cav (Elite mounted Samurai, lance, 3 stands,
// with the daimyo Asai Nagamasa, rating 3).
constexpr char kSampleArmies[] = R"pb(
  header {
    ruleset { name: "daimyo" version: "1.0" }
    clans { id: "oda" name: "Oda" }
    clans { id: "asai" name: "Asai" }
  }
  order_of_battle {
    units {
      id: "oda-teppo"
      clan: "oda"
      name: "Oda Teppo"
      troop_type: TROOP_TYPE_ASHIGARU
      mobility: MOBILITY_FOOT
      quality: QUALITY_SEASONED
      armour: ARMOUR_LIGHT
      melee_weapon: MELEE_WEAPON_IMPROVISED
      missile_weapon: MISSILE_WEAPON_ARQUEBUS
      stands: 6
      stands_per_rank: 3
    }
    units {
      id: "asai-yumi"
      clan: "asai"
      name: "Asai Yumi"
      troop_type: TROOP_TYPE_ASHIGARU
      mobility: MOBILITY_FOOT
      quality: QUALITY_VETERAN
      armour: ARMOUR_NONE
      melee_weapon: MELEE_WEAPON_IMPROVISED
      missile_weapon: MISSILE_WEAPON_BOW
      stands: 4
      stands_per_rank: 4
    }
    units {
      id: "asai-cav"
      clan: "asai"
      name: "Asai Horse"
      troop_type: TROOP_TYPE_SAMURAI
      mobility: MOBILITY_MOUNTED
      quality: QUALITY_ELITE
      armour: ARMOUR_HEAVY
      melee_weapon: MELEE_WEAPON_LANCE
      stands: 3
      stands_per_rank: 3
    }
    leaders {
      id: "nagamasa"
      clan: "asai"
      name: "Asai Nagamasa"
      kind: LEADER_KIND_DAIMYO
      command_rating: 3
      attached_unit: "asai-cav"
    }
  }
)pb";

v1::BattleLog SampleLog(const std::string& rest) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrCat(kSampleArmies, rest), &log))
      << rest;
  return log;
}

// Events of these tests, in text format (test_logs.h's Ev).
std::string Charge(int seq, int turn, const std::string& unit,
                   const std::string& target) {
  return Ev(seq, turn, "oda",
            absl::StrCat("charge { unit: \"", unit, "\" target: \"", target,
                         "\" fell_short: true }"));
}
std::string Morale(int seq, int turn, const std::string& clan,
                   const std::string& unit, int reason, const std::string& dice,
                   const std::string& result) {
  return Ev(seq, turn, clan,
            absl::StrCat("morale_test { unit: \"", unit, "\" reason: ", reason,
                         " dice: [ ", dice, " ] claimed_result: MORALE_RESULT_",
                         result, " }"));
}
std::string Rout(int seq, int turn, const std::string& unit) {
  return Ev(seq, turn, "asai",
            absl::StrCat("result_move { unit: \"", unit,
                         "\" kind: RESULT_MOVE_KIND_ROUT distance_mm: 90 dice: "
                         "[ 2, 5 ] }"));
}
std::string ClanTurnEnd(int seq, int turn, const std::string& clan) {
  return Ev(seq, turn, clan, "turn_end {}");
}

// The 15-event log of issue 28, which audited clean: oda-teppo charges
// asai-yumi twice in one activation, tests for its charge (reason 4: an
// unmodified 2 routs it), routs, tests to rally (an unmodified 2 disperses
// it), Oda ends its part of the turn, and asai-yumi then takes its
// being-charged test (an unmodified 2 routs it) and makes four rout moves.
constexpr char kIssue28Log[] = R"pb(
  events {
    seq: 1
    turn: 1
    turn_start {
      initiative_clan: "oda"
      initiative_dice: [ 5, 2 ]
    }
  }
  events {
    seq: 2
    turn: 1
    clan: "oda"
    activation {}
  }
  events {
    seq: 3
    turn: 1
    clan: "oda"
    charge { unit: "oda-teppo" target: "asai-yumi" }
  }
  events {
    seq: 4
    turn: 1
    clan: "oda"
    charge { unit: "oda-teppo" target: "asai-yumi" }
  }
  events {
    seq: 5
    turn: 1
    clan: "oda"
    morale_test {
      unit: "oda-teppo"
      reason: 4
      dice: [ 1, 1 ]
      claimed_result: MORALE_RESULT_ROUT
    }
  }
  events {
    seq: 6
    turn: 1
    clan: "oda"
    result_move {
      unit: "oda-teppo"
      kind: RESULT_MOVE_KIND_ROUT
      distance_mm: 100
      dice: [ 3, 4 ]
    }
  }
  events {
    seq: 7
    turn: 1
    clan: "oda"
    morale_test {
      unit: "oda-teppo"
      reason: 8
      dice: [ 1, 1 ]
      claimed_result: MORALE_RESULT_DISPERSED
    }
  }
  events {
    seq: 8
    turn: 1
    clan: "oda"
    turn_end {}
  }
  events {
    seq: 9
    turn: 1
    clan: "asai"
    morale_test {
      unit: "asai-yumi"
      reason: 2
      dice: [ 1, 1 ]
      claimed_result: MORALE_RESULT_ROUT
    }
  }
  events {
    seq: 10
    turn: 1
    clan: "asai"
    result_move {
      unit: "asai-yumi"
      kind: RESULT_MOVE_KIND_ROUT
      distance_mm: 100
      dice: [ 3, 4 ]
    }
  }
  events {
    seq: 11
    turn: 1
    clan: "asai"
    result_move {
      unit: "asai-yumi"
      kind: RESULT_MOVE_KIND_ROUT
      distance_mm: 100
      dice: [ 3, 4 ]
    }
  }
  events {
    seq: 12
    turn: 1
    clan: "asai"
    result_move {
      unit: "asai-yumi"
      kind: RESULT_MOVE_KIND_ROUT
      distance_mm: 100
      dice: [ 3, 4 ]
    }
  }
  events {
    seq: 13
    turn: 1
    clan: "asai"
    result_move {
      unit: "asai-yumi"
      kind: RESULT_MOVE_KIND_ROUT
      distance_mm: 100
      dice: [ 3, 4 ]
    }
  }
  events {
    seq: 14
    turn: 1
    clan: "asai"
    turn_end {}
  }
  events {
    seq: 15
    turn: 1
    game_end {}
  }
)pb";

// By hand: seq 4 is a second charge in the turn (reading 28), and it comes
// before asai-yumi's test for the first (reason 2, Ashigaru charged), which
// is taken when a charge is declared: that test is missing at seq 4. Seq 5 is
// owed (reason 4: Ashigaru missile troops charging) and its unmodified 2
// routs, as claimed; seq 6 is the rout move it owes. Seq 7 is a rally test
// after the unit's rout move in the same activation (a rally comes before
// the move, by a unit routing when the activation began). Seq 8, Oda's own
// turn_end, closes Oda's activation (reading 31): asai-yumi's being-charged
// test for the second charge was owed when it was declared and is missing. So
// seq 9 is a test nothing owes any more (its rout is applied, as the log played
// it); seq 10 is the rout move that rout owes, and seqs 11-13 are second, third
// and fourth rout moves in one turn (reading 29).
TEST(Regression, Issue28RepeatedChargeAndFourRoutMovesAreFound) {
  const v1::AuditReport report = AuditOrDie(SampleLog(kIssue28Log));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("4:SEVERITY_VIOLATION:daimyo.charge.once_a_turn",
                          "4:SEVERITY_VIOLATION:daimyo.morale.missing",
                          "7:SEVERITY_VIOLATION:daimyo.morale.timing",
                          "8:SEVERITY_VIOLATION:daimyo.morale.missing",
                          "9:SEVERITY_VIOLATION:daimyo.morale.not_owed",
                          "11:SEVERITY_VIOLATION:daimyo.rout.once_a_turn",
                          "12:SEVERITY_VIOLATION:daimyo.rout.once_a_turn",
                          "13:SEVERITY_VIOLATION:daimyo.rout.once_a_turn"));
}

// Found by a random playout through the legal-action list
// (tests/data/playout-melee-twice.textproto says how): oda-1 and takeda-1
// fight a round at seq 12 from oda-1's charge (seq 6), their contact ends,
// and at seq 20 they fight again in the same turn with no new charge
// between them. A pairing fights one round a turn
// (daimyo.melee.once_per_turn), so seq 20 breaks it. At seq 12 oda-1 (+4:
// improvised +1, general +2, infantry charging +1) hits on 13, 11, 16, 11:
// 4 hits; takeda-1 (+1: improvised +1, general +2, higher quality -1,
// disordered -1) on 13, 5, 10: 2 hits. 2 ahead: takeda-1 routs; its rout move
// never came, so at seq 20, its next melee round, that move is missing (reading
// 34: a result move is made as soon as its result comes; found first, as the
// round begins). The log stops there, mid-turn, so what the turn still owes is
// unverifiable, and nothing else is found.
TEST(Regression, PlayoutPairFoughtTwiceInATurn) {
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) +
                   "/playout-melee-twice.textproto");
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  EXPECT_THAT(FindingKeys(AuditOrDie(log)),
              ElementsAre("20:SEVERITY_VIOLATION:daimyo.result_move.missing",
                          "20:SEVERITY_VIOLATION:daimyo.melee.once_per_turn",
                          "20:SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
}

// Turn 1 to Oda's charge and its tests: oda-teppo charges asai-yumi (the
// charge falls short: no melee follows) and passes its reason-4 test (5 + 4
// = 9 against Seasoned 6); `asai_test` (seq 5) comes before Oda's own
// turn_end.
std::string OdaCharges(const std::string& asai_test) {
  return TurnStart(1, 1, "oda") + Activation(2, 1, "oda") +
         Charge(3, 1, "oda-teppo", "asai-yumi") +
         Morale(4, 1, "oda", "oda-teppo", 4, "5, 4", "CHARGE") + asai_test +
         ClanTurnEnd(6, 1, "oda") + Activation(7, 1, "asai") +
         ClanTurnEnd(8, 1, "asai");
}

// asai-yumi's being-charged test (reason 2, Ashigaru charged; Veteran 5:
// 4 + 4 = 8 passes, "stand or retire"; it stands).
std::string AsaiYumiStands(int seq) {
  return Morale(seq, 1, "asai", "asai-yumi", 2, "4, 4", "STAND_OR_RETIRE");
}

// The same turn played by the rules: one charge, both tests in Oda's
// activation, Oda's turn_end, Asai's activation and turn_end.
TEST(Flow, OneChargeWithItsTestsIsClean) {
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(OdaCharges(AsaiYumiStands(5))))),
              IsEmpty());
}

// Reading 31: Oda's own turn_end closes its activation, so the charge test
// asai-yumi owed from Oda's charge is missing there (seq 6); the test after
// it is owed by nothing.
TEST(Flow, ClanTurnEndClosesItsActivation) {
  const std::string events =
      TurnStart(1, 1, "oda") + Activation(2, 1, "oda") +
      Charge(3, 1, "oda-teppo", "asai-yumi") +
      Morale(4, 1, "oda", "oda-teppo", 4, "5, 4", "CHARGE") +
      ClanTurnEnd(5, 1, "oda") + AsaiYumiStands(6) + Activation(7, 1, "asai") +
      ClanTurnEnd(8, 1, "asai");
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(events))),
              ElementsAre("5:SEVERITY_VIOLATION:daimyo.morale.missing",
                          "6:SEVERITY_VIOLATION:daimyo.morale.not_owed"));
}

// Reading 39: a charge is the charger's move. oda-teppo charges asai-yumi
// (it falls short), passes its reason-4 test (9 against Seasoned 6), and
// then turns about (seq 5) and moves (seq 6): both are moves after its
// charge. asai-yumi stands (seq 7, as above). Without the charge the same
// two moves are clean (the second log).
TEST(Flow, AMoveAfterTheUnitsChargeIsAViolation) {
  const std::string turn_about = Ev(
      5, 1, "oda", "move { unit: \"oda-teppo\" kind: MOVE_KIND_TURN_ABOUT }");
  const std::string move =
      Ev(6, 1, "oda", "move { unit: \"oda-teppo\" kind: MOVE_KIND_MOVE }");
  const std::string after_charge =
      TurnStart(1, 1, "oda") + Activation(2, 1, "oda") +
      Charge(3, 1, "oda-teppo", "asai-yumi") +
      Morale(4, 1, "oda", "oda-teppo", 4, "5, 4", "CHARGE") + turn_about +
      move + AsaiYumiStands(7) + ClanTurnEnd(8, 1, "oda") +
      Activation(9, 1, "asai") + ClanTurnEnd(10, 1, "asai");
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(after_charge))),
              ElementsAre("5:SEVERITY_VIOLATION:daimyo.move.after_charge",
                          "6:SEVERITY_VIOLATION:daimyo.move.after_charge"));
  const std::string without_charge =
      TurnStart(1, 1, "oda") + Activation(2, 1, "oda") +
      Ev(3, 1, "oda", "move { unit: \"oda-teppo\" kind: MOVE_KIND_MOVE }") +
      Ev(4, 1, "oda",
         "move { unit: \"oda-teppo\" kind: MOVE_KIND_TURN_ABOUT }") +
      ClanTurnEnd(5, 1, "oda") + Activation(6, 1, "asai") +
      ClanTurnEnd(7, 1, "asai");
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(without_charge))), IsEmpty());
}

// A charge a turn: the same unit charging in turn 1 and again in turn 2 is
// two turns' charges, not a repeat. Oda's reason-4 tests pass: 9 against
// Seasoned 6. asai-cav is Elite mounted Samurai: charged by foot it owes no
// test (reasons 2 and 3 are for Ashigaru or Peasants, and infantry charged
// by cavalry).
TEST(Flow, AChargeEachTurnIsAllowed) {
  std::string events;
  for (int turn : {1, 2}) {
    const int seq = 5 * (turn - 1);
    absl::StrAppend(
        &events, TurnStart(seq + 1, turn, "oda"),
        Activation(seq + 2, turn, "oda"),
        Charge(seq + 3, turn, "oda-teppo", "asai-cav"),
        Morale(seq + 4, turn, "oda", "oda-teppo", 4, "5, 4", "CHARGE"),
        TurnEnd(seq + 5, turn));
  }
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(events))), IsEmpty());
}

// A router from before the log (turn 1 ended with asai-yumi routing).
constexpr char kRouterAfterTurn1[] = R"pb(
  starting_position {
    after_seq: 10
    turn: 1
    initiative_clan: "oda"
    phase: "turn ended"
    activated_clans: [ "oda", "asai" ]
    units {
      id: "asai-yumi"
      stands: 4
      routing: true
      has_routed: true
      disordered: true
    }
  }
)pb";

// Turn 2: Oda's activation (seq 12), then Asai's (seq 13) with
// `asai_events` (seq 14 on), and the turn's end (seq 30).
std::string Turn2(const std::string& asai_events) {
  return absl::StrCat(kRouterAfterTurn1, TurnStart(11, 2, "oda"),
                      Activation(12, 2, "oda"), Activation(13, 2, "asai"),
                      asai_events, TurnEnd(30, 2));
}

// Reading 29: on the turn after its rout, the router makes one rout move
// in its clan's activation.
TEST(Flow, RouterMakesOneRoutMoveInItsActivation) {
  EXPECT_THAT(
      FindingKeys(AuditOrDie(SampleLog(Turn2(Rout(14, 2, "asai-yumi"))))),
      IsEmpty());
}

TEST(Flow, SecondRoutMoveInATurnIsAViolation) {
  const v1::AuditReport report = AuditOrDie(
      SampleLog(Turn2(Rout(14, 2, "asai-yumi") + Rout(15, 2, "asai-yumi"))));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("15:SEVERITY_VIOLATION:daimyo.rout.once_a_turn"));
}

// The router stays put through Asai's activation: the move is missing when
// the activation ends, at the turn_end (seq 30) that ends it.
TEST(Flow, RouterThatDoesNotMoveIsAViolation) {
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(Turn2("")))),
              ElementsAre("30:SEVERITY_VIOLATION:daimyo.rout.move_missing"));
}

// A continuing rout move in the other clan's activation (Oda's, seq 12-13).
// Having moved this turn, asai-yumi owes no other move in Asai's.
TEST(Flow, RoutMoveInTheEnemyActivationIsAViolation) {
  const v1::AuditReport report = AuditOrDie(SampleLog(absl::StrCat(
      kRouterAfterTurn1, TurnStart(11, 2, "oda"), Activation(12, 2, "oda"),
      Rout(13, 2, "asai-yumi"), Activation(14, 2, "asai"), TurnEnd(15, 2))));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("13:SEVERITY_VIOLATION:daimyo.rout.timing"));
}

// The turn ends with Asai never activated: its router made no move.
TEST(Flow, RouterOfAClanNotActivatedIsAViolation) {
  const v1::AuditReport report = AuditOrDie(
      SampleLog(absl::StrCat(kRouterAfterTurn1, TurnStart(11, 2, "oda"),
                             Activation(12, 2, "oda"), TurnEnd(13, 2))));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("13:SEVERITY_VIOLATION:daimyo.rout.move_missing"));
}

// A rally test (Veteran 5+, routing -2, disordered -1: 6 + 5 - 3 = 8
// passes) rallies the unit: it owes no rout move.
TEST(Flow, RalliedRouterOwesNoMove) {
  EXPECT_THAT(FindingKeys(AuditOrDie(SampleLog(Turn2(
                  Morale(14, 2, "asai", "asai-yumi", 8, "6, 5", "RALLY"))))),
              IsEmpty());
}

// A router tests to rally once an activation. To keep the unit routing
// for a second test, the first claims "no effect" where the dice give
// Dispersed (1 + 2 - 3 = 0 against 5 fails: a dispute; the replay goes on
// with the claim, routing). Seq 15 is a second rally test this activation
// (its unmodified 12 passes: rally).
TEST(Flow, SecondRallyTestInAnActivationIsAViolation) {
  const v1::AuditReport report = AuditOrDie(SampleLog(
      Turn2(Morale(14, 2, "asai", "asai-yumi", 8, "1, 2", "NO_EFFECT") +
            Morale(15, 2, "asai", "asai-yumi", 8, "6, 6", "RALLY"))));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("14:SEVERITY_DISPUTE:daimyo.morale.result",
                          "15:SEVERITY_VIOLATION:daimyo.morale.rally_twice"));
}

}  // namespace
}  // namespace gunbai::testing
