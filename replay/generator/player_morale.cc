// Morale tests, rallies and the moves their results owe, for the
// GamePlayer. See player.h.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "replay/generator/player.h"
#include "replay/proto_mapping.h"
#include "rules/daimyo/morale.h"

namespace gunbai::generate::internal {

namespace {

using rules::MoraleResult;

constexpr int kRallyPercent = 50;
constexpr int kRallyReason = 8;

}  // namespace

// Routers of the active clan test to rally now and then, before they move.
// The General's unit never does: a failed rally disperses the unit, and
// every clan keeps that unit on the table.
void GamePlayer::RallyRouters(int clan) {
  for (int unit : UnitsOnTable(clan)) {
    if (!status(unit).routing || plans_[unit].keeps_table) continue;
    if (Chance(kRallyPercent) && Affordable(1)) {
      TakeMoraleTest(unit, kRallyReason);
    }
  }
}

// Takes the test `unit` owes for a charge just declared (reasons 2, 3 and
// 4: for the highest). Returns its result, or kNoEffect when it owes none.
MoraleResult GamePlayer::TakeChargeTests(int unit) {
  const rules::MoraleReasons owed = status(unit).owed_morale & kChargeReasons;
  if (owed == 0 || !OnTable(unit) || status(unit).frenzied) {
    return MoraleResult::kNoEffect;
  }
  return TakeMoraleTest(unit, rules::daimyo::HighestReason(owed));
}

// Takes, after the last activation of the turn, the one test each unit owes
// for reasons 1, 5, 6 and 7: for the highest of them. A planted fault skips
// one; the audit finds it missing when the turn ends.
void GamePlayer::TakeEndOfTurnTests() {
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (!OwesEndOfTurnTest(unit)) continue;
    if (MayPlant(FaultKind::kMoraleTestMissing)) {
      RecordDeferredFault(
          FaultKind::kMoraleTestMissing, UnitId(unit),
          absl::StrCat(UnitId(unit), " skips the morale test it owes"));
      continue;
    }
    TakeMoraleTest(unit, rules::daimyo::HighestReason(status(unit).owed_morale &
                                                      kEndOfTurnReasons));
  }
}

// Declares now and then the measured facts a test may rest on; a test
// with none declared leaves its facts out.
void GamePlayer::FillMoraleFacts(v1::MoraleTest& test) {
  v1::MoraleFacts facts;
  facts.set_uphill_or_in_cover(Chance(10));
  facts.set_general_near(Chance(15));
  facts.set_out_of_command(Chance(8));
  if (facts.ByteSizeLong() > 0) *test.mutable_facts() = facts;
}

// Rolls `unit`'s test for `reason` with every claim worked out on the state
// before it, then carries out its result. The dice drawn ahead for the
// closing turn are used when there are some (and then no facts are
// declared, as when they were drawn). Returns the result.
MoraleResult GamePlayer::TakeMoraleTest(int unit, int reason) {
  const bool was_routing = status(unit).routing;
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::MoraleTest* test = event.mutable_morale_test();
  test->set_unit(UnitId(unit));
  test->set_reason(static_cast<uint32_t>(reason));
  if (has_drawn_dice_[unit]) {
    for (std::uint32_t die : drawn_dice_[unit]) test->add_dice(die);
    has_drawn_dice_[unit] = false;
  } else {
    test->add_dice(RollDie());
    test->add_dice(RollDie());
    FillMoraleFacts(*test);
  }
  rules::daimyo::MoraleTestInput in;
  in.unit = unit;
  in.reason = reason;
  in.dice = absl::MakeConstSpan(test->dice().data(), test->dice_size());
  in.facts.uphill_or_in_cover = test->facts().uphill_or_in_cover();
  in.facts.general_near = test->facts().general_near();
  in.facts.out_of_command = test->facts().out_of_command();
  const rules::daimyo::MoraleResolution res =
      rules::daimyo::ResolveMoraleTest(rules_, state(), in, nullptr);
  test->set_claimed_total(res.total);
  test->set_claimed_result(replay::MoraleResultToProto(res.result));
  if (MayPlant(FaultKind::kMoraleTotalWrong)) {
    test->set_claimed_total(res.total + (Chance(50) ? 1 : -1));
    RecordFault(
        FaultKind::kMoraleTotalWrong, seq_ + 1, UnitId(unit),
        absl::StrCat(UnitId(unit), " claims a morale total of ",
                     test->claimed_total(), "; the dice give ", res.total));
  }
  Emit(event);
  CarryOutResult(unit, res.result, was_routing);
  return res.result;
}

// Makes the move a result owes at once (a router already fleeing owes no new
// rout move), and removes a unit the result destroyed (a second rout).
// Halts, the halt after a retire or retreat, frenzy and routing are kept by
// the replayed state, which the rest of the player reads.
void GamePlayer::CarryOutResult(int unit, MoraleResult result,
                                bool was_routing) {
  // A router owes no retire or retreat move unless the reading says so.
  const bool router_moves =
      !was_routing ||
      rules_.options.router_retire_owes == rules::RouterRetireOwes::kTheMove;
  switch (result) {
    case MoraleResult::kRetire:
      if (router_moves) MakeResultMove(unit, v1::RESULT_MOVE_KIND_RETIRE);
      break;
    case MoraleResult::kRetreat:
      if (router_moves) MakeResultMove(unit, v1::RESULT_MOVE_KIND_RETREAT);
      break;
    case MoraleResult::kRout:
      if (!was_routing) MakeResultMove(unit, v1::RESULT_MOVE_KIND_ROUT);
      break;
    default:
      break;
  }
  const rules::UnitStatus& s = status(unit);
  if (!s.removed && !s.removal_owed.empty()) Remove(unit);
}

void GamePlayer::MakeResultMove(int unit, v1::ResultMoveKind kind) {
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::ResultMove* move = event.mutable_result_move();
  move->set_unit(UnitId(unit));
  move->set_kind(kind);
  move->set_distance_mm(static_cast<uint32_t>(Uniform(30, 150)));
  Emit(event);
  left_this_activation_[unit] = true;
}

void GamePlayer::Remove(int unit) {
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::Removal* removal = event.mutable_removal();
  removal->set_unit(UnitId(unit));
  removal->set_reason(status(unit).removal_owed);
  Emit(event);
}

}  // namespace gunbai::generate::internal
