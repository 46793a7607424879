// The tamper-evident ledger of a live game: every stored event carries a
// chain hash, SHA-256(previous chain hash || canonical event bytes), the first
// chaining from a hash of the game's terms (GameGenesis; 64 zeros for games
// of chain version 0). Anyone holding an export can recompute the chain
// and find the first event that was edited, dropped, inserted or moved.
// The chain cannot show events cut from the end together with their hashes:
// compare the last hash with a head hash published along the way for that.
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_LEDGER_H_
#define GUNBAI_REPLAY_LEDGER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Returns the chain hash the first event of a game of chain version 0
// chains from: 64 hex zeros.
std::string GenesisHash();

// The chain version gunbaid gives new games (GameSettings.chain_version).
inline constexpr std::uint32_t kTermsChainVersion = 2;

// Returns the chain hash a game's first event chains from. With
// settings.chain_version 2: the hex SHA-256 of "gunbai chain v2" followed,
// each after its length as 8 bytes big endian, by the deterministic bytes
// of the header, the order of battle, the settings, and the dice commitment
// without its revealed secret, and, for a game on a table, the log's table
// and terrain (a BattleLog holding only those: FieldOf). A head hash then
// commits to the game's terms as well as its events. Otherwise
// GenesisHash().
std::string GameGenesis(const gunbai::v1::Header& header,
                        const gunbai::v1::OrderOfBattle& order_of_battle,
                        const gunbai::v1::GameSettings& settings,
                        const gunbai::v1::DiceCommitment& dice,
                        const gunbai::v1::BattleLog& field);

// Returns the table and terrain of `log` alone (a game's field): empty when
// it has neither.
gunbai::v1::BattleLog FieldOf(const gunbai::v1::BattleLog& log);

// Returns the chain hash of `event` after `previous_hex`: the lowercase hex
// SHA-256 of the 32 bytes `previous_hex` encodes followed by the event's
// deterministic serialization. `previous_hex` is a chain hash (64 hex digits,
// either case); returns an empty string, which matches no chain hash, when it
// is not one.
std::string ChainHash(absl::string_view previous_hex,
                      const gunbai::v1::Event& event);

// The first event of an export found wrong, and why. `index` is its position
// in log.events (-1 when the problem is the game's, not an event's) and `seq`
// its sequence number (0 when there is no such event).
struct ChainBreak {
  int index = -1;
  std::uint64_t seq = 0;
  std::string reason;
};

// Recomputes the chain from GameGenesis over game.log().events() and
// compares it
// with game.chain_hashes(). Returns the first event whose hash differs, whose
// seq does not increase, or that has no hash (or the first missing event when
// there are more hashes than events); nullopt when the chain holds.
std::optional<ChainBreak> VerifyChain(const gunbai::v1::ExportedGame& game);

// Checks an export's events against what gunbaid checks before it stores
// an event, beyond the chain: no event follows game_end (an ended game takes
// no append); and, for a strict game (settings.policy is
// APPEND_POLICY_STRICT) when `ruleset` is not null, no event breaks a rule,
// replayed under `ruleset` from the first event as gunbaid replays it (a
// strict game refuses a batch that does, so none of its stored events
// does: an event out of the turn structure, say). Seqs that do not increase
// are VerifyChain's to find. Returns the first event gunbaid would have
// refused, or a problem of the game's (index -1: an order of battle that
// cannot be replayed); nullopt when gunbaid would have stored every event.
std::optional<ChainBreak> VerifyStorable(const gunbai::v1::ExportedGame& game,
                                         const LoadedRuleset* ruleset);

// Decodes hex digits (either case) to bytes. Returns nullopt when `hex` has
// an odd length or a character that is not a hex digit.
std::optional<std::string> HexToBytes(absl::string_view hex);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LEDGER_H_
