// The what-if core checked by the audit itself (issue 10): for generated
// games with one planted disputed outcome, every corrected branch of gunbai
// audit --impact, written out as a log (--branch-out), audits with no
// violation and no dispute, and replaying it passes through exactly the
// states of the branch, event by event (same state digests). Nothing here is
// computed by the code under test except through the audit.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/generator/game_generator.h"
#include "replay/impact.h"
#include "replay/proto_mapping.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

// Returns the state digest after each event of `events` replayed over `log`'s
// order of battle with `options`.
std::vector<std::string> DigestsAlong(
    const v1::BattleLog& log, const replay::LoadedRuleset& ruleset,
    const replay::AuditOptions& options,
    const google::protobuf::RepeatedPtrField<v1::Event>& events) {
  std::vector<std::string> out;
  v1::AuditReport report;
  auto replay = replay::Replay::Start(log, ruleset, options, &report);
  EXPECT_TRUE(replay.ok()) << replay.status();
  if (!replay.ok()) return out;
  for (const v1::Event& event : events) {
    (*replay)->Apply(event);
    out.push_back(replay::SnapshotFromState((*replay)->state()).digest());
  }
  return out;
}

TEST(BranchProperty, CorrectedBranchesWrittenOutAuditCleanAndReplayTheSame) {
  auto ruleset = replay::BuiltinDaimyoRuleset();
  ASSERT_TRUE(ruleset.ok()) << ruleset.status();
  int branches_checked = 0;
  for (std::uint64_t seed = 1; seed <= 1200; ++seed) {
    GeneratorOptions options;
    options.seed = seed;
    options.turns = 6;
    options.units_per_clan = 3 + static_cast<int>(seed % 6);
    options.faults = 1;
    const GeneratedGame game = GenerateGame(options);
    if (game.faults.size() != 1 ||
        game.faults[0].severity != v1::SEVERITY_DISPUTE) {
      continue;
    }
    SCOPED_TRACE(absl::StrCat("seed ", seed, ": ", game.faults[0].description));
    auto report = replay::AuditLog(game.log, *ruleset);
    ASSERT_TRUE(report.ok()) << report.status();
    std::vector<v1::BattleLog> branches;
    ASSERT_TRUE(
        replay::AddImpacts(game.log, *ruleset, *report, &branches).ok());
    ASSERT_EQ(branches.size(), static_cast<std::size_t>(report->impacts_size()));
    // The branch's own options, as --impact replays it: the disputed event
    // and every later one follow the computed outcomes.
    std::vector<std::uint64_t> disputed;
    for (const v1::Finding& f : report->findings()) {
      if (f.severity() == v1::SEVERITY_DISPUTE) disputed.push_back(f.seq());
    }
    std::sort(disputed.begin(), disputed.end());
    for (int i = 0; i < report->impacts_size(); ++i) {
      const v1::BattleLog& branch = branches[static_cast<std::size_t>(i)];
      auto audit = replay::AuditLog(branch, *ruleset);
      ASSERT_TRUE(audit.ok()) << audit.status();
      for (const v1::Finding& f : audit->findings()) {
        EXPECT_TRUE(f.severity() != v1::SEVERITY_VIOLATION &&
                    f.severity() != v1::SEVERITY_DISPUTE)
            << "seq " << f.seq() << " " << f.rule_id() << ": " << f.message();
      }
      replay::AuditOptions corrected;
      corrected.follow_computed_at_seq = report->impacts(i).seq();
      corrected.follow_computed_from_seq = report->impacts(i).seq() + 1;
      corrected.keep_claims_at = disputed;
      // The log's own events up to the cut, with their claims as played.
      google::protobuf::RepeatedPtrField<v1::Event> played(
          game.log.events().begin(),
          game.log.events().begin() + branch.events_size());
      EXPECT_EQ(DigestsAlong(branch, *ruleset, replay::AuditOptions(),
                             branch.events()),
                DigestsAlong(game.log, *ruleset, corrected, played));
      ++branches_checked;
    }
  }
  // About a third of the planted faults are disputed outcomes.
  EXPECT_GE(branches_checked, 300);
  RecordProperty("branches_checked", branches_checked);
}

}  // namespace
}  // namespace gunbai::generate
