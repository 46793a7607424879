// `gunbai diff`: replays a corpus of battle logs under two rulesets, or
// against saved reports, and prints what changed (gunbai.v1.LogDiff per log,
// in corpus order, then a gunbai.v1.DiffSummary); locally on a pool of
// workers, or through a gunbaid's AuditService.Diff (the pool and the diffs
// both run are replay/corpus.h's).
//
// Thread-safety: RunDiffCli is thread-compatible.
#ifndef GUNBAI_SERVICE_CLI_DIFF_CLI_H_
#define GUNBAI_SERVICE_CLI_DIFF_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "service/common/cli_app.h"

namespace gunbai::service {

// Adds `gunbai diff` to `app`, running with `context` once the command
// line has parsed.
void AddDiffCommand(CLI::App& app, CliContext& context);

// Runs `gunbai diff ...`; `args` starts after "diff". Results go to `out`;
// errors and progress to `err` (a progress bar when `err` is std::cerr on a
// terminal). Returns 0 when nothing changed, 1 when something changed, 2
// for bad usage or a log or baseline that could not be read (the others are
// still compared), 3 when the daemon could not be reached.
int RunDiffCli(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_DIFF_CLI_H_
