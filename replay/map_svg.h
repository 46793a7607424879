// Draws the table as SVG (`gunbai map`, the web pages' map): the terrain,
// every unit's bases in its clan's colour with its facing and markers, the
// action of one event (a volley's line of fire with its measured distance
// and the firer's range rings, a charge's arrow, a melee's contact, a move's
// path), a legend and a scale bar.
//
// The scene is plain data in table coordinates (centimetres, the origin at
// the first clan's left corner, +x along its base line, +y away from it
// towards the other clans; rules/geometry/geometry.h's conventions): the
// first clan's edge is drawn at the bottom. Building a scene from a replayed
// state is replay/map_scene.h's job; this file only draws.
//
// Deterministic: the same scene gives the same bytes (numbers are written
// with fixed decimals, never in the locale's format; elements in the
// scene's order). Text is escaped for XML. Thread-safe (pure functions).
#ifndef GUNBAI_REPLAY_MAP_SVG_H_
#define GUNBAI_REPLAY_MAP_SVG_H_

#include <optional>
#include <string>
#include <vector>

#include "rules/geometry/geometry.h"

namespace gunbai::replay {

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

// The picture's layout, in centimetres of the picture (multiply by
// px_per_cm for pixels): the table is drawn kMapSideMarginCm from the left
// edge and kMapTitleBandCm from the top (the title band above it); the
// scale bar, exactly 10 cm long, starts at the table's left edge with its
// top kMapScaleBarGapCm below the table's bottom edge (the first clan's
// edge) and is kMapScaleBarHeightCm high; the legend rows follow. The
// picture is at least kMapMinContentWidthCm wide between its side margins.
inline constexpr double kMapSideMarginCm = 5;
inline constexpr double kMapTitleBandCm = 8;
inline constexpr double kMapScaleBarGapCm = 3.5;
inline constexpr double kMapScaleBarHeightCm = 0.6;
inline constexpr double kMapMinContentWidthCm = 60;

// Returns the scene as a standalone SVG document (UTF-8, with an XML
// declaration, a viewBox in millimetres of the table plus margins for the
// title, legend and scale bar, and width/height attributes at `px_per_cm`
// pixels a centimetre, rounded up to whole pixels). Each unit is a <g>
// with id "unit-<its id>" and a <title> naming its markers in words. Table
// sizes outside (0, 5000] cm and px_per_cm outside [0.5, 50] are replaced
// or clamped; elements with non-finite or absurd coordinates are left out.
std::string RenderMapSvg(const MapScene& scene, double px_per_cm = 5);

// Returns where the table point `p` (cm) is drawn in the rendered image, in
// pixels from its top left corner, at `px_per_cm`: for tests that check a
// unit's pixels, and for pages that point at the map. That is
//   ((kMapSideMarginCm + p.x) * px_per_cm,
//    (kMapTitleBandCm + scene.depth - p.y) * px_per_cm)
// with the depth and px_per_cm as RenderMapSvg sanitises them.
geometry::Vec2 MapPixel(const MapScene& scene, geometry::Vec2 p,
                        double px_per_cm = 5);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_MAP_SVG_H_
