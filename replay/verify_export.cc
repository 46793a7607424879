#include "replay/verify_export.h"

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "replay/ledger.h"
#include "replay/server_dice.h"
#include "replay/text_errors.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

ExportVerdict Tampered(std::string reason) {
  return {ExportVerdict::Kind::kTampered, std::move(reason)};
}

}  // namespace

absl::StatusOr<std::string> HeadNotInChain(
    const v1::ExportedGame& game, const std::string& genesis,
    const std::vector<std::string>& heads) {
  for (const std::string& head : heads) {
    std::vector<std::string> named;
    auto consider = [&](const std::string& hash) {
      const std::string lower = absl::AsciiStrToLower(hash);
      if (absl::StartsWith(lower, head) &&
          std::find(named.begin(), named.end(), lower) == named.end()) {
        named.push_back(lower);
      }
    };
    consider(genesis);
    for (const std::string& h : game.chain_hashes()) consider(h);
    if (named.size() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--head=", head, " is the start of ", named.size(),
                       " hashes of the chain; give more of it"));
    }
    if (named.empty()) return head;
  }
  return std::string();
}

absl::Status CheckGamesRuleset(const v1::ExportedGame& game,
                               const LoadedRuleset& chosen,
                               absl::string_view described,
                               absl::string_view checking) {
  const v1::Header& header = game.log().header();
  // A log that names no ruleset is read by the first plug-in's
  // (RulesetCatalog::ForLog).
  const std::string name = header.ruleset().name().empty()
                               ? std::string(DefaultRulesetName())
                               : header.ruleset().name();
  const std::string& version = header.ruleset().version();
  if (chosen.data.name() != name ||
      (!version.empty() && chosen.data.version() != version)) {
    return absl::InvalidArgumentError(absl::StrCat(
        checking,
        " can only be checked under the game's ruleset: the game was played "
        "under the \"",
        Excerpt(name), "\" ruleset ", Excerpt(version), ", and ", described,
        " is \"", chosen.data.name(), "\" ", chosen.data.version(),
        "; give the ruleset file gunbaid played it under with "
        "--ruleset=FILE"));
  }
  const std::string& bound = game.settings().ruleset_digest();
  if (!bound.empty() && bound != chosen.digest) {
    return absl::InvalidArgumentError(absl::StrCat(
        checking,
        " can only be checked under the game's ruleset: the game was played "
        "under ruleset sha256:",
        Excerpt(bound), ", and ", described, " is sha256:", chosen.digest,
        ". Give the ruleset file gunbaid played the game under with "
        "--ruleset=FILE (`gunbai ruleset --ruleset=FILE` prints its "
        "digest)."));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExportVerdict> VerifyExport(
    const v1::ExportedGame& game, const std::vector<std::string>& heads,
    ExportRulesetSource ruleset_source) {
  if (auto broken = VerifyChain(game)) return Tampered(broken->reason);
  // A head the caller was given (at creation, or by an append) must be one
  // of this chain's: a rewritten export, its hashes recomputed, holds none.
  const std::string genesis =
      GameGenesis(game.log().header(), game.log().order_of_battle(),
                  game.settings(), game.dice(), FieldOf(game.log()));
  GUNBAI_ASSIGN_OR_RETURN(std::string head,
                          HeadNotInChain(game, genesis, heads));
  if (!head.empty()) {
    return Tampered(absl::StrCat(
        "the head sha256:", head,
        " you were given is not in this export's chain: what you saw was "
        "changed, dropped or reordered, or the game's terms were edited"));
  }
  // What needs no ruleset first: an event after game_end.
  if (auto refused = VerifyStorable(game, nullptr)) {
    return Tampered(refused->reason);
  }
  const bool server_dice = game.settings().dice_mode() == v1::DICE_MODE_SERVER;
  const bool strict = game.settings().policy() == v1::APPEND_POLICY_STRICT;
  std::string dice = "dice recorded by the players (nothing to recompute)";
  if (server_dice && game.dice().revealed_secret().empty()) {
    // Nothing is wrong yet; there is just no verdict on the dice.
    return ExportVerdict{
        ExportVerdict::Kind::kIncomplete,
        absl::StrCat("the chain of ", game.log().events_size(),
                     " events is intact, but the dice can be checked only "
                     "after game_end, when gunbaid reveals its secret")};
  }
  // The values first: they need no ruleset, so a forged die is TAMPERED
  // whatever the export says of its ruleset (which no hash protects in a
  // game of chain version 0).
  if (server_dice) {
    if (auto bad = VerifyServerDiceValues(game)) return Tampered(bad->reason);
  }
  if (server_dice || strict) {
    absl::StatusOr<LoadedRuleset> ruleset = ruleset_source(
        server_dice ? "every die is the server's, but how many dice each "
                      "event has"
                    : "the chain is intact, but which events a strict game "
                      "refuses");
    if (!ruleset.ok()) return ruleset.status();
    if (server_dice) {
      // Not a verdict on the game: gunbaid refuses server dice under a
      // ruleset that cannot count them, so it played the game under
      // another.
      absl::Status available = ServerDiceAvailable(*ruleset);
      if (!available.ok()) {
        return ExportVerdict{
            ExportVerdict::Kind::kRulesetUnusable,
            absl::StrCat("the \"", ruleset->data.name(), "\" ruleset ",
                         ruleset->data.version(),
                         " cannot count the server's dice (",
                         available.message(),
                         "), so gunbaid did not play this game under it. "
                         "Give the ruleset file gunbaid played the game "
                         "under with --ruleset=FILE.")};
      }
      if (auto bad = VerifyServerDice(game, *ruleset)) {
        return Tampered(bad->reason);
      }
      dice =
          "every server die recomputed from the revealed secret, which "
          "matches its commitment";
    }
    if (auto refused = VerifyStorable(game, &*ruleset)) {
      return Tampered(refused->reason);
    }
  }
  return ExportVerdict{
      ExportVerdict::Kind::kIntact,
      absl::StrCat(game.log().events_size(), " events, chain head ",
                   game.chain_hashes().empty()
                       ? genesis
                       : game.chain_hashes().rbegin()[0],
                   "; ", dice)};
}

}  // namespace gunbai::replay
