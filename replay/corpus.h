// Work over a corpus of battle logs, shared by `gunbai` and gunbaid: a
// parallel map over a corpus on a pool of workers, and the diffs of a
// DiffRequest's logs (the CLI's `gunbai diff` and the daemon's
// AuditService.Diff run the same code).
//
// No I/O of its own. Thread-safe: ParallelFor and the diff functions may be
// called from many threads at once; each call's `work` or `on_diff` is the
// caller's to make safe (DiffLogs calls `on_diff` one call at a time).
#ifndef GUNBAI_REPLAY_CORPUS_H_
#define GUNBAI_REPLAY_CORPUS_H_

#include <cstddef>
#include <functional>

#include "absl/status/status.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/diff.pb.h"
#include "replay/diff.h"

namespace gunbai::replay {

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
    const std::function<gunbai::v1::LogDiff(std::size_t, const DiffRulesets&)>&
        diff_log,
    const std::function<bool(std::size_t, gunbai::v1::LogDiff)>& on_diff);

// The diff DiffRequestLogs gives `input`, a log of a request in the mode
// `compare_to_baselines`, under `sides`.
gunbai::v1::LogDiff DiffOfInput(const gunbai::v1::DiffLogInput& input,
                                bool compare_to_baselines,
                                const DiffRulesets& sides);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_CORPUS_H_
