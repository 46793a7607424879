// Oracle tests of the Daimyo morale rules (seeds/002 as settled in
// RULES-NOTES.md "Morale (002)"), run against the shipped ruleset. Every
// expected number is worked out by hand from the rules text; the arithmetic
// is in the comment beside it.
#include "rules/daimyo/morale.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/daimyo/engine.h"
#include "rules/daimyo/tables.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int kClanA = 0;
constexpr int kClanB = 1;
constexpr int kTurn = 3;
constexpr absl::string_view kModifierPrefix = "daimyo.morale.modifier.";
constexpr absl::string_view kTestRule = "daimyo.morale.test";
constexpr absl::string_view kResultRule = "daimyo.morale.result";

constexpr MoraleReasons Reasons(std::initializer_list<int> reasons) {
  MoraleReasons set = 0;
  for (const int r : reasons) set |= static_cast<MoraleReasons>(1u << r);
  return set;
}

// Returns the modifier terms of a trace, in order.
std::vector<Term> ModifierTerms(const Trace& trace) {
  std::vector<Term> terms;
  for (const Term& t : trace) {
    if (absl::string_view(t.rule_id).substr(0, kModifierPrefix.size()) ==
        kModifierPrefix) {
      terms.push_back(t);
    }
  }
  return terms;
}

// Returns the rule ids of the findings, in order.
std::vector<std::string> RuleIds(const FindingVector& sink) {
  std::vector<std::string> ids;
  for (const Finding& f : sink.findings) ids.emplace_back(f.rule_id);
  return ids;
}

// The fields of a unit's status that morale results change.
auto Snapshot(const UnitStatus& s) {
  return std::make_tuple(s.halted_until_turn, s.disordered, s.may_not_fire,
                         s.in_melee, s.routing, s.has_routed, s.frenzied,
                         s.removed, s.removal_owed, s.stands, s.pursuing);
}

// The neutral baseline: a Seasoned (pass score 6+) foot Ashigaru unit of
// clan a with 4 stands, no weapons, in good order, no leader, turn 3. No
// morale modifier applies to it, so each test adds exactly what it tests.
class MoraleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = replay::BuiltinRuleset("daimyo");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    rules_ = rules::daimyo::DaimyoRulesFromData(loaded->data);
    state_.clans = {"a", "b"};
    state_.turn = kTurn;
    state_.initiative_clan = kClanA;
    state_.active_clan = kClanA;
    state_.activated_clans = 1u << kClanA;
    state_.phase = Phase::kTurnEnded;
    unit_ = AddUnit("a1", kClanA, TroopType::kAshigaru);
  }

  // Adds a Seasoned foot unit of `clan` with 4 stands and returns its index.
  int AddUnit(std::string id, int clan, TroopType type,
              Mobility mobility = Mobility::kFoot,
              Quality quality = Quality::kSeasoned) {
    UnitProfile p;
    p.id = std::move(id);
    p.clan = clan;
    p.troop_type = type;
    p.mobility = mobility;
    p.quality = quality;
    p.starting_stands = 4;
    UnitStatus s;
    s.stands = 4;
    s.stands_per_rank = 2;
    state_.profiles.push_back(std::move(p));
    state_.units.push_back(s);
    return static_cast<int>(state_.units.size()) - 1;
  }

  // Attaches a live leader to `unit` and returns his index.
  int AttachLeader(std::string id, LeaderKind kind, int rating, int unit) {
    LeaderState l;
    l.id = std::move(id);
    l.clan = state_.profiles[unit].clan;
    l.kind = kind;
    l.command_rating = rating;
    l.attached_unit = unit;
    state_.leaders.push_back(std::move(l));
    return static_cast<int>(state_.leaders.size()) - 1;
  }

  // Returns a test by the baseline unit. `dice` must outlive it.
  MoraleTestInput Input(int reason,
                        const std::vector<std::uint32_t>& dice) const {
    MoraleTestInput in;
    in.unit = unit_;
    in.reason = reason;
    in.dice = dice;
    return in;
  }

  // Resolves a test by the baseline unit for `reason` with dice d1, d2.
  MoraleResolution Roll(int reason, std::uint32_t d1, std::uint32_t d2,
                        Trace* trace = nullptr) const {
    const std::vector<std::uint32_t> dice = {d1, d2};
    return ResolveMoraleTest(rules_, state_, Input(reason, dice), trace);
  }

  // Expects one cell of the morale table: the test for `reason` with dice
  // d1, d2 fails by `fail_by` (0: passes) and gives `result`.
  void ExpectCell(int reason, std::uint32_t d1, std::uint32_t d2, int fail_by,
                  MoraleResult result) const {
    SCOPED_TRACE(testing::Message()
                 << "reason " << reason << ", dice " << d1 << "+" << d2);
    const MoraleResolution r = Roll(reason, d1, d2);
    EXPECT_EQ(r.passed, fail_by == 0);
    EXPECT_EQ(r.fail_by, fail_by);
    EXPECT_EQ(r.result, result) << MoraleResultName(r.result);
    EXPECT_FALSE(r.automatic_pass || r.automatic_fail || r.frenzy);
  }

  // Resolves `in` with a trace and expects exactly one modifier term with
  // `value`, `rule_id` and `origin`, then the roll and the result; returns
  // the resolution.
  MoraleResolution ExpectOnlyModifier(const MoraleTestInput& in, int value,
                                      absl::string_view rule_id,
                                      Origin origin) const {
    Trace trace;
    const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, &trace);
    EXPECT_EQ(r.modifier, value);
    const std::vector<Term> terms = ModifierTerms(trace);
    EXPECT_EQ(terms.size(), 1u);
    if (!terms.empty()) {
      EXPECT_EQ(terms[0].value, value);
      EXPECT_EQ(terms[0].rule_id, rule_id);
      EXPECT_EQ(terms[0].origin, origin);
      EXPECT_FALSE(terms[0].label.empty());
    }
    EXPECT_EQ(trace.size(), 3u);  // the modifier, the roll, the result
    if (trace.size() == 3) {
      EXPECT_EQ(trace[1].rule_id, kTestRule);
      EXPECT_EQ(trace[2].rule_id, kResultRule);
    }
    return r;
  }

  // Runs CheckMoraleTest and returns the rule ids it reported; `resolvable`
  // receives its verdict.
  std::vector<std::string> Check(const MoraleTestInput& in,
                                 bool* resolvable = nullptr) const {
    FindingVector sink;
    const bool ok = CheckMoraleTest(rules_, state_, in, sink);
    if (resolvable != nullptr) *resolvable = ok;
    for (const Finding& f : sink.findings) {
      EXPECT_EQ(f.subject, "a1");
      EXPECT_EQ(f.severity, Severity::kViolation);
      EXPECT_FALSE(f.message.empty());
    }
    return RuleIds(sink);
  }

  Tables rules_;
  BattleState state_;
  int unit_ = -1;
};

// --- The shipped data against the rules text -------------------------------

TEST_F(MoraleTest, ShippedRulesetHoldsTheNumbersOfTheRulesText) {
  const MoraleRules& m = rules_.morale;
  EXPECT_EQ(m.pass_score(Quality::kElite), 4);               // "Elite 4+"
  EXPECT_EQ(m.pass_score(Quality::kVeteran), 5);             // "Veteran 5+"
  EXPECT_EQ(m.pass_score(Quality::kSeasoned), 6);            // "Seasoned 6+"
  EXPECT_EQ(m.pass_score(Quality::kRaw), 7);                 // "Raw 7+"
  EXPECT_EQ(m.modifier(MoraleModifier::kCommandRating), 1);  // "+#"
  EXPECT_EQ(m.modifier(MoraleModifier::kPursuing), 2);
  EXPECT_EQ(m.modifier(MoraleModifier::kUphillOrInCover), 1);
  EXPECT_EQ(m.modifier(MoraleModifier::kGeneralNear), 1);
  EXPECT_EQ(m.modifier(MoraleModifier::kLongSpearChargedFrontallyByCavalry), 1);
  EXPECT_EQ(m.modifier(MoraleModifier::kEnemyRoutingNear), 1);
  EXPECT_EQ(m.modifier(MoraleModifier::kHatamoto), 1);
  EXPECT_EQ(m.modifier(MoraleModifier::kDisordered), -1);
  EXPECT_EQ(m.modifier(MoraleModifier::kOutOfCommand), -1);
  EXPECT_EQ(m.modifier(MoraleModifier::kInfantryChargedByCavalry), -1);
  EXPECT_EQ(m.modifier(MoraleModifier::kEachFriendRoutingNear), -1);
  EXPECT_EQ(m.modifier(MoraleModifier::kEachStandLost), -2);
  EXPECT_EQ(m.modifier(MoraleModifier::kEnemyFacingFlankOrRearNear), -2);
  EXPECT_EQ(m.modifier(MoraleModifier::kLeaderKilledNear), -2);
  EXPECT_EQ(m.modifier(MoraleModifier::kRouting), -2);
  EXPECT_EQ(m.automatic_pass, 12);             // "unmodified roll of 12"
  EXPECT_EQ(m.automatic_fail, 2);              // "unmodified roll of 2"
  EXPECT_EQ(m.frenzy_samurai_ronin_from, 12);  // "unmodified 12"
  EXPECT_EQ(m.frenzy_warrior_monk_from, 11);   // "11 or 12"
  EXPECT_TRUE(rules_.options.stands_lost_count_whole_game());
}

// --- The baseline and the pass scores ----------------------------------------

TEST_F(MoraleTest, BaselineHasNoModifierAndTracesRollAndResult) {
  Trace trace;
  const MoraleResolution r = Roll(1, 3, 4, &trace);
  EXPECT_EQ(r.modifier, 0);
  EXPECT_EQ(r.roll, 7);        // 3+4
  EXPECT_EQ(r.total, 7);       // 7 + 0
  EXPECT_EQ(r.pass_score, 6);  // Seasoned 6+
  EXPECT_TRUE(r.passed);       // 7 >= 6
  EXPECT_EQ(r.fail_by, 0);
  EXPECT_EQ(r.result, MoraleResult::kNoEffect);  // reason 1, pass
  ASSERT_EQ(trace.size(), 2u);                   // no modifier terms
  EXPECT_EQ(trace[0].value, 7);
  EXPECT_EQ(trace[0].rule_id, kTestRule);
  EXPECT_EQ(trace[0].origin, Origin::kDice);
  EXPECT_EQ(trace[1].value, 7);
  EXPECT_EQ(trace[1].rule_id, kResultRule);
}

TEST_F(MoraleTest, ResultTermStatesTotalPassScoreAndCell) {
  Trace trace;
  const MoraleResolution r = Roll(1, 1, 3, &trace);
  EXPECT_EQ(r.fail_by, 2);  // 1+3 = 4 against 6+: fail by 2
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[1].label,
            "total 4 against 6+: fail by 2, column 1 (stand loss): retire");
}

TEST_F(MoraleTest, PassScoreElite) {
  state_.profiles[unit_].quality = Quality::kElite;
  EXPECT_EQ(Roll(1, 2, 2).pass_score, 4);
  EXPECT_TRUE(Roll(1, 2, 2).passed);    // 2+2 = 4 >= 4
  EXPECT_EQ(Roll(1, 1, 2).fail_by, 1);  // 1+2 = 3: 4 - 3 = 1
}

TEST_F(MoraleTest, PassScoreVeteran) {
  state_.profiles[unit_].quality = Quality::kVeteran;
  EXPECT_EQ(Roll(1, 2, 3).pass_score, 5);
  EXPECT_TRUE(Roll(1, 2, 3).passed);    // 2+3 = 5 >= 5
  EXPECT_EQ(Roll(1, 2, 2).fail_by, 1);  // 2+2 = 4: 5 - 4 = 1
}

TEST_F(MoraleTest, PassScoreSeasoned) {
  EXPECT_EQ(Roll(1, 3, 3).pass_score, 6);
  EXPECT_TRUE(Roll(1, 3, 3).passed);    // 3+3 = 6 >= 6
  EXPECT_EQ(Roll(1, 2, 3).fail_by, 1);  // 2+3 = 5: 6 - 5 = 1
}

TEST_F(MoraleTest, PassScoreRaw) {
  state_.profiles[unit_].quality = Quality::kRaw;
  EXPECT_EQ(Roll(1, 3, 4).pass_score, 7);
  EXPECT_TRUE(Roll(1, 3, 4).passed);    // 3+4 = 7 >= 7
  EXPECT_EQ(Roll(1, 3, 3).fail_by, 1);  // 3+3 = 6: 7 - 6 = 1
}

// --- Each modifier alone
// -------------------------------------------------------

TEST_F(MoraleTest, ModifierCommandRating) {
  AttachLeader("daimyo", LeaderKind::kDaimyo, 3, unit_);
  const std::vector<std::uint32_t> dice = {1, 2};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), 3, "daimyo.morale.modifier.command_rating",
      Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 1+2 = 3, +3 rating x1 = 6 >= 6
}

TEST_F(MoraleTest, CommandRatingIsTheHighestLiveAttachedLeader) {
  const int dead = AttachLeader("old", LeaderKind::kDaimyo, 4, unit_);
  state_.leaders[dead].killed = true;
  AttachLeader("low", LeaderKind::kDaimyo, 1, unit_);
  AttachLeader("high", LeaderKind::kDaimyo, 2, unit_);
  const std::vector<std::uint32_t> dice = {2, 2};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), 2, "daimyo.morale.modifier.command_rating",
      Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 2+2 = 4, +2 (best live rating; the dead 4 is
                          // gone) = 6 >= 6
}

TEST_F(MoraleTest, ModifierPursuing) {
  state_.units[unit_].pursuing = true;
  const std::vector<std::uint32_t> dice = {2, 2};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), 2, "daimyo.morale.modifier.pursuing", Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 2+2 = 4, +2 pursuing = 6 >= 6
}

TEST_F(MoraleTest, ModifierUphillOrInCover) {
  const std::vector<std::uint32_t> dice = {2, 3};
  MoraleTestInput in = Input(1, dice);
  in.facts.uphill_or_in_cover = true;
  const MoraleResolution r = ExpectOnlyModifier(
      in, 1, "daimyo.morale.modifier.uphill_or_cover", Origin::kDeclared);
  EXPECT_TRUE(r.passed);  // 2+3 = 5, +1 uphill = 6 >= 6
}

TEST_F(MoraleTest, ModifierGeneralNearDeclared) {
  const std::vector<std::uint32_t> dice = {2, 3};
  MoraleTestInput in = Input(1, dice);
  in.facts.general_near = true;
  const MoraleResolution r = ExpectOnlyModifier(
      in, 1, "daimyo.morale.modifier.general_near", Origin::kDeclared);
  EXPECT_TRUE(r.passed);  // 2+3 = 5, +1 general near = 6 >= 6
}

TEST_F(MoraleTest, ModifierGeneralNearComputedFromAttachedGeneral) {
  AttachLeader("gen", LeaderKind::kGeneral, 1, unit_);
  Trace trace;
  const MoraleResolution r = Roll(1, 2, 2, &trace);
  // An attached General gives his rating and counts as a general near.
  EXPECT_EQ(r.modifier, 2);  // +1 rating x1, +1 general near
  EXPECT_TRUE(r.passed);     // 2+2 = 4, +2 = 6 >= 6
  const std::vector<Term> terms = ModifierTerms(trace);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0].rule_id, "daimyo.morale.modifier.command_rating");
  EXPECT_EQ(terms[0].value, 1);
  EXPECT_EQ(terms[1].rule_id, "daimyo.morale.modifier.general_near");
  EXPECT_EQ(terms[1].value, 1);
  EXPECT_EQ(terms[1].origin, Origin::kComputed);
}

TEST_F(MoraleTest, GeneralNearCountsOnceWhenDeclaredAndAttached) {
  AttachLeader("gen", LeaderKind::kGeneral, 1, unit_);
  const std::vector<std::uint32_t> dice = {2, 2};
  MoraleTestInput in = Input(1, dice);
  in.facts.general_near = true;
  Trace trace;
  const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, &trace);
  EXPECT_EQ(r.modifier, 2);  // +1 rating, +1 general near (once, declared)
  const std::vector<Term> terms = ModifierTerms(trace);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[1].origin, Origin::kDeclared);
}

TEST_F(MoraleTest, DaimyoAttachedIsNoGeneralNear) {
  AttachLeader("daimyo", LeaderKind::kDaimyo, 1, unit_);
  EXPECT_EQ(Roll(1, 2, 2).modifier, 1);  // +1 rating only
}

TEST_F(MoraleTest, ModifierLongSpearChargedFrontallyByCavalry) {
  // Long spears charged frontally by cavalry: +1, and -1 infantry charged by
  // cavalry as well.
  state_.profiles[unit_].melee_weapon = MeleeWeapon::kLongSpear;
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  DeclareCharge(state_, cavalry, unit_);
  const std::vector<std::uint32_t> dice = {3, 3};
  MoraleTestInput in = Input(3, dice);
  in.facts.charged_frontally = true;
  Trace trace;
  const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, &trace);
  EXPECT_EQ(r.modifier, 0);  // +1 long spear, -1 infantry charged by cavalry
  EXPECT_TRUE(r.passed);     // 3+3 = 6, +0 = 6 >= 6
  const std::vector<Term> terms = ModifierTerms(trace);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0].rule_id, "daimyo.morale.modifier.long_spear_vs_cavalry");
  EXPECT_EQ(terms[0].value, 1);
  EXPECT_EQ(terms[0].origin, Origin::kDeclared);
  EXPECT_EQ(terms[1].rule_id,
            "daimyo.morale.modifier.infantry_charged_by_cavalry");
  EXPECT_EQ(terms[1].value, -1);
}

TEST_F(MoraleTest, LongSpearBonusNeedsFrontalGoodOrderAndCavalry) {
  state_.profiles[unit_].melee_weapon = MeleeWeapon::kLongSpear;
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  const int foot = AddUnit("b2", kClanB, TroopType::kSamurai);
  const std::vector<std::uint32_t> dice = {3, 3};
  MoraleTestInput in = Input(3, dice);
  in.facts.charged_frontally = true;
  // Charged frontally by foot: neither charge modifier.
  DeclareCharge(state_, foot, unit_);
  EXPECT_EQ(ResolveMoraleTest(rules_, state_, in, nullptr).modifier, 0);
  // Charged by cavalry but not frontally: only -1 infantry charged.
  DeclareCharge(state_, cavalry, unit_);
  in.facts.charged_frontally = false;
  EXPECT_EQ(ResolveMoraleTest(rules_, state_, in, nullptr).modifier, -1);
  // Frontally but disordered: -1 disordered, -1 infantry charged, no +1.
  in.facts.charged_frontally = true;
  state_.units[unit_].disordered = true;
  EXPECT_EQ(ResolveMoraleTest(rules_, state_, in, nullptr).modifier, -2);
}

TEST_F(MoraleTest, ModifierEnemyRoutingNearCountsOnce) {
  const std::vector<std::uint32_t> dice = {2, 3};
  MoraleTestInput in = Input(1, dice);
  in.facts.enemies_routing_near = 3;
  const MoraleResolution r = ExpectOnlyModifier(
      in, 1, "daimyo.morale.modifier.enemy_routing_near", Origin::kDeclared);
  EXPECT_TRUE(r.passed);  // 2+3 = 5, +1 (any enemy routing, once) = 6 >= 6
}

TEST_F(MoraleTest, ModifierHatamoto) {
  state_.profiles[unit_].troop_type = TroopType::kHatamoto;
  const std::vector<std::uint32_t> dice = {2, 3};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), 1, "daimyo.morale.modifier.hatamoto", Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 2+3 = 5, +1 hatamoto = 6 >= 6
}

TEST_F(MoraleTest, ModifierDisordered) {
  state_.units[unit_].disordered = true;
  const std::vector<std::uint32_t> dice = {3, 3};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), -1, "daimyo.morale.modifier.disordered",
      Origin::kComputed);
  EXPECT_EQ(r.fail_by, 1);  // 3+3 = 6, -1 = 5: 6 - 5 = 1
}

TEST_F(MoraleTest, ModifierOutOfCommand) {
  const std::vector<std::uint32_t> dice = {3, 3};
  MoraleTestInput in = Input(1, dice);
  in.facts.out_of_command = true;
  const MoraleResolution r = ExpectOnlyModifier(
      in, -1, "daimyo.morale.modifier.out_of_command", Origin::kDeclared);
  EXPECT_EQ(r.fail_by, 1);  // 3+3 = 6, -1 = 5: 6 - 5 = 1
}

TEST_F(MoraleTest, ModifierInfantryChargedByCavalry) {
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  DeclareCharge(state_, cavalry, unit_);
  const std::vector<std::uint32_t> dice = {3, 4};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(3, dice), -1, "daimyo.morale.modifier.infantry_charged_by_cavalry",
      Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 3+4 = 7, -1 = 6 >= 6
}

TEST_F(MoraleTest,
       ChargedByCavalryIsNoModifierForFootChargersOrMountedTesters) {
  const int foot = AddUnit("b1", kClanB, TroopType::kSamurai);
  DeclareCharge(state_, foot, unit_);
  EXPECT_EQ(Roll(2, 3, 3).modifier, 0);  // charged by foot: no -1
  const int cavalry =
      AddUnit("b2", kClanB, TroopType::kSamurai, Mobility::kMounted);
  DeclareCharge(state_, cavalry, unit_);
  state_.profiles[unit_].mobility = Mobility::kMounted;
  EXPECT_EQ(Roll(2, 3, 3).modifier, 0);  // a mounted tester is no infantry
}

// Regression (issue 16): "A charge ends when its charger routs." A foot
// unit whose cavalry charger routed takes no -1 "being charged by cavalry":
// the baseline unit, charged by cavalry b1 that then routs, rolls 3+3 = 6
// with no modifier at all.
TEST_F(MoraleTest, ChargeEndsWhenTheChargerRouts) {
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  DeclareCharge(state_, cavalry, unit_);
  EXPECT_EQ(Roll(1, 3, 3).modifier, -1);  // charged by cavalry: -1
  state_.units[cavalry].routing = true;
  EXPECT_EQ(Roll(1, 3, 3).modifier, 0);  // the charger routs: the charge ends
  EXPECT_FALSE(state_.IsBeingCharged(unit_));
}

// Regression (issue 10): the -2 "leader killed this turn within 15 cm" is
// computed for the unit's own attached leader (0 cm) killed this turn, as the
// attached General's +1 already is. A General (rating 2) attached to a1 dies
// on turn 3: no rating, no general near, -2 computed; 4+4 = 8 - 2 = 6 >= 6.
TEST_F(MoraleTest, OwnAttachedLeaderKilledThisTurnIsComputed) {
  const int general = AttachLeader("gen", LeaderKind::kGeneral, 2, unit_);
  state_.leaders[general].killed = true;
  state_.leaders[general].killed_on_turn = kTurn;
  const std::vector<std::uint32_t> dice = {4, 4};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(5, dice), -2, "daimyo.morale.modifier.leader_killed_near",
      Origin::kComputed);
  EXPECT_EQ(r.total, 6);
  // Killed on an earlier turn: not "this turn", no modifier.
  state_.leaders[general].killed_on_turn = kTurn - 1;
  EXPECT_EQ(Roll(5, 4, 4).modifier, 0);
}

// The declared fact and the attached leader's death count once: -2.
TEST_F(MoraleTest, LeaderKilledDeclaredAndComputedCountsOnce) {
  const int general = AttachLeader("gen", LeaderKind::kGeneral, 2, unit_);
  state_.leaders[general].killed = true;
  state_.leaders[general].killed_on_turn = kTurn;
  const std::vector<std::uint32_t> dice = {4, 4};
  MoraleTestInput in = Input(5, dice);
  in.facts.leader_killed_near = true;
  ExpectOnlyModifier(in, -2, "daimyo.morale.modifier.leader_killed_near",
                     Origin::kDeclared);
}

// Regression (issue 10): "a unit that is the target of firing may still
// successfully rally unless any hits were inflicted". The routing baseline
// unit (-2 routing) rolls 5+5 = 10 - 2 = 8 >= 6: a pass, so it rallies; hit
// by fire this turn, the same pass leaves it routing (no effect), under the
// rule daimyo.morale.rally_after_hits. A fail still disperses: 1+2 = 3 - 2 =
// 1 < 6.
TEST_F(MoraleTest, NoRallyAfterHitsFromFiring) {
  state_.units[unit_].routing = true;
  state_.units[unit_].has_routed = true;
  EXPECT_EQ(Roll(8, 5, 5).result, MoraleResult::kRally);
  state_.units[unit_].hit_by_fire_this_turn = true;
  Trace trace;
  const MoraleResolution r = Roll(8, 5, 5, &trace);
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.rally_barred_by_hits);
  EXPECT_EQ(r.result, MoraleResult::kNoEffect);
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.back().rule_id, "daimyo.morale.rally_after_hits");
  EXPECT_THAT(trace.back().label, HasSubstr("stays routing"));
  EXPECT_EQ(Roll(8, 1, 2).result, MoraleResult::kDispersed);
}

// Reading 21 (option missile_ashigaru_spear): missile Ashigaru whose order
// of battle names a long spear fight with improvised weapons by default, so
// they get no long-spear +1 when charged frontally by cavalry; under
// LONG_SPEAR they get it. Charged by cavalry: -1; with the spear +1: 0.
TEST_F(MoraleTest, MissileAshigaruLongSpearFollowsTheOption) {
  state_.profiles[unit_].missile_weapon = MissileWeapon::kArquebus;
  state_.profiles[unit_].melee_weapon = MeleeWeapon::kLongSpear;
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  DeclareCharge(state_, cavalry, unit_);
  const std::vector<std::uint32_t> dice = {3, 3};
  MoraleTestInput in = Input(3, dice);
  in.facts.charged_frontally = true;
  EXPECT_EQ(ResolveMoraleTest(rules_, state_, in, nullptr).modifier, -1);
  rules_.options.set_missile_ashigaru_spear(MissileAshigaruSpear::kLongSpear);
  EXPECT_EQ(ResolveMoraleTest(rules_, state_, in, nullptr).modifier, 0);
}

TEST_F(MoraleTest, ModifierEachFriendRoutingNear) {
  const int friend_unit = AddUnit("a2", kClanA, TroopType::kAshigaru);
  const std::vector<int> routers = {friend_unit};
  const std::vector<std::uint32_t> dice = {3, 4};
  MoraleTestInput in = Input(6, dice);
  in.facts.friends_routing_near = routers;
  const MoraleResolution r = ExpectOnlyModifier(
      in, -1, "daimyo.morale.modifier.friend_routing_near", Origin::kDeclared);
  EXPECT_TRUE(r.passed);  // Seasoned router, equal quality: 3+4 = 7, -1 = 6
}

TEST_F(MoraleTest, FriendsRoutingCountOnlyEqualOrHigherQuality) {
  const int elite = AddUnit("a2", kClanA, TroopType::kSamurai, Mobility::kFoot,
                            Quality::kElite);
  const int veteran = AddUnit("a3", kClanA, TroopType::kSamurai,
                              Mobility::kFoot, Quality::kVeteran);
  const int seasoned = AddUnit("a4", kClanA, TroopType::kAshigaru);
  const int raw = AddUnit("a5", kClanA, TroopType::kPeasant, Mobility::kFoot,
                          Quality::kRaw);
  const std::vector<int> routers = {elite, veteran, seasoned, raw};
  const std::vector<std::uint32_t> dice = {4, 5};
  MoraleTestInput in = Input(6, dice);
  in.facts.friends_routing_near = routers;
  Trace trace;
  const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, &trace);
  EXPECT_EQ(r.modifier, -3);  // Elite, Veteran, Seasoned: -1 each; Raw: none
  EXPECT_TRUE(r.passed);      // 4+5 = 9, -3 = 6 >= 6
  EXPECT_EQ(ModifierTerms(trace).size(), 3u);  // one term per router counted
}

TEST_F(MoraleTest, ModifierEachStandLostWholeGame) {
  state_.units[unit_].stands_lost = 2;
  state_.units[unit_].stands_lost_this_turn = 1;
  const std::vector<std::uint32_t> dice = {4, 6};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), -4, "daimyo.morale.modifier.stand_lost",
      Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 2 lost in the game x -2 = -4; 4+6 = 10, -4 = 6
}

TEST_F(MoraleTest, ModifierEachStandLostThisTurnOnlyUnderTheOption) {
  rules_.options.set_stands_lost_count_whole_game(false);
  state_.units[unit_].stands_lost = 2;
  state_.units[unit_].stands_lost_this_turn = 1;
  const std::vector<std::uint32_t> dice = {4, 4};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(1, dice), -2, "daimyo.morale.modifier.stand_lost",
      Origin::kComputed);
  EXPECT_TRUE(r.passed);  // 1 lost this turn x -2 = -2; 4+4 = 8, -2 = 6
}

TEST_F(MoraleTest, ModifierEnemyFacingFlankOrRearNear) {
  const std::vector<std::uint32_t> dice = {4, 4};
  MoraleTestInput in = Input(5, dice);
  in.facts.enemy_facing_flank_or_rear_near = true;
  const MoraleResolution r = ExpectOnlyModifier(
      in, -2, "daimyo.morale.modifier.enemy_flank_or_rear_near",
      Origin::kDeclared);
  EXPECT_TRUE(r.passed);  // 4+4 = 8, -2 = 6 >= 6
}

TEST_F(MoraleTest, ModifierLeaderKilledNear) {
  const std::vector<std::uint32_t> dice = {3, 4};
  MoraleTestInput in = Input(5, dice);
  in.facts.leader_killed_near = true;
  const MoraleResolution r = ExpectOnlyModifier(
      in, -2, "daimyo.morale.modifier.leader_killed_near", Origin::kDeclared);
  EXPECT_EQ(r.fail_by, 1);  // 3+4 = 7, -2 = 5: 6 - 5 = 1
}

TEST_F(MoraleTest, ModifierRouting) {
  state_.units[unit_].routing = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  const MoraleResolution r = ExpectOnlyModifier(
      Input(8, dice), -2, "daimyo.morale.modifier.routing", Origin::kComputed);
  EXPECT_EQ(r.result, MoraleResult::kRally);  // 4+4 = 8, -2 = 6 >= 6: rally
}

TEST_F(MoraleTest, RoutingLeaderGivesNoBonus) {
  // "A routing leader does not provide any morale bonuses": the General
  // routs with his unit; neither his rating nor "general near" counts.
  state_.units[unit_].routing = true;
  AttachLeader("gen", LeaderKind::kGeneral, 3, unit_);
  Trace trace;
  const MoraleResolution r = Roll(8, 4, 4, &trace);
  EXPECT_EQ(r.modifier, -2);  // -2 routing only
  EXPECT_TRUE(r.passed);      // 4+4 = 8, -2 = 6 >= 6
  const std::vector<Term> terms = ModifierTerms(trace);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].rule_id, "daimyo.morale.modifier.routing");
  ASSERT_EQ(trace.size(), 4u);  // note, routing, roll, result
  EXPECT_EQ(trace[0].rule_id, "daimyo.morale.routing_leader");
  EXPECT_EQ(trace[0].value, 0);
  EXPECT_THAT(trace[0].label, HasSubstr("gen"));
}

TEST_F(MoraleTest, DeclaredGeneralNearStillCountsForARouter) {
  // Another general within 15 cm is no routing leader.
  state_.units[unit_].routing = true;
  const std::vector<std::uint32_t> dice = {3, 4};
  MoraleTestInput in = Input(8, dice);
  in.facts.general_near = true;
  const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, nullptr);
  EXPECT_EQ(r.modifier, -1);  // +1 general near, -2 routing
  EXPECT_TRUE(r.passed);      // 3+4 = 7, -1 = 6 >= 6: rally
}

TEST_F(MoraleTest, ModifiersAddUpInTheOrderOfTheSection) {
  // A disordered Hatamoto unit with its Daimyo (rating 2), uphill, having
  // lost a stand, with an enemy on its flank.
  state_.profiles[unit_].troop_type = TroopType::kHatamoto;
  state_.units[unit_].disordered = true;
  state_.units[unit_].stands_lost = 1;
  AttachLeader("daimyo", LeaderKind::kDaimyo, 2, unit_);
  const std::vector<std::uint32_t> dice = {4, 3};
  MoraleTestInput in = Input(1, dice);
  in.facts.uphill_or_in_cover = true;
  in.facts.enemy_facing_flank_or_rear_near = true;
  Trace trace;
  const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, &trace);
  EXPECT_EQ(r.modifier, -1);  // +2 rating +1 uphill +1 hatamoto -1 disordered
                              // -2 stand -2 flank = -1
  EXPECT_EQ(r.total, 6);      // 4+3 = 7, -1 = 6
  EXPECT_TRUE(r.passed);      // 6 >= 6
  std::vector<absl::string_view> ids;
  for (const Term& t : ModifierTerms(trace)) ids.push_back(t.rule_id);
  EXPECT_THAT(ids,
              ElementsAre("daimyo.morale.modifier.command_rating",
                          "daimyo.morale.modifier.uphill_or_cover",
                          "daimyo.morale.modifier.hatamoto",
                          "daimyo.morale.modifier.disordered",
                          "daimyo.morale.modifier.stand_lost",
                          "daimyo.morale.modifier.enemy_flank_or_rear_near"));
}

// --- The morale table: 5 rows x 5 columns, Seasoned (6+) --------------------

TEST_F(MoraleTest, TableColumnStandLoss) {
  ExpectCell(1, 3, 3, 0, MoraleResult::kNoEffect);  // 3+3 = 6 >= 6: pass
  ExpectCell(1, 2, 3, 1, MoraleResult::kHalt);      // 2+3 = 5: fail by 1
  ExpectCell(1, 1, 3, 2, MoraleResult::kRetire);    // 1+3 = 4: fail by 2
  ExpectCell(1, 1, 2, 3, MoraleResult::kRetreat);   // 1+2 = 3: fail by 3
  state_.units[unit_].stands_lost = 2;
  ExpectCell(1, 3, 3, 4, MoraleResult::kRout);  // 3+3 = 6, -2x2 = 2: by 4
}

TEST_F(MoraleTest, TableColumnBeingCharged) {
  ExpectCell(2, 3, 3, 0, MoraleResult::kStandOrRetire);  // 6 >= 6: pass
  ExpectCell(2, 2, 3, 1, MoraleResult::kRetire);         // 5: fail by 1
  ExpectCell(2, 1, 3, 2, MoraleResult::kRetreat);        // 4: fail by 2
  ExpectCell(2, 1, 2, 3, MoraleResult::kRetreat);        // 3: fail by 3
  state_.units[unit_].stands_lost = 2;
  ExpectCell(2, 3, 3, 4, MoraleResult::kRout);  // 3+3 = 6, -4 = 2: by 4
}

TEST_F(MoraleTest, TableColumnInitiateCharge) {
  ExpectCell(4, 3, 3, 0, MoraleResult::kCharge);  // 6 >= 6: pass
  ExpectCell(4, 2, 3, 1, MoraleResult::kHalt);    // 5: fail by 1
  ExpectCell(4, 1, 3, 2, MoraleResult::kHalt);    // 4: fail by 2
  ExpectCell(4, 1, 2, 3, MoraleResult::kHalt);    // 3: fail by 3
  state_.units[unit_].stands_lost = 2;
  ExpectCell(4, 3, 3, 4, MoraleResult::kRetire);  // 3+3 = 6, -4 = 2: by 4
}

TEST_F(MoraleTest, TableColumnCriticalEvent) {
  ExpectCell(5, 3, 3, 0, MoraleResult::kNoEffect);  // 6 >= 6: pass
  ExpectCell(5, 2, 3, 1, MoraleResult::kRetire);    // 5: fail by 1
  ExpectCell(5, 1, 3, 2, MoraleResult::kRetreat);   // 4: fail by 2
  ExpectCell(5, 1, 2, 3, MoraleResult::kRout);      // 3: fail by 3
  state_.units[unit_].stands_lost = 2;
  ExpectCell(5, 3, 3, 4, MoraleResult::kRout);  // 3+3 = 6, -4 = 2: by 4
}

TEST_F(MoraleTest, TableColumnRally) {
  state_.units[unit_].routing = true;                // -2 on every roll below
  ExpectCell(8, 4, 4, 0, MoraleResult::kRally);      // 8-2 = 6 >= 6: pass
  ExpectCell(8, 3, 4, 1, MoraleResult::kDispersed);  // 7-2 = 5: fail by 1
  ExpectCell(8, 3, 3, 2, MoraleResult::kDispersed);  // 6-2 = 4: fail by 2
  ExpectCell(8, 2, 3, 3, MoraleResult::kDispersed);  // 5-2 = 3: fail by 3
  ExpectCell(8, 2, 2, 4, MoraleResult::kDispersed);  // 4-2 = 2: fail by 4
}

TEST_F(MoraleTest, ReasonsShareTheirColumns) {
  ExpectCell(3, 1, 3, 2, MoraleResult::kRetreat);  // col 2-3: 4, by 2
  ExpectCell(6, 1, 2, 3, MoraleResult::kRout);     // col 5-7: 3, by 3
  ExpectCell(7, 2, 3, 1, MoraleResult::kRetire);   // col 5-7: 5, by 1
}

TEST_F(MoraleTest, FailByMoreThanFourUsesTheLastRow) {
  state_.units[unit_].stands_lost = 2;            // -4
  ExpectCell(1, 2, 2, 6, MoraleResult::kRout);    // 2+2 = 4, -4 = 0: by 6
  ExpectCell(4, 2, 2, 6, MoraleResult::kRetire);  // same, initiate charge
  ExpectCell(2, 1, 2, 7, MoraleResult::kRout);    // 1+2 = 3, -4 = -1: by 7
  Trace trace;
  Roll(1, 2, 2, &trace);
  ASSERT_FALSE(trace.empty());
  EXPECT_THAT(trace.back().label, HasSubstr("fail by 6 (row 4+)"));
}

// --- Natural rolls -----------------------------------------------------------

TEST_F(MoraleTest, UnmodifiedTwoRoutsEvenWhenModifiersWouldPass) {
  // Elite (4+) pursuing with its Daimyo (rating 3): 1+1 = 2, +3 +2 = 7.
  state_.profiles[unit_].quality = Quality::kElite;
  state_.units[unit_].pursuing = true;
  AttachLeader("daimyo", LeaderKind::kDaimyo, 3, unit_);
  const MoraleResolution r = Roll(1, 1, 1);
  EXPECT_EQ(r.total, 7);  // 2 + 3 + 2
  EXPECT_TRUE(r.automatic_fail);
  EXPECT_FALSE(r.passed);   // 7 >= 4 would pass, but an unmodified 2 fails
  EXPECT_EQ(r.fail_by, 1);  // the shortfall 4 - 7 < 1: at least 1
  EXPECT_EQ(r.result, MoraleResult::kRout);
  // Reason 4's table never routs (4+ is retire); the natural 2 does.
  EXPECT_EQ(Roll(4, 1, 1).result, MoraleResult::kRout);
  EXPECT_EQ(Roll(2, 1, 1).result, MoraleResult::kRout);  // not stand/retire
}

TEST_F(MoraleTest, UnmodifiedTwoDispersesARallyingUnit) {
  // An Elite (4+) Hatamoto router, uphill, enemies routing, general near:
  // 1+1 = 2, -2 routing +1 hatamoto +1 +1 +1 = 4 would pass.
  state_.profiles[unit_].quality = Quality::kElite;
  state_.profiles[unit_].troop_type = TroopType::kHatamoto;
  state_.units[unit_].routing = true;
  const std::vector<std::uint32_t> dice = {1, 1};
  MoraleTestInput in = Input(8, dice);
  in.facts.uphill_or_in_cover = true;
  in.facts.enemies_routing_near = 1;
  in.facts.general_near = true;
  const MoraleResolution r = ResolveMoraleTest(rules_, state_, in, nullptr);
  EXPECT_EQ(r.total, 4);  // 2 - 2 + 1 + 1 + 1 + 1
  EXPECT_TRUE(r.automatic_fail);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.result, MoraleResult::kDispersed);
}

TEST_F(MoraleTest, UnmodifiedTwelvePassesEvenWhenModifiersWouldFail) {
  // Raw (7+) with 3 stands lost, an enemy on its flank and a leader killed
  // near: 6+6 = 12, -6 -2 -2 = 2, which would fail by 5.
  state_.profiles[unit_].quality = Quality::kRaw;
  state_.units[unit_].stands_lost = 3;
  const std::vector<std::uint32_t> dice = {6, 6};
  MoraleTestInput in = Input(1, dice);
  in.facts.enemy_facing_flank_or_rear_near = true;
  in.facts.leader_killed_near = true;
  Trace trace;
  MoraleResolution r = ResolveMoraleTest(rules_, state_, in, &trace);
  EXPECT_EQ(r.total, 2);  // 12 - 6 - 2 - 2
  EXPECT_TRUE(r.automatic_pass);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.fail_by, 0);
  EXPECT_FALSE(r.frenzy);  // Ashigaru never become frenzied
  EXPECT_EQ(r.result, MoraleResult::kNoEffect);
  EXPECT_THAT(trace.back().label, HasSubstr("always passes"));
  in.reason = 2;
  r = ResolveMoraleTest(rules_, state_, in, nullptr);
  EXPECT_EQ(r.result, MoraleResult::kStandOrRetire);  // the pass row
}

// --- Frenzy ------------------------------------------------------------------

TEST_F(MoraleTest, SamuraiBecomeFrenziedOnTwelveOnly) {
  state_.profiles[unit_].troop_type = TroopType::kSamurai;
  state_.units[unit_].stands_lost = 3;  // -6: 12 - 6 = 6 passes anyway
  MoraleResolution r = Roll(1, 6, 6);
  EXPECT_TRUE(r.frenzy);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.fail_by, 0);
  EXPECT_EQ(r.result, MoraleResult::kFrenzy);
  r = Roll(1, 5, 6);  // 11 - 6 = 5: fail by 1, no frenzy for Samurai on 11
  EXPECT_FALSE(r.frenzy);
  EXPECT_EQ(r.result, MoraleResult::kHalt);
}

TEST_F(MoraleTest, SamuraiFrenzyEvenWhenModifiersWouldFail) {
  state_.profiles[unit_].troop_type = TroopType::kSamurai;
  state_.units[unit_].stands_lost = 4;  // 12 - 8 = 4 < 6
  const MoraleResolution r = Roll(5, 6, 6);
  EXPECT_TRUE(r.frenzy);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.result, MoraleResult::kFrenzy);
}

TEST_F(MoraleTest, RoninBecomeFrenziedOnTwelve) {
  state_.profiles[unit_].troop_type = TroopType::kRonin;
  EXPECT_EQ(Roll(1, 6, 6).result, MoraleResult::kFrenzy);
  EXPECT_EQ(Roll(1, 5, 6).result, MoraleResult::kNoEffect);  // 11 >= 6
}

TEST_F(MoraleTest, WarriorMonksBecomeFrenziedOnElevenAndTwelve) {
  state_.profiles[unit_].troop_type = TroopType::kWarriorMonk;
  state_.units[unit_].stands_lost = 3;  // -6
  MoraleResolution r = Roll(1, 5, 6);   // 11 - 6 = 5 would fail by 1
  EXPECT_TRUE(r.frenzy);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.result, MoraleResult::kFrenzy);
  EXPECT_EQ(Roll(1, 6, 6).result, MoraleResult::kFrenzy);
  r = Roll(1, 4, 6);  // 10 - 6 = 4: fail by 2, no frenzy
  EXPECT_FALSE(r.frenzy);
  EXPECT_EQ(r.result, MoraleResult::kRetire);
}

TEST_F(MoraleTest, NoFrenzyWhenTestingToRally) {
  state_.profiles[unit_].troop_type = TroopType::kSamurai;
  state_.units[unit_].routing = true;
  MoraleResolution r = Roll(8, 6, 6);
  EXPECT_FALSE(r.frenzy);
  EXPECT_TRUE(r.automatic_pass);
  EXPECT_EQ(r.result, MoraleResult::kRally);
  state_.profiles[unit_].troop_type = TroopType::kWarriorMonk;
  r = Roll(8, 5, 6);  // 11 - 2 = 9 >= 6
  EXPECT_FALSE(r.frenzy);
  EXPECT_EQ(r.result, MoraleResult::kRally);
}

TEST_F(MoraleTest, NoFrenzyForAshigaruOrHatamoto) {
  EXPECT_EQ(Roll(1, 6, 6).result, MoraleResult::kNoEffect);
  state_.profiles[unit_].troop_type = TroopType::kHatamoto;
  EXPECT_EQ(Roll(1, 6, 6).result, MoraleResult::kNoEffect);
}

// --- CheckMoraleTest
// -----------------------------------------------------------

TEST_F(MoraleTest, CheckCleanTest) {
  const std::vector<std::uint32_t> dice = {3, 4};
  bool ok = false;
  EXPECT_THAT(Check(Input(1, dice), &ok), IsEmpty());
  EXPECT_TRUE(ok);
}

TEST_F(MoraleTest, CheckReasonOutsideOneToEight) {
  const std::vector<std::uint32_t> dice = {3, 4};
  bool ok = true;
  EXPECT_THAT(Check(Input(0, dice), &ok), ElementsAre("daimyo.morale.reason"));
  EXPECT_FALSE(ok);
  ok = true;
  EXPECT_THAT(Check(Input(9, dice), &ok), ElementsAre("daimyo.morale.reason"));
  EXPECT_FALSE(ok);
}

TEST_F(MoraleTest, CheckFrenziedUnitTakesNoTest) {
  state_.units[unit_].frenzied = true;
  const std::vector<std::uint32_t> dice = {3, 4};
  for (int reason = 1; reason <= 7; ++reason) {
    bool ok = false;
    EXPECT_THAT(Check(Input(reason, dice), &ok),
                ElementsAre("daimyo.morale.frenzied_no_test"))
        << "reason " << reason;
    EXPECT_TRUE(ok);  // the dice can still be read
  }
}

TEST_F(MoraleTest, CheckFrenziedRouterMayTestToRally) {
  state_.units[unit_].frenzied = true;
  state_.units[unit_].routing = true;
  const std::vector<std::uint32_t> dice = {3, 4};
  EXPECT_THAT(Check(Input(8, dice)), IsEmpty());
}

TEST_F(MoraleTest, CheckRallyByUnitNotRouting) {
  const std::vector<std::uint32_t> dice = {3, 4};
  bool ok = false;
  EXPECT_THAT(Check(Input(8, dice), &ok),
              ElementsAre("daimyo.morale.rally_not_routing"));
  EXPECT_TRUE(ok);
  state_.units[unit_].frenzied = true;  // the rally rule alone, not frenzy
  EXPECT_THAT(Check(Input(8, dice)),
              ElementsAre("daimyo.morale.rally_not_routing"));
  state_.units[unit_].frenzied = false;
  state_.units[unit_].routing = true;
  EXPECT_THAT(Check(Input(8, dice)), IsEmpty());
}

TEST_F(MoraleTest, CheckDiceCount) {
  bool ok = true;
  const std::vector<std::uint32_t> one = {3};
  EXPECT_THAT(Check(Input(1, one), &ok),
              ElementsAre("daimyo.morale.dice_count"));
  EXPECT_FALSE(ok);
  ok = true;
  const std::vector<std::uint32_t> three = {3, 4, 5};
  EXPECT_THAT(Check(Input(1, three), &ok),
              ElementsAre("daimyo.morale.dice_count"));
  EXPECT_FALSE(ok);
  ok = true;
  const std::vector<std::uint32_t> none;
  EXPECT_THAT(Check(Input(1, none), &ok),
              ElementsAre("daimyo.morale.dice_count"));
  EXPECT_FALSE(ok);
}

TEST_F(MoraleTest, CheckDieFaces) {
  bool ok = true;
  const std::vector<std::uint32_t> dice = {0, 7};
  EXPECT_THAT(Check(Input(1, dice), &ok),
              ElementsAre("log.die.range", "log.die.range"));
  EXPECT_FALSE(ok);
  ok = false;
  const std::vector<std::uint32_t> edges = {1, 6};
  EXPECT_THAT(Check(Input(1, edges), &ok), IsEmpty());
  EXPECT_TRUE(ok);
}

TEST_F(MoraleTest, CheckReportsEveryBreach) {
  state_.units[unit_].frenzied = true;
  const std::vector<std::uint32_t> dice = {9};
  bool ok = true;
  EXPECT_THAT(Check(Input(5, dice), &ok),
              ElementsAre("daimyo.morale.frenzied_no_test",
                          "daimyo.morale.dice_count", "log.die.range"));
  EXPECT_FALSE(ok);
}

// --- ApplyMoraleResult
// ---------------------------------------------------------

class MoraleApplyTest : public MoraleTest {
 protected:
  void SetUp() override {
    MoraleTest::SetUp();
    enemy_ = AddUnit("b1", kClanB, TroopType::kSamurai);
    other_ = AddUnit("b2", kClanB, TroopType::kSamurai);
  }

  // Puts the baseline unit in melee with the enemy (and the enemy alone).
  void InMelee() {
    state_.melees.push_back(MeleeContact{unit_, enemy_, 1, kTurn});
    state_.units[unit_].in_melee = true;
    state_.units[enemy_].in_melee = true;
  }

  int enemy_ = -1;
  int other_ = -1;
};

TEST_F(MoraleApplyTest, HaltHoldsThisTurnAndNext) {
  ApplyMoraleResult(state_, unit_, MoraleResult::kHalt);
  const UnitStatus& s = state_.units[unit_];
  EXPECT_EQ(s.halted_until_turn, kTurn + 1);  // turn 3 and turn 4
  EXPECT_TRUE(state_.IsHalted(unit_));
  EXPECT_FALSE(s.disordered);
  EXPECT_FALSE(s.may_not_fire);  // "may fire"
}

TEST_F(MoraleApplyTest, RetireHaltsNextTurnAndLeavesMelee) {
  InMelee();
  ApplyMoraleResult(state_, unit_, MoraleResult::kRetire);
  const UnitStatus& s = state_.units[unit_];
  EXPECT_EQ(s.halted_until_turn, kTurn + 1);
  EXPECT_FALSE(s.in_melee);
  EXPECT_THAT(state_.melees, IsEmpty());
  EXPECT_FALSE(state_.units[enemy_].in_melee);  // no contact left
  EXPECT_FALSE(s.disordered);
  EXPECT_FALSE(s.may_not_fire);  // "may fire before moving"
}

TEST_F(MoraleApplyTest, LeavingMeleeKeepsThePartnersOtherContacts) {
  InMelee();
  const int ally = AddUnit("a2", kClanA, TroopType::kSamurai);
  state_.melees.push_back(MeleeContact{ally, enemy_, 1, kTurn});
  state_.units[ally].in_melee = true;
  ApplyMoraleResult(state_, unit_, MoraleResult::kRetire);
  ASSERT_EQ(state_.melees.size(), 1u);
  EXPECT_TRUE(state_.melees[0].Between(ally, enemy_));
  EXPECT_TRUE(state_.units[enemy_].in_melee);  // still fighting the ally
  EXPECT_TRUE(state_.units[ally].in_melee);
}

TEST_F(MoraleApplyTest, RetreatDisordersHaltsAndStopsFire) {
  InMelee();
  ApplyMoraleResult(state_, unit_, MoraleResult::kRetreat);
  const UnitStatus& s = state_.units[unit_];
  EXPECT_EQ(s.halted_until_turn, kTurn + 1);
  EXPECT_TRUE(s.disordered);
  EXPECT_TRUE(s.may_not_fire);
  EXPECT_FALSE(s.in_melee);
  EXPECT_THAT(state_.melees, IsEmpty());
  EXPECT_FALSE(s.routing);
}

TEST_F(MoraleApplyTest, RoutRoutsDisordersAndEndsFrenzy) {
  InMelee();
  state_.units[unit_].frenzied = true;
  ApplyMoraleResult(state_, unit_, MoraleResult::kRout);
  const UnitStatus& s = state_.units[unit_];
  EXPECT_TRUE(s.routing);
  EXPECT_TRUE(s.has_routed);
  EXPECT_TRUE(s.disordered);
  EXPECT_TRUE(s.may_not_fire);
  EXPECT_FALSE(s.frenzied);
  EXPECT_FALSE(s.in_melee);
  EXPECT_THAT(state_.melees, IsEmpty());
  EXPECT_TRUE(s.removal_owed.empty());  // first rout
  EXPECT_FALSE(s.removed);
}

TEST_F(MoraleApplyTest, SecondRoutOwesRemoval) {
  ApplyMoraleResult(state_, unit_, MoraleResult::kRout);
  ApplyMoraleResult(state_, unit_, MoraleResult::kRally);
  EXPECT_TRUE(state_.units[unit_].removal_owed.empty());
  ApplyMoraleResult(state_, unit_, MoraleResult::kRout);
  EXPECT_EQ(state_.units[unit_].removal_owed, "routed a second time");
  EXPECT_TRUE(state_.units[unit_].routing);
}

TEST_F(MoraleApplyTest, DispersedRemovesTheUnit) {
  state_.units[unit_].routing = true;
  ApplyMoraleResult(state_, unit_, MoraleResult::kDispersed);
  EXPECT_TRUE(state_.units[unit_].removed);
}

TEST_F(MoraleApplyTest, FrenzyMakesFrenziedNotDisordered) {
  ApplyMoraleResult(state_, unit_, MoraleResult::kFrenzy);
  EXPECT_TRUE(state_.units[unit_].frenzied);
  EXPECT_FALSE(state_.units[unit_].disordered);
}

TEST_F(MoraleApplyTest, RallyEndsRoutAndFrenzy) {
  UnitStatus& s = state_.units[unit_];
  s.routing = s.has_routed = s.frenzied = true;
  ApplyMoraleResult(state_, unit_, MoraleResult::kRally);
  EXPECT_FALSE(s.routing);
  EXPECT_FALSE(s.frenzied);
  EXPECT_TRUE(s.has_routed);  // a later rout is its second
}

TEST_F(MoraleApplyTest, OtherResultsChangeNothing) {
  InMelee();
  state_.units[unit_].pursuing = true;
  const auto before = Snapshot(state_.units[unit_]);
  for (const MoraleResult r :
       {MoraleResult::kNoEffect, MoraleResult::kStandOrRetire,
        MoraleResult::kCounterCharge, MoraleResult::kCharge}) {
    ApplyMoraleResult(state_, unit_, r);
    EXPECT_EQ(Snapshot(state_.units[unit_]), before) << MoraleResultName(r);
    EXPECT_EQ(state_.melees.size(), 1u) << MoraleResultName(r);
  }
}

// --- Tests owed at a charge declaration
// ----------------------------------------

TEST_F(MoraleTest, ChargerOwesReasonFourAsAshigaruMissileOrPeasants) {
  state_.profiles[unit_].missile_weapon = MissileWeapon::kArquebus;
  EXPECT_EQ(TestsOwedByCharger(state_, unit_), Reasons({4}));
  state_.profiles[unit_].missile_weapon = MissileWeapon::kBow;
  EXPECT_EQ(TestsOwedByCharger(state_, unit_), Reasons({4}));
  state_.profiles[unit_].missile_weapon = MissileWeapon::kNone;
  state_.profiles[unit_].melee_weapon = MeleeWeapon::kLongSpear;
  EXPECT_EQ(TestsOwedByCharger(state_, unit_), 0);  // spear ashigaru
  const int peasants = AddUnit("a2", kClanA, TroopType::kPeasant);
  EXPECT_EQ(TestsOwedByCharger(state_, peasants), Reasons({4}));
  const int samurai = AddUnit("a3", kClanA, TroopType::kSamurai);
  state_.profiles[samurai].missile_weapon = MissileWeapon::kBow;
  EXPECT_EQ(TestsOwedByCharger(state_, samurai), 0);  // not Ashigaru
}

TEST_F(MoraleTest, FrenziedChargerOwesNothing) {
  const int peasants = AddUnit("a2", kClanA, TroopType::kPeasant);
  state_.units[peasants].frenzied = true;
  EXPECT_EQ(TestsOwedByCharger(state_, peasants), 0);
}

TEST_F(MoraleTest, TargetOwesReasonTwoAsAshigaruOrPeasants) {
  const int foot = AddUnit("b1", kClanB, TroopType::kSamurai);
  EXPECT_EQ(TestsOwedByTarget(state_, unit_, foot), Reasons({2}));
  const int peasants = AddUnit("a2", kClanA, TroopType::kPeasant);
  EXPECT_EQ(TestsOwedByTarget(state_, peasants, foot), Reasons({2}));
  const int samurai = AddUnit("a3", kClanA, TroopType::kSamurai);
  EXPECT_EQ(TestsOwedByTarget(state_, samurai, foot), 0);  // foot charger
}

TEST_F(MoraleTest, TargetOwesReasonThreeAsInfantryChargedByCavalry) {
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  EXPECT_EQ(TestsOwedByTarget(state_, unit_, cavalry), Reasons({2, 3}));
  const int samurai = AddUnit("a2", kClanA, TroopType::kSamurai);
  EXPECT_EQ(TestsOwedByTarget(state_, samurai, cavalry), Reasons({3}));
  const int monks = AddUnit("a3", kClanA, TroopType::kWarriorMonk);
  EXPECT_EQ(TestsOwedByTarget(state_, monks, cavalry), Reasons({3}));
  const int mounted =
      AddUnit("a4", kClanA, TroopType::kSamurai, Mobility::kMounted);
  EXPECT_EQ(TestsOwedByTarget(state_, mounted, cavalry), 0);  // not infantry
}

TEST_F(MoraleTest, EliteInfantryIsExemptFromReasonThreeOnly) {
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  const int elite_samurai = AddUnit("a2", kClanA, TroopType::kSamurai,
                                    Mobility::kFoot, Quality::kElite);
  EXPECT_EQ(TestsOwedByTarget(state_, elite_samurai, cavalry), 0);
  state_.profiles[unit_].quality = Quality::kElite;
  EXPECT_EQ(TestsOwedByTarget(state_, unit_, cavalry), Reasons({2}));
}

TEST_F(MoraleTest, FrenziedOrRoutingTargetOwesNothing) {
  const int cavalry =
      AddUnit("b1", kClanB, TroopType::kSamurai, Mobility::kMounted);
  state_.units[unit_].frenzied = true;
  EXPECT_EQ(TestsOwedByTarget(state_, unit_, cavalry), 0);
  state_.units[unit_].frenzied = false;
  state_.units[unit_].routing = true;
  EXPECT_EQ(TestsOwedByTarget(state_, unit_, cavalry), 0);
}

// --- HeedsRouter -------------------------------------------------------------

TEST_F(MoraleTest, HeedsRouter) {
  const int ashigaru = AddUnit("a2", kClanA, TroopType::kAshigaru);
  const int samurai = AddUnit("a3", kClanA, TroopType::kSamurai);
  const int cavalry =
      AddUnit("a4", kClanA, TroopType::kHatamoto, Mobility::kMounted);
  const int monks = AddUnit("a5", kClanA, TroopType::kWarriorMonk);
  // Other troops heed every router.
  EXPECT_TRUE(HeedsRouter(state_, unit_, ashigaru));
  EXPECT_TRUE(HeedsRouter(state_, unit_, samurai));
  EXPECT_TRUE(HeedsRouter(state_, monks, ashigaru));
  // Samurai heed only Samurai and cavalry.
  EXPECT_FALSE(HeedsRouter(state_, samurai, ashigaru));
  EXPECT_FALSE(HeedsRouter(state_, samurai, monks));
  EXPECT_TRUE(HeedsRouter(state_, samurai, cavalry));
  EXPECT_TRUE(HeedsRouter(state_, samurai, samurai));
  // Cavalry heed only Samurai and cavalry.
  EXPECT_FALSE(HeedsRouter(state_, cavalry, ashigaru));
  EXPECT_TRUE(HeedsRouter(state_, cavalry, samurai));
  EXPECT_TRUE(HeedsRouter(state_, cavalry, cavalry));
}

// --- HighestReason -----------------------------------------------------------

TEST_F(MoraleTest, HighestReason) {
  EXPECT_EQ(HighestReason(0), 0);
  EXPECT_EQ(HighestReason(Reasons({1})), 1);
  EXPECT_EQ(HighestReason(Reasons({1, 5})), 5);  // stand lost + daimyo: 5
  EXPECT_EQ(HighestReason(Reasons({2, 3})), 3);
  EXPECT_EQ(HighestReason(Reasons({8})), 8);
  EXPECT_EQ(HighestReason(Reasons({1, 2, 3, 4, 5, 6, 7, 8})), 8);
  EXPECT_EQ(HighestReason(MoraleReasons{1}), 0);  // bit 0 is no reason
}

}  // namespace
}  // namespace gunbai::rules::daimyo
