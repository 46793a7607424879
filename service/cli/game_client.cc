#include "service/cli/game_client.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gunbai::service {

namespace v1 = ::gunbai::v1;

namespace {

// Appends `page`'s events and the lists parallel to them to `game`, and
// takes its settings and dice commitment (the game may have ended since
// the pages before).
void AppendPage(v1::ExportedGame& page, v1::ExportedGame& game) {
  for (v1::Event& event : *page.mutable_log()->mutable_events()) {
    *game.mutable_log()->add_events() = std::move(event);
  }
  for (std::string& id : *page.mutable_event_ids()) {
    game.add_event_ids(std::move(id));
  }
  for (std::string& hash : *page.mutable_chain_hashes()) {
    game.add_chain_hashes(std::move(hash));
  }
  for (uint64_t attempt : page.dice_attempts()) {
    game.add_dice_attempts(attempt);
  }
  *game.mutable_settings() = std::move(*page.mutable_settings());
  *game.mutable_dice() = std::move(*page.mutable_dice());
}

}  // namespace

grpc::Status ExportWholeGame(const std::string& game_id,
                             const ExportPageCall& call,
                             v1::ExportedGame* game) {
  v1::ExportGameRequest request;
  request.set_game_id(game_id);
  v1::ExportGameResponse response;
  grpc::Status s = call(request, &response);
  if (!s.ok()) return s;
  *game = std::move(*response.mutable_game());
  while (response.next_seq() != 0) {
    const auto& events = game->log().events();
    if (!events.empty() &&
        response.next_seq() <= events[events.size() - 1].seq()) {
      return grpc::Status(
          grpc::StatusCode::INTERNAL,
          absl::StrCat("gunbaid's export of ", game_id, " goes back to seq ",
                       response.next_seq(), " after seq ",
                       events[events.size() - 1].seq()));
    }
    request.set_from_seq(response.next_seq());
    response.Clear();
    s = call(request, &response);
    if (!s.ok()) return s;
    AppendPage(*response.mutable_game(), *game);
  }
  return grpc::Status::OK;
}

}  // namespace gunbai::service
