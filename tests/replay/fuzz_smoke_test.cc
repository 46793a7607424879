// Bad input never crashes: seeded random mutations of real logs (binary and
// text) go through the parser and, when they parse, the whole audit and the
// state snapshot. Each must end in a Status or a report. The suite runs a
// short smoke; deploy/fuzz.sh runs it long (GUNBAI_FUZZ_ITERATIONS).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"

namespace gunbai::testing {
namespace {

int Iterations() {
  int n = 300;
  if (const char* env = std::getenv("GUNBAI_FUZZ_ITERATIONS")) {
    if (!absl::SimpleAtoi(env, &n) || n < 1) n = 300;
  }
  return n;
}

std::string Sample(const std::string& name) {
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Returns `bytes` with a few random edits: flipped bytes, a cut, a copy of
// a run pasted elsewhere.
std::string Mutate(std::string bytes, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> edits(1, 8);
  const int n = edits(rng);
  for (int i = 0; i < n && !bytes.empty(); ++i) {
    std::uniform_int_distribution<std::size_t> at(0, bytes.size() - 1);
    switch (rng() % 4) {
      case 0:
        bytes[at(rng)] = static_cast<char>(rng() & 0xff);
        break;
      case 1:
        bytes.erase(at(rng), rng() % 16);
        break;
      case 2: {
        const std::size_t from = at(rng);
        bytes.insert(at(rng), bytes.substr(from, rng() % 32));
        break;
      }
      default:
        bytes[at(rng)] = "0123456789-{}:\n"[rng() % 15];
        break;
    }
  }
  return bytes;
}

void AuditWhatParses(const std::string& bytes, replay::LogFormat format,
                     const replay::LoadedRuleset& ruleset, int& audited) {
  auto log = replay::ParseBattleLog(bytes, format, "fuzz");
  if (!log.ok()) {
    EXPECT_FALSE(log.status().message().empty());
    return;
  }
  auto report = replay::AuditLog(*log, ruleset);
  if (report.ok()) ++audited;
  auto state = replay::StateAt(*log, ruleset, std::nullopt);
  (void)state;
}

TEST(FuzzSmokeTest, MutatedLogsNeverCrash) {
  auto ruleset = replay::BuiltinDaimyoRuleset();
  ASSERT_TRUE(ruleset.ok());
  std::mt19937_64 rng(20261130);  // Seeded: the same inputs every run.
  int audited = 0;
  for (const char* name :
       {"sekigahara.textproto", "nagashino-melee.textproto"}) {
    const std::string text = Sample(name);
    auto log = replay::ParseBattleLog(text, replay::LogFormat::kText, name);
    ASSERT_TRUE(log.ok()) << log.status();
    const std::string binary = log->SerializeAsString();
    for (int i = 0; i < Iterations(); ++i) {
      AuditWhatParses(Mutate(binary, rng), replay::LogFormat::kBinary, *ruleset,
                      audited);
      AuditWhatParses(Mutate(text, rng), replay::LogFormat::kText, *ruleset,
                      audited);
    }
  }
  // Many mutations still parse and audit (into findings, not crashes).
  EXPECT_GT(audited, 0);
}

}  // namespace
}  // namespace gunbai::testing
