// Fuzz target: one HTTP request's bytes through gunbaid's HTTP front, with
// no network. The bytes go to ReadHttpRequest (the server's own parser,
// limits and refusals: service/daemon/http_server.h), and a request that
// reads goes to HttpGateway::Answer: its routing, the content-type check,
// the JSON of the request message, the in-process gRPC call to
// AuditService, RulesService and LogService (live games are off, so
// /v1/games:... answer 501), and a stream's events, collected by a sink.
// The limits are small (a 64 KiB body, a 4 KiB header, 100 lines) so that
// the fuzzer reaches them.
//
// Checks, each a crash libFuzzer reports: a refusal is 400, 413 or 431;
// an answer's status is 200 to 599; a JSON answer parses as JSON and, when
// an error, has "code", "status" and "message"; every chunk of a stream is
// one server-sent event (ends with a blank line) and the last is `end` or
// `error`.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/http_gateway.h"
#include "service/daemon/http_server.h"
#include "service/daemon/log_service.h"
#include "service/daemon/logger.h"
#include "service/daemon/overload.h"
#include "service/daemon/rules_service.h"
#include "tests/fuzz/fuzz_support.h"

namespace gunbai::fuzz {
namespace {

constexpr std::size_t kMaxCollectedBytes = 1 << 20;

void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "http_request_fuzzer: %s: %.400s\n", what,
               detail.c_str());
  std::abort();
}

// The in-process gRPC server and the gateway over it, made once.
struct Front {
  Front()
      : budget(64 << 20, "--max-inflight-request-bytes"),
        audit(&BuiltinCatalog(), &budget),
        rules(&BuiltinCatalog()),
        logs(&BuiltinCatalog(), &budget) {
    service::SetLogLevel(service::LogLevel::kError);
    grpc::ServerBuilder builder;
    builder.RegisterService(&audit);
    builder.RegisterService(&rules);
    builder.RegisterService(&logs);
    builder.SetMaxReceiveMessageSize(64 << 10);
    server = builder.BuildAndStart();
    service::HttpOptions options;
    options.max_body_bytes = 64 << 10;
    gateway = service::HttpGateway::ForRequests(*server, options);
  }
  service::RequestBudget budget;
  service::AuditServiceImpl audit;
  service::RulesServiceImpl rules;
  service::LogServiceImpl logs;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<service::HttpGateway> gateway;
};

Front& TheFront() {
  static Front* const front = new Front();
  return *front;
}

class CollectingSink : public service::HttpChunkSink {
 public:
  bool Write(absl::string_view data) override {
    if (!absl::EndsWith(data, "\n\n")) {
      Fail("a stream chunk that is not one event", std::string(data));
    }
    last_ = std::string(data);
    collected_ += data.size();
    return collected_ < kMaxCollectedBytes;
  }
  const std::string& last() const { return last_; }
  bool cut() const { return collected_ >= kMaxCollectedBytes; }

 private:
  std::string last_;
  std::size_t collected_ = 0;
};

void CheckJson(const service::HttpResponse& response) {
  if (!absl::StartsWith(response.content_type, "application/json")) return;
  google::protobuf::Value value;
  if (!google::protobuf::util::JsonStringToMessage(response.body, &value)
           .ok()) {
    Fail("a JSON answer that is not JSON", response.body);
  }
  if (response.status >= 400 &&
      (!absl::StrContains(response.body, "\"code\":") ||
       !absl::StrContains(response.body, "\"status\":") ||
       !absl::StrContains(response.body, "\"message\":"))) {
    Fail("an error body without code, status and message", response.body);
  }
}

void CheckStream(service::HttpResponse& response) {
  CollectingSink sink;
  response.stream(sink);
  if (sink.cut()) return;
  if (!absl::StartsWith(sink.last(), "event: end\n") &&
      !absl::StartsWith(sink.last(), "event: error\n")) {
    Fail("a stream that does not end with end or error", sink.last());
  }
}

}  // namespace
}  // namespace gunbai::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace gunbai;  // NOLINT: the fuzzer's entry point only.
  fuzz::Front& front = fuzz::TheFront();
  service::HttpServerOptions limits;
  limits.max_body_bytes = 64 << 10;
  limits.max_header_bytes = 4 << 10;
  limits.max_header_fields = 100;
  service::HttpRequest request;
  std::string reason;
  const int read = service::ReadHttpRequest(
      absl::string_view(reinterpret_cast<const char*>(data), size), limits,
      request, reason);
  if (read == -1) return 0;
  if (read != 0) {
    if (read != 400 && read != 413 && read != 431) {
      fuzz::Fail("a refusal that is not 400, 413 or 431", reason);
    }
    service::HttpResponse refused;
    service::HttpGateway::AnswerRefusal(read, reason, request, refused);
    fuzz::CheckJson(refused);
    return 0;
  }
  service::HttpResponse response;
  front.gateway->Answer(request, response);
  if (response.status < 200 || response.status > 599) {
    fuzz::Fail("an answer status out of range",
               std::to_string(response.status));
  }
  if (response.stream != nullptr) {
    fuzz::CheckStream(response);
  } else {
    fuzz::CheckJson(response);
  }
  return 0;
}
