// `gunbai explain`: the documented reading of a rule id, from the rules docs
// embedded in the binary (rules/rule_docs.h). Thread-compatible.
#ifndef GUNBAI_SERVICE_CLI_EXPLAIN_CLI_H_
#define GUNBAI_SERVICE_CLI_EXPLAIN_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "service/common/cli_app.h"

namespace gunbai::service {

// Adds `gunbai explain` to `app`, running with `context` once the command
// line has parsed.
void AddExplainCommand(CLI::App& app, CliContext& context);

// Runs `gunbai explain ...`; `args` starts after "explain". Returns 0 when
// the rule (or a rule under the prefix) is documented, 2 for a bad command
// line or an id no doc states.
int RunExplainCli(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_EXPLAIN_CLI_H_
