#include "service/cli/tournament_cli.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/pairing.h"
#include "replay/ruleset_loader.h"
#include "replay/tournament.h"
#include "rules/digest.h"
#include "service/cli/cli_input.h"
#include "service/common/exit_codes.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kTournamentFooter[] =
    R"(The tournament desk. A tournament is a text file (proto/gunbai/v1/
tournament.proto): its name and version, the players and their armies, the
scoring (points for a win, draw, loss and bye, and the tie-breaks in
order), the rounds (each with its ruleset and its games: table, the player
on the log's first clan, the player on its second, the log's file), and the
umpire's rulings. service/README.md, "The tournament desk", has a whole
example.

  standings  audits every game under its round's ruleset and reads its
             result from the log itself; ranks the players on the
             verified, ruled and bye results only
  pair       pairs the next round: Swiss (adjacent in the standings, no
             rematch where one can be avoided, the bye to the lowest
             without one, sides balanced) or --round-robin
  rule       records the umpire's ruling on a game (the result stands, is
             changed, or the game is played again), chained to the rulings
             before it
  swap       swaps a pairing before its round starts, recorded with why

Examples:
  gunbai tournament standings spring.textproto
  gunbai tournament pair spring.textproto --append
  gunbai tournament rule spring.textproto --round 2 --table 3 \
      --ruling changed --result draw --note "seq 41 re-rolled; agreed draw"

Exit codes: standings: 0 final (every result verified, ruled or a bye), 1
some result disputed or missing (the standings say which); pair, rule and
swap: 0 done; 2 the file, a log or a ruleset cannot be read (the message says
where).)";

struct TournamentCliOptions {
  std::string path;
  std::string format = "text";
  // pair
  bool round_robin = false;
  bool append = false;
  // rule
  std::uint32_t round = 0;
  std::uint32_t table = 0;
  std::uint32_t other_table = 0;
  std::string ruling;
  std::string result;
  std::string note;
  std::string appellant;
  std::string appeal;
};

std::string Directory(const std::string& path) {
  const std::filesystem::path parent =
      std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

std::string Beside(const std::string& file, const std::string& relative) {
  if (std::filesystem::path(relative).is_absolute()) return relative;
  return (std::filesystem::path(Directory(file)) / relative).string();
}

absl::StatusOr<replay::LoadedTournament> ReadTournament(
    const std::string& path) {
  auto text = ReadInputFile(path);
  if (!text.ok()) return text.status();
  return replay::LoadTournament(*text, path);
}

absl::StatusOr<replay::LoadedRuleset> RoundRuleset(
    const std::string& tournament_path, const std::string& ruleset) {
  if (ruleset.find('/') == std::string::npos &&
      ruleset.find('.') == std::string::npos) {
    return replay::BuiltinRuleset(ruleset);
  }
  const std::string path = Beside(tournament_path, ruleset);
  auto text = ReadInputFile(path);
  if (!text.ok()) return text.status();
  return replay::LoadRuleset(*text, path);
}

// Every game of every round audited and read, its files found beside the
// tournament file, progress on stderr.
absl::StatusOr<std::vector<v1::TournamentGameResult>> ReadGames(
    const std::string& path, const replay::LoadedTournament& t,
    std::ostream& err) {
  replay::TournamentInputs inputs;
  inputs.log = [&path](const std::string& name) {
    return ReadInputFile(Beside(path, name));
  };
  inputs.ruleset = [&path](const std::string& name) {
    return RoundRuleset(path, name);
  };
  inputs.progress = [&err](int round, const v1::TournamentGame& game) {
    err << "auditing round " << round << ", table " << game.table() << ": "
        << game.log() << "\n";
  };
  auto games = replay::ReadTournamentGames(t, inputs);
  if (!games.ok()) {
    return absl::Status(games.status().code(),
                        absl::StrCat(path, ": ", games.status().message()));
  }
  return games;
}

std::string StatusWords(v1::ResultStatus s) {
  switch (s) {
    case v1::RESULT_STATUS_VERIFIED:
      return "verified";
    case v1::RESULT_STATUS_DISPUTED:
      return "DISPUTED (provisional)";
    case v1::RESULT_STATUS_MISSING:
      return "MISSING";
    case v1::RESULT_STATUS_RULED:
      return "ruled";
    case v1::RESULT_STATUS_BYE:
      return "bye";
    default:
      return "?";
  }
}

std::string ResultText(const v1::TournamentGameResult& g) {
  switch (g.result()) {
    case v1::GAME_RESULT_KIND_FIRST_WINS:
      return absl::StrCat(g.first(), " beat ", g.second());
    case v1::GAME_RESULT_KIND_SECOND_WINS:
      return absl::StrCat(g.second(), " beat ", g.first());
    case v1::GAME_RESULT_KIND_DRAW:
      return absl::StrCat(g.first(), " drew with ", g.second());
    default:
      return g.second().empty() ? absl::StrCat(g.first(), " has the bye")
                                : absl::StrCat(g.first(), " v ", g.second());
  }
}

std::string TieBreakName(int tb) {
  switch (tb) {
    case v1::TIE_BREAK_OPPONENTS_SCORE:
      return "opp";
    case v1::TIE_BREAK_POINTS_DIFFERENCE:
      return "vp+/-";
    case v1::TIE_BREAK_HEAD_TO_HEAD:
      return "h2h";
    default:
      return "?";
  }
}

std::string StandingsText(const v1::TournamentStandings& s) {
  std::string out =
      absl::StrCat(s.tournament(), ", version ", s.version(),
                   " (sha256:", s.digest().substr(0, 16), "...): standings ",
                   s.final() ? "final" : "PROVISIONAL", "\n");
  std::string header = "  rank  player            score  W-D-L";
  for (int tb : s.tie_breaks()) {
    absl::StrAppend(&header, absl::StrFormat("  %6s", TieBreakName(tb)));
  }
  absl::StrAppend(&out, header, "  not counted\n");
  for (const v1::TournamentStanding& p : s.standings()) {
    std::string line =
        absl::StrFormat("  %4d  %-16s  %5d  %d-%d-%d", p.rank(),
                        p.name().empty() ? p.player() : p.name(), p.score(),
                        p.wins(), p.draws(), p.losses());
    for (std::int64_t v : p.tie_breaks()) {
      absl::StrAppend(&line, absl::StrFormat("  %6d", v));
    }
    if (p.provisional() > 0) {
      absl::StrAppend(&line, "  ", p.provisional(), " disputed (score ",
                      p.provisional_score(), " should they stand)");
    }
    if (p.missing() > 0) absl::StrAppend(&line, "  ", p.missing(), " missing");
    absl::StrAppend(&out, line, "\n");
  }
  if (s.rulings() > 0) {
    absl::StrAppend(&out, "rulings: ", s.rulings(),
                    ", the last sha256:", s.last_ruling_hash(), "\n");
  }
  absl::StrAppend(&out, "games:\n");
  for (const v1::TournamentGameResult& g : s.games()) {
    absl::StrAppend(&out, "  round ", g.round(), " table ", g.table(), ": ",
                    ResultText(g), "  [", StatusWords(g.status()), "]");
    if (!g.log_sha256().empty()) {
      absl::StrAppend(&out, "  ", g.log(),
                      " sha256:", g.log_sha256().substr(0, 16));
    }
    absl::StrAppend(&out, "\n");
    if (!g.reason().empty()) absl::StrAppend(&out, "      ", g.reason(), "\n");
    for (const std::string& r : g.rulings()) {
      absl::StrAppend(&out, "      ", r, "\n");
    }
  }
  return out;
}

// A CSV field (RFC 4180): quoted when it holds a comma, quote or line end.
std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The standings as CSV, for a spreadsheet: a header row, then a player a
// row in rank order.
std::string StandingsCsv(const v1::TournamentStandings& s) {
  std::vector<std::string> header = {"rank",  "player", "name",  "army",
                                     "score", "wins",   "draws", "losses"};
  for (int tb : s.tie_breaks()) {
    header.push_back(v1::TieBreak_Name(static_cast<v1::TieBreak>(tb)));
  }
  for (const char* more : {"disputed", "provisional_score", "missing"}) {
    header.push_back(more);
  }
  std::string out = absl::StrCat(absl::StrJoin(header, ","), "\r\n");
  for (const v1::TournamentStanding& p : s.standings()) {
    std::vector<std::string> row = {
        absl::StrCat(p.rank()),  CsvField(p.player()),
        CsvField(p.name()),      CsvField(p.army()),
        absl::StrCat(p.score()), absl::StrCat(p.wins()),
        absl::StrCat(p.draws()), absl::StrCat(p.losses())};
    for (std::int64_t v : p.tie_breaks()) row.push_back(absl::StrCat(v));
    row.push_back(absl::StrCat(p.provisional()));
    row.push_back(absl::StrCat(p.provisional_score()));
    row.push_back(absl::StrCat(p.missing()));
    absl::StrAppend(&out, absl::StrJoin(row, ","), "\r\n");
  }
  return out;
}

std::string Json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

absl::Status AppendToFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::app | std::ios::binary);
  file << text;
  file.flush();
  if (!file)
    return absl::InternalError(absl::StrCat("cannot append to ", path));
  return absl::OkStatus();
}

int RunStandings(const TournamentCliOptions& o, std::ostream& out,
                 std::ostream& err) {
  auto t = ReadTournament(o.path);
  if (!t.ok()) {
    err << "gunbai tournament: " << t.status().message() << "\n";
    return kExitBadInput;
  }
  auto games = ReadGames(o.path, *t, err);
  if (!games.ok()) {
    err << "gunbai tournament: " << games.status().message() << "\n";
    return kExitBadInput;
  }
  const v1::TournamentStandings s = replay::Standings(*t, *std::move(games));
  out << (o.format == "json"  ? Json(s) + "\n"
          : o.format == "csv" ? StandingsCsv(s)
                              : StandingsText(s));
  return s.final() ? kExitClean : kExitFindings;
}

int RunPair(const TournamentCliOptions& o, std::ostream& out,
            std::ostream& err) {
  auto fail = [&err](const absl::Status& s) {
    err << "gunbai tournament pair: " << s.message() << "\n";
    return kExitBadInput;
  };
  auto t = ReadTournament(o.path);
  if (!t.ok()) return fail(t.status());
  const int next = t->data.rounds_size() + 1;
  v1::TournamentRound round;
  int rematches = 0;
  if (o.round_robin) {
    std::vector<std::string> ids;
    for (const v1::TournamentPlayer& p : t->data.players()) {
      ids.push_back(p.id());
    }
    const auto rounds = replay::RoundRobin(ids);
    if (next > static_cast<int>(rounds.size())) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "a round robin of ", ids.size(), " players has ", rounds.size(),
          " rounds; the tournament has played them all")));
    }
    round.set_number(static_cast<std::uint32_t>(next));
    round.set_ruleset(t->data.rounds().empty()
                          ? std::string("daimyo")
                          : t->data.rounds().rbegin()->ruleset());
    for (const replay::Pairing& p :
         rounds[static_cast<std::size_t>(next - 1)]) {
      v1::TournamentGame* g = round.add_games();
      g->set_table(static_cast<std::uint32_t>(p.table));
      g->set_first(p.first);
      g->set_second(p.second);
    }
  } else {
    auto games = ReadGames(o.path, *t, err);
    if (!games.ok()) return fail(games.status());
    const v1::TournamentStandings s = replay::Standings(*t, *std::move(games));
    if (!s.final()) {
      err << "gunbai tournament pair: note: the standings are provisional "
             "(disputed or missing results are not counted)\n";
    }
    auto paired = replay::NextSwissRound(*t, s, &rematches);
    if (!paired.ok()) return fail(paired.status());
    round = *std::move(paired);
  }
  if (rematches > 0) {
    err << "gunbai tournament pair: " << rematches
        << " rematch(es) could not be avoided\n";
  }
  if (o.format == "json") {
    out << Json(round) << "\n";
    return kExitClean;
  }
  const std::string block = replay::AppendedField("rounds", round);
  if (o.append) {
    absl::Status s = AppendToFile(o.path, block);
    if (!s.ok()) return fail(s);
    err << "gunbai tournament pair: round " << next << " appended to " << o.path
        << "\n";
  }
  out << block.substr(1);
  return kExitClean;
}

int RunSwap(const TournamentCliOptions& o, std::ostream& out,
            std::ostream& err) {
  auto fail = [&err](const absl::Status& s) {
    err << "gunbai tournament swap: " << s.message() << "\n";
    return kExitBadInput;
  };
  auto t = ReadTournament(o.path);
  if (!t.ok()) return fail(t.status());
  v1::PairingSwap swap;
  swap.set_round(o.round);
  swap.set_table(o.table);
  swap.set_other_table(o.other_table);
  swap.set_reason(o.note);
  auto recorded = replay::SwapPairing(*t, swap);
  if (!recorded.ok()) return fail(recorded.status());
  absl::Status s =
      AppendToFile(o.path, replay::AppendedField("swaps", *recorded));
  if (!s.ok()) return fail(s);
  auto again = ReadTournament(o.path);
  if (!again.ok()) return fail(again.status());
  out << "round " << recorded->round() << ": was " << recorded->was()
      << "; now " << recorded->now() << "\n";
  return kExitClean;
}

int RunRule(const TournamentCliOptions& o, std::ostream& out,
            std::ostream& err) {
  auto fail = [&err](const absl::Status& s) {
    err << "gunbai tournament rule: " << s.message() << "\n";
    return kExitBadInput;
  };
  auto t = ReadTournament(o.path);
  if (!t.ok()) return fail(t.status());
  v1::TournamentRuling ruling;
  ruling.set_round(o.round);
  ruling.set_table(o.table);
  ruling.set_appellant(o.appellant);
  ruling.set_appeal(o.appeal);
  ruling.set_note(o.note);
  static const std::map<std::string, v1::RulingKind> kKinds = {
      {"stands", v1::RULING_KIND_RESULT_STANDS},
      {"changed", v1::RULING_KIND_RESULT_CHANGED},
      {"replayed", v1::RULING_KIND_GAME_REPLAYED}};
  static const std::map<std::string, v1::GameResultKind> kResults = {
      {"first", v1::GAME_RESULT_KIND_FIRST_WINS},
      {"second", v1::GAME_RESULT_KIND_SECOND_WINS},
      {"draw", v1::GAME_RESULT_KIND_DRAW}};
  ruling.set_kind(kKinds.at(o.ruling));
  if (!o.result.empty()) ruling.set_result(kResults.at(o.result));
  // The game's log as it is now, recorded with the ruling: a ruling is on
  // that log, and spent once another is named.
  for (const v1::TournamentRound& round : t->data.rounds()) {
    if (round.number() != o.round) continue;
    for (const v1::TournamentGame& g : round.games()) {
      if (g.table() != o.table || g.log().empty()) continue;
      auto bytes = ReadInputFile(Beside(o.path, g.log()));
      if (bytes.ok()) ruling.set_log_sha256(base::Sha256Hex(*bytes));
    }
  }
  auto recorded = replay::AppendRuling(*t, ruling);
  if (!recorded.ok()) return fail(recorded.status());
  absl::Status s =
      AppendToFile(o.path, replay::AppendedField("rulings", *recorded));
  if (!s.ok()) return fail(s);
  // Read back: the file as written must load, its chain intact.
  auto again = ReadTournament(o.path);
  if (!again.ok()) return fail(again.status());
  out << "ruling " << recorded->number() << " recorded on round "
      << recorded->round() << ", table " << recorded->table()
      << " (sha256:" << recorded->hash().substr(0, 16) << "...)\n";
  return kExitClean;
}

}  // namespace

void AddTournamentCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<TournamentCliOptions>();
  CLI::App* tournament = app.add_subcommand(
      "tournament",
      "the tournament desk: standings only from verified results, the next "
      "round paired, the umpire's rulings recorded");
  tournament->footer(kTournamentFooter);
  tournament->require_subcommand(1);

  CLI::App* standings = tournament->add_subcommand(
      "standings",
      "audit every game and rank the players on verified, ruled and bye "
      "results (1: some result disputed or missing)");
  standings->add_option("FILE", o->path, "the tournament file")->required();
  standings
      ->add_option("--format", o->format,
                   "text (default), json (the standings and every game), or "
                   "csv (the standings, for a spreadsheet)")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  standings->callback([o, &context] {
    context.code = RunStandings(*o, context.out, context.err);
  });

  CLI::App* pair = tournament->add_subcommand(
      "pair", "pair the next round (Swiss on the standings, or round robin)");
  pair->add_option("FILE", o->path, "the tournament file")->required();
  pair->add_flag("--round-robin", o->round_robin,
                 "the next round of a round robin of every player (circle "
                 "method), instead of Swiss");
  pair->add_flag("--append", o->append,
                 "append the round to the file (its games have no log yet)");
  pair->add_option("--format", o->format,
                   "text (default: the round as the "
                   "file writes it) or json")
      ->check(CLI::IsMember({"text", "json"}));
  pair->callback(
      [o, &context] { context.code = RunPair(*o, context.out, context.err); });

  CLI::App* swap = tournament->add_subcommand(
      "swap",
      "swap a pairing before its round starts: the second sides of two "
      "tables exchanged, recorded with the reason");
  swap->add_option("FILE", o->path, "the tournament file")->required();
  swap->add_option("--round", o->round, "the round")->required();
  swap->add_option("--table", o->table, "one table")->required();
  swap->add_option("--with", o->other_table,
                   "the other table, whose second side changes places")
      ->required();
  swap->add_option("--reason", o->note, "why (recorded with the swap)")
      ->required();
  swap->callback(
      [o, &context] { context.code = RunSwap(*o, context.out, context.err); });

  CLI::App* rule = tournament->add_subcommand(
      "rule",
      "record the umpire's ruling on a game, appended to the file and "
      "chained to the rulings before it");
  rule->add_option("FILE", o->path, "the tournament file")->required();
  rule->add_option("--round", o->round, "the round")->required();
  rule->add_option("--table", o->table, "the table")->required();
  rule->add_option("--ruling", o->ruling,
                   "stands (the result stands), changed (with --result), or "
                   "replayed (the game is played again)")
      ->required()
      ->check(CLI::IsMember({"stands", "changed", "replayed"}));
  rule->add_option("--result", o->result,
                   "with --ruling changed: first, second (that side wins) or "
                   "draw")
      ->check(CLI::IsMember({"first", "second", "draw"}));
  rule->add_option("--note", o->note,
                   "the umpire's words, shown beside the "
                   "result");
  rule->add_option("--appellant", o->appellant, "who appealed (a player id)");
  rule->add_option("--appeal", o->appeal,
                   "what was appealed (a finding's seq and rule id, or the "
                   "result)");
  rule->callback(
      [o, &context] { context.code = RunRule(*o, context.out, context.err); });
}

}  // namespace gunbai::service
