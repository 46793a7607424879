// The live-game commands of the `gunbai` CLI: `gunbai game create|append|
// show|watch|export|audit` against a gunbaid, and the offline `gunbai
// verify` of an exported game. Thread-compatible.
#ifndef GUNBAI_SERVICE_CLI_GAME_CLI_H_
#define GUNBAI_SERVICE_CLI_GAME_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "service/common/cli_app.h"

namespace gunbai::service {

// Adds `gunbai game create|append|show|watch|export|audit` to `app`, each
// running with `context` once the command line has parsed.
void AddGameCommands(CLI::App& app, CliContext& context);

// Adds `gunbai verify GAME` to `app`.
void AddVerifyCommand(CLI::App& app, CliContext& context);

// Runs `gunbai game ...` (RunCli); `args` starts after "game". Returns the
// exit code.
int RunGameCli(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);

// Runs `gunbai verify FILE` (RunCli); `args` starts after "verify". Returns 0
// when the chain (and, for server dice, every die and the secret) checks out, 1
// when something was tampered with, 2 for unusable input or a server-dice
// game whose secret is not revealed yet (no verdict on its dice).
int RunVerifyCli(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_GAME_CLI_H_
