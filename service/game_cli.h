// The live-game commands of the `gunbai` CLI: `gunbai game create|append|
// show|watch|export|audit` against a gunbaid, and the offline `gunbai
// verify` of an exported game. Thread-compatible.
#ifndef GUNBAI_SERVICE_GAME_CLI_H_
#define GUNBAI_SERVICE_GAME_CLI_H_

#include <ostream>
#include <string>
#include <vector>

namespace gunbai::service {

// Runs `gunbai game ...`; `args` starts after "game". Returns the exit code.
int RunGameCli(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);

// Runs `gunbai verify FILE`; `args` starts after "verify". Returns 0 when
// the chain (and, for server dice, every die and the secret) checks out, 1
// when something was tampered with, 2 for unusable input or a server-dice
// game whose secret is not revealed yet (no verdict on its dice).
int RunVerifyCli(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_GAME_CLI_H_
