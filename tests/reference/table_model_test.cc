// Oracle cases for the reference table geometry, worked by hand from the
// rules texts and the worked examples in tests/data/README.md
// ("table-game.textproto") and RULES.md "The table" (not from the engine).
#include "tests/reference/table_model.h"

#include "gtest/gtest.h"

namespace gunbai::reference {
namespace {

TableUnit Foot(const std::string& id, const std::string& clan, int stands,
               int per_rank, Pose pose) {
  TableUnit u;
  u.id = id;
  u.clan = clan;
  u.stands = stands;
  u.stands_per_rank = per_rank;
  u.pose = pose;
  return u;
}

// tok-teppo: 6 stands, 3 a rank, 12 x 4 cm at (700, 300) facing 0.
TEST(ReferenceTableTest, FootprintOfAFootUnitFacingUpTheTable) {
  const Footprint f =
      Foot("t", "red", 6, 3, {700, 300, 0}).Shape();
  EXPECT_DOUBLE_EQ(f.corner[0].x, 640);  // front left
  EXPECT_DOUBLE_EQ(f.corner[0].y, 300);
  EXPECT_DOUBLE_EQ(f.corner[1].x, 760);  // front right
  EXPECT_DOUBLE_EQ(f.corner[2].y, 260);  // rear, 2 ranks of 2 cm
  EXPECT_DOUBLE_EQ(f.centre.y, 280);
}

// Facing 90 (towards +x): the right hand is -y, the rear -x.
TEST(ReferenceTableTest, FootprintFacingRight) {
  const Footprint f = Foot("t", "red", 2, 2, {500, 500, 90}).Shape();
  EXPECT_DOUBLE_EQ(f.corner[0].y, 540);  // front left is +y
  EXPECT_DOUBLE_EQ(f.corner[1].y, 460);
  EXPECT_DOUBLE_EQ(f.corner[2].x, 480);  // 1 rank of 2 cm behind
}

// A headquarters is 4 x 4 cm mounted or not; mounted 4 x 3; foot 4 x 2.
TEST(ReferenceTableTest, BaseSizes) {
  EXPECT_EQ(BaseSizeFor(true, true).depth_mm, 40);
  EXPECT_EQ(BaseSizeFor(false, true).depth_mm, 30);
  EXPECT_EQ(BaseSizeFor(false, false).depth_mm, 20);
  // Fewer stands than a rank: the front is the stands left.
  const Footprint f = Foot("t", "red", 2, 4, {500, 500, 0}).Shape();
  EXPECT_DOUBLE_EQ(f.half_width, 40);
}

// table-game: tok-teppo's front y = 30 cm, ish-yumi's (facing 180, 16 x 2
// cm at (700, 420)) y = 42: 12.0 cm, long range; the wall at y = 41 lies
// across the line of fire, 1 cm from ish-yumi: cover.
TEST(ReferenceTableTest, TableGameVolley) {
  Scene scene;
  scene.units = {Foot("tok-teppo", "tokugawa", 6, 3, {700, 300, 0}),
                 Foot("ish-yumi", "ishida", 4, 4, {700, 420, 180})};
  Terrain wall;
  wall.id = "wall";
  wall.kind = TerrainKind::kLinearObstacle;
  wall.outline.points = {{580, 410}, {820, 410}};
  scene.terrain = {wall};
  const ShotFacts m = MeasureShot(scene, 0, 1);
  EXPECT_DOUBLE_EQ(m.distance_mm, 120);
  EXPECT_EQ(m.band, Band::kLong);
  EXPECT_TRUE(m.in_arc);
  EXPECT_TRUE(m.line_of_sight);
  EXPECT_TRUE(m.target_in_cover);
  EXPECT_FALSE(m.target_column_or_flanked);
  EXPECT_TRUE(m.nearer_enemy.empty());
}

// RULES.md/table tests: blue-yumi at (800, 280) facing 270, its front edge
// x = 80, y 20..36; the right arc line from (66, 30) reaches y = 44 at x =
// 80: out of arc. Moved to y 38..54 (front centre (800, 460)) it is in.
TEST(ReferenceTableTest, ArcOfFire) {
  const Footprint firer = Foot("f", "red", 6, 3, {600, 300, 0}).Shape();
  EXPECT_FALSE(InArc(firer, false,
                     Foot("t", "blue", 4, 4, {800, 280, 270}).Shape()));
  EXPECT_TRUE(InArc(firer, true,
                    Foot("t", "blue", 4, 4, {800, 280, 270}).Shape()));
  // Its front edge x = 80, y 44..60: its corner (80, 44) on the arc line
  // (the boundary is in the arc).
  EXPECT_TRUE(InArc(firer, false,
                    Foot("t", "blue", 4, 4, {800, 520, 270}).Shape()));
  // Behind the front edge: never in arc.
  EXPECT_FALSE(InArc(firer, false,
                     Foot("t", "blue", 1, 1, {600, 200, 0}).Shape()));
}

// A friend across every line from the front (y 35..38 over x 52..68) hides
// a target at y 44..46; a 4 cm gap lets fire through, 3.8 cm does not.
TEST(ReferenceTableTest, LineOfSightAndTheGap) {
  Scene scene;
  TableUnit sam = Foot("red-sam", "red", 4, 4, {600, 380, 0});
  sam.mounted = true;
  scene.units = {Foot("f", "red", 6, 3, {600, 300, 0}),
                 Foot("t", "blue", 1, 1, {600, 440, 180}), sam};
  std::string why;
  EXPECT_FALSE(LineOfSight(scene, 0, 1, &why));
  EXPECT_EQ(why, "red-sam");
  // Two single stands, y 36..38, either side of the line x = 60 from the
  // front (x 54..66) to the target (x 58..62): x 50..54 and 66..70 leave
  // 12 cm.
  scene.units = {Foot("f", "red", 6, 3, {600, 300, 0}),
                 Foot("t", "blue", 1, 1, {600, 440, 180}),
                 Foot("l", "red", 1, 1, {520, 380, 0}),
                 Foot("r", "red", 1, 1, {680, 380, 0})};
  EXPECT_TRUE(LineOfSight(scene, 0, 1, nullptr));
  // x 54..58 and 62..66: exactly 4 cm; the line x = 60 is 2 cm from each.
  scene.units[2].pose = {560, 380, 0};
  scene.units[3].pose = {640, 380, 0};
  EXPECT_TRUE(LineOfSight(scene, 0, 1, nullptr));
  // x 54.1..58.1 and 61.9..65.9: 3.8 cm.
  scene.units[2].pose = {561, 380, 0};
  scene.units[3].pose = {639, 380, 0};
  EXPECT_FALSE(LineOfSight(scene, 0, 1, nullptr));
}

// A flank: the firer's centre off the target's side, beyond its diagonals.
TEST(ReferenceTableTest, FlankedByTheDiagonals) {
  // Target 4 x 2 cm at (600, 600) facing 0: centre (60, 59), corners
  // (58, 60) (62, 60) (62, 58) (58, 58). Its front-right diagonal runs from
  // the centre through (62, 60): slope 1/2.
  const Footprint t = Foot("t", "blue", 1, 1, {600, 600, 0}).Shape();
  EXPECT_FALSE(OffFlankOrRear(t, {600, 700}));  // straight ahead
  EXPECT_FALSE(OffFlankOrRear(t, {800, 690}));  // on the diagonal: front
  EXPECT_TRUE(OffFlankOrRear(t, {801, 690}));   // just off it
  EXPECT_TRUE(OffFlankOrRear(t, {600, 400}));   // behind
}

// Woods: a target whose centre is in woods is in cover and at the 3 cm
// woods range (2.5 cm away: effective).
TEST(ReferenceTableTest, WoodsGiveCoverAndTheWoodsRange) {
  Scene scene;
  scene.units = {Foot("f", "red", 6, 3, {600, 300, 0}),
                 Foot("t", "blue", 4, 4, {600, 325, 180})};
  Terrain w;
  w.id = "wood";
  w.kind = TerrainKind::kWoods;
  w.outline.points = {{400, 320}, {800, 320}, {800, 400}, {400, 400}};
  scene.terrain = {w};
  const ShotFacts m = MeasureShot(scene, 0, 1);
  EXPECT_TRUE(m.woods_limit);
  EXPECT_TRUE(m.target_in_cover);
  EXPECT_DOUBLE_EQ(m.distance_mm, 25);
  EXPECT_EQ(m.band, Band::kEffective);
  EXPECT_EQ(BandAt(30, true), Band::kEffective);
  EXPECT_EQ(BandAt(30.5, true), Band::kOut);
  EXPECT_EQ(BandAt(80, false), Band::kEffective);
  EXPECT_EQ(BandAt(80.1, false), Band::kLong);
  EXPECT_EQ(BandAt(150, false), Band::kLong);
  EXPECT_EQ(BandAt(150.1, false), Band::kOut);
}

// The nearest enemy: a headquarters 8.0 cm off, in arc and sight, is
// nearer than the 12.5 cm target (RULES.md's table test).
TEST(ReferenceTableTest, NearestEnemy) {
  Scene scene;
  TableUnit hq = Foot("blue-hq", "blue", 1, 1, {600, 380, 180});
  hq.headquarters = true;
  scene.units = {Foot("f", "red", 6, 3, {600, 300, 0}),
                 Foot("blue-yumi", "blue", 4, 4, {600, 425, 180}), hq};
  const ShotFacts m = MeasureShot(scene, 0, 1);
  EXPECT_EQ(m.nearer_enemy, "blue-hq");
  EXPECT_TRUE(m.line_of_sight);  // past the headquarters on either side
  scene.units[2].in_melee = true;  // fire is not aimed into a melee
  EXPECT_TRUE(MeasureShot(scene, 0, 1).nearer_enemy.empty());
}

}  // namespace
}  // namespace gunbai::reference
