// Daimyo's server dice (RulesetPlugin::server_dice, rules/daimyo/engine.h).
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "rules/battle_state.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/engine.h"
#include "rules/excerpt.h"
#include "rules/status_macros.h"

namespace gunbai::rules::daimyo {

// Daimyo's dice (rules/daimyo/RULES.md): initiative, one die per clan;
// firing.dice_per_stand per stand firing and melee.dice_per_stand per stand
// fighting (2 in the rules); a morale test 2; a leader-loss roll 1; a rout
// or pursuit move 2; a challenge a duel (none when refused).
namespace {

bool IsRoutOrPursuit(const gunbai::v1::ResultMove& move) {
  return move.kind() == gunbai::v1::RESULT_MOVE_KIND_ROUT ||
         move.kind() == gunbai::v1::RESULT_MOVE_KIND_PURSUIT;
}

// Returns `per_stand` dice per stand, or InvalidArgument above kMaxStands.
absl::StatusOr<int> StandDice(std::uint32_t stands, std::uint32_t per_stand,
                              absl::string_view what) {
  if (stands > static_cast<std::uint32_t>(kMaxStands)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is ", stands, ", more than the ", kMaxStands, " allowed"));
  }
  // The loader bounds per_stand to 1-6.
  return static_cast<int>(per_stand * stands);
}

// Returns the command rating of leader `id` in `state`, or InvalidArgument.
absl::StatusOr<int> CommandRating(const BattleState& state,
                                  absl::string_view id,
                                  absl::string_view role) {
  for (const LeaderState& leader : state.leaders) {
    if (leader.id == id) return leader.command_rating;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the challenge's ", role, " '", Excerpt(id), "' is not a leader"));
}

// Returns the dice of a melee round, each side's stands fighting times
// melee.dice_per_stand, and lists each side's in `plan`; InvalidArgument
// unless it has two sides of at most kMaxStands stands.
absl::StatusOr<int> MeleeRoundDice(const gunbai::v1::MeleeRound& round,
                                   const gunbai::v1::Ruleset& data,
                                   ServerDicePlan& plan) {
  const auto& sides = round.sides();
  if (sides.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("a melee round has two sides, not ", sides.size()));
  }
  int total = 0;
  for (const gunbai::v1::MeleeSide& side : sides) {
    absl::StatusOr<int> dice =
        StandDice(side.stands_fighting(), data.melee().dice_per_stand(),
                  "stands_fighting");
    if (!dice.ok()) return dice.status();
    plan.side_dice.push_back(*dice);
    total += *dice;
  }
  return total;
}

// Sets `plan`'s roll-off for an accepted challenge's duel: pairs of dice,
// the challenger's first, each leader's die plus his command rating now (a
// refused challenge has cost a point, a duel won gained one), until the two
// differ; none when refused. InvalidArgument when a leader is unknown.
absl::Status PlanDuel(const gunbai::v1::Challenge& challenge,
                      const BattleState& state, ServerDicePlan& plan) {
  absl::StatusOr<int> challenger =
      CommandRating(state, challenge.challenger(), "challenger");
  if (!challenger.ok()) return challenger.status();
  absl::StatusOr<int> challenged =
      CommandRating(state, challenge.challenged(), "challenged");
  if (!challenged.ok()) return challenged.status();
  if (challenge.accepted()) {
    plan.roll_off.group = 2;
    plan.roll_off.offsets = {*challenger, *challenged};
    plan.roll_off.max_groups = kMaxDuelPairs;
    plan.roll_off.what = "the duel";
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerDicePlan> DaimyoServerDice(const gunbai::v1::Event& event,
                                                const gunbai::v1::Ruleset& data,
                                                const BattleState& state) {
  const int clan_count = static_cast<int>(state.clans.size());
  using gunbai::v1::Event;
  ServerDicePlan plan;
  absl::StatusOr<int> count = 0;
  switch (event.body_case()) {
    case Event::kTurnStart:
      count = clan_count;
      break;
    case Event::kFiring:
      count = StandDice(event.firing().stands_firing(),
                        data.firing().dice_per_stand(), "stands_firing");
      break;
    case Event::kMeleeRound:
      count = MeleeRoundDice(event.melee_round(), data, plan);
      break;
    case Event::kChallenge:
      GUNBAI_RETURN_IF_ERROR(PlanDuel(event.challenge(), state, plan));
      return plan;
    case Event::kMoraleTest:
      count = 2;
      break;
    case Event::kLeaderLoss:
      count = 1;
      break;
    case Event::kResultMove:
      count = IsRoutOrPursuit(event.result_move()) ? 2 : 0;
      break;
    default:
      break;
  }
  if (!count.ok()) return count.status();
  plan.dice = *count;
  return plan;
}

}  // namespace gunbai::rules::daimyo
