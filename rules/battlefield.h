// The table of a log with positions (rules/README.md, "The table"): its size,
// its terrain, each unit's base size, and the units' footprints as the geometry
// library's shapes, so that a ruleset measures what players would otherwise
// declare. Every ruleset's; the Daimyo readings of what is measured are in
// rules/daimyo/measure.h. Pure: no proto types (they are read by
// rules/battlefield_proto.h), no I/O. Thread-compatible: a Battlefield's table
// is fixed once built, and its only mutable part is the cache of unit shapes
// (ShapeCache), so give each thread its own copy.
//
// Units stand in whole millimetres and whole degrees (rules::Pose): a pose
// worked out by a rule (a push back, a rout) is rounded to them, so that the
// state, its checkpoint and its digest stay integers and every replay gives
// the same bytes. Measurements are in centimetres, as the rules measure.
#ifndef GUNBAI_RULES_BATTLEFIELD_H_
#define GUNBAI_RULES_BATTLEFIELD_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
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

// Unit indices in index order: the units a query of the grid may meet.
using UnitList = absl::InlinedVector<int, 16>;

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
  // Returns, in index order, the units on the table (placed, not removed,
  // with stands) whose boxes may meet `box`: every one whose box does, and
  // perhaps a few near it, for the caller to test as before. Answered from
  // a grid of the table's cells that follows the state's changed
  // footprints (BattleState::FootprintChanged), so that its cost grows with
  // the units near `box`, not with all of them.
  UnitList UnitsMeeting(const struct Battlefield& field,
                        const BattleState& state,
                        const geometry::Box& box) const;

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
  // The cells a box covers (clamped to the grid: a unit off the table is
  // in the edge's cells). x0 < 0: none (a unit not on the table).
  struct Cells {
    int x0 = -1;
    int y0 = 0;
    int x1 = -1;
    int y1 = 0;
    friend bool operator==(const Cells& a, const Cells& b) {
      return a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1;
    }
  };
  // A uniform grid over the table: for each cell, a bit per unit whose box
  // meets it. It has caught up with the state named `state_id` up to
  // `seen` of its changed units in `epoch` (rules::FootprintChanges).
  struct Grid {
    std::uint64_t state_id = 0;
    std::uint64_t epoch = 0;
    std::size_t seen = 0;
    std::size_t units = 0;
    double cell = 1;
    int nx = 0;
    int ny = 0;
    int words = 0;                    // 64-bit words of unit bits per cell.
    std::vector<std::uint64_t> bits;  // Cell (x, y) at (y * nx + x) * words.
    std::vector<Cells> at;            // Per unit: the cells it is in.
  };
  const UnitShape& Make(const struct Battlefield& field,
                        const BattleState& state, int unit) const;
  void SyncGrid(const struct Battlefield& field,
                const BattleState& state) const;
  void Rebuild(const struct Battlefield& field, const BattleState& state) const;
  // Moves `unit` to the cells its shape covers now.
  void Regrid(const struct Battlefield& field, const BattleState& state,
              int unit) const;
  void SetBits(const Cells& c, int unit, bool on) const;
  Cells CellsOf(const geometry::Box& box) const;
  Cells CellsNow(const struct Battlefield& field, const BattleState& state,
                 int unit) const;

  mutable std::vector<Key> keys_;
  mutable std::vector<UnitShape> shapes_;
  mutable std::vector<geometry::Box> terrain_boxes_;
  mutable Grid grid_;
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
  // The units on the table whose boxes may meet `box`, in index order
  // (ShapeCache::UnitsMeeting).
  UnitList UnitsMeeting(const BattleState& state,
                        const geometry::Box& box) const {
    return shapes.UnitsMeeting(*this, state, box);
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
