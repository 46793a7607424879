// The readings the integrator is landing now. A disagreement in a situation
// that relies on one of them (Situation::pending_tags), under one of the
// rule ids listed for it, is "pending", not a failure. Shrink kPending as
// the readings land: a row removed turns its disagreements into failures.
#ifndef GUNBAI_TESTS_REFERENCE_PENDING_H_
#define GUNBAI_TESTS_REFERENCE_PENDING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gunbai::reference {

struct PendingReading {
  const char* tag;  // as in Situation::pending_tags
  const char* reading;
  std::vector<std::string> rule_ids;  // the findings it may explain
};

const std::vector<PendingReading>& PendingReadings();

// Returns the tag of the pending reading that explains a finding with
// `rule_id` at event `seq` in a situation relying on `tags` (tag -> first
// seq relying on it), or "" when none does.
std::string PendingTagFor(const std::map<std::string, std::uint64_t>& tags,
                          const std::string& rule_id, std::uint64_t seq);

}  // namespace gunbai::reference

#endif  // GUNBAI_TESTS_REFERENCE_PENDING_H_
