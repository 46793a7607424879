// The stores' contract suite: the same tests of the GameStore interface
// run against SqliteGameStore (a real SQLite file in a fresh directory per
// test) and PostgresGameStore (a fresh database per test on a real
// PostgreSQL server this binary starts: tests/store/postgres_server.h): the
// game record, optimistic appends, retries, reads, paged reads, reopening,
// checkpoints and concurrent writers. Then each store's own tests: SQLite's
// file, WAL, locks and migrations; PostgreSQL's URI checks, schema, and
// two stores (two replicas) on one database.
#include "service/store/game_store.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "service/store/postgres_game_store.h"
#include "service/store/sqlite_game_store.h"
#include "service/store/store_migrate.h"
#include "tests/store/postgres_server.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Returns a new, empty directory for one test's database.
std::string FreshDataDir() {
  static std::atomic<int> counter{0};
  const ::testing::TestInfo* test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      absl::StrCat("game_store_", test->test_suite_name(), "_", test->name(),
                   "_", getpid(), "_", counter++);
  std::filesystem::remove_all(dir);
  return dir.string();
}

GameRecord MakeGame(const std::string& game_id) {
  GameRecord game;
  game.game_id = game_id;
  game.header.set_game_id(game_id);
  game.header.mutable_ruleset()->set_name("daimyo");
  game.header.set_event("test league, round 1");
  v1::Clan* oda = game.header.add_clans();
  oda->set_id("oda");
  oda->set_player("Nobunaga");
  game.header.add_clans()->set_id("takeda");
  v1::Unit* unit = game.order_of_battle.add_units();
  unit->set_id("oda-ash-1");
  unit->set_clan("oda");
  unit->set_stands(6);
  game.settings.set_policy(v1::APPEND_POLICY_STRICT);
  game.settings.set_dice_mode(v1::DICE_MODE_SERVER);
  game.dice.set_secret_sha256(std::string(64, 'a'));
  v1::PlayerSeed* seed = game.dice.add_player_seeds();
  seed->set_clan("oda");
  seed->set_seed_hex("beef");
  game.secret_hex = "5ec7e7";
  game.credential_hashes = {{"takeda", std::string(64, 't')},
                            {"oda", std::string(64, 'o')}};
  return game;
}

v1::StoredEvent MakeEvent(const std::string& event_id, uint64_t seq) {
  v1::StoredEvent stored;
  stored.set_event_id(event_id);
  stored.set_chain_hash(absl::StrCat("hash-of-", event_id));
  stored.mutable_event()->set_seq(seq);
  stored.mutable_event()->set_turn(1);
  stored.mutable_event()->set_clan("oda");
  stored.mutable_event()->mutable_turn_end();
  return stored;
}

// Returns events "<prefix>-<first_seq>"... with seqs first_seq...
std::vector<v1::StoredEvent> MakeEvents(const std::string& prefix,
                                        uint64_t first_seq, int count) {
  std::vector<v1::StoredEvent> events;
  for (int i = 0; i < count; ++i) {
    events.push_back(
        MakeEvent(absl::StrCat(prefix, "-", first_seq + i), first_seq + i));
  }
  return events;
}

std::vector<std::string> Ids(const std::vector<v1::StoredEvent>& events) {
  std::vector<std::string> ids;
  for (const v1::StoredEvent& event : events) ids.push_back(event.event_id());
  return ids;
}

enum class Backend { kSqlite, kPostgres };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

// The one PostgreSQL server of this test binary, started on first use and
// stopped at exit; each test has a database of its own on it.
std::unique_ptr<testing::PostgresServer>& TheServer() {
  static auto* server = new std::unique_ptr<testing::PostgresServer>();
  return *server;
}

testing::PostgresServer& Server() {
  if (TheServer() == nullptr) {
    auto started = testing::PostgresServer::Start();
    if (!started.ok()) {
      std::cerr << started.status() << "\n";
      std::abort();
    }
    TheServer() = *std::move(started);
  }
  return *TheServer();
}

// Stops the server when the tests are done.
class ServerStopper : public ::testing::Environment {
 public:
  void TearDown() override { TheServer().reset(); }
};
[[maybe_unused]] ::testing::Environment* const kServerStopper =
    ::testing::AddGlobalTestEnvironment(new ServerStopper);

// Opens a PostgresGameStore on `uri` with the test server's password.
absl::StatusOr<std::unique_ptr<PostgresGameStore>> OpenPostgres(
    const std::string& uri, int connections = 4) {
  PostgresGameStore::Options options;
  options.password = Server().password();
  options.connections = connections;
  return PostgresGameStore::Open(uri, options);
}

// A fresh database on the test server; returns its URI.
std::string FreshDatabase() {
  static std::atomic<int> counter{0};
  absl::StatusOr<std::string> uri =
      Server().CreateDatabase(absl::StrCat("t", getpid(), "_", counter++));
  EXPECT_TRUE(uri.ok()) << uri.status();
  return uri.value_or("");
}

class StoreTest : public ::testing::Test {
 protected:
  virtual Backend backend() const = 0;

  void SetUp() override {
    data_dir_ = FreshDataDir();
    if (backend() == Backend::kPostgres) uri_ = FreshDatabase();
    Reopen();
  }

  void TearDown() override {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir_, ignored);
  }

  // Closes the store and opens it again on the same directory or database.
  void Reopen() {
    store_.reset();
    if (backend() == Backend::kSqlite) {
      absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
          SqliteGameStore::Open(data_dir_);
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
    } else {
      absl::StatusOr<std::unique_ptr<PostgresGameStore>> store =
          OpenPostgres(uri_);
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
    }
  }

  void CreateGame(const std::string& game_id) {
    absl::Status status = store_->CreateGame(MakeGame(game_id));
    ASSERT_TRUE(status.ok()) << status;
  }

  void AppendOk(const std::string& game_id, uint64_t version,
                const std::vector<v1::StoredEvent>& events,
                const std::string& answer = "answer") {
    absl::StatusOr<AppendResult> result =
        store_->Append(game_id, version, events, answer);
    ASSERT_TRUE(result.ok()) << result.status();
  }

  uint64_t VersionOf(const std::string& game_id) {
    absl::StatusOr<uint64_t> version = store_->Version(game_id);
    EXPECT_TRUE(version.ok()) << version.status();
    return version.value_or(0);
  }

  std::vector<v1::StoredEvent> Read(const std::string& game_id,
                                    uint64_t from_seq = 0) {
    absl::StatusOr<std::vector<v1::StoredEvent>> events =
        store_->ReadEvents(game_id, from_seq);
    EXPECT_TRUE(events.ok()) << events.status();
    return events.value_or(std::vector<v1::StoredEvent>());
  }

  std::string data_dir_;
  std::string uri_;
  std::unique_ptr<GameStore> store_;
};

// The contract: every test runs on both stores.
class GameStoreContractTest : public StoreTest,
                              public ::testing::WithParamInterface<Backend> {
 protected:
  Backend backend() const override { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(Stores, GameStoreContractTest,
                         ::testing::Values(Backend::kSqlite,
                                           Backend::kPostgres),
                         BackendName);

// SQLite's own tests.
class SqliteGameStoreTest : public StoreTest {
 protected:
  Backend backend() const override { return Backend::kSqlite; }
};

void ExpectSameRecord(const GameRecord& got, const GameRecord& want) {
  EXPECT_EQ(got.game_id, want.game_id);
  EXPECT_TRUE(MessageDifferencer::Equals(got.header, want.header));
  EXPECT_TRUE(
      MessageDifferencer::Equals(got.order_of_battle, want.order_of_battle));
  EXPECT_TRUE(MessageDifferencer::Equals(got.settings, want.settings));
  EXPECT_TRUE(MessageDifferencer::Equals(got.dice, want.dice))
      << got.dice.DebugString();
  EXPECT_EQ(got.secret_hex, want.secret_hex);
  EXPECT_EQ(got.credential_hashes, want.credential_hashes);
  EXPECT_EQ(got.ended, want.ended);
}

TEST_F(SqliteGameStoreTest, CreatesTheFileInTheDataDirectory) {
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(data_dir_) /
                                      SqliteGameStore::kFileName));
}

TEST_P(GameStoreContractTest, CreatedGameReadsBackAndIsListed) {
  CreateGame("kawanakajima");
  CreateGame("anegawa");
  absl::StatusOr<GameRecord> game = store_->GetGame("kawanakajima");
  ASSERT_TRUE(game.ok()) << game.status();
  ExpectSameRecord(*game, MakeGame("kawanakajima"));
  absl::StatusOr<std::vector<std::string>> ids = store_->ListGames();
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_THAT(*ids, ElementsAre("anegawa", "kawanakajima"));
  EXPECT_EQ(VersionOf("anegawa"), 0u);
  EXPECT_TRUE(Read("anegawa").empty());
}

TEST_P(GameStoreContractTest, UnknownGameIsNotFoundEverywhere) {
  CreateGame("anegawa");
  const absl::StatusCode kNotFound = absl::StatusCode::kNotFound;
  EXPECT_EQ(store_->GetGame("nagashino").status().code(), kNotFound);
  EXPECT_EQ(store_->Version("nagashino").status().code(), kNotFound);
  EXPECT_EQ(store_->ReadEvents("nagashino", 0).status().code(), kNotFound);
  EXPECT_EQ(store_->FindBatch("nagashino", "e-1").status().code(), kNotFound);
  EXPECT_EQ(store_->MarkEnded("nagashino").code(), kNotFound);
  EXPECT_EQ(store_->NextDiceAttempt("nagashino").status().code(), kNotFound);
  EXPECT_EQ(store_->Append("nagashino", 0, MakeEvents("e", 1, 1), "a")
                .status()
                .code(),
            kNotFound);
}

TEST_P(GameStoreContractTest, CreatingATakenIdIsAlreadyExistsAndKeepsTheFirst) {
  CreateGame("anegawa");
  GameRecord second = MakeGame("anegawa");
  second.secret_hex = "0ther";
  second.credential_hashes = {{"mori", "m"}};
  absl::Status status = store_->CreateGame(second);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  absl::StatusOr<GameRecord> game = store_->GetGame("anegawa");
  ASSERT_TRUE(game.ok()) << game.status();
  ExpectSameRecord(*game, MakeGame("anegawa"));
}

TEST_P(GameStoreContractTest, CreateRefusesAnEmptyIdOrAClanWithTwoCredentials) {
  EXPECT_EQ(store_->CreateGame(MakeGame("")).code(),
            absl::StatusCode::kInvalidArgument);
  GameRecord game = MakeGame("anegawa");
  game.credential_hashes.push_back({"oda", "again"});
  EXPECT_EQ(store_->CreateGame(game).code(),
            absl::StatusCode::kInvalidArgument);
  // Nothing of the refused game was written.
  EXPECT_EQ(store_->GetGame("anegawa").status().code(),
            absl::StatusCode::kNotFound);
  CreateGame("anegawa");
}

TEST_P(GameStoreContractTest, AppendAtTheRightVersionStoresTheBatch) {
  CreateGame("anegawa");
  const std::vector<v1::StoredEvent> batch = MakeEvents("e", 1, 3);
  absl::StatusOr<AppendResult> result =
      store_->Append("anegawa", 0, batch, "first answer");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->version, 3u);
  EXPECT_EQ(result->head_hash, "hash-of-e-3");
  auto answer = store_->FindBatch("anegawa", "e-1");
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->value_or("none"), "first answer");

  result = store_->Append("anegawa", 3, MakeEvents("e", 4, 2), "second");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->version, 5u);
  EXPECT_EQ(VersionOf("anegawa"), 5u);
  const std::vector<v1::StoredEvent> events = Read("anegawa");
  EXPECT_THAT(Ids(events), ElementsAre("e-1", "e-2", "e-3", "e-4", "e-5"));
  EXPECT_TRUE(MessageDifferencer::Equals(events[0], batch[0]));
}

TEST_P(GameStoreContractTest, StaleVersionIsRefusedWithTheCurrentVersion) {
  CreateGame("anegawa");
  AppendOk("anegawa", 0, MakeEvents("e", 1, 5));
  absl::StatusOr<AppendResult> result =
      store_->Append("anegawa", 3, MakeEvents("late", 4, 2), "late answer");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(result.status().message(),
              HasSubstr("stale version 3: the game has 5 events; read from "
                        "seq 4 and retry"));
  // Nothing of the refused batch was written.
  EXPECT_EQ(VersionOf("anegawa"), 5u);
  EXPECT_EQ(*store_->FindBatch("anegawa", "late-4"), std::nullopt);
  EXPECT_THAT(Ids(Read("anegawa", 4)), ElementsAre("e-4", "e-5"));

  result = store_->Append("anegawa", 7, MakeEvents("ahead", 8, 1), "x");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(result.status().message(), HasSubstr("has 5 events"));
  EXPECT_EQ(VersionOf("anegawa"), 5u);

  // The largest versions a client can send are answered alike (int64 max
  // plus one once overflowed: the rpc fuzzer's input).
  for (const uint64_t far : {uint64_t{INT64_MAX}, UINT64_MAX}) {
    result = store_->Append("anegawa", far, MakeEvents("far", 9, 1), "x");
    EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
    EXPECT_THAT(result.status().message(),
                HasSubstr(absl::StrCat("version ", far,
                                       " is ahead of the game: it has 5")));
  }
  EXPECT_EQ(VersionOf("anegawa"), 5u);
}

TEST_P(GameStoreContractTest, FindBatchReturnsTheStoredAnswerOfARetry) {
  CreateGame("anegawa");
  const std::vector<v1::StoredEvent> batch = MakeEvents("e", 1, 2);
  AppendOk("anegawa", 0, batch, "the answer");
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<std::optional<std::string>> answer =
        store_->FindBatch("anegawa", "e-1");
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(*answer, "the answer");
  }
  // Only a batch's first event id finds it.
  EXPECT_EQ(*store_->FindBatch("anegawa", "e-2"), std::nullopt);
  EXPECT_EQ(*store_->FindBatch("anegawa", "never-sent"), std::nullopt);
  // A whole retry that reaches Append (sent at once with its first copy,
  // it missed FindBatch) writes nothing twice and gets the first answer:
  // the batch is looked up again under the game's lock before a refusal.
  absl::StatusOr<AppendResult> retry =
      store_->Append("anegawa", 0, batch, "another answer");
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->stored_answer, "the answer");
  EXPECT_EQ(VersionOf("anegawa"), 2u);
  EXPECT_EQ(*store_->FindBatch("anegawa", "e-1"), "the answer");
}

TEST_P(GameStoreContractTest, PartialRetryIsAlreadyExistsAndWritesNothing) {
  CreateGame("anegawa");
  AppendOk("anegawa", 0, {MakeEvent("a", 1), MakeEvent("b", 2)});
  absl::StatusOr<AppendResult> result = store_->Append(
      "anegawa", 2, {MakeEvent("b", 3), MakeEvent("c", 4)}, "partial");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(result.status().message(), HasSubstr("\"b\""));
  // The same when the stored id comes later in the batch, and when the
  // version is stale too.
  result = store_->Append("anegawa", 0, {MakeEvent("c", 3), MakeEvent("a", 4)},
                          "partial");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(VersionOf("anegawa"), 2u);
  EXPECT_THAT(Ids(Read("anegawa")), ElementsAre("a", "b"));
  EXPECT_EQ(*store_->FindBatch("anegawa", "c"), std::nullopt);
  // The same event id in another game is no retry.
  CreateGame("nagashino");
  AppendOk("nagashino", 0, {MakeEvent("a", 1)});
}

TEST_P(GameStoreContractTest, ReadsFromASeq) {
  CreateGame("anegawa");
  AppendOk("anegawa", 0, MakeEvents("e", 1, 3));
  AppendOk("anegawa", 3, MakeEvents("e", 4, 2));
  EXPECT_THAT(Ids(Read("anegawa", 0)),
              ElementsAre("e-1", "e-2", "e-3", "e-4", "e-5"));
  EXPECT_THAT(Ids(Read("anegawa", 1)),
              ElementsAre("e-1", "e-2", "e-3", "e-4", "e-5"));
  EXPECT_THAT(Ids(Read("anegawa", 3)), ElementsAre("e-3", "e-4", "e-5"));
  EXPECT_THAT(Ids(Read("anegawa", 5)), ElementsAre("e-5"));
  EXPECT_TRUE(Read("anegawa", 6).empty());
  EXPECT_TRUE(Read("anegawa", std::numeric_limits<uint64_t>::max()).empty());
}

TEST_P(GameStoreContractTest, RefusesBatchesOverTheBounds) {
  CreateGame("anegawa");
  const absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(store_->Append("anegawa", 0, {}, "").status().code(), kInvalid);
  EXPECT_EQ(store_
                ->Append("anegawa", 0,
                         MakeEvents("e", 1, GameStore::kMaxBatchEvents + 1), "")
                .status()
                .code(),
            kInvalid);
  v1::StoredEvent huge = MakeEvent("huge", 1);
  huge.mutable_event()->set_clan(
      std::string(GameStore::kMaxStoredEventBytes, 'x'));
  EXPECT_EQ(store_->Append("anegawa", 0, {huge}, "").status().code(), kInvalid);
  EXPECT_EQ(
      store_->Append("anegawa", 0, {MakeEvent("a", 1), MakeEvent("a", 2)}, "")
          .status()
          .code(),
      kInvalid);
  v1::StoredEvent unchained = MakeEvent("a", 1);
  unchained.clear_chain_hash();
  EXPECT_EQ(store_->Append("anegawa", 0, {unchained}, "").status().code(),
            kInvalid);
  EXPECT_EQ(VersionOf("anegawa"), 0u);
  // The largest batch is accepted.
  AppendOk("anegawa", 0, MakeEvents("e", 1, GameStore::kMaxBatchEvents));
  EXPECT_EQ(VersionOf("anegawa"), GameStore::kMaxBatchEvents);
}

TEST_P(GameStoreContractTest, MarkEndedRevealsTheSecret) {
  CreateGame("anegawa");
  absl::StatusOr<GameRecord> game = store_->GetGame("anegawa");
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_FALSE(game->ended);
  EXPECT_EQ(game->dice.revealed_secret(), "");
  ASSERT_TRUE(store_->MarkEnded("anegawa").ok());
  ASSERT_TRUE(store_->MarkEnded("anegawa").ok());  // Again: no change.
  game = store_->GetGame("anegawa");
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_TRUE(game->ended);
  EXPECT_EQ(game->dice.revealed_secret(), "5ec7e7");
  EXPECT_EQ(game->secret_hex, "5ec7e7");
}

TEST_P(GameStoreContractTest, DiceAttemptsCountPerGameAndSurviveReopening) {
  CreateGame("anegawa");
  CreateGame("nagashino");
  EXPECT_EQ(*store_->NextDiceAttempt("anegawa"), 1u);
  EXPECT_EQ(*store_->NextDiceAttempt("anegawa"), 2u);
  EXPECT_EQ(*store_->NextDiceAttempt("nagashino"), 1u);
  Reopen();
  EXPECT_EQ(*store_->NextDiceAttempt("anegawa"), 3u);
  EXPECT_EQ(store_->NextDiceAttempt("kawanakajima").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_P(GameStoreContractTest, ReopenedStoreHoldsEverything) {
  CreateGame("anegawa");
  CreateGame("nagashino");
  AppendOk("anegawa", 0, MakeEvents("e", 1, 3), "answer one");
  AppendOk("anegawa", 3, MakeEvents("e", 4, 1), "answer two");
  ASSERT_TRUE(store_->MarkEnded("nagashino").ok());
  Reopen();

  EXPECT_THAT(*store_->ListGames(), ElementsAre("anegawa", "nagashino"));
  absl::StatusOr<GameRecord> game = store_->GetGame("anegawa");
  ASSERT_TRUE(game.ok()) << game.status();
  ExpectSameRecord(*game, MakeGame("anegawa"));
  EXPECT_TRUE(store_->GetGame("nagashino")->ended);
  EXPECT_EQ(VersionOf("anegawa"), 4u);
  EXPECT_THAT(Ids(Read("anegawa")), ElementsAre("e-1", "e-2", "e-3", "e-4"));
  EXPECT_EQ(*store_->FindBatch("anegawa", "e-4"), "answer two");
  AppendOk("anegawa", 4, MakeEvents("e", 5, 1));
  EXPECT_EQ(VersionOf("anegawa"), 5u);
}

TEST_P(GameStoreContractTest, ConcurrentWritersStoreEveryEventOnceInOrder) {
  CreateGame("anegawa");
  constexpr int kThreads = 4;
  constexpr int kEventsPerThread = 40;
  std::atomic<int> errors{0};
  std::atomic<int> stale{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEventsPerThread; ++i) {
        while (true) {
          absl::StatusOr<uint64_t> version = store_->Version("anegawa");
          if (!version.ok()) {
            ++errors;
            return;
          }
          // Each writer builds its event on the version it read.
          absl::StatusOr<AppendResult> result = store_->Append(
              "anegawa", *version,
              {MakeEvent(absl::StrCat("t", t, "-", i), *version + 1)}, "a");
          if (result.ok()) break;
          if (result.status().code() != absl::StatusCode::kAborted) {
            ++errors;
            return;
          }
          ++stale;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(errors, 0);
  const std::vector<v1::StoredEvent> events = Read("anegawa");
  ASSERT_EQ(events.size(), size_t{kThreads * kEventsPerThread});
  absl::flat_hash_set<std::string> ids;
  for (size_t i = 0; i < events.size(); ++i) {
    // Built on version i, so its seq is its position i + 1.
    EXPECT_EQ(events[i].event().seq(), i + 1);
    EXPECT_TRUE(ids.insert(events[i].event_id()).second)
        << events[i].event_id();
  }
  EXPECT_EQ(VersionOf("anegawa"), events.size());
  ::testing::Test::RecordProperty("stale_retries", stale.load());
}

TEST_P(GameStoreContractTest, ConcurrentDiceAttemptsAreNeverHandedOutTwice) {
  CreateGame("anegawa");
  constexpr int kThreads = 4;
  constexpr int kAttemptsPerThread = 25;
  std::vector<std::vector<uint64_t>> taken(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAttemptsPerThread; ++i) {
        absl::StatusOr<uint64_t> attempt = store_->NextDiceAttempt("anegawa");
        taken[t].push_back(attempt.value_or(0));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  absl::flat_hash_set<uint64_t> attempts;
  for (const std::vector<uint64_t>& mine : taken) {
    for (uint64_t attempt : mine) {
      EXPECT_GE(attempt, 1u);
      EXPECT_LE(attempt, uint64_t{kThreads * kAttemptsPerThread});
      EXPECT_TRUE(attempts.insert(attempt).second) << attempt;
    }
  }
  EXPECT_EQ(attempts.size(), size_t{kThreads * kAttemptsPerThread});
}

// Opens a second, raw connection to the store's file.
sqlite3* OpenRaw(const std::string& data_dir) {
  sqlite3* db = nullptr;
  const std::string path =
      (std::filesystem::path(data_dir) / SqliteGameStore::kFileName).string();
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  return db;
}

TEST_F(SqliteGameStoreTest, UsesTheWriteAheadLog) {
  sqlite3* raw = OpenRaw(data_dir_);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(
      std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))),
      "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
}

TEST_F(SqliteGameStoreTest, AnotherProcessesWriteLockIsUnavailable) {
  CreateGame("anegawa");
  store_.reset();
  SqliteGameStore::Options options;
  options.busy_timeout = absl::Milliseconds(50);
  absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
      SqliteGameStore::Open(data_dir_, options);
  ASSERT_TRUE(store.ok()) << store.status();
  sqlite3* raw = OpenRaw(data_dir_);
  ASSERT_EQ(sqlite3_exec(raw, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  absl::StatusOr<AppendResult> result =
      (*store)->Append("anegawa", 0, MakeEvents("e", 1, 1), "a");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable)
      << result.status();
  // Reads go on meanwhile.
  EXPECT_EQ(*(*store)->Version("anegawa"), 0u);
  ASSERT_EQ(sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  result = (*store)->Append("anegawa", 0, MakeEvents("e", 1, 1), "a");
  EXPECT_TRUE(result.ok()) << result.status();
}

TEST_F(SqliteGameStoreTest, MigratesASchemaVersionOneDatabase) {
  CreateGame("anegawa");
  AppendOk("anegawa", 0, MakeEvents("e", 1, 2));
  store_.reset();
  // Turn the file back into schema 1, which had no dice attempts, no
  // checkpoints and no tables (a game's field).
  sqlite3* raw = OpenRaw(data_dir_);
  ASSERT_EQ(sqlite3_exec(raw,
                         "DROP TABLE checkpoints; "
                         "DROP TABLE witness_keys; DROP TABLE cosignatures; "
                         "ALTER TABLE games DROP COLUMN dice_attempts; "
                         "ALTER TABLE games DROP COLUMN field; "
                         "PRAGMA user_version=1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  Reopen();
  EXPECT_EQ(*store_->NextDiceAttempt("anegawa"), 1u);
  EXPECT_THAT(Ids(Read("anegawa")), ElementsAre("e-1", "e-2"));
  // A game stored before tables has none.
  absl::StatusOr<GameRecord> game = store_->GetGame("anegawa");
  ASSERT_TRUE(game.ok()) << game.status();
  EXPECT_FALSE(game->field.has_table());
  raw = OpenRaw(data_dir_);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 5);
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
  // Schema 5's tables work on the migrated file.
  EXPECT_TRUE(store_->RegisterWitnessKey("anegawa", "oda", "k+1+x").ok());
  EXPECT_THAT(
      store_->ReadWitnesses("anegawa")->keys,
      ElementsAre(std::make_pair(std::string("oda"), std::string("k+1+x"))));
}

StoredCheckpoint MakeCheckpoint(uint64_t after_version, std::string state) {
  StoredCheckpoint c;
  c.after_version = after_version;
  c.after_seq = after_version;
  c.head_hash = absl::StrCat("hash-", after_version);
  c.ruleset_digest = "rules-a";
  c.format = 1;
  c.state = std::move(state);
  c.findings = std::string("\0findings\xff", 10);
  c.sha256 = "digest";
  return c;
}

// The fields a checkpoint is written with, as one string to compare.
std::string Fields(const StoredCheckpoint& c) {
  return absl::StrCat(c.after_version, "|", c.after_seq, "|", c.head_hash, "|",
                      c.ruleset_digest, "|", c.format, "|", c.state, "|",
                      c.findings, "|", c.sha256);
}

TEST_P(GameStoreContractTest, CheckpointsReadBackTheLatestOfTheirRuleset) {
  CreateGame("anegawa");
  auto none = store_->LatestCheckpoint("anegawa", "rules-a", 1);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(
      store_->WriteCheckpoint("anegawa", MakeCheckpoint(10, "ten")).ok());
  const StoredCheckpoint twenty = MakeCheckpoint(20, std::string("2\0", 2));
  ASSERT_TRUE(store_->WriteCheckpoint("anegawa", twenty).ok());
  Reopen();
  auto latest = store_->LatestCheckpoint("anegawa", "rules-a", 1);
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ(Fields(**latest), Fields(twenty));
  // Another ruleset or format has none.
  EXPECT_FALSE(store_->LatestCheckpoint("anegawa", "rules-b", 1)->has_value());
  EXPECT_FALSE(store_->LatestCheckpoint("anegawa", "rules-a", 2)->has_value());
  // Only the newest is kept: the one after 10 events went.
  if (backend() == Backend::kPostgres) {
    PGconn* conn = PQconnectdb(
        absl::StrCat(uri_, "?password=", Server().password()).c_str());
    PGresult* count = PQexec(conn, "SELECT COUNT(*) FROM checkpoints");
    ASSERT_EQ(PQresultStatus(count), PGRES_TUPLES_OK) << PQerrorMessage(conn);
    EXPECT_EQ(std::string(PQgetvalue(count, 0, 0)), "1");
    PQclear(count);
    PQfinish(conn);
    return;
  }
  sqlite3* raw = OpenRaw(data_dir_);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT COUNT(*) FROM checkpoints", -1,
                               &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 1);
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
}

// The players' checkpoint keys and cosignatures (issue 34): a key is
// registered once (the same again is OK, another is ALREADY_EXISTS), a
// cosignature stored once per clan and tree size (the first kept), and
// both read back in clan and size order after the store is reopened.
TEST_P(GameStoreContractTest, WitnessKeysAndCosignaturesAreKept) {
  CreateGame("anegawa");
  auto none = store_->ReadWitnesses("anegawa");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->keys.empty());
  EXPECT_TRUE(none->cosignatures.empty());
  ASSERT_TRUE(store_->RegisterWitnessKey("anegawa", "oda", "oda+01+AQ").ok());
  ASSERT_TRUE(store_->RegisterWitnessKey("anegawa", "asai", "asai+02+AQ").ok());
  EXPECT_TRUE(store_->RegisterWitnessKey("anegawa", "oda", "oda+01+AQ").ok());
  EXPECT_EQ(store_->RegisterWitnessKey("anegawa", "oda", "oda+03+AQ").code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(
      store_->AddCosignature("anegawa", {"oda", 8, "\u2014 oda c2ln"}).ok());
  ASSERT_TRUE(
      store_->AddCosignature("anegawa", {"asai", 8, "\u2014 asai c2ln"}).ok());
  ASSERT_TRUE(
      store_->AddCosignature("anegawa", {"oda", 3, "\u2014 oda early"}).ok());
  EXPECT_TRUE(
      store_->AddCosignature("anegawa", {"oda", 8, "\u2014 oda other"}).ok());
  EXPECT_EQ(store_->AddCosignature("anegawa", {"", 8, "x"}).code(),
            absl::StatusCode::kInvalidArgument);
  Reopen();
  auto read = store_->ReadWitnesses("anegawa");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_THAT(
      read->keys,
      ElementsAre(
          std::make_pair(std::string("asai"), std::string("asai+02+AQ")),
          std::make_pair(std::string("oda"), std::string("oda+01+AQ"))));
  std::vector<std::string> lines;
  for (const StoredCosignature& c : read->cosignatures) {
    lines.push_back(
        absl::StrCat(c.tree_size, " ", c.clan, " ", c.signature_line));
  }
  EXPECT_THAT(lines,
              ElementsAre("3 oda \u2014 oda early", "8 asai \u2014 asai c2ln",
                          "8 oda \u2014 oda c2ln"));
  EXPECT_EQ(store_->ReadWitnesses("nagashino").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->RegisterWitnessKey("nagashino", "oda", "k").code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->AddCosignature("nagashino", {"oda", 1, "x"}).code(),
            absl::StatusCode::kNotFound);
}

// gunbai store migrate copies the players' keys and cosignatures with the
// game (into a SQLite directory here), verifies them, and a second run
// copies nothing twice.
TEST_P(GameStoreContractTest, MigrationCopiesKeysAndCosignatures) {
  CreateGame("anegawa");
  ASSERT_TRUE(store_->RegisterWitnessKey("anegawa", "oda", "oda+01+AQ").ok());
  ASSERT_TRUE(store_->AddCosignature("anegawa", {"oda", 8, "line-8"}).ok());
  const std::string target_dir = FreshDataDir();
  absl::StatusOr<std::unique_ptr<SqliteGameStore>> target =
      SqliteGameStore::Open(target_dir);
  ASSERT_TRUE(target.ok()) << target.status();
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<MigrationTotals> totals =
        MigrateGames(*store_, **target, nullptr);
    ASSERT_TRUE(totals.ok()) << totals.status();
  }
  auto copied = (*target)->ReadWitnesses("anegawa");
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_THAT(copied->keys, ElementsAre(std::make_pair(
                                std::string("oda"), std::string("oda+01+AQ"))));
  ASSERT_EQ(copied->cosignatures.size(), 1u);
  EXPECT_EQ(copied->cosignatures[0].signature_line, "line-8");
  EXPECT_EQ(copied->cosignatures[0].tree_size, 8u);
  target->reset();
  std::error_code ignored;
  std::filesystem::remove_all(target_dir, ignored);
}

TEST_P(GameStoreContractTest, CheckpointOfAnUnknownGameIsNotFound) {
  EXPECT_EQ(store_->WriteCheckpoint("nagashino", MakeCheckpoint(1, "x")).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->LatestCheckpoint("nagashino", "rules-a", 1).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SqliteGameStoreTest, MigratesASchemaVersionTwoDatabase) {
  CreateGame("anegawa");
  AppendOk("anegawa", 0, MakeEvents("e", 1, 2));
  store_.reset();
  // Turn the file back into schema 2, which had no checkpoints, no tables
  // and no witnesses.
  sqlite3* raw = OpenRaw(data_dir_);
  ASSERT_EQ(sqlite3_exec(raw,
                         "DROP TABLE checkpoints; ALTER TABLE games DROP "
                         "COLUMN field; DROP TABLE witness_keys; DROP TABLE "
                         "cosignatures; PRAGMA user_version=2",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  Reopen();
  EXPECT_THAT(Ids(Read("anegawa")), ElementsAre("e-1", "e-2"));
  EXPECT_TRUE(store_->WriteCheckpoint("anegawa", MakeCheckpoint(2, "s")).ok());
  EXPECT_TRUE(store_->LatestCheckpoint("anegawa", "rules-a", 1)->has_value());
}

// Schema 3 had no tables (nor witnesses): migrated, its games have none,
// and a game created after keeps its table and terrain.
TEST_F(SqliteGameStoreTest, MigratesASchemaVersionThreeDatabaseAndKeepsTables) {
  CreateGame("anegawa");
  store_.reset();
  sqlite3* raw = OpenRaw(data_dir_);
  ASSERT_EQ(sqlite3_exec(raw,
                         "ALTER TABLE games DROP COLUMN field; "
                         "DROP TABLE witness_keys; DROP TABLE cosignatures; "
                         "PRAGMA user_version=3",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  Reopen();
  absl::StatusOr<GameRecord> old = store_->GetGame("anegawa");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(old->field.has_table());
  GameRecord table = MakeGame("on-a-table");
  table.field.mutable_table()->set_width_mm(1800);
  table.field.mutable_table()->set_depth_mm(1200);
  table.field.add_terrain()->set_id("wood");
  ASSERT_TRUE(store_->CreateGame(table).ok());
  Reopen();
  absl::StatusOr<GameRecord> read = store_->GetGame("on-a-table");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->field.table().width_mm(), 1800u);
  ASSERT_EQ(read->field.terrain_size(), 1);
  EXPECT_EQ(read->field.terrain(0).id(), "wood");
}

TEST_F(SqliteGameStoreTest, RefusesADatabaseFromANewerSchema) {
  store_.reset();
  sqlite3* raw = OpenRaw(data_dir_);
  ASSERT_EQ(
      sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(raw);
  absl::StatusOr<std::unique_ptr<SqliteGameStore>> store =
      SqliteGameStore::Open(data_dir_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition)
      << store.status();
}

}  // namespace
}  // namespace gunbai::service

namespace gunbai::service {
namespace {

TEST_P(GameStoreContractTest, ListsGamesInBytewiseOrder) {
  // Bytewise: 'B' (0x42) < '_' (0x5f) < 'a' (0x61) < 'b'; a locale's
  // collation would put "a" or "_" first.
  for (const char* id : {"b", "_x", "a", "B"}) CreateGame(id);
  EXPECT_THAT(*store_->ListGames(), ElementsAre("B", "_x", "a", "b"));
}

TEST_P(GameStoreContractTest, PagesHoldWhatFitsAndAtLeastOneEvent) {
  CreateGame("anegawa");
  const std::vector<v1::StoredEvent> events = MakeEvents("e", 1, 5);
  AppendOk("anegawa", 0, events);
  // The sizes the store measures are the events' serialized sizes.
  const size_t two = events[0].ByteSizeLong() + events[1].ByteSizeLong();
  auto page = store_->ReadEventPage("anegawa", 0, two);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Ids(page->events), ElementsAre("e-1", "e-2"));
  EXPECT_EQ(page->next_seq, 3u);
  // One byte short of two events: one.
  page = store_->ReadEventPage("anegawa", 0, two - 1);
  EXPECT_THAT(Ids(page->events), ElementsAre("e-1"));
  EXPECT_EQ(page->next_seq, 2u);
  // Always at least one, however small the page.
  page = store_->ReadEventPage("anegawa", 4, 1);
  EXPECT_THAT(Ids(page->events), ElementsAre("e-4"));
  EXPECT_EQ(page->next_seq, 5u);
  // Reaching the last event: next_seq 0.
  page = store_->ReadEventPage("anegawa", 4, 1 << 20);
  EXPECT_THAT(Ids(page->events), ElementsAre("e-4", "e-5"));
  EXPECT_EQ(page->next_seq, 0u);
  // Past the end, and a seq over any storable one: empty.
  EXPECT_TRUE(store_->ReadEventPage("anegawa", 6, 1 << 20)->events.empty());
  EXPECT_TRUE(
      store_->ReadEventPage("anegawa", ~uint64_t{0}, 1 << 20)->events.empty());
  EXPECT_EQ(store_->ReadEventPage("nagashino", 0, 1).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_P(GameStoreContractTest, LongGamesReadWholeAcrossPagesOfRows) {
  // More events than one query of rows (PostgreSQL reads 64 at a time), in
  // batches of several sizes; seqs with gaps, as a game's may have.
  CreateGame("anegawa");
  uint64_t version = 0;
  uint64_t seq = 0;
  std::vector<std::string> want;
  for (int batch : {1, 63, 64, 65, 200}) {
    std::vector<v1::StoredEvent> events;
    for (int i = 0; i < batch; ++i) {
      seq += 1 + (seq % 3 == 0 ? 1 : 0);
      events.push_back(MakeEvent(absl::StrCat("e", seq), seq));
      want.push_back(absl::StrCat("e", seq));
    }
    AppendOk("anegawa", version, events);
    version += batch;
  }
  EXPECT_EQ(VersionOf("anegawa"), version);
  EXPECT_EQ(Ids(Read("anegawa")), want);
  // From the 100th event's seq: the last ones.
  const std::vector<v1::StoredEvent> all = Read("anegawa");
  const std::vector<v1::StoredEvent> tail =
      Read("anegawa", all[99].event().seq());
  ASSERT_EQ(tail.size(), all.size() - 99);
  EXPECT_EQ(tail.front().event_id(), all[99].event_id());
}

TEST_P(GameStoreContractTest, BatchesAndDiceAttemptsReadBackForACopy) {
  CreateGame("anegawa");
  AppendOk("anegawa", 0, MakeEvents("e", 1, 3), "answer one");
  AppendOk("anegawa", 3, MakeEvents("e", 4, 1), std::string("two\0!", 5));
  auto batches = store_->ReadBatches("anegawa");
  ASSERT_TRUE(batches.ok()) << batches.status();
  ASSERT_EQ(batches->size(), 2u);
  EXPECT_EQ((*batches)[0].first_event_id, "e-1");
  EXPECT_EQ((*batches)[0].answer, "answer one");
  EXPECT_EQ((*batches)[1].first_event_id, "e-4");
  EXPECT_EQ((*batches)[1].answer, std::string("two\0!", 5));
  EXPECT_EQ(*store_->DiceAttempts("anegawa"), 0u);
  EXPECT_EQ(*store_->NextDiceAttempt("anegawa"), 1u);
  EXPECT_EQ(*store_->DiceAttempts("anegawa"), 1u);
  // Raised to 7: the next is 8; raising to less changes nothing.
  ASSERT_TRUE(store_->RaiseDiceAttempts("anegawa", 7).ok());
  ASSERT_TRUE(store_->RaiseDiceAttempts("anegawa", 3).ok());
  EXPECT_EQ(*store_->DiceAttempts("anegawa"), 7u);
  EXPECT_EQ(*store_->NextDiceAttempt("anegawa"), 8u);
  const absl::StatusCode kNotFound = absl::StatusCode::kNotFound;
  EXPECT_EQ(store_->ReadBatches("nagashino").status().code(), kNotFound);
  EXPECT_EQ(store_->DiceAttempts("nagashino").status().code(), kNotFound);
  EXPECT_EQ(store_->RaiseDiceAttempts("nagashino", 1).code(), kNotFound);
}

// PostgreSQL's own tests.
class PostgresGameStoreTest : public StoreTest {
 protected:
  Backend backend() const override { return Backend::kPostgres; }

  // Runs `sql` on the test database over a connection of its own.
  void RawSql(const std::string& sql) {
    const char* keys[] = {"dbname", "password", nullptr};
    const char* values[] = {uri_.c_str(), Server().password().c_str(), nullptr};
    PGconn* conn = PQconnectdbParams(keys, values, 1);
    PGresult* result = PQexec(conn, sql.c_str());
    EXPECT_TRUE(PQresultStatus(result) == PGRES_COMMAND_OK ||
                PQresultStatus(result) == PGRES_TUPLES_OK)
        << PQresultErrorMessage(result);
    PQclear(result);
    PQfinish(conn);
  }
};

TEST_F(PostgresGameStoreTest, RefusesAPasswordInTheUriWithoutRepeatingIt) {
  const std::string uri = absl::StrCat(
      "postgresql://gunbai:s3cret-pw@127.0.0.1:", Server().port(), "/postgres");
  auto store = PostgresGameStore::Open(uri, {});
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store.status().message(), HasSubstr("PGPASSWORD"));
  EXPECT_THAT(std::string(store.status().message()),
              ::testing::Not(HasSubstr("s3cret-pw")));
}

TEST_F(PostgresGameStoreTest, AWrongPasswordOrNoServerIsUnavailable) {
  PostgresGameStore::Options options;
  options.password = "not-the-password";
  options.connect_timeout = absl::Seconds(2);
  auto store = PostgresGameStore::Open(uri_, options);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable)
      << store.status();
  EXPECT_THAT(std::string(store.status().message()),
              ::testing::Not(HasSubstr("not-the-password")));
  // Port 1 of 127.0.0.1: nothing listens there.
  store = PostgresGameStore::Open("postgresql://gunbai@127.0.0.1:1/x", options);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable)
      << store.status();
  EXPECT_THAT(store.status().message(), HasSubstr("cannot connect"));
}

TEST_F(PostgresGameStoreTest, RefusesADatabaseFromANewerSchema) {
  store_.reset();
  RawSql("UPDATE gunbai_schema SET version = 99");
  auto store = OpenPostgres(uri_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("schema version 99"));
}

TEST_F(PostgresGameStoreTest, ReplicasStartingTogetherMigrateOnce) {
  // Four stores opened at once on a fresh database: the advisory lock lets
  // one migrate; the others find the schema made.
  const std::string uri = FreshDatabase();
  std::vector<std::thread> threads;
  std::vector<absl::Status> opened(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { opened[i] = OpenPostgres(uri, 1).status(); });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : opened) EXPECT_TRUE(s.ok()) << s;
}

TEST_F(PostgresGameStoreTest, TwoReplicasStoreEveryEventOnceAndOneWinsEach) {
  CreateGame("anegawa");
  auto other = OpenPostgres(uri_);
  ASSERT_TRUE(other.ok()) << other.status();
  GameStore* stores[] = {store_.get(), other->get()};
  constexpr int kThreads = 4;
  constexpr int kEventsPerThread = 30;
  std::atomic<int> errors{0};
  std::atomic<int> stale{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      GameStore* store = stores[t % 2];  // Two threads on each replica.
      for (int i = 0; i < kEventsPerThread; ++i) {
        while (true) {
          absl::StatusOr<uint64_t> version = store->Version("anegawa");
          if (!version.ok()) {
            ++errors;
            return;
          }
          absl::StatusOr<AppendResult> result = store->Append(
              "anegawa", *version,
              {MakeEvent(absl::StrCat("t", t, "-", i), *version + 1)}, "a");
          if (result.ok()) {
            // Exactly one append took this version: the one told so.
            EXPECT_EQ(result->version, *version + 1);
            break;
          }
          if (result.status().code() != absl::StatusCode::kAborted) {
            ADD_FAILURE() << result.status();
            ++errors;
            return;
          }
          ++stale;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(errors, 0);
  const std::vector<v1::StoredEvent> events = Read("anegawa");
  ASSERT_EQ(events.size(), size_t{kThreads * kEventsPerThread});
  absl::flat_hash_set<std::string> ids;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].event().seq(), i + 1);
    EXPECT_TRUE(ids.insert(events[i].event_id()).second);
  }
  std::cout << "two replicas, " << kThreads << " threads: " << stale.load()
            << " appends refused as stale and retried\n";
}

TEST_F(PostgresGameStoreTest, AnAppendThroughOneReplicaIsToldToTheOther) {
  CreateGame("anegawa");
  CreateGame("nagashino");
  auto other = OpenPostgres(uri_);
  ASSERT_TRUE(other.ok()) << other.status();
  absl::Mutex mu;
  std::vector<std::string> told;
  (*other)->OnAppend([&](const std::string& game_id) {
    absl::MutexLock lock(&mu);
    if (!game_id.empty()) told.push_back(game_id);
  });
  // A refused append tells nobody; a committed one tells its game.
  EXPECT_FALSE(store_->Append("anegawa", 5, MakeEvents("e", 1, 1), "a").ok());
  AppendOk("nagashino", 0, MakeEvents("n", 1, 1));
  AppendOk("anegawa", 0, MakeEvents("e", 1, 2));
  {
    absl::MutexLock lock(&mu);
    auto two = [&told]() { return told.size() >= 2; };
    mu.AwaitWithTimeout(absl::Condition(&two), absl::Seconds(10));
    EXPECT_THAT(told, ElementsAre("nagashino", "anegawa"));
  }
  (*other)->OnAppend(nullptr);
}

}  // namespace
}  // namespace gunbai::service
