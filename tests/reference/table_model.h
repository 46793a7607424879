// The reference model's own table geometry: footprints, distances, the arc
// of fire, lines of sight, the nearest enemy, woods, buildings, cover and a
// flanked target, written from the rules texts (seed 004 "Firing", seed 000
// "Push backs", RULES-NOTES.md) and the project's rules page
// (rules/daimyo/RULES.md, "The table", and README.md, "The table"), and
// from nothing in rules/ or replay/. The engine's table is what it checks.
//
// Lengths are millimetres, as doubles; a pose's front centre and facing are
// whole millimetres and degrees, as in a log. Each reading the texts leave
// open is stated where it is taken (and gathered in README.md, "Table
// geometry"). Pure functions over plain values; thread-safe.
#ifndef GUNBAI_TESTS_REFERENCE_TABLE_MODEL_H_
#define GUNBAI_TESTS_REFERENCE_TABLE_MODEL_H_

#include <set>
#include <string>
#include <vector>

#include "tests/reference/model.h"

namespace gunbai::reference {

struct Vec {
  double x = 0, y = 0;
};

// A unit's pose: its front centre and its facing, degrees clockwise from +y.
struct Pose {
  int x_mm = 0, y_mm = 0, facing_deg = 0;
};

// A unit's footprint: a rectangle behind its front edge.
struct Footprint {
  // Front left, front right, rear right, rear left (as the unit sees them).
  Vec corner[4];
  Vec front_centre, centre;
  Vec forward, right;  // unit vectors
  double half_width = 0, depth = 0;
};

struct BaseSize {
  int width_mm = 40, depth_mm = 20;
};
// R "The table": 4 x 4 cm a headquarters, 4 x 3 cm mounted, 4 x 2 cm foot
// (the shipped default; a headquarters' size whatever its mobility).
BaseSize BaseSizeFor(bool headquarters, bool mounted);

// R "The table": frontage = stands in the front rank (stands_per_rank, or
// fewer when fewer stands are left) x base width; depth = ranks x base depth.
Footprint MakeFootprint(const Pose& pose, int stands, int stands_per_rank,
                        BaseSize base);

// Between the nearest points of two footprints; 0 when they touch or
// overlap.
double FootprintDistance(const Footprint& a, const Footprint& b);
// True when the interiors overlap by more than `tolerance_mm` (touching is
// not overlapping).
bool FootprintsOverlap(const Footprint& a, const Footprint& b,
                       double tolerance_mm);
// True when the whole footprint lies within the table, `margin_mm` inside.
bool OnTable(const Footprint& f, double width_mm, double depth_mm,
             double margin_mm);

// The line of fire: the shortest segment between two footprints (for
// parallel facing edges, the middle of the stretch where they face each
// other).
struct Segment {
  Vec a, b;
};
Segment LineOfFire(const Footprint& firer, const Footprint& target);

// F "Infantry within a 45 degree arc from the front corner edge"; R
// `daimyo.table.fire.arc`: some part of the target lies ahead of the front
// edge and within 45 degrees outwards of the rays from the front corners
// (boundary included). Mounted firers fire all round.
bool InArc(const Footprint& firer, bool firer_mounted, const Footprint& target);

// R `daimyo.table.fire.column_or_flanked`: `point` lies off the footprint's
// flank or rear, the plane around it cut by its diagonals (a point on a
// diagonal is still in front).
bool OffFlankOrRear(const Footprint& f, const Vec& point);

struct Polygon {
  std::vector<Vec> points;
};
bool Inside(const Polygon& p, const Vec& point);
// A unit's centre in woods or a building: inside, or on the edge (within
// 0.01 mm; RULES.md reading 43: a centre on the edge is in).
bool CentreIn(const Polygon& p, const Vec& centre);
// True when the footprint and the polygon's area share a point.
bool FootprintMeetsPolygon(const Footprint& f, const Polygon& p);
// Between the footprint and a line (a linear obstacle, a crest).
double FootprintLineDistance(const Footprint& f, const std::vector<Vec>& line);

enum class TerrainKind {
  kWoods,
  kBuilding,
  kHill,
  kLinearObstacle,
  kImpassable
};
struct Terrain {
  std::string id;
  TerrainKind kind = TerrainKind::kWoods;
  Polygon outline;         // a line for a linear obstacle
  std::vector<Vec> crest;  // a hill's crest line
};

struct TableUnit {
  std::string id, clan;
  bool mounted = false, headquarters = false;
  int stands = 1, stands_per_rank = 1;
  Formation formation = Formation::kLine;
  Pose pose;
  bool in_melee = false;
  Footprint Shape() const;
};

struct Scene {
  double width_mm = 1800, depth_mm = 1200;
  std::vector<TableUnit> units;
  std::vector<Terrain> terrain;
};

// What the table says of one volley (R "The table", the `daimyo.table.fire.*`
// rows).
struct ShotFacts {
  double distance_mm = 0;  // exact
  // R "in cm with one decimal": the distance the rules use, to the mm.
  double measured_mm = 0;
  bool woods_limit = false;
  Band band = Band::kOut;
  bool in_arc = false;
  bool line_of_sight = false;
  std::string sight_blocked_by;  // the first thing that blocked a line
  Segment sight_line;            // a clear line, when there is one
  // An enemy nearer than the target within range, arc and sight ("" none).
  std::string nearer_enemy;
  bool target_in_cover = false, firer_in_cover = false;
  bool target_in_building = false, firer_in_building = false;
  bool target_column_or_flanked = false;
  // Where the verdict is close to a boundary or a reading the engine may
  // take otherwise: the tags of README.md, "Table geometry" (T1 ...).
  std::set<std::string> fragile;
};

// Measures the volley of units[firer] at units[target].
ShotFacts MeasureShot(const Scene& scene, int firer, int target);

// Pieces of MeasureShot, for the oracle tests.
bool InWoods(const Scene& scene, const Footprint& f);
bool InBuilding(const Scene& scene, const TableUnit& u);
bool WoodsLimit(const Scene& scene, const Footprint& firer,
                const Footprint& target);
// Some clear line (in `line`, when given), or a blocker's name.
bool LineOfSight(const Scene& scene, int firer, int target,
                 std::string* blocked_by, Segment* line = nullptr);
Band BandAt(double distance_mm, bool woods_limit);

}  // namespace gunbai::reference

#endif  // GUNBAI_TESTS_REFERENCE_TABLE_MODEL_H_
