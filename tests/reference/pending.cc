#include "tests/reference/pending.h"

namespace gunbai::reference {

const std::vector<PendingReading>& PendingReadings() {
  // P1-P6 landed with the rule-gap fixes, P7 with reading 26 (e), and the
  // engine bugs this check found (E1, E3-E9; repro/) are fixed. Add a row only
  // for a reading under decision, with the rule ids it may explain.
  static const std::vector<PendingReading> kPending = {};
  return kPending;
}

std::string PendingTagFor(const std::map<std::string, std::uint64_t>& tags,
                          const std::string& rule_id, std::uint64_t seq) {
  for (const PendingReading& p : PendingReadings()) {
    auto it = tags.find(p.tag);
    if (it == tags.end() || seq < it->second) continue;
    for (const std::string& id : p.rule_ids)
      if (id == rule_id) return p.tag;
  }
  return "";
}

}  // namespace gunbai::reference
