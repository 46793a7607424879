// Victory by points, as a scenario setting any ruleset may use (Samurai
// Knight Fever's victory rules, RULES-NOTES "Samurai Knight Fever"): a clan
// scores the points of every enemy unit eliminated or routing, and of the
// enemy camps its units sack; points are counted when a turn ends; the
// first clan at or above the agreed total wins, and clans tied at the top
// play another turn.
// Thread-compatible: one tracker per replay.
#ifndef GUNBAI_RULES_VICTORY_H_
#define GUNBAI_RULES_VICTORY_H_

#include <array>
#include <vector>

#include "rules/battle_state.h"
#include "rules/types.h"

namespace gunbai::rules {

inline constexpr int kTroopTypeCount =
    static_cast<int>(TroopType::kLegendarySamurai) + 1;

struct VictorySettings {
  // 0: no victory condition by points.
  int points_to_win = 0;
  // Points an eliminated or routing unit of each troop type yields.
  std::array<int, kTroopTypeCount> unit_points{};
  int camp_sack_points = 0;
  std::array<bool, kTroopTypeCount> camp_sack_types{};
};

class VictoryTracker {
 public:
  VictoryTracker(const VictorySettings& settings, const BattleState& state);

  // A unit ended a move touching the camp of clan `camp_clan`. Marks the
  // camp sacked by the unit's clan when its troop type may sack; scored at
  // the end of the turn. Returns false when the unit's type may not sack
  // (or the camp is its own), so the caller can say so.
  bool CampTouched(const BattleState& state, int unit, int camp_clan);

  // Counts the points at the end of a turn: every unit eliminated or
  // routing that has not scored yet scores for every other clan (a unit
  // scores once: a rally later does not take the points back), and every
  // camp newly sacked scores for the sacking clan. Decides the winner once.
  void EndOfTurn(const BattleState& state);

  // Takes the points of a log's starting position (rules/engine_base.h):
  // every unit off the table, routing or that has routed is counted as
  // having scored (at a turn's end before the position), and a clan alone
  // at or above points_to_win has won, at the last turn's end before the
  // position. Camps sacked before the position are not in a state, and not
  // counted. Call once, before the first EndOfTurn.
  void StartFrom(const BattleState& state);

  bool enabled() const { return settings_.points_to_win > 0; }
  int points_to_win() const { return settings_.points_to_win; }
  int points(int clan) const { return points_[clan]; }
  // The winning clan's index, or -1.
  int winner() const { return winner_; }
  int decided_turn() const { return decided_turn_; }

 private:
  // Scores unit `u` for every other clan, once.
  void Score(const BattleState& state, std::size_t u);
  // Decides the winner, once, at `turn`: a clan alone at the top, at or
  // above points_to_win.
  void Decide(int turn);

  VictorySettings settings_;
  std::vector<int> points_;
  std::vector<bool> unit_scored_;
  // sacked_[clan * clans + camp]: 1 when sacked and not yet scored, 2 when
  // scored.
  std::vector<int> sacked_;
  int clans_ = 0;
  int winner_ = -1;
  int decided_turn_ = 0;
};

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_VICTORY_H_
