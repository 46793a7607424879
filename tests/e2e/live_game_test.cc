// End-to-end tests of gunbaid's GameService at the RPC level: the real
// daemon binary on 127.0.0.1:0 over a fresh data directory, real channels.
// Each test owns its daemons (SIGKILLed on destruction) and its directory.
//  - every credential case, with the exact gRPC code;
//  - server dice: rolled on append, the secret revealed only at game_end,
//    every die re-derivable, a forged die caught even under a valid chain;
//  - a SIGKILL in the middle of concurrent appends loses no acknowledged
//    event and duplicates none.
// The CLI flows are in live_game_test.sh.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ledger.h"
#include "replay/reconcile.h"
#include "replay/ruleset_loader.h"
#include "replay/server_dice.h"
#include "rules/digest.h"
#include "service/cli/cli.h"
#include "tests/store/postgres_server.h"

extern char** environ;

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

// The built-in Daimyo ruleset, whose dice counts the server rolls.
const replay::LoadedRuleset& Daimyo() {
  static const auto* const kDaimyo =
      new replay::LoadedRuleset(*replay::BuiltinRuleset("daimyo"));
  return *kDaimyo;
}

constexpr seconds kStartTimeout{30};
constexpr seconds kCallTimeout{30};

// A fresh directory under the test's temp dir, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = absl::StrCat(::testing::TempDir(), "/live-XXXXXX");
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A gunbaid child process serving live games from `data_dir`, with the
// umpire token in a file. Killed (SIGKILL) and reaped on destruction.
class Gunbaid {
 public:
  // Starts gunbaid on 127.0.0.1:0 and waits for its "gunbaid listening on"
  // line. Returns Internal when it cannot be spawned or exits first,
  // DeadlineExceeded when the line does not come in time.
  // Its stderr goes to a file in `log_dir`.
  static absl::StatusOr<std::unique_ptr<Gunbaid>> Start(
      const std::string& data_dir, const std::string& token_file,
      const std::string& log_dir,
      const std::vector<std::string>& extra_args = {}) {
    auto child = std::unique_ptr<Gunbaid>(new Gunbaid());
    child->stderr_path_ =
        absl::StrCat(log_dir, "/gunbaid-", next_id_++, ".err");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError("pipe2");
    child->stdout_fd_ = fds[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                     child->stderr_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {GUNBAID_PATH,  "--listen",
                                     "127.0.0.1:0", "--data-dir",
                                     data_dir,      "--umpire-token-file",
                                     token_file};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (std::string& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&child->pid_, GUNBAID_PATH, &actions, nullptr,
                               argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      child->pid_ = -1;
      return absl::InternalError(absl::StrCat("cannot spawn ", GUNBAID_PATH));
    }
    absl::Status listening = child->ReadPort();
    if (!listening.ok()) return listening;
    return child;
  }

  ~Gunbaid() {
    Kill();
    if (stdout_fd_ >= 0) close(stdout_fd_);
  }

  // Kills the process with SIGKILL and reaps it.
  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  pid_t pid() const { return pid_; }
  std::string target() const { return absl::StrCat("127.0.0.1:", port_); }

  // Returns what the process wrote to stderr so far.
  std::string Stderr() const {
    std::ifstream in(stderr_path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  Gunbaid() = default;

  absl::Status ReadPort() {
    const auto deadline = steady_clock::now() + kStartTimeout;
    std::string line;
    while (true) {
      const auto left = std::chrono::duration_cast<milliseconds>(
          deadline - steady_clock::now());
      pollfd p = {stdout_fd_, POLLIN, 0};
      if (left.count() <= 0 ||
          poll(&p, 1, static_cast<int>(left.count())) == 0) {
        return absl::DeadlineExceededError(
            absl::StrCat("no line from gunbaid in time; stderr: ", Stderr()));
      }
      char c;
      if (read(stdout_fd_, &c, 1) <= 0) {
        return absl::InternalError(
            absl::StrCat("gunbaid exited; stderr: ", Stderr()));
      }
      if (c == '\n') break;
      line.push_back(c);
    }
    constexpr absl::string_view kPrefix = "gunbaid listening on 127.0.0.1:";
    if (!absl::StartsWith(line, kPrefix) ||
        !absl::SimpleAtoi(line.substr(kPrefix.size()), &port_) || port_ <= 0) {
      return absl::InternalError(absl::StrCat("unexpected line: ", line));
    }
    return absl::OkStatus();
  }

  static inline int next_id_ = 0;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  std::string stderr_path_;
};

// Returns anegawa's header (with `game_id`) and order of battle, as a
// CreateGameRequest.
v1::CreateGameRequest AnegawaGame(const std::string& game_id,
                                  v1::AppendPolicy policy,
                                  v1::DiceMode dice_mode) {
  std::ifstream in(absl::StrCat(GUNBAI_TEST_DATA, "/anegawa-clean.textproto"));
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  v1::CreateGameRequest request;
  *request.mutable_header() = log.header();
  request.mutable_header()->set_game_id(game_id);
  *request.mutable_order_of_battle() = log.order_of_battle();
  request.mutable_settings()->set_policy(policy);
  request.mutable_settings()->set_dice_mode(dice_mode);
  return request;
}

// Parses an event in text format; fails the test when it does not parse.
v1::Event ParseEvent(absl::string_view text) {
  v1::Event event;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(std::string(text), &event))
      << text;
  return event;
}

// A client of one daemon holding one credential (or none, when empty).
class Client {
 public:
  Client(const std::string& target, std::string token)
      : stub_(v1::GameService::NewStub(
            grpc::CreateChannel(target, grpc::InsecureChannelCredentials()))),
        token_(std::move(token)) {}

  // Sends `header` as the authorization metadata instead of the token.
  void SetRawAuthorization(std::string header) {
    raw_authorization_ = std::move(header);
  }

  grpc::Status Create(const v1::CreateGameRequest& request,
                      v1::CreateGameResponse* response) {
    grpc::ClientContext context;
    Prepare(context);
    return stub_->CreateGame(&context, request, response);
  }

  grpc::Status Append(
      const std::string& game, uint64_t expected_version,
      const std::vector<std::pair<std::string, v1::Event>>& events,
      v1::AppendEventsResponse* response) {
    v1::AppendEventsRequest request;
    request.set_game_id(game);
    request.set_expected_version(expected_version);
    for (const auto& [id, event] : events) {
      v1::AppendedEvent* appended = request.add_events();
      appended->set_event_id(id);
      *appended->mutable_event() = event;
    }
    grpc::ClientContext context;
    Prepare(context);
    return stub_->AppendEvents(&context, request, response);
  }

  grpc::Status Read(const std::string& game, v1::ReadEventsResponse* response,
                    uint64_t from_seq = 0) {
    v1::ReadEventsRequest request;
    request.set_game_id(game);
    request.set_from_seq(from_seq);
    grpc::ClientContext context;
    Prepare(context);
    return stub_->ReadEvents(&context, request, response);
  }

  grpc::Status State(const std::string& game) {
    v1::GetGameStateRequest request;
    request.set_game_id(game);
    v1::GetGameStateResponse response;
    grpc::ClientContext context;
    Prepare(context);
    return stub_->GetGameState(&context, request, &response);
  }

  grpc::Status Audit(const std::string& game, v1::AuditGameResponse* response) {
    v1::AuditGameRequest request;
    request.set_game_id(game);
    grpc::ClientContext context;
    Prepare(context);
    return stub_->AuditGame(&context, request, response);
  }

  grpc::Status Export(const std::string& game,
                      v1::ExportGameResponse* response) {
    v1::ExportGameRequest request;
    request.set_game_id(game);
    grpc::ClientContext context;
    Prepare(context);
    return stub_->ExportGame(&context, request, response);
  }

  // Opens a watch and returns how it ended, reading for at most `wait`.
  grpc::Status Watch(const std::string& game, milliseconds wait) {
    v1::WatchGameRequest request;
    request.set_game_id(game);
    grpc::ClientContext context;
    Prepare(context);
    context.set_deadline(std::chrono::system_clock::now() + wait);
    auto reader = stub_->WatchGame(&context, request);
    v1::WatchGameResponse response;
    while (reader->Read(&response)) {
    }
    return reader->Finish();
  }

  // Returns the version of `game`, or the failed call's status.
  absl::StatusOr<uint64_t> Version(const std::string& game) {
    v1::ReadEventsResponse response;
    grpc::Status s = Read(game, &response, UINT64_MAX);
    if (!s.ok()) return absl::UnavailableError(s.error_message());
    return response.version();
  }

 private:
  void Prepare(grpc::ClientContext& context) const {
    if (!raw_authorization_.empty()) {
      context.AddMetadata("authorization", raw_authorization_);
    } else if (!token_.empty()) {
      context.AddMetadata("authorization", "Bearer " + token_);
    }
    context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  }

  std::unique_ptr<v1::GameService::Stub> stub_;
  std::string token_;
  std::string raw_authorization_;
};

// A daemon over a fresh data directory, with an umpire client.
class LiveGameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    token_file_ = dir_.path() + "/umpire.token";
    data_dir_ = dir_.path() + "/data";
    std::random_device random;
    umpire_token_ = absl::StrFormat("umpire-%08x%08x%08x%08x", random(),
                                    random(), random(), random());
    std::ofstream(token_file_) << umpire_token_ << "\n";
    ASSERT_NO_FATAL_FAILURE(StartDaemon());
  }

  void StartDaemon() {
    auto daemon =
        Gunbaid::Start(data_dir_, token_file_, dir_.path(), store_args_);
    ASSERT_TRUE(daemon.ok()) << daemon.status();
    daemon_ = *std::move(daemon);
    umpire_ = std::make_unique<Client>(daemon_->target(), umpire_token_);
  }

  // Creates a game from anegawa's armies; returns the credentials by clan.
  std::map<std::string, std::string> CreateGame(
      const std::string& id, v1::AppendPolicy policy = v1::APPEND_POLICY_STRICT,
      v1::DiceMode dice = v1::DICE_MODE_RECORDED,
      v1::CreateGameResponse* out = nullptr) {
    v1::CreateGameRequest request = AnegawaGame(id, policy, dice);
    if (dice == v1::DICE_MODE_SERVER) {
      v1::PlayerSeed* seed = request.add_player_seeds();
      seed->set_clan("oda");
      seed->set_seed_hex("0a1b2c");
      seed = request.add_player_seeds();
      seed->set_clan("asai");
      seed->set_seed_hex("ffee");
    }
    v1::CreateGameResponse response;
    grpc::Status s = umpire_->Create(request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(response.game_id(), id);
    std::map<std::string, std::string> tokens;
    for (const auto& c : response.credentials()) tokens[c.clan()] = c.token();
    EXPECT_EQ(tokens.size(), 2u);
    if (out != nullptr) *out = response;
    return tokens;
  }

  std::unique_ptr<Client> As(const std::string& token) {
    return std::make_unique<Client>(daemon_->target(), token);
  }

  // The crash test, on whichever store the daemon is given.
  void AcknowledgedAppendsSurviveSigkill();

  TempDir dir_;
  std::string token_file_;
  std::string data_dir_;
  std::string umpire_token_;
  // Flags naming the daemon's store: none (SQLite in data_dir_) or
  // --store=postgresql://... (LiveGamePostgresTest).
  std::vector<std::string> store_args_;
  std::unique_ptr<Gunbaid> daemon_;
  std::unique_ptr<Client> umpire_;
};

// The same daemon on a fresh database of a real PostgreSQL server, which
// this binary starts on first use (tests/store/postgres_server.h).
class LiveGamePostgresTest : public LiveGameTest {
 protected:
  // Stopped at exit, by the static's destructor.
  static gunbai::testing::PostgresServer& Server() {
    static std::unique_ptr<gunbai::testing::PostgresServer> server = [] {
      auto started = gunbai::testing::PostgresServer::Start();
      if (!started.ok()) {
        std::cerr << started.status() << "\n";
        std::abort();
      }
      return *std::move(started);
    }();
    return *server;
  }

  void SetUp() override {
    static int database = 0;
    auto uri = Server().CreateDatabase(absl::StrCat("live", database++));
    ASSERT_TRUE(uri.ok()) << uri.status();
    store_args_ = {"--store=" + *uri,
                   "--store-password-file=" + Server().password_file()};
    LiveGameTest::SetUp();
  }
};

constexpr absl::string_view kTurnStart =
    R"pb(seq: 1
         turn: 1
         turn_start { initiative_clan: "oda" })pb";
constexpr absl::string_view kOdaActivates = R"pb(seq: 2
                                                 turn: 1
                                                 clan: "oda"
                                                 activation {})pb";
constexpr absl::string_view kAsaiActivates = R"pb(seq: 2
                                                  turn: 1
                                                  clan: "asai"
                                                  activation {})pb";

// Expects `status` to carry `code`, saying so with `what`.
void ExpectCode(const grpc::Status& status, grpc::StatusCode code,
                absl::string_view what) {
  EXPECT_EQ(status.error_code(), code)
      << what << ": " << status.error_code() << " " << status.error_message();
}

TEST_F(LiveGameTest, EveryCredentialCase) {
  const auto a = CreateGame("live-a");
  const auto b = CreateGame("live-b");

  // The umpire token is read from a file, never from the command line.
  std::ifstream cmdline_file(
      absl::StrCat("/proc/", daemon_->pid(), "/cmdline"));
  std::string cmdline((std::istreambuf_iterator<char>(cmdline_file)),
                      std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(cmdline, "--umpire-token-file")) << cmdline;
  EXPECT_FALSE(absl::StrContains(cmdline, umpire_token_));

  const std::vector<std::pair<std::string, v1::Event>> oda_activates = {
      {"oda-activates", ParseEvent(kOdaActivates)}};
  v1::AppendEventsResponse appended;
  v1::ReadEventsResponse read;
  v1::AuditGameResponse audit;
  v1::ExportGameResponse exported;
  v1::CreateGameResponse created;
  const v1::CreateGameRequest game_c =
      AnegawaGame("live-c", v1::APPEND_POLICY_STRICT, v1::DICE_MODE_RECORDED);

  // Every call without a credential, or with a malformed one.
  for (const std::string raw : {"", "Basic dXNlcjpwYXNz"}) {
    Client nobody(daemon_->target(), "");
    nobody.SetRawAuthorization(raw);
    const grpc::StatusCode want = grpc::StatusCode::UNAUTHENTICATED;
    ExpectCode(nobody.Create(game_c, &created), want, "CreateGame");
    ExpectCode(nobody.Append("live-a", 0, oda_activates, &appended), want,
               "AppendEvents");
    ExpectCode(nobody.Read("live-a", &read), want, "ReadEvents");
    ExpectCode(nobody.State("live-a"), want, "GetGameState");
    ExpectCode(nobody.Audit("live-a", &audit), want, "AuditGame");
    ExpectCode(nobody.Export("live-a", &exported), want, "ExportGame");
    ExpectCode(nobody.Watch("live-a", seconds(10)), want, "WatchGame");
  }

  // Every call with a credential nobody was given, and with a player's of
  // another game.
  const std::string stranger = base::Sha256Hex("nobody's token");
  for (const std::string& token : {stranger, b.at("oda")}) {
    auto client = As(token);
    const grpc::StatusCode want = grpc::StatusCode::PERMISSION_DENIED;
    ExpectCode(client->Create(game_c, &created), want, "CreateGame");
    ExpectCode(client->Append("live-a", 0, oda_activates, &appended), want,
               "AppendEvents");
    ExpectCode(client->Read("live-a", &read), want, "ReadEvents");
    ExpectCode(client->State("live-a"), want, "GetGameState");
    ExpectCode(client->Audit("live-a", &audit), want, "AuditGame");
    ExpectCode(client->Export("live-a", &exported), want, "ExportGame");
    ExpectCode(client->Watch("live-a", seconds(10)), want, "WatchGame");
  }

  // A player reads its own game.
  auto oda = As(a.at("oda"));
  ASSERT_TRUE(oda->Read("live-a", &read).ok());
  EXPECT_EQ(read.version(), 0u);
  EXPECT_EQ(read.header().game_id(), "live-a");
  EXPECT_TRUE(oda->State("live-a").ok());
  EXPECT_TRUE(oda->Audit("live-a", &audit).ok());
  EXPECT_TRUE(oda->Export("live-a", &exported).ok());
  // A watch of its game that nothing ends runs until its deadline.
  ExpectCode(oda->Watch("live-a", milliseconds(500)),
             grpc::StatusCode::DEADLINE_EXCEEDED, "WatchGame");

  // A game that does not exist: the umpire learns so, a player does not.
  ExpectCode(oda->Read("live-nowhere", &read),
             grpc::StatusCode::PERMISSION_DENIED, "a player, unknown game");
  ExpectCode(umpire_->Read("live-nowhere", &read), grpc::StatusCode::NOT_FOUND,
             "the umpire, unknown game");

  // A player appends only its own clan's events; a refused batch writes
  // nothing, even its own events before the foreign one.
  ASSERT_TRUE(
      umpire_
          ->Append("live-a", 0, {{"start", ParseEvent(kTurnStart)}}, &appended)
          .ok());
  const std::vector<std::vector<std::pair<std::string, v1::Event>>> foreign = {
      {{"asai-activates", ParseEvent(kAsaiActivates)}},
      {{"oda-first", ParseEvent(kOdaActivates)},
       {"asai-second", ParseEvent(R"pb(seq: 3
                                       turn: 1
                                       clan: "asai"
                                       activation {})pb")}},
      {{"turn-end", ParseEvent(R"pb(seq: 2
                                    turn: 1
                                    turn_end {})pb")}},
  };
  for (const auto& batch : foreign) {
    grpc::Status s = oda->Append("live-a", 1, batch, &appended);
    ExpectCode(s, grpc::StatusCode::PERMISSION_DENIED, batch.back().first);
    EXPECT_TRUE(absl::StrContains(s.error_message(), "nothing was written"))
        << s.error_message();
    auto version = umpire_->Version("live-a");
    ASSERT_TRUE(version.ok()) << version.status();
    EXPECT_EQ(*version, 1u) << batch.back().first;
  }
  grpc::Status own = oda->Append("live-a", 1, oda_activates, &appended);
  ASSERT_TRUE(own.ok()) << own.error_message();
  EXPECT_EQ(appended.version(), 2u);

  // Only the umpire creates games.
  ExpectCode(oda->Create(game_c, &created), grpc::StatusCode::PERMISSION_DENIED,
             "a player creating a game");
  ExpectCode(umpire_->Read("live-c", &read), grpc::StatusCode::NOT_FOUND,
             "the game a player tried to create");
}

// Returns the dice key of an ended game from its revealed secret.
std::string RevealedKey(const v1::DiceCommitment& dice) {
  std::optional<std::string> secret =
      replay::HexToBytes(dice.revealed_secret());
  EXPECT_TRUE(secret.has_value());
  return replay::DiceKey(secret.value_or(""), dice.player_seeds());
}

TEST_F(LiveGameTest, ServerDiceSecretRevealedOnlyAtGameEnd) {
  v1::CreateGameResponse created;
  const auto tokens = CreateGame("live-dice", v1::APPEND_POLICY_STRICT,
                                 v1::DICE_MODE_SERVER, &created);
  const std::string commitment = created.dice().secret_sha256();
  EXPECT_EQ(commitment.size(), 64u);
  EXPECT_TRUE(created.dice().revealed_secret().empty());
  ASSERT_EQ(created.dice().player_seeds_size(), 2);
  EXPECT_EQ(created.dice().player_seeds(1).seed_hex(), "ffee");
  auto oda = As(tokens.at("oda"));
  auto asai = As(tokens.at("asai"));

  // Declared without dice or claims. oda-teppo fires 2 stands at asai-yumi:
  // at most 2 hits, and a stand goes at 3, so nothing is owed.
  struct Step {
    Client* client;
    std::vector<std::string> events;
  };
  const std::vector<Step> steps = {
      {umpire_.get(), {std::string(kTurnStart)}},
      {oda.get(),
       {std::string(kOdaActivates),
        R"pb(seq: 3
             turn: 1
             clan: "oda"
             firing {
               unit: "oda-teppo"
               target: "asai-yumi"
               stands_firing: 2
               facts { range: RANGE_BAND_EFFECTIVE }
             })pb"}},
      // Oda ends its part of the turn (a player's own turn_end closes its
      // activation: readings 31 and 32 of rules/daimyo/RULES.md).
      {oda.get(), {R"pb(seq: 4
                        turn: 1
                        clan: "oda"
                        turn_end {})pb"}},
      {umpire_.get(), {R"pb(seq: 5
                            turn: 1
                            turn_end {})pb"}},
  };
  uint64_t version = 0;
  std::vector<v1::StoredEvent> answered;
  // A player's copy saved before the game ended: its secret not revealed.
  v1::ExportedGame before_end;
  for (const Step& step : steps) {
    std::vector<std::pair<std::string, v1::Event>> batch;
    for (const std::string& text : step.events) {
      batch.emplace_back(absl::StrCat("e", version + batch.size() + 1),
                         ParseEvent(text));
    }
    v1::AppendEventsResponse response;
    grpc::Status s =
        step.client->Append("live-dice", version, batch, &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
    version = response.version();
    for (const auto& e : response.events()) answered.push_back(e);
    // Nobody sees the secret before game_end: not in a read, not in an export.
    v1::ReadEventsResponse read;
    ASSERT_TRUE(asai->Read("live-dice", &read).ok());
    EXPECT_EQ(read.dice().secret_sha256(), commitment);
    EXPECT_TRUE(read.dice().revealed_secret().empty()) << version;
    v1::ExportGameResponse exported;
    ASSERT_TRUE(umpire_->Export("live-dice", &exported).ok());
    EXPECT_TRUE(exported.game().dice().revealed_secret().empty()) << version;
    before_end = exported.game();
  }
  ASSERT_EQ(answered.size(), 5u);
  // gunbaid rolled the dice: 1 initiative die per clan, 2 per firing stand.
  EXPECT_EQ(answered[0].event().turn_start().initiative_dice_size(), 2);
  EXPECT_EQ(answered[2].event().firing().dice_size(), 4);
  for (uint32_t die : answered[2].event().firing().dice()) {
    EXPECT_GE(die, 1u);
    EXPECT_LE(die, 6u);
  }
  EXPECT_EQ(answered[1].dice_attempt(), 2u);
  EXPECT_EQ(answered[2].dice_attempt(), 2u);

  // Dice in a server-dice game are refused, and the attempt is burnt.
  v1::AppendEventsResponse refused;
  grpc::Status with_dice =
      oda->Append("live-dice", version,
                  {{"with-dice", ParseEvent(R"pb(seq: 6
                                                 turn: 2
                                                 turn_start {
                                                   initiative_clan: "oda"
                                                   initiative_dice: [ 6, 1 ]
                                                 })pb")}},
                  &refused);
  ExpectCode(with_dice, grpc::StatusCode::PERMISSION_DENIED,
             "a player appending a turn start");
  with_dice =
      umpire_->Append("live-dice", version,
                      {{"with-dice", ParseEvent(R"pb(seq: 6
                                                     turn: 2
                                                     turn_start {
                                                       initiative_clan: "oda"
                                                       initiative_dice: [ 6, 1 ]
                                                     })pb")}},
                      &refused);
  ExpectCode(with_dice, grpc::StatusCode::INVALID_ARGUMENT, "dice declared");

  v1::AppendEventsResponse ended;
  ASSERT_TRUE(umpire_
                  ->Append("live-dice", version,
                           {{"end", ParseEvent(R"pb(seq: 6
                                                    turn: 1
                                                    game_end {})pb")}},
                           &ended)
                  .ok());
  EXPECT_EQ(ended.events(0).dice_attempt(), 7u);

  // Now the secret is out, and it is the committed one.
  v1::ReadEventsResponse read;
  ASSERT_TRUE(oda->Read("live-dice", &read).ok());
  ASSERT_FALSE(read.dice().revealed_secret().empty());
  std::optional<std::string> secret =
      replay::HexToBytes(read.dice().revealed_secret());
  ASSERT_TRUE(secret.has_value());
  EXPECT_EQ(base::Sha256Hex(*secret), commitment);
  v1::ExportGameResponse exported;
  ASSERT_TRUE(asai->Export("live-dice", &exported).ok());
  const v1::ExportedGame& game = exported.game();
  EXPECT_EQ(game.dice().revealed_secret(), read.dice().revealed_secret());
  EXPECT_EQ(replay::VerifyChain(game), std::nullopt);
  auto dice_ok = replay::VerifyServerDice(game, Daimyo());
  EXPECT_EQ(dice_ok, std::nullopt) << dice_ok->reason;

  // Every die is the one the published derivation gives.
  const std::string key = RevealedKey(game.dice());
  for (int i = 0; i < game.log().events_size(); ++i) {
    const v1::Event& event = game.log().events(i);
    const std::vector<uint32_t> dice = replay::EventDice(event);
    for (std::size_t d = 0; d < dice.size(); ++d) {
      EXPECT_EQ(dice[d],
                replay::DeriveDie(key, "live-dice", game.dice_attempts(i),
                                  event.seq(), static_cast<uint32_t>(d)))
          << "event " << i << " die " << d;
    }
  }

  // The game chains from its terms (chain version 2): editing them (here
  // the ruleset digest and version, to make the verifier give no verdict on
  // the dice counts) without recomputing the chain breaks it at once.
  const std::string true_head = game.chain_hashes(game.chain_hashes_size() - 1);
  EXPECT_EQ(game.settings().chain_version(), replay::kTermsChainVersion);
  v1::ExportedGame forged = game;
  forged.mutable_settings()->set_ruleset_digest(std::string(64, '0'));
  forged.mutable_log()->mutable_header()->mutable_ruleset()->set_version("9");
  auto terms = replay::VerifyChain(forged);
  ASSERT_TRUE(terms.has_value());
  EXPECT_EQ(terms->index, 0);
  EXPECT_NE(terms->reason.find("the game's terms it chains from"),
            std::string::npos)
      << terms->reason;

  // A forger who also rewrites a die and recomputes the whole chain from
  // the edited terms passes the chain check, but ends at another head than
  // the one the players were given, and fails the dice check.
  auto* firing = forged.mutable_log()->mutable_events(2)->mutable_firing();
  const uint32_t real = firing->dice(0);
  firing->set_dice(0, real % 6 + 1);
  std::string head = replay::GameGenesis(
      forged.log().header(), forged.log().order_of_battle(), forged.settings(),
      forged.dice(), replay::FieldOf(forged.log()));
  for (int i = 0; i < forged.log().events_size(); ++i) {
    head = replay::ChainHash(head, forged.log().events(i));
    forged.set_chain_hashes(i, head);
  }
  EXPECT_EQ(replay::VerifyChain(forged), std::nullopt);
  EXPECT_NE(head, true_head);
  auto caught = replay::VerifyServerDice(forged, Daimyo());
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->index, 2);
  EXPECT_EQ(caught->reason,
            absl::StrCat("event at index 2 (seq 3): die 0 is ", real % 6 + 1,
                         " but the server's die there is ", real,
                         ": the dice are not the ones the server rolled"));

  // `gunbai verify` says TAMPERED (exit 1), though the forged terms name
  // another ruleset: a die's value needs no ruleset.
  const std::string path = absl::StrCat(dir_.path(), "/forged.textproto");
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(forged, &text));
  std::ofstream(path) << text;
  std::ostringstream out, err;
  EXPECT_EQ(service::RunCli({"verify", path}, out, err), service::kExitFindings)
      << out.str() << err.str();
  EXPECT_NE(out.str().find("TAMPERED: event at index 2"), std::string::npos)
      << out.str();

  // gunbai reconcile (issue 33, part 1): the honest export set against a
  // copy whose firing die 0 was rewritten and whose chain was recomputed
  // under the true terms (so its chain holds). The copies part at seq 3
  // with other dice; the server's dice support A, and name B's die 0.
  v1::ExportedGame rechained = game;
  rechained.mutable_log()->mutable_events(2)->mutable_firing()->set_dice(
      0, real % 6 + 1);
  head = replay::GameGenesis(
      rechained.log().header(), rechained.log().order_of_battle(),
      rechained.settings(), rechained.dice(), replay::FieldOf(rechained.log()));
  for (int i = 0; i < rechained.log().events_size(); ++i) {
    head = replay::ChainHash(head, rechained.log().events(i));
    rechained.set_chain_hashes(i, head);
  }
  const auto reconcile = [](const v1::ExportedGame& a,
                            const v1::ExportedGame& b) {
    absl::StatusOr<v1::Reconciliation> r =
        replay::Reconcile(replay::GameCopy{"A", a.log(), &a},
                          replay::GameCopy{"B", b.log(), &b}, Daimyo());
    EXPECT_TRUE(r.ok()) << r.status();
    return r.value_or(v1::Reconciliation());
  };
  v1::Reconciliation r = reconcile(game, rechained);
  EXPECT_EQ(r.shape(), v1::RECONCILE_SHAPE_OTHER_DICE);
  EXPECT_EQ(r.first_divergence_seq(), 3u);
  EXPECT_TRUE(r.b().chain_holds());
  EXPECT_EQ(r.a().dice(), v1::RECONCILE_DICE_SERVERS);
  EXPECT_EQ(r.b().dice(), v1::RECONCILE_DICE_NOT_SERVERS);
  EXPECT_EQ(r.b().dice_break_seq(), 3u);
  EXPECT_EQ(r.dice_support(), "A");
  EXPECT_NE(r.verdict().find("The server's dice support copy A"),
            std::string::npos)
      << r.verdict();
  EXPECT_NE(
      r.verdict().find(absl::StrCat("die 0 is ", real % 6 + 1,
                                    " but the server's die there is ", real)),
      std::string::npos)
      << r.verdict();
  // The other way round, B is supported.
  EXPECT_EQ(reconcile(rechained, game).dice_support(), "B");

  // A copy saved before the end (secret not revealed) is opened with the
  // ended copy's reveal, which matches its commitment: every die of both
  // is the server's; the ended copy goes on (its game_end).
  r = reconcile(before_end, game);
  EXPECT_EQ(r.shape(), v1::RECONCILE_SHAPE_PREFIX);
  EXPECT_EQ(r.longer_copy(), "B");
  EXPECT_EQ(r.a().dice(), v1::RECONCILE_DICE_SERVERS);
  EXPECT_EQ(r.b().dice(), v1::RECONCILE_DICE_SERVERS);
  EXPECT_EQ(r.dice_support(), "");
  EXPECT_NE(r.verdict().find("Every die of both copies is the one the server "
                             "rolled"),
            std::string::npos)
      << r.verdict();

  // Two copies saved before the end, one with its die rewritten: nobody
  // can check the dice yet, and the verdict says when they can be.
  v1::ExportedGame early_forged = before_end;
  early_forged.mutable_log()->mutable_events(2)->mutable_firing()->set_dice(
      0, real % 6 + 1);
  r = reconcile(before_end, early_forged);
  EXPECT_EQ(r.a().dice(), v1::RECONCILE_DICE_NOT_REVEALED);
  EXPECT_EQ(r.b().dice(), v1::RECONCILE_DICE_NOT_REVEALED);
  EXPECT_EQ(r.dice_support(), "");
  EXPECT_NE(r.verdict().find("cannot be checked yet"), std::string::npos)
      << r.verdict();

  // Through the CLI: exit 1 (the copies part) and a line per copy's dice.
  const std::string honest_path =
      absl::StrCat(dir_.path(), "/honest.textproto");
  const std::string rechained_path =
      absl::StrCat(dir_.path(), "/rechained.textproto");
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(game, &text));
  std::ofstream(honest_path) << text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(rechained, &text));
  std::ofstream(rechained_path) << text;
  std::ostringstream rout, rerr;
  EXPECT_EQ(
      service::RunCli({"reconcile", honest_path, rechained_path}, rout, rerr),
      service::kExitFindings)
      << rout.str() << rerr.str();
  EXPECT_NE(rout.str().find("Dice of A: every die is the server's"),
            std::string::npos)
      << rout.str();
  EXPECT_NE(rout.str().find("Dice of B: NOT the server's at seq 3"),
            std::string::npos)
      << rout.str();
}

// Regression: a record game stored an event whose seq did not increase (with
// a log.seq.order finding), and `gunbai verify` then called the honest
// export TAMPERED. Seqs order the stream (reads, watches, the chain check),
// so gunbaid refuses them whatever the policy, and writes nothing.
// A game is replayed under the ruleset its header names: a Samurai Knight
// Fever game is created with recorded dice; with server dice (which roll
// Daimyo's counts) it is refused and nothing is stored; a header naming an
// unknown ruleset is refused.
TEST_F(LiveGameTest, GamesOfOtherRulesets) {
  std::ifstream in(
      absl::StrCat(GUNBAI_TEST_DATA, "/skf-kawanakajima.textproto"));
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  v1::CreateGameRequest request;
  *request.mutable_header() = log.header();
  request.mutable_header()->set_game_id("live-skf");
  *request.mutable_order_of_battle() = log.order_of_battle();
  request.mutable_settings()->set_dice_mode(v1::DICE_MODE_SERVER);
  v1::CreateGameResponse created;
  grpc::Status refused = umpire_->Create(request, &created);
  ExpectCode(refused, grpc::StatusCode::INVALID_ARGUMENT, "skf, server dice");
  // The shipped example has no morale check, so gunbaid cannot know how
  // many dice one rolls (rules/skf/RULES.md, "Server dice").
  EXPECT_NE(refused.error_message().find("settings.dice_mode"),
            std::string::npos)
      << refused.error_message();
  EXPECT_NE(refused.error_message().find("skf.morale"), std::string::npos)
      << refused.error_message();
  request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
  ExpectCode(umpire_->Create(request, &created), grpc::StatusCode::OK,
             "skf, recorded dice");
  request.mutable_header()->set_game_id("live-unknown");
  request.mutable_header()->mutable_ruleset()->set_name("warhammer");
  grpc::Status unknown = umpire_->Create(request, &created);
  ExpectCode(unknown, grpc::StatusCode::INVALID_ARGUMENT, "unknown ruleset");
  EXPECT_NE(unknown.error_message().find("header.ruleset.name"),
            std::string::npos)
      << unknown.error_message();
}

TEST_F(LiveGameTest, RecordGameRefusesSeqThatDoesNotIncrease) {
  CreateGame("live-seq", v1::APPEND_POLICY_RECORD);
  v1::AppendEventsResponse response;
  ASSERT_TRUE(umpire_
                  ->Append("live-seq", 0, {{"start", ParseEvent(kTurnStart)}},
                           &response)
                  .ok());
  const std::vector<std::vector<std::pair<std::string, v1::Event>>> refused = {
      {{"again-1", ParseEvent(R"pb(seq: 1
                                   turn: 1
                                   clan: "oda"
                                   activation {})pb")}},
      {{"ok-2", ParseEvent(kOdaActivates)},
       {"again-2", ParseEvent(kAsaiActivates)}},
  };
  for (const auto& batch : refused) {
    grpc::Status s = umpire_->Append("live-seq", 1, batch, &response);
    ExpectCode(s, grpc::StatusCode::INVALID_ARGUMENT, batch.back().first);
    EXPECT_TRUE(absl::StrContains(s.error_message(), "seq"))
        << s.error_message();
    auto version = umpire_->Version("live-seq");
    ASSERT_TRUE(version.ok());
    EXPECT_EQ(*version, 1u);
  }
  ASSERT_TRUE(umpire_
                  ->Append("live-seq", 1, {{"oda", ParseEvent(kOdaActivates)}},
                           &response)
                  .ok());
  v1::ExportGameResponse exported;
  ASSERT_TRUE(umpire_->Export("live-seq", &exported).ok());
  EXPECT_EQ(exported.game().log().events_size(), 2);
  auto broken = replay::VerifyChain(exported.game());
  EXPECT_EQ(broken, std::nullopt) << broken->reason;
}

// Regression: gunbaid stores a batch and then, in a second write, marks the
// game ended when the batch holds game_end. A crash between the two left a
// game whose log has ended but whose secret was never revealed, and which
// still took events (a retry of the batch was answered from the store and
// did not mark it either). The ended mark is cleared in the file here, as
// such a crash leaves it; the restarted gunbaid must go by the log.
TEST_F(LiveGameTest, GameEndStoredButNotMarkedIsEndedAfterRestart) {
  CreateGame("live-end", v1::APPEND_POLICY_STRICT, v1::DICE_MODE_SERVER);
  v1::AppendEventsResponse response;
  uint64_t version = 0;
  for (absl::string_view text :
       {kTurnStart, absl::string_view(R"pb(seq: 2
                                           turn: 1
                                           turn_end {})pb"),
        absl::string_view(R"pb(seq: 3
                               turn: 1
                               game_end {})pb")}) {
    grpc::Status s = umpire_->Append(
        "live-end", version, {{absl::StrCat("e", version), ParseEvent(text)}},
        &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
    version = response.version();
  }
  daemon_->Kill();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((data_dir_ + "/gunbai.sqlite3").c_str(), &db),
            SQLITE_OK);
  EXPECT_EQ(
      sqlite3_exec(db, "UPDATE games SET ended = 0", nullptr, nullptr, nullptr),
      SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  ASSERT_NO_FATAL_FAILURE(StartDaemon());

  v1::ReadEventsResponse read;
  ASSERT_TRUE(umpire_->Read("live-end", &read).ok());
  EXPECT_EQ(read.version(), 3u);
  EXPECT_FALSE(read.dice().revealed_secret().empty());
  grpc::Status more = umpire_->Append(
      "live-end", 3, {{"after-end", ParseEvent(R"pb(seq: 4
                                                    turn: 2
                                                    turn_start {
                                                      initiative_clan: "oda"
                                                    })pb")}},
      &response);
  ExpectCode(more, grpc::StatusCode::FAILED_PRECONDITION, "after game_end");
  v1::ExportGameResponse exported;
  ASSERT_TRUE(umpire_->Export("live-end", &exported).ok());
  auto dice = replay::VerifyServerDice(exported.game(), Daimyo());
  EXPECT_EQ(dice, std::nullopt) << dice->reason;
}

// The crash test's games: two threads share one, one has its own, and one
// has its own with server dice.
struct CrashGame {
  std::string id;
  v1::DiceMode dice;
  int threads;
};

// The event at position `seq` of a crash-test game: turns of turn_start,
// oda's activation, asai's activation, turn_end, so that every event is
// legal whoever appends it, as long as it is built on the right version.
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

// One client thread's record: the ids it sent, in order, and the answers it
// got for them.
struct Ack {
  std::string id;
  uint64_t version = 0;
  std::string head_hash;
};
struct ThreadLog {
  std::string game;
  std::vector<std::string> sent;
  std::vector<Ack> acks;
  // Appends refused as built on a stale version, then rebuilt.
  int stale_retries = 0;
  std::string stopped_by;
};

constexpr int kEventsPerThread = 150;
constexpr int kKillAfterAcks = 240;
constexpr int kMaxAbortedRetries = 2000;

// Appends single-event batches to `game` until `kEventsPerThread` are in or
// a call fails for another reason than a stale version.
void AppendUntilKilled(const std::string& target, const std::string& token,
                       int thread, std::atomic<int>& total_acks,
                       ThreadLog& log) {
  Client client(target, token);
  uint64_t version = 0;
  for (int n = 0; n < kEventsPerThread; ++n) {
    const std::string id = absl::StrCat("t", thread, "-", n);
    log.sent.push_back(id);
    while (true) {
      v1::AppendEventsResponse response;
      grpc::Status s = client.Append(
          log.game, version, {{id, CycleEvent(version + 1)}}, &response);
      if (s.ok()) {
        version = response.version();
        log.acks.push_back({id, version, response.head_hash()});
        ++total_acks;
        break;
      }
      if (s.error_code() != grpc::StatusCode::ABORTED ||
          ++log.stale_retries > kMaxAbortedRetries) {
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

// Checks a game read after the restart against what its threads were told.
void CheckGameAfterCrash(const v1::ReadEventsResponse& read,
                         const std::vector<const ThreadLog*>& logs) {
  // Stored: seqs 1..n, one event per position, the cycle's event there, and
  // no event id twice.
  std::map<std::string, int> position;
  for (int i = 0; i < read.events_size(); ++i) {
    const v1::StoredEvent& e = read.events(i);
    EXPECT_EQ(e.event().seq(), static_cast<uint64_t>(i + 1));
    v1::Event want = CycleEvent(i + 1);
    v1::Event got = e.event();
    if (got.has_turn_start()) got.mutable_turn_start()->clear_initiative_dice();
    EXPECT_EQ(got.SerializeAsString(), want.SerializeAsString())
        << "position " << i + 1 << ": " << e.event().ShortDebugString();
    EXPECT_TRUE(position.emplace(e.event_id(), i + 1).second)
        << e.event_id() << " is stored twice";
  }
  EXPECT_EQ(read.version(), static_cast<uint64_t>(read.events_size()));
  std::set<std::string> sent;
  int unacknowledged = 0;
  for (const ThreadLog* log : logs) {
    sent.insert(log->sent.begin(), log->sent.end());
    // Every acknowledged event is there, where its answer said.
    for (const Ack& ack : log->acks) {
      auto it = position.find(ack.id);
      ASSERT_NE(it, position.end()) << ack.id << " was acknowledged but lost";
      EXPECT_EQ(static_cast<uint64_t>(it->second), ack.version) << ack.id;
      EXPECT_EQ(read.events(it->second - 1).chain_hash(), ack.head_hash);
    }
    // A thread's events are stored in the order it sent them; past its
    // acknowledged ones, at most the one in flight.
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
    unacknowledged += stored - static_cast<int>(log->acks.size());
  }
  // Nothing is stored that no thread sent.
  for (const auto& [id, pos] : position) {
    EXPECT_TRUE(sent.contains(id)) << id << " at " << pos;
  }
  EXPECT_LE(unacknowledged, static_cast<int>(logs.size()));
}

TEST_F(LiveGameTest, AcknowledgedAppendsSurviveSigkill) {
  AcknowledgedAppendsSurviveSigkill();
}

// The crash test on the PostgreSQL store: the same daemon, the same checks.
TEST_F(LiveGamePostgresTest, AcknowledgedAppendsSurviveSigkill) {
  AcknowledgedAppendsSurviveSigkill();
}

void LiveGameTest::AcknowledgedAppendsSurviveSigkill() {
  const std::vector<CrashGame> games = {
      {"crash-shared", v1::DICE_MODE_RECORDED, 2},
      {"crash-solo", v1::DICE_MODE_RECORDED, 1},
      {"crash-dice", v1::DICE_MODE_SERVER, 1},
  };
  std::vector<ThreadLog> logs;
  for (const CrashGame& g : games) {
    CreateGame(g.id, v1::APPEND_POLICY_STRICT, g.dice);
    for (int t = 0; t < g.threads; ++t) logs.push_back({g.id, {}, {}, 0, ""});
  }
  ASSERT_FALSE(HasFailure());

  std::atomic<int> total_acks{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < logs.size(); ++t) {
    threads.emplace_back(AppendUntilKilled, daemon_->target(), umpire_token_,
                         static_cast<int>(t), std::ref(total_acks),
                         std::ref(logs[t]));
  }
  const auto deadline = steady_clock::now() + seconds(200);
  while (total_acks < kKillAfterAcks && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(2));
  }
  const int acks_at_kill = total_acks;
  daemon_->Kill();
  for (std::thread& t : threads) t.join();
  ASSERT_GE(acks_at_kill, kKillAfterAcks) << "too slow: " << acks_at_kill;
  // The kill came mid-stream: threads were still appending.
  int acked = 0;
  int cut_off = 0;
  for (const ThreadLog& log : logs) {
    acked += static_cast<int>(log.acks.size());
    if (!log.stopped_by.empty()) ++cut_off;
  }
  ASSERT_GT(cut_off, 0);
  ASSERT_LT(acked, kEventsPerThread * static_cast<int>(logs.size()));

  // Restart on the same directory and read every game back.
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  int stored = 0;
  for (const CrashGame& g : games) {
    SCOPED_TRACE(g.id);
    std::vector<const ThreadLog*> own;
    for (const ThreadLog& log : logs) {
      if (log.game == g.id) own.push_back(&log);
    }
    v1::ReadEventsResponse read;
    grpc::Status s = umpire_->Read(g.id, &read);
    ASSERT_TRUE(s.ok()) << s.error_message();
    CheckGameAfterCrash(read, own);
    stored += read.events_size();
    std::cout << g.id << ": " << read.events_size() << " events stored;";
    for (const ThreadLog* log : own) {
      std::cout << " a thread had " << log->acks.size() << " acknowledged ("
                << log->stale_retries << " stale-version retries),";
    }
    std::cout << "\n";

    v1::ExportGameResponse exported;
    ASSERT_TRUE(umpire_->Export(g.id, &exported).ok());
    auto broken = replay::VerifyChain(exported.game());
    EXPECT_EQ(broken, std::nullopt) << broken->reason;
    ASSERT_EQ(exported.game().chain_hashes_size(), read.events_size());
    for (int i = 0; i < read.events_size(); ++i) {
      EXPECT_EQ(exported.game().chain_hashes(i), read.events(i).chain_hash());
    }
    v1::AuditGameResponse audit;
    ASSERT_TRUE(umpire_->Audit(g.id, &audit).ok());
    EXPECT_EQ(audit.report().summary().violations(), 0u);
    EXPECT_EQ(audit.report().events_replayed(),
              static_cast<uint64_t>(read.events_size()));

    // The restarted daemon goes on from where the store is; a server-dice
    // game ends and every die, before and after the crash, checks out.
    v1::AppendEventsResponse more;
    const uint64_t next = read.version() + 1;
    s = umpire_->Append(g.id, read.version(),
                        {{"after-restart", CycleEvent(next)}}, &more);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(more.version(), next);
    if (g.dice == v1::DICE_MODE_SERVER) {
      v1::Event end;
      end.set_seq(next + 1);
      end.set_turn(CycleEvent(next).turn());
      end.mutable_game_end();
      ASSERT_TRUE(umpire_->Append(g.id, next, {{"end", end}}, &more).ok());
      ASSERT_TRUE(umpire_->Export(g.id, &exported).ok());
      EXPECT_EQ(replay::VerifyChain(exported.game()), std::nullopt);
      auto dice = replay::VerifyServerDice(exported.game(), Daimyo());
      EXPECT_EQ(dice, std::nullopt) << dice->reason;
    }
  }
  EXPECT_GE(stored, acked);
  EXPECT_LE(stored, acked + static_cast<int>(logs.size()));
  std::cout << "acknowledged " << acked << " appends before the SIGKILL; "
            << stored << " events stored after the restart\n";
}

// A live game on a table (tests/data/table-game: its hand working is in
// tests/data/README.md). gunbaid keeps the table and terrain with the game
// (across a restart), measures each appended event, and a strict game
// refuses the volley declared at effective range that the table puts at
// 12.0 cm, long range; the same volley without a declared band, claiming
// the one hit the measured facts give (long range, the target behind the
// wall), is accepted. The export carries the table, and its chain commits
// to it: moving the wall breaks the chain at the terms.
TEST_F(LiveGameTest, AGameOnATableIsMeasuredAndItsExportCarriesTheTable) {
  std::ifstream in(absl::StrCat(GUNBAI_TEST_DATA, "/table-game.textproto"));
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  v1::CreateGameRequest request;
  *request.mutable_header() = log.header();
  request.mutable_header()->set_game_id("live-table");
  *request.mutable_order_of_battle() = log.order_of_battle();
  *request.mutable_table() = log.table();
  *request.mutable_terrain() = log.terrain();
  request.mutable_settings()->set_policy(v1::APPEND_POLICY_STRICT);
  v1::CreateGameResponse created;
  ASSERT_TRUE(umpire_->Create(request, &created).ok());
  // Restarted: the table is read back from the store.
  daemon_->Kill();
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  std::vector<std::pair<std::string, v1::Event>> first;
  for (int i = 0; i < 4; ++i) {
    first.push_back({absl::StrCat("e", i + 1), log.events(i)});
  }
  v1::AppendEventsResponse appended;
  grpc::Status ok = umpire_->Append("live-table", 0, first, &appended);
  ASSERT_TRUE(ok.ok()) << ok.error_message();
  v1::AppendEventsResponse refused;
  const grpc::Status no =
      umpire_->Append("live-table", 4, {{"e5", log.events(4)}}, &refused);
  ExpectCode(no, grpc::StatusCode::FAILED_PRECONDITION, "declared effective");
  EXPECT_NE(no.error_message().find("daimyo.table.fire.range"),
            std::string::npos)
      << no.error_message();
  v1::Event volley = log.events(4);
  volley.mutable_firing()->mutable_facts()->clear_range();
  volley.mutable_firing()->set_claimed_hits(1);
  const grpc::Status yes =
      umpire_->Append("live-table", 4, {{"e5b", volley}}, &appended);
  ASSERT_TRUE(yes.ok()) << yes.error_message();

  v1::ExportGameResponse exported;
  ASSERT_TRUE(umpire_->Export("live-table", &exported).ok());
  const v1::ExportedGame& game = exported.game();
  EXPECT_EQ(game.log().table().width_mm(), 1800u);
  EXPECT_EQ(game.log().terrain_size(), 4);
  EXPECT_EQ(game.log().events_size(), 5);
  EXPECT_EQ(replay::VerifyChain(game), std::nullopt);
  v1::ExportedGame moved = game;
  moved.mutable_log()->mutable_terrain(0)->mutable_outline(0)->set_y_mm(300);
  auto broken = replay::VerifyChain(moved);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 0);
}

}  // namespace
}  // namespace gunbai::service
