// Decides which faults a generated game gets and from when, for every
// ruleset's generator (internal to the generator). It draws from a
// generator of the caller's that is kept apart from the game's own, so that
// asking for faults does not change the game before the first one is
// planted. Thread-compatible.
#ifndef GUNBAI_GENERATE_FAULT_PLANNER_H_
#define GUNBAI_GENERATE_FAULT_PLANNER_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace gunbai::generate::internal {

// Returns a draw in [lo, hi] from `rng` (hi >= lo), portable: the
// generator's own draw modulo the span, not a std distribution.
inline int UniformDraw(std::mt19937_64& rng, int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(rng() % span);
}

// `Kind` is a ruleset's enum of fault kinds.
template <typename Kind>
class FaultPlanner {
 public:
  // Plans `faults` faults drawing from `rng`: their kinds shuffled from
  // `kinds` (each kind once before any repeats; none when `kinds` is
  // empty), each due from a time drawn in [earliest, latest] on the
  // caller's clock (turns or events).
  //
  // With `first`, the kinds are instead taken in catalogue order from
  // kinds[first % kinds.size()] on, wrapping round, then shuffled: a corpus
  // of consecutive seeds whose `first` steps by `faults` a game (seed x
  // faults) plants every kind equally often, to within one, however few
  // faults a game has.
  FaultPlanner(std::mt19937_64& rng, int faults, const std::vector<Kind>& kinds,
               int earliest, int latest,
               std::optional<std::uint64_t> first = std::nullopt) {
    std::vector<Kind> drawn;
    if (first.has_value() && !kinds.empty()) {
      for (int i = 0; i < faults; ++i) {
        drawn.push_back(
            kinds[(*first + static_cast<std::uint64_t>(i)) % kinds.size()]);
      }
      for (std::size_t i = 0; i + 1 < drawn.size(); ++i) {
        std::swap(drawn[i], drawn[static_cast<std::size_t>(UniformDraw(
                                rng, static_cast<int>(i),
                                static_cast<int>(drawn.size()) - 1))]);
      }
    }
    while (!kinds.empty() && static_cast<int>(drawn.size()) < faults) {
      std::vector<Kind> round = kinds;
      // Fisher-Yates, with the generator's own draw for portability.
      for (std::size_t i = 0; i + 1 < round.size(); ++i) {
        std::swap(round[i], round[static_cast<std::size_t>(UniformDraw(
                                rng, static_cast<int>(i),
                                static_cast<int>(round.size()) - 1))]);
      }
      for (Kind kind : round) {
        if (static_cast<int>(drawn.size()) < faults) drawn.push_back(kind);
      }
    }
    for (Kind kind : drawn) {
      pending_.push_back(
          {kind, UniformDraw(rng, earliest, std::max(earliest, latest))});
    }
  }

  // Returns true when a fault of `kind` is due at time `now`, without
  // taking it.
  bool Due(Kind kind, int now) const {
    return std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) {
      return p.kind == kind && p.not_before <= now;
    });
  }

  // Takes the first due fault of `kind`; the caller plants it. Returns
  // false (and takes nothing) when none is due.
  bool Take(Kind kind, int now) {
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->kind == kind && it->not_before <= now) {
        pending_.erase(it);
        return true;
      }
    }
    return false;
  }

  // Gives back a fault of `kind` that was taken but could not be planted;
  // it is due at once.
  void Return(Kind kind) { pending_.push_back({kind, 0}); }

  // Returns how many faults are still to plant.
  int pending() const { return static_cast<int>(pending_.size()); }

  // Returns true when a fault of `kind` is planned, due or not.
  bool Planned(Kind kind) const {
    return std::any_of(pending_.begin(), pending_.end(),
                       [&](const Pending& p) { return p.kind == kind; });
  }

  // Takes every fault still to plant, whatever its kind or time, and
  // returns their kinds in plan order; the caller plants what it can in
  // their place and says so in the manifest.
  std::vector<Kind> TakeAll() {
    std::vector<Kind> kinds;
    for (const Pending& p : pending_) kinds.push_back(p.kind);
    pending_.clear();
    return kinds;
  }

 private:
  struct Pending {
    Kind kind;
    int not_before;
  };
  std::vector<Pending> pending_;
};

}  // namespace gunbai::generate::internal

#endif  // GUNBAI_GENERATE_FAULT_PLANNER_H_
