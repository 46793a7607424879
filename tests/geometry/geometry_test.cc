// rules/geometry: each expectation worked by hand (the figures in the
// comments), then properties over random shapes from a fixed seed:
// symmetry, the 1-Lipschitz bound of a distance to a set (the triangle
// inequality's form for sets), invariance under rotation and translation,
// and the distance between two polygons against a brute-force minimum over
// densely sampled boundary points (a reference that shares no code with the
// function it checks).
#include "rules/geometry/geometry.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace gunbai::geometry {
namespace {

constexpr double kTight = 1e-9;

Polygon Square(double x0, double y0, double x1, double y1) {
  return Polygon{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}};
}

// A unit 4 cm wide and 2 deep, its front edge on y = 0 from x = -2 to 2,
// facing +y (pi / 2): its rear edge on y = -2.
OrientedRect Base() { return OrientedRect{{0, 0}, kPi / 2, 4, 2}; }

TEST(Points, DistanceAndRotation) {
  EXPECT_DOUBLE_EQ(Distance({0, 0}, {3, 4}), 5);  // 3-4-5.
  const Vec2 turned = Rotate({1, 0}, kPi / 2);
  EXPECT_NEAR(turned.x, 0, kTight);
  EXPECT_NEAR(turned.y, 1, kTight);
  EXPECT_NEAR(AngleBetween({1, 0}, {1, 1}), kPi / 4, kTight);
  EXPECT_NEAR(AngleBetween({1, 0}, {-1, 0}), kPi, kTight);
}

TEST(Segments, DistanceToASegment) {
  const Segment s{{-10, 0}, {10, 0}};
  EXPECT_DOUBLE_EQ(DistanceToSegment({0, 5}, s), 5);   // Straight above.
  EXPECT_DOUBLE_EQ(DistanceToSegment({13, 4}, s), 5);  // Past the end: 3, 4.
  EXPECT_DOUBLE_EQ(DistanceToSegment({-10, 0}, s), 0);
  const Vec2 nearest = NearestPointOnSegment({4, -7}, s);
  EXPECT_DOUBLE_EQ(nearest.x, 4);
  EXPECT_DOUBLE_EQ(nearest.y, 0);
}

TEST(Segments, IntersectionCases) {
  const Segment s{{0, 0}, {10, 0}};
  EXPECT_TRUE(SegmentsIntersect(s, {{5, -5}, {5, 5}}));    // A cross.
  EXPECT_FALSE(SegmentsIntersect(s, {{0, 1}, {10, 1}}));   // Parallel, 1 apart.
  EXPECT_TRUE(SegmentsIntersect(s, {{10, 0}, {12, 3}}));   // Ends touch.
  EXPECT_TRUE(SegmentsIntersect(s, {{5, 0}, {5, 3}}));     // A T.
  EXPECT_TRUE(SegmentsIntersect(s, {{8, 0}, {15, 0}}));    // Overlap.
  EXPECT_FALSE(SegmentsIntersect(s, {{11, 0}, {15, 0}}));  // In line, apart.
  EXPECT_FALSE(SegmentsIntersect(s, {{5, 0.01}, {5, 3}}));   // 0.1 mm short.
  EXPECT_TRUE(SegmentsIntersect(s, {{5, 0.0005}, {5, 3}}));  // Within 0.01 mm.
}

TEST(Segments, DistanceBetweenSegments) {
  // Parallel 3 apart; skew, nearest (1, 0) to (4, 4): 3, 4, 5.
  EXPECT_DOUBLE_EQ(SegmentDistance({{0, 0}, {10, 0}}, {{0, 3}, {10, 3}}), 3);
  EXPECT_DOUBLE_EQ(SegmentDistance({{0, 0}, {1, 0}}, {{4, 4}, {4, 10}}), 5);
  EXPECT_DOUBLE_EQ(SegmentDistance({{0, 0}, {10, 0}}, {{5, -1}, {5, 1}}), 0);
}

TEST(Polygons, AreaAndContains) {
  EXPECT_DOUBLE_EQ(Area(Square(0, 0, 10, 10)), 100);
  EXPECT_DOUBLE_EQ(Area(Polygon{{{0, 0}, {4, 0}, {0, 3}}}), 6);  // 4 x 3 / 2.
  // An L: the 10 x 10 square less its top-right 5 x 5: 75.
  const Polygon l{{{0, 0}, {10, 0}, {10, 5}, {5, 5}, {5, 10}, {0, 10}}};
  EXPECT_DOUBLE_EQ(Area(l), 75);
  EXPECT_TRUE(Contains(l, {2, 8}));
  EXPECT_TRUE(Contains(l, {8, 2}));
  EXPECT_FALSE(Contains(l, {8, 8}));  // In the notch.
  EXPECT_TRUE(Contains(l, {10, 2}));  // On the boundary.
  EXPECT_FALSE(Contains(l, {-1, 5}));
  EXPECT_DOUBLE_EQ(DistanceToPolygon({8, 8}, l), 3);  // To x = 5 or y = 5.
  EXPECT_DOUBLE_EQ(DistanceToPolygon({2, 2}, l), 0);
}

TEST(Polygons, DistanceBetweenBases) {
  // A: x in [-2, 2], y in [-2, 0]. B: x in [5, 9], y in [4, 6]. Nearest
  // corners (2, 0) and (5, 4): 3, 4, 5.
  const Polygon a = ToPolygon(Base());
  EXPECT_NEAR(PolygonDistance(a, Square(5, 4, 9, 6)), 5, kTight);
  // Face to face, front edges 10 apart: B faces -y, its front on y = 10.
  const OrientedRect facing_a{{0, 10}, -kPi / 2, 4, 2};
  EXPECT_NEAR(PolygonDistance(a, ToPolygon(facing_a)), 10, kTight);
  // Edge to edge: touching is distance 0.
  EXPECT_EQ(PolygonDistance(a, Square(2, -2, 6, 0)), 0);
  // One inside the other.
  EXPECT_TRUE(PolygonsIntersect(Square(-10, -10, 10, 10), a));
}

TEST(Polygons, NearestPoints) {
  // [0,2] x [0,2] and [5,7] x [1,3]: the gap is 3 across x, between x = 2
  // and x = 5 at any y of 1 to 2; corners are farther (from (2, 0) to (5,
  // 1) is sqrt(10)).
  const Polygon a{{{0, 0}, {2, 0}, {2, 2}, {0, 2}}};
  const Polygon b{{{5, 1}, {7, 1}, {7, 3}, {5, 3}}};
  const std::array<Vec2, 2> ends = NearestPoints(a, b);
  EXPECT_DOUBLE_EQ(Distance(ends[0], ends[1]), 3);
  EXPECT_DOUBLE_EQ(ends[0].x, 2);
  EXPECT_DOUBLE_EQ(ends[1].x, 5);
  EXPECT_GE(ends[0].y, 1);
  EXPECT_LE(ends[0].y, 2);
  // The first point is on a, the second on b, whichever order they come.
  const std::array<Vec2, 2> back = NearestPoints(b, a);
  EXPECT_DOUBLE_EQ(back[0].x, 5);
  EXPECT_DOUBLE_EQ(back[1].x, 2);
}

TEST(Polygons, LengthInside) {
  // Through the 4 x 4 square centred on 0: 4 of its 20 cm inside.
  EXPECT_NEAR(LengthInside({{-10, 0}, {10, 0}}, Square(-2, -2, 2, 2)), 4,
              kTight);
  // Through a U (x in [0, 9], y in [0, 6], less x in [3, 6] above y = 2)
  // along y = 4: inside for x in [0, 3] and [6, 9]: 6 of 12.
  const Polygon u{
      {{0, 0}, {9, 0}, {9, 6}, {6, 6}, {6, 2}, {3, 2}, {3, 6}, {0, 6}}};
  EXPECT_NEAR(LengthInside({{-1, 4}, {11, 4}}, u), 6, kTight);
  // From inside to outside: (1, 1) to (1, 10) leaves the U at y = 6: 5.
  EXPECT_NEAR(LengthInside({{1, 1}, {1, 10}}, u), 5, kTight);
  EXPECT_TRUE(
      SegmentIntersectsPolygon({{4, 1}, {5, 1}}, u));  // Below the notch.
  EXPECT_FALSE(SegmentIntersectsPolygon({{4, 3}, {5, 5}}, u));  // In the notch.
}

TEST(Polylines, CrossingAndDistance) {
  const Polyline hedge{{{0, 5}, {10, 5}, {20, 15}}};
  EXPECT_TRUE(SegmentCrossesPolyline({{5, 0}, {5, 10}}, hedge));
  EXPECT_TRUE(SegmentCrossesPolyline({{15, 0}, {15, 20}}, hedge));
  EXPECT_FALSE(SegmentCrossesPolyline({{-5, 0}, {-5, 20}}, hedge));
  EXPECT_DOUBLE_EQ(DistanceToPolyline({5, 8}, hedge), 3);
}

TEST(OrientedRects, CornersEdgesAndMoves) {
  const std::array<Vec2, 4> c = Corners(Base());
  const Vec2 expected[4] = {{-2, 0}, {2, 0}, {2, -2}, {-2, -2}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(c[i].x, expected[i].x, kTight) << i;
    EXPECT_NEAR(c[i].y, expected[i].y, kTight) << i;
  }
  EXPECT_NEAR(Centre(Base()).y, -1, kTight);
  const OrientedRect moved = MovedForward(Base(), 12);
  EXPECT_NEAR(moved.front_centre.y, 12, kTight);
  const Segment rear = RearEdge(MovedForward(Base(), -3));  // Back 3: y = -5.
  EXPECT_NEAR(rear.a.y, -5, kTight);
  EXPECT_NEAR(rear.b.y, -5, kTight);
}

TEST(OrientedRects, SideOfReadsTheDiagonals) {
  // Centre (0, -1); the diagonals through (+-2, 0) and (+-2, -2).
  EXPECT_EQ(SideOf(Base(), {0, 5}), Side::kFront);
  EXPECT_EQ(SideOf(Base(), {0, -7}), Side::kRear);
  EXPECT_EQ(SideOf(Base(), {-6, -1}), Side::kLeft);  // Facing +y, left is -x.
  EXPECT_EQ(SideOf(Base(), {6, -1}), Side::kRight);
  EXPECT_EQ(SideOf(Base(), {0, -1}), Side::kInside);
  // (5, 0): 1 ahead of the centre of a half-depth 1 (scaled 1), 5 to the
  // right of a half-frontage 2 (scaled 2.5): off the right side.
  EXPECT_EQ(SideOf(Base(), {5, 0}), Side::kRight);
  // (1.5, 3): 4 ahead (4), 1.5 right (0.75): the front.
  EXPECT_EQ(SideOf(Base(), {1.5, 3}), Side::kFront);
  // On the boundary, and within kEpsilon (1e-3) of it, is inside: the front
  // edge's middle, and 0.0006 beyond the front right corner (2, 0) both
  // ways (0.00085 away). 0.0008 both ways is 0.00113 away: outside, and off
  // the front (1.0008 ahead of the centre, scaled 1.0008; 2.0008 to the
  // right, scaled 1.0004).
  EXPECT_EQ(SideOf(Base(), {0, 0}), Side::kInside);
  EXPECT_EQ(SideOf(Base(), {2.0006, 0.0006}), Side::kInside);
  EXPECT_EQ(SideOf(Base(), {2.0008, 0.0008}), Side::kFront);
}

TEST(OrientedRects, SideOfIsInsideExactlyWhereThePolygonContainsThePoint) {
  // SideOf reads inside in the rectangle's own frame; Contains reads its
  // polygon by the even-odd rule and the distance to each edge. Points
  // drawn near the boundary (within 2 kEpsilon of a corner or an edge).
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> unit(0, 1);
  int inside = 0;
  for (int i = 0; i < 20000; ++i) {
    const OrientedRect r{{unit(rng) * 100, unit(rng) * 100},
                         unit(rng) * 2 * kPi,
                         1 + unit(rng) * 20,
                         1 + unit(rng) * 10};
    const std::array<Vec2, 4> c = Corners(r);
    const Vec2 a = c[i % 4];
    const Vec2 b = c[(i + 1) % 4];
    const double t = i % 3 == 0 ? 0 : unit(rng);
    const Vec2 on = a + (b - a) * t;
    const Vec2 p{on.x + (unit(rng) - 0.5) * 4e-3,
                 on.y + (unit(rng) - 0.5) * 4e-3};
    const bool contains = Contains(ToPolygon(r), p);
    inside += contains;
    EXPECT_EQ(SideOf(r, p) == Side::kInside, contains) << i;
  }
  // Both answers were drawn often.
  EXPECT_GT(inside, 5000);
  EXPECT_LT(inside, 15000);
}

TEST(OrientedRects, ForwardFollowsAChangedFacing) {
  // The memo of Forward goes with copies and is never stale: (0, 1) facing
  // a quarter turn, (-1, 0) after another, in the copy and the original.
  OrientedRect r = Base();
  const Vec2 first = Forward(r);
  EXPECT_NEAR(first.x, 0, kTight);
  EXPECT_NEAR(first.y, 1, kTight);
  OrientedRect turned = r;
  turned.facing = kPi;
  EXPECT_NEAR(Forward(turned).x, -1, kTight);
  EXPECT_NEAR(Forward(turned).y, 0, kTight);
  EXPECT_NEAR(Forward(r).y, 1, kTight);
  r.facing = kPi;
  EXPECT_NEAR(Forward(r).x, -1, kTight);
  EXPECT_NEAR(Centre(r).x, 1, kTight);  // front (0, 0), depth 2, facing -x
}

TEST(OrientedRects, FrontArc) {
  const double k45 = kPi / 4;
  auto dot = [](double x, double y) {
    return Square(x - 0.05, y - 0.05, x + 0.05, y + 0.05);
  };
  // Ahead, 20 cm: in. The left line from (-2, 0) at 45 degrees outwards
  // passes y = 10 at x = -12: (-11, 10) is in, (-13, 10) out.
  EXPECT_TRUE(InFrontArc(Base(), k45, 100, dot(0, 20)));
  EXPECT_TRUE(InFrontArc(Base(), k45, 100, dot(-11, 10)));
  EXPECT_FALSE(InFrontArc(Base(), k45, 100, dot(-13, 10)));
  EXPECT_TRUE(InFrontArc(Base(), k45, 100, dot(11, 10)));
  EXPECT_FALSE(InFrontArc(Base(), k45, 100, dot(13, 10)));
  // Behind the front edge: out; beyond the reach: out.
  EXPECT_FALSE(InFrontArc(Base(), k45, 100, dot(0, -1)));
  EXPECT_FALSE(InFrontArc(Base(), k45, 100, dot(0, 101)));
  // Straight ahead only: the frontage's width, x in [-2, 2].
  EXPECT_TRUE(InFrontArc(Base(), 0, 100, dot(-1.9, 10)));
  EXPECT_FALSE(InFrontArc(Base(), 0, 100, dot(-2.2, 10)));
  // A unit partly in the arc is in it: a base from x = -20 to -11.5.
  EXPECT_TRUE(InFrontArc(Base(), k45, 100, Square(-20, 9, -11.5, 11)));
}

// Random shapes from a fixed seed.
class Shapes {
 public:
  explicit Shapes(unsigned seed) : random_(seed) {}

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(random_);
  }
  Vec2 Point() { return {Uniform(-100, 100), Uniform(-100, 100)}; }
  OrientedRect Rect() {
    return {Point(), Uniform(-kPi, kPi), Uniform(1, 20), Uniform(1, 8)};
  }
  RigidMotion Motion() { return {Uniform(-kPi, kPi), Point()}; }

 private:
  std::mt19937 random_;
};

// The boundary of `p` sampled every `step` cm along each edge.
std::vector<Vec2> Sample(const Polygon& p, double step) {
  std::vector<Vec2> points;
  for (const Segment& e : Edges(p)) {
    const int n = std::max(1, static_cast<int>(Distance(e.a, e.b) / step));
    for (int i = 0; i <= n; ++i)
      points.push_back(e.a + (e.b - e.a) * (1.0 * i / n));
  }
  return points;
}

TEST(GeometryProperties, PolygonDistanceIsSymmetricAndMatchesSampling) {
  Shapes shapes(20261202);
  for (int i = 0; i < 120; ++i) {
    const Polygon a = ToPolygon(shapes.Rect());
    const Polygon b = ToPolygon(shapes.Rect());
    const double d = PolygonDistance(a, b);
    EXPECT_NEAR(d, PolygonDistance(b, a), 1e-9) << i;
    if (d == 0) continue;
    // Sampled every 0.1 cm at most, the brute-force minimum is at most
    // 0.1 above the true one (half a step's slack on each shape).
    double brute = 1e300;
    const std::vector<Vec2> sa = Sample(a, 0.1);
    const std::vector<Vec2> sb = Sample(b, 0.1);
    for (Vec2 p : sa) {
      for (Vec2 q : sb) brute = std::min(brute, Distance(p, q));
    }
    EXPECT_LE(d, brute + 1e-9) << i;
    EXPECT_GE(d, brute - 0.1) << i;
  }
}

// PolygonsIntersect's plain definition, written out here: one region holds
// a vertex of the other, or an edge of each meet (within kEpsilon).
bool IntersectByEdges(const Polygon& a, const Polygon& b) {
  if (Contains(a, b.vertices[0]) || Contains(b, a.vertices[0])) return true;
  for (const Segment& e : Edges(a)) {
    for (const Segment& f : Edges(b)) {
      if (SegmentsIntersect(e, f)) return true;
    }
  }
  return false;
}

// The shortcut for small shapes (apart along an edge's normal) gives the
// plain definition's answer for bases a hair apart, a hair over, touching
// and turned: each pair placed at a gap from -0.05 to 0.05 cm (the
// tolerance is 0.001) along a random direction from the first.
TEST(GeometryProperties, PolygonsIntersectShortcutKeepsTheAnswers) {
  Shapes shapes(20261207);
  int apart = 0;
  int meeting = 0;
  for (int i = 0; i < 20000; ++i) {
    const OrientedRect ra = shapes.Rect();
    OrientedRect rb = shapes.Rect();
    const Polygon a = ToPolygon(ra);
    // b with its centre on a's (overlapping), then slid out along a random
    // direction: the distance grows with the slide (it is convex in the
    // slide and 0 at its start), so a bisection finds where it first
    // exceeds max(gap, 0); a negative gap then goes back into a by -gap.
    rb.front_centre = rb.front_centre + (Centre(ra) - Centre(rb));
    const Polygon b0 = ToPolygon(rb);
    const double angle = shapes.Uniform(-kPi, kPi);
    const Vec2 dir{std::cos(angle), std::sin(angle)};
    const double gap = shapes.Uniform(-0.05, 0.05);
    const auto at = [&](double t) {
      Polygon moved = b0;
      for (Vec2& v : moved.vertices) v = v + dir * t;
      return moved;
    };
    double lo = 0;
    double hi = 100;
    for (int k = 0; k < 60; ++k) {
      const double mid = (lo + hi) / 2;
      if (PolygonDistance(a, at(mid)) > std::max(gap, 0.0)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    const Polygon b = at(gap < 0 ? lo + gap : hi);
    const bool plain = IntersectByEdges(a, b);
    EXPECT_EQ(PolygonsIntersect(a, b), plain) << i << " gap " << gap;
    (plain ? meeting : apart) += 1;
  }
  // Both answers are well represented.
  EXPECT_GT(apart, 5000);
  EXPECT_GT(meeting, 5000);
}

TEST(GeometryProperties, DistancesDoNotDependOnWhereTheTableIs) {
  Shapes shapes(7);
  for (int i = 0; i < 500; ++i) {
    const OrientedRect r = shapes.Rect();
    const Polygon a = ToPolygon(r);
    const Polygon b = ToPolygon(shapes.Rect());
    const Vec2 p = shapes.Point();
    const RigidMotion m = shapes.Motion();
    EXPECT_NEAR(PolygonDistance(a, b),
                PolygonDistance(Apply(m, a), Apply(m, b)), 1e-6)
        << i;
    EXPECT_NEAR(DistanceToPolygon(p, a),
                DistanceToPolygon(m.Apply(p), Apply(m, a)), 1e-6)
        << i;
    // The rectangle moved as a whole has the same corners as its polygon
    // moved (Apply of a rect turns its facing too).
    const Polygon moved_rect = ToPolygon(Apply(m, r));
    const Polygon moved_polygon = Apply(m, a);
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(moved_rect.vertices[k].x, moved_polygon.vertices[k].x, 1e-6);
      EXPECT_NEAR(moved_rect.vertices[k].y, moved_polygon.vertices[k].y, 1e-6);
    }
    EXPECT_EQ(SideOf(r, p), SideOf(Apply(m, r), m.Apply(p))) << i;
    EXPECT_EQ(InFrontArc(r, kPi / 4, 60, b),
              InFrontArc(Apply(m, r), kPi / 4, 60, Apply(m, b)))
        << i;
  }
}

TEST(GeometryProperties, DistanceToASetIsOneLipschitz) {
  // |d(p, S) - d(q, S)| <= |p - q|: the triangle inequality for sets.
  Shapes shapes(11);
  for (int i = 0; i < 1000; ++i) {
    const Polygon s = ToPolygon(shapes.Rect());
    const Segment seg{shapes.Point(), shapes.Point()};
    const Vec2 p = shapes.Point();
    const Vec2 q = shapes.Point();
    EXPECT_LE(std::abs(DistanceToPolygon(p, s) - DistanceToPolygon(q, s)),
              Distance(p, q) + 1e-9)
        << i;
    EXPECT_LE(std::abs(DistanceToSegment(p, seg) - DistanceToSegment(q, seg)),
              Distance(p, q) + 1e-9)
        << i;
    const Vec2 r = shapes.Point();
    EXPECT_LE(Distance(p, r), Distance(p, q) + Distance(q, r) + 1e-9);
  }
}

// Two circles of radius 1 about (0, 0) and (4, 0): the outer tangents are
// y = 1 and y = -1; the inner ones cross at the midpoint (2, 0) at the
// angle whose sine is 1 / 2 (radius over the distance to the midpoint), so
// 30 degrees either way. Each line lies at exactly 1 from both centres.
TEST(Lines, CommonTangentsOfTwoCircles) {
  const auto lines = CommonTangents({0, 0}, 1, {4, 0}, 1);
  ASSERT_EQ(lines.size(), 4u);
  int outer = 0;
  int inner = 0;
  for (const Line& l : lines) {
    const auto off = [&l](Vec2 c) {
      return std::abs(Cross(l.direction, c - l.point));
    };
    EXPECT_NEAR(off({0, 0}), 1, kTight);
    EXPECT_NEAR(off({4, 0}), 1, kTight);
    EXPECT_NEAR(Length(l.direction), 1, kTight);
    if (std::abs(l.direction.y) < kTight) {
      ++outer;
    } else {
      ++inner;
      EXPECT_NEAR(std::abs(l.direction.y), 0.5, kTight);  // sin 30.
      EXPECT_NEAR(off({2, 0}), 0, kTight);  // Through the midpoint.
    }
  }
  EXPECT_EQ(outer, 2);
  EXPECT_EQ(inner, 2);
  // One circle inside the other: no common tangent.
  EXPECT_TRUE(CommonTangents({0, 0}, 3, {1, 0}, 1).empty());
  // A point (radius 0) and a circle of radius 3 at distance 5: the two
  // tangents from the point touch at 4 from it (3-4-5), at 3 from the
  // centre.
  const auto from_point = CommonTangents({5, 0}, 0, {0, 0}, 3);
  ASSERT_GE(from_point.size(), 2u);
  for (const Line& l : from_point) {
    EXPECT_NEAR(std::abs(Cross(l.direction, Vec2{0, 0} - l.point)), 3, kTight);
    EXPECT_NEAR(std::abs(Cross(l.direction, Vec2{5, 0} - l.point)), 0, kTight);
  }
}

// The line y = 1 through the square 0..4 x 0..4 (given either way round)
// runs inside from x = 0 to x = 4; from (-1, 1) along +x that is t in
// [1, 5]. Grown by 0.5 it is [0.5, 5.5]. The line y = 5 misses it, and
// touches it grown by 1.
TEST(Lines, ClipToConvex) {
  const Polygon ccw = Square(0, 0, 4, 4);
  Polygon cw = ccw;
  std::reverse(cw.vertices.begin(), cw.vertices.end());
  const Line l{{-1, 1}, {1, 0}};
  for (const Polygon& p : {ccw, cw}) {
    const auto at = ClipToConvex(l, p, 0);
    ASSERT_TRUE(at.has_value());
    EXPECT_NEAR((*at)[0], 1, kTight);
    EXPECT_NEAR((*at)[1], 5, kTight);
    const auto grown = ClipToConvex(l, p, 0.5);
    ASSERT_TRUE(grown.has_value());
    EXPECT_NEAR((*grown)[0], 0.5, kTight);
    EXPECT_NEAR((*grown)[1], 5.5, kTight);
    EXPECT_FALSE(ClipToConvex(Line{{0, 5}, {1, 0}}, p, 0).has_value());
    EXPECT_TRUE(ClipToConvex(Line{{0, 5}, {1, 0}}, p, 1).has_value());
  }
}

// The hull of the square 0..4 x 0..4's corners with a point inside (2, 2),
// one on an edge (2, 0), a corner given twice, and (5, 2) outside the right
// edge: counter-clockwise from the lowest, then leftmost, point (0, 0):
// (4, 0), (5, 2), (4, 4), (0, 4). The edge point and the inner point are
// not corners. Points on one line give their two ends.
TEST(Hull, ConvexHullKeepsOnlyTheCornersCounterClockwise) {
  const Polygon hull = ConvexHull(
      {{2, 2}, {4, 4}, {0, 0}, {2, 0}, {4, 0}, {0, 4}, {4, 4}, {5, 2}});
  ASSERT_EQ(hull.vertices.size(), 5u);
  const Vec2 expected[] = {{0, 0}, {4, 0}, {5, 2}, {4, 4}, {0, 4}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(hull.vertices[i].x, expected[i].x) << i;
    EXPECT_EQ(hull.vertices[i].y, expected[i].y) << i;
  }
  const Polygon line = ConvexHull({{0, 0}, {2, 2}, {1, 1}, {3, 3}});
  ASSERT_EQ(line.vertices.size(), 2u);
  EXPECT_EQ(line.vertices[0].x, 0);
  EXPECT_EQ(line.vertices[1].x, 3);
}

}  // namespace
}  // namespace gunbai::geometry
