#include "replay/ledger.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "replay/text_errors.h"
#include "rules/digest.h"
#include "rules/engine.h"

namespace gunbai::replay {
namespace {

constexpr int kHashHexDigits = 64;

// Returns the value of a hex digit, or -1.
int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string EventLabel(int index, std::uint64_t seq) {
  return absl::StrCat("event at index ", index, " (seq ", seq, ")");
}

ChainBreak HashMismatch(int index, std::uint64_t seq,
                        std::optional<std::uint64_t> previous_seq) {
  std::string reason = absl::StrCat(
      EventLabel(index, seq),
      " does not match its chain hash: it was edited, or an event before it "
      "was dropped, inserted or moved");
  if (previous_seq.has_value() && seq <= *previous_seq) {
    absl::StrAppend(&reason, "; its seq does not follow seq ", *previous_seq,
                    " of the event before it, so events are out of order");
  }
  return ChainBreak{index, seq, std::move(reason)};
}

ChainBreak SeqOutOfOrder(int index, std::uint64_t seq,
                         std::uint64_t previous_seq) {
  return ChainBreak{
      index, seq,
      absl::StrCat(EventLabel(index, seq), " does not follow seq ",
                   previous_seq,
                   " of the event before it: the events are out of order, "
                   "though the chain was computed in that order")};
}

ChainBreak CountMismatch(const gunbai::v1::ExportedGame& game) {
  const int events = game.log().events_size();
  const int hashes = game.chain_hashes_size();
  const std::string counts = absl::StrCat(
      "the export has ", events, " events and ", hashes, " chain hashes");
  if (events > hashes) {
    const std::uint64_t seq = game.log().events(hashes).seq();
    return ChainBreak{
        hashes, seq,
        absl::StrCat(EventLabel(hashes, seq), " has no chain hash (", counts,
                     "): it was inserted or added after the "
                     "chain was made")};
  }
  return ChainBreak{events, 0,
                    absl::StrCat("the event at index ", events, " is missing (",
                                 counts, "): the last events were dropped")};
}

}  // namespace

std::string GenesisHash() { return std::string(kHashHexDigits, '0'); }

gunbai::v1::BattleLog FieldOf(const gunbai::v1::BattleLog& log) {
  gunbai::v1::BattleLog field;
  if (log.has_table()) *field.mutable_table() = log.table();
  *field.mutable_terrain() = log.terrain();
  return field;
}

std::string GameGenesis(const gunbai::v1::Header& header,
                        const gunbai::v1::OrderOfBattle& order_of_battle,
                        const gunbai::v1::GameSettings& settings,
                        const gunbai::v1::DiceCommitment& dice,
                        const gunbai::v1::BattleLog& field) {
  if (settings.chain_version() != kTermsChainVersion) return GenesisHash();
  gunbai::v1::DiceCommitment commitment = dice;
  commitment.clear_revealed_secret();
  std::string terms = "gunbai chain v2";
  std::vector<const google::protobuf::Message*> parts = {
      &header, &order_of_battle, &settings, &commitment};
  // Only a game on a table has a field: the terms of every other game hash
  // as they did before tables.
  if (field.has_table() || field.terrain_size() > 0) parts.push_back(&field);
  for (const google::protobuf::Message* part : parts) {
    const std::string bytes = base::DeterministicBytes(*part);
    const std::uint64_t size = bytes.size();
    for (int shift = 56; shift >= 0; shift -= 8) {
      terms.push_back(static_cast<char>((size >> shift) & 0xff));
    }
    terms += bytes;
  }
  return base::Sha256Hex(terms);
}

std::optional<std::string> HexToBytes(absl::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = HexDigitValue(hex[i]);
    const int low = HexDigitValue(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(high * 16 + low));
  }
  return bytes;
}

std::string ChainHash(absl::string_view previous_hex,
                      const gunbai::v1::Event& event) {
  if (previous_hex.size() != kHashHexDigits) return "";
  std::optional<std::string> previous = HexToBytes(previous_hex);
  if (!previous.has_value()) return "";
  return base::Sha256Hex(
      absl::StrCat(*previous, base::DeterministicBytes(event)));
}

std::optional<ChainBreak> VerifyChain(const gunbai::v1::ExportedGame& game) {
  const auto& events = game.log().events();
  const int checked = std::min(events.size(), game.chain_hashes_size());
  std::string previous =
      GameGenesis(game.log().header(), game.log().order_of_battle(),
                  game.settings(), game.dice(), FieldOf(game.log()));
  const bool terms = game.settings().chain_version() == kTermsChainVersion;
  std::optional<std::uint64_t> previous_seq;
  for (int i = 0; i < checked; ++i) {
    const gunbai::v1::Event& event = events[i];
    const std::string hash = ChainHash(previous, event);
    if (!absl::EqualsIgnoreCase(hash, game.chain_hashes(i))) {
      ChainBreak broken = HashMismatch(i, event.seq(), previous_seq);
      if (i == 0 && terms) {
        absl::StrAppend(&broken.reason,
                        "; or the game's terms it chains from (header, order "
                        "of battle, settings, dice commitment) were edited");
      }
      return broken;
    }
    if (previous_seq.has_value() && event.seq() <= *previous_seq) {
      return SeqOutOfOrder(i, event.seq(), *previous_seq);
    }
    previous = hash;
    previous_seq = event.seq();
  }
  if (events.size() != game.chain_hashes_size()) return CountMismatch(game);
  return std::nullopt;
}

namespace {

// Returns the first event after a game_end: gunbaid refuses every append
// once a game has ended.
std::optional<ChainBreak> EventAfterEnd(const gunbai::v1::ExportedGame& game) {
  const auto& events = game.log().events();
  for (int i = 0; i + 1 < events.size(); ++i) {
    if (!events[i].has_game_end()) continue;
    const gunbai::v1::Event& after = events[i + 1];
    return ChainBreak{
        i + 1, after.seq(),
        absl::StrCat("event at index ", i + 1, " (seq ", after.seq(),
                     ") comes after game_end (seq ", events[i].seq(),
                     "): gunbaid stores nothing after the end of a game")};
  }
  return std::nullopt;
}

// Returns the first event of a strict game that breaks a rule under
// `ruleset`: gunbaid refuses the batch holding such an event.
std::optional<ChainBreak> StrictViolation(const gunbai::v1::ExportedGame& game,
                                          const LoadedRuleset& ruleset) {
  google::protobuf::RepeatedPtrField<gunbai::v1::Finding> findings;
  absl::StatusOr<std::unique_ptr<rules::Engine>> engine =
      CreateEngine(game.log(), ruleset, AuditOptions(),
                   rules::EngineOutput{&findings, nullptr});
  if (!engine.ok()) {
    return ChainBreak{-1, 0,
                      absl::StrCat("the game cannot be replayed: ",
                                   engine.status().message())};
  }
  const auto& events = game.log().events();
  for (int i = 0; i < events.size(); ++i) {
    const int before = findings.size();
    (*engine)->Apply(events[i]);
    for (int f = before; f < findings.size(); ++f) {
      if (findings[f].severity() != gunbai::v1::SEVERITY_VIOLATION) continue;
      return ChainBreak{
          i, events[i].seq(),
          absl::StrCat("event at index ", i, " (seq ", events[i].seq(),
                       ") breaks a rule (", findings[f].rule_id(), ": ",
                       Excerpt(findings[f].message(), 2 * kMaxQuotedBytes),
                       "), and the game is strict: gunbaid refuses such an "
                       "event, so it was not stored as it was played")};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ChainBreak> VerifyStorable(const gunbai::v1::ExportedGame& game,
                                         const LoadedRuleset* ruleset) {
  if (std::optional<ChainBreak> after = EventAfterEnd(game)) return after;
  if (ruleset == nullptr ||
      game.settings().policy() != gunbai::v1::APPEND_POLICY_STRICT) {
    return std::nullopt;
  }
  return StrictViolation(game, *ruleset);
}

}  // namespace gunbai::replay
