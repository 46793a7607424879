// The Samurai Knight Fever engine: the order of battle, findings, the turn
// sequence and the events page 6 does not cover. See engine.h.
#include "rules/skf/engine.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "rules/skf/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules::skf {

namespace v1 = ::gunbai::v1;

absl::StatusOr<std::unique_ptr<SkfEngine>> SkfEngine::Create(
    const v1::BattleLog& log, Tables tables, const EngineOptions& options,
    EngineOutput output) {
  std::unique_ptr<SkfEngine> engine(
      new SkfEngine(std::move(tables), options, output));
  GUNBAI_RETURN_IF_ERROR(engine->Init(log));
  return engine;
}

absl::Status SkfEngine::Init(const v1::BattleLog& log) {
  GUNBAI_RETURN_IF_ERROR(InitOrderOfBattle(log));
  const std::size_t units = state_.units.size();
  bases_in_melee_.assign(units, 0);
  pairings_in_melee_.assign(units, 0);
  morale_due_.assign(units, MoraleDue::kNone);
  bases_lost_in_melee_.assign(units, 0);
  leader_rolls_owed_.assign(state_.leaders.size(), 0);
  // A starting position's leader owing a roll owes one (the count of a
  // melee's rolls owed is not in the state).
  for (std::size_t l = 0; l < state_.leaders.size(); ++l) {
    if (state_.leaders[l].loss_roll_owed) leader_rolls_owed_[l] = 1;
  }
  unit_leaders_.assign(units, {});
  for (std::size_t l = 0; l < state_.leaders.size(); ++l) {
    const int unit = state_.leaders[l].attached_unit;
    if (unit >= 0) unit_leaders_[unit].push_back(static_cast<int>(l));
  }
  return absl::OkStatus();
}

absl::Status SkfEngine::AddUnitFacts(int i, const v1::Unit& u, UnitProfile& p,
                                     UnitStatus& s) {
  std::optional<TroopType> troop = TroopTypeFromProto(u.troop_type());
  if (!troop.has_value()) {
    return UnitError(i, u,
                     "troop_type is not set (it gives the unit's melee value "
                     "and victory points).");
  }
  p.troop_type = *troop;
  UnitFacts facts;
  facts.mobility = MobilityFromProto(u.mobility());
  facts.quality = QualityFromProto(u.quality());
  p.mobility = facts.mobility.value_or(Mobility::kFoot);
  p.quality = facts.quality.value_or(Quality::kSeasoned);
  if (u.stands() < 1 || u.stands() > static_cast<uint32_t>(kMaxBases)) {
    return UnitError(i, u,
                     absl::StrFormat("stands (bases) is %d; a unit has 1 to "
                                     "%d.",
                                     u.stands(), kMaxBases));
  }
  p.starting_stands = static_cast<int>(u.stands());
  s.stands = p.starting_stands;
  s.stands_per_rank = p.starting_stands;
  facts_.push_back(facts);
  return absl::OkStatus();
}

absl::Status SkfEngine::AddLeaderFacts(int, const v1::Leader& l,
                                       LeaderState& leader) {
  leader.kind = l.kind() == v1::LEADER_KIND_DAIMYO ? LeaderKind::kDaimyo
                                                   : LeaderKind::kGeneral;
  leader.command_rating =
      static_cast<int>(std::clamp<uint32_t>(l.command_rating(), 1, 4));
  return absl::OkStatus();
}

void SkfEngine::ReportUncovered(Uncovered kind) {
  bool& reported = uncovered_reported_[static_cast<int>(kind)];
  if (reported) return;
  reported = true;
  absl::string_view rule_id;
  absl::string_view what;
  switch (kind) {
    case Uncovered::kFiring:
      rule_id = "skf.uncovered.firing";
      what =
          "firing; this and every later firing is replayed as the log "
          "claims (its hits raise the target's disorder factor, the bases it "
          "claims lost are removed)";
      break;
    case Uncovered::kMovement:
      rule_id = "skf.uncovered.movement";
      what = "movement; moves are replayed and not checked";
      break;
    case Uncovered::kCharge:
      rule_id = "skf.uncovered.charge";
      what = "charges; charge declarations are replayed and not checked";
      break;
    case Uncovered::kChallenge:
      rule_id = "skf.uncovered.challenge";
      what =
          "challenges between leaders; they are replayed and not checked, "
          "and kill no leader";
      break;
    case Uncovered::kResultMove:
      rule_id = "skf.uncovered.result_move";
      what =
          "result moves (push backs, routs, pursuits...); they are replayed "
          "and not checked";
      break;
    case Uncovered::kMoraleReason:
      rule_id = "skf.uncovered.morale_reason";
      what =
          "morale checks other than the one after a melee; this check and "
          "every later one owed by no melee is replayed as the log claims";
      break;
  }
  Unverifiable(rule_id, "",
               absl::StrCat("Page 6 of Samurai Knight Fever does not cover ",
                            what, "."));
}

void SkfEngine::ShowPhase(Phase phase) {
  if (TurnInProgress()) state_.phase = phase;
}

void SkfEngine::BeforeEventBody(const v1::Event& event) {
  const bool same_melee = event.has_melee_round() && melee_open_ &&
                          !melee_id_.empty() &&
                          event.melee_round().melee_id() == melee_id_;
  if (!same_melee) SettleMelee();
  // The checks after a melee are taken at once: before the next melee, the
  // next activation or the end of the turn.
  if (event.has_melee_round() && !same_melee) {
    CloseMoraleWindow("the next melee");
  } else if (event.has_activation()) {
    CloseMoraleWindow("the next activation");
  } else if (event.has_turn_start() || event.has_turn_end() ||
             event.has_game_end()) {
    CloseMoraleWindow("the end of the turn");
  }
}

void SkfEngine::OnActivation(const v1::Event& event) {
  const int clan = FindClan(event.clan());
  if (clan < 0) return;  // CheckSequence reported it.
  state_.activated_clans |= 1u << clan;
  state_.active_clan = clan;
  state_.phase = Phase::kMovement;
}

void SkfEngine::CloseTurn() {
  SettleMelee();
  CloseMoraleWindow("the end of the turn");
  CheckOwedLeaderRolls();
  settled_melee_ids_.clear();
}

void SkfEngine::OnMove(const v1::Move& move) {
  const int unit = ResolveUnit(move.unit(), "moving unit");
  if (unit < 0 || !UnitOnTable(unit, "move")) return;
  ReportUncovered(Uncovered::kMovement);
  ShowPhase(Phase::kMovement);
  state_.units[unit].moved_this_turn = true;
}

void SkfEngine::OnCharge(const v1::ChargeDeclaration& charge) {
  const int unit = ResolveUnit(charge.unit(), "charging unit");
  const int target = ResolveUnit(charge.target(), "charge target");
  if (unit < 0 || target < 0 || !UnitOnTable(unit, "charge")) return;
  ReportUncovered(Uncovered::kCharge);
  ShowPhase(Phase::kMovement);
  DeclareCharge(state_, unit, target);
}

void SkfEngine::OnFiring(const v1::Event& event) {
  const v1::Firing& firing = event.firing();
  const int firer = ResolveUnit(firing.unit(), "firing unit");
  const int target = ResolveUnit(firing.target(), "target");
  if (firer < 0 || target < 0 || !UnitOnTable(firer, "fire") ||
      !UnitOnTable(target, "be fired at")) {
    return;
  }
  ReportUncovered(Uncovered::kFiring);
  ShowPhase(Phase::kFiring);
  state_.units[firer].fired_this_turn = true;
  const int hits =
      static_cast<int>(std::min<uint32_t>(firing.claimed_hits(), 1000));
  const int lost = static_cast<int>(
      std::min<uint32_t>(firing.claimed_stands_lost(), kMaxBases));
  LandHits(target, hits, lost);
}

void SkfEngine::OnChallenge(const v1::Challenge& challenge) {
  if (ResolveLeader(challenge.challenger()) < 0) return;
  if (ResolveLeader(challenge.challenged()) < 0) return;
  ReportUncovered(Uncovered::kChallenge);
}

void SkfEngine::OnResultMove(const v1::ResultMove& move) {
  const int unit = ResolveUnit(move.unit(), "moving unit");
  if (unit < 0 || !UnitOnTable(unit, "move")) return;
  ReportUncovered(Uncovered::kResultMove);
}

void SkfEngine::OnRemoval(const v1::Removal& removal) {
  const int unit = ResolveUnit(removal.unit(), "removed unit");
  if (unit < 0 || !UnitOnTable(unit, "be removed again")) return;
  UnitStatus& s = state_.units[unit];
  s.removed = true;
  s.in_melee = false;
}

void SkfEngine::LandHits(int unit, int hits, int bases_lost) {
  UnitStatus& s = state_.units[unit];
  const int lost = std::clamp(bases_lost, 0, s.stands);
  s.stands -= lost;
  s.stands_lost += lost;
  s.stands_lost_this_turn += lost;
  // The disorder factor is kept in carried_hits (the state's "hits the
  // unit carries without losing a stand").
  s.carried_hits =
      std::min(s.carried_hits + std::max(hits - lost, 0), kMaxDisorder);
  s.disordered = s.carried_hits > 0;
  if (s.stands == 0) {
    s.removed = true;
    s.in_melee = false;
  }
}

void SkfEngine::OnLogEnd() {
  // A log may stop mid-turn (a game still being played): what falls due by
  // the end of the turn is not overdue yet, and is listed instead.
  SettleMelee();
  if (!TurnInProgress()) return;
  std::vector<std::string> pending;
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    if (morale_due_[u] == MoraleDue::kOwed) {
      pending.push_back(state_.profiles[u].id + " a morale check");
    }
  }
  for (std::size_t l = 0; l < state_.leaders.size(); ++l) {
    if (leader_rolls_owed_[l] > 0) {
      pending.push_back(state_.leaders[l].id + " a leader-hit roll");
    }
  }
  if (pending.empty()) return;
  Unverifiable("log.turn_unfinished", "",
               absl::StrCat("The log stops in the middle of turn ", state_.turn,
                            "; these fall due and are not checked: ",
                            absl::StrJoin(pending, "; "), "."));
}

absl::StatusOr<std::unique_ptr<Engine>> CreateSkfEngine(
    const v1::BattleLog& log, const v1::Ruleset& data,
    const EngineOptions& options, EngineOutput output) {
  absl::StatusOr<Tables> tables =
      TablesFromProto(data.skf(), absl::StrCat("ruleset ", data.name()));
  if (!tables.ok()) return tables.status();
  GUNBAI_ASSIGN_OR_RETURN(
      auto engine, SkfEngine::Create(log, *std::move(tables), options, output));
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace gunbai::rules::skf
