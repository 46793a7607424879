// Replay: sequencing, ids, dice, disputes and the as-played branch. Every
// expectation is worked by hand from the Daimyo firing rules; see the
// comments. Base armies are described in test_logs.h.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// red-teppo (Seasoned, arquebus, good order, has not moved) firing at
// blue-yumi (no armour, foot) at effective range, first volley:
// +2 first volley +1 effective = +3.
constexpr char kTurnOneOpen[] = R"pb(
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
)pb";

std::string Events(const std::string& more) { return kTurnOneOpen + more; }

v1::BattleStateSnapshot StateAfter(const v1::BattleLog& log, uint64_t seq) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  auto state = replay::StateAt(log, *ruleset, seq);
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? *state : v1::BattleStateSnapshot();
}

const v1::UnitState& Unit(const v1::BattleStateSnapshot& s,
                          const std::string& id) {
  for (const auto& u : s.units()) {
    if (u.id() == id) return u;
  }
  static const v1::UnitState kNone;
  ADD_FAILURE() << "no unit " << id;
  return kNone;
}

TEST(ReplayTest, CorrectFiringIsClean) {
  // Dice 4+1 = 5 +3 = 8: hit; 2+2 = 4 +3 = 7: miss. 1 hit, no stand.
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 2
        dice: [ 4, 1, 2, 2 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 1
        claimed_stands_lost: 0
      }
    }
    events {
      seq: 4
      turn: 1
      turn_end {}
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report), IsEmpty());
  EXPECT_EQ(report.events_replayed(), 4u);
  EXPECT_EQ(report.turns(), 1u);
  EXPECT_THAT(report.branch(), HasSubstr("no outcome was disputed"));
}

TEST(ReplayTest, DisputedHitsReplayAsPlayed) {
  // Same dice as above give 1 hit; the log claims 3 and 1 stand lost.
  const auto log = LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 2
        dice: [ 4, 1, 2, 2 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 3
        claimed_stands_lost: 1
      }
    }
  )pb"));
  auto report = AuditOrDie(log);
  ASSERT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_DISPUTE:daimyo.fire.hit",
                          // As played blue-yumi lost a stand and owes a
                          // morale test (reason 1) at the end of the turn;
                          // the log stops first, so that is listed, not
                          // judged.
                          "3:SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
  const v1::Finding& f = report.findings(0);
  EXPECT_EQ(f.claimed(), "3 hits");
  EXPECT_EQ(f.computed(), "1 hit");
  // Trace: +2 first volley, +1 effective, then the two stands (8 hit, 7).
  ASSERT_EQ(f.trace_size(), 4);
  EXPECT_EQ(f.trace(0).rule_id(), "daimyo.fire.factor.first_volley");
  EXPECT_EQ(f.trace(0).value(), 2);
  EXPECT_EQ(f.trace(1).rule_id(), "daimyo.fire.factor.effective_range");
  EXPECT_EQ(f.trace(1).origin(), v1::TERM_ORIGIN_DECLARED);
  EXPECT_EQ(f.trace(2).value(), 8);
  EXPECT_EQ(f.trace(3).value(), 7);
  EXPECT_THAT(report.branch(), HasSubstr("as played"));
  // As played: 3 hits remove one stand of blue-yumi: 4 - 1 = 3, 0 carried.
  const auto state = StateAfter(log, 3);
  EXPECT_EQ(Unit(state, "blue-yumi").stands(), 3u);
  EXPECT_EQ(Unit(state, "blue-yumi").carried_hits(), 0u);
  EXPECT_THAT(Unit(state, "blue-yumi").owed_morale_reasons(), ElementsAre(1u));
}

TEST(ReplayTest, DisputedStandLoss) {
  // 4+4 = 8 +3 = 11 hit, 6+6 +3 = 15 hit: 2 hits, no stand (2 < 3); the log
  // says 1 stand lost.
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 2
        dice: [ 4, 4, 6, 6 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 2
        claimed_stands_lost: 1
      }
    }
  )pb")));
  ASSERT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_DISPUTE:daimyo.fire.stand_loss",
                          // As played (1 stand lost) a morale test falls due
                          // at the end of the turn, after the log stops.
                          "3:SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
  EXPECT_EQ(report.findings(0).computed(), "0 stands lost");
}

TEST(ReplayTest, SequenceNumbersMustIncrease) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 2
      turn: 1
      turn_end {}
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("2:SEVERITY_VIOLATION:log.seq.order"));
}

TEST(ReplayTest, UnknownUnitIsAFindingAndTheEventIsSkipped) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "ghost"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 6, 6 ]
      }
    }
  )pb")));
  ASSERT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:log.unit.unknown"));
  EXPECT_EQ(report.findings(0).subject(), "ghost");
}

TEST(ReplayTest, DieOutsideOneToSix) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 7, 0 ]
        facts { range: RANGE_BAND_LONG }
      }
    }
  )pb")));
  // Both dice are bad; with no claim replay lands nothing and says so.
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:log.die.range",
                          "3:SEVERITY_VIOLATION:log.die.range",
                          "3:SEVERITY_UNVERIFIABLE:daimyo.fire.hit"));
}

TEST(ReplayTest, WrongNumberOfDice) {
  // 2 stands roll 4 dice; 3 were logged.
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 2
        dice: [ 6, 6, 6 ]
        facts { range: RANGE_BAND_LONG }
        claimed_hits: 2
      }
    }
  )pb")));
  ASSERT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:daimyo.fire.dice_count"));
  EXPECT_THAT(report.findings(0).message(), HasSubstr("roll 4 dice"));
}

TEST(ReplayTest, RangeMustBeDeclaredOrMeasured) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 6, 6 ]
        claimed_hits: 1
      }
    }
  )pb")));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("3:SEVERITY_UNVERIFIABLE:daimyo.fire.range.undeclared"));
}

TEST(ReplayTest, MeasuredDistanceOverrulesTheDeclaredBand) {
  // Declared long, measured 50 mm: effective (up to 80 mm). +2 first volley
  // +1 effective = +3: 3+2+3 = 8 hit, as claimed; the mismatch is a warning.
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 3, 2 ]
        facts { range: RANGE_BAND_LONG distance_mm: 50 }
        claimed_hits: 1
      }
    }
  )pb")));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("3:SEVERITY_WARNING:daimyo.fire.range.band_mismatch"));
}

TEST(ReplayTest, DeclaredBeingChargedDoesNotLetTheInactiveClanFire) {
  // blue-yumi is not charged by anyone; declaring it "being charged" only
  // sets the -1 factor and does not make it eligible to fire in red's turn.
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "blue"
      firing {
        unit: "blue-yumi"
        target: "red-teppo"
        stands_firing: 1
        dice: [ 1, 1 ]
        facts { range: RANGE_BAND_LONG firer_being_charged: true }
      }
    }
  )pb")));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("3:SEVERITY_VIOLATION:daimyo.fire.eligibility.active_clan"));
}

TEST(ReplayTest, FiringBeforeAnyActivation) {
  auto report = AuditOrDie(LogWithEvents(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "red" }
    }
    events {
      seq: 2
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 1, 1 ]
        facts { range: RANGE_BAND_LONG }
      }
    }
  )pb"));
  // Also not the active clan, since no clan is active. 1+1 +2 = 4: no hit.
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("2:SEVERITY_VIOLATION:daimyo.sequence.no_active_clan",
                  "2:SEVERITY_VIOLATION:daimyo.fire.eligibility.active_clan"));
}

TEST(ReplayTest, MoveAfterFiringIsOutOfPhase) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 1, 1 ]
        facts { range: RANGE_BAND_LONG }
        claimed_hits: 0
      }
    }
    events {
      seq: 4
      turn: 1
      clan: "red"
      move { unit: "red-samurai" }
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("4:SEVERITY_VIOLATION:daimyo.sequence.phase_order"));
}

TEST(ReplayTest, EventOutsideATurn) {
  auto report = AuditOrDie(LogWithEvents(R"pb(
    events {
      seq: 1
      turn: 0
      clan: "red"
      move { unit: "red-samurai" }
    }
  )pb"));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("1:SEVERITY_VIOLATION:daimyo.sequence.outside_turn",
                  "1:SEVERITY_VIOLATION:daimyo.sequence.no_active_clan"));
}

TEST(ReplayTest, TurnsCountUpByOne) {
  auto report = AuditOrDie(LogWithEvents(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "red" }
    }
    events {
      seq: 2
      turn: 1
      turn_end {}
    }
    events {
      seq: 3
      turn: 3
      turn_start { initiative_clan: "red" }
    }
  )pb"));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:daimyo.sequence.turn_number"));
}

TEST(ReplayTest, MissingTurnEnd) {
  auto report = AuditOrDie(LogWithEvents(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "red" }
    }
    events {
      seq: 2
      turn: 2
      turn_start { initiative_clan: "blue" }
    }
  )pb"));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("2:SEVERITY_VIOLATION:daimyo.sequence.turn_end_missing"));
}

TEST(ReplayTest, EventTurnMustMatch) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 2
      clan: "red"
      move { unit: "red-samurai" }
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:log.turn.mismatch"));
}

TEST(ReplayTest, ClanActivatesOnceATurn) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      activation {}
    }
  )pb")));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("3:SEVERITY_VIOLATION:daimyo.sequence.activation_twice"));
}

TEST(ReplayTest, NothingAfterGameEnd) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      turn_end {}
    }
    events {
      seq: 4
      turn: 1
      game_end {}
    }
    events {
      seq: 5
      turn: 2
      turn_start { initiative_clan: "red" }
    }
  )pb")));
  EXPECT_THAT(
      FindingKeys(report),
      ElementsAre("5:SEVERITY_VIOLATION:daimyo.sequence.after_game_end"));
}

TEST(ReplayTest, MovesBelongToTheActiveClan) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "blue"
      move { unit: "blue-yumi" }
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:daimyo.move.active_clan"));
}

TEST(ReplayTest, ActingClanMustOwnTheFiringUnit) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "blue"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 1, 1 ]
        facts { range: RANGE_BAND_LONG }
        claimed_hits: 0
      }
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:log.event.clan"));
}

TEST(ReplayTest, MovedUnitFiresWithMinusOne) {
  // red-teppo moved: +2 first volley +1 effective -1 moved = +2.
  // 3+3 = 6 +2 = 8: hit. Claiming 0 hits is a dispute whose trace holds the
  // computed -1 for moving.
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      move { unit: "red-teppo" }
    }
    events {
      seq: 4
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-yumi"
        stands_firing: 1
        dice: [ 3, 3 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 0
      }
    }
  )pb")));
  ASSERT_THAT(FindingKeys(report),
              ElementsAre("4:SEVERITY_DISPUTE:daimyo.fire.hit"));
  const auto& trace = report.findings(0).trace();
  ASSERT_EQ(trace.size(), 4);
  EXPECT_EQ(trace[2].rule_id(), "daimyo.fire.factor.moved");
  EXPECT_EQ(trace[2].value(), -1);
  EXPECT_EQ(trace[2].origin(), v1::TERM_ORIGIN_COMPUTED);
  EXPECT_EQ(trace[3].value(), 8);
}

TEST(ReplayTest, HeadquartersLosingItsStandKillsOnFour) {
  // red-teppo at blue-hq (no armour): +3. 5+5+3, 6+6+3, 4+4+3 all hit: 3
  // hits, 1 stand: the headquarters is gone. Its daimyo rolls 1d6 + 1 (a
  // headquarters counts as 1): 3 + 1 = 4, killed.
  const auto log = LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      firing {
        unit: "red-teppo"
        target: "blue-hq"
        stands_firing: 3
        dice: [ 5, 5, 6, 6, 4, 4 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 3
        claimed_stands_lost: 1
      }
    }
    events {
      seq: 4
      turn: 1
      clan: "blue"
      leader_loss { leader: "blue-daimyo" die: 3 claimed_killed: false }
    }
  )pb"));
  auto report = AuditOrDie(log);
  ASSERT_THAT(FindingKeys(report),
              ElementsAre("4:SEVERITY_DISPUTE:daimyo.leader_loss.roll"));
  EXPECT_EQ(report.findings(0).computed(), "killed");
  const auto state = StateAfter(log, 3);
  EXPECT_TRUE(Unit(state, "blue-hq").removed());
  EXPECT_TRUE(state.leaders(1).loss_roll_owed());
}

TEST(ReplayTest, LeaderLossRollNotOwed) {
  auto report = AuditOrDie(LogWithEvents(Events(R"pb(
    events {
      seq: 3
      turn: 1
      clan: "red"
      leader_loss { leader: "red-gen" die: 4 claimed_killed: false }
    }
  )pb")));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:daimyo.leader_loss.not_owed"));
}

TEST(ReplayTest, MissingLeaderLossRollAtTurnEnd) {
  // blue-yumi (Raw, bow) at red-samurai (mounted, heavy), blue's first
  // volley at effective range: +2 +1 -1 Raw -1 bow at heavy = +1.
  // 6+6+1 = 13, 6+5+1 = 12, 5+5+1 = 11: 3 hits, 1 stand: red-gen owes a roll.
  auto report = AuditOrDie(LogWithEvents(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "blue" }
    }
    events {
      seq: 2
      turn: 1
      clan: "blue"
      activation {}
    }
    events {
      seq: 3
      turn: 1
      clan: "blue"
      firing {
        unit: "blue-yumi"
        target: "red-samurai"
        stands_firing: 3
        dice: [ 6, 6, 6, 5, 5, 5 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 3
        claimed_stands_lost: 1
      }
    }
    events {
      seq: 4
      turn: 1
      turn_end {}
    }
  )pb"));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("4:SEVERITY_VIOLATION:daimyo.leader_loss.missing",
                          // red-samurai also owes its stand-loss test.
                          "4:SEVERITY_VIOLATION:daimyo.morale.missing"));
}

TEST(ReplayTest, LeaderLossRollStillOwedWhenTheLogStops) {
  // As in MissingLeaderLossRollAtTurnEnd, but the log stops after the
  // firing, mid-turn: the roll (and the morale test) are not overdue yet,
  // and the report lists them against the last event, seq 3.
  auto report = AuditOrDie(LogWithEvents(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "blue" }
    }
    events {
      seq: 2
      turn: 1
      clan: "blue"
      activation {}
    }
    events {
      seq: 3
      turn: 1
      clan: "blue"
      firing {
        unit: "blue-yumi"
        target: "red-samurai"
        stands_firing: 3
        dice: [ 6, 6, 6, 5, 5, 5 ]
        facts { range: RANGE_BAND_EFFECTIVE }
        claimed_hits: 3
        claimed_stands_lost: 1
      }
    }
  )pb"));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
  EXPECT_THAT(report.findings(0).message(),
              ::testing::HasSubstr("red-gen a leader-loss roll"));
}

TEST(ReplayTest, StateAtUnknownSeqIsNotFound) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  auto state = replay::StateAt(LogWithEvents(Events("")), *ruleset, 99);
  EXPECT_EQ(state.status().code(), absl::StatusCode::kNotFound);
}

TEST(ReplayTest, StateDigestsChangeWithTheState) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  auto digests = replay::StateDigests(LogWithEvents(Events(R"pb(
                                        events {
                                          seq: 3
                                          turn: 1
                                          clan: "red"
                                          move { unit: "red-samurai" }
                                        }
                                      )pb")),
                                      *ruleset);
  ASSERT_TRUE(digests.ok());
  ASSERT_EQ(digests->size(), 3u);
  EXPECT_NE((*digests)[1].digest, (*digests)[2].digest);
  EXPECT_EQ((*digests)[2].digest.size(), 64u);
}

// --- The order of battle and the header are checked before replay. ---

absl::Status AuditStatus(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  return replay::AuditLog(log, *ruleset).status();
}

TEST(OrderOfBattleTest, StandsOutOfRange) {
  auto log = BaseLog();
  log.mutable_order_of_battle()->mutable_units(2)->set_stands(0);
  const auto status = AuditStatus(log);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("order_of_battle.units[2] (id \"blue-yumi\")"));
}

TEST(OrderOfBattleTest, DuplicateUnitId) {
  auto log = BaseLog();
  log.mutable_order_of_battle()->mutable_units(1)->set_id("red-teppo");
  EXPECT_THAT(std::string(AuditStatus(log).message()), HasSubstr("used twice"));
}

TEST(OrderOfBattleTest, UnknownClan) {
  auto log = BaseLog();
  log.mutable_order_of_battle()->mutable_units(0)->set_clan("green");
  EXPECT_THAT(std::string(AuditStatus(log).message()),
              HasSubstr("clan \"green\" is not in the header"));
}

TEST(OrderOfBattleTest, LeaderAttachedToUnknownUnit) {
  auto log = BaseLog();
  log.mutable_order_of_battle()->mutable_leaders(0)->set_attached_unit("x");
  EXPECT_THAT(std::string(AuditStatus(log).message()),
              HasSubstr("order_of_battle.leaders[0]"));
}

TEST(OrderOfBattleTest, CommandRatingOneToFour) {
  auto log = BaseLog();
  log.mutable_order_of_battle()->mutable_leaders(0)->set_command_rating(5);
  EXPECT_THAT(std::string(AuditStatus(log).message()),
              HasSubstr("command_rating is 5"));
}

TEST(OrderOfBattleTest, OtherRulesetIsRefused) {
  auto log = BaseLog();
  log.mutable_header()->mutable_ruleset()->set_name("skf");
  EXPECT_THAT(std::string(AuditStatus(log).message()), HasSubstr("--ruleset"));
}

TEST(OrderOfBattleTest, OtherVersionIsAWarning) {
  auto log = BaseLog();
  log.mutable_header()->mutable_ruleset()->set_version("0.9");
  EXPECT_THAT(FindingKeys(AuditOrDie(log)),
              ElementsAre("0:SEVERITY_WARNING:log.ruleset.version"));
}

}  // namespace
}  // namespace gunbai::testing
