#include "rules/geometry/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gunbai::geometry {

double Dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
double Cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
// sqrt of the sum of squares rather than std::hypot: sqrt is exactly
// rounded (the same on every IEEE machine) and several times faster, and
// table lengths (under a kilometre, in cm) neither overflow nor underflow.
double Length(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }
double Distance(Vec2 a, Vec2 b) { return Length(a - b); }

Vec2 Rotate(Vec2 v, double angle) {
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  return {v.x * c - v.y * s, v.x * s + v.y * c};
}

Vec2 Direction(double angle) { return {std::cos(angle), std::sin(angle)}; }

double AngleBetween(Vec2 a, Vec2 b) {
  if (Length(a) == 0 || Length(b) == 0) return 0;
  return std::atan2(std::abs(Cross(a, b)), Dot(a, b));
}

Vec2 NearestPointOnSegment(Vec2 p, const Segment& s) {
  const Vec2 d = s.b - s.a;
  const double length_squared = Dot(d, d);
  if (length_squared == 0) return s.a;
  const double t = std::clamp(Dot(p - s.a, d) / length_squared, 0.0, 1.0);
  return s.a + d * t;
}

double DistanceToSegment(Vec2 p, const Segment& s) {
  return Distance(p, NearestPointOnSegment(p, s));
}

namespace {

// -1, 0 or 1: the side of line a->b that p is on, 0 within kEpsilon of it.
int Orientation(Vec2 a, Vec2 b, Vec2 p) {
  const Vec2 d = b - a;
  const double length = Length(d);
  // The signed distance of p from the line (or from a, for a point).
  const double off = length == 0 ? Distance(a, p) : Cross(d, p - a) / length;
  if (std::abs(off) <= kEpsilon) return 0;
  return off > 0 ? 1 : -1;
}

}  // namespace

bool SegmentsIntersect(const Segment& s, const Segment& t) {
  // Apart by more than kEpsilon along an axis: neither crossing nor
  // touching (the distance is at least that gap), so no test is needed.
  if (std::max(s.a.x, s.b.x) + kEpsilon < std::min(t.a.x, t.b.x) ||
      std::max(t.a.x, t.b.x) + kEpsilon < std::min(s.a.x, s.b.x) ||
      std::max(s.a.y, s.b.y) + kEpsilon < std::min(t.a.y, t.b.y) ||
      std::max(t.a.y, t.b.y) + kEpsilon < std::min(s.a.y, s.b.y)) {
    return false;
  }
  const int o1 = Orientation(s.a, s.b, t.a);
  const int o2 = Orientation(s.a, s.b, t.b);
  const int o3 = Orientation(t.a, t.b, s.a);
  const int o4 = Orientation(t.a, t.b, s.b);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;  // A proper crossing.
  // Touching or collinear: an end within kEpsilon of the other segment.
  return DistanceToSegment(t.a, s) <= kEpsilon ||
         DistanceToSegment(t.b, s) <= kEpsilon ||
         DistanceToSegment(s.a, t) <= kEpsilon ||
         DistanceToSegment(s.b, t) <= kEpsilon;
}

double SegmentDistance(const Segment& s, const Segment& t) {
  if (SegmentsIntersect(s, t)) return 0;
  // Apart, the nearest points include an end of one of them.
  return std::min({DistanceToSegment(s.a, t), DistanceToSegment(s.b, t),
                   DistanceToSegment(t.a, s), DistanceToSegment(t.b, s)});
}

std::vector<Segment> Edges(const Polygon& polygon) {
  std::vector<Segment> edges;
  const Vertices& v = polygon.vertices;
  if (v.size() < 2) return edges;
  edges.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    edges.push_back({v[i], v[(i + 1) % v.size()]});
  }
  return edges;
}

double Area(const Polygon& polygon) {
  double twice = 0;
  for (const Segment& e : Edges(polygon)) twice += Cross(e.a, e.b);
  return std::abs(twice) / 2;
}

namespace {

// The polygon's edge from vertex i to the next (the last closes it): the
// edges without building a vector of them, for the loops that run per
// measurement.
Segment EdgeAt(const Vertices& v, std::size_t i) {
  return {v[i], v[i + 1 == v.size() ? 0 : i + 1]};
}

// The least distance from `p` to the polygon's boundary.
double DistanceToBoundary(Vec2 p, const Vertices& v) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < v.size(); ++i) {
    best = std::min(best, DistanceToSegment(p, EdgeAt(v, i)));
  }
  return best;
}

}  // namespace

bool Contains(const Polygon& polygon, Vec2 p) {
  const Vertices& v = polygon.vertices;
  if (v.size() < 2) return false;
  // Even-odd rule: count the edges a ray towards +x crosses. Inside, or
  // within kEpsilon of the boundary (tried only when the ray says outside,
  // and not at all for a point beyond the vertices' box by more than that).
  bool inside = false;
  double min_x = v[0].x, max_x = v[0].x, min_y = v[0].y, max_y = v[0].y;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Segment e = EdgeAt(v, i);
    min_x = std::min(min_x, e.a.x);
    max_x = std::max(max_x, e.a.x);
    min_y = std::min(min_y, e.a.y);
    max_y = std::max(max_y, e.a.y);
    const bool straddles = (e.a.y > p.y) != (e.b.y > p.y);
    if (!straddles) continue;
    const double x = e.a.x + (p.y - e.a.y) * (e.b.x - e.a.x) / (e.b.y - e.a.y);
    if (x > p.x) inside = !inside;
  }
  if (inside) return true;
  if (p.x < min_x - kEpsilon || p.x > max_x + kEpsilon ||
      p.y < min_y - kEpsilon || p.y > max_y + kEpsilon) {
    return false;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (DistanceToSegment(p, EdgeAt(v, i)) <= kEpsilon) return true;
  }
  return false;
}

double DistanceToPolygon(Vec2 p, const Polygon& polygon) {
  const Vertices& v = polygon.vertices;
  if (v.empty()) return std::numeric_limits<double>::infinity();
  if (v.size() == 1) return Distance(p, v[0]);
  if (Contains(polygon, p)) return 0;
  return DistanceToBoundary(p, v);
}

namespace {

// True when the shadows of `a` and `b` on the normal of one of `edges`'
// edges lie apart by more than ten times kEpsilon: the regions are then
// farther apart than that (a gap between shadows is at most the distance),
// so neither holds a point of the other and no edges of theirs come within
// kEpsilon. Square roots avoided: the gap along the unnormalized normal n
// is compared, squared, with the margin times |n|.
bool ApartAlongAnEdgeNormal(const Vertices& edges, const Vertices& a,
                            const Vertices& b) {
  constexpr double kMargin = 10 * kEpsilon;
  const std::size_t n = edges.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 e = edges[i + 1 == n ? 0 : i + 1] - edges[i];
    const Vec2 normal{-e.y, e.x};
    double a_min = std::numeric_limits<double>::infinity();
    double a_max = -a_min;
    for (const Vec2 v : a) {
      const double d = Dot(v, normal);
      a_min = std::min(a_min, d);
      a_max = std::max(a_max, d);
    }
    double b_min = std::numeric_limits<double>::infinity();
    double b_max = -b_min;
    for (const Vec2 v : b) {
      const double d = Dot(v, normal);
      b_min = std::min(b_min, d);
      b_max = std::max(b_max, d);
    }
    const double gap = std::max(b_min - a_max, a_min - b_max);
    if (gap > 0 && gap * gap > kMargin * kMargin * Dot(normal, normal)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool PolygonsIntersect(const Polygon& a, const Polygon& b) {
  if (a.vertices.empty() || b.vertices.empty()) return false;
  // Boxes apart by more than kEpsilon: so are the regions (the common case
  // on a table, settled in one pass over the vertices).
  if (!BoxesMeet(BoxOf(a), BoxOf(b))) return false;
  // Small shapes (units' bases) whose boxes meet but that stand apart, as
  // neighbours in a line do at an angle, settled along their edges'
  // normals before the edges are tried pair by pair.
  constexpr std::size_t kSmall = 8;
  if (a.vertices.size() <= kSmall && b.vertices.size() <= kSmall &&
      (ApartAlongAnEdgeNormal(a.vertices, a.vertices, b.vertices) ||
       ApartAlongAnEdgeNormal(b.vertices, a.vertices, b.vertices))) {
    return false;
  }
  // One inside the other, or their boundaries meet.
  if (Contains(a, b.vertices[0]) || Contains(b, a.vertices[0])) return true;
  if (a.vertices.size() < 2 || b.vertices.size() < 2) return false;
  for (std::size_t i = 0; i < a.vertices.size(); ++i) {
    const Segment e = EdgeAt(a.vertices, i);
    for (std::size_t j = 0; j < b.vertices.size(); ++j) {
      if (SegmentsIntersect(e, EdgeAt(b.vertices, j))) return true;
    }
  }
  return false;
}

double PolygonDistance(const Polygon& a, const Polygon& b) {
  if (a.vertices.empty() || b.vertices.empty()) {
    return std::numeric_limits<double>::infinity();
  }
  if (PolygonsIntersect(a, b)) return 0;
  // Apart: the nearest points include a vertex of one and the other's
  // boundary (neither holds the other).
  double best = std::numeric_limits<double>::infinity();
  // Apart, no vertex is inside the other region: the distance to it is the
  // distance to its boundary.
  for (Vec2 p : a.vertices) {
    best = std::min(best, DistanceToBoundary(p, b.vertices));
  }
  for (Vec2 p : b.vertices) {
    best = std::min(best, DistanceToBoundary(p, a.vertices));
  }
  return best;
}

bool SegmentIntersectsPolygon(const Segment& s, const Polygon& polygon) {
  const Vertices& v = polygon.vertices;
  if (v.empty()) return false;
  if (Contains(polygon, s.a) || Contains(polygon, s.b)) return true;
  for (std::size_t i = 0; v.size() >= 2 && i < v.size(); ++i) {
    if (SegmentsIntersect(s, EdgeAt(v, i))) return true;
  }
  return false;
}

namespace {

// Some edge of the closed polyline `v` is within sqrt(d2) of `p` (squared
// distances, so no root is taken).
bool BoundaryWithin(Vec2 p, const Vertices& v, double d2) {
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 a = v[i];
    const Vec2 e = v[i + 1 == n ? 0 : i + 1] - a;
    const Vec2 w = p - a;
    const double length_squared = Dot(e, e);
    const double t = length_squared == 0
                         ? 0
                         : std::clamp(Dot(w, e) / length_squared, 0.0, 1.0);
    const Vec2 off = w - e * t;
    if (Dot(off, off) <= d2) return true;
  }
  return false;
}

}  // namespace

bool PolygonsWithin(const Polygon& a, const Polygon& b, double d) {
  if (a.vertices.empty() || b.vertices.empty()) return false;
  if (BoxGap(BoxOf(a), BoxOf(b)) > d) return false;
  // Apart or not, the distance is at most each vertex-to-boundary distance
  // either way (the cheap tests first: units near each other are found by
  // them); apart, it is the least of them (as PolygonDistance); only when
  // none is within d must the two be tried for overlapping.
  const double d2 = d < 0 ? -1 : d * d;
  for (Vec2 p : a.vertices) {
    if (BoundaryWithin(p, b.vertices, d2)) return true;
  }
  for (Vec2 p : b.vertices) {
    if (BoundaryWithin(p, a.vertices, d2)) return true;
  }
  return PolygonsIntersect(a, b);
}

std::array<Vec2, 2> NearestPoints(const Polygon& a, const Polygon& b) {
  std::array<Vec2, 2> best = {a.vertices.empty() ? Vec2{} : a.vertices[0],
                              b.vertices.empty() ? Vec2{} : b.vertices[0]};
  double best_d = std::numeric_limits<double>::infinity();
  const auto consider = [&](const Polygon& p, const Polygon& q, bool swap) {
    for (Vec2 v : p.vertices) {
      for (std::size_t i = 0; q.vertices.size() >= 2 && i < q.vertices.size();
           ++i) {
        const Vec2 n = NearestPointOnSegment(v, EdgeAt(q.vertices, i));
        const double d = Distance(v, n);
        if (d < best_d) {
          best_d = d;
          best = swap ? std::array<Vec2, 2>{n, v} : std::array<Vec2, 2>{v, n};
        }
      }
    }
  };
  consider(a, b, false);
  consider(b, a, true);
  return best;
}

std::array<Vec2, 2> NearestPointsMiddle(const Polygon& a, const Polygon& b) {
  // Every vertex against every edge of the other, as NearestPoints; of the
  // pairs at the least distance, the two whose ends on `a` lie furthest
  // apart bound the shared stretch.
  absl::InlinedVector<std::array<Vec2, 2>, 32> pairs;
  absl::InlinedVector<double, 32> lengths;
  const auto consider = [&](const Polygon& p, const Polygon& q, bool swap) {
    for (Vec2 v : p.vertices) {
      for (std::size_t i = 0; q.vertices.size() >= 2 && i < q.vertices.size();
           ++i) {
        const Vec2 n = NearestPointOnSegment(v, EdgeAt(q.vertices, i));
        pairs.push_back(swap ? std::array<Vec2, 2>{n, v}
                             : std::array<Vec2, 2>{v, n});
        lengths.push_back(Distance(v, n));
      }
    }
  };
  consider(a, b, false);
  consider(b, a, true);
  if (pairs.empty()) return NearestPoints(a, b);
  const double best = *std::min_element(lengths.begin(), lengths.end());
  std::size_t lo = 0;
  std::size_t hi = 0;
  double spread = -1;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (lengths[i] > best + 1e-6) continue;
    for (std::size_t j = i; j < pairs.size(); ++j) {
      if (lengths[j] > best + 1e-6) continue;
      const double s = Distance(pairs[i][0], pairs[j][0]);
      if (s > spread) {
        spread = s;
        lo = i;
        hi = j;
      }
    }
  }
  return {(pairs[lo][0] + pairs[hi][0]) * 0.5,
          (pairs[lo][1] + pairs[hi][1]) * 0.5};
}

double LengthInside(const Segment& s, const Polygon& polygon) {
  // Cut s at every edge crossing; each piece is wholly inside or outside,
  // which its midpoint tells.
  const Vec2 d = s.b - s.a;
  const double length = Length(d);
  if (length == 0 || polygon.vertices.size() < 3) return 0;
  absl::InlinedVector<double, 8> cuts = {0.0, 1.0};
  for (std::size_t i = 0; i < polygon.vertices.size(); ++i) {
    const Segment e = EdgeAt(polygon.vertices, i);
    const Vec2 f = e.b - e.a;
    const double denominator = Cross(d, f);
    if (denominator == 0) continue;  // Parallel: no single crossing.
    const double t = Cross(e.a - s.a, f) / denominator;
    const double u = Cross(e.a - s.a, d) / denominator;
    if (t > 0 && t < 1 && u >= 0 && u <= 1) cuts.push_back(t);
  }
  std::sort(cuts.begin(), cuts.end());
  double inside = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double mid = (cuts[i] + cuts[i + 1]) / 2;
    if (Contains(polygon, s.a + d * mid)) {
      inside += (cuts[i + 1] - cuts[i]) * length;
    }
  }
  return inside;
}

Box BoxOf(const Polygon& polygon) {
  if (polygon.vertices.empty()) return Box{};
  Box b{polygon.vertices[0].x, polygon.vertices[0].y, polygon.vertices[0].x,
        polygon.vertices[0].y};
  for (const Vec2 v : polygon.vertices) {
    b.min_x = std::min(b.min_x, v.x);
    b.min_y = std::min(b.min_y, v.y);
    b.max_x = std::max(b.max_x, v.x);
    b.max_y = std::max(b.max_y, v.y);
  }
  return b;
}

Box BoxOf(const Segment& s) {
  return {std::min(s.a.x, s.b.x), std::min(s.a.y, s.b.y),
          std::max(s.a.x, s.b.x), std::max(s.a.y, s.b.y)};
}

Box Union(const Box& a, const Box& b) {
  return {std::min(a.min_x, b.min_x), std::min(a.min_y, b.min_y),
          std::max(a.max_x, b.max_x), std::max(a.max_y, b.max_y)};
}

Box Inflated(const Box& b, double by) {
  return {b.min_x - by, b.min_y - by, b.max_x + by, b.max_y + by};
}

absl::InlinedVector<Line, 4> CommonTangents(Vec2 c1, double r1, Vec2 c2,
                                            double r2) {
  // A line {x : n.x = d} with |n| = 1 lies at signed distance n.c - d from
  // c; tangent to both when that is +-r1 at c1 and +-r2 at c2, so n.v = k
  // for v = c2 - c1 and k the difference of the signed radii.
  absl::InlinedVector<Line, 4> lines;
  const Vec2 v = c2 - c1;
  const double length = Length(v);
  if (length == 0) return lines;
  const Vec2 u = v * (1 / length);
  const Vec2 across{-u.y, u.x};
  for (const double s2 : {r2, -r2}) {
    const double k = (s2 - r1) / length;
    if (std::abs(k) > 1) continue;
    const double h = std::sqrt(std::max(0.0, 1 - k * k));
    for (const double sign : {1.0, -1.0}) {
      const Vec2 n = u * k + across * (sign * h);
      const double d = Dot(n, c1) - r1;
      lines.push_back(Line{n * d, Vec2{-n.y, n.x}});
      if (h == 0) break;  // One tangent where the two coincide.
    }
    if (r2 == 0) break;  // +-0 give the same lines.
  }
  return lines;
}

Polygon ConvexHull(Vertices points) {
  std::sort(points.begin(), points.end(), [](Vec2 a, Vec2 b) {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
  });
  points.erase(
      std::unique(points.begin(), points.end(),
                  [](Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }),
      points.end());
  Polygon hull;
  const std::size_t n = points.size();
  if (n < 3) {
    hull.vertices = std::move(points);
    return hull;
  }
  // The right chain bottom to top, then the left chain top to bottom, a
  // point kept only while its chain turns left.
  Vertices& h = hull.vertices;
  h.resize(2 * n);
  std::size_t k = 0;
  const auto add = [&](Vec2 p, std::size_t floor) {
    while (k >= floor && Cross(h[k - 1] - h[k - 2], p - h[k - 2]) <= 0) --k;
    h[k++] = p;
  };
  for (std::size_t i = 0; i < n; ++i) add(points[i], 2);
  const std::size_t right = k + 1;
  for (std::size_t i = n - 1; i-- > 0;) add(points[i], right);
  h.resize(k - 1);  // The last is the first again.
  return hull;
}

std::optional<std::array<double, 2>> ClipToConvex(const Line& line,
                                                  const Polygon& convex,
                                                  double tolerance) {
  // Cyrus-Beck against each edge's outward side, the polygon taken either
  // way round.
  const Vertices& v = convex.vertices;
  const std::size_t n = v.size();
  if (n < 3) return std::nullopt;
  double area = 0;
  for (std::size_t i = 0; i < n; ++i) area += Cross(v[i], v[(i + 1) % n]);
  const double turn = area >= 0 ? 1 : -1;
  double enter = -std::numeric_limits<double>::infinity();
  double leave = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 a = v[i];
    const Vec2 e = v[(i + 1) % n] - a;
    const double len = Length(e);
    if (len == 0) continue;
    // Outward normal (for a counter-clockwise polygon, e turned clockwise).
    const Vec2 out = Vec2{e.y, -e.x} * (turn / len);
    // Inside this edge: out.(p - a) <= tolerance.
    const double at = Dot(out, line.point - a) - tolerance;
    const double rate = Dot(out, line.direction);
    if (rate == 0) {
      if (at > 0) return std::nullopt;
      continue;
    }
    const double t = -at / rate;
    if (rate < 0) {
      enter = std::max(enter, t);
    } else {
      leave = std::min(leave, t);
    }
  }
  if (enter > leave) return std::nullopt;
  return std::array<double, 2>{enter, leave};
}

std::vector<Segment> Segments(const Polyline& line) {
  std::vector<Segment> segments;
  for (std::size_t i = 0; i + 1 < line.points.size(); ++i) {
    segments.push_back({line.points[i], line.points[i + 1]});
  }
  return segments;
}

bool SegmentCrossesPolyline(const Segment& s, const Polyline& line) {
  for (std::size_t i = 0; i + 1 < line.points.size(); ++i) {
    if (SegmentsIntersect(s, {line.points[i], line.points[i + 1]})) return true;
  }
  return false;
}

double DistanceToPolyline(Vec2 p, const Polyline& line) {
  if (line.points.size() == 1) return Distance(p, line.points[0]);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i + 1 < line.points.size(); ++i) {
    best = std::min(best,
                    DistanceToSegment(p, {line.points[i], line.points[i + 1]}));
  }
  return best;
}

Vec2 Forward(const OrientedRect& r) {
  if (r.forward_of != r.facing) {
    r.forward_memo = Direction(r.facing);
    r.forward_of = r.facing;
  }
  return r.forward_memo;
}

std::array<Vec2, 4> Corners(const OrientedRect& r) {
  const Vec2 forward = Forward(r);
  // A quarter turn left, exactly (no second cosine and sine).
  const Vec2 left{-forward.y, forward.x};
  const Vec2 half_front = left * (r.frontage / 2);
  const Vec2 back = forward * r.depth;
  const Vec2 front_left = r.front_centre + half_front;
  const Vec2 front_right = r.front_centre - half_front;
  return {front_left, front_right, front_right - back, front_left - back};
}

Polygon ToPolygon(const OrientedRect& r) {
  const std::array<Vec2, 4> c = Corners(r);
  return Polygon{{c.begin(), c.end()}};
}

Vec2 Centre(const OrientedRect& r) {
  return r.front_centre - Forward(r) * (r.depth / 2);
}

Segment FrontEdge(const OrientedRect& r) {
  const std::array<Vec2, 4> c = Corners(r);
  return {c[0], c[1]};
}
Segment RearEdge(const OrientedRect& r) {
  const std::array<Vec2, 4> c = Corners(r);
  return {c[3], c[2]};
}
Segment LeftEdge(const OrientedRect& r) {
  const std::array<Vec2, 4> c = Corners(r);
  return {c[0], c[3]};
}
Segment RightEdge(const OrientedRect& r) {
  const std::array<Vec2, 4> c = Corners(r);
  return {c[1], c[2]};
}

Side SideOf(const OrientedRect& r, Vec2 p) {
  // In the rectangle's own frame, from its centre: ahead along the facing,
  // left across it.
  const Vec2 forward = Forward(r);
  const Vec2 offset = p - (r.front_centre - forward * (r.depth / 2));
  const double along = Dot(offset, forward);
  const double across = Cross(forward, offset);
  // Inside, or within kEpsilon of the boundary (as Contains has it for the
  // rectangle's polygon): how far outside along each axis, then together.
  const double out_along = std::max(0.0, std::abs(along) - r.depth / 2);
  const double out_across = std::max(0.0, std::abs(across) - r.frontage / 2);
  if (out_along * out_along + out_across * out_across <= kEpsilon * kEpsilon) {
    return Side::kInside;
  }
  // Scaled so that the diagonals are the lines |ahead| == |left|.
  const double ahead = along / std::max(r.depth / 2, kEpsilon);
  const double left = across / std::max(r.frontage / 2, kEpsilon);
  if (std::abs(ahead) >= std::abs(left)) {
    return ahead >= 0 ? Side::kFront : Side::kRear;
  }
  return left > 0 ? Side::kLeft : Side::kRight;
}

Polygon FrontArc(const OrientedRect& r, double half_angle, double reach) {
  const std::array<Vec2, 4> c = Corners(r);
  const Vec2 forward = Forward(r);
  // Each side line from a front corner, turned outwards: the left one
  // counter-clockwise, the right one clockwise, long enough to pass reach.
  const double side_length = reach / std::max(std::cos(half_angle), 1e-6);
  const Vec2 far_left = c[0] + Rotate(forward, half_angle) * side_length;
  const Vec2 far_right = c[1] + Rotate(forward, -half_angle) * side_length;
  return Polygon{{c[0], c[1], far_right, far_left}};
}

bool InFrontArc(const OrientedRect& r, double half_angle, double reach,
                const Polygon& target) {
  return PolygonsIntersect(FrontArc(r, half_angle, reach), target);
}

OrientedRect MovedForward(const OrientedRect& r, double distance) {
  OrientedRect moved = r;
  moved.front_centre = r.front_centre + Forward(r) * distance;
  return moved;
}

OrientedRect Facing(const OrientedRect& r, double facing) {
  OrientedRect turned = r;
  turned.facing = facing;
  return turned;
}

Polygon Apply(const RigidMotion& m, const Polygon& polygon) {
  Polygon moved;
  moved.vertices.reserve(polygon.vertices.size());
  for (Vec2 p : polygon.vertices) moved.vertices.push_back(m.Apply(p));
  return moved;
}

Segment Apply(const RigidMotion& m, const Segment& s) {
  return {m.Apply(s.a), m.Apply(s.b)};
}

OrientedRect Apply(const RigidMotion& m, const OrientedRect& r) {
  OrientedRect moved = r;
  moved.front_centre = m.Apply(r.front_centre);
  moved.facing = r.facing + m.angle;
  return moved;
}

}  // namespace gunbai::geometry
