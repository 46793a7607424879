#include "replay/coverage.h"

#include <set>

namespace gunbai::replay {

void RuleCoverage::Add(const gunbai::v1::AuditReport& report) {
  for (const gunbai::v1::Finding& f : report.findings()) ++counts_[f.rule_id()];
  std::set<std::string> ids;
  for (const gunbai::v1::Outcome& o : report.outcomes()) {
    ids.clear();
    for (const gunbai::v1::Term& t : o.trace()) {
      if (!t.rule_id().empty()) ids.insert(t.rule_id());
    }
    for (const std::string& id : ids) ++counts_[id];
  }
}

std::int64_t RuleCoverage::CountOf(const std::string& id) const {
  auto it = counts_.find(id);
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace gunbai::replay
