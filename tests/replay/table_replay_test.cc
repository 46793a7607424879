// The table through replay: on a log with positions, what the players would
// declare is measured (rules/daimyo/measure.h, RULES.md "The table"), a
// declared fact the table contradicts is a violation naming both, and the
// measured facts are those the rules are worked out with.
//
// Every figure below is worked by hand from the shipped base sizes (foot
// 4 x 2 cm, mounted 4 x 3 cm, headquarters 4 x 4 cm) and the armies of
// tests/replay/test_logs.h:
//   red-teppo    6 stands, 3 a rank: 12 cm wide, 2 ranks = 4 cm deep.
//   red-samurai  mounted, 4 stands, 4 a rank: 16 cm wide, 3 cm deep.
//   blue-yumi    4 stands, 4 a rank: 16 cm wide, 2 cm deep.
//   blue-hq      1 stand: 4 x 4 cm.
// A pose is the front centre (mm) and the facing, degrees clockwise from +y
// (0 faces up the table, 180 down, 270 towards -x). With red-teppo at
// (600, 300) facing 0, its front edge runs x 54..66 cm at y = 30 cm and its
// rear at y = 26 cm.
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/coverage.h"
#include "replay/ruleset_loader.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Place {
  int x_mm;
  int y_mm;
  int facing_deg;
};

// Red's two units and blue's two, where the test puts them; units not
// given a place stand far off in the corners, out of every range.
struct Layout {
  Place red_teppo{600, 300, 0};
  Place red_samurai{150, 100, 0};
  Place blue_yumi{1650, 1100, 180};
  Place blue_hq{1300, 1100, 180};
};

void SetPosition(v1::Position* p, const Place& at) {
  p->set_x_mm(at.x_mm);
  p->set_y_mm(at.y_mm);
  p->set_facing_deg(at.facing_deg);
}

// A 180 x 120 cm table with the units placed as `layout` says, and events.
v1::BattleLog TableLog(const Layout& layout, const std::string& events) {
  v1::BattleLog log = LogWithEvents(events);
  log.mutable_table()->set_width_mm(1800);
  log.mutable_table()->set_depth_mm(1200);
  const Place places[] = {layout.red_teppo, layout.red_samurai,
                          layout.blue_yumi, layout.blue_hq};
  for (int i = 0; i < 4; ++i) {
    SetPosition(
        log.mutable_order_of_battle()->mutable_units(i)->mutable_position(),
        places[i]);
  }
  return log;
}

void AddTerrain(v1::BattleLog& log, const std::string& text) {
  v1::TerrainFeature* f = log.add_terrain();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, f)) << text;
}

// The findings of event `seq`, as "SEVERITY:rule_id".
std::vector<std::string> At(const v1::AuditReport& report, int seq) {
  std::vector<std::string> keys;
  for (const v1::Finding& f : report.findings()) {
    if (f.seq() == static_cast<uint64_t>(seq)) {
      keys.push_back(
          absl::StrCat(v1::Severity_Name(f.severity()), ":", f.rule_id()));
    }
  }
  return keys;
}

const v1::Finding* Find(const v1::AuditReport& report,
                        const std::string& rule_id) {
  for (const v1::Finding& f : report.findings()) {
    if (f.rule_id() == rule_id) return &f;
  }
  return nullptr;
}

// The audit of `log` under the built-in Daimyo ruleset with a move rate of
// `move_mm` for units of `mobility` (the shipped ruleset gives none).
v1::AuditReport AuditWithMoveRate(const v1::BattleLog& log,
                                  v1::Mobility mobility, int move_mm) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(ruleset.ok());
  if (!ruleset.ok()) return v1::AuditReport();
  v1::MovementRate* rate = ruleset->data.mutable_table()->add_movement();
  rate->set_mobility(mobility);
  rate->set_move_mm(static_cast<uint32_t>(move_mm));
  auto report = replay::AuditLog(log, *ruleset);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : v1::AuditReport();
}

std::string Opening() {
  return TurnStart(1, 1, "red") + Activation(2, 1, "red");
}

std::string Volley(int seq, const std::string& clan, const std::string& unit,
                   const std::string& target, const std::string& rest) {
  return Ev(seq, 1, clan,
            absl::StrCat("firing { unit: \"", unit, "\" target: \"", target,
                         "\" ", rest, " }"));
}

// A turn of one volley by red-teppo at `target` (`rest`: its stands, dice,
// facts and claims), on the table `layout` sets.
v1::BattleLog VolleyLog(const Layout& layout, const std::string& target,
                        const std::string& rest) {
  return TableLog(
      layout,
      Opening() + Volley(3, "red", "red-teppo", target, rest) + TurnEnd(4, 1));
}

// A rectangle of terrain, x0..x1 by y0..y1 mm.
void AddArea(v1::BattleLog& log, const std::string& id, const std::string& kind,
             int x0, int y0, int x1, int y1) {
  AddTerrain(log, absl::StrFormat(
                      "id: \"%s\" kind: %s outline { x_mm: %d y_mm: %d } "
                      "outline { x_mm: %d y_mm: %d } outline { x_mm: %d y_mm: "
                      "%d } outline { x_mm: %d y_mm: %d }",
                      id, kind, x0, y0, x1, y0, x1, y1, x0, y1));
}

// blue-yumi at (600, 425) facing 180: its front edge at y = 42.5 cm, 12.5 cm
// from red-teppo's front at y = 30: long range (over 8, up to 15 cm). The
// log declares effective. At long range the factors are +2 first volley
// (good order); blue-yumi has no armour, red-teppo is Seasoned and has not
// moved: +2. Dice 3+2, 3+2, 6+6: 7, 7, 14, one hit. At effective (+3) they
// would be 8, 8, 15: the three hits the log claims.
TEST(TableReplay, TheMeasuredDistanceSettlesTheRangeBand) {
  Layout layout;
  layout.blue_yumi = {600, 425, 180};
  const v1::AuditReport report =
      AuditOrDie(VolleyLog(layout, "blue-yumi",
                           "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                           "facts { range: RANGE_BAND_EFFECTIVE } "
                           "claimed_hits: 3"));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.fire.range",
                          "SEVERITY_DISPUTE:daimyo.fire.hit"));
  const v1::Finding* range = Find(report, "daimyo.table.fire.range");
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->claimed(), "effective range");
  EXPECT_EQ(range->computed(), "12.5 cm, long range");
  const v1::Finding* hit = Find(report, "daimyo.fire.hit");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->computed(), "1 hit");
  // Replay goes on with the hits as played: three remove a stand, so
  // blue-yumi owes a morale test at the turn's end, which the log lacks.
  EXPECT_THAT(At(report, 4),
              ElementsAre("SEVERITY_VIOLATION:daimyo.morale.missing"));
}

// A measured range need not be declared: the same volley with no band and
// the one hit claimed audits clean.
TEST(TableReplay, ARangeTheTableSettlesNeedNotBeDeclared) {
  Layout layout;
  layout.blue_yumi = {600, 425, 180};
  const v1::AuditReport report =
      AuditOrDie(VolleyLog(layout, "blue-yumi",
                           "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                           "claimed_hits: 1"));
  EXPECT_THAT(report.findings(), IsEmpty());
}

// blue-yumi at (800, 280) facing 270 (towards -x): its front edge along
// x = 80 cm, y 20..36, its rear at x = 82. It is 14 cm from red-teppo's right
// side (x = 66): long range. But the arc of fire's right edge leaves the
// front right corner (66, 30) at 45 degrees, so at x = 80 it is at y = 44,
// above the whole target (y up to 36): outside the arc.
TEST(TableReplay, ATargetOutsideTheArcOfFireIsAViolation) {
  Layout layout;
  layout.blue_yumi = {800, 280, 270};
  const v1::AuditReport report = AuditOrDie(VolleyLog(
      layout, "blue-yumi", "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6]"));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.fire.arc"));
}

// blue-yumi at (600, 500) facing 180, straight ahead: its front edge at
// y = 50, 20 cm from red-teppo's front at y = 30, beyond the 15 cm long
// range. It lies between the 45 degree lines (they run on across the table:
// the arc has no end), so the volley is out of range and in arc: one
// finding, not an arc finding too (reference class T1).
TEST(TableReplay, ATargetBeyondRangeStraightAheadIsNotOutOfArc) {
  Layout layout;
  layout.blue_yumi = {600, 500, 180};
  const v1::AuditReport report = AuditOrDie(VolleyLog(
      layout, "blue-yumi", "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6]"));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.fire.eligibility.range"));
}

// blue-hq at (700, 360) facing 180: x 68..72, y 36..40, 6.3 cm from
// red-teppo's front right corner (66, 30) (a 2 cm by 6 cm offset), inside
// the arc (the right 45 degree line is at x = 72 by y = 36) and nearer than
// blue-yumi at 12.5 cm. But its centre (70, 38) is in a wood (x 65..75, y
// 34..42), where the range is 3 cm: a volley at it would be out of range,
// so it is not an enemy "within range" and the volley at blue-yumi (not in
// the wood, the line straight ahead at x = 60 clear of it) is right. Dice
// and claim as in ARangeTheTableSettlesNeedNotBeDeclared: clean (reference
// class T8).
TEST(TableReplay, AnEnemyInWoodsBeyondTheWoodsRangeIsNotTheNearestTarget) {
  Layout layout;
  layout.blue_hq = {700, 360, 180};
  layout.blue_yumi = {600, 425, 180};
  v1::BattleLog log = VolleyLog(layout, "blue-yumi",
                                "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                                "claimed_hits: 1");
  AddArea(log, "wood-1", "TERRAIN_KIND_WOODS", 650, 340, 750, 420);
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
}

// blue-hq at (600, 380) facing 180: its front edge at y = 38, x 58..62, 8.0
// cm from red-teppo; blue-yumi behind it at 12.5 cm. Lines of fire to
// blue-yumi pass clear of blue-hq on either side (from (54, 30) to (52,
// 42.5) the line is over 5 cm from the headquarters' edge at x = 58), so the
// only fault is the choice of target: the nearest enemy is blue-hq.
TEST(TableReplay, FireIsAtTheNearestEnemy) {
  Layout layout;
  layout.blue_hq = {600, 380, 180};
  layout.blue_yumi = {600, 425, 180};
  const v1::AuditReport report = AuditOrDie(VolleyLog(
      layout, "blue-yumi", "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6]"));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.fire.nearest"));
  const v1::Finding* nearest = Find(report, "daimyo.table.fire.nearest");
  ASSERT_NE(nearest, nullptr);
  EXPECT_EQ(nearest->claimed(), "blue-yumi at 12.5 cm");
  EXPECT_EQ(nearest->computed(), "blue-hq at 8.0 cm");
}

// red-samurai, a friend, at (600, 380) facing 0: x 52..68, y 35..38.
// blue-hq at (600, 440) facing 180: x 58..62, y 44..48, 14 cm away. Every
// line from red-teppo's front (y = 30, x 54..66) to blue-hq crosses y = 35
// to 38 between x 54 and 66, inside the samurai: no line of fire.
TEST(TableReplay, FireDoesNotPassThroughAUnit) {
  Layout layout;
  layout.red_samurai = {600, 380, 0};
  layout.blue_hq = {600, 440, 180};
  const v1::AuditReport report = AuditOrDie(VolleyLog(
      layout, "blue-hq", "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6]"));
  EXPECT_THAT(
      At(report, 3),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.fire.line_of_sight"));
  const v1::Finding* los = Find(report, "daimyo.table.fire.line_of_sight");
  ASSERT_NE(los, nullptr);
  EXPECT_THAT(los->message(), HasSubstr("red-samurai"));
}

// A line of fire through a narrow channel that no line between the firers'
// usual sight points passes (reference class T3). red-samurai, a friend, at
// (480, 380) facing 0: x 40..56, y 35..38; fire keeps 2 cm from it, so
// x >= 58 there. Impassable ground x 58.6..75, y 33..41. blue-hq at (600,
// 440) facing 180: x 58..62, y 44..48, 14 cm away. The straight line x =
// 58.3 from red-teppo's front (58.3, 30) to blue-hq's front (58.3, 44) is
// 2.3 cm from the samurai and 0.3 cm short of the impassable ground: clear.
// From the front's corners and quarter points (x 54, 57, 60, 63, 66) every
// line is blocked: from (57, 30) a line needs x >= 58 at y = 35 (a slope of
// 0.2 or more) and x <= 58.6 at y = 41 (0.145 or less); from (60, 30) x <=
// 58.6 at y = 33 (-0.47 or less) and x >= 58 at y = 38 (-0.25 or more); the
// others further still. Dice all ones: 2 each, with at most +4 short of the
// 8 a hit needs, so nothing follows: clean.
TEST(TableReplay, ALineOfFireThroughANarrowChannelIsFound) {
  Layout layout;
  layout.red_samurai = {480, 380, 0};
  layout.blue_hq = {600, 440, 180};
  v1::BattleLog log = VolleyLog(layout, "blue-hq",
                                "stands_firing: 3 dice: [1, 1, 1, 1, 1, 1] "
                                "claimed_hits: 0");
  AddArea(log, "rocks-1", "TERRAIN_KIND_IMPASSABLE", 586, 330, 750, 410);
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
}

// The same declared cover for a target whose centre (60, 43.5) stands in a
// house (x 50..70, y 40..48): the house is its protection, not cover
// (reading 5), and the finding says so rather than that no obstacle is
// near. The house does not block the line, the target being in it. The
// dice are not the point: only the cover finding is looked at.
TEST(TableReplay, DeclaredCoverForATargetInABuildingSaysWhy) {
  Layout layout;
  layout.blue_yumi = {600, 425, 180};
  v1::BattleLog log = VolleyLog(layout, "blue-yumi",
                                "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                                "facts { target_in_cover: true }");
  AddArea(log, "house-1", "TERRAIN_KIND_BUILDING", 500, 400, 700, 480);
  const v1::AuditReport report = AuditOrDie(log);
  const v1::Finding* f = Find(report, "daimyo.table.fire.cover");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message(), HasSubstr("the target is in a building"));
}

// A crest near the firers' rear opens their sight (reference class T4;
// RULES.md: no crest blocks "unless one of them stands within 2 cm of
// it", any part of the unit). red-teppo: x 54..66, y 28..30; blue-yumi at
// (600, 425): y 42.5..44.5, 12.5 cm, long range. The crest runs from (60,
// 26.5), 1.5 cm behind red-teppo's rear edge (y = 28), left to (45, 26.5),
// up to (45, 36) and right to (100, 36): every line from the front edge to
// the target crosses y = 36 between x 45 and 100, and the front edge is 3.5
// cm or more from the crest, the target 6.5 cm. Red-teppo stands within 2
// cm of it, so it sees over: the volley of ARangeTheTableSettlesNeedNotBe-
// Declared (1 hit claimed) audits clean.
TEST(TableReplay, ACrestWithin2CmOfAnyPartOfTheFirersOpensTheirSight) {
  Layout layout;
  layout.blue_yumi = {600, 425, 180};
  v1::BattleLog log = VolleyLog(layout, "blue-yumi",
                                "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                                "claimed_hits: 1");
  AddTerrain(log, R"pb(id: "hill-1"
                       kind: TERRAIN_KIND_HILL
                       outline { x_mm: 300 y_mm: 200 }
                       outline { x_mm: 1200 y_mm: 200 }
                       outline { x_mm: 1200 y_mm: 600 }
                       outline { x_mm: 300 y_mm: 600 }
                       crest { x_mm: 600 y_mm: 265 }
                       crest { x_mm: 450 y_mm: 265 }
                       crest { x_mm: 450 y_mm: 360 }
                       crest { x_mm: 1000 y_mm: 360 })pb");
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
}

// "Within 3 cm" read to the mm (RULES.md reading 43; reference class T10).
// A wall from (40, 39.5) to (80, 39.4) crosses the line of fire from
// red-teppo (front y = 30) to blue-yumi (front y = 42.5, x 52..68). Its
// nearest point to blue-yumi is by x = 52, where it is at y = 39.47: 3.03
// cm, which the tape reads 3.0 cm: blue-yumi lines it and is in cover.
// Long range +2 (as in TheMeasuredDistanceSettlesTheRangeBand), cover -1:
// +1. Dice 3+3, 3+3, 1+1: 7, 7, 3, no hit (without the cover 8, 8, 4: two).
// The log claims none: clean.
TEST(TableReplay, AnObstacleAt3Point03CmIsWithin3Cm) {
  Layout layout;
  layout.blue_yumi = {600, 425, 180};
  v1::BattleLog log = VolleyLog(layout, "blue-yumi",
                                "stands_firing: 3 dice: [3, 3, 3, 3, 1, 1] "
                                "claimed_hits: 0");
  AddTerrain(log, R"pb(id: "wall-1"
                       kind: TERRAIN_KIND_LINEAR_OBSTACLE
                       outline { x_mm: 400 y_mm: 395 }
                       outline { x_mm: 800 y_mm: 394 })pb");
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
}

// The volley of the test below: blue-yumi 2.5 cm off in a wood.
v1::BattleLog WoodsVolleyLog() {
  Layout layout;
  layout.blue_yumi = {600, 325, 180};
  v1::BattleLog log = VolleyLog(layout, "blue-yumi",
                                "stands_firing: 3 dice: [3, 2, 3, 2, 3, 2] "
                                "claimed_hits: 0");
  AddArea(log, "wood-1", "TERRAIN_KIND_WOODS", 400, 320, 800, 400);
  return log;
}

// blue-yumi at (600, 325) facing 180: y 32.5..34.5, its centre (60, 33.5)
// in a wood from y = 32 to 40. In the wood the range is 3 cm; it is 2.5 cm
// away: effective (+1), and in cover (-1), with the first volley (+2): +2.
// Dice 3+2 three times: 7, 7, 7, no hit. Without the cover, measured, the
// total would be 8 each: three hits. The log claims none and declares
// nothing: clean.
TEST(TableReplay, WoodsGiveCoverAndTheWoodsRange) {
  const v1::BattleLog log = WoodsVolleyLog();
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
}

// The same volley with its outcomes recorded: the hits' trace says which
// facts the table settled and which table rule measured each (Term's
// measured_by): the range band (effective, 2.5 cm within the woods' 3 cm:
// daimyo.table.fire.range) and the cover (the wood: daimyo.table.fire.cover);
// the first volley, worked out from the state, names no table rule. Coverage
// then counts the two table rules once each, for the one outcome.
TEST(TableReplay, MeasuredTermsNameTheTableRuleThatMeasuredThem) {
  const v1::BattleLog log = WoodsVolleyLog();
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok()) << ruleset.status();
  replay::AuditOptions options;
  options.record_outcomes = true;
  auto report = replay::AuditLog(log, *ruleset, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::Outcome* hits = nullptr;
  for (const v1::Outcome& o : report->outcomes()) {
    if (o.kind() == "hits") hits = &o;
  }
  ASSERT_NE(hits, nullptr);
  EXPECT_EQ(hits->value(), "0");
  std::vector<std::string> factors;
  for (const v1::Term& t : hits->trace()) {
    if (absl::StartsWith(t.rule_id(), "daimyo.fire.factor.")) {
      factors.push_back(absl::StrCat(t.rule_id(), " ", t.value(), " ",
                                     v1::TermOrigin_Name(t.origin()), " ",
                                     t.measured_by()));
    }
  }
  EXPECT_THAT(factors,
              ElementsAre("daimyo.fire.factor.first_volley 2 "
                          "TERM_ORIGIN_COMPUTED ",
                          "daimyo.fire.factor.effective_range 1 "
                          "TERM_ORIGIN_MEASURED daimyo.table.fire.range",
                          "daimyo.fire.factor.cover -1 TERM_ORIGIN_MEASURED "
                          "daimyo.table.fire.cover"));
  replay::RuleCoverage coverage;
  coverage.Add(*report);
  EXPECT_EQ(coverage.CountOf("daimyo.table.fire.range"), 1);
  EXPECT_EQ(coverage.CountOf("daimyo.table.fire.cover"), 1);
  EXPECT_EQ(coverage.CountOf("daimyo.table.fire.woods"), 0);  // No term.
}

// The 12.5 cm volley of the first test, declaring the target in cover: no
// woods and no obstacle, so the declared cover is a violation and the hits
// are worked out without it.
TEST(TableReplay, DeclaredCoverTheTableDoesNotShowIsAViolation) {
  Layout layout;
  layout.blue_yumi = {600, 425, 180};
  const v1::AuditReport report = AuditOrDie(TableLog(
      layout, Opening() +
                  Volley(3, "red", "red-teppo", "blue-yumi",
                         "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                         "facts { target_in_cover: true } claimed_hits: 1") +
                  TurnEnd(4, 1)));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.fire.cover"));
}

// A melee from a starting position: blue-yumi at (660, 280) facing 270
// fights red-teppo's right side (x = 66, y 26..30). Its front is off
// red-teppo's flank: red fights at -2 without declaring it. Round 2: red,
// improvised weapons +1, flanked -2: -1; blue, improvised +1, red of higher
// quality (Seasoned against Raw) -1: 0. Red's two stands (one in contact,
// two ranks): 4+4-1 = 7 each, no hit. Blue 4+4 = 8,
// a hit, and 1+1 = 2, none. Blue wins by one: red is pushed back 3 cm the
// way blue faces (-x), to (570, 300); blue follows up the 3 cm to (630,
// 280), in contact again.
std::string FlankRound() {
  return Ev(41, 3, "red",
            "melee_round { round: 2 "
            "sides { unit: \"red-teppo\" stands_fighting: 2 "
            "front_stands_in_contact: 1 dice: [4, 4, 4, 4] claimed_hits: 0 } "
            "sides { unit: \"blue-yumi\" stands_fighting: 2 "
            "front_stands_in_contact: 2 dice: [4, 4, 1, 1] claimed_hits: 1 } "
            "claimed_outcome: MELEE_OUTCOME_SECOND_WINS }");
}

std::string FlankMelee(const std::string& red_block) {
  return FlankRound() +
         Ev(42, 3, "red",
            absl::StrCat("result_move { unit: \"red-teppo\" kind: "
                         "RESULT_MOVE_KIND_PUSH_BACK distance_mm: 30 ",
                         red_block, " }")) +
         Ev(43, 3, "blue",
            "result_move { unit: \"blue-yumi\" kind: "
            "RESULT_MOVE_KIND_FOLLOW_UP }");
}

// Starts `log` after seq 40, in turn 3's melee phase with red active (red
// holding the initiative): a pairing's round comes next.
void StartInTurnThreesMelee(v1::BattleLog& log) {
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(after_seq: 40
           turn: 3
           initiative_clan: "red"
           active_clan: "red"
           phase: "melee")pb",
      log.mutable_starting_position()));
}

v1::BattleLog MeleeLog(const Layout& layout, const std::string& events) {
  v1::BattleLog log = TableLog(layout, events);
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(after_seq: 40
           turn: 3
           initiative_clan: "red"
           active_clan: "red"
           phase: "melee"
           units { id: "red-teppo" stands: 6 in_melee: true }
           units { id: "blue-yumi" stands: 4 in_melee: true }
           melees {
             unit_a: "red-teppo"
             unit_b: "blue-yumi"
             rounds: 1
             last_turn_fought: 2
           })pb",
      log.mutable_starting_position()));
  return log;
}

TEST(TableReplay, AFlankContactIsMeasuredAndThePushBackFollowsTheEnemy) {
  Layout layout;
  layout.blue_yumi = {660, 280, 270};
  const v1::BattleLog log = MeleeLog(layout, FlankMelee(""));
  const v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(At(report, 41), IsEmpty());
  EXPECT_THAT(At(report, 42), IsEmpty());
  EXPECT_THAT(At(report, 43), IsEmpty());
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok());
  auto state = replay::StateAt(log, *ruleset, 43);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->units(0).position().x_mm(), 570);
  EXPECT_EQ(state->units(0).position().y_mm(), 300);
  EXPECT_EQ(state->units(0).position().facing_deg(), 0);
  EXPECT_EQ(state->units(2).position().x_mm(), 630);
  EXPECT_EQ(state->units(2).position().y_mm(), 280);
  EXPECT_EQ(state->units(2).position().facing_deg(), 270);
}

// The same melee with blue's follow-up made before red's push back (reading
// 35): blue still touches red, so its follow-up moves 0 cm and stays at
// (660, 280); red then slides 3 cm away, and the melee that goes on next
// turn would be fought 3 cm apart. The follow-up is out of order; red's
// push back is as owed.
TEST(TableReplay, AFollowUpBeforeItsLosersPushBackIsOutOfOrder) {
  Layout layout;
  layout.blue_yumi = {660, 280, 270};
  const std::string swapped =
      FlankRound() +
      Ev(42, 3, "blue",
         "result_move { unit: \"blue-yumi\" kind: "
         "RESULT_MOVE_KIND_FOLLOW_UP }") +
      Ev(43, 3, "red",
         "result_move { unit: \"red-teppo\" kind: "
         "RESULT_MOVE_KIND_PUSH_BACK distance_mm: 30 }");
  const v1::AuditReport report = AuditOrDie(MeleeLog(layout, swapped));
  EXPECT_THAT(At(report, 42),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.result_move.order"));
  EXPECT_THAT(At(report, 43), IsEmpty());
}

// Reading 38: a pairing whose units no longer touch is over. red-teppo at
// (600, 300) facing 0 (x 54..66, y 26..30) fights blue-yumi to its front
// (at (580, 300) facing 180: x 50..66, y 30..32) and blue-hq on its right
// (at (660, y) facing 270: its front edge on x = 66, 4 cm long). The
// blue-hq pairing was fought this turn already. Round 2 with blue-yumi: red
// rolls 1 + 1 on every stand, no hit whatever its modifiers (at most +2:
// 4, under the 8 a hit needs); blue's first stand 6 + 6 hits (12, at least
// 9 after modifiers), the others 1 + 1 do not: blue wins by one and red is
// pushed back 3 cm the way blue-yumi faces (-y), to (600, 270): y 23..27;
// blue-yumi follows up to (580, 270). With blue-hq at y = 295 (its front
// edge y 27.5..31.5) red-teppo's side now ends 0.5 cm short of it, beyond
// the 2 mm contact: that pairing is over and blue-hq leaves the melee. At
// y = 285 (26.5..30.5) the two still touch over 0.5 cm and it goes on.
v1::BattleLog TwoFrontMelee(int hq_y) {
  Layout layout;
  layout.blue_yumi = {580, 300, 180};
  layout.blue_hq = {660, hq_y, 270};
  v1::BattleLog log = MeleeLog(
      layout, Ev(41, 3, "red",
                 "melee_round { round: 2 "
                 "sides { unit: \"red-teppo\" stands_fighting: 6 "
                 "front_stands_in_contact: 3 dice: [1, 1, 1, 1, 1, 1, 1, 1, 1, "
                 "1, 1, 1] } "
                 "sides { unit: \"blue-yumi\" stands_fighting: 3 "
                 "front_stands_in_contact: 3 dice: [6, 6, 1, 1, 1, 1] } }") +
                  Ev(42, 3, "red",
                     "result_move { unit: \"red-teppo\" kind: "
                     "RESULT_MOVE_KIND_PUSH_BACK }") +
                  Ev(43, 3, "blue",
                     "result_move { unit: \"blue-yumi\" kind: "
                     "RESULT_MOVE_KIND_FOLLOW_UP }"));
  // blue-hq is in the melee too, its pairing fought this turn already.
  v1::StartingPosition& start = *log.mutable_starting_position();
  v1::UnitState& hq = *start.add_units();
  hq.set_id("blue-hq");
  hq.set_stands(1);
  hq.set_in_melee(true);
  v1::MeleeContact& flank = *start.add_melees();
  flank.set_unit_a("red-teppo");
  flank.set_unit_b("blue-hq");
  flank.set_rounds(1);
  flank.set_last_turn_fought(3);
  return log;
}

TEST(TableReplay, APushBackOutOfContactEndsTheOtherPairing) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok());
  for (const int hq_y : {295, 285}) {
    SCOPED_TRACE(::testing::Message() << "blue-hq at y " << hq_y);
    const v1::BattleLog log = TwoFrontMelee(hq_y);
    const v1::AuditReport report = AuditOrDie(log);
    EXPECT_THAT(report.findings(), IsEmpty());
    auto state = replay::StateAt(log, *ruleset, 43);
    ASSERT_TRUE(state.ok()) << state.status();
    EXPECT_EQ(state->units(0).position().y_mm(), 270);
    EXPECT_EQ(state->units(2).position().y_mm(), 270);
    const bool apart = hq_y == 295;
    ASSERT_EQ(state->melees_size(), apart ? 1 : 2);
    EXPECT_EQ(state->melees(0).unit_b(), "blue-yumi");
    EXPECT_EQ(state->units(3).in_melee(), !apart);
  }
}

// red-samurai, a friend, stands to red-teppo's left at (450, 300) facing 0:
// x 37..53, 1 cm from red-teppo's left side at x = 54. Pushed 3 cm towards
// -x, red-teppo meets it: the push back is blocked by friends, so red-teppo
// is disordered, and the log declared no block.
TEST(TableReplay, APushBackIntoFriendsIsBlocked) {
  Layout layout;
  layout.blue_yumi = {660, 280, 270};
  layout.red_samurai = {450, 300, 0};
  const v1::BattleLog log = MeleeLog(layout, FlankMelee(""));
  const v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(
      At(report, 42),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.result_move.blocked"));
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok());
  auto state = replay::StateAt(log, *ruleset, 42);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_TRUE(state->units(0).disordered());
  // Declared, the block is no fault.
  EXPECT_THAT(At(AuditOrDie(MeleeLog(
                     layout, FlankMelee("blocked: "
                                        "MOVE_BLOCK_FRIENDS_OR_IMPASSABLE"))),
                 42),
              IsEmpty());
}

// red-teppo at (80, 300): x 2..14; blue-yumi at (140, 280) facing 270
// against its right side. Pushed 3 cm towards -x it would reach x = -1:
// off the table's edge, so it is destroyed.
TEST(TableReplay, APushBackOffTheTableDestroysTheUnit) {
  Layout layout;
  layout.red_teppo = {80, 300, 0};
  layout.blue_yumi = {140, 280, 270};
  const v1::BattleLog log = MeleeLog(layout, FlankMelee(""));
  const v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(
      At(report, 42),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.result_move.blocked"));
  const v1::Finding* blocked = Find(report, "daimyo.table.result_move.blocked");
  ASSERT_NE(blocked, nullptr);
  EXPECT_THAT(blocked->message(), HasSubstr("the table edge"));
}

// A move with `to`: from (600, 300) to (600, 400) is 10.0 cm; the log says
// 12 cm. A move to (1750, 300) leaves red-teppo's right side at x = 181 cm,
// past the 180 cm table.
TEST(TableReplay, MovesAreMeasured) {
  const v1::AuditReport report = AuditOrDie(TableLog(
      Layout(),
      Opening() +
          Ev(3, 1, "red",
             "move { unit: \"red-teppo\" kind: MOVE_KIND_MOVE distance_mm: 120 "
             "to { x_mm: 600 y_mm: 400 } }") +
          Ev(4, 1, "red",
             "move { unit: \"red-samurai\" kind: MOVE_KIND_MOVE "
             "to { x_mm: 1750 y_mm: 300 } }") +
          TurnEnd(5, 1)));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.move.distance"));
  const v1::Finding* distance = Find(report, "daimyo.table.move.distance");
  ASSERT_NE(distance, nullptr);
  EXPECT_EQ(distance->claimed(), "12.0 cm");
  EXPECT_EQ(distance->computed(), "10.0 cm");
  EXPECT_THAT(At(report, 4),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.move.off_table"));
}

// red-samurai at (600, 420) facing 180 charges blue-yumi at (600, 300)
// facing 0, from y = 42 to y = 30: 12.0 cm, beyond effective range (8 cm).
// It ends at (600, 300)... in contact at y = 30 (blue-yumi's front). Blue-yumi
// tests (reason 3, infantry charged by cavalry) and fires at its charger:
// in contact, but the chargers began beyond effective range and the firers
// are Raw and in no cover, so the fire is at long range. The log declares
// effective: a violation. Factors at long: +2 first volley, -1 bow against
// heavy armour, -1 Raw, -1 being charged: -1. Dice 6+3, 5+4, 4+4, 6+6: 8, 8,
// 7, 11: three hits (at effective, 0: four).
TEST(TableReplay, FireAtChargersThatBeganBeyondEffectiveRangeIsLong) {
  Layout layout;
  layout.red_samurai = {600, 420, 180};
  layout.blue_yumi = {600, 300, 0};
  layout.red_teppo = {1500, 200, 0};
  const v1::AuditReport report = AuditOrDie(TableLog(
      layout,
      Opening() +
          Ev(3, 1, "red",
             "charge { unit: \"red-samurai\" target: \"blue-yumi\" "
             "to { x_mm: 600 y_mm: 300 facing_deg: 180 } }") +
          Ev(4, 1, "blue",
             "morale_test { unit: \"blue-yumi\" reason: 3 dice: [6, 6] "
             "claimed_result: MORALE_RESULT_STAND_OR_RETIRE }") +
          Volley(5, "blue", "blue-yumi", "red-samurai",
                 "stands_firing: 4 dice: [6, 3, 5, 4, 4, 4, 6, 6] "
                 "facts { range: RANGE_BAND_EFFECTIVE } claimed_hits: 3")));
  EXPECT_THAT(At(report, 3), IsEmpty());
  // The log stops mid-turn (the melee is not fought): what falls due is
  // listed as unverifiable.
  EXPECT_THAT(At(report, 5),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.fire.range",
                          "SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
  const v1::Finding* range = Find(report, "daimyo.table.fire.range");
  ASSERT_NE(range, nullptr);
  EXPECT_THAT(range->message(), HasSubstr("12.0 cm away"));
}

// A log without a table audits its declared facts as before: the first
// test's volley, declared effective, gives its three claimed hits (8, 8,
// 15 at +3); only the morale test its stand loss owes is missing.
TEST(TableReplay, WithoutATableTheDeclaredFactsStand) {
  v1::BattleLog log =
      TableLog(Layout(), Opening() +
                             Volley(3, "red", "red-teppo", "blue-yumi",
                                    "stands_firing: 3 dice: [3, 2, 3, 2, 6, 6] "
                                    "facts { range: RANGE_BAND_EFFECTIVE } "
                                    "claimed_hits: 3") +
                             TurnEnd(4, 1));
  log.clear_table();
  EXPECT_THAT(FindingKeys(AuditOrDie(log)),
              ElementsAre("4:SEVERITY_VIOLATION:daimyo.morale.missing"));
}

// With a ruleset that gives foot a 15 cm move: red-teppo's move from (600,
// 300) to (900, 400) is sqrt(30^2 + 10^2) = 31.6 cm, beyond the rate, and
// ends with its footprint (x 84..96, y 36..40) in the impassable ground of
// x 80..100, y 35..45.
TEST(TableReplay, MovesIntoImpassableGroundAndBeyondTheRateAreViolations) {
  v1::BattleLog log = TableLog(
      Layout(), Opening() +
                    Ev(3, 1, "red",
                       "move { unit: \"red-teppo\" kind: MOVE_KIND_MOVE "
                       "to { x_mm: 900 y_mm: 400 } }") +
                    TurnEnd(4, 1));
  AddArea(log, "marsh", "TERRAIN_KIND_IMPASSABLE", 800, 350, 1000, 450);
  const v1::AuditReport report = AuditWithMoveRate(log, v1::MOBILITY_FOOT, 150);
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.move.impassable",
                          "SEVERITY_VIOLATION:daimyo.table.move.rate"));
  const v1::Finding* rate = Find(report, "daimyo.table.move.rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->claimed(), "31.6 cm");
  EXPECT_EQ(rate->computed(), "at most 15.0 cm");
}

// Reading 36: bases hold their ground. red-teppo stands at (600, 300)
// facing 0: three 4 cm stands a rank, two 2 cm ranks, so x 54..66 and
// y 26..30 (its front). red-samurai is four 4 x 3 cm mounted stands in one
// rank: x 52..68 at x = 600. Moved to (600, 320) facing 0 its base is
// y 29..32, 1 cm deep into red-teppo's (the friend's ground counts as much
// as an enemy's): a violation. Moved on to (600, 330) it is y 30..33, its
// rear edge on red-teppo's front: touching, allowed.
TEST(TableReplay, AMoveMayNotEndOnAnotherUnitsBase) {
  const v1::AuditReport report = AuditOrDie(TableLog(
      Layout(), Opening() +
                    Ev(3, 1, "red",
                       "move { unit: \"red-samurai\" kind: MOVE_KIND_MOVE "
                       "to { x_mm: 600 y_mm: 320 } }") +
                    Ev(4, 1, "red",
                       "move { unit: \"red-samurai\" kind: MOVE_KIND_MOVE "
                       "to { x_mm: 600 y_mm: 330 } }") +
                    TurnEnd(5, 1)));
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.move.overlap"));
  const v1::Finding* overlap = Find(report, "daimyo.table.move.overlap");
  ASSERT_NE(overlap, nullptr);
  EXPECT_THAT(overlap->message(), HasSubstr("onto red-teppo"));
  EXPECT_THAT(At(report, 4), IsEmpty());
}

// Reading 40: losses do not part a melee. blue-yumi at (600, 320) facing
// 180 has its front at y = 32, 2 cm from red-teppo's front at y = 30 (as a
// flank contact stands once the flanked unit has lost a stand). Already
// fighting (the starting position's melee, blue-yumi down to 3 stands: its
// 12 cm front has drawn in 2 cm from each end of its 16, so the two may
// start up to 2.2 cm apart, reading 46), their round 2 is fought with no
// contact finding; as a first round between units never in melee, the
// same 2 cm is a violation (first round: one rank, 3 stands a side).
TEST(TableReplay, OnlyAPairingsFirstRoundNeedsContact) {
  Layout layout;
  layout.blue_yumi = {600, 320, 180};
  const std::string red = "sides { unit: \"red-teppo\" stands_fighting: ";
  const std::string blue = "sides { unit: \"blue-yumi\" stands_fighting: ";
  v1::BattleLog fighting = MeleeLog(
      layout,
      Ev(41, 3, "red",
         "melee_round { round: 2 " + red +
             "6 front_stands_in_contact: 3 dice: [1, 1, 1, 1, 1, 1, 1, 1, 1, "
             "1, 1, 1] } " +
             blue +
             "3 front_stands_in_contact: 3 dice: [6, 6, 1, 1, 1, 1] } }"));
  fighting.mutable_starting_position()->mutable_units(1)->set_stands(3);
  const v1::AuditReport kept = AuditOrDie(fighting);
  EXPECT_THAT(At(kept, 0), IsEmpty());
  EXPECT_THAT(At(kept, 41),
              ElementsAre("SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
  v1::BattleLog first = TableLog(
      layout,
      Ev(41, 3, "red",
         "melee_round { " + red +
             "3 front_stands_in_contact: 3 dice: [1, 1, "
             "1, 1, 1, 1] } " +
             blue +
             "3 front_stands_in_contact: 3 dice: [6, 6, 1, 1, 1, 1] } }"));
  StartInTurnThreesMelee(first);
  EXPECT_THAT(At(AuditOrDie(first), 41),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.melee.contact",
                          "SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
}

// Reading 45: the stands in front-edge contact, measured at a pairing's
// first round. red-teppo at (600, 300) facing 0 has its front at y = 30
// from x 54 to 66, three 4 cm stands: 54..58, 58..62, 62..66. blue-yumi at
// (660, 300) facing 180 has its front on that line from x 58 to 74 (16 cm,
// four stands, its own left at x = 74): 70..74, 66..70, 62..66, 58..62.
// red-teppo's stands 58..62 and 62..66 are covered by blue's base; 54..58
// only meets it at x = 58, a corner: 2 in contact. Of blue's, 62..66 and
// 58..62 are covered, 66..70 meets red's only at x = 66: 2. First round,
// one rank: 2 stands a side may fight. The log declares 3 for red-teppo
// (a violation; the measured 2 is used, so its 2 stands fighting are all
// that may) and nothing for blue-yumi (the measured 2 is used, no
// undeclared contact).
TEST(TableReplay, StandsInFrontContactAreMeasuredAtTheFirstRound) {
  Layout layout;
  layout.blue_yumi = {660, 300, 180};
  const auto log = [&](const std::string& red_front) {
    v1::BattleLog log = TableLog(
        layout,
        Ev(41, 3, "red",
           "melee_round { sides { unit: \"red-teppo\" stands_fighting: 2 " +
               red_front +
               " dice: [1, 1, 1, 1] } sides { unit: \"blue-yumi\" "
               "stands_fighting: 2 dice: [1, 1, 1, 1] } }"));
    StartInTurnThreesMelee(log);
    return log;
  };
  const v1::AuditReport declared =
      AuditOrDie(log("front_stands_in_contact: 3"));
  EXPECT_THAT(
      At(declared, 41),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.melee.front_stands"));
  const v1::Finding* f = Find(declared, "daimyo.table.melee.front_stands");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject(), "red-teppo");
  EXPECT_EQ(f->claimed(), "3 in front contact");
  EXPECT_EQ(f->computed(), "2 in front contact");
  EXPECT_THAT(At(AuditOrDie(log("front_stands_in_contact: 2")), 41), IsEmpty());
  EXPECT_THAT(At(AuditOrDie(log("")), 41), IsEmpty());
}

// A red winner of turn 3's melee halting (its result move), at `seq`.
std::string Halt(int seq, const std::string& unit) {
  return Ev(seq, 3, "red",
            absl::StrCat("result_move { unit: \"", unit,
                         "\" kind: RESULT_MOVE_KIND_HOLD }"));
}

// blue-yumi, destroyed in turn 3's melee, removed at `seq`.
std::string RemoveBlueYumi(int seq) {
  return Ev(seq, 3, "blue",
            "removal { unit: \"blue-yumi\" reason: \"destroyed in melee\" }");
}

// The multi-unit melee of the three tests below, in turn 3's melee phase
// (red active, after seq 40): red-teppo and blue-yumi front to front,
// red-samurai on blue-yumi's right flank. Seq 41 is red-teppo's round (its
// 3 stands rolling `teppo_dice`), seq 42 red-samurai's (its 2 stands
// rolling `samurai_dice`); blue-yumi fights 3 stands and 1, all 1s. Then
// `then`.
v1::BattleLog MultiMeleeLog(const std::string& teppo_dice,
                            const std::string& samurai_dice,
                            const std::string& then) {
  Layout layout;
  layout.blue_yumi = {600, 300, 180};
  layout.red_samurai = {520, 310, 90};
  v1::BattleLog log = TableLog(
      layout,
      Ev(41, 3, "red",
         "melee_round { melee_id: \"m\" sides { unit: \"red-teppo\" "
         "stands_fighting: 3 dice: " +
             teppo_dice +
             " } sides { unit: \"blue-yumi\" stands_fighting: 3 dice: [1, 1, "
             "1, 1, 1, 1] } }") +
          Ev(42, 3, "red",
             "melee_round { melee_id: \"m\" sides { unit: \"red-samurai\" "
             "stands_fighting: 2 dice: " +
                 samurai_dice +
                 " } sides { unit: \"blue-yumi\" stands_fighting: 1 "
                 "front_stands_in_contact: 1 dice: [1, 1] } }") +
          then);
  StartInTurnThreesMelee(log);
  return log;
}

// A multi-unit melee on a table (reading 26 (f)). red-teppo at (600, 300)
// facing 0 (front x 54..66 at y = 30) and blue-yumi at (600, 300) facing
// 180 (x 52..68, y 30..32) fight front to front; red-samurai at (520, 310)
// facing 90 (+x) has its front along x = 52 from y 23 to 39, against
// blue-yumi's right flank (x = 52, y 30..32). Measured at round 1:
// red-teppo has its 3 front stands in contact; blue-yumi's 4 stands (70..74
// is its left, at +x; 52..56 its right) all touch red-teppo's front (the
// end ones by 2 cm); red-samurai's stands hold 39..35, 35..31, 31..27 and
// 27..23 of its front, and the flank's 30..32 covers 1 cm of the second
// and third: 2; blue-yumi's front is not against red-samurai, so its count
// there is the declared 1, and red-samurai's front centre (52, 31) on its
// flank makes it fought in the flank. blue-yumi's right-hand stand may
// fight either enemy, not both: 3 stands against red-teppo and 1 against
// red-samurai (its 4). The first round, seen alone, could have taken all
// 4; in a melee of several units that is no shortfall. All dice are 1s: no
// hits, both pairings drawn.
TEST(TableReplay, AMultiUnitMeleeSplitsAStandEligibleAgainstBoth) {
  const v1::BattleLog log =
      MultiMeleeLog("[1, 1, 1, 1, 1, 1]", "[1, 1, 1, 1]", "");
  const v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(report.findings(), IsEmpty());
  // Without the melee_id the two rounds are separate melees: blue-yumi's 3
  // against red-teppo is then fewer than the 4 that may fight (a warning).
  v1::BattleLog apart = log;
  for (v1::Event& e : *apart.mutable_events()) {
    e.mutable_melee_round()->clear_melee_id();
  }
  EXPECT_THAT(At(AuditOrDie(apart), 41),
              ElementsAre("SEVERITY_WARNING:daimyo.melee.stands_fewer"));
}

// The same melee with red-teppo's dice all 6s. Its 3 stands roll 6+6, +1
// improvised weapon against foot (blue-yumi is lower in quality and
// unarmoured: nothing else): 13, 3 hits; blue-yumi's 3 roll 1+1 +1 -1
// (red-teppo is Seasoned, it Raw) = 2: none. Won by 3, 2 or more: a rout,
// and blue-yumi loses a stand (3 hits a stand), down to 3. Against
// red-samurai all dice are 1s: a draw. blue-yumi takes its worst outcome,
// the rout, while red-samurai fights its flank (measured: nothing in the
// log declares it), so it is destroyed (reading 26 (c), also by an enemy it
// drew with): it makes its rout move (turned about, 7 cm up the table,
// nothing in the way) and is removed; red-teppo, whose loser is destroyed,
// halts. The second pairing is measured on blue-yumi's footprint as the
// melee began: the stand the first pairing took would have narrowed its
// 16 cm front to 12, and opened its flank 2 cm from red-samurai's front,
// which the engine reported as a melee out of contact before (reading 26
// (a): the pairings are fought at once).
TEST(TableReplay, AMultiUnitMeleeOnATableIsMeasuredAsItBegan) {
  v1::BattleLog log = MultiMeleeLog(
      "[6, 6, 6, 6, 6, 6]", "[1, 1, 1, 1]",
      Ev(43, 3, "blue",
         "result_move { unit: \"blue-yumi\" kind: RESULT_MOVE_KIND_ROUT "
         "dice: [3, 4] distance_mm: 70 }") +
          Halt(44, "red-teppo") + RemoveBlueYumi(45) + TurnEnd(46, 3));
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
  // Without the removal, the measured flank still destroyed it (and, left
  // on the table, it owes its test for the stand lost).
  log.mutable_events()->DeleteSubrange(4, 1);
  EXPECT_THAT(
      At(AuditOrDie(log), 46),
      ElementsAre("SEVERITY_VIOLATION:daimyo.melee.destroyed_not_removed",
                  "SEVERITY_VIOLATION:daimyo.morale.missing"));
}

// The same melee, each red unit winning by one hit. red-teppo's first stand
// rolls 6+6 +1 = 13, a hit, its others 1+1 +1 = 3; blue-yumi's 1+1 +1 -1 =
// 2: won by 1, a push back. red-samurai's first stand 3+2, +1 lance against
// foot, +2 lance in good order in round 1 = 8, a hit, its second 1+1 +3 =
// 5; blue-yumi's 1+1 +1 -1 (Veteran) -2 (heavy armour) -2 (fought in the
// flank, measured) < 8: won by 1, a push back. Two hits, no stand lost.
// Lost to two enemies, one of them on its flank: pushed back from two
// directions at once, destroyed; it makes its push back and is removed, and
// the winners of a destroyed loser halt.
TEST(TableReplay, PushedBackFromTheFrontAndTheMeasuredFlankIsDestroyed) {
  v1::BattleLog log = MultiMeleeLog(
      "[6, 6, 1, 1, 1, 1]", "[3, 2, 1, 1]",
      Ev(43, 3, "blue",
         "result_move { unit: \"blue-yumi\" kind: RESULT_MOVE_KIND_PUSH_BACK "
         "distance_mm: 30 }") +
          Halt(44, "red-teppo") + Halt(45, "red-samurai") + RemoveBlueYumi(46) +
          TurnEnd(47, 3));
  EXPECT_THAT(AuditOrDie(log).findings(), IsEmpty());
  // Without the removal it stays on the table, destroyed.
  log.mutable_events()->DeleteSubrange(5, 1);
  EXPECT_THAT(
      At(AuditOrDie(log), 47),
      ElementsAre("SEVERITY_VIOLATION:daimyo.melee.destroyed_not_removed"));
}

// Issue 29's two bad placements, as found from outside. red-teppo at
// (600, 300) facing 0 covers y 26..30; blue-yumi at (600, 290) facing 180
// (one 2 cm rank) covers y 29..31: the two overlap by 10 mm. blue-hq's
// front centre at x = 1900 is 100 mm beyond the 1,800 mm table. Both are
// found before the first event, and name the units.
TEST(TableReplay, UnitsPlacedOnEachOtherOrOffTheTableAreViolations) {
  Layout layout;
  layout.blue_yumi = {600, 290, 180};
  layout.blue_hq = {1900, 1100, 180};
  const v1::AuditReport report = AuditOrDie(TableLog(layout, Opening()));
  const v1::Finding* overlap = Find(report, "daimyo.table.placement.overlap");
  ASSERT_NE(overlap, nullptr);
  EXPECT_EQ(overlap->severity(), v1::SEVERITY_VIOLATION);
  EXPECT_THAT(overlap->message(), HasSubstr("red-teppo and blue-yumi"));
  const v1::Finding* off = Find(report, "daimyo.table.placement.off_table");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->subject(), "blue-hq");
  // Placed 1 cm apart instead (blue-yumi at y = 310, its front at 31) and
  // on the table, both are clean.
  layout.blue_yumi = {600, 310, 180};
  layout.blue_hq = {1300, 1100, 180};
  const v1::AuditReport clean = AuditOrDie(TableLog(layout, Opening()));
  EXPECT_EQ(Find(clean, "daimyo.table.placement.overlap"), nullptr);
  EXPECT_EQ(Find(clean, "daimyo.table.placement.off_table"), nullptr);
}

// Reading 46: a starting position's melee whose units stand apart. With
// blue-yumi at (600, 350) facing 180 its front is at y = 35, 5 cm from
// red-teppo's at y = 30. Both at full strength, their footprints are as
// they were when the fight began: at most the 2 mm contact apart, so 5 cm
// is a violation found before the first event. With blue-yumi down to 2 of
// its 4 stands its 16 cm front is 8 cm, drawn in 4 cm from each end: up to
// 4.2 cm apart may be a contact its losses narrowed. 5 cm still is not;
// 4 cm (blue-yumi at y = 340) is.
TEST(TableReplay, AStartingMeleeWhoseUnitsStandApartIsAViolation) {
  Layout layout;
  layout.blue_yumi = {600, 350, 180};
  const v1::AuditReport apart = AuditOrDie(MeleeLog(layout, ""));
  EXPECT_THAT(
      At(apart, 0),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.placement.melee_apart"));
  const v1::Finding* f = Find(apart, "daimyo.table.placement.melee_apart");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->computed(), "5.0 cm apart");
  EXPECT_THAT(f->message(), HasSubstr("at most 0.2 cm apart"));
  v1::BattleLog narrowed = MeleeLog(layout, "");
  narrowed.mutable_starting_position()->mutable_units(1)->set_stands(2);
  const v1::AuditReport still = AuditOrDie(narrowed);
  ASSERT_NE(Find(still, "daimyo.table.placement.melee_apart"), nullptr);
  EXPECT_THAT(Find(still, "daimyo.table.placement.melee_apart")->message(),
              HasSubstr("at most 4.2 cm apart"));
  layout.blue_yumi = {600, 340, 180};
  v1::BattleLog near = MeleeLog(layout, "");
  near.mutable_starting_position()->mutable_units(1)->set_stands(2);
  EXPECT_THAT(At(AuditOrDie(near), 0), IsEmpty());
}

// The final state digest covers where the units stand (version 2, issue
// 29): the same log with red-samurai placed 1 cm further along the table
// ends with another digest; placed the same, the same digest.
TEST(TableReplay, TheStateDigestCoversPositions) {
  Layout here;
  Layout there;
  there.red_samurai.x_mm += 10;
  const auto digest = [](const Layout& layout) {
    const v1::AuditReport report =
        AuditOrDie(TableLog(layout, Opening() + TurnEnd(3, 1)));
    EXPECT_EQ(report.final_state_digest_version(), 2u);
    return report.final_state_digest();
  };
  EXPECT_EQ(digest(here), digest(Layout()));
  EXPECT_NE(digest(here), digest(there));
}

// Issue 29: a building the table shows is not "declared". red-teppo at
// (600, 300) facing 0 (x 54..66, y 26..30, centre (60, 28)) stands in the
// building "inn" (x 50..70, y 20..35); blue-yumi at (600, 400) facing 180
// is 10 cm ahead. From a building at most 2 stands fire (the ruleset's
// max_stands_from_building); it fires with 3: a violation whose message
// says the building was measured on the table.
TEST(TableReplay, AMeasuredBuildingIsNotCalledDeclared) {
  Layout layout;
  layout.blue_yumi = {600, 400, 180};
  v1::BattleLog log = TableLog(
      layout, Opening() + Volley(3, "red", "red-teppo", "blue-yumi",
                                 "stands_firing: 3 dice: [1, 1, 1, 1, 1, 1]"));
  AddArea(log, "inn", "TERRAIN_KIND_BUILDING", 500, 200, 700, 350);
  const v1::AuditReport report = AuditOrDie(log);
  const v1::Finding* cap = Find(report, "daimyo.fire.eligibility.building");
  ASSERT_NE(cap, nullptr);
  EXPECT_THAT(cap->message(),
              HasSubstr("from a building (measured on the table)"));
}

// Reading 37: a charge is held to the move rate. red-samurai at (600, 500)
// facing 0 charges blue-yumi at (600, 700) facing 180 and ends in contact,
// its front centre on blue-yumi's at (600, 700): 20 cm, over a mounted
// rate of 15 cm.
TEST(TableReplay, AChargeBeyondTheMoveRateIsAViolation) {
  Layout layout;
  layout.red_samurai = {600, 500, 0};
  layout.blue_yumi = {600, 700, 180};
  const v1::BattleLog log = TableLog(
      layout, Opening() + Ev(3, 1, "red",
                             "charge { unit: \"red-samurai\" target: "
                             "\"blue-yumi\" to { x_mm: 600 y_mm: 700 } }"));
  const v1::AuditReport report =
      AuditWithMoveRate(log, v1::MOBILITY_MOUNTED, 150);
  // (The log stops there: the turn is unfinished.)
  EXPECT_THAT(At(report, 3),
              ElementsAre("SEVERITY_VIOLATION:daimyo.table.move.rate",
                          "SEVERITY_UNVERIFIABLE:log.turn_unfinished"));
  const v1::Finding* rate = Find(report, "daimyo.table.move.rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->claimed(), "20.0 cm");
  EXPECT_EQ(rate->computed(), "at most 15.0 cm");
}

// blue-hq tests morale listing blue-yumi as a friend routing near; on the
// table blue-yumi (routing; x 157..173 against blue-hq's x 128..132) is 25 cm
// from it, beyond the
// 15 cm: the list is corrected to the units measured near (none).
// blue-yumi, routing from an earlier turn, flees in blue's activation from
// (165, 110) facing 180 (x 157..173, y 110..112) to (165, 100): its base
// slides 10 cm to y 100..102, then faces 180 again. blue-hq at (1650,
// 1050) facing 180 is x 163..167, y 105..109: on the way, so the rout
// passes through it; placed at (1300, 1100) it is 22 cm aside and is not.
v1::BattleLog RoutThrough(const Place& hq, const std::string& listed) {
  Layout layout;
  layout.blue_yumi = {1650, 1100, 180};
  layout.blue_hq = hq;
  v1::BattleLog log = TableLog(
      layout, TurnStart(1, 1, "blue") + Activation(2, 1, "blue") +
                  Ev(3, 1, "blue",
                     absl::StrCat("result_move { unit: \"blue-yumi\" kind: "
                                  "RESULT_MOVE_KIND_ROUT distance_mm: 100 "
                                  "dice: [5, 5] ",
                                  listed,
                                  " to { x_mm: 1650 y_mm: 1000 "
                                  "facing_deg: 180 } }")));
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(
          R"pb(units {
                 id: "blue-yumi"
                 stands: 4
                 routing: true
                 has_routed: true
               })pb",
          log.mutable_starting_position()));
  return log;
}

TEST(TableReplay, FriendsARoutPassesThroughAreMeasured) {
  // Listed and crossed: no violation at the rout (the log stops there, its
  // turn unfinished, which is not one).
  EXPECT_THAT(At(AuditOrDie(RoutThrough({1650, 1050, 180},
                                        "interpenetrated: [\"blue-hq\"]")),
                 3),
              ::testing::Not(::testing::Contains(HasSubstr("VIOLATION"))));
  // Listed but 22 cm aside: a violation, and the measured list (none).
  const v1::AuditReport aside = AuditOrDie(
      RoutThrough({1300, 1100, 180}, "interpenetrated: [\"blue-hq\"]"));
  EXPECT_THAT(
      At(aside, 3),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.rout.interpenetrated"));
  const v1::Finding* f = Find(aside, "daimyo.table.rout.interpenetrated");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->claimed(), "blue-hq");
  EXPECT_EQ(f->computed(), "none");
}

// The same flight ending on a friend: blue-hq at (1650, 1000) facing 180
// is x 163..167, y 100..104, and blue-yumi's `to` puts it at y 100..102,
// on the headquarters' base. A router goes on until clear of the friends
// it meets: 2 cm more (the half-centimetre steps reach y 98..100, touching
// the headquarters' front at y = 100), so the log's end is a violation.
TEST(TableReplay, ARoutEndingOnAFriendHasStoppedShort) {
  const v1::AuditReport report = AuditOrDie(RoutThrough({1650, 1000, 180}, ""));
  EXPECT_THAT(At(report, 3), ::testing::Contains(
                                 "SEVERITY_VIOLATION:daimyo.table.rout.clear"));
  const v1::Finding* f = Find(report, "daimyo.table.rout.clear");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message(), HasSubstr("blue-hq"));
  EXPECT_THAT(f->message(), HasSubstr("2.0 cm more"));
}

TEST(TableReplay, RoutersListedNearAreMeasured) {
  Layout layout;
  layout.blue_hq = {1300, 1100, 180};
  layout.blue_yumi = {1650, 1100, 180};
  v1::BattleLog log = TableLog(
      layout, TurnStart(1, 1, "red") + Activation(2, 1, "red") +
                  Ev(3, 1, "blue",
                     "morale_test { unit: \"blue-hq\" reason: 6 dice: [4, 4] "
                     "facts { friends_routing_near: [\"blue-yumi\"] } }"));
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(
          R"pb(units {
                 id: "blue-yumi"
                 stands: 4
                 routing: true
                 has_routed: true
               })pb",
          log.mutable_starting_position()));
  const v1::AuditReport report = AuditOrDie(log);
  EXPECT_THAT(At(report, 3),
              ::testing::Contains("SEVERITY_VIOLATION:daimyo.table.near"));
}

// A leader killed near, measured at his death (reading 44). blue-yumi at
// (600, 360) facing 180 has its front edge at y = 36 cm, x 52..68;
// red-samurai at (600, 300) facing 0 is x 52..68, y 27..30: 6 cm, effective
// range, straight ahead. Four bow stands roll 6+6 each: four hits, one
// stand lost (3 hits a stand), so red-gen (attached) rolls for his life:
// die 1 + 3 stands left = 4, killed (4 or less). red-teppo stands at `at`:
// at (800, 300) it is x 74..86, y 26..30, 6 cm from red-samurai's base
// (near, 15 cm); at (1000, 300) it is 26 cm away. It then tests for reason
// 5 with 4+4 = 8. Its modifiers: none but the -2 when near (no general
// near, red-gen being dead; blue-yumi, 8.5 cm away, has its centre in
// red-teppo's front sector, so no enemy faces its flank). Seasoned passes
// on 6: near, 8 - 2 = 6, passes; a pass for reason 5 has no effect.
v1::BattleLog LeaderKilledLog(const Place& teppo, const std::string& facts,
                              int claimed_total) {
  Layout layout;
  layout.red_samurai = {600, 300, 0};
  layout.red_teppo = teppo;
  layout.blue_yumi = {600, 360, 180};
  return TableLog(
      layout,
      TurnStart(1, 1, "blue") + Activation(2, 1, "blue") +
          Volley(3, "blue", "blue-yumi", "red-samurai",
                 "stands_firing: 4 dice: [6, 6, 6, 6, 6, 6, 6, 6]") +
          Ev(4, 1, "red",
             "leader_loss { leader: \"red-gen\" die: 1 claimed_killed: true "
             "}") +
          Activation(5, 1, "red") +
          Ev(6, 1, "red",
             absl::StrCat("morale_test { unit: \"red-teppo\" reason: 5 dice: "
                          "[4, 4] facts { ",
                          facts, " } claimed_total: ", claimed_total,
                          " claimed_result: MORALE_RESULT_NO_EFFECT }")) +
          TurnEnd(7, 1));
}

TEST(TableReplay, ALeaderKilledNearIsMeasuredAtHisDeath) {
  // Near, not declared: the -2 applies (total 6) and the test was owed.
  EXPECT_THAT(At(AuditOrDie(LeaderKilledLog({800, 300, 0}, "", 6)), 6),
              IsEmpty());
  // Near and declared: the same.
  EXPECT_THAT(At(AuditOrDie(LeaderKilledLog({800, 300, 0},
                                            "leader_killed_near: true", 6)),
                 6),
              IsEmpty());
  // 26 cm away: no test is owed, the declared fact is a violation, and the
  // total is 8 without the -2, so the claimed 6 is disputed.
  const v1::AuditReport far = AuditOrDie(
      LeaderKilledLog({1000, 300, 0}, "leader_killed_near: true", 6));
  EXPECT_THAT(
      At(far, 6),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.morale.leader_killed_near",
                  "SEVERITY_VIOLATION:daimyo.morale.not_owed",
                  "SEVERITY_DISPUTE:daimyo.morale.total"));
  const v1::Finding* total = Find(far, "daimyo.morale.total");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->computed(), "total 8");
}

// Command reach, which the seed does not give: a ruleset may (reading 44).
// blue-yumi at (600, 360) facing 180 fires at red-teppo (x 54..66, y
// 26..30): 6 cm, four stands of 6+6, four hits, one stand lost: reason 1.
// red-teppo tests with 4+4 = 8, -2 for the stand. red-samurai, with red-gen
// attached, stands at `samurai`: at (850, 300) it is x 77..93, 11 cm from
// red-teppo: a general near (+1, 15 cm) and within a 20 cm reach: 8 + 1 - 2
// = 7, a pass (Seasoned, 6), no effect. In its corner (150, 100) it is far:
// with the reach, out of command, 8 - 2 - 1 = 5, fails by 1 for a stand
// lost: halt; without a reach the fact is as declared (none): 6, a pass.
v1::AuditReport CommandLog(int reach_mm, const Place& samurai,
                           const std::string& facts, int claimed_total,
                           const std::string& claimed_result) {
  Layout layout;
  layout.red_samurai = samurai;
  layout.blue_yumi = {600, 360, 180};
  const v1::BattleLog log = TableLog(
      layout,
      TurnStart(1, 1, "blue") + Activation(2, 1, "blue") +
          Volley(3, "blue", "blue-yumi", "red-teppo",
                 "stands_firing: 4 dice: [6, 6, 6, 6, 6, 6, 6, 6]") +
          Activation(4, 1, "red") +
          Ev(5, 1, "red",
             absl::StrCat("morale_test { unit: \"red-teppo\" reason: 1 dice: "
                          "[4, 4] facts { ",
                          facts, " } claimed_total: ", claimed_total,
                          " claimed_result: ", claimed_result, " }")));
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(ruleset.ok());
  if (!ruleset.ok()) return v1::AuditReport();
  ruleset->data.mutable_table()->set_command_reach_mm(
      static_cast<uint32_t>(reach_mm));
  auto report = replay::AuditLog(log, *ruleset);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : v1::AuditReport();
}

TEST(TableReplay, OutOfCommandIsMeasuredWhenTheRulesetGivesAReach) {
  EXPECT_THAT(
      At(CommandLog(200, {850, 300, 0}, "", 7, "MORALE_RESULT_NO_EFFECT"), 5),
      IsEmpty());
  EXPECT_THAT(
      At(CommandLog(200, {150, 100, 0}, "", 5, "MORALE_RESULT_HALT"), 5),
      IsEmpty());
  // Declared out of command 11 cm from the general: a violation, and the
  // measured fact (in command) is used.
  const v1::AuditReport declared = CommandLog(
      200, {850, 300, 0}, "out_of_command: true", 7, "MORALE_RESULT_NO_EFFECT");
  EXPECT_THAT(
      At(declared, 5),
      ElementsAre("SEVERITY_VIOLATION:daimyo.table.morale.out_of_command"));
  const v1::Finding* f = Find(declared, "daimyo.table.morale.out_of_command");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message(), HasSubstr("20.0 cm"));
  // The shipped ruleset gives no reach: the fact is as declared.
  EXPECT_THAT(
      At(CommandLog(0, {150, 100, 0}, "", 6, "MORALE_RESULT_NO_EFFECT"), 5),
      IsEmpty());
  EXPECT_THAT(At(CommandLog(0, {150, 100, 0}, "out_of_command: true", 5,
                            "MORALE_RESULT_HALT"),
                 5),
              IsEmpty());
}

// Where the table stands and which way it is turned cannot change a
// measurement: the sample game with positions (tests/data/table-game),
// moved 25 cm and 13 cm on a larger table, turned about, and turned a
// quarter, audits to the same report, byte for byte (distances, and so
// every message, are the same; positions are not in the state digest).
using PointMap = std::function<void(v1::Position&)>;

void MoveAll(v1::BattleLog& log, const PointMap& move) {
  for (v1::Unit& u : *log.mutable_order_of_battle()->mutable_units()) {
    move(*u.mutable_position());
  }
  for (v1::TerrainFeature& t : *log.mutable_terrain()) {
    for (v1::Position& p : *t.mutable_outline()) move(p);
    for (v1::Position& p : *t.mutable_crest()) move(p);
  }
  for (v1::Event& e : *log.mutable_events()) {
    if (e.has_charge() && e.charge().has_to()) {
      move(*e.mutable_charge()->mutable_to());
    }
    if (e.has_move() && e.move().has_to())
      move(*e.mutable_move()->mutable_to());
  }
}

v1::BattleLog SampleWithTable() {
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) + "/table-game.textproto");
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  return log;
}

// The report's bytes but for the final state's digest: since digest
// version 2 the state holds where the units stand, and a table moved or
// turned puts them elsewhere (TheStateDigestCoversPositions).
std::string ReportBytes(const v1::BattleLog& log) {
  v1::AuditReport report = AuditOrDie(log);
  EXPECT_FALSE(report.final_state_digest().empty());
  report.clear_final_state_digest();
  std::string bytes;
  report.SerializeToString(&bytes);
  return bytes;
}

TEST(TableReplay, ReportsDoNotDependOnWhereTheTableIs) {
  const v1::BattleLog sample = SampleWithTable();
  ASSERT_EQ(sample.events_size(), 11);
  const std::string expected = ReportBytes(sample);
  const int w = static_cast<int>(sample.table().width_mm());
  const int d = static_cast<int>(sample.table().depth_mm());

  v1::BattleLog moved = sample;
  moved.mutable_table()->set_width_mm(w + 250);
  moved.mutable_table()->set_depth_mm(d + 130);
  MoveAll(moved, [](v1::Position& p) {
    p.set_x_mm(p.x_mm() + 250);
    p.set_y_mm(p.y_mm() + 130);
  });
  EXPECT_EQ(ReportBytes(moved), expected) << "moved";

  v1::BattleLog about = sample;
  MoveAll(about, [w, d](v1::Position& p) {
    p.set_x_mm(w - p.x_mm());
    p.set_y_mm(d - p.y_mm());
    p.set_facing_deg((p.facing_deg() + 180) % 360);
  });
  EXPECT_EQ(ReportBytes(about), expected) << "turned about";

  // A quarter turn clockwise: +y (facing 0) becomes +x (facing 90); the
  // point (x, y) goes to (y, w - x) on a table d wide and w deep.
  v1::BattleLog quarter = sample;
  quarter.mutable_table()->set_width_mm(d);
  quarter.mutable_table()->set_depth_mm(w);
  MoveAll(quarter, [w](v1::Position& p) {
    const int x = p.x_mm();
    p.set_x_mm(p.y_mm());
    p.set_y_mm(w - x);
    p.set_facing_deg((p.facing_deg() + 90) % 360);
  });
  EXPECT_EQ(ReportBytes(quarter), expected) << "a quarter turn";
}

}  // namespace
}  // namespace gunbai::testing
