// rpc_memory: what the most hostile request of each gunbaid RPC costs the
// daemon in memory. For each case a fresh gunbaid (gunbaid_process.cc) is
// warmed with a small request of the same RPC, then sent the hostile one;
// the growth of its peak resident set (VmHWM in /proc/PID/status) and its
// CPU time are printed beside the request's size. Requests that only name a
// game (reads, watches, audits of a stored game) are measured against the
// stored game's size instead, on a daemon restarted over a game filled by
// hostile appends. Run by deploy/rpc-memory.sh; ctest rpc_memory_smoke runs
// it small.
//
//   rpc_memory [--bytes=N] [--max-ratio=R] [--only=SUBSTRING]
//
// --bytes is the size each hostile request aims at (default 16 MiB, a
// quarter of gunbaid's 64 MiB message limit, so that gRPC's own buffers
// cannot refuse it). Exit 1 when a case's growth exceeds --max-ratio times
// its size (default 8) plus 24 MiB, or the daemon dies.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "tests/e2e/gunbaid_process.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;

constexpr std::chrono::seconds kCallTimeout{600};
constexpr std::int64_t kSlackBytes = 24 << 20;

struct Flags {
  std::int64_t bytes = 16 << 20;
  double max_ratio = 8;
  std::string only;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Returns the value in kB of `field` ("VmHWM") of /proc/PID/status, in
// bytes; -1 when it cannot be read.
std::int64_t ProcStatusBytes(pid_t pid, absl::string_view field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, field)) continue;
    std::int64_t kb = 0;
    std::string number;
    for (char c : line) {
      if (c >= '0' && c <= '9') number.push_back(c);
    }
    if (absl::SimpleAtoi(number, &kb)) return kb * 1024;
  }
  return -1;
}

// Returns the user plus system CPU time of `pid`, in seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  // After the name: state is field 3; utime and stime are fields 14, 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

v1::BattleLog Anegawa() {
  v1::BattleLog log;
  google::protobuf::TextFormat::ParseFromString(
      ReadFile(absl::StrCat(GUNBAI_TEST_DATA, "/anegawa-clean.textproto")),
      &log);
  return log;
}

// Anegawa cut after its first turn start and activation, so an event added
// to it comes in the first turn.
v1::BattleLog AnegawaOpening() {
  v1::BattleLog log = Anegawa();
  log.mutable_events()->DeleteSubrange(2, log.events_size() - 2);
  return log;
}

// Returns a morale test at `seq` of oda-teppo naming `names` as friends
// routing near.
v1::Event MoraleNaming(std::uint64_t seq, const std::vector<std::string>& names,
                       std::int64_t times) {
  v1::Event event;
  event.set_seq(seq);
  event.set_turn(1);
  event.set_clan("oda");
  v1::MoraleTest* test = event.mutable_morale_test();
  test->set_unit("oda-teppo");
  test->set_reason(1);
  test->add_dice(3);
  test->add_dice(4);
  for (std::int64_t i = 0; i < times; ++i) {
    test->mutable_facts()->add_friends_routing_near(names[i % names.size()]);
  }
  return event;
}

std::vector<std::string> UnknownIds(std::int64_t n) {
  std::vector<std::string> ids;
  for (std::int64_t i = 0; i < n; ++i) ids.push_back(absl::StrCat("u", i));
  return ids;
}

// One row of the table.
struct Row {
  std::string rpc;
  std::string input;
  std::int64_t request_bytes = 0;  // Or the stored game's, for reads.
  bool against_game = false;
  std::int64_t growth = 0;
  double cpu_seconds = 0;
  std::string status = {};
  bool alive = true;
};

// A fresh gunbaid with the umpire's credential and stubs for it.
class Daemon {
 public:
  explicit Daemon(const std::string& root) : root_(root) {
    token_ = "rpc-memory-umpire-0123456789abcdef";
    std::ofstream(root_ + "/umpire.token") << token_ << "\n";
    Restart();
  }

  // Kills the daemon, if running, and starts it again over the same data.
  void Restart() {
    process_.reset();
    auto started =
        GunbaidProcess::Start(root_ + "/data", root_ + "/umpire.token", root_);
    if (!started.ok()) {
      std::cerr << "cannot start gunbaid: " << started.status() << "\n";
      std::exit(2);
    }
    process_ = *std::move(started);
    auto channel = grpc::CreateCustomChannel(
        process_->target(), grpc::InsecureChannelCredentials(), Arguments());
    audits_ = v1::AuditService::NewStub(channel);
    games_ = v1::GameService::NewStub(channel);
  }

  void Prepare(grpc::ClientContext& context) const {
    context.AddMetadata("authorization", "Bearer " + token_);
    context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  }

  bool Alive() const { return kill(process_->pid(), 0) == 0; }
  pid_t pid() const { return process_->pid(); }
  v1::AuditService::Stub& audits() { return *audits_; }
  v1::GameService::Stub& games() { return *games_; }

 private:
  static grpc::ChannelArguments Arguments() {
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(-1);
    arguments.SetMaxSendMessageSize(-1);
    return arguments;
  }

  std::string root_;
  std::string token_;
  std::unique_ptr<GunbaidProcess> process_;
  std::unique_ptr<v1::AuditService::Stub> audits_;
  std::unique_ptr<v1::GameService::Stub> games_;
};

std::string StatusText(const grpc::Status& status) {
  if (status.ok()) return "OK";
  static const char* const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  const int code = status.error_code();
  std::string name = code >= 0 && code <= 16 ? kNames[code] : "?";
  if (code == grpc::StatusCode::RESOURCE_EXHAUSTED) {
    name = "RESOURCE_EXHAUSTED";
  }
  if (code == grpc::StatusCode::DEADLINE_EXCEEDED) name = "DEADLINE_EXCEEDED";
  return name;
}

// Runs `call` on `daemon` and returns its row: the growth of VmHWM over its
// value after `warm` ran, and the CPU time `call` took.
Row Measure(Daemon& daemon, Row row, const std::function<void()>& warm,
            const std::function<grpc::Status()>& call) {
  warm();
  const std::int64_t before = ProcStatusBytes(daemon.pid(), "VmHWM");
  const double cpu_before = CpuSeconds(daemon.pid());
  const grpc::Status status = call();
  row.alive = daemon.Alive();
  row.growth = ProcStatusBytes(daemon.pid(), "VmHWM") - before;
  row.cpu_seconds = CpuSeconds(daemon.pid()) - cpu_before;
  row.status = StatusText(status);
  return row;
}

grpc::Status Audit(Daemon& daemon, const v1::AuditLogRequest& request) {
  grpc::ClientContext context;
  daemon.Prepare(context);
  v1::AuditLogResponse response;
  return daemon.audits().AuditLog(&context, request, &response);
}

// AuditLogStream for the same request (its fields are AuditLogRequest's),
// each piece dropped once read.
grpc::Status AuditStream(Daemon& daemon, const v1::AuditLogRequest& request) {
  v1::AuditLogStreamRequest streamed;
  streamed.ParseFromString(request.SerializeAsString());
  grpc::ClientContext context;
  daemon.Prepare(context);
  auto reader = daemon.audits().AuditLogStream(&context, streamed);
  v1::AuditLogStreamResponse piece;
  while (reader->Read(&piece)) {
  }
  return reader->Finish();
}

grpc::Status Diff(Daemon& daemon, const v1::DiffRequest& request) {
  grpc::ClientContext context;
  daemon.Prepare(context);
  auto reader = daemon.audits().Diff(&context, request);
  v1::DiffResponse response;
  while (reader->Read(&response)) {
  }
  return reader->Finish();
}

grpc::Status Dice(Daemon& daemon, const v1::DiceStatsRequest& request) {
  grpc::ClientContext context;
  daemon.Prepare(context);
  v1::DiceStatsResponse response;
  return daemon.audits().DiceStats(&context, request, &response);
}

// The AuditLog cases: each a log of about `bytes`.
std::vector<std::pair<std::string, v1::AuditLogRequest>> AuditLogCases(
    std::int64_t bytes) {
  std::vector<std::pair<std::string, v1::AuditLogRequest>> cases;
  const v1::BattleLog opening = AnegawaOpening();
  {
    v1::AuditLogRequest request;
    *request.mutable_log() = opening;
    *request.mutable_log()->add_events() =
        MoraleNaming(3, {"oda-teppo"}, bytes / 11);
    cases.emplace_back("one unit named in friends_routing_near, over and over",
                       request);
  }
  {
    // An empty string is 2 bytes on the wire and a pointer and a 32-byte
    // std::string parsed: the most a parse can cost a byte.
    v1::AuditLogRequest request;
    *request.mutable_log() = opening;
    *request.mutable_log()->add_events() = MoraleNaming(3, {""}, bytes / 2);
    cases.emplace_back("an empty name in friends_routing_near, over and over",
                       request);
  }
  {
    v1::AuditLogRequest request;
    *request.mutable_log() = opening;
    const std::int64_t n = bytes / 10;
    *request.mutable_log()->add_events() = MoraleNaming(3, UnknownIds(n), n);
    cases.emplace_back("distinct unknown ids in friends_routing_near", request);
  }
  {
    v1::AuditLogRequest request;
    *request.mutable_log() = opening;
    // About 30 bytes an event.
    const std::int64_t events = bytes / 30;
    for (std::int64_t seq = 3; seq < 3 + events; ++seq) {
      v1::Event* event = request.mutable_log()->add_events();
      event->set_seq(seq);
      event->set_turn(1);
      event->set_clan("oda");
      event->mutable_firing()->set_unit(absl::StrCat("ghost-", seq));
      event->mutable_firing()->set_target("asai-cav");
    }
    cases.emplace_back("events each a finding (an unknown unit firing)",
                       request);
  }
  {
    v1::AuditLogRequest request;
    *request.mutable_log() = Anegawa();
    request.mutable_log()
        ->mutable_order_of_battle()
        ->mutable_units(0)
        ->set_name(std::string(bytes, 'n'));
    request.mutable_log()->mutable_header()->set_event(std::string(64, 'e'));
    cases.emplace_back("a unit name of the whole size", request);
  }
  {
    v1::AuditLogRequest request;
    *request.mutable_log() = Anegawa();
    std::string text = ReadFile(
        absl::StrCat(GUNBAI_SOURCE_DIR, "/rules/daimyo/daimyo.textproto"));
    const std::string block =
        "  pass_scores { quality: QUALITY_RAW score: 7 }\n";
    const auto at = text.find("  pass_scores {");
    std::string copies;
    while (static_cast<std::int64_t>(copies.size()) < bytes) copies += block;
    text.insert(at, copies);
    request.set_ruleset_textproto(text);
    cases.emplace_back("an inline ruleset repeating a table row", request);
  }
  {
    generate::GeneratorOptions options;
    options.seed = 11;
    options.units_per_clan = 150;
    options.target_events = static_cast<int>(bytes / 30);
    options.faults = 40;
    v1::AuditLogRequest request;
    *request.mutable_log() = generate::GenerateGame(options).log;
    request.set_record_outcomes(true);
    request.set_impact(true);
    cases.emplace_back(
        "a generated battle, 150 units a side, 40 planted faults, "
        "record_outcomes and impact",
        request);
  }
  return cases;
}

void AuditServiceRows(const Flags& flags, const std::string& root,
                      std::vector<Row>& rows) {
  v1::AuditLogRequest small;
  *small.mutable_log() = Anegawa();
  auto warm_audit = [&](Daemon& daemon) {
    return [&daemon, &small] { Audit(daemon, small); };
  };
  const std::vector<std::pair<std::string, v1::AuditLogRequest>> audit_cases =
      AuditLogCases(flags.bytes);
  // (A pair, not a structured binding: clang 14 cannot capture a binding
  // in a lambda.)
  for (const auto& audit_case : audit_cases) {
    const std::string& input = audit_case.first;
    const v1::AuditLogRequest& request = audit_case.second;
    if (!absl::StrContains("AuditLog " + input, flags.only)) continue;
    Daemon daemon(root);
    Row row{"AuditLog", input,
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_audit(daemon),
                           [&] { return Audit(daemon, request); }));
  }
  // The generated battle's report again, through AuditLogStream: its
  // outcomes sent as they are worked out, never held whole.
  for (const auto& audit_case : audit_cases) {
    const std::string& input = audit_case.first;
    const v1::AuditLogRequest& request = audit_case.second;
    if (!absl::StartsWith(input, "a generated battle") ||
        !absl::StrContains("AuditLogStream " + input, flags.only)) {
      continue;
    }
    Daemon daemon(root);
    Row row{"AuditLogStream", input,
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(
        daemon, row, [&] { AuditStream(daemon, small); },
        [&] { return AuditStream(daemon, request); }));
  }
  // Diff: every log under a ruleset whose firing hits on 7.
  std::string fire7 = ReadFile(
      absl::StrCat(GUNBAI_SOURCE_DIR, "/rules/daimyo/daimyo.textproto"));
  fire7.replace(fire7.find("hit_score: 8"), 12, "hit_score: 7");
  auto warm_diff = [&](Daemon& daemon) {
    return [&daemon, &fire7] {
      v1::DiffRequest request;
      request.set_new_ruleset_textproto(fire7);
      *request.add_logs()->mutable_log() = Anegawa();
      Diff(daemon, request);
    };
  };
  if (absl::StrContains("Diff many logs", flags.only)) {
    v1::DiffRequest request;
    request.set_new_ruleset_textproto(fire7);
    const v1::BattleLog log = Anegawa();
    const std::int64_t copies =
        flags.bytes / static_cast<std::int64_t>(log.ByteSizeLong() + 16);
    while (request.logs_size() < copies) {
      v1::DiffLogInput* input = request.add_logs();
      input->set_name(absl::StrCat("log-", request.logs_size()));
      *input->mutable_log() = log;
    }
    Daemon daemon(root);
    Row row{"Diff",
            absl::StrCat("many logs (", request.logs_size(),
                         " copies of Anegawa), firing hits on 7"),
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_diff(daemon),
                           [&] { return Diff(daemon, request); }));
  }
  if (absl::StrContains("Diff one generated log", flags.only)) {
    generate::GeneratorOptions options;
    options.seed = 5;
    options.units_per_clan = 150;
    options.target_events = static_cast<int>(flags.bytes / 30);
    v1::DiffRequest request;
    request.set_new_ruleset_textproto(fire7);
    *request.add_logs()->mutable_log() = generate::GenerateLog(options);
    Daemon daemon(root);
    Row row{"Diff", "one generated battle, firing hits on 7",
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_diff(daemon),
                           [&] { return Diff(daemon, request); }));
  }
  if (absl::StrContains("Diff one log of empty names", flags.only)) {
    v1::DiffRequest request;
    request.set_new_ruleset_textproto(fire7);
    v1::BattleLog* log = request.add_logs()->mutable_log();
    *log = AnegawaOpening();
    *log->add_events() = MoraleNaming(3, {""}, flags.bytes / 2);
    Daemon daemon(root);
    Row row{"Diff",
            "one log of empty names in friends_routing_near, over and over",
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_diff(daemon),
                           [&] { return Diff(daemon, request); }));
  }
  auto warm_dice = [&](Daemon& daemon) {
    return [&daemon] {
      v1::DiceStatsRequest request;
      *request.add_logs() = Anegawa();
      Dice(daemon, request);
    };
  };
  if (absl::StrContains("DiceStats many logs", flags.only)) {
    v1::DiceStatsRequest request;
    const v1::BattleLog log = Anegawa();
    const std::int64_t copies =
        flags.bytes / static_cast<std::int64_t>(log.ByteSizeLong() + 8);
    while (request.logs_size() < copies) {
      v1::BattleLog* copy = request.add_logs();
      *copy = log;
      for (v1::Clan& clan : *copy->mutable_header()->mutable_clans()) {
        clan.set_player(absl::StrCat("p", request.logs_size(), clan.id()));
      }
    }
    Daemon daemon(root);
    Row row{"DiceStats",
            absl::StrCat("many logs (", request.logs_size(),
                         " copies of Anegawa), every player distinct"),
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_dice(daemon),
                           [&] { return Dice(daemon, request); }));
  }
  if (absl::StrContains("DiceStats one firing", flags.only)) {
    v1::DiceStatsRequest request;
    v1::BattleLog* log = request.add_logs();
    *log = AnegawaOpening();
    v1::Event* event = log->add_events();
    event->set_seq(3);
    event->set_turn(1);
    event->set_clan("oda");
    event->mutable_firing()->set_unit("oda-teppo");
    event->mutable_firing()->set_target("asai-cav");
    for (std::int64_t i = 0; i < flags.bytes; ++i) {
      event->mutable_firing()->add_dice(1 + i % 6);
    }
    Daemon daemon(root);
    Row row{"DiceStats", "one firing with a die for every byte",
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_dice(daemon),
                           [&] { return Dice(daemon, request); }));
  }
}

v1::CreateGameRequest CreateOf(const std::string& game_id) {
  const v1::BattleLog log = Anegawa();
  v1::CreateGameRequest request;
  *request.mutable_header() = log.header();
  request.mutable_header()->set_game_id(game_id);
  *request.mutable_order_of_battle() = log.order_of_battle();
  request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
  request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
  return request;
}

grpc::Status Create(Daemon& daemon, const v1::CreateGameRequest& request) {
  grpc::ClientContext context;
  daemon.Prepare(context);
  v1::CreateGameResponse response;
  return daemon.games().CreateGame(&context, request, &response);
}

// Returns the largest batch gunbaid takes (10,000 events) of about `bytes`
// in all, for `game_id` at `version`: morale tests naming one unit over and
// over, the first batch opening turn 1.
v1::AppendEventsRequest HostileBatch(const std::string& game_id,
                                     std::uint64_t version,
                                     std::int64_t bytes) {
  constexpr int kBatch = 10000;
  v1::AppendEventsRequest request;
  request.set_game_id(game_id);
  request.set_expected_version(version);
  std::uint64_t seq = version + 1;
  if (version == 0) {
    const v1::BattleLog opening = AnegawaOpening();
    for (const v1::Event& event : opening.events()) {
      v1::AppendedEvent* appended = request.add_events();
      appended->set_event_id(absl::StrCat("open-", event.seq()));
      *appended->mutable_event() = event;
      seq = event.seq() + 1;
    }
  }
  const std::int64_t names = std::max<std::int64_t>(1, bytes / kBatch / 11);
  while (request.events_size() < kBatch) {
    v1::AppendedEvent* appended = request.add_events();
    appended->set_event_id(absl::StrCat("ev-", seq));
    *appended->mutable_event() = MoraleNaming(seq, {"oda-teppo"}, names);
    ++seq;
  }
  return request;
}

grpc::Status Append(Daemon& daemon, const v1::AppendEventsRequest& request) {
  grpc::ClientContext context;
  daemon.Prepare(context);
  v1::AppendEventsResponse response;
  return daemon.games().AppendEvents(&context, request, &response);
}

void GameServiceRows(const Flags& flags, const std::string& root,
                     std::vector<Row>& rows) {
  auto warm_create = [](Daemon& daemon) {
    return [&daemon] { Create(daemon, CreateOf("warm")); };
  };
  if (absl::StrContains("CreateGame many clans", flags.only)) {
    v1::CreateGameRequest request = CreateOf("many-clans");
    // About 11 bytes a clan.
    for (std::int64_t i = 0; i < flags.bytes / 11; ++i) {
      request.mutable_header()->add_clans()->set_id(absl::StrCat("c", i));
    }
    Daemon daemon(root);
    Row row{"CreateGame",
            absl::StrCat(request.header().clans_size(),
                         " clans, each given a credential"),
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_create(daemon),
                           [&] { return Create(daemon, request); }));
  }
  if (absl::StrContains("CreateGame many units", flags.only)) {
    v1::CreateGameRequest request = CreateOf("many-units");
    const v1::Unit unit = request.order_of_battle().units(0);
    const std::int64_t copies =
        flags.bytes / static_cast<std::int64_t>(unit.ByteSizeLong() + 4);
    while (request.order_of_battle().units_size() < copies) {
      v1::Unit* copy = request.mutable_order_of_battle()->add_units();
      *copy = unit;
      copy->set_id(absl::StrCat("u", request.order_of_battle().units_size()));
    }
    Daemon daemon(root);
    Row row{"CreateGame",
            absl::StrCat(request.order_of_battle().units_size(), " units"),
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(daemon, row, warm_create(daemon),
                           [&] { return Create(daemon, request); }));
  }
  if (absl::StrContains("AppendEvents one event of empty names", flags.only)) {
    Daemon daemon(root);
    Create(daemon, CreateOf("warm-empty"));
    Create(daemon, CreateOf("empty-names"));
    v1::AppendEventsRequest request;
    request.set_game_id("empty-names");
    const v1::BattleLog opening = AnegawaOpening();
    for (const v1::Event& event : opening.events()) {
      v1::AppendedEvent* appended = request.add_events();
      appended->set_event_id(absl::StrCat("open-", event.seq()));
      *appended->mutable_event() = event;
    }
    v1::AppendedEvent* appended = request.add_events();
    appended->set_event_id("empty-names");
    *appended->mutable_event() = MoraleNaming(3, {""}, flags.bytes / 2);
    const v1::AppendEventsRequest warm_batch =
        HostileBatch("warm-empty", 0, 10000);
    Row row{"AppendEvents",
            "one event naming an empty unit in friends_routing_near, over and "
            "over",
            static_cast<std::int64_t>(request.ByteSizeLong())};
    rows.push_back(Measure(
        daemon, row, [&] { Append(daemon, warm_batch); },
        [&] { return Append(daemon, request); }));
  }
  // AppendEvents, then every read of the game it made.
  Daemon daemon(root);
  Create(daemon, CreateOf("warm"));
  Create(daemon, CreateOf("hostile"));
  v1::AppendEventsRequest warm_batch = HostileBatch("warm", 0, 10000);
  const v1::AppendEventsRequest batch = HostileBatch("hostile", 0, flags.bytes);
  if (absl::StrContains("AppendEvents", flags.only)) {
    Row row{"AppendEvents",
            "10,000 events (the most a batch takes), each a morale test "
            "naming one unit over and over",
            static_cast<std::int64_t>(batch.ByteSizeLong())};
    rows.push_back(Measure(
        daemon, row, [&] { Append(daemon, warm_batch); },
        [&] { return Append(daemon, batch); }));
  } else {
    Append(daemon, batch);
  }
  const std::int64_t game_bytes =
      static_cast<std::int64_t>(batch.ByteSizeLong());
  auto read_row =
      [&](const std::string& rpc, const std::string& input,
          const std::function<grpc::Status(const std::string&)>& call) {
        if (!absl::StrContains(rpc + " " + input, flags.only)) return;
        daemon.Restart();
        Row row{rpc, input, game_bytes, /*against_game=*/true};
        rows.push_back(Measure(
            daemon, row, [&] { call("warm"); },
            [&] { return call("hostile"); }));
      };
  const std::string game_input = "the game the hostile batch made";
  // A read and an export come a page at a time: every page is read.
  read_row("ReadEvents", game_input + ", every page",
           [&](const std::string& id) {
             v1::ReadEventsRequest request;
             request.set_game_id(id);
             grpc::Status status;
             do {
               grpc::ClientContext context;
               daemon.Prepare(context);
               v1::ReadEventsResponse response;
               status = daemon.games().ReadEvents(&context, request, &response);
               request.set_from_seq(response.next_seq());
             } while (status.ok() && request.from_seq() != 0);
             return status;
           });
  read_row("GetGameState", game_input + ", at its middle",
           [&](const std::string& id) {
             grpc::ClientContext context;
             daemon.Prepare(context);
             v1::GetGameStateRequest request;
             request.set_game_id(id);
             request.set_at_seq(5000);
             v1::GetGameStateResponse response;
             return daemon.games().GetGameState(&context, request, &response);
           });
  read_row("AuditGame", game_input + ", with impact",
           [&](const std::string& id) {
             grpc::ClientContext context;
             daemon.Prepare(context);
             v1::AuditGameRequest request;
             request.set_game_id(id);
             request.set_impact(true);
             v1::AuditGameResponse response;
             return daemon.games().AuditGame(&context, request, &response);
           });
  read_row("WatchGame", game_input + ", from seq 1",
           [&](const std::string& id) {
             grpc::ClientContext context;
             daemon.Prepare(context);
             // The game has not ended: read what is there, then hang up.
             context.set_deadline(std::chrono::system_clock::now() +
                                  std::chrono::seconds(20));
             v1::WatchGameRequest request;
             request.set_game_id(id);
             auto reader = daemon.games().WatchGame(&context, request);
             v1::WatchGameResponse response;
             int read = 0;
             while (read < 10002 && reader->Read(&response)) ++read;
             context.TryCancel();
             reader->Finish();
             return grpc::Status::OK;
           });
  read_row("ExportGame", game_input + ", every page",
           [&](const std::string& id) {
             v1::ExportGameRequest request;
             request.set_game_id(id);
             grpc::Status status;
             do {
               grpc::ClientContext context;
               daemon.Prepare(context);
               v1::ExportGameResponse response;
               status = daemon.games().ExportGame(&context, request, &response);
               request.set_from_seq(response.next_seq());
             } while (status.ok() && request.from_seq() != 0);
             return status;
           });
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--bytes=")) {
      if (!absl::SimpleAtoi(arg, &flags.bytes)) std::exit(2);
    } else if (absl::ConsumePrefix(&arg, "--max-ratio=")) {
      if (!absl::SimpleAtod(arg, &flags.max_ratio)) std::exit(2);
    } else if (absl::ConsumePrefix(&arg, "--only=")) {
      flags.only = std::string(arg);
    } else {
      std::cerr << "usage: rpc_memory [--bytes=N] [--max-ratio=R] "
                   "[--only=SUBSTRING]\n";
      std::exit(2);
    }
  }
  return flags;
}

int Run(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  TempDir root;
  std::vector<Row> rows;
  AuditServiceRows(flags, root.path(), rows);
  GameServiceRows(flags, root.path(), rows);
  std::printf(
      "| RPC | hostile input | request size | peak RSS growth | ratio | CPU | "
      "status |\n|---|---|---|---|---|---|---|\n");
  bool ok = true;
  for (const Row& row : rows) {
    const double ratio = static_cast<double>(row.growth) /
                         static_cast<double>(row.request_bytes);
    const bool within =
        row.alive &&
        row.growth <= flags.max_ratio * row.request_bytes + kSlackBytes;
    ok = ok && within;
    std::printf("| %s | %s | %s%.1f MiB | %.1f MiB | %.2f | %.2f s | %s%s |\n",
                row.rpc.c_str(), row.input.c_str(),
                row.against_game ? "game of " : "",
                row.request_bytes / 1048576.0, row.growth / 1048576.0, ratio,
                row.cpu_seconds, row.status.c_str(),
                row.alive ? (within ? "" : ", OVER") : ", DAEMON DIED");
  }
  std::fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace gunbai::testing

int main(int argc, char** argv) { return gunbai::testing::Run(argc, argv); }
