// gunbaid's metrics and log through a real gunbaid on free ports: a few
// calls over gRPC and over HTTP (good ones and refused ones), then GET
// /metrics must count exactly those calls by transport, method and code,
// with consistent histograms (cumulative buckets, +Inf equal to the count,
// the count equal to the calls), the series that exist from the start at
// zero; and stderr must be JSON lines, one per call with its request id
// (the client's or a generated one), method, game, code and latency, and
// never a credential or a request body. --log-level=warn drops the
// request lines and keeps the warnings.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "httplib.h"
#include "tests/e2e/gunbaid_process.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kUmpireToken[] = "obs-umpire-token-0123456789abcdef";
constexpr char kWrongToken[] = "obs-wrong-token-fedcba9876543210";
// In the body of every AuditLog the test sends: it must not reach the log.
constexpr char kBodyMarker[] = "obs-body-marker-5a1d";
constexpr char kGameId[] = "obs-game";

constexpr char kAuditLog[] = "/gunbai.v1.AuditService/AuditLog";
constexpr char kCreateGame[] = "/gunbai.v1.GameService/CreateGame";
constexpr char kReadEvents[] = "/gunbai.v1.GameService/ReadEvents";

v1::BattleLog ReadLog(absl::string_view name) {
  std::ifstream in(absl::StrCat(GUNBAI_TEST_DATA, "/", name, ".textproto"));
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log));
  return log;
}

std::string Json(const google::protobuf::Message& message) {
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(message, &json).ok());
  return json;
}

// One sample of the exposition: its name, labels and value.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Parses the text exposition format (every label value here is free of
// quotes and backslashes, which the test checks by parsing strictly).
std::vector<Sample> ParseExposition(absl::string_view text) {
  std::vector<Sample> samples;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    Sample sample;
    const std::size_t space = line.rfind(' ');
    EXPECT_NE(space, absl::string_view::npos) << line;
    if (space == absl::string_view::npos) continue;
    EXPECT_TRUE(absl::SimpleAtod(line.substr(space + 1), &sample.value))
        << line;
    absl::string_view series = line.substr(0, space);
    const std::size_t brace = series.find('{');
    sample.name = std::string(series.substr(0, brace));
    if (brace != absl::string_view::npos) {
      EXPECT_TRUE(absl::EndsWith(series, "}")) << line;
      absl::string_view labels =
          series.substr(brace + 1, series.size() - brace - 2);
      for (absl::string_view label : absl::StrSplit(labels, "\",")) {
        if (label.empty()) continue;
        std::pair<std::string, std::string> kv =
            absl::StrSplit(label, absl::MaxSplits("=\"", 1));
        if (absl::EndsWith(kv.second, "\"")) kv.second.pop_back();
        sample.labels[kv.first] = kv.second;
      }
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

// Returns the JSON objects of `log`, one per line; a line that is not a
// JSON object fails the test.
std::vector<google::protobuf::Struct> ParseLog(absl::string_view log) {
  std::vector<google::protobuf::Struct> lines;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (line.empty()) continue;
    google::protobuf::Struct object;
    EXPECT_TRUE(
        google::protobuf::util::JsonStringToMessage(std::string(line), &object)
            .ok())
        << "not a JSON line: " << line;
    lines.push_back(std::move(object));
  }
  return lines;
}

// Returns the daemon's stderr once it holds `rpc_lines` complete "rpc"
// lines and `http_lines` complete "http" lines, or as it is after 10 s.
// A line is written as its call ends, which can be just after the client
// has its answer, so a test that reads at once can miss the last line.
std::string LogOnceItHolds(const GunbaidProcess& daemon, std::size_t rpc_lines,
                           std::size_t http_lines) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    std::string log = daemon.Stderr();
    log.erase(log.find_last_of('\n') == std::string::npos
                  ? 0
                  : log.find_last_of('\n') + 1);
    std::size_t rpcs = 0;
    std::size_t https = 0;
    for (absl::string_view line : absl::StrSplit(log, '\n')) {
      if (absl::StrContains(line, "\"msg\":\"rpc\"")) ++rpcs;
      if (absl::StrContains(line, "\"msg\":\"http\"")) ++https;
    }
    if ((rpcs >= rpc_lines && https >= http_lines) ||
        std::chrono::steady_clock::now() > deadline) {
      return log;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string Field(const google::protobuf::Struct& line,
                  const std::string& key) {
  auto it = line.fields().find(key);
  if (it == line.fields().end()) return "";
  return it->second.has_number_value() ? absl::StrCat(it->second.number_value())
                                       : it->second.string_value();
}

// A call the test made: its transport, method, code and request id (empty
// when the test sent none).
struct Call {
  std::string transport;
  std::string method;
  std::string code;
  std::string request_id;
  std::string game_id;
};

class ObservabilityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { signal(SIGPIPE, SIG_IGN); }

  void StartDaemon(bool live_games, std::vector<std::string> extra_args) {
    ASSERT_FALSE(dir_.path().empty());
    std::string token_file;
    if (live_games) {
      token_file = dir_.path() + "/umpire.tok";
      std::ofstream(token_file) << kUmpireToken << "\n";
    }
    extra_args.insert(extra_args.begin(), {"--http", "127.0.0.1:0"});
    auto started = GunbaidProcess::Start(dir_.path() + "/data", token_file,
                                         dir_.path(), extra_args);
    ASSERT_TRUE(started.ok()) << started.status();
    daemon_ = *std::move(started);
    auto channel = grpc::CreateChannel(daemon_->target(),
                                       grpc::InsecureChannelCredentials());
    audit_ = v1::AuditService::NewStub(channel);
    games_ = v1::GameService::NewStub(channel);
    http_ =
        std::make_unique<httplib::Client>("127.0.0.1", daemon_->http_port());
    http_->set_read_timeout(30, 0);
  }

  static std::string CodeName(const grpc::Status& status) {
    static const char* const kNames[] = {"OK",
                                         "CANCELLED",
                                         "UNKNOWN",
                                         "INVALID_ARGUMENT",
                                         "DEADLINE_EXCEEDED",
                                         "NOT_FOUND",
                                         "ALREADY_EXISTS",
                                         "PERMISSION_DENIED",
                                         "RESOURCE_EXHAUSTED",
                                         "FAILED_PRECONDITION",
                                         "ABORTED",
                                         "OUT_OF_RANGE",
                                         "UNIMPLEMENTED",
                                         "INTERNAL",
                                         "UNAVAILABLE",
                                         "DATA_LOSS",
                                         "UNAUTHENTICATED"};
    return kNames[static_cast<int>(status.error_code())];
  }

  // AuditLog over gRPC, with `request_id` as x-request-id when not empty.
  void AuditOverGrpc(const std::string& request_id) {
    v1::AuditLogRequest request;
    *request.mutable_log() = ReadLog("anegawa-clean");
    request.mutable_log()->mutable_header()->set_game_id(kBodyMarker);
    grpc::ClientContext context;
    if (!request_id.empty()) context.AddMetadata("x-request-id", request_id);
    v1::AuditLogResponse response;
    const grpc::Status status = audit_->AuditLog(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    calls_.push_back({"grpc", kAuditLog, CodeName(status), request_id, ""});
    // The id goes back to the client.
    auto echoed = context.GetServerInitialMetadata().find("x-request-id");
    ASSERT_NE(echoed, context.GetServerInitialMetadata().end());
    if (!request_id.empty()) {
      EXPECT_EQ(echoed->second, request_id);
    }
  }

  // CreateGame over gRPC with `token`; returns its status.
  grpc::Status CreateOverGrpc(const std::string& token) {
    v1::BattleLog log = ReadLog("anegawa-clean");
    v1::CreateGameRequest request;
    *request.mutable_header() = log.header();
    request.mutable_header()->set_game_id(kGameId);
    *request.mutable_order_of_battle() = log.order_of_battle();
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    v1::CreateGameResponse response;
    const grpc::Status status =
        games_->CreateGame(&context, request, &response);
    calls_.push_back({"grpc", kCreateGame, CodeName(status), "", ""});
    for (const auto& credential : response.credentials()) {
      secrets_.push_back(credential.token());
    }
    return status;
  }

  // ReadEvents over gRPC of the game, with `token`; returns its status.
  grpc::Status ReadOverGrpc(const std::string& token) {
    v1::ReadEventsRequest request;
    request.set_game_id(kGameId);
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    v1::ReadEventsResponse response;
    const grpc::Status status =
        games_->ReadEvents(&context, request, &response);
    calls_.push_back({"grpc", kReadEvents, CodeName(status), "", kGameId});
    return status;
  }

  // POSTs `body` to `path` with `token` and `request_id` when not empty;
  // records the call under `method` with the code of the answer's body.
  int PostOverHttp(const std::string& path, const std::string& method,
                   const std::string& body, const std::string& token,
                   const std::string& request_id,
                   const std::string& game_id = "") {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    if (!request_id.empty()) headers.emplace("X-Request-Id", request_id);
    auto answer = http_->Post(path.c_str(), headers, body, "application/json");
    EXPECT_TRUE(answer);
    if (!answer) return 0;
    google::protobuf::Struct error;
    std::string code = "OK";
    if (answer->status != 200) {
      EXPECT_TRUE(
          google::protobuf::util::JsonStringToMessage(answer->body, &error)
              .ok())
          << answer->body;
      code = Field(error, "status");
    }
    calls_.push_back({"http", method, code, request_id, game_id});
    return answer->status;
  }

  std::string Metrics() {
    auto answer = http_->Get("/metrics");
    EXPECT_TRUE(answer);
    if (!answer) return "";
    EXPECT_EQ(answer->status, 200);
    EXPECT_TRUE(absl::StartsWith(answer->get_header_value("Content-Type"),
                                 "text/plain; version=0.0.4"));
    return answer->body;
  }

  // Scrapes /metrics until it counts `rpcs` calls and `refusals` gateway
  // refusals in all, or for 10 s: both are counted as a call ends, which
  // can be just after the client has its answer.
  std::vector<Sample> SamplesOnceTheyCount(int rpcs, int refusals) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      std::vector<Sample> samples = ParseExposition(Metrics());
      int counted_rpcs = 0;
      int counted_refusals = 0;
      for (const Sample& s : samples) {
        if (s.name == "gunbai_rpc_requests_total") {
          counted_rpcs += static_cast<int>(s.value);
        }
        if (s.name == "gunbai_http_refusals_total") {
          counted_refusals += static_cast<int>(s.value);
        }
      }
      if ((counted_rpcs >= rpcs && counted_refusals >= refusals) ||
          std::chrono::steady_clock::now() > deadline) {
        return samples;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  TempDir dir_;
  std::unique_ptr<GunbaidProcess> daemon_;
  std::unique_ptr<v1::AuditService::Stub> audit_;
  std::unique_ptr<v1::GameService::Stub> games_;
  std::unique_ptr<httplib::Client> http_;
  std::vector<Call> calls_;
  std::vector<std::string> secrets_ = {kUmpireToken, kWrongToken};
};

TEST_F(ObservabilityTest, MetricsCountEveryCallByTransportMethodAndCode) {
  StartDaemon(true, {});
  AuditOverGrpc("obs-grpc-1");
  AuditOverGrpc("");
  EXPECT_FALSE(CreateOverGrpc(kWrongToken).ok());
  EXPECT_TRUE(CreateOverGrpc(kUmpireToken).ok());
  EXPECT_TRUE(ReadOverGrpc(kUmpireToken).ok());
  EXPECT_FALSE(ReadOverGrpc(kWrongToken).ok());
  v1::AuditLogRequest audit;
  *audit.mutable_log() = ReadLog("anegawa-clean");
  audit.mutable_log()->mutable_header()->set_game_id(kBodyMarker);
  EXPECT_EQ(
      PostOverHttp("/v1/audit:log", kAuditLog, Json(audit), "", "obs-http-1"),
      200);
  const std::string read = absl::StrCat("{\"gameId\":\"", kGameId, "\"}");
  EXPECT_EQ(PostOverHttp("/v1/games:read", kReadEvents, read, kWrongToken,
                         "obs-http-2", kGameId),
            403);
  EXPECT_EQ(PostOverHttp("/v1/games:read", kReadEvents, read, kUmpireToken, "",
                         kGameId),
            200);

  // Refused by the gateway itself, before any RPC: counted apart.
  std::map<std::string, int> refusals;
  for (const char* path : {"/v1/audit:log", "/v1/nowhere", "/v1/audit:log"}) {
    auto answer = http_->Post(path, {}, "{not json", "application/json");
    ASSERT_TRUE(answer);
    ASSERT_GE(answer->status, 400);
    ++refusals[absl::StrCat(answer->status)];
  }
  ASSERT_EQ(refusals.size(), 2u);  // 400 and 404.

  // What the test did, tallied.
  std::map<std::tuple<std::string, std::string, std::string>, int> expected;
  std::map<std::pair<std::string, std::string>, int> per_method;
  for (const Call& call : calls_) {
    ++expected[{call.transport, call.method, call.code}];
    ++per_method[{call.transport, call.method}];
  }
  ASSERT_GE(expected.size(), 6u);

  int total_refusals = 0;
  for (const auto& [status, n] : refusals) total_refusals += n;
  const std::vector<Sample> samples =
      SamplesOnceTheyCount(static_cast<int>(calls_.size()), total_refusals);
  std::map<std::tuple<std::string, std::string, std::string>, int> counted;
  std::map<std::pair<std::string, std::string>, std::vector<Sample>> buckets;
  std::map<std::pair<std::string, std::string>, double> counts;
  std::set<std::string> names;
  std::map<std::string, int> refused;
  for (const Sample& s : samples) {
    names.insert(s.name);
    if (s.name == "gunbai_http_refusals_total") {
      refused[s.labels.at("status")] += static_cast<int>(s.value);
    }
    if (s.name == "gunbai_rpc_requests_total") {
      counted[{s.labels.at("transport"), s.labels.at("method"),
               s.labels.at("code")}] += static_cast<int>(s.value);
    } else if (s.name == "gunbai_rpc_duration_seconds_bucket") {
      buckets[{s.labels.at("transport"), s.labels.at("method")}].push_back(s);
    } else if (s.name == "gunbai_rpc_duration_seconds_count") {
      counts[{s.labels.at("transport"), s.labels.at("method")}] = s.value;
    }
  }
  EXPECT_EQ(counted, expected);
  EXPECT_EQ(refused, refusals);
  ASSERT_EQ(counts.size(), per_method.size());
  for (const auto& [key, calls] : per_method) {
    SCOPED_TRACE(absl::StrCat(key.first, " ", key.second));
    EXPECT_EQ(counts[key], calls);
    const std::vector<Sample>& series = buckets[key];
    ASSERT_GE(series.size(), 2u);
    double previous = 0;
    double previous_le = -1;
    for (const Sample& bucket : series) {
      EXPECT_GE(bucket.value, previous) << "not cumulative";
      previous = bucket.value;
      const std::string& le = bucket.labels.at("le");
      if (le == "+Inf") continue;
      double bound = 0;
      ASSERT_TRUE(absl::SimpleAtod(le, &bound)) << le;
      EXPECT_GT(bound, previous_le);
      previous_le = bound;
    }
    EXPECT_EQ(series.back().labels.at("le"), "+Inf");
    EXPECT_EQ(series.back().value, counts[key]);
  }

  // The series that exist from the start (the services report into them).
  for (const char* name :
       {"gunbai_append_duration_seconds_count", "gunbai_events_replayed_total",
        "gunbai_games_cached", "gunbai_store_errors_total",
        "gunbai_findings_total"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  std::set<std::string> rules;
  std::set<std::string> operations;
  for (const Sample& s : samples) {
    if (s.name == "gunbai_findings_total") rules.insert(s.labels.at("rule"));
    if (s.name == "gunbai_store_errors_total") {
      operations.insert(s.labels.at("operation"));
    }
    // No game id is ever a label.
    for (const auto& [label, value] : s.labels) {
      EXPECT_NE(value, kGameId) << s.name << " " << label;
      EXPECT_NE(label, "game_id") << s.name;
    }
  }
  EXPECT_TRUE(rules.count("daimyo.fire.hit"));
  EXPECT_TRUE(rules.count("other"));
  EXPECT_EQ(operations, (std::set<std::string>{"append", "checkpoint", "create",
                                               "list", "other", "read"}));
}

TEST_F(ObservabilityTest, OneJsonLinePerCallWithoutSecrets) {
  StartDaemon(true, {});
  AuditOverGrpc("obs-grpc-1");
  AuditOverGrpc("");
  EXPECT_FALSE(CreateOverGrpc(kWrongToken).ok());
  EXPECT_TRUE(CreateOverGrpc(kUmpireToken).ok());
  EXPECT_TRUE(ReadOverGrpc(kUmpireToken).ok());
  const std::string read = absl::StrCat("{\"gameId\":\"", kGameId, "\"}");
  EXPECT_EQ(PostOverHttp("/v1/games:read", kReadEvents, read, kWrongToken,
                         "obs-http-2", kGameId),
            403);
  // A request id that is not one is replaced, not logged.
  EXPECT_EQ(PostOverHttp("/v1/games:read", kReadEvents, read, kUmpireToken,
                         "bad id \"quoted\"", kGameId),
            200);
  calls_.back().request_id = "";
  // A player's credential too.
  ASSERT_GE(secrets_.size(), 3u);
  EXPECT_EQ(PostOverHttp("/v1/games:read", kReadEvents, read, secrets_[2], "",
                         kGameId),
            200);

  // Refused by the gateway before any RPC: a line of its own.
  auto refused = http_->Post(
      "/v1/games:read",
      {{"Authorization", absl::StrCat("Bearer ", kUmpireToken)},
       {"X-Request-Id", "obs-refused-1"}},
      absl::StrCat("{\"gameId\": \"", kBodyMarker, "\""), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);

  const std::string log = LogOnceItHolds(*daemon_, calls_.size(), 1);
  for (const std::string& secret : secrets_) {
    EXPECT_FALSE(absl::StrContains(log, secret)) << secret;
  }
  EXPECT_FALSE(absl::StrContains(log, kBodyMarker));
  std::vector<google::protobuf::Struct> rpcs;
  std::vector<google::protobuf::Struct> gateway;
  for (google::protobuf::Struct& line : ParseLog(log)) {
    EXPECT_FALSE(Field(line, "time").empty());
    EXPECT_FALSE(Field(line, "level").empty());
    if (Field(line, "msg") == "rpc") rpcs.push_back(std::move(line));
    if (Field(line, "msg") == "http") gateway.push_back(std::move(line));
  }
  ASSERT_EQ(gateway.size(), 1u) << log;
  EXPECT_EQ(Field(gateway[0], "request_id"), "obs-refused-1");
  EXPECT_EQ(Field(gateway[0], "path"), "/v1/games:read");
  EXPECT_EQ(Field(gateway[0], "http_status"), "400");
  EXPECT_EQ(Field(gateway[0], "level"), "info");
  ASSERT_EQ(rpcs.size(), calls_.size()) << log;
  std::set<std::string> ids;
  // The lines are written as calls end, and the test makes one at a time.
  for (std::size_t i = 0; i < calls_.size(); ++i) {
    const Call& call = calls_[i];
    const google::protobuf::Struct& line = rpcs[i];
    SCOPED_TRACE(absl::StrCat(i, " ", call.method));
    EXPECT_EQ(Field(line, "level"), "info");
    EXPECT_EQ(Field(line, "transport"), call.transport);
    EXPECT_EQ(Field(line, "method"), call.method);
    EXPECT_EQ(Field(line, "code"), call.code);
    EXPECT_EQ(Field(line, "game_id"), call.game_id);
    ASSERT_TRUE(line.fields().at("latency_ms").has_number_value());
    EXPECT_GE(line.fields().at("latency_ms").number_value(), 0);
    EXPECT_LT(line.fields().at("latency_ms").number_value(), 60000);
    const std::string id = Field(line, "request_id");
    if (call.request_id.empty()) {
      EXPECT_TRUE(absl::StartsWith(id, "r")) << id;
    } else {
      EXPECT_EQ(id, call.request_id);
    }
    EXPECT_TRUE(ids.insert(id).second) << "request id twice: " << id;
  }
}

TEST_F(ObservabilityTest, LogLevelWarnKeepsWarningsDropsRequests) {
  StartDaemon(false, {"--log-level=warn"});
  AuditOverGrpc("obs-grpc-1");
  const std::vector<google::protobuf::Struct> lines =
      ParseLog(daemon_->Stderr());
  ASSERT_EQ(lines.size(), 1u) << daemon_->Stderr();
  EXPECT_EQ(Field(lines[0], "level"), "warn");
  EXPECT_TRUE(absl::StrContains(Field(lines[0], "msg"), "live games are off"));
}

}  // namespace
}  // namespace gunbai::testing
