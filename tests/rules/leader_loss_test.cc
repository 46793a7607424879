// Oracle tests of the Daimyo leader-loss roll (seeds/004, "Result"): "roll
// 1d6 and add the number of stands remaining in the unit. A result of 4 or
// less means the leader is killed and a morale test will be required. A
// headquarters counts as 1 remaining stand." Expectations are worked out by
// hand; the arithmetic is beside each.
#include "rules/daimyo/leader_loss.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/daimyo/engine.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/tables.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {
namespace {

constexpr MoraleReasons kReason1 = MoraleReasons{1} << 1;
constexpr MoraleReasons kReason5 = MoraleReasons{1} << 5;

class LeaderLossTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = replay::BuiltinRuleset("daimyo");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    rules_ = rules::daimyo::DaimyoRulesFromData(loaded->data);
    state_.clans = {"a", "b"};
    state_.turn = 1;
    state_.active_clan = 0;
    state_.phase = Phase::kFiring;
    unit_ = AddUnit("b1", 1, TroopType::kSamurai, 4);
  }

  // Adds a unit of `clan` with `stands` stands, two a rank.
  int AddUnit(std::string id, int clan, TroopType type, int stands) {
    UnitProfile p;
    p.id = std::move(id);
    p.clan = clan;
    p.troop_type = type;
    p.starting_stands = stands;
    UnitStatus s;
    s.stands = stands;
    s.stands_per_rank = 2;
    state_.profiles.push_back(p);
    state_.units.push_back(s);
    return static_cast<int>(state_.units.size()) - 1;
  }

  // Adds a live general attached to `unit` and returns his index.
  int AttachGeneral(std::string id, int unit) {
    LeaderState l;
    l.id = std::move(id);
    l.clan = state_.profiles[unit].clan;
    l.command_rating = 2;
    l.attached_unit = unit;
    state_.leaders.push_back(l);
    return static_cast<int>(state_.leaders.size()) - 1;
  }

  // Returns a leader who owes the roll with `stands_left` stands counted.
  static LeaderState Owing(int stands_left) {
    LeaderState l;
    l.id = "gen";
    l.loss_roll_owed = true;
    l.loss_roll_stands_left = stands_left;
    return l;
  }

  Tables rules_;
  BattleState state_;
  int unit_ = -1;
};

TEST_F(LeaderLossTest, FourOrLessKills) {
  const LeaderLossResolution res =
      ResolveLeaderLoss(rules_, Owing(3), 1, nullptr);
  EXPECT_EQ(res.total, 4);  // 1 + 3 stands left = 4 <= 4: killed
  EXPECT_TRUE(res.killed);
}

TEST_F(LeaderLossTest, FiveSurvives) {
  const LeaderLossResolution res =
      ResolveLeaderLoss(rules_, Owing(3), 2, nullptr);
  EXPECT_EQ(res.total, 5);  // 2 + 3 stands left = 5 > 4: survives
  EXPECT_FALSE(res.killed);
}

TEST_F(LeaderLossTest, BoundaryWithNoStandsLeft) {
  LeaderLossResolution res = ResolveLeaderLoss(rules_, Owing(0), 4, nullptr);
  EXPECT_EQ(res.total, 4);  // 4 + 0 = 4 <= 4: killed
  EXPECT_TRUE(res.killed);
  res = ResolveLeaderLoss(rules_, Owing(0), 5, nullptr);
  EXPECT_EQ(res.total, 5);  // 5 + 0 = 5 > 4: survives
  EXPECT_FALSE(res.killed);
}

TEST_F(LeaderLossTest, ManyStandsLeftMeanTheLeaderAlwaysSurvives) {
  const LeaderLossResolution res =
      ResolveLeaderLoss(rules_, Owing(4), 1, nullptr);
  EXPECT_EQ(res.total, 5);  // 1 + 4 = 5 > 4: even a 1 survives
  EXPECT_FALSE(res.killed);
}

TEST_F(LeaderLossTest, TraceShowsDieStandsAndVerdict) {
  Trace trace;
  const LeaderLossResolution res =
      ResolveLeaderLoss(rules_, Owing(2), 2, &trace);
  EXPECT_TRUE(res.killed);  // 2 + 2 = 4 <= 4: killed
  ASSERT_EQ(trace.size(), 3u);
  EXPECT_EQ(trace[0].value, 2);  // the die
  EXPECT_EQ(trace[0].origin, Origin::kDice);
  EXPECT_EQ(trace[0].rule_id, "daimyo.leader_loss.roll");
  EXPECT_EQ(trace[1].value, 2);  // stands left
  EXPECT_EQ(trace[1].origin, Origin::kComputed);
  EXPECT_EQ(trace[1].rule_id, "daimyo.leader_loss.roll");
  EXPECT_EQ(trace[2].value, 4);  // the total
  EXPECT_EQ(trace[2].origin, Origin::kComputed);
  EXPECT_EQ(trace[2].rule_id, "daimyo.leader_loss.roll");
  EXPECT_NE(trace[2].label.find("killed"), std::string::npos);
}

TEST_F(LeaderLossTest, TraceSaysSurvives) {
  Trace trace;
  ResolveLeaderLoss(rules_, Owing(2), 3, &trace);  // 3 + 2 = 5 > 4
  ASSERT_EQ(trace.size(), 3u);
  EXPECT_EQ(trace[2].value, 5);
  EXPECT_NE(trace[2].label.find("survives"), std::string::npos);
}

TEST_F(LeaderLossTest, HeadquartersCountsAsOneStand) {
  const int hq = AddUnit("hq_b", 1, TroopType::kHeadquarters, 2);
  const int general = AttachGeneral("gen_b", hq);
  OweLeaderLossRolls(state_, hq, rules_.headquarters_counts_as_stands, 1);
  const LeaderState& l = state_.leaders[general];
  EXPECT_TRUE(l.loss_roll_owed);
  EXPECT_EQ(l.loss_roll_stands_left, 1);  // 2 stands, but an HQ counts as 1
  const LeaderLossResolution res = ResolveLeaderLoss(rules_, l, 3, nullptr);
  EXPECT_EQ(res.total, 4);  // 3 + 1 = 4 <= 4: killed (3 + 2 would survive)
  EXPECT_TRUE(res.killed);
}

TEST_F(LeaderLossTest, KilledLeaderClearsTheRollAndOwesMoraleReasonFive) {
  const int general = AttachGeneral("gen_b", unit_);
  state_.leaders[general].loss_roll_owed = true;
  state_.leaders[general].loss_roll_stands_left = 3;
  state_.units[unit_].owed_morale = kReason1;  // from the stand it lost
  ApplyLeaderLoss(state_, general, /*killed=*/true);
  const LeaderState& l = state_.leaders[general];
  EXPECT_FALSE(l.loss_roll_owed);
  EXPECT_TRUE(l.killed);
  EXPECT_FALSE(state_.HasLeaderAttached(unit_));
  EXPECT_EQ(state_.units[unit_].owed_morale,
            kReason1 | kReason5);  // bits 1 and 5: 2 + 32 = 34
  EXPECT_EQ(state_.units[unit_].owed_morale, 34);
}

TEST_F(LeaderLossTest, SurvivingLeaderClearsTheRollOnly) {
  const int general = AttachGeneral("gen_b", unit_);
  state_.leaders[general].loss_roll_owed = true;
  state_.leaders[general].loss_roll_stands_left = 3;
  state_.units[unit_].owed_morale = kReason1;
  ApplyLeaderLoss(state_, general, /*killed=*/false);
  const LeaderState& l = state_.leaders[general];
  EXPECT_FALSE(l.loss_roll_owed);
  EXPECT_FALSE(l.killed);
  EXPECT_TRUE(state_.HasLeaderAttached(unit_));
  EXPECT_EQ(state_.units[unit_].owed_morale, kReason1);  // no reason 5
}

TEST_F(LeaderLossTest, FiringToLeaderLossEndToEnd) {
  // Clan a's arquebusiers (first volley spent) shoot at effective range at
  // samurai b1 (4 stands, 2 hits carried) with a general attached.
  UnitProfile shooters;
  shooters.id = "a1";
  shooters.clan = 0;
  shooters.missile_weapon = MissileWeapon::kArquebus;
  UnitStatus shooters_status;
  shooters_status.stands = 4;
  shooters_status.stands_per_rank = 2;
  shooters_status.first_volley_spent = true;
  state_.profiles.push_back(shooters);
  state_.units.push_back(shooters_status);
  const int firer = static_cast<int>(state_.units.size()) - 1;
  state_.units[unit_].carried_hits = 2;
  const int general = AttachGeneral("gen_b", unit_);

  const std::vector<std::uint32_t> dice = {4, 3, 1, 2};
  Shot shot;
  shot.firer = firer;
  shot.target = unit_;
  shot.stands_firing = 2;
  shot.dice = dice;
  shot.facts.declared_band = RangeBand::kEffective;
  FindingVector sink;
  ASSERT_TRUE(CheckFiring(rules_, state_, shot, sink));
  EXPECT_TRUE(sink.findings.empty());
  const FiringResolution fire = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(fire.hits, 1);  // +1 effective: 4+3+1 = 8 hit, 1+2+1 = 4 miss
  const int lost = ApplyFiring(rules_, state_, shot, fire.hits, -1);
  EXPECT_EQ(lost, 1);  // 2 carried + 1 = 3: one stand, 0 carried, 3 left
  EXPECT_EQ(state_.units[unit_].owed_morale, kReason1);
  ASSERT_TRUE(state_.leaders[general].loss_roll_owed);
  EXPECT_EQ(state_.leaders[general].loss_roll_stands_left, 3);

  const LeaderLossResolution roll =
      ResolveLeaderLoss(rules_, state_.leaders[general], 1, nullptr);
  EXPECT_EQ(roll.total, 4);  // 1 + 3 = 4 <= 4: killed
  ASSERT_TRUE(roll.killed);
  ApplyLeaderLoss(state_, general, roll.killed);
  EXPECT_EQ(state_.units[unit_].owed_morale, kReason1 | kReason5);

  // A later stand loss owes no roll for the dead general.
  state_.units[firer].fired_this_turn = false;
  ApplyFiring(rules_, state_, shot, 3, -1);
  EXPECT_FALSE(state_.leaders[general].loss_roll_owed);
}

// Regression (issue 10): "Should a leader be attached to a unit losing a
// stand, roll 1d6 and add the number of stands remaining": each stand lost
// owes its own roll. 6 hits on a fresh 5-stand unit remove 2 stands (6 / 3),
// leaving 3: two rolls are owed, each counting the 3 stands left after the
// firing (the default reading, leader_roll_stands AFTER_THE_LOSS).
TEST_F(LeaderLossTest, EachStandLostOwesItsOwnRoll) {
  state_.units[unit_].stands = 5;
  const int general = AttachGeneral("gen_b", unit_);
  ApplyHits(state_.units[unit_], 6, rules_.hits_per_stand, -1);
  OweLeaderLossRolls(state_, unit_, rules_.headquarters_counts_as_stands, 2);
  LeaderState& l = state_.leaders[general];
  EXPECT_EQ(LeaderLossRollsOwed(l), 2);
  EXPECT_EQ(l.loss_roll_stands_left, 3);
  // First roll 2: 2 + 3 = 5 > 4, survives; the second is still owed.
  EXPECT_FALSE(ResolveLeaderLoss(rules_, l, 2, nullptr).killed);
  ApplyLeaderLoss(state_, general, /*killed=*/false);
  EXPECT_EQ(LeaderLossRollsOwed(l), 1);
  EXPECT_EQ(l.loss_roll_stands_left, 3);
  // Second roll 1: 1 + 3 = 4 <= 4, killed; nothing more is owed.
  EXPECT_TRUE(ResolveLeaderLoss(rules_, l, 1, nullptr).killed);
  ApplyLeaderLoss(state_, general, /*killed=*/true);
  EXPECT_EQ(LeaderLossRollsOwed(l), 0);
}

// A leader killed by the first of two owed rolls owes no second one.
TEST_F(LeaderLossTest, KilledByTheFirstRollOwesNoSecond) {
  const int general = AttachGeneral("gen_b", unit_);
  OweLeaderLossRolls(state_, unit_, rules_.headquarters_counts_as_stands, 2);
  ApplyLeaderLoss(state_, general, /*killed=*/true);
  EXPECT_EQ(LeaderLossRollsOwed(state_.leaders[general]), 0);
}

// Rolls made late, after a second loss: under AFTER_THE_LOSS each counts the
// stands left after its own loss (4, then 3); under AT_THE_ROLL both count
// the 3 the unit has when they are rolled.
TEST_F(LeaderLossTest, LateRollsCountStandsByTheOption) {
  state_.units[unit_].stands = 5;
  const int general = AttachGeneral("gen_b", unit_);
  state_.units[unit_].stands = 4;  // first loss: 4 left
  OweLeaderLossRolls(state_, unit_, rules_.headquarters_counts_as_stands, 1);
  state_.units[unit_].stands = 3;  // second loss: 3 left
  OweLeaderLossRolls(state_, unit_, rules_.headquarters_counts_as_stands, 1);
  LeaderState& l = state_.leaders[general];
  EXPECT_EQ(LeaderRollStandsCounted(rules_, state_, l), 4);
  Tables at_roll = rules_;
  at_roll.options.set_leader_roll_stands(LeaderRollStands::kAtTheRoll);
  EXPECT_EQ(LeaderRollStandsCounted(at_roll, state_, l), 3);
  ApplyLeaderLoss(state_, general, /*killed=*/false);
  EXPECT_EQ(LeaderRollStandsCounted(rules_, state_, l), 3);
}

}  // namespace
}  // namespace gunbai::rules::daimyo
