// Regressions of issue 12's command-line mistakes, in process through
// RunCli: each let a mistake through before gunbai moved to CLI11.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "service/cli/cli.h"
#include "service/cli/cli_input.h"

namespace gunbai {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

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

// A file of `bytes` in a fresh temporary folder, removed with the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& bytes)
      : dir_(std::filesystem::temp_directory_path() /
             ("gunbai-cli-regression-" + std::to_string(getpid()))),
        path_((dir_ / name).string()) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

// Before: exit 0, a game whose players roll their own dice. Port 1: nothing
// listens, so a command that got past its parse would exit 3, not 2.
TEST(Regression, GameCreateDiceTypoIsAUsageError) {
  const CliResult r = Cli({"game", "create", "--server=127.0.0.1:1",
                           "--dice=servre", "armies.textproto"});
  EXPECT_EQ(r.code, service::kExitBadInput);
  EXPECT_THAT(r.err, StartsWith("gunbai game create: --dice: \"servre\" is "
                                "not a valid value; give recorded, server\n"));
  EXPECT_THAT(r.out, IsEmpty());
}

// Before: a strict game.
TEST(Regression, GameCreatePolicyTypoIsAUsageError) {
  const CliResult r = Cli({"game", "create", "--server=127.0.0.1:1",
                           "--policy=recrod", "armies.textproto"});
  EXPECT_EQ(r.code, service::kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("give strict, record"));
}

// Before: an empty --server audited locally.
TEST(Regression, EmptyServerIsAUsageError) {
  const CliResult r = Cli({"audit", "--server=", "whatever.textproto"});
  EXPECT_EQ(r.code, service::kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--server= gives an empty value"));
  EXPECT_THAT(r.out, IsEmpty());
}

// Before: "--version needs a value".
TEST(Regression, VersionNamesTheBuiltinDigests) {
  const CliResult r = Cli({"--version"});
  EXPECT_EQ(r.code, service::kExitClean);
  for (const char* name : {"daimyo", "skf"}) {
    auto ruleset = replay::BuiltinRuleset(name);
    ASSERT_TRUE(ruleset.ok()) << ruleset.status();
    EXPECT_THAT(r.out, HasSubstr("sha256:" + ruleset->digest));
  }
  EXPECT_THAT(r.out, HasSubstr("gRPC "));
  EXPECT_THAT(r.out, HasSubstr("protobuf "));
}

// Before: -h was an unknown command, audit/state/ruleset --help printed the
// global help and dice --help exited 2.
TEST(Regression, EveryCommandHasItsOwnHelp) {
  EXPECT_THAT(Cli({"-h"}).out, HasSubstr("Usage: gunbai [OPTIONS]"));
  for (const char* command : {"audit", "state", "ruleset", "dice"}) {
    for (const char* flag : {"--help", "-h"}) {
      const CliResult r = Cli({command, flag});
      EXPECT_EQ(r.code, service::kExitClean) << command << " " << flag;
      EXPECT_THAT(r.out, HasSubstr(std::string("Usage: gunbai ") + command +
                                   " [OPTIONS]"));
    }
  }
}

TEST(Regression, VerifyMalformedHeadIsAUsageError) {
  for (const char* head : {"--head=xyz", "--head=sha256:12ab", "--head="}) {
    const CliResult r = Cli({"verify", head, "game.textproto"});
    EXPECT_EQ(r.code, service::kExitBadInput) << head;
    EXPECT_THAT(r.out, IsEmpty()) << head;
  }
}

TEST(Regression, InputFileSaysWhatItIs) {
  const TempFile empty("empty.textproto", "");
  auto read = service::ReadInputFile(empty.path());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(read.status().message(), empty.path() + ": the file is empty");
  read = service::ReadInputFile(empty.dir());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("is a folder, not a file"));
}

TEST(Regression, ByteOrderMarkIsSkipped) {
  const TempFile bom("bom.textproto",
                     "\xEF\xBB\xBFheader { game_id: \"b\" }\n");
  auto read = service::ReadInputFile(bom.path());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "header { game_id: \"b\" }\n");
}

// The key of events[1].seq: line 5, after four spaces and "{", column 6.
TEST(Regression, JsonTypeErrorNamesLineAndColumn) {
  const std::string json =
      "{\n  \"header\": {\"game_id\": \"a\"},\n  \"events\": [\n"
      "    {\"seq\": 1},\n    {\"seq\": \"abc\"}\n  ]\n}\n";
  auto log = replay::ParseBattleLog(json, replay::LogFormat::kJson, "bad.json");
  ASSERT_FALSE(log.ok());
  EXPECT_THAT(std::string(log.status().message()),
              StartsWith("bad.json:5:6: (events[1].seq): invalid value"));
}

}  // namespace
}  // namespace gunbai
