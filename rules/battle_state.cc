#include "rules/battle_state.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gunbai::rules {

std::uint64_t FootprintChanges::NewId() {
  // Names a state to its table index only (never output): any distinct
  // number will do, so a relaxed counter shared by all threads.
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

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

Trace StandLossTrace(const UnitStatus& unit, int hits, int hits_per_stand,
                     absl::string_view rule_id) {
  const int lost = StandsLost(unit, hits, hits_per_stand);
  const int total = unit.carried_hits + hits;
  const int carried = lost < unit.stands ? total - lost * hits_per_stand : 0;
  Term term;
  term.value = lost;
  term.label = absl::StrCat(
      hits, hits == 1 ? " hit" : " hits",
      unit.carried_hits > 0
          ? absl::StrCat(" + ", unit.carried_hits, " carried = ", total)
          : "",
      ": ", lost, lost == 1 ? " stand" : " stands", " lost (", hits_per_stand,
      " hits a stand", lost == unit.stands && lost > 0 ? ", all it had" : "",
      "), ", carried, " carried");
  term.rule_id = rule_id;
  return {std::move(term)};
}

int ApplyHits(UnitStatus& unit, int hits, int hits_per_stand,
              int stands_lost_override) {
  const int total = unit.carried_hits + hits;
  const int lost = stands_lost_override >= 0
                       ? std::min(stands_lost_override, unit.stands)
                       : StandsLost(unit, hits, hits_per_stand);
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

int StandsCountedForLeaderRoll(const BattleState& state, int unit,
                               int hq_counts_as) {
  return state.profiles[unit].troop_type == TroopType::kHeadquarters
             ? hq_counts_as
             : state.units[unit].stands;
}

void OweLeaderLossRolls(BattleState& state, int unit, int hq_counts_as,
                        int stands_lost) {
  const int stands_left = StandsCountedForLeaderRoll(state, unit, hq_counts_as);
  for (LeaderState& leader : state.leaders) {
    if (leader.killed || leader.attached_unit != unit) continue;
    for (int i = 0; i < stands_lost; ++i) {
      if (!leader.loss_roll_owed) {
        leader.loss_roll_owed = true;
        leader.loss_roll_stands_left = stands_left;
      } else {
        leader.later_loss_rolls.push_back(stands_left);
      }
    }
  }
}

void SettleLeaderLossRoll(LeaderState& leader, bool killed) {
  if (killed || leader.later_loss_rolls.empty()) {
    leader.loss_roll_owed = false;
    leader.later_loss_rolls.clear();
    return;
  }
  leader.loss_roll_stands_left = leader.later_loss_rolls.front();
  leader.later_loss_rolls.erase(leader.later_loss_rolls.begin());
}

bool BattleState::IsBeingCharged(int target) const {
  // The count is a quick no; a charger that routed or left still counts in
  // it, so confirm with the chargers themselves.
  if (units[target].charges_received <= 0) return false;
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (IsChargedBy(target, static_cast<int>(i))) return true;
  }
  return false;
}

void DeclareCharge(BattleState& state, int charger, int target,
                   bool fell_short) {
  UnitStatus& c = state.units[charger];
  EndCharge(state, charger);
  c.charging = true;
  c.charging_target = target;
  c.charge_fell_short = fell_short;
  c.charge_spent = false;
  if (!fell_short) c.charged_into_contact_with = target;
  c.moved_this_turn = true;
  ++state.units[target].charges_received;
}

void EndCharge(BattleState& state, int unit) {
  UnitStatus& c = state.units[unit];
  if (!c.charging) return;
  if (c.charging_target >= 0) --state.units[c.charging_target].charges_received;
  c.charging = false;
  c.charging_target = -1;
  c.charge_fell_short = false;
  c.charge_spent = false;
}

void EndAllCharges(BattleState& state) {
  for (std::size_t u = 0; u < state.units.size(); ++u) {
    EndCharge(state, static_cast<int>(u));
  }
}

void StartNewTurn(BattleState& state, int turn, int initiative_clan) {
  state.turn = turn;
  state.initiative_clan = initiative_clan;
  state.active_clan = -1;
  state.activated_clans = 0;
  state.turn_ended_clans = 0;
  state.phase = Phase::kTurnStart;
  for (UnitStatus& u : state.units) {
    u.fired_this_turn = false;
    u.hit_by_fire_this_turn = false;
    u.moved_this_turn = false;
    u.charging = false;
    u.charging_target = -1;
    u.charge_fell_short = false;
    u.charge_spent = false;
    u.charged_into_contact_with = -1;
    u.charges_received = 0;
    u.stands_lost_this_turn = 0;
    u.owed_morale = 0;
    u.may_not_fire = false;
    u.fought_this_turn = false;
    u.pursuing = false;
    u.leader_killed_near = false;
  }
}

}  // namespace gunbai::rules
