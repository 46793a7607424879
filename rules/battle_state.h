// The battle state that replay folds events into: each unit's profile (fixed
// by the order of battle) and status (changed by events), the leaders, and
// the turn. Units and leaders are addressed by index; ids are for messages.
// Thread-compatible: one replay owns one state.
#ifndef GUNBAI_RULES_BATTLE_STATE_H_
#define GUNBAI_RULES_BATTLE_STATE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
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
// Where a unit stands, on a log with a table (rules/battlefield.h): the
// centre of its front edge in millimetres, and its facing in degrees
// clockwise from straight up the table (+y), 0 to 359.
struct Pose {
  int x_mm = 0;
  int y_mm = 0;
  int facing_deg = 0;

  friend bool operator==(const Pose& a, const Pose& b) {
    return a.x_mm == b.x_mm && a.y_mm == b.y_mm && a.facing_deg == b.facing_deg;
  }
};

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
  // The seq of the morale test that halted it (for messages); 0: none, or
  // before the log (a starting position's halted_by_seq, if given).
  std::uint64_t halt_cause_seq = 0;
  // A retreat or rout this turn: the unit may not fire.
  bool may_not_fire = false;
  bool fired_this_turn = false;
  // Firing inflicted at least one hit on the unit this turn (it may not
  // rally this turn).
  bool hit_by_fire_this_turn = false;
  bool moved_this_turn = false;
  bool first_volley_spent = false;
  bool charging = false;
  bool in_melee = false;
  bool routing = false;
  bool has_routed = false;
  bool frenzied = false;
  bool pursuing = false;
  int pursued_on_turn = 0;  // Turn of the unit's last pursuit move.
  // Its last pursuit followed a melee of more than one round (it becomes
  // disordered when the pursuit meets a fresh enemy, by the reading option).
  bool pursued_from_long_melee = false;
  int followed_up_on_turn = 0;  // Turn of the unit's last follow-up move.
  bool fought_this_turn = false;
  bool removed = false;
  // Destroyed by the rules (push back into enemy, rout while contacted in
  // flank or rear, routers caught, routed twice): the log must remove it by
  // the end of the turn. Empty when not owed.
  std::string removal_owed;
  int charging_target = -1;  // Unit index this unit declared a charge on.
  // The charge fell short: no contact, no charge bonus.
  bool charge_fell_short = false;
  // The contact the charge made has fought its round: a later contact
  // between the same units this turn is not this charge's.
  bool charge_spent = false;
  // The unit this one charged into contact this turn (not fell short), even
  // if the charge has ended since: infantry do not follow up or pursue
  // cavalry that charged them into contact this turn. -1 when none.
  int charged_into_contact_with = -1;
  int charges_received = 0;  // Charges declared on this unit this turn.
  MoraleReasons owed_morale = 0;
  // On a log with a table: whether the unit is on it, and where.
  bool placed = false;
  Pose pose;
  // The distance to its target when it declared its charge, mm (for fire
  // at chargers that began beyond effective range); -1: not measured.
  int charge_start_mm = -1;
  // On a log with a table: a leader of its clan was killed this turn with
  // this unit near him (measured at his death; his own unit included).
  bool leader_killed_near = false;
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
  int killed_on_turn = 0;  // The turn he was killed; 0 while alive.
  // A leader-loss roll is owed: one for each stand his unit lost, each
  // counting the stands left after the event that lost it.
  bool loss_roll_owed = false;
  int loss_roll_stands_left = 0;  // Stands counted for the next owed roll.
  // The rolls owed after the next one, oldest first: the stands each counts.
  absl::InlinedVector<int, 2> later_loss_rolls;
};

// The units whose footprints may have changed, in order, so that a table's
// spatial index (rules::ShapeCache's grid) catches up with a state by
// looking at those units only: every writer of a unit's pose, stands,
// ranks, placement or removal calls BattleState::FootprintChanged (a Debug
// build checks the index against every unit at each query, so a writer
// that forgets fails the suite). A copy is another state to the index: it
// gets a new id, and the index starts again from a full look. The id only
// names a state to its index; it never reaches a report or a digest.
class FootprintChanges {
 public:
  FootprintChanges() : id_(NewId()) {}
  FootprintChanges(const FootprintChanges&) : id_(NewId()) {}
  FootprintChanges& operator=(const FootprintChanges&) {
    id_ = NewId();
    epoch_ = 0;
    units_.clear();
    return *this;
  }
  ~FootprintChanges() = default;

  void Add(int unit) {
    // Bounded: past this many, the list starts again in a new epoch (an
    // index that had not caught up looks at every unit once).
    if (units_.size() == kMaxKept) {
      units_.clear();
      ++epoch_;
    }
    units_.push_back(unit);
  }
  std::uint64_t id() const { return id_; }
  std::uint64_t epoch() const { return epoch_; }
  const std::vector<int>& units() const { return units_; }

 private:
  static constexpr std::size_t kMaxKept = 256;
  static std::uint64_t NewId();

  std::uint64_t id_;
  std::uint64_t epoch_ = 0;
  std::vector<int> units_;
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
  // Clans that sent their own turn_end this turn (Event.clan set): the turn
  // ends when every clan has (EngineBase::EndTurn). Bit per clan index.
  std::uint32_t turn_ended_clans = 0;
  Phase phase = Phase::kBeforeGame;
  std::uint64_t last_seq = 0;
  bool any_event = false;
  // Whose footprints changed (FootprintChanges): not part of the game.
  FootprintChanges footprint_changes;

  // Records that `unit`'s pose, stands, ranks, placement or removal may
  // have changed. Every writer of those fields calls it.
  void FootprintChanged(int unit) { footprint_changes.Add(unit); }

  // Returns true if `charger` is charging `target`: it declared the charge
  // and the charge has not ended (the charger has not routed or left the
  // table; by the reading option, the charge's activation has not ended).
  bool IsChargedBy(int target, int charger) const {
    const UnitStatus& c = units[charger];
    return c.charging && c.charging_target == target && !c.routing &&
           !c.removed;
  }
  // Returns true if a unit is charging `target` (IsChargedBy).
  bool IsBeingCharged(int target) const;
  // Returns true if `unit` gets its charge bonus against `enemy`: its charge
  // on it is on, made contact (did not fall short), and this is the contact
  // it made (no round fought since between them).
  bool ChargeMadeThisContact(int unit, int enemy) const {
    return IsChargedBy(enemy, unit) && !units[unit].charge_fell_short &&
           !units[unit].charge_spent;
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

// The stand-loss rule, the one place it is written: the stands `unit` loses
// when `hits` more land on it, a stand for every `hits_per_stand` of its
// carried and new hits, at most the stands it has. Changes nothing (the
// engines, their generators' predictions and ApplyHits all ask it).
inline int StandsLost(const UnitStatus& unit, int hits, int hits_per_stand) {
  return std::min((unit.carried_hits + hits) / hits_per_stand, unit.stands);
}

// Returns the trace of StandsLost: one term, the stands lost, saying the
// arithmetic ("3 hits + 2 carried = 5: 1 stand lost (3 hits a stand), 2
// carried"), under `rule_id` (a string literal), so that an outcome's
// trace names the rule that decided it.
Trace StandLossTrace(const UnitStatus& unit, int hits, int hits_per_stand,
                     absl::string_view rule_id);

// Marks `stands_lost` leader-loss rolls owed (one a stand) for every live
// leader attached to `unit`, each counting the unit's stands left now (a
// headquarters counts as `hq_counts_as`).
void OweLeaderLossRolls(BattleState& state, int unit, int hq_counts_as,
                        int stands_lost);

// Returns the stands a leader-loss roll for `unit` counts now: its stands,
// or `hq_counts_as` for a headquarters.
int StandsCountedForLeaderRoll(const BattleState& state, int unit,
                               int hq_counts_as);

// Settles the next leader-loss roll `leader` owes: the one after it becomes
// the next, if any. A killed leader owes no more rolls.
void SettleLeaderLossRoll(LeaderState& leader, bool killed);

// Returns the number of leader-loss rolls `leader` owes.
inline int LeaderLossRollsOwed(const LeaderState& leader) {
  return leader.loss_roll_owed
             ? 1 + static_cast<int>(leader.later_loss_rolls.size())
             : 0;
}

// Records that `charger` declared a charge on `target` this turn, which
// fell short or not.
void DeclareCharge(BattleState& state, int charger, int target,
                   bool fell_short = false);

// Ends `unit`'s charge, if any (its target is no longer charged by it).
void EndCharge(BattleState& state, int unit);

// Ends every charge (the reading that a unit is charged only during the
// activation in which the charge was declared).
void EndAllCharges(BattleState& state);

// Clears the flags that last one turn, at the start of a new turn.
void StartNewTurn(BattleState& state, int turn, int initiative_clan);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_BATTLE_STATE_H_
