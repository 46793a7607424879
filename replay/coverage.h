// Rule coverage of a corpus (gunbai generate --coverage): how often each rule
// id was exercised, that is, named by a finding or by a term of an outcome's
// trace (a factor that applied, a modifier, a hit, a morale result). An id
// that no game exercised is a rule the corpus never tested.
// Thread-compatible: one RuleCoverage per corpus.
#ifndef GUNBAI_REPLAY_COVERAGE_H_
#define GUNBAI_REPLAY_COVERAGE_H_

#include <cstdint>
#include <map>
#include <string>

#include "gunbai/v1/report.pb.h"

namespace gunbai::replay {

class RuleCoverage {
 public:
  // Counts the rule ids of `report` (audited with outcomes recorded): each
  // finding once, and each outcome once for every distinct id in its trace.
  void Add(const gunbai::v1::AuditReport& report);

  // Returns the count of every id seen, by id.
  const std::map<std::string, std::int64_t>& counts() const { return counts_; }
  // Returns how many times `id` was exercised (0 when never).
  std::int64_t CountOf(const std::string& id) const;

 private:
  std::map<std::string, std::int64_t> counts_;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_COVERAGE_H_
