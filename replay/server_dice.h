// Server dice for live games whose dice mode is DICE_MODE_SERVER: gunbaid
// rolls every die of a declared action, and nobody, gunbaid included, can
// choose them. At creation gunbaid draws a secret, publishes its SHA-256 and
// takes a seed from each player; every die is then HMAC-SHA256 under
// SHA-256(secret, seeds) of (game id, seq, die index), and the secret is
// revealed when the game has ended, so anyone can re-derive every die.
//
// The commitment contract: `secret` below is raw bytes; the commitment
// published at creation is Sha256Hex(secret) and the revealed secret is the
// secret as hex. The game id is the one in the log's header.
//
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_SERVER_DICE_H_
#define GUNBAI_REPLAY_SERVER_DICE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ledger.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/engine.h"

namespace gunbai::replay {

// Bytes in a dice key.
inline constexpr int kDiceKeyBytes = 32;

// Returns the dice key of a game: the raw 32-byte SHA-256 of `secret` (raw
// bytes) followed, for each seed in the order given, by its clan, a 0 byte
// and its seed bytes (decoded from hex). Returns an empty string, which
// RollServerDice refuses, when a seed is not hex.
std::string DiceKey(
    absl::string_view secret,
    const google::protobuf::RepeatedPtrField<gunbai::v1::PlayerSeed>& seeds);

// Maps one random byte to a die face without modulo bias: bytes 0-251 (42
// of each face) give (byte % 6) + 1; returns nullopt for 252-255, which the
// caller skips.
std::optional<std::uint32_t> DieFromByte(std::uint8_t byte);

// Returns die `die_index` (counting from 0) of event `seq` of game
// `game_id`, rolled in roll attempt `attempt`: HMAC-SHA256 under `key` of
// game_id || 0x00 || attempt (8 bytes big endian) || seq (8 bytes big
// endian) || die_index (4 bytes big endian) || counter (4 bytes big endian,
// from 0), the first output byte DieFromByte accepts; when none does, the
// next counter. Always 1-6, the same for the same arguments; 0 only if
// OpenSSL fails. The attempt changes with every batch the server rolls for,
// so a refused batch says nothing of the next one's dice.
std::uint32_t DeriveDie(absl::string_view key, absl::string_view game_id,
                        std::uint64_t attempt, std::uint64_t seq,
                        std::uint32_t die_index);

// Returns the dice an event carries, in the canonical order: initiative
// dice of a turn start; a firing's dice; a melee round's sides in order,
// each side's dice; a challenge's dice; a morale test's dice; a leader-loss
// roll's die (when not 0); a result move's dice. Other events carry none.
std::vector<std::uint32_t> EventDice(const gunbai::v1::Event& event);

// Returns true if `event` carries any die.
bool HasAnyDice(const gunbai::v1::Event& event);

// Rolls an open-ended roll-off (rules::ServerDicePlan::RollOff): groups of
// plan.group dice until a group's dice plus plan.offsets are not all equal,
// or plan.max_groups groups. `next_die` gives each die in turn. No dice for
// a malformed plan (no group, or not one offset a die of a group).
std::vector<std::uint32_t> RollOffDice(
    const rules::ServerDicePlan::RollOff& plan,
    absl::FunctionRef<std::uint32_t()> next_die);

// Fills the dice of `event`, declared without any, with
// DeriveDie(key, game_id, attempt, event.seq(), 0, 1, 2, ...) in the canonical
// order (EventDice), as many as the game's ruleset says
// (RulesetPlugin::server_dice). Daimyo: a turn start, one die per clan of
// `state`; a firing, 2 per stand firing; a melee round, 2 per stand
// fighting, side 0 then side 1; an accepted challenge, a duel (a roll-off,
// RollOffDice) at the leaders' ratings in `state`, a refused one none; a
// morale test, 2; a leader-loss roll, 1; a rout or pursuit move, 2; anything
// else none. Set event.seq() first; `state` is the state before `event`.
// Returns InvalidArgument, leaving `event` unchanged, when the event already
// carries dice, the key is not kDiceKeyBytes long, or the ruleset refuses
// the event (Daimyo: a stand count above kMaxStands
// (rules/daimyo/daimyo_engine.h), a melee round with other than two sides, a
// challenge naming an unknown leader); FailedPrecondition when the ruleset has
// no server dice.
absl::Status RollServerDice(const rules::BattleState& state,
                            const LoadedRuleset& ruleset, absl::string_view key,
                            absl::string_view game_id, std::uint64_t attempt,
                            gunbai::v1::Event& event);

// Returns OK when gunbaid can roll every die of a game under `ruleset`;
// FailedPrecondition, saying what the ruleset lacks and what to do, when
// the ruleset has no server dice or its data gives no dice for some kind of
// event (a Samurai Knight Fever ruleset without a morale check).
absl::Status ServerDiceAvailable(const LoadedRuleset& ruleset);

// Checks the dice of an ended server-dice game played under `ruleset`: the
// revealed secret matches the commitment, every die of every event is the
// one DeriveDie gives under DiceKey(secret, seeds) at its index, and every
// event carries as many dice as RollServerDice rolls for it in the state
// before it: the game is replayed under `ruleset`, as gunbaid replayed it
// while rolling (a roll-off, such as a Daimyo duel: its groups up to the
// first that decides at the offsets the state gave then, which in Daimyo
// refused challenges and duels change). Returns the first problem: with index
// -1 for one of the game's (not a server-dice game, secret not revealed or not
// matching, seed not hex, an order of battle that cannot be replayed), else the
// first event found wrong; nullopt when every die is the server's.
std::optional<ChainBreak> VerifyServerDice(const gunbai::v1::ExportedGame& game,
                                           const LoadedRuleset& ruleset);

// The checks of VerifyServerDice that need no ruleset: the commitment, and
// that every die carried is the one DeriveDie gives at its index. A game
// whose dice fail these is tampered with under any ruleset.
std::optional<ChainBreak> VerifyServerDiceValues(
    const gunbai::v1::ExportedGame& game);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_SERVER_DICE_H_
