// Generated Samurai Knight Fever games (gunbai generate --ruleset skf, issue
// 10 part 3), played under the umpire's example data file
// (rules/skf/umpire-example.textproto, which has a morale check): over many
// seeds every game audits with no violation and no dispute under that file;
// the same seed gives the same bytes; and, read off the logs and the audits
// (never from the generator), the games show every troop type with a melee
// value, multiple melees, morale checks that retreat and rout, leaders
// killed, bases lost and a winner claimed.
#include "replay/generator/skf_game.h"

#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/audit.h"
#include "replay/generator/game_generator.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

replay::LoadedRuleset UmpireRuleset() {
  const std::string path =
      std::string(GUNBAI_SOURCE_DIR) + "/rules/skf/umpire-example.textproto";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = replay::LoadRuleset(text.str(), path);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? *loaded : replay::LoadedRuleset();
}

TEST(SkfGameTest, GeneratedGamesAuditWithNoViolationOrDispute) {
  const replay::LoadedRuleset ruleset = UmpireRuleset();
  ASSERT_TRUE(ruleset.data.skf().has_morale());
  std::set<v1::TroopType> types;
  int multiple_melees = 0, retreats = 0, routs = 0, leaders_killed = 0,
      bases_lost = 0, winners = 0, morale_outcomes = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    GeneratorOptions options;
    options.seed = seed;
    options.turns = 6;
    options.units_per_clan = 2 + static_cast<int>(seed % 8);
    auto log = GenerateSkfGame(options, ruleset);
    ASSERT_TRUE(log.ok()) << log.status();
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    replay::AuditOptions audit_options;
    audit_options.record_outcomes = true;
    auto report = replay::AuditLog(*log, ruleset, audit_options);
    ASSERT_TRUE(report.ok()) << report.status();
    for (const v1::Finding& f : report->findings()) {
      ADD_FAILURE() << "seq " << f.seq() << " " << f.rule_id() << ": "
                    << f.message();
    }
    for (const v1::Outcome& o : report->outcomes()) {
      morale_outcomes += o.kind() == "morale_result";
    }
    for (const v1::Unit& u : log->order_of_battle().units()) {
      types.insert(u.troop_type());
    }
    for (const v1::Event& e : log->events()) {
      if (e.has_melee_round()) {
        multiple_melees += !e.melee_round().melee_id().empty();
        for (const v1::MeleeSide& s : e.melee_round().sides()) {
          bases_lost += static_cast<int>(s.claimed_stands_lost());
        }
      }
      if (e.has_morale_test()) {
        retreats +=
            e.morale_test().claimed_result() == v1::MORALE_RESULT_RETREAT;
        routs += e.morale_test().claimed_result() == v1::MORALE_RESULT_ROUT;
      }
      if (e.has_leader_loss())
        leaders_killed += e.leader_loss().claimed_killed();
      if (e.has_game_end()) {
        // The claimed winner, when there is one, is the audit's.
        EXPECT_EQ(e.game_end().claimed_winner(), report->result().winner());
        winners += !e.game_end().claimed_winner().empty();
      }
    }
  }
  // The six troop types the umpire's file values (samurai foot and mounted
  // share a type).
  EXPECT_EQ(types, (std::set<v1::TroopType>{
                       v1::TROOP_TYPE_SAMURAI, v1::TROOP_TYPE_ASHIGARU,
                       v1::TROOP_TYPE_LEGENDARY_SAMURAI, v1::TROOP_TYPE_RONIN,
                       v1::TROOP_TYPE_WARRIOR_MONK, v1::TROOP_TYPE_PEASANT}));
  EXPECT_GT(multiple_melees, 0);
  EXPECT_GT(retreats, 0);
  EXPECT_GT(routs, 0);
  EXPECT_GT(leaders_killed, 0);
  EXPECT_GT(bases_lost, 0);
  EXPECT_GT(winners, 0);
  EXPECT_GT(morale_outcomes, 0);  // The checks were checked, not unverifiable.
}

TEST(SkfGameTest, SameSeedSameBytesOtherSeedOtherGame) {
  const replay::LoadedRuleset ruleset = UmpireRuleset();
  GeneratorOptions options;
  options.seed = 7;
  auto a = GenerateSkfGame(options, ruleset);
  auto b = GenerateSkfGame(options, ruleset);
  options.seed = 8;
  auto c = GenerateSkfGame(options, ruleset);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(SerializeDeterministic(*a), SerializeDeterministic(*b));
  EXPECT_NE(SerializeDeterministic(*a), SerializeDeterministic(*c));
  EXPECT_EQ(a->header().game_id(), "generated-skf-7");
  EXPECT_EQ(a->header().ruleset().version(), "page6-example-1+morale");
}

TEST(SkfGameTest, RefusesFaultsAndOtherRulesets) {
  GeneratorOptions options;
  options.faults = 1;
  EXPECT_FALSE(GenerateSkfGame(options, UmpireRuleset()).ok());
  auto daimyo = replay::BuiltinDaimyoRuleset();
  ASSERT_TRUE(daimyo.ok());
  EXPECT_FALSE(GenerateSkfGame(GeneratorOptions(), *daimyo).ok());
}

}  // namespace
}  // namespace gunbai::generate
