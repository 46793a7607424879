// The move generator of the DaimyoEngine (rules/engine.h,
// Engine::ProposeEvents): what a clan may append next, read from the state and
// the DaimyoEngine's own bookkeeping (owed tests and moves, charges and rout
// moves made this turn, leave to counter-charge), and on a table from the tape
// measure (a volley's range band, arc and sight). A proposal is pseudo-legal:
// the engine's checks decide when it is tried (replay/legal_actions.h), so that
// the audit and the forms share one set of rules. What may be proposed is
// stated in RULES.md, "What may happen next". See daimyo_engine.h.
#include <algorithm>
#include <cmath>
#include <vector>

#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/measure.h"
#include "rules/proto_enums.h"

namespace gunbai::rules::daimyo {

namespace {

namespace v1 = ::gunbai::v1;

constexpr MoraleReasons kChargeTestReasons =
    ReasonBit(2) | ReasonBit(3) | ReasonBit(4);
constexpr MoraleReasons kEndOfTurnTestReasons =
    ReasonBit(1) | ReasonBit(5) | ReasonBit(6) | ReasonBit(7);

}  // namespace

// The proposals being listed for one clan.
struct DaimyoEngine::Proposals {
  std::vector<ProposedEvent>& out;
  const std::string& clan_id;

  ProposedEvent& operator()(absl::string_view kind, int unit, int target) {
    ProposedEvent& p = out.emplace_back();
    p.kind = kind;
    p.unit = unit;
    p.target = target;
    p.event.set_clan(clan_id);
    return p;
  }
};

std::unique_ptr<Engine> DaimyoEngine::Clone(EngineOutput output) const {
  std::unique_ptr<DaimyoEngine> copy(new DaimyoEngine(*this));
  copy->SetOutput(output);
  return copy;
}

bool DaimyoEngine::ProposeEvents(int clan, bool umpire,
                                 std::vector<ProposedEvent>& out) const {
  if (!pending_pairings_.empty()) {
    // A melee round's results settle at the next event that is not a round
    // of the same melee: what they owe (push backs, routs, follow-ups, tests)
    // is read from a copy settled as that event would settle it.
    std::unique_ptr<DaimyoEngine> settled(new DaimyoEngine(*this));
    settled->SetOutput(EngineOutput{});
    settled->SettleMelee();
    return settled->ProposeEvents(clan, umpire, out);
  }
  const BattleState& s = state_;
  const bool frenzy_owed = FrenzyChargeOwed();
  if (!ProposeTurnFrame(clan, umpire, out)) return true;
  // A clan that has ended its part of the turn may still pay what the
  // turn's end owes (tests, leader-loss rolls, result moves, removals).
  const bool ended = (s.turn_ended_clans >> clan & 1u) != 0;
  const std::string& clan_id = s.clans[static_cast<std::size_t>(clan)];
  Proposals add{out, clan_id};
  const bool active = s.active_clan == clan && !ended;
  ProposeLeaderLossRolls(clan, add);
  for (int u = 0; u < static_cast<int>(s.units.size()); ++u) {
    const UnitStatus& st = s.units[static_cast<std::size_t>(u)];
    if (s.profiles[static_cast<std::size_t>(u)].clan != clan || st.removed) {
      continue;
    }
    ProposeForUnit(u, active, ended, frenzy_owed, add);
  }
  if (ended) return true;
  if (frenzy_owed) {
    if (!active) add("turn_end", -1, -1).event.mutable_turn_end();
    return true;
  }
  ProposeMeleeRounds(clan, add);
  add("turn_end", -1, -1).event.mutable_turn_end();
  return true;
}

bool DaimyoEngine::FrenzyChargeOwed() const {
  // A frenzied unit of the active clan owes its charge, which only the
  // movement phase takes: nothing that ends the phase (a volley, a melee
  // round, the activation's end) is proposed until it is declared.
  return std::any_of(frenzied_this_activation_.begin(),
                     frenzied_this_activation_.end(),
                     [this](int u) { return OwesFrenzyCharge(u); });
}

void DaimyoEngine::ProposeForUnit(int u, bool active, bool ended,
                                  bool frenzy_owed, Proposals& add) const {
  const UnitStatus& st = state_.units[static_cast<std::size_t>(u)];
  ProposeOwed(u, add);
  if (ended) return;
  ProposeCounterCharge(u, add);
  if (!frenzy_owed) ProposeFirings(u, add);
  // A charge is the charger's move for the turn (reading 39).
  const bool charged =
      charged_on_turn_[static_cast<std::size_t>(u)] == state_.turn;
  if (active && !st.routing && !st.in_melee && !charged) {
    ProposeMovesAndCharges(u, add);
  }
}

void DaimyoEngine::ProposeLeaderLossRolls(int clan, Proposals& add) const {
  const BattleState& s = state_;
  for (std::size_t l = 0; l < s.leaders.size(); ++l) {
    const LeaderState& leader = s.leaders[l];
    if (leader.clan != clan || !leader.loss_roll_owed) continue;
    ProposedEvent& roll = add("leader_loss", leader.attached_unit, -1);
    roll.leader = static_cast<int>(l);
    roll.event.mutable_leader_loss()->set_leader(leader.id);
  }
}

void DaimyoEngine::ProposeOwed(int u, Proposals& add) const {
  const BattleState& s = state_;
  const UnitProfile& me = s.profiles[static_cast<std::size_t>(u)];
  const UnitStatus& st = s.units[static_cast<std::size_t>(u)];
  if (!st.removal_owed.empty()) {
    v1::Removal& removal = *add("removal", u, -1).event.mutable_removal();
    removal.set_unit(me.id);
    removal.set_reason(st.removal_owed);
  }
  // Every clan has been activated this turn or has ended its part.
  const std::uint32_t every = (std::uint32_t{1} << s.clans.size()) - 1;
  const bool all_in =
      ((s.activated_clans | s.turn_ended_clans) & every) == every;
  // Owed tests: once for each group owed, for the highest reason; a
  // router's rally test (reason 8).
  for (const MoraleReasons group :
       {kChargeTestReasons, kEndOfTurnTestReasons}) {
    const MoraleReasons owed = st.owed_morale & group;
    if (owed == 0 || st.frenzied) continue;
    // End-of-turn tests come after the last activation: while a clan may
    // still be activated, one taken now would be early once it is
    // (daimyo.morale.timing, found only then), and the game could not go
    // on cleanly.
    if (group == kEndOfTurnTestReasons && !all_in) continue;
    // A result move still owed comes first: a test whose result owes
    // another move would find it missing (reading 34), whatever the dice.
    if (OwesCompulsoryMove(u)) continue;
    v1::MoraleTest& test = *add("morale", u, -1).event.mutable_morale_test();
    test.set_unit(me.id);
    test.set_reason(static_cast<std::uint32_t>(HighestReason(owed)));
  }
  if (st.routing) {
    v1::MoraleTest& rally = *add("morale", u, -1).event.mutable_morale_test();
    rally.set_unit(me.id);
    rally.set_reason(8);
  }
  ProposeResultMoves(u, add);
}

void DaimyoEngine::ProposeCounterCharge(int u, Proposals& add) const {
  const int charger = may_counter_charge_[static_cast<std::size_t>(u)];
  if (charger < 0) return;
  ProposedEvent& offer = add("charge", u, charger);
  v1::ChargeDeclaration& counter = *offer.event.mutable_charge();
  counter.set_unit(state_.profiles[static_cast<std::size_t>(u)].id);
  counter.set_target(state_.profiles[static_cast<std::size_t>(charger)].id);
  counter.set_counter_charge(true);
  ProposeChargeEnd(u, charger, offer);
}

void DaimyoEngine::ProposeMovesAndCharges(int u, Proposals& add) const {
  const BattleState& s = state_;
  const UnitProfile& me = s.profiles[static_cast<std::size_t>(u)];
  static constexpr v1::MoveKind kMoves[] = {
      v1::MOVE_KIND_MOVE, v1::MOVE_KIND_MANOEUVRE, v1::MOVE_KIND_TURN_ABOUT};
  for (const v1::MoveKind kind : kMoves) {
    ProposedEvent& move = add("move", u, -1);
    move.event.mutable_move()->set_unit(me.id);
    move.event.mutable_move()->set_kind(kind);
    if (Measuring(u)) {
      move.needs_destination = kind != v1::MOVE_KIND_TURN_ABOUT;
      move.reach_mm = field_->move_mm[static_cast<std::size_t>(u)];
    }
  }
  for (int e = 0; e < static_cast<int>(s.units.size()); ++e) {
    const UnitProfile& enemy = s.profiles[static_cast<std::size_t>(e)];
    if (enemy.clan == me.clan || s.units[static_cast<std::size_t>(e)].removed) {
      continue;
    }
    ProposedEvent& offer = add("charge", u, e);
    v1::ChargeDeclaration& charge = *offer.event.mutable_charge();
    charge.set_unit(me.id);
    charge.set_target(enemy.id);
    ProposeChargeEnd(u, e, offer);
  }
}

void DaimyoEngine::ProposeMeleeRounds(int clan, Proposals& add) const {
  const BattleState& s = state_;
  // Melee rounds: each contact the clan's units are in, once (the clan
  // whose unit comes first in the order of battle offers it; either may
  // append it).
  for (const MeleeContact& m : s.melees) {
    ProposeMeleeRound(m.a, m.b, clan, add);
  }
  for (int u = 0; u < static_cast<int>(s.units.size()); ++u) {
    const UnitStatus& st = s.units[static_cast<std::size_t>(u)];
    if (st.removed) continue;
    const int contact = st.charged_into_contact_with >= 0
                            ? st.charged_into_contact_with
                            : st.charging_target;
    if (contact < 0 || s.FindMelee(u, contact) != nullptr ||
        FoughtThisTurn(u, contact)) {
      continue;
    }
    ProposeMeleeRound(u, contact, clan, add);
  }
}

void DaimyoEngine::ProposeResultMoves(int u, Proposals& add) const {
  const auto propose = [&](v1::ResultMoveKind kind) {
    ProposeResultMove(u, kind, add);
  };
  switch (owed_moves_[static_cast<std::size_t>(u)]) {
    case OwedMove::kNone:
      return ProposeUnowedResultMoves(u, add);
    case OwedMove::kPushBack:
      return propose(v1::RESULT_MOVE_KIND_PUSH_BACK);
    case OwedMove::kRout:
      return propose(v1::RESULT_MOVE_KIND_ROUT);
    case OwedMove::kFollowUp:
      return propose(v1::RESULT_MOVE_KIND_FOLLOW_UP);
    case OwedMove::kPursue:
      return propose(v1::RESULT_MOVE_KIND_PURSUIT);
    case OwedMove::kMayFollowUp:
      propose(v1::RESULT_MOVE_KIND_FOLLOW_UP);
      return propose(v1::RESULT_MOVE_KIND_HOLD);
    case OwedMove::kMayPursue:
      propose(v1::RESULT_MOVE_KIND_PURSUIT);
      return propose(v1::RESULT_MOVE_KIND_HOLD);
    case OwedMove::kMayFollowUpOrPursue:
      propose(v1::RESULT_MOVE_KIND_FOLLOW_UP);
      propose(v1::RESULT_MOVE_KIND_PURSUIT);
      return propose(v1::RESULT_MOVE_KIND_HOLD);
    case OwedMove::kHold:
      return propose(v1::RESULT_MOVE_KIND_HOLD);
    case OwedMove::kRetire:
      return propose(v1::RESULT_MOVE_KIND_RETIRE);
    case OwedMove::kRetreat:
      return propose(v1::RESULT_MOVE_KIND_RETREAT);
    case OwedMove::kMayRetire:
      return propose(v1::RESULT_MOVE_KIND_RETIRE);
  }
}

void DaimyoEngine::ProposeUnowedResultMoves(int u, Proposals& add) const {
  const UnitStatus& st = state_.units[static_cast<std::size_t>(u)];
  // A router's continuing rout move, once a turn.
  if (st.routing && !RoutMovedThisTurn(u)) {
    ProposeResultMove(u, v1::RESULT_MOVE_KIND_ROUT, add);
  }
  // A frenzied pursuer pursues on, once a turn.
  if (st.frenzied && st.pursued_on_turn > 0 &&
      st.pursued_on_turn < state_.turn) {
    ProposeResultMove(u, v1::RESULT_MOVE_KIND_PURSUIT, add);
  }
}

void DaimyoEngine::ProposeResultMove(int u, v1::ResultMoveKind kind,
                                     Proposals& add) const {
  // On a table the winner follows the loser (reading 35): its follow-up or
  // pursuit waits for the loser's push back or rout.
  if ((kind == v1::RESULT_MOVE_KIND_FOLLOW_UP ||
       kind == v1::RESULT_MOVE_KIND_PURSUIT) &&
      FollowsLoserStillToMove(u)) {
    return;
  }
  v1::ResultMove& move = *add("result_move", u, -1).event.mutable_result_move();
  move.set_unit(state_.profiles[static_cast<std::size_t>(u)].id);
  move.set_kind(kind);
  // On a table the block of a push back or a rout is measured: the offer
  // declares what the engine will find.
  if (kind == v1::RESULT_MOVE_KIND_PUSH_BACK ||
      kind == v1::RESULT_MOVE_KIND_ROUT) {
    if (const auto end = ResultMoveEnd(move, u); end.has_value()) {
      const v1::MoveBlock block = MeasuredBlock(move, *end);
      if (block != v1::MOVE_BLOCK_NONE) move.set_blocked(block);
    }
  }
}

void DaimyoEngine::ProposeFirings(int u, Proposals& add) const {
  const BattleState& s = state_;
  const UnitProfile& me = s.profiles[static_cast<std::size_t>(u)];
  const UnitStatus& st = s.units[static_cast<std::size_t>(u)];
  if (me.missile_weapon == MissileWeapon::kNone || st.fired_this_turn ||
      st.routing || st.removed) {
    return;
  }
  Shot probe;
  probe.firer = u;
  const int most = MaxFiringStands(rules_, s, probe);
  if (most <= 0) return;
  const int units = static_cast<int>(s.units.size());
  for (int e = 0; e < units; ++e) {
    const UnitProfile& enemy = s.profiles[static_cast<std::size_t>(e)];
    if (enemy.clan == me.clan || s.units[static_cast<std::size_t>(e)].removed)
      continue;
    ProposedEvent* fire = nullptr;
    if (Measuring(u) && Measuring(e)) {
      fire = ProposeMeasuredFiring(u, e, add);
      if (fire == nullptr) continue;
    } else {
      // Without a table the players declare the band: either may be.
      fire = &add("fire", u, e);
      fire->ranges.push_back(v1::RANGE_BAND_EFFECTIVE);
      fire->ranges.push_back(v1::RANGE_BAND_LONG);
      fire->event.mutable_firing()->mutable_facts()->set_range(
          v1::RANGE_BAND_EFFECTIVE);
    }
    fire->max_stands = most;
    v1::Firing& firing = *fire->event.mutable_firing();
    firing.set_unit(me.id);
    firing.set_target(enemy.id);
    firing.set_stands_firing(static_cast<std::uint32_t>(most));
  }
}

ProposedEvent* DaimyoEngine::ProposeMeasuredFiring(int u, int e,
                                                   Proposals& add) const {
  // On a table the tape measure settles the band: a target out of
  // range, arc or sight is not proposed.
  const ShotMeasure m = MeasureShot(rules_, *field_, state_, u, e);
  if (!m.in_arc || !m.line_of_sight ||
      BandAt(rules_, m.distance, m.woods_limit) == RangeBand::kOutOfRange) {
    return nullptr;
  }
  Shot shot;
  shot.firer = u;
  shot.target = e;
  shot.facts.distance_mm = static_cast<int>(std::lround(m.distance * 10));
  shot.facts.woods_limit = m.woods_limit;
  shot.facts.measured = true;
  const ResolvedBand band = ResolveBand(rules_, state_, shot);
  ProposedEvent* fire = &add("fire", u, e);
  fire->ranges.push_back(BandToProto(band.band));
  v1::FiringFacts& facts = *fire->event.mutable_firing()->mutable_facts();
  facts.set_distance_mm(static_cast<std::uint32_t>(*shot.facts.distance_mm));
  facts.set_range(BandToProto(band.band));
  return fire;
}

void DaimyoEngine::ProposeChargeEnd(int u, int target,
                                    rules::ProposedEvent& offer) const {
  // On a table a charge moves into contact (reading 37): the offer says
  // where, and the player may change it. Units already touching stay.
  if (!Measuring(u) || !Measuring(target) ||
      rules::InContact(*field_, state_, u, target)) {
    return;
  }
  const int reach = field_->move_mm[static_cast<std::size_t>(u)];
  const ChargeEnd end = ReachableChargeEnd(*field_, state_, u, target, reach);
  v1::ChargeDeclaration& charge = *offer.event.mutable_charge();
  v1::Position& to = *charge.mutable_to();
  to.set_x_mm(end.to.x_mm);
  to.set_y_mm(end.to.y_mm);
  to.set_facing_deg(end.to.facing_deg);
  if (end.falls_short) charge.set_fell_short(true);
  offer.needs_destination = true;
  offer.reach_mm = reach;
}

void DaimyoEngine::ProposeMeleeRound(int a, int b, int clan,
                                     Proposals& add) const {
  const BattleState& s = state_;
  if (a < 0 || b < 0) return;
  const UnitProfile& pa = s.profiles[static_cast<std::size_t>(a)];
  const UnitProfile& pb = s.profiles[static_cast<std::size_t>(b)];
  if (pa.clan == pb.clan || (pa.clan != clan && pb.clan != clan)) return;
  if (s.units[static_cast<std::size_t>(a)].removed ||
      s.units[static_cast<std::size_t>(b)].removed) {
    return;
  }
  // A unit that owes a result move makes it first (reading 34).
  if (OwesCompulsoryMove(a) || OwesCompulsoryMove(b)) return;
  // The clan's own unit first.
  if (pa.clan != clan) std::swap(a, b);
  ProposedEvent& round = add("melee", a, b);
  v1::MeleeRound& r = *round.event.mutable_melee_round();
  // On a table a first round's front contact is the measured one.
  const bool measured = Measuring(a) && Measuring(b) && NextRound(s, a, b) == 1;
  for (const int side : {a, b}) {
    const UnitStatus& st = s.units[static_cast<std::size_t>(side)];
    v1::MeleeSide& out = *r.add_sides();
    out.set_unit(s.profiles[static_cast<std::size_t>(side)].id);
    out.set_stands_fighting(static_cast<std::uint32_t>(st.stands));
    int front = std::min(st.stands, std::max(st.stands_per_rank, 1));
    if (measured) {
      const int in_contact =
          MeasureMeleeSide(*field_, s, side, side == a ? b : a)
              .front_stands_in_contact;
      if (in_contact > 0) front = in_contact;
    }
    out.set_front_stands_in_contact(static_cast<std::uint32_t>(front));
  }
  round.max_stands = s.units[static_cast<std::size_t>(a)].stands;
}

}  // namespace gunbai::rules::daimyo
