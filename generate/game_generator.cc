#include "generate/game_generator.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "generate/daimyo/player.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {

namespace {

namespace v1 = ::gunbai::v1;

constexpr FaultSpec kCatalogue[] = {
    {FaultKind::kFireHitsWrong, "fire_hits_wrong", "daimyo.fire.hit",
     v1::SEVERITY_DISPUTE},
    {FaultKind::kFireTwice, "fire_twice",
     "daimyo.fire.eligibility.once_per_turn", v1::SEVERITY_VIOLATION},
    {FaultKind::kFireDiceCount, "fire_dice_count", "daimyo.fire.dice_count",
     v1::SEVERITY_VIOLATION},
    {FaultKind::kDieOutOfRange, "die_out_of_range", "log.die.range",
     v1::SEVERITY_VIOLATION},
    {FaultKind::kMeleeHitsWrong, "melee_hits_wrong", "daimyo.melee.hit",
     v1::SEVERITY_DISPUTE},
    {FaultKind::kMeleeOutcomeWrong, "melee_outcome_wrong",
     "daimyo.melee.outcome", v1::SEVERITY_DISPUTE},
    {FaultKind::kMoraleTestMissing, "morale_test_missing",
     "daimyo.morale.missing", v1::SEVERITY_VIOLATION},
    {FaultKind::kMoraleTotalWrong, "morale_total_wrong", "daimyo.morale.total",
     v1::SEVERITY_DISPUTE},
    {FaultKind::kLeaderLossMissing, "leader_loss_missing",
     "daimyo.leader_loss.missing", v1::SEVERITY_VIOLATION},
    {FaultKind::kLeaderLossClaimWrong, "leader_loss_claim_wrong",
     "daimyo.leader_loss.roll", v1::SEVERITY_DISPUTE},
    {FaultKind::kDuelWinnerWrong, "duel_winner_wrong", "daimyo.challenge.duel",
     v1::SEVERITY_DISPUTE},
    {FaultKind::kResultMoveMissing, "result_move_missing",
     "daimyo.result_move.missing", v1::SEVERITY_VIOLATION},
    {FaultKind::kResultMoveWrong, "result_move_wrong",
     "daimyo.result_move.wrong", v1::SEVERITY_VIOLATION},
    {FaultKind::kResultMoveNotOwed, "result_move_not_owed",
     "daimyo.result_move.not_owed", v1::SEVERITY_VIOLATION},
    {FaultKind::kHaltedUnitMoves, "halted_unit_moves", "daimyo.morale.halted",
     v1::SEVERITY_VIOLATION},
    {FaultKind::kMeleeDiceCount, "melee_dice_count", "daimyo.melee.dice_count",
     v1::SEVERITY_VIOLATION},
    {FaultKind::kMoraleDiceCount, "morale_dice_count",
     "daimyo.morale.dice_count", v1::SEVERITY_VIOLATION},
};

[[noreturn]] void Die(absl::string_view what) {
  std::fprintf(stderr, "game_generator: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::abort();
}

const replay::LoadedRuleset& BuiltinRuleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinDaimyoRuleset();
    if (!loaded.ok()) Die(loaded.status().ToString());
    return new replay::LoadedRuleset(*std::move(loaded));
  }();
  return *ruleset;
}

// Returns `text` as a JSON string literal.
std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

absl::Span<const FaultSpec> FaultCatalogue() { return kCatalogue; }

const FaultSpec& FaultSpecOf(FaultKind kind) {
  for (const FaultSpec& spec : kCatalogue) {
    if (spec.kind == kind) return spec;
  }
  Die("a fault kind missing from the catalogue");
}

GeneratedGame GenerateGame(const GeneratorOptions& options) {
  return internal::GamePlayer(options, BuiltinRuleset()).Play();
}

v1::BattleLog GenerateLog(const GeneratorOptions& options) {
  return GenerateGame(options).log;
}

std::string ManifestJsonLine(std::uint64_t seq, absl::string_view rule_id,
                             v1::Severity severity, absl::string_view kind,
                             absl::string_view subject,
                             absl::string_view description,
                             absl::string_view in_place_of) {
  std::string out = absl::StrCat(
      "{\"seq\": ", seq, ", \"rule_id\": ", JsonString(rule_id),
      ", \"severity\": ", JsonString(v1::Severity_Name(severity)),
      ", \"kind\": ", JsonString(kind), ", \"subject\": ", JsonString(subject),
      ", \"description\": ", JsonString(description));
  if (!in_place_of.empty()) {
    absl::StrAppend(&out, ", \"in_place_of\": ", JsonString(in_place_of));
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

std::string ManifestJsonLines(const std::vector<PlantedFault>& faults) {
  std::string out;
  for (const PlantedFault& f : faults) {
    absl::StrAppend(&out, ManifestJsonLine(f.seq, f.rule_id, f.severity,
                                           FaultSpecOf(f.kind).name, f.subject,
                                           f.description, f.in_place_of));
  }
  return out;
}

}  // namespace gunbai::generate
