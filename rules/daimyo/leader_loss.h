// Daimyo leader loss: when a unit with a leader attached loses a stand, the
// leader rolls 1d6 and adds the stands left (a headquarters counts as 1); 4
// or less kills him. Shared by firing and melee. Pure functions.
#ifndef GUNBAI_RULES_DAIMYO_LEADER_LOSS_H_
#define GUNBAI_RULES_DAIMYO_LEADER_LOSS_H_

#include "rules/battle_state.h"
#include "rules/daimyo/tables.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {

struct LeaderLossResolution {
  int total = 0;
  bool killed = false;
};

// Returns the stands the next roll `leader` owes counts when made now, by
// the reading option: those left after the loss that owes it, or those his
// unit has now. The caller stores it in loss_roll_stands_left before
// ResolveLeaderLoss.
int LeaderRollStandsCounted(const Tables& rules, const BattleState& state,
                            const LeaderState& leader);

// Computes the roll for `leader`, whose roll must be owed. When `trace` is
// not null, appends the die, the stands left and the verdict.
LeaderLossResolution ResolveLeaderLoss(const Tables& rules,
                                       const LeaderState& leader, int die,
                                       Trace* trace);

// Applies the roll as played: the roll is no longer owed; a killed leader
// leaves the game and his unit owes a morale test (reason 5).
void ApplyLeaderLoss(BattleState& state, int leader, bool killed);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_LEADER_LOSS_H_
