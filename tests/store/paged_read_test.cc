// ReadEvents and ExportGame answer a page of a long game at a time (about
// 2 MiB of events, at least one; issue 11: a read costs gunbaid a page, not
// the game), and following next_seq gives back exactly the stored events,
// each once, in order. AppendEvents, which gRPC serves from the bytes of
// its answer, answers the response the store keeps for retries, byte for
// byte the deterministic serialization of the message the client parses.
// In process, through a real gRPC server, over a real SQLite store.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ledger.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "service/cli/game_client.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/in_process_games.h"

namespace gunbai::service {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::gunbai::v1;
using ::gunbai::testing::AuthorizeAs;
using ::gunbai::testing::InProcessGames;

constexpr char kUmpire[] = "umpire-credential-0123456789";
// Names in each big event's friends_routing_near: 11 bytes each on the wire
// (tag, length, "oda-teppo"), so a big event is 220,000 bytes and some tens
// more; stored with its id, chain hash and findings, under 230,000.
constexpr int kNames = 20000;
// Big events after the opening's two (turn start, activation).
constexpr int kBigEvents = 30;

v1::BattleLog AnegawaOpening() {
  const std::string path =
      absl::StrCat(GUNBAI_TEST_DATA_DIR, "/anegawa-clean.textproto");
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  auto log = replay::ParseBattleLog(text, replay::LogFormat::kText, path);
  EXPECT_TRUE(log.ok()) << log.status();
  if (!log.ok()) return v1::BattleLog();
  log->mutable_events()->DeleteSubrange(2, log->events_size() - 2);
  return *log;
}

// A morale test at `seq` of oda-teppo naming it kNames times.
v1::Event BigEvent(uint64_t seq) {
  v1::Event event;
  event.set_seq(seq);
  event.set_turn(1);
  event.set_clan("oda");
  v1::MoraleTest* test = event.mutable_morale_test();
  test->set_unit("oda-teppo");
  test->set_reason(1);
  test->add_dice(3);
  test->add_dice(4);
  for (int i = 0; i < kNames; ++i) {
    test->mutable_facts()->add_friends_routing_near("oda-teppo");
  }
  return event;
}

class PagedReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           absl::StrCat("paged_read_store_", getpid());
    fs::remove_all(dir_);
    auto store = SqliteGameStore::Open(dir_.string());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    games_ =
        std::make_unique<InProcessGames>(store_.get(), catalog_.get(), kUmpire);
    opening_ = AnegawaOpening();
    ASSERT_EQ(opening_.events_size(), 2);
  }
  void TearDown() override {
    games_.reset();
    store_.reset();
    fs::remove_all(dir_);
  }

  // Creates `id` (record policy) with the opening and `big` big events.
  void CreateGame(const std::string& id, int big) {
    {
      v1::CreateGameRequest request;
      *request.mutable_header() = opening_.header();
      request.mutable_header()->set_game_id(id);
      *request.mutable_order_of_battle() = opening_.order_of_battle();
      request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
      request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
      grpc::ClientContext context;
      AuthorizeAs(context, kUmpire);
      v1::CreateGameResponse response;
      grpc::Status s = games_->stub().CreateGame(&context, request, &response);
      ASSERT_TRUE(s.ok()) << s.error_message();
    }
    v1::AppendEventsRequest request;
    request.set_game_id(id);
    for (const v1::Event& event : opening_.events()) {
      v1::AppendedEvent* appended = request.add_events();
      appended->set_event_id(absl::StrCat("open-", event.seq()));
      *appended->mutable_event() = event;
    }
    for (int i = 0; i < big; ++i) {
      v1::AppendedEvent* appended = request.add_events();
      appended->set_event_id(absl::StrCat("big-", i + 3));
      *appended->mutable_event() = BigEvent(i + 3);
    }
    grpc::ClientContext context;
    AuthorizeAs(context, kUmpire);
    v1::AppendEventsResponse response;
    grpc::Status s = games_->stub().AppendEvents(&context, request, &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ASSERT_EQ(response.version(), static_cast<uint64_t>(2 + big));
  }

  v1::ReadEventsResponse Read(const std::string& id, uint64_t from_seq) {
    v1::ReadEventsRequest request;
    request.set_game_id(id);
    request.set_from_seq(from_seq);
    grpc::ClientContext context;
    AuthorizeAs(context, kUmpire);
    v1::ReadEventsResponse response;
    grpc::Status s = games_->stub().ReadEvents(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response;
  }

  v1::ExportGameResponse Export(const std::string& id, uint64_t from_seq) {
    v1::ExportGameRequest request;
    request.set_game_id(id);
    request.set_from_seq(from_seq);
    grpc::ClientContext context;
    AuthorizeAs(context, kUmpire);
    v1::ExportGameResponse response;
    grpc::Status s = games_->stub().ExportGame(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response;
  }

  // The stored events of `id`, as the store gives them all at once.
  std::vector<v1::StoredEvent> Stored(const std::string& id) {
    auto events = store_->ReadEvents(id, 0);
    EXPECT_TRUE(events.ok()) << events.status();
    return events.ok() ? *events : std::vector<v1::StoredEvent>();
  }

  fs::path dir_;
  std::unique_ptr<GameStore> store_;
  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<InProcessGames> games_;
  v1::BattleLog opening_;
};

// Each page holds at most 2 MiB (2,097,152 bytes) of events, and one more
// event would pass it. A big event is 220,000 to 230,000 bytes, so 9 fit
// (9 x 230,000 = 2,070,000) and 10 do not (10 x 220,000 = 2,200,000); the
// opening's two events are a few dozen bytes each. The game (seqs 1-32):
//   page 1: seqs 1-11 (the opening and 9 big), next 12
//   page 2: seqs 12-20, next 21
//   page 3: seqs 21-29, next 30
//   page 4: seqs 30-32 (3 events), next 0
// 11 + 9 + 9 + 3 = 32 events, each the stored one.
TEST_F(PagedReadTest, ReadEventsPagesGiveBackExactlyTheStoredEvents) {
  CreateGame("long", kBigEvents);
  const std::vector<v1::StoredEvent> stored = Stored("long");
  ASSERT_EQ(stored.size(), 32u);
  for (int i = 2; i < 32; ++i) {
    const size_t size = stored[i].ByteSizeLong();
    EXPECT_GT(size, 220000u) << i;
    EXPECT_LT(size, 230000u) << i;
  }
  std::vector<int> page_sizes;
  std::vector<uint64_t> next_seqs;
  std::vector<std::string> read;
  uint64_t from = 0;
  do {
    v1::ReadEventsResponse page = Read("long", from);
    EXPECT_EQ(page.version(), 32u);
    EXPECT_EQ(page.head_hash(), stored.back().chain_hash());
    EXPECT_EQ(page.header().game_id(), "long");
    page_sizes.push_back(page.events_size());
    next_seqs.push_back(page.next_seq());
    for (const v1::StoredEvent& e : page.events()) {
      read.push_back(base::DeterministicBytes(e));
    }
    from = page.next_seq();
  } while (from != 0 && page_sizes.size() < 10);
  EXPECT_EQ(page_sizes, (std::vector<int>{11, 9, 9, 3}));
  EXPECT_EQ(next_seqs, (std::vector<uint64_t>{12, 21, 30, 0}));
  ASSERT_EQ(read.size(), stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(read[i], base::DeterministicBytes(stored[i])) << i;
  }
  // From the middle: seqs 15-23 (9 big events), then 24.
  v1::ReadEventsResponse middle = Read("long", 15);
  ASSERT_EQ(middle.events_size(), 9);
  EXPECT_EQ(middle.events(0).event().seq(), 15u);
  EXPECT_EQ(middle.events(8).event().seq(), 23u);
  EXPECT_EQ(middle.next_seq(), 24u);
  // Past the end: nothing, and no next page.
  v1::ReadEventsResponse past = Read("long", 33);
  EXPECT_EQ(past.events_size(), 0);
  EXPECT_EQ(past.next_seq(), 0u);
  EXPECT_EQ(past.version(), 32u);
}

// ExportGame pages as ReadEvents does (an event counted with its id and
// chain hash: still 220,000 to 230,000 bytes), the header and order of
// battle on the first page only; ExportWholeGame puts together exactly
// the stored game.
TEST_F(PagedReadTest, ExportPagesMakeTheWholeStoredGame) {
  CreateGame("long", kBigEvents);
  const std::vector<v1::StoredEvent> stored = Stored("long");
  ASSERT_EQ(stored.size(), 32u);
  std::vector<int> page_sizes;
  std::vector<uint64_t> next_seqs;
  uint64_t from = 0;
  do {
    v1::ExportGameResponse page = Export("long", from);
    const v1::ExportedGame& game = page.game();
    EXPECT_EQ(game.log().has_header(), from == 0) << from;
    EXPECT_EQ(game.log().has_order_of_battle(), from == 0) << from;
    EXPECT_EQ(game.event_ids_size(), game.log().events_size());
    EXPECT_EQ(game.chain_hashes_size(), game.log().events_size());
    EXPECT_EQ(game.dice_attempts_size(), game.log().events_size());
    EXPECT_EQ(game.settings().policy(), v1::APPEND_POLICY_RECORD);
    page_sizes.push_back(game.log().events_size());
    next_seqs.push_back(page.next_seq());
    from = page.next_seq();
  } while (from != 0 && page_sizes.size() < 10);
  EXPECT_EQ(page_sizes, (std::vector<int>{11, 9, 9, 3}));
  EXPECT_EQ(next_seqs, (std::vector<uint64_t>{12, 21, 30, 0}));

  v1::ExportedGame whole;
  grpc::Status s = ExportWholeGame(
      "long",
      [this](const v1::ExportGameRequest& request,
             v1::ExportGameResponse* response) {
        grpc::ClientContext context;
        AuthorizeAs(context, kUmpire);
        return games_->stub().ExportGame(&context, request, response);
      },
      &whole);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(whole.log().header().game_id(), "long");
  EXPECT_EQ(base::DeterministicBytes(whole.log().order_of_battle()),
            base::DeterministicBytes(opening_.order_of_battle()));
  ASSERT_EQ(whole.log().events_size(), 32);
  ASSERT_EQ(whole.event_ids_size(), 32);
  ASSERT_EQ(whole.chain_hashes_size(), 32);
  ASSERT_EQ(whole.dice_attempts_size(), 32);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(base::DeterministicBytes(whole.log().events(i)),
              base::DeterministicBytes(stored[i].event()))
        << i;
    EXPECT_EQ(whole.event_ids(i), stored[i].event_id()) << i;
    EXPECT_EQ(whole.chain_hashes(i), stored[i].chain_hash()) << i;
    EXPECT_EQ(whole.dice_attempts(i), stored[i].dice_attempt()) << i;
  }
}

// The append's answer goes out as the bytes stored for retries, assembled
// without a parsed copy of the events (AnswerBytes): what the client parses
// serializes back to exactly those bytes, holds the 32 events as sent
// (recorded dice: gunbaid changes nothing in them) with their ids, and a
// retry of the batch is answered the same.
TEST_F(PagedReadTest, AppendAnswerIsTheStoredAnswerByteForByte) {
  CreateGame("answered", kBigEvents);
  auto stored_answer = store_->FindBatch("answered", "open-1");
  ASSERT_TRUE(stored_answer.ok()) << stored_answer.status();
  ASSERT_TRUE(stored_answer->has_value());
  v1::AppendEventsRequest retry;
  retry.set_game_id("answered");
  for (const v1::Event& event : opening_.events()) {
    v1::AppendedEvent* appended = retry.add_events();
    appended->set_event_id(absl::StrCat("open-", event.seq()));
    *appended->mutable_event() = event;
  }
  for (int i = 0; i < kBigEvents; ++i) {
    v1::AppendedEvent* appended = retry.add_events();
    appended->set_event_id(absl::StrCat("big-", i + 3));
    *appended->mutable_event() = BigEvent(i + 3);
  }
  const v1::AppendEventsRequest sent = retry;
  grpc::ClientContext context;
  AuthorizeAs(context, kUmpire);
  v1::AppendEventsResponse response;
  grpc::Status s = games_->stub().AppendEvents(&context, retry, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(base::DeterministicBytes(response), **stored_answer);
  EXPECT_EQ(response.version(), 32u);
  ASSERT_EQ(response.events_size(), 32);
  const std::vector<v1::StoredEvent> stored = Stored("answered");
  ASSERT_EQ(stored.size(), 32u);  // The retry wrote nothing.
  EXPECT_EQ(response.head_hash(), stored.back().chain_hash());
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(response.events(i).event_id(), sent.events(i).event_id()) << i;
    EXPECT_EQ(base::DeterministicBytes(response.events(i).event()),
              base::DeterministicBytes(sent.events(i).event()))
        << i;
    EXPECT_EQ(base::DeterministicBytes(response.events(i)),
              base::DeterministicBytes(stored[i]))
        << i;
  }
  EXPECT_TRUE(response.has_state());
}

// A game under a page is answered whole, as before pages: no next page.
TEST_F(PagedReadTest, AShortGameIsOnePage) {
  CreateGame("short", 1);  // Seqs 1-3, some 220,000 bytes.
  v1::ReadEventsResponse read = Read("short", 0);
  EXPECT_EQ(read.events_size(), 3);
  EXPECT_EQ(read.next_seq(), 0u);
  v1::ExportGameResponse exported = Export("short", 0);
  EXPECT_EQ(exported.game().log().events_size(), 3);
  EXPECT_TRUE(exported.game().log().has_header());
  EXPECT_EQ(exported.next_seq(), 0u);
}

}  // namespace
}  // namespace gunbai::service
