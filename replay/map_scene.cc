#include "replay/map_scene.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "replay/audit.h"
#include "rules/battlefield.h"
#include "rules/battlefield_proto.h"
#include "rules/status_macros.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;

MapTerrainKind KindOf(rules::TerrainKind kind) {
  switch (kind) {
    case rules::TerrainKind::kWoods:
      return MapTerrainKind::kWoods;
    case rules::TerrainKind::kBuilding:
      return MapTerrainKind::kBuilding;
    case rules::TerrainKind::kHill:
      return MapTerrainKind::kHill;
    case rules::TerrainKind::kLinearObstacle:
      return MapTerrainKind::kLinearObstacle;
    case rules::TerrainKind::kImpassable:
      return MapTerrainKind::kImpassable;
    case rules::TerrainKind::kCamp:
      return MapTerrainKind::kCamp;
  }
  return MapTerrainKind::kWoods;
}

std::string LeaderLabel(const rules::LeaderState& l) {
  return absl::StrCat(
      l.kind == rules::LeaderKind::kDaimyo ? "Daimyo " : "General ",
      l.name.empty() ? l.id : l.name, " (", l.command_rating, ")");
}

// What the scene is drawn from: the battlefield, and the units' poses
// before the event drawn (for the path of a move).
struct SceneInput {
  const v1::BattleLog* log = nullptr;
  const LoadedRuleset* ruleset = nullptr;
  rules::Battlefield field;
  std::vector<rules::Pose> before;
};

void AddUnits(const SceneInput& in, const rules::BattleState& state,
              MapScene& scene, std::vector<int>& scene_index) {
  scene_index.assign(state.units.size(), -1);
  for (std::size_t u = 0; u < state.units.size(); ++u) {
    const rules::UnitStatus& s = state.units[u];
    const rules::UnitProfile& p = state.profiles[u];
    if (!s.placed || s.removed || s.stands <= 0) continue;
    MapUnit m;
    m.id = p.id;
    m.label = p.name.empty() ? p.id : p.name;
    m.clan = p.clan;
    m.footprint = rules::Footprint(in.field, state, static_cast<int>(u));
    m.stands = s.stands;
    m.stands_per_rank = s.stands_per_rank;
    m.mounted = p.mobility == rules::Mobility::kMounted;
    m.disordered = s.disordered;
    m.routing = s.routing;
    m.frenzied = s.frenzied;
    m.halted = state.IsHalted(static_cast<int>(u));
    m.in_melee = s.in_melee;
    m.carried_hits = s.carried_hits;
    for (const rules::LeaderState& l : state.leaders) {
      if (!l.killed && l.attached_unit == static_cast<int>(u)) {
        m.leaders.push_back(LeaderLabel(l));
      }
    }
    scene_index[u] = static_cast<int>(scene.units.size());
    scene.units.push_back(std::move(m));
  }
}

int UnitNamed(const rules::BattleState& state, const std::string& id) {
  for (std::size_t u = 0; u < state.profiles.size(); ++u) {
    if (state.profiles[u].id == id) return static_cast<int>(u);
  }
  return -1;
}

// The line between the nearest points of two units, and its length.
void NearestLine(const MapScene& scene, MapAction& a) {
  const std::array<geometry::Vec2, 2> ends = geometry::NearestPoints(
      geometry::ToPolygon(scene.units[a.actor].footprint),
      geometry::ToPolygon(scene.units[a.target].footprint));
  a.from = ends[0];
  a.to = ends[1];
}

void AddFire(const SceneInput& in, const v1::Firing& f, MapAction& a,
             MapScene& scene) {
  a.kind = MapAction::Kind::kFire;
  NearestLine(scene, a);
  const double d = geometry::Distance(a.from, a.to);
  const v1::FiringRules& fire = in.ruleset->data.firing();
  a.caption = rules::Cm(d);
  if (fire.long_range_mm() > 0) {
    const double mm = d * 10;
    absl::StrAppend(&a.caption, ", ",
                    mm <= fire.effective_range_mm() + 0.5 ? "effective"
                    : mm <= fire.long_range_mm() + 0.5    ? "long range"
                                                          : "out of range");
  }
  if (fire.effective_range_mm() > 0) {
    a.rings.push_back(
        {fire.effective_range_mm() / 10.0,
         absl::StrCat("effective ",
                      rules::Cm(fire.effective_range_mm() / 10.0))});
  }
  if (fire.long_range_mm() > 0) {
    a.rings.push_back(
        {fire.long_range_mm() / 10.0,
         absl::StrCat("long ", rules::Cm(fire.long_range_mm() / 10.0))});
  }
  if (f.has_claimed_hits()) {
    absl::StrAppend(&a.caption, ", ", f.claimed_hits(), " hit",
                    f.claimed_hits() == 1 ? "" : "s", " claimed");
  }
}

// A move's path: the actor's front centre before the event to after it.
void AddPath(const SceneInput& in, int unit, MapAction::Kind kind, MapAction& a,
             const MapScene& scene) {
  a.kind = kind;
  const rules::Pose& was = in.before[unit];
  a.from = {was.x_mm / 10.0, was.y_mm / 10.0};
  a.to = scene.units[a.actor].footprint.front_centre;
  a.caption = rules::Cm(geometry::Distance(a.from, a.to));
}

// What the event did, in words, naming units as the map labels them.
std::string EventWords(const v1::Event& e, const rules::BattleState& state) {
  const auto name = [&state](const std::string& id) {
    const int u = UnitNamed(state, id);
    return u < 0 || state.profiles[u].name.empty() ? id
                                                   : state.profiles[u].name;
  };
  switch (e.body_case()) {
    case v1::Event::kMove:
      return absl::StrCat(name(e.move().unit()), " moves");
    case v1::Event::kCharge:
      return absl::StrCat(name(e.charge().unit()), " charge ",
                          name(e.charge().target()));
    case v1::Event::kFiring:
      return absl::StrCat(name(e.firing().unit()), " fire at ",
                          name(e.firing().target()));
    case v1::Event::kMeleeRound:
      return e.melee_round().sides_size() == 2
                 ? absl::StrCat(name(e.melee_round().sides(0).unit()), " and ",
                                name(e.melee_round().sides(1).unit()), " fight")
                 : "a melee round";
    case v1::Event::kResultMove: {
      static constexpr const char* kWords[] = {"make a result move",
                                               "are pushed back",
                                               "follow up",
                                               "rout",
                                               "pursue",
                                               "retire",
                                               "retreat",
                                               "hold"};
      const int kind = e.result_move().kind();
      return absl::StrCat(name(e.result_move().unit()), " ",
                          kind >= 0 && kind < 8 ? kWords[kind] : kWords[0]);
    }
    case v1::Event::kMoraleTest:
      return absl::StrCat(name(e.morale_test().unit()), " test morale");
    case v1::Event::kTurnStart:
      return "the turn starts";
    case v1::Event::kTurnEnd:
      return "the turn ends";
    case v1::Event::kActivation:
      return absl::StrCat(e.clan(), " is activated");
    default:
      return "";
  }
}

void AddAction(const SceneInput& in, const v1::Event& e,
               const rules::BattleState& state,
               const std::vector<int>& scene_index, MapScene& scene) {
  MapAction& a = scene.action;
  const auto at = [&](const std::string& id) {
    const int u = UnitNamed(state, id);
    return u < 0 ? -1 : scene_index[u];
  };
  const auto highlight = [&](int i) {
    if (i >= 0) scene.units[i].highlighted = true;
  };
  switch (e.body_case()) {
    case v1::Event::kFiring:
      a.actor = at(e.firing().unit());
      a.target = at(e.firing().target());
      if (a.actor >= 0 && a.target >= 0) AddFire(in, e.firing(), a, scene);
      break;
    case v1::Event::kMeleeRound:
      if (e.melee_round().sides_size() == 2) {
        a.actor = at(e.melee_round().sides(0).unit());
        a.target = at(e.melee_round().sides(1).unit());
        if (a.actor >= 0 && a.target >= 0) {
          a.kind = MapAction::Kind::kMelee;
          NearestLine(scene, a);
          a.caption = "melee";
        }
      }
      break;
    case v1::Event::kCharge:
    case v1::Event::kMove:
    case v1::Event::kResultMove: {
      const std::string& id = e.has_charge() ? e.charge().unit()
                              : e.has_move() ? e.move().unit()
                                             : e.result_move().unit();
      a.actor = at(id);
      if (e.has_charge()) a.target = at(e.charge().target());
      if (a.actor >= 0) {
        AddPath(
            in, UnitNamed(state, id),
            e.has_charge() ? MapAction::Kind::kCharge : MapAction::Kind::kMove,
            a, scene);
      }
      break;
    }
    case v1::Event::kMoraleTest:
      a.actor = at(e.morale_test().unit());
      break;
    default:
      break;
  }
  highlight(a.actor);
  highlight(a.target);
}

MapScene BuildScene(const SceneInput& in, const rules::BattleState& state,
                    const v1::Event* event) {
  MapScene scene;
  scene.width = in.field.width_mm / 10.0;
  scene.depth = in.field.depth_mm / 10.0;
  for (int c = 0; c < in.log->header().clans_size(); ++c) {
    const v1::Clan& clan = in.log->header().clans(c);
    scene.clans.push_back(
        {clan.id(), clan.name().empty() ? clan.id() : clan.name()});
  }
  for (const rules::TerrainFeature& t : in.field.terrain) {
    scene.terrain.push_back({t.id, KindOf(t.kind), t.area, t.line, t.clan});
  }
  std::vector<int> scene_index;
  AddUnits(in, state, scene, scene_index);
  const std::string game = in.log->header().game_id().empty()
                               ? std::string("the game")
                               : in.log->header().game_id();
  if (event == nullptr) {
    scene.title = absl::StrCat(game, ": before the first event");
    return scene;
  }
  AddAction(in, *event, state, scene_index, scene);
  const std::string words = EventWords(*event, state);
  scene.title =
      absl::StrFormat("%s: after event %d, turn %d%s%s", game, event->seq(),
                      event->turn(), words.empty() ? "" : ": ", words);
  return scene;
}

}  // namespace

absl::StatusOr<MapScene> SceneAt(const v1::BattleLog& log,
                                 const LoadedRuleset& ruleset,
                                 std::uint64_t at_seq) {
  if (!log.has_table()) {
    return absl::FailedPreconditionError(
        "the log has no table (BattleLog.table): it gives no positions to "
        "draw; add the table's size and each unit's position to draw it.");
  }
  AuditOptions options;
  GUNBAI_ASSIGN_OR_RETURN(std::unique_ptr<rules::Engine> engine,
                          CreateEngine(log, ruleset, options, {}));
  rules::TableRules table;
  if (ruleset.data.has_table()) {
    GUNBAI_ASSIGN_OR_RETURN(
        table, rules::TableRulesFromProto(ruleset.data.table(), "ruleset"));
  }
  GUNBAI_ASSIGN_OR_RETURN(
      std::optional<rules::Battlefield> field,
      rules::BattlefieldFromLog(log, table, engine->state()));
  if (!field.has_value()) {  // Not reached: the log has a table (above).
    return absl::InternalError("the log's table did not read");
  }
  SceneInput in;
  in.log = &log;
  in.ruleset = &ruleset;
  in.field = *std::move(field);
  const auto poses = [](const rules::BattleState& s) {
    std::vector<rules::Pose> out;
    for (const rules::UnitStatus& u : s.units) out.push_back(u.pose);
    return out;
  };
  if (at_seq == 0) return BuildScene(in, engine->state(), nullptr);
  in.before = poses(engine->state());
  std::optional<MapScene> scene;
  GUNBAI_RETURN_IF_ERROR(ForEachEventState(
      log, ruleset,
      [&](const v1::Event& event, const rules::BattleState& state) {
        if (scene.has_value()) return;
        if (event.seq() == at_seq) {
          scene = BuildScene(in, state, &event);
          return;
        }
        in.before = poses(state);
      }));
  if (!scene.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no event has seq ", at_seq,
                     "; give the seq of one of "
                     "the log's events, or 0 for the table before them."));
  }
  return *std::move(scene);
}

}  // namespace gunbai::replay
