#include "rules/daimyo/leader_loss.h"

#include "absl/strings/str_format.h"

namespace gunbai::rules::daimyo {

int LeaderRollStandsCounted(const Tables& rules, const BattleState& state,
                            const LeaderState& leader) {
  if (leader.attached_unit < 0) return leader.loss_roll_stands_left;
  const int at_the_roll = StandsCountedForLeaderRoll(
      state, leader.attached_unit, rules.headquarters_counts_as_stands);
  // The readings agree when the stands are the same: the option is then
  // not consulted (rules/reading_probe.h).
  if (at_the_roll == leader.loss_roll_stands_left) return at_the_roll;
  return rules.options.leader_roll_stands() == LeaderRollStands::kAtTheRoll
             ? at_the_roll
             : leader.loss_roll_stands_left;
}

LeaderLossResolution ResolveLeaderLoss(const Tables& rules,
                                       const LeaderState& leader, int die,
                                       Trace* trace) {
  LeaderLossResolution res;
  res.total = die + leader.loss_roll_stands_left;
  res.killed = res.total <= rules.leader_killed_at_or_below;
  if (trace != nullptr) {
    trace->push_back(
        Term{die, "leader-loss die", "daimyo.leader_loss.roll", Origin::kDice});
    trace->push_back(Term{leader.loss_roll_stands_left,
                          "stands left in the unit (a headquarters counts as "
                          "1)",
                          "daimyo.leader_loss.roll", Origin::kComputed});
    trace->push_back(
        Term{res.total,
             absl::StrFormat("= %d: %s (%d or less kills)", res.total,
                             res.killed ? "killed" : "survives",
                             rules.leader_killed_at_or_below),
             "daimyo.leader_loss.roll", Origin::kComputed});
  }
  return res;
}

void ApplyLeaderLoss(BattleState& state, int leader, bool killed) {
  LeaderState& l = state.leaders[leader];
  SettleLeaderLossRoll(l, killed);
  if (!killed) return;
  l.killed = true;
  l.killed_on_turn = state.turn;
  if (l.attached_unit >= 0) {
    state.units[l.attached_unit].owed_morale |= ReasonBit(5);
  }
}

}  // namespace gunbai::rules::daimyo
