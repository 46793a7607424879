// Bad input gets a clear error that says where.
#include "replay/log_parser.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/ruleset_loader.h"
#include "rules/builtin_rulesets.h"

namespace gunbai::replay {
namespace {

using ::testing::HasSubstr;

std::string Error(absl::string_view bytes, LogFormat format) {
  auto log = ParseBattleLog(bytes, format, "log");
  EXPECT_FALSE(log.ok());
  return std::string(log.status().message());
}

TEST(LogParserTest, TextErrorHasLineAndColumn) {
  EXPECT_THAT(
      Error("header {\n  game_id: \"x\"\n  clanz {}\n}\n", LogFormat::kText),
      HasSubstr("log:3:9: "));
}

TEST(LogParserTest, JsonSyntaxErrorHasLineAndColumn) {
  // The missing comma is on line 2, between the two objects at column 24.
  EXPECT_THAT(Error("{\"header\": {\"game_id\": \"x\",\n \"clans\": [{\"id\": "
                    "\"a\"} {\"id\":\"b\"}]}}",
                    LogFormat::kAuto),
              HasSubstr("log:2:24: "));
}

TEST(LogParserTest, JsonUnknownFieldPointsAtIt) {
  EXPECT_THAT(
      Error("{\"header\": {\n  \"game_idd\": \"x\"}}", LogFormat::kJson),
      HasSubstr("log:2:3: "));
}

TEST(LogParserTest, BinaryGarbage) {
  EXPECT_THAT(Error(std::string("\xff\xff\xff\x01\x02", 5), LogFormat::kAuto),
              HasSubstr("not a valid binary gunbai.v1.BattleLog"));
}

TEST(LogParserTest, FormatFromExtension) {
  EXPECT_EQ(FormatFromFileName("a/b.textproto"), LogFormat::kText);
  EXPECT_EQ(FormatFromFileName("B.JSON"), LogFormat::kJson);
  EXPECT_EQ(FormatFromFileName("x.binpb"), LogFormat::kBinary);
  EXPECT_EQ(FormatFromFileName("x"), LogFormat::kAuto);
}

TEST(RulesetLoaderTest, BuiltinLoadsAndDigestIgnoresComments) {
  auto builtin = BuiltinDaimyoRuleset();
  ASSERT_TRUE(builtin.ok()) << builtin.status();
  EXPECT_EQ(builtin->rules.name, "daimyo");
  EXPECT_EQ(builtin->digest.size(), 64u);
  auto again = LoadRuleset(
      absl::StrCat("# a comment\n", rules::DaimyoRulesetText()), "copy");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->digest, builtin->digest);
}

TEST(RulesetLoaderTest, BadRulesetSaysWhere) {
  auto r = LoadRuleset("name: \"x\"\nfiring { hit_scor: 8 }\n", "r.textproto");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("r.textproto:2:"));
  auto zero = LoadRuleset("name: \"x\"\n", "z.textproto");
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(std::string(zero.status().message()),
              HasSubstr("firing.dice_per_stand must be greater than 0"));
}

}  // namespace
}  // namespace gunbai::replay
