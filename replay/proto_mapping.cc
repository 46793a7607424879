#include "replay/proto_mapping.h"

#include <string>

#include "replay/ruleset_loader.h"
#include "rules/battlefield_proto.h"
#include "rules/digest.h"

namespace gunbai::replay {

namespace v1 = ::gunbai::v1;

namespace {

// Adds the carry-over fields (state.proto: left out of the digest, so that
// the digests of reports written before them still compare): what later
// events' rules read that the digested fields do not show, so that the
// snapshot, given as a log's starting position, replays on as the game did.
void AddCarryOver(const rules::BattleState& state,
                  v1::BattleStateSnapshot& snap) {
  for (std::size_t i = 0; i < state.units.size(); ++i) {
    const rules::UnitStatus& s = state.units[i];
    v1::UnitState* u = snap.mutable_units(static_cast<int>(i));
    u->set_stands_per_rank(static_cast<uint32_t>(s.stands_per_rank));
    u->set_formation(rules::FormationToProto(s.formation));
    u->set_halted_until_turn(static_cast<uint32_t>(s.halted_until_turn));
    u->set_followed_up_on_turn(static_cast<uint32_t>(s.followed_up_on_turn));
    u->set_pursued_on_turn(static_cast<uint32_t>(s.pursued_on_turn));
    u->set_pursued_from_long_melee(s.pursued_from_long_melee);
    u->set_hit_by_fire_this_turn(s.hit_by_fire_this_turn);
    u->set_may_not_fire(s.may_not_fire);
    u->set_stands_lost_this_turn(
        static_cast<uint32_t>(s.stands_lost_this_turn));
    u->set_charge_fell_short(s.charge_fell_short);
    u->set_leader_killed_near(s.leader_killed_near);
    u->set_halted_by_seq(s.halt_cause_seq);
    if (s.placed) *u->mutable_position() = rules::PoseToProto(s.pose);
  }
  for (std::size_t l = 0; l < state.leaders.size(); ++l) {
    snap.mutable_leaders(static_cast<int>(l))
        ->set_killed_on_turn(
            static_cast<uint32_t>(state.leaders[l].killed_on_turn));
  }
  for (const rules::MeleeContact& m : state.melees) {
    v1::MeleeContact* out = snap.add_melees();
    out->set_unit_a(state.profiles[m.a].id);
    out->set_unit_b(state.profiles[m.b].id);
    out->set_rounds(static_cast<uint32_t>(m.rounds));
    out->set_last_turn_fought(static_cast<uint32_t>(m.last_turn_fought));
  }
  for (std::size_t c = 0; c < state.clans.size(); ++c) {
    if (state.activated_clans & (1u << c))
      snap.add_activated_clans(state.clans[c]);
  }
}

// The snapshot's digested fields of version 1 (the digest not set).
v1::BattleStateSnapshot DigestedV1(const rules::BattleState& state) {
  v1::BattleStateSnapshot snap;
  snap.set_after_seq(state.last_seq);
  snap.set_turn(static_cast<uint32_t>(state.turn));
  if (state.initiative_clan >= 0) {
    snap.set_initiative_clan(state.clans[state.initiative_clan]);
  }
  if (state.active_clan >= 0)
    snap.set_active_clan(state.clans[state.active_clan]);
  snap.set_phase(std::string(rules::PhaseName(state.phase)));
  snap.set_game_over(state.phase == rules::Phase::kGameOver);
  for (std::size_t i = 0; i < state.units.size(); ++i) {
    const rules::UnitProfile& p = state.profiles[i];
    const rules::UnitStatus& s = state.units[i];
    v1::UnitState* u = snap.add_units();
    u->set_id(p.id);
    u->set_clan(state.clans[p.clan]);
    u->set_stands(static_cast<uint32_t>(s.stands));
    u->set_carried_hits(static_cast<uint32_t>(s.carried_hits));
    u->set_stands_lost(static_cast<uint32_t>(s.stands_lost));
    u->set_disordered(s.disordered);
    u->set_halted(state.IsHalted(static_cast<int>(i)));
    u->set_fired_this_turn(s.fired_this_turn);
    u->set_moved_this_turn(s.moved_this_turn);
    u->set_first_volley_spent(s.first_volley_spent);
    u->set_charging(s.charging);
    u->set_in_melee(s.in_melee);
    u->set_routing(s.routing);
    u->set_has_routed(s.has_routed);
    u->set_frenzied(s.frenzied);
    u->set_removed(s.removed);
    for (uint32_t r = 1; r <= 8; ++r) {
      if (s.owed_morale & rules::ReasonBit(static_cast<int>(r)))
        u->add_owed_morale_reasons(r);
    }
  }
  // Lists that point from one unit to another, in one pass each, in index
  // order (the digest depends on the order).
  for (std::size_t c = 0; c < state.units.size(); ++c) {
    const rules::UnitStatus& s = state.units[c];
    if (s.charging && s.charging_target >= 0) {
      snap.mutable_units(s.charging_target)
          ->add_charged_by(state.profiles[c].id);
    }
  }
  for (const rules::LeaderState& l : state.leaders) {
    if (!l.killed && l.attached_unit >= 0) {
      snap.mutable_units(l.attached_unit)->add_leaders(l.id);
    }
  }
  for (const rules::LeaderState& l : state.leaders) {
    v1::LeaderState* out = snap.add_leaders();
    out->set_id(l.id);
    out->set_command_rating(static_cast<uint32_t>(l.command_rating));
    if (l.attached_unit >= 0) {
      out->set_attached_unit(state.profiles[l.attached_unit].id);
    }
    out->set_killed(l.killed);
    out->set_loss_roll_owed(l.loss_roll_owed);
  }
  return snap;
}

}  // namespace

std::string StateDigestV1(const rules::BattleState& state) {
  return base::Sha256Hex(base::DeterministicBytes(DigestedV1(state)));
}

v1::BattleStateSnapshot SnapshotFromState(const rules::BattleState& state) {
  v1::BattleStateSnapshot snap = DigestedV1(state);
  // Version 2 adds where each unit stands and how it is drawn up: two games
  // whose units stand in different places differ (issue 29).
  for (std::size_t i = 0; i < state.units.size(); ++i) {
    const rules::UnitStatus& s = state.units[i];
    v1::UnitState* u = snap.mutable_units(static_cast<int>(i));
    u->set_stands_per_rank(static_cast<uint32_t>(s.stands_per_rank));
    u->set_formation(rules::FormationToProto(s.formation));
    if (s.placed) *u->mutable_position() = rules::PoseToProto(s.pose);
  }
  snap.set_digest(base::Sha256Hex(base::DeterministicBytes(snap)));
  snap.set_digest_version(kStateDigestVersion);
  AddCarryOver(state, snap);
  return snap;
}

v1::StartingPosition StartingPositionFromSnapshot(
    const v1::BattleStateSnapshot& snapshot) {
  // The two messages share their fields' names and numbers: the bytes of
  // one are the other (tests/replay/starting_position_test.cc checks it
  // field by field).
  v1::StartingPosition position;
  position.ParseFromString(snapshot.SerializeAsString());
  return position;
}

}  // namespace gunbai::replay
