// The verdict on an exported live game (`gunbai verify`): whether its chain
// holds, whether the head hashes its holder was given are in it, whether
// gunbaid would have stored each of its events, and, for a game whose dice
// gunbaid rolled, whether every die is the server's. The checks run in that
// order and the first problem is the verdict; the command line only reads
// the files and prints. Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_VERIFY_EXPORT_H_
#define GUNBAI_REPLAY_VERIFY_EXPORT_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

struct ExportVerdict {
  enum class Kind {
    // The chain holds, every head given is in it, and every event and die
    // is one gunbaid would have stored and rolled.
    kIntact,
    // The first problem found.
    kTampered,
    // Nothing is wrong yet, but the dice cannot be checked until game_end
    // reveals the server's secret.
    kIncomplete,
    // No verdict: the ruleset at hand cannot count the game's server dice,
    // so gunbaid did not play the game under it.
    kRulesetUnusable,
  };
  Kind kind = Kind::kIntact;
  // One line (without its newline): for kIntact the events, the head and
  // what was checked of the dice; for kTampered the reason; otherwise what
  // to do.
  std::string text;
};

// Returns the first of `heads` (each lowercase hex, the full hash or a
// prefix of it) that names neither `genesis` nor a hash of the export's
// chain, or an empty string when every one is in it. InvalidArgument for a
// prefix that names several hashes.
absl::StatusOr<std::string> HeadNotInChain(
    const gunbai::v1::ExportedGame& game, const std::string& genesis,
    const std::vector<std::string>& heads);

// Returns InvalidArgument, naming both and what to do, unless `chosen` is
// the ruleset `game` was played under: the one its header names (name, and
// version when the header gives one) and, when the game is bound to a
// ruleset digest, that digest. `described` names `chosen` in the message
// ("gunbai's built-in one", or the file's path) and `checking` says what
// needs the ruleset.
absl::Status CheckGamesRuleset(const gunbai::v1::ExportedGame& game,
                               const LoadedRuleset& chosen,
                               absl::string_view described,
                               absl::string_view checking);

// The ruleset an export is checked under, asked for only when the game
// needs one (its dice are the server's, or it is strict); `checking` says
// what for, for the messages. Its errors are returned by VerifyExport.
using ExportRulesetSource = absl::FunctionRef<absl::StatusOr<LoadedRuleset>(
    absl::string_view checking)>;

// The verdict on `game` given the head hashes `heads` (as HeadNotInChain).
// Returns an error status, not a verdict, when a head prefix is ambiguous or
// the ruleset cannot be had.
absl::StatusOr<ExportVerdict> VerifyExport(
    const gunbai::v1::ExportedGame& game, const std::vector<std::string>& heads,
    ExportRulesetSource ruleset);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_VERIFY_EXPORT_H_
