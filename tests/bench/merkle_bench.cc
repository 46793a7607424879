// The Merkle tree of a live game's events (replay/merkle.h): what an append
// adds per event (the event's deterministic bytes, its leaf hash, and the
// subtree hashes it completes), and what a proof costs at 1,000 to
// 1,000,000 events. The figures quoted in the notes come from a Release
// build:
//   build/tests/bench/merkle_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true   (one command line)
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "generate/daimyo/daimyo_game.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/merkle.h"
#include "rules/digest.h"

namespace gunbai::replay {
namespace {

// The events of a generated game of 10,000 events.
const gunbai::v1::BattleLog& Log() {
  static const gunbai::v1::BattleLog* log = [] {
    generate::GeneratorOptions options;
    options.seed = 1;
    options.target_events = 10000;
    options.units_per_clan = 8;
    return new gunbai::v1::BattleLog(generate::GenerateLog(options));
  }();
  return *log;
}

// Per event: the deterministic bytes, the leaf hash, the append.
void BM_MerkleAppendEvent(benchmark::State& state) {
  const gunbai::v1::BattleLog& log = Log();
  for (auto _ : state) {
    MerkleTree tree;
    for (const gunbai::v1::Event& e : log.events()) {
      tree.Append(MerkleLeafHash(base::DeterministicBytes(e)));
    }
    benchmark::DoNotOptimize(tree.size());
  }
  state.SetItemsProcessed(state.iterations() * log.events_size());
}
BENCHMARK(BM_MerkleAppendEvent)->Unit(benchmark::kMillisecond);

MerkleTree TreeOf(std::uint64_t n) {
  MerkleTree tree;
  for (std::uint64_t i = 0; i < n; ++i) {
    tree.Append(MerkleLeafHash(std::to_string(i)));
  }
  return tree;
}

void BM_MerkleInclusionProof(benchmark::State& state) {
  const std::uint64_t n = static_cast<std::uint64_t>(state.range(0));
  const MerkleTree tree = TreeOf(n);
  std::uint64_t i = 0;
  for (auto _ : state) {
    auto proof = tree.InclusionProof(i, n);
    benchmark::DoNotOptimize(proof);
    i = (i + 7919) % n;
  }
}
BENCHMARK(BM_MerkleInclusionProof)
    ->Arg(1000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);

void BM_MerkleConsistencyProof(benchmark::State& state) {
  const std::uint64_t n = static_cast<std::uint64_t>(state.range(0));
  const MerkleTree tree = TreeOf(n);
  std::uint64_t m = 1;
  for (auto _ : state) {
    auto proof = tree.ConsistencyProof(m, n);
    benchmark::DoNotOptimize(proof);
    m = (m + 7919) % (n - 1) + 1;  // Every size from 1 to n - 1 in turn.
  }
}
BENCHMARK(BM_MerkleConsistencyProof)
    ->Arg(1000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gunbai::replay

BENCHMARK_MAIN();
