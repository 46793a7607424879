// The `gunbai` command line: audit a battle log, show the state at an
// event, print the ruleset. Reads files; writes to the given streams so
// tests can run it in process. Thread-compatible.
#ifndef GUNBAI_SERVICE_CLI_H_
#define GUNBAI_SERVICE_CLI_H_

#include <ostream>
#include <string>
#include <vector>

namespace gunbai::service {

// Exit codes a script can rely on.
inline constexpr int kExitClean = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitServer = 3;

// Runs the CLI on `args` (without the program name) and returns the exit
// code. Results go to `out`, errors and progress to `err`.
int RunCli(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_H_
