// Generates seeded random Daimyo battle logs for tests, benchmarks and
// `gunbai generate`: two clans ("oda" and "takeda") move, fire, charge,
// fight melees (with duels between their daimyo), push back, rout, follow up
// and pursue, and take every morale test their losses owe, with rallies and
// frenzy. The facts a tape measure would give (cover, buildings, column or
// flank, woods, uphill and obstacles, routers and leaders near) are declared
// now and then, and every game plays to a victory by points
// (header.scenario.victory), its game_end claiming the winner when there is
// one. Every claimed outcome is computed by the rules engine on the state
// the replayer holds as the log is written, so a clean game audits with no
// finding at all (no violation, dispute, warning or unverifiable).
//
// On request the generator plants known faults (a wrong claim, a skipped
// test, a second volley, ...) and returns their manifest: for each, the seq
// and the rule id the audit must report. Each fault is planted so that it
// gives exactly one finding: the game goes on from the state as played, so a
// fault has no knock-on findings.
//
// The same options always give the same log, byte for byte (see
// game_generator.h). Thread-safe: functions only.
#ifndef GUNBAI_GENERATE_DAIMYO_DAIMYO_GAME_H_
#define GUNBAI_GENERATE_DAIMYO_DAIMYO_GAME_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "generate/game_generator.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {

struct GeneratorPlugin;  // generate/plugins.h

// The faults the Daimyo generator knows how to plant. Each gives exactly
// one finding, of the rule and severity FaultSpecOf names.
enum class FaultKind {
  kFireHitsWrong,         // A firing claims one hit too many or too few.
  kFireTwice,             // A unit fires a second time in a turn.
  kFireDiceCount,         // A firing rolls one die too many or too few.
  kDieOutOfRange,         // A firing die reads 0 or 7.
  kMeleeHitsWrong,        // A melee side claims one hit too many or few.
  kMeleeOutcomeWrong,     // A melee round claims the wrong outcome.
  kMoraleTestMissing,     // An owed end-of-turn morale test is skipped.
  kMoraleTotalWrong,      // A morale test claims a total off by one.
  kLeaderLossMissing,     // An owed leader-loss roll is skipped.
  kLeaderLossClaimWrong,  // A leader-loss roll claims the other fate.
  kDuelWinnerWrong,       // A duel claims the loser as the winner.
  kResultMoveMissing,     // A unit pushed back in melee does not move.
  kResultMoveWrong,       // A winner owed a follow-up or pursuit halts.
  kResultMoveNotOwed,     // A unit makes a result move nothing owes.
  kHaltedUnitMoves,       // A halted unit moves.
  kMeleeDiceCount,        // A melee side rolls one die too many or too few.
  kMoraleDiceCount,       // A morale test rolls one or three dice.
};

using FaultSpec = FaultKindSpec<FaultKind>;
// A fault planted in a Daimyo game: the seq is the faulty event's, or the
// turn_end's by which a skipped test, roll or move was owed; the subject is
// the unit or leader the finding names.
using PlantedFault = PlantedFaultOf<FaultKind>;
using GeneratedGame = GeneratedGameOf<FaultKind>;

// Returns every kind of fault, in catalogue order.
absl::Span<const FaultSpec> FaultCatalogue();

// Returns the catalogue entry of `kind`.
const FaultSpec& FaultSpecOf(FaultKind kind);

// Plays a game with `options` under the built-in Daimyo ruleset and returns
// its log and the manifest of the faults planted in it. With `turns` set
// the log holds exactly that many whole turns and game_end; otherwise
// exactly `target_events` events (values under 5, one turn of two
// activations, its turn_end and game_end, are raised to 5; the last turns
// then only move, so that the count comes out exact). A clan fields
// `units_per_clan` units (at least 1): the first is missile ashigaru with
// the clan's General attached; it never fights a melee, so that every clan
// keeps a unit on the table, and in a game sized by events nothing the
// player chooses makes it test morale (it is not shot at, named near a
// rout, or charged while there is another target), so that it can always
// make the closing turn's moves. The others take in turn, from a place the
// seed sets, the troop kinds: missile Ashigaru (bows or arquebuses, some
// holding a building), long-spear Ashigaru, Samurai (foot with pole arms,
// mounted with lances, some mounted archers), Ronin with swords, Warrior
// Monks, Peasants with no weapon, Hatamoto and a headquarters; every
// quality and armour turns up, and some units start in column. The third
// unit has the clan's Daimyo attached. The kinds of the faults are taken in
// catalogue order from a place the seed sets (seed x faults), so that a
// corpus of consecutive seeds plants each kind equally often. A fault that
// finds no chance to be planted as drawn is planted as a result move nothing
// owes, and its manifest entry says so (in_place_of); fewer faults than asked
// are planted only when the game is too small to hold them (a game sized by
// events with no room left, or no unit free to make that move). Aborts the
// process if the built-in Daimyo ruleset does not load (a broken build).
GeneratedGame GenerateGame(const GeneratorOptions& options);

// The same under `ruleset`, a Daimyo ruleset (its tables, from its data);
// GenerateGame is this under the built-in one.
GeneratedGame GenerateDaimyoGame(const GeneratorOptions& options,
                                 const replay::LoadedRuleset& ruleset);

// Returns the log of GenerateGame(options): for callers that plant no
// faults.
gunbai::v1::BattleLog GenerateLog(const GeneratorOptions& options);

// Returns the manifest as JSON lines, one fault a line (ManifestJsonLine,
// game_generator.h).
std::string ManifestJsonLines(const std::vector<PlantedFault>& faults);

// Returns Daimyo's entry in the generator plug-in list (generate/plugins.h):
// its name, help texts and the functions `gunbai generate` calls.
GeneratorPlugin DaimyoGeneratorPlugin();

}  // namespace gunbai::generate

#endif  // GUNBAI_GENERATE_DAIMYO_DAIMYO_GAME_H_
