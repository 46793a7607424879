// The scenario rules every ruleset shares, as the text of their rules doc
// (each ruleset's own data and doc are embedded in its target: Daimyo's in
// rules/daimyo/engine.h, SKF's in rules/skf/engine.h).
#ifndef GUNBAI_RULES_BUILTIN_RULESETS_H_
#define GUNBAI_RULES_BUILTIN_RULESETS_H_

#include "absl/strings/string_view.h"

namespace gunbai::rules {

// Returns the text of rules/SCENARIO.md (victory by points, any ruleset),
// embedded at build time.
absl::string_view ScenarioRulesDoc();

// Returns the text of rules/procedures/pbem-default.textproto, the default
// error-resolution procedure (replay/remedy.h), embedded at build time.
absl::string_view DefaultProcedureText();

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_BUILTIN_RULESETS_H_
