#include "rules/daimyo/daimyo_engine.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "rules/daimyo/engine.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/leader_loss.h"
#include "rules/daimyo/proto_mapping.h"
#include "rules/excerpt.h"
#include "rules/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules::daimyo {

namespace {

namespace v1 = ::gunbai::v1;
using rules::Finding;
using rules::Phase;
using rules::Severity;

}  // namespace

absl::StatusOr<std::unique_ptr<DaimyoEngine>> DaimyoEngine::Create(
    const v1::BattleLog& log, const rules::daimyo::Tables& rules,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  return Create(log, rules, rules::EngineOptions(),
                rules::EngineOutput{findings, nullptr});
}

absl::StatusOr<std::unique_ptr<DaimyoEngine>> DaimyoEngine::Create(
    const v1::BattleLog& log, const rules::daimyo::Tables& rules,
    const rules::EngineOptions& options, rules::EngineOutput output) {
  std::unique_ptr<DaimyoEngine> replayer(
      new DaimyoEngine(rules, options, output));
  GUNBAI_RETURN_IF_ERROR(replayer->Init(log));
  return replayer;
}

absl::Status DaimyoEngine::Init(const v1::BattleLog& log) {
  GUNBAI_RETURN_IF_ERROR(InitOrderOfBattle(log));
  GUNBAI_RETURN_IF_ERROR(InitTable(log));
  owed_moves_.assign(state_.units.size(), OwedMove::kNone);
  owed_move_opponent_.assign(state_.units.size(), -1);
  owed_move_rounds_.assign(state_.units.size(), 0);
  may_counter_charge_.assign(state_.units.size(), -1);
  router_steps_.assign(state_.units.size(), 0);
  charged_on_turn_.assign(state_.units.size(), 0);
  rout_moved_on_turn_.assign(state_.units.size(), 0);
  fought_pairs_.reserve(state_.units.size());
  loss_rolls_made_.assign(state_.leaders.size(), 0);
  return absl::OkStatus();
}

absl::Status DaimyoEngine::AddUnitFacts(int i, const v1::Unit& u,
                                        rules::UnitProfile& p,
                                        rules::UnitStatus& s) {
  const std::optional<rules::TroopType> troop =
      rules::TroopTypeFromProto(u.troop_type());
  if (!troop.has_value()) return UnitError(i, u, "troop_type is not set");
  if (*troop == rules::TroopType::kLegendarySamurai) {
    return UnitError(i, u,
                     "legendary samurai are a Samurai Knight Fever troop "
                     "type; the Daimyo rules have none (use SAMURAI, or "
                     "audit under the \"skf\" ruleset).");
  }
  p.troop_type = *troop;
  const std::optional<rules::Quality> quality =
      rules::QualityFromProto(u.quality());
  if (!quality.has_value()) return UnitError(i, u, "quality is not set");
  p.quality = *quality;
  if (u.mobility() == v1::MOBILITY_UNSPECIFIED) {
    return UnitError(i, u, "mobility (foot or mounted) is not set.");
  }
  p.mobility = u.mobility() == v1::MOBILITY_MOUNTED ? rules::Mobility::kMounted
                                                    : rules::Mobility::kFoot;
  p.armour = rules::ArmourFromProto(u.armour());
  p.melee_weapon = rules::MeleeFromProto(u.melee_weapon());
  p.missile_weapon = rules::MissileFromProto(u.missile_weapon());
  if (u.stands() < 1 || u.stands() > static_cast<uint32_t>(kMaxStands)) {
    return UnitError(i, u,
                     absl::StrFormat("stands is %d; a unit has 1 to %d.",
                                     u.stands(), kMaxStands));
  }
  p.starting_stands = static_cast<int>(u.stands());
  s.stands = p.starting_stands;
  s.stands_per_rank = u.stands_per_rank() == 0
                          ? p.starting_stands
                          : static_cast<int>(std::min<uint32_t>(
                                u.stands_per_rank(), kMaxStands));
  s.formation = FormationFromProto(u.formation());
  s.disordered = u.starting_order() == v1::ORDER_DISORDERED;
  return absl::OkStatus();
}

absl::Status DaimyoEngine::AddLeaderFacts(int i, const v1::Leader& l,
                                          rules::LeaderState& leader) {
  if (l.kind() == v1::LEADER_KIND_UNSPECIFIED) {
    return LeaderError(i, l, "kind (General or Daimyo) is not set.");
  }
  leader.kind = l.kind() == v1::LEADER_KIND_DAIMYO
                    ? rules::LeaderKind::kDaimyo
                    : rules::LeaderKind::kGeneral;
  if (l.command_rating() < 1 || l.command_rating() > 4) {
    return LeaderError(i, l,
                       absl::StrFormat("command_rating is %d; it is 1 to 4.",
                                       l.command_rating()));
  }
  leader.command_rating = static_cast<int>(l.command_rating());
  return absl::OkStatus();
}

void DaimyoEngine::ResolveUnitList(
    const google::protobuf::RepeatedPtrField<std::string>& ids,
    absl::string_view role, std::vector<int>& out) {
  out.clear();
  if (list_mark_.size() != state_.units.size()) {
    list_mark_.assign(state_.units.size(), 0);
  }
  if (++list_generation_ == 0) {  // Wrapped: start the marks afresh.
    std::fill(list_mark_.begin(), list_mark_.end(), 0);
    list_generation_ = 1;
  }
  std::int64_t unknown = 0;
  std::int64_t repeated = 0;
  const std::string* first_unknown = nullptr;
  int first_repeated = -1;
  for (const std::string& id : ids) {
    const int u = FindUnit(id);
    if (u < 0) {
      if (unknown++ == 0) first_unknown = &id;
      continue;
    }
    if (list_mark_[u] == list_generation_) {
      if (repeated++ == 0) first_repeated = u;
      continue;
    }
    list_mark_[u] = list_generation_;
    out.push_back(u);
  }
  ReportUnitListProblems(role, unknown, first_unknown, repeated,
                         first_repeated);
}

void DaimyoEngine::ReportUnitListProblems(absl::string_view role,
                                          std::int64_t unknown,
                                          const std::string* first_unknown,
                                          std::int64_t repeated,
                                          int first_repeated) {
  if (unknown > 0) {
    Violation(
        "log.unit.unknown", Excerpt(*first_unknown),
        absl::StrFormat("The %s \"%s\" is not in the order of battle%s; "
                        "it is left out. Check the unit ids.",
                        role, Excerpt(*first_unknown),
                        unknown == 1 ? ""
                                     : absl::StrFormat(" (nor %d more ids of "
                                                       "the list)",
                                                       unknown - 1)));
  }
  if (repeated > 0) {
    Violation(
        "log.unit.listed_twice", state_.profiles[first_repeated].id,
        absl::StrFormat("%s is named more than once in the list of "
                        "%ss (%d repeats in all); each unit counts "
                        "once.",
                        UnitLabel(state_, first_repeated), role, repeated));
  }
}

void DaimyoEngine::CheckDiceFaces(
    const google::protobuf::RepeatedField<uint32_t>& dice,
    absl::string_view what, absl::string_view subject) {
  rules::CheckDieFaces(
      absl::MakeConstSpan(dice.data(), dice.size()),
      [what] { return absl::StrCat("the ", what); }, subject, *this);
}

bool DaimyoEngine::EnterPhase(Phase phase, absl::string_view what) {
  if (state_.active_clan < 0) {
    Violation(
        "daimyo.sequence.no_active_clan", "",
        absl::StrFormat("A %s before any clan was activated this turn.", what));
    return false;
  }
  if (state_.phase > phase && state_.phase <= Phase::kMelee) {
    Violation("daimyo.sequence.phase_order", "",
              absl::StrFormat("A %s during the %s phase of %s's activation; "
                              "an activation runs movement, then firing, then "
                              "melee.",
                              what, rules::PhaseName(state_.phase),
                              state_.clans[state_.active_clan]));
    return false;
  }
  if (state_.phase == Phase::kMovement && phase != Phase::kMovement) {
    CheckChargeTestsTaken();
    CheckFrenzyChargesDeclared();
  }
  state_.phase = phase;
  return true;
}

void DaimyoEngine::BeforeSequenceChecks(const v1::Event& event) {
  CheckChallengeFollowedByRound(event);
}

void DaimyoEngine::BeforeEventBody(const v1::Event& event) {
  const bool same_melee =
      (event.has_melee_round() && !pending_melee_id_.empty() &&
       event.melee_round().melee_id() == pending_melee_id_) ||
      event.has_challenge();
  if (!same_melee) SettleMelee();
}

void DaimyoEngine::OnTurnStarted(const v1::Event&) {
  end_of_turn_tests_.clear();
  fought_pairs_.clear();
}

void DaimyoEngine::OnActivation(const v1::Event& event) {
  const int clan = FindClan(event.clan());
  if (clan < 0) return;  // CheckSequence reported it.
  const std::uint32_t bit = 1u << clan;
  if (state_.activated_clans & bit) {
    Violation("daimyo.sequence.activation_twice", event.clan(),
              absl::StrFormat("%s is activated a second time in turn %d; each "
                              "clan is activated once a turn.",
                              event.clan(), state_.turn));
  }
  if (state_.active_clan >= 0) EndActivation();
  CheckResultMovesMade(
      -1, [&event] { return absl::StrCat(event.clan(), "'s activation"); });
  CheckEarlyEndOfTurnTests(event.clan());
  state_.activated_clans |= bit;
  state_.active_clan = clan;
  state_.phase = Phase::kMovement;
  StartActivation();
}

void DaimyoEngine::OnMove(const v1::Move& move) {
  const int unit = ResolveUnit(move.unit(), "moving unit");
  if (unit < 0 || !UnitOnTable(unit, "move")) return;
  EnterPhase(Phase::kMovement, "move");
  // Built only for a finding: most events break no rule.
  const auto label = [this, unit] { return UnitLabel(state_, unit); };
  rules::UnitStatus& status = state_.units[unit];
  if (state_.profiles[unit].clan != state_.active_clan &&
      state_.active_clan >= 0) {
    Violation("daimyo.move.active_clan", move.unit(),
              absl::StrCat(label(), " moved, but only the active clan moves."));
  }
  if (status.routing) {
    Violation("daimyo.move.routing", move.unit(),
              absl::StrCat(label(),
                           " is routing and moves only by rout "
                           "moves."));
  }
  if (status.in_melee) {
    Violation("daimyo.move.in_melee", move.unit(),
              absl::StrCat(label(),
                           " is in melee and may not break off "
                           "voluntarily."));
  }
  CheckMoveAfterCharge(unit);
  if (move.kind() != v1::MOVE_KIND_TURN_ABOUT) CheckHalted(unit, "moved");
  status.moved_this_turn = true;
  if (move.formation() != v1::FORMATION_UNSPECIFIED) {
    status.formation = FormationFromProto(move.formation());
  }
  if (move.stands_per_rank() > 0) {
    status.stands_per_rank = static_cast<int>(
        std::min<uint32_t>(move.stands_per_rank(), kMaxStands));
    state_.FootprintChanged(unit);
  }
  MeasureMove(move, unit);
}

void DaimyoEngine::OnCharge(const v1::ChargeDeclaration& charge) {
  const int unit = ResolveUnit(charge.unit(), "charging unit");
  const int target = ResolveUnit(charge.target(), "charge target");
  if (unit < 0 || target < 0 || !UnitOnTable(unit, "charge")) return;
  EnterPhase(Phase::kMovement, "charge declaration");
  CheckChargeDeclared(charge, unit, target);
  UnitOnTable(target, "be charged");
  rules::DeclareCharge(state_, unit, target, charge.fell_short());
  MeasureCharge(charge, unit, target);
  rules::UnitStatus& target_status = state_.units[target];
  if (target_status.routing && !charge.fell_short() &&
      target_status.removal_owed.empty()) {
    target_status.removal_owed = "contacted by chargers while routing";
  }
  OweChargeTests(unit, target, charge.counter_charge());
  // A new charge between two units that fought earlier this turn brings a
  // new melee: they may fight again (the charged unit fights "as normal").
  const std::pair<int, int> pair(std::min(unit, target),
                                 std::max(unit, target));
  fought_pairs_.erase(
      std::remove(fought_pairs_.begin(), fought_pairs_.end(), pair),
      fought_pairs_.end());
}

void DaimyoEngine::CheckChargeDeclared(const v1::ChargeDeclaration& charge,
                                       int unit, int target) {
  // Built only for a finding: most events break no rule.
  const auto label = [this, unit] { return UnitLabel(state_, unit); };
  const rules::UnitStatus& status = state_.units[unit];
  if (charge.counter_charge()) {
    CheckCounterCharge(unit, target);
  } else if (state_.profiles[unit].clan != state_.active_clan &&
             state_.active_clan >= 0) {
    Violation("daimyo.charge.active_clan", charge.unit(),
              absl::StrCat(label(),
                           " declared a charge, but only the active "
                           "clan charges."));
  }
  CheckHalted(unit, "declared a charge");
  if (state_.profiles[target].clan == state_.profiles[unit].clan) {
    Violation("daimyo.charge.target_enemy", charge.unit(),
              absl::StrCat(label(), " declared a charge on ",
                           UnitLabel(state_, target),
                           ", which is not an enemy unit."));
  }
  if (status.routing || status.in_melee) {
    Violation(
        "daimyo.charge.eligibility", charge.unit(),
        absl::StrCat(label(), " is ", status.routing ? "routing" : "in melee",
                     " and may not declare a charge."));
  }
  CheckChargeOnceATurn(unit, charge.counter_charge());
}

void DaimyoEngine::OnFiring(const v1::Event& event) {
  const v1::Firing& firing = event.firing();
  const int firer = ResolveUnit(firing.unit(), "firing unit");
  const int target = ResolveUnit(firing.target(), "target");
  if (firer < 0 || target < 0 || !UnitOnTable(firer, "fire")) return;
  EnterPhase(Phase::kFiring, "firing");
  if (!event.clan().empty() &&
      FindClan(event.clan()) != state_.profiles[firer].clan) {
    Violation("log.event.clan", firing.unit(),
              absl::StrFormat("The event's acting clan is %s but %s belongs "
                              "to %s.",
                              event.clan(), UnitLabel(state_, firer),
                              state_.clans[state_.profiles[firer].clan]));
  }
  rules::daimyo::Shot shot = ShotFromProto(firing, firer, target);
  MeasureFiring(shot);
  const bool resolvable =
      rules::daimyo::CheckFiring(rules_, state_, shot, *this);
  int hits = resolvable ? ComputedFiringHits(firing, shot) : 0;
  if (resolvable && FollowComputed()) {
    ApplyComputedFiring(firing, shot, hits);
    return;
  }
  if (firing.has_claimed_hits()) {
    hits = static_cast<int>(std::min<uint32_t>(firing.claimed_hits(), 1000));
  } else if (!resolvable) {
    Unverifiable("daimyo.fire.hit", firing.unit(),
                 "The dice cannot be read and the log claims no hits; replay "
                 "lands no hits.");
  }
  const int stands_lost = ClaimedFiringStandsLost(firing, target, hits);
  rules::daimyo::ApplyFiring(rules_, state_, shot, hits, stands_lost);
}

int DaimyoEngine::ComputedFiringHits(const v1::Firing& firing,
                                     const rules::daimyo::Shot& shot) {
  // Resolved once, with its trace when the outcome is recorded; the
  // dispute copies that trace (before the outcome takes it).
  rules::Trace trace;
  const bool traced = recording_outcomes();
  const rules::daimyo::FiringResolution res = rules::daimyo::ResolveFiring(
      rules_, state_, shot, traced ? &trace : nullptr);
  const int hits = res.hits;
  if (firing.has_claimed_hits() && firing.claimed_hits() != uint32_t(hits)) {
    ReportFiringDispute(firing, shot, res, traced ? &trace : nullptr);
  }
  if (traced) {
    RecordOutcome(firing.unit(), "hits", absl::StrCat(hits), &trace);
  }
  return hits;
}

int DaimyoEngine::ClaimedFiringStandsLost(const v1::Firing& firing, int target,
                                          int hits) {
  int stands_lost = -1;
  if (recording_outcomes()) {
    const rules::UnitStatus& t = state_.units[target];
    rules::Trace trace = rules::StandLossTrace(t, hits, rules_.hits_per_stand,
                                               "daimyo.fire.stand_loss");
    RecordOutcome(
        firing.target(), "stands_lost",
        absl::StrCat(rules::StandsLost(t, hits, rules_.hits_per_stand)),
        &trace);
  }
  if (firing.has_claimed_stands_lost()) {
    const rules::UnitStatus& t = state_.units[target];
    const int computed = rules::StandsLost(t, hits, rules_.hits_per_stand);
    stands_lost = static_cast<int>(
        std::min<uint32_t>(firing.claimed_stands_lost(), kMaxStands));
    if (stands_lost != computed) {
      ReportStandLossDispute("daimyo.fire.stand_loss", target, hits,
                             stands_lost, computed);
    }
  }
  return stands_lost;
}

void DaimyoEngine::ApplyComputedFiring(const v1::Firing& firing,
                                       const rules::daimyo::Shot& shot,
                                       int hits) {
  // What if: the computed hits stand, and the stands they remove.
  const rules::UnitStatus& t = state_.units[shot.target];
  const int stands_lost = rules::StandsLost(t, hits, rules_.hits_per_stand);
  if (recording_outcomes()) {
    rules::Trace trace = rules::StandLossTrace(t, hits, rules_.hits_per_stand,
                                               "daimyo.fire.stand_loss");
    RecordOutcome(firing.target(), "stands_lost", absl::StrCat(stands_lost),
                  &trace);
  }
  if (branch_event_ != nullptr) {
    v1::Firing* claims = branch_event_->mutable_firing();
    if (claims->has_claimed_hits()) claims->set_claimed_hits(hits);
    if (claims->has_claimed_stands_lost()) {
      claims->set_claimed_stands_lost(stands_lost);
    }
  }
  rules::daimyo::ApplyFiring(rules_, state_, shot, hits, -1);
}

void DaimyoEngine::ReportFiringDispute(
    const v1::Firing& firing, const rules::daimyo::Shot& shot,
    const rules::daimyo::FiringResolution& res, const rules::Trace* trace) {
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = "daimyo.fire.hit";
  f.subject = firing.unit();
  if (trace != nullptr) {
    f.trace = *trace;
  } else {
    rules::daimyo::ResolveFiring(rules_, state_, shot, &f.trace);
  }
  const int computed = res.hits;
  f.claimed = HitsInWords(firing.claimed_hits());
  f.computed = HitsInWords(computed);
  f.message = absl::StrFormat(
      "%s firing at %s: the log claims %d hit%s, the dice give %d (each "
      "stand's 2d6 %+d, %d or more hits).",
      UnitLabel(state_, shot.firer), UnitLabel(state_, shot.target),
      firing.claimed_hits(), firing.claimed_hits() == 1 ? "" : "s", computed,
      res.modifier, rules_.firing.hit_score);
  Report(std::move(f));
}

void DaimyoEngine::ReportStandLossDispute(absl::string_view rule_id, int target,
                                          int hits, int claimed, int computed) {
  const rules::UnitStatus& t = state_.units[target];
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = rule_id;
  f.subject = state_.profiles[target].id;
  f.claimed = absl::StrCat(claimed, " stands lost");
  f.computed = absl::StrCat(computed, " stands lost");
  f.trace.push_back({t.carried_hits, "hits carried from before", rule_id,
                     rules::Origin::kComputed});
  f.trace.push_back({hits, "hits of this firing, as played", rule_id,
                     rules::Origin::kComputed});
  f.trace.push_back(
      {computed,
       absl::StrFormat(
           "(%d + %d) / %d = %d stands lost, %d hits carry over",
           t.carried_hits, hits, rules_.hits_per_stand, computed,
           t.carried_hits + hits - computed * rules_.hits_per_stand),
       rule_id, rules::Origin::kComputed});
  f.message = absl::StrFormat(
      "%s: the log claims %d stand%s lost, but %d carried + %d new hits "
      "remove %d (one stand per %d hits).",
      UnitLabel(state_, target), claimed, claimed == 1 ? "" : "s",
      t.carried_hits, hits, computed, rules_.hits_per_stand);
  Report(std::move(f));
}

void DaimyoEngine::OnLeaderLoss(const v1::LeaderLossRoll& roll) {
  const int leader = ResolveLeader(roll.leader());
  if (leader < 0) return;
  rules::LeaderState& l = state_.leaders[leader];
  if (!l.loss_roll_owed) {
    Violation("daimyo.leader_loss.not_owed", roll.leader(),
              absl::StrFormat("%s rolls for leader loss, but no roll is owed: "
                              "a leader rolls when his unit loses a stand.",
                              l.name.empty() ? l.id : l.name));
    return;
  }
  if (roll.die() < 1 || roll.die() > 6) {
    Violation("log.die.range", roll.leader(),
              absl::StrFormat("The leader-loss die reads %d; a die reads 1 to "
                              "6.",
                              roll.die()));
    ApplyLeaderLoss(leader, roll.has_claimed_killed() && roll.claimed_killed());
    return;
  }
  l.loss_roll_stands_left =
      rules::daimyo::LeaderRollStandsCounted(rules_, state_, l);
  const auto res = rules::daimyo::ResolveLeaderLoss(
      rules_, l, static_cast<int>(roll.die()), nullptr);
  bool killed = res.killed;
  if (recording_outcomes()) {
    rules::Trace trace;
    rules::daimyo::ResolveLeaderLoss(rules_, l, static_cast<int>(roll.die()),
                                     &trace);
    RecordOutcome(roll.leader(), "killed", res.killed ? "killed" : "survives",
                  &trace);
  }
  if (roll.has_claimed_killed() && roll.claimed_killed() != res.killed) {
    killed = SettleLeaderLossDispute(roll, l, res);
  }
  const int unit = state_.leaders[leader].attached_unit;
  ApplyLeaderLoss(leader, killed);
  if (killed && unit >= 0) OweLeaderDeathTests(unit, roll.units_near());
}

bool DaimyoEngine::SettleLeaderLossDispute(
    const v1::LeaderLossRoll& roll, const rules::LeaderState& l,
    const rules::daimyo::LeaderLossResolution& res) {
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = "daimyo.leader_loss.roll";
  f.subject = roll.leader();
  rules::daimyo::ResolveLeaderLoss(rules_, l, static_cast<int>(roll.die()),
                                   &f.trace);
  f.claimed = roll.claimed_killed() ? "killed" : "survives";
  f.computed = res.killed ? "killed" : "survives";
  f.message = absl::StrFormat(
      "%s: the log says the leader %s, but %d on the die + %d stands left "
      "= %d, and %d or less kills.",
      l.name.empty() ? l.id : l.name, f.claimed, roll.die(),
      l.loss_roll_stands_left, res.total, rules_.leader_killed_at_or_below);
  Report(std::move(f));
  if (FollowComputed() && branch_event_ != nullptr) {
    branch_event_->mutable_leader_loss()->set_claimed_killed(res.killed);
  }
  return FollowComputed() ? res.killed : roll.claimed_killed();
}

void DaimyoEngine::ApplyLeaderLoss(int leader, bool killed) {
  ++loss_rolls_made_[static_cast<std::size_t>(leader)];
  rules::daimyo::ApplyLeaderLoss(state_, leader, killed);
}

void DaimyoEngine::CheckOwedRolls() {
  for (std::size_t i = 0; i < state_.leaders.size(); ++i) {
    rules::LeaderState& leader = state_.leaders[i];
    const int owed = rules::LeaderLossRollsOwed(leader);
    const int made = loss_rolls_made_[i];
    loss_rolls_made_[i] = 0;
    if (owed == 0) continue;
    if (made > 0) {
      // Some of the rolls were made: say how many, and how many are left.
      Violation(
          "daimyo.leader_loss.missing", leader.id,
          absl::StrFormat(
              "%s's unit lost %d stands this turn, which owe %d leader-loss "
              "rolls, one for each stand lost; the log has %d and still owes "
              "%d. Roll 1d6 + stands left, %d or less kills.",
              leader.name.empty() ? leader.id : leader.name, made + owed,
              made + owed, made, owed, rules_.leader_killed_at_or_below));
      rules::SettleLeaderLossRoll(leader, /*killed=*/true);
      continue;
    }
    Violation("daimyo.leader_loss.missing", leader.id,
              owed == 1
                  ? absl::StrFormat(
                        "%s's unit lost a stand this turn but the log has no "
                        "leader-loss roll for him; roll 1d6 + stands left, %d "
                        "or less kills.",
                        leader.name.empty() ? leader.id : leader.name,
                        rules_.leader_killed_at_or_below)
                  : absl::StrFormat(
                        "%s's unit lost stands this turn and the log still "
                        "owes %d leader-loss rolls for him, one for each "
                        "stand lost; roll 1d6 + stands left, %d or less "
                        "kills.",
                        leader.name.empty() ? leader.id : leader.name, owed,
                        rules_.leader_killed_at_or_below));
    rules::SettleLeaderLossRoll(leader, /*killed=*/true);
  }
}

void DaimyoEngine::CloseTurn() {
  if (state_.active_clan >= 0) EndActivation();
  // A game that ends in a turn no clan has begun (the turn_start a
  // server-dice game appends after the last turn's end, say) leaves that
  // turn unplayed: its activations owe nothing (reading 33).
  const bool unplayed = ending_game() && state_.activated_clans == 0 &&
                        state_.turn_ended_clans == 0;
  if (!unplayed) CheckRoutersOfClansNotActivated();
  CheckOwedRolls();
  if (!unplayed) CheckMeleeAtTurnEnd();
  CheckEndOfTurnTestsTaken();
}

void DaimyoEngine::OnLogEnd() {
  CheckChallengeFollowedByRound(v1::Event());  // The log ends awaiting it.
  SettleMelee();
  ReportUnfinishedTurn();
}

void DaimyoEngine::ReportUnfinishedTurn() {
  // A log may stop mid-turn (a game still being played). What falls due at
  // the end of the turn is not overdue yet; the report lists it instead.
  if (state_.phase == Phase::kTurnEnded || state_.phase == Phase::kGameOver ||
      state_.phase == Phase::kBeforeGame) {
    return;
  }
  std::vector<std::string> pending;
  for (const rules::LeaderState& l : state_.leaders) {
    const int owed = rules::LeaderLossRollsOwed(l);
    if (owed == 1) pending.push_back(l.id + " a leader-loss roll");
    if (owed > 1) {
      pending.push_back(absl::StrCat(l.id, " ", owed, " leader-loss rolls"));
    }
  }
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    const rules::UnitStatus& s = state_.units[u];
    const std::string& id = state_.profiles[u].id;
    if (s.removed) continue;
    if (owed_moves_[u] != OwedMove::kNone) {
      pending.push_back(id + " a result move");
    }
    if (s.owed_morale != 0 && !s.frenzied) {
      pending.push_back(id + " a morale test");
    }
    if (!s.removal_owed.empty()) pending.push_back(id + " its removal");
  }
  if (pending.empty()) return;
  Finding f;
  f.severity = Severity::kUnverifiable;
  f.rule_id = "log.turn_unfinished";
  f.message = absl::StrCat(
      "The log stops in the middle of turn ", state_.turn,
      "; these fall due by the end of the turn and are not checked: ",
      absl::StrJoin(pending, "; "), ".");
  Report(std::move(f));
}

absl::StatusOr<std::unique_ptr<Engine>> CreateDaimyoEngine(
    const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
    const EngineOptions& options, EngineOutput output) {
  auto replayer =
      DaimyoEngine::Create(log, DaimyoRulesFromData(data), options, output);
  if (!replayer.ok()) return replayer.status();
  return std::unique_ptr<Engine>(*std::move(replayer));
}

}  // namespace gunbai::rules::daimyo
