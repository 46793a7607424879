// Pictures for the map tests: an SVG drawn to PNG by the real rsvg-convert
// (Debian's librsvg2-bin) and read back with libpng, and a pixel check.
#ifndef GUNBAI_TESTS_MAP_RASTER_H_
#define GUNBAI_TESTS_MAP_RASTER_H_

#include <optional>
#include <string>
#include <vector>

#include "rules/geometry/geometry.h"

namespace gunbai::testing {

struct Rgb {
  int r = 0, g = 0, b = 0;
};

struct Image {
  int width = 0;
  int height = 0;
  std::vector<unsigned char> rgba;

  Rgb At(int x, int y) const {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
  }
};

// Reads an RGBA PNG with libpng's simplified API; nullopt if it cannot.
std::optional<Image> ReadPng(const std::string& path);

// Writes `svg` to the test's temp dir as NAME.svg, runs rsvg-convert on it
// into NAME.png and returns the PNG read back; nullopt (and a test failure)
// if either fails.
std::optional<Image> Rasterise(const std::string& svg, const std::string& name);

// Checks the pixel that holds the image point `p` (pixels, as MapPixel
// gives) against `want`, each channel within `tolerance`.
void ExpectColour(const Image& image, geometry::Vec2 p, Rgb want,
                  int tolerance = 10);

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_MAP_RASTER_H_
