// Fuzz target: a binary gunbai.v1.BattleLog, audited under the built-in
// ruleset its header names (Daimyo or Samurai Knight Fever), the state
// checked after every event, the what-if branches of its disputes replayed.
// Mutations go through the schema (tests/fuzz/proto_mutator.h).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/log_parser.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/proto_mutator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto log = gunbai::replay::ParseBattleLog(
      bytes, gunbai::replay::LogFormat::kBinary, "fuzz.binpb");
  if (!log.ok()) return 0;
  gunbai::fuzz::AuditUnderHeaderRuleset(*log, /*impact=*/true);
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data,
                                               std::size_t size,
                                               std::size_t max_size,
                                               unsigned int seed) {
  return gunbai::fuzz::MutateSerialized(
      gunbai::v1::BattleLog::default_instance(), data, size, max_size, seed);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(
    const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
    std::size_t size2, std::uint8_t* out, std::size_t max_out_size,
    unsigned int seed) {
  return gunbai::fuzz::CrossOverSerialized(
      gunbai::v1::BattleLog::default_instance(), data1, size1, data2, size2,
      out, max_out_size, seed);
}
