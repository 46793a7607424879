#include "rules/daimyo/measure.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

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

const Polygon& Shape(const Battlefield& field, const BattleState& state,
                     int u) {
  return field.Shape(state, u).polygon;
}

// The least distance from a polyline to a polygon's region.
double LineToPolygon(const geometry::Polyline& line, const Polygon& shape) {
  double best = std::numeric_limits<double>::infinity();
  const std::size_t n = shape.vertices.size();
  for (std::size_t i = 0; i + 1 < line.points.size(); ++i) {
    const Segment s{line.points[i], line.points[i + 1]};
    if (geometry::SegmentIntersectsPolygon(s, shape)) return 0;
    for (std::size_t j = 0; j < n; ++j) {
      const Segment e{shape.vertices[j], shape.vertices[(j + 1) % n]};
      best = std::min(best, geometry::SegmentDistance(s, e));
    }
  }
  return best;
}

// A linear obstacle the line crosses that lies within kObstacleReach of
// `shape`, to the mm as every distance (3.04 cm is within): the unit is
// behind it, seen along `line`.
bool BehindObstacle(const Battlefield& field, const Polygon& shape,
                    const Segment& line) {
  for (const TerrainFeature& f : field.terrain) {
    if (f.kind != TerrainKind::kLinearObstacle) continue;
    if (geometry::SegmentCrossesPolyline(line, f.line) &&
        LineToPolygon(f.line, shape) <= kObstacleReach + 0.05) {
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

using geometry::Box;
using geometry::BoxGap;
using geometry::BoxOf;

// `to` (with as many vertices) set to `from` moved by `offset`: a slide's
// next step, without trigonometry or allocation.
void ShiftInto(const Polygon& from, Vec2 offset, Polygon& to) {
  for (std::size_t k = 0; k < from.vertices.size(); ++k) {
    to.vertices[k] = from.vertices[k] + offset;
  }
}

// The part of a slide, t from 0 to 1 of `way`, in which a moving shape may
// come within a margin (ten times the tolerance of the exact tests) of a
// still one, narrowed axis by axis: apart along any one axis by more than
// the margin, they are farther apart than that (their distance is at least
// the gap between their shadows on a line).
class SlideSpan {
 public:
  explicit SlideSpan(Vec2 way) : way_(way) {}
  // The shapes' shadows along unit direction `n`: the moving one's at the
  // slide's start, [a_min, a_max], and the still one's, [b_min, b_max].
  void Axis(Vec2 n, double a_min, double a_max, double b_min, double b_max) {
    constexpr double kMargin = 10 * geometry::kEpsilon;
    const double w = way_.x * n.x + way_.y * n.y;
    const double t0 = b_min - kMargin - a_max;
    const double t1 = b_max + kMargin - a_min;
    if (w == 0) {
      if (t0 > 0 || t1 < 0) hi_ = -1;  // Never meets along this axis.
      return;
    }
    lo_ = std::max(lo_, std::min(t0 / w, t1 / w));
    hi_ = std::min(hi_, std::max(t0 / w, t1 / w));
  }
  // The steps, first to last, of a slide made `steps` steps from `first`
  // (step i at i / steps of the way) that lie in the part, and a step more
  // each way, so that a scan trying only these steps finds what one trying
  // every step finds. Empty: first > last.
  std::pair<int, int> Steps(int first, int steps) const {
    if (!(lo_ <= hi_)) return {1, 0};
    return {std::max(first, static_cast<int>(std::floor(lo_ * steps)) - 1),
            std::min(steps, static_cast<int>(std::ceil(hi_ * steps)) + 1)};
  }

 private:
  Vec2 way_;
  double lo_ = 0;
  double hi_ = 1;
};

// The steps (SlideSpan::Steps) of a slide of a shape with box `from` at
// which its box may meet `box`.
std::pair<int, int> StepSpan(const Box& from, Vec2 way, int first, int steps,
                             const Box& box) {
  SlideSpan span(way);
  span.Axis({1, 0}, from.min_x, from.max_x, box.min_x, box.max_x);
  span.Axis({0, 1}, from.min_y, from.max_y, box.min_y, box.max_y);
  return span.Steps(first, steps);
}

// The steps (SlideSpan::Steps) of a slide of convex `from` along `way` at
// which it may meet a convex shape: along the boxes' axes and the normals of
// both shapes' edges (the separating axes of two convex polygons), so that
// a neighbour the slide passes alongside, a hair apart, is not tried at
// every step. The moving shape's normals and shadows are worked out once
// for all the shapes a slide is tried against; an edge parallel to one
// already taken (a rectangle's far side) adds nothing and is skipped. Any
// set of axes gives a part that holds every step where the two meet, so
// skipping one never drops a step that meets.
class ConvexSlide {
 public:
  ConvexSlide(const Polygon& from, Vec2 way)
      : from_(from), way_(way), from_box_(BoxOf(from)) {
    AddNormals(from, normals_);
    for (const Vec2 n : normals_) from_shadows_.push_back(Shadow(from, n));
  }

  std::pair<int, int> Steps(int first, int steps, const Polygon& other,
                            const Box& other_box) const {
    SlideSpan span(way_);
    span.Axis({1, 0}, from_box_.min_x, from_box_.max_x, other_box.min_x,
              other_box.max_x);
    span.Axis({0, 1}, from_box_.min_y, from_box_.max_y, other_box.min_y,
              other_box.max_y);
    for (std::size_t k = 0; k < normals_.size(); ++k) {
      const auto [b_min, b_max] = Shadow(other, normals_[k]);
      span.Axis(normals_[k], from_shadows_[k].first, from_shadows_[k].second,
                b_min, b_max);
    }
    Normals others;
    AddNormals(other, others);
    for (const Vec2 n : others) {
      const auto [a_min, a_max] = Shadow(from_, n);
      const auto [b_min, b_max] = Shadow(other, n);
      span.Axis(n, a_min, a_max, b_min, b_max);
    }
    return span.Steps(first, steps);
  }

 private:
  using Normals = absl::InlinedVector<Vec2, 4>;

  static std::pair<double, double> Shadow(const Polygon& p, Vec2 n) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const Vec2 v : p.vertices) {
      const double d = v.x * n.x + v.y * n.y;
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    return {lo, hi};
  }

  // The unit normals of `p`'s edges, one per direction.
  static void AddNormals(const Polygon& p, Normals& out) {
    const std::size_t n = p.vertices.size();
    for (std::size_t k = 0; k < n; ++k) {
      const Vec2 e = p.vertices[(k + 1) % n] - p.vertices[k];
      const double length = std::sqrt(e.x * e.x + e.y * e.y);
      if (!(length > 1e-9)) continue;
      const Vec2 normal{-e.y / length, e.x / length};
      const bool parallel =
          std::any_of(out.begin(), out.end(), [normal](Vec2 m) {
            return std::abs(normal.x * m.y - normal.y * m.x) < 1e-12;
          });
      if (!parallel) out.push_back(normal);
    }
  }

  const Polygon& from_;
  Vec2 way_;
  Box from_box_;
  Normals normals_;
  absl::InlinedVector<std::pair<double, double>, 4> from_shadows_;
};

// True when `line` passes within `clearance` of the region `shape`
// (crossing it, or inside it, included).
bool LineNear(const Segment& line, const Polygon& shape, const Box& box,
              double clearance) {
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

// What terrain blocks one line of fire, if any: of `candidates`, the
// features near enough to the lines to block one (in terrain order).
const TerrainFeature* TerrainBlocking(
    const Tables& rules,
    const absl::InlinedVector<const TerrainFeature*, 8>& candidates,
    const Segment& line, Vec2 firer_at, Vec2 target_at) {
  const double woods_range = rules.firing.woods_range_mm / 10.0;
  for (const TerrainFeature* f : candidates) {
    bool blocks = false;
    switch (f->kind) {
      case TerrainKind::kImpassable:
        blocks = geometry::SegmentIntersectsPolygon(line, f->area);
        break;
      case TerrainKind::kBuilding:
        blocks = !geometry::Contains(f->area, firer_at) &&
                 !geometry::Contains(f->area, target_at) &&
                 geometry::SegmentIntersectsPolygon(line, f->area);
        break;
      case TerrainKind::kWoods:
        blocks = geometry::LengthInside(line, f->area) > woods_range + 0.05;
        break;
      case TerrainKind::kHill:
        // Only crests neither unit stands near reach here (SightBlocked).
        blocks = f->line.points.size() >= 2 &&
                 geometry::SegmentCrossesPolyline(line, f->line);
        break;
      default:
        break;
    }
    if (blocks) return f;
  }
  return nullptr;
}

// A circle a tangent line may touch (TangentLineClear).
struct TangentCircle {
  Vec2 centre;
  double radius;
};

// The circles of TangentLineClear: a hair's about each end of the firers'
// edge(s) and each corner of the target and of the terrain, the clearance
// about each corner of the units near.
absl::InlinedVector<TangentCircle, 64> TangentCircles(
    const std::array<Vec2, 4>& fc, const UnitShape& ts, bool mounted,
    const absl::InlinedVector<int, 8>& units,
    const absl::InlinedVector<const TerrainFeature*, 8>& terrain,
    const Battlefield& field, const BattleState& state, double clearance) {
  constexpr double kHair = geometry::kEpsilon;
  absl::InlinedVector<TangentCircle, 64> circles;
  for (int i = 0; i < (mounted ? 4 : 2); ++i) circles.push_back({fc[i], kHair});
  for (const Vec2 p : ts.polygon.vertices) circles.push_back({p, kHair});
  for (const int u : units) {
    for (const Vec2 p : field.Shape(state, u).polygon.vertices) {
      circles.push_back({p, clearance + kHair});
    }
  }
  for (const TerrainFeature* f : terrain) {
    for (const Vec2 p : f->area.vertices) circles.push_back({p, kHair});
    for (const Vec2 p : f->line.points) circles.push_back({p, kHair});
  }
  return circles;
}

// The shortest segment from the firers' edge(s), corners `fc`, to the
// target: the line least in woods. None when they touch.
std::optional<Segment> ShortestSightLine(const std::array<Vec2, 4>& fc,
                                         const UnitShape& ts, bool mounted) {
  Segment shortest;
  double best = std::numeric_limits<double>::infinity();
  const auto consider = [&](Vec2 a, Vec2 b) {
    const double d = geometry::Distance(a, b);
    if (d < best) {
      best = d;
      shortest = Segment{a, b};
    }
  };
  const std::size_t tn = ts.polygon.vertices.size();
  for (int e = 0; e < (mounted ? 4 : 1); ++e) {
    const Segment edge{fc[e], fc[(e + 1) % 4]};
    for (const Vec2 p : ts.polygon.vertices) {
      consider(geometry::NearestPointOnSegment(p, edge), p);
    }
    for (std::size_t k = 0; k < tn; ++k) {
      const Segment side{ts.polygon.vertices[k],
                         ts.polygon.vertices[(k + 1) % tn]};
      consider(edge.a, geometry::NearestPointOnSegment(edge.a, side));
      consider(edge.b, geometry::NearestPointOnSegment(edge.b, side));
    }
  }
  if (!(best > 0)) return std::nullopt;
  return shortest;
}

// Tests that settle, before the clip, that a line or every common tangent
// of two circles misses the target: a line farther from its centre than
// its farthest corner misses it (a margin keeps the test on the safe side,
// so the lines tried are the same).
class TargetReach {
 public:
  explicit TargetReach(const UnitShape& ts) : centre_(ts.centre) {
    for (const Vec2 p : ts.polygon.vertices) {
      reach_ = std::max(reach_, geometry::Distance(p, ts.centre));
    }
    reach_ = reach_ * (1 + 1e-9) + 1e-6;
  }

  bool Misses(const geometry::Line& line) const {
    const Vec2 d = line.direction;
    const Vec2 w = centre_ - line.point;
    const double off = d.x * w.y - d.y * w.x;  // |d| times the distance.
    return off * off > reach_ * reach_ * (d.x * d.x + d.y * d.y);
  }

  // A tangent touches circle a and turns at most an angle t off the line
  // of the centres, sin t = (ra + rb) / L, so it lies no nearer the
  // target's centre than the line of the centres less ra less the turn over
  // the way from circle a to the centre (|d - u| |x - ca|, with |d - u| =
  // 2 sin(t / 2), which is at most 1.5 sin t for t up to 90 degrees).
  bool PairMisses(const TangentCircle& a, const TangentCircle& b) const {
    const Vec2 v = b.centre - a.centre;
    const double length = std::sqrt(v.x * v.x + v.y * v.y);
    const double sin_turn = (a.radius + b.radius) / length;
    if (!(sin_turn < 0.5)) return false;  // Near circles: no shortcut.
    const Vec2 w = centre_ - a.centre;
    const double off = std::abs(v.x * w.y - v.y * w.x) / length;
    const double way = std::sqrt(w.x * w.x + w.y * w.y);
    return off - a.radius - 1.5 * sin_turn * way > reach_;
  }

 private:
  Vec2 centre_;
  double reach_ = 0;
};

// Where `line` leaves the firers (as parameters along it): their front
// edge `front`, or (mounted) either side of their footprint; none when it
// does not cross them. The cheap test first: in a battle line most tangents
// run along the lines, through the target's neighbours and the target, and
// never cross the firers' front.
absl::InlinedVector<double, 2> LineStarts(const geometry::Line& line,
                                          const UnitShape& fs,
                                          const Segment& front, bool mounted) {
  if (mounted) {
    const std::optional<std::array<double, 2>> own =
        geometry::ClipToConvex(line, fs.polygon, 0);
    if (!own.has_value()) return {};
    return {(*own)[0], (*own)[1]};
  }
  const Vec2 e = front.b - front.a;
  const double rate = geometry::Cross(line.direction, e);
  if (rate == 0) return {};
  // line.point + t direction = front.a + s e, with s in [0, 1].
  const Vec2 w = front.a - line.point;
  const double t = geometry::Cross(w, e) / rate;
  const double s = geometry::Cross(w, line.direction) / rate;
  if (s < 0 || s > 1) return {};
  return {t};
}

// The search that settles what the sampled lines leave open (reference
// class T3: a 4 cm gap, a line 2 cm from a unit). Of the segments from the
// firers' edge (all round when mounted) to the target, those clear of the
// units (at least `clearance` from each) and of blocking terrain form a
// region of lines; where it is not empty it has a corner, a line touching
// two of: a circle of the clearance about a candidate unit's corner, an end
// of the firers' edge, a corner of the target, a corner of a candidate
// feature (a woods', building's or impassable area's, a crest's point).
// Every such line is tried, placed a hair (kEpsilon) to one side of each
// point and outside each circle, so the line at the corner's free side is
// among them; on each, the segment from where it leaves the firers' edge to
// where it meets the target. Exact for units, impassable ground, buildings
// and crests; for woods (a length, not a side) it adds the lines by the
// woods' corners to the sampled ones.
template <typename Blocking>
bool TangentLineClear(
    const UnitShape& fs, const UnitShape& ts, bool mounted,
    const absl::InlinedVector<int, 8>& units,
    const absl::InlinedVector<const TerrainFeature*, 8>& terrain,
    const Battlefield& field, const BattleState& state, double clearance,
    const Blocking& blocking) {
  const std::array<Vec2, 4> fc = geometry::Corners(fs.rect);
  // First the shortest segment from the firers' edge(s) to the target: the
  // line least in woods.
  const std::optional<Segment> shortest = ShortestSightLine(fc, ts, mounted);
  if (shortest.has_value() && !blocking(*shortest).any()) return true;
  const absl::InlinedVector<TangentCircle, 64> circles =
      TangentCircles(fc, ts, mounted, units, terrain, field, state, clearance);
  const Segment front{fc[0], fc[1]};
  // A bound on the work, so that a crowd (a log may put hundreds of units
  // about one line) cannot stall an audit: past kSightWork unit-line tests
  // the sampled answer stands. Ordinary play (a dozen units near) needs a
  // few tens of thousands.
  constexpr std::int64_t kSightWork = 2'000'000;
  const std::int64_t per_line = static_cast<std::int64_t>(units.size()) + 1;
  std::int64_t work = 0;
  const TargetReach target(ts);
  for (std::size_t i = 0; i < circles.size(); ++i) {
    for (std::size_t j = i + 1; j < circles.size(); ++j) {
      if (target.PairMisses(circles[i], circles[j])) continue;
      for (const geometry::Line& line :
           geometry::CommonTangents(circles[i].centre, circles[i].radius,
                                    circles[j].centre, circles[j].radius)) {
        if (target.Misses(line)) continue;
        const absl::InlinedVector<double, 2> starts =
            LineStarts(line, fs, front, mounted);
        if (starts.empty()) continue;
        const std::optional<std::array<double, 2>> at =
            geometry::ClipToConvex(line, ts.polygon, 0);
        if (!at.has_value()) continue;
        for (const double t : starts) {
          double end = 0;
          if (t < (*at)[0]) {
            end = (*at)[0];
          } else if (t > (*at)[1]) {
            end = (*at)[1];
          } else {
            continue;  // The firers and target overlap on this line.
          }
          const Segment sight{line.point + line.direction * t,
                              line.point + line.direction * end};
          work += per_line;
          if (work > kSightWork) return false;
          if (!blocking(sight).any()) return true;
        }
      }
    }
  }
  return false;
}

// The units that may block a line of fire between the footprints `fs` and
// `ts`, in index order. Every line of fire lies in the hull of the two
// footprints, so a unit farther than `clearance` from it blocks none: it is
// left out of the tests and of the corner-line search (whose work grows
// with the square of the corners).
absl::InlinedVector<int, 8> UnitsNearSight(const Battlefield& field,
                                           const BattleState& state, int firer,
                                           int target, const UnitShape& fs,
                                           const UnitShape& ts,
                                           double clearance) {
  absl::InlinedVector<int, 8> units;
  const Box near_lines =
      geometry::Inflated(geometry::Union(fs.box, ts.box), clearance);
  geometry::Vertices corners = fs.polygon.vertices;
  corners.insert(corners.end(), ts.polygon.vertices.begin(),
                 ts.polygon.vertices.end());
  const geometry::Polygon hull = geometry::ConvexHull(std::move(corners));
  for (const int u : field.UnitsMeeting(state, near_lines)) {
    if (u == firer || u == target) continue;
    const UnitShape& us = field.Shape(state, u);
    if (us.present && geometry::BoxesMeet(near_lines, us.box) &&
        (hull.vertices.size() < 3 ||
         geometry::PolygonsWithin(us.polygon, hull, clearance + 1e-6))) {
      units.push_back(u);
    }
  }
  return units;
}

// The terrain that may block a line of fire between `fs` and `ts`, whose
// lines all lie in `lines`: impassable ground, buildings, woods and crests.
absl::InlinedVector<const TerrainFeature*, 8> TerrainNearSight(
    const Battlefield& field, const UnitShape& fs, const UnitShape& ts,
    const Box& lines) {
  absl::InlinedVector<const TerrainFeature*, 8> terrain;
  for (int t = 0; t < static_cast<int>(field.terrain.size()); ++t) {
    const TerrainKind kind = field.terrain[t].kind;
    if ((kind == TerrainKind::kImpassable || kind == TerrainKind::kBuilding ||
         kind == TerrainKind::kWoods || kind == TerrainKind::kHill) &&
        geometry::BoxesMeet(lines, field.TerrainBox(t))) {
      // A crest blocks no line when the firers or the target stand within
      // 2 cm of it (any part of the footprint, to the mm): they see over.
      if (kind == TerrainKind::kHill &&
          (LineToPolygon(field.terrain[t].line, fs.polygon) <=
               kCrestReach + 0.05 ||
           LineToPolygon(field.terrain[t].line, ts.polygon) <=
               kCrestReach + 0.05)) {
        continue;
      }
      terrain.push_back(&field.terrain[t]);
    }
  }
  return terrain;
}

// What blocks every line of fire from `firer` to `target` (nothing: the
// firer sees the target). Lines run from the firer's front edge (all round
// for mounted firers) to the target's corners and edge points; the first
// clear one ends the search. Every line lies within the box around the
// points it joins, so only the units and terrain that box meets are tried
// (in index order, as the rules report the first); with none, every line
// is clear and the answer is exact without trying one.
Obstruction SightBlocked(const Tables& rules, const Battlefield& field,
                         const BattleState& state, int firer, int target) {
  const UnitShape& fs = field.Shape(state, firer);
  const UnitShape& ts = field.Shape(state, target);
  const bool mounted = state.profiles[firer].mobility == Mobility::kMounted;
  const double clearance = field.rules.fire_gap_mm / 20.0;
  const SightPointList from = SightPoints(fs.rect, !mounted);
  const SightPointList to = SightPoints(ts.rect, false);
  const absl::InlinedVector<int, 8> units =
      UnitsNearSight(field, state, firer, target, fs, ts, clearance);
  const absl::InlinedVector<const TerrainFeature*, 8> terrain =
      TerrainNearSight(field, fs, ts, geometry::Union(fs.box, ts.box));
  Obstruction first;
  if (units.empty() && terrain.empty()) return first;
  const auto blocking = [&](const Segment& line) {
    Obstruction o;
    for (const int u : units) {
      const UnitShape& us = field.Shape(state, u);
      if (LineNear(line, us.polygon, us.box, clearance)) {
        o.unit = u;
        return o;
      }
    }
    o.terrain = TerrainBlocking(rules, terrain, line, fs.centre, ts.centre);
    return o;
  };
  // Most often one unit alone stands in the way of every line (a friend in
  // front of the firers, an enemy before the target): the unit that blocks
  // the first sampled line is tried alone first, by the search with its
  // corners only, at a small part of the cost of the sampled lines and the
  // search with every corner; more units or terrain could only block more.
  bool first_line = true;
  for (const Vec2 a : from) {
    for (const Vec2 b : to) {
      const Obstruction o = blocking(Segment{a, b});
      if (!o.any()) return o;
      if (!first_line) continue;
      first_line = false;
      first = o;
      if (o.unit < 0) continue;
      const UnitShape& us = field.Shape(state, o.unit);
      const auto only_it = [&](const Segment& line) {
        Obstruction alone;
        if (LineNear(line, us.polygon, us.box, clearance)) alone = o;
        return alone;
      };
      if (!TangentLineClear(fs, ts, mounted, {o.unit}, {}, field, state,
                            clearance, only_it)) {
        return first;
      }
    }
  }
  if (TangentLineClear(fs, ts, mounted, units, terrain, field, state, clearance,
                       blocking)) {
    return Obstruction();
  }
  return first;
}

bool InArc(const Battlefield& field, const BattleState& state, int firer,
           const Polygon& target) {
  if (state.profiles[firer].mobility == Mobility::kMounted) return true;
  // The arc has no end (RULES.md "The table"): the 45 degree lines run on
  // across the whole table, so a target beyond range straight ahead is out
  // of range, not out of arc.
  const double across = (field.width_mm + field.depth_mm) / 10.0 + 1;
  return geometry::InFrontArc(field.Shape(state, firer).rect,
                              Radians(field.rules.infantry_fire_arc_deg),
                              across, target);
}

// The woods limit on a volley along `line` (RULES.md "The table"): the
// target in woods, or the firers in woods with more than the woods range of
// the line inside theirs.
bool WoodsLimit(const Tables& rules, const TerrainFeature* firer_woods,
                const TerrainFeature* target_woods, const Segment& line) {
  return target_woods != nullptr ||
         (firer_woods != nullptr &&
          geometry::LengthInside(line, firer_woods->area) >
              rules.firing.woods_range_mm / 10.0);
}

// A distance in cm as the tape reads it: whole millimetres, half up.
double Mm(double cm) { return std::floor(cm * 10 + 0.5); }

// An enemy of the firer nearer than `distance`, within range and arc and
// in sight, not in melee (fire is not aimed into a melee: RULES.md).
// The gap between the boxes, a lower bound on the distance, turns away the
// units too far to matter before any exact measure.
void FindNearerEnemy(const Tables& rules, const Battlefield& field,
                     const BattleState& state, int firer, int target,
                     ShotMeasure& m) {
  const UnitShape& fs = field.Shape(state, firer);
  const TerrainFeature* firer_woods =
      FeatureAt(field, TerrainKind::kWoods, fs.centre);
  // The long range to the mm, as BandAt reads it (15.04 cm is within).
  const double range = rules.firing.long_range_mm / 10.0 + 0.05;
  for (const int e :
       field.UnitsMeeting(state, geometry::Inflated(fs.box, range))) {
    if (e == target || state.units[e].in_melee ||
        state.profiles[e].clan == state.profiles[firer].clan) {
      continue;
    }
    const UnitShape& es = field.Shape(state, e);
    if (!es.present) continue;
    const double gap = BoxGap(fs.box, es.box);
    if (Mm(gap) >= Mm(m.distance) || gap > range ||
        (m.nearer_enemy >= 0 && gap >= m.nearer_distance)) {
      continue;
    }
    const Polygon& ep = es.polygon;
    const double d = geometry::PolygonDistance(fs.polygon, ep);
    if (Mm(d) >= Mm(m.distance) || d > range) continue;
    if (m.nearer_enemy >= 0 && d >= m.nearer_distance) continue;
    // Within range as a volley at it would measure it: 3 cm when the
    // woods limit holds (reference class T8).
    if (firer_woods != nullptr ||
        FeatureAt(field, TerrainKind::kWoods, es.centre) != nullptr) {
      const std::array<Vec2, 2> ends =
          geometry::NearestPointsMiddle(fs.polygon, ep);
      const bool limit = WoodsLimit(
          rules, firer_woods, FeatureAt(field, TerrainKind::kWoods, es.centre),
          Segment{ends[0], ends[1]});
      if (BandAt(rules, d, limit) == RangeBand::kOutOfRange) continue;
    }
    if (!InArc(field, state, firer, ep)) continue;
    if (SightBlocked(rules, field, state, firer, e).any()) continue;
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
  const UnitShape& fs = field.Shape(state, firer);
  const UnitShape& ts = field.Shape(state, target);
  const OrientedRect& tr = ts.rect;
  const Polygon& fp = fs.polygon;
  const Polygon& tp = ts.polygon;
  m.distance = geometry::PolygonDistance(fp, tp);
  const std::array<Vec2, 2> ends = geometry::NearestPointsMiddle(fp, tp);
  m.from = ends[0];
  m.to = ends[1];
  m.in_arc = InArc(field, state, firer, tp);
  const Segment line{m.from, m.to};
  const TerrainFeature* firer_woods =
      FeatureAt(field, TerrainKind::kWoods, state, firer);
  const TerrainFeature* target_woods =
      FeatureAt(field, TerrainKind::kWoods, state, target);
  m.woods_limit = WoodsLimit(rules, firer_woods, target_woods, line);
  m.target_in_building = InBuilding(field, state, target);
  m.firing_from_building = InBuilding(field, state, firer);
  m.target_in_cover =
      !m.target_in_building &&
      (target_woods != nullptr || BehindObstacle(field, tp, line));
  m.firer_in_cover = firer_woods != nullptr || m.firing_from_building ||
                     BehindObstacle(field, fp, line);
  m.target_in_column_or_flanked =
      state.units[target].formation == Formation::kColumn ||
      OffFlankOrRear(tr, fs.centre);
  m.blocked_by = SightBlocked(rules, field, state, firer, target);
  m.line_of_sight = !m.blocked_by.any();
  FindNearerEnemy(rules, field, state, firer, target, m);
  return m;
}

namespace {

// The stands of `side`'s front rank that `enemy` is against (reading 45):
// of the enemy's base, the part within the contact distance of the line of
// the side's front edge, either way, is taken across onto the edge; a stand
// whose stretch of the edge it covers by more than the contact distance is
// in contact (a corner touching, or a flank along the end of the edge, is
// not).
int FrontStandsInContact(const Battlefield& field, const BattleState& state,
                         const UnitShape& ss, const UnitShape& es, int side) {
  const double c = field.rules.contact_mm / 10.0 + 0.005;
  const OrientedRect& r = ss.rect;
  const Vec2 forward = geometry::Forward(r);
  const Vec2 right{forward.y, -forward.x};  // The unit's own right.
  const Vec2 front_left = r.front_centre - right * (r.frontage / 2);
  // Across the edge from its left end, and ahead of it, of a point.
  const auto across = [&](Vec2 p) {
    return geometry::Dot(p - front_left, right);
  };
  const auto ahead = [&](Vec2 p) {
    return geometry::Dot(p - front_left, forward);
  };
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  const auto take = [&](Vec2 p) {
    lo = std::min(lo, across(p));
    hi = std::max(hi, across(p));
  };
  const geometry::Vertices& v = es.polygon.vertices;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Vec2 p = v[i];
    const Vec2 q = v[(i + 1) % v.size()];
    const double dp = ahead(p);
    const double dq = ahead(q);
    if (std::abs(dp) <= c) take(p);
    // Where the edge p-q crosses the two lines of the strip.
    for (const double line : {-c, c}) {
      if ((dp - line) * (dq - line) < 0) {
        take(p + (q - p) * ((line - dp) / (dq - dp)));
      }
    }
  }
  if (lo > hi) return 0;
  const int front = std::min(std::max(1, state.units[side].stands),
                             std::max(1, state.units[side].stands_per_rank));
  const double width = r.frontage / front;
  int count = 0;
  for (int k = 0; k < front; ++k) {
    const double covered =
        std::min(hi, (k + 1) * width) - std::max(lo, k * width);
    if (covered > c) ++count;
  }
  return count;
}

}  // namespace

MeleeMeasure MeasureMeleeSide(const Battlefield& field,
                              const BattleState& state, int side, int enemy) {
  MeleeMeasure m;
  const UnitShape& ss = field.Shape(state, side);
  const UnitShape& es = field.Shape(state, enemy);
  const OrientedRect& sr = ss.rect;
  const OrientedRect& er = es.rect;
  m.distance = geometry::PolygonDistance(ss.polygon, es.polygon);
  m.in_contact = m.distance * 10 <= field.rules.contact_mm + 0.05;
  m.enemy_fighting_to_flank_or_rear = OffFlankOrRear(sr, FrontPoint(er));
  m.enemy_in_building = InBuilding(field, state, enemy);
  m.in_building = InBuilding(field, state, side);
  if (m.in_contact) {
    m.front_stands_in_contact =
        FrontStandsInContact(field, state, ss, es, side);
  }
  const Vec2 s_at = ss.centre;
  const Vec2 e_at = es.centre;
  m.enemy_uphill_or_behind_obstacle =
      Uphill(field, e_at, s_at) ||
      BehindObstacle(field, es.polygon, Segment{s_at, e_at});
  return m;
}

std::vector<int> UnitsNear(const Tables& rules, const Battlefield& field,
                           const BattleState& state, int unit, bool friends) {
  std::vector<int> near;
  if (!Present(state, unit)) return near;
  const UnitShape& us = field.Shape(state, unit);
  const double most =
      std::max(rules.morale.proximity_mm, rules.morale.proximity_in_melee_mm) /
          10.0 +
      0.05;
  for (const int o :
       field.UnitsMeeting(state, geometry::Inflated(us.box, most))) {
    if (o == unit) continue;
    const bool same = state.profiles[o].clan == state.profiles[unit].clan;
    if (same != friends) continue;
    const UnitShape& os = field.Shape(state, o);
    if (!os.present) continue;
    const double within = Proximity(rules, state, o) + 0.05;
    if (BoxGap(us.box, os.box) <= within &&
        geometry::PolygonsWithin(us.polygon, os.polygon, within)) {
      near.push_back(o);
    }
  }
  return near;
}

namespace {

// In command reach: its own Daimyo or General attached, or the base of a
// unit of its clan with one attached within the reach (reading 44).
bool InCommand(const Battlefield& field, const BattleState& state, int unit) {
  const double reach = field.rules.command_reach_mm / 10.0 + 0.05;
  const UnitShape& us = field.Shape(state, unit);
  for (const LeaderState& l : state.leaders) {
    if (l.killed || l.attached_unit < 0 ||
        l.clan != state.profiles[unit].clan) {
      continue;
    }
    if (l.attached_unit == unit) return true;
    const UnitShape& ls = field.Shape(state, l.attached_unit);
    if (ls.present && BoxGap(us.box, ls.box) <= reach &&
        geometry::PolygonsWithin(us.polygon, ls.polygon, reach)) {
      return true;
    }
  }
  return false;
}

}  // namespace

MoraleMeasure MeasureMorale(const Tables& rules, const Battlefield& field,
                            const BattleState& state, int unit) {
  MoraleMeasure m;
  m.proximity = Proximity(rules, state, unit);
  const UnitShape& us = field.Shape(state, unit);
  const OrientedRect& ur = us.rect;
  const Polygon& up = us.polygon;
  const Vec2 u_at = us.centre;
  bool any_enemy_near = false;
  bool uphill_of_all = true;
  for (const int o : field.UnitsMeeting(
           state, geometry::Inflated(us.box, m.proximity + 0.05))) {
    if (o == unit) continue;
    const UnitShape& os = field.Shape(state, o);
    if (!os.present) continue;
    const OrientedRect& orr = os.rect;
    const Polygon& op = os.polygon;
    if (BoxGap(us.box, os.box) > m.proximity + 0.05 ||
        !geometry::PolygonsWithin(up, op, m.proximity + 0.05)) {
      continue;
    }
    const bool friendly = state.profiles[o].clan == state.profiles[unit].clan;
    const bool routing = state.units[o].routing;
    if (friendly) {
      if (routing) m.friends_routing_near.push_back(o);
      continue;
    }
    if (routing) {
      m.enemies_routing_near.push_back(o);
      continue;
    }
    any_enemy_near = true;
    uphill_of_all = uphill_of_all && Uphill(field, u_at, os.centre);
    // (The cheap side test first: most enemies near stand to the front.)
    if (m.enemy_facing_flank_or_rear < 0 && OffFlankOrRear(ur, os.centre) &&
        geometry::InFrontArc(orr, geometry::kPi / 4, m.proximity + 1, up)) {
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
        geometry::PolygonsWithin(up, Shape(field, state, a),
                                 m.proximity + 0.05)) {
      m.general_near = true;
    }
  }
  if (field.rules.command_reach_mm > 0) {
    m.out_of_command = !InCommand(field, state, unit);
  }
  // (Charges declared on it are counted: none, no charger to look for.)
  const int chargers = state.units[unit].charges_received > 0
                           ? static_cast<int>(state.units.size())
                           : 0;
  for (int c = 0; c < chargers; ++c) {
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
  // geometry::ToPolygon of the rectangle moved back c and narrowed 2c each
  // way, worked out with one cosine and sine (the same operations, so the
  // same bits, as MovedForward then Corners).
  const Vec2 forward = geometry::Forward(r);
  const Vec2 front = r.front_centre + forward * -c;
  const Vec2 left{-forward.y, forward.x};
  const Vec2 half_front = left * (std::max(0.0, r.frontage - 2 * c) / 2);
  const Vec2 back = forward * std::max(0.0, r.depth - 2 * c);
  const Vec2 front_left = front + half_front;
  const Vec2 front_right = front - half_front;
  return Polygon{
      {front_left, front_right, front_right - back, front_left - back}};
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
      OnTable(field, shape) && OverlappedUnit(field, state, unit, shape) < 0;
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
  return OverlappedUnit(field, state, unit,
                        InnerShape(field, FootprintAt(field, state, unit, at)));
}

int OverlappedUnit(const Battlefield& field, const BattleState& state, int unit,
                   const Polygon& shape) {
  const Box box = BoxOf(shape);
  // Where it stood before, worked out only when the end meets a unit.
  std::optional<Polygon> before;
  for (const int u : field.UnitsMeeting(state, box)) {
    if (u == unit) continue;
    const UnitShape& us = field.Shape(state, u);
    if (!us.present || !geometry::BoxesMeet(box, us.box)) continue;
    const Polygon& other = us.polygon;
    if (!geometry::PolygonsIntersect(shape, other)) continue;
    if (!before.has_value()) {
      before = InnerShape(field, Footprint(field, state, unit));
    }
    if (!geometry::PolygonsIntersect(*before, other)) return u;
  }
  return -1;
}

namespace {

// What may block a slide and the turn at its end (MeasurePath): the
// impassable ground and (when `units_block`) the units whose boxes meet
// `path`, the box around the whole path, in index order; not `unit` nor
// `ignore`.
class PathBlockers {
 public:
  PathBlockers(const Battlefield& field, const BattleState& state, int unit,
               int ignore, bool units_block, const Box& path,
               bool slide_on_table)
      : field_(field), state_(state), slide_on_table_(slide_on_table) {
    for (int t = 0; t < static_cast<int>(field.terrain.size()); ++t) {
      if (field.terrain[t].kind == TerrainKind::kImpassable &&
          geometry::BoxesMeet(path, field.TerrainBox(t))) {
        impassable_.push_back(&field.terrain[t]);
        boxes_.push_back(field.TerrainBox(t));
      }
    }
    if (!units_block) return;
    for (const int u : field.UnitsMeeting(state, path)) {
      if (u == unit || u == ignore) continue;
      const UnitShape& us = field.Shape(state, u);
      if (us.present && geometry::BoxesMeet(path, us.box)) units_.push_back(u);
    }
  }

  // What blocks `shape`: the table's edge (not tried for a step of a slide
  // that starts and ends on the table), impassable ground, a unit; the
  // first found.
  Obstruction At(const Polygon& shape, bool slide) const {
    Obstruction o;
    if (!(slide && slide_on_table_) && !OnTable(field_, shape)) {
      o.table_edge = true;
    }
    for (const TerrainFeature* f : impassable_) {
      if (!o.any() && geometry::PolygonsIntersect(f->area, shape)) {
        o.terrain = f;
      }
    }
    const Box box = BoxOf(shape);
    for (const int u : units_) {
      if (o.any()) break;
      const UnitShape& us = field_.Shape(state_, u);
      if (geometry::BoxesMeet(box, us.box) &&
          geometry::PolygonsIntersect(shape, us.polygon)) {
        o.unit = u;
      }
    }
    return o;
  }

  // The spans of the steps 1 to `steps` of `start_shape`'s slide along
  // `way` that may meet a blocker, sorted: only a step that meets one can be
  // blocked. On the table all the way, each blocker's steps are worked out
  // from the slide's line (ConvexSlide, rounded outwards); a slide that
  // leaves the table tries every step for the edge.
  absl::InlinedVector<std::pair<int, int>, 16> Spans(const Polygon& start_shape,
                                                     Vec2 way,
                                                     int steps) const {
    absl::InlinedVector<std::pair<int, int>, 16> spans;
    if (!slide_on_table_) {
      spans.emplace_back(1, steps);
      return spans;
    }
    const Box from = BoxOf(start_shape);
    for (const Box& b : boxes_) {
      const std::pair<int, int> span = StepSpan(from, way, 1, steps, b);
      if (span.first <= span.second) spans.push_back(span);
    }
    const ConvexSlide slide(start_shape, way);
    for (const int u : units_) {
      const UnitShape& us = field_.Shape(state_, u);
      const std::pair<int, int> span =
          slide.Steps(1, steps, us.polygon, us.box);
      if (span.first <= span.second) spans.push_back(span);
    }
    std::sort(spans.begin(), spans.end());
    return spans;
  }

 private:
  const Battlefield& field_;
  const BattleState& state_;
  const bool slide_on_table_;
  absl::InlinedVector<const TerrainFeature*, 8> impassable_;
  absl::InlinedVector<Box, 16> boxes_;  // impassable_'s boxes
  absl::InlinedVector<int, 8> units_;
};

// Returns `m` blocked by `o`, `unit` stopped at `clear`.
MoveMeasure Blocked(MoveMeasure m, const BattleState& state, int unit,
                    const Obstruction& o, const OrientedRect& clear) {
  m.blocked_by = o;
  m.off_table = o.table_edge;
  m.blocked_by_enemy_or_edge =
      o.table_edge ||
      (o.unit >= 0 && state.profiles[o.unit].clan != state.profiles[unit].clan);
  m.blocked_by_friends_or_impassable = !m.blocked_by_enemy_or_edge;
  m.to = PoseOf(clear);
  return m;
}

}  // namespace

// The slide is tried in kPathStep steps against what it may meet
// (PathBlockers), each only at the steps where the two may meet. Each
// corner of the footprint moves in a straight line and the table (grown by
// kEpsilon) is convex, so a slide that starts and ends on the table stays
// on it between; with nothing else near, the slide is clear without trying
// a step.
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
  OrientedRect turned = end;
  turned.facing = FacingRadians(to.facing_deg);
  const Polygon start_shape = InnerShape(field, start);
  const Polygon slide_end = InnerShape(field, end);
  const Polygon turned_shape = InnerShape(field, turned);
  const Box path =
      geometry::Union(geometry::Union(BoxOf(start_shape), BoxOf(slide_end)),
                      BoxOf(turned_shape));
  const PathBlockers blockers(
      field, state, unit, ignore, units_block, path,
      OnTable(field, start_shape) && OnTable(field, slide_end));
  // The slide keeps the facing: each step's shape is the start's moved on
  // (no trigonometry per step).
  Polygon moved = start_shape;
  const Vec2 way = end.front_centre - start.front_centre;
  int next = 1;  // The first step not yet tried.
  for (const auto& [first, last] : blockers.Spans(start_shape, way, steps)) {
    for (int i = std::max(first, next); i <= last; ++i) {
      ShiftInto(start_shape, way * (double(i) / steps), moved);
      const Obstruction o = blockers.At(moved, true);
      if (o.any()) {
        OrientedRect clear = start;
        if (i > 1) {
          clear.front_centre =
              start.front_centre + way * (double(i - 1) / steps);
        }
        return Blocked(m, state, unit, o, clear);
      }
    }
    next = std::max(next, last + 1);
  }
  // Then the turn at the end, from the slide's last step.
  OrientedRect last_clear = start;
  last_clear.front_centre = start.front_centre + way * (double(steps) / steps);
  const Obstruction o = blockers.At(turned_shape, false);
  if (o.any()) return Blocked(m, state, unit, o, last_clear);
  return m;
}

std::vector<int> FriendsPassedThrough(const Battlefield& field,
                                      const BattleState& state, int unit,
                                      const Pose& to) {
  std::vector<int> through;
  const OrientedRect start = Footprint(field, state, unit);
  OrientedRect end = start;
  end.front_centre = {to.x_mm / 10.0, to.y_mm / 10.0};
  OrientedRect turned = end;
  turned.facing = FacingRadians(to.facing_deg);
  const Polygon start_shape = InnerShape(field, start);
  const Polygon turned_shape = InnerShape(field, turned);
  const Box path = geometry::Union(
      geometry::Union(BoxOf(start_shape), BoxOf(InnerShape(field, end))),
      BoxOf(turned_shape));
  absl::InlinedVector<int, 8> friends;
  for (const int u : field.UnitsMeeting(state, path)) {
    if (u == unit || state.profiles[u].clan != state.profiles[unit].clan) {
      continue;
    }
    const UnitShape& us = field.Shape(state, u);
    if (us.present && geometry::BoxesMeet(path, us.box) &&
        !geometry::PolygonsIntersect(start_shape, us.polygon)) {
      friends.push_back(u);
    }
  }
  if (friends.empty()) return through;
  const double distance =
      geometry::Distance(start.front_centre, end.front_centre);
  const int steps =
      std::clamp(static_cast<int>(distance / kPathStep), 1, 100000);
  // Each friend is tried at the steps of the slide that may meet it
  // (ConvexSlide), then at the turn at the end.
  const Vec2 way = end.front_centre - start.front_centre;
  Polygon shape = start_shape;
  const ConvexSlide slide(start_shape, way);
  for (const int u : friends) {
    const UnitShape& us = field.Shape(state, u);
    const auto meets = [&](const Polygon& at) {
      return geometry::BoxesMeet(BoxOf(at), us.box) &&
             geometry::PolygonsIntersect(at, us.polygon);
    };
    bool met = false;
    const auto [first, last] = slide.Steps(1, steps, us.polygon, us.box);
    for (int i = first; !met && i <= last; ++i) {
      // The slide keeps the facing: the start's shape moved on.
      ShiftInto(start_shape, way * (double(i) / steps), shape);
      met = meets(shape);
    }
    if (met || meets(turned_shape)) through.push_back(u);
  }
  return through;
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
    case ResultPath::kTurnAndAway:
    case ResultPath::kFlee: {
      // Turned about in place: the rear edge becomes the front.
      OrientedRect about = r;
      about.front_centre = r.front_centre - geometry::Forward(r) * r.depth;
      about.facing = r.facing + geometry::kPi;
      r = geometry::MovedForward(about, d);
      if (path == ResultPath::kFlee) {
        return ClearOfFriends(field, state, unit, PoseOf(r));
      }
      break;
    }
  }
  return PoseOf(r);
}

std::optional<MoveMeasure> MeasureResultMove(const Tables& rules,
                                             const Battlefield& field,
                                             const BattleState& state, int unit,
                                             ResultMoveKind kind,
                                             int distance_mm, const Pose* to,
                                             int fought) {
  ResultPath path = ResultPath::kBack;
  int distance = std::min(distance_mm, kMaxTableMm);
  int ignore = fought;
  switch (kind) {
    case ResultMoveKind::kHold:
      return std::nullopt;
    case ResultMoveKind::kPushBack:
      if (distance == 0) distance = rules.melee.push_back_mm;
      break;
    case ResultMoveKind::kRout:
      path = ResultPath::kFlee;
      break;
    case ResultMoveKind::kRetreat:
      path = ResultPath::kTurnAndAway;
      break;
    case ResultMoveKind::kFollowUp:
      path = ResultPath::kAhead;
      if (distance == 0 && fought >= 0 && state.units[fought].placed &&
          !state.units[fought].removed) {
        distance = static_cast<int>(
            std::lround(UnitDistance(field, state, unit, fought) * 10));
      }
      break;
    case ResultMoveKind::kPursuit:
      path = ResultPath::kAhead;
      ignore = -1;
      break;
    case ResultMoveKind::kRetire:
      break;
  }
  const Pose end = to != nullptr
                       ? *to
                       : ResultPose(field, state, unit, path, distance, ignore);
  return MeasurePath(field, state, unit, end, ignore,
                     /*units_block=*/kind != ResultMoveKind::kRout);
}

Pose ClearOfFriends(const Battlefield& field, const BattleState& state,
                    int unit, const Pose& at) {
  const OrientedRect start = FootprintAt(field, state, unit, at);
  const Polygon start_shape = InnerShape(field, start);
  const Vec2 step = geometry::Forward(start) * kPathStep;
  // At most 3 m on (or the table's width and depth, if less): past any
  // friends a real table holds, and a bound for a log that lines up more.
  const int most = static_cast<int>(
      std::min(300.0, (field.width_mm + field.depth_mm) / 10.0) / kPathStep);
  const auto is_friend = [&](int u) {
    return u != unit && state.profiles[u].clan == state.profiles[unit].clan &&
           field.Shape(state, u).present;
  };
  const auto meets = [&](const Polygon& at_step, const Box& box, int u) {
    const UnitShape& us = field.Shape(state, u);
    return geometry::BoxesMeet(box, us.box) &&
           geometry::PolygonsIntersect(at_step, us.polygon);
  };
  // Most routers end clear of their friends: settled by the friends near
  // where they stand before the whole way on is looked at.
  const Box start_box = BoxOf(start_shape);
  const UnitList near = field.UnitsMeeting(state, start_box);
  if (std::none_of(near.begin(), near.end(), [&](int u) {
        return is_friend(u) && meets(start_shape, start_box, u);
      })) {
    return at;
  }
  Polygon shape = start_shape;
  // The friends the whole way on may meet (the boxes of its ends hold it).
  ShiftInto(start_shape, step * double(most), shape);
  const Box way = geometry::Union(start_box, BoxOf(shape));
  absl::InlinedVector<int, 8> friends;
  // The steps on at which a friend may be met (ConvexSlide): at any other it
  // is clear without a test.
  absl::InlinedVector<std::pair<int, int>, 8> spans;
  const ConvexSlide slide(start_shape, step * double(most));
  for (const int u : field.UnitsMeeting(state, way)) {
    if (is_friend(u)) {
      friends.push_back(u);
      const UnitShape& us = field.Shape(state, u);
      const std::pair<int, int> span = slide.Steps(0, most, us.polygon, us.box);
      if (span.first <= span.second) spans.push_back(span);
    }
  }
  const auto on_a_friend = [&](const Polygon& at_step) {
    const Box box = BoxOf(at_step);
    return std::any_of(friends.begin(), friends.end(),
                       [&](int u) { return meets(at_step, box, u); });
  };
  for (int i = 0;; ++i) {
    const bool near_friend = std::any_of(
        spans.begin(), spans.end(),
        [i](std::pair<int, int> s) { return s.first <= i && i <= s.second; });
    bool on_friend = false;
    if (near_friend) {
      ShiftInto(start_shape, step * double(i), shape);
      on_friend = on_a_friend(shape);
    }
    if (i == 0 && !on_friend) return at;
    if (!on_friend || i == most) {
      OrientedRect r = start;
      r.front_centre = start.front_centre + step * double(i);
      const Pose pose = PoseOf(r);
      // Rounded to the mm, the pose may lie a hair back on the friend: then
      // on a step more, so that the pose given is clear itself (a log that
      // gives it is not found stopping short).
      if (i < most && near_friend &&
          on_a_friend(
              InnerShape(field, FootprintAt(field, state, unit, pose)))) {
        continue;
      }
      return pose;
    }
  }
}

}  // namespace gunbai::rules::daimyo
