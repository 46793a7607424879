// Generated games (OpenSpiel's RandomSimTest, with planted faults): clean
// games must audit with no finding at all, over many seeds and sizes; every
// mechanism of the rules must turn up across the seeds; the same options
// must give the same bytes; and a game with K planted faults must audit to
// exactly the K findings its manifest names, nothing more, nothing less.
// Every expectation is read off the log or the audit, never computed by the
// generator under test.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "tests/generate/test_ruleset.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

const replay::LoadedRuleset& Ruleset() { return test_support::DaimyoRuleset(); }

GeneratorOptions TurnsOptions(std::uint64_t seed, int turns, int units,
                              int faults = 0) {
  GeneratorOptions options;
  options.seed = seed;
  options.turns = turns;
  options.units_per_clan = units;
  options.faults = faults;
  return options;
}

// The small games of the sweeps: 6 turns, 3 to 8 units a clan by seed.
GeneratorOptions SmallGame(std::uint64_t seed, int faults = 0) {
  return TurnsOptions(seed, 6, 3 + static_cast<int>(seed % 6), faults);
}

v1::AuditReport Audit(const v1::BattleLog& log) {
  absl::StatusOr<v1::AuditReport> report = replay::AuditLog(log, Ruleset());
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : v1::AuditReport();
}

// Returns the first findings of `report`, one a line, for failure messages.
std::string FirstFindings(const v1::AuditReport& report) {
  std::string out;
  for (int i = 0; i < report.findings_size() && i < 8; ++i) {
    const v1::Finding& f = report.findings(i);
    absl::StrAppend(&out, "seq ", f.seq(), " ", v1::Severity_Name(f.severity()),
                    " ", f.rule_id(), " [", f.subject(), "]: ", f.message(),
                    "\n");
  }
  return out;
}

int CountTurns(const v1::BattleLog& log) {
  return static_cast<int>(
      std::count_if(log.events().begin(), log.events().end(),
                    [](const v1::Event& e) { return e.has_turn_start(); }));
}

void ExpectClean(const v1::BattleLog& log, int turns) {
  const v1::AuditReport report = Audit(log);
  EXPECT_EQ(report.findings_size(), 0) << FirstFindings(report);
  EXPECT_EQ(report.events_replayed(),
            static_cast<std::uint64_t>(log.events_size()));
  EXPECT_EQ(CountTurns(log), turns);
  ASSERT_GE(log.events_size(), 2);
  EXPECT_TRUE(log.events(log.events_size() - 2).has_turn_end());
  EXPECT_TRUE(log.events(log.events_size() - 1).has_game_end());
}

TEST(GenerateTest, SmallGamesAuditClean) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    ExpectClean(GenerateLog(SmallGame(seed)), 6);
  }
}

TEST(GenerateTest, LargerGamesAuditClean) {
  const std::tuple<std::uint64_t, int, int> games[] = {
      {1, 20, 12}, {2, 20, 12}, {3, 30, 16}, {4, 12, 30}, {5, 40, 6}};
  for (const auto& [seed, turns, units] : games) {
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << turns
                                    << " turns, " << units << " units");
    ExpectClean(GenerateLog(TurnsOptions(seed, turns, units)), turns);
  }
}

TEST(GenerateTest, TinyArmiesAndShortGamesAuditClean) {
  for (int units : {1, 2, 3}) {
    for (int turns : {1, 2, 4}) {
      SCOPED_TRACE(testing::Message()
                   << turns << " turns, " << units << " units");
      ExpectClean(GenerateLog(TurnsOptions(9, turns, units)), turns);
    }
  }
}

// What the log shows of each mechanism, counted over many games.
struct Mechanisms {
  std::map<std::string, int> seen;

  void Note(const std::string& what) { ++seen[what]; }
  int operator[](const std::string& what) const {
    auto it = seen.find(what);
    return it == seen.end() ? 0 : it->second;
  }
};

void CountResultMove(const v1::ResultMove& move, Mechanisms& m) {
  m.Note(v1::ResultMoveKind_Name(move.kind()));
  if (move.blocked() == v1::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE) {
    m.Note("blocked by friends");
  }
  if (move.blocked() == v1::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE) {
    m.Note("blocked by enemy");
  }
  if (move.contact_after_pursuit()) m.Note("routers caught by pursuit");
  if (move.interpenetrated_size() > 0) m.Note("interpenetration");
  if (move.friends_near_size() > 0) m.Note("friends near a rout");
}

void CountMeleeRound(const v1::MeleeRound& round, Mechanisms& m) {
  m.Note("melee round");
  if (round.round() >= 2) m.Note("melee round 2+");
  if (round.round() >= 3) m.Note("melee round 3+");
  if (round.claimed_outcome() == v1::MELEE_OUTCOME_DRAW) m.Note("melee draw");
  for (const v1::MeleeSide& side : round.sides()) {
    if (side.claimed_stands_lost() > 0) m.Note("melee stand lost");
    if (side.overlap_stands() > 0) m.Note("overlap");
  }
}

void CountMoraleTest(const v1::MoraleTest& test, Mechanisms& m) {
  m.Note(absl::StrCat("morale reason ", test.reason()));
  m.Note(v1::MoraleResult_Name(test.claimed_result()));
}

Mechanisms CountMechanisms(const v1::BattleLog& log) {
  Mechanisms m;
  std::string active_clan;
  for (const v1::Event& e : log.events()) {
    if (e.has_activation()) active_clan = e.clan();
    if (e.has_firing()) {
      m.Note(e.clan() == active_clan ? "firing" : "firing at chargers");
    }
    if (e.has_charge()) {
      m.Note(e.charge().counter_charge() ? "counter-charge" : "charge");
      if (e.charge().fell_short()) m.Note("charge fell short");
    }
    if (e.has_melee_round()) CountMeleeRound(e.melee_round(), m);
    if (e.has_challenge()) {
      m.Note(e.challenge().accepted() ? "duel" : "challenge refused");
    }
    if (e.has_result_move()) CountResultMove(e.result_move(), m);
    if (e.has_morale_test()) CountMoraleTest(e.morale_test(), m);
    if (e.has_leader_loss() && e.leader_loss().claimed_killed()) {
      m.Note("leader killed");
    }
    if (e.has_removal()) m.Note("removal");
    if (e.has_turn_start() && e.turn_start().initiative_dice_size() > 0) {
      m.Note("initiative dice");
    }
    if (e.has_move() && e.move().kind() == v1::MOVE_KIND_MANOEUVRE) {
      m.Note("manoeuvre");
    }
    if ((e.has_leader_loss() && e.leader_loss().units_near_size() > 0) ||
        (e.has_challenge() && e.challenge().units_near_size() > 0)) {
      m.Note("units near a dead leader");
    }
  }
  return m;
}

TEST(GenerateTest, EveryMechanismAppearsAcrossSeeds) {
  Mechanisms total;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (const auto& [what, n] :
         CountMechanisms(GenerateLog(SmallGame(seed))).seen) {
      total.seen[what] += n;
    }
  }
  const char* const expected[] = {"firing",
                                  "firing at chargers",
                                  "charge",
                                  "counter-charge",
                                  "charge fell short",
                                  "melee round",
                                  "melee round 2+",
                                  "melee round 3+",
                                  "melee draw",
                                  "melee stand lost",
                                  "overlap",
                                  "duel",
                                  "challenge refused",
                                  "RESULT_MOVE_KIND_PUSH_BACK",
                                  "RESULT_MOVE_KIND_FOLLOW_UP",
                                  "RESULT_MOVE_KIND_ROUT",
                                  "RESULT_MOVE_KIND_PURSUIT",
                                  "RESULT_MOVE_KIND_RETIRE",
                                  "RESULT_MOVE_KIND_RETREAT",
                                  "RESULT_MOVE_KIND_HOLD",
                                  "blocked by friends",
                                  "blocked by enemy",
                                  "routers caught by pursuit",
                                  "interpenetration",
                                  "friends near a rout",
                                  "morale reason 1",
                                  "morale reason 2",
                                  "morale reason 3",
                                  "morale reason 4",
                                  "morale reason 5",
                                  "morale reason 6",
                                  "morale reason 7",
                                  "morale reason 8",
                                  "MORALE_RESULT_RALLY",
                                  "MORALE_RESULT_DISPERSED",
                                  "MORALE_RESULT_FRENZY",
                                  "MORALE_RESULT_HALT",
                                  "MORALE_RESULT_ROUT",
                                  "leader killed",
                                  "removal",
                                  "initiative dice",
                                  "manoeuvre",
                                  "units near a dead leader"};
  for (const char* what : expected) {
    EXPECT_GT(total[what], 0) << "no game shows: " << what;
  }
}

// Read off the logs of seeds 1-200: a game that dices for the initiative
// rolls one die a clan at every turn_start, each 1-6, and names the clan of
// the higher die; a tie names the clan that did not hold it the turn
// before (Oda before turn 1). Some games dice, some alternate, and some
// turns tie.
TEST(GenerateTest, InitiativeDiceNameTheHigherDiesClan) {
  int dicing = 0, alternating = 0, ties = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const v1::BattleLog log = GenerateLog(SmallGame(seed));
    std::string held = "oda";
    bool dices = false;
    for (const v1::Event& e : log.events()) {
      if (!e.has_turn_start()) continue;
      const v1::TurnStart& t = e.turn_start();
      if (e.turn() == 1) dices = t.initiative_dice_size() > 0;
      if (!dices) {
        EXPECT_EQ(t.initiative_dice_size(), 0);
        EXPECT_EQ(t.initiative_clan(), e.turn() % 2 == 1 ? "oda" : "takeda");
        continue;
      }
      ASSERT_EQ(t.initiative_dice_size(), 2) << "turn " << e.turn();
      const std::uint32_t oda = t.initiative_dice(0);
      const std::uint32_t takeda = t.initiative_dice(1);
      EXPECT_TRUE(oda >= 1 && oda <= 6 && takeda >= 1 && takeda <= 6);
      const std::string expected = oda > takeda    ? "oda"
                                   : takeda > oda  ? "takeda"
                                   : held == "oda" ? "takeda"
                                                   : "oda";
      ties += oda == takeda;
      EXPECT_EQ(t.initiative_clan(), expected) << "turn " << e.turn();
      held = t.initiative_clan();
    }
    ++(dices ? dicing : alternating);
  }
  EXPECT_GT(dicing, 20);
  EXPECT_GT(alternating, 100);
  EXPECT_GT(ties, 0);
}

// Read off the logs of seeds 1-200 (clean, and with 5 faults, none of
// which is a move): no unit moves, manoeuvres or turns about in a turn
// after it charged or counter-charged (a charge is its move: reading 39);
// every manoeuvre without a table changes the formation and every change
// of formation is a manoeuvre; and every unit listed near a dead leader is
// of his clan and tests morale later that turn for reason 5 or higher (the
// highest reason owed: 5, 6 or 7 at the end of the turn), unless a
// planted skipped test is what the manifest says.
TEST(GenerateTest, ChargesManoeuvresAndUnitsNearADeadLeader) {
  int manoeuvres = 0, near = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (int faults : {0, 5}) {
      SCOPED_TRACE(testing::Message()
                   << "seed " << seed << ", " << faults << " faults");
      const GeneratedGame game = GenerateGame(SmallGame(seed, faults));
      std::set<std::string> skipped;    // Units a planted fault skips.
      std::set<std::uint64_t> planted;  // Events a fault is planted in.
      for (const PlantedFault& f : game.faults) {
        skipped.insert(f.subject);
        planted.insert(f.seq);
      }
      std::map<std::string, std::string> clan_of;
      for (const v1::Unit& u : game.log.order_of_battle().units()) {
        clan_of[u.id()] = u.clan();
      }
      for (const v1::Leader& l : game.log.order_of_battle().leaders()) {
        clan_of[l.id()] = l.clan();
      }
      std::set<std::string> charged;
      std::map<std::string, std::uint32_t> owes_test;  // Unit: turn.
      for (const v1::Event& e : game.log.events()) {
        if (e.has_turn_start()) charged.clear();
        if (e.has_charge()) charged.insert(e.charge().unit());
        if (e.has_move()) {
          EXPECT_EQ(charged.count(e.move().unit()), 0u)
              << "seq " << e.seq() << ": " << e.move().unit()
              << " moves after its charge";
          const bool manoeuvre = e.move().kind() == v1::MOVE_KIND_MANOEUVRE;
          EXPECT_EQ(manoeuvre,
                    e.move().formation() != v1::FORMATION_UNSPECIFIED)
              << "seq " << e.seq();
          manoeuvres += manoeuvre;
        }
        const google::protobuf::RepeatedPtrField<std::string>* listed =
            e.has_leader_loss() ? &e.leader_loss().units_near()
            : e.has_challenge() ? &e.challenge().units_near()
                                : nullptr;
        // (A duel whose winner is claimed wrong by a planted fault is left
        // out: its claim names the wrong dead leader.)
        if (listed != nullptr && planted.count(e.seq()) == 0) {
          const std::string dead = e.has_leader_loss()
                                       ? e.leader_loss().leader()
                                       : (e.challenge().claimed_winner() ==
                                                  e.challenge().challenger()
                                              ? e.challenge().challenged()
                                              : e.challenge().challenger());
          for (const std::string& unit : *listed) {
            EXPECT_EQ(clan_of[unit], clan_of[dead]) << "seq " << e.seq();
            owes_test[unit] = e.turn();
            ++near;
          }
        }
        if (e.has_morale_test() && e.morale_test().reason() >= 5 &&
            e.morale_test().reason() <= 7) {
          owes_test.erase(e.morale_test().unit());
        }
        // A unit gone from the table (removed, or dispersed by a failed
        // rally) tests for nothing.
        if (e.has_removal()) owes_test.erase(e.removal().unit());
        if (e.has_morale_test() &&
            e.morale_test().claimed_result() == v1::MORALE_RESULT_DISPERSED) {
          owes_test.erase(e.morale_test().unit());
        }
        if (e.has_turn_end()) {
          for (const auto& [unit, turn] : owes_test) {
            EXPECT_TRUE(skipped.count(unit) > 0)
                << unit << " was near a dead leader in turn " << turn
                << " and took no test for it";
          }
          owes_test.clear();
        }
      }
    }
  }
  EXPECT_GT(manoeuvres, 0);
  EXPECT_GT(near, 0);
}

TEST(GenerateTest, SameOptionsGiveTheSameBytes) {
  const GeneratorOptions cases[] = {SmallGame(1), SmallGame(2, 3),
                                    TurnsOptions(77, 15, 10, 5)};
  for (const GeneratorOptions& options : cases) {
    const GeneratedGame a = GenerateGame(options);
    const GeneratedGame b = GenerateGame(options);
    EXPECT_EQ(base::DeterministicBytes(a.log), base::DeterministicBytes(b.log))
        << "seed " << options.seed;
    EXPECT_EQ(ManifestJsonLines(a.faults), ManifestJsonLines(b.faults));
  }
}

TEST(GenerateTest, DifferentSeedsGiveDifferentGames) {
  EXPECT_NE(base::DeterministicBytes(GenerateLog(SmallGame(1))),
            base::DeterministicBytes(GenerateLog(SmallGame(7))));
}

// A finding or a planted fault, as the audit names it.
using Named = std::tuple<std::uint64_t, std::string, int, std::string>;

std::vector<Named> FindingsOf(const v1::AuditReport& report) {
  std::vector<Named> out;
  for (const v1::Finding& f : report.findings()) {
    out.emplace_back(f.seq(), f.rule_id(), f.severity(), f.subject());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Named> ManifestOf(const GeneratedGame& game) {
  std::vector<Named> out;
  for (const PlantedFault& f : game.faults) {
    out.emplace_back(f.seq, f.rule_id, f.severity, f.subject);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Describe(const std::vector<Named>& named) {
  std::string out;
  for (const auto& [seq, rule, severity, subject] : named) {
    absl::StrAppend(&out, "  seq ", seq, " ", rule, " ",
                    v1::Severity_Name(static_cast<v1::Severity>(severity)),
                    " [", subject, "]\n");
  }
  return out;
}

TEST(GenerateTest, PlantedFaultsAreFoundExactly) {
  std::map<std::string, int> kinds;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    for (int k = 1; k <= 5; ++k) {
      SCOPED_TRACE(testing::Message()
                   << "seed " << seed << ", " << k << " faults");
      const GeneratedGame game = GenerateGame(SmallGame(seed, k));
      ASSERT_EQ(game.faults.size(), static_cast<std::size_t>(k));
      const std::vector<Named> found = FindingsOf(Audit(game.log));
      const std::vector<Named> planted = ManifestOf(game);
      EXPECT_EQ(found, planted) << "found:\n"
                                << Describe(found) << "planted:\n"
                                << Describe(planted);
      for (const PlantedFault& f : game.faults) {
        ++kinds[std::string(FaultSpecOf(f.kind).name)];
      }
    }
  }
  for (const FaultSpec& spec : FaultCatalogue()) {
    EXPECT_GT(kinds[std::string(spec.name)], 0)
        << "never planted: " << spec.name;
  }
}

// The kinds go round the catalogue from a place the seed sets (seed x K):
// a game with no more faults than kinds plants each kind at most once,
// counting a stand-in as the kind it stands in for (the manifest says so),
// and over the consecutive seeds 1-60 each kind is drawn floor or ceiling
// of 60 K / kinds times, for each K. Planted as itself (not a stand-in),
// each kind comes within a sixth of the mean, and stand-ins stay under 4%
// (a run of this sweep: 1,260 faults, 17 kinds, mean 74, each planted as
// itself 66-75 times, 42 stand-ins; these small games with up to 15
// faults are the hardest case: `gunbai generate --count 300 --faults 3`
// plants 6 of 900 as stand-ins, each kind as itself 50-59 times).
TEST(GenerateTest, FaultKindsComeInEvenProportion) {
  const int kinds = static_cast<int>(FaultCatalogue().size());
  std::map<std::string, int> planted;
  int faults = 0;
  int stand_ins = 0;
  for (int k : {1, 5, 15}) {
    std::map<std::string, int> drawn;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      const GeneratedGame game = GenerateGame(SmallGame(seed, k));
      std::map<std::string, int> in_game;
      for (const PlantedFault& f : game.faults) {
        const std::string own(FaultSpecOf(f.kind).name);
        const std::string kind = f.in_place_of.empty() ? own : f.in_place_of;
        EXPECT_EQ(++in_game[kind], 1)
            << "seed " << seed << ", " << k << " faults: " << kind << " twice";
        ++drawn[kind];
        ++faults;
        if (f.in_place_of.empty()) {
          ++planted[own];
        } else {
          ++stand_ins;
          EXPECT_EQ(f.kind, FaultKind::kResultMoveNotOwed);
          EXPECT_NE(f.description.find(f.in_place_of), std::string::npos);
        }
      }
    }
    for (const FaultSpec& spec : FaultCatalogue()) {
      const int n = drawn[std::string(spec.name)];
      EXPECT_GE(n, 60 * k / kinds) << spec.name << ", " << k << " faults";
      EXPECT_LE(n, (60 * k + kinds - 1) / kinds)
          << spec.name << ", " << k << " faults";
    }
  }
  for (const FaultSpec& spec : FaultCatalogue()) {
    const int n = planted[std::string(spec.name)];
    // Within a sixth of the mean, the stand-ins' own kind included.
    EXPECT_GE(6 * kinds * n, 5 * faults) << spec.name << ": " << n;
    EXPECT_LE(6 * kinds * n, 7 * faults) << spec.name << ": " << n;
  }
  EXPECT_LT(stand_ins * 100, 4 * faults) << stand_ins << " of " << faults;
}

TEST(GenerateTest, FaultyGamesHaveTheirOwnGameId) {
  EXPECT_EQ(GenerateLog(SmallGame(4)).header().game_id(), "generated-4");
  EXPECT_EQ(GenerateLog(SmallGame(4, 3)).header().game_id(),
            "generated-4-faults-3");
}

TEST(GenerateTest, GamesSizedByEventsHoldExactlyThatManyEvents) {
  for (int events : {5, 6, 40, 300, 1500}) {
    for (int faults : {0, 2}) {
      GeneratorOptions options;
      options.seed = 11;
      options.target_events = events;
      options.units_per_clan = 6;
      options.faults = faults;
      const GeneratedGame game = GenerateGame(options);
      EXPECT_EQ(game.log.events_size(), events);
      // The smallest games have no room for faults.
      if (events >= 40) {
        EXPECT_EQ(game.faults.size(), static_cast<std::size_t>(faults));
      }
      const std::vector<Named> found = FindingsOf(Audit(game.log));
      EXPECT_EQ(found, ManifestOf(game))
          << events << " events, " << faults << " faults: found:\n"
          << Describe(found);
    }
  }
}

// Small armies fill long logs: 3 units a clan, 3,000 events. Seeds 6, 24,
// 34 and 85 of these once aborted ("no unit left to move"): the armies
// wore down until both General's units, shot at and charged, were routing
// (a router makes one rout move a turn), so the closing turn had no unit
// to make its moves. Each game holds exactly 3,000 events and audits clean.
TEST(GenerateTest, SmallArmiesFillLongLogs) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    GeneratorOptions options;
    options.seed = seed;
    options.target_events = 3000;
    options.units_per_clan = 3;
    const v1::BattleLog log = GenerateLog(options);
    EXPECT_EQ(log.events_size(), 3000) << "seed " << seed;
    if (seed == 6 || seed == 24 || seed == 34 || seed == 85) {
      const v1::AuditReport report = Audit(log);
      EXPECT_EQ(report.findings_size(), 0) << "seed " << seed << ":\n"
                                           << FirstFindings(report);
    }
  }
}

TEST(GenerateTest, ManifestIsOneJsonObjectAFault) {
  const GeneratedGame game = GenerateGame(SmallGame(3, 2));
  const std::string lines = ManifestJsonLines(game.faults);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2);
  EXPECT_EQ(lines.front(), '{');
  EXPECT_NE(lines.find("\"rule_id\": \""), std::string::npos);
}

}  // namespace
}  // namespace gunbai::generate
