// An audit under every combination of a ruleset's reading options
// (`gunbai audit --all-readings`): which findings hold whatever the players
// agreed, and which only under some readings, named.
//
// The combinations share one replay until a reading is first consulted
// where the readings could differ (rules/reading_probe.h): the replay then
// forks, one branch for each value of each option consulted, each branch
// standing for every combination of the options it has not consulted yet.
// A new branch is resumed from the last mark of the branch it leaves (an
// engine checkpoint taken every kMarkEvery events), so it replays only the
// events since that mark. A game in which no reading is ever consulted
// costs one audit and a mark every kMarkEvery events.
//
// Thread-compatible: functions only; the probe is per thread.
#ifndef GUNBAI_REPLAY_ALL_READINGS_H_
#define GUNBAI_REPLAY_ALL_READINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Events between two marks of a branch.
inline constexpr int kMarkEvery = 64;

// One reading option of a ruleset and its values, the one in use first.
struct ReadingOption {
  std::string name;  // e.g. "being_charged_lasts"
  int field_number = 0;
  // Value names: "true"/"false", or the enum value names (not the
  // UNSPECIFIED zero, which reads as the value numbered 1).
  std::vector<std::string> values;
};

// One branch: the combinations that behaved alike through the whole log.
struct ReadingBranch {
  // For each option (AllReadingsAudit::options), the index of its value in
  // this branch, or -1 when the branch never consulted it (any value).
  std::vector<int> fixed;
  // The audit under the branch's readings (the free options at the values
  // in use).
  gunbai::v1::AuditReport report;
  // How many combinations the branch stands for.
  std::uint64_t combinations = 1;
};

struct AllReadingsAudit {
  std::vector<ReadingOption> options;
  // branches[0] holds the ruleset's own readings; the others in the order
  // they forked.
  std::vector<ReadingBranch> branches;
  // Every combination: the product of the options' value counts.
  std::uint64_t combinations = 1;
  // Events applied over all branches, replays from marks included (the
  // cost: one audit applies the log's events once).
  std::int64_t events_applied = 0;
};

// Returns the reading options of `ruleset` (its options message's bool and
// enum fields, in field order).
std::vector<ReadingOption> ReadingOptionsOf(const LoadedRuleset& ruleset);

// Returns `base` with each option i set to value `values[i]` (an index into
// options[i].values; -1 keeps the value in use), its digest recomputed.
LoadedRuleset RulesetWithReadings(const LoadedRuleset& base,
                                  const std::vector<ReadingOption>& options,
                                  const std::vector<int>& values);

// Audits `log` under every combination of `ruleset`'s reading options.
// Returns the errors of AuditLog, and Internal should the engine have no
// checkpoints while a reading forks.
absl::StatusOr<AllReadingsAudit> AuditAllReadings(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    const AuditOptions& options = AuditOptions());

// Returns the words for a branch's readings: "option = VALUE, ..." for each
// fixed option; "" for a branch that fixed none.
std::string BranchReadings(const AllReadingsAudit& audit,
                           const ReadingBranch& branch);

// Fills `report` (the audit under `ruleset` as it stands: audit.branches[0]
// report) with the all-readings labels: for each finding, the combinations
// it is found under and, when not all, the branches' readings; the
// findings only other readings give, in other_reading_findings labeled
// alike; all_readings_checked, reading_combinations, reading_branches. A
// finding is the same in two branches when its seq, severity, rule id and
// subject are.
void LabelAllReadings(const AllReadingsAudit& audit,
                      gunbai::v1::AuditReport& report);

// Returns true when a labeled report should fail a script: a violation,
// dispute or warning found under every reading, or (`any_reading`) under
// any, other readings' findings included.
bool AllReadingsHaveFailures(const gunbai::v1::AuditReport& report,
                             bool any_reading);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_ALL_READINGS_H_
