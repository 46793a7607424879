// Several gunbaid replicas on one PostgreSQL database, end to end: a real
// PostgreSQL server (tests/store/postgres_server.h: initdb into a temporary
// directory, a free port), three real gunbaid processes started with
// --store=postgresql://... and the password in a file, clients appending to
// the same games through different replicas at once.
//  - exactly one append wins per expected version; every acknowledged
//    event is stored once, in order, where its answer said; the chain
//    verifies, with `gunbai verify` on the export;
//  - a watch on one replica sees appends made through the others;
//  - a replica SIGKILLed mid-append loses nothing it acknowledged;
//  - `gunbai store migrate` copies a SQLite directory's games into the
//    database, and a replica serves them as the SQLite gunbaid did.
#include <stdio.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "httplib.h"
#include "replay/ledger.h"
#include "tests/e2e/gunbaid_process.h"
#include "tests/store/postgres_server.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

constexpr char kUmpireToken[] = "umpire-token-of-the-replicas-test";
constexpr auto kCallTimeout = seconds(30);

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `command` in a shell; returns its exit code and puts its stdout in
// `out`.
int Shell(const std::string& command, std::string* out = nullptr) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  std::string text;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe))
    text.append(buffer, n);
  const int status = pclose(pipe);
  if (out != nullptr) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The event at position `seq` of a test game: turns of turn_start, oda's
// activation, asai's activation, turn_end; legal whoever appends it, as
// long as it is built on the right version.
v1::Event CycleEvent(uint64_t seq) {
  v1::Event event;
  event.set_seq(seq);
  event.set_turn(static_cast<uint32_t>((seq - 1) / 4 + 1));
  switch ((seq - 1) % 4) {
    case 0:
      event.mutable_turn_start()->set_initiative_clan("oda");
      break;
    case 1:
      event.set_clan("oda");
      event.mutable_activation();
      break;
    case 2:
      event.set_clan("asai");
      event.mutable_activation();
      break;
    default:
      event.mutable_turn_end();
  }
  return event;
}

// An umpire's client of one replica.
class Client {
 public:
  explicit Client(const std::string& target)
      : stub_(v1::GameService::NewStub(
            grpc::CreateChannel(target, grpc::InsecureChannelCredentials()))) {}

  grpc::Status Create(const std::string& game, v1::DiceMode dice) {
    std::ifstream in(
        absl::StrCat(GUNBAI_TEST_DATA, "/anegawa-clean.textproto"));
    std::stringstream text;
    text << in.rdbuf();
    v1::BattleLog log;
    EXPECT_TRUE(
        google::protobuf::TextFormat::ParseFromString(text.str(), &log));
    v1::CreateGameRequest request;
    *request.mutable_header() = log.header();
    request.mutable_header()->set_game_id(game);
    *request.mutable_order_of_battle() = log.order_of_battle();
    request.mutable_settings()->set_policy(v1::APPEND_POLICY_STRICT);
    request.mutable_settings()->set_dice_mode(dice);
    if (dice == v1::DICE_MODE_SERVER) {
      for (const char* clan : {"oda", "asai"}) {
        v1::PlayerSeed* seed = request.add_player_seeds();
        seed->set_clan(clan);
        seed->set_seed_hex("0a1b2c");
      }
    }
    v1::CreateGameResponse response;
    grpc::ClientContext context;
    Prepare(context);
    return stub_->CreateGame(&context, request, &response);
  }

  grpc::Status Append(const std::string& game, uint64_t expected_version,
                      const std::string& id, const v1::Event& event,
                      v1::AppendEventsResponse* response) {
    v1::AppendEventsRequest request;
    request.set_game_id(game);
    request.set_expected_version(expected_version);
    v1::AppendedEvent* appended = request.add_events();
    appended->set_event_id(id);
    *appended->mutable_event() = event;
    grpc::ClientContext context;
    Prepare(context);
    return stub_->AppendEvents(&context, request, response);
  }

  absl::StatusOr<v1::ReadEventsResponse> ReadAll(const std::string& game) {
    v1::ReadEventsResponse all;
    uint64_t from = 0;
    while (true) {
      v1::ReadEventsRequest request;
      request.set_game_id(game);
      request.set_from_seq(from);
      v1::ReadEventsResponse page;
      grpc::ClientContext context;
      Prepare(context);
      grpc::Status s = stub_->ReadEvents(&context, request, &page);
      if (!s.ok()) return absl::UnavailableError(s.error_message());
      all.set_version(page.version());
      all.set_head_hash(page.head_hash());
      for (auto& e : *page.mutable_events()) *all.add_events() = std::move(e);
      if (page.next_seq() == 0) return all;
      from = page.next_seq();
    }
  }

  absl::StatusOr<uint64_t> Version(const std::string& game) {
    v1::ReadEventsRequest request;
    request.set_game_id(game);
    request.set_from_seq(UINT64_MAX);
    v1::ReadEventsResponse response;
    grpc::ClientContext context;
    Prepare(context);
    grpc::Status s = stub_->ReadEvents(&context, request, &response);
    if (!s.ok()) return absl::UnavailableError(s.error_message());
    return response.version();
  }

  grpc::Status Export(const std::string& game, v1::ExportGameResponse* out) {
    v1::ExportGameRequest request;
    request.set_game_id(game);
    grpc::ClientContext context;
    Prepare(context);
    return stub_->ExportGame(&context, request, out);
  }

  grpc::Status Audit(const std::string& game, v1::AuditGameResponse* out) {
    v1::AuditGameRequest request;
    request.set_game_id(game);
    grpc::ClientContext context;
    Prepare(context);
    return stub_->AuditGame(&context, request, out);
  }

  v1::GameService::Stub& stub() { return *stub_; }

  static void Prepare(grpc::ClientContext& context) {
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kUmpireToken));
    context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  }

 private:
  std::unique_ptr<v1::GameService::Stub> stub_;
};

// One PostgreSQL server for the whole binary; each test has a database.
PostgresServer& Server() {
  static PostgresServer* server = [] {
    auto started = PostgresServer::Start();
    if (!started.ok()) {
      std::cerr << started.status() << "\n";
      std::abort();
    }
    return started->release();
  }();
  return *server;
}

class ServerStopper : public ::testing::Environment {
 public:
  void TearDown() override { delete &Server(); }
};
[[maybe_unused]] ::testing::Environment* const kServerStopper =
    ::testing::AddGlobalTestEnvironment(new ServerStopper);

class ReplicasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    token_file_ = dir_.path() + "/umpire.token";
    std::ofstream(token_file_) << kUmpireToken << "\n";
    static int database = 0;
    auto uri = Server().CreateDatabase(absl::StrCat("replicas", database++));
    ASSERT_TRUE(uri.ok()) << uri.status();
    uri_ = *uri;
  }

  // Starts replica `i` on the test database.
  void StartReplica(int i) {
    if (replicas_.size() <= static_cast<size_t>(i)) replicas_.resize(i + 1);
    auto started = GunbaidProcess::Start(
        dir_.path() + "/unused-data", token_file_, dir_.path(),
        {"--store=" + uri_,
         "--store-password-file=" + Server().password_file()});
    ASSERT_TRUE(started.ok()) << started.status();
    replicas_[i] = *std::move(started);
  }

  void StartReplicas(int n) {
    for (int i = 0; i < n; ++i) ASSERT_NO_FATAL_FAILURE(StartReplica(i));
  }

  std::unique_ptr<Client> ClientOf(int i) {
    return std::make_unique<Client>(replicas_[i]->target());
  }

  // Exports `game` through replica `i` with the real gunbai and checks it
  // with `gunbai verify`; returns the export's text.
  std::string ExportAndVerify(int i, const std::string& game) {
    const std::string file = absl::StrCat(dir_.path(), "/", game, ".export");
    const std::string command = absl::StrCat(
        GUNBAI_PATH, " game export --server=", replicas_[i]->target(),
        " --token-file=", token_file_, " --game=", game, " > ", file);
    EXPECT_EQ(Shell(command), 0) << command;
    std::string out;
    EXPECT_EQ(Shell(absl::StrCat(GUNBAI_PATH, " verify ", file, " 2>&1"), &out),
              0)
        << out;
    return ReadFile(file);
  }

  TempDir dir_;
  std::string token_file_;
  std::string uri_;
  std::vector<std::unique_ptr<GunbaidProcess>> replicas_;
};

// One client thread's record: what it sent and what it was told.
struct Ack {
  std::string id;
  uint64_t version = 0;
  std::string head_hash;
};
struct ThreadLog {
  std::string game;
  int replica = 0;
  std::vector<std::string> sent;
  std::vector<Ack> acks;
  int stale_retries = 0;
  std::string stopped_by;
};

// Appends `count` single-event batches to `log.game` through `target`,
// each built on the version last read, until done or a call fails for
// another reason than a stale version.
void AppendThrough(const std::string& target, int thread, int count,
                   std::atomic<int>& total_acks, ThreadLog& log) {
  Client client(target);
  uint64_t version = 0;
  for (int n = 0; n < count; ++n) {
    const std::string id = absl::StrCat("r", log.replica, "t", thread, "-", n);
    log.sent.push_back(id);
    while (true) {
      v1::AppendEventsResponse response;
      grpc::Status s = client.Append(log.game, version, id,
                                     CycleEvent(version + 1), &response);
      if (s.ok()) {
        version = response.version();
        log.acks.push_back({id, version, response.head_hash()});
        ++total_acks;
        break;
      }
      if (s.error_code() != grpc::StatusCode::ABORTED ||
          ++log.stale_retries > 5000) {
        log.stopped_by = absl::StrCat(s.error_code(), " ", s.error_message());
        return;
      }
      absl::StatusOr<uint64_t> current = client.Version(log.game);
      if (!current.ok()) {
        log.stopped_by = std::string(current.status().message());
        return;
      }
      version = *current;
    }
  }
}

// Checks a game read back against what its threads were told: seqs 1..n,
// the cycle's event at each position, no id twice, every acknowledged
// event where its answer said with its head hash, each thread's events in
// its order, at most one unacknowledged event per thread cut off.
void CheckGame(const v1::ReadEventsResponse& read,
               const std::vector<const ThreadLog*>& logs) {
  std::map<std::string, int> position;
  for (int i = 0; i < read.events_size(); ++i) {
    const v1::StoredEvent& e = read.events(i);
    EXPECT_EQ(e.event().seq(), static_cast<uint64_t>(i + 1));
    // Server dice add the initiative roll to a turn_start.
    v1::Event got = e.event();
    if (got.has_turn_start()) got.mutable_turn_start()->clear_initiative_dice();
    EXPECT_EQ(got.SerializeAsString(), CycleEvent(i + 1).SerializeAsString())
        << "position " << i + 1;
    EXPECT_TRUE(position.emplace(e.event_id(), i + 1).second)
        << e.event_id() << " is stored twice";
  }
  EXPECT_EQ(read.version(), static_cast<uint64_t>(read.events_size()));
  std::set<std::string> sent;
  for (const ThreadLog* log : logs) {
    sent.insert(log->sent.begin(), log->sent.end());
    for (const Ack& ack : log->acks) {
      auto it = position.find(ack.id);
      ASSERT_NE(it, position.end()) << ack.id << " was acknowledged but lost";
      EXPECT_EQ(static_cast<uint64_t>(it->second), ack.version) << ack.id;
      EXPECT_EQ(read.events(it->second - 1).chain_hash(), ack.head_hash);
    }
    int last = 0;
    int stored = 0;
    for (const std::string& id : log->sent) {
      auto it = position.find(id);
      if (it == position.end()) continue;
      EXPECT_GT(it->second, last) << id << " is out of its thread's order";
      last = it->second;
      ++stored;
    }
    EXPECT_GE(stored, static_cast<int>(log->acks.size()));
    EXPECT_LE(stored, static_cast<int>(log->acks.size()) + 1);
  }
  for (const auto& [id, pos] : position) {
    EXPECT_TRUE(sent.contains(id)) << id << " at " << pos;
  }
}

TEST_F(ReplicasTest, ThreeReplicasAppendToOneGameAndExactlyOneWinsEachVersion) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(3));
  ASSERT_TRUE(ClientOf(0)->Create("shared", v1::DICE_MODE_RECORDED).ok());
  ASSERT_TRUE(ClientOf(1)->Create("dice", v1::DICE_MODE_SERVER).ok());
  // Two threads on each replica on "shared"; one on each on "dice".
  std::vector<ThreadLog> logs;
  for (int r = 0; r < 3; ++r) {
    logs.push_back({"shared", r, {}, {}, 0, ""});
    logs.push_back({"shared", r, {}, {}, 0, ""});
    logs.push_back({"dice", r, {}, {}, 0, ""});
  }
  constexpr int kEach = 25;
  std::atomic<int> acks{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < logs.size(); ++t) {
    threads.emplace_back(AppendThrough, replicas_[logs[t].replica]->target(),
                         static_cast<int>(t), kEach, std::ref(acks),
                         std::ref(logs[t]));
  }
  for (std::thread& t : threads) t.join();
  int retries = 0;
  for (const ThreadLog& log : logs) {
    EXPECT_EQ(log.stopped_by, "");
    EXPECT_EQ(log.acks.size(), static_cast<size_t>(kEach));
    retries += log.stale_retries;
  }
  std::cout << logs.size() << " threads on 3 replicas: " << acks.load()
            << " appends acknowledged, " << retries
            << " refused as built on a stale version and retried\n";
  for (const std::string game : {"shared", "dice"}) {
    SCOPED_TRACE(game);
    std::vector<const ThreadLog*> own;
    for (const ThreadLog& log : logs) {
      if (log.game == game) own.push_back(&log);
    }
    // Every replica serves the same game.
    uint64_t version = 0;
    for (int r = 0; r < 3; ++r) {
      auto read = ClientOf(r)->ReadAll(game);
      ASSERT_TRUE(read.ok()) << read.status();
      EXPECT_EQ(read->events_size(), kEach * static_cast<int>(own.size()));
      CheckGame(*read, own);
      version = read->version();
      v1::AuditGameResponse audit;
      ASSERT_TRUE(ClientOf(r)->Audit(game, &audit).ok());
      EXPECT_EQ(audit.report().summary().violations(), 0u);
      EXPECT_EQ(audit.report().events_replayed(),
                static_cast<uint64_t>(read->events_size()));
    }
    if (game == "dice") {
      // Ended, the game reveals its secret: gunbai verify then re-derives
      // every die the three replicas rolled.
      v1::Event end;
      end.set_seq(version + 1);
      end.set_turn(CycleEvent(version).turn());
      end.mutable_game_end();
      v1::AppendEventsResponse response;
      grpc::Status s =
          ClientOf(2)->Append(game, version, "end", end, &response);
      ASSERT_TRUE(s.ok()) << s.error_message();
    }
    std::string first_export;
    for (int r = 0; r < 3; ++r) {
      const std::string exported = ExportAndVerify(r, game);
      if (r == 0) first_export = exported;
      EXPECT_EQ(exported, first_export) << "replica " << r;
    }
  }
}

// A client that gives up waiting and sends its batch again elsewhere while
// the first call is still in flight: the README promises a retried batch is
// answered, never stored twice, on any replica. Eight identical
// AppendEvents (one batch: the same id, event and expected version) sent at
// once through three replicas, 40 rounds: every call is answered OK with
// the same bytes, and the game grows by exactly one event a round. (Before
// the store looked the batch up again under the game's lock, 66 of 320
// answers were ABORTED "stale version" and 9 ALREADY_EXISTS.)
TEST_F(ReplicasTest,
       IdenticalRetriesSentAtOnceToThreeReplicasAreAnsweredAlike) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(3));
  ASSERT_TRUE(ClientOf(0)->Create("retried", v1::DICE_MODE_RECORDED).ok());
  constexpr int kRounds = 40;
  constexpr int kSenders = 8;
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 0; c < kSenders; ++c) clients.push_back(ClientOf(c % 3));
  int not_ok = 0;
  int answered_otherwise = 0;
  for (uint64_t version = 0; version < kRounds; ++version) {
    const v1::Event event = CycleEvent(version + 1);
    const std::string id = absl::StrCat("batch-", version + 1);
    std::vector<grpc::Status> statuses(kSenders);
    std::vector<v1::AppendEventsResponse> answers(kSenders);
    std::atomic<int> ready{0};
    std::vector<std::thread> senders;
    for (int c = 0; c < kSenders; ++c) {
      senders.emplace_back([&, c] {
        // All eight leave together.
        ready.fetch_add(1);
        while (ready.load() < kSenders) std::this_thread::yield();
        statuses[c] =
            clients[c]->Append("retried", version, id, event, &answers[c]);
      });
    }
    for (std::thread& t : senders) t.join();
    for (int c = 0; c < kSenders; ++c) {
      if (!statuses[c].ok()) {
        ++not_ok;
        ADD_FAILURE() << "round " << version + 1 << ", sender " << c
                      << " (replica " << c % 3
                      << "): " << statuses[c].error_code() << " "
                      << statuses[c].error_message();
      } else if (answers[c].SerializeAsString() !=
                 answers[0].SerializeAsString()) {
        ++answered_otherwise;
      }
    }
    EXPECT_EQ(answers[0].version(), version + 1) << "round " << version + 1;
  }
  EXPECT_EQ(not_ok, 0);
  EXPECT_EQ(answered_otherwise, 0);
  for (int r = 0; r < 3; ++r) {
    auto read = ClientOf(r)->ReadAll("retried");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->events_size(), kRounds) << "replica " << r;
  }
  std::cout << kRounds * kSenders
            << " identical appends over 3 replicas: " << not_ok << " refused, "
            << answered_otherwise << " answered otherwise\n";
}

// `gunbai health` asked of replica `i` for `service` ("" for the daemon):
// its exit code (0 SERVING, 1 answered otherwise) and the status it printed.
struct HealthAnswer {
  int code = -1;
  std::string status;
};

// Health through a PostgreSQL stop and start (issue 31, item 3): the
// live-games service (readiness: "gunbai.v1.GameService", GET /readyz) is
// NOT_SERVING while the store does not answer, found without any client
// call (the daemon asks its store every 5 s while serving), and SERVING
// again once the database is back (asked every second while failing); the
// daemon itself ("", GET /livez) stays SERVING throughout, so a liveness
// probe does not restart it.
TEST_F(ReplicasTest, HealthFollowsTheStoreThroughADatabaseStopAndStart) {
  if (replicas_.empty()) replicas_.resize(1);
  auto started = GunbaidProcess::Start(
      dir_.path() + "/unused-data", token_file_, dir_.path(),
      {"--store=" + uri_, "--store-password-file=" + Server().password_file(),
       "--http=127.0.0.1:0"});
  ASSERT_TRUE(started.ok()) << started.status();
  replicas_[0] = *std::move(started);
  const auto ask = [&](const std::string& service) {
    HealthAnswer answer;
    // The daemon's own health is asked with no --service.
    const std::string flag =
        service.empty() ? "" : absl::StrCat(" --service=", service);
    answer.code = Shell(absl::StrCat(GUNBAI_PATH, " health --server=",
                                     replicas_[0]->target(), flag, " 2>&1"),
                        &answer.status);
    while (!answer.status.empty() && answer.status.back() == '\n') {
      answer.status.pop_back();
    }
    return answer;
  };
  httplib::Client web("127.0.0.1", replicas_[0]->http_port());
  web.set_read_timeout(5, 0);
  // The HTTP status of GET `path`, as text ("none" without an answer).
  const auto http = [&](const std::string& path) {
    const httplib::Result got = web.Get(path.c_str());
    return got ? std::to_string(got->status) : std::string("none");
  };
  constexpr char kGames[] = "gunbai.v1.GameService";
  ASSERT_TRUE(ClientOf(0)->Create("healthy", v1::DICE_MODE_RECORDED).ok());
  EXPECT_EQ(ask(kGames).status, "SERVING");
  EXPECT_EQ(http("/readyz"), "200");
  // The database goes away; no client calls.
  ASSERT_TRUE(Server().Stop().ok());
  bool resumed = false;
  const absl::Cleanup resume = [&] {
    if (!resumed) (void)Server().Resume();
  };
  // Asks the live games' health every 0.1 s until it says `status` (15 s
  // at most); prints how long it took after `what`.
  const auto await = [&](const std::string& status, const char* what) {
    const auto since = steady_clock::now();
    HealthAnswer games = ask(kGames);
    while (games.status != status &&
           steady_clock::now() - since < seconds(15)) {
      std::this_thread::sleep_for(milliseconds(100));
      games = ask(kGames);
    }
    std::cout << what << ": " << games.status << " after "
              << std::chrono::duration_cast<milliseconds>(steady_clock::now() -
                                                          since)
                     .count()
              << " ms\n";
    return games;
  };
  HealthAnswer games = await("NOT_SERVING", "store lost, no client call");
  EXPECT_EQ(games.status, "NOT_SERVING");
  EXPECT_EQ(games.code, 1);
  EXPECT_EQ(http("/readyz"), "503");
  const HealthAnswer daemon = ask("");
  EXPECT_EQ(daemon.status, "SERVING");
  EXPECT_EQ(daemon.code, 0);
  EXPECT_EQ(http("/livez"), "200");
  // A call now fails as the store's (UNAVAILABLE), and health stays down.
  v1::AppendEventsResponse response;
  const grpc::Status refused =
      ClientOf(0)->Append("healthy", 0, "first", CycleEvent(1), &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE)
      << refused.error_message();
  EXPECT_EQ(ask(kGames).status, "NOT_SERVING");
  // Back: SERVING again within a few probes, and appends go through.
  ASSERT_TRUE(Server().Resume().ok());
  resumed = true;
  games = await("SERVING", "store back");
  EXPECT_EQ(games.status, "SERVING");
  EXPECT_EQ(games.code, 0);
  EXPECT_EQ(http("/readyz"), "200");
  const grpc::Status appended =
      ClientOf(0)->Append("healthy", 0, "first", CycleEvent(1), &response);
  EXPECT_TRUE(appended.ok()) << appended.error_message();
}

TEST_F(ReplicasTest, AWatchOnOneReplicaSeesAppendsMadeThroughTheOthers) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(3));
  ASSERT_TRUE(ClientOf(0)->Create("watched", v1::DICE_MODE_RECORDED).ok());
  // The watch is on replica 1; the appends go through replicas 0 and 2.
  Client watcher(replicas_[1]->target());
  grpc::ClientContext context;
  Client::Prepare(context);
  v1::WatchGameRequest request;
  request.set_game_id("watched");
  request.set_from_seq(1);
  auto reader = watcher.stub().WatchGame(&context, request);
  std::vector<uint64_t> seen;
  std::vector<double> delays_ms;
  std::vector<steady_clock::time_point> sent_at(9);
  std::thread appender([&] {
    for (uint64_t v = 0; v < 8; ++v) {
      Client through(replicas_[v % 2 == 0 ? 0 : 2]->target());
      v1::AppendEventsResponse response;
      sent_at[v + 1] = steady_clock::now();
      grpc::Status s = through.Append("watched", v, absl::StrCat("w", v + 1),
                                      CycleEvent(v + 1), &response);
      EXPECT_TRUE(s.ok()) << s.error_message();
      std::this_thread::sleep_for(milliseconds(50));
    }
  });
  v1::WatchGameResponse response;
  while (seen.size() < 8 && reader->Read(&response)) {
    const uint64_t seq = response.event().event().seq();
    seen.push_back(seq);
    delays_ms.push_back(std::chrono::duration<double, std::milli>(
                            steady_clock::now() - sent_at[seq])
                            .count());
    EXPECT_EQ(response.event().event_id(), absl::StrCat("w", seq));
  }
  appender.join();
  context.TryCancel();
  EXPECT_EQ(seen, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  double worst = 0;
  for (double d : delays_ms) worst = std::max(worst, d);
  std::cout << "watch on replica 1 saw appends through 0 and 2; the slowest "
               "arrived "
            << worst << " ms after its append was sent\n";
}

TEST_F(ReplicasTest, AReplicaKilledMidAppendLosesNothingItAcknowledged) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(3));
  ASSERT_TRUE(ClientOf(0)->Create("crash", v1::DICE_MODE_RECORDED).ok());
  std::vector<ThreadLog> logs;
  for (int r = 0; r < 3; ++r) {
    logs.push_back({"crash", r, {}, {}, 0, ""});
    logs.push_back({"crash", r, {}, {}, 0, ""});
  }
  constexpr int kEach = 40;
  std::atomic<int> acks{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < logs.size(); ++t) {
    threads.emplace_back(AppendThrough, replicas_[logs[t].replica]->target(),
                         static_cast<int>(t), kEach, std::ref(acks),
                         std::ref(logs[t]));
  }
  const auto deadline = steady_clock::now() + seconds(120);
  while (acks < 60 && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  replicas_[1]->Kill();  // Mid-stream: its two threads have calls in flight.
  for (std::thread& t : threads) t.join();
  // The killed replica's threads were cut off; the others finished.
  for (const ThreadLog& log : logs) {
    if (log.replica == 1) {
      EXPECT_NE(log.stopped_by, "");
      EXPECT_LT(log.acks.size(), static_cast<size_t>(kEach));
    } else {
      EXPECT_EQ(log.stopped_by, "");
      EXPECT_EQ(log.acks.size(), static_cast<size_t>(kEach));
    }
  }
  // Read through a survivor, and through the killed replica restarted.
  ASSERT_NO_FATAL_FAILURE(StartReplica(1));
  std::vector<const ThreadLog*> own;
  for (const ThreadLog& log : logs) own.push_back(&log);
  for (int r : {0, 1}) {
    auto read = ClientOf(r)->ReadAll("crash");
    ASSERT_TRUE(read.ok()) << read.status();
    CheckGame(*read, own);
  }
  ExportAndVerify(2, "crash");
}

// A rolling upgrade: replica 1 gets SIGTERM while clients append through
// it; it finishes the calls in flight and exits 0 within its shutdown bound
// (5 s of grace), its watch ends UNAVAILABLE saying to watch again, and its
// clients go on through replica 2; nothing acknowledged is lost.
TEST_F(ReplicasTest, ASigtermedReplicaFinishesItsCallsAndItsClientsMoveOn) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(3));
  ASSERT_TRUE(ClientOf(0)->Create("rolling", v1::DICE_MODE_RECORDED).ok());
  // A watch on the replica that stops.
  Client watcher(replicas_[1]->target());
  grpc::ClientContext watch_context;
  Client::Prepare(watch_context);
  v1::WatchGameRequest watch_request;
  watch_request.set_game_id("rolling");
  auto watch = watcher.stub().WatchGame(&watch_context, watch_request);
  std::vector<ThreadLog> logs = {{"rolling", 0, {}, {}, 0, ""},
                                 {"rolling", 1, {}, {}, 0, ""},
                                 {"rolling", 1, {}, {}, 0, ""}};
  constexpr int kEach = 30;
  std::atomic<int> acks{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < logs.size(); ++t) {
    threads.emplace_back([&, t] {
      ThreadLog& log = logs[t];
      AppendThrough(replicas_[log.replica]->target(), static_cast<int>(t),
                    kEach, acks, log);
      if (log.stopped_by.empty()) return;
      // Cut off by the stopping replica: the rest goes through replica 2.
      ThreadLog rest{"rolling", 2, {}, {}, 0, ""};
      const size_t done = log.acks.size();
      AppendThrough(replicas_[2]->target(), static_cast<int>(t) + 100,
                    kEach - static_cast<int>(done), acks, rest);
      log.sent.insert(log.sent.end(), rest.sent.begin(), rest.sent.end());
      log.acks.insert(log.acks.end(), rest.acks.begin(), rest.acks.end());
      log.stopped_by = rest.stopped_by;
    });
  }
  const auto deadline = steady_clock::now() + seconds(120);
  while (acks < 20 && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  const auto stop_started = steady_clock::now();
  absl::StatusOr<int> exit_status = replicas_[1]->Terminate(seconds(20));
  const double stop_seconds =
      std::chrono::duration<double>(steady_clock::now() - stop_started).count();
  ASSERT_TRUE(exit_status.ok()) << exit_status.status();
  EXPECT_TRUE(WIFEXITED(*exit_status) && WEXITSTATUS(*exit_status) == 0)
      << *exit_status;
  EXPECT_LT(stop_seconds, 10.0) << "past the shutdown bound";
  v1::WatchGameResponse seen;
  while (watch->Read(&seen)) {
  }
  grpc::Status ended = watch->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE)
      << ended.error_message();
  EXPECT_NE(ended.error_message().find("watch again"), std::string::npos)
      << ended.error_message();
  for (std::thread& t : threads) t.join();
  std::vector<const ThreadLog*> own;
  for (const ThreadLog& log : logs) {
    EXPECT_EQ(log.stopped_by, "");
    EXPECT_EQ(log.acks.size(), static_cast<size_t>(kEach));
    own.push_back(&log);
  }
  auto read = ClientOf(0)->ReadAll("rolling");
  ASSERT_TRUE(read.ok()) << read.status();
  CheckGame(*read, own);
  std::cout << "replica 1 stopped in " << stop_seconds
            << " s after SIGTERM; its clients finished through replica 2\n";
  ExportAndVerify(2, "rolling");
}

TEST_F(ReplicasTest, MigratesASqliteDirectoryIntoTheDatabase) {
  // A single-host gunbaid on SQLite with three games: one ended with
  // server dice, one in play, one empty.
  const std::string sqlite_dir = dir_.path() + "/sqlite-data";
  auto single = GunbaidProcess::Start(sqlite_dir, token_file_, dir_.path());
  ASSERT_TRUE(single.ok()) << single.status();
  Client before((*single)->target());
  ASSERT_TRUE(before.Create("ended", v1::DICE_MODE_SERVER).ok());
  ASSERT_TRUE(before.Create("in-play", v1::DICE_MODE_RECORDED).ok());
  ASSERT_TRUE(before.Create("empty", v1::DICE_MODE_RECORDED).ok());
  for (uint64_t v = 0; v < 10; ++v) {
    v1::AppendEventsResponse response;
    ASSERT_TRUE(before
                    .Append("ended", v, absl::StrCat("e", v + 1),
                            CycleEvent(v + 1), &response)
                    .ok());
    ASSERT_TRUE(before
                    .Append("in-play", v, absl::StrCat("p", v + 1),
                            CycleEvent(v + 1), &response)
                    .ok());
  }
  v1::Event end;
  end.set_seq(11);
  end.set_turn(3);
  end.mutable_game_end();
  v1::AppendEventsResponse ended_answer;
  ASSERT_TRUE(before.Append("ended", 10, "end", end, &ended_answer).ok());
  std::map<std::string, v1::ExportGameResponse> exports;
  for (const char* game : {"ended", "in-play", "empty"}) {
    ASSERT_TRUE(before.Export(game, &exports[game]).ok());
  }
  ASSERT_TRUE((*single)->Terminate(seconds(30)).ok());

  const std::string migrate = absl::StrCat(
      GUNBAI_PATH, " store migrate --from=sqlite:", sqlite_dir, " --to=", uri_,
      " --to-password-file=", Server().password_file());
  std::string out;
  ASSERT_EQ(Shell(migrate + " --quiet", &out), 0) << out;
  // By hand: 3 games; "ended" has 11 events in 11 batches, "in-play" 10 in
  // 10, "empty" none.
  EXPECT_EQ(out,
            "migrated 3 games (0 already whole in the target): 21 events in "
            "21 batches copied; every game verified\n");
  // Again: everything is there already, and nothing is copied twice.
  ASSERT_EQ(Shell(migrate + " --format=json --quiet", &out), 0) << out;
  EXPECT_EQ(out,
            "{\"games\":3,\"already_there\":3,\"events\":0,\"batches\":0,"
            "\"verified\":true}\n");

  ASSERT_NO_FATAL_FAILURE(StartReplicas(1));
  auto after = ClientOf(0);
  for (const char* game : {"ended", "in-play", "empty"}) {
    SCOPED_TRACE(game);
    v1::ExportGameResponse exported;
    ASSERT_TRUE(after->Export(game, &exported).ok());
    EXPECT_EQ(exported.SerializeAsString(), exports[game].SerializeAsString());
    ExportAndVerify(0, game);
  }
  // A batch retried across the move is answered as it first was.
  v1::AppendEventsResponse retried;
  ASSERT_TRUE(after->Append("ended", 10, "end", end, &retried).ok());
  EXPECT_EQ(retried.SerializeAsString(), ended_answer.SerializeAsString());
  // The game in play goes on in the database.
  v1::AppendEventsResponse next;
  ASSERT_TRUE(after->Append("in-play", 10, "p11", CycleEvent(11), &next).ok());
  EXPECT_EQ(next.version(), 11u);
  // A target holding another game of the same id is refused, exit 2.
  ASSERT_EQ(Shell(migrate + " --quiet 2>&1", &out), 2) << out;
  EXPECT_NE(out.find("game in-play"), std::string::npos) << out;
}

}  // namespace
}  // namespace gunbai::testing
