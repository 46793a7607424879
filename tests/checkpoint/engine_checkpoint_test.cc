// Engine checkpoints (rules::Engine::SaveCheckpoint / RestoreCheckpoint,
// issue 11's cold start) against a full replay. For many generated Daimyo
// games (some on a table, with positions), clean and with planted faults,
// and several cut points K in each: a replay saves a checkpoint after K
// events, a fresh engine restores it (with
// the findings reported so far put back) and applies the rest; its findings,
// its outcomes after the cut, its final state digest (the one `gunbai state`
// prints) and its own checkpoint at the end must be byte for byte the full
// replay's. Saving again right after a restore gives the same bytes.
// Then bad bytes: every truncation, every byte changed, another version,
// another engine, another order of battle, a used engine: each an error or a
// state the engine goes on from, never a crash (run it under the ASan build
// too: build-asan).
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "generate/skf/skf_game.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/proto_mapping.h"
#include "replay/ruleset_loader.h"
#include "rules/checkpoint_codec.h"
#include "rules/digest.h"
#include "rules/engine.h"

namespace gunbai {
namespace {

namespace v1 = ::gunbai::v1;
using Findings = google::protobuf::RepeatedPtrField<v1::Finding>;
using Outcomes = google::protobuf::RepeatedPtrField<v1::Outcome>;

const replay::RulesetCatalog& Catalog() {
  static const auto* catalog = [] {
    auto c = replay::RulesetCatalog::Builtin();
    EXPECT_TRUE(c.ok()) << c.status();
    return new replay::RulesetCatalog(*std::move(c));
  }();
  return *catalog;
}

const replay::LoadedRuleset& RulesetOf(const v1::BattleLog& log) {
  auto ruleset = Catalog().ForLog(log.header());
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  return **ruleset;
}

// An engine of `log`'s ruleset writing to its own findings and outcomes.
struct Replaying {
  explicit Replaying(const v1::BattleLog& log, Findings start = Findings(),
                     const replay::LoadedRuleset* ruleset = nullptr) {
    findings = std::move(start);
    auto e = replay::CreateEngine(log, ruleset ? *ruleset : RulesetOf(log),
                                  replay::AuditOptions(),
                                  rules::EngineOutput{&findings, &outcomes});
    EXPECT_TRUE(e.ok()) << e.status();
    engine = *std::move(e);
  }
  void ApplyRange(const v1::BattleLog& log, int from, int to) {
    for (int i = from; i < to; ++i) engine->Apply(log.events(i));
  }
  std::string Checkpoint() const {
    auto bytes = engine->SaveCheckpoint();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *bytes : "";
  }
  std::string Digest() const {
    return replay::SnapshotFromState(engine->state()).digest();
  }
  Findings findings;
  Outcomes outcomes;
  std::unique_ptr<rules::Engine> engine;
};

std::string Bytes(const Findings& findings) {
  v1::AuditReport report;
  *report.mutable_findings() = findings;
  return base::DeterministicBytes(report);
}

std::string Bytes(const Outcomes& outcomes) {
  v1::AuditReport report;
  *report.mutable_outcomes() = outcomes;
  return base::DeterministicBytes(report);
}

// The cut points of a game of `n` events: the ends, one event in, one
// before the end, and a few inside, fixed by the seed.
std::vector<int> CutsOf(int n, std::uint64_t seed) {
  std::vector<int> cuts = {0, 1, n / 3, n / 2, n - 1, n};
  for (int i = 1; i <= 3; ++i) {
    cuts.push_back(static_cast<int>((seed * 7919 + i * 104729) % (n + 1)));
  }
  return cuts;
}

// Replays `log` whole, and cut at each of `cuts`, and expects the two to
// agree; returns the number of cuts checked.
int ExpectCheckpointsAgree(const v1::BattleLog& log, std::uint64_t seed,
                           const std::vector<int>& cuts,
                           const replay::LoadedRuleset* ruleset = nullptr) {
  const int n = log.events_size();
  Replaying full(log, Findings(), ruleset);
  full.ApplyRange(log, 0, n);
  const std::string full_end_checkpoint = full.Checkpoint();
  full.engine->Finish();
  int checked = 0;
  for (int k : cuts) {
    SCOPED_TRACE(
        absl::StrCat("seed ", seed, ", cut after ", k, " of ", n, " events"));
    Replaying before(log, Findings(), ruleset);
    before.ApplyRange(log, 0, k);
    const std::string checkpoint = before.Checkpoint();
    Replaying after(log, before.findings, ruleset);
    const absl::Status restored = after.engine->RestoreCheckpoint(checkpoint);
    if (!restored.ok()) {
      ADD_FAILURE() << restored;
      continue;
    }
    EXPECT_EQ(after.Checkpoint(), checkpoint) << "save, restore, save";
    EXPECT_EQ(after.Digest(), before.Digest());
    after.ApplyRange(log, k, n);
    EXPECT_EQ(after.Checkpoint(), full_end_checkpoint);
    after.engine->Finish();
    EXPECT_EQ(Bytes(after.findings), Bytes(full.findings));
    EXPECT_EQ(after.Digest(), full.Digest());
    // The outcomes before the cut are the first replay's, those after the
    // restored one's: together, the full replay's.
    Outcomes both = before.outcomes;
    for (const v1::Outcome& o : after.outcomes) *both.Add() = o;
    EXPECT_EQ(Bytes(both), Bytes(full.outcomes));
    ++checked;
  }
  return checked;
}

TEST(EngineCheckpoint, DaimyoGamesCutAnywhereReplayAsWhole) {
  int cuts = 0;
  int findings = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.target_events = 200 + static_cast<int>(seed % 5) * 150;
    options.units_per_clan = 4 + static_cast<int>(seed % 6);
    options.faults = seed % 2 == 0 ? 0 : 4;
    const generate::GeneratedGame game = generate::GenerateGame(options);
    findings += static_cast<int>(game.faults.size());
    cuts += ExpectCheckpointsAgree(game.log, seed,
                                   CutsOf(game.log.events_size(), seed));
  }
  // 40 games of 9 cuts each; the faulted half carry findings to put back.
  EXPECT_EQ(cuts, 360);
  EXPECT_GT(findings, 40);
}

// Games on a table (`gunbai generate --positions`): the checkpoint holds
// every unit's pose and each charge's measured start, so a restored replay
// measures what the full one does, clean and with planted faults.
TEST(EngineCheckpoint, DaimyoTableGamesCutAnywhereReplayAsWhole) {
  int cuts = 0;
  int findings = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.turns = 6;
    options.units_per_clan = 3 + static_cast<int>(seed % 6);
    options.faults = seed % 2 == 0 ? 0 : 3;
    options.positions = true;
    const generate::GeneratedGame game = generate::GenerateGame(options);
    ASSERT_TRUE(game.log.has_table());
    findings += static_cast<int>(game.faults.size());
    cuts += ExpectCheckpointsAgree(game.log, seed,
                                   CutsOf(game.log.events_size(), seed));
  }
  EXPECT_EQ(cuts, 16 * 9);
  EXPECT_GT(findings, 16);
}

// Every cut of a few games: a cut inside a multi-unit melee, between a
// challenge and its round, amid owed result moves and tests, ... (the
// bookkeeping that lives a few events only, which the cuts above may miss).
TEST(EngineCheckpoint, EveryCutOfAFewGames) {
  int cuts = 0;
  for (std::uint64_t seed : {3, 8, 21, 3008}) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.target_events = 400;
    options.faults = seed % 2 == 0 ? 3 : 0;
    const v1::BattleLog log = generate::GenerateGame(options).log;
    std::vector<int> every(log.events_size() + 1);
    for (int k = 0; k <= log.events_size(); ++k) every[k] = k;
    cuts += ExpectCheckpointsAgree(log, seed, every);
  }
  EXPECT_EQ(cuts, 4 * 401);
}

replay::LoadedRuleset SkfRuleset(bool umpire_example) {
  if (umpire_example) {
    const std::string path =
        std::string(GUNBAI_SOURCE_DIR) + "/rules/skf/umpire-example.textproto";
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto loaded = replay::LoadRuleset(text.str(), path);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return loaded.ok() ? *loaded : replay::LoadedRuleset();
  }
  for (const replay::LoadedRuleset* r : Catalog().all()) {
    if (r->data.name() == "skf") return *r;
  }
  ADD_FAILURE() << "no built-in skf ruleset";
  return replay::LoadedRuleset();
}

// Samurai Knight Fever games, under the umpire's example file (morale
// checks and leader hits on) and the built-in one, clean and with faults:
// each cut at every event.
TEST(EngineCheckpoint, SkfGamesCutAtEveryEventReplayAsWhole) {
  int cuts = 0;
  int faults = 0;
  for (bool umpire : {true, false}) {
    const replay::LoadedRuleset ruleset = SkfRuleset(umpire);
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      generate::GeneratorOptions options;
      options.seed = seed;
      options.turns = 4 + static_cast<int>(seed % 3);
      options.units_per_clan = 3 + static_cast<int>(seed % 4);
      options.faults = seed % 2 == 0 ? 0 : 3;
      auto game = generate::GenerateSkfGameWithFaults(options, ruleset);
      ASSERT_TRUE(game.ok()) << game.status();
      faults += static_cast<int>(game->faults.size());
      std::vector<int> every(game->log.events_size() + 1);
      for (int k = 0; k <= game->log.events_size(); ++k) every[k] = k;
      cuts += ExpectCheckpointsAgree(game->log, seed, every, &ruleset);
    }
  }
  EXPECT_GT(cuts, 12 * 20);
  EXPECT_EQ(faults, 6 * 3);
}

// The hand-written logs of tests/data (a challenge awaiting its round, the
// events Samurai Knight Fever does not cover, planted mistakes), each cut
// at every event.
TEST(EngineCheckpoint, GoldenLogsCutAtEveryEventReplayAsWhole) {
  int cuts = 0;
  for (const char* name :
       {"anegawa-clean", "nagashino-melee", "sekigahara", "skf-kawanakajima"}) {
    const std::string path =
        absl::StrCat(GUNBAI_SOURCE_DIR, "/tests/data/", name, ".textproto");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto log =
        replay::ParseBattleLog(text.str(), replay::LogFormat::kText, path);
    ASSERT_TRUE(log.ok()) << log.status();
    std::vector<int> every(log->events_size() + 1);
    for (int k = 0; k <= log->events_size(); ++k) every[k] = k;
    cuts += ExpectCheckpointsAgree(*log, 0, every);
  }
  EXPECT_GT(cuts, 4 * 10);
}

// anegawa-clean with each turn ended by the clans one by one, as the
// players of a live game end it: oda's turn_end, then asai's (the seqs made
// ten times as large to make room). It must audit as the original does
// (each turn ends at asai's), and a checkpoint cut between the two
// turn_ends must carry oda's (BattleState::turn_ended_clans): a restore
// that forgot it would not end the turn at asai's and report the next
// turn_start.
TEST(EngineCheckpoint, ClansEndingATurnOneByOneCarryOver) {
  const std::string path =
      absl::StrCat(GUNBAI_SOURCE_DIR, "/tests/data/anegawa-clean.textproto");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto original =
      replay::ParseBattleLog(text.str(), replay::LogFormat::kText, path);
  ASSERT_TRUE(original.ok()) << original.status();
  v1::BattleLog log = *original;
  log.clear_events();
  int turn_ends = 0;
  for (v1::Event event : original->events()) {
    event.set_seq(event.seq() * 10);
    if (event.has_turn_end()) {
      v1::Event oda = event;
      oda.set_seq(event.seq() - 5);
      oda.set_clan("oda");
      *log.add_events() = oda;
      event.set_clan("asai");
      ++turn_ends;
    }
    *log.add_events() = event;
  }
  ASSERT_EQ(turn_ends, 2);
  auto ruleset = Catalog().ForLog(log.header());
  ASSERT_TRUE(ruleset.ok()) << ruleset.status();
  auto before = replay::AuditLog(*original, **ruleset, replay::AuditOptions());
  auto after = replay::AuditLog(log, **ruleset, replay::AuditOptions());
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(after->summary().violations(), 0);
  EXPECT_EQ(after->summary().disputes(), before->summary().disputes());
  EXPECT_EQ(after->summary().warnings(), before->summary().warnings());
  std::vector<int> every(log.events_size() + 1);
  for (int k = 0; k <= log.events_size(); ++k) every[k] = k;
  EXPECT_EQ(ExpectCheckpointsAgree(log, 0, every), log.events_size() + 1);
}

// A log past the findings bound (kMaxFindingsPerLog, 20,000): the counts
// of findings left out are in the checkpoint, and the last finding (how
// many were left out) must come out the same after a restore.
TEST(EngineCheckpoint, FindingsLeftOutCarryOver) {
  generate::GeneratorOptions options;
  options.seed = 7;
  options.target_events = 12000;
  v1::BattleLog log = generate::GenerateLog(options);
  // The events twice more, after game_end: each one a finding (or more).
  const int n = log.events_size();
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < n; ++i) *log.add_events() = log.events(i);
  }
  Replaying full(log);
  full.ApplyRange(log, 0, log.events_size());
  full.engine->Finish();
  ASSERT_EQ(full.findings.size(), 20001);  // The bound, and its summary.
  EXPECT_EQ(full.findings.rbegin()->rule_id(), "log.findings_truncated");
  for (int k : {n + 100, log.events_size() - 5}) {
    Replaying before(log);
    before.ApplyRange(log, 0, k);
    Replaying after(log, before.findings);
    ASSERT_TRUE(after.engine->RestoreCheckpoint(before.Checkpoint()).ok());
    after.ApplyRange(log, k, log.events_size());
    after.engine->Finish();
    EXPECT_EQ(Bytes(after.findings), Bytes(full.findings)) << "cut " << k;
  }
}

class BadCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    generate::GeneratorOptions options;
    options.seed = 11;
    options.target_events = 300;
    options.faults = 2;
    log_ = generate::GenerateGame(options).log;
    Replaying run(log_);
    run.ApplyRange(log_, 0, 150);
    checkpoint_ = run.Checkpoint();
    fresh_ = Replaying(log_).Checkpoint();
    ASSERT_NE(checkpoint_, fresh_);
  }
  // Restores `bytes` into a fresh engine: either an error that leaves the
  // engine as created, or a state that the rest of the log replays from.
  // Returns whether it was refused.
  bool Refused(const std::string& bytes) {
    Replaying run(log_);
    absl::Status s = run.engine->RestoreCheckpoint(bytes);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_EQ(run.Checkpoint(), fresh_) << "changed by a refused restore";
      return true;
    }
    run.ApplyRange(log_, 150, log_.events_size());
    run.engine->Finish();
    return false;
  }
  v1::BattleLog log_;
  std::string checkpoint_;
  std::string fresh_;
};

TEST_F(BadCheckpoint, EveryTruncationIsRefused) {
  for (std::size_t size = 0; size < checkpoint_.size(); ++size) {
    EXPECT_TRUE(Refused(checkpoint_.substr(0, size))) << size << " bytes";
  }
  EXPECT_TRUE(Refused(checkpoint_ + "x")) << "a byte too many";
}

TEST_F(BadCheckpoint, EveryByteChangedIsRefusedOrReplayable) {
  int refused = 0;
  for (std::size_t i = 0; i < checkpoint_.size(); ++i) {
    for (unsigned char flip : {0x01, 0x02, 0x04, 0x80, 0xff}) {
      std::string bytes = checkpoint_;
      bytes[i] = static_cast<char>(static_cast<unsigned char>(bytes[i]) ^ flip);
      refused += Refused(bytes) ? 1 : 0;
    }
  }
  // Most changes break a length, a range or the fingerprint; a flag or a
  // count changed into another valid one is a valid checkpoint (the store's
  // SHA-256 is what catches those).
  EXPECT_GT(refused, static_cast<int>(checkpoint_.size()));
}

TEST_F(BadCheckpoint, AnotherVersionEngineOrOrderOfBattleIsRefused) {
  // The opening is "GBCK", the engine's name (length 6, "daimyo"), then the
  // version, 5 (1 had no poses, 2 no charge and rout-move turns, 3 not the
  // pairs that fought this turn, 4 not the units near a leader's death):
  // byte 11.
  ASSERT_EQ(checkpoint_.substr(0, 11), std::string("GBCK\x06") + "daimyo");
  ASSERT_EQ(checkpoint_[11], '\x05');
  std::string v2 = checkpoint_;
  v2[11] = '\x04';
  Replaying run(log_);
  absl::Status s = run.engine->RestoreCheckpoint(v2);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("format 5"), absl::string_view::npos) << s;
  std::string other_engine = checkpoint_;
  other_engine.replace(5, 6, "skfskf");
  EXPECT_TRUE(Refused(other_engine));
  // Another game's order of battle (the seed sets the troop kinds).
  generate::GeneratorOptions options;
  options.seed = 12;
  options.target_events = 300;
  const v1::BattleLog other = generate::GenerateLog(options);
  Replaying elsewhere(other);
  s = elsewhere.engine->RestoreCheckpoint(checkpoint_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("another order of battle"),
            absl::string_view::npos)
      << s;
}

TEST_F(BadCheckpoint, OnlyAFreshEngineRestores) {
  Replaying used(log_);
  used.ApplyRange(log_, 0, 1);
  EXPECT_EQ(used.engine->RestoreCheckpoint(checkpoint_).code(),
            absl::StatusCode::kFailedPrecondition);
}

// The same for a Samurai Knight Fever checkpoint taken mid-game: every
// truncation refused, every byte changed refused or replayable, never a
// crash.
TEST(BadSkfCheckpoint, EveryTruncationOrChangeIsRefusedOrReplayable) {
  const replay::LoadedRuleset ruleset = SkfRuleset(/*umpire_example=*/true);
  generate::GeneratorOptions options;
  options.seed = 3;
  options.turns = 6;
  options.faults = 2;
  auto game = generate::GenerateSkfGameWithFaults(options, ruleset);
  ASSERT_TRUE(game.ok()) << game.status();
  const v1::BattleLog& log = game->log;
  const int cut = log.events_size() / 2;
  Replaying run(log, Findings(), &ruleset);
  run.ApplyRange(log, 0, cut);
  const std::string checkpoint = run.Checkpoint();
  const std::string fresh = Replaying(log, Findings(), &ruleset).Checkpoint();
  const auto refused = [&](const std::string& bytes) {
    Replaying r(log, Findings(), &ruleset);
    absl::Status s = r.engine->RestoreCheckpoint(bytes);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_EQ(r.Checkpoint(), fresh) << "changed by a refused restore";
      return true;
    }
    r.ApplyRange(log, cut, log.events_size());
    r.engine->Finish();
    return false;
  };
  for (std::size_t size = 0; size < checkpoint.size(); ++size) {
    EXPECT_TRUE(refused(checkpoint.substr(0, size))) << size << " bytes";
  }
  int refusals = 0;
  for (std::size_t i = 0; i < checkpoint.size(); ++i) {
    for (unsigned char flip : {0x01, 0x02, 0x04, 0x80, 0xff}) {
      std::string bytes = checkpoint;
      bytes[i] = static_cast<char>(static_cast<unsigned char>(bytes[i]) ^ flip);
      refusals += refused(bytes) ? 1 : 0;
    }
  }
  EXPECT_GT(refusals, static_cast<int>(checkpoint.size()));
}

}  // namespace
}  // namespace gunbai
