// The tournament desk's reading of a tournament file and its standings
// (replay/tournament.h). Every expected score, tie-break and rank below is
// worked by hand from the results written in the test, as the comments
// show; the results themselves are given (the audit that reads them from a
// log is tested through the real binary in
// tests/e2e/tournament_cli_test.sh).
#include "replay/tournament.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;

constexpr char kFour[] = R"(
name: "Spring Taikai"
version: "1"
players { id: "ann" name: "Ann" }
players { id: "bob" name: "Bob" }
players { id: "cat" name: "Cat" }
players { id: "dan" name: "Dan" }
scoring { win: 3 draw: 1 loss: 0 bye: 3 }
rounds {
  number: 1 ruleset: "daimyo"
  games { table: 1 first: "ann" second: "bob" log: "r1t1.textproto" }
  games { table: 2 first: "cat" second: "dan" log: "r1t2.textproto" }
}
rounds {
  number: 2 ruleset: "daimyo"
  games { table: 1 first: "ann" second: "cat" log: "r2t1.textproto" }
  games { table: 2 first: "bob" second: "dan" log: "r2t2.textproto" }
}
)";

LoadedTournament Load(const std::string& text) {
  absl::StatusOr<LoadedTournament> t = LoadTournament(text, "t.textproto");
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : LoadedTournament{};
}

v1::TournamentGameResult Result(
    int round, int table, std::string first, std::string second,
    v1::GameResultKind result,
    v1::ResultStatus status = v1::RESULT_STATUS_VERIFIED) {
  v1::TournamentGameResult g;
  g.set_round(static_cast<std::uint32_t>(round));
  g.set_table(static_cast<std::uint32_t>(table));
  g.set_first(first);
  g.set_second(second);
  g.set_result(result);
  g.set_status(status);
  return g;
}

std::string Ranking(const v1::TournamentStandings& s) {
  std::string out;
  for (const v1::TournamentStanding& p : s.standings()) {
    out += p.player() + ":" + std::to_string(p.score()) + " ";
  }
  return out;
}

TEST(TournamentFile, RefusesWhatCannotBeRight) {
  const std::string base = kFour;
  struct Case {
    std::string text;
    std::string says;
  } cases[] = {
      {"name: \"x\"", "a name and a version"},
      {base + "players { id: \"ann\" }", "player id ann is given twice"},
      {base + "players { name: \"No Id\" }", "a player has no id"},
      {base + "rounds { number: 4 ruleset: \"daimyo\" }",
       "round 3 is numbered 4"},
      {base + "rounds { number: 3 }", "round 3 names no ruleset"},
      {base + "rounds { number: 3 ruleset: \"daimyo\" games { table: 1 "
              "first: \"ann\" second: \"eve\" } }",
       "round 3, table 1: \"eve\" is not a player"},
      {base + "rounds { number: 3 ruleset: \"daimyo\" games { table: 1 "
              "first: \"ann\" second: \"bob\" } games { table: 2 first: "
              "\"ann\" second: \"cat\" } }",
       "round 3, table 2: ann already plays at another table"},
      {base + "rounds { number: 3 ruleset: \"daimyo\" games { table: 1 "
              "first: \"ann\" second: \"bob\" } games { table: 1 first: "
              "\"cat\" second: \"dan\" } }",
       "each once in a round"},
      {base + "rulings { number: 1 round: 3 table: 1 }",
       "ruling 1: round 3 has no table 1 in the tournament"},
      {base + "rulings { number: 1 round: 1 table: 1 }",
       "ruling 1: say what the ruling is"},
      {base + "rounds { number: 3 ruleset: \"daimyo\" games { table: 1 "
              "first: \"ann\" second: \"bob\" log: \"r1t2.textproto\" } }",
       "round 3, table 1 names the log r1t2.textproto, which round 1, table 2 "
       "names too"},
      {absl::StrReplaceAll(base, {{"win: 3", "win: 1001"}}),
       "at most 1000 points for a result"},
      {base + "bogus: 1", "t.textproto:"},
  };
  std::string crowd = "name: \"big\" version: \"1\"\n";
  for (int i = 0; i <= kMaxTournamentPlayers; ++i) {
    crowd += "players { id: \"p" + std::to_string(i) + "\" }\n";
  }
  {
    absl::StatusOr<LoadedTournament> t = LoadTournament(crowd, "t.textproto");
    EXPECT_THAT(t.status().message(),
                HasSubstr("10001 players and 0 rounds; a tournament has at "
                          "most 10000 players and 1000 rounds"));
  }
  for (const Case& c : cases) {
    absl::StatusOr<LoadedTournament> t = LoadTournament(c.text, "t.textproto");
    ASSERT_FALSE(t.ok()) << c.says;
    EXPECT_THAT(t.status().message(), HasSubstr(c.says));
  }
}

TEST(TournamentStandings, CountOnlyVerifiedRuledAndByeResults) {
  // Round 1: ann beat bob, cat drew with dan. Round 2: cat (second) beat
  // ann; bob v dan disputed, bob claiming the win.
  const LoadedTournament t = Load(kFour);
  const v1::TournamentStandings s = Standings(
      t, {Result(1, 1, "ann", "bob", v1::GAME_RESULT_KIND_FIRST_WINS),
          Result(1, 2, "cat", "dan", v1::GAME_RESULT_KIND_DRAW),
          Result(2, 1, "ann", "cat", v1::GAME_RESULT_KIND_SECOND_WINS),
          Result(2, 2, "bob", "dan", v1::GAME_RESULT_KIND_FIRST_WINS,
                 v1::RESULT_STATUS_DISPUTED)});
  // Counted: ann 3 + 0 = 3; bob 0; cat 1 + 3 = 4; dan 1. The disputed game
  // would give bob 3 and dan 0 more: provisional bob 3, dan 1.
  EXPECT_EQ(Ranking(s), "cat:4 ann:3 dan:1 bob:0 ");
  EXPECT_FALSE(s.final());
  const v1::TournamentStanding& bob = s.standings(3);
  EXPECT_EQ(bob.provisional(), 1u);
  EXPECT_EQ(bob.provisional_score(), 3u);
  EXPECT_EQ(bob.played(), 1u);
  EXPECT_EQ(bob.losses(), 1u);
  EXPECT_EQ(s.standings(2).provisional_score(), 1u);  // dan: 1 + 0
  EXPECT_EQ(s.digest(), t.digest);
  EXPECT_EQ(s.digest().size(), 64u);
}

TEST(TournamentStandings, TieBreaksInTheScoringsOrder) {
  // Six players, two rounds, every game decisive except one draw:
  //   r1: a beat b, c beat d, e drew f
  //   r2: a beat c, b beat e, d beat f (f first)
  // Scores (3/1/0): a 6, b 3, c 3, d 3, e 1, f 1.
  // Opponents' score: b met a (6) and e (1): 7; c met d (3) and a (6): 9;
  // d met c (3) and f (1): 4. So c 9, b 7, d 4 among the 3s;
  // e met f (1) and b (3): 4; f met e (1) and d (3): 4: equal, and head to
  // head e drew f: 1 each, so the file's order keeps e before f.
  std::string text = R"(
name: "six" version: "2"
players { id: "a" } players { id: "b" } players { id: "c" }
players { id: "d" } players { id: "e" } players { id: "f" }
scoring { win: 3 draw: 1 loss: 0
          tie_breaks: TIE_BREAK_OPPONENTS_SCORE
          tie_breaks: TIE_BREAK_HEAD_TO_HEAD }
rounds { number: 1 ruleset: "daimyo"
  games { table: 1 first: "a" second: "b" }
  games { table: 2 first: "c" second: "d" }
  games { table: 3 first: "e" second: "f" } }
rounds { number: 2 ruleset: "daimyo"
  games { table: 1 first: "a" second: "c" }
  games { table: 2 first: "b" second: "e" }
  games { table: 3 first: "f" second: "d" } }
)";
  const LoadedTournament t = Load(text);
  const auto win1 = v1::GAME_RESULT_KIND_FIRST_WINS;
  const v1::TournamentStandings s =
      Standings(t, {Result(1, 1, "a", "b", win1), Result(1, 2, "c", "d", win1),
                    Result(1, 3, "e", "f", v1::GAME_RESULT_KIND_DRAW),
                    Result(2, 1, "a", "c", win1), Result(2, 2, "b", "e", win1),
                    Result(2, 3, "f", "d", v1::GAME_RESULT_KIND_SECOND_WINS)});
  EXPECT_EQ(Ranking(s), "a:6 c:3 b:3 d:3 e:1 f:1 ");
  EXPECT_THAT(s.standings(1).tie_breaks(), ::testing::ElementsAre(9, 0));
  EXPECT_THAT(s.standings(2).tie_breaks(), ::testing::ElementsAre(7, 0));
  EXPECT_THAT(s.standings(3).tie_breaks(), ::testing::ElementsAre(4, 0));
  EXPECT_THAT(s.standings(4).tie_breaks(), ::testing::ElementsAre(4, 1));
  EXPECT_THAT(s.standings(5).tie_breaks(), ::testing::ElementsAre(4, 1));
  EXPECT_TRUE(s.final());
}

TEST(TournamentStandings, HeadToHeadSeparatesThePlayersTied) {
  // Three rounds of four players, head to head first:
  //   r1: p beat q, r beat s;  r2: q beat r, s beat p;  r3: p beat r,
  //   q beat s. Scores (2/1/0): p 4, q 4, r 2, s 2. p and q tied on 4:
  //   p beat q, so p 2 to q 0 head to head; r and s tied on 2: they met
  //   in r1 and r won: r before s although s is listed first.
  std::string text = R"(
name: "h2h" version: "1"
players { id: "q" } players { id: "p" } players { id: "s" } players { id: "r" }
scoring { win: 2 draw: 1 loss: 0 tie_breaks: TIE_BREAK_HEAD_TO_HEAD }
rounds { number: 1 ruleset: "daimyo"
  games { table: 1 first: "p" second: "q" }
  games { table: 2 first: "r" second: "s" } }
rounds { number: 2 ruleset: "daimyo"
  games { table: 1 first: "q" second: "r" }
  games { table: 2 first: "s" second: "p" } }
rounds { number: 3 ruleset: "daimyo"
  games { table: 1 first: "p" second: "r" }
  games { table: 2 first: "q" second: "s" } }
)";
  const LoadedTournament t = Load(text);
  const auto w = v1::GAME_RESULT_KIND_FIRST_WINS;
  const v1::TournamentStandings s =
      Standings(t, {Result(1, 1, "p", "q", w), Result(1, 2, "r", "s", w),
                    Result(2, 1, "q", "r", w), Result(2, 2, "s", "p", w),
                    Result(3, 1, "p", "r", w), Result(3, 2, "q", "s", w)});
  EXPECT_EQ(Ranking(s), "p:4 q:4 r:2 s:2 ");
  EXPECT_THAT(s.standings(0).tie_breaks(), ::testing::ElementsAre(2));
  EXPECT_THAT(s.standings(1).tie_breaks(), ::testing::ElementsAre(0));
}

TEST(TournamentRulings, DecideTheGameAndChain) {
  LoadedTournament t = Load(kFour);
  v1::TournamentRuling changed;
  changed.set_round(2);
  changed.set_table(2);
  changed.set_kind(v1::RULING_KIND_RESULT_CHANGED);
  changed.set_result(v1::GAME_RESULT_KIND_DRAW);
  changed.set_note("no winner by the rules");
  absl::StatusOr<v1::TournamentRuling> first = AppendRuling(t, changed);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->number(), 1u);
  EXPECT_EQ(first->previous_hash(), std::string(64, '0'));
  EXPECT_EQ(first->hash(), RulingHash(*first));
  // A second ruling chains to the first.
  v1::TournamentRuling replayed;
  replayed.set_round(1);
  replayed.set_table(1);
  replayed.set_kind(v1::RULING_KIND_GAME_REPLAYED);
  absl::StatusOr<v1::TournamentRuling> second = AppendRuling(t, replayed);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->previous_hash(), first->hash());
  // Refused: no such table; a change without its result.
  replayed.set_table(9);
  EXPECT_THAT(AppendRuling(t, replayed).status().message(),
              HasSubstr("round 1 has no table 9"));
  changed.clear_result();
  EXPECT_THAT(AppendRuling(t, changed).status().message(),
              HasSubstr("needs the result that counts"));

  // As in CountOnlyVerified...: with the disputed r2t2 ruled a draw (bob 1,
  // dan 1 more) and r1t1 to be replayed (ann loses 3, the game is
  // missing): ann 0 + 0 = 0; bob 0 + 1 = 1; cat 4; dan 1 + 1 = 2.
  // (Each result on the log the file names: a ruling is on that log.)
  std::vector<v1::TournamentGameResult> games = {
      Result(1, 1, "ann", "bob", v1::GAME_RESULT_KIND_FIRST_WINS),
      Result(1, 2, "cat", "dan", v1::GAME_RESULT_KIND_DRAW),
      Result(2, 1, "ann", "cat", v1::GAME_RESULT_KIND_SECOND_WINS),
      Result(2, 2, "bob", "dan", v1::GAME_RESULT_KIND_FIRST_WINS,
             v1::RESULT_STATUS_DISPUTED)};
  for (v1::TournamentGameResult& g : games) {
    g.set_log(absl::StrCat("r", g.round(), "t", g.table(), ".textproto"));
  }
  const v1::TournamentStandings s = Standings(t, games);
  EXPECT_EQ(Ranking(s), "cat:4 dan:2 bob:1 ann:0 ");
  EXPECT_EQ(s.rulings(), 2u);
  EXPECT_EQ(s.last_ruling_hash(), second->hash());
  EXPECT_EQ(s.games(0).status(), v1::RESULT_STATUS_MISSING);
  EXPECT_EQ(s.games(3).status(), v1::RESULT_STATUS_RULED);
  EXPECT_EQ(s.games(3).result(), v1::GAME_RESULT_KIND_DRAW);
  EXPECT_THAT(s.games(3).rulings(0),
              HasSubstr("ruling 1: the result is changed: a draw: no "
                        "winner by the rules"));
  EXPECT_FALSE(s.final());  // r1t1 is missing

  // The file with the rulings as written loads; one with a note edited
  // afterwards, or the first ruling dropped, does not.
  std::string text;
  google::protobuf::TextFormat::PrintToString(t.data, &text);
  ASSERT_TRUE(LoadTournament(text, "t").ok());
  v1::Tournament edited = t.data;
  edited.mutable_rulings(0)->set_note("bob wins");
  google::protobuf::TextFormat::PrintToString(edited, &text);
  EXPECT_THAT(LoadTournament(text, "t").status().message(),
              HasSubstr("ruling 1 does not chain"));
  edited = t.data;
  edited.mutable_rulings()->DeleteSubrange(0, 1);
  edited.mutable_rulings(0)->set_number(1);
  google::protobuf::TextFormat::PrintToString(edited, &text);
  EXPECT_THAT(LoadTournament(text, "t").status().message(),
              HasSubstr("ruling 1 does not chain"));
}

TEST(TournamentResults, ByesScoreAndMissingGamesDoNot) {
  // Three players, one round: a beat b, c has the bye (3). Then a second
  // round with no log yet for a v c: missing for both.
  std::string text = R"(
name: "three" version: "1"
players { id: "a" } players { id: "b" } players { id: "c" }
scoring { win: 3 draw: 1 loss: 0 bye: 3 }
rounds { number: 1 ruleset: "daimyo"
  games { table: 1 first: "a" second: "b" log: "x" }
  games { table: 2 first: "c" } }
rounds { number: 2 ruleset: "daimyo"
  games { table: 1 first: "a" second: "c" }
  games { table: 2 first: "b" } }
)";
  const LoadedTournament t = Load(text);
  const v1::Tournament& d = t.data;
  std::vector<v1::TournamentGameResult> games = {
      Result(1, 1, "a", "b", v1::GAME_RESULT_KIND_FIRST_WINS),
      ResultWithoutAudit(1, d.rounds(0).games(1), ""),
      ResultWithoutAudit(2, d.rounds(1).games(0), ""),
      ResultWithoutAudit(2, d.rounds(1).games(1), "")};
  EXPECT_EQ(games[1].status(), v1::RESULT_STATUS_BYE);
  EXPECT_EQ(games[2].status(), v1::RESULT_STATUS_MISSING);
  const v1::TournamentStandings s = Standings(t, games);
  // a 3 (win), c 3 (bye), b 0 + 3 (bye in round 2) = 3: all 3, the file's
  // order without tie-breaks.
  EXPECT_EQ(Ranking(s), "a:3 b:3 c:3 ");
  EXPECT_EQ(s.standings(0).missing(), 1u);
  EXPECT_EQ(s.standings(2).missing(), 1u);
  EXPECT_FALSE(s.final());
}

TEST(TournamentStandings, VictoryPointsAddedWhenTheScoringSaysSo) {
  // kFour scored 3/1/0 plus each game's victory points. r1: ann beat bob
  // 5 to 2; cat drew with dan 3 to 3. Round 2 has not come. ann 3 + 5 = 8,
  // cat 1 + 3 = 4, dan 1 + 3 = 4, bob 0 + 2 = 2; cat before dan by the
  // file's order.
  std::string text = kFour;
  text = absl::StrReplaceAll(
      text, {{"bye: 3 }", "bye: 3 add_victory_points: true }"}});
  const LoadedTournament t = Load(text);
  ASSERT_TRUE(t.data.scoring().add_victory_points());
  v1::TournamentGameResult a =
      Result(1, 1, "ann", "bob", v1::GAME_RESULT_KIND_FIRST_WINS);
  a.set_first_points(5);
  a.set_second_points(2);
  v1::TournamentGameResult b =
      Result(1, 2, "cat", "dan", v1::GAME_RESULT_KIND_DRAW);
  b.set_first_points(3);
  b.set_second_points(3);
  const v1::TournamentStandings s = Standings(t, {a, b});
  EXPECT_EQ(Ranking(s), "ann:8 cat:4 dan:4 bob:2 ");
}

TEST(TournamentStandings, PointsDifferenceBreaksATie) {
  // One round: a beat b 5 to 2, c beat d 6 to 1 (victory points). Scores:
  // a 3, c 3, b 0, d 0. Points difference: a 5 - 2 = +3, c 6 - 1 = +5, b
  // -3, d -5: c before a, b before d, against the file's order.
  std::string text = R"(
name: "pd" version: "1"
players { id: "a" } players { id: "b" } players { id: "c" } players { id: "d" }
scoring { win: 3 draw: 1 loss: 0 tie_breaks: TIE_BREAK_POINTS_DIFFERENCE }
rounds { number: 1 ruleset: "skf"
  games { table: 1 first: "a" second: "b" }
  games { table: 2 first: "c" second: "d" } }
)";
  const LoadedTournament t = Load(text);
  v1::TournamentGameResult x =
      Result(1, 1, "a", "b", v1::GAME_RESULT_KIND_FIRST_WINS);
  x.set_first_points(5);
  x.set_second_points(2);
  v1::TournamentGameResult y =
      Result(1, 2, "c", "d", v1::GAME_RESULT_KIND_FIRST_WINS);
  y.set_first_points(6);
  y.set_second_points(1);
  const v1::TournamentStandings s = Standings(t, {x, y});
  EXPECT_EQ(Ranking(s), "c:3 a:3 b:0 d:0 ");
  EXPECT_THAT(s.standings(0).tie_breaks(), ::testing::ElementsAre(5));
  EXPECT_THAT(s.standings(1).tie_breaks(), ::testing::ElementsAre(3));
  EXPECT_THAT(s.standings(2).tie_breaks(), ::testing::ElementsAre(-3));
  EXPECT_THAT(s.standings(3).tie_breaks(), ::testing::ElementsAre(-5));
}

TEST(TournamentGames, EachRulesetIsReadOnceAndEachReadingMadeOnce) {
  // Three rounds under "daimyo", the third reading the rules another way
  // (its options), each a game on a copy of anegawa-clean. The ruleset is
  // read once; the logs once each. anegawa-clean's header seats Chika and
  // Dai: round 2 seats others, disputed for that. Round 3's reading
  // disputes a morale total at seq 17 (README, "A tour", step 4).
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) +
                   "/anegawa-clean.textproto");
  std::stringstream bytes;
  bytes << in.rdbuf();
  ASSERT_FALSE(bytes.str().empty());
  const LoadedTournament t = Load(R"(
name: "readings" version: "1"
players { id: "Chika" } players { id: "Dai" } players { id: "e" }
players { id: "f" }
scoring { win: 3 draw: 1 loss: 0 }
rounds { number: 1 ruleset: "daimyo"
  games { table: 1 first: "Chika" second: "Dai" log: "one" } }
rounds { number: 2 ruleset: "daimyo"
  games { table: 1 first: "e" second: "f" log: "two" } }
rounds { number: 3 ruleset: "daimyo"
  options { stands_lost_count_whole_game: false }
  games { table: 1 first: "Chika" second: "Dai" log: "three" } }
)");
  int fetched = 0;
  int rulesets = 0;
  TournamentInputs inputs;
  inputs.log = [&](const std::string&) -> absl::StatusOr<std::string> {
    ++fetched;
    return bytes.str();
  };
  inputs.ruleset = [&](const std::string& name) {
    ++rulesets;
    return BuiltinRuleset(name);
  };
  absl::StatusOr<std::vector<v1::TournamentGameResult>> games =
      ReadTournamentGames(t, inputs);
  ASSERT_TRUE(games.ok()) << games.status();
  EXPECT_EQ(rulesets, 1);
  EXPECT_EQ(fetched, 3);
  ASSERT_EQ(games->size(), 3u);
  EXPECT_EQ((*games)[0].status(), v1::RESULT_STATUS_VERIFIED);
  EXPECT_EQ((*games)[0].result(), v1::GAME_RESULT_KIND_DRAW);
  EXPECT_EQ((*games)[1].status(), v1::RESULT_STATUS_DISPUTED);
  EXPECT_THAT((*games)[1].reason(), HasSubstr("is played by \"Chika\""));
  EXPECT_EQ((*games)[0].log_sha256(), (*games)[1].log_sha256());
  EXPECT_EQ((*games)[2].status(), v1::RESULT_STATUS_DISPUTED);
  EXPECT_THAT((*games)[2].reason(), HasSubstr("at seq 17"));
}

TEST(TournamentRulings, AreOnTheGameAsItWas) {
  // kFour, round 2 not yet played (its games name no log here).
  std::string text = absl::StrReplaceAll(
      kFour,
      {{" log: \"r2t1.textproto\"", ""}, {" log: \"r2t2.textproto\"", ""}});
  LoadedTournament t = Load(text);
  // A forfeit: bob v dan never came; the umpire gives it to dan (second).
  v1::TournamentRuling forfeit;
  forfeit.set_round(2);
  forfeit.set_table(2);
  forfeit.set_kind(v1::RULING_KIND_RESULT_CHANGED);
  forfeit.set_result(v1::GAME_RESULT_KIND_SECOND_WINS);
  forfeit.set_note("bob did not come");
  absl::StatusOr<v1::TournamentRuling> ruled = AppendRuling(t, forfeit);
  ASSERT_TRUE(ruled.ok()) << ruled.status();
  EXPECT_EQ(ruled->first(), "bob");
  EXPECT_EQ(ruled->second(), "dan");
  EXPECT_EQ(ruled->log(), "");
  // "Stands" on a game that never came: nothing stands, it stays missing.
  v1::TournamentRuling stands;
  stands.set_round(2);
  stands.set_table(1);
  stands.set_kind(v1::RULING_KIND_RESULT_STANDS);
  ASSERT_TRUE(AppendRuling(t, stands).ok());
  std::vector<v1::TournamentGameResult> games = {
      Result(1, 1, "ann", "bob", v1::GAME_RESULT_KIND_FIRST_WINS),
      Result(1, 2, "cat", "dan", v1::GAME_RESULT_KIND_DRAW),
      ResultWithoutAudit(2, t.data.rounds(1).games(0), ""),
      ResultWithoutAudit(2, t.data.rounds(1).games(1), "")};
  games[0].set_log("r1t1.textproto");
  games[1].set_log("r1t2.textproto");
  // ann 3, cat 1, dan 1 + 3 (forfeit) = 4, bob 0.
  v1::TournamentStandings s = Standings(t, games);
  EXPECT_EQ(Ranking(s), "dan:4 ann:3 cat:1 bob:0 ");
  EXPECT_EQ(s.games(3).status(), v1::RESULT_STATUS_RULED);
  EXPECT_EQ(s.games(2).status(), v1::RESULT_STATUS_MISSING);
  // Then the game comes after all (a log is named and verified: bob wins):
  // the forfeit is spent, shown, and the game counts as played.
  games[3] = Result(2, 2, "bob", "dan", v1::GAME_RESULT_KIND_FIRST_WINS);
  games[3].set_log("late.textproto");
  s = Standings(t, games);
  EXPECT_EQ(s.games(3).status(), v1::RESULT_STATUS_VERIFIED);
  EXPECT_THAT(s.games(3).rulings(0),
              HasSubstr("ruling 1: on the game as it was (bob v dan, no log), "
                        "spent since"));
  // ann 3, bob 3, cat 1, dan 1: bob and ann equal, the file's order.
  EXPECT_EQ(Ranking(s), "ann:3 bob:3 cat:1 dan:1 ");
  // A bye is no game to rule on.
  std::string with_bye = text + R"(
players { id: "eve" }
rounds { number: 3 ruleset: "daimyo" games { table: 1 first: "eve" } })";
  LoadedTournament b = Load(with_bye);
  v1::TournamentRuling on_bye;
  on_bye.set_round(3);
  on_bye.set_table(1);
  on_bye.set_kind(v1::RULING_KIND_RESULT_STANDS);
  EXPECT_THAT(AppendRuling(b, on_bye).status().message(),
              HasSubstr("round 3, table 1 is a bye"));
}

TEST(TournamentSwaps, ASwappedRoundStillReadsOnceItsLogsAreNamed) {
  // Round 3 of kFour paired ann v bob, cat v dan; swapped (bob and dan
  // change places), then both games' logs named: the file still reads,
  // the swap applied; a swap at a table whose game names a log is refused.
  std::string text = std::string(kFour) + R"(
rounds { number: 3 ruleset: "daimyo"
  games { table: 1 first: "ann" second: "bob" }
  games { table: 2 first: "cat" second: "dan" } })";
  LoadedTournament t = Load(text);
  v1::PairingSwap swap;
  swap.set_round(3);
  swap.set_table(1);
  swap.set_other_table(2);
  swap.set_reason("bob arrives late");
  absl::StatusOr<v1::PairingSwap> made = SwapPairing(t, swap);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->was(), "table 1: ann v bob, table 2: cat v dan");
  EXPECT_EQ(made->now(), "table 1: ann v dan, table 2: cat v bob");
  std::string swapped = text + AppendedField("swaps", *made);
  swapped = absl::StrReplaceAll(
      swapped, {{"second: \"bob\" }\n  games { table: 2 first: \"cat\" "
                 "second: \"dan\" } }",
                 "second: \"bob\" log: \"r3t1\" }\n  games { table: 2 first: "
                 "\"cat\" second: \"dan\" log: \"r3t2\" } }"}});
  ASSERT_TRUE(absl::StrContains(swapped, "log: \"r3t2\""));
  LoadedTournament again = Load(swapped);
  EXPECT_EQ(again.data.rounds(2).games(0).second(), "dan");
  EXPECT_EQ(again.data.rounds(2).games(1).second(), "bob");
  EXPECT_THAT(SwapPairing(again, swap).status().message(),
              HasSubstr("round 3 has started at table 1"));
}

TEST(TournamentPairing, NextRoundFromTheStandings) {
  // kFour with every round-1 game verified (ann beat bob, cat drew with
  // dan) and round 2 not yet come (missing: not played, so nobody met
  // there). Standings: ann 3, cat 1, dan 1, bob 0. Swiss, adjacent: ann's
  // first choice cat (not met): ann v cat; then dan v bob (not met). Sides:
  // ann and cat have each played first once (equal): ann, higher, first;
  // dan played second once, bob second once (equal): dan, higher, first.
  const LoadedTournament t = Load(kFour);
  v1::TournamentGame no_log[2] = {t.data.rounds(1).games(0),
                                  t.data.rounds(1).games(1)};
  for (v1::TournamentGame& g : no_log) g.clear_log();
  std::vector<v1::TournamentGameResult> games = {
      Result(1, 1, "ann", "bob", v1::GAME_RESULT_KIND_FIRST_WINS),
      Result(1, 2, "cat", "dan", v1::GAME_RESULT_KIND_DRAW),
      ResultWithoutAudit(2, no_log[0], ""),
      ResultWithoutAudit(2, no_log[1], "")};
  EXPECT_EQ(games[2].status(), v1::RESULT_STATUS_MISSING);
  const v1::TournamentStandings s = Standings(t, games);
  EXPECT_EQ(Ranking(s), "ann:3 cat:1 dan:1 bob:0 ");
  int rematches = -1;
  absl::StatusOr<v1::TournamentRound> next = NextSwissRound(t, s, &rematches);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->number(), 3u);
  EXPECT_EQ(next->ruleset(), "daimyo");
  ASSERT_EQ(next->games_size(), 2);
  EXPECT_EQ(next->games(0).first(), "ann");
  EXPECT_EQ(next->games(0).second(), "cat");
  EXPECT_EQ(next->games(1).first(), "dan");
  EXPECT_EQ(next->games(1).second(), "bob");
  // Round 2's ann v cat and bob v dan never came, so pairing them is no
  // rematch.
  EXPECT_EQ(rematches, 0);
}

}  // namespace
}  // namespace gunbai::replay
