#include "rules/battlefield.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_format.h"

namespace gunbai::rules {

absl::string_view TerrainKindName(TerrainKind kind) {
  switch (kind) {
    case TerrainKind::kWoods:
      return "woods";
    case TerrainKind::kBuilding:
      return "building";
    case TerrainKind::kHill:
      return "hill";
    case TerrainKind::kLinearObstacle:
      return "linear obstacle";
    case TerrainKind::kImpassable:
      return "impassable terrain";
    case TerrainKind::kCamp:
      return "camp";
  }
  return "terrain";
}

geometry::Polygon Battlefield::Outline() const {
  const double w = width_mm / 10.0;
  const double d = depth_mm / 10.0;
  return geometry::Polygon{{{0, 0}, {w, 0}, {w, d}, {0, d}}};
}

const TableEntry* FindEntry(const std::vector<TableEntry>& entries,
                            const UnitProfile& profile) {
  for (const TableEntry& e : entries) {
    if (e.Matches(profile)) return &e;
  }
  return nullptr;
}

int NormalFacing(int deg) {
  const int r = deg % 360;
  return r < 0 ? r + 360 : r;
}

double FacingRadians(int facing_deg) {
  return (90 - NormalFacing(facing_deg)) * geometry::kPi / 180;
}

int FacingDegrees(double radians) {
  const double deg = 90 - radians * 180 / geometry::kPi;
  if (!std::isfinite(deg)) return 0;
  return NormalFacing(static_cast<int>(std::lround(std::fmod(deg, 360))));
}

namespace {

geometry::OrientedRect FootprintOf(const Battlefield& field,
                                   const BattleState& state, int unit) {
  const UnitStatus& u = state.units[unit];
  const int per_rank = std::max(1, u.stands_per_rank);
  const int stands = std::max(1, u.stands);
  const int front = std::min(stands, per_rank);
  const int ranks = (stands + per_rank - 1) / per_rank;
  geometry::OrientedRect r;
  r.front_centre = {u.pose.x_mm / 10.0, u.pose.y_mm / 10.0};
  r.facing = FacingRadians(u.pose.facing_deg);
  r.frontage = front * field.base_width_mm[unit] / 10.0;
  r.depth = ranks * field.base_depth_mm[unit] / 10.0;
  return r;
}

}  // namespace

const UnitShape& ShapeCache::Make(const Battlefield& field,
                                  const BattleState& state, int unit) const {
  const std::size_t n = state.units.size();
  if (keys_.size() != n) {
    keys_.assign(n, Key{});
    shapes_.assign(n, UnitShape{});
  }
  const UnitStatus& u = state.units[unit];
  keys_[unit] = Key{u.pose, u.stands, u.stands_per_rank, u.placed, u.removed};
  UnitShape& shape = shapes_[unit];
  shape.present = u.placed && !u.removed && u.stands > 0;
  shape.rect = FootprintOf(field, state, unit);
  const std::array<geometry::Vec2, 4> corners = geometry::Corners(shape.rect);
  shape.polygon.vertices.assign(corners.begin(), corners.end());
  shape.box = geometry::BoxOf(shape.polygon);
  shape.centre = geometry::Centre(shape.rect);
  return shape;
}

const geometry::Box& ShapeCache::TerrainBox(const Battlefield& field,
                                            int index) const {
  if (terrain_boxes_.size() != field.terrain.size()) {
    terrain_boxes_.clear();
    for (const TerrainFeature& f : field.terrain) {
      geometry::Polygon all = f.area;
      all.vertices.insert(all.vertices.end(), f.line.points.begin(),
                          f.line.points.end());
      terrain_boxes_.push_back(geometry::BoxOf(all));
    }
  }
  return terrain_boxes_[index];
}

geometry::OrientedRect Footprint(const Battlefield& field,
                                 const BattleState& state, int unit) {
  return field.Shape(state, unit).rect;
}

geometry::OrientedRect FootprintAt(const Battlefield& field,
                                   const BattleState& state, int unit,
                                   const Pose& pose) {
  geometry::OrientedRect r = Footprint(field, state, unit);
  r.front_centre = {pose.x_mm / 10.0, pose.y_mm / 10.0};
  r.facing = FacingRadians(pose.facing_deg);
  return r;
}

Pose PoseOf(const geometry::OrientedRect& r) {
  const auto mm = [](double cm) {
    const double v = std::clamp(cm * 10, -1.0 * kMaxTableMm, 2.0 * kMaxTableMm);
    return static_cast<int>(std::lround(std::isfinite(v) ? v : 0));
  };
  return {mm(r.front_centre.x), mm(r.front_centre.y), FacingDegrees(r.facing)};
}

double UnitDistance(const Battlefield& field, const BattleState& state, int a,
                    int b) {
  return geometry::PolygonDistance(field.Shape(state, a).polygon,
                                   field.Shape(state, b).polygon);
}

bool InContact(const Battlefield& field, const BattleState& state, int a,
               int b) {
  return UnitDistance(field, state, a, b) * 10 <=
         field.rules.contact_mm + geometry::kEpsilon;
}

const TerrainFeature* FeatureAt(const Battlefield& field, TerrainKind kind,
                                geometry::Vec2 point) {
  for (const TerrainFeature& f : field.terrain) {
    if (f.kind == kind && f.area.vertices.size() >= 3 &&
        geometry::Contains(f.area, point)) {
      return &f;
    }
  }
  return nullptr;
}

const TerrainFeature* FeatureAt(const Battlefield& field, TerrainKind kind,
                                const BattleState& state, int unit) {
  return FeatureAt(field, kind, field.Shape(state, unit).centre);
}

bool OnTable(const Battlefield& field, const geometry::Polygon& shape) {
  // geometry::Contains(field.Outline(), p) for each vertex, without making
  // the outline: the table is the rectangle from (0, 0) to (w, d), and a
  // point within kEpsilon of its edge is on it.
  const double w = field.width_mm / 10.0;
  const double d = field.depth_mm / 10.0;
  constexpr double e = geometry::kEpsilon;
  return std::all_of(shape.vertices.begin(), shape.vertices.end(),
                     [w, d](geometry::Vec2 p) {
                       const double dx = std::max({0.0, -p.x, p.x - w});
                       const double dy = std::max({0.0, -p.y, p.y - d});
                       return dx * dx + dy * dy <= e * e;
                     });
}

std::string Cm(double cm) { return absl::StrFormat("%.1f cm", cm); }

}  // namespace gunbai::rules
