#include "rules/battlefield_proto.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/excerpt.h"
#include "rules/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules {
namespace {

namespace v1 = gunbai::v1;

absl::Status Invalid(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// Reads a table rules entry's troop type and mobility (UNSPECIFIED: any).
TableEntry EntryFromProto(v1::TroopType troop, v1::Mobility mobility) {
  TableEntry e;
  e.troop_type = TroopTypeFromProto(troop);
  e.mobility = MobilityFromProto(mobility);
  return e;
}

absl::Status InRange(absl::string_view where, std::uint32_t v, std::uint32_t lo,
                     std::uint32_t hi) {
  if (v >= lo && v <= hi) return absl::OkStatus();
  return Invalid(where, absl::StrFormat("is %d; give %d to %d.", v, lo, hi));
}

absl::StatusOr<geometry::Vec2> PointFromProto(const v1::Position& p,
                                              absl::string_view where) {
  GUNBAI_ASSIGN_OR_RETURN(const Pose pose, PoseFromProto(p, where));
  return geometry::Vec2{pose.x_mm / 10.0, pose.y_mm / 10.0};
}

absl::StatusOr<std::vector<geometry::Vec2>> PointsFromProto(
    const google::protobuf::RepeatedPtrField<v1::Position>& points,
    const std::string& where) {
  if (points.size() > kMaxTerrainPoints) {
    return Invalid(where, absl::StrFormat("has %d points; at most %d.",
                                          points.size(), kMaxTerrainPoints));
  }
  std::vector<geometry::Vec2> out;
  out.reserve(points.size());
  for (int i = 0; i < points.size(); ++i) {
    GUNBAI_ASSIGN_OR_RETURN(
        geometry::Vec2 p,
        PointFromProto(points[i], absl::StrCat(where, "[", i, "]")));
    out.push_back(p);
  }
  return out;
}

std::optional<TerrainKind> KindFromProto(v1::TerrainKind k) {
  switch (k) {
    case v1::TERRAIN_KIND_WOODS:
      return TerrainKind::kWoods;
    case v1::TERRAIN_KIND_BUILDING:
      return TerrainKind::kBuilding;
    case v1::TERRAIN_KIND_HILL:
      return TerrainKind::kHill;
    case v1::TERRAIN_KIND_LINEAR_OBSTACLE:
      return TerrainKind::kLinearObstacle;
    case v1::TERRAIN_KIND_IMPASSABLE:
      return TerrainKind::kImpassable;
    case v1::TERRAIN_KIND_CAMP:
      return TerrainKind::kCamp;
    default:
      return std::nullopt;
  }
}

absl::StatusOr<TerrainFeature> FeatureFromProto(const v1::TerrainFeature& f,
                                                int index,
                                                const BattleState& state) {
  const std::string where =
      absl::StrCat("terrain[", index, "] (\"", Excerpt(f.id()), "\")");
  TerrainFeature out;
  out.id = f.id();
  const std::optional<TerrainKind> kind = KindFromProto(f.kind());
  if (!kind.has_value()) {
    return Invalid(where,
                   "kind is not set; give WOODS, BUILDING, HILL, "
                   "LINEAR_OBSTACLE, IMPASSABLE or CAMP.");
  }
  out.kind = *kind;
  GUNBAI_ASSIGN_OR_RETURN(std::vector<geometry::Vec2> outline,
                          PointsFromProto(f.outline(), where + " outline"));
  GUNBAI_ASSIGN_OR_RETURN(std::vector<geometry::Vec2> crest,
                          PointsFromProto(f.crest(), where + " crest"));
  if (out.kind == TerrainKind::kLinearObstacle) {
    if (outline.size() < 2) {
      return Invalid(where,
                     "a linear obstacle's outline is a line of at "
                     "least 2 points.");
    }
    out.line.points = std::move(outline);
    return out;
  }
  if (outline.size() < 3) {
    return Invalid(where,
                   absl::StrCat("the outline of ", TerrainKindName(out.kind),
                                " is an area: give at least 3 points."));
  }
  out.area.vertices.assign(outline.begin(), outline.end());
  if (!crest.empty() && crest.size() < 2) {
    return Invalid(where, "a crest is a line of at least 2 points.");
  }
  out.line.points = std::move(crest);
  if (out.kind == TerrainKind::kCamp) {
    for (std::size_t c = 0; c < state.clans.size(); ++c) {
      if (state.clans[c] == f.clan()) out.clan = static_cast<int>(c);
    }
    if (out.clan < 0) {
      return Invalid(where,
                     absl::StrCat("the camp's clan \"", Excerpt(f.clan()),
                                  "\" is not in the header."));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Pose> PoseFromProto(const v1::Position& p,
                                   absl::string_view where) {
  if (std::abs(static_cast<long long>(p.x_mm())) > kMaxTableMm ||
      std::abs(static_cast<long long>(p.y_mm())) > kMaxTableMm) {
    return Invalid(where, absl::StrFormat("(%d, %d) mm is beyond %d mm of the "
                                          "table's corner; positions are in "
                                          "millimetres.",
                                          p.x_mm(), p.y_mm(), kMaxTableMm));
  }
  return Pose{p.x_mm(), p.y_mm(), NormalFacing(p.facing_deg())};
}

v1::Position PoseToProto(const Pose& pose) {
  v1::Position p;
  p.set_x_mm(pose.x_mm);
  p.set_y_mm(pose.y_mm);
  p.set_facing_deg(pose.facing_deg);
  return p;
}

absl::StatusOr<TableRules> TableRulesFromProto(const v1::TableRules& t,
                                               absl::string_view source) {
  TableRules r;
  r.present = true;
  const std::string at = absl::StrCat(source, ": table.");
  for (int i = 0; i < t.base_sizes_size(); ++i) {
    const v1::BaseSize& b = t.base_sizes(i);
    const std::string where = absl::StrCat(at, "base_sizes[", i, "]");
    GUNBAI_RETURN_IF_ERROR(InRange(where + ".width_mm", b.width_mm(), 1, 1000));
    GUNBAI_RETURN_IF_ERROR(InRange(where + ".depth_mm", b.depth_mm(), 1, 1000));
    TableEntry e = EntryFromProto(b.troop_type(), b.mobility());
    e.width_mm = static_cast<int>(b.width_mm());
    e.depth_mm = static_cast<int>(b.depth_mm());
    r.base_sizes.push_back(e);
  }
  if (r.base_sizes.empty()) {
    return Invalid(at + "base_sizes", "give at least one base size.");
  }
  GUNBAI_RETURN_IF_ERROR(
      InRange(at + "infantry_fire_arc_deg", t.infantry_fire_arc_deg(), 0, 90));
  GUNBAI_RETURN_IF_ERROR(InRange(at + "fire_gap_mm", t.fire_gap_mm(), 0, 100));
  GUNBAI_RETURN_IF_ERROR(InRange(at + "contact_mm", t.contact_mm(), 0, 100));
  r.infantry_fire_arc_deg = static_cast<int>(t.infantry_fire_arc_deg());
  r.fire_gap_mm = static_cast<int>(t.fire_gap_mm());
  r.contact_mm = static_cast<int>(t.contact_mm());
  GUNBAI_RETURN_IF_ERROR(
      InRange(at + "command_reach_mm", t.command_reach_mm(), 0, 10000));
  r.command_reach_mm = static_cast<int>(t.command_reach_mm());
  for (int i = 0; i < t.movement_size(); ++i) {
    const v1::MovementRate& m = t.movement(i);
    GUNBAI_RETURN_IF_ERROR(InRange(
        absl::StrCat(at, "movement[", i, "].move_mm"), m.move_mm(), 1, 10000));
    TableEntry e = EntryFromProto(m.troop_type(), m.mobility());
    e.width_mm = static_cast<int>(m.move_mm());
    r.movement.push_back(e);
  }
  return r;
}

absl::StatusOr<std::optional<Battlefield>> BattlefieldFromLog(
    const v1::BattleLog& log, const TableRules& rules,
    const BattleState& state) {
  if (!log.has_table()) return std::optional<Battlefield>();
  if (!rules.present) {
    return absl::FailedPreconditionError(
        "the log has a table, but its ruleset gives no table rules (base "
        "sizes) to measure it with; add a `table` section to the ruleset, or "
        "remove the log's table to audit its declared facts.");
  }
  Battlefield field;
  GUNBAI_RETURN_IF_ERROR(
      InRange("table.width_mm", log.table().width_mm(), 1, kMaxTableMm));
  GUNBAI_RETURN_IF_ERROR(
      InRange("table.depth_mm", log.table().depth_mm(), 1, kMaxTableMm));
  field.width_mm = static_cast<int>(log.table().width_mm());
  field.depth_mm = static_cast<int>(log.table().depth_mm());
  field.rules = rules;
  if (log.terrain_size() > kMaxTerrainFeatures) {
    return Invalid("terrain",
                   absl::StrFormat("has %d features; at most %d.",
                                   log.terrain_size(), kMaxTerrainFeatures));
  }
  int points = 0;
  for (int i = 0; i < log.terrain_size(); ++i) {
    points += log.terrain(i).outline_size() + log.terrain(i).crest_size();
    if (points > kMaxTerrainPointsInAll) {
      return Invalid("terrain",
                     absl::StrFormat("has more than %d points in all; draw "
                                     "the terrain with fewer.",
                                     kMaxTerrainPointsInAll));
    }
    GUNBAI_ASSIGN_OR_RETURN(TerrainFeature f,
                            FeatureFromProto(log.terrain(i), i, state));
    field.terrain.push_back(std::move(f));
  }
  if (state.profiles.size() > static_cast<std::size_t>(kMaxTableUnits)) {
    return Invalid("table",
                   absl::StrFormat("a log with a table has at most %d units; "
                                   "this one has %d.",
                                   kMaxTableUnits, state.profiles.size()));
  }
  for (std::size_t u = 0; u < state.profiles.size(); ++u) {
    const UnitProfile& p = state.profiles[u];
    const TableEntry* base = FindEntry(rules.base_sizes, p);
    if (base == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit \"", Excerpt(p.id),
                       "\": the ruleset's table rules give no "
                       "base size for its troop type; add one to base_sizes."));
    }
    field.base_width_mm.push_back(base->width_mm);
    field.base_depth_mm.push_back(base->depth_mm);
    const TableEntry* rate = FindEntry(rules.movement, p);
    field.move_mm.push_back(rate == nullptr ? 0 : rate->width_mm);
  }
  return std::optional<Battlefield>(std::move(field));
}

}  // namespace gunbai::rules
