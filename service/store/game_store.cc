#include "service/store/game_store.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/game_service.pb.h"
#include "rules/excerpt.h"

namespace gunbai::service {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

}  // namespace

absl::Status CheckAppendBatch(
    const std::vector<gunbai::v1::StoredEvent>& events) {
  if (events.empty()) {
    return absl::InvalidArgumentError("cannot append an empty batch");
  }
  if (events.size() > GameStore::kMaxBatchEvents) {
    return absl::InvalidArgumentError(
        absl::StrCat("a batch holds at most ", GameStore::kMaxBatchEvents,
                     " events, not ", events.size()));
  }
  absl::flat_hash_set<absl::string_view> ids;
  for (size_t i = 0; i < events.size(); ++i) {
    const gunbai::v1::StoredEvent& event = events[i];
    const std::string where = absl::StrCat("event ", i + 1, " of the batch");
    if (event.event_id().empty() || event.chain_hash().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " lacks its event_id or chain_hash"));
    }
    if (!ids.insert(event.event_id()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " repeats event id \"", event.event_id(), "\""));
    }
    if (event.event().seq() > static_cast<uint64_t>(kMaxInt64)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has seq ", event.event().seq(),
                       ", over the largest storable ", kMaxInt64));
    }
    if (event.ByteSizeLong() > GameStore::kMaxStoredEventBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " (\"", event.event_id(), "\") is ", event.ByteSizeLong(),
          " bytes, over the limit of ", GameStore::kMaxStoredEventBytes));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNewGame(const GameRecord& game) {
  if (game.game_id.empty()) {
    return absl::InvalidArgumentError("a game needs an id");
  }
  absl::flat_hash_set<absl::string_view> clans;
  for (const auto& [clan, hash] : game.credential_hashes) {
    if (!clans.insert(clan).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clan \"", rules::Excerpt(clan), "\" has two credentials"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckDiceAttempts(uint64_t taken) {
  if (taken > static_cast<uint64_t>(kMaxInt64)) {
    return absl::InvalidArgumentError(
        "a dice attempt over the largest storable");
  }
  return absl::OkStatus();
}

absl::Status CheckCheckpoint(const StoredCheckpoint& checkpoint) {
  if (checkpoint.after_version > static_cast<uint64_t>(kMaxInt64) ||
      checkpoint.after_seq > static_cast<uint64_t>(kMaxInt64)) {
    return absl::InvalidArgumentError(
        "a checkpoint's version or seq is over the largest storable");
  }
  return absl::OkStatus();
}

absl::Status NoGameError(absl::string_view game_id) {
  return absl::NotFoundError(absl::StrCat("no game \"", game_id, "\""));
}

absl::Status WitnessKeyTakenError(absl::string_view clan) {
  return absl::AlreadyExistsError(absl::StrCat(
      "clan \"", clan,
      "\" registered another checkpoint key in this game: a key is "
      "registered once; cosign with the key registered"));
}

absl::Status CheckCosignature(const StoredCosignature& cosignature) {
  if (cosignature.clan.empty() || cosignature.signature_line.empty()) {
    return absl::InvalidArgumentError(
        "a cosignature names its clan and holds its signature line");
  }
  if (cosignature.tree_size >
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(
        "a cosignature's tree size is over the largest a store holds");
  }
  return absl::OkStatus();
}

absl::Status GameExistsError(absl::string_view game_id) {
  return absl::AlreadyExistsError(
      absl::StrCat("game \"", game_id, "\" already exists"));
}

}  // namespace gunbai::service
