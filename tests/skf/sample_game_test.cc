// The Samurai Knight Fever sample game, tests/data/skf-kawanakajima.textproto,
// audited through replay::AuditLog under the ruleset its header names. The
// hand working is in tests/data/README.md ("skf-kawanakajima").
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/impact.h"
#include "replay/log_parser.h"
#include "replay/proto_mapping.h"
#include "replay/ruleset_loader.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::BattleLog SampleGame() {
  const std::string path =
      std::string(GUNBAI_TEST_DATA_DIR) + "/skf-kawanakajima.textproto";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  auto log = replay::ParseBattleLog(text.str(), replay::LogFormat::kText, path);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : v1::BattleLog();
}

v1::AuditReport Audit(const replay::AuditOptions& options = {}) {
  const v1::BattleLog log = SampleGame();
  auto catalog = replay::RulesetCatalog::Builtin();
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  if (!catalog.ok()) return v1::AuditReport();
  auto ruleset = catalog->ForLog(log.header());
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  if (!ruleset.ok()) return v1::AuditReport();
  auto report = replay::AuditLog(log, **ruleset, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : v1::AuditReport();
}

TEST(SkfSampleGameTest, Findings) {
  const v1::AuditReport report = Audit();
  EXPECT_EQ(report.ruleset().name(), "skf");
  EXPECT_EQ(report.ruleset().version(), "page6-example-1");
  EXPECT_EQ(report.events_replayed(), 26u);
  EXPECT_EQ(report.turns(), 2u);
  std::vector<std::string> found;
  for (const v1::Finding& f : report.findings()) {
    found.push_back(absl::StrCat(f.seq(), " ", f.rule_id(), " ", f.subject()));
  }
  EXPECT_THAT(
      found,
      ElementsAre("3 skf.uncovered.movement ", "5 skf.morale.unchecked ues-leg",
                  "9 skf.melee.hit ues-sam", "24 skf.uncovered.firing ",
                  "26 game.victory.winner takeda"));
  EXPECT_EQ(report.summary().violations(), 0u);
  EXPECT_EQ(report.summary().disputes(), 2u);
  EXPECT_EQ(report.summary().warnings(), 0u);
  EXPECT_EQ(report.summary().unverifiable(), 3u);
}

TEST(SkfSampleGameTest, PlantedMeleeDispute) {
  const v1::AuditReport report = Audit();
  ASSERT_GE(report.findings_size(), 3);
  const v1::Finding& f = report.findings(2);
  ASSERT_EQ(f.rule_id(), "skf.melee.hit");
  EXPECT_EQ(f.severity(), v1::SEVERITY_DISPUTE);
  // ues-sam: 2 x 4 = 8 against tak-sam's 3 x 4 = 12, 0.67 rounded against
  // the roller to 1-2; 6 -2 = 4 scores nothing there, but an unmodified 6
  // at 1-2 always scores one hit.
  EXPECT_EQ(f.claimed(), "0 hits");
  EXPECT_EQ(f.computed(), "1 hit");
  std::vector<std::string> terms;
  for (const v1::Term& t : f.trace()) {
    terms.push_back(absl::StrCat(t.value(), " ", t.rule_id()));
  }
  EXPECT_THAT(terms,
              ElementsAre("2 skf.melee.unit_value", "4 skf.melee.unit_value",
                          "8 skf.melee.unit_value", "12 skf.melee.unit_value",
                          "0 skf.melee.odds", "6 skf.melee.hit",
                          "-2 skf.melee.modifier", "4 skf.melee.hit",
                          "1 skf.melee.natural_six", "1 skf.melee.hit"));
  EXPECT_THAT(f.trace(4).label(), HasSubstr("rounded against the roller"));
}

TEST(SkfSampleGameTest, WinnerAndVictoryPoints) {
  const v1::AuditReport report = Audit();
  const v1::GameResult& result = report.result();
  // Turn 1: Uesugi 1 (tak-ash1 routs), Takeda 2 (ues-sam routs). Turn 2:
  // Uesugi + 2 (tak-sam routs) + 2 (ues-ash sacks the Takeda camp) = 5.
  EXPECT_TRUE(result.scored());
  EXPECT_EQ(result.winner(), "uesugi");
  EXPECT_EQ(result.decided_turn(), 2u);
  ASSERT_EQ(result.clans_size(), 2);
  EXPECT_EQ(result.clans(0).clan(), "uesugi");
  EXPECT_EQ(result.clans(0).victory_points(), 5u);
  EXPECT_EQ(result.clans(0).units_left(), 3u);
  EXPECT_EQ(result.clans(0).stands_left(), 9u);
  EXPECT_EQ(result.clans(0).units_routing(), 1u);
  EXPECT_EQ(result.clans(1).clan(), "takeda");
  EXPECT_EQ(result.clans(1).victory_points(), 2u);
  EXPECT_EQ(result.clans(1).units_left(), 3u);
  EXPECT_EQ(result.clans(1).stands_left(), 7u);
  EXPECT_EQ(result.clans(1).units_routing(), 2u);
  const v1::Finding& claim = report.findings(4);
  EXPECT_EQ(claim.claimed(), "takeda wins");
  EXPECT_EQ(claim.computed(), "uesugi wins");
}

TEST(SkfSampleGameTest, WhatIfTheDisputedHitHadLanded) {
  // Following the computed hit at seq 9, tak-sam takes 1 hit: a disorder
  // point, no base (the log claims none lost). The result is unchanged.
  replay::AuditOptions options;
  options.follow_computed_at_seq = 9;
  options.record_outcomes = true;
  const v1::AuditReport report = Audit(options);
  EXPECT_EQ(report.summary().disputes(), 1u);  // Only the winner.
  EXPECT_EQ(report.result().winner(), "uesugi");
  bool recorded = false;
  for (const v1::Outcome& o : report.outcomes()) {
    if (o.seq() == 9 && o.subject() == "ues-sam" && o.kind() == "hits") {
      EXPECT_EQ(o.value(), "1");
      recorded = true;
    }
  }
  EXPECT_TRUE(recorded);
}

// gunbai audit --impact --branch-out on the sample: the branch corrected at
// seq 9, written out as a log, carries the computed claim there (ues-sam: 1
// hit, the unmodified 6 at 1-2 of the hand working) and audits with only
// the dispute the game as played made on its own (Takeda's winner claim,
// kept as played); and replaying it passes through the states of the
// corrected game, event by event.
TEST(SkfSampleGameTest, CorrectedBranchWrittenOutAuditsAsTheBranch) {
  const v1::BattleLog log = SampleGame();
  auto catalog = replay::RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  auto ruleset = catalog->ForLog(log.header());
  ASSERT_TRUE(ruleset.ok()) << ruleset.status();
  auto report = replay::AuditLog(log, **ruleset);
  ASSERT_TRUE(report.ok()) << report.status();
  std::vector<v1::BattleLog> branches;
  ASSERT_TRUE(replay::AddImpacts(log, **ruleset, *report, &branches).ok());
  ASSERT_EQ(branches.size(), 1u);  // The one disputed outcome, at seq 9.
  ASSERT_EQ(report->impacts(0).seq(), 9u);
  const v1::BattleLog& branch = branches[0];
  const v1::Event* nine = nullptr;
  for (const v1::Event& e : branch.events()) {
    if (e.seq() == 9) nine = &e;
  }
  ASSERT_NE(nine, nullptr);
  ASSERT_EQ(nine->melee_round().sides(1).unit(), "ues-sam");
  EXPECT_EQ(nine->melee_round().sides(1).claimed_hits(), 1u);
  // tak-sam claims no base lost: the hit is a disorder point.
  EXPECT_FALSE(nine->melee_round().sides(0).has_claimed_stands_lost());

  auto audit = replay::AuditLog(branch, **ruleset);
  ASSERT_TRUE(audit.ok()) << audit.status();
  std::vector<std::string> disputes;
  for (const v1::Finding& f : audit->findings()) {
    EXPECT_NE(f.severity(), v1::SEVERITY_VIOLATION) << f.message();
    if (f.severity() == v1::SEVERITY_DISPUTE) {
      disputes.push_back(absl::StrCat(f.seq(), " ", f.rule_id()));
    }
  }
  EXPECT_THAT(disputes, ElementsAre("26 game.victory.winner"));

  // The corrected game: seq 9 follows the computed outcome, the winner
  // claim (a dispute of the game as played) is kept.
  replay::AuditOptions corrected;
  corrected.follow_computed_at_seq = 9;
  corrected.follow_computed_from_seq = 10;
  corrected.keep_claims_at = {9, 26};
  auto digests = [&](const v1::BattleLog& header_from,
                     const replay::AuditOptions& options) {
    std::vector<std::string> out;
    v1::AuditReport r;
    auto replay = replay::Replay::Start(header_from, **ruleset, options, &r);
    EXPECT_TRUE(replay.ok()) << replay.status();
    if (!replay.ok()) return out;
    for (int i = 0; i < branch.events_size(); ++i) {
      (*replay)->Apply(options.follow_computed_at_seq == 0 ? branch.events(i)
                                                           : log.events(i));
      out.push_back(replay::SnapshotFromState((*replay)->state()).digest());
    }
    return out;
  };
  EXPECT_EQ(digests(branch, replay::AuditOptions()), digests(log, corrected));
}

}  // namespace
}  // namespace gunbai::testing
