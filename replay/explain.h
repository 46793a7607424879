// How gunbai reads a rule, from its rules docs (`gunbai explain`, and the
// web app's links from a finding's rule id): the documented rules that an
// id or an id prefix names, with the passages that mention them.
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_EXPLAIN_H_
#define GUNBAI_REPLAY_EXPLAIN_H_

#include "absl/strings/string_view.h"
#include "gunbai/v1/rule_docs.pb.h"

namespace gunbai::replay {

struct RuleLookup {
  gunbai::v1::RuleExplanation answer;
  // True when `query` is a rule id some doc states or mentions (answer has
  // each doc's row for it with that doc's other passages about it, or, for
  // a doc without such a row, its passages); false for a list: every rule
  // (`list`), or every rule whose id starts with `query`.
  bool exact = false;
};

// Looks `query` up in every rules doc (rules::RulesDocs(): the scenario
// rules, then each plug-in's). With `list`, every documented rule. The
// answer is empty when nothing matches.
RuleLookup ExplainRule(absl::string_view query, bool list);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_EXPLAIN_H_
