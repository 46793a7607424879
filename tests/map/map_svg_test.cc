// The map's SVG (service/render/map_svg.h) drawn by the real rsvg-convert and
// read back with libpng. Every expected pixel is worked by hand from the
// scene's numbers and the layout the header documents: at px_per_cm 5 a table
// point (x, y) cm is the pixel ((5 + x) * 5, (8 + depth - y) * 5).
#include "service/render/map_svg.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rules/geometry/geometry.h"
#include "tests/map/raster.h"

namespace gunbai::service {
namespace {

using replay::MapAction;
using replay::MapClan;
using replay::MapScene;
using replay::MapTerrain;
using replay::MapTerrainKind;
using replay::MapUnit;

using geometry::kPi;
using geometry::Vec2;
using testing::ExpectColour;
using testing::Image;
using testing::Rasterise;
using testing::Rgb;

// The palette and fills map_svg.cc draws with.
constexpr Rgb kClan0 = {0xa8, 0x28, 0x20};  // #a82820, dark red.
constexpr Rgb kClan1 = {0x1c, 0x32, 0x78};  // #1c3278, dark blue.
constexpr Rgb kTable = {0xdf, 0xe6, 0xd8};  // #dfe6d8.
constexpr Rgb kWhite = {255, 255, 255};
constexpr Rgb kBlack = {0, 0, 0};

MapScene TwoClans() {
  MapScene scene;  // 180 x 120 cm.
  scene.title = "test scene";
  scene.clans = {{"oda", "Oda"}, {"takeda", "Takeda"}};
  return scene;
}

MapUnit Unit(std::string id, int clan, Vec2 front_centre, double facing,
             double frontage, double depth, int stands, int per_rank) {
  MapUnit u;
  u.id = id;
  u.label = id;
  u.clan = clan;
  u.footprint = {front_centre, facing, frontage, depth};
  u.stands = stands;
  u.stands_per_rank = per_rank;
  return u;
}

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

TEST(MapSvg, ParsesAtThePromisedSize) {
  const MapScene scene = TwoClans();
  const std::string svg = RenderMapSvg(scene);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  // Width: (5 + 180 + 5) cm * 5 = 950 px. Height: the title band 8, the
  // table 120, the scale bar's gap 3.5, two legend rows (the clans beside
  // the scale bar; the markers) of 3.5 and a pad of 1.5: 140 cm = 700 px.
  EXPECT_NE(svg.find("width=\"950\" height=\"700\" viewBox=\"0 0 1900.00 "
                     "1400.00\""),
            std::string::npos);
  const std::optional<Image> image = Rasterise(svg, "size");
  ASSERT_TRUE(image.has_value());
  EXPECT_EQ(image->width, 950);
  EXPECT_EQ(image->height, 700);
  // At 10 px a cm: 1900 x 1400.
  const std::optional<Image> big = Rasterise(RenderMapSvg(scene, 10), "size10");
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->width, 1900);
  EXPECT_EQ(big->height, 1400);
}

TEST(MapSvg, MapPixelIsTheDocumentedLayout) {
  const MapScene scene = TwoClans();
  // (5 + 0) * 5 = 25, (8 + 120 - 0) * 5 = 640: the table's near left corner.
  EXPECT_DOUBLE_EQ(MapPixel(scene, {0, 0}).x, 25);
  EXPECT_DOUBLE_EQ(MapPixel(scene, {0, 0}).y, 640);
  // (5 + 34) * 10 = 390, (8 + 120 - 18) * 10 = 1100.
  EXPECT_DOUBLE_EQ(MapPixel(scene, {34, 18}, 10).x, 390);
  EXPECT_DOUBLE_EQ(MapPixel(scene, {34, 18}, 10).y, 1100);
}

TEST(MapSvg, UnitsAreDrawnInTheirClansColours) {
  MapScene scene = TwoClans();
  // Clan 0 faces up the table (pi/2) from (40, 20): 16 cm wide, 4 deep, 4
  // bases of 4 cm. Forward (0, 1), its left (-1, 0): the front left corner
  // is (32, 20); the first base spans x 32..36, y 16..20: centre (34, 18),
  // the pixel ((5 + 34) * 5, (128 - 18) * 5) = (195, 550).
  scene.units.push_back(Unit("oda-1", 0, {40, 20}, kPi / 2, 16, 4, 4, 4));
  // Clan 1 faces down (-pi/2) from (120, 100): 12 x 3, 3 bases. Forward
  // (0, -1), its left (1, 0): front left (126, 100), the first base spans x
  // 122..126, y 100..103: centre (124, 101.5), the pixel (645, 132.5).
  scene.units.push_back(Unit("takeda-1", 1, {120, 100}, -kPi / 2, 12, 3, 3, 3));
  const std::optional<Image> image = Rasterise(RenderMapSvg(scene), "clans");
  ASSERT_TRUE(image.has_value());
  EXPECT_DOUBLE_EQ(MapPixel(scene, {34, 18}).x, 195);
  EXPECT_DOUBLE_EQ(MapPixel(scene, {34, 18}).y, 550);
  ExpectColour(*image, MapPixel(scene, {34, 18}), kClan0);
  ExpectColour(*image, {195, 550}, kClan0);
  ExpectColour(*image, {645, 132.5}, kClan1);
  // The last bases: centres (38, 18) and (120 - 4, 101.5) = (116, 101.5).
  ExpectColour(*image, MapPixel(scene, {38, 18}), kClan0);
  ExpectColour(*image, MapPixel(scene, {116, 101.5}), kClan1);
  // Well away from both (and their labels): the table.
  ExpectColour(*image, MapPixel(scene, {90, 60}), kTable);
  ExpectColour(*image, MapPixel(scene, {40, 40}), kTable);
}

TEST(MapSvg, SixClansDifferInGrey) {
  MapScene scene;
  // Six one-base units 8 x 4 facing up from (15 + 25 i, 60): base centres
  // (15 + 25 i, 58).
  for (int i = 0; i < 6; ++i) {
    scene.clans.push_back({"c" + std::to_string(i), "Clan"});
    scene.units.push_back(Unit("u" + std::to_string(i), i, {15 + 25.0 * i, 60},
                               kPi / 2, 8, 4, 1, 1));
  }
  const std::optional<Image> image = Rasterise(RenderMapSvg(scene), "grey");
  ASSERT_TRUE(image.has_value());
  std::vector<double> grey;
  for (int i = 0; i < 6; ++i) {
    const Vec2 p = MapPixel(scene, {15 + 25.0 * i, 58});
    const Rgb c = image->At(static_cast<int>(p.x), static_cast<int>(p.y));
    grey.push_back(0.299 * c.r + 0.587 * c.g + 0.114 * c.b);
  }
  // The palette's greys are 77, 52, 178, 110, 146 and 26: at least 25 apart.
  for (int i = 0; i < 6; ++i) {
    for (int j = i + 1; j < 6; ++j) {
      EXPECT_GE(std::abs(grey[i] - grey[j]), 20) << i << " vs " << j;
    }
  }
}

TEST(MapSvg, FacingTurnsTheFootprint) {
  // From (100, 60), 16 x 4 cm, 4 bases. Facing 0: forward (1, 0), left
  // (0, 1); corners (100, 68), (100, 52), (96, 52), (96, 68): x 96..100, y
  // 52..68. Facing pi/2: corners (92, 60), (108, 60), (108, 56), (92, 56):
  // x 92..108, y 56..60. (98, 66) is only in the first (its first base's
  // centre), (106, 58) only in the second (its last base's centre).
  MapScene east = TwoClans();
  east.units.push_back(Unit("u", 0, {100, 60}, 0, 16, 4, 4, 4));
  MapScene north = east;
  north.units[0].footprint.facing = kPi / 2;
  const std::optional<Image> a = Rasterise(RenderMapSvg(east), "east");
  const std::optional<Image> b = Rasterise(RenderMapSvg(north), "north");
  ASSERT_TRUE(a.has_value() && b.has_value());
  ExpectColour(*a, MapPixel(east, {98, 66}), kClan0);
  ExpectColour(*a, MapPixel(east, {106, 58}), kTable);
  ExpectColour(*b, MapPixel(north, {98, 66}), kTable);
  ExpectColour(*b, MapPixel(north, {106, 58}), kClan0);
}

TEST(MapSvg, TheFirstClansEdgeIsAtTheBottom) {
  MapScene scene = TwoClans();
  // One base 8 x 4 facing up: from (30, 7) it spans y 3..7, centre y 5;
  // from (30, 102), y 98..102, centre y 100.
  scene.units.push_back(Unit("near", 0, {30, 7}, kPi / 2, 8, 4, 1, 1));
  scene.units.push_back(Unit("far", 1, {30, 102}, kPi / 2, 8, 4, 1, 1));
  const std::optional<Image> image = Rasterise(RenderMapSvg(scene), "edge");
  ASSERT_TRUE(image.has_value());
  // (30, 5): ((5 + 30) * 5, (8 + 120 - 5) * 5) = (175, 615), near the
  // bottom of the 640 px table; (30, 100): (175, 140), near its top.
  ExpectColour(*image, {175, 615}, kClan0);
  ExpectColour(*image, {175, 140}, kClan1);
  EXPECT_GT(MapPixel(scene, {30, 5}).y, MapPixel(scene, {30, 100}).y);
}

TEST(MapSvg, APartialRearRankIsCentred) {
  MapScene scene = TwoClans();
  // 5 stands, 4 a rank, from (90, 40) facing up, 16 x 6: two ranks 3 cm
  // deep. The front rank spans y 37..40, x 82..98; the one rear stand is
  // centred: x 82 + 1.5 * 4 = 88 .. 92, y 34..37, centre (90, 35.5). Where
  // a stand from the left would be, (84, 35.5), is table.
  scene.units.push_back(Unit("five", 0, {90, 40}, kPi / 2, 16, 6, 5, 4));
  const std::string svg = RenderMapSvg(scene);
  EXPECT_EQ(Count(svg, "class=\"base\""), 5);
  const std::optional<Image> image = Rasterise(svg, "partial");
  ASSERT_TRUE(image.has_value());
  ExpectColour(*image, MapPixel(scene, {90, 35.5}), kClan0);
  ExpectColour(*image, MapPixel(scene, {84, 38.5}), kClan0);
  ExpectColour(*image, MapPixel(scene, {84, 35.5}), kTable);
}

TEST(MapSvg, WoodsAreFilled) {
  MapScene scene = TwoClans();
  MapTerrain woods;
  woods.id = "w1";
  woods.kind = MapTerrainKind::kWoods;
  woods.area.vertices = {{30, 60}, {70, 60}, {70, 95}, {30, 95}};
  scene.terrain.push_back(woods);
  const std::optional<Image> image = Rasterise(RenderMapSvg(scene), "woods");
  ASSERT_TRUE(image.has_value());
  // The woods' fill, #2f5a2a at opacity 0.55 over the table #dfe6d8:
  // 0.45 * (223, 230, 216) + 0.55 * (47, 90, 42) = (126, 153, 120). The
  // point (41.5, 78.5) is in user units (mm) ((5 + 41.5) * 10, (128 -
  // 78.5) * 10) = (465, 495): 30 mm from the trees' pattern's circles (at
  // 15 and 45 mm modulo 60, radius 7), and 8 cm from the label at the
  // centre (50, 77.5).
  ExpectColour(*image, MapPixel(scene, {41.5, 78.5}), {126, 153, 120}, 12);
  ExpectColour(*image, MapPixel(scene, {90, 78.5}), kTable);
}

TEST(MapSvg, HostileTextIsEscapedAndCut) {
  MapScene scene = TwoClans();
  MapUnit u = Unit("x\"><script>", 0, {50, 50}, kPi / 2, 8, 4, 2, 2);
  u.label = "<script>&\"'";
  u.leaders = {std::string(1000, '<') + "script>"};
  scene.units.push_back(u);
  MapUnit wide = Unit("wide", 1, {120, 50}, kPi / 2, 8, 4, 2, 2);
  // 50 three-byte characters and an invalid byte: cut to 39 and "…".
  wide.label.clear();
  for (int i = 0; i < 50; ++i) wide.label += "\xE6\x97\xA5";  // "日"
  wide.label += "\xFF";
  scene.units.push_back(wide);
  scene.clans[1].name =
      "Tak\x01"
      "eda & <sons>";
  const std::string svg = RenderMapSvg(scene);
  // The apostrophe as &#39; (rules/text_escape.h's one HTML escaper:
  // a reference HTML 4, HTML 5 and XML all read).
  EXPECT_NE(svg.find(">&lt;script&gt;&amp;&quot;&#39;</text>"),
            std::string::npos);
  EXPECT_NE(svg.find("id=\"unit-x&quot;&gt;&lt;script&gt;\""),
            std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("\x01"), std::string::npos);
  EXPECT_NE(svg.find("Tak?eda &amp; &lt;sons&gt;"), std::string::npos);
  std::string cut;
  for (int i = 0; i < 39; ++i) cut += "\xE6\x97\xA5";
  EXPECT_NE(svg.find(">" + cut + "\xE2\x80\xA6</text>"), std::string::npos);
  // The leader's 1000 '<' are cut to 39 and "…": never 40 in a row.
  EXPECT_EQ(svg.find(std::string(40, '<')), std::string::npos);
  EXPECT_TRUE(Rasterise(svg, "hostile").has_value());
}

TEST(MapSvg, NonFiniteAndAbsurdInputIsLeftOut) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  MapScene scene = TwoClans();
  scene.units.push_back(Unit("a", 0, {nan, 10}, kPi / 2, 8, 4, 2, 2));
  scene.units.push_back(Unit("b", 0, {10, 10}, inf, 8, 4, 2, 2));
  scene.units.push_back(Unit("c", 1, {20, 20}, 0, 1e300, nan, 2, 2));
  scene.units.push_back(Unit("d", 7, {60, 60}, 0, 8, 4, 1 << 30, -3));
  MapTerrain hill;
  hill.id = "h";
  hill.kind = MapTerrainKind::kHill;
  hill.area.vertices = {{0, 0}, {inf, 0}, {10, 10}};
  scene.terrain.push_back(hill);
  scene.action.kind = MapAction::Kind::kFire;
  scene.action.actor = 0;
  scene.action.from = {nan, 1};
  scene.action.rings = {{nan, "nan ring"}, {1e9, "huge"}};
  const std::string svg = RenderMapSvg(scene, nan);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  EXPECT_EQ(svg.find("e+"), std::string::npos);
  // "d" (no such clan, absurd stands) is drawn, grey, with at most 256
  // bases; the others are left out.
  EXPECT_NE(svg.find("id=\"unit-d\""), std::string::npos);
  EXPECT_EQ(svg.find("id=\"unit-a\""), std::string::npos);
  EXPECT_EQ(svg.find("id=\"unit-b\""), std::string::npos);
  EXPECT_EQ(svg.find("id=\"unit-c\""), std::string::npos);
  EXPECT_LE(Count(svg, "class=\"base\""), 256);
  // A NaN table is the default 180 x 120 and px_per_cm NaN the default 5.
  MapScene odd;
  odd.width = nan;
  odd.depth = -1;
  EXPECT_EQ(RenderMapSvg(odd, nan), RenderMapSvg(MapScene{}));
  EXPECT_TRUE(Rasterise(svg, "nan").has_value());
}

TEST(MapSvg, AnEmptySceneStillDrawsTheTable) {
  const MapScene scene;
  const std::optional<Image> image = Rasterise(RenderMapSvg(scene), "empty");
  ASSERT_TRUE(image.has_value());
  ExpectColour(*image, MapPixel(scene, {90, 60}), kTable);
  // Off the table, in the side margin: (-3, 60) -> (10, 340), white.
  ExpectColour(*image, MapPixel(scene, {-3, 60}), kWhite);
}

MapScene Busy() {
  MapScene scene = TwoClans();
  scene.title = "after event 41, turn 3: Takeda arquebusiers fire";
  MapUnit firer = Unit("t-arq", 1, {90, 80}, -kPi / 2, 12, 3, 3, 3);
  firer.highlighted = true;
  firer.leaders = {"General Takeda Shingen (3)"};
  MapUnit target = Unit("o-spear", 0, {90, 60}, kPi / 2, 16, 6, 8, 4);
  target.disordered = target.in_melee = true;
  target.carried_hits = 2;
  MapUnit horse = Unit("o-horse", 0, {40, 50}, 0.3, 8, 8, 2, 1);
  horse.mounted = true;
  scene.units = {firer, target, horse};
  MapTerrain hill;
  hill.id = "hill-1";
  hill.kind = MapTerrainKind::kHill;
  hill.area.vertices = {{120, 20}, {160, 25}, {150, 50}, {125, 45}};
  hill.line.points = {{125, 30}, {150, 38}};
  scene.terrain = {hill};
  scene.action.kind = MapAction::Kind::kFire;
  scene.action.actor = 0;
  scene.action.from = {90, 80};
  scene.action.to = {90, 60};
  scene.action.caption = "20.0 cm, long range";
  scene.action.rings = {{8, "effective 8 cm"}, {15, "long 15 cm"}};
  return scene;
}

TEST(MapSvg, TheSameSceneGivesTheSameBytes) {
  const MapScene scene = Busy();
  const std::string once = RenderMapSvg(scene);
  EXPECT_EQ(once, RenderMapSvg(scene));
  EXPECT_EQ(RenderMapSvg(scene, 7.5), RenderMapSvg(scene, 7.5));
  // Units are tooltipped in words and found by their ids.
  EXPECT_NE(once.find("<g class=\"unit\" id=\"unit-o-spear\"><title>o-spear "
                      "(Oda): disordered, in melee, 2 hits carried</title>"),
            std::string::npos);
  EXPECT_NE(once.find("acts in this event; leaders: General Takeda Shingen "
                      "(3)</title>"),
            std::string::npos);
  EXPECT_TRUE(Rasterise(once, "busy").has_value());
}

TEST(MapSvg, TheScaleBarIsTenCentimetres) {
  const MapScene scene = TwoClans();
  const std::string svg = RenderMapSvg(scene);
  EXPECT_NE(svg.find(">10 cm</text>"), std::string::npos);
  const std::optional<Image> image = Rasterise(svg, "scale");
  ASSERT_TRUE(image.has_value());
  // The bar: x from the table's left edge, 5 cm, to 15 cm (pixels 25 to
  // 75), its top 8 + 120 + 3.5 = 131.5 cm (657.5 px), 0.6 cm high (to
  // 660.5 px): row 659 is black from pixel 25 to 74, 50 = 10 * 5 pixels.
  int black = 0;
  for (int x = 15; x < 80; ++x) {
    const Rgb p = image->At(x, 659);
    if (p.r < 40 && p.g < 40 && p.b < 40) ++black;
  }
  EXPECT_EQ(black, 50);
  ExpectColour(*image, {25, 659}, kBlack);
  ExpectColour(*image, {74, 659}, kBlack);
  ExpectColour(*image, {24, 659}, kWhite);
  ExpectColour(*image, {75, 659}, kWhite);
}

}  // namespace
}  // namespace gunbai::service
