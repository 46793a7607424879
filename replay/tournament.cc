#include "replay/tournament.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/pairing.h"
#include "replay/text_errors.h"
#include "rules/digest.h"
#include "rules/excerpt.h"

namespace gunbai::replay {

namespace v1 = ::gunbai::v1;

namespace {

// Points for one result at most: scores summed over the rounds stay far
// inside an int.
constexpr std::uint32_t kMaxPoints = 1000;

constexpr char kNoHash[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

const v1::TournamentGame* FindGame(const v1::Tournament& t, std::uint32_t round,
                                   std::uint32_t table) {
  if (round == 0 || round > static_cast<std::uint32_t>(t.rounds_size())) {
    return nullptr;
  }
  for (const v1::TournamentGame& g : t.rounds(round - 1).games()) {
    if (g.table() == table) return &g;
  }
  return nullptr;
}

// What is wrong with ruling `r` on the game at its round and table (`game`,
// null when there is none), in words; "" when nothing.
std::string RulingProblem(const v1::TournamentRuling& r,
                          const v1::TournamentGame* game) {
  if (game == nullptr) {
    return absl::StrCat("round ", r.round(), " has no table ", r.table(),
                        " in the tournament");
  }
  if (game->second().empty()) {
    return absl::StrCat("round ", r.round(), ", table ", r.table(),
                        " is a bye: there is no game to rule on");
  }
  switch (r.kind()) {
    case v1::RULING_KIND_RESULT_STANDS:
    case v1::RULING_KIND_GAME_REPLAYED:
      return "";
    case v1::RULING_KIND_RESULT_CHANGED:
      if (r.result() == v1::GAME_RESULT_KIND_FIRST_WINS ||
          r.result() == v1::GAME_RESULT_KIND_SECOND_WINS ||
          r.result() == v1::GAME_RESULT_KIND_DRAW) {
        return "";
      }
      return "a changed result needs the result that counts: the first side "
             "wins, the second side wins, or a draw";
    default:
      return "say what the ruling is: the result stands, is changed, or the "
             "game is replayed";
  }
}

absl::Status CheckRulings(const v1::Tournament& t, absl::string_view source) {
  // Each round's games by table, found once.
  std::map<std::pair<std::uint32_t, std::uint32_t>, const v1::TournamentGame*>
      games;
  for (const v1::TournamentRound& round : t.rounds()) {
    for (const v1::TournamentGame& g : round.games()) {
      games.emplace(std::make_pair(round.number(), g.table()), &g);
    }
  }
  std::string previous = kNoHash;
  for (int i = 0; i < t.rulings_size(); ++i) {
    const v1::TournamentRuling& r = t.rulings(i);
    const std::string where = absl::StrCat(source, ": ruling ", i + 1);
    if (r.number() != static_cast<std::uint32_t>(i + 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " is numbered ", r.number(),
          ": rulings are numbered 1, 2, ... in order and never removed"));
    }
    auto it = games.find({r.round(), r.table()});
    const std::string problem =
        RulingProblem(r, it == games.end() ? nullptr : it->second);
    if (!problem.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", problem));
    }
    if (r.previous_hash() != previous || r.hash() != RulingHash(r)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          " does not chain: it was changed, or a ruling before it was changed "
          "or removed, after it was recorded (previous_hash must be the "
          "hash of ruling ",
          i,
          ", and hash its own). Restore the file from its last good "
          "copy and record the correction as a new ruling."));
    }
    previous = r.hash();
  }
  return absl::OkStatus();
}

// Applies the swaps of `t`, in order: the second sides of two tables of a
// round exchanged. (That the round had not started there is checked as a
// swap is recorded: a log named afterwards is the swapped game's.)
absl::Status ApplySwaps(v1::Tournament& t, absl::string_view source) {
  for (int i = 0; i < t.swaps_size(); ++i) {
    const v1::PairingSwap& swap = t.swaps(i);
    const std::string where = absl::StrCat(source, ": swap ", i + 1);
    v1::TournamentGame* a = nullptr;
    v1::TournamentGame* b = nullptr;
    if (swap.round() >= 1 &&
        swap.round() <= static_cast<std::uint32_t>(t.rounds_size())) {
      for (v1::TournamentGame& g :
           *t.mutable_rounds(static_cast<int>(swap.round()) - 1)
                ->mutable_games()) {
        if (g.table() == swap.table()) a = &g;
        if (g.table() == swap.other_table()) b = &g;
      }
    }
    if (a == nullptr || b == nullptr || a == b) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " names round ", swap.round(), ", tables ", swap.table(),
          " and ", swap.other_table(), ": two tables of a round are needed"));
    }
    std::string second = a->second();
    a->set_second(b->second());
    b->set_second(second);
  }
  return absl::OkStatus();
}

absl::Status CheckRounds(const v1::Tournament& t, absl::string_view source) {
  // Each log is one game's: a log named twice would count one game twice.
  std::map<std::string, std::string> logs;
  for (const v1::TournamentRound& round : t.rounds()) {
    for (const v1::TournamentGame& g : round.games()) {
      if (g.log().empty()) continue;
      const std::string at =
          absl::StrCat("round ", round.number(), ", table ", g.table());
      auto [it, fresh] = logs.emplace(g.log(), at);
      if (!fresh) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": ", at, " names the log ",
                         Excerpt(g.log(), kMaxQuotedBytes), ", which ",
                         it->second, " names too: each game has its own log"));
      }
    }
  }
  std::set<std::string> ids;
  for (const v1::TournamentPlayer& p : t.players()) ids.insert(p.id());
  for (int i = 0; i < t.rounds_size(); ++i) {
    const v1::TournamentRound& round = t.rounds(i);
    const std::string where = absl::StrCat(source, ": round ", i + 1);
    if (round.number() != static_cast<std::uint32_t>(i + 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " is numbered ", round.number(),
                       ": rounds are numbered 1, 2, ... in order"));
    }
    if (round.ruleset().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          " names no ruleset: give a built-in name (daimyo, skf) or a "
          "ruleset file"));
    }
    std::set<std::uint32_t> tables;
    std::set<std::string> seated;
    for (const v1::TournamentGame& g : round.games()) {
      const std::string at = absl::StrCat(where, ", table ", g.table());
      if (g.table() == 0 || !tables.insert(g.table()).second) {
        return absl::InvalidArgumentError(absl::StrCat(
            at, ": tables are numbered 1 and up, each once in a round"));
      }
      for (int side = 0; side < 2; ++side) {
        const std::string& p = side == 0 ? g.first() : g.second();
        if (side == 1 && p.empty()) continue;  // A bye.

        if (ids.count(p) == 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              at, ": \"", Excerpt(p, kMaxQuotedBytes),
              "\" is not a player of the tournament (players { id: ... })"));
        }
        if (!seated.insert(p).second) {
          return absl::InvalidArgumentError(
              absl::StrCat(at, ": ", p, " already plays at another table"));
        }
      }
    }
  }
  return absl::OkStatus();
}

int Points(const v1::TournamentScoring& s, v1::GameResultKind result,
           bool first) {
  switch (result) {
    case v1::GAME_RESULT_KIND_FIRST_WINS:
      return static_cast<int>(first ? s.win() : s.loss());
    case v1::GAME_RESULT_KIND_SECOND_WINS:
      return static_cast<int>(first ? s.loss() : s.win());
    case v1::GAME_RESULT_KIND_DRAW:
      return static_cast<int>(s.draw());
    default:
      return 0;
  }
}

// The result in words, with the players: "cat (the first side) wins".
std::string ResultWords(v1::GameResultKind result,
                        const v1::TournamentGameResult& g) {
  switch (result) {
    case v1::GAME_RESULT_KIND_FIRST_WINS:
      return absl::StrCat(g.first(), " (the first side) wins");
    case v1::GAME_RESULT_KIND_SECOND_WINS:
      return absl::StrCat(g.second(), " (the second side) wins");
    case v1::GAME_RESULT_KIND_DRAW:
      return "a draw";
    default:
      return "no result";
  }
}

}  // namespace

std::string RulingHash(const v1::TournamentRuling& ruling) {
  v1::TournamentRuling body = ruling;
  body.clear_hash();
  std::string bytes = absl::HexStringToBytes(ruling.previous_hash());
  bytes += base::DeterministicBytes(body);
  return base::Sha256Hex(bytes);
}

absl::StatusOr<LoadedTournament> LoadTournament(absl::string_view text,
                                                absl::string_view source) {
  LoadedTournament loaded;
  if (absl::Status parsed = ParseTextFormat(text, source, loaded.data);
      !parsed.ok()) {
    return parsed;
  }
  const v1::Tournament& t = loaded.data;
  if (t.name().empty() || t.version().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source,
                     ": a tournament needs a name and a version (the standings "
                     "name them)"));
  }
  if (t.players_size() > kMaxTournamentPlayers ||
      t.rounds_size() > kMaxTournamentRounds) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": ", t.players_size(), " players and ", t.rounds_size(),
        " rounds; a tournament has at most ", kMaxTournamentPlayers,
        " players and ", kMaxTournamentRounds, " rounds"));
  }
  const v1::TournamentScoring& sc = t.scoring();
  if (std::max({sc.win(), sc.draw(), sc.loss(), sc.bye()}) > kMaxPoints) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the scoring gives at most ", kMaxPoints,
                     " points for a result"));
  }
  std::set<std::string> ids;
  for (const v1::TournamentPlayer& p : t.players()) {
    if (p.id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": a player has no id (players { id: ... })"));
    }
    if (!ids.insert(p.id()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": player id ", Excerpt(p.id(), kMaxQuotedBytes),
                       " is given twice; ids are unique"));
    }
  }
  if (absl::Status s = ApplySwaps(loaded.data, source); !s.ok()) return s;
  if (absl::Status s = CheckRounds(t, source); !s.ok()) return s;
  if (absl::Status s = CheckRulings(t, source); !s.ok()) return s;
  loaded.digest = base::Sha256Hex(base::DeterministicBytes(t));
  return loaded;
}

absl::StatusOr<v1::TournamentRuling> AppendRuling(LoadedTournament& tournament,
                                                  v1::TournamentRuling ruling) {
  v1::Tournament& t = tournament.data;
  const v1::TournamentGame* game = FindGame(t, ruling.round(), ruling.table());
  const std::string problem = RulingProblem(ruling, game);
  if (!problem.empty()) return absl::InvalidArgumentError(problem);
  // The game as ruled on (the log's SHA-256 as the caller gave it).
  ruling.set_first(game->first());
  ruling.set_second(game->second());
  ruling.set_log(game->log());
  if (game->log().empty()) ruling.clear_log_sha256();
  ruling.set_number(static_cast<std::uint32_t>(t.rulings_size() + 1));
  ruling.set_previous_hash(t.rulings().empty() ? kNoHash
                                               : t.rulings().rbegin()->hash());
  ruling.set_hash(RulingHash(ruling));
  *t.add_rulings() = ruling;
  tournament.digest = base::Sha256Hex(base::DeterministicBytes(t));
  return ruling;
}

std::string AppendedField(absl::string_view name,
                          const google::protobuf::Message& message) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(message, &text);
  std::string out = absl::StrCat("\n", name, " {\n");
  bool line_start = true;
  for (const char c : text) {
    if (line_start && c != '\n') out += "  ";
    out += c;
    line_start = c == '\n';
  }
  return absl::StrCat(out, "}\n");
}

absl::StatusOr<v1::PairingSwap> SwapPairing(LoadedTournament& tournament,
                                            v1::PairingSwap swap) {
  const v1::Tournament before = tournament.data;
  const auto words = [](const v1::Tournament& t, std::uint32_t round,
                        std::uint32_t table) {
    const v1::TournamentGame* g = FindGame(t, round, table);
    return g == nullptr ? std::string()
                        : absl::StrCat("table ", table, ": ", g->first(), " v ",
                                       g->second());
  };
  for (const std::uint32_t table : {swap.table(), swap.other_table()}) {
    const v1::TournamentGame* g = FindGame(before, swap.round(), table);
    if (g != nullptr && !g->log().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "round ", swap.round(), " has started at table ", table,
          " (its game names a log); a pairing is swapped before its game is "
          "played"));
    }
  }
  swap.set_was(absl::StrCat(words(before, swap.round(), swap.table()), ", ",
                            words(before, swap.round(), swap.other_table())));
  v1::Tournament after = before;
  *after.add_swaps() = swap;
  after.mutable_swaps()->DeleteSubrange(0, after.swaps_size() - 1);
  if (absl::Status s = ApplySwaps(after, "the swap"); !s.ok()) return s;
  swap.set_now(absl::StrCat(words(after, swap.round(), swap.table()), ", ",
                            words(after, swap.round(), swap.other_table())));
  *tournament.data.add_swaps() = swap;
  tournament.data.mutable_rounds()->CopyFrom(after.rounds());
  tournament.digest =
      base::Sha256Hex(base::DeterministicBytes(tournament.data));
  return swap;
}

v1::TournamentGameResult ResultWithoutAudit(int round,
                                            const v1::TournamentGame& game,
                                            const std::string& error) {
  v1::TournamentGameResult r;
  r.set_round(static_cast<std::uint32_t>(round));
  r.set_table(game.table());
  r.set_first(game.first());
  r.set_second(game.second());
  r.set_log(game.log());
  if (game.second().empty()) {
    r.set_status(v1::RESULT_STATUS_BYE);
  } else if (game.log().empty()) {
    r.set_status(v1::RESULT_STATUS_MISSING);
    r.set_reason("no game has come");
  } else {
    r.set_status(v1::RESULT_STATUS_DISPUTED);
    r.set_reason(error);
  }
  return r;
}

v1::TournamentGameResult ResultFromAudit(const LoadedTournament& tournament,
                                         int round,
                                         const v1::TournamentGame& game,
                                         const v1::BattleLog& log,
                                         const v1::AuditReport& report) {
  v1::TournamentGameResult r = ResultWithoutAudit(round, game, "");
  if (game.second().empty()) return r;
  std::vector<std::string> reasons;
  // The log's clans: the first is the pairing's first player's.
  const auto& clans = log.header().clans();
  if (clans.size() != 2) {
    reasons.push_back(absl::StrCat("the log has ", clans.size(),
                                   " clans; a tournament game has two"));
  }
  std::map<std::string, const v1::TournamentPlayer*> players;
  for (const v1::TournamentPlayer& p : tournament.data.players()) {
    players[p.id()] = &p;
  }
  const std::string sides[2] = {game.first(), game.second()};
  for (int c = 0; c < 2 && c < clans.size(); ++c) {
    const std::string& named = clans[c].player();
    const v1::TournamentPlayer* p = players[sides[c]];
    if (!named.empty() && p != nullptr && named != p->id() &&
        named != p->name()) {
      reasons.push_back(absl::StrCat(
          "the log's ", c == 0 ? "first" : "second", " clan (", clans[c].id(),
          ") is played by \"", Excerpt(named, kMaxQuotedBytes),
          "\", but the pairing seats ", p->id(), " there"));
    }
  }
  // The rules' result, and the log's claim.
  const v1::GameResult& end = report.result();
  std::string rules_winner = end.winner();
  v1::GameResultKind computed = v1::GAME_RESULT_KIND_DRAW;
  if (clans.size() == 2 && !rules_winner.empty()) {
    computed = rules_winner == clans[0].id() ? v1::GAME_RESULT_KIND_FIRST_WINS
                                             : v1::GAME_RESULT_KIND_SECOND_WINS;
  }
  if (end.clans_size() == 2) {
    r.set_first_points(end.clans(0).victory_points());
    r.set_second_points(end.clans(1).victory_points());
  }
  std::string claim;
  for (const v1::Event& e : log.events()) {
    if (e.has_game_end()) claim = e.game_end().claimed_winner();
  }
  v1::GameResultKind claimed = computed;
  if (!claim.empty() && clans.size() == 2) {
    claimed = claim == clans[0].id()   ? v1::GAME_RESULT_KIND_FIRST_WINS
              : claim == clans[1].id() ? v1::GAME_RESULT_KIND_SECOND_WINS
                                       : computed;
    if (claim != rules_winner) {
      reasons.push_back(
          end.scored()
              ? absl::StrCat("the log claims ", Excerpt(claim, kMaxQuotedBytes),
                             " won; the scenario's victory points give ",
                             rules_winner.empty() ? "no winner" : rules_winner)
              : absl::StrCat(
                    "the log claims ", Excerpt(claim, kMaxQuotedBytes),
                    " won; the scenario sets no victory condition, so the "
                    "rules give no winner (the umpire rules)"));
    }
  }
  std::vector<std::string> findings;
  for (const v1::Finding& f : report.findings()) {
    if (f.severity() == v1::SEVERITY_VIOLATION) {
      r.set_violations(r.violations() + 1);
    } else if (f.severity() == v1::SEVERITY_DISPUTE) {
      r.set_disputes(r.disputes() + 1);
    } else {
      continue;
    }
    if (findings.size() < 5) {
      findings.push_back(absl::StrCat(f.rule_id(), " at seq ", f.seq()));
    }
  }
  if (!findings.empty()) {
    const std::uint32_t n = r.violations() + r.disputes();
    reasons.push_back(absl::StrCat(
        r.violations(), " violation", r.violations() == 1 ? "" : "s", " and ",
        r.disputes(), " dispute", r.disputes() == 1 ? "" : "s", ": ",
        absl::StrJoin(findings, ", "), n > findings.size() ? ", ..." : ""));
  }
  if (reasons.empty()) {
    r.set_status(v1::RESULT_STATUS_VERIFIED);
    r.set_result(computed);
  } else {
    r.set_status(v1::RESULT_STATUS_DISPUTED);
    r.set_result(claimed);
    r.set_reason(absl::StrJoin(reasons, "; "));
  }
  return r;
}

namespace {

// A log as audited: its report, or why there is none.
struct AuditedLog {
  std::string sha256;
  v1::BattleLog log;
  std::optional<v1::AuditReport> report;
  std::string error;
};

// Fetches log `name`, parses it and audits it under `ruleset` (round
// `round`'s), counting its bytes against the whole reading's budget.
AuditedLog Audit(const std::string& name, const LoadedRuleset& ruleset,
                 const TournamentInputs& inputs, std::int64_t& audited_bytes,
                 int round) {
  AuditedLog a;
  absl::StatusOr<std::string> bytes = inputs.log(name);
  if (!bytes.ok()) {
    a.error = std::string(bytes.status().message());
    return a;
  }
  a.sha256 = base::Sha256Hex(*bytes);
  audited_bytes += static_cast<std::int64_t>(bytes->size());
  if (audited_bytes > kMaxTournamentAuditBytes) {
    a.error =
        absl::StrCat("not audited: the tournament's logs come to more than ",
                     kMaxTournamentAuditBytes >> 20, " MiB to audit");
    return a;
  }
  absl::StatusOr<v1::BattleLog> log =
      ParseBattleLog(*bytes, LogFormat::kAuto, name);
  if (!log.ok()) {
    a.error = std::string(log.status().message());
    return a;
  }
  const std::string& named = log->header().ruleset().name();
  if (!named.empty() && named != ruleset.data.name()) {
    a.error = absl::StrCat("the log is played under ", named, "; round ", round,
                           " under ", ruleset.data.name());
    return a;
  }
  absl::StatusOr<v1::AuditReport> report = AuditLog(*log, ruleset);
  if (!report.ok()) {
    a.error = std::string(report.status().message());
    return a;
  }
  a.log = *std::move(log);
  a.report = *std::move(report);
  return a;
}

}  // namespace

absl::StatusOr<std::vector<v1::TournamentGameResult>> ReadTournamentGames(
    const LoadedTournament& t, const TournamentInputs& inputs) {
  std::vector<v1::TournamentGameResult> out;
  std::int64_t audited_bytes = 0;
  // Each ruleset named is read once, and made once for each reading.
  std::map<std::string, absl::StatusOr<LoadedRuleset>> rulesets;
  std::map<std::pair<std::string, std::string>, LoadedRuleset> readings;
  for (const v1::TournamentRound& round : t.data.rounds()) {
    const int r = static_cast<int>(round.number());
    if (inputs.cancelled && inputs.cancelled()) {
      return absl::CancelledError("the standings were abandoned");
    }
    auto named = rulesets.find(round.ruleset());
    if (named == rulesets.end()) {
      named = rulesets.emplace(round.ruleset(), inputs.ruleset(round.ruleset()))
                  .first;
    }
    if (!named->second.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("round ", r, "'s ruleset ", round.ruleset(), ": ",
                       named->second.status().message()));
    }
    const LoadedRuleset* ruleset = &*named->second;
    // A round's readings: the ruleset with its options replaced, made once
    // for each reading.
    if (round.has_options()) {
      if (!ruleset->data.has_options()) {
        return absl::InvalidArgumentError(
            absl::StrCat("round ", r, " sets reading options, but ruleset ",
                         ruleset->data.name(), " has none to set"));
      }
      auto [read, fresh] = readings.try_emplace(
          {round.ruleset(), base::DeterministicBytes(round.options())});
      if (fresh) {
        read->second = *ruleset;
        *read->second.data.mutable_options() = round.options();
        read->second.digest =
            base::Sha256Hex(base::DeterministicBytes(read->second.data));
      }
      ruleset = &read->second;
    }
    for (const v1::TournamentGame& game : round.games()) {
      if (inputs.cancelled && inputs.cancelled()) {
        return absl::CancelledError("the standings were abandoned");
      }
      if (game.second().empty() || game.log().empty()) {
        out.push_back(ResultWithoutAudit(r, game, ""));
        continue;
      }
      if (inputs.progress) inputs.progress(r, game);
      const AuditedLog a =
          Audit(game.log(), *ruleset, inputs, audited_bytes, r);
      v1::TournamentGameResult g =
          a.report.has_value() ? ResultFromAudit(t, r, game, a.log, *a.report)
                               : ResultWithoutAudit(r, game, a.error);
      g.set_log_sha256(a.sha256);
      out.push_back(std::move(g));
    }
  }
  return out;
}

namespace {

// One player's tally while the standings are worked out.
struct Tally {
  const v1::TournamentPlayer* player = nullptr;
  int order = 0;  // In the file's player list.
  int score = 0;
  int provisional_score = 0;
  int played = 0, wins = 0, draws = 0, losses = 0;
  int provisional = 0, missing = 0;
  std::int64_t points_for = 0, points_against = 0;
  // Opponents met in counted games (repeated for a rematch).
  std::vector<std::string> opponents;
  // Score taken from each opponent's games against this player.
  std::map<std::string, int> against;
  std::vector<std::int64_t> tie_breaks;
};

}  // namespace

v1::TournamentStandings Standings(const LoadedTournament& tournament,
                                  std::vector<v1::TournamentGameResult> games) {
  const v1::Tournament& t = tournament.data;
  const v1::TournamentScoring& scoring = t.scoring();
  v1::TournamentStandings out;
  out.set_tournament(t.name());
  out.set_version(t.version());
  out.set_digest(tournament.digest);
  for (int tb : scoring.tie_breaks()) {
    out.add_tie_breaks(static_cast<v1::TieBreak>(tb));
  }
  // The last ruling on a game decides it.
  std::map<std::pair<std::uint32_t, std::uint32_t>,
           std::vector<const v1::TournamentRuling*>>
      rulings;
  for (const v1::TournamentRuling& r : t.rulings()) {
    rulings[{r.round(), r.table()}].push_back(&r);
  }
  std::map<std::string, Tally> tallies;
  for (int i = 0; i < t.players_size(); ++i) {
    Tally& tally = tallies[t.players(i).id()];
    tally.player = &t.players(i);
    tally.order = i;
  }
  bool final = true;
  for (v1::TournamentGameResult& g : games) {
    auto it = rulings.find({g.round(), g.table()});
    const v1::TournamentRuling* last = nullptr;
    if (it != rulings.end()) {
      for (const v1::TournamentRuling* r : it->second) {
        // A ruling is on the game as it was: spent once its players or log
        // changed.
        const bool applies =
            r->first() == g.first() && r->second() == g.second() &&
            r->log() == g.log() &&
            (r->log_sha256().empty() || r->log_sha256() == g.log_sha256());
        std::string words;
        switch (r->kind()) {
          case v1::RULING_KIND_RESULT_STANDS:
            words = absl::StrCat("the result stands (",
                                 ResultWords(g.result(), g), ")");
            break;
          case v1::RULING_KIND_RESULT_CHANGED:
            words = absl::StrCat("the result is changed: ",
                                 ResultWords(r->result(), g));
            break;
          default:
            words = "the game is to be played again";
            break;
        }
        if (!applies) {
          words = absl::StrCat(
              "on the game as it was (", r->first(), " v ", r->second(),
              r->log().empty() ? ", no log" : absl::StrCat(", ", r->log()),
              "), spent since: ", words);
        } else {
          last = r;
        }
        g.add_rulings(absl::StrCat("ruling ", r->number(), ": ", words,
                                   r->note().empty() ? "" : ": ", r->note()));
      }
    }
    if (last != nullptr) {
      if (last->kind() == v1::RULING_KIND_GAME_REPLAYED) {
        g.set_status(v1::RESULT_STATUS_MISSING);
        g.set_result(v1::GAME_RESULT_KIND_UNSPECIFIED);
        g.set_reason("the umpire ordered the game replayed");
      } else if (last->kind() == v1::RULING_KIND_RESULT_CHANGED) {
        // Also a forfeit awarded on a game that did not come.
        g.set_result(last->result());
        g.set_status(v1::RESULT_STATUS_RULED);
      } else if (g.result() != v1::GAME_RESULT_KIND_UNSPECIFIED) {
        g.set_status(v1::RESULT_STATUS_RULED);
      }
      // (A result that stands where there is none, a game that did not
      // come or a log unread, stays as it was.)
    }
    if (g.status() == v1::RESULT_STATUS_BYE) {
      Tally& a = tallies[g.first()];
      a.score += static_cast<int>(scoring.bye());
      a.provisional_score += static_cast<int>(scoring.bye());
      continue;
    }
    Tally& a = tallies[g.first()];
    Tally& b = tallies[g.second()];
    const bool counts = g.status() == v1::RESULT_STATUS_VERIFIED ||
                        g.status() == v1::RESULT_STATUS_RULED;
    if (!counts) final = false;
    if (g.status() == v1::RESULT_STATUS_MISSING) {
      ++a.missing;
      ++b.missing;
      continue;
    }
    const int vp = scoring.add_victory_points() ? 1 : 0;
    const int pa = Points(scoring, g.result(), true) +
                   vp * static_cast<int>(g.first_points());
    const int pb = Points(scoring, g.result(), false) +
                   vp * static_cast<int>(g.second_points());
    a.provisional_score += pa;
    b.provisional_score += pb;
    if (!counts) {
      ++a.provisional;
      ++b.provisional;
      continue;
    }
    a.score += pa;
    b.score += pb;
    ++a.played;
    ++b.played;
    a.opponents.push_back(g.second());
    b.opponents.push_back(g.first());
    a.against[g.second()] += pa;
    b.against[g.first()] += pb;
    a.points_for += g.first_points();
    a.points_against += g.second_points();
    b.points_for += g.second_points();
    b.points_against += g.first_points();
    switch (g.result()) {
      case v1::GAME_RESULT_KIND_FIRST_WINS:
        ++a.wins;
        ++b.losses;
        break;
      case v1::GAME_RESULT_KIND_SECOND_WINS:
        ++b.wins;
        ++a.losses;
        break;
      default:
        ++a.draws;
        ++b.draws;
        break;
    }
  }
  out.set_final(final);
  out.set_rulings(static_cast<std::uint32_t>(t.rulings_size()));
  if (!t.rulings().empty()) {
    out.set_last_ruling_hash(t.rulings().rbegin()->hash());
  }
  // Tie-breaks: opponents' score and points difference are the player's
  // own; head to head is among the players tied on score and the
  // tie-breaks before it, so it is worked out group by group below.
  std::vector<Tally*> order;
  for (auto& [id, tally] : tallies) {
    if (tally.player == nullptr) continue;
    for (int tb : scoring.tie_breaks()) {
      std::int64_t value = 0;
      if (tb == v1::TIE_BREAK_OPPONENTS_SCORE) {
        for (const std::string& o : tally.opponents) value += tallies[o].score;
      } else if (tb == v1::TIE_BREAK_POINTS_DIFFERENCE) {
        value = tally.points_for - tally.points_against;
      }
      tally.tie_breaks.push_back(value);
    }
    order.push_back(&tally);
  }
  // Head to head: for each of its places, among the players equal on the
  // score and every tie-break before it, each one's score against the
  // others of that group.
  for (int k = 0; k < scoring.tie_breaks_size(); ++k) {
    if (scoring.tie_breaks(k) != v1::TIE_BREAK_HEAD_TO_HEAD) continue;
    std::map<std::vector<std::int64_t>, std::vector<Tally*>> groups;
    for (Tally* tally : order) {
      std::vector<std::int64_t> key = {tally->score};
      key.insert(key.end(), tally->tie_breaks.begin(),
                 tally->tie_breaks.begin() + k);
      groups[key].push_back(tally);
    }
    for (auto& [key, group] : groups) {
      for (Tally* tally : group) {
        std::int64_t value = 0;
        for (Tally* other : group) {
          if (other == tally) continue;
          auto it = tally->against.find(other->player->id());
          if (it != tally->against.end()) value += it->second;
        }
        tally->tie_breaks[static_cast<std::size_t>(k)] = value;
      }
    }
  }
  std::sort(order.begin(), order.end(), [](const Tally* x, const Tally* y) {
    if (x->score != y->score) return x->score > y->score;
    if (x->tie_breaks != y->tie_breaks) return x->tie_breaks > y->tie_breaks;
    return x->order < y->order;
  });
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Tally& tally = *order[i];
    v1::TournamentStanding* s = out.add_standings();
    s->set_rank(static_cast<std::uint32_t>(i + 1));
    s->set_player(tally.player->id());
    s->set_name(tally.player->name());
    s->set_army(tally.player->army());
    s->set_score(static_cast<std::uint32_t>(tally.score));
    s->set_provisional_score(
        static_cast<std::uint32_t>(tally.provisional_score));
    s->set_played(static_cast<std::uint32_t>(tally.played));
    s->set_wins(static_cast<std::uint32_t>(tally.wins));
    s->set_draws(static_cast<std::uint32_t>(tally.draws));
    s->set_losses(static_cast<std::uint32_t>(tally.losses));
    for (std::int64_t v : tally.tie_breaks) s->add_tie_breaks(v);
    s->set_provisional(static_cast<std::uint32_t>(tally.provisional));
    s->set_missing(static_cast<std::uint32_t>(tally.missing));
  }
  for (v1::TournamentGameResult& g : games) *out.add_games() = std::move(g);
  return out;
}

absl::StatusOr<v1::TournamentRound> NextSwissRound(
    const LoadedTournament& tournament, const v1::TournamentStandings& s,
    int* rematches) {
  std::map<std::string, PairingPlayer> by_id;
  for (const v1::TournamentStanding& p : s.standings()) {
    by_id[p.player()].id = p.player();
    by_id[p.player()].score = static_cast<int>(p.score());
  }
  for (const v1::TournamentGameResult& g : s.games()) {
    if (g.second().empty()) {
      by_id[g.first()].had_bye = true;
      continue;
    }
    // A game that has not come was not played: its players have not met.
    // A disputed one was.
    if (g.status() == v1::RESULT_STATUS_MISSING) continue;
    by_id[g.first()].opponents.push_back(g.second());
    by_id[g.second()].opponents.push_back(g.first());
    ++by_id[g.first()].first_sides;
    ++by_id[g.second()].second_sides;
  }
  std::vector<PairingPlayer> players;
  for (const v1::TournamentStanding& p : s.standings()) {
    players.push_back(by_id[p.player()]);
  }
  absl::StatusOr<SwissRound> paired = PairSwiss(players);
  if (!paired.ok()) return paired.status();
  if (rematches != nullptr) *rematches = paired->rematches;
  const v1::Tournament& t = tournament.data;
  v1::TournamentRound round;
  round.set_number(static_cast<std::uint32_t>(t.rounds_size() + 1));
  round.set_ruleset(t.rounds().empty() ? std::string("daimyo")
                                       : t.rounds().rbegin()->ruleset());
  for (const Pairing& p : paired->pairings) {
    v1::TournamentGame* g = round.add_games();
    g->set_table(static_cast<std::uint32_t>(p.table));
    g->set_first(p.first);
    g->set_second(p.second);
  }
  return round;
}

}  // namespace gunbai::replay
