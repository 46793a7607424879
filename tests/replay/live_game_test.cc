// replay::AppendToLiveGame, the rules of an append below gRPC, on BaseLog's
// order of battle (tests/replay/test_logs.h) under the built-in Daimyo
// ruleset, through an in-memory journal: no gRPC, no database. Each
// expectation follows from the steps listed in replay/live_game.h; the
// chain hashes are replay::ChainHash's (checked against Python's hashlib in
// ledger_test.cc), and what a batch's events raise is live_batch_test.cc's
// business.
#include "replay/live_game.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ledger.h"
#include "replay/legal_actions.h"
#include "tests/replay/test_logs.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::testing::Activation;
using ::gunbai::testing::BaseLog;
using ::gunbai::testing::Ev;
using ::gunbai::testing::TurnStart;

// A batch of `events_text` (repeated `events`), event ids "e<seq>", built
// on `expected_version`.
v1::AppendEventsRequest Batch(const std::string& events_text,
                              uint64_t expected_version) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(events_text, &log));
  v1::AppendEventsRequest batch;
  batch.set_expected_version(expected_version);
  for (const v1::Event& event : log.events()) {
    v1::AppendedEvent* appended = batch.add_events();
    appended->set_event_id("e" + std::to_string(event.seq()));
    *appended->mutable_event() = event;
  }
  return batch;
}

// A journal in memory: what a store would keep, and what was asked of it.
class MemoryJournal : public LiveGameJournal {
 public:
  explicit MemoryJournal(LiveGame* game) : game_(game) {}

  absl::StatusOr<std::optional<std::string>> FindBatch(
      absl::string_view first_event_id) override {
    auto it = answers.find(std::string(first_event_id));
    if (it == answers.end()) return std::nullopt;
    return it->second;
  }
  absl::Status CatchUp() override {
    ++catch_ups;
    answers.merge(answers_on_catch_up);
    // What another replica stored meanwhile comes into the game, replayed.
    game_->Absorb(elsewhere, 0);
    elsewhere.clear();
    return absl::OkStatus();
  }
  absl::StatusOr<uint64_t> NextDiceAttempt() override {
    return ++dice_attempts;
  }
  absl::StatusOr<std::optional<std::string>> Append(
      uint64_t expected_version, const std::vector<v1::StoredEvent>& events,
      absl::string_view answer) override {
    if (!append_fails.ok()) return append_fails;
    // Stored by a call that got there first (stored_first): its answer.
    auto first = stored_first.find(events.front().event_id());
    if (first != stored_first.end()) return first->second;
    EXPECT_EQ(expected_version, stored.size());
    for (const v1::StoredEvent& e : events) stored.push_back(e);
    answers[events.front().event_id()] = std::string(answer);
    return std::nullopt;
  }
  absl::Status MarkEnded() override {
    ended = true;
    return absl::OkStatus();
  }

  std::vector<v1::StoredEvent> stored;
  std::map<std::string, std::string> answers;
  // Batches another replica stores while an append is on its way, by first
  // event id, with their answers: FindBatch does not see them before the
  // append reaches the store.
  std::map<std::string, std::string> stored_first;
  // Answers of batches another replica stores after the append's first
  // look-up: FindBatch sees them once the game has caught up.
  std::map<std::string, std::string> answers_on_catch_up;
  std::vector<v1::StoredEvent> elsewhere;
  absl::Status append_fails;
  int catch_ups = 0;
  uint64_t dice_attempts = 0;
  bool ended = false;

 private:
  LiveGame* game_;
};

class LiveGameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ruleset = BuiltinRuleset("daimyo");
    ASSERT_TRUE(ruleset.ok()) << ruleset.status();
    ruleset_ = *std::move(ruleset);
    game_.id = "g";
    game_.log = BaseLog();
    game_.ruleset = &ruleset_;
    auto engine = CreateEngine(game_.log, ruleset_, AuditOptions(),
                               rules::EngineOutput{&game_.findings, nullptr});
    ASSERT_TRUE(engine.ok()) << engine.status();
    game_.engine = *std::move(engine);
    game_.genesis = GenesisHash();
    game_.loaded = true;
    appender_.settings = &settings_;
    appender_.umpire = true;
  }

  absl::StatusOr<AppendedBatch> Append(v1::AppendEventsRequest batch) {
    return AppendToLiveGame(game_, appender_, journal_, batch);
  }

  // Turn 1 starts, red activates and moves a unit the order of battle
  // lacks (a violation at seq 3, accepted by a game that records).
  std::string FirstThree() const {
    return TurnStart(1, 1, "red") + Activation(2, 1, "red") +
           Ev(3, 1, "red", "move { unit: \"ghost\" }");
  }

  LoadedRuleset ruleset_;
  v1::GameSettings settings_;
  LiveGame game_;
  LiveAppender appender_;
  MemoryJournal journal_{&game_};
};

TEST_F(LiveGameTest, AnAcceptedBatchIsStoredAnsweredAndTakenIn) {
  settings_.set_policy(v1::APPEND_POLICY_RECORD);
  const v1::AppendEventsRequest sent = Batch(FirstThree(), 0);
  auto batch = Append(sent);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_FALSE(batch->retried);
  EXPECT_EQ(batch->version_before, 0u);
  EXPECT_EQ(batch->events, 3u);
  EXPECT_EQ(batch->first_finding, 0);
  EXPECT_FALSE(batch->ended);
  // The chain: genesis, then each event's hash on the one before.
  std::string head = GenesisHash();
  for (int i = 0; i < 3; ++i) head = ChainHash(head, sent.events(i).event());
  EXPECT_EQ(game_.version(), 3u);
  EXPECT_EQ(game_.last_seq(), 3u);
  EXPECT_EQ(game_.head(), head);
  EXPECT_EQ(game_.event_ids, (std::vector<std::string>{"e1", "e2", "e3"}));
  EXPECT_TRUE(game_.loaded);
  // Stored whole, with the answer it was given.
  ASSERT_EQ(journal_.stored.size(), 3u);
  EXPECT_EQ(journal_.answers.at("e1"), batch->answer);
  v1::AppendEventsResponse answer;
  ASSERT_TRUE(answer.ParseFromString(batch->answer));
  EXPECT_EQ(answer.version(), 3u);
  EXPECT_EQ(answer.head_hash(), head);
  EXPECT_EQ(answer.events_size(), 3);
  // Only seq 3 is wrong: every finding of the answer is seq 3's, and they
  // are the game's findings.
  ASSERT_GE(answer.findings_size(), 1);
  EXPECT_EQ(answer.findings_size(), game_.findings.size());
  for (const v1::Finding& f : answer.findings()) EXPECT_EQ(f.seq(), 3u);
  EXPECT_EQ(journal_.catch_ups, 0);
  EXPECT_EQ(journal_.dice_attempts, 0u);  // recorded dice: no attempt
}

TEST_F(LiveGameTest, ARetriedBatchGetsItsFirstAnswerAndChangesNothing) {
  auto first = Append(Batch(FirstThree(), 0));
  ASSERT_TRUE(first.ok()) << first.status();
  // Sent again as first sent (its version now stale): answered, not
  // refused, and nothing is stored or replayed twice.
  auto again = Append(Batch(FirstThree(), 0));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->retried);
  EXPECT_EQ(again->answer, first->answer);
  EXPECT_EQ(journal_.stored.size(), 3u);
  EXPECT_EQ(game_.version(), 3u);
  EXPECT_EQ(journal_.catch_ups, 0);
}

TEST_F(LiveGameTest, AStaleOrAheadVersionIsRefusedAfterCatchingUp) {
  ASSERT_TRUE(Append(Batch(FirstThree(), 0)).ok());
  // Built on 1 of the 3 events: read from seq 2, the first unseen.
  auto stale = Append(Batch(Activation(4, 1, "blue"), 1));
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(stale.status().message(),
            "stale version 1: the game has 3 events; read from seq 2 and "
            "append again with expected_version 3");
  // Built on 5 events the game never had.
  auto ahead = Append(Batch(Activation(4, 1, "blue"), 5));
  EXPECT_EQ(ahead.status().message(),
            "version 5 is ahead of the game: it has 3 events; read it from "
            "the start and retry");
  // Any uint64 a client sends is answered so, the largest too (the rpc
  // fuzzer's input: expected_version + 1 once overflowed an int64).
  auto far = Append(Batch(Activation(4, 1, "blue"), UINT64_MAX));
  EXPECT_EQ(far.status().message(),
            "version 18446744073709551615 is ahead of the game: it has 3 "
            "events; read it from the start and retry");
  EXPECT_EQ(journal_.catch_ups, 3);  // each looked for newer events first
  EXPECT_EQ(journal_.stored.size(), 3u);
  EXPECT_EQ(game_.version(), 3u);
  EXPECT_TRUE(game_.loaded);
}

TEST_F(LiveGameTest, CatchingUpWithAnotherWriterLetsTheBatchIn) {
  ASSERT_TRUE(Append(Batch(FirstThree(), 0)).ok());
  // Another replica stored seq 4 (blue activates) after those three; a
  // caller who saw it builds on version 4.
  v1::StoredEvent fourth;
  fourth.set_event_id("e4");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "seq: 4 turn: 1 clan: \"blue\" activation {}", fourth.mutable_event()));
  fourth.set_chain_hash(ChainHash(game_.head(), fourth.event()));
  journal_.stored.push_back(fourth);
  journal_.elsewhere.push_back(fourth);
  auto batch =
      Append(Batch(Ev(5, 1, "blue", "move { unit: \"blue-yumi\" }"), 4));
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(journal_.catch_ups, 1);
  EXPECT_EQ(batch->version_before, 4u);
  EXPECT_EQ(game_.version(), 5u);
  EXPECT_EQ(game_.event_ids.back(), "e5");
}

// The two windows of a retry sent at once through two replicas (issue 31).
// First: the other replica stores the batch after this one looked it up
// (step 1) and while this one, behind, catches up (step 2). Caught up, the
// game is past the batch's version; the batch is looked up again and
// answered, not refused as stale.
TEST_F(LiveGameTest, ABatchStoredElsewhereWhileCatchingUpIsAnsweredNotRefused) {
  ASSERT_TRUE(Append(Batch(FirstThree(), 0)).ok());
  // Stored through the other replica: seq 4, then the caller's seq 5.
  const v1::AppendEventsRequest fifth =
      Batch(Ev(5, 1, "blue", "move { unit: \"blue-yumi\" }"), 4);
  v1::StoredEvent fourth;
  fourth.set_event_id("e4");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "seq: 4 turn: 1 clan: \"blue\" activation {}", fourth.mutable_event()));
  fourth.set_chain_hash(ChainHash(game_.head(), fourth.event()));
  v1::StoredEvent stored_fifth;
  stored_fifth.set_event_id("e5");
  *stored_fifth.mutable_event() = fifth.events(0).event();
  stored_fifth.set_chain_hash(
      ChainHash(fourth.chain_hash(), stored_fifth.event()));
  for (const v1::StoredEvent& e : {fourth, stored_fifth}) {
    journal_.stored.push_back(e);
    journal_.elsewhere.push_back(e);
  }
  journal_.answers_on_catch_up["e5"] = "the other replica's answer";
  auto batch = Append(fifth);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_TRUE(batch->retried);
  EXPECT_EQ(batch->answer, "the other replica's answer");
  EXPECT_EQ(journal_.catch_ups, 1);
  EXPECT_EQ(journal_.stored.size(), 5u);  // nothing stored twice
  EXPECT_EQ(game_.version(), 5u);
  EXPECT_TRUE(game_.loaded);
}

// Second: the other replica stores it after this one checked the version
// and played the batch; the journal finds it stored under the game's lock
// and gives its answer. Nothing is stored twice, and the game (its engine
// played this copy) is to be loaded again.
TEST_F(LiveGameTest, ABatchStoredElsewhereFirstGetsThatAnswerFromTheJournal) {
  ASSERT_TRUE(Append(Batch(FirstThree(), 0)).ok());
  journal_.stored_first["e4"] = "the other replica's answer";
  auto batch = Append(Batch(Activation(4, 1, "blue"), 3));
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_TRUE(batch->retried);
  EXPECT_EQ(batch->answer, "the other replica's answer");
  EXPECT_EQ(journal_.stored.size(), 3u);
  EXPECT_FALSE(game_.loaded);
}

TEST_F(LiveGameTest, AnEndedGameTakesNothing) {
  game_.ended = true;
  auto batch = Append(Batch(FirstThree(), 0));
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(batch.status().message(), "the game has ended");
  EXPECT_TRUE(journal_.stored.empty());
  EXPECT_TRUE(game_.loaded);  // nothing was replayed
}

TEST_F(LiveGameTest, SeqsMustIncreaseFromTheGamesLast) {
  ASSERT_TRUE(Append(Batch(FirstThree(), 0)).ok());
  auto batch = Append(Batch(Activation(3, 1, "blue"), 3));
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(journal_.stored.size(), 3u);
  EXPECT_TRUE(game_.loaded);
}

TEST_F(LiveGameTest, ARefusedServerDiceBatchBurnsItsAttemptAndIsUndone) {
  settings_.set_policy(v1::APPEND_POLICY_STRICT);
  settings_.set_dice_mode(v1::DICE_MODE_SERVER);
  // The ghost's move breaks a rule: a strict game refuses the batch, after
  // the engine took its first events.
  auto batch = Append(Batch(FirstThree(), 0));
  EXPECT_FALSE(batch.ok());
  EXPECT_EQ(journal_.dice_attempts, 1u);  // taken before any die, and burnt
  EXPECT_TRUE(journal_.stored.empty());
  EXPECT_EQ(game_.version(), 0u);
  EXPECT_FALSE(game_.loaded);  // the undo: load the game again
}

TEST_F(LiveGameTest, AStoreThatFailsLeavesTheGameToBeLoadedAgain) {
  journal_.append_fails = absl::UnavailableError("disk gone");
  auto batch = Append(Batch(FirstThree(), 0));
  EXPECT_EQ(batch.status(), absl::UnavailableError("disk gone"));
  EXPECT_EQ(game_.version(), 0u);
  EXPECT_FALSE(game_.loaded);
}

TEST_F(LiveGameTest, ABatchWithGameEndMarksTheGameEnded) {
  settings_.set_policy(v1::APPEND_POLICY_RECORD);
  auto batch =
      Append(Batch(TurnStart(1, 1, "red") + Ev(2, 1, "", "game_end {}"), 0));
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_TRUE(batch->ended);
  EXPECT_TRUE(journal_.ended);
  EXPECT_TRUE(game_.ended);
  auto after = Append(Batch(Activation(3, 1, "red"), 2));
  EXPECT_EQ(after.status().message(), "the game has ended");
}

TEST_F(LiveGameTest, ANewGamesSettingsAreBoundToItsRuleset) {
  // Nothing asked: a strict game with recorded dice, bound to the built-in
  // ruleset's digest and to the chain's terms version 2 (replay/ledger.h).
  auto settings = NewGameSettings(v1::GameSettings(), ruleset_);
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->policy(), v1::APPEND_POLICY_STRICT);
  EXPECT_EQ(settings->dice_mode(), v1::DICE_MODE_RECORDED);
  EXPECT_EQ(settings->ruleset_digest(), ruleset_.digest);
  EXPECT_EQ(settings->chain_version(), 2u);
  // The digest asked for, in capitals, is the same digest.
  v1::GameSettings asked;
  asked.set_ruleset_digest(absl::AsciiStrToUpper(ruleset_.digest));
  asked.set_policy(v1::APPEND_POLICY_RECORD);
  settings = NewGameSettings(asked, ruleset_);
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->policy(), v1::APPEND_POLICY_RECORD);
  EXPECT_EQ(settings->ruleset_digest(), ruleset_.digest);
  // Another digest: refused, naming the setting.
  asked.set_ruleset_digest(std::string(64, 'a'));
  settings = NewGameSettings(asked, ruleset_);
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(settings.status().message()),
              ::testing::StartsWith("settings.ruleset_digest: the game asks "
                                    "for ruleset sha256:aaaa"));
}

TEST(PlayerSeeds, AreHexOfAtMost128Bytes) {
  google::protobuf::RepeatedPtrField<v1::PlayerSeed> seeds;
  seeds.Add()->set_seed_hex("00fF");                 // 2 bytes
  seeds.Add()->set_seed_hex(std::string(256, '7'));  // 128 bytes
  EXPECT_TRUE(CheckPlayerSeeds(seeds).ok());
  const std::vector<std::string> bad_seeds = {"abc", "zz",
                                              std::string(258, '7')};
  for (const std::string& bad : bad_seeds) {
    google::protobuf::RepeatedPtrField<v1::PlayerSeed> one;
    v1::PlayerSeed* seed = one.Add();
    seed->set_clan("red");
    seed->set_seed_hex(bad);
    EXPECT_EQ(CheckPlayerSeeds(one).message(),
              "player_seeds: the seed of clan \"red\" must be hex, at most "
              "128 bytes")
        << bad;
  }
}

TEST(ClanToList, APlayerListsItsOwnClanAndTheUmpireNamesOne) {
  // BaseLog's clans are red and blue.
  const v1::Header header = BaseLog().header();
  EXPECT_EQ(*ClanToList(header, "g", false, "red", ""), "red");
  EXPECT_EQ(*ClanToList(header, "g", false, "red", "red"), "red");
  EXPECT_EQ(ClanToList(header, "g", false, "red", "blue").status(),
            absl::PermissionDeniedError(
                "your credential is red's: ask for its actions (clan empty "
                "or \"red\"), not blue"));
  EXPECT_EQ(*ClanToList(header, "g", true, "", "blue"), "blue");
  EXPECT_EQ(ClanToList(header, "g", true, "", "").status(),
            absl::InvalidArgumentError(
                "the umpire names the clan whose actions to list: none given "
                "is not a clan of game g"));
  EXPECT_EQ(ClanToList(header, "g", true, "", "green").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gunbai::replay
