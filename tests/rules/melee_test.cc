// Oracle tests of the Daimyo melee rules (seeds/000 as settled in
// RULES-NOTES.md "Melee (000)"), run against the shipped ruleset. Every
// expected number is worked out by hand from the rules text; the arithmetic
// is in the comment beside it.
#include "rules/daimyo/melee.h"

#include <array>
#include <cstdint>
#include <string>
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

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Matcher;

constexpr int kClanA = 0;
constexpr int kClanB = 1;
constexpr int kTurn = 3;
constexpr absl::string_view kWeaponRule = "daimyo.melee.weapon";
constexpr absl::string_view kHitRule = "daimyo.melee.hit";
// Morale reason n is bit n of the reason set: 1 a stand lost, 5 a leader
// killed.
constexpr MoraleReasons kReason1 = MoraleReasons{1} << 1;
constexpr MoraleReasons kReason5 = MoraleReasons{1} << 5;

using Dice = std::vector<std::uint32_t>;

// Returns a Seasoned foot samurai profile with no armour and a sword, a
// weapon the weapon table lacks (+0).
UnitProfile Samurai(std::string id, int clan) {
  UnitProfile p;
  p.id = std::move(id);
  p.clan = clan;
  p.troop_type = TroopType::kSamurai;
  p.mobility = Mobility::kFoot;
  p.quality = Quality::kSeasoned;
  p.armour = Armour::kNone;
  p.melee_weapon = MeleeWeapon::kSword;
  p.starting_stands = 4;
  return p;
}

// Returns a unit in good order, line, `stands` stands `per_rank` wide.
UnitStatus Formed(int stands, int per_rank) {
  UnitStatus s;
  s.stands = stands;
  s.stands_per_rank = per_rank;
  return s;
}

// Returns the rule ids of the findings, in order.
std::vector<std::string> RuleIds(const FindingVector& sink) {
  std::vector<std::string> ids;
  for (const Finding& f : sink.findings) ids.emplace_back(f.rule_id);
  return ids;
}

// Returns the melee-modifier terms of a trace: all but the weapon factor and
// the per-stand terms.
std::vector<Term> ModifierTerms(const Trace& trace) {
  std::vector<Term> terms;
  for (const Term& t : trace) {
    if (t.rule_id != kWeaponRule && t.rule_id != kHitRule) terms.push_back(t);
  }
  return terms;
}

// Returns the per-stand terms of a trace.
std::vector<Term> StandTerms(const Trace& trace) {
  std::vector<Term> terms;
  for (const Term& t : trace) {
    if (t.rule_id == kHitRule) terms.push_back(t);
  }
  return terms;
}

Matcher<const Term&> TermIs(int value, absl::string_view rule_id,
                            Origin origin) {
  return AllOf(Field(&Term::value, value), Field(&Term::rule_id, rule_id),
               Field(&Term::origin, origin));
}

Matcher<const Term&> ModifierIs(MeleeModifier m, int value, Origin origin) {
  return TermIs(value, MeleeModifierRuleId(m), origin);
}

// Two fixtures share this state: clans "a" and "b", turn 3, clan a holding
// the initiative, active and in its melee phase.
class MeleeStateTest : public ::testing::Test {
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
    state_.phase = Phase::kMelee;
  }

  // Adds a unit to the state and returns its index.
  int AddUnit(UnitProfile profile, UnitStatus status) {
    state_.profiles.push_back(std::move(profile));
    state_.units.push_back(status);
    return static_cast<int>(state_.units.size()) - 1;
  }

  // Adds a live leader of `kind` attached to `unit` and returns his index.
  int AddLeader(std::string id, LeaderKind kind, int unit, int rating) {
    LeaderState l;
    l.id = std::move(id);
    l.clan = state_.profiles[unit].clan;
    l.kind = kind;
    l.command_rating = rating;
    l.attached_unit = unit;
    state_.leaders.push_back(l);
    return static_cast<int>(state_.leaders.size()) - 1;
  }

  Tables rules_;
  BattleState state_;
};

// The neutral baseline: Seasoned foot samurai of clan a with swords (4
// stands, 2 a rank, good order) meet the same of clan b, 2 stands of each in
// front contact, in the open, in the first round. No weapon factor and no
// melee modifier applies, so each test adds exactly what it tests.
class MeleeTest : public MeleeStateTest {
 protected:
  void SetUp() override {
    MeleeStateTest::SetUp();
    a_ = AddUnit(Samurai("a1", kClanA), Formed(4, 2));
    b_ = AddUnit(Samurai("b1", kClanB), Formed(4, 2));
  }

  // Returns one side of a pairing, one stand per two dice, 2 stands in front
  // contact. `dice` must outlive the pairing.
  static MeleeSideInput Side(int unit, const Dice& dice) {
    MeleeSideInput in;
    in.unit = unit;
    in.stands_fighting = static_cast<int>(dice.size()) / 2;
    in.dice = dice;
    in.facts.front_stands_in_contact = 2;
    return in;
  }

  // Returns a pairing of a1 (side 0) against b1 (side 1) in `round`.
  MeleePairing Pairing(const Dice& dice0, const Dice& dice1,
                       int round = 1) const {
    MeleePairing p;
    p.round = round;
    p.sides[0] = Side(a_, dice0);
    p.sides[1] = Side(b_, dice1);
    return p;
  }

  // Resolves side `side` of `p` with a trace into `trace_`.
  MeleeSideResolution Resolve(const MeleePairing& p, int side = 0) {
    trace_.clear();
    return ResolveMeleeSide(rules_, state_, p, side, &trace_);
  }

  // Returns MaxFightingStands for side 0 of `p`.
  int Max(const MeleePairing& p, int side = 0) const {
    return MaxFightingStands(rules_, state_, p, side);
  }

  // Runs CheckMeleePairing and returns the rule ids it reported; `resolvable`
  // receives its verdict and `sink_` keeps the findings.
  std::vector<std::string> Check(const MeleePairing& p,
                                 bool* resolvable = nullptr) {
    sink_.findings.clear();
    const bool ok = CheckMeleePairing(rules_, state_, p, sink_);
    if (resolvable != nullptr) *resolvable = ok;
    return RuleIds(sink_);
  }

  // Puts a1 and b1 in a melee contact of `rounds` rounds, last fought on
  // `last_turn`.
  void InContact(int rounds, int last_turn) {
    state_.melees.push_back(MeleeContact{a_, b_, rounds, last_turn});
    state_.units[a_].in_melee = true;
    state_.units[b_].in_melee = true;
  }

  int a_ = -1;
  int b_ = -1;
  Trace trace_;
  FindingVector sink_;
  const Dice no_dice_{};
};

// --- The shipped data against the rules text -------------------------------

TEST_F(MeleeTest, ShippedRulesetHoldsTheNumbersOfTheRulesText) {
  const MeleeRules& m = rules_.melee;
  EXPECT_EQ(m.dice_per_stand, 2);     // "rolls 2d6 for each stand"
  EXPECT_EQ(m.hit_score, 8);          // "a final total of 8 or more"
  EXPECT_EQ(m.push_back_mm, 30);      // "pushed back 3cm"
  EXPECT_EQ(m.rout_margin, 2);        // "scores 2 more hits than the loser"
  EXPECT_EQ(m.ranks_first_round, 1);  // "only ... 1 rank"
  EXPECT_EQ(m.ranks_long_spear_first_round, 2);  // "can fight with 2 ranks"
  EXPECT_EQ(m.ranks_later_rounds, 2);            // "subsequent rounds ... 2"
  EXPECT_EQ(m.ranks_disordered, 1);              // "only fight with one rank"
  EXPECT_EQ(m.overlaps_from_round, 2);  // "from the second round of melee"
  EXPECT_EQ(m.overlaps_per_flank, 1);   // "A single stand to the flank"
  EXPECT_EQ(m.front_stands_vs_headquarters, 1);  // "count 1 stand"
  EXPECT_EQ(m.max_stands_building_side, 2);      // "Up to 2 stands"
  EXPECT_EQ(m.min_command_rating, 1);            // "to a minimum of 1"
  EXPECT_EQ(m.max_command_rating, 4);            // "up to a maximum of 4"
  EXPECT_EQ(rules_.hits_per_stand, 3);  // "a stand is removed for every 3"
}

// --- The weapon table --------------------------------------------------------

TEST_F(MeleeTest, WeaponLongSpear) {
  // Round 2, so no first-round long spear bonus joins the weapon factor.
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  const Dice dice = {4, 3};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 1);  // long spear vs foot: +1
  EXPECT_EQ(res.modifier, 1);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 = 8 >= 8: hit
  ASSERT_FALSE(trace_.empty());
  EXPECT_THAT(trace_[0], TermIs(1, kWeaponRule, Origin::kComputed));
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());

  state_.profiles[b_].mobility = Mobility::kMounted;
  const Dice low = {3, 3};
  res = Resolve(Pairing(low, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 2);  // long spear vs mounted: +2
  EXPECT_EQ(res.hits, 1);           // 3+3 = 6, +2 = 8 >= 8: hit
  ASSERT_FALSE(trace_.empty());
  EXPECT_THAT(trace_[0], TermIs(2, kWeaponRule, Origin::kComputed));
}

TEST_F(MeleeTest, WeaponPoleArm) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kPoleArm;
  const Dice dice = {3, 3};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 2);  // pole arm vs foot: +2
  EXPECT_EQ(res.modifier, 2);
  EXPECT_EQ(res.hits, 1);  // 3+3 = 6, +2 = 8 >= 8: hit
  ASSERT_FALSE(trace_.empty());
  EXPECT_THAT(trace_[0], TermIs(2, kWeaponRule, Origin::kComputed));

  state_.profiles[b_].mobility = Mobility::kMounted;
  res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 2);  // pole arm vs mounted: +2
  EXPECT_EQ(res.hits, 1);           // 3+3 = 6, +2 = 8 >= 8: hit
}

TEST_F(MeleeTest, WeaponImprovised) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kImprovised;
  const Dice dice = {4, 3};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 1);  // improvised vs foot: +1
  EXPECT_EQ(res.hits, 1);           // 4+3 = 7, +1 = 8 >= 8: hit
  ASSERT_FALSE(trace_.empty());
  EXPECT_THAT(trace_[0], TermIs(1, kWeaponRule, Origin::kComputed));

  state_.profiles[b_].mobility = Mobility::kMounted;
  res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 0);  // improvised vs mounted: +0
  EXPECT_EQ(res.hits, 0);           // 4+3 = 7, +0 = 7 < 8: miss
  ASSERT_FALSE(trace_.empty());
  EXPECT_THAT(trace_[0], TermIs(0, kWeaponRule, Origin::kComputed));
}

TEST_F(MeleeTest, WeaponLance) {
  state_.profiles[a_].mobility = Mobility::kMounted;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLance;
  const Dice dice = {4, 3};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 1);  // lance vs foot: +1
  EXPECT_EQ(res.modifier, 1);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 = 8 >= 8: hit

  state_.profiles[b_].mobility = Mobility::kMounted;
  res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 1);  // lance vs mounted: +1
  EXPECT_EQ(res.hits, 1);           // 4+3 = 7, +1 = 8 >= 8: hit
  ASSERT_FALSE(trace_.empty());
  EXPECT_THAT(trace_[0], TermIs(1, kWeaponRule, Origin::kComputed));
}

TEST_F(MeleeTest, WeaponTheTableLacksFightsAtZero) {
  const Dice dice = {4, 3};
  for (MeleeWeapon w : {MeleeWeapon::kSword, MeleeWeapon::kNone}) {
    for (Mobility enemy : {Mobility::kFoot, Mobility::kMounted}) {
      SCOPED_TRACE(static_cast<int>(w) * 10 + static_cast<int>(enemy));
      state_.profiles[a_].melee_weapon = w;
      state_.profiles[b_].mobility = enemy;
      const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
      EXPECT_EQ(res.weapon_factor, 0);  // not in the table: +0
      EXPECT_EQ(res.modifier, 0);
      EXPECT_EQ(res.hits, 0);  // 4+3 = 7, +0 = 7 < 8: miss
      ASSERT_FALSE(trace_.empty());
      EXPECT_THAT(trace_[0], TermIs(0, kWeaponRule, Origin::kComputed));
    }
  }
}

TEST_F(MeleeTest, MissileArmedAshigaruUseImprovisedWeapons) {
  state_.profiles[a_].troop_type = TroopType::kAshigaru;
  state_.profiles[a_].missile_weapon = MissileWeapon::kArquebus;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  state_.profiles[b_].mobility = Mobility::kMounted;
  const Dice dice = {4, 3};
  // Round 1: as long spears they would add +2 weapon and +2 good order.
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_EQ(res.weapon_factor, 0);  // improvised vs mounted: +0
  EXPECT_EQ(res.modifier, 0);       // no long spear first-round bonus
  EXPECT_EQ(res.hits, 0);           // 4+3 = 7, +0 = 7 < 8: miss
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  // And one rank in round 1, not the long spears' two: 2 front stands.
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 1)), 2);
}

TEST_F(MeleeTest, BowArmedAshigaruUseImprovisedWeapons) {
  state_.profiles[a_].troop_type = TroopType::kAshigaru;
  state_.profiles[a_].missile_weapon = MissileWeapon::kBow;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kPoleArm;
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 1);  // improvised vs foot +1, not pole arm +2
  EXPECT_EQ(res.hits, 0);           // 3+3 = 6, +1 = 7 < 8: miss
}

TEST_F(MeleeTest, AshigaruWithoutMissilesKeepTheirWeapon) {
  state_.profiles[a_].troop_type = TroopType::kAshigaru;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  state_.profiles[b_].mobility = Mobility::kMounted;
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 2);  // long spear vs mounted: +2
  EXPECT_EQ(res.hits, 1);           // 3+3 = 6, +2 = 8 >= 8: hit
}

TEST_F(MeleeTest, MissileArmedSamuraiKeepTheirWeapon) {
  // Only missile-armed ashigaru fall back to improvised weapons.
  state_.profiles[a_].missile_weapon = MissileWeapon::kBow;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kPoleArm;
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 2);  // pole arm vs foot: +2
  EXPECT_EQ(res.hits, 1);           // 3+3 = 6, +2 = 8 >= 8: hit
}

TEST_F(MeleeTest, HeadquartersUseImprovisedWeapons) {
  state_.profiles[a_].troop_type = TroopType::kHeadquarters;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kPoleArm;
  const Dice dice = {4, 3};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 1);  // improvised vs foot +1, not pole arm +2
  EXPECT_EQ(res.hits, 1);           // 4+3 = 7, +1 = 8 >= 8: hit

  state_.profiles[b_].mobility = Mobility::kMounted;
  res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.weapon_factor, 0);  // improvised vs mounted +0, not +2
  EXPECT_EQ(res.hits, 0);           // 4+3 = 7, +0 = 7 < 8: miss
}

// --- Each melee modifier alone -----------------------------------------------

TEST_F(MeleeTest, BaselineHasNoModifierAndIsLegal) {
  const Dice dice0 = {4, 4, 4, 3};
  const Dice dice1 = {4, 3, 3, 3};
  const MeleePairing p = Pairing(dice0, dice1);
  bool ok = false;
  EXPECT_THAT(Check(p, &ok), IsEmpty());  // 2 front stands, 1 rank: 2 each
  EXPECT_TRUE(ok);
  MeleeSideResolution res = Resolve(p, 0);
  EXPECT_EQ(res.modifier, 0);
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.hits, 1);  // 4+4 = 8 hit; 4+3 = 7 miss
  res = Resolve(p, 1);
  EXPECT_EQ(res.modifier, 0);
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.hits, 0);  // 4+3 = 7 miss; 3+3 = 6 miss
}

TEST_F(MeleeTest, ModifierCavalryCharging) {
  state_.profiles[a_].mobility = Mobility::kMounted;
  DeclareCharge(state_, a_, b_);
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kCavalryCharging, 2,
                                     Origin::kComputed)));
  EXPECT_EQ(res.modifier, 2);
  EXPECT_EQ(res.hits, 1);  // 3+3 = 6, +2 cavalry charging = 8 >= 8: hit
}

TEST_F(MeleeTest, CavalryChargeOnAnotherEnemyGivesNoBonus) {
  const int b2 = AddUnit(Samurai("b2", kClanB), Formed(4, 2));
  state_.profiles[a_].mobility = Mobility::kMounted;
  DeclareCharge(state_, a_, b2);  // charged b2, fights b1
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_EQ(res.modifier, 0);
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.hits, 0);  // 4+3 = 7, +0 = 7 < 8: miss
}

TEST_F(MeleeTest, ModifierInfantryCharging) {
  DeclareCharge(state_, a_, b_);
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kInfantryCharging, 1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.modifier, 1);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 infantry charging = 8 >= 8: hit
}

TEST_F(MeleeTest, BeingChargedIsNoChargeBonus) {
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  const Dice dice = {4, 3};
  const MeleePairing p = Pairing(dice, dice);
  MeleeSideResolution res = Resolve(p, 0);  // a1 was charged
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 0);      // 4+3 = 7, +0 = 7 < 8: miss
  res = Resolve(p, 1);         // b1 charged
  EXPECT_EQ(res.modifier, 1);  // +1 infantry charging
  EXPECT_EQ(res.hits, 1);      // 4+3 = 7, +1 = 8 >= 8: hit
}

TEST_F(MeleeTest, NoChargeBonusAgainstABuilding) {
  DeclareCharge(state_, a_, b_);
  const Dice dice = {6, 4};
  MeleePairing p = Pairing(dice, no_dice_);
  p.sides[0].facts.enemy_in_building = true;
  MeleeSideResolution res = Resolve(p);
  // No +1 infantry charging; -2 enemy occupying a building.
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyInBuilding, -2,
                                     Origin::kDeclared)));
  EXPECT_EQ(res.modifier, -2);
  EXPECT_EQ(res.hits, 1);  // 6+4 = 10, -2 = 8 >= 8: hit

  state_.profiles[a_].mobility = Mobility::kMounted;  // cavalry too
  res = Resolve(p);
  EXPECT_EQ(res.modifier, -2);  // no +2 cavalry charging
}

// Regression (issue 16): a defender whose formation is a building (from the
// order of battle or a manoeuvre) occupies it, with no fact declared. "No
// charge bonus modifiers are applied to units charging a building", "-2
// Enemy occupying a building" (computed from the formation), and "up to 2
// stands may fight from or against each side of a building". a1 (infantry)
// charged b1 in a building: 6+4 = 10, no +1, -2 = 8, a hit.
TEST_F(MeleeTest, BuildingFormationIsABuildingInMelee) {
  DeclareCharge(state_, a_, b_);
  state_.units[b_].formation = Formation::kBuilding;
  state_.units[a_] = Formed(6, 3);  // 3 in front contact, 2 ranks in round 2
  const Dice dice = {6, 4};
  MeleePairing p = Pairing(dice, no_dice_);
  const MeleeSideResolution res = Resolve(p);
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyInBuilding, -2,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);
  // Stands: round 2, 3 in front contact x 2 ranks = 6 in the open; against
  // the building 2. The defender, from it: 2 too.
  p.round = 2;
  p.sides[0].facts.front_stands_in_contact = 3;
  EXPECT_EQ(Max(p, 0), 2);
  EXPECT_EQ(Max(p, 1), 2);
}

// Regression (issue 16): a charge that fell short made no contact and earns
// no charge bonus when the enemy then charges the charger. a1 (cavalry)
// charged b1 and fell short; b1 charges a1: a1 3+3 = 6, +0, a miss.
TEST_F(MeleeTest, ChargeThatFellShortEarnsNoBonus) {
  state_.profiles[a_].mobility = Mobility::kMounted;
  DeclareCharge(state_, a_, b_, /*fell_short=*/true);
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  const Dice dice = {3, 3};
  const MeleePairing p = Pairing(dice, dice);
  EXPECT_EQ(Resolve(p, 0).modifier, 0);  // no +2 cavalry charging
  EXPECT_EQ(Resolve(p, 1).modifier, 1);  // b1: +1 infantry charging
}

// Regression (issue 16): a charge whose melee already fought its round this
// turn does not earn the bonus again when the enemy now charges. a1 charged
// b1 (+1), fought, lost and was pushed back; b1 then charges a1: a1 fights
// at +0, b1 at +1 infantry charging.
TEST_F(MeleeTest, ChargeBonusBelongsToTheContactItMade) {
  DeclareCharge(state_, a_, b_);
  const Dice dice = {4, 3};
  MeleePairing first = Pairing(dice, dice);
  EXPECT_EQ(Resolve(first, 0).modifier, 1);
  ApplyMeleeRound(rules_, state_, first, {0, 1}, {-1, -1});
  // The push back ended the contact; b1 charges a1 later in the turn.
  state_.melees.clear();
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  const MeleePairing second = Pairing(dice, dice);
  EXPECT_EQ(Resolve(second, 0).modifier, 0);  // 4+3 = 7 < 8: a miss
  EXPECT_EQ(Resolve(second, 1).modifier, 1);  // 4+3 +1 = 8: a hit
}

// Regression (issue 16): "+2 Pursuing" belongs to a pursuit that meets a
// fresh enemy; when that enemy declares a charge on the former pursuer the
// contact is its charge. a1 pursued last turn; b1 charges it now: a1 +0,
// 3+3 = 6, a miss (the pursuit bonus would have made it 8, a hit).
TEST_F(MeleeTest, NoPursuingBonusWhenTheFreshEnemyCharges) {
  state_.units[a_].pursued_on_turn = kTurn - 1;
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.hits, 0);
}

TEST_F(MeleeTest, ModifierGeneralWithUnit) {
  AddLeader("ga", LeaderKind::kGeneral, a_, 2);
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kGeneralWithUnit, 2,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);  // 3+3 = 6, +2 general = 8 >= 8: hit
}

TEST_F(MeleeTest, KilledOrEnemyGeneralGivesNothing) {
  const int g = AddLeader("ga", LeaderKind::kGeneral, a_, 2);
  state_.leaders[g].killed = true;
  AddLeader("gb", LeaderKind::kGeneral, b_, 2);  // with the enemy
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 0);  // 3+3 = 6 < 8: miss
}

TEST_F(MeleeTest, ModifierDaimyoWithUnit) {
  AddLeader("da", LeaderKind::kDaimyo, a_, 3);
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kDaimyoWithUnit, 1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 daimyo = 8 >= 8: hit
}

TEST_F(MeleeTest, ModifierFrenzied) {
  state_.units[a_].frenzied = true;
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(
      ModifierTerms(trace_),
      ElementsAre(ModifierIs(MeleeModifier::kFrenzied, 2, Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);  // 3+3 = 6, +2 frenzied = 8 >= 8: hit
}

TEST_F(MeleeTest, ModifierPursuingDeclared) {
  const Dice dice = {3, 3};
  MeleePairing p = Pairing(dice, no_dice_);
  p.sides[0].facts.pursuing = true;
  const MeleeSideResolution res = Resolve(p);
  EXPECT_THAT(
      ModifierTerms(trace_),
      ElementsAre(ModifierIs(MeleeModifier::kPursuing, 2, Origin::kDeclared)));
  EXPECT_EQ(res.hits, 1);  // 3+3 = 6, +2 pursuing = 8 >= 8: hit
}

TEST_F(MeleeTest, ModifierPursuingFromLastTurnsPursuit) {
  // The pursuit met this enemy last turn; "any melee will take place on the
  // following turn" with +2 for pursuing.
  state_.units[a_].pursued_on_turn = kTurn - 1;
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(
      ModifierTerms(trace_),
      ElementsAre(ModifierIs(MeleeModifier::kPursuing, 2, Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);  // 3+3 = 6, +2 pursuing = 8 >= 8: hit
}

TEST_F(MeleeTest, PursuitTwoTurnsAgoGivesNothing) {
  // "A pursuit only lasts one turn."
  state_.units[a_].pursued_on_turn = kTurn - 2;
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 0);  // 3+3 = 6 < 8: miss
}

TEST_F(MeleeTest, PursuitThisTurnGivesNoBonusAgainstALaterCharger) {
  // a1 routed an enemy and pursued this turn; a melee its pursuit brings on
  // "will take place on the following turn". Later this turn b1 charges it:
  // a1 fights b1 "as normal", not as a pursuer.
  state_.units[a_].pursued_on_turn = kTurn;
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  const Dice dice = {3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 0);  // 3+3 = 6, +0 = 6 < 8: miss
}

TEST_F(MeleeTest, FollowUpThisTurnGivesNoBonusAgainstALaterCharger) {
  // a1 followed up a push back this turn; its next round with that enemy is
  // next turn. Later this turn b1 charges it: no following-up bonus.
  state_.units[a_].followed_up_on_turn = kTurn;
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 0);  // 4+3 = 7, +0 = 7 < 8: miss
}

TEST_F(MeleeTest, ModifierFollowingUpDeclared) {
  const Dice dice = {4, 3};
  MeleePairing p = Pairing(dice, no_dice_, 2);
  p.sides[0].facts.following_up = true;
  const MeleeSideResolution res = Resolve(p);
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kFollowingUp, 1,
                                     Origin::kDeclared)));
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 following up = 8 >= 8: hit
}

TEST_F(MeleeTest, ModifierFollowingUpFromLastTurnsFollowUp) {
  state_.units[a_].followed_up_on_turn = kTurn - 1;
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kFollowingUp, 1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 following up = 8 >= 8: hit
}

TEST_F(MeleeTest, FollowUpTwoTurnsAgoGivesNothing) {
  state_.units[a_].followed_up_on_turn = kTurn - 2;
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 0);  // 4+3 = 7 < 8: miss
}

TEST_F(MeleeTest, ModifierLongSpearGoodOrderFirstRound) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  const Dice dice = {3, 2};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(
                  MeleeModifier::kGoodOrderLongSpearOrLanceFirstRound, 2,
                  Origin::kComputed)));
  EXPECT_EQ(res.weapon_factor, 1);  // long spear vs foot
  EXPECT_EQ(res.modifier, 3);       // +1 weapon +2 good order first round
  EXPECT_EQ(res.hits, 1);           // 3+2 = 5, +3 = 8 >= 8: hit
}

TEST_F(MeleeTest, LongSpearBonusNotInSecondRound) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  const Dice dice = {3, 2};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.modifier, 1);  // +1 weapon only
  EXPECT_EQ(res.hits, 0);      // 3+2 = 5, +1 = 6 < 8: miss
}

TEST_F(MeleeTest, LongSpearBonusNotWhenDisordered) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  state_.units[a_].disordered = true;
  const Dice dice = {4, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kDisordered, -1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.modifier, 0);  // +1 weapon -1 disordered, no +2
  EXPECT_EQ(res.hits, 0);      // 4+3 = 7, +0 = 7 < 8: miss
}

TEST_F(MeleeTest, ModifierLanceGoodOrderFirstRound) {
  state_.profiles[a_].mobility = Mobility::kMounted;
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLance;
  const Dice dice = {3, 2};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(
                  MeleeModifier::kGoodOrderLongSpearOrLanceFirstRound, 2,
                  Origin::kComputed)));
  EXPECT_EQ(res.modifier, 3);  // +1 lance vs foot +2 good order first round
  EXPECT_EQ(res.hits, 1);      // 3+2 = 5, +3 = 8 >= 8: hit

  res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_EQ(res.modifier, 1);  // round 2: +1 lance only
  EXPECT_EQ(res.hits, 0);      // 3+2 = 5, +1 = 6 < 8: miss

  state_.units[a_].disordered = true;
  res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_EQ(res.modifier, 0);  // +1 lance -1 disordered, no +2
}

TEST_F(MeleeTest, ModifierPoleArmGoodOrderFirstRound) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kPoleArm;
  const Dice dice = {3, 2};
  MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kGoodOrderPoleArmFirstRound,
                                     1, Origin::kComputed)));
  EXPECT_EQ(res.modifier, 3);  // +2 pole arm vs foot +1 good order first
  EXPECT_EQ(res.hits, 1);      // 3+2 = 5, +3 = 8 >= 8: hit

  res = Resolve(Pairing(dice, no_dice_, 2));
  EXPECT_THAT(ModifierTerms(trace_), IsEmpty());
  EXPECT_EQ(res.modifier, 2);  // round 2: +2 pole arm only
  EXPECT_EQ(res.hits, 0);      // 3+2 = 5, +2 = 7 < 8: miss

  state_.units[a_].disordered = true;
  res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_EQ(res.modifier, 1);  // +2 pole arm -1 disordered, no +1
}

TEST_F(MeleeTest, ModifierEnemyHeavyArmour) {
  state_.profiles[b_].armour = Armour::kHeavy;
  const Dice dice = {6, 4};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyHeavyArmour, -2,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 1);  // 6+4 = 10, -2 heavy armour = 8 >= 8: hit
}

TEST_F(MeleeTest, ModifierEnemyMediumArmour) {
  state_.profiles[b_].armour = Armour::kMedium;
  const Dice dice = {4, 4};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyMediumArmour, -1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 medium armour = 7 < 8: miss
}

TEST_F(MeleeTest, EnemyLightArmourIsNoModifier) {
  state_.profiles[b_].armour = Armour::kLight;
  const Dice dice = {4, 4};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_EQ(res.modifier, 0);  // only medium (-1) and heavy (-2) count
  EXPECT_EQ(res.hits, 1);      // 4+4 = 8 >= 8: hit
}

TEST_F(MeleeTest, OwnArmourIsNoModifier) {
  state_.profiles[a_].armour = Armour::kHeavy;  // a1's own armour
  const Dice dice = {4, 4};
  const MeleePairing p = Pairing(dice, dice);
  EXPECT_EQ(Resolve(p, 0).modifier, 0);
  EXPECT_EQ(Resolve(p, 1).modifier, -2);  // b1 fights heavy-armoured a1
}

TEST_F(MeleeTest, ModifierEnemyFightingToFlankOrRear) {
  const Dice dice = {6, 4};
  MeleePairing p = Pairing(dice, no_dice_);
  p.sides[0].facts.enemy_fighting_to_flank_or_rear = true;
  const MeleeSideResolution res = Resolve(p);
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyFightingToFlankOrRear,
                                     -2, Origin::kDeclared)));
  EXPECT_EQ(res.hits, 1);  // 6+4 = 10, -2 flank/rear = 8 >= 8: hit
}

TEST_F(MeleeTest, ModifierEnemyInBuilding) {
  const Dice dice = {6, 3};
  MeleePairing p = Pairing(dice, no_dice_);
  p.sides[0].facts.enemy_in_building = true;
  const MeleeSideResolution res = Resolve(p);
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyInBuilding, -2,
                                     Origin::kDeclared)));
  EXPECT_EQ(res.hits, 0);  // 6+3 = 9, -2 building = 7 < 8: miss
}

TEST_F(MeleeTest, ModifierEnemyHigherQuality) {
  state_.profiles[b_].quality = Quality::kVeteran;  // a1 is Seasoned
  const Dice dice = {4, 4};
  const MeleePairing p = Pairing(dice, dice);
  MeleeSideResolution res = Resolve(p, 0);
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kEnemyHigherQuality, -1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 higher quality = 7 < 8: miss
  res = Resolve(p, 1);     // the Veteran side: its enemy is lower
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.hits, 1);  // 4+4 = 8 >= 8: hit
}

TEST_F(MeleeTest, HigherQualityFollowsEliteVeteranSeasonedRaw) {
  struct Case {
    Quality mine;
    Quality enemy;
    int modifier;
  };
  const Case cases[] = {
      {Quality::kVeteran, Quality::kElite, -1},
      {Quality::kSeasoned, Quality::kVeteran, -1},
      {Quality::kRaw, Quality::kSeasoned, -1},
      {Quality::kRaw, Quality::kElite, -1},   // -1 however wide the gap
      {Quality::kElite, Quality::kElite, 0},  // equal: nothing
      {Quality::kVeteran, Quality::kVeteran, 0},
      {Quality::kSeasoned, Quality::kSeasoned, 0},
      {Quality::kRaw, Quality::kRaw, 0},
      {Quality::kElite, Quality::kRaw, 0},  // enemy lower: nothing
      {Quality::kVeteran, Quality::kSeasoned, 0},
  };
  const Dice dice = {4, 4};
  for (const Case& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.mine) * 10 + static_cast<int>(c.enemy));
    state_.profiles[a_].quality = c.mine;
    state_.profiles[b_].quality = c.enemy;
    EXPECT_EQ(Resolve(Pairing(dice, no_dice_)).modifier, c.modifier);
  }
}

TEST_F(MeleeTest, ModifierDisordered) {
  state_.units[a_].disordered = true;
  const Dice dice = {4, 4};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  EXPECT_THAT(ModifierTerms(trace_),
              ElementsAre(ModifierIs(MeleeModifier::kDisordered, -1,
                                     Origin::kComputed)));
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 disordered = 7 < 8: miss
}

TEST_F(MeleeTest, ModifierEnemyUphillOrBehindObstacle) {
  const Dice dice = {5, 4};
  MeleePairing p = Pairing(dice, no_dice_);
  p.sides[0].facts.enemy_uphill_or_behind_obstacle = true;
  const MeleeSideResolution res = Resolve(p);
  EXPECT_THAT(
      ModifierTerms(trace_),
      ElementsAre(ModifierIs(MeleeModifier::kEnemyUphillOrBehindObstacle, -1,
                             Origin::kDeclared)));
  EXPECT_EQ(res.hits, 1);  // 5+4 = 9, -1 uphill = 8 >= 8: hit
}

TEST_F(MeleeTest, SeveralModifiersAddUp) {
  // Long spears with their general, in good order in round 1, against
  // Veteran cavalry in heavy armour.
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  AddLeader("ga", LeaderKind::kGeneral, a_, 2);
  state_.profiles[b_].mobility = Mobility::kMounted;
  state_.profiles[b_].armour = Armour::kHeavy;
  state_.profiles[b_].quality = Quality::kVeteran;
  const Dice dice = {2, 3, 2, 2};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 1));
  EXPECT_EQ(res.weapon_factor, 2);  // long spear vs mounted
  // +2 weapon +2 long spear first round +2 general -2 heavy -1 quality = +3
  EXPECT_EQ(res.modifier, 3);
  EXPECT_EQ(ModifierTerms(trace_).size(), 4u);
  const std::vector<Term> stands = StandTerms(trace_);
  ASSERT_EQ(stands.size(), 2u);
  EXPECT_EQ(stands[0].value, 8);  // 2+3 = 5, +3 = 8: hit
  EXPECT_EQ(stands[1].value, 7);  // 2+2 = 4, +3 = 7: miss
  EXPECT_EQ(res.hits, 1);
}

// --- Hits ------------------------------------------------------------------

TEST_F(MeleeTest, EachStandRollsTwoDiceAndEightHits) {
  const Dice dice = {3, 4, 4, 4, 6, 6, 1, 1};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_, 2));
  const std::vector<Term> stands = StandTerms(trace_);
  ASSERT_EQ(stands.size(), 4u);
  EXPECT_EQ(stands[0].value, 7);   // 3+4 = 7: miss
  EXPECT_EQ(stands[1].value, 8);   // 4+4 = 8: hit
  EXPECT_EQ(stands[2].value, 12);  // 6+6 = 12: hit
  EXPECT_EQ(stands[3].value, 2);   // 1+1 = 2: miss
  for (const Term& t : stands) EXPECT_EQ(t.origin, Origin::kDice);
  EXPECT_EQ(res.hits, 2);
}

TEST_F(MeleeTest, ExactlySevenMissesAndEightHitsAfterModifiers) {
  state_.units[a_].frenzied = true;  // +2
  const Dice dice = {3, 2, 3, 3};
  const MeleeSideResolution res = Resolve(Pairing(dice, no_dice_));
  const std::vector<Term> stands = StandTerms(trace_);
  ASSERT_EQ(stands.size(), 2u);
  EXPECT_EQ(stands[0].value, 7);  // 3+2 = 5, +2 = 7: miss
  EXPECT_EQ(stands[1].value, 8);  // 3+3 = 6, +2 = 8: hit
  EXPECT_EQ(res.hits, 1);
}

TEST_F(MeleeTest, ANegativeModifierCanTurnTwelveIntoAMiss) {
  // -2 heavy armour -2 flank/rear -1 disordered = -5.
  state_.profiles[b_].armour = Armour::kHeavy;
  state_.units[a_].disordered = true;
  const Dice dice = {6, 6, 6, 6};
  MeleePairing p = Pairing(dice, no_dice_);
  p.sides[0].facts.enemy_fighting_to_flank_or_rear = true;
  const MeleeSideResolution res = Resolve(p);
  EXPECT_EQ(res.modifier, -5);
  EXPECT_EQ(res.hits, 0);  // 6+6 = 12, -5 = 7 < 8: miss, twice
}

// --- Stands that may fight ---------------------------------------------------

TEST_F(MeleeTest, FirstRoundOneRank) {
  // 4 stands 2 a rank, 2 in front contact: 2 front + 0 rear = 2.
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 1)), 2);
}

TEST_F(MeleeTest, LongSpearsToTheirFrontTwoRanksInFirstRound) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  // 2 front + 2 rear (2 stands behind) = 4.
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 1)), 4);
}

TEST_F(MeleeTest, LongSpearsFoughtOnTheirFlankOneRankInFirstRound) {
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  p.sides[0].facts.enemy_fighting_to_flank_or_rear = true;
  EXPECT_EQ(Max(p), 2);  // not to their front: 1 rank, 2 stands
}

TEST_F(MeleeTest, LaterRoundsTwoRanks) {
  // Round 2: 2 front + 2 rear = 4.
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 2)), 4);
}

TEST_F(MeleeTest, DisorderedOneRank) {
  state_.units[a_].disordered = true;
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 2)), 2);  // 2 front, no rear
  state_.profiles[a_].melee_weapon = MeleeWeapon::kLongSpear;
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 1)), 2);  // long spears too
}

TEST_F(MeleeTest, RearRankLimitedByStandsBehind) {
  state_.units[a_] = Formed(3, 2);                    // 2 in front, 1 behind
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 2)), 3);  // 2 + min(2, 1) = 3
  // A wide unit: 4 in front, 1 behind; 2 in contact. Two ranks would be 2 +
  // 2 = 4 of its 5 stands, but only 1 stand stands behind: 2 + 1 = 3.
  state_.units[a_] = Formed(5, 4);
  EXPECT_EQ(Max(Pairing(no_dice_, no_dice_, 2)), 3);
}

TEST_F(MeleeTest, RearRankOnlyBehindStandsInContact) {
  state_.units[a_] = Formed(6, 3);
  MeleePairing p = Pairing(no_dice_, no_dice_, 2);
  p.sides[0].facts.front_stands_in_contact = 1;
  EXPECT_EQ(Max(p), 2);  // 1 front + 1 behind it = 2
}

TEST_F(MeleeTest, OverlapsOnlyFromSecondRound) {
  state_.units[a_] = Formed(6, 3);
  MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  p.sides[0].facts.front_stands_in_contact = 1;
  p.sides[0].facts.overlap_stands = 2;
  EXPECT_EQ(Max(p), 1);  // round 1: 1 front, 1 rank, no overlaps
  p.round = 2;
  EXPECT_EQ(Max(p), 4);  // 1 front + 1 rear + 2 overlaps (1 each flank)
}

TEST_F(MeleeTest, AtMostOneOverlapPerFlank) {
  state_.units[a_] = Formed(8, 4);
  MeleePairing p = Pairing(no_dice_, no_dice_, 2);
  p.sides[0].facts.front_stands_in_contact = 1;
  p.sides[0].facts.overlap_stands = 3;
  EXPECT_EQ(Max(p), 4);  // 1 front + 1 rear + min(3, 2 flanks x 1) = 4
  p.sides[0].facts.overlap_stands = 1;
  EXPECT_EQ(Max(p), 3);  // 1 + 1 + 1 = 3
}

TEST_F(MeleeTest, OneFrontStandAgainstAHeadquarters) {
  state_.profiles[b_].troop_type = TroopType::kHeadquarters;
  state_.units[a_] = Formed(6, 3);
  MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  p.sides[0].facts.front_stands_in_contact = 3;
  EXPECT_EQ(Max(p), 1);  // round 1: 1 front stand, 1 rank
  p.round = 2;
  p.sides[0].facts.overlap_stands = 2;
  EXPECT_EQ(Max(p), 4);  // 1 front + 1 rear + 2 overlaps
}

TEST_F(MeleeTest, AtMostTwoStandsFromABuilding) {
  MeleePairing p = Pairing(no_dice_, no_dice_, 2);
  p.sides[0].facts.in_building = true;
  EXPECT_EQ(Max(p), 2);  // 2 front + 2 rear = 4, building cap 2
}

TEST_F(MeleeTest, AtMostTwoStandsAgainstABuilding) {
  MeleePairing p = Pairing(no_dice_, no_dice_, 2);
  p.sides[0].facts.enemy_in_building = true;
  EXPECT_EQ(Max(p), 2);  // 2 front + 2 rear = 4, building cap 2
}

TEST_F(MeleeTest, CappedByStands) {
  state_.units[a_] = Formed(2, 2);
  MeleePairing p = Pairing(no_dice_, no_dice_, 2);
  p.sides[0].facts.overlap_stands = 2;
  EXPECT_EQ(Max(p), 2);  // 2 front + 0 rear + 2 overlaps = 4, only 2 stands
  state_.units[a_] = Formed(1, 2);
  p.sides[0].facts.overlap_stands = 0;
  EXPECT_EQ(Max(p), 1);  // 1 stand left
}

// --- Checking a pairing ------------------------------------------------------

TEST_F(MeleeTest, CheckTooManyStandsIsAViolation) {
  const Dice dice0 = {4, 4, 4, 4, 4, 4};  // 3 stands
  const Dice dice1 = {4, 4, 4, 4};
  bool ok = false;
  EXPECT_THAT(Check(Pairing(dice0, dice1, 1), &ok),
              ElementsAre("daimyo.melee.stands"));  // 3 > 2 (1 rank)
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kViolation);
  EXPECT_EQ(sink_.findings[0].subject, "a1");
  EXPECT_TRUE(ok);  // the dice match the stands declared
}

TEST_F(MeleeTest, CheckFewerStandsIsAWarning) {
  const Dice dice0 = {4, 4};  // 1 stand
  const Dice dice1 = {4, 4, 4, 4};
  bool ok = false;
  EXPECT_THAT(Check(Pairing(dice0, dice1, 1), &ok),
              ElementsAre("daimyo.melee.stands_fewer"));  // 1 < 2
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kWarning);
  EXPECT_TRUE(ok);
}

TEST_F(MeleeTest, CheckUndeclaredContactIsUnverifiable) {
  const Dice dice = {4, 4, 4, 4};
  MeleePairing p = Pairing(dice, dice, 1);
  p.sides[1].facts.front_stands_in_contact = 0;
  bool ok = false;
  EXPECT_THAT(Check(p, &ok), ElementsAre("daimyo.melee.contact_undeclared"));
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kUnverifiable);
  EXPECT_EQ(sink_.findings[0].subject, "b1");
  EXPECT_TRUE(ok);
}

TEST_F(MeleeTest, CheckDiceCount) {
  const Dice dice0 = {4, 4, 4};  // 3 dice
  const Dice dice1 = {4, 4, 4, 4};
  MeleePairing p = Pairing(dice0, dice1, 1);
  p.sides[0].stands_fighting = 2;  // 2 stands roll 4 dice
  bool ok = true;
  EXPECT_THAT(Check(p, &ok), ElementsAre("daimyo.melee.dice_count"));
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kViolation);
  EXPECT_FALSE(ok);
}

TEST_F(MeleeTest, CheckDieRange) {
  const Dice dice0 = {4, 7, 4, 4};
  const Dice dice1 = {0, 4, 4, 4};
  bool ok = true;
  EXPECT_THAT(Check(Pairing(dice0, dice1, 1), &ok),
              ElementsAre("log.die.range", "log.die.range"));
  EXPECT_FALSE(ok);
}

TEST_F(MeleeTest, CheckFirstSideIsOfTheActiveClan) {
  state_.active_clan = kClanB;
  const Dice dice = {4, 4, 4, 4};
  bool ok = false;
  EXPECT_THAT(Check(Pairing(dice, dice, 1), &ok),
              ElementsAre("daimyo.melee.active_clan"));
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kViolation);
  EXPECT_TRUE(ok);
}

TEST_F(MeleeTest, CheckSidesAreEnemies) {
  state_.profiles[b_].clan = kClanA;
  const Dice dice = {4, 4, 4, 4};
  EXPECT_THAT(Check(Pairing(dice, dice, 1)), ElementsAre("daimyo.melee.enemy"));
}

TEST_F(MeleeTest, CheckOnceAPairingPerTurn) {
  InContact(1, kTurn);  // fought already this turn
  const Dice dice = {4, 4, 4, 4, 4, 4, 4, 4};
  EXPECT_THAT(Check(Pairing(dice, dice, 2)),
              ElementsAre("daimyo.melee.once_per_turn"));
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kViolation);
}

TEST_F(MeleeTest, CheckLastTurnsRoundIsNoBar) {
  InContact(1, kTurn - 1);
  const Dice dice = {4, 4, 4, 4, 4, 4, 4, 4};  // round 2: 2 ranks, 4 stands
  EXPECT_THAT(Check(Pairing(dice, dice, 2)), IsEmpty());
}

// --- Rounds and outcomes -----------------------------------------------------

TEST_F(MeleeTest, NextRoundFromTheContact) {
  EXPECT_EQ(NextRound(state_, a_, b_), 1);  // no contact: a new melee
  state_.melees.push_back(MeleeContact{b_, a_, 2, kTurn - 1});
  EXPECT_EQ(NextRound(state_, a_, b_), 3);  // 2 fought, either order
  EXPECT_EQ(NextRound(state_, b_, a_), 3);
}

TEST_F(MeleeTest, DecideOutcome) {
  MeleeOutcome o = DecideOutcome(rules_, 3, 2);
  EXPECT_EQ(o.winner, 0);  // 3 > 2, margin 1: push back
  EXPECT_FALSE(o.loser_routs);
  o = DecideOutcome(rules_, 3, 1);
  EXPECT_EQ(o.winner, 0);  // margin 2: rout
  EXPECT_TRUE(o.loser_routs);
  o = DecideOutcome(rules_, 2, 2);
  EXPECT_EQ(o.winner, -1);  // equal: draw, fight on
  EXPECT_FALSE(o.loser_routs);
  o = DecideOutcome(rules_, 0, 2);
  EXPECT_EQ(o.winner, 1);  // side 1 by 2: rout
  EXPECT_TRUE(o.loser_routs);
  o = DecideOutcome(rules_, 0, 0);
  EXPECT_EQ(o.winner, -1);  // no hits either side: draw
  o = DecideOutcome(rules_, 1, 5);
  EXPECT_EQ(o.winner, 1);  // margin 4: rout
  EXPECT_TRUE(o.loser_routs);
}

// --- Applying a round --------------------------------------------------------

TEST_F(MeleeTest, ApplyRoundStartsTheContactAndLandsHits) {
  state_.units[b_].carried_hits = 2;
  const MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  const std::array<int, 2> lost =
      ApplyMeleeRound(rules_, state_, p, {2, 1}, {-1, -1});
  // a1's 2 hits on b1 carrying 2: 4 = 1 stand and 1 carried.
  // b1's 1 hit on a1 carrying 0: 1 carried, no stand.
  EXPECT_EQ(lost[0], 0);
  EXPECT_EQ(lost[1], 1);
  EXPECT_EQ(state_.units[b_].stands, 3);
  EXPECT_EQ(state_.units[b_].carried_hits, 1);
  EXPECT_EQ(state_.units[a_].stands, 4);
  EXPECT_EQ(state_.units[a_].carried_hits, 1);
  EXPECT_EQ(state_.units[b_].owed_morale & kReason1, kReason1);
  EXPECT_EQ(state_.units[a_].owed_morale, 0);
  ASSERT_EQ(state_.melees.size(), 1u);
  EXPECT_TRUE(state_.melees[0].Between(a_, b_));
  EXPECT_EQ(state_.melees[0].rounds, 1);
  EXPECT_EQ(state_.melees[0].last_turn_fought, kTurn);
  for (int u : {a_, b_}) {
    EXPECT_TRUE(state_.units[u].in_melee);
    EXPECT_TRUE(state_.units[u].fought_this_turn);
  }
}

TEST_F(MeleeTest, ApplyRoundCountsAnotherRoundOnTheContact) {
  InContact(1, kTurn - 1);
  const MeleePairing p = Pairing(no_dice_, no_dice_, 2);
  ApplyMeleeRound(rules_, state_, p, {0, 0}, {-1, -1});
  ASSERT_EQ(state_.melees.size(), 1u);
  EXPECT_EQ(state_.melees[0].rounds, 2);  // 1 + 1
  EXPECT_EQ(state_.melees[0].last_turn_fought, kTurn);
  EXPECT_EQ(NextRound(state_, a_, b_), 3);
  EXPECT_EQ(state_.units[a_].owed_morale, 0);  // no stand lost
  EXPECT_EQ(state_.units[b_].owed_morale, 0);
}

TEST_F(MeleeTest, ApplyRoundOwesLeaderLossRollOnStandLoss) {
  const int gb = AddLeader("gb", LeaderKind::kGeneral, b_, 2);
  const int ga = AddLeader("ga", LeaderKind::kGeneral, a_, 2);
  const MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  ApplyMeleeRound(rules_, state_, p, {3, 2}, {-1, -1});
  // b1 takes 3 hits: 1 stand, 3 left; a1 takes 2: no stand.
  EXPECT_TRUE(state_.leaders[gb].loss_roll_owed);
  EXPECT_EQ(state_.leaders[gb].loss_roll_stands_left, 3);
  EXPECT_FALSE(state_.leaders[ga].loss_roll_owed);
}

TEST_F(MeleeTest, ApplyRoundUsesUpPursuitAndFollowUp) {
  state_.units[a_].pursued_on_turn = kTurn - 1;
  state_.units[a_].followed_up_on_turn = kTurn - 1;
  state_.units[b_].followed_up_on_turn = kTurn - 1;
  const MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  ApplyMeleeRound(rules_, state_, p, {0, 0}, {-1, -1});
  for (int u : {a_, b_}) {
    EXPECT_EQ(state_.units[u].pursued_on_turn, 0);
    EXPECT_EQ(state_.units[u].followed_up_on_turn, 0);
  }
  // Next turn's round gets neither bonus.
  state_.turn = kTurn + 1;
  const Dice dice = {4, 3};
  EXPECT_EQ(Resolve(Pairing(dice, no_dice_, 2)).modifier, 0);
}

TEST_F(MeleeTest, ApplyRoundStandsLostAsPlayed) {
  const MeleePairing p = Pairing(no_dice_, no_dice_, 1);
  // a1 scores 1 hit, but the log removes 1 stand of b1; b1 scores none and
  // the log removes none of a1.
  const std::array<int, 2> lost =
      ApplyMeleeRound(rules_, state_, p, {1, 0}, {0, 1});
  EXPECT_EQ(lost[0], 0);
  EXPECT_EQ(lost[1], 1);
  EXPECT_EQ(state_.units[b_].stands, 3);
  EXPECT_EQ(state_.units[b_].owed_morale & kReason1, kReason1);
  EXPECT_EQ(state_.units[a_].stands, 4);
}

// --- Following up ------------------------------------------------------------

TEST_F(MeleeTest, InfantryDoNotFollowUpCavalryThatChargedThisTurn) {
  state_.profiles[b_].mobility = Mobility::kMounted;
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  EXPECT_FALSE(MustFollowUp(state_, a_, b_));
  state_.units[a_].frenzied = true;  // "even if frenzied"
  EXPECT_FALSE(MustFollowUp(state_, a_, b_));
}

// Regression (issue 16): "cavalry that charged into contact this turn". A
// charge that fell short made no contact: infantry that rout that cavalry
// later must follow up as usual. A charge that made contact counts even when
// the cavalry has routed since (its charge has ended).
TEST_F(MeleeTest, NoPursuitRuleNeedsAChargeThatMadeContact) {
  state_.profiles[b_].mobility = Mobility::kMounted;
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_, /*fell_short=*/true);
  EXPECT_TRUE(MustFollowUp(state_, a_, b_));
  DeclareCharge(state_, b_, a_);  // a charge that makes contact
  state_.units[b_].routing = true;
  EXPECT_FALSE(state_.IsChargedBy(a_, b_));    // the charge ended...
  EXPECT_FALSE(MustFollowUp(state_, a_, b_));  // ...but it made contact
}

TEST_F(MeleeTest, InfantryFollowUpCavalryThatDidNotChargeThisTurn) {
  state_.profiles[b_].mobility = Mobility::kMounted;
  InContact(1, kTurn - 1);  // the cavalry charged in an earlier turn
  EXPECT_TRUE(MustFollowUp(state_, a_, b_));
}

TEST_F(MeleeTest, CavalryFollowUpInfantry) {
  state_.profiles[a_].mobility = Mobility::kMounted;
  DeclareCharge(state_, a_, b_);
  EXPECT_TRUE(MustFollowUp(state_, a_, b_));  // cavalry beat infantry
  state_.profiles[b_].mobility = Mobility::kMounted;
  EXPECT_TRUE(MustFollowUp(state_, b_, a_));  // cavalry beat cavalry
}

TEST_F(MeleeTest, InfantryFollowUpInfantryThatCharged) {
  state_.active_clan = kClanB;
  DeclareCharge(state_, b_, a_);
  EXPECT_TRUE(MustFollowUp(state_, a_, b_));  // the exception is cavalry only
}

// --- Challenges and duels ----------------------------------------------------

// Two generals of rating 2: ga with a1 (clan a, holding the initiative), gb
// with b1 (clan b); a1 and b1 fought a round last turn and are still in
// melee, and this turn's round is not fought yet.
class DuelTest : public MeleeTest {
 protected:
  void SetUp() override {
    MeleeTest::SetUp();
    InContact(1, kTurn - 1);
    ga_ = AddLeader("ga", LeaderKind::kGeneral, a_, 2);
    gb_ = AddLeader("gb", LeaderKind::kGeneral, b_, 2);
  }

  // Returns a duel of ga against gb. `dice` must outlive it.
  Duel DuelWith(const Dice& dice, bool accepted = true) const {
    Duel d;
    d.challenger = ga_;
    d.challenged = gb_;
    d.accepted = accepted;
    d.dice = dice;
    return d;
  }

  std::vector<std::string> CheckIds(const Duel& duel,
                                    bool* resolvable = nullptr) {
    sink_.findings.clear();
    const bool ok = CheckDuel(rules_, state_, duel, sink_);
    if (resolvable != nullptr) *resolvable = ok;
    return RuleIds(sink_);
  }

  int ga_ = -1;
  int gb_ = -1;
};

TEST_F(DuelTest, LegalChallengeAccepted) {
  const Dice dice = {5, 3};
  bool ok = false;
  EXPECT_THAT(CheckIds(DuelWith(dice), &ok), IsEmpty());
  EXPECT_TRUE(ok);
  Trace trace;
  EXPECT_EQ(ResolveDuel(state_, DuelWith(dice), &trace), ga_);
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].value, 2);  // 5+2 = 7 against 3+2 = 5
  EXPECT_EQ(trace[0].origin, Origin::kDice);
}

TEST_F(DuelTest, DaimyoMayChallengeAndBeChallenged) {
  state_.leaders[ga_].kind = LeaderKind::kDaimyo;
  state_.leaders[gb_].kind = LeaderKind::kDaimyo;
  const Dice dice = {2, 6};
  bool ok = false;
  EXPECT_THAT(CheckIds(DuelWith(dice), &ok), IsEmpty());
  EXPECT_TRUE(ok);
}

TEST_F(DuelTest, OnlyTheClanWithTheInitiativeChallenges) {
  state_.initiative_clan = kClanB;
  const Dice dice = {5, 3};
  EXPECT_THAT(CheckIds(DuelWith(dice)),
              ElementsAre("daimyo.challenge.initiative"));
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kViolation);
}

TEST_F(DuelTest, UnitsNotEngagedWithEachOther) {
  state_.melees.clear();
  const Dice dice = {5, 3};
  bool ok = true;
  EXPECT_THAT(CheckIds(DuelWith(dice), &ok),
              ElementsAre("daimyo.challenge.engaged"));
  EXPECT_FALSE(ok);
}

TEST_F(DuelTest, UnitsEachInAnotherMelee) {
  // a1-b1 fight, but gb is with b2, which fights a2.
  const int a2 = AddUnit(Samurai("a2", kClanA), Formed(4, 2));
  const int b2 = AddUnit(Samurai("b2", kClanB), Formed(4, 2));
  state_.melees.push_back(MeleeContact{a2, b2, 1, kTurn - 1});
  state_.leaders[gb_].attached_unit = b2;
  const Dice dice = {5, 3};
  EXPECT_THAT(CheckIds(DuelWith(dice)),
              ElementsAre("daimyo.challenge.engaged"));
}

TEST_F(DuelTest, LeaderNotAttached) {
  state_.leaders[gb_].attached_unit = -1;
  const Dice dice = {5, 3};
  EXPECT_THAT(CheckIds(DuelWith(dice)),
              ElementsAre("daimyo.challenge.engaged"));
}

TEST_F(DuelTest, ChallengeAfterTheRoundIsTooLate) {
  state_.melees[0].last_turn_fought = kTurn;
  state_.melees[0].rounds = 2;
  const Dice dice = {5, 3};
  EXPECT_THAT(CheckIds(DuelWith(dice)),
              ElementsAre("daimyo.challenge.before_round"));
}

TEST_F(DuelTest, ChallengeBeforeTheFirstRound) {
  // a1 charged b1 this turn; no round fought yet, so the state holds no
  // contact. The units are engaged and "the current round" is the first:
  // the challenge may be made.
  state_.melees.clear();
  DeclareCharge(state_, a_, b_);
  const Dice dice = {5, 3};
  bool ok = false;
  EXPECT_THAT(CheckIds(DuelWith(dice), &ok), IsEmpty());
  EXPECT_TRUE(ok);
  // Likewise when the enemy charged the challenger's unit.
  StartNewTurn(state_, kTurn, kClanA);
  DeclareCharge(state_, b_, a_);
  EXPECT_THAT(CheckIds(DuelWith(dice)), IsEmpty());
}

TEST_F(DuelTest, DiceMustComeInPairs) {
  const Dice odd = {5};
  bool ok = true;
  EXPECT_THAT(CheckIds(DuelWith(odd), &ok),
              ElementsAre("daimyo.challenge.dice"));
  EXPECT_FALSE(ok);
  const Dice three = {3, 3, 5};  // a tie, then half a pair
  EXPECT_THAT(CheckIds(DuelWith(three), &ok),
              ElementsAre("daimyo.challenge.dice"));
  EXPECT_FALSE(ok);
  const Dice none;
  EXPECT_THAT(CheckIds(DuelWith(none), &ok),
              ElementsAre("daimyo.challenge.dice"));  // accepted: dice roll
  EXPECT_FALSE(ok);
}

TEST_F(DuelTest, DiceMustReadOneToSix) {
  const Dice dice = {7, 1};
  bool ok = true;
  EXPECT_THAT(CheckIds(DuelWith(dice), &ok),
              ElementsAre("daimyo.challenge.dice"));
  EXPECT_FALSE(ok);
}

TEST_F(DuelTest, ATieIsReRolled) {
  const Dice tie_then_win = {4, 4, 6, 1};  // 4+2 = 6 = 4+2: re-roll
  bool ok = false;
  EXPECT_THAT(CheckIds(DuelWith(tie_then_win), &ok), IsEmpty());
  EXPECT_TRUE(ok);
  const Dice last_tie = {4, 4};  // 6 against 6: not decided
  EXPECT_THAT(CheckIds(DuelWith(last_tie), &ok),
              ElementsAre("daimyo.challenge.dice"));
  EXPECT_FALSE(ok);
  const Dice rolled_on = {5, 3, 2, 6};  // 7 against 5 decided it; no re-roll
  EXPECT_THAT(CheckIds(DuelWith(rolled_on), &ok),
              ElementsAre("daimyo.challenge.dice"));
  EXPECT_FALSE(ok);
}

TEST_F(DuelTest, ATieIsOnTotalsNotFaces) {
  state_.leaders[ga_].command_rating = 3;
  state_.leaders[gb_].command_rating = 1;
  const Dice faces_equal = {3, 3};  // 3+3 = 6 against 3+1 = 4: decided
  bool ok = false;
  EXPECT_THAT(CheckIds(DuelWith(faces_equal), &ok), IsEmpty());
  EXPECT_TRUE(ok);
  const Dice totals_equal = {2, 4, 1, 6};  // 5 = 5: tie; 4 against 7
  EXPECT_THAT(CheckIds(DuelWith(totals_equal), &ok), IsEmpty());
  EXPECT_TRUE(ok);
  EXPECT_EQ(ResolveDuel(state_, DuelWith(totals_equal), nullptr), gb_);
}

TEST_F(DuelTest, RefusedChallengeRollsNoDice) {
  const Dice none;
  bool ok = false;
  EXPECT_THAT(CheckIds(DuelWith(none, false), &ok), IsEmpty());
  EXPECT_TRUE(ok);
  const Dice dice = {5, 3};
  EXPECT_THAT(CheckIds(DuelWith(dice, false)),
              ElementsAre("daimyo.challenge.dice"));
  ASSERT_FALSE(sink_.findings.empty());
  EXPECT_EQ(sink_.findings[0].severity, Severity::kViolation);
}

TEST_F(DuelTest, ResolveTieThenDecisivePair) {
  state_.leaders[gb_].command_rating = 3;
  const Dice dice = {4, 3, 2, 5};
  Trace trace;
  // 4+2 = 6 against 3+3 = 6: tie, re-roll; 2+2 = 4 against 5+3 = 8: gb wins.
  EXPECT_EQ(ResolveDuel(state_, DuelWith(dice), &trace), gb_);
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[0].value, 0);   // 6 - 6
  EXPECT_EQ(trace[1].value, -4);  // 4 - 8
  for (const Term& t : trace) EXPECT_EQ(t.rule_id, "daimyo.challenge.duel");
}

TEST_F(DuelTest, RefusalCostsOneRating) {
  state_.leaders[gb_].command_rating = 3;
  const Dice none;
  ApplyDuel(rules_, state_, DuelWith(none, false), -1);
  EXPECT_EQ(state_.leaders[gb_].command_rating, 2);  // 3 - 1
  EXPECT_EQ(state_.leaders[ga_].command_rating, 2);  // challenger unchanged
  EXPECT_FALSE(state_.leaders[gb_].killed);
  EXPECT_EQ(state_.units[b_].owed_morale, 0);
}

TEST_F(DuelTest, RefusalNeverBelowOne) {
  state_.leaders[gb_].command_rating = 1;
  const Dice none;
  ApplyDuel(rules_, state_, DuelWith(none, false), -1);
  EXPECT_EQ(state_.leaders[gb_].command_rating, 1);  // 1 - 1 = 0, minimum 1
}

TEST_F(DuelTest, WinnerGainsOneAndLoserDies) {
  const Dice dice = {5, 3};  // 7 against 5: ga wins
  const Duel duel = DuelWith(dice);
  const int winner = ResolveDuel(state_, duel, nullptr);
  ASSERT_EQ(winner, ga_);
  ApplyDuel(rules_, state_, duel, winner);
  EXPECT_EQ(state_.leaders[ga_].command_rating, 3);  // 2 + 1
  EXPECT_FALSE(state_.leaders[ga_].killed);
  EXPECT_TRUE(state_.leaders[gb_].killed);
  EXPECT_EQ(state_.units[b_].owed_morale & kReason5, kReason5);
  EXPECT_EQ(state_.units[a_].owed_morale, 0);
}

TEST_F(DuelTest, WinnerNeverAboveFour) {
  state_.leaders[gb_].command_rating = 4;
  const Dice dice = {1, 2};  // 1+2 = 3 against 2+4 = 6: gb wins
  const Duel duel = DuelWith(dice);
  const int winner = ResolveDuel(state_, duel, nullptr);
  ASSERT_EQ(winner, gb_);
  ApplyDuel(rules_, state_, duel, winner);
  EXPECT_EQ(state_.leaders[gb_].command_rating, 4);  // 4 + 1 = 5, maximum 4
  EXPECT_TRUE(state_.leaders[ga_].killed);
  EXPECT_EQ(state_.units[a_].owed_morale & kReason5, kReason5);
  EXPECT_EQ(state_.units[b_].owed_morale, 0);
  // A dead general no longer helps a1 in the round that follows.
  const Dice round = {3, 3};
  EXPECT_EQ(Resolve(Pairing(round, no_dice_, 2)).modifier, 0);
}

}  // namespace
}  // namespace gunbai::rules::daimyo
