// Oracle tests of the Daimyo firing rules (seeds/004 as settled in
// RULES-NOTES.md "Firing (004)"), run against the shipped ruleset. Every
// expected number is worked out by hand from the rules text; the arithmetic
// is in the comment beside it.
#include "rules/daimyo/firing.h"

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

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr int kClanA = 0;
constexpr int kClanB = 1;
constexpr absl::string_view kHitRule = "daimyo.fire.hit";
// Morale reason 1 (stand lost to firing) is bit 1 of the reason set.
constexpr MoraleReasons kReason1 = MoraleReasons{1} << 1;

// Returns a state with clans "a" and "b", turn 1, clan a active and firing.
BattleState TwoClans() {
  BattleState state;
  state.clans = {"a", "b"};
  state.turn = 1;
  state.initiative_clan = kClanA;
  state.active_clan = kClanA;
  state.activated_clans = 1u << kClanA;
  state.phase = Phase::kFiring;
  return state;
}

// Returns a Seasoned foot ashigaru profile with no armour and no weapons.
UnitProfile Ashigaru(std::string id, int clan) {
  UnitProfile p;
  p.id = std::move(id);
  p.clan = clan;
  p.troop_type = TroopType::kAshigaru;
  p.mobility = Mobility::kFoot;
  p.quality = Quality::kSeasoned;
  p.armour = Armour::kNone;
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

// Adds a unit to `state` and returns its index.
int AddUnit(BattleState& state, UnitProfile profile, UnitStatus status) {
  state.profiles.push_back(std::move(profile));
  state.units.push_back(status);
  return static_cast<int>(state.units.size()) - 1;
}

// Returns the rule ids of the findings, in order.
std::vector<std::string> RuleIds(const FindingVector& sink) {
  std::vector<std::string> ids;
  for (const Finding& f : sink.findings) ids.emplace_back(f.rule_id);
  return ids;
}

// Returns the firing-factor terms of a trace (all but the per-stand terms).
std::vector<Term> FactorTerms(const Trace& trace) {
  std::vector<Term> terms;
  for (const Term& t : trace) {
    if (t.rule_id != kHitRule) terms.push_back(t);
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

// The neutral baseline: a Seasoned arquebus unit of clan a (4 stands, 2 a
// rank, good order, first volley already spent) fires at long range at a
// Seasoned foot ashigaru unit of clan b with no armour, in line, in the open.
// No firing factor applies to it, so each test adds exactly what it tests.
class FiringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = replay::BuiltinRuleset("daimyo");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    rules_ = rules::daimyo::DaimyoRulesFromData(loaded->data);
    state_ = TwoClans();
    UnitProfile shooters = Ashigaru("a1", kClanA);
    shooters.missile_weapon = MissileWeapon::kArquebus;
    UnitStatus shooters_status = Formed(4, 2);
    shooters_status.first_volley_spent = true;
    firer_ = AddUnit(state_, shooters, shooters_status);
    UnitProfile spears = Ashigaru("b1", kClanB);
    spears.melee_weapon = MeleeWeapon::kLongSpear;
    target_ = AddUnit(state_, spears, Formed(4, 2));
  }

  // Returns a shot from the firer at the target, one stand per two dice, at
  // declared long range. `dice` must outlive the shot.
  Shot ShotWith(const std::vector<std::uint32_t>& dice) const {
    Shot shot;
    shot.firer = firer_;
    shot.target = target_;
    shot.stands_firing = static_cast<int>(dice.size()) / 2;
    shot.dice = dice;
    shot.facts.declared_band = RangeBand::kLong;
    return shot;
  }

  // Makes clan b active and has the target declare a charge on the firer.
  void TargetChargesFirer() {
    state_.active_clan = kClanB;
    DeclareCharge(state_, target_, firer_);
  }

  // Resolves `shot` with a trace and expects exactly one firing factor, with
  // `value`, `rule_id` and `origin`; returns the resolution.
  FiringResolution ExpectOnlyFactor(const Shot& shot, int value,
                                    absl::string_view rule_id, Origin origin) {
    Trace trace;
    const FiringResolution res = ResolveFiring(rules_, state_, shot, &trace);
    EXPECT_EQ(res.modifier, value);
    const std::vector<Term> factors = FactorTerms(trace);
    EXPECT_EQ(factors.size(), 1u);
    if (!factors.empty()) {
      EXPECT_EQ(factors[0].value, value);
      EXPECT_EQ(factors[0].rule_id, rule_id);
      EXPECT_EQ(factors[0].origin, origin);
      EXPECT_FALSE(factors[0].label.empty());
    }
    EXPECT_EQ(StandTerms(trace).size(),
              static_cast<std::size_t>(shot.stands_firing));
    return res;
  }

  // Runs CheckFiring and returns the rule ids it reported; `resolvable`
  // receives its verdict.
  std::vector<std::string> Check(const Shot& shot, bool* resolvable = nullptr) {
    FindingVector sink;
    const bool ok = CheckFiring(rules_, state_, shot, sink);
    if (resolvable != nullptr) *resolvable = ok;
    return RuleIds(sink);
  }

  Tables rules_;
  BattleState state_;
  int firer_ = -1;
  int target_ = -1;
};

// --- The shipped data against the rules text -------------------------------

TEST_F(FiringTest, ShippedRulesetHoldsTheNumbersOfTheRulesText) {
  const FiringRules& f = rules_.firing;
  EXPECT_EQ(f.dice_per_stand, 2);            // "2d6 are rolled for each stand"
  EXPECT_EQ(f.hit_score, 8);                 // "each result of 8 or more"
  EXPECT_EQ(f.effective_range_mm, 80);       // "Effective Range: 0cm-8cm"
  EXPECT_EQ(f.long_range_mm, 150);           // "Long Range: 8cm-15cm"
  EXPECT_EQ(f.woods_range_mm, 30);           // "reduced to 3cm"
  EXPECT_EQ(f.max_stands_from_building, 2);  // "A maximum of 2 stands"
  EXPECT_EQ(f.ranks_good_order, 2);          // "fire 2 ranks deep"
  EXPECT_EQ(f.ranks_disordered, 1);          // "only fire 1 rank deep"
  EXPECT_EQ(f.factor(FiringFactor::kFirstVolley), 2);
  EXPECT_EQ(f.factor(FiringFactor::kTargetLightArmour), 1);
  EXPECT_EQ(f.factor(FiringFactor::kArquebusVsCavalry), 1);
  EXPECT_EQ(f.factor(FiringFactor::kEffectiveRange), 1);
  EXPECT_EQ(f.factor(FiringFactor::kTargetColumnOrFlanked), 1);
  EXPECT_EQ(f.factor(FiringFactor::kTargetInBuilding), -2);
  EXPECT_EQ(f.factor(FiringFactor::kBowVsHeavyArmour), -1);
  EXPECT_EQ(f.factor(FiringFactor::kFirerDisordered), -1);
  EXPECT_EQ(f.factor(FiringFactor::kFirerRaw), -1);
  EXPECT_EQ(f.factor(FiringFactor::kFirerBeingCharged), -1);
  EXPECT_EQ(f.factor(FiringFactor::kFirerMoved), -1);
  EXPECT_EQ(f.factor(FiringFactor::kTargetInCover), -1);
  EXPECT_EQ(rules_.hits_per_stand, 3);  // "taken 3 hits, a stand is removed"
  EXPECT_EQ(rules_.leader_killed_at_or_below, 4);      // "4 or less"
  EXPECT_EQ(rules_.headquarters_counts_as_stands, 1);  // "counts as 1"
  EXPECT_TRUE(rules_.options.first_volley_spent_when_disordered());
}

// --- The baseline ------------------------------------------------------------

TEST_F(FiringTest, BaselineShotHasNoFactorAndIsLegal) {
  const std::vector<std::uint32_t> dice = {4, 4};
  const Shot shot = ShotWith(dice);
  bool ok = false;
  EXPECT_THAT(Check(shot, &ok), IsEmpty());
  EXPECT_TRUE(ok);
  Trace trace;
  const FiringResolution res = ResolveFiring(rules_, state_, shot, &trace);
  EXPECT_EQ(res.modifier, 0);
  EXPECT_EQ(res.band.band, RangeBand::kLong);
  EXPECT_EQ(res.band.origin, Origin::kDeclared);
  EXPECT_THAT(FactorTerms(trace), IsEmpty());
  EXPECT_EQ(res.hits, 1);  // 4+4 = 8, +0 = 8 >= 8: hit
}

// --- Each firing factor alone ------------------------------------------------

TEST_F(FiringTest, FactorFirstVolley) {
  state_.units[firer_].first_volley_spent = false;
  const std::vector<std::uint32_t> dice = {4, 2};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), 2, "daimyo.fire.factor.first_volley", Origin::kComputed);
  EXPECT_EQ(res.hits, 1);  // 4+2 = 6, +2 first volley = 8 >= 8: hit
}

TEST_F(FiringTest, FactorTargetInLightArmour) {
  state_.profiles[target_].armour = Armour::kLight;
  const std::vector<std::uint32_t> dice = {4, 3};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), 1, "daimyo.fire.factor.light_armour", Origin::kComputed);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 light armour = 8 >= 8: hit
}

TEST_F(FiringTest, MediumArmourIsNoFactor) {
  state_.profiles[target_].armour = Armour::kMedium;
  const std::vector<std::uint32_t> dice = {4, 3};
  const FiringResolution res =
      ResolveFiring(rules_, state_, ShotWith(dice), nullptr);
  EXPECT_EQ(res.modifier, 0);  // neither light (+1) nor heavy (bow only)
  EXPECT_EQ(res.hits, 0);      // 4+3 = 7 < 8: miss
}

TEST_F(FiringTest, FactorArquebusVsCavalry) {
  state_.profiles[target_].mobility = Mobility::kMounted;
  const std::vector<std::uint32_t> dice = {4, 3};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), 1, "daimyo.fire.factor.arquebus_vs_cavalry",
      Origin::kComputed);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 arquebus vs cavalry = 8: hit
}

TEST_F(FiringTest, BowAtCavalryIsNoFactor) {
  state_.profiles[firer_].missile_weapon = MissileWeapon::kBow;
  state_.profiles[target_].mobility = Mobility::kMounted;
  const std::vector<std::uint32_t> dice = {4, 3};
  const FiringResolution res =
      ResolveFiring(rules_, state_, ShotWith(dice), nullptr);
  EXPECT_EQ(res.modifier, 0);  // the +1 is for arquebus only
  EXPECT_EQ(res.hits, 0);      // 4+3 = 7 < 8: miss
}

TEST_F(FiringTest, FactorEffectiveRangeDeclared) {
  const std::vector<std::uint32_t> dice = {4, 3};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  const FiringResolution res = ExpectOnlyFactor(
      shot, 1, "daimyo.fire.factor.effective_range", Origin::kDeclared);
  EXPECT_EQ(res.band.band, RangeBand::kEffective);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 effective range = 8 >= 8: hit
}

TEST_F(FiringTest, FactorEffectiveRangeMeasured) {
  const std::vector<std::uint32_t> dice = {4, 3};
  Shot shot = ShotWith(dice);  // declared long, but the tape says 80 mm
  shot.facts.distance_mm = 80;
  const FiringResolution res = ExpectOnlyFactor(
      shot, 1, "daimyo.fire.factor.effective_range", Origin::kComputed);
  EXPECT_EQ(res.hits, 1);  // 80 mm <= 8 cm: effective; 4+3 = 7, +1 = 8: hit
}

TEST_F(FiringTest, FactorTargetFlankedDeclared) {
  const std::vector<std::uint32_t> dice = {4, 3};
  Shot shot = ShotWith(dice);
  shot.facts.target_in_column_or_flanked = true;
  const FiringResolution res = ExpectOnlyFactor(
      shot, 1, "daimyo.fire.factor.column_or_flanked", Origin::kDeclared);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 column or flanked = 8 >= 8: hit
}

TEST_F(FiringTest, FactorTargetInColumnFromFormation) {
  state_.units[target_].formation = Formation::kColumn;
  const std::vector<std::uint32_t> dice = {4, 3};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), 1, "daimyo.fire.factor.column_or_flanked",
      Origin::kComputed);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7, +1 column = 8 >= 8: hit
}

TEST_F(FiringTest, FactorTargetInBuildingDeclared) {
  const std::vector<std::uint32_t> dice = {6, 4};
  Shot shot = ShotWith(dice);
  shot.facts.target_in_building = true;
  const FiringResolution res = ExpectOnlyFactor(
      shot, -2, "daimyo.fire.factor.building", Origin::kDeclared);
  EXPECT_EQ(res.hits, 1);  // 6+4 = 10, -2 building = 8 >= 8: hit
}

TEST_F(FiringTest, FactorTargetInBuildingFromFormation) {
  state_.units[target_].formation = Formation::kBuilding;
  const std::vector<std::uint32_t> dice = {6, 3};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), -2, "daimyo.fire.factor.building", Origin::kComputed);
  EXPECT_EQ(res.hits, 0);  // 6+3 = 9, -2 building = 7 < 8: miss
}

TEST_F(FiringTest, FactorBowVsHeavyArmour) {
  state_.profiles[firer_].missile_weapon = MissileWeapon::kBow;
  state_.profiles[target_].armour = Armour::kHeavy;
  const std::vector<std::uint32_t> dice = {5, 4};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), -1, "daimyo.fire.factor.bow_vs_heavy", Origin::kComputed);
  EXPECT_EQ(res.hits, 1);  // 5+4 = 9, -1 bow vs heavy = 8 >= 8: hit
}

TEST_F(FiringTest, ArquebusVsHeavyArmourIsNoFactor) {
  state_.profiles[target_].armour = Armour::kHeavy;
  const std::vector<std::uint32_t> dice = {4, 4};
  const FiringResolution res =
      ResolveFiring(rules_, state_, ShotWith(dice), nullptr);
  EXPECT_EQ(res.modifier, 0);  // the -1 is for bows only
  EXPECT_EQ(res.hits, 1);      // 4+4 = 8 >= 8: hit
}

TEST_F(FiringTest, FactorFirerDisordered) {
  state_.units[firer_].disordered = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), -1, "daimyo.fire.factor.disordered", Origin::kComputed);
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 disordered = 7 < 8: miss
}

TEST_F(FiringTest, FactorFirerRaw) {
  state_.profiles[firer_].quality = Quality::kRaw;
  const std::vector<std::uint32_t> dice = {4, 4};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), -1, "daimyo.fire.factor.raw", Origin::kComputed);
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 raw = 7 < 8: miss
}

TEST_F(FiringTest, FactorFirerBeingChargedDeclared) {
  const std::vector<std::uint32_t> dice = {5, 4};
  Shot shot = ShotWith(dice);
  shot.facts.firer_being_charged = true;
  const FiringResolution res = ExpectOnlyFactor(
      shot, -1, "daimyo.fire.factor.being_charged", Origin::kDeclared);
  EXPECT_EQ(res.hits, 1);  // 5+4 = 9, -1 being charged = 8 >= 8: hit
}

TEST_F(FiringTest, FactorFirerBeingChargedFromChargeDeclarations) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {4, 4};
  const FiringResolution res =
      ExpectOnlyFactor(ShotWith(dice), -1, "daimyo.fire.factor.being_charged",
                       Origin::kComputed);
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 being charged = 7 < 8: miss
}

TEST_F(FiringTest, FactorFirerMoved) {
  state_.units[firer_].moved_this_turn = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  const FiringResolution res = ExpectOnlyFactor(
      ShotWith(dice), -1, "daimyo.fire.factor.moved", Origin::kComputed);
  EXPECT_EQ(res.hits, 0);  // 4+4 = 8, -1 moved = 7 < 8: miss
}

TEST_F(FiringTest, FactorTargetInCover) {
  const std::vector<std::uint32_t> dice = {5, 4};
  Shot shot = ShotWith(dice);
  shot.facts.target_in_cover = true;
  const FiringResolution res =
      ExpectOnlyFactor(shot, -1, "daimyo.fire.factor.cover", Origin::kDeclared);
  EXPECT_EQ(res.hits, 1);  // 5+4 = 9, -1 cover = 8 >= 8: hit
}

TEST_F(FiringTest, CoverDoesNotAddToABuilding) {
  // "-1 Target behind cover (except buildings)": a building is -2, not -3.
  const std::vector<std::uint32_t> dice = {6, 3};
  Shot shot = ShotWith(dice);
  shot.facts.target_in_cover = true;
  shot.facts.target_in_building = true;
  const FiringResolution res = ExpectOnlyFactor(
      shot, -2, "daimyo.fire.factor.building", Origin::kDeclared);
  EXPECT_EQ(res.hits, 0);  // 6+3 = 9, -2 building = 7 < 8: miss
}

// --- First volley ----------------------------------------------------------

TEST_F(FiringTest, FirstVolleyIsSpentByTheFirstFiring) {
  state_.units[firer_].first_volley_spent = false;
  const std::vector<std::uint32_t> dice = {4, 2};
  const Shot shot = ShotWith(dice);
  FiringResolution res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, 2);  // +2 first volley
  EXPECT_EQ(res.hits, 1);      // 4+2 = 6, +2 = 8 >= 8: hit
  ApplyFiring(rules_, state_, shot, res.hits, -1);
  EXPECT_TRUE(state_.units[firer_].first_volley_spent);
  EXPECT_TRUE(state_.units[firer_].fired_this_turn);

  StartNewTurn(state_, 2, kClanA);
  state_.active_clan = kClanA;
  state_.phase = Phase::kFiring;
  res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, 0);  // bonus gone
  EXPECT_EQ(res.hits, 0);      // 4+2 = 6, +0 = 6 < 8: miss
}

TEST_F(FiringTest, DisorderedFirstFiringGetsNoBonusAndSpendsIt) {
  state_.units[firer_].first_volley_spent = false;
  state_.units[firer_].disordered = true;
  const std::vector<std::uint32_t> dice = {5, 4};
  const Shot shot = ShotWith(dice);
  FiringResolution res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, -1);  // no +2 (good order only), -1 disordered
  EXPECT_EQ(res.hits, 1);       // 5+4 = 9, -1 = 8 >= 8: hit
  ApplyFiring(rules_, state_, shot, res.hits, -1);
  EXPECT_TRUE(state_.units[firer_].first_volley_spent);  // default reading

  StartNewTurn(state_, 2, kClanA);
  state_.active_clan = kClanA;
  state_.units[firer_].disordered = false;  // rallied
  res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, 0);  // in good order now, but the bonus is spent
  EXPECT_EQ(res.hits, 1);      // 5+4 = 9, +0 = 9 >= 8: hit
}

TEST_F(FiringTest, DisorderedFirstFiringKeepsBonusWhenOptionSaysSo) {
  rules_.options.set_first_volley_spent_when_disordered(false);
  state_.units[firer_].first_volley_spent = false;
  state_.units[firer_].disordered = true;
  const std::vector<std::uint32_t> dice = {4, 2};
  const Shot shot = ShotWith(dice);
  FiringResolution res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, -1);  // no +2 while disordered, -1 disordered
  EXPECT_EQ(res.hits, 0);       // 4+2 = 6, -1 = 5 < 8: miss
  ApplyFiring(rules_, state_, shot, res.hits, -1);
  EXPECT_FALSE(state_.units[firer_].first_volley_spent);  // kept

  StartNewTurn(state_, 2, kClanA);
  state_.active_clan = kClanA;
  state_.units[firer_].disordered = false;
  res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, 2);  // first good-order volley: +2
  EXPECT_EQ(res.hits, 1);      // 4+2 = 6, +2 = 8 >= 8: hit
  ApplyFiring(rules_, state_, shot, res.hits, -1);
  EXPECT_TRUE(state_.units[firer_].first_volley_spent);  // now spent
}

// --- Several factors ---------------------------------------------------------

TEST_F(FiringTest, SeveralFactorsAddUp) {
  // A fresh Raw arquebus unit that moved fires at 60 mm at mounted samurai
  // in light armour, in column.
  state_.profiles[firer_].quality = Quality::kRaw;
  state_.units[firer_].first_volley_spent = false;
  state_.units[firer_].moved_this_turn = true;
  state_.profiles[target_].troop_type = TroopType::kSamurai;
  state_.profiles[target_].mobility = Mobility::kMounted;
  state_.profiles[target_].armour = Armour::kLight;
  state_.units[target_].formation = Formation::kColumn;
  const std::vector<std::uint32_t> dice = {2, 2, 2, 1, 6, 6};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band.reset();  // measured, not declared
  shot.facts.distance_mm = 60;
  EXPECT_THAT(Check(shot), IsEmpty());
  Trace trace;
  const FiringResolution res = ResolveFiring(rules_, state_, shot, &trace);
  // +2 first volley +1 light +1 arquebus vs cavalry +1 effective +1 column
  // -1 raw -1 moved = +4
  EXPECT_EQ(res.modifier, 4);
  std::vector<std::string> ids;
  for (const Term& t : FactorTerms(trace)) ids.emplace_back(t.rule_id);
  EXPECT_THAT(ids, UnorderedElementsAre(
                       "daimyo.fire.factor.first_volley",
                       "daimyo.fire.factor.light_armour",
                       "daimyo.fire.factor.arquebus_vs_cavalry",
                       "daimyo.fire.factor.effective_range",
                       "daimyo.fire.factor.column_or_flanked",
                       "daimyo.fire.factor.raw", "daimyo.fire.factor.moved"));
  const std::vector<Term> stands = StandTerms(trace);
  ASSERT_EQ(stands.size(), 3u);
  EXPECT_EQ(stands[0].value, 8);   // 2+2 = 4, +4 = 8 >= 8: hit
  EXPECT_EQ(stands[1].value, 7);   // 2+1 = 3, +4 = 7 < 8: miss
  EXPECT_EQ(stands[2].value, 16);  // 6+6 = 12, +4 = 16: hit
  EXPECT_EQ(res.hits, 2);
}

TEST_F(FiringTest, SeveralPenaltiesAddUp) {
  // A disordered bow unit, charged by the heavy-armoured unit it fires at,
  // which is behind cover; long range.
  TargetChargesFirer();
  state_.profiles[firer_].missile_weapon = MissileWeapon::kBow;
  state_.units[firer_].first_volley_spent = false;  // but disordered
  state_.units[firer_].disordered = true;
  state_.profiles[target_].armour = Armour::kHeavy;
  const std::vector<std::uint32_t> dice = {6, 6, 6, 5};
  Shot shot = ShotWith(dice);
  shot.facts.target_in_cover = true;
  EXPECT_THAT(Check(shot), IsEmpty());  // 2 stands: 1 rank of 2, disordered
  Trace trace;
  const FiringResolution res = ResolveFiring(rules_, state_, shot, &trace);
  // no first volley (disordered); -1 bow vs heavy -1 disordered -1 being
  // charged -1 cover = -4
  EXPECT_EQ(res.modifier, -4);
  EXPECT_EQ(FactorTerms(trace).size(), 4u);
  EXPECT_EQ(res.hits, 1);  // 6+6 = 12, -4 = 8: hit; 6+5 = 11, -4 = 7: miss
}

// --- Dice and the hit threshold ----------------------------------------------

TEST_F(FiringTest, EightHitsAndSevenMisses) {
  const std::vector<std::uint32_t> dice = {4, 3, 4, 4};
  Trace trace;
  const FiringResolution res =
      ResolveFiring(rules_, state_, ShotWith(dice), &trace);
  EXPECT_EQ(res.hits, 1);  // 4+3 = 7 < 8: miss; 4+4 = 8 >= 8: hit
  const std::vector<Term> stands = StandTerms(trace);
  ASSERT_EQ(stands.size(), 2u);
  EXPECT_EQ(stands[0].value, 7);
  EXPECT_EQ(stands[0].origin, Origin::kDice);
  EXPECT_THAT(stands[0].label, HasSubstr("miss"));
  EXPECT_EQ(stands[1].value, 8);
  EXPECT_EQ(stands[1].origin, Origin::kDice);
  EXPECT_THAT(stands[1].label, HasSubstr("hit"));
}

TEST_F(FiringTest, ThresholdCountsTheModifier) {
  const std::vector<std::uint32_t> dice = {3, 3, 4, 3};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  const FiringResolution res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, 1);  // +1 effective
  EXPECT_EQ(res.hits, 1);      // 3+3 = 6, +1 = 7: miss; 4+3 = 7, +1 = 8: hit
}

TEST_F(FiringTest, EachStandRollsItsOwnTwoDiceInOrder) {
  // Stand 1 rolls dice 1 and 2, stand 2 dice 3 and 4: 6+2 = 8 hit, 1+1 = 2
  // miss. Read crosswise (dice 1 and 3, 2 and 4) they would give 7 and 3,
  // no hit.
  const std::vector<std::uint32_t> dice = {6, 2, 1, 1};
  Trace trace;
  const FiringResolution res =
      ResolveFiring(rules_, state_, ShotWith(dice), &trace);
  EXPECT_EQ(res.hits, 1);
  const std::vector<Term> stands = StandTerms(trace);
  ASSERT_EQ(stands.size(), 2u);
  EXPECT_EQ(stands[0].value, 8);  // 6+2 +0
  EXPECT_EQ(stands[1].value, 2);  // 1+1 +0
  EXPECT_THAT(stands[0].label, HasSubstr("6+2"));
  EXPECT_THAT(stands[1].label, HasSubstr("1+1"));
}

TEST_F(FiringTest, ResolvesTheSameWithoutATrace) {
  state_.units[firer_].first_volley_spent = false;
  const std::vector<std::uint32_t> dice = {3, 2, 3, 3, 1, 1, 6, 1};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  const FiringResolution bare = ResolveFiring(rules_, state_, shot, nullptr);
  Trace trace;
  const FiringResolution traced = ResolveFiring(rules_, state_, shot, &trace);
  // +2 first volley +1 effective = +3; 3+2+3 = 8 hit, 3+3+3 = 9 hit,
  // 1+1+3 = 5 miss, 6+1+3 = 10 hit: 3 hits
  EXPECT_EQ(bare.modifier, 3);
  EXPECT_EQ(bare.hits, 3);
  EXPECT_EQ(traced.modifier, bare.modifier);
  EXPECT_EQ(traced.hits, bare.hits);
  EXPECT_EQ(trace.size(), 6u);  // 2 factors + 4 stands
}

// --- Who may fire
// --------------------------------------------------------------

TEST_F(FiringTest, OnlyTheActiveClanFires) {
  state_.active_clan = kClanB;
  const std::vector<std::uint32_t> dice = {4, 4};
  bool ok = false;
  EXPECT_THAT(Check(ShotWith(dice), &ok),
              ElementsAre("daimyo.fire.eligibility.active_clan"));
  EXPECT_TRUE(ok);  // a broken rule is a finding; the dice still read
}

TEST_F(FiringTest, UnitChargedByTheActiveClanMayFireAtItsCharger) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)), IsEmpty());
}

TEST_F(FiringTest, UnitBeingChargedMayFireOnlyAtItsCharger) {
  TargetChargesFirer();
  const int other = AddUnit(state_, Ashigaru("b2", kClanB), Formed(4, 2));
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.target = other;
  EXPECT_THAT(Check(shot),
              ElementsAre("daimyo.fire.eligibility.charged_fire_at_chargers"));
}

// --- Eligibility
// -----------------------------------------------------------------

// Regression (issue 16): being charged lasts the rest of the turn (reading
// 18), and so does "may only fire at troops charging them": the target of a
// charge declared in clan b's activation, firing in its own activation
// later, may fire only at its charger, and takes the -1.
TEST_F(FiringTest, BeingChargedFiresOnlyAtChargersInItsOwnActivationToo) {
  const int other = AddUnit(state_, Ashigaru("b2", kClanB), Formed(4, 2));
  TargetChargesFirer();
  state_.active_clan = kClanA;  // clan a's own activation, later
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot at_other = ShotWith(dice);
  at_other.target = other;
  EXPECT_THAT(Check(at_other),
              ElementsAre("daimyo.fire.eligibility.charged_fire_at_chargers"));
  EXPECT_THAT(Check(ShotWith(dice)), IsEmpty());  // at the charger
  // The charger routs: the charge ends, and with it the restriction.
  state_.units[target_].routing = true;
  EXPECT_THAT(Check(at_other), IsEmpty());
  EXPECT_FALSE(FirerBeingCharged(state_, at_other));
}

TEST_F(FiringTest, MustHaveBowOrArquebus) {
  state_.profiles[firer_].missile_weapon = MissileWeapon::kNone;
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)),
              ElementsAre("daimyo.fire.eligibility.missile_weapon"));
}

TEST_F(FiringTest, BowmenMayFire) {
  state_.profiles[firer_].missile_weapon = MissileWeapon::kBow;
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)), IsEmpty());
}

TEST_F(FiringTest, FiresOncePerTurn) {
  const std::vector<std::uint32_t> dice = {4, 4};
  const Shot shot = ShotWith(dice);
  EXPECT_THAT(Check(shot), IsEmpty());
  ApplyFiring(rules_, state_, shot, 0, -1);
  EXPECT_THAT(Check(shot),
              ElementsAre("daimyo.fire.eligibility.once_per_turn"));
  StartNewTurn(state_, 2, kClanA);
  state_.active_clan = kClanA;
  EXPECT_THAT(Check(shot), IsEmpty());  // a new turn, a new firing
}

TEST_F(FiringTest, ChargingUnitMayNotFire) {
  DeclareCharge(state_, firer_, target_);
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)),
              ElementsAre("daimyo.fire.eligibility.charging_or_in_melee"));
}

TEST_F(FiringTest, UnitInMeleeMayNotFire) {
  state_.units[firer_].in_melee = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)),
              ElementsAre("daimyo.fire.eligibility.charging_or_in_melee"));
}

TEST_F(FiringTest, RoutingUnitMayNotFire) {
  state_.units[firer_].routing = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)),
              ElementsAre("daimyo.fire.eligibility.routing"));
}

TEST_F(FiringTest, MustFireAtAnEnemy) {
  const int friend_unit = AddUnit(state_, Ashigaru("a2", kClanA), Formed(4, 2));
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.target = friend_unit;
  EXPECT_THAT(Check(shot), ElementsAre("daimyo.fire.target.enemy"));
}

TEST_F(FiringTest, MustFireAtAUnitOnTheTable) {
  state_.units[target_].stands = 0;
  state_.units[target_].removed = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_THAT(Check(ShotWith(dice)),
              ElementsAre("daimyo.fire.target.on_table"));
}

TEST_F(FiringTest, DeclaredOutOfRange) {
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kOutOfRange;
  EXPECT_THAT(Check(shot), ElementsAre("daimyo.fire.eligibility.range"));
}

TEST_F(FiringTest, MeasuredOutOfRange) {
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band.reset();  // measured, not declared
  shot.facts.distance_mm = 151;      // over 15 cm
  EXPECT_THAT(Check(shot), ElementsAre("daimyo.fire.eligibility.range"));
  shot.facts.distance_mm = 150;  // 15 cm: long range, legal
  EXPECT_THAT(Check(shot), IsEmpty());
}

TEST_F(FiringTest, WoodsLimitPutsLongerShotsOutOfRange) {
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band.reset();  // measured, not declared
  shot.facts.woods_limit = true;
  shot.facts.distance_mm = 31;  // over 3 cm in woods
  EXPECT_THAT(Check(shot), ElementsAre("daimyo.fire.eligibility.range"));
}

TEST_F(FiringTest, GoodOrderFiresTwoRanksDeep) {
  state_.units[firer_] = Formed(6, 2);
  state_.units[firer_].first_volley_spent = true;
  const std::vector<std::uint32_t> four = {4, 4, 4, 4, 4, 4, 4, 4};
  EXPECT_THAT(Check(ShotWith(four)), IsEmpty());  // 2 ranks x 2 = 4 stands
  const std::vector<std::uint32_t> five = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
  EXPECT_THAT(Check(ShotWith(five)),
              ElementsAre("daimyo.fire.eligibility.ranks"));  // 5 > 4
}

TEST_F(FiringTest, DisorderedFiresOneRankDeep) {
  state_.units[firer_] = Formed(6, 2);
  state_.units[firer_].first_volley_spent = true;
  state_.units[firer_].disordered = true;
  const std::vector<std::uint32_t> two = {4, 4, 4, 4};
  EXPECT_THAT(Check(ShotWith(two)), IsEmpty());  // 1 rank x 2 = 2 stands
  const std::vector<std::uint32_t> three = {4, 4, 4, 4, 4, 4};
  EXPECT_THAT(Check(ShotWith(three)),
              ElementsAre("daimyo.fire.eligibility.ranks"));  // 3 > 2
}

TEST_F(FiringTest, RanksAreCappedByStands) {
  state_.units[firer_] = Formed(3, 2);  // 2 ranks x 2 = 4, but only 3 stands
  state_.units[firer_].first_volley_spent = true;
  const std::vector<std::uint32_t> four = {4, 4, 4, 4, 4, 4, 4, 4};
  EXPECT_THAT(Check(ShotWith(four)),
              ElementsAre("daimyo.fire.eligibility.ranks"));
}

TEST_F(FiringTest, AtMostTwoStandsFireFromABuilding) {
  state_.units[firer_] = Formed(6, 3);  // 2 ranks x 3 = 6 in the open
  state_.units[firer_].first_volley_spent = true;
  const std::vector<std::uint32_t> two = {4, 4, 4, 4};
  const std::vector<std::uint32_t> three = {4, 4, 4, 4, 4, 4};
  Shot shot = ShotWith(three);
  EXPECT_THAT(Check(shot), IsEmpty());
  shot.facts.firing_from_building = true;
  EXPECT_THAT(Check(shot), ElementsAre("daimyo.fire.eligibility.building"));
  Shot two_stands = ShotWith(two);
  two_stands.facts.firing_from_building = true;
  EXPECT_THAT(Check(two_stands), IsEmpty());
}

// Regression (issue 10): "A maximum of 2 stands may fire from a building"
// holds when the building is the unit's formation, declared or not. 6 stands
// 3 a rank fire 2 ranks x 3 = 6 in the open; in a building at most 2.
TEST_F(FiringTest, AtMostTwoStandsFireWhenTheFormationIsABuilding) {
  state_.units[firer_] = Formed(6, 3);
  state_.units[firer_].first_volley_spent = true;
  state_.units[firer_].formation = Formation::kBuilding;
  const std::vector<std::uint32_t> two = {4, 4, 4, 4};
  const std::vector<std::uint32_t> three = {4, 4, 4, 4, 4, 4};
  FindingVector sink;
  CheckFiring(rules_, state_, ShotWith(three), sink);
  ASSERT_THAT(RuleIds(sink), ElementsAre("daimyo.fire.eligibility.building"));
  EXPECT_THAT(sink.findings[0].message, HasSubstr("(its formation)"));
  EXPECT_THAT(Check(ShotWith(two)), IsEmpty());
}

TEST_F(FiringTest, DiceCountMustBeTwoPerStand) {
  std::vector<std::uint32_t> dice = {4, 4, 4};
  Shot shot = ShotWith(dice);
  shot.stands_firing = 2;  // 2 stands x 2 = 4 dice, 3 given
  bool ok = true;
  EXPECT_THAT(Check(shot, &ok), ElementsAre("daimyo.fire.dice_count"));
  EXPECT_FALSE(ok);
}

TEST_F(FiringTest, FiringNeedsStands) {
  const std::vector<std::uint32_t> dice;
  Shot shot = ShotWith(dice);
  shot.stands_firing = 0;
  bool ok = true;
  EXPECT_THAT(Check(shot, &ok), ElementsAre("daimyo.fire.dice_count"));
  EXPECT_FALSE(ok);
}

TEST_F(FiringTest, DiceReadOneToSix) {
  const std::vector<std::uint32_t> seven = {4, 7};
  bool ok = true;
  EXPECT_THAT(Check(ShotWith(seven), &ok), ElementsAre("log.die.range"));
  EXPECT_FALSE(ok);
  const std::vector<std::uint32_t> zero = {0, 4};
  ok = true;
  EXPECT_THAT(Check(ShotWith(zero), &ok), ElementsAre("log.die.range"));
  EXPECT_FALSE(ok);
}

// --- Range bands
// ----------------------------------------------------------------

TEST_F(FiringTest, RangeBandsFromDistance) {
  const struct {
    int distance_mm;
    bool woods;
    RangeBand band;
  } cases[] = {
      {0, false, RangeBand::kEffective},     // 0 cm
      {80, false, RangeBand::kEffective},    // 8 cm: effective includes 8
      {81, false, RangeBand::kLong},         // over 8 cm
      {150, false, RangeBand::kLong},        // 15 cm: long includes 15
      {151, false, RangeBand::kOutOfRange},  // over 15 cm
      {30, true, RangeBand::kEffective},     // 3 cm in woods
      {31, true, RangeBand::kOutOfRange},    // over 3 cm in woods
      {31, false, RangeBand::kEffective},    // same distance, open ground
  };
  const std::vector<std::uint32_t> dice = {4, 4};
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << c.distance_mm << " mm, woods " << c.woods);
    Shot shot = ShotWith(dice);  // declared long, overruled by the tape
    shot.facts.distance_mm = c.distance_mm;
    shot.facts.woods_limit = c.woods;
    const ResolvedBand band = ResolveBand(rules_, state_, shot);
    EXPECT_EQ(band.band, c.band);
    EXPECT_EQ(band.origin, Origin::kComputed);
    EXPECT_FALSE(band.forced_long);
  }
}

TEST_F(FiringTest, RangeBandAsDeclaredWithoutDistance) {
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.woods_limit = true;  // no tape measure: the declaration stands
  const ResolvedBand band = ResolveBand(rules_, state_, shot);
  EXPECT_EQ(band.band, RangeBand::kLong);
  EXPECT_EQ(band.origin, Origin::kDeclared);
}

// --- Firing at chargers
// ------------------------------------------------------------

TEST_F(FiringTest, LongRangeForcedAtChargersFromBeyondEffective) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {5, 4};
  Shot shot = ShotWith(dice);
  shot.facts.distance_mm = 50;  // 5 cm now, but the charge began beyond 8 cm
  shot.facts.chargers_began_beyond_effective = true;
  const ResolvedBand band = ResolveBand(rules_, state_, shot);
  EXPECT_EQ(band.band, RangeBand::kLong);
  EXPECT_TRUE(band.forced_long);
  EXPECT_EQ(band.origin, Origin::kComputed);
  const FiringResolution res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, -1);  // no +1 effective; -1 being charged
  EXPECT_EQ(res.hits, 1);       // 5+4 = 9, -1 = 8 >= 8: hit
}

TEST_F(FiringTest, EffectiveRangeDeclaredAtDistantChargersIsAViolation) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  shot.facts.chargers_began_beyond_effective = true;
  EXPECT_THAT(Check(shot), ElementsAre("daimyo.fire.range.long_at_chargers"));
  shot.facts.declared_band = RangeBand::kLong;  // as the rules want it
  EXPECT_THAT(Check(shot), IsEmpty());
}

TEST_F(FiringTest, FirersInCoverFireAtEffectiveRangeAtDistantChargers) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  shot.facts.chargers_began_beyond_effective = true;
  shot.facts.firer_in_cover = true;
  const ResolvedBand band = ResolveBand(rules_, state_, shot);
  EXPECT_EQ(band.band, RangeBand::kEffective);
  EXPECT_FALSE(band.forced_long);
  EXPECT_THAT(Check(shot), IsEmpty());
  const FiringResolution res = ResolveFiring(rules_, state_, shot, nullptr);
  EXPECT_EQ(res.modifier, 0);  // +1 effective -1 being charged = 0
  EXPECT_EQ(res.hits, 1);      // 4+4 = 8, +0 = 8 >= 8: hit
}

TEST_F(FiringTest, VeteranAndEliteFireAtEffectiveRangeAtDistantChargers) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  shot.facts.chargers_began_beyond_effective = true;
  for (Quality q : {Quality::kVeteran, Quality::kElite}) {
    SCOPED_TRACE(QualityName(q));
    state_.profiles[firer_].quality = q;
    const ResolvedBand band = ResolveBand(rules_, state_, shot);
    EXPECT_EQ(band.band, RangeBand::kEffective);
    EXPECT_FALSE(band.forced_long);
    EXPECT_THAT(Check(shot), IsEmpty());
  }
  state_.profiles[firer_].quality = Quality::kSeasoned;  // not good enough
  EXPECT_EQ(ResolveBand(rules_, state_, shot).band, RangeBand::kLong);
}

TEST_F(FiringTest, ChargersFromWithinEffectiveRangeAreShotAtEffectiveRange) {
  TargetChargesFirer();
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  shot.facts.declared_band = RangeBand::kEffective;
  shot.facts.chargers_began_beyond_effective = false;
  const ResolvedBand band = ResolveBand(rules_, state_, shot);
  EXPECT_EQ(band.band, RangeBand::kEffective);
  EXPECT_FALSE(band.forced_long);
  EXPECT_THAT(Check(shot), IsEmpty());
}

// --- Ranks and the building limit
// ------------------------------------------------

TEST_F(FiringTest, MaxFiringStands) {
  const std::vector<std::uint32_t> dice = {4, 4};
  Shot shot = ShotWith(dice);
  const struct {
    int stands;
    int per_rank;
    bool disordered;
    bool from_building;
    int max;
  } cases[] = {
      {6, 2, false, false, 4},  // good order: 2 ranks x 2 = 4
      {6, 2, true, false, 2},   // disordered: 1 rank x 2 = 2
      {3, 2, false, false, 3},  // 2 x 2 = 4, only 3 stands: 3
      {1, 4, true, false, 1},   // 1 x 4 = 4, only 1 stand: 1
      {6, 3, false, true, 2},   // 2 x 3 = 6, building: 2
      {6, 1, true, true, 1},    // 1 x 1 = 1 under the building's 2: 1
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << c.stands << " stands, " << c.per_rank
                                    << " a rank, disordered " << c.disordered
                                    << ", building " << c.from_building);
    state_.units[firer_] = Formed(c.stands, c.per_rank);
    state_.units[firer_].disordered = c.disordered;
    shot.facts.firing_from_building = c.from_building;
    EXPECT_EQ(MaxFiringStands(rules_, state_, shot), c.max);
  }
}

// --- Hits, stand loss and what it owes
// ------------------------------------------

TEST_F(FiringTest, CarriedHitsAddUp) {
  state_.units[target_].carried_hits = 2;
  const std::vector<std::uint32_t> dice = {4, 4, 4, 4};
  const Shot shot = ShotWith(dice);
  const int lost = ApplyFiring(rules_, state_, shot, 2, -1);
  const UnitStatus& t = state_.units[target_];
  EXPECT_EQ(lost, 1);            // 2 carried + 2 new = 4: 4 / 3 = 1 stand
  EXPECT_EQ(t.carried_hits, 1);  // 4 - 3 = 1 carried over
  EXPECT_EQ(t.stands, 3);        // 4 - 1
  EXPECT_EQ(t.stands_lost, 1);
  EXPECT_EQ(t.stands_lost_this_turn, 1);
  EXPECT_FALSE(t.removed);
  EXPECT_EQ(t.owed_morale, kReason1);
}

TEST_F(FiringTest, ThreeHitsRemoveAStand) {
  const std::vector<std::uint32_t> dice = {4, 4};
  const int lost = ApplyFiring(rules_, state_, ShotWith(dice), 3, -1);
  EXPECT_EQ(lost, 1);                                // 0 + 3 = 3: 1 stand
  EXPECT_EQ(state_.units[target_].carried_hits, 0);  // 3 - 3 = 0
  EXPECT_EQ(state_.units[target_].stands, 3);
}

TEST_F(FiringTest, TwoHitsAreOnlyCarried) {
  const std::vector<std::uint32_t> dice = {4, 4};
  const int lost = ApplyFiring(rules_, state_, ShotWith(dice), 2, -1);
  const UnitStatus& t = state_.units[target_];
  EXPECT_EQ(lost, 0);  // 0 + 2 = 2 < 3
  EXPECT_EQ(t.carried_hits, 2);
  EXPECT_EQ(t.stands, 4);
  EXPECT_EQ(t.owed_morale, 0);  // hits alone cause no morale test
}

TEST_F(FiringTest, SevenHitsRemoveTwoStands) {
  state_.units[target_].carried_hits = 1;
  const std::vector<std::uint32_t> dice = {4, 4};
  const int lost = ApplyFiring(rules_, state_, ShotWith(dice), 7, -1);
  EXPECT_EQ(lost, 2);  // 1 + 7 = 8: 8 / 3 = 2 stands, 8 - 6 = 2 carried
  EXPECT_EQ(state_.units[target_].carried_hits, 2);
  EXPECT_EQ(state_.units[target_].stands, 2);  // 4 - 2
  EXPECT_EQ(state_.units[target_].stands_lost, 2);
}

TEST_F(FiringTest, UnitLosingItsLastStandIsRemoved) {
  state_.units[target_].stands = 1;
  state_.units[target_].carried_hits = 2;
  const std::vector<std::uint32_t> dice = {4, 4};
  const int lost = ApplyFiring(rules_, state_, ShotWith(dice), 1, -1);
  const UnitStatus& t = state_.units[target_];
  EXPECT_EQ(lost, 1);  // 2 + 1 = 3: the last stand
  EXPECT_EQ(t.stands, 0);
  EXPECT_TRUE(t.removed);
  EXPECT_EQ(t.owed_morale, kReason1);
}

TEST_F(FiringTest, NoMoreStandsLostThanTheUnitHas) {
  state_.units[target_].stands = 1;
  const std::vector<std::uint32_t> dice = {4, 4};
  const int lost = ApplyFiring(rules_, state_, ShotWith(dice), 6, -1);
  EXPECT_EQ(lost, 1);  // 6 / 3 = 2, but there is 1 stand
  EXPECT_TRUE(state_.units[target_].removed);
  EXPECT_EQ(state_.units[target_].stands_lost, 1);
}

TEST_F(FiringTest, StandLossOwesLeaderLossRollsForLiveAttachedLeaders) {
  LeaderState general;
  general.id = "gen_b";
  general.clan = kClanB;
  general.attached_unit = target_;
  LeaderState daimyo = general;
  daimyo.id = "daimyo_b";
  daimyo.kind = LeaderKind::kDaimyo;
  LeaderState dead = general;
  dead.id = "dead_b";
  dead.killed = true;
  LeaderState elsewhere = general;
  elsewhere.id = "gen_a";
  elsewhere.clan = kClanA;
  elsewhere.attached_unit = firer_;
  state_.leaders = {general, daimyo, dead, elsewhere};
  const std::vector<std::uint32_t> dice = {4, 4};
  const int lost = ApplyFiring(rules_, state_, ShotWith(dice), 3, -1);
  EXPECT_EQ(lost, 1);  // 3 / 3 = 1, 4 - 1 = 3 stands left
  EXPECT_TRUE(state_.leaders[0].loss_roll_owed);
  EXPECT_EQ(state_.leaders[0].loss_roll_stands_left, 3);
  EXPECT_TRUE(state_.leaders[1].loss_roll_owed);
  EXPECT_EQ(state_.leaders[1].loss_roll_stands_left, 3);
  EXPECT_FALSE(state_.leaders[2].loss_roll_owed);  // already dead
  EXPECT_FALSE(state_.leaders[3].loss_roll_owed);  // with the firer
}

TEST_F(FiringTest, NoStandLostNoLeaderLossRoll) {
  LeaderState general;
  general.id = "gen_b";
  general.clan = kClanB;
  general.attached_unit = target_;
  state_.leaders = {general};
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_EQ(ApplyFiring(rules_, state_, ShotWith(dice), 2, -1), 0);  // 2 < 3
  EXPECT_FALSE(state_.leaders[0].loss_roll_owed);
}

TEST_F(FiringTest, HeadquartersCountsAsOneStandLeft) {
  state_.profiles[target_].troop_type = TroopType::kHeadquarters;
  state_.units[target_] = Formed(3, 3);
  LeaderState general;
  general.id = "gen_b";
  general.clan = kClanB;
  general.attached_unit = target_;
  state_.leaders = {general};
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_EQ(ApplyFiring(rules_, state_, ShotWith(dice), 3, -1), 1);
  EXPECT_EQ(state_.units[target_].stands, 2);  // 3 - 1 = 2 on the table...
  EXPECT_TRUE(state_.leaders[0].loss_roll_owed);
  EXPECT_EQ(state_.leaders[0].loss_roll_stands_left, 1);  // ...but counts 1
}

TEST_F(FiringTest, LeaderOfAnEliminatedUnitRollsWithNoStandsLeft) {
  state_.units[target_].stands = 1;
  LeaderState general;
  general.id = "gen_b";
  general.clan = kClanB;
  general.attached_unit = target_;
  state_.leaders = {general};
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_EQ(ApplyFiring(rules_, state_, ShotWith(dice), 3, -1), 1);
  EXPECT_TRUE(state_.leaders[0].loss_roll_owed);
  EXPECT_EQ(state_.leaders[0].loss_roll_stands_left, 0);  // 1 - 1 = 0
}

TEST_F(FiringTest, FiringAtARemovedUnitLandsNothing) {
  state_.units[target_].stands = 0;
  state_.units[target_].removed = true;
  const std::vector<std::uint32_t> dice = {4, 4};
  EXPECT_EQ(ApplyFiring(rules_, state_, ShotWith(dice), 3, -1), 0);
  EXPECT_EQ(state_.units[target_].owed_morale, 0);
  EXPECT_TRUE(state_.units[firer_].fired_this_turn);
}

}  // namespace
}  // namespace gunbai::rules::daimyo
