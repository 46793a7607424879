// Helpers for the Samurai Knight Fever tests: the shipped example tables,
// and finding lookups.
#ifndef GUNBAI_TESTS_SKF_SKF_TEST_UTIL_H_
#define GUNBAI_TESTS_SKF_SKF_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/skf/tables.h"
#include "rules/types.h"

namespace gunbai::testing {

// Returns the shipped rules/skf/skf.textproto, parsed.
gunbai::v1::Ruleset ExampleRuleset();

// Returns the shipped example tables in domain form.
rules::skf::Tables ExampleTables();

// Returns the rule ids of `findings`, in order.
std::vector<std::string> RuleIds(const std::vector<rules::Finding>& findings);

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_SKF_SKF_TEST_UTIL_H_
