// Draws the table as SVG (`gunbai map`, the web pages' map): the terrain,
// every unit's bases in its clan's colour with its facing and markers, the
// action of one event (a volley's line of fire with its measured distance
// and the firer's range rings, a charge's arrow, a melee's contact, a move's
// path), a legend and a scale bar.
//
// The scene (replay/map_types.h) is plain data in table coordinates: the
// first clan's edge is drawn at the bottom. Building a scene from a replayed
// state is replay/'s job; this file only draws, as the other renderings of
// service/render/ write reports.
//
// Deterministic: the same scene gives the same bytes (numbers are written
// with fixed decimals, never in the locale's format; elements in the
// scene's order). Text is escaped for XML. Thread-safe (pure functions).
#ifndef GUNBAI_SERVICE_RENDER_MAP_SVG_H_
#define GUNBAI_SERVICE_RENDER_MAP_SVG_H_

#include <string>

#include "replay/map_types.h"
#include "rules/geometry/geometry.h"

namespace gunbai::service {

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
std::string RenderMapSvg(const replay::MapScene& scene, double px_per_cm = 5);

// Returns where the table point `p` (cm) is drawn in the rendered image, in
// pixels from its top left corner, at `px_per_cm`: for tests that check a
// unit's pixels, and for pages that point at the map. That is
//   ((kMapSideMarginCm + p.x) * px_per_cm,
//    (kMapTitleBandCm + scene.depth - p.y) * px_per_cm)
// with the depth and px_per_cm as RenderMapSvg sanitises them.
geometry::Vec2 MapPixel(const replay::MapScene& scene, geometry::Vec2 p,
                        double px_per_cm = 5);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_RENDER_MAP_SVG_H_
