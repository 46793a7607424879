// `gunbai diff`: replays a corpus of battle logs under two rulesets, or
// against saved reports, and prints what changed (gunbai.v1.LogDiff per log,
// in corpus order, then a gunbai.v1.DiffSummary); locally on a pool of
// workers, or through a gunbaid's AuditService.Diff. Also the pieces the
// daemon's Diff shares with it: the pool and the diff of an inline request.
//
// Thread-safety: RunDiffCli is thread-compatible; ParallelFor and
// DiffRequestLogs may be called from many threads at once.
#ifndef GUNBAI_SERVICE_DIFF_CLI_H_
#define GUNBAI_SERVICE_DIFF_CLI_H_

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/diff.pb.h"
#include "replay/diff.h"
#include "service/cli_app.h"

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

// Returns the number of workers `jobs` asks for: itself when positive, else
// one per core (std::thread::hardware_concurrency, at least 1).
int WorkerCount(int jobs);

// Runs `work(i)` for every i in [0, n) on up to WorkerCount(jobs) threads,
// handing the indices out in increasing order, and returns once every call
// has returned. Once a call returns false no further index is handed out.
void ParallelFor(std::size_t n, int jobs,
                 const std::function<bool(std::size_t)>& work);

// Computes the LogDiff of every log of `request` (AuditService.Diff) on
// WorkerCount(jobs) workers and calls `on_diff(index, diff)` for each as it
// finishes, one call at a time; stops handing out logs once `on_diff`
// returns false. An empty ruleset text means the built-in ruleset each
// log's header names. Returns InvalidArgument, before any log is replayed,
// when a ruleset does not parse or an old ruleset comes with
// compare_to_baselines.
absl::Status DiffRequestLogs(
    const gunbai::v1::DiffRequest& request, int jobs,
    const std::function<bool(std::size_t, gunbai::v1::LogDiff)>& on_diff);

// DiffRequestLogs for `logs` logs read as they are diffed (AuditService.Diff
// from the request's bytes): `settings` gives the rulesets and the mode
// (its own logs are not read), and `diff_log(i, sides)` returns the diff of
// log i, called on the workers. The same errors as DiffRequestLogs.
absl::Status DiffLogs(
    const gunbai::v1::DiffRequest& settings, std::size_t logs, int jobs,
    const std::function<gunbai::v1::LogDiff(
        std::size_t, const replay::DiffRulesets&)>& diff_log,
    const std::function<bool(std::size_t, gunbai::v1::LogDiff)>& on_diff);

// The diff DiffRequestLogs gives `input`, a log of a request in the mode
// `compare_to_baselines`, under `sides`.
gunbai::v1::LogDiff DiffOfInput(const gunbai::v1::DiffLogInput& input,
                                bool compare_to_baselines,
                                const replay::DiffRulesets& sides);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DIFF_CLI_H_
