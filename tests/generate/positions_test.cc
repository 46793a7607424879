// Generated games on a table (GeneratorOptions::positions, `gunbai generate
// --positions`): over many seeds they audit with no finding at all while
// the engine measures every fact the table settles; they survive a text and
// a binary round trip; every unit stands on the table with a position and
// every move and charge says where it ends; across the seeds there are
// volleys measured at both range bands, melees fought in contact on the
// table, push backs (some blocked as measured) and pursuits catching
// routers; and
// planted faults are found exactly, nothing more. Every expectation is read
// off the log or the audit, never computed by the generator under test.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "tests/generate/test_ruleset.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

const replay::LoadedRuleset& Ruleset() { return test_support::DaimyoRuleset(); }

// The games of the sweep: 6 turns, 3 to 8 units a clan by seed.
GeneratorOptions TableGame(std::uint64_t seed, int faults = 0) {
  GeneratorOptions options;
  options.seed = seed;
  options.turns = 6;
  options.units_per_clan = 3 + static_cast<int>(seed % 6);
  options.faults = faults;
  options.positions = true;
  return options;
}

constexpr std::uint64_t kSeeds = 80;

v1::AuditReport Audit(const v1::BattleLog& log) {
  absl::StatusOr<v1::AuditReport> report = replay::AuditLog(log, Ruleset());
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : v1::AuditReport();
}

std::string FirstFindings(const v1::AuditReport& report) {
  std::string out;
  for (int i = 0; i < report.findings_size() && i < 8; ++i) {
    const v1::Finding& f = report.findings(i);
    absl::StrAppend(&out, "seq ", f.seq(), " ", v1::Severity_Name(f.severity()),
                    " ", f.rule_id(), " [", f.subject(), "]: ", f.message(),
                    "\n");
  }
  return out;
}

bool OnTable(const v1::BattleLog& log, const v1::Position& p) {
  return p.x_mm() >= 0 && p.y_mm() >= 0 &&
         p.x_mm() <= static_cast<int>(log.table().width_mm()) &&
         p.y_mm() <= static_cast<int>(log.table().depth_mm());
}

// What the logs show, counted over the seeds.
using Seen = std::map<std::string, int>;

void Count(const v1::BattleLog& log, Seen& seen) {
  for (const v1::TerrainFeature& t : log.terrain()) {
    ++seen[v1::TerrainKind_Name(t.kind())];
  }
  for (const v1::Event& e : log.events()) {
    if (e.has_firing()) {
      const v1::FiringFacts& f = e.firing().facts();
      // The distance the audit compared with its own tape measure.
      EXPECT_TRUE(f.has_distance_mm()) << "seq " << e.seq();
      if (f.range() == v1::RANGE_BAND_EFFECTIVE && f.distance_mm() <= 80) {
        ++seen["volley at effective range"];
      }
      if (f.range() == v1::RANGE_BAND_LONG && f.distance_mm() > 80) {
        ++seen["volley at long range"];
      }
    }
    if (e.has_melee_round()) {
      ++seen["melee round"];
      if (e.melee_round().round() >= 2) ++seen["melee round 2+"];
    }
    if (e.has_charge() && e.charge().fell_short()) ++seen["charge fell short"];
    if (e.has_result_move()) {
      const v1::ResultMove& m = e.result_move();
      ++seen[v1::ResultMoveKind_Name(m.kind())];
      if (m.blocked() != v1::MOVE_BLOCK_UNSPECIFIED &&
          m.blocked() != v1::MOVE_BLOCK_NONE) {
        ++seen["result move blocked"];
      }
      if (m.contact_after_pursuit()) ++seen["routers caught by pursuit"];
    }
  }
}

TEST(PositionsTest, TableGamesAuditCleanAndRoundTrip) {
  Seen seen;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const v1::BattleLog log = GenerateLog(TableGame(seed));
    const v1::AuditReport report = Audit(log);
    EXPECT_EQ(report.findings_size(), 0) << FirstFindings(report);
    EXPECT_EQ(report.events_replayed(),
              static_cast<std::uint64_t>(log.events_size()));
    // The table, and every unit on it with a position.
    EXPECT_EQ(log.table().width_mm(), 1800u);
    EXPECT_EQ(log.table().depth_mm(), 1200u);
    for (const v1::Unit& unit : log.order_of_battle().units()) {
      EXPECT_TRUE(unit.has_position()) << unit.id();
      EXPECT_TRUE(OnTable(log, unit.position())) << unit.id();
    }
    for (const v1::Event& e : log.events()) {
      if (e.has_move() && e.move().kind() == v1::MOVE_KIND_MOVE) {
        EXPECT_TRUE(e.move().has_to()) << "seq " << e.seq();
        EXPECT_TRUE(OnTable(log, e.move().to())) << "seq " << e.seq();
      }
      // A charge that reaches gives where it touches (one that falls short
      // and stays where it stands gives none).
      if (e.has_charge() && !e.charge().counter_charge() &&
          !e.charge().fell_short()) {
        EXPECT_TRUE(e.charge().has_to()) << "seq " << e.seq();
      }
    }
    // Text and binary round trips give the same log.
    const std::string bytes = base::DeterministicBytes(log);
    std::string text;
    ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(log, &text));
    for (const auto& [input, format] :
         {std::pair{text, replay::LogFormat::kText},
          std::pair{bytes, replay::LogFormat::kBinary}}) {
      absl::StatusOr<v1::BattleLog> parsed =
          replay::ParseBattleLog(input, format, "generated");
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      EXPECT_EQ(base::DeterministicBytes(*parsed), bytes);
    }
    Count(log, seen);
  }
  const char* const expected[] = {"TERRAIN_KIND_WOODS",
                                  "TERRAIN_KIND_HILL",
                                  "TERRAIN_KIND_LINEAR_OBSTACLE",
                                  "TERRAIN_KIND_IMPASSABLE",
                                  "volley at effective range",
                                  "volley at long range",
                                  "melee round",
                                  "melee round 2+",
                                  "charge fell short",
                                  "RESULT_MOVE_KIND_PUSH_BACK",
                                  "RESULT_MOVE_KIND_FOLLOW_UP",
                                  "RESULT_MOVE_KIND_ROUT",
                                  "RESULT_MOVE_KIND_PURSUIT",
                                  "routers caught by pursuit"};
  // Blocked result moves are rare in generated games (about one game in a
  // hundred), so whether these seeds hold one is chance:
  // tests/replay/table_replay_test.cc works them by hand (a push back into
  // friends, one off the table).
  for (const char* what : expected) {
    EXPECT_GT(seen[what], 0) << "no game shows: " << what;
  }
}

TEST(PositionsTest, OffByDefault) {
  GeneratorOptions options = TableGame(3);
  options.positions = false;
  const v1::BattleLog log = GenerateLog(options);
  EXPECT_FALSE(log.has_table());
  EXPECT_EQ(log.terrain_size(), 0);
  EXPECT_FALSE(log.order_of_battle().units(0).has_position());
  EXPECT_EQ(base::DeterministicBytes(GenerateLog(TableGame(3))),
            base::DeterministicBytes(GenerateLog(TableGame(3))));
}

// Multi-unit melees on the table (issue 29, item 6): a second charger joins
// a friend's melee at the target's flank or rear, and the two pairings are
// fought as one melee. They are rare in a short game (the second charger
// must stand off the target's flank or rear with room there), so these are
// seeds a sweep found holding them (`gunbai generate --positions --turns
// 10 --units U --seed S`, over seeds 1-120 at 8 units and 1-60 at 16).
// Each audits with no finding while the engine measures every pairing's
// contact, front and flank on the footprints the melee began with; read
// off the logs: the rounds carry a melee_id, two pairings of one melee
// share the target, and one side of a joined pairing declares the enemy
// on its flank or rear (the measured fact: a differing one would be a
// finding).
TEST(PositionsTest, MultiUnitMeleesOnTheTableAuditClean) {
  int shared_melees = 0;
  int flanked = 0;
  for (const auto& [seed, units] : {std::pair{38, 8}, std::pair{55, 16}}) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    GeneratorOptions options;
    options.seed = seed;
    options.turns = 10;
    options.units_per_clan = units;
    options.positions = true;
    const v1::BattleLog log = GenerateLog(options);
    const v1::AuditReport report = Audit(log);
    EXPECT_EQ(report.findings_size(), 0) << FirstFindings(report);
    std::map<std::string, std::vector<std::string>> targets;  // By melee_id.
    for (const v1::Event& e : log.events()) {
      if (!e.has_melee_round() || e.melee_round().melee_id().empty()) continue;
      const v1::MeleeRound& r = e.melee_round();
      ASSERT_EQ(r.sides_size(), 2);
      targets[r.melee_id()].push_back(r.sides(1).unit());
      for (const v1::MeleeSide& side : r.sides()) {
        if (side.enemy_fighting_to_flank_or_rear()) ++flanked;
      }
    }
    EXPECT_FALSE(targets.empty()) << "no multi-unit melee in this game";
    for (const auto& [id, sides] : targets) {
      if (sides.size() == 2 && sides[0] == sides[1]) ++shared_melees;
    }
  }
  EXPECT_GT(shared_melees, 0);
  EXPECT_GT(flanked, 0);
}

// A finding or a planted fault, as the audit names it.
using Named = std::tuple<std::uint64_t, std::string, int, std::string>;

TEST(PositionsTest, PlantedFaultsAreFoundExactly) {
  std::map<std::string, int> kinds;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const int k = 1 + static_cast<int>(seed % 5);
    SCOPED_TRACE(testing::Message()
                 << "seed " << seed << ", " << k << " faults");
    const GeneratedGame game = GenerateGame(TableGame(seed, k));
    ASSERT_EQ(game.faults.size(), static_cast<std::size_t>(k));
    std::vector<Named> found;
    const v1::AuditReport report = Audit(game.log);
    for (const v1::Finding& f : report.findings()) {
      found.emplace_back(f.seq(), f.rule_id(), f.severity(), f.subject());
    }
    std::vector<Named> planted;
    for (const PlantedFault& f : game.faults) {
      planted.emplace_back(f.seq, f.rule_id, f.severity, f.subject);
      ++kinds[std::string(FaultSpecOf(f.kind).name)];
    }
    std::sort(found.begin(), found.end());
    std::sort(planted.begin(), planted.end());
    EXPECT_EQ(found, planted);
  }
  // Every kind of the catalogue applies on a table too, but a skipped push
  // back: on a table the winner's follow-up would come before the push back
  // it skipped (daimyo.table.result_move.order, a second finding), so it
  // comes as its stand-in (in_place_of), a result move nothing owes.
  for (const FaultSpec& spec : FaultCatalogue()) {
    if (spec.kind == FaultKind::kResultMoveMissing) continue;
    EXPECT_GT(kinds[std::string(spec.name)], 0)
        << "never planted: " << spec.name;
  }
}

}  // namespace
}  // namespace gunbai::generate
