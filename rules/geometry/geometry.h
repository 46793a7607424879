// Plane geometry for the table: points, segments, polygons, a unit's bases
// as an oriented rectangle, distances and intersections. Pure: the standard
// library and Abseil's InlinedVector only, no proto types, no rules. Lengths
// are in centimetres (the rules measure in cm), angles in radians
// counter-clockwise from the +x axis; the table's y axis points away from the
// first clan's edge.
//
// Everything here is a value type and a function of its arguments:
// thread-safe. Results are exact up to double rounding; comparisons that
// decide (inside or not, touching or not) allow kEpsilon, so that two bases
// placed edge to edge by a player's figures count as touching.
#ifndef GUNBAI_RULES_GEOMETRY_GEOMETRY_H_
#define GUNBAI_RULES_GEOMETRY_GEOMETRY_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace gunbai::geometry {

// A hundredth of a millimetre: below any measure a player takes.
inline constexpr double kEpsilon = 1e-3;
inline constexpr double kPi = 3.14159265358979323846;

struct Vec2 {
  double x = 0;
  double y = 0;

  friend Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
  friend Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
  friend Vec2 operator*(Vec2 a, double k) { return {a.x * k, a.y * k}; }
  friend Vec2 operator*(double k, Vec2 a) { return {a.x * k, a.y * k}; }
  friend bool operator==(Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }
};

double Dot(Vec2 a, Vec2 b);
// The z of the 3-d cross product: > 0 when b is counter-clockwise of a.
double Cross(Vec2 a, Vec2 b);
double Length(Vec2 v);
double Distance(Vec2 a, Vec2 b);
// `v` turned by `angle` radians counter-clockwise.
Vec2 Rotate(Vec2 v, double angle);
// The unit vector at `angle`.
Vec2 Direction(double angle);
// The angle between two vectors, in [0, pi]; 0 when either is zero.
double AngleBetween(Vec2 a, Vec2 b);

struct Segment {
  Vec2 a;
  Vec2 b;
};

// The point of `s` nearest `p`.
Vec2 NearestPointOnSegment(Vec2 p, const Segment& s);
double DistanceToSegment(Vec2 p, const Segment& s);
// True when the two segments share a point (touching ends and overlapping
// collinear segments included), within kEpsilon.
bool SegmentsIntersect(const Segment& s, const Segment& t);
// The least distance between a point of `s` and a point of `t`; 0 when
// they intersect.
double SegmentDistance(const Segment& s, const Segment& t);

// A simple polygon, its vertices in order (either direction); the edge from
// the last vertex back to the first closes it. Terrain outlines, bases.
// Four vertices are held in place (a base, an arc, the table's outline), so
// that making one, as measuring does per event, allocates nothing; a
// terrain outline with more takes the heap once, when the table is read.
using Vertices = absl::InlinedVector<Vec2, 4>;
struct Polygon {
  Vertices vertices;
};

// The polygon's edges, the closing one last.
std::vector<Segment> Edges(const Polygon& polygon);
// The area enclosed (positive whichever way the vertices run).
double Area(const Polygon& polygon);
// True when `p` is inside `polygon` or on its boundary (within kEpsilon).
bool Contains(const Polygon& polygon, Vec2 p);
// The least distance from `p` to the polygon as a region: 0 inside.
double DistanceToPolygon(Vec2 p, const Polygon& polygon);
// True when the two regions share a point (one inside the other included).
bool PolygonsIntersect(const Polygon& a, const Polygon& b);
// The least distance between the two regions: 0 when they intersect. This
// is the rules' "distance between units": between their nearest points.
double PolygonDistance(const Polygon& a, const Polygon& b);
// PolygonDistance(a, b) <= d, answered without the whole distance: true at
// the first vertex found within d of the other's boundary.
bool PolygonsWithin(const Polygon& a, const Polygon& b, double d);
// A point of `a` and a point of `b` that are nearest each other, for regions
// that do not intersect (their distance is PolygonDistance); for ones that
// do, the nearest vertex-to-edge pair.
std::array<Vec2, 2> NearestPoints(const Polygon& a, const Polygon& b);
// As NearestPoints, but where the nearest points are not one pair (two
// parallel edges facing each other), the middle of the stretch the edges
// share: the line straight across between them.
std::array<Vec2, 2> NearestPointsMiddle(const Polygon& a, const Polygon& b);
// True when `s` crosses or touches the region (inside included).
bool SegmentIntersectsPolygon(const Segment& s, const Polygon& polygon);
// The length of `s` inside the region (for "more than 5 cm into a wood").
// The polygon may be concave.
double LengthInside(const Segment& s, const Polygon& polygon);

// An axis-aligned box around a shape, for the quick rejection before an
// exact test: two shapes whose boxes are apart are apart.
struct Box {
  double min_x = 0;
  double min_y = 0;
  double max_x = 0;
  double max_y = 0;
};
// The box around the polygon's vertices (an empty box at the origin for
// none).
Box BoxOf(const Polygon& polygon);
Box BoxOf(const Segment& s);
// The smallest box holding both.
Box Union(const Box& a, const Box& b);
// `b` grown by `by` on every side.
Box Inflated(const Box& b, double by);
// A lower bound on the distance between two regions inside the boxes: the
// gap between the boxes, 0 when they overlap or touch.
// (Inline, with BoxesMeet: a scan over every unit calls them once a unit.)
inline double BoxGap(const Box& a, const Box& b) {
  const double dx = std::max({0.0, a.min_x - b.max_x, b.min_x - a.max_x});
  const double dy = std::max({0.0, a.min_y - b.max_y, b.min_y - a.max_y});
  if (dx == 0) return dy;
  if (dy == 0) return dx;
  return std::sqrt(dx * dx + dy * dy);
}
// True when the boxes share a point, within kEpsilon.
inline bool BoxesMeet(const Box& a, const Box& b) {
  return a.min_x <= b.max_x + kEpsilon && b.min_x <= a.max_x + kEpsilon &&
         a.min_y <= b.max_y + kEpsilon && b.min_y <= a.max_y + kEpsilon;
}

// An infinite line: a point on it and its unit direction.
struct Line {
  Vec2 point;
  Vec2 direction;
};
// The lines tangent to both circles (centre, radius; a radius of 0 is a
// point): up to 4 (2 outer, 2 inner), fewer when one circle holds or
// touches the other; none for equal centres. Each touches each circle (lies
// at exactly its radius from its centre, up to rounding).
absl::InlinedVector<Line, 4> CommonTangents(Vec2 c1, double r1, Vec2 c2,
                                            double r2);
// The convex hull of `points`, counter-clockwise from the lowest (then
// leftmost) point, without repeated or collinear points (Andrew's monotone
// chain); fewer than three points when they are all on one line.
Polygon ConvexHull(Vertices points);
// Where `line` runs through the convex polygon grown by `tolerance`: the
// parameters [enter, leave] (point + t * direction), or none when it
// misses.
std::optional<std::array<double, 2>> ClipToConvex(const Line& line,
                                                  const Polygon& convex,
                                                  double tolerance);

// A polyline: a hedge, a wall, a stream, a hill's crest line.
struct Polyline {
  std::vector<Vec2> points;
};

std::vector<Segment> Segments(const Polyline& line);
bool SegmentCrossesPolyline(const Segment& s, const Polyline& line);
double DistanceToPolyline(Vec2 p, const Polyline& line);

// A unit's bases as one rectangle: the centre of its front edge, the way it
// faces, its frontage (the front edge's length) and its depth. The front
// edge runs from front_left to front_right; the rear is `depth` behind.
struct OrientedRect {
  OrientedRect() = default;
  OrientedRect(Vec2 front_centre, double facing, double frontage, double depth)
      : front_centre(front_centre),
        facing(facing),
        frontage(frontage),
        depth(depth) {}

  Vec2 front_centre;
  // The direction the unit faces, radians.
  double facing = 0;
  double frontage = 0;
  double depth = 0;

  // Forward's memo: the unit vector of the angle `forward_of`, kept with
  // the rectangle (and its copies) so that the corners, centre and sides of
  // one rectangle take one cosine and sine between them. Checked against
  // `facing` at each use, so a changed facing is never answered stale (NaN
  // matches nothing: worked out at the first use).
  mutable Vec2 forward_memo;
  mutable double forward_of = std::numeric_limits<double>::quiet_NaN();
};

// The unit vector the rectangle faces.
Vec2 Forward(const OrientedRect& r);
// Its corners: front left, front right, rear right, rear left (clockwise
// seen from above). Left is the unit's own left.
std::array<Vec2, 4> Corners(const OrientedRect& r);
Polygon ToPolygon(const OrientedRect& r);
Vec2 Centre(const OrientedRect& r);
Segment FrontEdge(const OrientedRect& r);
Segment RearEdge(const OrientedRect& r);
Segment LeftEdge(const OrientedRect& r);
Segment RightEdge(const OrientedRect& r);

// Which side of `r` a point lies off, as the rules' front, flank and rear
// are read: the plane around the rectangle is cut by its two diagonals
// produced outwards from its centre, and a point is off the side whose
// quarter holds it. kInside for a point inside the rectangle.
enum class Side { kFront, kRear, kLeft, kRight, kInside };
Side SideOf(const OrientedRect& r, Vec2 p);

// The arc of fire or of vision in front of `r`: the region ahead of its
// front edge between two lines drawn from the front corners, each turned
// `half_angle` outwards from straight ahead (half_angle 45 degrees: the
// common reading; 0: straight ahead only). `reach` bounds it (a long
// range), so that it is a convex polygon.
Polygon FrontArc(const OrientedRect& r, double half_angle, double reach);
// True when any part of `target` lies within the arc (touching counts).
bool InFrontArc(const OrientedRect& r, double half_angle, double reach,
                const Polygon& target);

// The translation that carries `r` `distance` cm along its facing
// (negative: backwards), facing unchanged.
OrientedRect MovedForward(const OrientedRect& r, double distance);
// `r` turned about its front centre to face `facing`.
OrientedRect Facing(const OrientedRect& r, double facing);

// A rigid motion of the plane (rotation about the origin, then a
// translation): for property tests that distances do not depend on where
// the table is or which way it turns.
struct RigidMotion {
  double angle = 0;
  Vec2 offset;

  Vec2 Apply(Vec2 p) const { return Rotate(p, angle) + offset; }
};
Polygon Apply(const RigidMotion& m, const Polygon& polygon);
Segment Apply(const RigidMotion& m, const Segment& s);
OrientedRect Apply(const RigidMotion& m, const OrientedRect& r);

}  // namespace gunbai::geometry

#endif  // GUNBAI_RULES_GEOMETRY_GEOMETRY_H_
