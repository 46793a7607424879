// What a clan may append next in a live game (gunbaid's GetLegalActions,
// the web app's action form): candidate events built from the game's state
// (the clan's activation, each of its units' moves, charges and firings at
// each enemy, the morale tests it owes, result moves, melee rounds, its
// turn end; for the umpire also the turn's start and the game's end), each
// tried on a copy of the game's replay as a strict game with server dice
// would take it, and kept when the engine finds no violation. The rules
// are the engine's own: nothing here decides what is legal. Thread-
// compatible: the engine is only read.
#ifndef GUNBAI_REPLAY_LEGAL_ACTIONS_H_
#define GUNBAI_REPLAY_LEGAL_ACTIONS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"

namespace gunbai::replay {

// The most candidates tried for one answer (a clan of 64 units against 64
// enemies is about 9,000): beyond it the rest are not offered, and the
// answer's waiting_for says so.
inline constexpr int kMaxLegalActionCandidates = 10'000;

struct LegalActionsGame {
  // The game's log (its header, order of battle and starting position are
  // what a copy of the replay is built from; its events are not replayed).
  const gunbai::v1::BattleLog* log = nullptr;
  const gunbai::v1::GameSettings* settings = nullptr;
  const LoadedRuleset* ruleset = nullptr;
  // The game's replay now, copied through its checkpoint.
  const rules::Engine* engine = nullptr;
  std::uint64_t version = 0;
  bool ended = false;
  // Who asks: the umpire (then `clan` is the clan asked for) or the player
  // of `clan`.
  bool umpire = false;
  absl::string_view clan;
};

// Returns the actions `game.clan` may append now. FailedPrecondition when
// the engine cannot be copied (a ruleset without checkpoints).
absl::StatusOr<gunbai::v1::GetLegalActionsResponse> ListLegalActions(
    const LegalActionsGame& game);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LEGAL_ACTIONS_H_
