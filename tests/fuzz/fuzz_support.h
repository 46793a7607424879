// What the fuzz targets share: the built-in rulesets, an audit of a log
// under the ruleset its header names (the way gunbai and gunbaid choose
// it), and an invariant check of the replayed state after every event.
// Thread-compatible: libFuzzer runs one input at a time.
#ifndef GUNBAI_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define GUNBAI_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <vector>

#include "gunbai/v1/battle_log.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"

namespace gunbai::fuzz {

// Returns the catalog of built-in rulesets (Daimyo and Samurai Knight
// Fever), loaded once; aborts when they do not load.
const replay::RulesetCatalog& BuiltinCatalog();

// Returns the sample games of tests/data (GUNBAI_TEST_DATA_DIR), read and
// parsed once; aborts when one does not parse.
const std::vector<gunbai::v1::BattleLog>& SampleLogs();

// Aborts (a crash libFuzzer reports) with `what` unless the state is
// consistent: every unit's stands between 0 and its starting stands,
// counters not negative, every index (a leader's unit, a charge's target, a
// melee's sides) naming a unit.
void CheckStateInvariants(const rules::BattleState& state);

// Audits `log` under the catalog's ruleset its header names, as gunbaid's
// AuditLog does: the whole audit with every outcome recorded, then a
// second replay event by event with CheckStateInvariants after each, and,
// when `impact` and the report holds disputes, the what-if branches.
// Errors (an unusable log) are fine; only a crash is a finding.
void AuditUnderHeaderRuleset(const gunbai::v1::BattleLog& log, bool impact);

}  // namespace gunbai::fuzz

#endif  // GUNBAI_TESTS_FUZZ_FUZZ_SUPPORT_H_
