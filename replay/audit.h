// Audits a whole battle log, or replays it up to an event to show the state
// there. The entry points service/ calls. Thread-safe: each call owns its
// replay; the ruleset is only read.
#ifndef GUNBAI_REPLAY_AUDIT_H_
#define GUNBAI_REPLAY_AUDIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/state.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Replays every event of `log` under `ruleset` and returns the report: the
// findings in event order, the summary, the ruleset digest and the final
// state digest. Returns InvalidArgument when the header or order of battle
// makes replay impossible; broken rules are findings, never errors.
absl::StatusOr<gunbai::v1::AuditReport> AuditLog(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset);

// Replays `log` up to and including the event numbered `seq` (the whole log
// when absent) and returns the state there. Returns NotFound when no event
// has that number.
absl::StatusOr<gunbai::v1::BattleStateSnapshot> StateAt(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    std::optional<std::uint64_t> seq);

struct EventDigest {
  std::uint64_t seq = 0;
  std::string digest;
};

// Replays `log` and returns the state digest after every event.
absl::StatusOr<std::vector<EventDigest>> StateDigests(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset);

// Returns true when a report should fail a script: any violation, dispute or
// warning. Unverifiable findings alone do not fail.
bool ReportHasFailures(const gunbai::v1::AuditReport& report);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_AUDIT_H_
