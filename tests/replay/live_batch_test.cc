// replay::PlayLiveBatch and CheckBatchSeqsIncrease, what gunbaid makes of an
// appended batch before it stores it, on BaseLog's order of battle
// (tests/replay/test_logs.h) under the built-in Daimyo ruleset. The chain
// hashes are checked against replay::ChainHash, itself checked against
// Python's hashlib in ledger_test.cc.
#include "replay/live_batch.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ledger.h"
#include "replay/server_dice.h"
#include "rules/battle_state.h"
#include "tests/replay/test_logs.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::testing::Activation;
using ::gunbai::testing::BaseLog;
using ::gunbai::testing::Ev;
using ::gunbai::testing::TurnStart;
using ::testing::HasSubstr;

// A batch of `events_text` (repeated `events`), event ids "e<seq>".
v1::AppendEventsRequest Batch(const std::string& events_text) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(events_text, &log));
  v1::AppendEventsRequest batch;
  for (const v1::Event& event : log.events()) {
    v1::AppendedEvent* appended = batch.add_events();
    appended->set_event_id("e" + std::to_string(event.seq()));
    *appended->mutable_event() = event;
  }
  return batch;
}

class LiveBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ruleset = BuiltinRuleset("daimyo");
    ASSERT_TRUE(ruleset.ok()) << ruleset.status();
    ruleset_ = *std::move(ruleset);
    auto engine = CreateEngine(BaseLog(), ruleset_, AuditOptions(),
                               rules::EngineOutput{&findings_, nullptr});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = *std::move(engine);
    game_.game_id = "g";
    game_.settings = &settings_;
    game_.ruleset = &ruleset_;
    game_.head = genesis_;
    game_.umpire = true;
  }

  LoadedRuleset ruleset_;
  v1::GameSettings settings_;
  const std::string genesis_ = GenesisHash();
  LiveBatchGame game_;
  google::protobuf::RepeatedPtrField<v1::Finding> findings_;
  std::unique_ptr<rules::Engine> engine_;
};

TEST_F(LiveBatchTest, EachEventIsChainedAndKeepsItsIdAndFindings) {
  // Turn 1 starts and red activates: nothing is wrong. Then red moves a
  // unit the order of battle does not have: a violation at seq 3 (which
  // rule the engine names is its tests' business; here only that it is
  // seq 3's).
  v1::AppendEventsRequest batch =
      Batch(TurnStart(1, 1, "red") + Activation(2, 1, "red") +
            Ev(3, 1, "red", "move { unit: \"ghost\" }"));
  const v1::AppendEventsRequest sent = batch;
  game_.dice_attempt = 7;
  auto stored = PlayLiveBatch(game_, batch, *engine_, findings_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 3u);
  std::string head = genesis_;
  for (int i = 0; i < 3; ++i) {
    const v1::StoredEvent& e = (*stored)[i];
    head = ChainHash(head, sent.events(i).event());
    EXPECT_EQ(e.chain_hash(), head) << i;
    EXPECT_EQ(e.event_id(), sent.events(i).event_id());
    EXPECT_EQ(e.dice_attempt(), 7u);
    EXPECT_EQ(e.event().SerializeAsString(),
              sent.events(i).event().SerializeAsString());
  }
  EXPECT_EQ((*stored)[0].findings_size(), 0);
  EXPECT_EQ((*stored)[1].findings_size(), 0);
  ASSERT_GE((*stored)[2].findings_size(), 1);
  for (const v1::Finding& f : (*stored)[2].findings()) {
    EXPECT_EQ(f.seq(), 3u) << f.rule_id();
  }
  EXPECT_EQ(findings_.size(), (*stored)[2].findings_size());
}

TEST_F(LiveBatchTest, APlayerAppendsOnlyItsClansEvents) {
  game_.umpire = false;
  game_.clan = "red";
  v1::AppendEventsRequest batch =
      Batch(Activation(2, 1, "red") + Activation(3, 1, "blue"));
  auto stored = PlayLiveBatch(game_, batch, *engine_, findings_);
  EXPECT_EQ(stored.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(stored.status().message(),
            "event e3: the player of red may append only events its clan "
            "acts in (clan: \"red\"); nothing was written");
}

TEST_F(LiveBatchTest, AStrictGameRefusesABatchThatBreaksARule) {
  settings_.set_policy(v1::APPEND_POLICY_STRICT);
  v1::AppendEventsRequest batch =
      Batch(TurnStart(1, 1, "red") + Activation(2, 1, "red") +
            Ev(3, 1, "red", "move { unit: \"ghost\" }"));
  v1::AppendEventsRequest again = batch;
  auto stored = PlayLiveBatch(game_, batch, *engine_, findings_);
  EXPECT_EQ(stored.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stored.status().message(),
              HasSubstr("the game is strict and the batch breaks the rules; "
                        "nothing was written:\nseq 3 SEVERITY_VIOLATION "));
  // The same batch in a record game, on a fresh engine, is stored,
  // findings and all.
  settings_.set_policy(v1::APPEND_POLICY_RECORD);
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  auto engine = CreateEngine(BaseLog(), ruleset_, AuditOptions(),
                             rules::EngineOutput{&findings, nullptr});
  ASSERT_TRUE(engine.ok()) << engine.status();
  stored = PlayLiveBatch(game_, again, **engine, findings);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->size(), 3u);
  EXPECT_GE((*stored)[2].findings_size(), 1);
}

// A turn_end of one clan, as its player sends it.
std::string ClanTurnEnd(int seq, int turn, const std::string& clan) {
  return Ev(seq, turn, clan, "turn_end {}");
}

TEST_F(LiveBatchTest, TheTurnEndsWhenEveryClanHasEndedIt) {
  v1::AppendEventsRequest start = Batch(TurnStart(1, 1, "red"));
  ASSERT_TRUE(PlayLiveBatch(game_, start, *engine_, findings_).ok());
  game_.umpire = false;
  game_.clan = "red";
  v1::AppendEventsRequest red =
      Batch(Activation(2, 1, "red") + ClanTurnEnd(3, 1, "red"));
  auto stored = PlayLiveBatch(game_, red, *engine_, findings_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  // Recorded dice: gunbaid adds nothing. Red has ended; blue has not.
  EXPECT_EQ(stored->size(), 2u);
  EXPECT_EQ(engine_->state().turn_ended_clans, 1u);
  EXPECT_NE(engine_->state().phase, rules::Phase::kTurnEnded);

  v1::AppendEventsRequest again = Batch(ClanTurnEnd(4, 1, "red"));
  auto refused = PlayLiveBatch(game_, again, *engine_, findings_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "event e4: red has already ended turn 1; the turn ends when blue "
            "end it too; nothing was written");
  v1::AppendEventsRequest move =
      Batch(Ev(4, 1, "red", "move { unit: \"red-teppo\" distance_mm: 10 }"));
  refused = PlayLiveBatch(game_, move, *engine_, findings_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("red has ended turn 1, and until blue end it too it "
                        "may append only what the end of the turn owes"));

  game_.clan = "blue";
  v1::AppendEventsRequest blue =
      Batch(Activation(4, 1, "blue") + ClanTurnEnd(5, 1, "blue"));
  stored = PlayLiveBatch(game_, blue, *engine_, findings_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->size(), 2u);
  EXPECT_EQ(engine_->state().phase, rules::Phase::kTurnEnded);
  EXPECT_EQ(findings_.size(), 0) << findings_[0].message();
}

// Issue 28: the other clan was offered its own activation in the middle of
// the active clan's, and sending it cut that activation short. A player's
// activation waits until the open one's clan has sent its turn_end; the
// umpire, who writes up games played at a table (activations one after
// the other, as an offline log has them), is not held to it.
TEST_F(LiveBatchTest, APlayersActivationWaitsForTheOpenOneToEnd) {
  v1::AppendEventsRequest start = Batch(TurnStart(1, 1, "red"));
  ASSERT_TRUE(PlayLiveBatch(game_, start, *engine_, findings_).ok());
  game_.umpire = false;
  game_.clan = "red";
  v1::AppendEventsRequest red = Batch(Activation(2, 1, "red"));
  ASSERT_TRUE(PlayLiveBatch(game_, red, *engine_, findings_).ok());
  game_.clan = "blue";
  v1::AppendEventsRequest early = Batch(Activation(3, 1, "blue"));
  auto refused = PlayLiveBatch(game_, early, *engine_, findings_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "event e3: red's activation is still open; blue begins its own "
            "after red ends its part of turn 1 (its turn_end); nothing was "
            "written");
  // The refusal left the engine as it was: red is still active.
  EXPECT_EQ(engine_->state().active_clan, 0);
  game_.clan = "red";
  v1::AppendEventsRequest red_ends = Batch(ClanTurnEnd(3, 1, "red"));
  ASSERT_TRUE(PlayLiveBatch(game_, red_ends, *engine_, findings_).ok());
  game_.clan = "blue";
  v1::AppendEventsRequest now = Batch(Activation(4, 1, "blue"));
  auto stored = PlayLiveBatch(game_, now, *engine_, findings_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(engine_->state().active_clan, 1);
  EXPECT_EQ(findings_.size(), 0) << findings_[0].message();
}

TEST_F(LiveBatchTest, ServerDiceStartTheNextTurnWhenTheLastClanEndsIt) {
  settings_.set_dice_mode(v1::DICE_MODE_SERVER);
  const std::string key(kDiceKeyBytes, '\x5a');
  game_.dice_key = key;
  game_.dice_attempt = 1;
  // Turn 1 as the umpire declares it: red has the initiative.
  v1::AppendEventsRequest start = Batch(TurnStart(1, 1, "red"));
  ASSERT_TRUE(PlayLiveBatch(game_, start, *engine_, findings_).ok());
  game_.umpire = false;
  game_.clan = "red";
  v1::AppendEventsRequest red =
      Batch(Activation(2, 1, "red") + ClanTurnEnd(3, 1, "red"));
  game_.dice_attempt = 2;
  ASSERT_TRUE(PlayLiveBatch(game_, red, *engine_, findings_).ok());
  game_.clan = "blue";
  v1::AppendEventsRequest blue =
      Batch(Activation(4, 1, "blue") + ClanTurnEnd(5, 1, "blue"));
  game_.dice_attempt = 3;
  auto stored = PlayLiveBatch(game_, blue, *engine_, findings_);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 3u);
  const v1::StoredEvent& next = (*stored)[2];
  EXPECT_EQ(next.event_id(), "gunbaid:turn_start:seq=6");
  EXPECT_EQ(next.event().seq(), 6u);
  EXPECT_EQ(next.event().turn(), 2u);
  EXPECT_EQ(next.event().clan(), "");
  EXPECT_EQ(next.dice_attempt(), 3u);
  EXPECT_EQ(next.chain_hash(),
            ChainHash((*stored)[1].chain_hash(), next.event()));
  // One die a clan, the batch's attempt, at the event's seq (DeriveDie is
  // checked against Python in server_dice's tests); the highest takes the
  // initiative, a tie the clan after red, last turn's: blue.
  const std::uint32_t red_die = DeriveDie(key, "g", 3, 6, 0);
  const std::uint32_t blue_die = DeriveDie(key, "g", 3, 6, 1);
  ASSERT_EQ(next.event().turn_start().initiative_dice_size(), 2);
  EXPECT_EQ(next.event().turn_start().initiative_dice(0), red_die);
  EXPECT_EQ(next.event().turn_start().initiative_dice(1), blue_die);
  EXPECT_EQ(next.event().turn_start().initiative_clan(),
            red_die > blue_die ? "red" : "blue");
  EXPECT_EQ(engine_->state().turn, 2);

  // A player names no initiative clan of its own in a server-dice game.
  v1::AppendEventsRequest chosen =
      Batch(Ev(7, 3, "blue", "turn_start { initiative_clan: \"blue\" }"));
  auto refused = PlayLiveBatch(game_, chosen, *engine_, findings_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(LiveBatchTest, AStrictRefusalCarriesItsFindingsAsAPayload) {
  settings_.set_policy(v1::APPEND_POLICY_STRICT);
  v1::AppendEventsRequest batch =
      Batch(TurnStart(1, 1, "red") + Activation(2, 1, "red") +
            Ev(3, 1, "red", "move { unit: \"ghost\" }"));
  auto stored = PlayLiveBatch(game_, batch, *engine_, findings_);
  ASSERT_EQ(stored.status().code(), absl::StatusCode::kFailedPrecondition);
  auto payload = stored.status().GetPayload(kAppendRefusalTypeUrl);
  ASSERT_TRUE(payload.has_value());
  v1::AppendRefusal refusal;
  ASSERT_TRUE(refusal.ParseFromString(std::string(*payload)));
  ASSERT_EQ(refusal.findings_size(), findings_.size());
  EXPECT_EQ(refusal.findings(0).seq(), 3u);
  EXPECT_EQ(refusal.findings(0).severity(), v1::SEVERITY_VIOLATION);
  EXPECT_EQ(refusal.findings_left_out(), 0u);
}

TEST(CheckBatchSeqsIncreaseTest, SeqsMustIncreaseFromTheGamesLast) {
  v1::AppendEventsRequest batch =
      Batch(Activation(5, 1, "red") + Activation(6, 1, "red"));
  EXPECT_TRUE(CheckBatchSeqsIncrease(batch, 4).ok());
  absl::Status s = CheckBatchSeqsIncrease(batch, 5);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "event e5: seq 5 does not follow seq 5, the event before it; "
            "seqs increase from 1 through the game; nothing was written");
  batch.mutable_events(1)->mutable_event()->set_seq(5);
  s = CheckBatchSeqsIncrease(batch, 0);
  EXPECT_THAT(s.message(), HasSubstr("event e6: seq 5 does not follow seq 5"));
}

}  // namespace
}  // namespace gunbai::replay
