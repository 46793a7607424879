// Mutations of clean games (issue 28, item 4): generated Daimyo games that
// audit clean, each changed in one place the way a flow error changes a
// real game, must no longer audit clean. The kinds, and why each is wrong
// by the rules (rules/daimyo/RULES.md):
//
// - a morale test paid twice (the same test again right after it): a test
//   is taken once for what owes it (daimyo.morale.not_owed);
// - a result move paid twice: a result owes one move (not_owed, or
//   daimyo.rout.once_a_turn for a rout);
// - a charge declared twice: one charge a turn (daimyo.charge.once_a_turn);
// - a volley fired twice: once a turn (daimyo.fire.eligibility.once_per_turn);
// - an owed test left out (daimyo.morale.missing; a rally test is not
//   owed: a router may leave it);
// - an owed result move left out (daimyo.result_move.missing, or
//   daimyo.rout.move_missing; a retirement after "stand or retire" is
//   the unit's choice and not owed);
// - a being-charged test left out where the unit is charged again: the
//   test is taken when the charge is declared, so the next charge on the
//   unit finds it missing (daimyo.morale.missing);
// - a frenzied pursuer's pursuit made twice in a turn: it pursues on once
//   a turn (daimyo.result_move.not_owed);
// - a move or charge moved into the other clan's activation: only the
//   active clan moves and charges (daimyo.move.active_clan,
//   daimyo.charge.active_clan).
//
// Every mutation of these kinds must be caught: the recall asked for is
// 100%, and the test prints the figures for the closing note. (Dropping or
// repeating any event at random is not a flow error in itself, a second
// move is legal, so those are not counted.) Seqs are renumbered after a
// change, so that only the change is found.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generate/daimyo/daimyo_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

constexpr int kGames = 60;

bool Clean(const v1::BattleLog& log, const replay::LoadedRuleset& ruleset,
           std::string* first = nullptr) {
  auto report = replay::AuditLog(log, ruleset);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return false;
  for (const v1::Finding& f : report->findings()) {
    if (f.severity() == v1::SEVERITY_VIOLATION ||
        f.severity() == v1::SEVERITY_DISPUTE ||
        f.severity() == v1::SEVERITY_WARNING) {
      if (first != nullptr)
        *first = absl::StrCat(f.rule_id(), ": ", f.message());
      return false;
    }
  }
  return true;
}

void Renumber(v1::BattleLog& log) {
  for (int i = 0; i < log.events_size(); ++i) {
    log.mutable_events(i)->set_seq(static_cast<std::uint64_t>(i + 1));
  }
}

v1::BattleLog Repeated(const v1::BattleLog& log, int at) {
  v1::BattleLog out = log;
  out.clear_events();
  for (int i = 0; i < log.events_size(); ++i) {
    *out.add_events() = log.events(i);
    if (i == at) *out.add_events() = log.events(i);
  }
  Renumber(out);
  return out;
}

v1::BattleLog Dropped(const v1::BattleLog& log, int at) {
  v1::BattleLog out = log;
  out.clear_events();
  for (int i = 0; i < log.events_size(); ++i) {
    if (i != at) *out.add_events() = log.events(i);
  }
  Renumber(out);
  return out;
}

// The event at `at` moved to just after the next activation of another
// clan in the same turn; false when there is none.
bool MovedIntoOtherActivation(const v1::BattleLog& log, int at,
                              v1::BattleLog& out) {
  const v1::Event& e = log.events(at);
  int to = -1;
  for (int i = at + 1; i < log.events_size(); ++i) {
    const v1::Event& n = log.events(i);
    if (n.turn() != e.turn()) break;
    if (n.has_activation() && n.clan() != e.clan()) {
      to = i;
      break;
    }
  }
  if (to < 0) return false;
  out = log;
  out.clear_events();
  for (int i = 0; i < log.events_size(); ++i) {
    if (i != at) *out.add_events() = log.events(i);
    if (i == to) *out.add_events() = e;
  }
  Renumber(out);
  return true;
}

// Whether the result move at `at` is one the rules let the unit leave out,
// read from the log alone (rules/daimyo/RULES.md, "Follow-up and pursuit
// are compulsory, except", and the charge results):
// - a retirement after its test gave "stand or retire" (it may stand);
// - any result move of a unit removed later in the same turn (destroyed:
//   the removal answers it);
// - a follow-up or pursuit whose loser is removed later in the turn (the
//   winner then owes nothing), by a winner defending a linear obstacle
//   (it may choose), or out of a multi-unit melee (rounds with a
//   melee_id: only one winner follows up, a winner that drew elsewhere
//   may not).
bool Optional(const v1::BattleLog& log, int at) {
  const v1::Event& event = log.events(at);
  const v1::ResultMove& move = event.result_move();
  const auto removed_later = [&](const std::string& unit) {
    for (int i = at + 1; i < log.events_size(); ++i) {
      const v1::Event& e = log.events(i);
      if (e.turn() != event.turn()) break;
      if (e.has_removal() && e.removal().unit() == unit) return true;
    }
    return false;
  };
  if (removed_later(move.unit())) return true;
  if (move.kind() == v1::RESULT_MOVE_KIND_RETIRE) {
    for (int i = at - 1; i >= 0; --i) {
      const v1::Event& e = log.events(i);
      if (e.has_morale_test() && e.morale_test().unit() == move.unit()) {
        return e.morale_test().claimed_result() ==
               v1::MORALE_RESULT_STAND_OR_RETIRE;
      }
    }
    return false;
  }
  if (move.kind() != v1::RESULT_MOVE_KIND_FOLLOW_UP &&
      move.kind() != v1::RESULT_MOVE_KIND_PURSUIT) {
    return false;
  }
  for (int i = at - 1; i >= 0; --i) {
    const v1::Event& e = log.events(i);
    if (!e.has_melee_round()) continue;
    const v1::MeleeRound& round = e.melee_round();
    int mine = -1;
    for (int k = 0; k < round.sides_size(); ++k) {
      if (round.sides(k).unit() == move.unit()) mine = k;
    }
    if (mine < 0) continue;
    if (!round.melee_id().empty()) return true;
    if (round.sides(mine).defending_linear_obstacle()) return true;
    return removed_later(round.sides(1 - mine).unit());
  }
  return false;
}

struct Tally {
  int tried = 0;
  int caught = 0;
  std::vector<std::string> missed;
};

TEST(MutationTest, FlowErrorsInCleanGamesAreCaught) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok()) << ruleset.status();
  std::map<std::string, Tally> tallies;
  const auto check = [&](const std::string& kind, const v1::BattleLog& log,
                         std::uint64_t seed, std::uint64_t seq) {
    Tally& t = tallies[kind];
    ++t.tried;
    if (!Clean(log, *ruleset)) {
      ++t.caught;
    } else if (t.missed.size() < 60) {
      t.missed.push_back(absl::StrCat("seed ", seed, " seq ", seq));
    }
  };
  for (int g = 0; g < kGames; ++g) {
    GeneratorOptions options;
    options.seed = 5000 + static_cast<std::uint64_t>(g);
    options.turns = 3;
    options.units_per_clan = 4;
    const v1::BattleLog log = GenerateLog(options);
    std::string why;
    ASSERT_TRUE(Clean(log, *ruleset, &why))
        << "seed " << options.seed << ": " << why;
    for (int i = 0; i < log.events_size(); ++i) {
      const v1::Event& e = log.events(i);
      const std::uint64_t seed = options.seed;
      if (e.has_morale_test()) {
        check("test paid twice", Repeated(log, i), seed, e.seq());
        // A rally test (8) is the router's to take or not.
        if (e.morale_test().reason() != 8) {
          check("owed test left out", Dropped(log, i), seed, e.seq());
        }
      } else if (e.has_result_move() &&
                 e.result_move().kind() != v1::RESULT_MOVE_KIND_HOLD) {
        check("result move paid twice", Repeated(log, i), seed, e.seq());
        if (!Optional(log, i)) {
          check("owed result move left out", Dropped(log, i), seed, e.seq());
        }
      } else if (e.has_charge() && !e.charge().counter_charge()) {
        check("charge declared twice", Repeated(log, i), seed, e.seq());
        v1::BattleLog moved;
        if (MovedIntoOtherActivation(log, i, moved)) {
          check("charge in the other clan's activation", moved, seed, e.seq());
        }
      } else if (e.has_firing()) {
        check("volley fired twice", Repeated(log, i), seed, e.seq());
      } else if (e.has_move()) {
        v1::BattleLog moved;
        if (MovedIntoOtherActivation(log, i, moved)) {
          check("move in the other clan's activation", moved, seed, e.seq());
        }
      }
    }
  }
  int tried = 0;
  int caught = 0;
  for (const auto& [kind, t] : tallies) {
    std::printf("mutation %-40s %5d caught of %5d\n", kind.c_str(), t.caught,
                t.tried);
    tried += t.tried;
    caught += t.caught;
    EXPECT_EQ(t.caught, t.tried)
        << kind << " missed: " << absl::StrJoin(t.missed, ", ");
  }
  std::printf("mutation recall: %d of %d (%d games)\n", caught, tried, kGames);
  EXPECT_GT(tried, 500);
}

}  // namespace
}  // namespace gunbai::generate
