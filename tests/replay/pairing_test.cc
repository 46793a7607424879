// Swiss and round-robin pairing (replay/pairing.h). Each expected pairing
// below is worked by hand from the rules in the header, and the working is
// in the comment beside it. A pairing is written "1:a-b 2:c-d 3:e bye":
// table, then the first side's player, then the second side's.
#include "replay/pairing.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gunbai::replay {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

std::string Show(const std::vector<Pairing>& pairings) {
  std::vector<std::string> parts;
  for (const Pairing& p : pairings) {
    parts.push_back(p.second.empty()
                        ? absl::StrCat(p.table, ":", p.first, " bye")
                        : absl::StrCat(p.table, ":", p.first, "-", p.second));
  }
  return absl::StrJoin(parts, " ");
}

// Fresh players with these ids, in standings order.
std::vector<PairingPlayer> Players(const std::vector<std::string>& ids) {
  std::vector<PairingPlayer> players;
  for (const std::string& id : ids) {
    players.emplace_back();
    players.back().id = id;
  }
  return players;
}

PairingPlayer& Find(std::vector<PairingPlayer>& players,
                    const std::string& id) {
  return *std::find_if(players.begin(), players.end(),
                       [&](const PairingPlayer& p) { return p.id == id; });
}

// Records that `x` and `y` met, on both players.
void Met(std::vector<PairingPlayer>& players, const std::string& x,
         const std::string& y) {
  Find(players, x).opponents.push_back(y);
  Find(players, y).opponents.push_back(x);
}

std::string PairedOrError(const std::vector<PairingPlayer>& players) {
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  if (!round.ok()) return std::string(round.status().message());
  return Show(round->pairings);
}

TEST(PairSwissTest, FirstRoundPairsNeighbours) {
  // 4 players, all on 0 points, seed order a b c d: a takes the next
  // highest, b; c takes d. Nobody has played a side, so the higher-ranked
  // of each pair takes the first side: a-b on table 1, c-d on 2.
  absl::StatusOr<SwissRound> round = PairSwiss(Players({"a", "b", "c", "d"}));
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-b 2:c-d");
  EXPECT_EQ(round->rematches, 0);
}

TEST(PairSwissTest, RematchAvoidedByFloating) {
  // Round 1 was a-b and c-d; standings a b c d. a cannot meet b again, so
  // a takes the next highest, c; b is left with d, whom b has not met:
  // a-c, b-d. All sides even (none played), so the higher-ranked is first.
  std::vector<PairingPlayer> players = Players({"a", "b", "c", "d"});
  Met(players, "a", "b");
  Met(players, "c", "d");
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-c 2:b-d");
  EXPECT_EQ(round->rematches, 0);
}

TEST(PairSwissTest, ByeToLowestRanked) {
  // 5 players, none has had a bye: e, last, gets it on table 3 and a b c d
  // pair as neighbours.
  EXPECT_EQ(PairedOrError(Players({"a", "b", "c", "d", "e"})),
            "1:a-b 2:c-d 3:e bye");
}

TEST(PairSwissTest, ByeSkipsOneWhoHadIt) {
  // e had a bye, so it goes to the next lowest, d; a-b, then c-e.
  std::vector<PairingPlayer> players = Players({"a", "b", "c", "d", "e"});
  players[4].had_bye = true;
  EXPECT_EQ(PairedOrError(players), "1:a-b 2:c-e 3:d bye");
  // d and e both had one: c gets it; a-b, d-e.
  players[3].had_bye = true;
  EXPECT_EQ(PairedOrError(players), "1:a-b 2:d-e 3:c bye");
}

TEST(PairSwissTest, ByeToLowestWhenEveryoneHadOne) {
  // All three had a bye: the lowest-ranked, c, has the bye again.
  std::vector<PairingPlayer> players = Players({"a", "b", "c"});
  for (PairingPlayer& p : players) p.had_bye = true;
  EXPECT_EQ(PairedOrError(players), "1:a-b 2:c bye");
}

TEST(PairSwissTest, SidesGoToWhoPlayedFirstSideLess) {
  // a has played the first side twice (lean +2), b the second side twice
  // (lean -2): b's lean is smaller, so b takes the first side though a is
  // higher-ranked.
  std::vector<PairingPlayer> players = Players({"a", "b"});
  players[0].first_sides = 2;
  players[1].second_sides = 2;
  EXPECT_EQ(PairedOrError(players), "1:b-a");
  // The other way round, a's lean is the smaller: a first.
  std::swap(players[0].first_sides, players[1].first_sides);
  std::swap(players[0].second_sides, players[1].second_sides);
  EXPECT_EQ(PairedOrError(players), "1:a-b");
}

TEST(PairSwissTest, EqualSidesGoToHigherRanked) {
  // a played 1 first and 1 second (lean 0), b 2 and 2 (lean 0): equal,
  // so a, the higher-ranked, is first. The lean counts, not the totals.
  std::vector<PairingPlayer> players = Players({"a", "b"});
  players[0].first_sides = players[0].second_sides = 1;
  players[1].first_sides = players[1].second_sides = 2;
  EXPECT_EQ(PairedOrError(players), "1:a-b");
  // Both lean +1 (2 first, 1 second): still a first.
  for (PairingPlayer& p : players) {
    p.first_sides = 2;
    p.second_sides = 1;
  }
  EXPECT_EQ(PairedOrError(players), "1:a-b");
}

TEST(PairSwissTest, BacktracksWhenGreedyLeavesPastOpponents) {
  // Only c and d have met. Greedy: a takes b (not met), leaving c-d, who
  // met. The search steps back: a takes c instead, then b takes d:
  // a-c, b-d, no rematch.
  std::vector<PairingPlayer> players = Players({"a", "b", "c", "d"});
  Met(players, "c", "d");
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-c 2:b-d");
  EXPECT_EQ(round->rematches, 0);
}

TEST(PairSwissTest, BacktracksTwoLevels) {
  // Six players; c has met d, e and f, and e has met f.
  //   a-b first: then c's only candidates are d, e, f, all met. Back.
  //   a-c: then b-d, leaving e-f, who met. Back one level.
  //   b-e (b's next choice): leaves d-f, not met. Done.
  // Result a-c, b-e, d-f, all sides even so the higher-ranked first.
  std::vector<PairingPlayer> players = Players({"a", "b", "c", "d", "e", "f"});
  Met(players, "c", "d");
  Met(players, "c", "e");
  Met(players, "c", "f");
  Met(players, "e", "f");
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-c 2:b-e 3:d-f");
  EXPECT_EQ(round->rematches, 0);
}

TEST(PairSwissTest, UnavoidableRematchIsCounted) {
  // Two players who met can only meet again: a-b, one rematch.
  std::vector<PairingPlayer> players = Players({"a", "b"});
  Met(players, "a", "b");
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-b");
  EXPECT_EQ(round->rematches, 1);
}

TEST(PairSwissTest, FallbackTakesFewestRematches) {
  // c, d, e and f have all met one another; a and b have met no one, so
  // no pairing avoids a rematch. Greedy a-b would leave c d e f to pair
  // among themselves: 2 rematches. With 1 allowed, the search tries a-b,
  // then c-d (the one rematch), and e-f would be a second; c-e and c-f fail
  // the same way, so it steps back to a-c (new), then b-d (new), and e-f
  // is the one rematch.
  std::vector<PairingPlayer> players = Players({"a", "b", "c", "d", "e", "f"});
  const std::vector<std::string> met_all = {"c", "d", "e", "f"};
  for (std::size_t i = 0; i < met_all.size(); ++i) {
    for (std::size_t j = i + 1; j < met_all.size(); ++j) {
      Met(players, met_all[i], met_all[j]);
    }
  }
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-c 2:b-d 3:e-f");
  EXPECT_EQ(round->rematches, 1);
}

TEST(PairSwissTest, WithdrawnOpponentIgnored) {
  // a met z, who withdrew and is not in the standings: a-b as in round 1.
  std::vector<PairingPlayer> players = Players({"a", "b"});
  players[0].opponents = {"z"};
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(Show(round->pairings), "1:a-b");
  EXPECT_EQ(round->rematches, 0);
}

TEST(PairSwissTest, OneSidedRecordStillCountsAsMet) {
  // Only b's record lists a; a-b would be a rematch, so a-c, b-d.
  std::vector<PairingPlayer> players = Players({"a", "b", "c", "d"});
  players[1].opponents = {"a"};
  EXPECT_EQ(PairedOrError(players), "1:a-c 2:b-d");
}

TEST(PairSwissTest, SameInputSameOutput) {
  std::vector<PairingPlayer> players =
      Players({"a", "b", "c", "d", "e", "f", "g"});
  Met(players, "a", "b");
  Met(players, "c", "d");
  players[6].had_bye = true;
  absl::StatusOr<SwissRound> first = PairSwiss(players);
  absl::StatusOr<SwissRound> second = PairSwiss(players);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->pairings, second->pairings);
  // By hand: bye to f (g had one); a-c (a met b), b-d, e-g.
  EXPECT_EQ(Show(first->pairings), "1:a-c 2:b-d 3:e-g 4:f bye");
}

TEST(PairSwissTest, Errors) {
  EXPECT_THAT(PairedOrError({}), HasSubstr("at least 2 players; got 0"));
  EXPECT_THAT(PairedOrError(Players({"a"})),
              HasSubstr("at least 2 players; got 1"));
  EXPECT_THAT(PairedOrError(Players({"a", "b", "a"})),
              HasSubstr("player \"a\" is in the standings twice, at "
                        "positions 1 and 3"));
  EXPECT_THAT(PairedOrError(Players({"a", ""})),
              HasSubstr("standings position 2 has an empty id"));
  EXPECT_EQ(PairSwiss(Players({"a"})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RoundRobinTest, FourPlayers) {
  // Circle method by hand: d stays put, a b c turn. Round r: slot r meets
  // d (r first when r is even), slots r+1 and r-1 (mod 3) meet, r+1 first.
  //   r=0: b-c, a-d   r=1: c-a, d-b   r=2: a-b, c-d
  // Sides: a F S F, b F S S, c S F F, d S F S: each 2-1 or 1-2.
  std::vector<std::vector<Pairing>> rounds = RoundRobin({"a", "b", "c", "d"});
  ASSERT_THAT(rounds, SizeIs(3));
  EXPECT_EQ(Show(rounds[0]), "1:b-c 2:a-d");
  EXPECT_EQ(Show(rounds[1]), "1:c-a 2:d-b");
  EXPECT_EQ(Show(rounds[2]), "1:a-b 2:c-d");
  std::set<std::pair<std::string, std::string>> met;
  for (const std::vector<Pairing>& round : rounds) {
    for (const Pairing& p : round) {
      met.insert(std::minmax(p.first, p.second));
    }
  }
  // The 6 pairs of 4 players, each seen once in 6 games.
  EXPECT_THAT(met, SizeIs(6));
}

TEST(RoundRobinTest, FivePlayers) {
  // The empty sixth slot stays put, so slot r has the bye in round r.
  // Slots r+1, r-1 meet (r+1 first) and r+2, r-2 meet (r-2 first):
  //   r=0: b-e d-c a bye   r=1: c-a e-d b bye   r=2: d-b a-e c bye
  //   r=3: e-c b-a d bye   r=4: a-d c-b e bye
  // Each plays 4 games, 2 on each side (a: S F S F).
  std::vector<std::vector<Pairing>> rounds =
      RoundRobin({"a", "b", "c", "d", "e"});
  ASSERT_THAT(rounds, SizeIs(5));
  EXPECT_EQ(Show(rounds[0]), "1:b-e 2:d-c 3:a bye");
  EXPECT_EQ(Show(rounds[1]), "1:c-a 2:e-d 3:b bye");
  EXPECT_EQ(Show(rounds[2]), "1:d-b 2:a-e 3:c bye");
  EXPECT_EQ(Show(rounds[3]), "1:e-c 2:b-a 3:d bye");
  EXPECT_EQ(Show(rounds[4]), "1:a-d 2:c-b 3:e bye");
}

TEST(RoundRobinTest, EveryoneMeetsOnceSidesWithinOne) {
  for (int n = 1; n <= 16; ++n) {
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) ids.push_back(absl::StrCat("p", i));
    std::vector<std::vector<Pairing>> rounds = RoundRobin(ids);
    ASSERT_THAT(rounds, SizeIs(n % 2 == 0 ? n - 1 : n)) << n;
    std::set<std::pair<std::string, std::string>> met;
    std::map<std::string, int> lean, byes;
    int games = 0;
    for (const std::vector<Pairing>& round : rounds) {
      ASSERT_THAT(round, SizeIs((n + 1) / 2)) << n;
      for (std::size_t t = 0; t < round.size(); ++t) {
        const Pairing& p = round[t];
        EXPECT_EQ(p.table, static_cast<int>(t) + 1);
        if (p.second.empty()) {
          EXPECT_EQ(t + 1, round.size()) << "the bye is last";
          ++byes[p.first];
          continue;
        }
        ++games;
        met.insert(std::minmax(p.first, p.second));
        ++lean[p.first];
        --lean[p.second];
      }
    }
    EXPECT_EQ(games, n * (n - 1) / 2) << n;
    EXPECT_THAT(met, SizeIs(n * (n - 1) / 2)) << "each pair once, n=" << n;
    for (const std::string& id : ids) {
      EXPECT_LE(std::abs(lean[id]), 1) << id << " of " << n;
      EXPECT_EQ(byes[id], n % 2) << id << " of " << n;
    }
  }
}

// ---- Random tournaments against a brute force ----

using MetPairs = std::set<std::pair<std::string, std::string>>;

bool HaveMet(const MetPairs& met, const std::string& x, const std::string& y) {
  return met.count(std::minmax(x, y)) > 0;
}

// The fewest rematches over every perfect matching of `ids`, by trying each
// partner for the first and recursing: written apart from the search in
// pairing.cc, which it checks.
int FewestRematches(const MetPairs& met, std::vector<std::string> ids) {
  if (ids.empty()) return 0;
  const std::string first = ids.front();
  int best = static_cast<int>(ids.size());
  for (std::size_t k = 1; k < ids.size(); ++k) {
    std::vector<std::string> rest;
    for (std::size_t j = 1; j < ids.size(); ++j) {
      if (j != k) rest.push_back(ids[j]);
    }
    best = std::min(best, (HaveMet(met, first, ids[k]) ? 1 : 0) +
                              FewestRematches(met, rest));
  }
  return best;
}

struct Entrant {
  PairingPlayer player;
  int seed = 0;
};

TEST(PairSwissTest, RandomTournamentsAvoidRematchesWheneverPossible) {
  std::mt19937 rng(20240611);
  int rounds_with_rematch = 0, rounds_without = 0;
  for (int tournament = 0; tournament < 200; ++tournament) {
    const int n = std::uniform_int_distribution<int>(4, 12)(rng);
    std::vector<Entrant> field;
    for (int i = 0; i < n; ++i) {
      field.emplace_back();
      field.back().player.id = absl::StrCat("p", i);
      field.back().seed = i;
    }
    MetPairs met;
    for (int round_no = 1; round_no <= n; ++round_no) {
      // Standings: score, then seed.
      std::stable_sort(field.begin(), field.end(),
                       [](const Entrant& x, const Entrant& y) {
                         if (x.player.score != y.player.score) {
                           return x.player.score > y.player.score;
                         }
                         return x.seed < y.seed;
                       });
      std::vector<PairingPlayer> standings;
      std::map<std::string, int> rank;
      for (const Entrant& e : field) {
        rank[e.player.id] = static_cast<int>(standings.size());
        standings.push_back(e.player);
      }
      absl::StatusOr<SwissRound> round = PairSwiss(standings);
      ASSERT_TRUE(round.ok()) << round.status();
      const std::vector<Pairing>& pairings = round->pairings;
      ASSERT_THAT(pairings, SizeIs((n + 1) / 2));

      // The bye, worked out apart: the lowest-ranked without one, else last.
      std::string bye_taker;
      if (n % 2 == 1) {
        bye_taker = standings.back().id;
        for (int i = n - 1; i >= 0; --i) {
          if (!standings[i].had_bye) {
            bye_taker = standings[i].id;
            break;
          }
        }
        EXPECT_EQ(pairings.back().first, bye_taker);
        EXPECT_EQ(pairings.back().second, "");
      }
      std::vector<std::string> to_pair;
      for (const PairingPlayer& p : standings) {
        if (p.id != bye_taker) to_pair.push_back(p.id);
      }
      const int fewest = FewestRematches(met, to_pair);
      (fewest == 0 ? rounds_without : rounds_with_rematch)++;

      std::set<std::string> seen;
      int rematches = 0, last_top_rank = -1;
      std::map<std::string, PairingPlayer*> by_id;
      for (Entrant& e : field) by_id[e.player.id] = &e.player;
      for (std::size_t t = 0; t < pairings.size(); ++t) {
        const Pairing& p = pairings[t];
        EXPECT_EQ(p.table, static_cast<int>(t) + 1);
        EXPECT_TRUE(seen.insert(p.first).second) << p.first << " twice";
        if (p.second.empty()) {
          by_id[p.first]->had_bye = true;
          by_id[p.first]->score += 2;
          continue;
        }
        EXPECT_TRUE(seen.insert(p.second).second) << p.second << " twice";
        if (HaveMet(met, p.first, p.second)) ++rematches;
        // Pairs are made top down: each table's higher-ranked player is
        // below the last table's.
        const int top = std::min(rank[p.first], rank[p.second]);
        EXPECT_GT(top, last_top_rank);
        last_top_rank = top;
        // Sides: first has the smaller lean, or equal and higher-ranked.
        PairingPlayer& a = *by_id[p.first];
        PairingPlayer& b = *by_id[p.second];
        const int lean_a = a.first_sides - a.second_sides;
        const int lean_b = b.first_sides - b.second_sides;
        EXPECT_TRUE(lean_a < lean_b ||
                    (lean_a == lean_b && rank[p.first] < rank[p.second]));
        // Play it: 0 the first side wins, 1 a draw, 2 the second wins.
        const int result = std::uniform_int_distribution<int>(0, 2)(rng);
        a.score += 2 - result;
        b.score += result;
        ++a.first_sides;
        ++b.second_sides;
        a.opponents.push_back(b.id);
        b.opponents.push_back(a.id);
        met.insert(std::minmax(a.id, b.id));
      }
      EXPECT_EQ(static_cast<int>(seen.size()), n);
      EXPECT_EQ(round->rematches, rematches);
      EXPECT_EQ(round->rematches, fewest)
          << "tournament " << tournament << ", round " << round_no;
    }
  }
  // Both branches of the search were exercised.
  EXPECT_GT(rounds_without, 1000);
  EXPECT_GT(rounds_with_rematch, 50);
}

TEST(PairSwissTest, AFieldWhereEveryoneHasMetIsPairedWithoutSearchingForHours) {
  // 400 players who have all met each other (a field a hostile client of
  // gunbaid can send): no pairing avoids a rematch, so each of the 200
  // pairs is one. Each search for fewer fails only at its bound; the
  // shared budget ends them after a few and pairs down the standings.
  std::vector<PairingPlayer> players(400);
  for (std::size_t i = 0; i < players.size(); ++i) {
    players[i].id = absl::StrCat("p", i);
    for (std::size_t j = 0; j < players.size(); ++j) {
      if (j != i) players[i].opponents.push_back(absl::StrCat("p", j));
    }
  }
  absl::StatusOr<SwissRound> round = PairSwiss(players);
  ASSERT_TRUE(round.ok()) << round.status();
  EXPECT_EQ(round->rematches, 200);
  ASSERT_EQ(round->pairings.size(), 200u);
  // Down the standings: p0 v p1, p2 v p3, ...
  EXPECT_EQ(round->pairings[0].first, "p0");
  EXPECT_EQ(round->pairings[0].second, "p1");
  EXPECT_EQ(round->pairings[199].second, "p399");
}

}  // namespace
}  // namespace gunbai::replay
