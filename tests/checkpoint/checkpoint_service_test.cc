// gunbaid's cold start from checkpoints (issue 11), in process through a
// real gRPC server over a real SQLite file: a game of more than N events is
// appended (N = checkpoint_every), the service and the store are closed and
// opened again on the same file, and every answer about the game (state at
// the end and at an earlier seq, audit with impacts, export, read) is byte
// for byte the one given before; the load replayed only the events after
// the last checkpoint (CheckpointStatsForTest). Then a service without
// checkpoints, and one over a checkpoint corrupted on disk, answer the same
// after replaying every event.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ledger.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/in_process_games.h"

namespace gunbai::service {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::gunbai::v1;

constexpr char kUmpire[] = "umpire-credential-0123456789";
constexpr char kGame[] = "long-game";
constexpr int kEvery = 300;  // N: a checkpoint each 300 events.

// The service in process (tests/store/in_process_games.h).
class Served : public gunbai::testing::InProcessGames {
 public:
  Served(GameStore* store, const replay::RulesetCatalog* catalog,
         int checkpoint_every)
      : InProcessGames(store, catalog, kUmpire, kDefaultMaxCachedGames,
                       checkpoint_every) {}
};

void Authorize(grpc::ClientContext& context) {
  gunbai::testing::AuthorizeAs(context, kUmpire);
}

// Everything the service says of the game, as deterministic bytes.
std::string AnswersOf(v1::GameService::Stub& stub) {
  std::string answers;
  for (uint64_t at : {uint64_t{0}, uint64_t{600}}) {
    grpc::ClientContext context;
    Authorize(context);
    v1::GetGameStateRequest request;
    request.set_game_id(kGame);
    request.set_at_seq(at);
    v1::GetGameStateResponse response;
    EXPECT_TRUE(stub.GetGameState(&context, request, &response).ok());
    absl::StrAppend(&answers, "state:", base::DeterministicBytes(response));
  }
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::AuditGameRequest request;
    request.set_game_id(kGame);
    request.set_impact(true);
    v1::AuditGameResponse response;
    EXPECT_TRUE(stub.AuditGame(&context, request, &response).ok());
    absl::StrAppend(&answers, "audit:", base::DeterministicBytes(response));
  }
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::ExportGameRequest request;
    request.set_game_id(kGame);
    v1::ExportGameResponse response;
    EXPECT_TRUE(stub.ExportGame(&context, request, &response).ok());
    absl::StrAppend(&answers, "export:", base::DeterministicBytes(response));
  }
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::ReadEventsRequest request;
    request.set_game_id(kGame);
    v1::ReadEventsResponse response;
    EXPECT_TRUE(stub.ReadEvents(&context, request, &response).ok());
    absl::StrAppend(&answers, "read:", base::DeterministicBytes(response));
  }
  return answers;
}

class CheckpointServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           absl::StrCat("checkpoint_service_", getpid());
    fs::remove_all(dir_);
    OpenStore();
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    // 1,000 events with planted faults: findings to carry over too.
    generate::GeneratorOptions options;
    options.seed = 5;
    options.target_events = 1000;
    options.faults = 6;
    log_ = generate::GenerateGame(options).log;
    ASSERT_EQ(log_.events_size(), 1000);
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  // Closes the store (if open) and opens the file again: a restart.
  void OpenStore() {
    store_.reset();
    auto store = SqliteGameStore::Open(dir_.string());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  void Create(v1::GameService::Stub& stub) {
    v1::CreateGameRequest request;
    *request.mutable_header() = log_.header();
    request.mutable_header()->set_game_id(kGame);
    *request.mutable_order_of_battle() = log_.order_of_battle();
    request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
    request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
    grpc::ClientContext context;
    Authorize(context);
    v1::CreateGameResponse response;
    grpc::Status status = stub.CreateGame(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  // Appends the log's events [from, to) in one batch.
  void Append(v1::GameService::Stub& stub, int from, int to) {
    v1::AppendEventsRequest request;
    request.set_game_id(kGame);
    request.set_expected_version(from);
    for (int i = from; i < to; ++i) {
      v1::AppendedEvent* appended = request.add_events();
      *appended->mutable_event() = log_.events(i);
      appended->set_event_id(absl::StrCat("event-", i));
    }
    grpc::ClientContext context;
    Authorize(context);
    v1::AppendEventsResponse response;
    grpc::Status status = stub.AppendEvents(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.version(), static_cast<uint64_t>(to));
  }
  // Runs `sql` on the store's file directly.
  void RawExec(const std::string& sql) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / SqliteGameStore::kFileName).c_str(), &raw),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(raw);
    sqlite3_close(raw);
  }

  fs::path dir_;
  std::unique_ptr<GameStore> store_;
  std::unique_ptr<replay::RulesetCatalog> catalog_;
  v1::BattleLog log_;
};

TEST_F(CheckpointServiceTest, RestartLoadsFromTheLastCheckpoint) {
  std::string before;
  {
    Served first(store_.get(), catalog_.get(), kEvery);
    Create(first.stub());
    // 0-250 crosses no multiple of 300; 250-500 crosses 300 (a checkpoint
    // after 500 events); 500-700 crosses 600 (one after 700); 700-820
    // crosses none.
    Append(first.stub(), 0, 250);
    Append(first.stub(), 250, 500);
    Append(first.stub(), 500, 700);
    Append(first.stub(), 700, 820);
    EXPECT_EQ(first.games().CheckpointStatsForTest().written, 2);
    EXPECT_EQ(first.games().CheckpointStatsForTest().write_failures, 0);
    before = AnswersOf(first.stub());
  }
  OpenStore();
  {
    Served restarted(store_.get(), catalog_.get(), kEvery);
    EXPECT_EQ(AnswersOf(restarted.stub()), before);
    const auto stats = restarted.games().CheckpointStatsForTest();
    EXPECT_EQ(stats.rebuilds, 1);
    EXPECT_EQ(stats.restored, 1);
    EXPECT_EQ(stats.refused, 0);
    // The checkpoint after 700 events: 820 - 700 replayed.
    EXPECT_EQ(stats.events_replayed, 120);
    // The rest of the game appends on from the restored replay (crossing
    // 900: a third checkpoint, after all 1,000).
    Append(restarted.stub(), 820, 1000);
    EXPECT_EQ(restarted.games().CheckpointStatsForTest().written, 1);
    before = AnswersOf(restarted.stub());
  }
  OpenStore();
  {
    // Without checkpoints: every event replayed, the same answers.
    Served whole(store_.get(), catalog_.get(), /*checkpoint_every=*/0);
    EXPECT_EQ(AnswersOf(whole.stub()), before);
    EXPECT_EQ(whole.games().CheckpointStatsForTest().events_replayed, 1000);
    EXPECT_EQ(whole.games().CheckpointStatsForTest().restored, 0);
  }
  OpenStore();
  {
    Served from_checkpoint(store_.get(), catalog_.get(), kEvery);
    EXPECT_EQ(AnswersOf(from_checkpoint.stub()), before);
    EXPECT_EQ(from_checkpoint.games().CheckpointStatsForTest().restored, 1);
    EXPECT_EQ(from_checkpoint.games().CheckpointStatsForTest().events_replayed,
              0);
  }
}

// A checkpoint whose bytes changed on disk fails its digest; one whose
// digest was forged to match bytes that are not a checkpoint fails its
// restore; one that claims another place in the chain is not taken. Each is
// refused and the game replayed whole, with the same answers.
TEST_F(CheckpointServiceTest, AnUntrustedCheckpointIsIgnored) {
  std::string before;
  {
    Served first(store_.get(), catalog_.get(), kEvery);
    Create(first.stub());
    Append(first.stub(), 0, 400);
    Append(first.stub(), 400, 700);
    ASSERT_EQ(first.games().CheckpointStatsForTest().written, 2);
    before = AnswersOf(first.stub());
  }
  const std::string forged_digest = CheckpointDigest("not a checkpoint", "");
  for (const std::string& sql :
       {std::string("UPDATE checkpoints SET state = "
                    "CAST(state || x'00' AS BLOB)"),
        absl::StrCat("UPDATE checkpoints SET state = "
                     "CAST('not a checkpoint' AS BLOB), "
                     "findings = x'', sha256 = '",
                     forged_digest, "'"),
        std::string("UPDATE checkpoints SET head_hash = 'elsewhere'")}) {
    SCOPED_TRACE(sql);
    store_.reset();
    RawExec(sql);
    OpenStore();
    Served restarted(store_.get(), catalog_.get(), kEvery);
    EXPECT_EQ(AnswersOf(restarted.stub()), before);
    const auto stats = restarted.games().CheckpointStatsForTest();
    EXPECT_EQ(stats.refused, 1);
    EXPECT_EQ(stats.restored, 0);
    EXPECT_EQ(stats.events_replayed, 700);
  }
}

}  // namespace
}  // namespace gunbai::service
