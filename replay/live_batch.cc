#include "replay/live_batch.h"

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "replay/ledger.h"
#include "replay/server_dice.h"
#include "replay/text_errors.h"
#include "rules/battle_state.h"
#include "rules/status_macros.h"

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

// The most findings bytes a refusal's details carry (AppendRefusal): with
// the message (kMaxStatusMessageBytes, 2 KiB) the trailer stays well under
// gRPC's default 8 KiB limit on metadata, base64 included.
constexpr std::size_t kMaxRefusalDetailBytes = 3000;

// The clans of `state` as a bit set.
std::uint32_t EveryClan(const rules::BattleState& state) {
  return state.clans.size() >= 32
             ? ~std::uint32_t{0}
             : (std::uint32_t{1} << state.clans.size()) - 1;
}

// The names of the clans of `state` in `clans`, in header order.
std::string ClanNames(const rules::BattleState& state, std::uint32_t clans) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < state.clans.size() && i < 32; ++i) {
    if (clans & (std::uint32_t{1} << i))
      names.push_back(Excerpt(state.clans[i]));
  }
  return absl::StrJoin(names, ", ");
}

int FindClan(const rules::BattleState& state, absl::string_view clan) {
  for (std::size_t i = 0; i < state.clans.size(); ++i) {
    if (state.clans[i] == clan) return static_cast<int>(i);
  }
  return -1;
}

bool TurnInProgress(const rules::BattleState& state) {
  return state.phase != rules::Phase::kBeforeGame &&
         state.phase != rules::Phase::kTurnEnded &&
         state.phase != rules::Phase::kGameOver;
}

// True for the events the end of a turn may still owe from a clan that has
// ended its part of it: morale tests, leader-loss rolls, result moves and
// removals.
bool OwedAtTurnEnd(const v1::Event& event) {
  return event.has_morale_test() || event.has_leader_loss() ||
         event.has_result_move() || event.has_removal();
}

// Returns OK when a player of `game.clan` may append `event` to a game in
// `state` (the caller checked that the event is its clan's): not a second
// turn_end of its clan in this turn, nothing but what the turn's end owes
// once its clan has ended the turn, and, with server dice, no initiative
// clan of its choosing.
absl::Status CheckPlayerTurn(const LiveBatchGame& game,
                             const rules::BattleState& state,
                             absl::string_view event_id,
                             const v1::Event& event) {
  const int clan = FindClan(state, game.clan);
  if (event.has_turn_start() &&
      game.settings->dice_mode() == v1::DICE_MODE_SERVER &&
      !event.turn_start().initiative_clan().empty()) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "event %s: in a game of server dice the initiative goes by gunbaid's "
        "dice: leave initiative_clan empty (or let the last turn_end of a "
        "turn start the next); nothing was written",
        event_id));
  }
  const int open = state.active_clan;
  if (event.has_activation() && clan >= 0 && open >= 0 && open != clan &&
      TurnInProgress(state) &&
      (state.turn_ended_clans & (std::uint32_t{1} << open)) == 0) {
    // A player's activation does not cut another clan's short: that one
    // ends with its own clan's turn_end (game_service.proto, "Turns in a
    // live game").
    return absl::FailedPreconditionError(absl::StrFormat(
        "event %s: %s's activation is still open; %s begins its own after "
        "%s ends its part of turn %d (its turn_end); nothing was written",
        event_id, Excerpt(state.clans[static_cast<std::size_t>(open)]),
        Excerpt(game.clan),
        Excerpt(state.clans[static_cast<std::size_t>(open)]), state.turn));
  }
  if (clan < 0 || !TurnInProgress(state) ||
      (state.turn_ended_clans & (std::uint32_t{1} << clan)) == 0) {
    return absl::OkStatus();
  }
  const std::string waiting =
      ClanNames(state, EveryClan(state) & ~state.turn_ended_clans);
  if (event.has_turn_end()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "event %s: %s has already ended turn %d; the turn ends when %s "
        "end it too; nothing was written",
        event_id, Excerpt(game.clan), state.turn, waiting));
  }
  if (!OwedAtTurnEnd(event)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "event %s: %s has ended turn %d, and until %s end it too it may "
        "append only what the end of the turn owes (morale_test, "
        "leader_loss, result_move, removal); nothing was written",
        event_id, Excerpt(game.clan), state.turn, waiting));
  }
  return absl::OkStatus();
}

// Gives a server-dice turn_start that names no initiative clan the clan of
// the highest initiative die; a tie goes to the first tied clan in header
// order after the clan that held the initiative last turn (`state`'s), and
// with no dice (a ruleset without an initiative roll) the initiative passes
// to the clan after it.
void TakeInitiativeFromDice(const rules::BattleState& state, v1::Event& event) {
  v1::TurnStart& start = *event.mutable_turn_start();
  if (!start.initiative_clan().empty() || state.clans.empty()) return;
  const int clans = static_cast<int>(state.clans.size());
  const int last = state.initiative_clan;
  int best = -1;
  std::uint32_t best_die = 0;
  // From the clan after last turn's holder, round the header: the first
  // clan with the highest die wins.
  for (int k = 1; k <= clans; ++k) {
    const int clan = (last + k + clans) % clans;
    const std::uint32_t die =
        clan < start.initiative_dice_size() ? start.initiative_dice(clan) : 0;
    if (best < 0 || die > best_die) {
      best = clan;
      best_die = die;
    }
  }
  start.set_initiative_clan(state.clans[best]);
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

namespace {

// The turn_start gunbaid appends after `last`, the turn_end that ended a
// turn, in a game of server dice (the caller rolls its dice).
v1::AppendedEvent NextTurnStart(const rules::BattleState& state,
                                const v1::Event& last) {
  v1::AppendedEvent next;
  v1::Event& event = *next.mutable_event();
  event.set_seq(last.seq() + 1);
  event.set_turn(static_cast<std::uint32_t>(state.turn) + 1);
  event.mutable_turn_start();
  next.set_event_id(absl::StrCat("gunbaid:turn_start:seq=", event.seq()));
  return next;
}

// The status refusing a strict batch: the findings from `from` in the
// message, and as many as fit in kMaxRefusalDetailBytes as an
// AppendRefusal payload (service/common/grpc_status.h sends it as the status
// details).
absl::Status StrictRefusal(
    const google::protobuf::RepeatedPtrField<v1::Finding>& findings, int from) {
  absl::Status refused = absl::FailedPreconditionError(absl::StrCat(
      "the game is strict and the batch breaks the rules; nothing was "
      "written:\n",
      FindingsText(findings, from)));
  v1::AppendRefusal refusal;
  std::size_t bytes = 0;
  for (int i = from; i < findings.size(); ++i) {
    const std::size_t size = findings[i].ByteSizeLong() + 3;
    if (bytes + size > kMaxRefusalDetailBytes) {
      refusal.set_findings_left_out(
          static_cast<std::uint32_t>(findings.size() - i));
      break;
    }
    bytes += size;
    *refusal.add_findings() = findings[i];
  }
  refused.SetPayload(kAppendRefusalTypeUrl,
                     absl::Cord(refusal.SerializeAsString()));
  return refused;
}

}  // namespace

absl::StatusOr<std::vector<v1::StoredEvent>> PlayLiveBatch(
    const LiveBatchGame& game, v1::AppendEventsRequest& batch,
    rules::Engine& engine,
    google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  const bool server_dice = game.settings->dice_mode() == v1::DICE_MODE_SERVER;
  const int first_finding = findings.size();
  std::string head(game.head);
  std::vector<v1::StoredEvent> stored;
  stored.reserve(static_cast<std::size_t>(batch.events_size()) + 1);
  google::protobuf::RepeatedPtrField<v1::Outcome> outcomes;
  // The engine records the outcomes of this batch only, and forgets the
  // field on every return.
  engine.SetOutcomes(&outcomes);
  struct Forget {
    rules::Engine& engine;
    ~Forget() { engine.SetOutcomes(nullptr); }
  } forget{engine};
  // Plays one event; `by_gunbaid` for the turn_start gunbaid appends.
  const auto play = [&](v1::AppendedEvent& appended,
                        bool by_gunbaid) -> absl::Status {
    v1::Event event = std::move(*appended.mutable_event());
    if (!game.umpire && !by_gunbaid) {
      if (event.clan() != game.clan) {
        return absl::PermissionDeniedError(absl::StrFormat(
            "event %s: the player of %s may append only events its clan "
            "acts in (clan: \"%s\"); nothing was written",
            appended.event_id(), Excerpt(game.clan), Excerpt(game.clan)));
      }
      GUNBAI_RETURN_IF_ERROR(
          CheckPlayerTurn(game, engine.state(), appended.event_id(), event));
    }
    if (server_dice) {
      absl::Status rolled =
          RollServerDice(engine.state(), *game.ruleset, game.dice_key,
                         game.game_id, game.dice_attempt, event);
      if (!rolled.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "event ", appended.event_id(), ": ", rolled.message()));
      }
      if (event.has_turn_start()) TakeInitiativeFromDice(engine.state(), event);
    }
    const int before = findings.size();
    outcomes.Clear();
    engine.Apply(event);
    v1::StoredEvent& out = stored.emplace_back();
    head = ChainHash(head, event);
    out.set_chain_hash(head);
    out.set_event_id(appended.event_id());
    out.set_dice_attempt(game.dice_attempt);
    for (int i = before; i < findings.size(); ++i) {
      *out.add_findings() = findings[i];
    }
    for (v1::Outcome& outcome : outcomes) {
      outcome.clear_trace();
      *out.add_outcomes() = std::move(outcome);
    }
    *out.mutable_event() = std::move(event);
    return absl::OkStatus();
  };
  for (v1::AppendedEvent& appended : *batch.mutable_events()) {
    GUNBAI_RETURN_IF_ERROR(play(appended, /*by_gunbaid=*/false));
  }
  // A clan's turn_end that ended the turn, last in the batch: with server
  // dice gunbaid starts the next turn, rolling its initiative. A full
  // batch has no room for it (a turn_start naming no initiative clan then
  // gets one from its dice).
  const v1::Event& last = stored.back().event();
  if (server_dice && last.has_turn_end() && !last.clan().empty() &&
      engine.state().phase == rules::Phase::kTurnEnded &&
      stored.size() < kMaxLiveBatchEvents) {
    v1::AppendedEvent next = NextTurnStart(engine.state(), last);
    GUNBAI_RETURN_IF_ERROR(play(next, /*by_gunbaid=*/true));
  }
  if (game.settings->policy() == v1::APPEND_POLICY_STRICT &&
      HasViolation(findings, first_finding)) {
    return StrictRefusal(findings, first_finding);
  }
  return stored;
}

}  // namespace gunbai::replay
