// Golden logs: each tests/data/NAME.textproto must audit to exactly
// tests/data/NAME.expected.txt through the CLI, with the expected exit code.
// The expected reports were checked by hand against tests/data/README.md.
// Also: the same log in JSON and binary gives the same report, JSON output
// round-trips, and the report is byte-identical across runs and threads.
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/daimyo/engine.h"
#include "rules/digest.h"
#include "service/cli/cli.h"

namespace gunbai::testing {
namespace {

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

struct Golden {
  std::string name;
  int exit_code;
};

void PrintTo(const Golden& g, std::ostream* os) { *os << g.name; }

class GoldenTest : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenTest, MatchesExpectedReport) {
  const Golden& g = GetParam();
  const CliResult r = Cli({"audit", DataPath(g.name + ".textproto")});
  EXPECT_EQ(r.code, g.exit_code) << r.err;
  EXPECT_EQ(r.out, ReadFile(DataPath(g.name + ".expected.txt")));
}

INSTANTIATE_TEST_SUITE_P(Logs, GoldenTest,
                         ::testing::Values(Golden{"sekigahara", 1},
                                           Golden{"nagashino-melee", 1},
                                           Golden{"anegawa-clean", 0},
                                           Golden{"table-game", 1}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n) c = (c == '-') ? '_' : c;
                           return n;
                         });

v1::BattleLog ParseSample(const std::string& name) {
  auto log = replay::ParseBattleLog(ReadFile(DataPath(name)),
                                    replay::LogFormat::kText, name);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : v1::BattleLog();
}

std::string ReportBytes(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  auto report = replay::AuditLog(log, *ruleset);
  EXPECT_TRUE(report.ok());
  return base::DeterministicBytes(*report);
}

TEST(FormatsTest, JsonAndBinaryGiveTheSameReport) {
  const v1::BattleLog log = ParseSample("sekigahara.textproto");
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(log, &json).ok());
  auto from_json = replay::ParseBattleLog(json, replay::LogFormat::kAuto, "j");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  const std::string binary = log.SerializeAsString();
  auto from_binary =
      replay::ParseBattleLog(binary, replay::LogFormat::kAuto, "b");
  ASSERT_TRUE(from_binary.ok()) << from_binary.status();
  const std::string expected = ReportBytes(log);
  EXPECT_EQ(ReportBytes(*from_json), expected);
  EXPECT_EQ(ReportBytes(*from_binary), expected);
}

TEST(FormatsTest, JsonReportRoundTrips) {
  const CliResult r =
      Cli({"audit", "--format=json", DataPath("sekigahara.textproto")});
  EXPECT_EQ(r.code, 1);
  v1::AuditReport parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &parsed).ok());
  EXPECT_EQ(base::DeterministicBytes(parsed),
            ReportBytes(ParseSample("sekigahara.textproto")));
  // 5 violations and 2 disputes, as worked in tests/data/README.md.
  EXPECT_EQ(parsed.summary().violations(), 5u);
  EXPECT_EQ(parsed.summary().disputes(), 2u);
}

TEST(DeterminismTest, SameBytesEveryRunAndThread) {
  const v1::BattleLog log = ParseSample("sekigahara.textproto");
  const std::string first = ReportBytes(log);
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) results[t] = ReportBytes(log);
    });
  }
  for (auto& th : threads) th.join();
  for (const std::string& r : results) EXPECT_EQ(r, first);
}

TEST(CliTest, ExitCodesAndMessages) {
  EXPECT_EQ(Cli({}).code, service::kExitBadInput);
  EXPECT_EQ(Cli({"--help"}).code, service::kExitClean);
  EXPECT_THAT(Cli({"--help"}).out, HasSubstr("Exit codes"));
  const CliResult unknown = Cli({"frobnicate"});
  EXPECT_EQ(unknown.code, service::kExitBadInput);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command"));
  const CliResult missing = Cli({"audit", "/nonexistent/log.textproto"});
  EXPECT_EQ(missing.code, service::kExitBadInput);
  EXPECT_THAT(missing.err, HasSubstr("cannot open"));
  EXPECT_EQ(Cli({"audit", "--format=xml", "x"}).code, service::kExitBadInput);
  const CliResult verify_help = Cli({"verify", "--help"});
  EXPECT_EQ(verify_help.code, service::kExitClean);
  EXPECT_THAT(verify_help.out, HasSubstr("--ruleset=FILE"));
  EXPECT_THAT(verify_help.out, HasSubstr("Exit codes"));
  const CliResult verify_none = Cli({"verify"});
  EXPECT_EQ(verify_none.code, service::kExitBadInput);
  EXPECT_THAT(verify_none.err, HasSubstr("gunbai verify --help"));
}

// `gunbai ruleset NAME --format=textproto` writes a file that loads to the
// same digest, so an umpire can keep the exact ruleset a live game is bound
// to before upgrading gunbai.
TEST(CliTest, RulesetAsTextprotoKeepsItsDigest) {
  for (const char* name : {"daimyo", "skf"}) {
    const CliResult printed = Cli({"ruleset", name, "--format=textproto"});
    ASSERT_EQ(printed.code, service::kExitClean) << printed.err;
    auto builtin = replay::BuiltinRuleset(name);
    ASSERT_TRUE(builtin.ok());
    auto reloaded = replay::LoadRuleset(printed.out, "printed");
    ASSERT_TRUE(reloaded.ok()) << reloaded.status();
    EXPECT_EQ(reloaded->digest, builtin->digest) << name;
    EXPECT_THAT(printed.out, HasSubstr(builtin->digest));
  }
}

TEST(CliTest, StateAtAnEvent) {
  // After seq 5 of sekigahara: ish-cav took 4 hits at seq 5: 4 stands to 3,
  // 1 carried, and its daimyo owes a leader-loss roll.
  const CliResult r =
      Cli({"state", "--at=5", DataPath("sekigahara.textproto")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("state after seq 5: turn 1, phase firing"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("ish-cav +ishida +3 +1"));
  EXPECT_THAT(r.out, HasSubstr("leader mitsunari    rating 2, with ish-cav, "
                               "owes a leader-loss roll"));
  EXPECT_EQ(Cli({"state", "--at=999", DataPath("sekigahara.textproto")}).code,
            service::kExitBadInput);
}

TEST(CliTest, RulesetPrintsItsDigest) {
  const CliResult r = Cli({"ruleset"});
  EXPECT_EQ(r.code, 0);
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_THAT(r.out, HasSubstr("sha256:" + ruleset->digest));
}

TEST(CliTest, AnotherRulesetChangesTheVerdict) {
  // With the hit score raised to 9, anegawa's seq 3 stand totals 7, 8, 8, 6,
  // 11, 7 score only 1 hit instead of the 3 claimed.
  std::string text(rules::DaimyoRulesetText());
  const std::string from = "hit_score: 8\n  effective_range_mm";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "hit_score: 9\n  effective_range_mm");
  const std::string path = ::testing::TempDir() + "/hit9.textproto";
  std::ofstream(path) << text;
  const CliResult r =
      Cli({"audit", "--ruleset=" + path, DataPath("anegawa-clean.textproto")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("seq 3  DISPUTE  daimyo.fire.hit"));
  EXPECT_THAT(r.out, HasSubstr("claimed: 3 hits; computed: 1 hit"));
}

}  // namespace
}  // namespace gunbai::testing
