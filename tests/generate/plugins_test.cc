// The generator plug-in list (generate/plugins.h): which generators it
// holds, that each plays under its engine's built-in ruleset and writes
// what the ruleset's own generator function writes, that the manifest it
// returns is what the audit finds (read off the JSON lines, not from the
// generator's structs), and the options a ruleset refuses.
#include "generate/plugins.h"

#include <cstdint>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_split.h"
#include "generate/daimyo/daimyo_game.h"
#include "generate/skf/skf_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "rules/engine.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

// The list, written by hand: Daimyo's first (the default), then Samurai
// Knight Fever's.
TEST(GeneratorPluginsTest, ListsEachRulesetOnceTheDefaultFirst) {
  std::vector<std::string> names;
  for (const GeneratorPlugin& plugin : GeneratorPlugins()) {
    names.emplace_back(plugin.ruleset);
    // Every generator plays a ruleset that has an engine.
    EXPECT_NE(rules::FindRulesetPlugin(plugin.ruleset), nullptr)
        << plugin.ruleset;
    EXPECT_NE(plugin.generate, nullptr) << plugin.ruleset;
    EXPECT_NE(plugin.fault_kinds, nullptr) << plugin.ruleset;
    EXPECT_FALSE(plugin.title.empty()) << plugin.ruleset;
    EXPECT_FALSE(plugin.about.empty()) << plugin.ruleset;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"daimyo", "skf"}));
  ASSERT_NE(FindGeneratorPlugin("skf"), nullptr);
  EXPECT_EQ(FindGeneratorPlugin("skf")->ruleset, "skf");
  EXPECT_EQ(FindGeneratorPlugin("skf"), &GeneratorPlugins()[1]);
  EXPECT_EQ(FindGeneratorPlugin("nosuch"), nullptr);
  EXPECT_EQ(FindGeneratorPlugin(""), nullptr);
}

GeneratorOptions Options(std::uint64_t seed, int faults) {
  GeneratorOptions options;
  options.seed = seed;
  options.turns = 6;
  options.units_per_clan = 6;
  options.faults = faults;
  return options;
}

// The plug-in writes the bytes the ruleset's own function writes (the
// logs and manifests `gunbai generate` wrote before the list existed).
TEST(GeneratorPluginsTest, WritesWhatTheRulesetsOwnGeneratorWrites) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const GeneratorOptions options = Options(seed, 3);
    auto daimyo = replay::BuiltinRuleset("daimyo");
    ASSERT_TRUE(daimyo.ok()) << daimyo.status();
    auto by_plugin = FindGeneratorPlugin("daimyo")->generate(options, *daimyo);
    ASSERT_TRUE(by_plugin.ok()) << by_plugin.status();
    const GeneratedGame direct = GenerateGame(options);
    EXPECT_EQ(base::DeterministicBytes(by_plugin->log),
              base::DeterministicBytes(direct.log));
    EXPECT_EQ(by_plugin->manifest, ManifestJsonLines(direct.faults));

    auto skf = replay::BuiltinRuleset("skf");
    ASSERT_TRUE(skf.ok()) << skf.status();
    auto skf_plugin = FindGeneratorPlugin("skf")->generate(options, *skf);
    ASSERT_TRUE(skf_plugin.ok()) << skf_plugin.status();
    auto skf_direct = GenerateSkfGameWithFaults(options, *skf);
    ASSERT_TRUE(skf_direct.ok()) << skf_direct.status();
    EXPECT_EQ(base::DeterministicBytes(skf_plugin->log),
              base::DeterministicBytes(skf_direct->log));
    EXPECT_EQ(skf_plugin->manifest, SkfManifestJsonLines(skf_direct->faults));
  }
}

// (seq, rule_id, kind) of each manifest line, read with a pattern off the
// JSON text: ManifestJsonLine writes the keys in this order.
using Entry = std::tuple<std::uint64_t, std::string, std::string>;

std::multiset<Entry> ManifestEntries(const std::string& manifest) {
  static const std::regex kLine(
      R"re(^\{"seq": (\d+), "rule_id": "([^"]*)", "severity": "[A-Z_]+", )re"
      R"re("kind": "([^"]*)", )re");
  std::multiset<Entry> out;
  for (absl::string_view line :
       absl::StrSplit(manifest, '\n', absl::SkipEmpty())) {
    std::smatch m;
    const std::string text(line);
    EXPECT_TRUE(std::regex_search(text, m, kLine)) << text;
    if (m.empty()) continue;
    out.emplace(std::stoull(m[1].str()), m[2].str(), m[3].str());
  }
  return out;
}

TEST(GeneratorPluginsTest, EachManifestIsWhatTheAuditFinds) {
  for (const GeneratorPlugin& plugin : GeneratorPlugins()) {
    auto ruleset = replay::BuiltinRuleset(plugin.ruleset);
    ASSERT_TRUE(ruleset.ok()) << ruleset.status();
    const std::vector<std::string> kinds = plugin.fault_kinds(*ruleset);
    ASSERT_FALSE(kinds.empty()) << plugin.ruleset;
    const std::set<std::string> known(kinds.begin(), kinds.end());
    EXPECT_EQ(known.size(), kinds.size()) << plugin.ruleset;  // No repeats.
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      SCOPED_TRACE(std::string(plugin.ruleset) + ", seed " +
                   std::to_string(seed));
      auto game = plugin.generate(Options(seed, 4), *ruleset);
      ASSERT_TRUE(game.ok()) << game.status();
      const std::multiset<Entry> planted = ManifestEntries(game->manifest);
      EXPECT_EQ(planted.size(), 4u);
      std::multiset<std::tuple<std::uint64_t, std::string>> from_manifest;
      for (const auto& [seq, rule_id, kind] : planted) {
        EXPECT_EQ(known.count(kind), 1u) << "unknown kind " << kind;
        from_manifest.emplace(seq, rule_id);
      }
      auto report = replay::AuditLog(game->log, *ruleset, {});
      ASSERT_TRUE(report.ok()) << report.status();
      std::multiset<std::tuple<std::uint64_t, std::string>> found;
      for (const v1::Finding& f : report->findings()) {
        // Under the built-in SKF tables, which have no morale check, every
        // unit that fought gets this warning; it is no fault.
        if (f.rule_id() == "skf.morale.unchecked") continue;
        found.emplace(f.seq(), f.rule_id());
      }
      EXPECT_EQ(found, from_manifest);
      // A clean game: no manifest at all.
      auto clean = plugin.generate(Options(seed, 0), *ruleset);
      ASSERT_TRUE(clean.ok()) << clean.status();
      EXPECT_EQ(clean->manifest, "");
    }
  }
}

TEST(GeneratorPluginsTest, OnlyDaimyoGamesAreSizedByEvents) {
  GeneratorOptions by_events;
  by_events.turns = 0;
  by_events.target_events = 200;
  // Daimyo sizes its games by events, except a game on a table.
  const GeneratorPlugin& daimyo = *FindGeneratorPlugin("daimyo");
  ASSERT_NE(daimyo.check_options, nullptr);
  EXPECT_TRUE(daimyo.check_options(by_events).ok());
  GeneratorOptions table_by_events = by_events;
  table_by_events.positions = true;
  EXPECT_EQ(daimyo.check_options(table_by_events).code(),
            absl::StatusCode::kInvalidArgument);
  const GeneratorPlugin& skf = *FindGeneratorPlugin("skf");
  ASSERT_NE(skf.check_options, nullptr);
  const absl::Status refused = skf.check_options(by_events);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("--turns T"), absl::string_view::npos)
      << refused;
  EXPECT_TRUE(skf.check_options(Options(1, 0)).ok());
}

}  // namespace
}  // namespace gunbai::generate
