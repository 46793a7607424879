// The tournament desk (`gunbai tournament`): a tournament file
// (proto/gunbai/v1/tournament.proto) read and checked, each game's result
// read from its own audited log, the umpire's chained rulings applied, and
// standings that count only verified, ruled and bye results.
//
// The result of a game is the rules' own: under a scenario with a victory
// condition by points, the winner its points give (no winner at the end of
// the log: a draw); without one, a draw, since the rules name no winner.
// A `game_end` that claims a winner the rules do not give makes the result
// disputed (the umpire rules), as a violation or a dispute anywhere in the
// audit does.
//
// Thread-compatible: functions only.
#ifndef GUNBAI_REPLAY_TOURNAMENT_H_
#define GUNBAI_REPLAY_TOURNAMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/tournament.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// The most players and rounds a tournament file may have: far above any
// event, and low enough that pairing and standings stay cheap for any file
// a client of gunbaid may send.
inline constexpr int kMaxTournamentPlayers = 10'000;
inline constexpr int kMaxTournamentRounds = 1'000;
// The most log bytes one reading of a tournament audits: past it, a game
// is disputed, not audited.
inline constexpr std::int64_t kMaxTournamentAuditBytes = std::int64_t{1} << 30;

struct LoadedTournament {
  gunbai::v1::Tournament data;
  // SHA-256 of the file's deterministic serialization, lowercase hex.
  std::string digest;
};

// Parses `text` (a tournament in text format; `source` names it in errors)
// and checks it: a name and version; players with unique, non-empty ids;
// the swaps applied, in order (each to two tables of a round whose games
// name no log yet);
// rounds numbered 1, 2, ... with a ruleset; in each round, tables unique
// and every player named a player, in at most one game; every ruling of a
// round and table that exist, numbered in order, its chain intact. Errors
// say where (the player, round, table or ruling) and what to do.
absl::StatusOr<LoadedTournament> LoadTournament(absl::string_view text,
                                                absl::string_view source);

// The hash a ruling carries: SHA-256 over the previous hash's bytes and the
// ruling's deterministic serialization with `hash` cleared.
std::string RulingHash(const gunbai::v1::TournamentRuling& ruling);

// Appends `ruling` to `tournament`: numbers it, chains it to the last and
// hashes it. Refuses a round or table the tournament does not have, and a
// RULING_KIND_RESULT_CHANGED without a result.
absl::StatusOr<gunbai::v1::TournamentRuling> AppendRuling(
    LoadedTournament& tournament, gunbai::v1::TournamentRuling ruling);

// `message` in text format as a field `name` of the tournament file, to
// append to it: "\nname {\n  ...\n}\n".
std::string AppendedField(absl::string_view name,
                          const google::protobuf::Message& message);

// Swaps the second sides of two tables of a round that has not started at
// them (`swap`'s round, table and other_table), and records the swap in
// `tournament` with what was paired and what now is, in words. Returns the
// swap as recorded, to be appended to the file.
absl::StatusOr<gunbai::v1::PairingSwap> SwapPairing(
    LoadedTournament& tournament, gunbai::v1::PairingSwap swap);

// The result of game `game` of round `round` read from its log and the
// log's audit under the round's ruleset: verified, or disputed with the
// reason, and the result (the rules' one; disputed, the log's claim when
// it makes one). `log_sha256` is recorded. Also disputed: a log whose
// header names a clan's player other than the pairing's (by id or name).
gunbai::v1::TournamentGameResult ResultFromAudit(
    const LoadedTournament& tournament, int round,
    const gunbai::v1::TournamentGame& game, const gunbai::v1::BattleLog& log,
    const gunbai::v1::AuditReport& report);

// The result of a game whose log is absent (no log named) or could not be
// read or audited (`error`, in words): missing or disputed.
gunbai::v1::TournamentGameResult ResultWithoutAudit(
    int round, const gunbai::v1::TournamentGame& game,
    const std::string& error);

// Where the desk finds what a tournament names: the CLI reads files beside
// the tournament file, gunbaid the files sent with the request.
struct TournamentInputs {
  // The bytes of the file a game's `log` names.
  std::function<absl::StatusOr<std::string>(const std::string& name)> log;
  // The ruleset a round names (a built-in name, or a file).
  std::function<absl::StatusOr<LoadedRuleset>(const std::string& name)> ruleset;
  // Told before each game is audited (progress); may be empty.
  std::function<void(int round, const gunbai::v1::TournamentGame& game)>
      progress;
  // Asked between games; true stops the reading (Cancelled). May be empty.
  std::function<bool()> cancelled;
};

// Every game of every round read: its log fetched, parsed, audited under
// the round's ruleset (each ruleset read once, each round's reading made
// once; at most kMaxTournamentAuditBytes of logs in all) and its result read
// (ResultFromAudit); a log that
// cannot be had, parsed or audited, or that is played under another
// ruleset than its round's, is disputed with the reason. Errors: a round's
// ruleset that cannot be had (InvalidArgument naming the round), and
// Cancelled.
absl::StatusOr<std::vector<gunbai::v1::TournamentGameResult>>
ReadTournamentGames(const LoadedTournament& tournament,
                    const TournamentInputs& inputs);

// The standings from the games' results (every game of every round, in
// the file's order; byes need none): the rulings applied (the last ruling
// on a game decides it), scores from verified, ruled and bye results,
// provisional scores with the disputed ones, tie-breaks in the scoring's
// order, ranks (equal players share no rank: the file's player order
// settles what the tie-breaks leave). The same inputs give the same bytes.
gunbai::v1::TournamentStandings Standings(
    const LoadedTournament& tournament,
    std::vector<gunbai::v1::TournamentGameResult> games);

// The next round (numbered after the file's last, under its last round's
// ruleset, "daimyo" before any) as the Swiss system of replay/pairing.h
// pairs it on `standings`: the players in their rank, with the opponents,
// sides and byes of the games the standings list (a missing game was not
// played; a disputed one was). `rematches` (optional)
// receives how many pairs met before.
absl::StatusOr<gunbai::v1::TournamentRound> NextSwissRound(
    const LoadedTournament& tournament,
    const gunbai::v1::TournamentStandings& standings, int* rematches);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_TOURNAMENT_H_
