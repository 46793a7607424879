#include "rules/battle_state.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gunbai::rules {

absl::string_view PhaseName(Phase p) {
  switch (p) {
    case Phase::kBeforeGame:
      return "before the game";
    case Phase::kTurnStart:
      return "turn start";
    case Phase::kMovement:
      return "movement";
    case Phase::kFiring:
      return "firing";
    case Phase::kMelee:
      return "melee";
    case Phase::kTurnEnded:
      return "turn ended";
    case Phase::kGameOver:
      return "game over";
  }
  return "?";
}

std::string UnitLabel(const BattleState& state, int unit) {
  const UnitProfile& p = state.profiles[unit];
  if (p.name.empty()) return p.id;
  return absl::StrCat(p.name, " (", p.id, ")");
}

bool BattleState::HasLeaderAttached(int unit) const {
  return std::any_of(leaders.begin(), leaders.end(), [unit](const auto& l) {
    return !l.killed && l.attached_unit == unit;
  });
}

void ReportViolation(FindingSink& sink, const BattleState& state, int unit,
                     absl::string_view rule_id, std::string message) {
  Finding f;
  f.severity = Severity::kViolation;
  f.rule_id = rule_id;
  f.message = std::move(message);
  f.subject = state.profiles[unit].id;
  sink.Report(std::move(f));
}

int BattleState::AttachedLeader(int unit, LeaderKind kind) const {
  for (std::size_t i = 0; i < leaders.size(); ++i) {
    const LeaderState& l = leaders[i];
    if (!l.killed && l.attached_unit == unit && l.kind == kind) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

MeleeContact* BattleState::FindMelee(int x, int y) {
  for (MeleeContact& m : melees) {
    if (m.Between(x, y)) return &m;
  }
  return nullptr;
}

const MeleeContact* BattleState::FindMelee(int x, int y) const {
  for (const MeleeContact& m : melees) {
    if (m.Between(x, y)) return &m;
  }
  return nullptr;
}

int ApplyHits(UnitStatus& unit, int hits, int hits_per_stand,
              int stands_lost_override) {
  const int total = unit.carried_hits + hits;
  int lost =
      stands_lost_override >= 0 ? stands_lost_override : total / hits_per_stand;
  lost = std::min(lost, unit.stands);
  unit.carried_hits =
      std::clamp(total - lost * hits_per_stand, 0, hits_per_stand - 1);
  unit.stands -= lost;
  unit.stands_lost += lost;
  unit.stands_lost_this_turn += lost;
  if (unit.stands == 0) {
    unit.removed = true;
    unit.carried_hits = 0;
  }
  return lost;
}

void OweLeaderLossRolls(BattleState& state, int unit, int hq_counts_as) {
  const bool hq = state.profiles[unit].troop_type == TroopType::kHeadquarters;
  const int stands_left = hq ? hq_counts_as : state.units[unit].stands;
  for (LeaderState& leader : state.leaders) {
    if (leader.killed || leader.attached_unit != unit) continue;
    leader.loss_roll_owed = true;
    leader.loss_roll_stands_left = stands_left;
  }
}

void DeclareCharge(BattleState& state, int charger, int target) {
  UnitStatus& c = state.units[charger];
  if (c.charging && c.charging_target >= 0) {
    --state.units[c.charging_target].charges_received;
  }
  c.charging = true;
  c.charging_target = target;
  c.moved_this_turn = true;
  ++state.units[target].charges_received;
}

void StartNewTurn(BattleState& state, int turn, int initiative_clan) {
  state.turn = turn;
  state.initiative_clan = initiative_clan;
  state.active_clan = -1;
  state.activated_clans = 0;
  state.phase = Phase::kTurnStart;
  for (UnitStatus& u : state.units) {
    u.fired_this_turn = false;
    u.moved_this_turn = false;
    u.charging = false;
    u.charging_target = -1;
    u.charges_received = 0;
    u.stands_lost_this_turn = 0;
    u.owed_morale = 0;
    u.may_not_fire = false;
    u.fought_this_turn = false;
    u.pursuing = false;
  }
}

}  // namespace gunbai::rules
