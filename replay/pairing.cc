#include "replay/pairing.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rules/status_macros.h"

namespace gunbai::replay {
namespace {

// met[i][j]: players i and j met in an earlier round.
using MetTable = std::vector<std::vector<bool>>;

absl::Status CheckPlayers(const std::vector<PairingPlayer>& players) {
  if (players.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Swiss round needs at least 2 players; got ", players.size(), "."));
  }
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < players.size(); ++i) {
    const std::string& id = players[i].id;
    if (id.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the player at standings position ", i + 1, " has an empty id."));
    }
    auto [it, inserted] = position.emplace(id, i);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          "player \"", id, "\" is in the standings twice, at positions ",
          it->second + 1, " and ", i + 1, "."));
    }
  }
  return absl::OkStatus();
}

// Either side listing the other counts as a meeting, so a record kept on
// one side only still prevents the rematch. Withdrawn players' ids match no
// one and drop out here.
MetTable WhoMet(const std::vector<PairingPlayer>& players) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < players.size(); ++i) index[players[i].id] = i;
  MetTable met(players.size(), std::vector<bool>(players.size(), false));
  for (std::size_t i = 0; i < players.size(); ++i) {
    for (const std::string& opponent : players[i].opponents) {
      auto it = index.find(opponent);
      if (it == index.end()) continue;
      met[i][it->second] = true;
      met[it->second][i] = true;
    }
  }
  return met;
}

// The lowest-ranked player without a bye, else the lowest-ranked of all.
std::size_t ByeTaker(const std::vector<PairingPlayer>& players) {
  for (std::size_t i = players.size(); i-- > 0;) {
    if (!players[i].had_bye) return i;
  }
  return players.size() - 1;
}

// The depth-first search for a Swiss pairing: the highest-ranked unpaired
// player takes the highest-ranked candidate not met, then (while rematches
// are allowed) the highest-ranked one met; when the players below cannot
// all be paired, the last pair is undone and its next candidate tried.
class PairingSearch {
 public:
  // `ranked` holds indices into `met`, in standings order.
  PairingSearch(const MetTable& met, std::vector<std::size_t> ranked)
      : met_(met), ranked_(std::move(ranked)) {}

  // Finds the first pairing in candidate order with at most `rematches`
  // rematches. Returns false when there is none or kMaxSearchSteps
  // candidates were tried. With as many rematches allowed as there are
  // pairs, every choice succeeds and the search never steps back.
  bool Find(int rematches, bool bounded = true) {
    steps_ = 0;
    bounded_ = bounded;
    pairs_.clear();
    paired_.assign(ranked_.size(), false);
    return Extend(rematches);
  }

  // The candidates the last Find tried.
  std::int64_t steps() const { return steps_; }

  // The pairs found, as indices (higher-ranked first), in the order made.
  const std::vector<std::pair<std::size_t, std::size_t>>& pairs() const {
    return pairs_;
  }

 private:
  bool Extend(int rematches_left);

  const MetTable& met_;
  const std::vector<std::size_t> ranked_;
  std::vector<bool> paired_;  // By position in ranked_.
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;
  std::int64_t steps_ = 0;
  bool bounded_ = true;
};

bool PairingSearch::Extend(int rematches_left) {
  std::size_t top = 0;
  // The scan for the top counts against the bound too: it is work.
  while (top < ranked_.size() && paired_[top]) {
    ++top;
    ++steps_;
  }
  if (top == ranked_.size()) return true;
  paired_[top] = true;
  for (bool rematch : {false, true}) {
    if (rematch && rematches_left == 0) break;
    for (std::size_t c = top + 1; c < ranked_.size(); ++c) {
      // Every candidate looked at counts, passed over or tried: the bound
      // is on the work. Past it every level gives up in turn and the search
      // unwinds.
      if (++steps_ > kMaxSearchSteps && bounded_) break;
      if (paired_[c] || met_[ranked_[top]][ranked_[c]] != rematch) continue;
      paired_[c] = true;
      pairs_.emplace_back(ranked_[top], ranked_[c]);
      if (Extend(rematches_left - (rematch ? 1 : 0))) return true;
      pairs_.pop_back();
      paired_[c] = false;
    }
  }
  paired_[top] = false;
  return false;
}

// The side rule of the header: the lower first-side lean takes the first
// side; the higher-ranked player breaks a tie.
Pairing Seat(const PairingPlayer& higher, const PairingPlayer& lower,
             int table) {
  const int higher_lean = higher.first_sides - higher.second_sides;
  const int lower_lean = lower.first_sides - lower.second_sides;
  if (lower_lean < higher_lean) return {lower.id, higher.id, table};
  return {higher.id, lower.id, table};
}

}  // namespace

absl::StatusOr<SwissRound> PairSwiss(
    const std::vector<PairingPlayer>& players) {
  GUNBAI_RETURN_IF_ERROR(CheckPlayers(players));
  const bool has_bye = players.size() % 2 == 1;
  const std::size_t bye = has_bye ? ByeTaker(players) : players.size();
  std::vector<std::size_t> ranked;
  for (std::size_t i = 0; i < players.size(); ++i) {
    if (i != bye) ranked.push_back(i);
  }
  const MetTable met = WhoMet(players);
  PairingSearch search(met, std::move(ranked));
  // Allowing one more rematch at a time makes the first success the fewest
  // rematches possible; allowing one per pair always succeeds, without a
  // step back (a step per pair made). The searches for the fewest share one
  // budget: a field crafted so that each fails only at its bound (a client
  // of gunbaid may send one) is paired with rematches as they fall rather
  // than searched for hours.
  const int every_pair = static_cast<int>(players.size() / 2);
  std::int64_t spent = 0;
  bool found = false;
  for (int allowed = 0; allowed < every_pair && !found; ++allowed) {
    found = search.Find(allowed);
    spent += search.steps();
    if (spent >= kMaxTotalSearchSteps) break;
  }
  // A rematch allowed for every pair: never a step back (n^2 / 2 looks at
  // most), so not bounded.
  if (!found) search.Find(every_pair, /*bounded=*/false);
  SwissRound round;
  for (const auto& [higher, lower] : search.pairs()) {
    const int table = static_cast<int>(round.pairings.size()) + 1;
    round.pairings.push_back(Seat(players[higher], players[lower], table));
    if (met[higher][lower]) ++round.rematches;
  }
  if (has_bye) {
    const int table = static_cast<int>(round.pairings.size()) + 1;
    round.pairings.push_back({players[bye].id, "", table});
  }
  return round;
}

// The circle method: with an even number of slots m (an empty slot, the
// bye, added for an odd count), slot m-1 stays put and the others turn.
// In round r slot r meets the fixed slot, and slots r+i and r-i (mod m-1)
// meet for i = 1 .. m/2-1. Sides: a turning slot takes the first side
// exactly when its distance d = (slot - r) mod (m-1) from slot r is odd
// (slot r+i when i is odd, slot r-i when i is even, since m-1 is odd). Over
// the m-1 rounds d takes each value once, so a turning player's games
// against other turning players split evenly; the fixed slot alternates,
// so each player's count is out by at most the one game against it.
std::vector<std::vector<Pairing>> RoundRobin(
    const std::vector<std::string>& players) {
  const int n = static_cast<int>(players.size());
  const int slots = n + n % 2;
  const int turning = slots - 1;
  std::vector<std::vector<Pairing>> rounds;
  for (int r = 0; r < turning; ++r) {
    std::vector<Pairing> round;
    auto add = [&round](const std::string& first, const std::string& second) {
      round.push_back({first, second, static_cast<int>(round.size()) + 1});
    };
    for (int i = 1; i < slots / 2; ++i) {
      const std::string& up = players[(r + i) % turning];
      const std::string& down = players[(r - i + turning) % turning];
      if (i % 2 == 1) {
        add(up, down);
      } else {
        add(down, up);
      }
    }
    if (n % 2 == 1) {
      add(players[r], "");
    } else if (r % 2 == 1) {
      add(players[slots - 1], players[r]);
    } else {
      add(players[r], players[slots - 1]);
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

}  // namespace gunbai::replay
