// Samurai Knight Fever melee (page 6): each side's unit melee value is its
// melee value per base times the bases fighting; the two values form an odds
// ratio, and each side rolls one die on its own odds column of the melee
// table, plus the die roll modifiers it names. At a column that says so
// (the page: 1-2) an unmodified 6 always scores a hit. The table, the
// per-base values, the rounding of odds and the modifiers are the umpire's
// data (rules/skf/tables.h); what is missing is unverifiable, never guessed.
// Pure functions of Abseil and the standard library; thread-safe.
#ifndef GUNBAI_RULES_SKF_MELEE_H_
#define GUNBAI_RULES_SKF_MELEE_H_

#include <array>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "rules/skf/tables.h"
#include "rules/types.h"

namespace gunbai::rules::skf {

// Returns the melee value of one base of a troop type with `mobility` (an
// exact mobility entry first, then one for any mobility), or 0 when the
// tables have none. An unknown mobility matches only entries for any.
int MeleeValuePerBase(const Tables& tables, TroopType troop_type,
                      std::optional<Mobility> mobility);

// Where a side's odds fall in the melee table.
struct OddsLookup {
  enum class Outcome {
    kFound,
    // The tables have no odds columns.
    kNoColumns,
    // The ratio is between columns and the tables give no rounding.
    kNoRounding,
    // The ratio lies beyond the table's first or last column, which are not
    // open-ended.
    kBeyondTable,
  };
  Outcome outcome = Outcome::kNoColumns;
  // Index into Tables::columns when found.
  int column = -1;
  // The ratio is exactly the column's.
  bool exact = false;
  // The ratio lies beyond the table and an open end column takes it.
  bool open_end = false;
};

// Finds the column a side with unit melee value `own` rolls on against an
// enemy of unit melee value `enemy`. Both must be at least 1.
OddsLookup FindOddsColumn(const Tables& tables, int own, int enemy);

// The hits one die scores on one column.
struct ColumnHits {
  int score = 0;  // The die plus the modifiers.
  int hits = 0;
  // The unmodified 6 rule raised the hits to one.
  bool unmodified_six = false;
};

// Returns the hits an unmodified `die` (1-6) with total modifier `modifier`
// scores on `column`.
ColumnHits HitsOnColumn(const OddsColumn& column, int die, int modifier);

// One side of a melee pairing, as the log declares it. Unit facts come from
// the order of battle; labels name the unit in messages.
struct MeleeSideInput {
  std::string id;
  std::string label;  // "Name (id)".
  TroopType troop_type = TroopType::kSamurai;
  std::optional<Mobility> mobility;
  int bases_fighting = 0;
  // Die roll modifiers by name (MeleeSide.modifiers).
  absl::Span<const std::string> modifiers;
  // The one unmodified die, 1-6.
  int die = 0;
};

struct MeleePairing {
  std::array<MeleeSideInput, 2> sides;
};

// Checks that the tables hold what each side of `pairing` needs to be
// resolved: a per-base value for both units, a column for each side's odds,
// and every modifier each side names. Reports a violation for a modifier
// name the tables do not have (skf.melee.modifier.unknown) or one named twice
// (skf.melee.modifier.duplicate), and an unverifiable finding saying which
// data is missing and where to add it. Returns, per side, whether
// ResolveMeleeSide may be called. Dice and bases are the caller's to check;
// a side with no bases fighting is not resolvable.
std::array<bool, 2> CheckMeleePairing(const Tables& tables,
                                      const MeleePairing& pairing,
                                      FindingSink& sink);

struct MeleeSideResult {
  int own_value = 0;
  int enemy_value = 0;
  int column = -1;
  int modifier = 0;
  int score = 0;
  int hits = 0;
  // The column's unmodified 6 rule gave the hit.
  bool unmodified_six = false;
};

// Computes the hits side `side` scores on the enemy; CheckMeleePairing
// must have passed for it. When `trace` is not null, appends the arithmetic:
// bases x value for both sides, the odds and column, the die, each modifier,
// the score and the hits.
MeleeSideResult ResolveMeleeSide(const Tables& tables,
                                 const MeleePairing& pairing, int side,
                                 Trace* trace);

// Returns "5+ 1 hit, 6+ 2 hits" for a column's lines, for messages.
std::string DescribeHitLines(const OddsColumn& column);

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_MELEE_H_
