// Bad input never crashes: seeded random mutations of real logs (binary and
// text) go through the parser and, when they parse, the whole audit (with
// every outcome recorded, and every fourth one with --impact's what-if
// replays) and the state snapshot, under the ruleset each log names: the
// Daimyo samples and the Samurai Knight Fever sample, under the shipped
// example and under the example with a morale check. Each must end in a
// Status or a report. The suite runs a short smoke; deploy/fuzz.sh runs it
// long (GUNBAI_FUZZ_ITERATIONS).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/impact.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/daimyo/engine.h"
#include "rules/skf/engine.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;

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
                     const replay::LoadedRuleset& ruleset, bool impact,
                     int& audited) {
  auto log = replay::ParseBattleLog(bytes, format, "fuzz");
  if (!log.ok()) {
    EXPECT_FALSE(log.status().message().empty());
    return;
  }
  replay::AuditOptions options;
  options.record_outcomes = true;
  auto report = replay::AuditLog(*log, ruleset, options);
  if (report.ok()) {
    ++audited;
    if (impact) {
      absl::Status added = replay::AddImpacts(*log, ruleset, *report);
      (void)added;
    }
  }
  auto state = replay::StateAt(*log, ruleset, std::nullopt);
  (void)state;
}

// Mutates the sample `name` `Iterations()` times, binary and text, and
// audits what parses under `ruleset`.
void FuzzSample(const char* name, const replay::LoadedRuleset& ruleset,
                std::mt19937_64& rng) {
  const std::string text = Sample(name);
  auto log = replay::ParseBattleLog(text, replay::LogFormat::kText, name);
  ASSERT_TRUE(log.ok()) << log.status();
  const std::string binary = log->SerializeAsString();
  int audited = 0;
  for (int i = 0; i < Iterations(); ++i) {
    const bool impact = i % 4 == 0;
    AuditWhatParses(Mutate(binary, rng), replay::LogFormat::kBinary, ruleset,
                    impact, audited);
    AuditWhatParses(Mutate(text, rng), replay::LogFormat::kText, ruleset,
                    impact, audited);
  }
  // Many mutations still parse and audit (into findings, not crashes).
  EXPECT_GT(audited, 0) << name;
}

TEST(FuzzSmokeTest, MutatedLogsNeverCrash) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(ruleset.ok());
  std::mt19937_64 rng(20261130);  // Seeded: the same inputs every run.
  for (const char* name :
       {"sekigahara.textproto", "nagashino-melee.textproto"}) {
    FuzzSample(name, *ruleset, rng);
  }
}

TEST(FuzzSmokeTest, MutatedSamuraiKnightFeverLogsNeverCrash) {
  auto example = replay::BuiltinRuleset("skf");
  ASSERT_TRUE(example.ok());
  std::mt19937_64 rng(20261201);
  FuzzSample("skf-kawanakajima.textproto", *example, rng);
  // With a morale check, so that the morale arithmetic runs too.
  replay::LoadedRuleset with_morale = *example;
  v1::SkfMoraleTest* morale = with_morale.data.mutable_skf()->mutable_morale();
  morale->set_dice(2);
  v1::SkfPassScore* pass = morale->add_pass_scores();
  pass->set_quality(v1::QUALITY_ELITE);
  pass->set_score(5);
  v1::SkfMoraleFailure* fail = morale->add_failures();
  fail->set_fail_by(1);
  fail->set_result(v1::MORALE_RESULT_ROUT);
  morale->set_per_leader_touching(1);
  morale->set_per_base_lost(-1);
  morale->set_per_disorder_point(-1);
  FuzzSample("skf-kawanakajima.textproto", with_morale, rng);
}

// An umpire's ruleset file is input too: mutated copies of the shipped
// files either load or are refused with a message, and what loads audits
// the sample of its ruleset (a mutated table may say anything in range).
TEST(FuzzSmokeTest, MutatedRulesetsNeverCrash) {
  std::mt19937_64 rng(20261202);
  struct Case {
    absl::string_view text;
    const char* sample;
  };
  int loaded = 0;
  for (const Case& c :
       {Case{rules::DaimyoRulesetText(), "nagashino-melee.textproto"},
        Case{rules::SkfRulesetText(), "skf-kawanakajima.textproto"}}) {
    auto log = replay::ParseBattleLog(Sample(c.sample),
                                      replay::LogFormat::kText, c.sample);
    ASSERT_TRUE(log.ok()) << log.status();
    for (int i = 0; i < Iterations(); ++i) {
      auto ruleset =
          replay::LoadRuleset(Mutate(std::string(c.text), rng), "fuzz");
      if (!ruleset.ok()) {
        EXPECT_FALSE(ruleset.status().message().empty());
        continue;
      }
      ++loaded;
      replay::AuditOptions options;
      options.record_outcomes = true;
      auto report = replay::AuditLog(*log, *ruleset, options);
      (void)report;
    }
  }
  EXPECT_GT(loaded, 0);
}

}  // namespace
}  // namespace gunbai::testing
