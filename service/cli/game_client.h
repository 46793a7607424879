// The client side of GameService's paged replies: ExportGame answers a page
// of about 2 MiB of events at a time (gunbaid's memory per call is a page,
// not the game), and a client follows `next_seq` to the end. Thread-safe:
// no state.
#ifndef GUNBAI_SERVICE_CLI_GAME_CLIENT_H_
#define GUNBAI_SERVICE_CLI_GAME_CLIENT_H_

#include <functional>
#include <string>

#include "grpcpp/support/status.h"
#include "gunbai/v1/game_service.pb.h"

namespace gunbai::service {

// Sends one ExportGame call (with the caller's credential and deadline).
using ExportPageCall = std::function<grpc::Status(
    const gunbai::v1::ExportGameRequest&, gunbai::v1::ExportGameResponse*)>;

// Fills `game` with the whole export of `game_id`, asking `call` for each
// page from the start until a page has no next one: the first page with
// the events (and their ids, chain hashes and dice attempts) of the others
// appended, and the settings and dice commitment of the last. Returns the
// first call's status that is not OK, or INTERNAL when a page's next_seq
// does not lead past the page (a gunbaid that would page forever).
grpc::Status ExportWholeGame(const std::string& game_id,
                             const ExportPageCall& call,
                             gunbai::v1::ExportedGame* game);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_GAME_CLIENT_H_
