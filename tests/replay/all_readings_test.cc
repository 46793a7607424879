// gunbai audit --all-readings (issue 33, part 3) against separate audits:
// over generated games, clean and with planted faults, with and without a
// table, every combination of the reading options gets from the branch
// that stands for it exactly the findings, final state digest and result
// of a separate audit under a ruleset with those option values. The
// separate audits share nothing with the forking replay but the engine.
#include "replay/all_readings.h"

#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;

const LoadedRuleset& Daimyo() {
  static const auto* const kDaimyo =
      new LoadedRuleset(*BuiltinRuleset("daimyo"));
  return *kDaimyo;
}

// The index of the branch of `audit` that stands for `combination`.
int BranchOf(const AllReadingsAudit& audit,
             const std::vector<int>& combination) {
  int found = -1;
  for (std::size_t b = 0; b < audit.branches.size(); ++b) {
    const std::vector<int>& fixed = audit.branches[b].fixed;
    bool matches = true;
    for (std::size_t o = 0; o < fixed.size(); ++o) {
      if (fixed[o] >= 0 && fixed[o] != combination[o]) matches = false;
    }
    if (!matches) continue;
    EXPECT_EQ(found, -1) << "two branches stand for one combination";
    found = static_cast<int>(b);
  }
  return found;
}

std::string Findings(const v1::AuditReport& report) {
  std::string out;
  for (const v1::Finding& f : report.findings()) {
    absl::StrAppend(&out, f.SerializeAsString(), "|");
  }
  return out;
}

// Checks every combination of `log`; returns the events the forking audit
// applied.
std::int64_t CheckEveryCombination(const v1::BattleLog& log,
                                   const std::string& name) {
  auto all = AuditAllReadings(log, Daimyo());
  EXPECT_TRUE(all.ok()) << name << ": " << all.status();
  if (!all.ok()) return 0;
  EXPECT_EQ(all->combinations, 128u);
  std::uint64_t covered = 0;
  for (const ReadingBranch& b : all->branches) covered += b.combinations;
  EXPECT_EQ(covered, all->combinations) << name;
  std::vector<int> combination(all->options.size(), 0);
  for (std::uint64_t c = 0; c < all->combinations; ++c) {
    std::uint64_t rest = c;
    for (std::size_t o = 0; o < all->options.size(); ++o) {
      combination[o] = static_cast<int>(rest % all->options[o].values.size());
      rest /= all->options[o].values.size();
    }
    const int b = BranchOf(*all, combination);
    EXPECT_GE(b, 0) << name << " combination " << c;
    if (b < 0) continue;
    const LoadedRuleset ruleset =
        RulesetWithReadings(Daimyo(), all->options, combination);
    auto separate = AuditLog(log, ruleset);
    EXPECT_TRUE(separate.ok()) << separate.status();
    if (!separate.ok()) continue;
    const v1::AuditReport& forked = all->branches[b].report;
    EXPECT_EQ(Findings(forked), Findings(*separate))
        << name << " combination " << c << " branch " << b << " ("
        << BranchReadings(*all, all->branches[b])
        << "): " << forked.findings_size() << " findings against "
        << separate->findings_size();
    EXPECT_EQ(forked.final_state_digest(), separate->final_state_digest())
        << name << " combination " << c;
    EXPECT_EQ(forked.result().SerializeAsString(),
              separate->result().SerializeAsString())
        << name << " combination " << c;
  }
  return all->events_applied;
}

TEST(AllReadingsTest, EveryCombinationGetsTheFindingsOfItsOwnAudit) {
  std::int64_t events = 0;
  std::int64_t applied = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    for (int faults : {0, 4}) {
      generate::GeneratorOptions options;
      options.seed = seed;
      options.turns = 8;
      options.units_per_clan = 4 + static_cast<int>(seed % 4);
      options.faults = faults;
      options.positions = seed % 3 == 0;
      const v1::BattleLog log = generate::GenerateGame(options).log;
      events += log.events_size() + 1;  // The finish is a step too.
      applied += CheckEveryCombination(
          log, absl::StrCat("seed ", seed, " faults ", faults,
                            options.positions ? " on a table" : ""));
    }
  }
  // Not a bound on the cost (replay_bench measures it): what sharing gave.
  std::cout << "all readings applied " << applied << " events for " << events
            << " (" << static_cast<double>(applied) / events << "x)\n";
}

// Samurai Knight Fever has no reading options: one branch, one
// combination, the plain audit.
TEST(AllReadingsTest, ARulesetWithoutReadingsIsOneAudit) {
  v1::BattleLog log;
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) +
                   "/skf-kawanakajima.textproto");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  auto skf = BuiltinRuleset("skf");
  ASSERT_TRUE(skf.ok());
  auto all = AuditAllReadings(log, *skf);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->options.empty());
  EXPECT_EQ(all->combinations, 1u);
  ASSERT_EQ(all->branches.size(), 1u);
  auto plain = AuditLog(log, *skf);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Findings(all->branches[0].report), Findings(*plain));
}

}  // namespace
}  // namespace gunbai::replay
