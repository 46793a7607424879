// What a modest corpus of clean generated games exercises (issue 10 part 3):
// the documented Daimyo rule ids that the audit's findings and outcome
// traces name (as `gunbai generate --coverage` counts them), and, read off
// the logs, every troop type, quality, armour, weapon, leader kind,
// formation and declared fact, and a victory claimed. And the same for
// Samurai Knight Fever games (gunbai generate --coverage --ruleset skf|FILE),
// clean and with planted faults. Every expectation is read off the log or
// the audit, never computed by the generator under test.
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "generate/daimyo/daimyo_game.h"
#include "generate/skf/skf_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/coverage.h"
#include "replay/diff.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "rules/rule_docs.h"
#include "tests/generate/test_ruleset.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

// The corpus: clean games of 8 turns and 8 units a clan, seeds 1 to 100.
constexpr int kGames = 100;
// The documented ids that clean games exercise; the rest are violations,
// disputes and warnings only a faulty log can raise (and the victory ids).
// Measured: 55 of 173 over this corpus (52 before the stand losses and the
// melee outcome named their rules).
constexpr int kMinRuleIdsExercised = 55;

const replay::LoadedRuleset& Ruleset() { return test_support::DaimyoRuleset(); }

std::vector<v1::BattleLog> Corpus() {
  std::vector<v1::BattleLog> logs;
  for (int seed = 1; seed <= kGames; ++seed) {
    GeneratorOptions options;
    options.seed = static_cast<std::uint64_t>(seed);
    options.turns = 8;
    options.units_per_clan = 8;
    logs.push_back(GenerateLog(options));
  }
  return logs;
}

TEST(RuleCoverageTest, CleanCorpusExercisesTheDocumentedRules) {
  replay::RuleCoverage coverage;
  replay::AuditOptions options;
  options.record_outcomes = true;
  for (const v1::BattleLog& log : Corpus()) {
    absl::StatusOr<v1::AuditReport> report =
        replay::AuditLog(log, Ruleset(), options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->findings_size(), 0) << log.header().game_id();
    coverage.Add(*report);
  }
  int exercised = 0;
  std::vector<std::string> never;
  for (const rules::RulesDoc& doc : rules::RulesDocs()) {
    if (doc.ruleset != "daimyo" && !doc.ruleset.empty()) continue;
    for (const rules::DocumentedRule& rule : rules::DocumentedRules(doc)) {
      if (coverage.CountOf(rule.id) > 0) {
        ++exercised;
      } else {
        never.push_back(rule.id);
      }
    }
  }
  EXPECT_GE(exercised, kMinRuleIdsExercised)
      << "never exercised: " << absl::StrJoin(never, ", ");
  // The rules that decide without a finding, named in their traces.
  for (const char* id : {"daimyo.fire.stand_loss", "daimyo.melee.stand_loss",
                         "daimyo.melee.outcome"}) {
    EXPECT_GT(coverage.CountOf(id), 0) << id;
  }
  // Every factor and modifier of the tables is a trace term of a clean
  // game.
  for (const std::string& id : never) {
    EXPECT_EQ(id.find(".factor."), std::string::npos) << id;
    EXPECT_EQ(id.find(".modifier."), std::string::npos) << id;
  }
}

// What the logs show, as names.
std::set<std::string> Features(const std::vector<v1::BattleLog>& logs) {
  std::set<std::string> seen;
  for (const v1::BattleLog& log : logs) {
    for (const v1::Unit& u : log.order_of_battle().units()) {
      seen.insert(v1::TroopType_Name(u.troop_type()));
      seen.insert(v1::Quality_Name(u.quality()));
      seen.insert(v1::Armour_Name(u.armour()));
      seen.insert(v1::MeleeWeapon_Name(u.melee_weapon()));
      seen.insert(v1::MissileWeapon_Name(u.missile_weapon()));
      seen.insert(v1::Formation_Name(u.formation()));
      seen.insert(v1::Mobility_Name(u.mobility()));
    }
    for (const v1::Leader& l : log.order_of_battle().leaders()) {
      seen.insert(v1::LeaderKind_Name(l.kind()));
    }
    if (log.header().scenario().victory().points_to_win() > 0) {
      seen.insert("victory scenario");
    }
    for (const v1::Event& e : log.events()) {
      if (e.has_firing()) {
        const v1::FiringFacts& f = e.firing().facts();
        if (f.woods_limit()) seen.insert("woods_limit");
        if (f.target_in_cover()) seen.insert("target_in_cover");
        if (f.target_in_building()) seen.insert("target_in_building");
        if (f.target_in_column_or_flanked()) {
          seen.insert("target_in_column_or_flanked");
        }
        if (f.firing_from_building()) seen.insert("firing_from_building");
        if (f.firer_in_cover()) seen.insert("firer_in_cover");
        if (f.chargers_began_beyond_effective()) {
          seen.insert("chargers_began_beyond_effective");
        }
      }
      if (e.has_melee_round()) {
        for (const v1::MeleeSide& s : e.melee_round().sides()) {
          if (s.enemy_fighting_to_flank_or_rear()) {
            seen.insert("enemy_fighting_to_flank_or_rear");
          }
          if (s.enemy_uphill_or_behind_obstacle()) {
            seen.insert("enemy_uphill_or_behind_obstacle");
          }
          if (s.in_building()) seen.insert("in_building");
          if (s.enemy_in_building()) seen.insert("enemy_in_building");
          if (s.overlap_stands() > 0) seen.insert("overlap_stands");
          if (s.defending_linear_obstacle()) {
            seen.insert("defending_linear_obstacle");
          }
          if (s.pursuing()) seen.insert("pursuing declared");
        }
      }
      if (e.has_morale_test()) {
        const v1::MoraleFacts& f = e.morale_test().facts();
        if (f.uphill_or_in_cover()) seen.insert("uphill_or_in_cover");
        if (f.general_near()) seen.insert("general_near");
        if (f.out_of_command()) seen.insert("out_of_command");
        if (f.enemies_routing_near_size() > 0) {
          seen.insert("enemies_routing_near");
        }
        if (f.friends_routing_near_size() > 0) {
          seen.insert("friends_routing_near");
        }
        if (f.enemy_facing_flank_or_rear_near()) {
          seen.insert("enemy_facing_flank_or_rear_near");
        }
        if (f.leader_killed_near()) seen.insert("leader_killed_near");
        if (f.charged_frontally()) seen.insert("charged_frontally");
      }
      if (e.has_game_end() && !e.game_end().claimed_winner().empty()) {
        seen.insert("winner claimed");
      }
    }
  }
  return seen;
}

TEST(RuleCoverageTest, CorpusShowsEveryTroopLeaderFormationAndFact) {
  const std::vector<v1::BattleLog> logs = Corpus();
  const std::set<std::string> seen = Features(logs);
  const char* const expected[] = {
      "TROOP_TYPE_SAMURAI", "TROOP_TYPE_ASHIGARU", "TROOP_TYPE_RONIN",
      "TROOP_TYPE_WARRIOR_MONK", "TROOP_TYPE_PEASANT", "TROOP_TYPE_HATAMOTO",
      "TROOP_TYPE_HEADQUARTERS", "QUALITY_ELITE", "QUALITY_VETERAN",
      "QUALITY_SEASONED", "QUALITY_RAW", "ARMOUR_NONE", "ARMOUR_LIGHT",
      "ARMOUR_MEDIUM", "ARMOUR_HEAVY", "MELEE_WEAPON_NONE",
      "MELEE_WEAPON_LONG_SPEAR", "MELEE_WEAPON_POLE_ARM",
      "MELEE_WEAPON_IMPROVISED", "MELEE_WEAPON_LANCE", "MELEE_WEAPON_SWORD",
      "MISSILE_WEAPON_NONE", "MISSILE_WEAPON_BOW", "MISSILE_WEAPON_ARQUEBUS",
      "FORMATION_LINE", "FORMATION_COLUMN", "FORMATION_BUILDING",
      "MOBILITY_FOOT", "MOBILITY_MOUNTED", "LEADER_KIND_GENERAL",
      "LEADER_KIND_DAIMYO", "victory scenario", "winner claimed",
      // Firing facts.
      "woods_limit", "target_in_cover", "target_in_building",
      "target_in_column_or_flanked", "firing_from_building", "firer_in_cover",
      "chargers_began_beyond_effective",
      // Melee side facts.
      "enemy_fighting_to_flank_or_rear", "enemy_uphill_or_behind_obstacle",
      "in_building", "enemy_in_building", "overlap_stands",
      "defending_linear_obstacle", "pursuing declared",
      // Morale facts.
      "uphill_or_in_cover", "general_near", "out_of_command",
      "enemies_routing_near", "friends_routing_near",
      "enemy_facing_flank_or_rear_near", "leader_killed_near",
      "charged_frontally"};
  for (const char* what : expected) {
    EXPECT_TRUE(seen.count(what) > 0) << "no game shows: " << what;
  }
}

// Frenzy, read off the logs: Samurai (or Ronin) and Warrior Monks both
// become frenzied somewhere in the corpus.
TEST(RuleCoverageTest, SamuraiAndMonksBecomeFrenzied) {
  std::set<v1::TroopType> frenzied;
  for (const v1::BattleLog& log : Corpus()) {
    for (const v1::Event& e : log.events()) {
      if (!e.has_morale_test() ||
          e.morale_test().claimed_result() != v1::MORALE_RESULT_FRENZY) {
        continue;
      }
      for (const v1::Unit& u : log.order_of_battle().units()) {
        if (u.id() == e.morale_test().unit()) frenzied.insert(u.troop_type());
      }
    }
  }
  EXPECT_TRUE(frenzied.count(v1::TROOP_TYPE_SAMURAI) > 0 ||
              frenzied.count(v1::TROOP_TYPE_RONIN) > 0);
  EXPECT_TRUE(frenzied.count(v1::TROOP_TYPE_WARRIOR_MONK) > 0);
}

// Every reading option that can matter matters somewhere in the corpus: the
// games replayed under the other value (as gunbai diff does) change an
// outcome. The exception, by the engine's reading: nothing in the rules or
// the schema restores good order, so a unit that fired disordered never
// fires a good-order volley later, and keeping its first-volley bonus
// (first_volley_spent_when_disordered false) changes no outcome.
TEST(RuleCoverageTest, EveryReadingOptionThatCanMatterChangesSomeGame) {
  auto variants = replay::ReadingVariants(Ruleset());
  ASSERT_TRUE(variants.ok()) << variants.status();
  // Leader-loss rolls made late after a second loss are rare: 300 games.
  for (int seed = 1; seed <= 300; ++seed) {
    GeneratorOptions options;
    options.seed = static_cast<std::uint64_t>(seed);
    options.turns = 8;
    options.units_per_clan = 8;
    const v1::BattleLog log = GenerateLog(options);
    for (replay::ReadingVariant& v : *variants) {
      replay::CountReadingDiff(
          replay::DiffUnderRulesets("game", log,
                                    {&Ruleset(), &v.ruleset, nullptr}),
          v);
    }
  }
  for (const replay::ReadingVariant& v : *variants) {
    if (v.option == "first_volley_spent_when_disordered") {
      EXPECT_EQ(v.games_changed, 0) << v.option;
    } else {
      EXPECT_GE(v.games_changed, 1) << v.option << " " << v.alternative;
    }
    RecordProperty(v.option, static_cast<int>(v.games_changed));
  }
}

// Samurai Knight Fever: the rule ids of rules/skf/RULES.md and the scenario
// rules, counted as `gunbai generate --coverage N --ruleset FILE` counts
// them, over 100 games of 8 turns and 8 units a clan under the umpire's file
// (which has a morale check), with `faults` planted in each.
replay::RuleCoverage SkfCoverage(int faults) {
  const std::string path =
      std::string(GUNBAI_SOURCE_DIR) + "/rules/skf/umpire-example.textproto";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto ruleset = replay::LoadRuleset(text.str(), path);
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  replay::RuleCoverage coverage;
  if (!ruleset.ok()) return coverage;
  replay::AuditOptions options;
  options.record_outcomes = true;
  for (int seed = 1; seed <= 100; ++seed) {
    GeneratorOptions generator;
    generator.seed = static_cast<std::uint64_t>(seed);
    generator.turns = 8;
    generator.units_per_clan = 8;
    generator.faults = faults;
    auto game = GenerateSkfGameWithFaults(generator, *ruleset);
    EXPECT_TRUE(game.ok()) << game.status();
    if (!game.ok()) continue;
    auto report = replay::AuditLog(game->log, *ruleset, options);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) continue;
    // A clean game audits with no finding at all.
    if (faults == 0) {
      EXPECT_EQ(report->findings_size(), 0) << seed;
    }
    coverage.Add(*report);
  }
  return coverage;
}

// The ids documented for `ruleset` and the scenario rules.
std::set<std::string> DocumentedIds(absl::string_view ruleset) {
  std::set<std::string> ids;
  for (const rules::RulesDoc& doc : rules::RulesDocs()) {
    if (doc.ruleset != ruleset && !doc.ruleset.empty()) continue;
    for (const rules::DocumentedRule& rule : rules::DocumentedRules(doc)) {
      ids.insert(rule.id);
    }
  }
  return ids;
}

// What clean games exercise: every term of a melee's trace (the unit
// values, the odds, the modifiers, the unmodified 6 at 1-2, the hits), the
// morale check's result and modifiers, the leader-hit roll and a decided
// winner. With 3 faults a game, also every rule a planted fault breaks,
// and nothing a clean game exercised is lost.
TEST(RuleCoverageTest, SkfCorpusExercisesTheSkfRules) {
  const std::set<std::string> documented = DocumentedIds("skf");
  const char* const clean_ids[] = {
      "skf.melee.hit",       "skf.melee.unit_value",  "skf.melee.odds",
      "skf.melee.modifier",  "skf.melee.natural_six", "skf.morale.result",
      "skf.morale.modifier", "skf.leader_hit.roll",   "game.victory.winner"};
  const replay::RuleCoverage clean = SkfCoverage(0);
  for (const char* id : clean_ids) {
    EXPECT_EQ(documented.count(id), 1u) << id;
    EXPECT_GT(clean.CountOf(id), 0) << id;
  }
  const replay::RuleCoverage faulty = SkfCoverage(3);
  for (const char* id : clean_ids) EXPECT_GT(faulty.CountOf(id), 0) << id;
  for (const SkfFaultSpec& spec : SkfFaultCatalogue()) {
    const std::string id(spec.rule_id);
    EXPECT_EQ(documented.count(id), 1u) << id;
    EXPECT_GT(faulty.CountOf(id), 0) << spec.name;
    // The violations only a fault raises; the disputes are also trace
    // terms of clean games.
    if (spec.severity == v1::SEVERITY_VIOLATION) {
      EXPECT_EQ(clean.CountOf(id), 0) << id;
    }
  }
  // Nothing counted is undocumented.
  for (const auto& [id, n] : faulty.counts()) {
    EXPECT_EQ(documented.count(id), 1u) << id << " counted " << n;
  }
}

}  // namespace
}  // namespace gunbai::generate
