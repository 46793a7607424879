// GameService's bounded cache of live games (gunbaid --max-cached-games,
// issue 11): with a bound of 2, games read in turn are dropped and rebuilt
// from the store, and every answer about a rebuilt game is byte for byte the
// one given before it was dropped and the one a fresh service over the same
// store gives; a watched game is never dropped; appends to a dropped game
// chain on from its stored head. In process, through a real gRPC server
// (WatchGame needs a stream), over a real SQLite store.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ledger.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/in_process_games.h"

namespace gunbai::service {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::IsSubsetOf;

constexpr char kUmpire[] = "umpire-credential-0123456789";
// Events of sekigahara.textproto (41, the last game_end) appended before
// the cache is exercised; the rest come after.
constexpr int kFirstPart = 20;

v1::BattleLog Sekigahara() {
  const std::string path =
      absl::StrCat(GUNBAI_TEST_DATA_DIR, "/sekigahara.textproto");
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  auto log = replay::ParseBattleLog(text, replay::LogFormat::kText, path);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : v1::BattleLog();
}

// The service in process (tests/store/in_process_games.h).
class Served : public gunbai::testing::InProcessGames {
 public:
  Served(GameStore* store, const replay::RulesetCatalog* catalog,
         int max_cached_games)
      : InProcessGames(store, catalog, kUmpire, max_cached_games) {}
};

void Authorize(grpc::ClientContext& context) {
  gunbai::testing::AuthorizeAs(context, kUmpire);
}

// Everything the service says of a game that the cache could get wrong:
// its state, its audit with impacts, its export and its read, each as
// deterministic bytes.
struct Answers {
  std::string state;
  std::string audit;
  std::string exported;
  std::string read;
  bool operator==(const Answers&) const = default;
};

Answers AnswersOf(v1::GameService::Stub& stub, const std::string& id) {
  Answers answers;
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::GetGameStateRequest request;
    request.set_game_id(id);
    v1::GetGameStateResponse response;
    EXPECT_TRUE(stub.GetGameState(&context, request, &response).ok()) << id;
    answers.state = base::DeterministicBytes(response);
  }
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::AuditGameRequest request;
    request.set_game_id(id);
    request.set_impact(true);
    v1::AuditGameResponse response;
    EXPECT_TRUE(stub.AuditGame(&context, request, &response).ok()) << id;
    answers.audit = base::DeterministicBytes(response);
  }
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::ExportGameRequest request;
    request.set_game_id(id);
    v1::ExportGameResponse response;
    EXPECT_TRUE(stub.ExportGame(&context, request, &response).ok()) << id;
    answers.exported = base::DeterministicBytes(response);
  }
  {
    grpc::ClientContext context;
    Authorize(context);
    v1::ReadEventsRequest request;
    request.set_game_id(id);
    v1::ReadEventsResponse response;
    EXPECT_TRUE(stub.ReadEvents(&context, request, &response).ok()) << id;
    answers.read = base::DeterministicBytes(response);
  }
  return answers;
}

class GameCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           absl::StrCat("game_cache_store_", getpid());
    fs::remove_all(dir_);
    auto store = SqliteGameStore::Open(dir_.string());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    log_ = Sekigahara();
    ASSERT_EQ(log_.events_size(), 41);
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  // Creates game `id` (record policy: sekigahara's planted mistakes are
  // stored with their findings) and returns its genesis head.
  std::string Create(v1::GameService::Stub& stub, const std::string& id) {
    v1::CreateGameRequest request;
    *request.mutable_header() = log_.header();
    request.mutable_header()->set_game_id(id);
    *request.mutable_order_of_battle() = log_.order_of_battle();
    request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
    request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
    grpc::ClientContext context;
    Authorize(context);
    v1::CreateGameResponse response;
    grpc::Status status = stub.CreateGame(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    heads_[id] = response.head_hash();
    return response.head_hash();
  }

  // Appends sekigahara's events [from, to) to `id` in one batch, and checks
  // the head the service answers against the chain computed here from the
  // head before (replay::ChainHash over the same events: recorded dice, so
  // the stored events are the ones sent).
  void Append(v1::GameService::Stub& stub, const std::string& id, int from,
              int to) {
    v1::AppendEventsRequest request;
    request.set_game_id(id);
    request.set_expected_version(from);
    std::string head = heads_[id];
    for (int i = from; i < to; ++i) {
      v1::AppendedEvent* appended = request.add_events();
      *appended->mutable_event() = log_.events(i);
      appended->set_event_id(absl::StrCat(id, "-event-", i));
      head = replay::ChainHash(head, log_.events(i));
    }
    grpc::ClientContext context;
    Authorize(context);
    v1::AppendEventsResponse response;
    grpc::Status status = stub.AppendEvents(&context, request, &response);
    ASSERT_TRUE(status.ok()) << id << ": " << status.error_message();
    EXPECT_EQ(response.version(), static_cast<uint64_t>(to));
    EXPECT_EQ(response.head_hash(), head) << id;
    heads_[id] = head;
  }

  fs::path dir_;
  std::unique_ptr<GameStore> store_;
  std::unique_ptr<replay::RulesetCatalog> catalog_;
  v1::BattleLog log_;
  std::map<std::string, std::string> heads_;
};

// Bound 2, three games: A and B fill the cache, C drops A (the least
// recently used), reading A drops B, reading B drops C, reading C drops A.
// Each answer about a rebuilt game equals the one given while it was cached
// from its appends, and a fresh service's (no bound) over the same store.
TEST_F(GameCacheTest, DroppedGamesAnswerAsBeforeAndAsAFreshService) {
  Served served(store_.get(), catalog_.get(), /*max_cached_games=*/2);
  GameServiceImpl& games = served.games();
  v1::GameService::Stub& stub = served.stub();
  std::map<std::string, Answers> before;
  for (const char* id : {"cache-a", "cache-b", "cache-c"}) {
    Create(stub, id);
    Append(stub, id, 0, kFirstPart);
    before[id] = AnswersOf(stub, id);
    EXPECT_LE(games.CachedGamesForTest().size(), 2u);
    EXPECT_EQ(games.PinnedGamesForTest(), 0);
  }
  EXPECT_THAT(games.CachedGamesForTest(), ElementsAre("cache-b", "cache-c"));
  // The three games are the same game under three ids: their states agree.
  EXPECT_EQ(before["cache-a"].state, before["cache-c"].state);

  EXPECT_TRUE(AnswersOf(stub, "cache-a") == before["cache-a"]);
  EXPECT_THAT(games.CachedGamesForTest(), ElementsAre("cache-a", "cache-c"));
  EXPECT_TRUE(AnswersOf(stub, "cache-b") == before["cache-b"]);
  EXPECT_THAT(games.CachedGamesForTest(), ElementsAre("cache-a", "cache-b"));
  EXPECT_TRUE(AnswersOf(stub, "cache-c") == before["cache-c"]);
  EXPECT_THAT(games.CachedGamesForTest(), ElementsAre("cache-b", "cache-c"));

  Served fresh(store_.get(), catalog_.get(), /*max_cached_games=*/0);
  for (const char* id : {"cache-a", "cache-b", "cache-c"}) {
    EXPECT_TRUE(AnswersOf(fresh.stub(), id) == before[id]) << id;
  }
  // Unbounded, the fresh service keeps all three.
  EXPECT_THAT(fresh.games().CachedGamesForTest(),
              ElementsAre("cache-a", "cache-b", "cache-c"));
}

// Appends to a dropped game rebuild it and chain on from its stored head
// (Append checks every head against replay::ChainHash from the genesis);
// the finished game exports the same from the bounded service and a fresh
// one.
TEST_F(GameCacheTest, AppendsAfterADropChainOn) {
  Served served(store_.get(), catalog_.get(), /*max_cached_games=*/2);
  v1::GameService::Stub& stub = served.stub();
  for (const char* id : {"cache-a", "cache-b", "cache-c"}) {
    Create(stub, id);
    Append(stub, id, 0, kFirstPart);
  }
  ASSERT_THAT(served.games().CachedGamesForTest(),
              ElementsAre("cache-b", "cache-c"));
  // cache-a was dropped: this append rebuilds it from the store.
  Append(stub, "cache-a", kFirstPart, 41);
  EXPECT_THAT(served.games().CachedGamesForTest(),
              ElementsAre("cache-a", "cache-c"));
  Served fresh(store_.get(), catalog_.get(), /*max_cached_games=*/0);
  const Answers bounded = AnswersOf(stub, "cache-a");
  EXPECT_TRUE(AnswersOf(fresh.stub(), "cache-a") == bounded);
  // The same 41 events as the golden log, ended.
  v1::ExportGameResponse exported;
  ASSERT_TRUE(exported.ParseFromString(bounded.exported));
  ASSERT_EQ(exported.game().log().events_size(), 41);
  EXPECT_EQ(exported.game().chain_hashes(40), heads_["cache-a"]);
  EXPECT_FALSE(exported.game().dice().revealed_secret().empty());
}

// A watched game stays cached however many games are read past the bound,
// and its watch keeps receiving: the batch appended after the others were
// read reaches it, through game_end, when the watch ends OK. The cache never
// holds more than the bound plus the game in use.
TEST_F(GameCacheTest, AWatchedGameIsNeverDropped) {
  Served served(store_.get(), catalog_.get(), /*max_cached_games=*/2);
  GameServiceImpl& games = served.games();
  v1::GameService::Stub& stub = served.stub();
  const std::vector<std::string> ids = {"cache-w", "cache-x", "cache-y",
                                        "cache-z"};
  for (const std::string& id : ids) {
    Create(stub, id);
    Append(stub, id, 0, kFirstPart);
  }
  grpc::ClientContext watch_context;
  Authorize(watch_context);
  v1::WatchGameRequest watch_request;
  watch_request.set_game_id("cache-w");
  auto reader = stub.WatchGame(&watch_context, watch_request);
  std::vector<v1::StoredEvent> received;
  v1::WatchGameResponse item;
  while (static_cast<int>(received.size()) < kFirstPart &&
         reader->Read(&item)) {
    received.push_back(item.event());
  }
  ASSERT_EQ(received.size(), static_cast<std::size_t>(kFirstPart));
  EXPECT_EQ(games.PinnedGamesForTest(), 1);
  // Every other game read twice in turn: each read past the bound drops
  // one, never the watched one.
  for (int round = 0; round < 2; ++round) {
    for (int i = 1; i < 4; ++i) {
      AnswersOf(stub, ids[i]);
      const std::vector<std::string> cached = games.CachedGamesForTest();
      EXPECT_LE(cached.size(), 2u + games.PinnedGamesForTest());
      EXPECT_THAT(std::vector<std::string>{"cache-w"}, IsSubsetOf(cached));
    }
  }
  // A and the last two read: z, then y before it, are the most recent.
  EXPECT_THAT(games.CachedGamesForTest(),
              ElementsAre("cache-w", "cache-y", "cache-z"));
  Append(stub, "cache-w", kFirstPart, 41);
  while (reader->Read(&item)) received.push_back(item.event());
  grpc::Status ended = reader->Finish();
  EXPECT_TRUE(ended.ok()) << ended.error_message();
  ASSERT_EQ(received.size(), 41u);
  // The watch saw the chain the appends were checked against.
  v1::ExportGameResponse exported;
  ASSERT_TRUE(exported.ParseFromString(AnswersOf(stub, "cache-w").exported));
  for (int i = 0; i < 41; ++i) {
    EXPECT_EQ(received[i].chain_hash(), exported.game().chain_hashes(i)) << i;
    EXPECT_EQ(received[i].event().seq(), log_.events(i).seq()) << i;
  }
  EXPECT_EQ(received.back().chain_hash(), heads_["cache-w"]);
  // The watch over, its game is one like the others: back to the bound.
  EXPECT_EQ(games.PinnedGamesForTest(), 0);
  EXPECT_LE(games.CachedGamesForTest().size(), 2u);
}

// Calls from several threads on more games than the bound: every answer is
// the one given before, whatever was dropped meanwhile.
TEST_F(GameCacheTest, ConcurrentReadsAcrossTheBoundAgree) {
  Served served(store_.get(), catalog_.get(), /*max_cached_games=*/2);
  v1::GameService::Stub& stub = served.stub();
  const std::vector<std::string> ids = {"cache-p", "cache-q", "cache-r",
                                        "cache-s"};
  std::map<std::string, Answers> before;
  for (const std::string& id : ids) {
    Create(stub, id);
    Append(stub, id, 0, kFirstPart + static_cast<int>(before.size()));
    before[id] = AnswersOf(stub, id);
  }
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 12; ++i) {
        const std::string& id = ids[(t + i) % ids.size()];
        if (!(AnswersOf(stub, id) == before.at(id))) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(mismatches, ElementsAre(0, 0, 0, 0));
  EXPECT_EQ(served.games().PinnedGamesForTest(), 0);
  EXPECT_LE(served.games().CachedGamesForTest().size(), 2u);
}

}  // namespace
}  // namespace gunbai::service
