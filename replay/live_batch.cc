#include "replay/live_batch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "replay/ledger.h"
#include "replay/server_dice.h"
#include "replay/text_errors.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

// The findings from index `from` on, a line each.
std::string FindingsText(
    const google::protobuf::RepeatedPtrField<v1::Finding>& findings, int from) {
  std::vector<std::string> lines;
  for (int i = from; i < findings.size(); ++i) {
    const v1::Finding& f = findings[i];
    lines.push_back(absl::StrCat("seq ", f.seq(), " ",
                                 v1::Severity_Name(f.severity()), " ",
                                 f.rule_id(), ": ", f.message()));
  }
  return absl::StrJoin(lines, "\n");
}

bool HasViolation(
    const google::protobuf::RepeatedPtrField<v1::Finding>& findings, int from) {
  for (int i = from; i < findings.size(); ++i) {
    if (findings[i].severity() == v1::SEVERITY_VIOLATION) return true;
  }
  return false;
}

}  // namespace

absl::Status CheckBatchSeqsIncrease(const v1::AppendEventsRequest& batch,
                                    std::uint64_t last_seq) {
  std::uint64_t previous = last_seq;
  for (const v1::AppendedEvent& appended : batch.events()) {
    const std::uint64_t seq = appended.event().seq();
    if (seq <= previous) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "event %s: seq %d does not follow seq %d, the event before it; "
          "seqs increase from 1 through the game; nothing was written",
          appended.event_id(), seq, previous));
    }
    previous = seq;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::StoredEvent>> PlayLiveBatch(
    const LiveBatchGame& game, v1::AppendEventsRequest& batch,
    rules::Engine& engine,
    google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  const bool server_dice = game.settings->dice_mode() == v1::DICE_MODE_SERVER;
  const int first_finding = findings.size();
  std::string head(game.head);
  std::vector<v1::StoredEvent> stored;
  stored.reserve(static_cast<std::size_t>(batch.events_size()));
  for (v1::AppendedEvent& appended : *batch.mutable_events()) {
    v1::Event event = std::move(*appended.mutable_event());
    if (!game.umpire && event.clan() != game.clan) {
      return absl::PermissionDeniedError(absl::StrFormat(
          "event %s: the player of %s may append only events its clan acts "
          "in (clan: \"%s\"); nothing was written",
          appended.event_id(), Excerpt(game.clan), Excerpt(game.clan)));
    }
    if (server_dice) {
      absl::Status rolled =
          RollServerDice(engine.state(), *game.ruleset, game.dice_key,
                         game.game_id, game.dice_attempt, event);
      if (!rolled.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "event ", appended.event_id(), ": ", rolled.message()));
      }
    }
    const int before = findings.size();
    engine.Apply(event);
    v1::StoredEvent& out = stored.emplace_back();
    head = ChainHash(head, event);
    out.set_chain_hash(head);
    out.set_event_id(appended.event_id());
    out.set_dice_attempt(game.dice_attempt);
    for (int i = before; i < findings.size(); ++i) {
      *out.add_findings() = findings[i];
    }
    *out.mutable_event() = std::move(event);
  }
  if (game.settings->policy() == v1::APPEND_POLICY_STRICT &&
      HasViolation(findings, first_finding)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the game is strict and the batch breaks the rules; nothing was "
        "written:\n",
        FindingsText(findings, first_finding)));
  }
  return stored;
}

}  // namespace gunbai::replay
