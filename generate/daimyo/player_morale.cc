// Morale tests, rallies and the moves their results owe, for the
// GamePlayer. See player.h.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "generate/daimyo/player.h"
#include "replay/proto_mapping.h"
#include "rules/battlefield_proto.h"
#include "rules/daimyo/morale.h"
#include "rules/proto_enums.h"

namespace gunbai::generate::internal {

namespace {

using rules::MoraleResult;

constexpr int kRallyPercent = 50;
constexpr int kRallyReason = 8;
// A dead leader's death is seen by units near (ListUnitsNearDeath).
constexpr int kNearDeathPercent = 60;

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

// Each router of the active clan still routing makes its rout move of the
// turn, unless it made one already (it routed this turn): a router moves
// once a turn, and must (reading 29).
void GamePlayer::MoveRouters(int clan) {
  for (int unit : UnitsOnTable(clan)) {
    if (status(unit).routing && !replayer_->RoutMovedThisTurn(unit)) {
      MakeResultMove(unit, v1::RESULT_MOVE_KIND_ROUT);
    }
  }
  // A router that clearing its friends took off the table, or one that
  // met the enemy, is destroyed: removed now.
  RemoveDestroyed();
}

// Returns the rout moves `clan`'s routers owe this turn.
int GamePlayer::RoutersToMove(int clan) const {
  int n = 0;
  for (int unit : UnitsOnTable(clan)) {
    if (status(unit).routing && !replayer_->RoutMovedThisTurn(unit)) ++n;
  }
  return n;
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
  in_end_of_turn_tests_ = true;
  std::vector<bool> skipped(plans_.size(), false);
  // On a table a rout move owes a test to every friend near it, measured,
  // also to one that has tested already: the tests go round until none is
  // owed (each unit routs once, so this ends).
  for (bool again = true; again;) {
    again = false;
    for (int unit = 0; unit < UnitCount(); ++unit) {
      if (!OwesEndOfTurnTest(unit) || skipped[unit]) continue;
      if (MayPlant(FaultKind::kMoraleTestMissing)) {
        skipped[unit] = true;
        RecordDeferredFault(
            FaultKind::kMoraleTestMissing, UnitId(unit),
            absl::StrCat(UnitId(unit), " skips the morale test it owes"));
        continue;
      }
      TakeMoraleTest(unit, rules::daimyo::HighestReason(
                               status(unit).owed_morale & kEndOfTurnReasons));
      again = positions();
    }
  }
  in_end_of_turn_tests_ = false;
}

// Declares now and then the measured facts a test may rest on, true to the
// state where the state knows them: routers near are units routing now, a
// leader killed near is one killed this turn, a frontal charge is one by
// cavalry charging the unit now. A test with none declared leaves its
// facts out.
void GamePlayer::FillMoraleFacts(int unit, v1::MoraleTest& test) {
  v1::MoraleFacts facts;
  if (positions()) {
    // On a table every fact the engine measures is left to it, but now and
    // then one is declared as the table has it (a leader killed near);
    // being out of command is declared only when the ruleset gives no
    // command reach to measure it by.
    if (rules_.table.command_reach_mm == 0) {
      facts.set_out_of_command(Chance(8));
    }
    if (status(unit).leader_killed_near && Chance(50)) {
      facts.set_leader_killed_near(true);
    }
    if (facts.ByteSizeLong() > 0) *test.mutable_facts() = facts;
    return;
  }
  facts.set_uphill_or_in_cover(Chance(10));
  facts.set_general_near(Chance(15));
  facts.set_out_of_command(Chance(8));
  facts.set_enemy_facing_flank_or_rear_near(Chance(6));
  for (int other = 0; other < UnitCount(); ++other) {
    if (other == unit || !OnTable(other) || !status(other).routing ||
        !Chance(40)) {
      continue;
    }
    if (plans_[other].clan == plans_[unit].clan) {
      facts.add_friends_routing_near(UnitId(other));
    } else {
      facts.add_enemies_routing_near(UnitId(other));
    }
  }
  for (const rules::LeaderState& leader : state().leaders) {
    if (leader.killed && leader.killed_on_turn == static_cast<int>(turn_) &&
        Chance(50)) {
      facts.set_leader_killed_near(true);
    }
  }
  for (int c = 0; c < UnitCount(); ++c) {
    if (OnTable(c) && state().IsChargedBy(unit, c) &&
        state().profiles[c].mobility == rules::Mobility::kMounted &&
        Chance(70)) {
      facts.set_charged_frontally(true);
    }
  }
  if (facts.ByteSizeLong() > 0) *test.mutable_facts() = facts;
}

// Without a table (where the tape measures who is near) and in games sized
// by turns (whose budget would not hold the tests), a dead leader has, now
// and then, one or two of his clan's other units near: in good order, not
// frenzied (a frenzied unit takes no test), each listed at even odds.
void GamePlayer::ListUnitsNearDeath(
    int leader, google::protobuf::RepeatedPtrField<std::string>& near) {
  if (positions() || sized_by_events() || !Variety(kNearDeathPercent)) return;
  const rules::LeaderState& l = state().leaders[leader];
  for (int unit : UnitsOnTable(l.clan)) {
    const rules::UnitStatus& s = status(unit);
    if (unit == l.attached_unit || s.routing || s.frenzied ||
        near.size() >= 2) {
      continue;
    }
    if (Variety(50)) near.Add(std::string(UnitId(unit)));
  }
}

// Returns the test as the replayer reads it: `friends` holds the friendly
// routers near and must outlive the result.
rules::daimyo::MoraleTestInput GamePlayer::MoraleInput(
    int unit, const v1::MoraleTest& test, std::vector<int>& friends) const {
  rules::daimyo::MoraleTestInput in;
  in.unit = unit;
  in.reason = static_cast<int>(test.reason());
  in.dice = absl::MakeConstSpan(test.dice().data(), test.dice_size());
  const v1::MoraleFacts& f = test.facts();
  in.facts.uphill_or_in_cover = f.uphill_or_in_cover();
  in.facts.general_near = f.general_near();
  in.facts.out_of_command = f.out_of_command();
  in.facts.enemies_routing_near = f.enemies_routing_near_size();
  for (const std::string& id : f.friends_routing_near()) {
    friends.push_back(replayer_->FindUnit(id));
  }
  in.facts.friends_routing_near = friends;
  in.facts.enemy_facing_flank_or_rear_near =
      f.enemy_facing_flank_or_rear_near();
  in.facts.leader_killed_near = f.leader_killed_near();
  in.facts.charged_frontally = f.charged_frontally();
  if (positions()) ApplyMoraleMeasure(in, friends);
  return in;
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
  const bool drawn_ahead = has_drawn_dice_[unit];
  if (drawn_ahead) {
    for (std::uint32_t die : drawn_dice_[unit]) test->add_dice(die);
    has_drawn_dice_[unit] = false;
  } else {
    test->add_dice(RollDie());
    test->add_dice(RollDie());
    FillMoraleFacts(unit, *test);
  }
  std::vector<int> friends;
  const rules::daimyo::MoraleTestInput in = MoraleInput(unit, *test, friends);
  const rules::daimyo::MoraleResolution res =
      rules::daimyo::ResolveMoraleTest(rules_, state(), in, nullptr);
  test->set_claimed_total(res.total);
  test->set_claimed_result(rules::MoraleResultToProto(res.result));
  if (MayPlant(FaultKind::kMoraleTotalWrong)) {
    test->set_claimed_total(res.total + (Chance(50) ? 1 : -1));
    RecordFault(
        FaultKind::kMoraleTotalWrong, seq_ + 1, UnitId(unit),
        absl::StrCat(UnitId(unit), " claims a morale total of ",
                     test->claimed_total(), "; the dice give ", res.total));
  } else if (!drawn_ahead && MayPlant(FaultKind::kMoraleDiceCount)) {
    // One die or three: the replayer cannot resolve the test and goes on
    // with the claimed result, which stays right, so the game is unchanged.
    if (Chance(50)) {
      test->mutable_dice()->RemoveLast();
    } else {
      test->add_dice(RollDie());
    }
    RecordFault(FaultKind::kMoraleDiceCount, seq_ + 1, UnitId(unit),
                absl::StrCat(UnitId(unit), " tests morale with ",
                             test->dice_size(), " dice"));
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
      !was_routing || rules_.options.router_retire_owes() ==
                          rules::daimyo::RouterRetireOwes::kTheMove;
  // A retire or retreat owed at the end of the turn may be skipped as a
  // planted fault: the audit finds it missing at turn_end (reading 34).
  if ((result == MoraleResult::kRetire || result == MoraleResult::kRetreat) &&
      router_moves && !was_routing && in_end_of_turn_tests_ &&
      MayPlantAnyTime(FaultKind::kResultMoveMissing)) {
    RecordDeferredFault(
        FaultKind::kResultMoveMissing, UnitId(unit),
        absl::StrCat(UnitId(unit), " does not make the ",
                     result == MoraleResult::kRetire ? "retire" : "retreat",
                     " move its morale test owes"));
    return;
  }
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
  if (positions() && kind == v1::RESULT_MOVE_KIND_ROUT) {
    // A new rout turns about and flees (the engine works out where); a
    // router already fleeing flees on the way it faces, short of the
    // table's edge. Either declares the block the table gives.
    std::optional<rules::Pose> to;
    if (status(unit).routing) {
      to = FlightPose(unit, static_cast<int>(move->distance_mm()));
      *move->mutable_to() = rules::PoseToProto(*to);
    }
    const rules::daimyo::MoveMeasure predicted =
        PredictResultMove(unit, kind, static_cast<int>(move->distance_mm()),
                          to.has_value() ? &*to : nullptr, MeleeOpponent(unit));
    const v1::MoveBlock block = PredictedBlock(kind, predicted);
    if (block != v1::MOVE_BLOCK_NONE) move->set_blocked(block);
    AddPassedThrough(unit, predicted.to, *move);
  }
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
