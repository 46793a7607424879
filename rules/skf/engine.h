// The Samurai Knight Fever ruleset's plug-in entry points (rules/engine.h):
// the check of its data (gunbai.v1.SkfRules, the umpire's tables) and the
// engine that replays a log under page 6 of the rules (rules/skf/RULES.md).
// The pure rules are in rules/skf/melee.h and rules/skf/morale.h; this is
// the adapter from the log's proto messages to them. Thread-safe: functions
// only (each Engine is thread-compatible).
#ifndef GUNBAI_RULES_SKF_ENGINE_H_
#define GUNBAI_RULES_SKF_ENGINE_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/engine.h"
#include "rules/skf/tables.h"

namespace gunbai::rules {

// Returns the text of rules/skf/skf.textproto, embedded at build time.
absl::string_view SkfRulesetText();

}  // namespace gunbai::rules

namespace gunbai::rules::skf {

// Converts the umpire's tables to domain form. Returns InvalidArgument
// naming `source` and the field (e.g. "skf.odds_columns[1].own") when a
// value is out of range or repeated.
absl::StatusOr<Tables> TablesFromProto(const gunbai::v1::SkfRules& data,
                                       absl::string_view source);

// Checks the skf section of a ruleset file (RulesetPlugin::validate).
absl::Status ValidateSkfRuleset(const gunbai::v1::Ruleset& data,
                                absl::string_view source);

// Builds the engine for `log` (RulesetPlugin::create). Returns
// InvalidArgument naming the unit or leader when the order of battle is
// unusable, or the field when `data` does not validate.
absl::StatusOr<std::unique_ptr<Engine>> CreateSkfEngine(
    const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
    const EngineOptions& options, EngineOutput output);

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_ENGINE_H_
