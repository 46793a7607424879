// `gunbai map` on the sample game with positions (tests/data/table-game,
// worked in tests/data/README.md), drawn by the real rsvg-convert: units are
// where the log and the replay put them. At the default 5 pixels a cm a
// table point (x, y) cm is the pixel ((5 + x) * 5, (8 + 120 - y) * 5)
// (service/render/map_svg.h, MapPixel). Points are chosen inside a base and
// clear of a mounted base's diagonals.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/cli/cli.h"
#include "tests/map/raster.h"

namespace gunbai::testing {
namespace {

using ::testing::HasSubstr;

constexpr Rgb kClan0 = {0xa8, 0x28, 0x20};  // Tokugawa: the first clan.
constexpr Rgb kClan1 = {0x1c, 0x32, 0x78};  // Ishida.
constexpr Rgb kTable = {0xdf, 0xe6, 0xd8};

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

CliRun Map(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"map"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back(std::string(GUNBAI_TEST_DATA_DIR) + "/table-game.textproto");
  std::ostringstream out, err;
  const int code = service::RunCli(all, out, err);
  return {code, out.str(), err.str()};
}

geometry::Vec2 Pixel(double x_cm, double y_cm) {
  return {(5 + x_cm) * 5, (8 + 120 - y_cm) * 5};
}

std::optional<Image> Drawn(int seq) {
  const CliRun run = Map({"--at=" + std::to_string(seq)});
  EXPECT_EQ(run.code, 0) << run.err;
  return Rasterise(run.out, "map_game_" + std::to_string(seq));
}

bool Near(Rgb a, Rgb b) {
  return std::abs(a.r - b.r) <= 10 && std::abs(a.g - b.g) <= 10 &&
         std::abs(a.b - b.b) <= 10;
}

// Before any event: tok-cav (mounted, 2 a rank: 8 x 6 cm) at front centre
// (130, 25) facing up, so x 126..134, y 19..25; its front left base is x
// 126..130, y 22..25, and (126.8, 23.5) lies between that base's diagonals
// (at x = 126.8 they pass y = 22.6 and 24.4). tok-teppo's front left base
// is x 64..68, y 28..30 (centre (66, 29)); ish-yumi, facing down from y =
// 42, has a base x 62..66, y 42..44 (centre (64, 43)).
TEST(MapGame, UnitsStandWhereTheLogPutsThem) {
  const std::optional<Image> image = Drawn(0);
  ASSERT_TRUE(image.has_value());
  EXPECT_EQ(image->width, 950);
  ExpectColour(*image, Pixel(126.8, 23.5), kClan0);
  ExpectColour(*image, Pixel(66, 29), kClan0);
  ExpectColour(*image, Pixel(64, 43), kClan1);
  // Open table between the two lines: (100, 35).
  ExpectColour(*image, Pixel(100, 35), kTable);
}

// Seq 3: tok-cav charges to front centre (130, 50): y 44..50, its front
// left base y 47..50, and (126.8, 48.5) between its diagonals. Where it
// stood is open table again.
TEST(MapGame, AChargeMovesTheCharger) {
  const std::optional<Image> image = Drawn(3);
  ASSERT_TRUE(image.has_value());
  ExpectColour(*image, Pixel(126.8, 48.5), kClan0);
  ExpectColour(*image, Pixel(126.8, 23.5), kTable);
}

// Seq 6, the melee: ish-sam faces down from y = 50 (bases y 50..52 and
// 52..54, x 124..136); (135, 53) is in a rear base, clear of the melee's
// star drawn on the contact. Seq 7: pushed
// back 3 cm the way tok-cav faces (+y), its front is at y = 53: (126, 54)
// is in that base, and (126, 51.5), between tok-cav's front (y = 50) and
// ish-sam's (53), is neither clan's. Seq 8: tok-cav follows up the 3 cm to
// y = 53, and (126.8, 51.5) is in its front left base (y 50..53).
TEST(MapGame, APushBackAndAFollowUpMoveBothUnits) {
  const std::optional<Image> melee = Drawn(6);
  ASSERT_TRUE(melee.has_value());
  ExpectColour(*melee, Pixel(135, 53), kClan1);
  const std::optional<Image> pushed = Drawn(7);
  ASSERT_TRUE(pushed.has_value());
  ExpectColour(*pushed, Pixel(126, 54), kClan1);
  const geometry::Vec2 gap = Pixel(126, 51.5);
  const Rgb between =
      pushed->At(static_cast<int>(gap.x), static_cast<int>(gap.y));
  EXPECT_FALSE(Near(between, kClan0) || Near(between, kClan1))
      << between.r << "," << between.g << "," << between.b;
  const std::optional<Image> followed = Drawn(8);
  ASSERT_TRUE(followed.has_value());
  ExpectColour(*followed, Pixel(126.8, 51.5), kClan0);
}

// Seq 5, the volley: the line of fire is captioned with the measured
// distance, 42 - 30 = 12.0 cm, long range, and the three hits the log claims.
TEST(MapGame, AVolleyIsCaptionedWithItsMeasuredDistance) {
  const CliRun run = Map({"--at=5"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("12.0 cm, long range, 3 hits claimed"));
  EXPECT_THAT(run.out, HasSubstr("table-game: after event 5, turn 1: Tokugawa "
                                 "arquebusiers fire at Ishida archers"));
}

TEST(MapGame, TheSameEventGivesTheSameBytes) {
  EXPECT_EQ(Map({"--at=6"}).out, Map({"--at=6"}).out);
}

TEST(MapGame, UnusableRequestsExitTwoWithAMessage) {
  const CliRun missing = Map({"--at=99"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no event has seq 99"));
  std::ostringstream out, err;
  EXPECT_EQ(service::RunCli({"map", std::string(GUNBAI_TEST_DATA_DIR) +
                                        "/sekigahara.textproto"},
                            out, err),
            2);
  EXPECT_THAT(err.str(), HasSubstr("no table"));
}

}  // namespace
}  // namespace gunbai::testing
