// The battle state that replay folds events into: each unit's profile (fixed
// by the order of battle) and status (changed by events), the leaders, and
// the turn. Units and leaders are addressed by index; ids are for messages.
// Thread-compatible: one replay owns one state.
#ifndef GUNBAI_RULES_BATTLE_STATE_H_
#define GUNBAI_RULES_BATTLE_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "rules/types.h"

namespace gunbai::rules {

// What the order of battle fixes about a unit.
struct UnitProfile {
  std::string id;
  std::string name;
  int clan = 0;  // Index into BattleState::clans.
  TroopType troop_type = TroopType::kAshigaru;
  Mobility mobility = Mobility::kFoot;
  Quality quality = Quality::kSeasoned;
  Armour armour = Armour::kNone;
  MeleeWeapon melee_weapon = MeleeWeapon::kNone;
  MissileWeapon missile_weapon = MissileWeapon::kNone;
  int starting_stands = 0;
};

// Morale test reasons 1-8 as a bit set (bit n = reason n).
using MoraleReasons = std::uint16_t;

// Returns the bit of morale test reason `reason` (1-8).
constexpr MoraleReasons ReasonBit(int reason) {
  return static_cast<MoraleReasons>(1u << reason);
}

// What events change about a unit.
struct UnitStatus {
  int stands = 0;
  int stands_per_rank = 1;
  Formation formation = Formation::kLine;
  int carried_hits = 0;
  int stands_lost = 0;
  int stands_lost_this_turn = 0;
  bool disordered = false;
  // Halted (no moves, no charges, no counter-charge) up to and including
  // this turn; 0 when not halted.
  int halted_until_turn = 0;
  // A retreat or rout this turn: the unit may not fire.
  bool may_not_fire = false;
  bool fired_this_turn = false;
  bool moved_this_turn = false;
  bool first_volley_spent = false;
  bool charging = false;
  bool in_melee = false;
  bool routing = false;
  bool has_routed = false;
  bool frenzied = false;
  bool pursuing = false;
  int pursued_on_turn = 0;      // Turn of the unit's last pursuit move.
  int followed_up_on_turn = 0;  // Turn of the unit's last follow-up move.
  bool fought_this_turn = false;
  bool removed = false;
  // Destroyed by the rules (push back into enemy, rout while contacted in
  // flank or rear, routers caught, routed twice): the log must remove it by
  // the end of the turn. Empty when not owed.
  std::string removal_owed;
  int charging_target = -1;  // Unit index this unit declared a charge on.
  int charges_received = 0;  // Charges declared on this unit this turn.
  MoraleReasons owed_morale = 0;
};

// Two units in melee contact and how many rounds they have fought.
struct MeleeContact {
  int a = -1;
  int b = -1;
  int rounds = 0;
  int last_turn_fought = 0;

  bool Involves(int unit) const { return a == unit || b == unit; }
  bool Between(int x, int y) const {
    return (a == x && b == y) || (a == y && b == x);
  }
};

struct LeaderState {
  std::string id;
  std::string name;
  int clan = 0;
  LeaderKind kind = LeaderKind::kGeneral;
  int command_rating = 1;
  int attached_unit = -1;  // Unit index, -1 when unattached.
  bool killed = false;
  bool loss_roll_owed = false;
  int loss_roll_stands_left = 0;  // Stands counted for the owed roll.
};

enum class Phase {
  kBeforeGame,  // No turn has started yet.
  kTurnStart,   // Turn started, no clan activated yet.
  kMovement,    // Active clan moving and declaring charges.
  kFiring,
  kMelee,
  kTurnEnded,  // Between TurnEnd and the next TurnStart.
  kGameOver,
};
absl::string_view PhaseName(Phase p);

struct BattleState {
  std::vector<std::string> clans;  // Clan ids, in header order.
  std::vector<UnitProfile> profiles;
  std::vector<UnitStatus> units;  // Parallel to profiles.
  std::vector<LeaderState> leaders;
  std::vector<MeleeContact> melees;

  int turn = 0;
  int initiative_clan = -1;
  int active_clan = -1;
  std::uint32_t activated_clans = 0;  // Bit per clan index, this turn.
  Phase phase = Phase::kBeforeGame;
  std::uint64_t last_seq = 0;
  bool any_event = false;

  // Returns true if `unit` declared a charge on `target` this turn.
  bool IsChargedBy(int target, int charger) const {
    return units[charger].charging && units[charger].charging_target == target;
  }
  // Returns true if any unit declared a charge on `target` this turn.
  bool IsBeingCharged(int target) const {
    return units[target].charges_received > 0;
  }
  // Returns true if any leader is attached to `unit` and alive.
  bool HasLeaderAttached(int unit) const;
  // Returns true if `unit` is halted this turn.
  bool IsHalted(int unit) const {
    return units[unit].halted_until_turn > 0 &&
           units[unit].halted_until_turn >= turn;
  }
  // Returns the live leader of `kind` attached to `unit`, or -1.
  int AttachedLeader(int unit, LeaderKind kind) const;
  // Returns the melee contact between `x` and `y`, or null.
  MeleeContact* FindMelee(int x, int y);
  const MeleeContact* FindMelee(int x, int y) const;
};

// Returns "Name (id)" for a unit, or the id when it has no name.
std::string UnitLabel(const BattleState& state, int unit);

// Reports a violation of `rule_id` by `unit` to `sink`.
void ReportViolation(FindingSink& sink, const BattleState& state, int unit,
                     absl::string_view rule_id, std::string message);

// Adds `hits` to the unit's carried hits and removes a stand for every
// `hits_per_stand` of them (or exactly `stands_lost_override` stands, when
// not negative, as the log played it). Returns the stands removed. A unit
// left with no stands is removed from the table.
int ApplyHits(UnitStatus& unit, int hits, int hits_per_stand,
              int stands_lost_override);

// Computes the stands lost when `hits` more land on a unit carrying
// `carried_hits`, without changing anything.
inline int StandsLostByHits(int carried_hits, int hits, int hits_per_stand) {
  return (carried_hits + hits) / hits_per_stand;
}

// Marks a leader-loss roll owed for every live leader attached to `unit`,
// counting `stands_left` (a headquarters counts as `hq_counts_as`).
void OweLeaderLossRolls(BattleState& state, int unit, int hq_counts_as);

// Records that `charger` declared a charge on `target` this turn.
void DeclareCharge(BattleState& state, int charger, int target);

// Clears the flags that last one turn, at the start of a new turn.
void StartNewTurn(BattleState& state, int turn, int initiative_clan);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_BATTLE_STATE_H_
