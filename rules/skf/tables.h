// The Samurai Knight Fever tables in domain terms: what the umpire supplies
// where page 6 of the rules is silent (gunbai.v1.SkfRules, converted by
// rules/skf/engine.cc). Data the umpire left out stays empty or unknown, and
// the checks that need it report it as unverifiable (rules/skf/RULES.md).
// Immutable once built; safe to share between threads.
#ifndef GUNBAI_RULES_SKF_TABLES_H_
#define GUNBAI_RULES_SKF_TABLES_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "rules/types.h"
#include "rules/victory.h"

namespace gunbai::rules::skf {

// The melee value of one base of a troop type, for one mobility or (when
// `mobility` is empty) for any.
struct MeleeValue {
  TroopType troop_type = TroopType::kSamurai;
  std::optional<Mobility> mobility;
  int per_base = 0;
};

// A modified score at or above `min_score` scores `hits`.
struct HitLine {
  int min_score = 0;
  int hits = 0;
};

// One column of the melee table, for the odds own-enemy.
struct OddsColumn {
  int own = 1;
  int enemy = 1;
  // Ascending by min_score.
  std::vector<HitLine> hits;
  bool unmodified_six_scores_one_hit = false;
};

// How a ratio between two columns is brought to one (SkfOddsRounding).
enum class OddsRounding { kUnknown, kAgainstRoller, kForRoller, kNearest };

// A named die roll modifier of the melee table.
struct Modifier {
  std::string name;
  int value = 0;
  std::string description;
};

// A failed morale check that fails by at least `fail_by` has `result`.
struct MoraleFailure {
  int fail_by = 1;
  MoraleResult result = MoraleResult::kNoEffect;
};

// A simple morale check: dice plus modifiers against a pass score.
struct MoraleTest {
  int dice = 1;
  // Indexed by Quality; 0 when the umpire gave none.
  std::array<int, 4> pass_scores{};
  // Ascending by fail_by.
  std::vector<MoraleFailure> failures;
  int per_leader_touching = 0;
  int per_base_lost = 0;
  int per_disorder_point = 0;
};

struct Tables {
  std::vector<MeleeValue> melee_values;
  // Least favourable to the roller first (ascending own/enemy).
  std::vector<OddsColumn> columns;
  OddsRounding rounding = OddsRounding::kUnknown;
  bool extreme_columns_open = false;
  std::vector<Modifier> modifiers;
  // 0: the umpire gave no leader-hit rule.
  int leader_killed_at_or_below = 0;
  // Empty: morale checks are replayed as claimed.
  std::optional<MoraleTest> morale;
  // The victory points of page 6 (SkfVictory); `points_to_win` holds the
  // default total, for a log that agrees none (0: none). Empty: the log's
  // own points are scored, unchecked.
  std::optional<VictorySettings> victory;
};

// Returns the column's name, e.g. "1-2".
std::string ColumnName(const OddsColumn& column);

// Returns "samurai", "legendary samurai", ... for messages.
absl::string_view TroopName(TroopType t);
// Returns "foot" or "mounted".
absl::string_view MobilityName(Mobility m);
// Returns "rounded against the roller", ... for messages.
absl::string_view RoundingName(OddsRounding r);

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_TABLES_H_
