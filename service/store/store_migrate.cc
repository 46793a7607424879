#include "service/store/store_migrate.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ledger.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "rules/status_macros.h"
#include "service/store/game_store.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

// The record's parts as bytes, to compare two records exactly.
std::string RecordBytes(const GameRecord& game) {
  std::string bytes =
      absl::StrCat(game.game_id, "|", base::DeterministicBytes(game.header),
                   "|", base::DeterministicBytes(game.order_of_battle), "|",
                   base::DeterministicBytes(game.field), "|",
                   base::DeterministicBytes(game.settings), "|",
                   base::DeterministicBytes(game.dice), "|", game.secret_hex,
                   "|", game.ended ? "ended" : "live");
  for (const auto& [clan, hash] : game.credential_hashes) {
    absl::StrAppend(&bytes, "|", clan, "=", hash);
  }
  return bytes;
}

// A game's events split into its batches: [begin, end) of each.
struct BatchSpan {
  size_t begin = 0;
  size_t end = 0;
  const GameStore::StoredBatch* batch = nullptr;
};

absl::StatusOr<std::vector<BatchSpan>> SplitIntoBatches(
    absl::string_view game_id, const std::vector<v1::StoredEvent>& events,
    const std::vector<GameStore::StoredBatch>& batches) {
  std::vector<BatchSpan> spans;
  size_t next = 0;
  for (const GameStore::StoredBatch& batch : batches) {
    if (next >= events.size() ||
        events[next].event_id() != batch.first_event_id) {
      return absl::DataLossError(absl::StrCat(
          "game ", game_id, ": the batch of event \"", batch.first_event_id,
          "\" does not start where the batch before it ends (position ",
          next + 1, "); the source store is inconsistent"));
    }
    if (!spans.empty()) spans.back().end = next;
    spans.push_back({next, 0, &batch});
    // The batch runs to the next batch's first event.
    ++next;
    const std::string* following =
        &batch == &batches.back() ? nullptr : &(&batch + 1)->first_event_id;
    while (next < events.size() &&
           (following == nullptr || events[next].event_id() != *following)) {
      ++next;
    }
  }
  if (!spans.empty()) spans.back().end = next;
  if (next != events.size() || (spans.empty() && !events.empty())) {
    return absl::DataLossError(absl::StrCat(
        "game ", game_id, ": events from position ", next + 1,
        " belong to no stored batch; the source store is inconsistent"));
  }
  return spans;
}

absl::Status SameEvents(absl::string_view game_id,
                        const std::vector<v1::StoredEvent>& want,
                        const std::vector<v1::StoredEvent>& got, size_t count) {
  if (got.size() < count || want.size() < count) {
    return absl::DataLossError(
        absl::StrCat("game ", game_id, ": the copy holds ", got.size(),
                     " events, the source ", want.size()));
  }
  for (size_t i = 0; i < count; ++i) {
    if (base::DeterministicBytes(want[i]) != base::DeterministicBytes(got[i])) {
      return absl::DataLossError(
          absl::StrCat("game ", game_id, ": event at position ", i + 1, " (\"",
                       want[i].event_id(), "\") differs in the copy"));
    }
  }
  return absl::OkStatus();
}

// Copies one game; returns the events and batches it appended.
absl::StatusOr<std::pair<uint64_t, uint64_t>> CopyGame(
    GameStore& from, GameStore& to, const std::string& game_id,
    bool& already_there) {
  GUNBAI_ASSIGN_OR_RETURN(GameRecord record, from.GetGame(game_id));
  GUNBAI_ASSIGN_OR_RETURN(std::vector<v1::StoredEvent> events,
                          from.ReadEvents(game_id, 0));
  GUNBAI_ASSIGN_OR_RETURN(std::vector<GameStore::StoredBatch> batches,
                          from.ReadBatches(game_id));
  GUNBAI_ASSIGN_OR_RETURN(const uint64_t attempts, from.DiceAttempts(game_id));
  GUNBAI_ASSIGN_OR_RETURN(std::vector<BatchSpan> spans,
                          SplitIntoBatches(game_id, events, batches));
  // The record as created: not ended, its secret not revealed.
  GameRecord created = record;
  created.ended = false;
  created.dice.clear_revealed_secret();
  absl::Status made = to.CreateGame(created);
  uint64_t version = 0;
  if (absl::IsAlreadyExists(made)) {
    GUNBAI_ASSIGN_OR_RETURN(GameRecord there, to.GetGame(game_id));
    there.ended = record.ended;
    there.dice = record.dice;
    GUNBAI_ASSIGN_OR_RETURN(version, to.Version(game_id));
    GUNBAI_ASSIGN_OR_RETURN(std::vector<v1::StoredEvent> held,
                            to.ReadEvents(game_id, 0));
    if (RecordBytes(there) != RecordBytes(record) || version > events.size() ||
        !SameEvents(game_id, events, held, version).ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "game ", game_id,
          ": the target holds a game of this id that is not the source's "
          "(or not a part of it); move it away or migrate into an empty "
          "store"));
    }
    already_there = version == events.size();
  } else if (!made.ok()) {
    return made;
  }
  uint64_t appended_events = 0;
  uint64_t appended_batches = 0;
  for (const BatchSpan& span : spans) {
    if (span.end <= version) continue;
    if (span.begin < version) {
      return absl::FailedPreconditionError(absl::StrCat(
          "game ", game_id, ": the target stops inside a batch (after ",
          version, " events); move it away and migrate again"));
    }
    std::vector<v1::StoredEvent> batch(events.begin() + span.begin,
                                       events.begin() + span.end);
    GUNBAI_ASSIGN_OR_RETURN(
        AppendResult result,
        to.Append(game_id, span.begin, batch, span.batch->answer));
    appended_events += batch.size();
    ++appended_batches;
    (void)result;
  }
  GUNBAI_RETURN_IF_ERROR(to.RaiseDiceAttempts(game_id, attempts));
  if (record.ended) GUNBAI_RETURN_IF_ERROR(to.MarkEnded(game_id));
  // The players' checkpoint keys and cosignatures (both idempotent).
  GUNBAI_ASSIGN_OR_RETURN(GameWitnesses witnesses, from.ReadWitnesses(game_id));
  for (const auto& [clan, key] : witnesses.keys) {
    GUNBAI_RETURN_IF_ERROR(to.RegisterWitnessKey(game_id, clan, key));
  }
  for (const StoredCosignature& c : witnesses.cosignatures) {
    GUNBAI_RETURN_IF_ERROR(to.AddCosignature(game_id, c));
  }
  return std::make_pair(appended_events, appended_batches);
}

}  // namespace

absl::StatusOr<v1::ExportedGame> ExportFromStore(GameStore& store,
                                                 absl::string_view game_id) {
  GUNBAI_ASSIGN_OR_RETURN(GameRecord record, store.GetGame(game_id));
  GUNBAI_ASSIGN_OR_RETURN(std::vector<v1::StoredEvent> events,
                          store.ReadEvents(game_id, 0));
  v1::ExportedGame game;
  *game.mutable_log()->mutable_header() = record.header;
  *game.mutable_log()->mutable_order_of_battle() = record.order_of_battle;
  if (record.field.has_table()) {
    *game.mutable_log()->mutable_table() = record.field.table();
  }
  *game.mutable_log()->mutable_terrain() = record.field.terrain();
  *game.mutable_settings() = record.settings;
  *game.mutable_dice() = record.dice;
  for (v1::StoredEvent& e : events) {
    game.add_event_ids(e.event_id());
    game.add_chain_hashes(e.chain_hash());
    game.add_dice_attempts(e.dice_attempt());
    *game.mutable_log()->add_events() = std::move(*e.mutable_event());
  }
  return game;
}

absl::Status VerifyCopy(GameStore& from, GameStore& to,
                        absl::string_view game_id) {
  GUNBAI_ASSIGN_OR_RETURN(GameRecord want, from.GetGame(game_id));
  GUNBAI_ASSIGN_OR_RETURN(GameRecord got, to.GetGame(game_id));
  if (RecordBytes(want) != RecordBytes(got)) {
    return absl::DataLossError(absl::StrCat(
        "game ", game_id, ": the copy's record differs from the source's"));
  }
  GUNBAI_ASSIGN_OR_RETURN(auto want_events, from.ReadEvents(game_id, 0));
  GUNBAI_ASSIGN_OR_RETURN(auto got_events, to.ReadEvents(game_id, 0));
  if (want_events.size() != got_events.size()) {
    return absl::DataLossError(
        absl::StrCat("game ", game_id, ": the copy holds ", got_events.size(),
                     " events, the source ", want_events.size()));
  }
  GUNBAI_RETURN_IF_ERROR(
      SameEvents(game_id, want_events, got_events, want_events.size()));
  GUNBAI_ASSIGN_OR_RETURN(auto want_batches, from.ReadBatches(game_id));
  GUNBAI_ASSIGN_OR_RETURN(auto got_batches, to.ReadBatches(game_id));
  bool same_batches = want_batches.size() == got_batches.size();
  for (size_t i = 0; same_batches && i < want_batches.size(); ++i) {
    same_batches =
        want_batches[i].first_event_id == got_batches[i].first_event_id &&
        want_batches[i].answer == got_batches[i].answer;
  }
  if (!same_batches) {
    return absl::DataLossError(absl::StrCat(
        "game ", game_id, ": the copy's batches or answers differ"));
  }
  GUNBAI_ASSIGN_OR_RETURN(const uint64_t want_attempts,
                          from.DiceAttempts(game_id));
  GUNBAI_ASSIGN_OR_RETURN(const uint64_t got_attempts,
                          to.DiceAttempts(game_id));
  if (got_attempts < want_attempts) {
    return absl::DataLossError(
        absl::StrCat("game ", game_id, ": the copy has taken ", got_attempts,
                     " dice attempts, the source ", want_attempts));
  }
  GUNBAI_ASSIGN_OR_RETURN(GameWitnesses want_witnesses,
                          from.ReadWitnesses(game_id));
  GUNBAI_ASSIGN_OR_RETURN(GameWitnesses got_witnesses,
                          to.ReadWitnesses(game_id));
  bool same_witnesses =
      want_witnesses.keys == got_witnesses.keys &&
      want_witnesses.cosignatures.size() == got_witnesses.cosignatures.size();
  for (size_t i = 0; same_witnesses && i < want_witnesses.cosignatures.size();
       ++i) {
    const StoredCosignature& w = want_witnesses.cosignatures[i];
    const StoredCosignature& g = got_witnesses.cosignatures[i];
    same_witnesses = w.clan == g.clan && w.tree_size == g.tree_size &&
                     w.signature_line == g.signature_line;
  }
  if (!same_witnesses) {
    return absl::DataLossError(
        absl::StrCat("game ", game_id,
                     ": the copy's checkpoint keys or cosignatures differ"));
  }
  GUNBAI_ASSIGN_OR_RETURN(v1::ExportedGame exported,
                          ExportFromStore(to, game_id));
  if (auto broken = replay::VerifyChain(exported); broken.has_value()) {
    return absl::DataLossError(absl::StrCat("game ", game_id,
                                            ": the copy's chain breaks at seq ",
                                            broken->seq, ": ", broken->reason));
  }
  return absl::OkStatus();
}

absl::StatusOr<MigrationTotals> MigrateGames(
    GameStore& from, GameStore& to, const MigrationProgress& progress) {
  GUNBAI_ASSIGN_OR_RETURN(std::vector<std::string> ids, from.ListGames());
  MigrationTotals totals;
  for (const std::string& id : ids) {
    bool already_there = false;
    GUNBAI_ASSIGN_OR_RETURN(auto appended,
                            CopyGame(from, to, id, already_there));
    GUNBAI_RETURN_IF_ERROR(VerifyCopy(from, to, id));
    ++totals.games;
    if (already_there) ++totals.already_there;
    totals.events += appended.first;
    totals.batches += appended.second;
    if (progress) progress(id, totals.games, static_cast<int>(ids.size()));
  }
  return totals;
}

}  // namespace gunbai::service
