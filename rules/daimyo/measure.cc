#include "rules/daimyo/measure.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace gunbai::rules::daimyo {
namespace {

using geometry::OrientedRect;
using geometry::Polygon;
using geometry::Segment;
using geometry::Side;
using geometry::Vec2;

// A linear obstacle covers a unit within this of it (cm): the unit lines
// it (RULES.md, "The table").
constexpr double kObstacleReach = 3;
// A hill's crest does not block the sight of a unit this near it (cm).
constexpr double kCrestReach = 2;
// How finely a swept move is sampled (cm).
constexpr double kPathStep = 0.5;

double Radians(int degrees) { return degrees * geometry::kPi / 180; }

bool Present(const BattleState& state, int u) {
  const UnitStatus& s = state.units[u];
  return s.placed && !s.removed && s.stands > 0;
}

Polygon Shape(const Battlefield& field, const BattleState& state, int u) {
  return geometry::ToPolygon(Footprint(field, state, u));
}

// The least distance from a polyline to a polygon's region.
double LineToPolygon(const geometry::Polyline& line, const Polygon& shape) {
  double best = std::numeric_limits<double>::infinity();
  for (const Segment& s : geometry::Segments(line)) {
    if (geometry::SegmentIntersectsPolygon(s, shape)) return 0;
    for (const Segment& e : geometry::Edges(shape)) {
      best = std::min(best, geometry::SegmentDistance(s, e));
    }
  }
  return best;
}

// A linear obstacle the line crosses that lies within kObstacleReach of
// `shape`: the unit is behind it, seen along `line`.
bool BehindObstacle(const Battlefield& field, const Polygon& shape,
                    const Segment& line) {
  for (const TerrainFeature& f : field.terrain) {
    if (f.kind != TerrainKind::kLinearObstacle) continue;
    if (geometry::SegmentCrossesPolyline(line, f.line) &&
        LineToPolygon(f.line, shape) <= kObstacleReach) {
      return true;
    }
  }
  return false;
}

bool InBuilding(const Battlefield& field, const BattleState& state, int u) {
  return state.units[u].formation == Formation::kBuilding ||
         FeatureAt(field, TerrainKind::kBuilding, state, u) != nullptr;
}

// Points a line of fire may start from (the firer's front edge; all round
// for mounted firers) or end at (the target's corners and edge midpoints).
// At most 16 points, held in place: a volley measured allocates none.
using SightPointList = absl::InlinedVector<Vec2, 16>;
SightPointList SightPoints(const OrientedRect& r, bool front_only) {
  const std::array<Vec2, 4> c = geometry::Corners(r);
  SightPointList points;
  const int edges = front_only ? 1 : 4;
  for (int e = 0; e < edges; ++e) {
    const Vec2 a = c[e];
    const Vec2 b = c[(e + 1) % 4];
    for (double t : {0.0, 0.25, 0.5, 0.75}) points.push_back(a + (b - a) * t);
    if (front_only) points.push_back(b);
  }
  return points;
}

// The units' shapes for one measurement, each computed once (every line
// of sight is tried against each), with a box around each for a quick
// rejection. An absent unit's shape is empty.
struct UnitShapes {
  struct Box {
    double min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  };
  std::vector<Polygon> polygons;
  std::vector<Box> boxes;
};

UnitShapes::Box BoxOf(const Polygon& p) {
  UnitShapes::Box b{p.vertices[0].x, p.vertices[0].y, p.vertices[0].x,
                    p.vertices[0].y};
  for (const Vec2 v : p.vertices) {
    b.min_x = std::min(b.min_x, v.x);
    b.min_y = std::min(b.min_y, v.y);
    b.max_x = std::max(b.max_x, v.x);
    b.max_y = std::max(b.max_y, v.y);
  }
  return b;
}

// A lower bound on the distance between two regions: the gap between their
// boxes (0 when the boxes overlap).
double BoxGap(const UnitShapes::Box& a, const UnitShapes::Box& b) {
  const double dx = std::max({0.0, a.min_x - b.max_x, b.min_x - a.max_x});
  const double dy = std::max({0.0, a.min_y - b.max_y, b.min_y - a.max_y});
  return std::sqrt(dx * dx + dy * dy);
}

UnitShapes ShapesOf(const Battlefield& field, const BattleState& state) {
  UnitShapes shapes;
  shapes.polygons.resize(state.units.size());
  shapes.boxes.resize(state.units.size());
  for (int u = 0; u < static_cast<int>(state.units.size()); ++u) {
    if (!Present(state, u)) continue;
    shapes.polygons[u] = Shape(field, state, u);
    shapes.boxes[u] = BoxOf(shapes.polygons[u]);
  }
  return shapes;
}

// True when `line` passes within `clearance` of the region `shape`
// (crossing it, or inside it, included).
bool LineNear(const Segment& line, const Polygon& shape,
              const UnitShapes::Box& box, double clearance) {
  if (std::max(line.a.x, line.b.x) + clearance < box.min_x ||
      std::min(line.a.x, line.b.x) - clearance > box.max_x ||
      std::max(line.a.y, line.b.y) + clearance < box.min_y ||
      std::min(line.a.y, line.b.y) - clearance > box.max_y) {
    return false;
  }
  if (geometry::Contains(shape, line.a)) return true;
  const std::size_t n = shape.vertices.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Segment edge{shape.vertices[i], shape.vertices[(i + 1) % n]};
    if (geometry::SegmentDistance(line, edge) < clearance) return true;
  }
  return false;
}

// What terrain blocks one line of fire, if any.
const TerrainFeature* TerrainBlocking(const Tables& rules,
                                      const Battlefield& field,
                                      const Segment& line, Vec2 firer_at,
                                      Vec2 target_at) {
  const double woods_range = rules.firing.woods_range_mm / 10.0;
  for (const TerrainFeature& f : field.terrain) {
    bool blocks = false;
    switch (f.kind) {
      case TerrainKind::kImpassable:
        blocks = geometry::SegmentIntersectsPolygon(line, f.area);
        break;
      case TerrainKind::kBuilding:
        blocks = !geometry::Contains(f.area, firer_at) &&
                 !geometry::Contains(f.area, target_at) &&
                 geometry::SegmentIntersectsPolygon(line, f.area);
        break;
      case TerrainKind::kWoods:
        blocks = geometry::LengthInside(line, f.area) > woods_range + 0.05;
        break;
      case TerrainKind::kHill:
        blocks = f.line.points.size() >= 2 &&
                 geometry::SegmentCrossesPolyline(line, f.line) &&
                 geometry::DistanceToPolyline(line.a, f.line) > kCrestReach &&
                 geometry::DistanceToPolyline(line.b, f.line) > kCrestReach;
        break;
      default:
        break;
    }
    if (blocks) return &f;
  }
  return nullptr;
}

// What blocks every line of fire from `firer` to `target` (nothing: the
// firer sees the target). Lines run from the firer's front edge (all round
// for mounted firers) to the target's corners and edge points; the first
// clear one ends the search.
Obstruction SightBlocked(const Tables& rules, const Battlefield& field,
                         const BattleState& state, const UnitShapes& shapes,
                         int firer, int target) {
  const OrientedRect fr = Footprint(field, state, firer);
  const OrientedRect tr = Footprint(field, state, target);
  const bool mounted = state.profiles[firer].mobility == Mobility::kMounted;
  const double clearance = field.rules.fire_gap_mm / 20.0;
  const Vec2 firer_at = geometry::Centre(fr);
  const Vec2 target_at = geometry::Centre(tr);
  Obstruction first;
  const SightPointList from = SightPoints(fr, !mounted);
  const SightPointList to = SightPoints(tr, false);
  for (const Vec2 a : from) {
    for (const Vec2 b : to) {
      const Segment line{a, b};
      Obstruction o;
      for (int u = 0; u < static_cast<int>(shapes.polygons.size()); ++u) {
        if (u == firer || u == target || shapes.polygons[u].vertices.empty()) {
          continue;
        }
        if (LineNear(line, shapes.polygons[u], shapes.boxes[u], clearance)) {
          o.unit = u;
          break;
        }
      }
      if (!o.any()) {
        o.terrain = TerrainBlocking(rules, field, line, firer_at, target_at);
      }
      if (!o.any()) return o;
      if (!first.any()) first = o;
    }
  }
  return first;
}

bool InArc(const Tables& rules, const Battlefield& field,
           const BattleState& state, int firer, const Polygon& target) {
  if (state.profiles[firer].mobility == Mobility::kMounted) return true;
  return geometry::InFrontArc(Footprint(field, state, firer),
                              Radians(field.rules.infantry_fire_arc_deg),
                              rules.firing.long_range_mm / 10.0 + 1, target);
}

// An enemy of the firer nearer than `distance`, within range and arc and
// in sight, not in melee (fire is not aimed into a melee: RULES.md).
void FindNearerEnemy(const Tables& rules, const Battlefield& field,
                     const BattleState& state, const UnitShapes& shapes,
                     int firer, int target, ShotMeasure& m) {
  const Polygon& fp = shapes.polygons[firer];
  const double range = rules.firing.long_range_mm / 10.0;
  for (int e = 0; e < static_cast<int>(state.units.size()); ++e) {
    if (e == target || shapes.polygons[e].vertices.empty() ||
        state.units[e].in_melee ||
        state.profiles[e].clan == state.profiles[firer].clan) {
      continue;
    }
    const Polygon& ep = shapes.polygons[e];
    const double d = geometry::PolygonDistance(fp, ep);
    if (d + 0.05 >= m.distance || d > range) continue;
    if (m.nearer_enemy >= 0 && d >= m.nearer_distance) continue;
    if (!InArc(rules, field, state, firer, ep)) continue;
    if (SightBlocked(rules, field, state, shapes, firer, e).any()) continue;
    m.nearer_enemy = e;
    m.nearer_distance = d;
  }
}

bool OffFlankOrRear(const OrientedRect& r, Vec2 p) {
  const Side side = geometry::SideOf(r, p);
  return side == Side::kLeft || side == Side::kRight || side == Side::kRear;
}

// The point just behind a unit's front centre: where its front is, seen
// from the unit it touches.
Vec2 FrontPoint(const OrientedRect& r) {
  return r.front_centre - geometry::Forward(r) * 0.1;
}

double Proximity(const Tables& rules, const BattleState& state, int u) {
  return (state.units[u].in_melee ? rules.morale.proximity_in_melee_mm
                                  : rules.morale.proximity_mm) /
         10.0;
}

// The hill holding `p`, or null.
const TerrainFeature* HillAt(const Battlefield& field, Vec2 p) {
  return FeatureAt(field, TerrainKind::kHill, p);
}

// True when `high` stands higher than `low`: on a hill `low` is not on, or
// on the same hill nearer its crest.
bool Uphill(const Battlefield& field, Vec2 high, Vec2 low) {
  const TerrainFeature* hill = HillAt(field, high);
  if (hill == nullptr) return false;
  if (!geometry::Contains(hill->area, low)) return true;
  if (hill->line.points.size() < 2) return false;
  return geometry::DistanceToPolyline(high, hill->line) + 0.5 <
         geometry::DistanceToPolyline(low, hill->line);
}

}  // namespace

std::string Obstruction::Describe(const BattleState& state) const {
  if (unit >= 0) return UnitLabel(state, unit);
  if (terrain != nullptr) {
    return absl::StrCat(TerrainKindName(terrain->kind), " \"", terrain->id,
                        "\"");
  }
  if (table_edge) return "the table edge";
  return "nothing";
}

RangeBand BandAt(const Tables& rules, double distance_cm, bool woods_limit) {
  const double mm = distance_cm * 10;
  if (woods_limit && mm > rules.firing.woods_range_mm + 0.5) {
    return RangeBand::kOutOfRange;
  }
  if (mm <= rules.firing.effective_range_mm + 0.5) return RangeBand::kEffective;
  if (mm <= rules.firing.long_range_mm + 0.5) return RangeBand::kLong;
  return RangeBand::kOutOfRange;
}

ShotMeasure MeasureShot(const Tables& rules, const Battlefield& field,
                        const BattleState& state, int firer, int target) {
  ShotMeasure m;
  const OrientedRect fr = Footprint(field, state, firer);
  const OrientedRect tr = Footprint(field, state, target);
  const Polygon fp = geometry::ToPolygon(fr);
  const Polygon tp = geometry::ToPolygon(tr);
  m.distance = geometry::PolygonDistance(fp, tp);
  const std::array<Vec2, 2> ends = geometry::NearestPoints(fp, tp);
  m.from = ends[0];
  m.to = ends[1];
  m.in_arc = InArc(rules, field, state, firer, tp);
  const Segment line{m.from, m.to};
  const TerrainFeature* firer_woods =
      FeatureAt(field, TerrainKind::kWoods, state, firer);
  const TerrainFeature* target_woods =
      FeatureAt(field, TerrainKind::kWoods, state, target);
  m.woods_limit = target_woods != nullptr ||
                  (firer_woods != nullptr &&
                   geometry::LengthInside(line, firer_woods->area) >
                       rules.firing.woods_range_mm / 10.0);
  m.target_in_building = InBuilding(field, state, target);
  m.firing_from_building = InBuilding(field, state, firer);
  m.target_in_cover =
      !m.target_in_building &&
      (target_woods != nullptr || BehindObstacle(field, tp, line));
  m.firer_in_cover = firer_woods != nullptr || m.firing_from_building ||
                     BehindObstacle(field, fp, line);
  m.target_in_column_or_flanked =
      state.units[target].formation == Formation::kColumn ||
      OffFlankOrRear(tr, geometry::Centre(fr));
  const UnitShapes shapes = ShapesOf(field, state);
  m.blocked_by = SightBlocked(rules, field, state, shapes, firer, target);
  m.line_of_sight = !m.blocked_by.any();
  FindNearerEnemy(rules, field, state, shapes, firer, target, m);
  return m;
}

MeleeMeasure MeasureMeleeSide(const Battlefield& field,
                              const BattleState& state, int side, int enemy) {
  MeleeMeasure m;
  const OrientedRect sr = Footprint(field, state, side);
  const OrientedRect er = Footprint(field, state, enemy);
  m.distance = geometry::PolygonDistance(geometry::ToPolygon(sr),
                                         geometry::ToPolygon(er));
  m.in_contact = m.distance * 10 <= field.rules.contact_mm + 0.05;
  m.enemy_fighting_to_flank_or_rear = OffFlankOrRear(sr, FrontPoint(er));
  m.enemy_in_building = InBuilding(field, state, enemy);
  m.in_building = InBuilding(field, state, side);
  const Vec2 s_at = geometry::Centre(sr);
  const Vec2 e_at = geometry::Centre(er);
  m.enemy_uphill_or_behind_obstacle =
      Uphill(field, e_at, s_at) ||
      BehindObstacle(field, geometry::ToPolygon(er), Segment{s_at, e_at});
  return m;
}

std::vector<int> UnitsNear(const Tables& rules, const Battlefield& field,
                           const BattleState& state, int unit, bool friends) {
  std::vector<int> near;
  if (!Present(state, unit)) return near;
  const UnitShapes shapes = ShapesOf(field, state);
  for (int o = 0; o < static_cast<int>(state.units.size()); ++o) {
    if (o == unit || shapes.polygons[o].vertices.empty()) continue;
    const bool same = state.profiles[o].clan == state.profiles[unit].clan;
    if (same != friends) continue;
    const double within = Proximity(rules, state, o) + 0.05;
    if (BoxGap(shapes.boxes[unit], shapes.boxes[o]) <= within &&
        geometry::PolygonDistance(shapes.polygons[unit], shapes.polygons[o]) <=
            within) {
      near.push_back(o);
    }
  }
  return near;
}

MoraleMeasure MeasureMorale(const Tables& rules, const Battlefield& field,
                            const BattleState& state, int unit) {
  MoraleMeasure m;
  m.proximity = Proximity(rules, state, unit);
  const OrientedRect ur = Footprint(field, state, unit);
  const Polygon up = geometry::ToPolygon(ur);
  const UnitShapes::Box ubox = BoxOf(up);
  const Vec2 u_at = geometry::Centre(ur);
  bool any_enemy_near = false;
  bool uphill_of_all = true;
  for (int o = 0; o < static_cast<int>(state.units.size()); ++o) {
    if (o == unit || !Present(state, o)) continue;
    const OrientedRect orr = Footprint(field, state, o);
    const Polygon op = geometry::ToPolygon(orr);
    if (BoxGap(ubox, BoxOf(op)) > m.proximity + 0.05 ||
        geometry::PolygonDistance(up, op) > m.proximity + 0.05) {
      continue;
    }
    const bool friendly = state.profiles[o].clan == state.profiles[unit].clan;
    const UnitStatus& os = state.units[o];
    if (friendly) {
      if (os.routing) m.friends_routing_near.push_back(o);
      continue;
    }
    if (os.routing) {
      m.enemies_routing_near.push_back(o);
      continue;
    }
    any_enemy_near = true;
    uphill_of_all = uphill_of_all && Uphill(field, u_at, geometry::Centre(orr));
    if (m.enemy_facing_flank_or_rear < 0 &&
        geometry::InFrontArc(orr, geometry::kPi / 4, m.proximity + 1, up) &&
        OffFlankOrRear(ur, geometry::Centre(orr))) {
      m.enemy_facing_flank_or_rear = o;
    }
  }
  m.enemy_facing_flank_or_rear_near = m.enemy_facing_flank_or_rear >= 0;
  const bool in_cover =
      FeatureAt(field, TerrainKind::kWoods, state, unit) != nullptr ||
      InBuilding(field, state, unit);
  m.uphill_or_in_cover = in_cover || (any_enemy_near && uphill_of_all);
  for (const LeaderState& l : state.leaders) {
    if (l.killed || l.kind != LeaderKind::kGeneral || l.attached_unit < 0 ||
        l.attached_unit == unit || l.clan != state.profiles[unit].clan) {
      continue;
    }
    const int a = l.attached_unit;
    if (Present(state, a) && !state.units[a].routing &&
        geometry::PolygonDistance(up, Shape(field, state, a)) <=
            m.proximity + 0.05) {
      m.general_near = true;
    }
  }
  for (int c = 0; c < static_cast<int>(state.units.size()); ++c) {
    if (Present(state, c) && state.IsChargedBy(unit, c) &&
        geometry::SideOf(ur, FrontPoint(Footprint(field, state, c))) ==
            Side::kFront) {
      m.charged_frontally = true;
    }
  }
  return m;
}

geometry::Polygon InnerShape(const Battlefield& field, const OrientedRect& r) {
  const double c = field.rules.contact_mm / 10.0 + 0.01;
  OrientedRect inner = geometry::MovedForward(r, -c);
  inner.frontage = std::max(0.0, r.frontage - 2 * c);
  inner.depth = std::max(0.0, r.depth - 2 * c);
  return geometry::ToPolygon(inner);
}

ChargeEnd ChargeContact(const Battlefield& field, const BattleState& state,
                        int unit, int target, int reach_mm) {
  const OrientedRect charger = Footprint(field, state, unit);
  const OrientedRect enemy = Footprint(field, state, target);
  const Vec2 forward = geometry::Forward(enemy);
  const Vec2 left = geometry::Rotate(forward, geometry::kPi / 2);
  const Vec2 centre = geometry::Centre(enemy);
  // The middle of the side it meets, and that side's outward direction.
  Vec2 meet = enemy.front_centre;
  Vec2 out = forward;
  switch (geometry::SideOf(enemy, geometry::Centre(charger))) {
    case Side::kRear:
      meet = enemy.front_centre - forward * enemy.depth;
      out = forward * -1.0;
      break;
    case Side::kLeft:
      meet = centre + left * (enemy.frontage / 2);
      out = left;
      break;
    case Side::kRight:
      meet = centre - left * (enemy.frontage / 2);
      out = left * -1.0;
      break;
    case Side::kFront:
    case Side::kInside:
      break;
  }
  OrientedRect end = charger;
  end.front_centre = meet;
  end.facing = std::atan2(-out.y, -out.x);
  ChargeEnd result;
  const double reach = reach_mm / 10.0;
  const double way = geometry::Distance(charger.front_centre, meet);
  if (reach_mm > 0 && way > reach) {
    end.front_centre =
        charger.front_centre + (meet - charger.front_centre) * (reach / way);
    result.falls_short = true;
  }
  result.to = PoseOf(end);
  return result;
}

ChargeEnd ReachableChargeEnd(const Battlefield& field, const BattleState& state,
                             int unit, int target, int reach_mm) {
  ChargeEnd end = ChargeContact(field, state, unit, target, reach_mm);
  const Polygon shape =
      InnerShape(field, FootprintAt(field, state, unit, end.to));
  bool clear =
      OnTable(field, shape) && OverlappedUnit(field, state, unit, end.to) < 0;
  for (const TerrainFeature& t : field.terrain) {
    if (t.kind == TerrainKind::kImpassable &&
        geometry::PolygonsIntersect(t.area, shape)) {
      clear = false;
    }
  }
  if (clear) return end;
  const MoveMeasure m =
      MeasurePath(field, state, unit, end.to, target, /*units_block=*/true);
  end.to = m.to;
  const double gap = geometry::PolygonDistance(
      geometry::ToPolygon(FootprintAt(field, state, unit, end.to)),
      Shape(field, state, target));
  end.falls_short = gap * 10 > field.rules.contact_mm + 0.05;
  return end;
}

int OverlappedUnit(const Battlefield& field, const BattleState& state, int unit,
                   const Pose& at) {
  const Polygon shape = InnerShape(field, FootprintAt(field, state, unit, at));
  const UnitShapes::Box box = BoxOf(shape);
  const Polygon before = InnerShape(field, Footprint(field, state, unit));
  for (int u = 0; u < static_cast<int>(state.units.size()); ++u) {
    if (u == unit || !Present(state, u)) continue;
    const Polygon other = Shape(field, state, u);
    if (BoxGap(box, BoxOf(other)) > geometry::kEpsilon) continue;
    if (geometry::PolygonsIntersect(shape, other) &&
        !geometry::PolygonsIntersect(before, other)) {
      return u;
    }
  }
  return -1;
}

MoveMeasure MeasurePath(const Battlefield& field, const BattleState& state,
                        int unit, const Pose& to, int ignore,
                        bool units_block) {
  MoveMeasure m;
  m.to = to;
  const OrientedRect start = Footprint(field, state, unit);
  OrientedRect end = start;
  end.front_centre = {to.x_mm / 10.0, to.y_mm / 10.0};
  m.distance = geometry::Distance(start.front_centre, end.front_centre);
  const int steps =
      std::clamp(static_cast<int>(m.distance / kPathStep), 1, 100000);
  OrientedRect last_clear = start;
  const UnitShapes shapes = units_block ? ShapesOf(field, state) : UnitShapes{};
  for (int i = 1; i <= steps + 1; ++i) {
    OrientedRect r = start;
    if (i <= steps) {
      r.front_centre =
          start.front_centre +
          (end.front_centre - start.front_centre) * (double(i) / steps);
    } else {
      r = end;
      r.facing = FacingRadians(to.facing_deg);
    }
    const Polygon shape = InnerShape(field, r);
    const UnitShapes::Box box = BoxOf(shape);
    Obstruction o;
    if (!OnTable(field, shape)) o.table_edge = true;
    for (const TerrainFeature& f : field.terrain) {
      if (!o.any() && f.kind == TerrainKind::kImpassable &&
          geometry::PolygonsIntersect(f.area, shape)) {
        o.terrain = &f;
      }
    }
    for (int u = 0; u < static_cast<int>(shapes.polygons.size()) && !o.any();
         ++u) {
      if (u == unit || u == ignore || shapes.polygons[u].vertices.empty() ||
          BoxGap(box, shapes.boxes[u]) > geometry::kEpsilon) {
        continue;
      }
      if (geometry::PolygonsIntersect(shape, shapes.polygons[u])) o.unit = u;
    }
    if (o.any()) {
      m.blocked_by = o;
      m.off_table = o.table_edge;
      m.blocked_by_enemy_or_edge =
          o.table_edge || (o.unit >= 0 && state.profiles[o.unit].clan !=
                                              state.profiles[unit].clan);
      m.blocked_by_friends_or_impassable = !m.blocked_by_enemy_or_edge;
      m.to = PoseOf(last_clear);
      return m;
    }
    last_clear = r;
  }
  return m;
}

Pose ResultPose(const Battlefield& field, const BattleState& state, int unit,
                ResultPath path, int distance_mm, int opponent) {
  OrientedRect r = Footprint(field, state, unit);
  const double d = distance_mm / 10.0;
  switch (path) {
    case ResultPath::kBack:
      if (opponent >= 0 && Present(state, opponent)) {
        r.front_centre =
            r.front_centre +
            geometry::Forward(Footprint(field, state, opponent)) * d;
      } else {
        r = geometry::MovedForward(r, -d);
      }
      break;
    case ResultPath::kAhead:
      r = geometry::MovedForward(r, d);
      break;
    case ResultPath::kTurnAndAway: {
      // Turned about in place: the rear edge becomes the front.
      OrientedRect about = r;
      about.front_centre = r.front_centre - geometry::Forward(r) * r.depth;
      about.facing = r.facing + geometry::kPi;
      r = geometry::MovedForward(about, d);
      break;
    }
  }
  return PoseOf(r);
}

}  // namespace gunbai::rules::daimyo
