// Impact branches replayed from a binary log's bytes (ReadBinaryLogHead,
// ForEachBinaryLogEvent, AddImpactsFromEvents: what AuditLog and
// AuditLogStream do with `impact`) give AddImpacts's impacts for the log
// parsed whole, byte for byte: over generated Daimyo games with planted
// faults, a Samurai Knight Fever sample with changed dice, a head after the
// events or split around them; and for hostile bytes (cut, flipped) the
// streamed audit and its branches either give up (FailedPrecondition, the
// caller then parses whole) or give the whole parse's report and impacts:
// never other ones.
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/impact.h"
#include "replay/log_stream.h"
#include "replay/ruleset_loader.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;

const replay::RulesetCatalog& Catalog() {
  static const replay::RulesetCatalog* catalog = [] {
    auto built = replay::RulesetCatalog::Builtin();
    EXPECT_TRUE(built.ok()) << built.status();
    return new replay::RulesetCatalog(*std::move(built));
  }();
  return *catalog;
}

// One block of 100 bytes at a time, so that events straddle blocks.
replay::OpenLogStream Open(const std::string& bytes) {
  return [&bytes] {
    return std::make_unique<google::protobuf::io::ArrayInputStream>(
        bytes.data(), static_cast<int>(bytes.size()), 100);
  };
}

// The audit of `log` (parsed whole) and its impacts by AddImpacts: the
// path every impact took before.
absl::StatusOr<v1::AuditReport> WholeImpacts(const v1::BattleLog& log) {
  auto ruleset = Catalog().ForLog(log.header());
  if (!ruleset.ok()) return ruleset.status();
  absl::StatusOr<v1::AuditReport> report = replay::AuditLog(log, **ruleset);
  if (!report.ok()) return report.status();
  absl::Status impact = replay::AddImpacts(log, **ruleset, *report);
  if (!impact.ok()) return impact;
  return report;
}

// The streamed audit of `bytes` and its impacts with every branch read
// from them too: AuditLog's path (service/daemon/audit_service.cc). The
// streamed audit checks every event; a branch may stop before the last one.
absl::StatusOr<v1::AuditReport> StreamedImpacts(const std::string& bytes) {
  const std::int64_t size = static_cast<std::int64_t>(bytes.size());
  absl::StatusOr<v1::AuditReport> report = replay::AuditBinaryLogStream(
      Open(bytes),
      [](const v1::BattleLog& head) -> absl::StatusOr<replay::LoadedRuleset> {
        auto chosen = Catalog().ForLog(head.header());
        if (!chosen.ok()) return chosen.status();
        return **chosen;
      },
      replay::AuditOptions(), size);
  if (!report.ok()) return report.status();
  absl::StatusOr<v1::BattleLog> head =
      replay::ReadBinaryLogHead(Open(bytes), size);
  if (!head.ok()) return head.status();
  auto ruleset = Catalog().ForLog(head->header());
  if (!ruleset.ok()) return ruleset.status();
  absl::Status impact = replay::AddImpactsFromEvents(
      *head,
      [&](const replay::EventVisitor& visit) {
        return replay::ForEachBinaryLogEvent(Open(bytes), size, visit);
      },
      **ruleset, *report);
  if (!impact.ok()) return impact;
  return report;
}

// Expects the impacts from `bytes` to be those of the log they parse to;
// returns how many impacts there were.
int ExpectSameImpacts(const std::string& bytes, const std::string& what) {
  SCOPED_TRACE(what);
  v1::BattleLog log;
  EXPECT_TRUE(log.ParseFromString(bytes));
  const absl::StatusOr<v1::AuditReport> whole = WholeImpacts(log);
  EXPECT_TRUE(whole.ok()) << whole.status();
  const absl::StatusOr<v1::AuditReport> streamed = StreamedImpacts(bytes);
  EXPECT_TRUE(streamed.ok()) << streamed.status();
  if (!whole.ok() || !streamed.ok()) return 0;
  EXPECT_EQ(streamed->SerializeAsString(), whole->SerializeAsString());
  return whole->impacts_size();
}

v1::BattleLog Generated(std::uint64_t seed, int faults) {
  generate::GeneratorOptions options;
  options.seed = seed;
  options.target_events = 300 + static_cast<int>(seed) * 50;
  options.units_per_clan = 3 + static_cast<int>(seed % 9);
  options.faults = faults;
  return generate::GenerateGame(options).log;
}

// Generated games with 2 to 12 planted faults: disputes, so impacts, some
// ending at an event the corrected branch makes impossible.
TEST(ImpactStreamTest, GeneratedGamesWithFaultsGiveTheSameImpacts) {
  int impacts = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    const int faults = 2 + static_cast<int>(seed % 6) * 2;
    impacts +=
        ExpectSameImpacts(Generated(seed, faults).SerializeAsString(),
                          absl::StrCat("seed ", seed, ", ", faults, " faults"));
  }
  // Not a vacuous comparison.
  EXPECT_GT(impacts, 16);
}

// The Samurai Knight Fever sample with melee and morale dice changed: its
// claims disputed, under the other ruleset's engine.
TEST(ImpactStreamTest, AnSkfLogWithChangedDiceGivesTheSameImpacts) {
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) +
                   "/skf-kawanakajima.textproto");
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  for (v1::Event& event : *log.mutable_events()) {
    if (event.seq() % 3 != 0) continue;
    if (event.has_melee_round()) {
      for (v1::MeleeSide& side :
           *event.mutable_melee_round()->mutable_sides()) {
        for (int d = 0; d < side.dice_size(); ++d) {
          side.set_dice(d, 1 + (side.dice(d) + 2) % 6);
        }
      }
    }
    if (event.has_morale_test() && event.morale_test().dice_size() > 0) {
      event.mutable_morale_test()->set_dice(0, 6);
    }
  }
  EXPECT_GT(ExpectSameImpacts(log.SerializeAsString(), "skf dice"), 0);
}

// The head after the events, and split around them (protobuf merges the
// header's two fields): ReadBinaryLogHead reads it wherever it is.
TEST(ImpactStreamTest, AHeadAfterOrAroundTheEventsGivesTheSameImpacts) {
  const v1::BattleLog log = Generated(5, 8);
  v1::BattleLog events_only;
  *events_only.mutable_events() = log.events();
  v1::BattleLog head_only = log;
  head_only.clear_events();
  EXPECT_GT(ExpectSameImpacts(
                events_only.SerializeAsString() + head_only.SerializeAsString(),
                "head last"),
            0);
  v1::BattleLog first;
  first.mutable_header()->set_game_id(log.header().game_id());
  *first.mutable_order_of_battle() = log.order_of_battle();
  v1::BattleLog second;
  *second.mutable_header() = log.header();
  second.mutable_header()->clear_game_id();
  EXPECT_GT(ExpectSameImpacts(first.SerializeAsString() +
                                  events_only.SerializeAsString() +
                                  second.SerializeAsString(),
                              "head split"),
            0);
}

// Cut and flipped bytes: given up on, or the whole parse's impacts. A cut
// in the middle of an event must be given up on (the whole parse refuses
// it too).
TEST(ImpactStreamTest, HostileBytesAreGivenUpOnOrGiveTheSameImpacts) {
  const v1::BattleLog log = Generated(7, 10);
  const std::string bytes = log.SerializeAsString();
  int given_up = 0;
  int same = 0;
  for (std::size_t at = 1; at < bytes.size(); at += bytes.size() / 61) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    for (const std::string& hostile : {bytes.substr(0, at), flipped}) {
      v1::BattleLog parsed;
      const bool parses = parsed.ParseFromString(hostile);
      const absl::StatusOr<v1::AuditReport> streamed = StreamedImpacts(hostile);
      if (!streamed.ok()) {
        if (streamed.status().code() == absl::StatusCode::kFailedPrecondition) {
          ++given_up;
        }
        continue;
      }
      // Streamed: the bytes parse whole too, to the same impacts.
      ASSERT_TRUE(parses) << "at " << at;
      const absl::StatusOr<v1::AuditReport> whole = WholeImpacts(parsed);
      ASSERT_TRUE(whole.ok()) << whole.status();
      EXPECT_EQ(streamed->SerializeAsString(), whole->SerializeAsString())
          << "at " << at;
      ++same;
    }
  }
  EXPECT_GT(given_up, 0);
  EXPECT_GT(same, 0);
}

// ForEachBinaryLogEvent stops when the visitor says so, and visits every
// event in order otherwise.
TEST(ImpactStreamTest, ForEachBinaryLogEventVisitsInOrderAndStops) {
  const v1::BattleLog log = Generated(3, 0);
  const std::string bytes = log.SerializeAsString();
  const std::int64_t size = static_cast<std::int64_t>(bytes.size());
  int visited = 0;
  bool in_order = true;
  ASSERT_TRUE(replay::ForEachBinaryLogEvent(
                  Open(bytes), size,
                  [&](const v1::Event& event) {
                    in_order =
                        in_order && event.SerializeAsString() ==
                                        log.events(visited).SerializeAsString();
                    ++visited;
                    return true;
                  })
                  .ok());
  EXPECT_TRUE(in_order);
  EXPECT_EQ(visited, log.events_size());
  visited = 0;
  ASSERT_TRUE(
      replay::ForEachBinaryLogEvent(Open(bytes), size, [&](const v1::Event&) {
        return ++visited < 10;
      }).ok());
  EXPECT_EQ(visited, 10);
  // A bound one byte short of the log: given up on.
  EXPECT_EQ(replay::ForEachBinaryLogEvent(Open(bytes), size - 1,
                                          [](const v1::Event&) { return true; })
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace gunbai::testing
