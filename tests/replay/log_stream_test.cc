// Issue 11, "Stream the log": a binary log audited as a stream of events
// (replay::AuditBinaryLogStream, what `gunbai audit FILE.pb` does) gives the
// report the whole log gives (replay::AuditLog), byte for byte, over the
// sample games, generated Daimyo games with and without planted faults, and
// Samurai Knight Fever logs broken on purpose; a header after the events is
// read in a second pass; and every log it cannot be sure of is left to the
// whole read, whose error message the CLI then prints as before.
#include "replay/log_stream.h"

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/daimyo/daimyo_engine.h"
#include "service/cli/cli.h"
#include "service/cli/cli_input.h"
#include "service/render/report_format.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;

std::string DataPath(const std::string& name) {
  return std::string(GUNBAI_TEST_DATA_DIR) + "/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  ASSERT_TRUE(out) << path;
}

v1::BattleLog TextLog(const std::string& name) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      ReadFile(DataPath(name)), &log))
      << name;
  return log;
}

// The built-in ruleset the header names, as `gunbai audit` chooses it.
absl::StatusOr<replay::LoadedRuleset> BuiltinFor(const v1::BattleLog& log) {
  auto catalog = replay::RulesetCatalog::Builtin();
  if (!catalog.ok()) return catalog.status();
  auto chosen = catalog->ForLog(log.header());
  if (!chosen.ok()) return chosen.status();
  return **chosen;
}

// Streams `bytes` (one block of 100 bytes at a time, so that events straddle
// blocks) and counts how often the input is opened.
struct Streamed {
  absl::StatusOr<v1::AuditReport> report;
  int opens = 0;
};
Streamed StreamAudit(const std::string& bytes,
                     const replay::AuditOptions& options = {},
                     std::int64_t max_bytes = replay::kMaxLogBytes) {
  Streamed result;
  result.report = replay::AuditBinaryLogStream(
      [&] {
        ++result.opens;
        return std::make_unique<google::protobuf::io::ArrayInputStream>(
            bytes.data(), static_cast<int>(bytes.size()), 100);
      },
      BuiltinFor, options, max_bytes);
  return result;
}

// The report of today's path: the whole log parsed, then AuditLog.
absl::StatusOr<v1::AuditReport> WholeAudit(
    const std::string& bytes, const replay::AuditOptions& options = {}) {
  auto log = replay::ParseBattleLog(bytes, replay::LogFormat::kBinary, "t.pb");
  if (!log.ok()) return log.status();
  auto ruleset = BuiltinFor(*log);
  if (!ruleset.ok()) return ruleset.status();
  return replay::AuditLog(*log, *ruleset, options);
}

// Byte-identical: the same serialization, and the same text and JSON the
// CLI prints.
void ExpectSameReport(const std::string& bytes,
                      const replay::AuditOptions& options,
                      const std::string& what) {
  SCOPED_TRACE(what);
  const absl::StatusOr<v1::AuditReport> whole = WholeAudit(bytes, options);
  ASSERT_TRUE(whole.ok()) << whole.status();
  const Streamed streamed = StreamAudit(bytes, options);
  ASSERT_TRUE(streamed.report.ok()) << streamed.report.status();
  EXPECT_EQ(streamed.opens, 1);  // Head first: one pass.
  EXPECT_EQ(streamed.report->SerializeAsString(), whole->SerializeAsString());
  EXPECT_EQ(service::FormatReportText(*streamed.report),
            service::FormatReportText(*whole));
  EXPECT_EQ(service::FormatJson(*streamed.report), service::FormatJson(*whole));
}

void ExpectSameReportBothWays(const v1::BattleLog& log,
                              const std::string& what) {
  const std::string bytes = log.SerializeAsString();
  ExpectSameReport(bytes, {}, what);
  replay::AuditOptions outcomes;
  outcomes.record_outcomes = true;  // gunbai audit --outcomes
  ExpectSameReport(bytes, outcomes, absl::StrCat(what, " --outcomes"));
}

// The sample games of tests/data, both rulesets: their reports have
// violations, disputes, a victory by points and a disputed winner (SKF).
TEST(LogStreamTest, SampleLogsGiveTheSameReport) {
  for (const char* name :
       {"sekigahara.textproto", "anegawa-clean.textproto",
        "nagashino-melee.textproto", "skf-kawanakajima.textproto"}) {
    ExpectSameReportBothWays(TextLog(name), name);
  }
}

// Generated Daimyo games, clean and with planted faults of every kind, small
// and large armies.
TEST(LogStreamTest, GeneratedGamesGiveTheSameReport) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.target_events = 300 + static_cast<int>(seed) * 40;
    options.units_per_clan = 2 + static_cast<int>(seed % 11);
    options.faults = static_cast<int>(seed % 4) * 3;
    const generate::GeneratedGame game = generate::GenerateGame(options);
    ExpectSameReportBothWays(
        game.log, absl::StrCat("seed ", seed, ", ", options.faults, " faults"));
  }
}

// Samurai Knight Fever logs made faulty: events dropped (owed tests and
// activations go missing, seq jumps), dice changed (claims disputed), the
// game cut short (the end owes what it lacks).
TEST(LogStreamTest, FaultySkfLogsGiveTheSameReport) {
  const v1::BattleLog sample = TextLog("skf-kawanakajima.textproto");
  for (int step = 2; step <= 7; ++step) {
    v1::BattleLog dropped = sample;
    dropped.clear_events();
    for (int i = 0; i < sample.events_size(); ++i) {
      if (i % step != 1) *dropped.add_events() = sample.events(i);
    }
    ExpectSameReportBothWays(dropped, absl::StrCat("every ", step, "th gone"));

    v1::BattleLog dice = sample;
    for (v1::Event& event : *dice.mutable_events()) {
      if (event.seq() % static_cast<std::uint64_t>(step) != 0) continue;
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
    ExpectSameReportBothWays(dice, absl::StrCat("dice changed, step ", step));

    v1::BattleLog cut = sample;
    const int keep = sample.events_size() * step / 8;
    cut.mutable_events()->DeleteSubrange(keep, sample.events_size() - keep);
    ExpectSameReportBothWays(cut, absl::StrCat("cut after ", keep));
  }
}

// 25,000 broken events: the streamed report keeps the bound of the whole
// one, 20,000 findings and one counting the 5,000 others.
TEST(LogStreamTest, FindingsBoundHolds) {
  std::string events = TurnStart(1, 1, "red") + Activation(2, 1, "red");
  for (int i = 0; i < 25000; ++i) {
    absl::StrAppend(&events, Ev(3 + i, 1, "red", "move { unit: \"ghost\" }"));
  }
  const std::string bytes = LogWithEvents(events).SerializeAsString();
  ExpectSameReport(bytes, {}, "25,000 unknown units");
  const Streamed streamed = StreamAudit(bytes);
  ASSERT_TRUE(streamed.report.ok());
  ASSERT_EQ(streamed.report->findings_size(),
            rules::daimyo::kMaxFindingsPerLog + 1);
  EXPECT_EQ(
      streamed.report->findings(rules::daimyo::kMaxFindingsPerLog).rule_id(),
      "log.findings_truncated");
}

// Protobuf lets fields come in any order, and merges a message field given
// twice. Here the events come first and the header and order of battle
// after them; then the header comes in two parts, the game id before the
// events and the clans after. The streamed audit notices the late head,
// drops its replay and reads the bytes twice more (head, then events),
// still giving the whole log's report.
TEST(LogStreamTest, HeadAfterEventsIsReadInASecondPass) {
  const v1::BattleLog sample = TextLog("sekigahara.textproto");
  v1::BattleLog events_only;
  *events_only.mutable_events() = sample.events();
  v1::BattleLog head_only = sample;
  head_only.clear_events();
  const std::string late_head =
      events_only.SerializeAsString() + head_only.SerializeAsString();

  const absl::StatusOr<v1::AuditReport> whole = WholeAudit(late_head);
  ASSERT_TRUE(whole.ok()) << whole.status();
  Streamed streamed = StreamAudit(late_head);
  ASSERT_TRUE(streamed.report.ok()) << streamed.report.status();
  EXPECT_EQ(streamed.opens, 3);
  EXPECT_EQ(streamed.report->SerializeAsString(), whole->SerializeAsString());
  // And it is the sample's own report: the order changed nothing.
  EXPECT_EQ(whole->SerializeAsString(),
            WholeAudit(sample.SerializeAsString())->SerializeAsString());

  v1::BattleLog first_part;
  first_part.mutable_header()->set_game_id(sample.header().game_id());
  *first_part.mutable_order_of_battle() = sample.order_of_battle();
  v1::BattleLog second_part;
  *second_part.mutable_header() = sample.header();
  second_part.mutable_header()->clear_game_id();
  const std::string split_head = first_part.SerializeAsString() +
                                 events_only.SerializeAsString() +
                                 second_part.SerializeAsString();
  streamed = StreamAudit(split_head);
  ASSERT_TRUE(streamed.report.ok()) << streamed.report.status();
  EXPECT_EQ(streamed.opens, 3);
  EXPECT_EQ(streamed.report->SerializeAsString(),
            WholeAudit(split_head)->SerializeAsString());
}

// A log with no events at all: the head is replayed at the end.
TEST(LogStreamTest, LogWithoutEvents) {
  v1::BattleLog log = TextLog("anegawa-clean.textproto");
  log.clear_events();
  ExpectSameReportBothWays(log, "no events");
}

// What the streamed audit does not audit, it says so (FailedPrecondition),
// and leaves it to the whole read: bytes that do not parse, an enum number
// no value names, a field the schema does not have, a log over the size
// bound, a ruleset or order of battle that is refused.
TEST(LogStreamTest, GivesUpOnWhatItCannotBeSureOf) {
  const v1::BattleLog sample = TextLog("sekigahara.textproto");
  const std::string bytes = sample.SerializeAsString();
  struct Case {
    std::string name;
    std::string bytes;
    std::int64_t max_bytes;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"cut short", bytes.substr(0, bytes.size() - 3), replay::kMaxLogBytes});
  v1::BattleLog bad_enum = sample;
  bad_enum.mutable_events(5)->mutable_move()->set_kind(
      static_cast<v1::MoveKind>(99));
  cases.push_back(
      {"enum 99", bad_enum.SerializeAsString(), replay::kMaxLogBytes});
  // Field 9, a varint: not in BattleLog (the whole parse would keep it as an
  // unknown field; the stream does not try to).
  cases.push_back({"unknown field", bytes + std::string("\x48\x01", 2),
                   replay::kMaxLogBytes});
  cases.push_back(
      {"over the bound", bytes, static_cast<std::int64_t>(bytes.size()) - 1});
  v1::BattleLog other_ruleset = sample;
  other_ruleset.mutable_header()->mutable_ruleset()->set_name("chess");
  cases.push_back({"no such ruleset", other_ruleset.SerializeAsString(),
                   replay::kMaxLogBytes});
  v1::BattleLog no_stands = sample;
  no_stands.mutable_order_of_battle()->mutable_units(0)->set_stands(0);
  cases.push_back({"unit of no stands", no_stands.SerializeAsString(),
                   replay::kMaxLogBytes});
  for (const Case& c : cases) {
    const Streamed streamed = StreamAudit(c.bytes, {}, c.max_bytes);
    EXPECT_EQ(streamed.report.status().code(),
              absl::StatusCode::kFailedPrecondition)
        << c.name;
  }
  // Exactly at the bound is fine.
  EXPECT_TRUE(StreamAudit(bytes, {}, static_cast<std::int64_t>(bytes.size()))
                  .report.ok());
}

// AuditBinaryLogStreamOrGiveUp answers giving up as a result (no report,
// the reason) and keeps errors for errors: the same log streamed, given up
// on (cut short), and stopped after its first event (CANCELLED).
TEST(LogStreamTest, GivingUpIsAResultNotAnError) {
  const std::string bytes = TextLog("sekigahara.textproto").SerializeAsString();
  const auto run = [](const std::string& b,
                      const replay::AfterStreamedEvent& after_event) {
    return replay::AuditBinaryLogStreamOrGiveUp(
        [&b] {
          return std::make_unique<google::protobuf::io::ArrayInputStream>(
              b.data(), static_cast<int>(b.size()));
        },
        BuiltinFor, {}, replay::kMaxLogBytes, after_event);
  };
  const auto streamed = run(bytes, {});
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  ASSERT_TRUE(streamed->report.has_value());
  const absl::StatusOr<v1::AuditReport> whole = WholeAudit(bytes);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(streamed->report->SerializeAsString(), whole->SerializeAsString());

  const auto cut = run(bytes.substr(0, bytes.size() - 3), {});
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_FALSE(cut->report.has_value());
  EXPECT_FALSE(cut->read_whole_because.empty());

  const auto stopped = run(bytes, [](v1::AuditReport&) { return false; });
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kCancelled);
}

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

CliResult Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = service::RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

// The smoke of `gunbai audit FILE.pb` streamed: a generated game of 5,000
// events with planted faults, written in binary (named .pb, and with no
// extension, found binary by its bytes) and in text format. The text log is
// read whole; the binary one is streamed (the file opens as a stream and
// AuditBinaryLogStream takes it). Both print the same report, text and JSON,
// with --outcomes too, and exit 1 for the faults. Memory is measured by
// deploy/stream-bench.sh, not here.
TEST(LogStreamCliTest, BinaryFileIsStreamedWithTheSameReport) {
  generate::GeneratorOptions options;
  options.seed = 11;
  options.target_events = 5000;
  options.units_per_clan = 12;
  options.faults = 6;
  const v1::BattleLog log = generate::GenerateGame(options).log;
  const std::string dir = ::testing::TempDir();
  const std::string pb = dir + "/stream-smoke.pb";
  const std::string bare = dir + "/stream-smoke-log";
  const std::string text = dir + "/stream-smoke.textproto";
  WriteFile(pb, log.SerializeAsString());
  WriteFile(bare, log.SerializeAsString());
  std::string printed;
  google::protobuf::TextFormat::PrintToString(log, &printed);
  WriteFile(text, printed);

  EXPECT_TRUE(service::IsBinaryLogFile(pb, replay::LogFormat::kAuto));
  EXPECT_TRUE(service::IsBinaryLogFile(bare, replay::LogFormat::kAuto));
  EXPECT_FALSE(service::IsBinaryLogFile(text, replay::LogFormat::kAuto));
  EXPECT_FALSE(service::IsBinaryLogFile("-", replay::LogFormat::kBinary));
  const absl::StatusOr<v1::AuditReport> streamed =
      replay::AuditBinaryLogStream([&] { return service::OpenFileStream(pb); },
                                   BuiltinFor, {}, replay::kMaxLogBytes);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(streamed->events_replayed(), 5000u);

  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{
           {}, {"--format=json"}, {"--outcomes", "--format=json"}}) {
    std::vector<std::string> args = {"audit"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<std::string> text_args = args, pb_args = args, bare_args = args;
    text_args.push_back(text);
    pb_args.push_back(pb);
    bare_args.push_back(bare);
    const CliResult from_text = Cli(text_args);
    const CliResult from_pb = Cli(pb_args);
    const CliResult from_bare = Cli(bare_args);
    EXPECT_EQ(from_text.code, service::kExitFindings);
    EXPECT_EQ(from_pb.code, from_text.code);
    EXPECT_EQ(from_pb.out, from_text.out);
    EXPECT_EQ(from_bare.out, from_text.out);
    EXPECT_EQ(from_pb.err, "");
  }
}

// A binary file the stream gives up on gets the message the whole read
// gives, as before streaming: a cut log says it is not a valid binary log,
// an enum number names its field and event.
TEST(LogStreamCliTest, BadBinaryFileKeepsItsErrorMessage) {
  const v1::BattleLog sample = TextLog("sekigahara.textproto");
  const std::string bytes = sample.SerializeAsString();
  const std::string dir = ::testing::TempDir();
  const std::string cut = dir + "/stream-cut.pb";
  WriteFile(cut, bytes.substr(0, bytes.size() - 3));
  CliResult result = Cli({"audit", cut});
  EXPECT_EQ(result.code, service::kExitBadInput);
  EXPECT_EQ(result.err, absl::StrCat("gunbai: ",
                                     replay::ParseBattleLog(
                                         bytes.substr(0, bytes.size() - 3),
                                         replay::LogFormat::kBinary, cut)
                                         .status()
                                         .message(),
                                     "\n"));
  EXPECT_THAT(result.err, HasSubstr("not a valid binary gunbai.v1.BattleLog"));

  v1::BattleLog bad_enum = sample;
  bad_enum.mutable_events(5)->mutable_move()->set_kind(
      static_cast<v1::MoveKind>(99));
  const std::string enum_file = dir + "/stream-enum.pb";
  WriteFile(enum_file, bad_enum.SerializeAsString());
  result = Cli({"audit", enum_file});
  EXPECT_EQ(result.code, service::kExitBadInput);
  EXPECT_THAT(result.err, HasSubstr("events[5].move.kind: 99 is not a value"));
}

}  // namespace
}  // namespace gunbai::testing
