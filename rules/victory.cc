#include "rules/victory.h"

#include <algorithm>

namespace gunbai::rules {

VictoryTracker::VictoryTracker(const VictorySettings& settings,
                               const BattleState& state)
    : settings_(settings),
      points_(state.clans.size(), 0),
      unit_scored_(state.units.size(), false),
      sacked_(state.clans.size() * state.clans.size(), 0),
      clans_(static_cast<int>(state.clans.size())) {}

bool VictoryTracker::CampTouched(const BattleState& state, int unit,
                                 int camp_clan) {
  const int clan = state.profiles[unit].clan;
  const int type = static_cast<int>(state.profiles[unit].troop_type);
  if (clan == camp_clan || !settings_.camp_sack_types[type]) return false;
  int& mark = sacked_[clan * clans_ + camp_clan];
  if (mark == 0) mark = 1;
  return true;
}

void VictoryTracker::Score(const BattleState& state, std::size_t u) {
  if (unit_scored_[u]) return;
  unit_scored_[u] = true;
  const int value =
      settings_.unit_points[static_cast<int>(state.profiles[u].troop_type)];
  for (int c = 0; c < clans_; ++c) {
    if (c != state.profiles[u].clan) points_[c] += value;
  }
}

void VictoryTracker::StartFrom(const BattleState& state) {
  if (!enabled()) return;
  for (std::size_t u = 0; u < state.units.size(); ++u) {
    const UnitStatus& s = state.units[u];
    if (s.removed || s.routing || s.has_routed) Score(state, u);
  }
  const int last_turn_ended =
      state.phase == Phase::kTurnEnded ? state.turn : state.turn - 1;
  if (last_turn_ended > 0) Decide(last_turn_ended);
}

void VictoryTracker::EndOfTurn(const BattleState& state) {
  if (!enabled()) return;
  for (std::size_t u = 0; u < state.units.size(); ++u) {
    const UnitStatus& s = state.units[u];
    if (s.removed || s.routing) Score(state, u);
  }
  for (int c = 0; c < clans_; ++c) {
    for (int camp = 0; camp < clans_; ++camp) {
      int& mark = sacked_[c * clans_ + camp];
      if (mark != 1) continue;
      mark = 2;
      points_[c] += settings_.camp_sack_points;
    }
  }
  Decide(state.turn);
}

void VictoryTracker::Decide(int turn) {
  if (winner_ >= 0 || clans_ == 0) return;
  const int top = *std::max_element(points_.begin(), points_.end());
  if (top < settings_.points_to_win) return;
  if (std::count(points_.begin(), points_.end(), top) > 1) return;  // A tie.
  winner_ = static_cast<int>(std::find(points_.begin(), points_.end(), top) -
                             points_.begin());
  decided_turn_ = turn;
}

}  // namespace gunbai::rules
