// Generates seeded random Samurai Knight Fever battle logs (gunbai generate
// --ruleset skf): two clans ("uesugi" and "takeda") fight melees each
// activation, single and multiple (one unit against two enemies, its bases
// split between them, the pairings sharing a melee_id), with the declared
// modifiers of the umpire's table; every unit that fought checks morale at
// once, every leader touching it rolls for a hit, bases are removed for the
// hits taken (or kept as disorder), and the game plays to a victory by
// points with game_end claiming the winner when there is one.
//
// The claims are the engine's own outcomes: the game is replayed as it is
// written, following the computed outcome of every event, and the log is the
// branch the engine writes out (rules::EngineOutput::branch_events), so a
// generated game audits with no violation and no dispute under the ruleset
// it was played under. The same options always give the same bytes.
//
// On request it plants known faults and returns their manifest, as the
// Daimyo generator does (game_generator.h). A wrong claim is planted by
// declaring the event with the engine's computed claims, one of them made
// wrong, and replaying that event with its claims kept
// (rules::EngineOptions::keep_claims_at): the game goes on from the outcome
// as claimed, as the audit replays it, so each fault gives exactly one
// finding and no knock-on ones.
#ifndef GUNBAI_GENERATE_SKF_SKF_GAME_H_
#define GUNBAI_GENERATE_SKF_SKF_GAME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "generate/game_generator.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {

struct GeneratorPlugin;  // generate/plugins.h

// The faults a Samurai Knight Fever game can have planted. Each gives
// exactly one finding, of the rule and severity SkfFaultSpecOf names.
enum class SkfFaultKind {
  kMeleeHitsWrong,     // A melee side claims one hit too many or too few.
  kBasesLostOverHits,  // A side claims one base lost more than hits taken.
  kMeleeDiceCount,     // A melee side rolls two dice or none.
  kMoraleMissing,      // A unit that fought skips its morale check.
  kMoraleResultWrong,  // A morale check claims another result.
  kMoraleTotalWrong,   // A morale check claims a total one too high.
  kMoraleDiceCount,    // A morale check rolls one die too many or too few.
  kLeaderHitWrong,     // A leader-hit roll claims the other fate.
  kLeaderHitMissing,   // An owed leader-hit roll is skipped.
  kLeaderHitNotOwed,   // A leader rolls for a hit when none is owed.
  kWinnerWrong,        // game_end claims the wrong winner (or one not won).
  kPointsMismatch,     // The header gives other victory points than the
                       // ruleset (a troop type's, or the camp's, plus one).
};

// Its names are "skf_" and the kind, e.g. "skf_melee_hits_wrong".
using SkfFaultSpec = FaultKindSpec<SkfFaultKind>;

// Returns every kind, in catalogue order.
absl::Span<const SkfFaultSpec> SkfFaultCatalogue();

// Returns the catalogue entry of `kind`.
const SkfFaultSpec& SkfFaultSpecOf(SkfFaultKind kind);

// Returns the kinds the engine can find under `ruleset`, in catalogue order:
// the morale kinds only with a morale check (skf.morale), a wrong leader
// hit only with a killing die (skf.leader_hits), the points only with a
// victory section that gives some. A game's faults are drawn from these.
std::vector<SkfFaultKind> SkfFaultKindsFor(
    const replay::LoadedRuleset& ruleset);

// A fault planted in a generated Samurai Knight Fever log: the seq is the
// faulty event's, the event's that closed the morale window of a skipped
// check, the turn_end's by which a skipped leader-hit roll was owed, or 0
// for the header; the subject is the unit, leader, clan, troop type or
// "camp" the finding names.
using SkfPlantedFault = PlantedFaultOf<SkfFaultKind>;
// The planted faults by seq (the header's first).
using SkfGeneratedGame = GeneratedGameOf<SkfFaultKind>;

// Plays a Samurai Knight Fever game of `options.turns` turns (8 when 0) and
// `options.units_per_clan` units a clan (2 to 64) under `ruleset`, which
// must be an SKF ruleset with melee values for samurai, legendary samurai,
// ashigaru, ronin, warrior monks and peasants, and plants `options.faults`
// faults (0 to 1000). Their kinds go round SkfFaultKindsFor(ruleset) in an
// order the seed shuffles (each kind once before any repeats), each due
// from a turn in the first half of the game. A fault still unplanted when
// the last turn starts (its kind found no chance: no melee, check or roll
// of the kind after its turn, a second wrong winner, more points faults
// than the ruleset has points) is planted then as a leader-hit roll that
// nothing owes, and its manifest entry says in place of what
// (in_place_of); one wrong winner waits for game_end. A game with faults
// has its own game_id. Returns InvalidArgument otherwise.
absl::StatusOr<SkfGeneratedGame> GenerateSkfGameWithFaults(
    const GeneratorOptions& options, const replay::LoadedRuleset& ruleset);

// Returns the log of GenerateSkfGameWithFaults(options, ruleset).
absl::StatusOr<gunbai::v1::BattleLog> GenerateSkfGame(
    const GeneratorOptions& options, const replay::LoadedRuleset& ruleset);

// Returns the manifest as JSON lines, as ManifestJsonLines does for Daimyo
// games: {"seq", "rule_id", "severity", "kind", "subject", "description"},
// and "in_place_of" when the fault stands in for a kind.
std::string SkfManifestJsonLines(const std::vector<SkfPlantedFault>& faults);

// Returns Samurai Knight Fever's entry in the generator plug-in list
// (generate/plugins.h): its name, help texts and the functions `gunbai
// generate` calls.
GeneratorPlugin SkfGeneratorPlugin();

}  // namespace gunbai::generate

#endif  // GUNBAI_GENERATE_SKF_SKF_GAME_H_
