#include "tests/map/raster.h"

#include <png.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"

namespace gunbai::testing {

// Reads an RGBA PNG with libpng's simplified API.
std::optional<Image> ReadPng(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) return std::nullopt;
  png.format = PNG_FORMAT_RGBA;
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr)) {
    return std::nullopt;
  }
  return image;
}

// Writes `svg` to the test's temp dir as NAME.svg, runs rsvg-convert on it
// and returns the PNG read back; nullopt (and a failure) if either fails.
std::optional<Image> Rasterise(const std::string& svg,
                               const std::string& name) {
  const std::string base = ::testing::TempDir() + name;
  std::ofstream(base + ".svg", std::ios::binary) << svg;
  const std::string command = std::string("'") + GUNBAI_RSVG_CONVERT +
                              "' -f png -o '" + base + ".png' '" + base +
                              ".svg'";
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  if (status != 0) return std::nullopt;
  std::optional<Image> image = ReadPng(base + ".png");
  EXPECT_TRUE(image.has_value()) << base << ".png";
  return image;
}

// Checks the pixel that holds the image point `p` (pixels, as MapPixel
// gives) against `want`, each channel within `tolerance`.
void ExpectColour(const Image& image, geometry::Vec2 p, Rgb want,
                  int tolerance) {
  const int x = static_cast<int>(std::floor(p.x));
  const int y = static_cast<int>(std::floor(p.y));
  ASSERT_TRUE(x >= 0 && y >= 0 && x < image.width && y < image.height)
      << "(" << x << ", " << y << ") is off the image";
  const Rgb got = image.At(x, y);
  EXPECT_TRUE(std::abs(got.r - want.r) <= tolerance &&
              std::abs(got.g - want.g) <= tolerance &&
              std::abs(got.b - want.b) <= tolerance)
      << "pixel (" << x << ", " << y << ") is (" << got.r << ", " << got.g
      << ", " << got.b << "), want (" << want.r << ", " << want.g << ", "
      << want.b << ")";
}

}  // namespace gunbai::testing
