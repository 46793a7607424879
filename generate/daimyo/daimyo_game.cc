#include "generate/daimyo/daimyo_game.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generate/daimyo/player.h"

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

const replay::LoadedRuleset& BuiltinRuleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinRuleset("daimyo");
    if (!loaded.ok()) {
      const std::string what = loaded.status().ToString();
      std::fprintf(stderr, "game_generator: %s\n", what.c_str());
      std::abort();
    }
    return new replay::LoadedRuleset(*std::move(loaded));
  }();
  return *ruleset;
}

}  // namespace

absl::Span<const FaultSpec> FaultCatalogue() { return kCatalogue; }

const FaultSpec& FaultSpecOf(FaultKind kind) {
  return CatalogueEntry(FaultCatalogue(), kind);
}

GeneratedGame GenerateGame(const GeneratorOptions& options) {
  return GenerateDaimyoGame(options, BuiltinRuleset());
}

GeneratedGame GenerateDaimyoGame(const GeneratorOptions& options,
                                 const replay::LoadedRuleset& ruleset) {
  return internal::GamePlayer(options, ruleset).Play();
}

v1::BattleLog GenerateLog(const GeneratorOptions& options) {
  return GenerateGame(options).log;
}

std::string ManifestJsonLines(const std::vector<PlantedFault>& faults) {
  return ManifestJsonLines(FaultCatalogue(), faults);
}

}  // namespace gunbai::generate
