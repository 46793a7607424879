// Pairing the next round of a tournament: a Swiss round from the
// standings, or every round of a round robin. Thread-safe: functions only.
//
// The Swiss round, as an umpire can check it by hand:
// - Odd number of players: the lowest-ranked player who has not had a bye
//   gets it (if all have had one, the lowest-ranked player). The bye is
//   chosen first and is not changed to make the pairing easier.
// - The others are paired down the standings, highest with next highest
//   (as wargames tournament software does, not chess's top half against
//   bottom half): the highest-ranked unpaired player meets the
//   highest-ranked unpaired player they have not met, and so on down.
// - If that leaves players at the bottom who have all met, the pairing
//   steps back and the pair above takes its next choice, so a pairing with
//   no rematch is found whenever one exists; of those, the one reached
//   first in this order. There is no separate rule for score groups: they
//   come from the ranking, and a player floats down to a lower group only
//   when pairing inside their own group would force a rematch, there or
//   further down.
// - Only if no pairing avoids rematches does a rematch happen, and then the
//   fewest possible (the search allows one, then two, and so on), each
//   player still preferring opponents not met. Each of those searches stops
//   after kMaxSearchSteps tries, and all of them together after
//   kMaxTotalSearchSteps; a field they cannot settle in time gets a pairing
//   with more rematches than necessary (a rematch wherever one falls),
//   still counted.
// - Sides: the player who has played the first side fewer times, counting
//   first sides less second sides, takes the first side; when that is equal,
//   the higher-ranked player does.
// - Tables are numbered from 1 in the order the pairs were made, the top
//   pair on table 1; the bye comes last. The same standings always give the
//   same pairing.
#ifndef GUNBAI_REPLAY_PAIRING_H_
#define GUNBAI_REPLAY_PAIRING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gunbai::replay {

// How many candidates the Swiss search looks at (tried or passed over) for
// each number of rematches it allows before moving on to one more. Without a
// bound a field with no rematch-free pairing could search for hours; this many
// tries take a fraction of a second.
inline constexpr std::int64_t kMaxSearchSteps = 2'000'000;
// How many the searches for the fewest rematches try in all; past it, the
// pairing allows a rematch wherever one falls (counted in `rematches`).
inline constexpr std::int64_t kMaxTotalSearchSteps = 4 * kMaxSearchSteps;

// One player as the next round is paired, in standings order (the caller
// ranks them: score, then tie-breaks, then seed).
struct PairingPlayer {
  std::string id;
  int score = 0;  // Tournament points so far; not read: the order ranks.
  // Ids met in earlier rounds (a rematch is listed twice). A meeting listed
  // on one side only still counts; an id that is not among the players
  // (someone who withdrew) is ignored.
  std::vector<std::string> opponents;
  int first_sides = 0;   // Rounds played on the first side.
  int second_sides = 0;  // Rounds played on the second side.
  bool had_bye = false;
};

struct Pairing {
  std::string first;   // Plays the first side (the ruleset's first clan).
  std::string second;  // Empty: `first` has the bye.
  int table = 0;       // 1-based, in pairing order; the bye last.

  bool operator==(const Pairing&) const = default;
};

struct SwissRound {
  std::vector<Pairing> pairings;  // Tables 1..n, the bye (if any) last.
  int rematches = 0;  // Pairs that met before; 0 unless unavoidable.
};

// Pairs the next Swiss round of `players` (standings order) by the rules
// above. Returns InvalidArgumentError, naming the player, for fewer than 2
// players, an empty id or an id given twice.
absl::StatusOr<SwissRound> PairSwiss(const std::vector<PairingPlayer>& players);

// Returns every round of a round robin among `players` (distinct ids) by the
// circle method: n-1 rounds for an even n, n rounds with one bye each for an
// odd n. Each player meets every other exactly once, and no player's first
// sides and second sides differ by more than 1. Within a round the tables
// are numbered from 1; the game of the player who stays put in the circle
// (for an odd n, the bye) comes last.
std::vector<std::vector<Pairing>> RoundRobin(
    const std::vector<std::string>& players);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_PAIRING_H_
