// Random playouts through the legal-action list (issue 28, item 4): a game
// played only by choosing, at each point, one of the actions
// replay::ListLegalActions offers (the umpire's and each clan's), appended
// as a live game with server dice would take it (replay::PlayLiveBatch,
// strict). The finished log is then audited from its first event by a
// fresh engine: a playout that dead-ends (nothing offered but the game's
// end, before the last turn), that has an offered action refused, or whose
// log does not audit clean is a failure, and says where.
//
// A move that needs a destination on a table is given one within its
// reach: straight ahead by a random 0-100 mm, or where it stands when that
// is refused. Thread-compatible: one playout per call.
#ifndef GUNBAI_TESTS_REPLAY_PLAYOUT_H_
#define GUNBAI_TESTS_REPLAY_PLAYOUT_H_

#include <cstdint>
#include <map>
#include <string>

#include "gunbai/v1/battle_log.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::testing {

struct PlayoutOptions {
  std::uint64_t seed = 1;
  // "daimyo" or "skf".
  std::string ruleset = "daimyo";
  // Daimyo only: armies on a table (the generator's deployment).
  bool table = false;
  int units_per_clan = 4;
  // Turns played before the umpire ends the game.
  int turns = 3;
  // The most events a playout appends (a guard; reaching it is a failure).
  int max_events = 3000;
};

struct PlayoutResult {
  gunbai::v1::BattleLog log;
  // Empty when the playout is sound; else what went wrong, and where.
  std::string failure;
  int events = 0;
  // Actions offered, summed over every point (for the closing figures).
  std::int64_t offered = 0;
  // Events played, by kind ("fire", "morale", ...).
  std::map<std::string, int> kinds;
};

PlayoutResult PlayOut(const PlayoutOptions& options,
                      const replay::LoadedRuleset& ruleset);

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_REPLAY_PLAYOUT_H_
