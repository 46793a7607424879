// End-to-end tests of gunbaid: start the real daemon binary on a free port,
// talk to it through real gRPC channels (AuditService, health checking),
// and stop it with SIGTERM. Each test owns its daemons.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
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
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/engine.h"
#include "service/cli/audit_client.h"

extern char** environ;

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

constexpr int kClientMaxMessageBytes = 64 << 20;
constexpr seconds kStartTimeout{15};
constexpr seconds kStopTimeout{10};

// A child process running gunbaid, its stdout on a pipe and its stderr in a
// file. Killed (SIGKILL) and reaped on destruction if it still runs.
class Gunbaid {
 public:
  // Starts gunbaid with `args`. Returns Internal when it cannot be spawned.
  static absl::StatusOr<std::unique_ptr<Gunbaid>> Spawn(
      const std::vector<std::string>& args) {
    auto child = std::unique_ptr<Gunbaid>(new Gunbaid());
    child->stderr_path_ = absl::StrCat(testing::TempDir(), "/gunbaid-",
                                       getpid(), "-", next_id_++, ".err");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError("pipe2");
    child->stdout_fd_ = fds[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                     child->stderr_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> argv_strings = {GUNBAID_PATH};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&child->pid_, GUNBAID_PATH, &actions, nullptr,
                               argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      child->pid_ = -1;
      return absl::InternalError(absl::StrCat("cannot spawn ", GUNBAID_PATH));
    }
    return child;
  }

  // Starts gunbaid listening on 127.0.0.1:0 with `extra_args` and waits for
  // its "gunbaid listening on" line. Returns DeadlineExceeded when the line
  // does not come in time, Internal when the daemon exits first.
  static absl::StatusOr<std::unique_ptr<Gunbaid>> StartDaemon(
      const std::vector<std::string>& extra_args = {}) {
    std::vector<std::string> args = {"--listen", "127.0.0.1:0"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    auto daemon = Spawn(args);
    if (!daemon.ok()) return daemon.status();
    absl::StatusOr<std::string> line = (*daemon)->ReadLine(kStartTimeout);
    if (!line.ok()) return line.status();
    constexpr absl::string_view kPrefix = "gunbaid listening on 127.0.0.1:";
    if (!absl::StartsWith(*line, kPrefix) ||
        !absl::SimpleAtoi(line->substr(kPrefix.size()), &(*daemon)->port_) ||
        (*daemon)->port_ <= 0) {
      return absl::InternalError(
          absl::StrCat("unexpected first line: ", *line));
    }
    return daemon;
  }

  ~Gunbaid() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_fd_ >= 0) close(stdout_fd_);
  }

  int port() const { return port_; }
  std::string target() const { return absl::StrCat("127.0.0.1:", port_); }

  // Reads one line of stdout, without its newline, waiting at most
  // `timeout`. Returns DeadlineExceeded on timeout, Internal on EOF.
  absl::StatusOr<std::string> ReadLine(milliseconds timeout) {
    const auto deadline = steady_clock::now() + timeout;
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
      const ssize_t n = read(stdout_fd_, &c, 1);
      if (n <= 0) {
        return absl::InternalError(absl::StrCat(
            "gunbaid closed stdout after \"", line, "\"; stderr: ", Stderr()));
      }
      if (c == '\n') return line;
      line.push_back(c);
    }
  }

  // Returns all of stdout up to EOF (call after the process exited).
  std::string ReadRest() {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(stdout_fd_, buf, sizeof buf)) > 0) out.append(buf, n);
    return out;
  }

  // Sends `signal` to the process.
  void Signal(int signal) { kill(pid_, signal); }

  // Waits at most `timeout` for the process to exit and returns its exit
  // code. Returns DeadlineExceeded when it still runs, Internal when a
  // signal killed it.
  absl::StatusOr<int> WaitForExit(milliseconds timeout) {
    const auto deadline = steady_clock::now() + timeout;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (steady_clock::now() > deadline) {
        return absl::DeadlineExceededError("gunbaid did not exit in time");
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
    pid_ = -1;
    if (!WIFEXITED(status)) {
      return absl::InternalError(
          absl::StrCat("gunbaid died of signal ", WTERMSIG(status)));
    }
    return WEXITSTATUS(status);
  }

  // Returns what the process wrote to stderr so far.
  std::string Stderr() const {
    std::ifstream in(stderr_path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  Gunbaid() = default;

  static inline int next_id_ = 0;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  std::string stderr_path_;
};

// Parses a message in text format; fails the test when it does not parse.
template <typename Message>
Message ParseText(absl::string_view text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(text),
                                                            &message));
  return message;
}

// Two clans: Oda ("a") fires an arquebus volley at Takeda ("b") horse.
//
// a-teppo (Seasoned ashigaru, arquebus, 4 stands 2 a rank, good order)
// fires at b-kiba (Veteran mounted samurai in light armour), declared at
// effective range, in its first firing of the game. Firing factors:
//   +2 first volley (good order, first firing)
//   +1 target in light armour
//   +1 arquebus firing at cavalry (b-kiba is MOUNTED)
//   +1 target at effective range
//   (not Raw, not disordered, not moved, not charged; target in line,
//   not in cover or a building)
//   = +5 on each stand's 2d6.
// 4 stands in 2 ranks of 2 may all fire (2 ranks in good order). A stand
// total of 8 or more is a hit:
//   stand 1: 1+1 +5 =  7  miss
//   stand 2: 2+1 +5 =  8  hit
//   stand 3: 6+6 +5 = 17  hit
//   stand 4: 1+2 +5 =  8  hit
// so the dice give 3 hits.
constexpr int kVolleyHits = 3;

// With first_volley set to 0 in the ruleset the factors are +3:
//   7-2 = 5 miss, 8-2 = 6 miss, 17-2 = 15 hit, 8-2 = 6 miss: 1 hit.
constexpr int kVolleyHitsWithoutFirstVolleyBonus = 1;

// The header, the armies, and turn 1 up to Oda's activation.
constexpr absl::string_view kLogBeforeVolley = R"pb(
  header {
    game_id: "e2e-volley"
    clans { id: "a" name: "Oda" }
    clans { id: "b" name: "Takeda" }
  }
  order_of_battle {
    units {
      id: "a-teppo"
      clan: "a"
      troop_type: TROOP_TYPE_ASHIGARU
      mobility: MOBILITY_FOOT
      quality: QUALITY_SEASONED
      armour: ARMOUR_NONE
      missile_weapon: MISSILE_WEAPON_ARQUEBUS
      stands: 4
      stands_per_rank: 2
      formation: FORMATION_LINE
      starting_order: ORDER_GOOD
    }
    units {
      id: "b-kiba"
      clan: "b"
      troop_type: TROOP_TYPE_SAMURAI
      mobility: MOBILITY_MOUNTED
      quality: QUALITY_VETERAN
      armour: ARMOUR_LIGHT
      melee_weapon: MELEE_WEAPON_LANCE
      missile_weapon: MISSILE_WEAPON_NONE
      stands: 4
      stands_per_rank: 4
      formation: FORMATION_LINE
      starting_order: ORDER_GOOD
    }
    units {
      id: "b-yumi"
      clan: "b"
      troop_type: TROOP_TYPE_ASHIGARU
      mobility: MOBILITY_FOOT
      quality: QUALITY_RAW
      armour: ARMOUR_NONE
      missile_weapon: MISSILE_WEAPON_BOW
      stands: 6
      stands_per_rank: 3
      formation: FORMATION_LINE
      starting_order: ORDER_GOOD
    }
  }
  events {
    seq: 1
    turn: 1
    turn_start { initiative_clan: "a" }
  }
  events {
    seq: 2
    turn: 1
    clan: "a"
    activation {}
  }
)pb";

// Returns the volley event numbered `seq` claiming `claimed_hits`.
v1::Event VolleyEvent(int seq, int claimed_hits) {
  auto event = ParseText<v1::Event>(R"pb(
    turn: 1
    clan: "a"
    firing {
      unit: "a-teppo"
      target: "b-kiba"
      stands_firing: 4
      dice: [ 1, 1, 2, 1, 6, 6, 1, 2 ]
      facts { range: RANGE_BAND_EFFECTIVE }
    }
  )pb");
  event.set_seq(seq);
  event.mutable_firing()->set_claimed_hits(claimed_hits);
  return event;
}

// Returns the log of the volley claiming `claimed_hits`.
v1::BattleLog VolleyLog(int claimed_hits) {
  auto log = ParseText<v1::BattleLog>(kLogBeforeVolley);
  *log.add_events() = VolleyEvent(3, claimed_hits);
  return log;
}

// Returns the built-in ruleset without the first-volley bonus.
std::string RulesetWithoutFirstVolleyBonus() {
  const std::string text(rules::DaimyoRulesetText());
  EXPECT_TRUE(absl::StrContains(text, "first_volley: 2"));
  return absl::StrReplaceAll(text, {{"first_volley: 2", "first_volley: 0"}});
}

// Returns `report` without the finding that lists what falls due at the end
// of turn 1: these logs stop mid-turn on purpose, right after the volley.
v1::AuditReport WithoutPendingList(v1::AuditReport report) {
  auto* findings = report.mutable_findings();
  for (int i = findings->size() - 1; i >= 0; --i) {
    if (findings->Get(i).rule_id() == "log.turn_unfinished") {
      findings->DeleteSubrange(i, 1);
      report.mutable_summary()->set_unverifiable(
          report.summary().unverifiable() - 1);
    }
  }
  return report;
}

void ExpectCleanVolleyReport(const v1::AuditReport& full_report) {
  const v1::AuditReport report = WithoutPendingList(full_report);
  EXPECT_EQ(report.game_id(), "e2e-volley");
  EXPECT_EQ(report.ruleset().name(), "daimyo");
  EXPECT_EQ(report.events_replayed(), 3u);
  EXPECT_EQ(report.turns(), 1u);
  EXPECT_EQ(report.summary().violations(), 0u);
  EXPECT_EQ(report.summary().disputes(), 0u);
  EXPECT_EQ(report.summary().warnings(), 0u);
  EXPECT_EQ(report.summary().unverifiable(), 0u);
  EXPECT_EQ(report.findings_size(), 0) << report.DebugString();
}

void ExpectOneHitDispute(const v1::AuditReport& full_report, int claimed,
                         int computed) {
  const v1::AuditReport report = WithoutPendingList(full_report);
  EXPECT_EQ(report.summary().disputes(), 1u);
  EXPECT_EQ(report.summary().violations(), 0u);
  ASSERT_EQ(report.findings_size(), 1) << report.DebugString();
  const v1::Finding& f = report.findings(0);
  EXPECT_EQ(f.seq(), 3u);
  EXPECT_EQ(f.severity(), v1::SEVERITY_DISPUTE);
  EXPECT_EQ(f.rule_id(), "daimyo.fire.hit");
  EXPECT_EQ(f.subject(), "a-teppo");
  EXPECT_EQ(f.claimed(), rules::daimyo::HitsInWords(claimed));
  EXPECT_EQ(f.computed(), rules::daimyo::HitsInWords(computed));
}

absl::StatusOr<v1::AuditReport> Audit(const Gunbaid& daemon,
                                      const v1::BattleLog& log,
                                      const std::string& ruleset = "") {
  return AuditThroughServer(daemon.target(), log, ruleset,
                            kClientMaxMessageBytes);
}

TEST(GunbaidTest, AuditsCorrectClaimClean) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  auto report = Audit(**daemon, VolleyLog(kVolleyHits));
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectCleanVolleyReport(*report);
  EXPECT_FALSE(report->ruleset().digest().empty());
  EXPECT_FALSE(report->final_state_digest().empty());
}

TEST(GunbaidTest, ReportsWrongClaimAndOutOfTurnFire) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  // Oda's volley claims 4 hits (the dice give 3), then Takeda's bowmen fire
  // during Oda's activation, though nobody charges them.
  v1::BattleLog log = VolleyLog(kVolleyHits + 1);
  *log.add_events() = ParseText<v1::Event>(R"pb(
    seq: 4
    turn: 1
    clan: "b"
    firing {
      unit: "b-yumi"
      target: "a-teppo"
      stands_firing: 2
      dice: [ 3, 4, 5, 6 ]
      facts { range: RANGE_BAND_EFFECTIVE }
    }
  )pb");
  auto full_report = Audit(**daemon, log);
  ASSERT_TRUE(full_report.ok()) << full_report.status();
  const v1::AuditReport stripped = WithoutPendingList(*full_report);
  const v1::AuditReport* report = &stripped;
  EXPECT_EQ(report->summary().disputes(), 1u);
  EXPECT_EQ(report->summary().violations(), 1u);
  ASSERT_EQ(report->findings_size(), 2) << report->DebugString();
  EXPECT_EQ(report->findings(0).rule_id(), "daimyo.fire.hit");
  EXPECT_EQ(report->findings(0).claimed(), "4 hits");
  EXPECT_EQ(report->findings(0).computed(), "3 hits");
  EXPECT_EQ(report->findings(1).seq(), 4u);
  EXPECT_EQ(report->findings(1).severity(), v1::SEVERITY_VIOLATION);
  EXPECT_EQ(report->findings(1).rule_id(),
            "daimyo.fire.eligibility.active_clan");
}

TEST(GunbaidTest, AuditsUnderRulesetOfRequest) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  auto report =
      Audit(**daemon, VolleyLog(kVolleyHits), RulesetWithoutFirstVolleyBonus());
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectOneHitDispute(*report, kVolleyHits, kVolleyHitsWithoutFirstVolleyBonus);
}

TEST(GunbaidTest, AuditsUnderRulesetFlag) {
  const std::string path =
      absl::StrCat(testing::TempDir(), "/no-bonus-", getpid(), ".textproto");
  std::ofstream(path) << RulesetWithoutFirstVolleyBonus();
  auto daemon = Gunbaid::StartDaemon({"--ruleset", path});
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  auto report = Audit(**daemon, VolleyLog(kVolleyHits));
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectOneHitDispute(*report, kVolleyHits, kVolleyHitsWithoutFirstVolleyBonus);
}

TEST(GunbaidTest, AuditsConcurrentCallsAlike) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  const v1::BattleLog log = VolleyLog(kVolleyHits + 1);
  auto first = Audit(**daemon, log);
  ASSERT_TRUE(first.ok()) << first.status();
  // Many calls at once share the daemon's ruleset; each gets the same report.
  std::vector<std::future<absl::StatusOr<v1::AuditReport>>> calls;
  for (int i = 0; i < 16; ++i) {
    calls.push_back(std::async(
        std::launch::async, [&daemon, &log] { return Audit(**daemon, log); }));
  }
  for (auto& call : calls) {
    absl::StatusOr<v1::AuditReport> report = call.get();
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->SerializeAsString(), first->SerializeAsString());
  }
}

TEST(GunbaidTest, HealthCheckIsServing) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  grpc::GenericStub stub(grpc::CreateChannel(
      (*daemon)->target(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + seconds(10));
  // HealthCheckRequest{service: ""} serializes to no bytes.
  grpc::Slice no_bytes("");
  grpc::ByteBuffer request(&no_bytes, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(),
                 &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  const grpc::Status status = done.get_future().get();
  ASSERT_TRUE(status.ok()) << status.error_message();
  grpc::Slice slice;
  ASSERT_TRUE(response.DumpToSingleSlice(&slice).ok());
  const std::string bytes(reinterpret_cast<const char*>(slice.begin()),
                          slice.size());
  // HealthCheckResponse{status: SERVING}: field 1, varint, value 1.
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));
}

TEST(GunbaidTest, UnusableLogIsInvalidArgument) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  v1::BattleLog log = VolleyLog(kVolleyHits);
  log.mutable_order_of_battle()->mutable_units(1)->set_stands(0);
  auto report = Audit(**daemon, log);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(report.status().message(), "b-kiba"))
      << report.status();
}

TEST(GunbaidTest, UnparsableRulesetIsInvalidArgument) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  auto report = Audit(**daemon, VolleyLog(kVolleyHits), "firing { oops");
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(report.status().message(), "request.ruleset_textproto"))
      << report.status();
}

TEST(GunbaidTest, RefusesRequestOverMessageLimit) {
  auto daemon = Gunbaid::StartDaemon({"--max-message-bytes=4096"});
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  // A small log still fits both ways.
  auto small = Audit(**daemon, VolleyLog(kVolleyHits));
  ASSERT_TRUE(small.ok()) << small.status();
  ExpectCleanVolleyReport(*small);
  // 300 volleys of about 40 bytes each are well over 4096 bytes.
  v1::BattleLog big = VolleyLog(kVolleyHits);
  for (int seq = 4; seq < 303; ++seq) {
    *big.add_events() = VolleyEvent(seq, kVolleyHits);
  }
  ASSERT_GT(big.ByteSizeLong(), 4096u);
  auto report = Audit(**daemon, big);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kResourceExhausted)
      << report.status();
}

TEST(GunbaidTest, ShutsDownOnSigterm) {
  auto daemon = Gunbaid::StartDaemon();
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  ASSERT_TRUE(Audit(**daemon, VolleyLog(kVolleyHits)).ok());
  (*daemon)->Signal(SIGTERM);
  absl::StatusOr<int> exit_code = (*daemon)->WaitForExit(kStopTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
  EXPECT_TRUE(absl::StrContains((*daemon)->Stderr(),
                                "\"level\":\"info\",\"msg\":\"shutting down\""))
      << (*daemon)->Stderr();
  // Nothing listens there any more: the client says how to start gunbaid.
  auto report = Audit(**daemon, VolleyLog(kVolleyHits));
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(report.status().message(), (*daemon)->target()))
      << report.status();
}

TEST(GunbaidTest, BusyPortExitsTwoNamingAddress) {
  auto first = Gunbaid::StartDaemon();
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Gunbaid::Spawn({"--listen", (*first)->target()});
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<int> exit_code = (*second)->WaitForExit(kStopTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 2);
  EXPECT_TRUE(
      absl::StrContains((*second)->Stderr(),
                        absl::StrCat("cannot listen on ", (*first)->target())))
      << (*second)->Stderr();
}

TEST(GunbaidTest, UnknownFlagExitsTwoWithHint) {
  auto child = Gunbaid::Spawn({"--lisen=127.0.0.1:0"});
  ASSERT_TRUE(child.ok()) << child.status();
  absl::StatusOr<int> exit_code = (*child)->WaitForExit(kStopTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 2);
  EXPECT_TRUE(absl::StrContains((*child)->Stderr(), "--lisen"));
  EXPECT_TRUE(absl::StrContains((*child)->Stderr(), "--help"));
}

TEST(GunbaidTest, HelpNamesServicesAndExitsZero) {
  auto child = Gunbaid::Spawn({"--help"});
  ASSERT_TRUE(child.ok()) << child.status();
  absl::StatusOr<int> exit_code = (*child)->WaitForExit(kStopTimeout);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
  const std::string help = (*child)->ReadRest();
  EXPECT_TRUE(absl::StrContains(help, "gunbai.v1.AuditService"));
  EXPECT_TRUE(absl::StrContains(help, "grpc.health.v1.Health"));
  EXPECT_TRUE(absl::StrContains(help, "--max-message-bytes"));
}

}  // namespace
}  // namespace gunbai::service
