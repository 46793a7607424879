// The table of a game with positions (GeneratorOptions::positions), for the
// GamePlayer: a 180 x 120 cm table with a little terrain, the armies deployed
// in lines, the poses moves and charges end in, and the facts the engine
// measures put into the claims the player works out, as the engine puts
// them (rules/daimyo/engine_table.cc), so that the game still audits clean.
// Everything here is measured on the replayer's own state through the
// engine's tape measure (rules/daimyo/measure.h). See player.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/player.h"
#include "rules/battlefield_proto.h"
#include "rules/daimyo/proto_mapping.h"
#include "rules/geometry/geometry.h"
#include "rules/proto_enums.h"

namespace gunbai::generate::internal {

namespace {

// A 180 x 120 cm table for up to 16 units a clan; a bigger battle gets a
// table 180 cm wider for each 16 units more (its depth unchanged).
constexpr int kTableWidthMm = 1800;
constexpr int kTableDepthMm = 1200;
constexpr int kUnitsPerTableWidth = 16;
// Each clan's first line: its front this far from its own edge, facing the
// enemy; further lines behind it, each a unit's deepest (four ranks of
// 40 mm bases) and a centimetre more back. The ground between the first
// lines is no man's land, where the terrain stands.
constexpr int kFirstLineMm = 500;
constexpr int kLineSpacingMm = 170;
constexpr int kMaxLines = 3;
constexpr int kSideMarginMm = 60;
constexpr int kTerrainNearMm = 540;  // No man's land, y from here ...
constexpr int kTerrainFarMm = 660;   // ... to here.
// Clearances kept by the poses the player chooses (cm): a move or a charge
// ends this far from any unit it does not charge, further from a melee
// (whose push backs and follow-ups need the room).
constexpr double kClearanceCm = 3;
constexpr double kMeleeClearanceCm = 6;
// How far a charge reaches: its front centre's path (mm).
constexpr int kFootChargeMm = 200;
constexpr int kMountedChargeMm = 300;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "game_generator: %s\n", what.c_str());
  std::abort();
}

v1::Position Point(int x, int y) {
  v1::Position p;
  p.set_x_mm(x);
  p.set_y_mm(y);
  return p;
}

// Gives `feature` the outline of a w x d mm rectangle from (x, y).
void AddRectangle(v1::TerrainFeature& feature, int x, int y, int w, int d) {
  *feature.add_outline() = Point(x, y);
  *feature.add_outline() = Point(x + w, y);
  *feature.add_outline() = Point(x + w, y + d);
  *feature.add_outline() = Point(x, y + d);
}

rules::Pose PoseAt(geometry::Vec2 cm, int facing_deg) {
  return {static_cast<int>(std::lround(cm.x * 10)),
          static_cast<int>(std::lround(cm.y * 10)),
          rules::NormalFacing(facing_deg)};
}

bool Present(const rules::BattleState& state, int u) {
  const rules::UnitStatus& s = state.units[u];
  return s.placed && !s.removed && s.stands > 0;
}

}  // namespace

int GamePlayer::TableWidthMm() const {
  const int widths =
      (units_per_clan_ + kUnitsPerTableWidth - 1) / kUnitsPerTableWidth;
  return kTableWidthMm * std::max(widths, 1);
}

// The table and, chosen from the seed, up to four features in no man's
// land, one to each quarter of the table's width: woods, a hill with its
// crest, a wall and now and then a pond no one may enter or a house.
void GamePlayer::BuildTable() {
  v1::Table* table = log_.mutable_table();
  table->set_width_mm(TableWidthMm());
  table->set_depth_mm(kTableDepthMm);
  std::vector<int> kinds = {0, 1, 2, 3};
  for (std::size_t k = 0; k + 1 < kinds.size(); ++k) {
    std::swap(kinds[k], kinds[Uniform(static_cast<int>(k), 3)]);
  }
  const int kSlotMm = TableWidthMm() / 4;
  for (int slot = 0; slot < 4; ++slot) {
    const int x0 = slot * kSlotMm + Uniform(30, 120);
    const int x1 = std::min((slot + 1) * kSlotMm - 30, x0 + Uniform(180, 300));
    const int y0 = Uniform(kTerrainNearMm, kTerrainNearMm + 30);
    const int y1 = Uniform(kTerrainFarMm - 30, kTerrainFarMm);
    switch (kinds[slot]) {
      case 0: {
        if (!Chance(85)) break;
        v1::TerrainFeature* woods = log_.add_terrain();
        woods->set_id("woods");
        woods->set_kind(v1::TERRAIN_KIND_WOODS);
        *woods->add_outline() = Point(x0, y0 + Uniform(0, 20));
        *woods->add_outline() = Point(x1, y0 + Uniform(0, 20));
        *woods->add_outline() = Point(x1 - Uniform(0, 40), y1);
        *woods->add_outline() = Point(x0 + Uniform(0, 40), y1);
        break;
      }
      case 1: {
        if (!Chance(85)) break;
        v1::TerrainFeature* hill = log_.add_terrain();
        hill->set_id("hill");
        hill->set_kind(v1::TERRAIN_KIND_HILL);
        *hill->add_outline() = Point(x0, kTerrainNearMm);
        *hill->add_outline() = Point(x1, kTerrainNearMm);
        *hill->add_outline() = Point(x1, kTerrainFarMm);
        *hill->add_outline() = Point(x0, kTerrainFarMm);
        const int crest = (kTerrainNearMm + kTerrainFarMm) / 2;
        *hill->add_crest() = Point(x0 + 30, crest);
        *hill->add_crest() = Point(x1 - 30, crest);
        break;
      }
      case 2: {
        if (!Chance(75)) break;
        v1::TerrainFeature* wall = log_.add_terrain();
        wall->set_id("wall");
        wall->set_kind(v1::TERRAIN_KIND_LINEAR_OBSTACLE);
        const int y = Uniform(570, 630);
        *wall->add_outline() = Point(x0, y);
        *wall->add_outline() = Point(x1, y + Uniform(-20, 20));
        break;
      }
      default: {
        if (!Chance(45)) break;
        if (Chance(50)) {
          // A house (issue 29): it blocks sight across it, and a unit
          // whose centre stands in it holds it (in a building).
          v1::TerrainFeature* house = log_.add_terrain();
          house->set_id("house");
          house->set_kind(v1::TERRAIN_KIND_BUILDING);
          const int hx = x0 + Uniform(0, 60);
          const int hy = Uniform(kTerrainNearMm + 10, kTerrainNearMm + 40);
          const int w = Uniform(80, 120);
          const int d = Uniform(50, 70);
          AddRectangle(*house, hx, hy, w, d);
          break;
        }
        v1::TerrainFeature* pond = log_.add_terrain();
        pond->set_id("pond");
        pond->set_kind(v1::TERRAIN_KIND_IMPASSABLE);
        const int px = x0 + Uniform(0, 60);
        const int py = Uniform(kTerrainNearMm + 20, kTerrainNearMm + 50);
        const int w = Uniform(80, 130);
        const int d = Uniform(50, 60);
        AddRectangle(*pond, px, py, w, d);
        break;
      }
    }
  }
}

// Deploys each clan in lines across its half, in army order from its left
// as the first clan sees the table, with gaps of 6 to 12 cm: the first clan
// facing up the table, the second facing it.
void GamePlayer::DeployUnits() {
  v1::OrderOfBattle* oob = log_.mutable_order_of_battle();
  for (int c = 0; c < 2; ++c) {
    int x = kSideMarginMm + Uniform(0, 60);
    int line = 0;
    for (v1::Unit& unit : *oob->mutable_units()) {
      if (unit.clan() != ClanId(c)) continue;
      rules::UnitProfile profile;
      if (auto t = rules::TroopTypeFromProto(unit.troop_type())) {
        profile.troop_type = *t;
      }
      if (auto m = rules::MobilityFromProto(unit.mobility())) {
        profile.mobility = *m;
      }
      const rules::TableEntry* base =
          rules::FindEntry(rules_.table.base_sizes, profile);
      if (base == nullptr) Die("the ruleset gives no base size for a unit");
      const int per_rank =
          static_cast<int>(std::max<std::uint32_t>(1, unit.stands_per_rank()));
      const int stands = static_cast<int>(unit.stands());
      const int frontage = std::min(per_rank, stands) * base->width_mm;
      if (x + frontage > TableWidthMm() - kSideMarginMm) {
        ++line;
        x = kSideMarginMm + Uniform(0, 60);
      }
      if (line >= kMaxLines) {
        Die("--positions: the armies do not fit on the table (fewer units)");
      }
      // (Behind the first line: a second line once stood in front of it,
      // among the enemy's, and two units could start on one ground.)
      const int front = kFirstLineMm - line * kLineSpacingMm;
      v1::Position* p = unit.mutable_position();
      p->set_x_mm(x + frontage / 2);
      p->set_y_mm(c == 0 ? front : kTableDepthMm - front);
      p->set_facing_deg(c == 0 ? 0 : 180);
      x += frontage + Uniform(60, 120);
    }
  }
}

geometry::OrientedRect GamePlayer::FootprintOf(int unit) const {
  return rules::Footprint(*field_, state(), unit);
}

geometry::OrientedRect GamePlayer::FootprintAt(int unit,
                                               const rules::Pose& pose) const {
  return rules::FootprintAt(*field_, state(), unit, pose);
}

double GamePlayer::Gap(int a, int b) const {
  return rules::UnitDistance(*field_, state(), a, b);
}

// True when `unit` may stand at `pose`: wholly on the table, clear of
// impassable ground, and `clearance` cm from every other unit but `except`
// (more from units in melee).
bool GamePlayer::PoseFree(int unit, const rules::Pose& pose, double clearance,
                          int except) const {
  const geometry::Polygon shape = geometry::ToPolygon(FootprintAt(unit, pose));
  if (!rules::OnTable(*field_, shape)) return false;
  for (const rules::TerrainFeature& t : field_->terrain) {
    if (t.kind == rules::TerrainKind::kImpassable &&
        geometry::PolygonDistance(t.area, shape) < 0.5) {
      return false;
    }
  }
  for (int u = 0; u < UnitCount(); ++u) {
    if (u == unit || u == except || !Present(state(), u)) continue;
    const double need =
        status(u).in_melee ? std::max(clearance, kMeleeClearanceCm) : clearance;
    if (geometry::PolygonDistance(shape, geometry::ToPolygon(FootprintOf(u))) <
        need) {
      return false;
    }
  }
  return true;
}

// Where a move of `unit` ends: towards the nearest enemy, turned to face it
// (or keeping its facing), up to its move (12 cm, 24 cm mounted), never
// into contact and, for missile troops, stopping short of the enemy at a
// distance they shoot from. Nothing when no such pose is free.
std::optional<rules::Pose> GamePlayer::MoveTo(int unit) {
  int nearest = -1;
  double best = std::numeric_limits<double>::infinity();
  for (int e = 0; e < UnitCount(); ++e) {
    if (plans_[e].clan == plans_[unit].clan || !Present(state(), e)) continue;
    const double d = Gap(unit, e);
    if (d < best) {
      best = d;
      nearest = e;
    }
  }
  const geometry::OrientedRect r = FootprintOf(unit);
  const bool mounted =
      state().profiles[unit].mobility == rules::Mobility::kMounted;
  const double reach = Uniform(10, mounted ? 240 : 120) / 10.0;
  const double keep = plans_[unit].missile ? Uniform(40, 130) / 10.0 : 0;
  std::vector<int> facings = {status(unit).pose.facing_deg};
  if (nearest >= 0) {
    const geometry::Vec2 to =
        geometry::Centre(FootprintOf(nearest)) - r.front_centre;
    facings.insert(facings.begin(),
                   rules::FacingDegrees(std::atan2(to.y, to.x)));
  }
  for (int facing : facings) {
    for (double part : {1.0, 0.75, 0.5, 0.25}) {
      geometry::OrientedRect moved = r;
      moved.facing = rules::FacingRadians(facing);
      moved = geometry::MovedForward(moved, reach * part);
      const rules::Pose pose = PoseAt(moved.front_centre, facing);
      if (!PoseFree(unit, pose, kClearanceCm, -1)) continue;
      bool too_near = false;
      for (int e = 0; keep > 0 && e < UnitCount(); ++e) {
        if (plans_[e].clan == plans_[unit].clan || !Present(state(), e)) {
          continue;
        }
        too_near = too_near || geometry::PolygonDistance(
                                   geometry::ToPolygon(FootprintAt(unit, pose)),
                                   geometry::ToPolygon(FootprintOf(e))) < keep;
      }
      if (!too_near) return pose;
    }
  }
  // Nowhere to go: a step aside, back or forward, so that a unit a result
  // move left against the table's edge or a pond steps clear of it.
  for (double step : {1.0, 2.0, 4.0}) {
    for (double angle :
         {geometry::kPi, 0.0, geometry::kPi / 2, -geometry::kPi / 2}) {
      geometry::OrientedRect moved = r;
      moved.front_centre =
          r.front_centre + geometry::Rotate(geometry::Forward(r), angle) * step;
      const rules::Pose pose = rules::PoseOf(moved);
      if (PoseFree(unit, pose, 0.5, -1)) return pose;
    }
  }
  return std::nullopt;
}

// True when the engine takes `pose` as an end for `unit`
// (DaimyoEngine::CheckMoveEnd): wholly on the table and out of impassable
// ground.
bool GamePlayer::EndAccepted(int unit, const rules::Pose& pose) const {
  const geometry::Polygon shape = geometry::ToPolygon(FootprintAt(unit, pose));
  if (!rules::OnTable(*field_, shape)) return false;
  // The engine's own test: the footprint shrunk by the contact distance
  // (touching a pond is not entering it) meets no impassable ground.
  const geometry::Polygon inner =
      rules::daimyo::InnerShape(*field_, FootprintAt(unit, pose));
  for (const rules::TerrainFeature& t : field_->terrain) {
    if (t.kind == rules::TerrainKind::kImpassable &&
        geometry::PolygonsIntersect(t.area, inner)) {
      return false;
    }
  }
  return true;
}

// The pose in which `charger` touches `target`: against the side of it the
// charger stands off (front, flank or rear, as the diagonals cut the plane
// around it; only the front of a unit not routing), front to that side,
// centred on it; nothing when that pose is not free (the table's edge, a
// pond, other units) or the charger stands inside the target.
std::optional<rules::Pose> GamePlayer::ContactPose(int charger,
                                                   int target) const {
  const geometry::OrientedRect t = FootprintOf(target);
  const geometry::Side side =
      geometry::SideOf(t, geometry::Centre(FootprintOf(charger)));
  // A charge meets the target's front (the player's choice: a flank or
  // rear comes only as a second charger joining a melee, JoinPose); only
  // routers, whom the contact destroys at once, are caught from any side.
  if (side == geometry::Side::kInside ||
      (side != geometry::Side::kFront && !status(target).routing)) {
    return std::nullopt;
  }
  return FreeContactPose(charger, target);
}

// The engine's own contact pose (reading 37, the one the move generator
// offers) of `charger` against the side of `target` it stands off, when it
// is free of other units and touches the target; nothing otherwise.
std::optional<rules::Pose> GamePlayer::FreeContactPose(int charger,
                                                       int target) const {
  const rules::Pose pose =
      rules::daimyo::ChargeContact(*field_, state(), charger, target, 0).to;
  if (!PoseFree(charger, pose, kClearanceCm, target)) return std::nullopt;
  const double gap =
      geometry::PolygonDistance(geometry::ToPolygon(FootprintAt(charger, pose)),
                                geometry::ToPolygon(FootprintOf(target)));
  if (gap * 10 > field_->rules.contact_mm - 0.5) return std::nullopt;
  return pose;
}

// True when `pose` is within `charger`'s charge: 20 cm of its front centre
// (30 cm mounted).
bool GamePlayer::WithinCharge(int charger, const rules::Pose& pose) const {
  const rules::Pose& from = status(charger).pose;
  const double mm = std::hypot(pose.x_mm - from.x_mm, pose.y_mm - from.y_mm);
  const bool mounted =
      state().profiles[charger].mobility == rules::Mobility::kMounted;
  return mm <= (mounted ? kMountedChargeMm : kFootChargeMm);
}

// The pose in which `charger` joins a friend's charge on `target`: against
// the flank or rear of it the charger stands off (the front is the first
// charger's), front to that side, centred on it, as the engine's contact
// pose; nothing when the charger stands off the target's front, when that
// pose is not free of every other unit by the usual clearance (the first
// charger included) or on the table, or when it is beyond the charge's
// reach. Its losses narrow the target from the sides and the rear while
// the fight stays whole (RULES.md reading 40).
std::optional<rules::Pose> GamePlayer::JoinPose(int charger, int target) const {
  const geometry::OrientedRect t = FootprintOf(target);
  const geometry::Side side =
      geometry::SideOf(t, geometry::Centre(FootprintOf(charger)));
  if (side == geometry::Side::kInside || side == geometry::Side::kFront) {
    return std::nullopt;
  }
  const std::optional<rules::Pose> pose = FreeContactPose(charger, target);
  if (!pose.has_value() || !EndAccepted(charger, *pose) ||
      !WithinCharge(charger, *pose)) {
    return std::nullopt;
  }
  return pose;
}

// True when a charge of `charger` reaches `target`: a contact pose within
// 20 cm of its front centre (30 cm mounted).
bool GamePlayer::ChargeReaches(int charger, int target) const {
  const std::optional<rules::Pose> pose = ContactPose(charger, target);
  return pose.has_value() && WithinCharge(charger, *pose);
}

// Where a charge that falls short ends: part of the way to its contact
// pose (or to the target's front), facing the way it charged, not in
// contact; where it stands when no such pose is free.
rules::Pose GamePlayer::ShortPose(int charger, int target) {
  const rules::Pose from = status(charger).pose;
  const std::optional<rules::Pose> contact = ContactPose(charger, target);
  const geometry::OrientedRect t = FootprintOf(target);
  const geometry::Vec2 start{from.x_mm / 10.0, from.y_mm / 10.0};
  const geometry::Vec2 end =
      contact.has_value()
          ? geometry::Vec2{contact->x_mm / 10.0, contact->y_mm / 10.0}
          : t.front_centre;
  const geometry::Vec2 way = end - start;
  const int facing = contact.has_value()
                         ? contact->facing_deg
                         : rules::FacingDegrees(std::atan2(way.y, way.x));
  for (int percent : {Uniform(40, 80), 30, 15}) {
    const rules::Pose pose = PoseAt(start + way * (percent / 100.0), facing);
    if (!PoseFree(charger, pose, kClearanceCm, target)) continue;
    if (geometry::PolygonDistance(
            geometry::ToPolygon(FootprintAt(charger, pose)),
            geometry::ToPolygon(t)) < 1) {
      continue;
    }
    return pose;
  }
  return from;
}

// True when the rules allow `firer` to shoot at `target` on the table: in
// arc, in sight, in range (3 cm in woods), and the nearest enemy that is,
// unless the firer is being charged (it fires at its chargers).
bool GamePlayer::MayShoot(int firer, int target, bool at_charger) const {
  const rules::daimyo::ShotMeasure m =
      rules::daimyo::MeasureShot(rules_, *field_, state(), firer, target);
  if (!m.in_arc || !m.line_of_sight) return false;
  if (rules::daimyo::BandAt(rules_, m.distance, m.woods_limit) ==
      rules::RangeBand::kOutOfRange) {
    return false;
  }
  rules::daimyo::Shot shot;
  shot.firer = firer;
  shot.target = target;
  const bool charged =
      at_charger || rules::daimyo::FirerBeingCharged(state(), shot);
  return charged || m.nearer_enemy < 0;
}

// Puts the measured facts into `shot` as the engine does before it works
// out the hits (DaimyoEngine::MeasureFiring).
void GamePlayer::ApplyShotMeasure(rules::daimyo::Shot& shot) const {
  const rules::daimyo::ShotMeasure m = rules::daimyo::MeasureShot(
      rules_, *field_, state(), shot.firer, shot.target);
  rules::daimyo::ShotFacts& f = shot.facts;
  f.declared_band.reset();
  f.distance_mm = static_cast<int>(std::lround(m.distance * 10));
  f.measured = true;
  f.woods_limit = m.woods_limit;
  f.target_in_cover = m.target_in_cover;
  f.target_in_building = m.target_in_building;
  f.firing_from_building = m.firing_from_building;
  f.target_in_column_or_flanked = m.target_in_column_or_flanked;
  f.firer_in_cover = m.firer_in_cover;
  const rules::UnitStatus& t = status(shot.target);
  if (state().IsChargedBy(shot.firer, shot.target) && t.charge_start_mm >= 0) {
    f.chargers_began_beyond_effective =
        t.charge_start_mm > rules_.firing.effective_range_mm;
  }
}

// Declares a round's measured facts exactly as measured, on the log's sides
// and on the pairing the claims are worked out on. No side claims to defend
// a linear obstacle (a declared fact this player leaves out on a table).
void GamePlayer::DeclareMeasuredMeleeFacts(v1::MeleeRound& round,
                                           rules::daimyo::MeleePairing& pairing,
                                           const rules::BattleState& at) const {
  for (int s = 0; s < 2; ++s) {
    const rules::daimyo::MeleeMeasure m = rules::daimyo::MeasureMeleeSide(
        *field_, at, pairing.sides[s].unit, pairing.sides[1 - s].unit);
    rules::daimyo::MeleeSideFacts& f = pairing.sides[s].facts;
    f.measured = true;
    f.enemy_fighting_to_flank_or_rear = m.enemy_fighting_to_flank_or_rear;
    f.enemy_uphill_or_behind_obstacle = m.enemy_uphill_or_behind_obstacle;
    f.enemy_in_building = m.enemy_in_building;
    f.in_building = m.in_building;
    f.defending_linear_obstacle = false;
    v1::MeleeSide* side = round.mutable_sides(s);
    side->set_enemy_fighting_to_flank_or_rear(
        f.enemy_fighting_to_flank_or_rear);
    side->set_enemy_uphill_or_behind_obstacle(
        f.enemy_uphill_or_behind_obstacle);
    side->set_in_building(f.in_building);
    side->set_enemy_in_building(f.enemy_in_building);
  }
}

// Puts the measured morale facts into a test as the engine does
// (DaimyoEngine::MeasureMorale): `friends` then holds the friendly routers
// near.
void GamePlayer::ApplyMoraleMeasure(rules::daimyo::MoraleTestInput& in,
                                    std::vector<int>& friends) const {
  const rules::daimyo::MoraleMeasure m =
      rules::daimyo::MeasureMorale(rules_, *field_, state(), in.unit);
  rules::daimyo::MoraleFacts& f = in.facts;
  f.measured = true;
  f.general_near = m.general_near;
  f.uphill_or_in_cover = m.uphill_or_in_cover;
  f.enemy_facing_flank_or_rear_near = m.enemy_facing_flank_or_rear_near;
  f.charged_frontally = m.charged_frontally;
  f.leader_killed_near = state().units[in.unit].leader_killed_near;
  if (m.out_of_command.has_value()) f.out_of_command = *m.out_of_command;
  friends = m.friends_routing_near;
  f.friends_routing_near = friends;
  f.enemies_routing_near = static_cast<int>(m.enemies_routing_near.size());
}

// The unit `unit` is in melee contact with (the first), or -1.
int GamePlayer::MeleeOpponent(int unit) const {
  for (const rules::MeleeContact& c : state().melees) {
    if (c.Involves(unit)) return c.a == unit ? c.b : c.a;
  }
  return -1;
}

// Works out a result move as the engine will, by the same function
// (rules::daimyo::MeasureResultMove): where it ends, unless `to` says, and
// what it meets; `fought` is the enemy it fought.
rules::daimyo::MoveMeasure GamePlayer::PredictResultMove(
    int unit, v1::ResultMoveKind kind, int distance_mm, const rules::Pose* to,
    int fought) const {
  const std::optional<rules::daimyo::MoveMeasure> m =
      rules::daimyo::MeasureResultMove(
          rules_, *field_, state(), unit,
          rules::daimyo::ResultMoveKindFromProto(kind), distance_mm, to,
          fought);
  if (m.has_value()) return *m;
  rules::daimyo::MoveMeasure stays;  // A hold: it stays where it is.
  stays.to = status(unit).pose;
  return stays;
}

void GamePlayer::AddPassedThrough(int unit, const rules::Pose& end,
                                  v1::ResultMove& move) const {
  for (const int u :
       rules::daimyo::FriendsPassedThrough(*field_, state(), unit, end)) {
    move.add_interpenetrated(UnitId(u));
  }
}

// The block a push back or rout move declares: the measured one.
v1::MoveBlock GamePlayer::PredictedBlock(
    v1::ResultMoveKind kind, const rules::daimyo::MoveMeasure& m) const {
  if (m.blocked_by_enemy_or_edge) return v1::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE;
  if (m.blocked_by_friends_or_impassable && kind != v1::RESULT_MOVE_KIND_ROUT) {
    return v1::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE;
  }
  return v1::MOVE_BLOCK_NONE;
}

// Where a router already fleeing ends a further rout move: straight on the
// way it faces, `distance_mm` or as far as keeps it on the table.
rules::Pose GamePlayer::FlightPose(int router, int distance_mm) const {
  const geometry::OrientedRect r = FootprintOf(router);
  for (int d = distance_mm; d > 0; d -= 10) {
    const geometry::OrientedRect moved = geometry::MovedForward(r, d / 10.0);
    const rules::Pose pose = rules::PoseOf(moved);
    if (rules::OnTable(*field_,
                       geometry::ToPolygon(FootprintAt(router, pose)))) {
      // On past any friend it ends on, as the rules make it (the engine
      // measures it): off the table then, if that is where clearing goes.
      return rules::daimyo::ClearOfFriends(*field_, state(), router, pose);
    }
  }
  return rules::daimyo::ClearOfFriends(*field_, state(), router,
                                       status(router).pose);
}

// Gives a pursuit its end: straight ahead its distance, stopping where it
// meets the routers (who are then caught: contact after pursuit) or the
// table's edge.
void GamePlayer::SetPursuitTo(int winner, int loser, v1::ResultMove& move) {
  const geometry::OrientedRect r = FootprintOf(winner);
  const bool router_there = Present(state(), loser) && status(loser).routing;
  int d = static_cast<int>(move.distance_mm());
  if (router_there) {
    d = std::min(d, static_cast<int>(std::floor(Gap(winner, loser) * 10)));
  }
  rules::Pose to = status(winner).pose;
  for (; d > 0; d -= 5) {
    const rules::Pose pose = rules::PoseOf(geometry::MovedForward(r, d / 10.0));
    if (rules::OnTable(*field_,
                       geometry::ToPolygon(FootprintAt(winner, pose)))) {
      to = pose;
      break;
    }
  }
  *move.mutable_to() = rules::PoseToProto(to);
  const rules::daimyo::MoveMeasure m =
      PredictResultMove(winner, v1::RESULT_MOVE_KIND_PURSUIT, 0, &to, loser);
  if (router_there && status(loser).removal_owed.empty() &&
      geometry::PolygonDistance(geometry::ToPolygon(FootprintAt(winner, m.to)),
                                geometry::ToPolygon(FootprintOf(loser))) *
              10 <=
          field_->rules.contact_mm) {
    move.set_contact_after_pursuit(true);
  }
}

}  // namespace gunbai::generate::internal
