// A log's starting position (gunbai.v1.StartingPosition): taken into the
// state of a freshly built engine, after its order of battle, checked field
// by field. See EngineBase::InitStartingPosition (rules/engine_base.h).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "rules/battle_state.h"
#include "rules/battlefield_proto.h"
#include "rules/engine_base.h"
#include "rules/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules {

namespace v1 = ::gunbai::v1;

namespace {

// Morale test reasons a unit may owe (battle_state.h's ReasonBit).
constexpr std::uint32_t kMaxMoraleReason = 8;
// Command ratings, every ruleset's (1 to 4).
constexpr std::uint32_t kMaxCommandRating = 4;

absl::Status StartError(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrFormat("starting_position.%s: %s", where, what));
}

// Refuses a list longer than what it lists could hold, named once.
absl::Status CheckListBound(absl::string_view where, int size, int bound,
                            absl::string_view of_what) {
  if (size <= bound) return absl::OkStatus();
  return StartError(where,
                    absl::StrFormat("%d entries, more than the %d %s; list "
                                    "each at most once.",
                                    size, bound, of_what));
}

// Returns the phase `name` names, as `gunbai state` prints it
// (PhaseName); empty: before the game at turn 0, else the turn's start.
absl::StatusOr<Phase> StartPhase(absl::string_view name, std::uint32_t turn) {
  if (name.empty()) return turn == 0 ? Phase::kBeforeGame : Phase::kTurnStart;
  for (Phase p : {Phase::kBeforeGame, Phase::kTurnStart, Phase::kMovement,
                  Phase::kFiring, Phase::kMelee, Phase::kTurnEnded}) {
    if (name == PhaseName(p)) {
      if ((p == Phase::kBeforeGame) != (turn == 0)) {
        return StartError("phase",
                          absl::StrFormat("\"%s\" does not go with turn %d: "
                                          "turn 0 is before the game, and "
                                          "the game is in a phase from turn "
                                          "1.",
                                          name, turn));
      }
      return p;
    }
  }
  return StartError(
      "phase", absl::StrFormat("\"%s\" is not a phase; give \"turn start\", "
                               "\"movement\", \"firing\", \"melee\" or \"turn "
                               "ended\" (or leave it empty).",
                               name.substr(0, 40)));
}

}  // namespace

absl::Status EngineBase::StartUnitError(int index, const v1::UnitState& unit,
                                        absl::string_view what) const {
  return StartError(
      absl::StrFormat("units[%d] (id \"%s\")", index, Quote(unit.id())), what);
}

absl::Status EngineBase::StartLeaderError(int index,
                                          const v1::LeaderState& leader,
                                          absl::string_view what) const {
  return StartError(
      absl::StrFormat("leaders[%d] (id \"%s\")", index, Quote(leader.id())),
      what);
}

absl::Status EngineBase::InitStartingPosition(const v1::StartingPosition& p) {
  const int units = static_cast<int>(state_.units.size());
  const int leaders = static_cast<int>(state_.leaders.size());
  const int clans = static_cast<int>(state_.clans.size());
  GUNBAI_RETURN_IF_ERROR(CheckListBound("units", p.units_size(), units,
                                        "units of the order of battle"));
  GUNBAI_RETURN_IF_ERROR(CheckListBound("leaders", p.leaders_size(), leaders,
                                        "leaders of the order of battle"));
  GUNBAI_RETURN_IF_ERROR(CheckListBound("melees", p.melees_size(), units,
                                        "units of the order of battle"));
  GUNBAI_RETURN_IF_ERROR(CheckListBound(
      "activated_clans", p.activated_clans_size(), clans, "clans"));
  GUNBAI_RETURN_IF_ERROR(StartTurnAndPhase(p));
  std::vector<bool> listed(units, false);
  for (int i = 0; i < p.units_size(); ++i) {
    GUNBAI_RETURN_IF_ERROR(StartUnit(i, p.units(i), listed, p.after_seq()));
  }
  // Charges and leaders name other units: once every unit is in place.
  for (int i = 0; i < p.units_size(); ++i) {
    GUNBAI_RETURN_IF_ERROR(StartCharges(i, p.units(i)));
  }
  GUNBAI_RETURN_IF_ERROR(CheckChargersNamed(p));
  std::vector<bool> leader_listed(leaders, false);
  for (int i = 0; i < p.leaders_size(); ++i) {
    GUNBAI_RETURN_IF_ERROR(StartLeader(i, p.leaders(i), leader_listed));
  }
  for (int i = 0; i < p.units_size(); ++i) {
    GUNBAI_RETURN_IF_ERROR(CheckUnitLeaders(i, p.units(i)));
  }
  for (int i = 0; i < p.melees_size(); ++i) {
    GUNBAI_RETURN_IF_ERROR(StartMelee(i, p.melees(i)));
  }
  state_.last_seq = p.after_seq();
  state_.any_event = p.after_seq() > 0;
  return absl::OkStatus();
}

absl::Status EngineBase::StartTurnAndPhase(const v1::StartingPosition& p) {
  if (p.game_over()) {
    return StartError("game_over",
                      "the position is after the end of the game; no event "
                      "can follow it. Start from a position before the "
                      "game_end.");
  }
  if (p.turn() > conventions_.max_turn) {
    return StartError("turn", absl::StrFormat("%d is more than the %d turns a "
                                              "game may have.",
                                              p.turn(), conventions_.max_turn));
  }
  GUNBAI_ASSIGN_OR_RETURN(const Phase phase, StartPhase(p.phase(), p.turn()));
  state_.turn = static_cast<int>(p.turn());
  state_.phase = phase;
  const auto clan_of = [this](absl::string_view field,
                              absl::string_view id) -> absl::StatusOr<int> {
    if (id.empty()) return -1;
    const int clan = FindClan(id);
    if (clan < 0) {
      return StartError(field, absl::StrFormat("clan \"%s\" is not in the "
                                               "header.",
                                               Quote(id)));
    }
    return clan;
  };
  GUNBAI_ASSIGN_OR_RETURN(state_.initiative_clan,
                          clan_of("initiative_clan", p.initiative_clan()));
  GUNBAI_ASSIGN_OR_RETURN(state_.active_clan,
                          clan_of("active_clan", p.active_clan()));
  const bool in_activation = phase == Phase::kMovement ||
                             phase == Phase::kFiring || phase == Phase::kMelee;
  if (state_.active_clan >= 0 && !in_activation) {
    return StartError("active_clan",
                      absl::StrFormat("a clan is active only in the movement, "
                                      "firing or melee phase, not at \"%s\"; "
                                      "leave it empty or give that phase.",
                                      PhaseName(phase)));
  }
  for (int i = 0; i < p.activated_clans_size(); ++i) {
    const std::string where = absl::StrFormat("activated_clans[%d]", i);
    GUNBAI_ASSIGN_OR_RETURN(const int clan,
                            clan_of(where, p.activated_clans(i)));
    if (clan < 0) return StartError(where, "the clan id is empty.");
    state_.activated_clans |= 1u << clan;
  }
  if (state_.active_clan >= 0) {
    state_.activated_clans |= 1u << state_.active_clan;
  }
  return absl::OkStatus();
}

absl::Status EngineBase::StartUnit(int i, const v1::UnitState& u,
                                   std::vector<bool>& listed,
                                   std::uint64_t after_seq) {
  const int unit = FindUnit(u.id());
  if (unit < 0) {
    return StartUnitError(i, u, "the unit is not in the order of battle.");
  }
  if (listed[unit]) {
    return StartUnitError(i, u, "the unit is listed twice; list it once.");
  }
  listed[unit] = true;
  const UnitProfile& profile = state_.profiles[unit];
  if (!u.clan().empty() && u.clan() != state_.clans[profile.clan]) {
    return StartUnitError(
        i, u,
        absl::StrFormat("clan is \"%s\", but the order of battle puts the "
                        "unit in clan \"%s\".",
                        Quote(u.clan()), state_.clans[profile.clan]));
  }
  GUNBAI_RETURN_IF_ERROR(CheckListBound(
      absl::StrFormat("units[%d].owed_morale_reasons", i),
      u.owed_morale_reasons_size(), static_cast<int>(kMaxMoraleReason),
      "morale test reasons"));
  GUNBAI_RETURN_IF_ERROR(StartUnitStands(i, u, profile));
  GUNBAI_RETURN_IF_ERROR(StartUnitTurns(i, u));
  if (u.halted_by_seq() > after_seq) {
    return StartUnitError(
        i, u,
        absl::StrFormat("halted_by_seq is %d, after the position's after_seq "
                        "%d; the test that halted it came before.",
                        u.halted_by_seq(), after_seq));
  }
  for (int r = 0; r < u.owed_morale_reasons_size(); ++r) {
    const std::uint32_t reason = u.owed_morale_reasons(r);
    if (reason < 1 || reason > kMaxMoraleReason) {
      return StartUnitError(
          i, u,
          absl::StrFormat("owed_morale_reasons[%d] is %d; reasons are 1 to "
                          "%d.",
                          r, reason, kMaxMoraleReason));
    }
  }
  UnitStatus& s = state_.units[unit];
  s.stands = static_cast<int>(u.stands());
  s.carried_hits = static_cast<int>(u.carried_hits());
  s.stands_lost = u.stands_lost() != 0 ? static_cast<int>(u.stands_lost())
                                       : profile.starting_stands - s.stands;
  s.stands_lost_this_turn = static_cast<int>(u.stands_lost_this_turn());
  if (u.stands_per_rank() != 0) {
    s.stands_per_rank = static_cast<int>(u.stands_per_rank());
  }
  if (u.formation() != v1::FORMATION_UNSPECIFIED) {
    s.formation = FormationFromProto(u.formation());
  }
  if (u.has_position()) {
    GUNBAI_ASSIGN_OR_RETURN(
        s.pose, PoseFromProto(u.position(),
                              absl::StrFormat("starting_position.units[%d] "
                                              "position",
                                              i)));
    s.placed = true;
  }
  s.disordered = u.disordered();
  s.fired_this_turn = u.fired_this_turn();
  s.moved_this_turn = u.moved_this_turn();
  s.first_volley_spent = u.first_volley_spent();
  s.hit_by_fire_this_turn = u.hit_by_fire_this_turn();
  s.may_not_fire = u.may_not_fire();
  s.in_melee = u.in_melee();
  s.routing = u.routing();
  s.has_routed = u.has_routed();
  s.frenzied = u.frenzied();
  s.removed = u.removed();
  s.charge_fell_short = u.charge_fell_short();
  s.leader_killed_near = u.leader_killed_near();
  state_.FootprintChanged(unit);
  s.followed_up_on_turn = static_cast<int>(u.followed_up_on_turn());
  s.pursued_on_turn = static_cast<int>(u.pursued_on_turn());
  s.pursued_from_long_melee = u.pursued_from_long_melee();
  s.halted_until_turn = u.halted_until_turn() != 0
                            ? static_cast<int>(u.halted_until_turn())
                        : u.halted() ? state_.turn
                                     : 0;
  s.halt_cause_seq = u.halted_by_seq();
  s.owed_morale = 0;
  for (std::uint32_t reason : u.owed_morale_reasons()) {
    s.owed_morale |= ReasonBit(static_cast<int>(reason));
  }
  // Charges are taken from the targets' charged_by (StartCharges).
  s.charging = false;
  s.charging_target = -1;
  return absl::OkStatus();
}

absl::Status EngineBase::StartUnitStands(int i, const v1::UnitState& u,
                                         const UnitProfile& profile) const {
  const std::uint32_t start =
      static_cast<std::uint32_t>(profile.starting_stands);
  if (u.stands() > start) {
    return StartUnitError(
        i, u,
        absl::StrFormat("stands is %d, more than the %d the order of battle "
                        "gives the unit; a unit never gains stands.",
                        u.stands(), start));
  }
  if (u.stands() == 0 && !u.removed()) {
    return StartUnitError(i, u,
                          "stands is 0 but removed is false; a unit with no "
                          "stands is off the table (set removed), or give its "
                          "stands.");
  }
  if (u.stands_lost() > start) {
    return StartUnitError(
        i, u,
        absl::StrFormat("stands_lost is %d, more than the %d stands the unit "
                        "started with.",
                        u.stands_lost(), start));
  }
  if (u.stands_lost_this_turn() > start - u.stands()) {
    return StartUnitError(i, u,
                          "stands_lost_this_turn is more than the stands it "
                          "lost.");
  }
  const int max_hits = conventions_.max_carried_hits;
  if (u.carried_hits() > static_cast<std::uint32_t>(max_hits)) {
    return StartUnitError(
        i, u,
        absl::StrFormat("carried_hits is %d; a unit carries 0 to %d (one "
                        "more would be a stand lost).",
                        u.carried_hits(), max_hits));
  }
  if (u.stands_per_rank() > start) {
    return StartUnitError(
        i, u,
        absl::StrFormat("stands_per_rank is %d, wider than the unit's %d "
                        "stands.",
                        u.stands_per_rank(), start));
  }
  return absl::OkStatus();
}

absl::Status EngineBase::StartUnitTurns(int i, const v1::UnitState& u) const {
  const std::uint32_t turn = static_cast<std::uint32_t>(state_.turn);
  // A halt lasts into the next turn at most.
  if (u.halted_until_turn() > turn + 1) {
    return StartUnitError(
        i, u,
        absl::StrFormat("halted_until_turn is %d, more than a turn after "
                        "turn %d; a halt lasts this turn or the next.",
                        u.halted_until_turn(), turn));
  }
  if (u.halted_until_turn() != 0 &&
      u.halted() != (u.halted_until_turn() >= turn)) {
    return StartUnitError(
        i, u,
        absl::StrFormat("halted is %s but halted_until_turn is %d at turn "
                        "%d; give one of them, or both agreeing.",
                        u.halted() ? "true" : "false", u.halted_until_turn(),
                        turn));
  }
  for (const auto& [field, value] :
       {std::pair<absl::string_view, std::uint32_t>{"followed_up_on_turn",
                                                    u.followed_up_on_turn()},
        {"pursued_on_turn", u.pursued_on_turn()}}) {
    if (value > turn) {
      return StartUnitError(
          i, u,
          absl::StrFormat("%s is %d, after the position's turn %d.", field,
                          value, turn));
    }
  }
  return absl::OkStatus();
}

absl::Status EngineBase::StartCharges(int i, const v1::UnitState& u) {
  GUNBAI_RETURN_IF_ERROR(CheckListBound(
      absl::StrFormat("units[%d].charged_by", i), u.charged_by_size(),
      static_cast<int>(state_.units.size()), "units of the order of battle"));
  const int target = FindUnit(u.id());
  for (int c = 0; c < u.charged_by_size(); ++c) {
    const std::string& id = u.charged_by(c);
    const int charger = FindUnit(id);
    if (charger < 0) {
      return StartUnitError(
          i, u,
          absl::StrFormat("charged_by[%d] \"%s\" is not a unit of the order "
                          "of battle.",
                          c, Quote(id)));
    }
    if (state_.profiles[charger].clan == state_.profiles[target].clan) {
      return StartUnitError(
          i, u,
          absl::StrFormat("charged_by[%d] \"%s\" is of the unit's own clan; "
                          "a unit charges the enemy.",
                          c, Quote(id)));
    }
    UnitStatus& s = state_.units[charger];
    if (s.charging) {
      return StartUnitError(
          i, u,
          absl::StrFormat("charged_by[%d] \"%s\" is already named as "
                          "charging %s; a unit charges one unit.",
                          c, Quote(id),
                          s.charging_target == target
                              ? "this unit"
                              : Quote(state_.profiles[s.charging_target].id)));
    }
    if (s.removed) {
      return StartUnitError(
          i, u,
          absl::StrFormat("charged_by[%d] \"%s\" is removed; a unit off the "
                          "table charges no one.",
                          c, Quote(id)));
    }
    s.charging = true;
    s.charging_target = target;
    ++state_.units[target].charges_received;
  }
  return absl::OkStatus();
}

absl::Status EngineBase::CheckChargersNamed(const v1::StartingPosition& p) {
  for (int i = 0; i < p.units_size(); ++i) {
    const v1::UnitState& u = p.units(i);
    if (u.charging() && !state_.units[FindUnit(u.id())].charging) {
      return StartUnitError(i, u,
                            "charging is true, but no unit lists it in its "
                            "charged_by; name it in its target's "
                            "charged_by.");
    }
  }
  return absl::OkStatus();
}

absl::Status EngineBase::StartLeader(int i, const v1::LeaderState& l,
                                     std::vector<bool>& listed) {
  const int leader = FindLeader(l.id());
  if (leader < 0) {
    return StartLeaderError(i, l, "the leader is not in the order of battle.");
  }
  if (listed[leader]) {
    return StartLeaderError(i, l, "the leader is listed twice; list him once.");
  }
  listed[leader] = true;
  LeaderState& s = state_.leaders[leader];
  if (l.command_rating() > kMaxCommandRating) {
    return StartLeaderError(
        i, l,
        absl::StrFormat("command_rating is %d; it is 1 to %d (0: the order "
                        "of battle's).",
                        l.command_rating(), kMaxCommandRating));
  }
  if (l.command_rating() != 0) {
    s.command_rating = static_cast<int>(l.command_rating());
  }
  if (l.killed_on_turn() > static_cast<std::uint32_t>(state_.turn) ||
      (l.killed_on_turn() != 0 && !l.killed())) {
    return StartLeaderError(
        i, l,
        absl::StrFormat("killed_on_turn is %d: it is 0, or the turn a killed "
                        "leader died, at most the position's turn %d.",
                        l.killed_on_turn(), state_.turn));
  }
  s.attached_unit = -1;
  if (!l.attached_unit().empty()) {
    const int unit = FindUnit(l.attached_unit());
    if (unit < 0) {
      return StartLeaderError(
          i, l,
          absl::StrFormat("attached_unit \"%s\" is not a unit of the order "
                          "of battle.",
                          Quote(l.attached_unit())));
    }
    if (state_.profiles[unit].clan != s.clan) {
      return StartLeaderError(
          i, l,
          "attached_unit is another clan's unit; a leader joins his own.");
    }
    s.attached_unit = unit;
  }
  s.killed = l.killed();
  s.killed_on_turn = static_cast<int>(l.killed_on_turn());
  s.loss_roll_owed = l.loss_roll_owed() && !l.killed();
  s.later_loss_rolls.clear();
  if (l.loss_roll_owed() && l.killed()) {
    return StartLeaderError(i, l,
                            "loss_roll_owed is true for a killed leader; a "
                            "dead leader rolls no more.");
  }
  if (s.loss_roll_owed && s.attached_unit < 0) {
    return StartLeaderError(i, l,
                            "loss_roll_owed is true, but the leader is "
                            "attached to no unit (the roll is for the stands "
                            "his unit lost).");
  }
  s.loss_roll_stands_left =
      s.loss_roll_owed ? state_.units[s.attached_unit].stands : 0;
  return absl::OkStatus();
}

absl::Status EngineBase::CheckUnitLeaders(int i, const v1::UnitState& u) {
  GUNBAI_RETURN_IF_ERROR(CheckListBound(absl::StrFormat("units[%d].leaders", i),
                                        u.leaders_size(),
                                        static_cast<int>(state_.leaders.size()),
                                        "leaders of the order of battle"));
  const int unit = FindUnit(u.id());
  for (int k = 0; k < u.leaders_size(); ++k) {
    const int leader = FindLeader(u.leaders(k));
    if (leader < 0 || state_.leaders[leader].attached_unit != unit ||
        state_.leaders[leader].killed) {
      return StartUnitError(
          i, u,
          absl::StrFormat("leaders[%d] \"%s\" is not a live leader attached "
                          "to this unit (the leaders' attached_unit and "
                          "killed say which are); correct one of them, or "
                          "leave this list empty.",
                          k, Quote(u.leaders(k))));
    }
  }
  return absl::OkStatus();
}

absl::Status EngineBase::StartMelee(int i, const v1::MeleeContact& m) {
  const std::string where = absl::StrFormat("melees[%d]", i);
  const int a = FindUnit(m.unit_a());
  const int b = FindUnit(m.unit_b());
  if (a < 0 || b < 0) {
    return StartError(
        where, absl::StrFormat("unit \"%s\" is not in the order of battle.",
                               Quote(a < 0 ? m.unit_a() : m.unit_b())));
  }
  if (state_.profiles[a].clan == state_.profiles[b].clan) {
    return StartError(where,
                      "the two units are of one clan; a melee is between "
                      "enemies.");
  }
  for (int unit : {a, b}) {
    const UnitStatus& s = state_.units[unit];
    if (!s.in_melee || s.removed) {
      return StartError(
          where,
          absl::StrFormat("unit \"%s\" is %s; units in melee contact are on "
                          "the table with in_melee set.",
                          Quote(state_.profiles[unit].id),
                          s.removed ? "removed" : "not in_melee"));
    }
  }
  if (state_.FindMelee(a, b) != nullptr) {
    return StartError(where, "the two units' contact is listed twice.");
  }
  if (m.last_turn_fought() > static_cast<std::uint32_t>(state_.turn) ||
      m.rounds() > static_cast<std::uint32_t>(kMaxUnits)) {
    return StartError(
        where, absl::StrFormat("last_turn_fought %d is after the position's "
                               "turn %d, or rounds %d is out of range.",
                               m.last_turn_fought(), state_.turn, m.rounds()));
  }
  state_.melees.push_back({a, b, static_cast<int>(m.rounds()),
                           static_cast<int>(m.last_turn_fought())});
  return absl::OkStatus();
}

}  // namespace gunbai::rules
