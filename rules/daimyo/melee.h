// Daimyo melee: who fights and with how many stands, the weapon table and
// melee modifiers, hits, the outcome of a round, and duels between leaders.
// Checking, resolving and applying are separate; replay combines them and
// tracks what an outcome obliges the units to do next. Pure functions over a
// BattleState.
#ifndef GUNBAI_RULES_DAIMYO_MELEE_H_
#define GUNBAI_RULES_DAIMYO_MELEE_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/types/span.h"
#include "rules/battle_state.h"
#include "rules/daimyo/tables.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {

// Facts of one side of a pairing that need a tape measure, as declared.
struct MeleeSideFacts {
  int front_stands_in_contact = 0;
  int overlap_stands = 0;
  bool enemy_fighting_to_flank_or_rear = false;
  bool enemy_uphill_or_behind_obstacle = false;
  bool enemy_in_building = false;
  bool in_building = false;
  bool defending_linear_obstacle = false;
  std::optional<bool> following_up;
  std::optional<bool> pursuing;
  // Measured on the table (rules/daimyo/measure.h), not declared.
  bool measured = false;

  Origin fact_origin() const {
    return measured ? Origin::kMeasured : Origin::kDeclared;
  }
};

struct MeleeSideInput {
  int unit = -1;
  int stands_fighting = 0;
  absl::Span<const std::uint32_t> dice;  // Borrowed from the caller.
  MeleeSideFacts facts;
  // The stands the side fights from when not the unit's stands now: in a
  // later pairing of a multi-unit melee, its stands when the melee began
  // (the pairings are fought at once).
  std::optional<int> stands;
};

// One round of one pairing. Side 0 is the active clan's unit.
struct MeleePairing {
  std::array<MeleeSideInput, 2> sides;
  int round = 1;  // From the melee contact: 1 for a new melee.
  // One of the pairings of a multi-unit melee (a `melee_id`): a stand
  // eligible against two enemies fights one of them (reading 26 (f)).
  bool multi_unit = false;
};

// Returns the round this pairing fights now: one more than the rounds its
// contact has fought, 1 for a new contact.
int NextRound(const BattleState& state, int a, int b);

// Returns true if side `side` of `pairing` meets its enemy in a new melee
// that its pursuit of last turn brought on (as declared, else computed: it
// pursued last turn, this is round 1, it did not charge into this contact,
// and the enemy did not charge it).
bool PursuesIntoThisMelee(const BattleState& state, const MeleePairing& pairing,
                          int side);

// Returns the weapon a unit fights with: headquarters and missile-armed
// Ashigaru use improvised weapons (by the reading option, missile Ashigaru
// whose order of battle names a long spear may keep it).
MeleeWeapon FightingWeapon(const ReadingOptions& options, const UnitProfile& p);

// Returns the most stands side `side` may fight with: front stands in
// contact (one against a headquarters), the rear rank by round, weapon and
// order, overlaps from the second round, capped by its stands and by the
// building limit.
int MaxFightingStands(const Tables& rules, const BattleState& state,
                      const MeleePairing& pairing, int side);

// Reports every melee rule the pairing breaks before its dice are read:
// who fights, fighting twice, stands beyond the maximum (violation) or
// fewer (warning), dice count and faces. Returns true when both sides' dice
// can be resolved.
bool CheckMeleePairing(const Tables& rules, const BattleState& state,
                       const MeleePairing& pairing, FindingSink& sink);

struct MeleeSideResolution {
  int weapon_factor = 0;
  int modifier = 0;  // Weapon factor plus every melee modifier.
  int hits = 0;
};

// Computes the hits side `side` scores. Requires CheckMeleePairing to have
// returned true. When `trace` is not null, appends the weapon factor, each
// modifier that applies, and one term per fighting stand.
MeleeSideResolution ResolveMeleeSide(const Tables& rules,
                                     const BattleState& state,
                                     const MeleePairing& pairing, int side,
                                     Trace* trace);

// The outcome of a round from the hits as played.
struct MeleeOutcome {
  int winner = -1;  // Side index, -1 for a draw.
  bool loser_routs = false;
};
MeleeOutcome DecideOutcome(const Tables& rules, int hits0, int hits1);

// Applies a round as played: both units are in melee and have fought this
// turn, the contact counts one more round, each side's hits land on the
// other (or exactly `stands_lost[s]` stands go when not negative), stand
// losses owe morale tests (reason 1) and leader-loss rolls. Follow-up and
// pursuit bonuses are used up. Returns the stands each side lost.
std::array<int, 2> ApplyMeleeRound(const Tables& rules, BattleState& state,
                                   const MeleePairing& pairing,
                                   std::array<int, 2> hits,
                                   std::array<int, 2> stands_lost);

// Returns true when `winner` must follow up or pursue `loser`: false when
// infantry beat cavalry that charged into contact this turn.
bool MustFollowUp(const BattleState& state, int winner, int loser);

// A duel between two leaders before a round.
struct Duel {
  int challenger = -1;  // Leader indexes.
  int challenged = -1;
  bool accepted = false;
  absl::Span<const std::uint32_t> dice;  // Pairs: challenger's die first.
  // The leaders' units are neither in contact nor charging each other yet:
  // the caller checks that the round that follows pairs them (a melee the
  // log declares in contact), so CheckDuel does not report it.
  bool engaged_by_next_round = false;
};

// Reports breaches of the challenge rules: both leaders attached to units in
// melee with each other, each a General or Daimyo, the challenger's clan
// holding the initiative, dice in pairs with every pair but the last a tie.
// Returns true when the duel can be resolved.
bool CheckDuel(const Tables& rules, const BattleState& state, const Duel& duel,
               FindingSink& sink);

// Returns the winning leader of an accepted duel (the last pair decides).
// When `trace` is not null, appends each pair's totals.
int ResolveDuel(const BattleState& state, const Duel& duel, Trace* trace);

// Applies a duel as played: a refusal costs the challenged leader 1 rating
// (not below the minimum); otherwise the winner gains 1 (not above the
// maximum), the loser is killed and his unit owes a morale test (reason 5).
void ApplyDuel(const Tables& rules, BattleState& state, const Duel& duel,
               int winner);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_MELEE_H_
