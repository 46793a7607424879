// The dice gunbaid rolls for a live Samurai Knight Fever game with server
// dice (RulesetPlugin::server_dice; rules/skf/RULES.md, "Server dice").
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/engine.h"
#include "rules/skf/engine.h"

namespace gunbai::rules::skf {

absl::StatusOr<ServerDicePlan> SkfServerDice(const gunbai::v1::Event& event,
                                             const gunbai::v1::Ruleset& data,
                                             const BattleState& /*state*/) {
  using gunbai::v1::Event;
  ServerDicePlan plan;
  switch (event.body_case()) {
    case Event::kMeleeRound: {
      // Each side of a pairing rolls one die on its own odds column.
      const int sides = event.melee_round().sides_size();
      if (sides != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("a melee pairing has two sides, not ", sides));
      }
      plan.dice = 2;
      plan.side_dice = {1, 1};
      return plan;
    }
    case Event::kMoraleTest:
      if (!data.skf().has_morale()) {
        return absl::FailedPreconditionError(
            "the ruleset has no morale check (skf.morale), so it does not "
            "say how many dice a morale check rolls");
      }
      plan.dice = static_cast<int>(data.skf().morale().dice());
      return plan;
    case Event::kLeaderLoss:
      // The leader-hit roll: one die.
      plan.dice = 1;
      return plan;
    default:
      // Page 6 rolls no other dice (no initiative roll; firing, duels and
      // result moves are not covered and are replayed as claimed).
      return plan;
  }
}

}  // namespace gunbai::rules::skf
