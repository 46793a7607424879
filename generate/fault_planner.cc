#include "generate/fault_planner.h"

#include <algorithm>
#include <random>
#include <utility>

#include "absl/types/span.h"

namespace gunbai::generate::internal {

namespace {

// Keeps the fault plan apart from the game's own generator.
constexpr std::uint64_t kFaultStream = 0x6661756c74ULL;  // "fault"

int Uniform(std::mt19937_64& rng, int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(rng() % span);
}

}  // namespace

FaultPlanner::FaultPlanner(std::uint64_t seed, int faults, int earliest,
                           int latest) {
  std::mt19937_64 rng(seed ^ kFaultStream);
  const absl::Span<const FaultSpec> catalogue = FaultCatalogue();
  std::vector<FaultKind> kinds;
  while (static_cast<int>(kinds.size()) < faults) {
    std::vector<FaultKind> round;
    for (const FaultSpec& spec : catalogue) round.push_back(spec.kind);
    // Fisher-Yates, with the generator's own draw for portability.
    for (std::size_t i = 0; i + 1 < round.size(); ++i) {
      std::swap(round[i], round[Uniform(rng, static_cast<int>(i),
                                        static_cast<int>(round.size()) - 1)]);
    }
    for (FaultKind kind : round) {
      if (static_cast<int>(kinds.size()) < faults) kinds.push_back(kind);
    }
  }
  for (FaultKind kind : kinds) {
    pending_.push_back(
        {kind, Uniform(rng, earliest, std::max(earliest, latest))});
  }
}

bool FaultPlanner::Due(FaultKind kind, int now) const {
  return std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) {
    return p.kind == kind && p.not_before <= now;
  });
}

bool FaultPlanner::Take(FaultKind kind, int now) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->kind == kind && it->not_before <= now) {
      pending_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<FaultKind> FaultPlanner::TakeAll() {
  std::vector<FaultKind> kinds;
  for (const Pending& p : pending_) kinds.push_back(p.kind);
  pending_.clear();
  return kinds;
}

}  // namespace gunbai::generate::internal
