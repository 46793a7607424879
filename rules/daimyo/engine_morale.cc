// The morale part of the DaimyoEngine: which tests the state owes and when, the
// test itself, and what its result forbids afterwards. See replayer.h.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/morale.h"
#include "rules/daimyo/proto_mapping.h"

namespace gunbai::rules::daimyo {

namespace {

namespace v1 = ::gunbai::v1;
using rules::Finding;
using rules::MoraleReasons;
using rules::MoraleResult;
using rules::Phase;
using rules::Severity;

constexpr MoraleReasons Bits(std::initializer_list<int> reasons) {
  MoraleReasons bits = 0;
  for (int r : reasons) bits |= rules::ReasonBit(r);
  return bits;
}
constexpr MoraleReasons kChargeReasons = Bits({2, 3, 4});
constexpr MoraleReasons kEndOfTurnReasons = Bits({1, 5, 6, 7});

absl::string_view ReasonName(int reason) {
  switch (reason) {
    case 1:
      return "1, a stand lost";
    case 2:
      return "2, ashigaru or peasants charged";
    case 3:
      return "3, infantry charged by cavalry";
    case 4:
      return "4, ashigaru missile troops or peasants charging";
    case 5:
      return "5, general or own daimyo killed or routed near";
    case 6:
      return "6, friendly unit routing near";
    case 7:
      return "7, interpenetrated by routing friends";
    case 8:
      return "8, rally";
  }
  return "?";
}

// The results a claim may name for a computed one: a passed being-charged
// test reads "stand or retire, counter-charge", so either name is right.
bool SameResult(MoraleResult claimed, MoraleResult computed) {
  if (claimed == computed) return true;
  return computed == MoraleResult::kStandOrRetire &&
         claimed == MoraleResult::kCounterCharge;
}

}  // namespace

void DaimyoEngine::OweChargeTests(int charger, int target, bool counter) {
  if (!counter) {
    state_.units[charger].owed_morale |=
        rules::daimyo::TestsOwedByCharger(state_, charger);
  }
  rules::UnitStatus& t = state_.units[target];
  // The test for a charge is taken when it is declared: a second charge on
  // a unit that has not yet tested for the first came too soon (the first
  // test might have sent it away).
  const MoraleReasons unpaid = t.owed_morale & kChargeReasons;
  if (!counter && unpaid != 0 && !t.removed && !t.frenzied) {
    t.owed_morale &= static_cast<MoraleReasons>(~kChargeReasons);
    MissingTest(target, rules::daimyo::HighestReason(unpaid),
                absl::StrFormat("for the charge on it before %s charged it",
                                UnitLabel(state_, charger)));
  }
  t.owed_morale |= rules::daimyo::TestsOwedByTarget(state_, target, charger);
}

void DaimyoEngine::CheckChargeTestsTaken() {
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    rules::UnitStatus& s = state_.units[u];
    const MoraleReasons owed = s.owed_morale & kChargeReasons;
    if (owed == 0) continue;
    s.owed_morale &= static_cast<MoraleReasons>(~kChargeReasons);
    if (s.removed || s.frenzied) continue;
    MissingTest(static_cast<int>(u), rules::daimyo::HighestReason(owed),
                "when the charge is declared");
  }
}

void DaimyoEngine::CheckEndOfTurnTestsTaken() {
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    rules::UnitStatus& s = state_.units[u];
    const MoraleReasons owed = s.owed_morale & kEndOfTurnReasons;
    if (owed == 0) continue;
    s.owed_morale &= static_cast<MoraleReasons>(~kEndOfTurnReasons);
    if (s.removed || s.frenzied) continue;
    MissingTest(static_cast<int>(u), rules::daimyo::HighestReason(owed),
                "at the end of the turn");
  }
}

void DaimyoEngine::MissingTest(int unit, int reason, absl::string_view when) {
  Violation("daimyo.morale.missing", state_.profiles[unit].id,
            absl::StrFormat("%s owed a morale test (reason %s) %s; the log "
                            "has none.",
                            UnitLabel(state_, unit), ReasonName(reason), when));
}

void DaimyoEngine::CheckEarlyEndOfTurnTests(absl::string_view clan) {
  for (const EndOfTurnTest& t : end_of_turn_tests_) {
    // The test is the event that breaks the rule: the finding sits at its
    // seq, though only this activation shows that it came too early.
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.morale.timing";
    f.subject = state_.profiles[t.unit].id;
    f.message = absl::StrFormat(
        "%s tested for reason %s here, but %s is activated after it in the "
        "same turn (seq %d); reasons 1, 5, 6 and 7 are tested at the end of "
        "the turn, after the last activation.",
        UnitLabel(state_, t.unit), ReasonName(t.reason), clan, seq_);
    ReportAtEarlierSeq(std::move(f), t.seq);
  }
  end_of_turn_tests_.clear();
}

void DaimyoEngine::StartActivation() {
  frenzied_this_activation_.clear();
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    const rules::UnitStatus& s = state_.units[u];
    if (s.frenzied && !s.removed &&
        state_.profiles[u].clan == state_.active_clan) {
      frenzied_this_activation_.push_back(static_cast<int>(u));
    }
  }
  std::fill(may_counter_charge_.begin(), may_counter_charge_.end(), -1);
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    const rules::UnitStatus& s = state_.units[u];
    router_steps_[u] =
        s.routing && !s.removed && state_.profiles[u].clan == state_.active_clan
            ? kRoutingAtActivationStart
            : 0;
  }
}

bool DaimyoEngine::AnyEnemyOnTable(int unit) const {
  for (std::size_t e = 0; e < state_.units.size(); ++e) {
    if (!state_.units[e].removed &&
        state_.profiles[e].clan != state_.profiles[unit].clan) {
      return true;
    }
  }
  return false;
}

bool DaimyoEngine::OwesFrenzyCharge(int u) const {
  const rules::UnitStatus& s = state_.units[u];
  // A halt forbids the charge that frenzy demands; the halt wins. With no
  // enemy left on the table there is nobody to charge.
  return s.frenzied && !s.removed && !s.charging && !s.in_melee &&
         !s.fought_this_turn && !s.routing && !state_.IsHalted(u) &&
         AnyEnemyOnTable(u);
}

void DaimyoEngine::CheckFrenzyChargesDeclared() {
  for (int u : frenzied_this_activation_) {
    if (!OwesFrenzyCharge(u)) continue;
    Violation("daimyo.morale.frenzied_must_charge", state_.profiles[u].id,
              absl::StrCat(UnitLabel(state_, u),
                           " is frenzied and must charge the nearest enemy to "
                           "its front, but declared no charge in this "
                           "activation's movement phase."));
  }
  // The movement phase is the only place for the charge (reading 41): a
  // unit freed from a melee after it owes none till its next activation.
  frenzied_this_activation_.clear();
}

void DaimyoEngine::EndActivation() {
  CheckChargeTestsTaken();
  CheckRoutersMoved();
  CheckFrenzyChargesDeclared();
  // With no charge standing the readings agree: the option is then not
  // consulted (rules/reading_probe.h).
  const bool any_charge =
      std::any_of(state_.units.begin(), state_.units.end(),
                  [](const rules::UnitStatus& u) { return u.charging; });
  if (any_charge && rules_.options.being_charged_lasts() ==
                        rules::daimyo::BeingChargedLasts::kChargersActivation) {
    // Under this reading a unit is being charged only while the charge is
    // resolved, in the activation that declared it.
    rules::EndAllCharges(state_);
  }
}

bool DaimyoEngine::CheckTestTiming(int unit, int reason) {
  rules::UnitStatus& s = state_.units[unit];
  const std::string& id = state_.profiles[unit].id;
  const MoraleReasons bit = rules::ReasonBit(reason);
  if (reason == 8) return CheckRallyTiming(unit);
  const MoraleReasons group =
      (bit & kChargeReasons) != 0 ? kChargeReasons : kEndOfTurnReasons;
  const MoraleReasons owed = s.owed_morale & group;
  if (owed == 0) {
    Violation("daimyo.morale.not_owed", id,
              absl::StrFormat("%s tests for reason %s, but nothing in the "
                              "game so far owes it that test.",
                              UnitLabel(state_, unit), ReasonName(reason)));
    return false;
  }
  const int highest = rules::daimyo::HighestReason(owed);
  if (reason != highest) {
    Violation("daimyo.morale.wrong_reason", id,
              absl::StrFormat("%s tests for reason %s; it owes reason %s, and "
                              "with several reasons a unit tests once, for "
                              "the highest.",
                              UnitLabel(state_, unit), ReasonName(reason),
                              ReasonName(highest)));
  }
  if (group == kEndOfTurnReasons) {
    // Checked when the next activation of this turn comes, if one does.
    end_of_turn_tests_.push_back({unit, seq_, reason});
  }
  s.owed_morale &= static_cast<MoraleReasons>(~group);
  return true;
}

rules::daimyo::MoraleTestInput DaimyoEngine::MoraleInputFromProto(
    const v1::MoraleTest& test, int unit, std::vector<int>& friends) {
  rules::daimyo::MoraleTestInput in;
  in.unit = unit;
  in.reason = static_cast<int>(std::min<uint32_t>(test.reason(), 99));
  in.dice = absl::MakeConstSpan(test.dice().data(), test.dice_size());
  const v1::MoraleFacts& f = test.facts();
  in.facts.uphill_or_in_cover = f.uphill_or_in_cover();
  in.facts.general_near = f.general_near();
  in.facts.out_of_command = f.out_of_command();
  // The routers near: distinct units, and only those that are routing and
  // of the right side count; the others are one finding a list.
  ResolveUnitList(f.enemies_routing_near(), "enemy router near", list_units_);
  in.facts.enemies_routing_near =
      KeepRoutersNear(unit, /*friends=*/false, list_units_);
  ResolveUnitList(f.friends_routing_near(), "friendly router near", friends);
  KeepRoutersNear(unit, /*friends=*/true, friends);
  in.facts.friends_routing_near = friends;
  in.facts.enemy_facing_flank_or_rear_near =
      f.enemy_facing_flank_or_rear_near();
  in.facts.leader_killed_near = f.leader_killed_near();
  in.facts.charged_frontally = f.charged_frontally();
  return in;
}

int DaimyoEngine::KeepRoutersNear(int tester, bool friends,
                                  std::vector<int>& units) {
  const int clan = state_.profiles[tester].clan;
  int dropped = 0;
  int first_dropped = -1;
  std::size_t kept = 0;
  for (const int u : units) {
    const rules::UnitStatus& s = state_.units[u];
    const bool right_side = (state_.profiles[u].clan == clan) == friends;
    if (right_side && s.routing && !s.removed && u != tester) {
      units[kept++] = u;
    } else if (dropped++ == 0) {
      first_dropped = u;
    }
  }
  units.resize(kept);
  if (dropped > 0) {
    Violation("daimyo.morale.near_not_routing", state_.profiles[tester].id,
              absl::StrFormat(
                  "%s's test lists %s as %s routing near, but it is %s%s; "
                  "only %s units routing count.",
                  UnitLabel(state_, tester), UnitLabel(state_, first_dropped),
                  friends ? "a friendly unit" : "an enemy unit",
                  state_.units[first_dropped].removed ? "off the table"
                  : (state_.profiles[first_dropped].clan == clan) != friends
                      ? (friends ? "an enemy" : "a friend")
                      : "not routing",
                  dropped == 1 ? ""
                               : absl::StrFormat(
                                     " (%d units of the list in all)", dropped),
                  friends ? "friendly" : "enemy"));
  }
  return static_cast<int>(kept);
}

void DaimyoEngine::OnMoraleTest(const v1::MoraleTest& test) {
  const int unit = ResolveUnit(test.unit(), "testing unit");
  if (unit < 0 || !UnitOnTable(unit, "test morale")) return;
  std::vector<int> friends;
  rules::daimyo::MoraleTestInput in = MoraleInputFromProto(test, unit, friends);
  MeasureMorale(test, in, friends);
  const bool valid_reason = in.reason >= 1 && in.reason <= 8;
  if (valid_reason) CheckTestTiming(unit, in.reason);
  const bool resolvable =
      rules::daimyo::CheckMoraleTest(rules_, state_, in, *this);
  MoraleResult result = MoraleResultFromProto(test.claimed_result());
  if (resolvable) {
    const auto res =
        rules::daimyo::ResolveMoraleTest(rules_, state_, in, nullptr);
    if (recording_outcomes()) {
      rules::Trace trace;
      rules::daimyo::ResolveMoraleTest(rules_, state_, in, &trace);
      RecordOutcome(test.unit(), "morale_result",
                    absl::StrCat("total ", res.total, ": ",
                                 rules::MoraleResultName(res.result)),
                    &trace);
    }
    ReportMoraleDisputes(test, in, res);
    if (test.claimed_result() == v1::MORALE_RESULT_UNSPECIFIED ||
        FollowComputed()) {
      result = res.result;
    }
    if (FollowComputed()) WriteBranchMoraleClaims(res);
  } else if (test.claimed_result() == v1::MORALE_RESULT_UNSPECIFIED) {
    Unverifiable("daimyo.morale.result", test.unit(),
                 "The test cannot be worked out and the log claims no "
                 "result; replay applies none.");
  }
  ApplyTestResult(unit, in.reason, result, test);
}

void DaimyoEngine::WriteBranchMoraleClaims(
    const rules::daimyo::MoraleResolution& res) {
  if (branch_event_ == nullptr) return;
  v1::MoraleTest* claims = branch_event_->mutable_morale_test();
  if (claims->has_claimed_total()) claims->set_claimed_total(res.total);
  if (claims->claimed_result() != v1::MORALE_RESULT_UNSPECIFIED) {
    claims->set_claimed_result(MoraleResultToProto(res.result));
  }
}

void DaimyoEngine::ReportMoraleDisputes(
    const v1::MoraleTest& test, const rules::daimyo::MoraleTestInput& in,
    const rules::daimyo::MoraleResolution& res) {
  const bool total_wrong =
      test.has_claimed_total() && test.claimed_total() != res.total;
  const bool result_wrong =
      test.claimed_result() != v1::MORALE_RESULT_UNSPECIFIED &&
      !SameResult(MoraleResultFromProto(test.claimed_result()), res.result);
  if (!total_wrong && !result_wrong) return;
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = result_wrong
                  ? (res.rally_barred_by_hits ? "daimyo.morale.rally_after_hits"
                                              : "daimyo.morale.result")
                  : "daimyo.morale.total";
  f.subject = test.unit();
  rules::daimyo::ResolveMoraleTest(rules_, state_, in, &f.trace);
  if (result_wrong) {
    f.claimed = std::string(
        rules::MoraleResultName(MoraleResultFromProto(test.claimed_result())));
    f.computed = std::string(rules::MoraleResultName(res.result));
  } else {
    f.claimed = absl::StrCat("total ", test.claimed_total());
    f.computed = absl::StrCat("total ", res.total);
  }
  f.message = absl::StrFormat(
      "%s tests morale for reason %s: the log claims %s, the dice and the "
      "rules give %s (2d6 = %d %+d = %d against %d+).",
      UnitLabel(state_, in.unit), ReasonName(in.reason), f.claimed, f.computed,
      res.roll, res.modifier, res.total, res.pass_score);
  if (result_wrong && res.rally_barred_by_hits) {
    absl::StrAppend(&f.message,
                    " The test passes, but firing hit the unit this turn, and "
                    "a unit hit by fire may not rally: it stays routing.");
  }
  Report(std::move(f));
}

void DaimyoEngine::ApplyTestResult(int unit, int reason, MoraleResult result,
                                   const v1::MoraleTest& test) {
  const bool was_routing = state_.units[unit].routing;
  if (was_routing &&
      (result == MoraleResult::kRetire || result == MoraleResult::kRetreat) &&
      rules_.options.router_retire_owes() ==
          rules::daimyo::RouterRetireOwes::kNothingMore) {
    // A router cannot make an orderly retire, and routing is already the
    // worst result: under this reading the result asks nothing more.
    return;
  }
  const bool owes_move = result == MoraleResult::kRetire ||
                         result == MoraleResult::kRetreat ||
                         result == MoraleResult::kStandOrRetire ||
                         result == MoraleResult::kCounterCharge ||
                         (result == MoraleResult::kRout && !was_routing);
  if (owes_move) {
    CheckResultMovesMade(unit, [] { return std::string("its morale test"); });
  }
  rules::daimyo::ApplyMoraleResult(state_, unit, result);
  OweAfterTestResult(unit, reason, result, was_routing, test);
}

void DaimyoEngine::OweAfterTestResult(int unit, int reason, MoraleResult result,
                                      bool was_routing,
                                      const v1::MoraleTest& test) {
  switch (result) {
    case MoraleResult::kHalt:
      state_.units[unit].halt_cause_seq = seq_;
      if (reason == 4) CancelCharge(unit);
      break;
    case MoraleResult::kRetire:
      state_.units[unit].halt_cause_seq = seq_;
      owed_moves_[unit] = OwedMove::kRetire;
      if (reason == 4) CancelCharge(unit);
      break;
    case MoraleResult::kRetreat:
      state_.units[unit].halt_cause_seq = seq_;
      owed_moves_[unit] = OwedMove::kRetreat;
      break;
    case MoraleResult::kRout:
      CancelCharge(unit);
      // Only a new rout owes its friends their tests (reading 42): a router
      // that fails again is the same router they tested for.
      if (!was_routing) {
        owed_moves_[unit] = OwedMove::kRout;
        OweRoutTests(unit, test.friends_near(), {});
      }
      break;
    case MoraleResult::kStandOrRetire:
    case MoraleResult::kCounterCharge:
      owed_moves_[unit] = OwedMove::kMayRetire;
      may_counter_charge_[unit] = FirstChargerOf(unit);
      break;
    default:
      break;
  }
}

int DaimyoEngine::FirstChargerOf(int target) const {
  for (std::size_t c = 0; c < state_.units.size(); ++c) {
    if (state_.IsChargedBy(target, static_cast<int>(c))) {
      return static_cast<int>(c);
    }
  }
  return -1;
}

void DaimyoEngine::CancelCharge(int unit) {
  // A charger halted or routed before its charge fought never made contact.
  rules::UnitStatus& s = state_.units[unit];
  if (s.charging && !s.charge_spent &&
      s.charged_into_contact_with == s.charging_target) {
    s.charged_into_contact_with = -1;
  }
  rules::EndCharge(state_, unit);
}

bool DaimyoEngine::CheckHalted(int unit, absl::string_view what) {
  if (!state_.IsHalted(unit)) return true;
  Violation("daimyo.morale.halted", state_.profiles[unit].id,
            absl::StrFormat("%s %s, but it is halted until the end of turn "
                            "%d by its morale test at seq %d.",
                            UnitLabel(state_, unit), what,
                            state_.units[unit].halted_until_turn,
                            state_.units[unit].halt_cause_seq));
  return false;
}

void DaimyoEngine::CheckCounterCharge(int unit, int target) {
  const std::string& id = state_.profiles[unit].id;
  // Any unit charging it this turn: with several chargers, each charge owes
  // its own test, and the unit that passed may counter the one it chooses
  // (not only the charger first in the order of battle).
  const bool allowed =
      may_counter_charge_[unit] == target ||
      (may_counter_charge_[unit] >= 0 && state_.IsChargedBy(unit, target));
  if (!allowed) {
    Violation(
        "daimyo.morale.counter_charge_not_allowed", id,
        absl::StrFormat("%s counter-charges %s, but a counter-charge "
                        "needs a passed being-charged test against "
                        "that charger this activation.",
                        UnitLabel(state_, unit), UnitLabel(state_, target)));
    return;
  }
  if (state_.profiles[unit].mobility == rules::Mobility::kFoot &&
      state_.profiles[target].mobility == rules::Mobility::kMounted) {
    Violation("daimyo.morale.counter_charge_type", id,
              absl::StrCat(UnitLabel(state_, unit),
                           " is foot and may not counter-charge cavalry."));
  }
}

}  // namespace gunbai::rules::daimyo
