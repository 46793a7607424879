// Samurai Knight Fever after a melee (page 6): every unit that fought checks
// morale once, and every leader touching a unit that fought rolls 1d6 and
// dies on a 1. The page gives no morale test; an umpire may supply a simple
// one (rules/skf/tables.h, MoraleTest). Pure functions of Abseil and the
// standard library; thread-safe.
#ifndef GUNBAI_RULES_SKF_MORALE_H_
#define GUNBAI_RULES_SKF_MORALE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "rules/skf/tables.h"
#include "rules/types.h"

namespace gunbai::rules::skf {

// A unit's morale check after a melee, as the log declares it.
struct MoraleInput {
  std::string id;
  std::string label;  // "Name (id)".
  // Empty when the order of battle does not give it.
  std::optional<Quality> quality;
  absl::Span<const std::uint32_t> dice;
  int leaders_touching = 0;
  // Bases the unit lost in the melee.
  int bases_lost = 0;
  int disorder = 0;
};

// Checks that `in` can be resolved under `test`: the number of dice
// (violation skf.morale.dice_count) and a pass score for the unit's quality
// (unverifiable skf.morale.pass_score, saying what to add). Die faces are
// the caller's to check. Returns true when ResolveMoraleTest may be called.
bool CheckMoraleTest(const MoraleTest& test, const MoraleInput& in,
                     FindingSink& sink);

struct MoraleOutcome {
  int total = 0;
  int pass_score = 0;
  // 0 for a pass.
  int fail_by = 0;
  MoraleResult result = MoraleResult::kNoEffect;
};

// Computes the check; CheckMoraleTest must have passed. When `trace` is not
// null, appends the dice, each modifier, the total and the verdict.
MoraleOutcome ResolveMoraleTest(const MoraleTest& test, const MoraleInput& in,
                                Trace* trace);

// Returns true when a leader-hit `die` kills the leader: at or below
// `killed_at_or_below` (the page: 1), which must be at least 1. When
// `trace` is not null, appends the die and the verdict.
bool LeaderHitKills(int killed_at_or_below, int die, Trace* trace);

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_MORALE_H_
