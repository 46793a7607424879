#include "replay/explain.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "rules/engine.h"
#include "rules/rule_docs.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

v1::RuleMention ToProto(const rules::Mention& m) {
  v1::RuleMention out;
  out.set_path(std::string(m.path));
  out.set_section(m.section);
  out.set_text(m.text);
  return out;
}

v1::DocumentedRule ToProto(const rules::DocumentedRule& r) {
  v1::DocumentedRule out;
  out.set_id(r.id);
  out.set_ruleset(std::string(r.ruleset));
  out.set_severity(r.severity);
  out.set_text(r.text);
  out.set_path(std::string(r.path));
  out.set_section(r.section);
  return out;
}

}  // namespace

RuleLookup ExplainRule(absl::string_view query, bool list) {
  const std::vector<rules::RulesDoc> docs = rules::RulesDocs();
  // Each doc's table rows, read once.
  std::vector<std::vector<rules::DocumentedRule>> stated;
  for (const rules::RulesDoc& doc : docs) {
    stated.push_back(rules::DocumentedRules(doc));
  }
  RuleLookup lookup;
  v1::RuleExplanation& answer = lookup.answer;
  answer.set_query(std::string(query));
  if (list) {
    for (const auto& rows : stated) {
      for (const rules::DocumentedRule& rule : rows) {
        *answer.add_rules() = ToProto(rule);
      }
    }
    return lookup;
  }
  // The id itself: each doc's table row stating it, with that doc's other
  // passages about it; for a doc without such a row, its passages.
  for (std::size_t d = 0; d < docs.size(); ++d) {
    const rules::RulesDoc& doc = docs[d];
    bool has_row = false;
    for (const rules::DocumentedRule& rule : stated[d]) {
      if (rule.id != query) continue;
      has_row = true;
      v1::DocumentedRule* added = answer.add_rules();
      *added = ToProto(rule);
      for (const rules::Mention& m : rules::Mentions(doc, rule.id)) {
        if (absl::StartsWith(m.text, "|")) continue;  // Table rows.
        *added->add_mentions() = ToProto(m);
      }
    }
    if (has_row) continue;
    for (const rules::Mention& m : rules::Mentions(doc, query)) {
      *answer.add_mentions() = ToProto(m);
    }
  }
  lookup.exact = !answer.rules().empty() || !answer.mentions().empty();
  if (!lookup.exact) {
    // A prefix: every rule under it, a line each.
    for (const auto& rows : stated) {
      for (const rules::DocumentedRule& rule : rows) {
        if (absl::StartsWith(rule.id, query)) {
          *answer.add_rules() = ToProto(rule);
        }
      }
    }
  }
  return lookup;
}

}  // namespace gunbai::replay
