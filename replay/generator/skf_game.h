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
#ifndef GUNBAI_REPLAY_GENERATOR_SKF_GAME_H_
#define GUNBAI_REPLAY_GENERATOR_SKF_GAME_H_

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/generator/game_generator.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {

// Plays a Samurai Knight Fever game of `options.turns` turns (8 when 0) and
// `options.units_per_clan` units a clan (2 to 64) under `ruleset`, which
// must be an SKF ruleset with melee values for samurai, legendary samurai,
// ashigaru, ronin, warrior monks and peasants. Faults are not planted yet:
// `options.faults` must be 0. Returns InvalidArgument otherwise.
absl::StatusOr<gunbai::v1::BattleLog> GenerateSkfGame(
    const GeneratorOptions& options, const replay::LoadedRuleset& ruleset);

}  // namespace gunbai::generate

#endif  // GUNBAI_REPLAY_GENERATOR_SKF_GAME_H_
