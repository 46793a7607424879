#include "rules/battlefield.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "absl/base/internal/raw_logging.h"
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

namespace {

// The grid's cells: at least this wide, and at most this many along the
// table's longer side (a 1.8 m table has 12 by 8 cells of 15 cm; a 100 m
// one 64 of 156 cm). A unit's box meets a few cells, a 15 cm query around
// it a few more.
constexpr double kMinCellCm = 15;
constexpr int kMostCells = 64;
// A query covering more cells than this lists every unit on the table
// instead (a long path, a whole-table box): fewer words to read.
constexpr int kMostCellsRead = 96;

// The cell holding coordinate `v` cm, clamped to 0..n-1 (NaN to 0).
int CellIndex(double v, double cell, int n) {
  if (!(v > 0)) return 0;
  const double c = v / cell;
  if (!(c < n)) return n - 1;
  return static_cast<int>(c);
}

}  // namespace

ShapeCache::Cells ShapeCache::CellsOf(const geometry::Box& box) const {
  const Grid& g = grid_;
  return Cells{
      CellIndex(box.min_x, g.cell, g.nx), CellIndex(box.min_y, g.cell, g.ny),
      CellIndex(box.max_x, g.cell, g.nx), CellIndex(box.max_y, g.cell, g.ny)};
}

ShapeCache::Cells ShapeCache::CellsNow(const Battlefield& field,
                                       const BattleState& state,
                                       int unit) const {
  const UnitShape& shape = Get(field, state, unit);
  return shape.present ? CellsOf(shape.box) : Cells{};
}

void ShapeCache::SetBits(const Cells& c, int unit, bool on) const {
  if (c.x0 < 0) return;
  Grid& g = grid_;
  const std::size_t word = static_cast<std::size_t>(unit) / 64;
  const std::uint64_t bit = std::uint64_t{1} << (unit % 64);
  for (int y = c.y0; y <= c.y1; ++y) {
    for (int x = c.x0; x <= c.x1; ++x) {
      std::uint64_t& w =
          g.bits[static_cast<std::size_t>(y * g.nx + x) * g.words + word];
      w = on ? (w | bit) : (w & ~bit);
    }
  }
}

void ShapeCache::Regrid(const Battlefield& field, const BattleState& state,
                        int unit) const {
  Cells& at = grid_.at[static_cast<std::size_t>(unit)];
  const Cells now = CellsNow(field, state, unit);
  if (now == at) return;
  SetBits(at, unit, false);
  SetBits(now, unit, true);
  at = now;
}

void ShapeCache::Rebuild(const Battlefield& field,
                         const BattleState& state) const {
  Grid& g = grid_;
  const double w = std::max(field.width_mm, 1) / 10.0;
  const double d = std::max(field.depth_mm, 1) / 10.0;
  g.cell = std::max(kMinCellCm, std::max(w, d) / kMostCells);
  g.nx = std::clamp(static_cast<int>(std::ceil(w / g.cell)), 1, kMostCells);
  g.ny = std::clamp(static_cast<int>(std::ceil(d / g.cell)), 1, kMostCells);
  g.units = state.units.size();
  g.words = static_cast<int>((g.units + 63) / 64);
  g.bits.assign(static_cast<std::size_t>(g.nx * g.ny) * g.words, 0);
  g.at.assign(g.units, Cells{});
  for (int u = 0; u < static_cast<int>(g.units); ++u) Regrid(field, state, u);
}

void ShapeCache::SyncGrid(const Battlefield& field,
                          const BattleState& state) const {
  Grid& g = grid_;
  const FootprintChanges& changes = state.footprint_changes;
  const std::vector<int>& changed = changes.units();
  if (g.state_id != changes.id() || g.epoch != changes.epoch() ||
      g.units != state.units.size() || g.seen > changed.size()) {
    Rebuild(field, state);
  } else {
    for (std::size_t k = g.seen; k < changed.size(); ++k) {
      const int u = changed[k];
      if (u >= 0 && static_cast<std::size_t>(u) < g.units) {
        Regrid(field, state, u);
      }
    }
  }
  g.state_id = changes.id();
  g.epoch = changes.epoch();
  g.seen = changed.size();
#ifndef NDEBUG
  // A writer of a footprint that did not call FootprintChanged leaves the
  // grid behind: found here, in every Debug build's query.
  for (int u = 0; u < static_cast<int>(g.units); ++u) {
    if (!(CellsNow(field, state, u) == g.at[static_cast<std::size_t>(u)])) {
      ABSL_RAW_LOG(FATAL,
                   "unit %d's footprint changed without "
                   "BattleState::FootprintChanged",
                   u);
    }
  }
#endif
}

UnitList ShapeCache::UnitsMeeting(const Battlefield& field,
                                  const BattleState& state,
                                  const geometry::Box& box) const {
  SyncGrid(field, state);
  const Grid& g = grid_;
  UnitList out;
  if (g.units == 0) return out;
  const Cells c = CellsOf(box);
  if ((c.x1 - c.x0 + 1) * (c.y1 - c.y0 + 1) > kMostCellsRead) {
    for (int u = 0; u < static_cast<int>(g.units); ++u) {
      if (g.at[static_cast<std::size_t>(u)].x0 >= 0) out.push_back(u);
    }
    return out;
  }
  absl::InlinedVector<std::uint64_t, 16> set(static_cast<std::size_t>(g.words),
                                             0);
  for (int y = c.y0; y <= c.y1; ++y) {
    const std::uint64_t* row =
        &g.bits[static_cast<std::size_t>(y * g.nx + c.x0) * g.words];
    for (int x = c.x0; x <= c.x1; ++x) {
      for (int k = 0; k < g.words; ++k) set[k] |= row[k];
      row += g.words;
    }
  }
  for (int k = 0; k < g.words; ++k) {
    for (std::uint64_t w = set[k]; w != 0; w &= w - 1) {
      out.push_back(k * 64 + std::countr_zero(w));
    }
  }
  return out;
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
  for (int t = 0; t < static_cast<int>(field.terrain.size()); ++t) {
    const TerrainFeature& f = field.terrain[t];
    if (f.kind != kind || f.area.vertices.size() < 3) continue;
    // (The box first: a point outside it is outside the area.)
    const geometry::Box& box = field.TerrainBox(t);
    if (point.x < box.min_x - geometry::kEpsilon ||
        point.x > box.max_x + geometry::kEpsilon ||
        point.y < box.min_y - geometry::kEpsilon ||
        point.y > box.max_y + geometry::kEpsilon) {
      continue;
    }
    if (geometry::Contains(f.area, point)) return &f;
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
