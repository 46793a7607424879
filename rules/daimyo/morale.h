// Daimyo morale: who owes a test, the die-roll modifiers, natural rolls and
// frenzy, the morale table, and what each result does to the unit (seeds/002
// as settled in RULES-NOTES.md "Morale (002)"). Checking (CheckMoraleTest) is
// separate from resolving (ResolveMoraleTest) and from applying
// (ApplyMoraleResult); replay combines them once per morale test. Pure
// functions over a BattleState; thread-compatible.
#ifndef GUNBAI_RULES_DAIMYO_MORALE_H_
#define GUNBAI_RULES_DAIMYO_MORALE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "rules/battle_state.h"
#include "rules/daimyo/tables.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {

// Facts of a test that need a tape measure, as the players declared them.
// "Near" is within 15 cm, or 5 cm for a testing unit in melee.
struct MoraleFacts {
  bool uphill_or_in_cover = false;
  bool general_near = false;
  bool out_of_command = false;
  int enemies_routing_near = 0;  // Count of enemy units routing near.
  // Unit indexes of friendly routers near; borrowed from the caller.
  absl::Span<const int> friends_routing_near;
  bool enemy_facing_flank_or_rear_near = false;
  bool leader_killed_near = false;
  bool charged_frontally = false;
  // Measured on the table (rules/daimyo/measure.h), not declared.
  bool measured = false;

  Origin fact_origin() const {
    return measured ? Origin::kMeasured : Origin::kDeclared;
  }
};

// One morale test in domain terms. `dice` is borrowed from the caller.
struct MoraleTestInput {
  int unit = -1;
  int reason = 0;  // 1-8, as numbered in the morale section.
  absl::Span<const std::uint32_t> dice;
  MoraleFacts facts;
};

// Reports to `sink` every morale rule the test breaks before any die is
// read: the reason is 1-8 (daimyo.morale.reason), a frenzied unit takes no
// test for reasons 1-7 (daimyo.morale.frenzied_no_test), only a routing unit
// tests to rally (daimyo.morale.rally_not_routing), the test rolls 2 dice
// (daimyo.morale.dice_count) reading 1 to 6 (log.die.range). Returns true
// when the dice can be resolved (a valid reason, two dice, all 1-6).
bool CheckMoraleTest(const Tables& rules, const BattleState& state,
                     const MoraleTestInput& test, FindingSink& sink);

struct MoraleResolution {
  int modifier = 0;  // Sum of the modifiers that apply.
  int roll = 0;      // The unmodified 2d6.
  int total = 0;     // roll + modifier.
  int pass_score = 0;
  bool automatic_pass = false;  // Unmodified 12.
  bool automatic_fail = false;  // Unmodified 2.
  bool frenzy = false;
  bool passed = false;
  // Pass score minus total; 0 when passed; at least 1 on an automatic fail.
  int fail_by = 0;
  MoraleResult result = MoraleResult::kNoEffect;
  // A rally test passed by a unit that firing hit this turn: no rally.
  bool rally_barred_by_hits = false;
};

// Computes the test. Requires CheckMoraleTest to have returned true. When
// `trace` is not null, appends each modifier that applies (one term per
// friendly router counted), then the roll (daimyo.morale.test), then the
// total against the pass score with the table cell (daimyo.morale.result).
MoraleResolution ResolveMoraleTest(const Tables& rules,
                                   const BattleState& state,
                                   const MoraleTestInput& test, Trace* trace);

// Applies a result as played to `unit`: halt (halted this turn and next),
// retire (halted next turn, leaves melee), retreat (also disordered and may
// not fire), rout (routing, disordered, may not fire, leaves melee, frenzy
// ends; a second rout owes the unit's removal), dispersed (removed), frenzy,
// rally (routing and frenzy end); the other results change nothing. A unit
// that leaves melee loses its melee contacts, and a partner left with no
// contact is no longer in melee.
void ApplyMoraleResult(BattleState& state, int unit, MoraleResult result);

// Returns the tests `charger` owes when it declares a charge: reason 4 for
// Ashigaru with a missile weapon and for Peasants. Frenzied units owe none.
MoraleReasons TestsOwedByCharger(const BattleState& state, int charger);

// Returns the tests `target` owes when `charger` declares a charge on it:
// reason 2 for Ashigaru and Peasants, reason 3 for foot that is neither
// Elite nor frenzied when the charger is mounted. Frenzied and routing units
// owe none.
MoraleReasons TestsOwedByTarget(const BattleState& state, int target,
                                int charger);

// Returns whether `tester` heeds the friendly router `router` for reason 6:
// cavalry (mounted) and Samurai heed only cavalry and Samurai routers; all
// other units heed every friendly router.
bool HeedsRouter(const BattleState& state, int tester, int router);

// Returns the highest reason (1-15) in a set, 0 when none is set. Bit 0 is
// not a reason and is ignored.
int HighestReason(MoraleReasons reasons);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_MORALE_H_
