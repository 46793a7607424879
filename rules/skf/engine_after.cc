// After a melee, in the Samurai Knight Fever engine: the one morale check of
// every unit that fought and the leader-hit rolls. See engine.h.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/skf/engine.h"
#include "rules/skf/morale.h"
#include "rules/skf/proto_enums.h"

namespace gunbai::rules::skf {

namespace {

namespace v1 = ::gunbai::v1;

std::string LeaderName(const LeaderState& l) {
  return l.name.empty() ? l.id : absl::StrCat(l.name, " (", l.id, ")");
}

}  // namespace

int SkfEngine::LeadersTouching(int unit) const {
  int n = 0;
  for (int leader : unit_leaders_[unit]) {
    if (!state_.leaders[leader].killed) ++n;
  }
  return n;
}

void SkfEngine::OnMoraleTest(const v1::MoraleTest& test) {
  const int unit = ResolveUnit(test.unit(), "unit checking morale");
  if (unit < 0 || !UnitOnTable(unit, "check morale")) return;
  MoraleResult result = MoraleResultFromProto(test.claimed_result());
  switch (morale_due_[unit]) {
    case MoraleDue::kNone:
      ReportUncovered(Uncovered::kMoraleReason);
      break;
    case MoraleDue::kTaken:
      Violation("skf.morale.once", test.unit(),
                absl::StrFormat("%s checks morale a second time after the "
                                "melee at seq %d; a unit that fought checks "
                                "once, even with hits from two enemies. The "
                                "result is replayed as claimed.",
                                UnitLabel(state_, unit), morale_melee_seq_));
      break;
    case MoraleDue::kOwed:
      morale_due_[unit] = MoraleDue::kTaken;
      CheckMoraleRoll(test, unit, result);
      break;
  }
  ApplyMoraleResult(unit, result);
}

void SkfEngine::CheckMoraleRoll(const v1::MoraleTest& test, int unit,
                                MoraleResult& result) {
  const auto& dice = test.dice();
  const bool faces_ok =
      CheckDieFaces(absl::MakeConstSpan(dice.data(), dice.size()),
                    "the morale check", test.unit(), *this);
  if (!tables_.morale.has_value()) {
    if (morale_unchecked_reported_) return;
    morale_unchecked_reported_ = true;
    Unverifiable("skf.morale.unchecked", test.unit(),
                 "Page 6 gives no morale check and the ruleset has none "
                 "(skf.morale), so this check and every later one is "
                 "replayed with the result the log claims; that each unit "
                 "that fought checks once, at once, is still checked. Add "
                 "skf.morale to the ruleset file to check the rolls.");
    return;
  }
  MoraleInput in;
  in.id = test.unit();
  in.label = UnitLabel(state_, unit);
  in.quality = facts_[unit].quality;
  in.dice = absl::MakeConstSpan(dice.data(), dice.size());
  in.leaders_touching = LeadersTouching(unit);
  in.bases_lost = bases_lost_in_melee_[unit];
  in.disorder = state_.units[unit].carried_hits;
  if (!CheckMoraleTest(*tables_.morale, in, *this) || !faces_ok) return;
  Trace trace;
  const MoraleOutcome out = ResolveMoraleTest(
      *tables_.morale, in, outcomes_ != nullptr ? &trace : nullptr);
  RecordOutcome(test.unit(), "morale_result",
                std::string(MoraleResultName(out.result)), &trace);
  const bool claims_result =
      test.claimed_result() != v1::MORALE_RESULT_UNSPECIFIED;
  if (FollowComputed() || !claims_result) result = out.result;
  if (FollowComputed()) {
    if (branch_event_ != nullptr) {
      v1::MoraleTest* claims = branch_event_->mutable_morale_test();
      if (claims_result) {
        claims->set_claimed_result(MoraleResultToProto(out.result));
      }
      if (claims->has_claimed_total()) claims->set_claimed_total(out.total);
    }
    return;
  }
  if (test.has_claimed_total() && test.claimed_total() != out.total) {
    Trace t;
    ResolveMoraleTest(*tables_.morale, in, &t);
    ReportMoraleDispute(
        "skf.morale.total", unit, absl::StrCat("total ", test.claimed_total()),
        absl::StrCat("total ", out.total),
        absl::StrFormat("%s checks morale: the log claims a total of %d, the "
                        "dice and modifiers give %d.",
                        in.label, test.claimed_total(), out.total),
        std::move(t));
  }
  if (claims_result && result != out.result) {
    Trace t;
    ResolveMoraleTest(*tables_.morale, in, &t);
    ReportMoraleDispute(
        "skf.morale.result", unit, std::string(MoraleResultName(result)),
        std::string(MoraleResultName(out.result)),
        absl::StrFormat("%s checks morale: the log claims %s, but a total of "
                        "%d against %d+ gives %s.",
                        in.label, MoraleResultName(result), out.total,
                        out.pass_score, MoraleResultName(out.result)),
        std::move(t));
  }
}

void SkfEngine::ReportMoraleDispute(absl::string_view rule_id, int unit,
                                    std::string claimed, std::string computed,
                                    std::string message, Trace trace) {
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = rule_id;
  f.subject = state_.profiles[unit].id;
  f.claimed = std::move(claimed);
  f.computed = std::move(computed);
  f.message = std::move(message);
  f.trace = std::move(trace);
  Report(std::move(f));
}

void SkfEngine::ApplyMoraleResult(int unit, MoraleResult result) {
  UnitStatus& s = state_.units[unit];
  switch (result) {
    case MoraleResult::kRout:
      s.routing = true;
      s.has_routed = true;
      break;
    case MoraleResult::kRally:
      s.routing = false;
      break;
    case MoraleResult::kDispersed:
      s.removed = true;
      s.in_melee = false;
      break;
    default:
      break;
  }
}

void SkfEngine::OnLeaderLoss(const v1::LeaderLossRoll& roll) {
  const int leader = ResolveLeader(roll.leader());
  if (leader < 0) return;
  LeaderState& l = state_.leaders[leader];
  if (l.killed || leader_rolls_owed_[leader] == 0) {
    Violation("skf.leader_hit.not_owed", roll.leader(),
              absl::StrFormat("%s rolls for a leader hit, but none is owed%s: "
                              "a leader rolls once after each melee fought "
                              "by a unit he touches.",
                              LeaderName(l),
                              l.killed ? " (he was killed earlier)" : ""));
    return;
  }
  l.loss_roll_owed = --leader_rolls_owed_[leader] > 0;
  const bool claims = roll.has_claimed_killed();
  if (roll.die() < 1 || roll.die() > 6) {
    Violation("log.die.range", roll.leader(),
              absl::StrFormat("The leader-hit die reads %d; a die reads 1 to "
                              "6.",
                              roll.die()));
    if (claims && roll.claimed_killed()) KillLeader(leader);
    return;
  }
  if (tables_.leader_killed_at_or_below == 0) {
    if (!leader_hits_unchecked_reported_) {
      leader_hits_unchecked_reported_ = true;
      Unverifiable("skf.leader_hit.unchecked", roll.leader(),
                   "The ruleset does not say which leader-hit die kills (the "
                   "page: a 1); this roll and every later one is replayed as "
                   "the log claims. Set skf.leader_hits.killed_at_or_below "
                   "in the ruleset file.");
    }
    if (claims && roll.claimed_killed()) KillLeader(leader);
    return;
  }
  const int die = static_cast<int>(roll.die());
  Trace trace;
  const bool killed = LeaderHitKills(tables_.leader_killed_at_or_below, die,
                                     outcomes_ != nullptr ? &trace : nullptr);
  RecordOutcome(roll.leader(), "killed", killed ? "killed" : "survives",
                &trace);
  bool as_played = killed;
  if (claims && FollowComputed() && branch_event_ != nullptr) {
    branch_event_->mutable_leader_loss()->set_claimed_killed(killed);
  }
  if (claims && roll.claimed_killed() != killed && !FollowComputed()) {
    Finding f;
    f.severity = Severity::kDispute;
    f.rule_id = "skf.leader_hit.roll";
    f.subject = roll.leader();
    LeaderHitKills(tables_.leader_killed_at_or_below, die, &f.trace);
    f.claimed = roll.claimed_killed() ? "killed" : "survives";
    f.computed = killed ? "killed" : "survives";
    f.message = absl::StrFormat(
        "%s: the log says the leader %s, but the die reads %d and %d or "
        "less kills.",
        LeaderName(l), f.claimed, die, tables_.leader_killed_at_or_below);
    Report(std::move(f));
    as_played = roll.claimed_killed();
  }
  if (as_played) KillLeader(leader);
}

void SkfEngine::KillLeader(int leader) {
  LeaderState& l = state_.leaders[leader];
  l.killed = true;
  l.loss_roll_owed = false;
  leader_rolls_owed_[leader] = 0;
}

void SkfEngine::CheckOwedLeaderRolls() {
  for (std::size_t i = 0; i < state_.leaders.size(); ++i) {
    if (leader_rolls_owed_[i] == 0) continue;
    LeaderState& l = state_.leaders[i];
    Violation("skf.leader_hit.missing", l.id,
              absl::StrFormat("%s touches a unit that fought a melee this "
                              "turn but the log has %d leader-hit roll%s "
                              "missing for him; he rolls 1d6 after each such "
                              "melee.",
                              LeaderName(l), leader_rolls_owed_[i],
                              leader_rolls_owed_[i] == 1 ? "" : "s"));
    leader_rolls_owed_[i] = 0;
    l.loss_roll_owed = false;
  }
}

}  // namespace gunbai::rules::skf
