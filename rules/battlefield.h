// The table of a log with positions (README, "The table"): its size, its
// terrain, each unit's base size, and the units' footprints as the
// geometry library's shapes, so that a ruleset measures what players would
// otherwise declare. Every ruleset's; the Daimyo readings of what is
// measured are in rules/daimyo/measure.h. Pure: no proto types (they are
// read by rules/battlefield_proto.h), no I/O. Thread-compatible: a
// Battlefield's table is fixed once built, and its only mutable part is the
// cache of unit shapes (ShapeCache), so give each thread its own copy.
//
// Units stand in whole millimetres and whole degrees (rules::Pose): a pose
// worked out by a rule (a push back, a rout) is rounded to them, so that the
// state, its checkpoint and its digest stay integers and every replay gives
// the same bytes. Measurements are in centimetres, as the rules measure.
#ifndef GUNBAI_RULES_BATTLEFIELD_H_
#define GUNBAI_RULES_BATTLEFIELD_H_

#include <optional>
#include <string>
#include <vector>

#include "rules/battle_state.h"
#include "rules/geometry/geometry.h"
#include "rules/types.h"

namespace gunbai::rules {

// Bounds on what a log's table may hold: a real table is a few metres, a
// few dozen features of a few dozen points each.
inline constexpr int kMaxTableMm = 100000;  // 100 m.
inline constexpr int kMaxTerrainFeatures = 256;
inline constexpr int kMaxTerrainPoints = 256;
// Bounds on the work of measuring (a line of sight is tried against every
// unit and every terrain edge): the points of all the terrain together,
// and the units of a log with a table.
inline constexpr int kMaxTerrainPointsInAll = 4096;
inline constexpr int kMaxTableUnits = 1000;

enum class TerrainKind {
  kWoods,
  kBuilding,
  kHill,
  kLinearObstacle,
  kImpassable,
  kCamp,
};
absl::string_view TerrainKindName(TerrainKind kind);

struct TerrainFeature {
  std::string id;
  TerrainKind kind = TerrainKind::kWoods;
  // An area (every kind but a linear obstacle), cm.
  geometry::Polygon area;
  // A linear obstacle's line, or a hill's crest (may be empty), cm.
  geometry::Polyline line;
  int clan = -1;  // A camp's clan; -1 for others.
};

// A base size or a move rate for the units it matches: an empty field
// matches any.
struct TableEntry {
  std::optional<TroopType> troop_type;
  std::optional<Mobility> mobility;
  int width_mm = 0;  // A base's width, or a move rate.
  int depth_mm = 0;  // A base's depth; 0 for a move rate.

  bool Matches(const UnitProfile& p) const {
    return (!troop_type || *troop_type == p.troop_type) &&
           (!mobility || *mobility == p.mobility);
  }
};

// A ruleset's data for measuring (gunbai.v1.TableRules).
struct TableRules {
  bool present = false;
  std::vector<TableEntry> base_sizes;
  int infantry_fire_arc_deg = 45;
  int fire_gap_mm = 40;
  int contact_mm = 2;
  std::vector<TableEntry> movement;
  // 0: command reach is not measured (out of command is as declared).
  int command_reach_mm = 0;
};

// A unit's footprint and the shapes measuring asks of it, worked out once.
struct UnitShape {
  // Placed, not removed, with stands left: on the table to be measured.
  bool present = false;
  geometry::OrientedRect rect;
  geometry::Polygon polygon;  // Its corners (geometry::Corners order).
  geometry::Box box;
  geometry::Vec2 centre;
};

// Each unit's shape, kept from one measurement to the next until the
// unit's pose, stands, ranks or presence change: each access compares those
// few integers with the ones the shape was made from, so a shape is never
// stale and one that has not changed is not worked out again. The cache is
// a Battlefield's only mutable part: a Battlefield is thread-compatible
// (give each thread its own copy), and copying one copies its cache.
class ShapeCache {
 public:
  // The hit path (a few integer compares) is here to be inlined: scans over
  // every unit call it once per unit.
  const UnitShape& Get(const struct Battlefield& field,
                       const BattleState& state, int unit) const {
    const std::size_t i = static_cast<std::size_t>(unit);
    if (i < keys_.size() && keys_.size() == state.units.size() &&
        keys_[i].Matches(state.units[i])) {
      return shapes_[i];
    }
    return Make(field, state, unit);
  }
  // The box around terrain feature `index`'s area and line (worked out for
  // every feature at the first call, and again if the terrain's count
  // changes).
  const geometry::Box& TerrainBox(const struct Battlefield& field,
                                  int index) const;

 private:
  // What a shape is made from. stands -1: not made yet.
  struct Key {
    Pose pose;
    int stands = -1;
    int per_rank = -1;
    bool placed = false;
    bool removed = false;
    bool Matches(const UnitStatus& u) const {
      return stands == u.stands && pose == u.pose &&
             per_rank == u.stands_per_rank && placed == u.placed &&
             removed == u.removed;
    }
  };
  const UnitShape& Make(const struct Battlefield& field,
                        const BattleState& state, int unit) const;

  mutable std::vector<Key> keys_;
  mutable std::vector<UnitShape> shapes_;
  mutable std::vector<geometry::Box> terrain_boxes_;
};

struct Battlefield {
  int width_mm = 0;
  int depth_mm = 0;
  std::vector<TerrainFeature> terrain;
  // Per unit index: the base, and the move rate (0: not checked).
  std::vector<int> base_width_mm;
  std::vector<int> base_depth_mm;
  std::vector<int> move_mm;
  TableRules rules;
  ShapeCache shapes;

  // The table as a polygon, cm.
  geometry::Polygon Outline() const;
  // The shape of `unit` as it stands in `state` (cached: ShapeCache).
  const UnitShape& Shape(const BattleState& state, int unit) const {
    return shapes.Get(*this, state, unit);
  }
  const geometry::Box& TerrainBox(int index) const {
    return shapes.TerrainBox(*this, index);
  }
};

// Returns the first entry of `entries` matching `profile`, or null.
const TableEntry* FindEntry(const std::vector<TableEntry>& entries,
                            const UnitProfile& profile);

// Returns the geometry angle (radians counter-clockwise from +x) of a
// facing in degrees clockwise from +y, and back (rounded to a whole degree,
// 0 to 359).
double FacingRadians(int facing_deg);
int FacingDegrees(double radians);
// Returns `deg` read modulo 360, 0 to 359.
int NormalFacing(int deg);

// Returns the footprint of `unit` as it stands: its front centre and facing
// from its pose, its frontage its front rank's bases side by side (stands
// per rank, or fewer when fewer stands are left), its depth its ranks' bases.
geometry::OrientedRect Footprint(const Battlefield& field,
                                 const BattleState& state, int unit);
// Returns the footprint `unit` would have standing at `pose`.
geometry::OrientedRect FootprintAt(const Battlefield& field,
                                   const BattleState& state, int unit,
                                   const Pose& pose);
// Returns the pose of a footprint's front centre and facing, rounded.
Pose PoseOf(const geometry::OrientedRect& r);

// Returns the least distance between the two units' footprints, cm: the
// rules' distance between units.
double UnitDistance(const Battlefield& field, const BattleState& state, int a,
                    int b);
// Returns true when the two units' footprints are within the ruleset's
// contact distance.
bool InContact(const Battlefield& field, const BattleState& state, int a,
               int b);

// Returns the first feature of `kind` whose area holds `point`, or null.
const TerrainFeature* FeatureAt(const Battlefield& field, TerrainKind kind,
                                geometry::Vec2 point);
// Returns the first feature of `kind` the unit is in: the one that holds
// the centre of its footprint (the reading of "in woods", "occupying a
// building": rules/daimyo/RULES.md, "The table"), or null.
const TerrainFeature* FeatureAt(const Battlefield& field, TerrainKind kind,
                                const BattleState& state, int unit);
// Returns true when every corner of `shape` is on the table.
bool OnTable(const Battlefield& field, const geometry::Polygon& shape);

// Formats a length in cm with one decimal: "19.4 cm".
std::string Cm(double cm);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_BATTLEFIELD_H_
