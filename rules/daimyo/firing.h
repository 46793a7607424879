// Daimyo firing: who may fire, the firing factors, hits, stand loss and the
// leader-loss roll it triggers. Checking (CheckFiring) is separate from
// resolving (ResolveFiring) and from applying (ApplyFiring); replay combines
// them once per firing event. Pure functions over a BattleState.
#ifndef GUNBAI_RULES_DAIMYO_FIRING_H_
#define GUNBAI_RULES_DAIMYO_FIRING_H_

#include <cstdint>
#include <optional>

#include "absl/types/span.h"
#include "rules/battle_state.h"
#include "rules/daimyo/tables.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {

// Facts of a shot that need a tape measure, as the players declared them.
struct ShotFacts {
  // The band the players declared; absent when they gave none (then
  // distance_mm must be given).
  std::optional<RangeBand> declared_band;
  std::optional<int> distance_mm;
  bool woods_limit = false;
  bool target_in_cover = false;
  bool target_in_building = false;
  bool target_in_column_or_flanked = false;
  bool firing_from_building = false;
  std::optional<bool> firer_being_charged;
  bool chargers_began_beyond_effective = false;
  bool firer_in_cover = false;
  // Measured on the table (rules/daimyo/measure.h), not declared: the
  // facts' terms say so in a trace.
  bool measured = false;

  Origin fact_origin() const {
    return measured ? Origin::kMeasured : Origin::kDeclared;
  }
};

// One firing event in domain terms. `dice` is borrowed from the caller.
struct Shot {
  int firer = -1;
  int target = -1;
  int stands_firing = 0;
  absl::Span<const std::uint32_t> dice;
  ShotFacts facts;
};

// The range band a shot is resolved at, and where it came from.
struct ResolvedBand {
  RangeBand band = RangeBand::kEffective;
  Origin origin = Origin::kDeclared;
  // The band the rules force (long range at distant chargers), if they do.
  bool forced_long = false;
};

// Works out the band: from the measured distance when given (woods limit
// included), else as declared; then long range is forced at chargers that
// began beyond effective range unless the firers are in cover or Veteran or
// better.
ResolvedBand ResolveBand(const Tables& rules, const BattleState& state,
                         const Shot& shot);

// Returns whether the firing unit counts as being charged: as declared when
// the log says so, else from this turn's charge declarations.
bool FirerBeingCharged(const BattleState& state, const Shot& shot);

// Returns whether the firing unit fires from a building: its formation is a
// building (order of battle or a manoeuvre), or the log declares it.
bool FiresFromBuilding(const BattleState& state, const Shot& shot);

// Returns the most stands the firing unit may fire with: ranks by order
// times its front width, capped by its stands and, from a building, by the
// building limit.
int MaxFiringStands(const Tables& rules, const BattleState& state,
                    const Shot& shot);

// Reports to `sink` every firing rule the shot breaks before any die is
// read: who may fire, eligibility, range, ranks, dice count and faces.
// Returns true when the dice can be resolved (right count, all 1-6).
bool CheckFiring(const Tables& rules, const BattleState& state,
                 const Shot& shot, FindingSink& sink);

struct FiringResolution {
  ResolvedBand band;
  int modifier = 0;  // Sum of the firing factors, added to each stand's 2d6.
  int hits = 0;
};

// Computes the hits the dice score. Requires CheckFiring to have returned
// true. When `trace` is not null, appends every factor that applies and one
// term per firing stand.
FiringResolution ResolveFiring(const Tables& rules, const BattleState& state,
                               const Shot& shot, Trace* trace);

// Applies a shot as played: marks the unit fired (and its first volley
// spent), lands `hits` on the target and removes `stands_lost` stands (or
// the computed number when negative), owes leader-loss rolls and a morale
// test (reason 1) when a stand goes. Returns the stands removed.
int ApplyFiring(const Tables& rules, BattleState& state, const Shot& shot,
                int hits, int stands_lost);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_FIRING_H_
