// Generates random but clean Daimyo battle logs for tests and benchmarks:
// two clans ("oda" and "takeda") trade fire and move turn after turn, and
// take the morale tests their losses owe. Every claimed outcome is computed
// by the rules engine on the replayed state, so a generated log audits with
// no finding at all (no violation, dispute, warning or unverifiable). The
// same options always give the same log, byte for byte: the only source of
// randomness is a std::mt19937_64 seeded from the options, and nothing is
// iterated in hash order. Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_GENERATOR_GAME_GENERATOR_H_
#define GUNBAI_REPLAY_GENERATOR_GAME_GENERATOR_H_

#include <cstdint>
#include <string>

#include "gunbai/v1/battle_log.pb.h"

namespace gunbai::generate {

struct GeneratorOptions {
  std::uint64_t seed = 1;
  // Number of events the log holds, game_end included. Values under 5 (one
  // turn of two activations, its turn_end and game_end) are raised to 5.
  int target_events = 2000;
  // Units per clan; at least 1. Two of every three are missile ashigaru
  // (arquebus or bow), the rest samurai, foot or mounted. The first unit of
  // each clan is missile ashigaru with the clan's General attached.
  int units_per_clan = 8;
};

// Returns a clean battle log of exactly `options.target_events` events
// (raised to 5): turns of turn_start (initiative alternating), each clan's
// activation, its moves, its firings with every claim filled in and the
// leader-loss rolls they owe, then the morale tests owed at the end of the
// turn (a stand lost, the General killed) and turn_end; game_end closes the
// log. Test results are carried out: retire, retreat and rout moves made at
// once, halted units held (they only turn about), routers never moving
// except by rout moves and sometimes testing to rally, frenzied units
// declaring a charge each activation (it falls short; its target tests for
// being charged). Units stop being targets before a volley could destroy
// them, and routers are not shot at, so once they are worn down or routed
// the game goes on with moves only. Aborts the process if the built-in
// Daimyo ruleset does not load (a broken build).
gunbai::v1::BattleLog GenerateFiringGame(const GeneratorOptions& options);

// Returns the deterministic binary serialization of `log` (map order fixed),
// for comparing two logs byte for byte.
std::string SerializeDeterministic(const gunbai::v1::BattleLog& log);

}  // namespace gunbai::generate

#endif  // GUNBAI_REPLAY_GENERATOR_GAME_GENERATOR_H_
