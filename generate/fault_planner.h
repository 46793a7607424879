// Decides which faults a generated game gets and from when (internal to the
// generator). It draws from its own seeded generator, so that asking for
// faults does not change the game before the first one is planted.
// Thread-compatible.
#ifndef GUNBAI_GENERATE_FAULT_PLANNER_H_
#define GUNBAI_GENERATE_FAULT_PLANNER_H_

#include <cstdint>
#include <vector>

#include "generate/game_generator.h"

namespace gunbai::generate::internal {

class FaultPlanner {
 public:
  // Plans `faults` faults: their kinds shuffled from the catalogue (each
  // kind once before any repeats), each due from a time drawn in
  // [earliest, latest] on the caller's clock (turns or events).
  FaultPlanner(std::uint64_t seed, int faults, int earliest, int latest);

  // Returns true when a fault of `kind` is due at time `now`, without
  // taking it.
  bool Due(FaultKind kind, int now) const;

  // Takes the first due fault of `kind`; the caller plants it. Returns
  // false (and takes nothing) when none is due.
  bool Take(FaultKind kind, int now);

  // Gives back a fault of `kind` that was taken but could not be planted;
  // it is due at once.
  void Return(FaultKind kind) { pending_.push_back({kind, 0}); }

  // Returns how many faults are still to plant.
  int pending() const { return static_cast<int>(pending_.size()); }

  // Takes every fault still to plant, whatever its kind or time, and
  // returns their kinds in plan order; the caller plants what it can in
  // their place and says so in the manifest.
  std::vector<FaultKind> TakeAll();

 private:
  struct Pending {
    FaultKind kind;
    int not_before;
  };
  std::vector<Pending> pending_;
};

}  // namespace gunbai::generate::internal

#endif  // GUNBAI_GENERATE_FAULT_PLANNER_H_
