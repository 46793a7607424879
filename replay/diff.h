// Compares two audits of one battle log, for `gunbai diff` and
// AuditService.Diff: which outcomes the engine works out differently (keyed
// by seq, subject and kind), which findings appear or disappear (keyed by
// seq, severity, rule id, subject, claimed and computed), and whether the
// end of the game changed. The two audits are of the log under two rulesets
// (a rules author's change), or of the log now against a saved report (a
// new gunbai release against the last one's reports).
//
// No I/O: reports and logs in, gunbai.v1.LogDiff out. Thread-safe: the
// functions share nothing; a DiffTally is thread-compatible.
#ifndef GUNBAI_REPLAY_DIFF_H_
#define GUNBAI_REPLAY_DIFF_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/diff.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Returns true when `report` carries every outcome of its audit: it says so
// (outcomes_recorded), or, saved before that field, it has outcomes.
bool OutcomesRecorded(const gunbai::v1::AuditReport& report);

// Returns what changed from `old_report` to `new_report`, two audits of the
// same log, with status SAME or CHANGED. Outcomes are compared unless
// `new_report` recorded them and `old_report` did not (a baseline saved
// without --outcomes; OutcomesRecorded); the result unless `old_report` has
// none; the final state unless `old_report` has no digest. `name` names the
// log.
gunbai::v1::LogDiff DiffReports(absl::string_view name,
                                const gunbai::v1::AuditReport& old_report,
                                const gunbai::v1::AuditReport& new_report);

// Returns a LogDiff of status FAILED for the log `name`, whose error is
// `status`'s message.
gunbai::v1::LogDiff FailedLogDiff(absl::string_view name,
                                  const absl::Status& status);

// The rulesets of the two sides of a diff. A null one means the built-in
// ruleset each log's header names, taken from `builtin`.
struct DiffRulesets {
  const LoadedRuleset* old_ruleset = nullptr;
  const LoadedRuleset* new_ruleset = nullptr;
  // Must be set when either ruleset is null; only read.
  const RulesetCatalog* builtin = nullptr;
};

// Audits `log` under both sides of `rulesets`, outcomes recorded, and
// returns DiffReports of the two. A log that cannot be replayed (unusable
// order of battle, a ruleset of another name) gives status FAILED.
//
// When `branch_log` is not null it receives the new side's game written out
// as a log (gunbai diff --branch-out): its claims the outcomes the new
// ruleset worked out, its header naming the new ruleset, cut before the
// event where the two games part; auditing it under the new ruleset finds
// no dispute of the new side's own.
gunbai::v1::LogDiff DiffUnderRulesets(
    absl::string_view name, const gunbai::v1::BattleLog& log,
    const DiffRulesets& rulesets, gunbai::v1::BattleLog* branch_log = nullptr);

// Audits `log` under the new side of `rulesets` (outcomes recorded only when
// `baseline` has some) and returns DiffReports(baseline, audit), with
// outcomes_compared false when `baseline` has no outcomes. With a null
// `baseline` the log is not replayed: status NO_BASELINE.
gunbai::v1::LogDiff DiffAgainstBaseline(absl::string_view name,
                                        const gunbai::v1::BattleLog& log,
                                        const gunbai::v1::AuditReport* baseline,
                                        const DiffRulesets& rulesets);

// DiffUnderRulesets and DiffAgainstBaseline of the binary log `log_bytes`,
// read from its bytes a pass at a time (replay/log_bytes.h), never parsed
// whole: the same LogDiff, byte for byte, as for the log parsed from them.
// `recursion_limit` is that of ReadLogBytesHead. Returns FailedPrecondition
// when the bytes are not read that way (ReadLogBytesHead says why): the
// caller parses the log and calls the function above.
absl::StatusOr<gunbai::v1::LogDiff> DiffUnderRulesetsOfBytes(
    absl::string_view name, absl::string_view log_bytes, int recursion_limit,
    const DiffRulesets& rulesets);
absl::StatusOr<gunbai::v1::LogDiff> DiffAgainstBaselineOfBytes(
    absl::string_view name, absl::string_view log_bytes, int recursion_limit,
    const gunbai::v1::AuditReport* baseline, const DiffRulesets& rulesets);

// Adds up the LogDiffs of a corpus into a DiffSummary. The summary depends
// only on which diff was added at which position, not on the order of the
// calls, so a pool of workers may add them as they finish.
class DiffTally {
 public:
  // Adds `diff`, the log at `position` in the corpus.
  void Add(std::size_t position, const gunbai::v1::LogDiff& diff);

  // Returns the totals so far: names in corpus order, rule ids sorted.
  gunbai::v1::DiffSummary Summary() const;

  // Returns true when some compared log changed.
  bool AnyChanged() const { return summary_.logs_changed() > 0; }
  // Returns true when some log failed.
  bool AnyFailed() const { return !failed_.empty(); }

 private:
  gunbai::v1::DiffSummary summary_;
  std::map<std::string, gunbai::v1::RuleFindingChanges> by_rule_;
  std::map<std::string, gunbai::v1::OutcomeKindChanges> by_kind_;
  std::map<std::size_t, std::string> no_baseline_;
  std::map<std::size_t, gunbai::v1::FailedLog> failed_;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_DIFF_H_
