// Issue 11, "Stream the log": the streamed audit of a binary log
// (replay::AuditBinaryLogStream, what `gunbai audit FILE.pb` does) makes no
// heap allocation per event. The README says each event is parsed on one
// reused arena block and replayed, so that memory stays flat however long the
// log is; this test counts every operator new of the process while the audit
// runs, for two logs of one army whose lengths differ tenfold, and holds the
// allocations that the longer log adds per event it adds to a small bound.
//
// Its own executable: it replaces the global operator new and delete, which
// would count the allocations of every other test in a shared binary.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "absl/status/statusor.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/dice_stats.h"
#include "replay/log_parser.h"
#include "replay/log_stream.h"
#include "replay/ruleset_loader.h"
#include "rules/battlefield.h"
#include "rules/geometry/geometry.h"

namespace {

std::atomic<bool> counting{false};
std::atomic<std::int64_t> allocations{0};

void* Allocate(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
  }
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* AllocateAligned(std::size_t size, std::align_val_t align) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
  }
  const std::size_t a = static_cast<std::size_t>(align);
  void* p = std::aligned_alloc(a, ((size == 0 ? 1 : size) + a - 1) / a * a);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return Allocate(size); }
void* operator new[](std::size_t size) { return Allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return AllocateAligned(size, align);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;

struct Counted {
  std::int64_t allocations = 0;
  int events = 0;
  int findings = 0;
};

// Streams the generated game of `events` events (64 KiB blocks, as the CLI
// reads a file) and counts the allocations the audit makes.
Counted CountStreamedAudit(int events, int units_per_clan) {
  generate::GeneratorOptions options;
  options.seed = 11;
  options.target_events = events;
  options.units_per_clan = units_per_clan;
  const v1::BattleLog log = generate::GenerateLog(options);
  const std::string bytes = log.SerializeAsString();
  auto catalog = replay::RulesetCatalog::Builtin();
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  auto ruleset = catalog->ForLog(log.header());
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  const replay::LoadedRuleset loaded = **ruleset;
  const replay::OpenLogStream open = [&bytes] {
    return std::make_unique<google::protobuf::io::ArrayInputStream>(
        bytes.data(), static_cast<int>(bytes.size()), 64 << 10);
  };
  const replay::RulesetForHead ruleset_for =
      [&loaded](const v1::BattleLog&) -> absl::StatusOr<replay::LoadedRuleset> {
    return loaded;
  };
  allocations = 0;
  counting = true;
  absl::StatusOr<v1::AuditReport> report = replay::AuditBinaryLogStream(
      open, ruleset_for, replay::AuditOptions{}, replay::kMaxLogBytes);
  counting = false;
  EXPECT_TRUE(report.ok()) << report.status();
  Counted counted;
  counted.allocations = allocations.load();
  counted.events = log.events_size();
  counted.findings = report.ok() ? report->findings_size() : -1;
  return counted;
}

void ExpectFlatAllocations(int units_per_clan) {
  SCOPED_TRACE(units_per_clan);
  // Once uncounted first: what is made once per process (the built-in
  // rulesets' tables, protobuf's defaults) would otherwise land in whichever
  // game is audited first, and the tests of one binary would depend on
  // their order (run together, the short game of the second counted 3,500
  // fewer than alone).
  (void)CountStreamedAudit(2'000, units_per_clan);
  const Counted short_game = CountStreamedAudit(2'000, units_per_clan);
  const Counted long_game = CountStreamedAudit(20'000, units_per_clan);
  // Clean generated games: a finding would be a message built per event.
  EXPECT_EQ(short_game.findings, 0);
  EXPECT_EQ(long_game.findings, 0);
  ASSERT_GT(long_game.events, short_game.events);
  const double per_event =
      static_cast<double>(long_game.allocations - short_game.allocations) /
      (long_game.events - short_game.events);
  std::printf(
      "%d units a clan: %lld allocations for %d events, %lld for %d: "
      "%.4f an added event\n",
      units_per_clan, static_cast<long long>(short_game.allocations),
      short_game.events, static_cast<long long>(long_game.allocations),
      long_game.events, per_event);
  // One allocation in a hundred events at most: what is left are the rare
  // events that grow a container for good (a first melee of two units, a
  // new turn's first list), never the loop over events itself.
  EXPECT_LT(per_event, 0.01);
}

TEST(StreamAllocTest, NoAllocationPerEventWithTwelveUnitsAClan) {
  ExpectFlatAllocations(12);
}

TEST(StreamAllocTest, NoAllocationPerEventWithFortyUnitsAClan) {
  ExpectFlatAllocations(40);
}

// What measuring a table makes per event, a base as a polygon, its arc of
// fire and the table's outline, is four vertices held in place: making and
// comparing them allocates nothing (as std::vector, 7.7 allocations an
// event of a generated game on a table; now 1.7, the words of the checks).
TEST(StreamAllocTest, BasesArcsAndTheTableAllocateNothing) {
  const geometry::OrientedRect firer{{50, 40}, 1.2, 12, 4};
  const geometry::OrientedRect target{{58, 61}, -1.9, 8, 6};
  rules::Battlefield field;
  field.width_mm = 1800;
  field.depth_mm = 1200;
  allocations = 0;
  counting = true;
  const geometry::Polygon a = geometry::ToPolygon(firer);
  const geometry::Polygon b = geometry::ToPolygon(target);
  const bool in_arc = geometry::InFrontArc(firer, 0.785, 30, b);
  const double gap = geometry::PolygonDistance(a, b);
  const bool on_table = geometry::Contains(field.Outline(), {50, 40});
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  // The target's centre is 22.5 cm off at a bearing of 69.2 degrees
  // (atan2(21, 8)), the firer facing 68.8 (1.2 rad): ahead, within reach,
  // apart; the firer's front centre is on a 180 x 120 cm table.
  EXPECT_TRUE(in_arc);
  EXPECT_GT(gap, 10);
  EXPECT_LT(gap, 22.5);
  EXPECT_TRUE(on_table);
}

// The exact run chance of `gunbai dice` keeps only the last 32 starts of a
// run: a stretch of two million dice (a long game, or a part of a sharded
// run given to a merge) allocates nothing, where a vector of them took
// 16 MB (and a hostile part's 268 million dice 2 GB).
TEST(StreamAllocTest, TheRunChanceOfMillionsOfDiceAllocatesNothing) {
  allocations = 0;
  counting = true;
  const double p = replay::RunProbability(2'000'000, 8);
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  // About (2e6 - 7) * 5/6 * 6^-7 = 5.95 new runs of eight expected: the
  // chance of at least one is near 1 - e^-5.95 = 0.9974.
  EXPECT_NEAR(p, 0.9974, 0.001);
}

}  // namespace
}  // namespace gunbai::testing
