// The plumbing every engine shares. See engine_base.h.
#include "rules/engine_base.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "rules/battlefield_proto.h"
#include "rules/excerpt.h"
#include "rules/status_macros.h"

namespace gunbai::rules {

namespace v1 = ::gunbai::v1;

std::string EngineBase::Quote(absl::string_view id) const {
  return conventions_.excerpt_ids ? Excerpt(id) : std::string(id);
}

absl::Status EngineBase::UnitError(int index, const v1::Unit& unit,
                                   absl::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrFormat("order_of_battle.units[%d] (id \"%s\"): %s", index,
                      Quote(unit.id()), what));
}

absl::Status EngineBase::LeaderError(int index, const v1::Leader& leader,
                                     absl::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrFormat("order_of_battle.leaders[%d] (id \"%s\"): %s", index,
                      Quote(leader.id()), what));
}

absl::Status EngineBase::InitOrderOfBattle(const v1::BattleLog& log) {
  const v1::Header& header = log.header();
  if (header.clans_size() < 2 || header.clans_size() > kMaxClans) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "header.clans: a battle has 2 to %d clans; this log has %d.", kMaxClans,
        header.clans_size()));
  }
  for (int i = 0; i < header.clans_size(); ++i) {
    const std::string& id = header.clans(i).id();
    if (id.empty() || FindClan(id) >= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "header.clans[%d]: clan id \"%s\" is %s; give each clan a unique "
          "id.",
          i, Quote(id), id.empty() ? "empty" : "used twice"));
    }
    state_.clans.push_back(id);
  }
  const v1::OrderOfBattle& oob = log.order_of_battle();
  if (oob.units_size() > kMaxUnits || oob.leaders_size() > kMaxLeaders) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "order_of_battle: at most %d units and %d leaders; this log has %d "
        "and %d.",
        kMaxUnits, kMaxLeaders, oob.units_size(), oob.leaders_size()));
  }
  for (int i = 0; i < oob.units_size(); ++i) {
    const v1::Unit& u = oob.units(i);
    if (u.id().empty()) return UnitError(i, u, "the unit has no id.");
    if (unit_index_.contains(u.id())) {
      return UnitError(i, u, "the id is used twice; unit ids are unique.");
    }
    UnitProfile profile;
    profile.id = u.id();
    profile.name = u.name();
    profile.clan = FindClan(u.clan());
    if (profile.clan < 0) {
      return UnitError(i, u,
                       absl::StrFormat("clan \"%s\" is not in the header.",
                                       Quote(u.clan())));
    }
    UnitStatus status;
    GUNBAI_RETURN_IF_ERROR(AddUnitFacts(i, u, profile, status));
    if (u.has_position()) {
      GUNBAI_ASSIGN_OR_RETURN(
          status.pose,
          PoseFromProto(u.position(),
                        absl::StrFormat("order_of_battle.units[%d] "
                                        "position",
                                        i)));
      status.placed = true;
    }
    unit_index_.emplace(profile.id, static_cast<int>(state_.profiles.size()));
    state_.profiles.push_back(std::move(profile));
    state_.units.push_back(status);
  }
  for (int i = 0; i < oob.leaders_size(); ++i) {
    const v1::Leader& l = oob.leaders(i);
    if (l.id().empty()) return LeaderError(i, l, "the leader has no id.");
    if (leader_index_.contains(l.id())) {
      return LeaderError(i, l, "the id is used twice; leader ids are unique.");
    }
    LeaderState leader;
    leader.id = l.id();
    leader.name = l.name();
    leader.clan = FindClan(l.clan());
    if (leader.clan < 0) {
      return LeaderError(i, l,
                         absl::StrFormat("clan \"%s\" is not in the header.",
                                         Quote(l.clan())));
    }
    absl::Status s = AddLeaderFacts(i, l, leader);
    if (!s.ok()) return s;
    if (!l.attached_unit().empty()) {
      const int unit = FindUnit(l.attached_unit());
      if (unit < 0) {
        return LeaderError(i, l,
                           absl::StrFormat("attached_unit \"%s\" is not a unit "
                                           "of the order of battle.",
                                           Quote(l.attached_unit())));
      }
      if (state_.profiles[unit].clan != leader.clan) {
        return LeaderError(i, l,
                           "the leader is attached to another clan's unit.");
      }
      leader.attached_unit = unit;
    }
    leader_index_.emplace(leader.id, static_cast<int>(state_.leaders.size()));
    state_.leaders.push_back(std::move(leader));
  }
  if (log.has_starting_position()) {
    return InitStartingPosition(log.starting_position());
  }
  return absl::OkStatus();
}

void EngineBase::StartEvent(const v1::Event& event) {
  seq_ = event.seq();
  turn_ = event.turn();
  if (branch_events_ != nullptr) {
    branch_event_ = branch_events_->Add();
    *branch_event_ = event;
  }
}

void EngineBase::Apply(const v1::Event& event) {
  StartEvent(event);
  BeforeSequenceChecks(event);
  if (!CheckSequence(event)) return;
  BeforeEventBody(event);
  switch (event.body_case()) {
    case v1::Event::kTurnStart:
      StartTurn(event);
      break;
    case v1::Event::kActivation:
      OnActivation(event);
      break;
    case v1::Event::kMove:
      OnMove(event.move());
      break;
    case v1::Event::kCharge:
      OnCharge(event.charge());
      break;
    case v1::Event::kFiring:
      OnFiring(event);
      break;
    case v1::Event::kMeleeRound:
      OnMeleeRound(event.melee_round());
      break;
    case v1::Event::kChallenge:
      OnChallenge(event.challenge());
      break;
    case v1::Event::kMoraleTest:
      OnMoraleTest(event.morale_test());
      break;
    case v1::Event::kLeaderLoss:
      OnLeaderLoss(event.leader_loss());
      break;
    case v1::Event::kResultMove:
      OnResultMove(event.result_move());
      break;
    case v1::Event::kRemoval:
      OnRemoval(event.removal());
      break;
    case v1::Event::kTurnEnd:
      EndTurn(event);
      break;
    case v1::Event::kGameEnd:
      EndGame();
      break;
    case v1::Event::BODY_NOT_SET:
      break;
  }
}

void EngineBase::StartTurn(const v1::Event& event) {
  if (TurnInProgress()) {
    Violation(conventions_.turn_end_missing_rule, "",
              absl::StrFormat("Turn %d starts before turn %d ended; the log "
                              "needs a turn_end.",
                              event.turn(), state_.turn));
    CloseTurn();
  }
  const int expected = state_.turn + 1;
  if (event.turn() != static_cast<std::uint32_t>(expected)) {
    Violation(conventions_.turn_number_rule, "",
              absl::StrFormat("Turn %d starts after turn %d; turns count up "
                              "from 1 by one.",
                              event.turn(), state_.turn));
  }
  const v1::TurnStart& start = event.turn_start();
  const int initiative = FindClan(start.initiative_clan());
  if (initiative < 0 && (conventions_.initiative_clan_required ||
                         !start.initiative_clan().empty())) {
    Violation("log.clan.unknown", start.initiative_clan(),
              absl::StrFormat("The initiative clan \"%s\" is not in the "
                              "header.",
                              start.initiative_clan()));
  }
  CheckDieFaces(absl::MakeConstSpan(start.initiative_dice().data(),
                                    start.initiative_dice_size()),
                "the initiative roll", "", *this);
  // Turns count on from the log's number, bounded, so that one typo does not
  // shift every later turn and `turn + 1` cannot overflow.
  StartNewTurn(state_,
               static_cast<int>(std::min(event.turn(), conventions_.max_turn)),
               initiative);
  OnTurnStarted(event);
}

void EngineBase::EndTurn(const v1::Event& event) {
  if (!TurnInProgress()) {
    Violation(conventions_.outside_turn_rule, "",
              "A turn_end with no turn in progress.");
    state_.phase = Phase::kTurnEnded;
    state_.active_clan = -1;
    return;
  }
  // A turn_end that names a clan of the header ends that clan's part of
  // the turn (a live game's player); the turn ends with the last clan's.
  // One that names none (or a clan not in the header, reported by
  // CheckSequence) ends the turn for all.
  const int clan = FindClan(event.clan());
  if (clan >= 0) {
    state_.turn_ended_clans |= 1u << clan;
    const std::uint32_t every_clan =
        state_.clans.size() >= 32
            ? ~std::uint32_t{0}
            : (std::uint32_t{1} << state_.clans.size()) - 1;
    if ((state_.turn_ended_clans & every_clan) != every_clan) {
      OnClanTurnEnded(clan);
      return;
    }
  }
  CloseTurn();
  state_.phase = Phase::kTurnEnded;
  state_.active_clan = -1;
}

void EngineBase::EndGame() {
  ending_game_ = true;
  if (TurnInProgress()) CloseTurn();
  state_.phase = Phase::kGameOver;
}

void EngineBase::Finish() {
  OnLogEnd();
  ReportFindingsLeftOut();
}

bool EngineBase::CheckSequence(const v1::Event& event) {
  if (!CheckEventStart(event, state_, *this)) return false;
  if (state_.phase == Phase::kGameOver) {
    Violation(conventions_.after_game_end_rule, "",
              "This event comes after the end of the game; it is skipped.");
    return false;
  }
  const bool opens = event.has_turn_start() || event.has_game_end();
  if (!opens && !TurnInProgress()) {
    Violation(conventions_.outside_turn_rule, "",
              "This event comes outside a turn (before a turn_start); it is "
              "replayed anyway.");
  }
  CheckEventTurnAndClan(event, state_, *this);
  return true;
}

bool EngineBase::LeftOut(const Finding& finding) {
  if (conventions_.max_findings <= 0 ||
      findings_->size() < conventions_.max_findings) {
    return false;
  }
  ++findings_left_out_;
  const int severity = static_cast<int>(finding.severity);
  if (severity >= 0 && severity < 4) ++left_out_by_severity_[severity];
  return true;
}

void EngineBase::Report(Finding finding) {
  if (findings_ == nullptr || LeftOut(finding)) return;
  AppendFinding(std::move(finding), seq_, turn_, *findings_);
}

void EngineBase::ReportAtEarlierSeq(Finding finding, std::uint64_t seq) {
  if (findings_ == nullptr || LeftOut(finding)) return;
  AppendFinding(std::move(finding), seq, turn_, *findings_);
  // Keep the findings in seq order: move it before the later ones.
  int i = findings_->size() - 1;
  while (i > 0 && findings_->Get(i - 1).seq() > seq) {
    findings_->SwapElements(i - 1, i);
    --i;
  }
}

void EngineBase::Violation(absl::string_view rule_id, std::string subject,
                           std::string message) {
  Finding f;
  f.severity = Severity::kViolation;
  f.rule_id = rule_id;
  f.subject = std::move(subject);
  f.message = std::move(message);
  Report(std::move(f));
}

void EngineBase::Unverifiable(absl::string_view rule_id, std::string subject,
                              std::string message) {
  Finding f;
  f.severity = Severity::kUnverifiable;
  f.rule_id = rule_id;
  f.subject = std::move(subject);
  f.message = std::move(message);
  Report(std::move(f));
}

void EngineBase::ReportFindingsLeftOut() {
  if (findings_left_out_ == 0 || findings_ == nullptr) return;
  const int bound = conventions_.max_findings;
  AppendFinding(
      Finding{Severity::kViolation,
              "log.findings_truncated",
              absl::StrFormat(
                  "The log breaks the rules more than %d times; the first %d "
                  "findings are listed, %d more are not (%d violations, %d "
                  "disputes, %d warnings, %d unverifiable). Audit the log in "
                  "parts, or correct the first ones.",
                  bound, bound, findings_left_out_, left_out_by_severity_[0],
                  left_out_by_severity_[1], left_out_by_severity_[2],
                  left_out_by_severity_[3]),
              "",
              "",
              "",
              {}},
      seq_, turn_, *findings_);
}

void EngineBase::RecordOutcome(absl::string_view subject,
                               absl::string_view kind, std::string value,
                               Trace* trace) {
  AppendOutcome(seq_, subject, kind, std::move(value), trace, outcomes_);
}

int EngineBase::FindUnit(absl::string_view id) const {
  auto it = unit_index_.find(id);
  return it == unit_index_.end() ? -1 : it->second;
}

int EngineBase::FindLeader(absl::string_view id) const {
  auto it = leader_index_.find(id);
  return it == leader_index_.end() ? -1 : it->second;
}

int EngineBase::FindClan(absl::string_view id) const {
  for (std::size_t i = 0; i < state_.clans.size(); ++i) {
    if (state_.clans[i] == id) return static_cast<int>(i);
  }
  return -1;
}

int EngineBase::ResolveUnit(absl::string_view id, absl::string_view role) {
  const int unit = FindUnit(id);
  if (unit >= 0) return unit;
  const std::string quoted = Quote(id);
  Violation("log.unit.unknown", quoted,
            absl::StrFormat("The %s \"%s\" is not in the order of battle; "
                            "the event is skipped. Check the unit id.",
                            role, quoted));
  return -1;
}

int EngineBase::ResolveLeader(absl::string_view id) {
  const int leader = FindLeader(id);
  if (leader >= 0) return leader;
  Violation("log.leader.unknown", std::string(id),
            absl::StrFormat("The leader \"%s\" is not in the order of "
                            "battle; the event is skipped.",
                            id));
  return -1;
}

bool EngineBase::UnitOnTable(int unit, absl::string_view what) {
  if (!state_.units[unit].removed) return true;
  Violation("log.unit.removed", state_.profiles[unit].id,
            absl::StrFormat("%s was removed from the table earlier and cannot "
                            "%s%s",
                            UnitLabel(state_, unit), what,
                            conventions_.removed_unit_tail));
  return false;
}

bool EngineBase::TurnInProgress() const {
  return state_.phase != Phase::kBeforeGame &&
         state_.phase != Phase::kTurnEnded && state_.phase != Phase::kGameOver;
}

bool EngineBase::ProposeTurnFrame(int clan, bool umpire,
                                  std::vector<ProposedEvent>& out) const {
  const BattleState& s = state_;
  const bool in_turn = TurnInProgress();
  if (umpire && s.phase != Phase::kGameOver) {
    if (!in_turn) {
      out.emplace_back().kind = "turn_start";
      out.back().event.mutable_turn_start();
    }
    out.emplace_back().kind = "game_end";
    out.back().event.mutable_game_end();
  }
  if (!in_turn || clan < 0 || clan >= static_cast<int>(s.clans.size())) {
    return false;
  }
  // A clan not yet activated this turn, and not done with it, may begin
  // its activation (the engine's checks decide whether it may now).
  const bool ended = (s.turn_ended_clans >> clan & 1u) != 0;
  const bool active = s.active_clan == clan && !ended;
  if (!ended && !active && (s.activated_clans >> clan & 1u) == 0) {
    ProposedEvent& p = out.emplace_back();
    p.kind = "activation";
    p.event.set_clan(s.clans[static_cast<std::size_t>(clan)]);
    p.event.mutable_activation();
  }
  return true;
}

}  // namespace gunbai::rules
