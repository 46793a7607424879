// A map's scene as plain data: the table, its terrain, the units on it and
// one event's action, as replay/map_scene.h builds it from a replayed game
// and service/render/map_svg.h draws it. The standard library and the plane
// geometry only (no proto types), so that the drawing is tested on its own.
#ifndef GUNBAI_REPLAY_MAP_TYPES_H_
#define GUNBAI_REPLAY_MAP_TYPES_H_

#include <optional>
#include <string>
#include <vector>

#include "rules/geometry/geometry.h"

namespace gunbai::replay {

// The scene is plain data in table coordinates (centimetres, the origin at
// the first clan's left corner, +x along its base line, +y away from it
// towards the other clans; rules/geometry/geometry.h's conventions).

enum class MapTerrainKind {
  kWoods,
  kBuilding,
  kHill,            // `area` is the hill; `line`, if not empty, its crest.
  kLinearObstacle,  // `line` only: a wall, a hedge, a fence.
  kImpassable,
  kCamp,  // A clan's camp (Samurai Knight Fever's camp sacking).
};

struct MapTerrain {
  std::string id;
  MapTerrainKind kind = MapTerrainKind::kWoods;
  geometry::Polygon area;  // Empty for a linear obstacle.
  geometry::Polyline line;
  // kCamp: whose camp, an index into MapScene::clans (its outline is drawn
  // in that clan's colour, with the clan's id); -1 when not known.
  int clan = -1;
};

struct MapUnit {
  std::string id;
  // What is written on or beside it (the unit's name, or its id).
  std::string label;
  // Index into MapScene::clans: its colour and its legend entry.
  int clan = 0;
  // Its bases as one rectangle (front centre, facing, frontage, depth).
  geometry::OrientedRect footprint;
  // Stands now, and per rank: the rectangle is cut into that many bases.
  int stands = 1;
  int stands_per_rank = 1;
  bool mounted = false;
  // Markers.
  bool disordered = false;
  bool routing = false;
  bool frenzied = false;
  bool halted = false;
  bool in_melee = false;
  int carried_hits = 0;
  // Leaders attached, as labels (e.g. "General Oda Nobunaga (3)").
  std::vector<std::string> leaders;
  // The unit acts in the event drawn (drawn with an outline that stands out).
  bool highlighted = false;
};

// What the event drawn did, overlaid on the table.
struct MapAction {
  enum class Kind { kNone, kFire, kCharge, kMelee, kMove };
  Kind kind = Kind::kNone;
  // Indices into MapScene::units; -1 when not used.
  int actor = -1;
  int target = -1;
  // kFire: the line of fire between the nearest points, with its measured
  // length written beside it ("12.3 cm, long"); kMelee: the contact;
  // kCharge and kMove: the path, `from` to `to` (an arrow).
  geometry::Vec2 from;
  geometry::Vec2 to;
  // Written beside the line or arrow: "12.3 cm, long range".
  std::string caption;
  // kFire: the firer's reach at each radius (its footprint grown by it,
  // rounded at the corners: every point within that distance of the unit),
  // e.g. its effective and long ranges (8 and 15 cm), each with its label.
  struct Ring {
    double radius = 0;
    std::string label;
  };
  std::vector<Ring> rings;
};

struct MapClan {
  std::string id;
  std::string name;
};

struct MapScene {
  // The table's size, cm.
  double width = 180;
  double depth = 120;
  // The title line: the game, the event drawn ("after event 41, turn 3:
  // Takeda arquebusiers fire at Oda spearmen").
  std::string title;
  // In header order; colours are assigned by index from a fixed palette
  // that stays readable in grey.
  std::vector<MapClan> clans;
  std::vector<MapTerrain> terrain;
  // Units on the table (removed units are left out by the scene builder).
  std::vector<MapUnit> units;
  MapAction action;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_MAP_TYPES_H_
