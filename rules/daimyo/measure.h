// Daimyo's tape measure: on a log with positions, the facts the players
// would otherwise declare, measured on the table (rules/battlefield.h):
// the range and arc of a volley, the nearest target, the line of sight,
// cover and buildings, a target in column or flanked; a melee's contact,
// flank and rear, uphill and obstacles; the 15 cm (5 cm in melee) of
// morale; where moves and result moves end and what blocks them. Each
// reading the rules leave open is stated in rules/daimyo/RULES.md, "The
// table", under the rule id the replay reports it with.
//
// Pure functions of the state and the battlefield; measuring is separate
// from comparing with what was declared, which the replay does
// (engine_table.cc). Thread-compatible.
#ifndef GUNBAI_RULES_DAIMYO_MEASURE_H_
#define GUNBAI_RULES_DAIMYO_MEASURE_H_

#include <optional>
#include <string>
#include <vector>

#include "rules/battle_state.h"
#include "rules/battlefield.h"
#include "rules/daimyo/tables.h"
#include "rules/geometry/geometry.h"

namespace gunbai::rules::daimyo {

// What blocks a line of sight or a move: a unit, a terrain feature, the
// table's edge, or nothing.
struct Obstruction {
  int unit = -1;
  const TerrainFeature* terrain = nullptr;
  bool table_edge = false;

  bool any() const { return unit >= 0 || terrain != nullptr || table_edge; }
  // "Oda ashigaru (oda-ash-1)", "woods \"wood-1\"", "the table edge".
  std::string Describe(const BattleState& state) const;
};

struct ShotMeasure {
  // Between the nearest points of firer and target, cm; the points.
  double distance = 0;
  geometry::Vec2 from;
  geometry::Vec2 to;
  // The target is within the firer's arc of fire (infantry: 45 degrees off
  // straight ahead from each front corner; mounted: all round).
  bool in_arc = true;
  // Nothing blocks every line of fire: a clear line from the firer's front
  // to the target passing no other unit nearer than half the fire gap and
  // no terrain that blocks sight.
  bool line_of_sight = true;
  Obstruction blocked_by;
  // An enemy unit nearer than the target, within range and arc and in
  // sight (-1: none): the rules' "nearest enemy unit".
  int nearer_enemy = -1;
  double nearer_distance = 0;
  bool woods_limit = false;
  bool target_in_cover = false;
  bool target_in_building = false;
  bool target_in_column_or_flanked = false;
  bool firing_from_building = false;
  bool firer_in_cover = false;
};

// Measures a volley of `firer` at `target`. Both must be placed.
ShotMeasure MeasureShot(const Tables& rules, const Battlefield& field,
                        const BattleState& state, int firer, int target);

// The range band a distance in cm gives (the woods limit included).
RangeBand BandAt(const Tables& rules, double distance_cm, bool woods_limit);

// What the tape measure says of one side of a melee pairing: `side`
// fighting `enemy`.
struct MeleeMeasure {
  double distance = 0;  // Between the two, cm.
  bool in_contact = true;
  // The enemy's front is against this side's flank or rear.
  bool enemy_fighting_to_flank_or_rear = false;
  bool enemy_uphill_or_behind_obstacle = false;
  bool enemy_in_building = false;
  bool in_building = false;
  // The stands of its front rank whose front edge the enemy's base is
  // against (more than the contact distance of the edge within it); 0 when
  // its front is not against the enemy (reading 45).
  int front_stands_in_contact = 0;
};
MeleeMeasure MeasureMeleeSide(const Battlefield& field,
                              const BattleState& state, int side, int enemy);

// What the tape measure says of a morale test's facts for `unit`, within
// the proximity (15 cm, 5 cm when the unit is in melee).
struct MoraleMeasure {
  double proximity = 15;  // cm.
  bool general_near = false;
  std::vector<int> enemies_routing_near;
  std::vector<int> friends_routing_near;
  bool enemy_facing_flank_or_rear_near = false;
  int enemy_facing_flank_or_rear = -1;
  bool uphill_or_in_cover = false;
  bool charged_frontally = false;
  // Out of command reach (table.command_reach_mm); none when the ruleset
  // gives no reach.
  std::optional<bool> out_of_command;
};
MoraleMeasure MeasureMorale(const Tables& rules, const Battlefield& field,
                            const BattleState& state, int unit);

// Units of the side (`friends`) or the other within the proximity of
// `unit` (15 cm; 5 cm for a unit in melee, measured by each unit's own
// proximity: a friend in melee within 5 cm), placed, on the table, in index
// order.
std::vector<int> UnitsNear(const Tables& rules, const Battlefield& field,
                           const BattleState& state, int unit, bool friends);

// Where a unit ends a move worked out by the rules, and what stopped it.
struct MoveMeasure {
  Pose to;
  // The distance moved, cm: how far its front centre went.
  double distance = 0;
  Obstruction blocked_by;
  // What blocked it: friends or impassable terrain (disordered), enemy or
  // the table's edge (destroyed), as the push back's rule reads.
  bool blocked_by_friends_or_impassable = false;
  bool blocked_by_enemy_or_edge = false;
  bool off_table = false;
};

// Returns the footprint `r` shrunk by the ruleset's contact distance on
// every side: what must not overlap another unit or impassable terrain, or
// cross the table's edge (touching is not meeting).
geometry::Polygon InnerShape(const Battlefield& field,
                             const geometry::OrientedRect& r);

// Where a charge takes `unit` against `target` (reading 37): turned to
// face the side of the target its centre lies off (front, flank or rear,
// cut by the target's diagonals), its front centre on the middle of that
// side. `reach_mm` > 0 bounds how far its front centre goes: beyond it the
// charger goes that far straight towards the contact and falls short.
struct ChargeEnd {
  Pose to;
  bool falls_short = false;
};
ChargeEnd ChargeContact(const Battlefield& field, const BattleState& state,
                        int unit, int target, int reach_mm);
// ChargeContact, but when that pose is not clear (off the table, in
// impassable ground, on another unit's base) the charger goes straight
// towards it as far as it can and falls short there (unless it touches).
ChargeEnd ReachableChargeEnd(const Battlefield& field, const BattleState& state,
                             int unit, int target, int reach_mm);

// The first other unit (in index order) whose base `unit` would overlap
// standing at `at` and does not overlap where it stands now, or -1.
// Touching is not overlapping: the footprint is shrunk by the contact
// distance.
int OverlappedUnit(const Battlefield& field, const BattleState& state, int unit,
                   const Pose& at);
// The same, given the inner shape (InnerShape) of its footprint there.
int OverlappedUnit(const Battlefield& field, const BattleState& state, int unit,
                   const geometry::Polygon& inner);

// The path of `unit` from its pose to `to` (a straight slide, then a turn
// in place): the footprints it sweeps, tested against impassable terrain,
// the table's edge and, when `units_block`, other units (except `ignore`,
// its melee opponent). Touching is not meeting: the footprint is shrunk by
// the contact distance.
MoveMeasure MeasurePath(const Battlefield& field, const BattleState& state,
                        int unit, const Pose& to, int ignore, bool units_block);

// The friends (units of `unit`'s clan) whose bases the path of `unit` to
// `to` passes through, as MeasurePath sweeps it (a slide, then a turn;
// touching is not meeting), in index order: those a rout interpenetrates.
// A friend it already overlapped where it stood is not counted.
std::vector<int> FriendsPassedThrough(const Battlefield& field,
                                      const BattleState& state, int unit,
                                      const Pose& to);

// `at` moved straight on (the way it faces), half a centimetre at a time,
// until `unit`'s base there overlaps no friend's (touching is allowed): a
// router meeting friends "must pass straight through them and will move
// sufficiently far enough to clear them", past its rout distance if need
// be. Gives up (returning how far it got) after 3 m, or the table's width
// and depth if less; one that leaves the table meets its edge. The pose it
// gives, rounded to the mm and the degree, is clear itself: given again, it
// comes back unchanged.
Pose ClearOfFriends(const Battlefield& field, const BattleState& state,
                    int unit, const Pose& at);

// The pose a result move gives when the log does not: `distance_mm` back
// keeping its facing (a push back, a retire: straight away from
// `opponent`'s front, the way the enemy pushes, or straight back when there
// is none), turned about and moved away (a rout, a retreat), or straight
// ahead (a follow up, a pursuit). A rout (kFlee) turns about and moves
// away as kTurnAndAway, then on until clear of friends (ClearOfFriends).
enum class ResultPath { kBack, kTurnAndAway, kAhead, kFlee };
Pose ResultPose(const Battlefield& field, const BattleState& state, int unit,
                ResultPath path, int distance_mm, int opponent = -1);

// A result move's kind, as the rules know it (the log's ResultMoveKind).
enum class ResultMoveKind {
  kHold,
  kPushBack,
  kRout,
  kRetreat,
  kFollowUp,
  kPursuit,
  kRetire
};

// Where a result move of `unit` ends and what it meets on the way: the one
// path the engine measures and the game generator's bot declares. It goes
// to `to` when the log gives it, else `distance_mm` (capped at the table's
// size) along its kind's path (ResultPose): back for a push back (of the
// rules' push back when 0) and a retire, turned about and away for a
// retreat, fleeing for a rout, ahead for a follow up (up to `fought` when
// 0) and a pursuit. `fought` is the enemy it fought: it does not block the
// move, except a pursuit's, which stops where it meets its routers (it
// does not pass through them). A rout passes through friends (only the
// table's edge and impassable terrain stop it). None for a hold: it stays.
std::optional<MoveMeasure> MeasureResultMove(
    const Tables& rules, const Battlefield& field, const BattleState& state,
    int unit, ResultMoveKind kind, int distance_mm, const Pose* to, int fought);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_MEASURE_H_
