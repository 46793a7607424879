// Whether each finding of an audit holds under every reading of the rules
// (an umpire's question: "would this stand if the players had agreed the
// other reading of being charged?"): the log is audited again under each
// other value of each of the ruleset's reading options (ReadingVariants,
// replay/coverage.h), and each finding of the audit in use notes the
// readings under which it is not found. Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_FINDING_READINGS_H_
#define GUNBAI_REPLAY_FINDING_READINGS_H_

#include "absl/status/status.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Audits `log` under every other reading of `ruleset`'s options and fills
// `report` (the audit of `log` under `ruleset`): each finding's
// not_under_readings, in option order then value order, and
// readings_checked and readings. A finding is the same under another
// reading when one of the same seq, severity, rule id and subject is
// found. Returns the error of a variant ruleset that does not load or an
// audit that cannot run.
absl::Status AddFindingReadings(const gunbai::v1::BattleLog& log,
                                const LoadedRuleset& ruleset,
                                gunbai::v1::AuditReport& report);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_FINDING_READINGS_H_
