// `gunbai generate`: writes a seeded random Daimyo game that audits clean,
// or the same kind of game with known faults planted and their manifest
// (see generate/game_generator.h). Thread-compatible.
#ifndef GUNBAI_SERVICE_CLI_GENERATE_CLI_H_
#define GUNBAI_SERVICE_CLI_GENERATE_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "service/common/cli_app.h"

namespace gunbai::service {

// Adds `gunbai generate` to `app`, running with `context` once the command
// line has parsed.
void AddGenerateCommand(CLI::App& app, CliContext& context);

// Runs `gunbai generate ...`; `args` starts after "generate". Writes the log
// to `out` (or to -o FILE) and the manifest of planted faults to --manifest
// FILE, or to `err` when faults are asked for and no manifest file is
// given. Returns 0 when the game was written, 2 for a bad command line or
// an output file that cannot be written.
int RunGenerateCli(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_GENERATE_CLI_H_
