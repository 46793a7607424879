// Copying every live game from one store to another (gunbai store
// migrate): records, events, the answers of their batches, the dice
// attempt counters and the players' checkpoint keys and cosignatures, each
// game verified after its copy. Checkpoints are not
// copied: the target's gunbaid writes new ones as games are appended to.
//
// A migration can be run again after it stopped part way: a game the
// target already holds is compared with the source, and what it lacks is
// appended, batch by batch, at the version the target has.
#ifndef GUNBAI_SERVICE_STORE_STORE_MIGRATE_H_
#define GUNBAI_SERVICE_STORE_STORE_MIGRATE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/game_service.pb.h"
#include "service/store/game_store.h"

namespace gunbai::service {

struct MigrationTotals {
  int games = 0;
  // Games the target already held whole.
  int already_there = 0;
  uint64_t events = 0;
  uint64_t batches = 0;
};

// Called after each game: its id, and how many games are done of `total`.
using MigrationProgress =
    std::function<void(const std::string& game_id, int done, int total)>;

// Copies every game of `from` into `to` and verifies each (VerifyCopy).
// Returns FAILED_PRECONDITION, naming the game, when the target holds a
// game of the same id that is not a prefix of the source's, DATA_LOSS when
// a copy does not verify, and the stores' errors.
absl::StatusOr<MigrationTotals> MigrateGames(GameStore& from, GameStore& to,
                                             const MigrationProgress& progress);

// Checks that `to` holds game `game_id` as `from` does: the same record,
// the same events byte for byte, the same batches and answers, dice
// attempts not fewer, and a chain that verifies from the game's genesis
// (replay::VerifyChain). Returns DATA_LOSS saying what differs.
absl::Status VerifyCopy(GameStore& from, GameStore& to,
                        absl::string_view game_id);

// Returns the game as `gunbai game export` writes it, read from `store`.
absl::StatusOr<gunbai::v1::ExportedGame> ExportFromStore(
    GameStore& store, absl::string_view game_id);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_STORE_STORE_MIGRATE_H_
