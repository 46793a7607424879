// The rulesets shipped with gunbai, as the text of their data files and
// rules docs.
#ifndef GUNBAI_RULES_BUILTIN_RULESETS_H_
#define GUNBAI_RULES_BUILTIN_RULESETS_H_

#include "absl/strings/string_view.h"

namespace gunbai::rules {

// Returns the text of rules/daimyo/daimyo.textproto, embedded at build time.
absl::string_view DaimyoRulesetText();

// Returns the text of rules/daimyo/RULES.md, embedded at build time.
absl::string_view DaimyoRulesDoc();

// Returns the text of rules/SCENARIO.md (victory by points, any ruleset),
// embedded at build time.
absl::string_view ScenarioRulesDoc();

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_BUILTIN_RULESETS_H_
