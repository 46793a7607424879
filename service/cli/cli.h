// The `gunbai` command line: audit a battle log, show the state at an
// event, print the ruleset. Reads files; writes to the given streams so
// tests can run it in process. Thread-compatible.
#ifndef GUNBAI_SERVICE_CLI_CLI_H_
#define GUNBAI_SERVICE_CLI_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "service/common/exit_codes.h"

namespace gunbai::service {

// Runs the CLI on `args` (without the program name) and returns the exit
// code. Results go to `out`, errors and progress to `err`.
int RunCli(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_CLI_H_
