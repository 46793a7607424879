#include "replay/server_dice.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/audit.h"
#include "replay/ledger.h"
#include "replay/ruleset_loader.h"
#include "replay/text_errors.h"
#include "rules/battle_state.h"
#include "rules/digest.h"
#include "rules/engine.h"
#include "rules/status_macros.h"

namespace gunbai::replay {
namespace {

using gunbai::v1::Event;
using DiceField = google::protobuf::RepeatedField<std::uint32_t>;

void AppendBigEndian(std::string& out, std::uint64_t value, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

// The dice of one event, drawn in order from die index 0.
class DieStream {
 public:
  DieStream(absl::string_view key, absl::string_view game_id,
            std::uint64_t attempt, std::uint64_t seq)
      : key_(key), game_id_(game_id), attempt_(attempt), seq_(seq) {}

  std::uint32_t Next() {
    return DeriveDie(key_, game_id_, attempt_, seq_, next_++);
  }

 private:
  absl::string_view key_;
  absl::string_view game_id_;
  std::uint64_t attempt_;
  std::uint64_t seq_;
  std::uint32_t next_ = 0;
};

// Moves the first `count` of `values` from `next` on into `field`.
void Take(const std::vector<std::uint32_t>& values, std::size_t count,
          std::size_t& next, DiceField* field) {
  for (std::size_t i = 0; i < count && next < values.size(); ++i) {
    field->Add(values[next++]);
  }
}

// Writes `values` into the dice of `event`, which carries none, in the
// canonical order of EventDice.
void SetEventDice(const std::vector<std::uint32_t>& values,
                  const rules::ServerDicePlan& plan, Event& event) {
  std::size_t next = 0;
  const std::size_t all = values.size();
  switch (event.body_case()) {
    case Event::kTurnStart:
      Take(values, all, next,
           event.mutable_turn_start()->mutable_initiative_dice());
      break;
    case Event::kFiring:
      Take(values, all, next, event.mutable_firing()->mutable_dice());
      break;
    case Event::kMeleeRound: {
      auto& sides = *event.mutable_melee_round()->mutable_sides();
      for (int i = 0; i < sides.size(); ++i) {
        const std::size_t count =
            i < static_cast<int>(plan.side_dice.size())
                ? static_cast<std::size_t>(plan.side_dice[i])
                : 0;
        Take(values, count, next, sides[i].mutable_dice());
      }
      break;
    }
    case Event::kChallenge:
      Take(values, all, next, event.mutable_challenge()->mutable_dice());
      break;
    case Event::kMoraleTest:
      Take(values, all, next, event.mutable_morale_test()->mutable_dice());
      break;
    case Event::kLeaderLoss:
      if (!values.empty()) event.mutable_leader_loss()->set_die(values[0]);
      break;
    case Event::kResultMove:
      Take(values, all, next, event.mutable_result_move()->mutable_dice());
      break;
    default:
      break;
  }
}

// Returns what the server rolls for `event` under `ruleset`.
absl::StatusOr<rules::ServerDicePlan> PlanFor(const LoadedRuleset& ruleset,
                                              const Event& event,
                                              const rules::BattleState& state) {
  if (ruleset.plugin == nullptr || ruleset.plugin->server_dice == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the \"", ruleset.data.name(),
        "\" ruleset does not say how many dice gunbaid rolls; its games use "
        "recorded dice"));
  }
  absl::StatusOr<rules::ServerDicePlan> plan =
      ruleset.plugin->server_dice(event, ruleset.data, state);
  if (!plan.ok()) return plan;
  // A plug-in's plan must fit the event it is for; one that does not is a
  // bug in the plug-in, not in the game.
  auto inconsistent = [&](absl::string_view why) {
    return absl::InternalError(absl::StrCat(
        "the \"", ruleset.data.name(), "\" ruleset's dice for seq ",
        event.seq(), " do not fit the event: ", why));
  };
  if (plan->dice < 0) return inconsistent("a negative number of dice");
  if (plan->open_ended()) {
    const rules::ServerDicePlan::RollOff& off = plan->roll_off;
    if (static_cast<int>(off.offsets.size()) != off.group) {
      return inconsistent(
          "a roll-off without one offset for each die of a group");
    }
    if (off.max_groups < 1) return inconsistent("a roll-off of no group");
    if (plan->dice != 0 || !plan->side_dice.empty()) {
      return inconsistent("a roll-off and a fixed number of dice at once");
    }
    if (event.has_melee_round()) {
      return inconsistent("a roll-off for a melee round's sides");
    }
  }
  if (event.has_melee_round() && !plan->open_ended()) {
    const int sides = event.melee_round().sides_size();
    if (static_cast<int>(plan->side_dice.size()) != sides) {
      return inconsistent("not one count for each side of the melee round");
    }
    int total = 0;
    for (int d : plan->side_dice) {
      if (d < 0) return inconsistent("a negative number of dice");
      total += d;
    }
    if (total != plan->dice) {
      return inconsistent("the sides' dice do not add up to the round's");
    }
  } else if (!plan->side_dice.empty()) {
    return inconsistent("sides' dice for an event that is no melee round");
  }
  if (event.has_leader_loss() && plan->dice > 1) {
    return inconsistent("a leader-loss roll holds one die");
  }
  return plan;
}

// Returns why `event` does not carry the dice count `plan` (the server's
// for it) rolls, or an empty string when it does. A roll-off's length is
// checked by the caller.
std::string DiceCountProblem(const rules::ServerDicePlan& plan,
                             const Event& event, std::size_t carried) {
  if (plan.open_ended()) {
    const auto group = static_cast<std::size_t>(plan.roll_off.group);
    return carried >= group && carried % group == 0
               ? ""
               : absl::StrCat(plan.roll_off.what, " rolls dice in groups of ",
                              group, "; it carries ", carried);
  }
  if (carried != static_cast<std::size_t>(plan.dice)) {
    return absl::StrCat("it carries ", carried, " dice where the server rolls ",
                        plan.dice);
  }
  // A melee round's dice are the server's side by side: dice moved from
  // one side to the other are not.
  if (event.has_melee_round()) {
    const auto& sides = event.melee_round().sides();
    for (int i = 0; i < sides.size(); ++i) {
      if (sides[i].dice_size() != plan.side_dice[i]) {
        return absl::StrCat("side ", i, " (", sides[i].unit(), ") carries ",
                            sides[i].dice_size(),
                            " dice where the server rolls ", plan.side_dice[i]);
      }
    }
  }
  return "";
}

// Returns the number of dice of the roll-off the server rolls, by `plan`,
// for event `seq` in roll attempt `attempt`.
std::size_t RollOffLength(const rules::ServerDicePlan::RollOff& plan,
                          absl::string_view key, absl::string_view game_id,
                          std::uint64_t attempt, std::uint64_t seq) {
  DieStream dice(key, game_id, attempt, seq);
  return RollOffDice(plan, [&] { return dice.Next(); }).size();
}

// The game as gunbaid played it when its dice were rolled: the state
// before each event.
struct PlayedGame {
  const rules::BattleState* state = nullptr;
};

// Checks one event's dice against the server's: their values, and, when
// `ruleset` is not null, their number under it in `played` (a roll-off's,
// where its dice decide it, at the offsets the state gave then).
std::optional<ChainBreak> CheckEventDice(const LoadedRuleset* ruleset,
                                         const PlayedGame& played,
                                         const Event& event, int index,
                                         absl::string_view key,
                                         absl::string_view game_id,
                                         std::uint64_t attempt) {
  const std::vector<std::uint32_t> dice = EventDice(event);
  const std::string label =
      absl::StrCat("event at index ", index, " (seq ", event.seq(), ")");
  for (std::size_t i = 0; i < dice.size(); ++i) {
    const std::uint32_t server = DeriveDie(key, game_id, attempt, event.seq(),
                                           static_cast<std::uint32_t>(i));
    if (dice[i] != server) {
      return ChainBreak{
          index, event.seq(),
          absl::StrCat(label, ": die ", i, " is ", dice[i],
                       " but the server's die there is ", server,
                       ": the dice are not the ones the server rolled")};
    }
  }
  if (ruleset == nullptr) return std::nullopt;
  absl::StatusOr<rules::ServerDicePlan> plan =
      PlanFor(*ruleset, event, *played.state);
  std::string problem = plan.ok() ? DiceCountProblem(*plan, event, dice.size())
                                  : std::string(plan.status().message());
  if (problem.empty() && plan->open_ended()) {
    const std::size_t decided =
        RollOffLength(plan->roll_off, key, game_id, attempt, event.seq());
    if (decided != dice.size()) {
      problem = absl::StrCat(plan->roll_off.what, " carries ", dice.size(),
                             " dice, but the server's dice decide it after ",
                             decided);
    }
  }
  if (problem.empty()) return std::nullopt;
  return ChainBreak{index, event.seq(), absl::StrCat(label, ": ", problem)};
}

ChainBreak GameProblem(std::string reason) {
  return ChainBreak{-1, 0, std::move(reason)};
}

// Returns the dice key of an ended game after checking its commitment, or
// the problem that prevents it.
std::optional<ChainBreak> RevealedKey(const gunbai::v1::DiceCommitment& dice,
                                      std::string& key) {
  if (dice.revealed_secret().empty()) {
    return GameProblem(
        "the dice secret is not revealed: the secret is revealed only when "
        "the game has ended");
  }
  std::optional<std::string> secret = HexToBytes(dice.revealed_secret());
  if (!secret.has_value()) {
    return GameProblem("the revealed dice secret is not hex");
  }
  if (!absl::EqualsIgnoreCase(base::Sha256Hex(*secret), dice.secret_sha256())) {
    return GameProblem(
        "the revealed secret does not match the commitment published at "
        "creation");
  }
  for (const gunbai::v1::PlayerSeed& seed : dice.player_seeds()) {
    if (!HexToBytes(seed.seed_hex()).has_value()) {
      return GameProblem(absl::StrCat("the seed of clan '",
                                      Excerpt(seed.clan()), "' is not hex"));
    }
  }
  key = DiceKey(*secret, dice.player_seeds());
  return std::nullopt;
}

}  // namespace

std::string DiceKey(
    absl::string_view secret,
    const google::protobuf::RepeatedPtrField<gunbai::v1::PlayerSeed>& seeds) {
  std::string input(secret);
  for (const gunbai::v1::PlayerSeed& seed : seeds) {
    std::optional<std::string> bytes = HexToBytes(seed.seed_hex());
    if (!bytes.has_value()) return "";
    absl::StrAppend(&input, seed.clan(), absl::string_view("\0", 1), *bytes);
  }
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest;
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(),
         digest.data());
  return std::string(reinterpret_cast<const char*>(digest.data()),
                     digest.size());
}

std::optional<std::uint32_t> DieFromByte(std::uint8_t byte) {
  // 252 = 42 * 6: the largest multiple of 6 that fits in a byte.
  if (byte >= 252) return std::nullopt;
  return byte % 6 + 1;
}

std::uint32_t DeriveDie(absl::string_view key, absl::string_view game_id,
                        std::uint64_t attempt, std::uint64_t seq,
                        std::uint32_t die_index) {
  std::string message(game_id);
  message.push_back('\0');
  AppendBigEndian(message, attempt, 8);
  AppendBigEndian(message, seq, 8);
  AppendBigEndian(message, die_index, 4);
  const std::size_t counter_at = message.size();
  for (std::uint32_t counter = 0;; ++counter) {
    message.resize(counter_at);
    AppendBigEndian(message, counter, 4);
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac;
    unsigned int mac_size = 0;
    if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(message.data()),
             message.size(), mac.data(), &mac_size) == nullptr) {
      return 0;
    }
    for (unsigned int i = 0; i < mac_size; ++i) {
      std::optional<std::uint32_t> die = DieFromByte(mac[i]);
      if (die.has_value()) return *die;
    }
  }
}

std::vector<std::uint32_t> EventDice(const Event& event) {
  std::vector<std::uint32_t> dice;
  auto add = [&dice](const DiceField& field) {
    dice.insert(dice.end(), field.begin(), field.end());
  };
  switch (event.body_case()) {
    case Event::kTurnStart:
      add(event.turn_start().initiative_dice());
      break;
    case Event::kFiring:
      add(event.firing().dice());
      break;
    case Event::kMeleeRound:
      for (const gunbai::v1::MeleeSide& side : event.melee_round().sides()) {
        add(side.dice());
      }
      break;
    case Event::kChallenge:
      add(event.challenge().dice());
      break;
    case Event::kMoraleTest:
      add(event.morale_test().dice());
      break;
    case Event::kLeaderLoss:
      if (event.leader_loss().die() != 0) {
        dice.push_back(event.leader_loss().die());
      }
      break;
    case Event::kResultMove:
      add(event.result_move().dice());
      break;
    default:
      break;
  }
  return dice;
}

bool HasAnyDice(const Event& event) { return !EventDice(event).empty(); }

std::vector<std::uint32_t> RollOffDice(
    const rules::ServerDicePlan::RollOff& plan,
    absl::FunctionRef<std::uint32_t()> next_die) {
  std::vector<std::uint32_t> dice;
  if (plan.group < 1 || static_cast<int>(plan.offsets.size()) != plan.group) {
    return dice;
  }
  for (int g = 0; g < plan.max_groups; ++g) {
    bool decided = false;
    int first = 0;
    for (int k = 0; k < plan.group; ++k) {
      const std::uint32_t die = next_die();
      dice.push_back(die);
      const int total = static_cast<int>(die) + plan.offsets[k];
      if (k == 0) {
        first = total;
      } else if (total != first) {
        decided = true;
      }
    }
    if (decided) break;
  }
  return dice;
}

absl::Status RollServerDice(const rules::BattleState& state,
                            const LoadedRuleset& ruleset, absl::string_view key,
                            absl::string_view game_id, std::uint64_t attempt,
                            Event& event) {
  if (HasAnyDice(event)) {
    return absl::InvalidArgumentError(
        "this game rolls its own dice: leave dice empty");
  }
  if (key.size() != kDiceKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a dice key is ", kDiceKeyBytes, " bytes, not ", key.size()));
  }
  GUNBAI_ASSIGN_OR_RETURN(rules::ServerDicePlan plan,
                          PlanFor(ruleset, event, state));
  DieStream stream(key, game_id, attempt, event.seq());
  std::vector<std::uint32_t> values;
  if (plan.open_ended()) {
    values = RollOffDice(plan.roll_off, [&] { return stream.Next(); });
  } else {
    for (int i = 0; i < plan.dice; ++i) values.push_back(stream.Next());
  }
  SetEventDice(values, plan, event);
  return absl::OkStatus();
}

absl::Status ServerDiceAvailable(const LoadedRuleset& ruleset) {
  // An empty event of every kind: a kind the data gives no dice for says
  // so with FailedPrecondition; other refusals are about one event's
  // contents, which an empty event does not have.
  const google::protobuf::OneofDescriptor* body =
      Event::descriptor()->FindOneofByName("body");
  rules::BattleState two_clans;
  two_clans.clans = {"a", "b"};
  for (int i = 0; i < body->field_count(); ++i) {
    Event probe;
    probe.GetReflection()->MutableMessage(&probe, body->field(i));
    absl::StatusOr<rules::ServerDicePlan> plan =
        PlanFor(ruleset, probe, two_clans);
    if (absl::IsFailedPrecondition(plan.status())) return plan.status();
  }
  return absl::OkStatus();
}

namespace {

// VerifyServerDice, and with a null `ruleset` VerifyServerDiceValues.
std::optional<ChainBreak> VerifyDice(const gunbai::v1::ExportedGame& game,
                                     const LoadedRuleset* ruleset) {
  if (game.settings().dice_mode() != gunbai::v1::DICE_MODE_SERVER) {
    return GameProblem(absl::StrCat(
        "the game's dice are not the server's (dice mode ",
        gunbai::v1::DiceMode_Name(game.settings().dice_mode()), ")"));
  }
  std::string key;
  if (std::optional<ChainBreak> problem = RevealedKey(game.dice(), key)) {
    return problem;
  }
  const std::string& game_id = game.log().header().game_id();
  if (game.dice_attempts_size() != game.log().events_size()) {
    return GameProblem(absl::StrCat(
        "the export has ", game.dice_attempts_size(), " dice attempts for ",
        game.log().events_size(),
        " events; each event records the roll attempt of its batch"));
  }
  // The counts depend on the state as the game went (a roll-off's offsets
  // are the state's then): replay it, as gunbaid did while rolling.
  std::unique_ptr<rules::Engine> engine;
  google::protobuf::RepeatedPtrField<gunbai::v1::Finding> findings;
  PlayedGame played;
  if (ruleset != nullptr) {
    absl::StatusOr<std::unique_ptr<rules::Engine>> created =
        CreateEngine(game.log(), *ruleset, AuditOptions(),
                     rules::EngineOutput{&findings, nullptr});
    if (!created.ok()) {
      return GameProblem(
          absl::StrCat("the game cannot be replayed to count its dice: ",
                       created.status().message()));
    }
    engine = *std::move(created);
    played.state = &engine->state();
  }
  for (int i = 0; i < game.log().events_size(); ++i) {
    const Event& event = game.log().events(i);
    if (std::optional<ChainBreak> problem = CheckEventDice(
            ruleset, played, event, i, key, game_id, game.dice_attempts(i))) {
      return problem;
    }
    if (engine != nullptr) engine->Apply(event);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ChainBreak> VerifyServerDiceValues(
    const gunbai::v1::ExportedGame& game) {
  return VerifyDice(game, nullptr);
}

std::optional<ChainBreak> VerifyServerDice(const gunbai::v1::ExportedGame& game,
                                           const LoadedRuleset& ruleset) {
  return VerifyDice(game, &ruleset);
}

}  // namespace gunbai::replay
