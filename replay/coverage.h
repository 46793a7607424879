// Rule coverage of a corpus (gunbai generate --coverage): how often each rule
// id was exercised, that is, named by a finding or by a term of an outcome's
// trace (a factor that applied, a modifier, a hit, a morale result). An id
// that no game exercised is a rule the corpus never tested. And how often
// each reading option mattered: the games whose outcomes change when the
// option takes another value.
// Thread-compatible: one RuleCoverage per corpus.
#ifndef GUNBAI_REPLAY_COVERAGE_H_
#define GUNBAI_REPLAY_COVERAGE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gunbai/v1/diff.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

class RuleCoverage {
 public:
  // Counts the rule ids of `report` (audited with outcomes recorded): each
  // finding once, each outcome once for every distinct id in its trace
  // (a term's rule and, for a fact measured on the table, the table rule
  // that measured it: Term.measured_by), and
  // game.victory.winner once when a scored scenario decided a winner.
  void Add(const gunbai::v1::AuditReport& report);

  // Returns the count of every id seen, by id.
  const std::map<std::string, std::int64_t>& counts() const { return counts_; }
  // Returns how many times `id` was exercised (0 when never).
  std::int64_t CountOf(const std::string& id) const;

 private:
  std::map<std::string, std::int64_t> counts_;
};

// One reading option of a ruleset (a field of its `options`) set to a value
// other than the one in use: the ruleset to replay a corpus under to see
// where the choice of reading matters.
struct ReadingVariant {
  std::string option;  // e.g. "leader_roll_stands"
  std::string in_use;  // the value in the ruleset, e.g. "true"
  std::string
      alternative;  // the other value, e.g. "LEADER_ROLL_STANDS_AT_THE_ROLL"
  LoadedRuleset ruleset;  // `base` with the alternative
  // Over the corpus: games whose outcomes the alternative changes, and the
  // events that change (direct and knock-on, up to where the games part).
  std::int64_t games_changed = 0;
  std::int64_t events_changed = 0;
};

// Returns every reading option of `base` with each alternative value: a
// boolean flipped, an enum set to each other named value (not the
// unspecified zero), in field order then value order.
absl::StatusOr<std::vector<ReadingVariant>> ReadingVariants(
    const LoadedRuleset& base);

// Counts `diff` (a game replayed under the base ruleset and under
// `variant`'s, gunbai diff's DiffUnderRulesets) into `variant`.
void CountReadingDiff(const gunbai::v1::LogDiff& diff, ReadingVariant& variant);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_COVERAGE_H_
