// What a clan may append next in a live game (gunbaid's GetLegalActions,
// the web app's action form). The design is a chess program's: the
// ruleset's move generator (rules::Engine::ProposeEvents) proposes the
// pseudo-legal events from the game's state, with the domain of each
// parameter the state settles (a volley's stands and range band, a move's
// reach on a table); each is then tried on a copy of the game's replay
// (Engine::Clone, else a checkpoint) as a strict game with server dice
// would take it, and kept when the engine finds no violation. The rules
// are the engine's own, the audit's: nothing here decides what is legal. A
// ruleset without a generator gets generic candidates (every kind of event
// for each unit and enemy). Thread-compatible: the engine is only read.
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

// Returns the clan whose actions a caller may list in `game_id`, whose
// header is `header`: a player's own (it may ask for none, or for its own by
// name; PermissionDenied for another's), or the clan the umpire names
// (InvalidArgument unless it is one of the game's).
absl::StatusOr<std::string> ClanToList(const gunbai::v1::Header& header,
                                       absl::string_view game_id, bool umpire,
                                       absl::string_view callers_clan,
                                       absl::string_view asked);

// Returns the actions `game.clan` may append now. FailedPrecondition when
// the engine cannot be copied (a ruleset without checkpoints).
absl::StatusOr<gunbai::v1::GetLegalActionsResponse> ListLegalActions(
    const LegalActionsGame& game);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LEGAL_ACTIONS_H_
