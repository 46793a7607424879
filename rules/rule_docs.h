// Reading the rules docs (rules/*/RULES.md, rules/SCENARIO.md) for
// `gunbai explain`: the rule ids each documents, with the text, severity and
// section of the table row that states the rule, and every passage that
// mentions an id. The docs are embedded in the binaries, so what `gunbai
// explain` prints is what the repository documents, word for word.
// Thread-safe: functions only.
#ifndef GUNBAI_RULES_RULE_DOCS_H_
#define GUNBAI_RULES_RULE_DOCS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace gunbai::rules {

// One rules doc: its path in the repository (for the reader to open), the
// ruleset it belongs to ("" for every ruleset) and its text.
struct RulesDoc {
  absl::string_view path;
  absl::string_view ruleset;
  absl::string_view text;
};

// A rule id stated in a table row of a doc: a row of a Markdown table whose
// header's first cell is "id" or "rule id", and whose first cell holds the
// id in backquotes (several ids may share a row).
struct DocumentedRule {
  std::string id;
  std::string severity;  // From a "severity" column; empty without one.
  // The row's other cells: the rule, or, in a table of several columns,
  // each as "column: value" joined by "; ".
  std::string text;
  std::string section;  // The heading above the table.
  absl::string_view path;
  absl::string_view ruleset;
};

// A passage that mentions an id in backquotes: a table row, or a paragraph
// or list item (its lines joined with spaces).
struct Mention {
  std::string section;
  std::string text;
  absl::string_view path;
};

// Every rule stated in a table row of `doc`, in the doc's order.
std::vector<DocumentedRule> DocumentedRules(const RulesDoc& doc);

// Every passage of `doc` that mentions `id` (as `id`), in the doc's order.
std::vector<Mention> Mentions(const RulesDoc& doc, absl::string_view id);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_RULE_DOCS_H_
