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
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/diff.h"
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
  auto ruleset = replay::BuiltinRuleset("daimyo");
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
    ASSERT_EQ(branches.size(),
              static_cast<std::size_t>(report->impacts_size()));
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

// Returns the built-in Daimyo ruleset with `edit` applied to its data.
template <typename Edit>
replay::LoadedRuleset Edited(Edit edit) {
  auto builtin = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(builtin.ok());
  gunbai::v1::Ruleset data = builtin->data;
  edit(data);
  std::string text;
  google::protobuf::TextFormat::PrintToString(data, &text);
  auto loaded = replay::LoadRuleset(text, "edited");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return *loaded;
}

// The same property for gunbai diff --branch-out: each clean generated game
// replayed under an edited ruleset, written out, audits clean under that
// ruleset and passes through the new side's states, event by event, up to
// where the two games part. Edits: firing hits on 7, melee hits on 7, a
// Raw firer -2, the morale -2 a stand lost made -3.
TEST(BranchProperty, GamesReplayedUnderAnEditedRulesetAuditCleanUnderIt) {
  auto builtin = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(builtin.ok());
  const std::vector<replay::LoadedRuleset> edits = {
      Edited([](v1::Ruleset& r) { r.mutable_firing()->set_hit_score(7); }),
      Edited([](v1::Ruleset& r) { r.mutable_melee()->set_hit_score(7); }),
      Edited([](v1::Ruleset& r) {
        r.mutable_firing()->mutable_factors()->set_firer_raw(-2);
      }),
      Edited([](v1::Ruleset& r) {
        r.mutable_morale()->mutable_modifiers()->set_each_stand_lost(-3);
      }),
  };
  int changed = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    GeneratorOptions options;
    options.seed = seed;
    options.turns = 6;
    options.units_per_clan = 3 + static_cast<int>(seed % 6);
    const GeneratedGame game = GenerateGame(options);
    for (std::size_t e = 0; e < edits.size(); ++e) {
      SCOPED_TRACE(absl::StrCat("seed ", seed, ", edit ", e));
      v1::BattleLog branch;
      const v1::LogDiff diff = replay::DiffUnderRulesets(
          "game", game.log, {&*builtin, &edits[e], nullptr}, &branch);
      ASSERT_NE(diff.status(), v1::LOG_DIFF_STATUS_FAILED) << diff.error();
      if (diff.status() == v1::LOG_DIFF_STATUS_CHANGED) ++changed;
      auto audit = replay::AuditLog(branch, edits[e]);
      ASSERT_TRUE(audit.ok()) << audit.status();
      for (const v1::Finding& f : audit->findings()) {
        EXPECT_TRUE(f.severity() != v1::SEVERITY_VIOLATION &&
                    f.severity() != v1::SEVERITY_DISPUTE)
            << "seq " << f.seq() << " " << f.rule_id() << ": " << f.message();
      }
      // The generated games are clean: the new side follows every computed
      // outcome from the first event.
      replay::AuditOptions under_new;
      under_new.follow_computed_from_seq = 1;
      google::protobuf::RepeatedPtrField<v1::Event> played(
          game.log.events().begin(),
          game.log.events().begin() + branch.events_size());
      EXPECT_EQ(DigestsAlong(branch, edits[e], replay::AuditOptions(),
                             branch.events()),
                DigestsAlong(game.log, edits[e], under_new, played));
    }
  }
  EXPECT_GE(changed, 100);  // Most of the 240 diffs change something.
}

}  // namespace
}  // namespace gunbai::generate
