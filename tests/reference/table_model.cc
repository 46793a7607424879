// The reference table geometry. Sources, as in model.cc: F = seed 004
// (firing), M = seed 000 (melee), N = RULES-NOTES.md, R = rules/daimyo/
// RULES.md "The table" (and README.md "The table"); A = an assumption of
// ours where the texts leave a convention open (README.md, "Table
// geometry", lists them).
#include "tests/reference/table_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace gunbai::reference {
namespace {

constexpr double kEps = 1e-7;           // A: exact comparisons, float noise
constexpr double kEffectiveMm = 80;     // F/N: effective up to 8 cm inclusive
constexpr double kLongMm = 150;         // F/N: long over 8 up to 15 cm
constexpr double kWoodsRangeMm = 30;    // F: 3 cm in woods
constexpr double kHalfGapMm = 20;       // F "4cm gap"; R: half of it each side
constexpr double kWoodsSightMm = 30;    // R: no more than 3 cm of woods
constexpr double kCrestNearMm = 20;     // R: a crest within 2 cm of either
constexpr double kObstacleNearMm = 30;  // R: lines an obstacle within 3 cm
constexpr double kWoodsDepthMm = 30;    // R: firing out beyond 3 cm inside

// R: distances "in cm with one decimal": the rules compare whole mm
// (A: rounded half up).
double ToTheMm(double mm) { return std::floor(mm + 0.5); }

Vec Add(Vec a, Vec b) { return {a.x + b.x, a.y + b.y}; }
Vec Sub(Vec a, Vec b) { return {a.x - b.x, a.y - b.y}; }
Vec Scale(Vec a, double k) { return {a.x * k, a.y * k}; }
double Dot(Vec a, Vec b) { return a.x * b.x + a.y * b.y; }
double Cross(Vec a, Vec b) { return a.x * b.y - a.y * b.x; }
double Len(Vec a) { return std::sqrt(Dot(a, a)); }
Vec Lerp(Vec a, Vec b, double t) { return Add(a, Scale(Sub(b, a), t)); }

// sin and cos of whole degrees, exact at the right angles.
void SinCos(int deg, double* s, double* c) {
  deg = ((deg % 360) + 360) % 360;
  switch (deg) {
    case 0:
      *s = 0;
      *c = 1;
      return;
    case 90:
      *s = 1;
      *c = 0;
      return;
    case 180:
      *s = 0;
      *c = -1;
      return;
    case 270:
      *s = -1;
      *c = 0;
      return;
  }
  const double r = deg * M_PI / 180.0;
  *s = std::sin(r);
  *c = std::cos(r);
}

// The nearest point of segment ab to p.
Vec ClosestOnSegment(Vec p, Vec a, Vec b) {
  const Vec ab = Sub(b, a);
  const double l2 = Dot(ab, ab);
  if (l2 == 0) return a;
  const double t = std::clamp(Dot(Sub(p, a), ab) / l2, 0.0, 1.0);
  return Lerp(a, b, t);
}

double PointSegmentDistance(Vec p, Vec a, Vec b) {
  return Len(Sub(p, ClosestOnSegment(p, a, b)));
}

int Orientation(Vec a, Vec b, Vec c) {
  const double v = Cross(Sub(b, a), Sub(c, a));
  return v > kEps ? 1 : (v < -kEps ? -1 : 0);
}

bool OnSegment(Vec a, Vec b, Vec p) {
  return std::min(a.x, b.x) - kEps <= p.x && p.x <= std::max(a.x, b.x) + kEps &&
         std::min(a.y, b.y) - kEps <= p.y && p.y <= std::max(a.y, b.y) + kEps;
}

// Closed segments ab and cd share a point.
bool SegmentsIntersect(Vec a, Vec b, Vec c, Vec d) {
  const int o1 = Orientation(a, b, c), o2 = Orientation(a, b, d);
  const int o3 = Orientation(c, d, a), o4 = Orientation(c, d, b);
  if (o1 != o2 && o3 != o4 && o1 * o2 <= 0 && o3 * o4 <= 0) return true;
  if (o1 == 0 && OnSegment(a, b, c)) return true;
  if (o2 == 0 && OnSegment(a, b, d)) return true;
  if (o3 == 0 && OnSegment(c, d, a)) return true;
  if (o4 == 0 && OnSegment(c, d, b)) return true;
  return false;
}

double SegmentDistance(Vec a, Vec b, Vec c, Vec d) {
  if (SegmentsIntersect(a, b, c, d)) return 0;
  return std::min({PointSegmentDistance(a, c, d), PointSegmentDistance(b, c, d),
                   PointSegmentDistance(c, a, b),
                   PointSegmentDistance(d, a, b)});
}

// Local coordinates of p: across the front (u, to the right of the front
// centre) and forward (s, from the front edge; negative behind it).
void Local(const Footprint& f, Vec p, double* u, double* s) {
  const Vec d = Sub(p, f.front_centre);
  *u = Dot(d, f.right);
  *s = Dot(d, f.forward);
}

bool InFootprint(const Footprint& f, Vec p) {
  double u, s;
  Local(f, p, &u, &s);
  return std::abs(u) <= f.half_width + kEps && s <= kEps &&
         s >= -f.depth - kEps;
}

bool SegmentMeetsFootprint(const Footprint& f, Vec a, Vec b) {
  if (InFootprint(f, a) || InFootprint(f, b)) return true;
  for (int i = 0; i < 4; ++i)
    if (SegmentsIntersect(a, b, f.corner[i], f.corner[(i + 1) % 4]))
      return true;
  return false;
}

// From a point to the footprint's area (0 inside).
double PointFootprintDistance(const Footprint& f, Vec p) {
  double u, s;
  Local(f, p, &u, &s);
  const double du = std::max(0.0, std::abs(u) - f.half_width);
  const double ds = s > 0 ? s : std::max(0.0, -f.depth - s);
  return std::sqrt(du * du + ds * ds);
}

// Apart, the nearest points of a segment and a convex area include an
// endpoint of the segment or a corner of the area.
double SegmentFootprintDistance(const Footprint& f, Vec a, Vec b) {
  if (SegmentMeetsFootprint(f, a, b)) return 0;
  double best =
      std::min(PointFootprintDistance(f, a), PointFootprintDistance(f, b));
  for (const Vec& k : f.corner)
    best = std::min(best, PointSegmentDistance(k, a, b));
  return best;
}

bool SegmentMeetsPolygon(const Polygon& p, Vec a, Vec b) {
  if (Inside(p, a) || Inside(p, b)) return true;
  const std::size_t n = p.points.size();
  for (std::size_t i = 0; i < n; ++i)
    if (SegmentsIntersect(a, b, p.points[i], p.points[(i + 1) % n]))
      return true;
  return false;
}

bool SegmentCrossesLine(const std::vector<Vec>& line, Vec a, Vec b) {
  for (std::size_t i = 0; i + 1 < line.size(); ++i)
    if (SegmentsIntersect(a, b, line[i], line[i + 1])) return true;
  return false;
}

}  // namespace

double FootprintLineDistance(const Footprint& f, const std::vector<Vec>& line) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i + 1 < line.size(); ++i)
    best = std::min(best, SegmentFootprintDistance(f, line[i], line[i + 1]));
  return best;
}

namespace {

// How much of segment ab lies inside the polygon.
double LengthInside(const Polygon& p, Vec a, Vec b) {
  std::vector<double> ts = {0.0, 1.0};
  const Vec ab = Sub(b, a);
  const std::size_t n = p.points.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec c = p.points[i], d = p.points[(i + 1) % n];
    const Vec cd = Sub(d, c);
    const double den = Cross(ab, cd);
    if (std::abs(den) < 1e-12) continue;
    const double t = Cross(Sub(c, a), cd) / den;
    const double u = Cross(Sub(c, a), ab) / den;
    if (t > 0 && t < 1 && u >= 0 && u <= 1) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());
  double inside = 0;
  for (std::size_t i = 0; i + 1 < ts.size(); ++i) {
    const double mid = (ts[i] + ts[i + 1]) / 2;
    if (Inside(p, Lerp(a, b, mid))) inside += (ts[i + 1] - ts[i]) * Len(ab);
  }
  return inside;
}

// The point at t along the perimeter (t in [0, 4): one edge a unit, from
// the front left corner clockwise as the unit sees it).
Vec PerimeterPoint(const Footprint& f, double t) {
  t = std::fmod(std::fmod(t, 4.0) + 4.0, 4.0);
  const int edge = std::min(3, static_cast<int>(t));
  return Lerp(f.corner[edge], f.corner[(edge + 1) % 4], t - edge);
}

// A point on the firer's edge that lines of fire start from: its front
// edge (t in [0, 1]), or all round for mounted firers (t in [0, 4)).
Vec SourcePoint(const Footprint& f, bool all_round, double t) {
  if (!all_round)
    return Lerp(f.corner[0], f.corner[1], std::clamp(t, 0.0, 1.0));
  return PerimeterPoint(f, t);
}

// What stands in the way of lines of fire from one firer to one target.
struct SightCheck {
  const Scene* scene = nullptr;
  int firer = 0, target = 0;
  bool all_round = false;
  std::vector<Footprint> shapes;
  std::vector<bool> terrain_open;  // a building or crest that does not block
  // A crest that would block but one of the two stands within 2 cm of it.
  bool crest_opened = false;
  // Positive: a stricter sight (a wider gap, less woods); negative: a
  // laxer one. For telling a narrow line from a plain one.
  double margin = 0;
};

SightCheck MakeSightCheck(const Scene& scene, int firer, int target,
                          double margin = 0) {
  SightCheck c;
  c.margin = margin;
  c.scene = &scene;
  c.firer = firer;
  c.target = target;
  c.all_round = scene.units[firer].mounted;  // F: cavalry 360 degrees
  for (const TableUnit& u : scene.units) c.shapes.push_back(u.Shape());
  const Footprint& f = c.shapes[firer];
  const Footprint& t = c.shapes[target];
  for (const Terrain& ter : scene.terrain) {
    bool open = false;
    if (ter.kind == TerrainKind::kBuilding)  // R: a building neither stands in
      open = CentreIn(ter.outline, f.centre) || CentreIn(ter.outline, t.centre);
    if (ter.kind == TerrainKind::kHill) {  // R: unless one stands within 2 cm
      open = ter.crest.size() < 2 ||
             ToTheMm(FootprintLineDistance(f, ter.crest)) <= kCrestNearMm ||
             ToTheMm(FootprintLineDistance(t, ter.crest)) <= kCrestNearMm;
      if (open && ter.crest.size() >= 2 &&
          SegmentCrossesLine(ter.crest, f.centre, t.centre))
        c.crest_opened = true;
    }
    c.terrain_open.push_back(open);
  }
  return c;
}

constexpr double kSolid = std::numeric_limits<double>::infinity();

bool FarApart(const Footprint& f, double lo_x, double hi_x, double lo_y,
              double hi_y) {
  double min_x = f.corner[0].x, max_x = min_x, min_y = f.corner[0].y,
         max_y = min_y;
  for (const Vec& k : f.corner) {
    min_x = std::min(min_x, k.x);
    max_x = std::max(max_x, k.x);
    min_y = std::min(min_y, k.y);
    max_y = std::max(max_y, k.y);
  }
  return max_x < lo_x || min_x > hi_x || max_y < lo_y || min_y > hi_y;
}

// 0 when the line ab is clear; else how far it falls short (mm of the half
// gap or of woods), or kSolid for a wall of terrain. `why` names a blocker.
double Shortfall(const SightCheck& c, Vec a, Vec b, std::string* why) {
  double short_by = 0;
  const double half_gap = kHalfGapMm + c.margin;
  const double lo_x = std::min(a.x, b.x) - half_gap - 1;
  const double hi_x = std::max(a.x, b.x) + half_gap + 1;
  const double lo_y = std::min(a.y, b.y) - half_gap - 1;
  const double hi_y = std::max(a.y, b.y) + half_gap + 1;
  for (std::size_t i = 0; i < c.shapes.size(); ++i) {
    if (static_cast<int>(i) == c.firer || static_cast<int>(i) == c.target)
      continue;
    const Footprint& f = c.shapes[i];
    if (FarApart(f, lo_x, hi_x, lo_y, hi_y)) continue;
    // R: no other unit nearer than half the 4 cm gap.
    const double d = SegmentFootprintDistance(f, a, b);
    if (d < half_gap - kEps) {
      if (short_by == 0 && why) *why = c.scene->units[i].id;
      short_by = std::max(short_by, half_gap - d);
    }
  }
  double woods = 0;
  const std::vector<Terrain>& terrain = c.scene->terrain;
  for (std::size_t i = 0; i < terrain.size(); ++i) {
    const Terrain& t = terrain[i];
    switch (t.kind) {
      case TerrainKind::kImpassable:
      case TerrainKind::kBuilding:
        if (!c.terrain_open[i] && SegmentMeetsPolygon(t.outline, a, b)) {
          if (why) *why = t.id;
          return kSolid;
        }
        break;
      case TerrainKind::kHill:
        if (!c.terrain_open[i] && SegmentCrossesLine(t.crest, a, b)) {
          if (why) *why = t.id + " (crest)";
          return kSolid;
        }
        break;
      case TerrainKind::kWoods:
        woods += LengthInside(t.outline, a, b);  // A: all woods together
        break;
      case TerrainKind::kLinearObstacle:
        break;
    }
  }
  if (ToTheMm(woods + c.margin) > kWoodsSightMm) {  // A: to the mm
    if (short_by == 0 && why) *why = "woods";
    short_by = std::max({short_by, woods + c.margin - kWoodsSightMm, 0.01});
  }
  return short_by;
}

struct Candidate {
  double shortfall, t, s;
};

// Searches the lines from the firer's edge (parameter t) to the target's
// perimeter (s in [0, 4)): a grid, then finer grids around the lines that
// missed by less than 4 mm. A: "some line" is searched, not solved; the
// fine grids step 1/16 of the coarse step (under 0.2 mm on a 4 cm edge).
bool FindClearLine(const SightCheck& c, std::string* why, Segment* line) {
  const Footprint& f = c.shapes[c.firer];
  const Footprint& g = c.shapes[c.target];
  const double t_span = c.all_round ? 4.0 : 1.0;
  const int t_steps = c.all_round ? 64 : 32;
  const int s_steps = 64;
  std::vector<Candidate> near;
  bool named = false;
  for (int i = 0; i <= t_steps; ++i) {
    const double t = t_span * i / t_steps;
    const Vec a = SourcePoint(f, c.all_round, t);
    for (int j = 0; j < s_steps; ++j) {
      const double s = 4.0 * j / s_steps;
      std::string w;
      const double sf = Shortfall(c, a, PerimeterPoint(g, s), &w);
      if (sf == 0) {
        if (line) *line = {a, PerimeterPoint(g, s)};
        return true;
      }
      if (!named && why) {
        *why = w;
        named = true;
      }
      if (sf < 4.0) near.push_back({sf, t, s});
    }
  }
  // Straight-across lines the grid may step over: from each source point to
  // its nearest point on each edge of the target, and back.
  for (int i = 0; i <= t_steps; ++i) {
    const Vec a = SourcePoint(f, c.all_round, t_span * i / t_steps);
    for (int e = 0; e < 4; ++e) {
      const Vec b = ClosestOnSegment(a, g.corner[e], g.corner[(e + 1) % 4]);
      if (Shortfall(c, a, b, nullptr) == 0) {
        if (line) *line = {a, b};
        return true;
      }
    }
  }
  for (int j = 0; j < s_steps; ++j) {
    const Vec b = PerimeterPoint(g, 4.0 * j / s_steps);
    for (int e = 0; e < (c.all_round ? 4 : 1); ++e) {
      const Vec a = ClosestOnSegment(b, f.corner[e], f.corner[(e + 1) % 4]);
      if (Shortfall(c, a, b, nullptr) == 0) {
        if (line) *line = {a, b};
        return true;
      }
    }
  }
  std::sort(near.begin(), near.end(),
            [](const Candidate& x, const Candidate& y) {
              return x.shortfall < y.shortfall;
            });
  if (near.size() > 12) near.resize(12);
  const double dt = t_span / t_steps, ds = 4.0 / s_steps;
  for (const Candidate& n : near) {
    for (int i = -16; i <= 16; ++i) {
      const double t = n.t + dt * i / 16;
      if (!c.all_round && (t < 0 || t > 1)) continue;
      const Vec a = SourcePoint(f, c.all_round, t);
      for (int j = -16; j <= 16; ++j) {
        const Vec b = PerimeterPoint(g, n.s + ds * j / 16);
        if (Shortfall(c, a, b, nullptr) == 0) {
          if (line) *line = {a, b};
          return true;
        }
      }
    }
  }
  return false;
}

// R: the target (or firer) lines a linear obstacle the line of fire
// crosses, within 3 cm of it: measured to the mm as every distance
// (RULES.md reading 43; 30.4 mm reads 30 and is within).
bool LinesObstacle(const Scene& scene, const Footprint& f,
                   const Segment& fire) {
  for (const Terrain& t : scene.terrain) {
    if (t.kind != TerrainKind::kLinearObstacle) continue;
    if (SegmentCrossesLine(t.outline.points, fire.a, fire.b) &&
        ToTheMm(FootprintLineDistance(f, t.outline.points)) <= kObstacleNearMm)
      return true;
  }
  return false;
}

}  // namespace

BaseSize BaseSizeFor(bool headquarters, bool mounted) {
  if (headquarters) return {40, 40};
  if (mounted) return {40, 30};
  return {40, 20};
}

Footprint MakeFootprint(const Pose& pose, int stands, int stands_per_rank,
                        BaseSize base) {
  const int per_rank = std::max(1, stands_per_rank);
  const int front = std::max(1, std::min(stands, per_rank));
  const int ranks = std::max(1, (stands + per_rank - 1) / per_rank);
  Footprint f;
  double s, c;
  SinCos(pose.facing_deg, &s, &c);
  f.forward = {s, c};
  f.right = {c, -s};
  f.half_width = front * base.width_mm / 2.0;
  f.depth = ranks * base.depth_mm;
  f.front_centre = {static_cast<double>(pose.x_mm),
                    static_cast<double>(pose.y_mm)};
  const Vec half = Scale(f.right, f.half_width);
  const Vec back = Scale(f.forward, -f.depth);
  f.corner[0] = Sub(f.front_centre, half);
  f.corner[1] = Add(f.front_centre, half);
  f.corner[2] = Add(f.corner[1], back);
  f.corner[3] = Add(f.corner[0], back);
  f.centre = Add(f.front_centre, Scale(back, 0.5));
  return f;
}

Footprint TableUnit::Shape() const {
  return MakeFootprint(pose, stands, stands_per_rank,
                       BaseSizeFor(headquarters, mounted));
}

double FootprintDistance(const Footprint& a, const Footprint& b) {
  for (const Vec& k : a.corner)
    if (InFootprint(b, k)) return 0;
  for (const Vec& k : b.corner)
    if (InFootprint(a, k)) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      best =
          std::min(best, SegmentDistance(a.corner[i], a.corner[(i + 1) % 4],
                                         b.corner[j], b.corner[(j + 1) % 4]));
  return best;
}

bool FootprintsOverlap(const Footprint& a, const Footprint& b,
                       double tolerance_mm) {
  // Separating axes: the two rectangles' sides.
  const Vec axes[4] = {a.forward, a.right, b.forward, b.right};
  for (const Vec& axis : axes) {
    double a_lo = kSolid, a_hi = -kSolid, b_lo = kSolid, b_hi = -kSolid;
    for (int i = 0; i < 4; ++i) {
      const double pa = Dot(a.corner[i], axis), pb = Dot(b.corner[i], axis);
      a_lo = std::min(a_lo, pa);
      a_hi = std::max(a_hi, pa);
      b_lo = std::min(b_lo, pb);
      b_hi = std::max(b_hi, pb);
    }
    if (std::min(a_hi, b_hi) - std::max(a_lo, b_lo) <= tolerance_mm)
      return false;
  }
  return true;
}

bool OnTable(const Footprint& f, double width_mm, double depth_mm,
             double margin_mm) {
  for (const Vec& k : f.corner)
    if (k.x < margin_mm || k.y < margin_mm || k.x > width_mm - margin_mm ||
        k.y > depth_mm - margin_mm)
      return false;
  return true;
}

Segment LineOfFire(const Footprint& firer, const Footprint& target) {
  // Every candidate pair of nearest points: each corner against each edge
  // of the other footprint.
  struct Pair {
    Vec a, b;
    double d;
  };
  std::vector<Pair> pairs;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const Vec p = firer.corner[i];
      const Vec q =
          ClosestOnSegment(p, target.corner[j], target.corner[(j + 1) % 4]);
      pairs.push_back({p, q, Len(Sub(p, q))});
      const Vec r = target.corner[i];
      const Vec o =
          ClosestOnSegment(r, firer.corner[j], firer.corner[(j + 1) % 4]);
      pairs.push_back({o, r, Len(Sub(o, r))});
    }
  }
  double best = kSolid;
  for (const Pair& p : pairs) best = std::min(best, p.d);
  // A: for parallel facing edges, the middle of the stretch they share.
  const Pair* lo = nullptr;
  const Pair* hi = nullptr;
  double spread = -1;
  for (const Pair& p : pairs) {
    if (p.d > best + 1e-6) continue;
    for (const Pair& q : pairs) {
      if (q.d > best + 1e-6) continue;
      const double s = Len(Sub(p.a, q.a));
      if (s > spread) {
        spread = s;
        lo = &p;
        hi = &q;
      }
    }
  }
  return {Scale(Add(lo->a, hi->a), 0.5), Scale(Add(lo->b, hi->b), 0.5)};
}

bool InArc(const Footprint& firer, bool firer_mounted,
           const Footprint& target) {
  if (firer_mounted) return true;  // F: cavalry within a 360 degree arc
  // F/R: ahead of the front edge, within 45 degrees outwards of the front
  // corners: s >= 0, u - s <= hw, -u - s <= hw. Clip the target to it.
  std::vector<Vec> poly;  // (u, s)
  for (const Vec& k : target.corner) {
    double u, s;
    Local(firer, k, &u, &s);
    poly.push_back({u, s});
  }
  const double hw = firer.half_width;
  auto clip = [&poly](auto value) {
    std::vector<Vec> out;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      const Vec p = poly[i], q = poly[(i + 1) % poly.size()];
      const double vp = value(p), vq = value(q);
      if (vp >= -kEps) out.push_back(p);
      if ((vp >= -kEps) != (vq >= -kEps)) {
        const double t = vp / (vp - vq);
        out.push_back(Lerp(p, q, t));
      }
    }
    poly = out;
  };
  clip([](Vec p) { return p.y; });
  clip([hw](Vec p) { return hw + p.y - p.x; });
  clip([hw](Vec p) { return hw + p.y + p.x; });
  return !poly.empty();
}

bool OffFlankOrRear(const Footprint& f, const Vec& point) {
  const Vec d = Sub(point, f.centre);
  const double u = Dot(d, f.right);
  const double s = Dot(d, f.forward);  // towards the front
  // In front: within the diagonals' cone ahead, |u| / s <= hw / (depth / 2).
  const bool in_front =
      s > 0 && std::abs(u) * (f.depth / 2) <= s * f.half_width + kEps;
  return !in_front;
}

bool Inside(const Polygon& p, const Vec& point) {
  bool in = false;
  const std::size_t n = p.points.size();
  for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
    const Vec a = p.points[i], b = p.points[j];
    if ((a.y > point.y) != (b.y > point.y) &&
        point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x)
      in = !in;
  }
  return in;
}

bool CentreIn(const Polygon& p, const Vec& centre) {
  if (Inside(p, centre)) return true;
  const std::size_t n = p.points.size();
  for (std::size_t i = 0; i < n; ++i)
    if (PointSegmentDistance(centre, p.points[i], p.points[(i + 1) % n]) <=
        0.01)
      return true;
  return false;
}

bool FootprintMeetsPolygon(const Footprint& f, const Polygon& p) {
  for (const Vec& k : p.points)
    if (InFootprint(f, k)) return true;
  for (int i = 0; i < 4; ++i)
    if (SegmentMeetsPolygon(p, f.corner[i], f.corner[(i + 1) % 4])) return true;
  return false;
}

bool InWoods(const Scene& scene, const Footprint& f) {
  for (const Terrain& t : scene.terrain)
    if (t.kind == TerrainKind::kWoods && CentreIn(t.outline, f.centre))
      return true;
  return false;
}

bool InBuilding(const Scene& scene, const TableUnit& u) {
  // R `daimyo.table.fire.building`: formation a building, or the centre of
  // the footprint in one.
  if (u.formation == Formation::kBuilding) return true;
  const Footprint f = u.Shape();
  for (const Terrain& t : scene.terrain)
    if (t.kind == TerrainKind::kBuilding && CentreIn(t.outline, f.centre))
      return true;
  return false;
}

bool WoodsLimit(const Scene& scene, const Footprint& firer,
                const Footprint& target) {
  // R `daimyo.table.fire.woods`: the target in woods, or the firers in
  // woods with the line of fire more than 3 cm inside their woods.
  if (InWoods(scene, target)) return true;
  const Segment fire = LineOfFire(firer, target);
  for (const Terrain& t : scene.terrain) {
    if (t.kind != TerrainKind::kWoods || !CentreIn(t.outline, firer.centre))
      continue;
    if (LengthInside(t.outline, fire.a, fire.b) > kWoodsDepthMm + kEps)
      return true;
  }
  return false;
}

Band BandAt(double distance_mm, bool woods_limit) {
  // F "Ranges", N: effective 0-8 cm inclusive, long over 8 to 15 cm; woods 3.
  if (woods_limit && distance_mm > kWoodsRangeMm + kEps) return Band::kOut;
  if (distance_mm <= kEffectiveMm + kEps) return Band::kEffective;
  if (distance_mm <= kLongMm + kEps) return Band::kLong;
  return Band::kOut;
}

bool LineOfSight(const Scene& scene, int firer, int target,
                 std::string* blocked_by, Segment* line) {
  return FindClearLine(MakeSightCheck(scene, firer, target), blocked_by, line);
}

namespace {

constexpr double kFragileMm = 1;  // a verdict that turns within 1 mm

// Sight is "narrow" when 1 mm more gap (and woods) would change it.
// A: 4 mm (a tenth of the gap), the order of a finite set of lines'
// spacing on a 4 cm base.
// Or sight is clear but neither plain line is: front centre to centre, the
// line of fire (the nearest points).
bool NarrowSight(const Scene& scene, int firer, int target, bool sight) {
  constexpr double kNarrowMm = 4;
  const double m = sight ? kNarrowMm : -kNarrowMm;
  if (FindClearLine(MakeSightCheck(scene, firer, target, m), nullptr,
                    nullptr) != sight)
    return true;
  if (!sight) return false;
  const SightCheck c = MakeSightCheck(scene, firer, target);
  const Footprint& f = c.shapes[firer];
  const Footprint& t = c.shapes[target];
  const Segment fire = LineOfFire(f, t);
  return Shortfall(c, f.front_centre, t.centre, nullptr) != 0 &&
         Shortfall(c, fire.a, fire.b, nullptr) != 0;
}

// The arc widened or narrowed by 1 mm.
bool ArcNearBoundary(const Footprint& firer, bool mounted,
                     const Footprint& target) {
  if (mounted) return false;
  Footprint wide = firer, narrow = firer;
  wide.half_width += kFragileMm;
  narrow.half_width -= kFragileMm;
  wide.front_centre = Sub(firer.front_centre, Scale(firer.forward, kFragileMm));
  narrow.front_centre =
      Add(firer.front_centre, Scale(firer.forward, kFragileMm));
  return InArc(wide, false, target) != InArc(narrow, false, target);
}

// The woods limit and the cover on other lines of fire than the nearest
// points': centre to centre, and front centre to the target's centre.
bool LineOfFireMatters(const Scene& scene, const Footprint& f,
                       const Footprint& t, bool woods_limit) {
  const bool cover = LinesObstacle(scene, t, LineOfFire(f, t));
  const bool firer_cover = LinesObstacle(scene, f, LineOfFire(f, t));
  std::vector<Segment> lines = {{f.centre, t.centre},
                                {f.front_centre, t.centre},
                                {f.front_centre, t.front_centre}};
  for (const Vec& a : {f.corner[0], f.corner[1]})
    for (const Vec& b : t.corner) lines.push_back({a, b});
  for (const Segment& fire : lines) {
    if (LinesObstacle(scene, t, fire) != cover && !InWoods(scene, t))
      return true;
    if (LinesObstacle(scene, f, fire) != firer_cover) return true;
    if (InWoods(scene, t)) continue;
    for (const Terrain& w : scene.terrain) {
      if (w.kind != TerrainKind::kWoods || !CentreIn(w.outline, f.centre))
        continue;
      if ((LengthInside(w.outline, fire.a, fire.b) > kWoodsDepthMm) !=
          woods_limit)
        return true;
    }
  }
  return false;
}

// An enemy about as near as the target, or whose range, arc or sight turns
// within 1 mm: whether it is a nearer enemy in range, arc and sight is
// close to a boundary.
bool NearerEnemyFragile(const Scene& scene, int firer, std::size_t enemy,
                        double d, double target_d) {
  if (std::abs(d - target_d) < kFragileMm) return true;
  const Footprint f = scene.units[firer].Shape();
  const Footprint g = scene.units[enemy].Shape();
  const bool woods = WoodsLimit(scene, f, g);
  if (BandAt(ToTheMm(d - kFragileMm), woods) !=
      BandAt(ToTheMm(d + kFragileMm), woods))
    return true;
  if (ArcNearBoundary(f, scene.units[firer].mounted, g)) return true;
  const bool sight =
      LineOfSight(scene, firer, static_cast<int>(enemy), nullptr);
  return NarrowSight(scene, firer, static_cast<int>(enemy), sight);
}

}  // namespace

ShotFacts MeasureShot(const Scene& scene, int firer, int target) {
  const TableUnit& fu = scene.units[firer];
  const TableUnit& tu = scene.units[target];
  const Footprint f = fu.Shape(), t = tu.Shape();
  ShotFacts s;
  s.distance_mm = FootprintDistance(f, t);
  s.measured_mm = ToTheMm(s.distance_mm);
  s.woods_limit = WoodsLimit(scene, f, t);
  s.band = BandAt(s.measured_mm, s.woods_limit);
  s.in_arc = InArc(f, fu.mounted, t);
  s.line_of_sight =
      LineOfSight(scene, firer, target, &s.sight_blocked_by, &s.sight_line);
  if (s.band == Band::kOut && s.in_arc && !fu.mounted)
    s.fragile.insert("T1");  // see table_situation.cc
  if (NarrowSight(scene, firer, target, s.line_of_sight))
    s.fragile.insert("T3");
  if (MakeSightCheck(scene, firer, target).crest_opened) s.fragile.insert("T4");
  if (s.line_of_sight && !s.in_arc) {  // a line back through the firers
    const Vec d = Sub(s.sight_line.b, s.sight_line.a);
    const double len = Len(d);
    if (len > 0 && InFootprint(f, Add(s.sight_line.a, Scale(d, 1 / len))))
      s.fragile.insert("T12");
  }
  if (fu.mounted && s.line_of_sight) {
    SightCheck front = MakeSightCheck(scene, firer, target);
    front.all_round = false;
    if (!FindClearLine(front, nullptr, nullptr)) s.fragile.insert("T9");
  }
  if (ArcNearBoundary(f, fu.mounted, t)) s.fragile.insert("T6");
  // R `daimyo.table.fire.nearest`: no enemy nearer than the target within
  // range, arc and sight; units in melee are not counted.
  double nearest = s.distance_mm;
  for (std::size_t i = 0; i < scene.units.size(); ++i) {
    const TableUnit& e = scene.units[i];
    if (static_cast<int>(i) == target || e.clan == fu.clan || e.in_melee)
      continue;
    const Footprint g = e.Shape();
    const double d = FootprintDistance(f, g);
    if (d < s.distance_mm + kFragileMm &&
        NearerEnemyFragile(scene, firer, i, d, s.distance_mm))
      s.fragile.insert("T7");
    // "Nearer" as the tape reads it, to the mm (RULES.md reading 43): 26.4
    // mm is nearer than 26.7 (26 against 27), 26.6 is not.
    if (ToTheMm(d) >= ToTheMm(nearest)) continue;
    if (BandAt(ToTheMm(d), false) != Band::kOut &&
        BandAt(ToTheMm(d), WoodsLimit(scene, f, g)) == Band::kOut &&
        InArc(f, fu.mounted, g))
      s.fragile.insert("T8");
    if (BandAt(ToTheMm(d), WoodsLimit(scene, f, g)) == Band::kOut) continue;
    if (!InArc(f, fu.mounted, g)) continue;
    if (!LineOfSight(scene, firer, static_cast<int>(i), nullptr)) continue;
    nearest = d;
    s.nearer_enemy = e.id;
  }
  const Segment fire = LineOfFire(f, t);
  s.target_in_building = InBuilding(scene, tu);
  s.firer_in_building = InBuilding(scene, fu);
  // R `daimyo.table.fire.cover`: in woods or lining a crossed obstacle; the
  // firers likewise, or in a building.
  // R reading 5 (a building, never also cover): a target in a building is
  // not in cover (found with the engine, reading T2 in README.md).
  s.target_in_cover = !s.target_in_building &&
                      (InWoods(scene, t) || LinesObstacle(scene, t, fire));
  s.firer_in_cover =
      InWoods(scene, f) || s.firer_in_building || LinesObstacle(scene, f, fire);
  s.target_column_or_flanked =
      tu.formation == Formation::kColumn || OffFlankOrRear(t, f.centre);
  if (LineOfFireMatters(scene, f, t, s.woods_limit)) s.fragile.insert("T5");
  for (const Terrain& o : scene.terrain) {
    if (o.kind != TerrainKind::kLinearObstacle) continue;
    for (const Footprint* u : {&f, &t}) {
      const double d = FootprintLineDistance(*u, o.outline.points);
      if (std::abs(d - (kObstacleNearMm + 0.5)) < kFragileMm)
        s.fragile.insert("T10");
    }
  }
  return s;
}

}  // namespace gunbai::reference
