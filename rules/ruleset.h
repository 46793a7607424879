// A ruleset in domain terms: the tables and constants the procedures in
// rules/ read. Loaded from a data file by replay/ruleset_loader. Immutable
// once built; safe to share between threads.
#ifndef GUNBAI_RULES_RULESET_H_
#define GUNBAI_RULES_RULESET_H_

#include <array>
#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "rules/types.h"

namespace gunbai::rules {

// The firing factors of Daimyo, in the order of the firing section.
enum class FiringFactor {
  kFirstVolley,
  kTargetLightArmour,
  kArquebusVsCavalry,
  kEffectiveRange,
  kTargetColumnOrFlanked,
  kTargetInBuilding,
  kBowVsHeavyArmour,
  kFirerDisordered,
  kFirerRaw,
  kFirerBeingCharged,
  kFirerMoved,
  kTargetInCover,
};
inline constexpr std::size_t kFiringFactorCount = 12;

// Returns the stable rule id of a firing factor.
absl::string_view FiringFactorRuleId(FiringFactor f);
// Returns a plain description of a firing factor, e.g. "target in light
// armour".
absl::string_view FiringFactorLabel(FiringFactor f);

struct FiringRules {
  int dice_per_stand = 2;
  int hit_score = 8;
  int effective_range_mm = 80;
  int long_range_mm = 150;
  int woods_range_mm = 30;
  int max_stands_from_building = 2;
  int ranks_good_order = 2;
  int ranks_disordered = 1;
  std::array<int, kFiringFactorCount> factors{};

  int factor(FiringFactor f) const {
    return factors[static_cast<std::size_t>(f)];
  }
};

struct ReadingOptions {
  bool first_volley_spent_when_disordered = true;
  bool stands_lost_count_whole_game = true;
};

struct Ruleset {
  std::string name;
  std::string version;
  FiringRules firing;
  int hits_per_stand = 3;
  int leader_killed_at_or_below = 4;
  int headquarters_counts_as_stands = 1;
  ReadingOptions options;
};

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_RULESET_H_
