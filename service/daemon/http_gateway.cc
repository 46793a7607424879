#include "service/daemon/http_gateway.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "gunbai/v1/log_service.grpc.pb.h"
#include "gunbai/v1/rules_service.grpc.pb.h"
#include "rules/status_macros.h"
#include "rules/text_escape.h"
#include "service/daemon/http_server.h"
#include "service/daemon/logger.h"
#include "service/daemon/metrics.h"
#include "service/daemon/request_observer.h"
#include "service/daemon/web_assets.h"

namespace gunbai::service {

using ::gunbai::base::JsonString;

using AuditStub = v1::AuditService::Stub;
using GameStub = v1::GameService::Stub;
using RulesStub = v1::RulesService::Stub;
using LogStub = v1::LogService::Stub;

struct HttpGateway::Stubs {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<AuditStub> audit;
  std::unique_ptr<GameStub> games;
  std::unique_ptr<RulesStub> rules;
  std::unique_ptr<LogStub> logs;
};

namespace {

// The most of a JSON parser's message an error body quotes.
constexpr std::size_t kMaxParseMessageBytes = 300;
// Messages of a stream converted and waiting for the HTTP client; past it
// the in-process call waits, and gRPC's flow control holds the server.
constexpr std::size_t kMaxQueuedMessages = 16;
// How long a stream waits for a message before it looks whether gunbaid is
// shutting down; every kTicksPerHeartbeat ticks without a message it sends
// an SSE comment, whose failure tells that the client went away.
constexpr absl::Duration kStreamTick = absl::Milliseconds(250);
constexpr int kTicksPerHeartbeat = 4;
// How long a stream waits for its first message or its end before it
// sends the 200 and its headers: an error in that time (a refused
// credential, a game that does not exist) is an HTTP status, later it is
// an `event: error`.
constexpr absl::Duration kCommitWait = absl::Milliseconds(500);
// How long BeginShutdown waits for the streams to send their last event.
constexpr absl::Duration kStreamShutdownWait = absl::Seconds(2);
// The longest Authorization header forwarded (a token is 64 characters).
constexpr std::size_t kMaxAuthorizationBytes = 1024;

// Requests one keep-alive connection may make before it is closed.
constexpr int kMaxRequestsPerConnection = 100;
// The longest request header, and the most header lines, gunbaid reads:
// past either the answer is 431.
constexpr std::size_t kMaxHeaderBytes = 16 << 10;
constexpr int kMaxHeaderFields = 100;

constexpr char kJson[] = "application/json";
// Prometheus' text exposition format.
constexpr char kMetricsContentType[] =
    "text/plain; version=0.0.4; charset=utf-8";

// Returns at most `limit` bytes of `text`, not cutting a UTF-8 sequence,
// with "..." when cut.
std::string Excerpt(absl::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return absl::StrCat(text.substr(0, end), "...");
}

// Answers `response` with the JSON error body of `code` and `message`
// under HTTP status `http_status`.
void WriteError(int http_status, grpc::StatusCode code,
                absl::string_view message, HttpResponse& response) {
  response.status = http_status;
  response.body = ErrorJson(code, message);
  response.content_type = kJson;
}

// Returns the message of a call that ended with `status`; when gRPC gave
// none, one saying what happened. An empty UNIMPLEMENTED is a service
// gunbaid does not serve: AuditService always is, so it is GameService.
std::string StatusMessage(const grpc::Status& status) {
  if (!status.error_message().empty()) return status.error_message();
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    return "gunbaid does not serve this call: live games (/v1/games:...) are "
           "off unless gunbaid is started with an umpire credential "
           "(--umpire-token-file or GUNBAI_UMPIRE_TOKEN)";
  }
  return absl::StrCat("the call ended with ", GrpcCodeName(status.error_code()),
                      " and no message");
}

// Returns the error body of a call that ended with `status`: ErrorJson's,
// with `details` when the status carries them (gRPC's rich error model, a
// gunbai.v1.RpcStatus in error_details: a refused strict batch's
// AppendRefusal), each detail in the proto3 JSON mapping of Any ("@type"
// and its fields), as google.api's HTTP error body has them.
std::string StatusJson(const grpc::Status& status) {
  std::string body = ErrorJson(status.error_code(), StatusMessage(status));
  v1::RpcStatus rich;
  if (status.error_details().empty() ||
      !rich.ParseFromString(status.error_details()) ||
      rich.details_size() == 0) {
    return body;
  }
  std::vector<std::string> details;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  for (const google::protobuf::Any& detail : rich.details()) {
    std::string json;
    if (!google::protobuf::util::MessageToJsonString(detail, &json, options)
             .ok()) {
      return body;  // A type this gunbaid cannot print: the message says it.
    }
    details.push_back(std::move(json));
  }
  body.pop_back();  // The closing brace.
  absl::StrAppend(&body, ",\"details\":[", absl::StrJoin(details, ","), "]}");
  return body;
}

// Answers `response` with the error of a call that ended with `status`.
void WriteStatus(const grpc::Status& status, HttpResponse& response) {
  response.status = HttpStatusOf(status.error_code());
  response.body = StatusJson(status);
  response.content_type = kJson;
}

// Returns `message` in the proto3 JSON mapping, on one line, fields in
// their numbers' order, default values left out.
absl::StatusOr<std::string> MessageJson(
    const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  std::string json;
  auto printed =
      google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!printed.ok()) {
    return absl::InternalError(absl::StrCat("cannot write the answer as JSON: ",
                                            printed.message().as_string()));
  }
  return json;
}

// Answers `response` with `message` as JSON.
void WriteMessage(const google::protobuf::Message& message,
                  HttpResponse& response) {
  absl::StatusOr<std::string> json = MessageJson(message);
  if (!json.ok()) {
    WriteError(500, grpc::StatusCode::INTERNAL, json.status().message(),
               response);
    return;
  }
  response.body = *std::move(json);
  response.content_type = kJson;
}

// Returns true when `value` is a printable ASCII string, as gRPC metadata
// values must be.
bool PrintableAscii(absl::string_view value) {
  for (char c : value) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

// What the access log knows of the request a worker thread is serving:
// when it started, and whether it became an RPC (whose line the gRPC
// server's observer writes). Set per request on that thread.
thread_local absl::Time request_start = absl::InfinitePast();
thread_local bool made_rpc = false;

// Notes that the request being served became an RPC.
void MadeRpc() { made_rpc = true; }

// The longest part of a path a log line quotes.
constexpr std::size_t kMaxLoggedPathBytes = 200;

// Logs and counts an answer the gateway gave without an RPC: a refusal (a
// body that is not JSON, a credential header that is not one line, an
// unknown path, a body over the limit, a GET of an API path) at info, a
// page, a file of the web app or a scrape of /metrics at debug. The line
// has the request id (X-Request-Id when it is one, else generated), the
// path and the HTTP status; never a header's value or the body.
void LogAnswerWithoutRpc(const HttpRequest& request,
                         const HttpResponse& response) {
  const absl::Time start = request_start;
  request_start = absl::InfinitePast();
  if (std::exchange(made_rpc, false)) return;
  const bool refused = response.status >= 400;
  if (refused) ProcessMetrics().RecordHttpRefusal(response.status);
  const LogLevel level = refused ? LogLevel::kInfo : LogLevel::kDebug;
  if (!LogEnabled(level)) return;
  const std::string given = request.Header("X-Request-Id");
  const std::string id = IsValidRequestId(given) ? given : NewRequestId();
  const std::string path(Excerpt(request.path, kMaxLoggedPathBytes));
  if (start == absl::InfinitePast()) {
    Log(level, "http",
        {{"request_id", id},
         {"transport", "http"},
         {"path", path},
         {"http_status", response.status}});
    return;
  }
  Log(level, "http",
      {{"request_id", id},
       {"transport", "http"},
       {"path", path},
       {"http_status", response.status},
       {"latency_ms", absl::ToDoubleMilliseconds(absl::Now() - start)}});
}

// RFC 9110's tchar: the characters of a token.
bool IsTokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::string_view("!#$%&'*+-.^_`|~").find(c) !=
             absl::string_view::npos;
}

absl::string_view Token(absl::string_view& rest) {
  std::size_t n = 0;
  while (n < rest.size() && IsTokenChar(rest[n])) ++n;
  const absl::string_view token = rest.substr(0, n);
  rest.remove_prefix(n);
  return token;
}

void SkipWhitespace(absl::string_view& rest) {
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) {
    rest.remove_prefix(1);
  }
}

// A parameter's value: a token, or a quoted string (its escapes undone).
std::optional<std::string> ParameterValue(absl::string_view& rest) {
  if (rest.empty() || rest.front() != '"') {
    const absl::string_view token = Token(rest);
    if (token.empty()) return std::nullopt;
    return std::string(token);
  }
  std::string value;
  for (std::size_t i = 1; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '"') {
      rest.remove_prefix(i + 1);
      return value;
    }
    if (c == '\\' && i + 1 < rest.size()) {
      value.push_back(rest[++i]);
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return std::nullopt;
    } else {
      value.push_back(c);
    }
  }
  return std::nullopt;  // No closing quote.
}

// Reads the HTTP request `http` into `request` and forwards its
// credential into `context`. On a problem answers `response` with the
// error and returns false: a query string (400: a credential never goes in
// a URL), a body that is not JSON (415), that does not parse as the
// request message (400, with the parser's message), or an Authorization
// header that is not one printable line (401).
bool ReadRequest(const HttpRequest& http, HttpResponse& response,
                 google::protobuf::Message& request,
                 grpc::ClientContext& context) {
  if (http.target.find('?') != std::string::npos) {
    WriteError(400, grpc::StatusCode::INVALID_ARGUMENT,
               "the API takes no query string: the request goes in the JSON "
               "body, a credential in the Authorization header",
               response);
    return false;
  }
  if (absl::Status json = CheckJsonContentType(http.Header("Content-Type"));
      !json.ok()) {
    WriteError(415, grpc::StatusCode::INVALID_ARGUMENT,
               absl::StrCat(json.message(),
                            "; send the body as Content-Type: "
                            "application/json (the proto3 JSON of ",
                            request.GetDescriptor()->full_name(), ", UTF-8)"),
               response);
    return false;
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const absl::string_view body = http.body.empty()
                                     ? absl::string_view("{}")
                                     : absl::string_view(http.body);
  auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(body.data(), body.size()), &request,
      options);
  if (!parsed.ok()) {
    WriteError(400, grpc::StatusCode::INVALID_ARGUMENT,
               absl::StrCat("the body is not a ",
                            request.GetDescriptor()->full_name(), " in JSON: ",
                            Excerpt(parsed.message().as_string(),
                                    kMaxParseMessageBytes)),
               response);
    return false;
  }
  // The request id, for the gRPC server's log line; the observer checks
  // it (service/daemon/request_observer.h).
  const std::string request_id = http.Header("X-Request-Id");
  if (!request_id.empty() && request_id.size() <= kMaxAuthorizationBytes &&
      PrintableAscii(request_id)) {
    context.AddMetadata("x-request-id", request_id);
  }
  if (http.HeaderCount("Authorization") == 0) return true;
  const std::string credential = http.Header("Authorization");
  if (http.HeaderCount("Authorization") > 1 ||
      credential.size() > kMaxAuthorizationBytes ||
      !PrintableAscii(credential)) {
    WriteError(401, grpc::StatusCode::UNAUTHENTICATED,
               "send one Authorization header reading \"Bearer TOKEN\"",
               response);
    return false;
  }
  context.AddMetadata("authorization", credential);
  return true;
}

// One streaming call in flight for an HTTP client: a thread of its own
// runs the in-process call and queues each message as JSON; the HTTP
// worker takes them off the queue and sends them as events. Thread-safe.
class StreamCall {
 public:
  // Runs the call on `context`, handing each message to Push; returns its
  // status.
  using Body = std::function<grpc::Status(grpc::ClientContext*, StreamCall&)>;

  explicit StreamCall(std::atomic<int>* active) : active_(active) {
    ++*active_;
  }
  ~StreamCall() {
    Abandon();
    if (thread_.joinable()) thread_.join();
    --*active_;
  }
  StreamCall(const StreamCall&) = delete;
  StreamCall& operator=(const StreamCall&) = delete;

  grpc::ClientContext& context() { return context_; }

  // Starts `body` in the call's thread.
  void Start(Body body) {
    thread_ = std::thread([this, body = std::move(body)] {
      grpc::Status status = body(&context_, *this);
      absl::MutexLock lock(&mu_);
      if (failure_.ok()) failure_ = std::move(status);
      finished_ = true;
    });
  }

  // Call's thread: queues one message, waiting while the queue is full.
  // Returns false when the HTTP side has given up (then cancel the call).
  bool Push(absl::StatusOr<std::string> json) {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(this, &StreamCall::HasRoomOrAbandoned));
    if (abandoned_) return false;
    if (!json.ok()) {
      failure_ = grpc::Status(grpc::StatusCode::INTERNAL,
                              std::string(json.status().message()));
      return false;
    }
    queue_.push_back(*std::move(json));
    return true;
  }

  // HTTP side: waits up to `timeout` for a message or the end, without
  // taking it. Returns true when the call ended with nothing queued, its
  // status in `status`.
  bool WaitForStart(absl::Duration timeout, grpc::Status& status) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(this, &StreamCall::HasNews), timeout);
    if (!queue_.empty() || !finished_) return false;
    status = failure_;
    return true;
  }

  enum class Next { kMessage, kEnd, kNothing };

  // HTTP side: waits up to `timeout` for the next message (into `json`) or
  // the end of the call (its status into `status`).
  Next Wait(absl::Duration timeout, std::string& json, grpc::Status& status) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(this, &StreamCall::HasNews), timeout);
    if (!queue_.empty()) {
      json = std::move(queue_.front());
      queue_.pop_front();
      return Next::kMessage;
    }
    if (!finished_) return Next::kNothing;
    status = failure_;
    return Next::kEnd;
  }

  // HTTP side: gives up on the call (the client went away or gunbaid shuts
  // down) and cancels it.
  void Abandon() {
    {
      absl::MutexLock lock(&mu_);
      abandoned_ = true;
    }
    context_.TryCancel();
  }

 private:
  bool HasRoomOrAbandoned() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return queue_.size() < kMaxQueuedMessages || abandoned_;
  }
  bool HasNews() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !queue_.empty() || finished_;
  }

  std::atomic<int>* const active_;
  grpc::ClientContext context_;
  std::thread thread_;
  absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  grpc::Status failure_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool abandoned_ ABSL_GUARDED_BY(mu_) = false;
};

// Returns one server-sent event: `data:` and the JSON, after `event:` and
// `kind` when `kind` is not empty.
std::string Event(absl::string_view kind, absl::string_view json) {
  if (kind.empty()) return absl::StrCat("data: ", json, "\n\n");
  return absl::StrCat("event: ", kind, "\ndata: ", json, "\n\n");
}

// Returns the last event of a stream that ended with `status`: `end` when
// OK, else `error` with the error body.
std::string LastEvent(const grpc::Status& status) {
  if (status.ok()) return Event("end", "{}");
  return Event("error", StatusJson(status));
}

// Answers `response` with the events of `call`: an error before the first
// message (within kCommitWait) as an HTTP status, else 200 and
// text/event-stream, one `data:` event per message, then `event: end` or
// `event: error`. A stream ends early when `shutting_down` is set or the
// client goes away (a write fails), cancelling the call.
void ServeEvents(std::shared_ptr<StreamCall> call, HttpResponse& response,
                 const std::atomic<bool>* shutting_down) {
  grpc::Status early;
  if (call->WaitForStart(kCommitWait, early) && !early.ok()) {
    WriteStatus(early, response);
    return;
  }
  response.content_type = "text/event-stream";
  response.stream = [call, shutting_down](HttpChunkSink& sink) {
    int quiet_ticks = 0;
    for (;;) {
      std::string json;
      grpc::Status status;
      switch (call->Wait(kStreamTick, json, status)) {
        case StreamCall::Next::kMessage:
          quiet_ticks = 0;
          if (!sink.Write(Event("", json))) return;
          continue;
        case StreamCall::Next::kEnd:
          sink.Write(LastEvent(status));
          return;
        case StreamCall::Next::kNothing:
          break;
      }
      if (shutting_down->load()) {
        call->Abandon();
        sink.Write(LastEvent(grpc::Status(
            grpc::StatusCode::UNAVAILABLE,
            "gunbaid is shutting down; ask again when it is back")));
        return;
      }
      if (++quiet_ticks < kTicksPerHeartbeat) continue;
      quiet_ticks = 0;
      if (!sink.Write(":\n\n")) return;
    }
  };
}

template <class Stub, class Request, class Response>
using UnaryMethod = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&,
                                           Response*);
template <class Stub, class Request, class Response>
using StreamMethod = std::unique_ptr<grpc::ClientReader<Response>> (Stub::*)(
    grpc::ClientContext*, const Request&);

// Returns the handler of the unary RPC `method` of `stub`.
template <class Stub, class Request, class Response>
HttpHandler ServeUnary(Stub* stub,
                       UnaryMethod<Stub, Request, Response> method) {
  return [stub, method](const HttpRequest& http_request,
                        HttpResponse& http_response) {
    Request request;
    grpc::ClientContext context;
    if (!ReadRequest(http_request, http_response, request, context)) return;
    MadeRpc();
    Response response;
    const grpc::Status status = (stub->*method)(&context, request, &response);
    if (!status.ok()) {
      WriteStatus(status, http_response);
      return;
    }
    WriteMessage(response, http_response);
  };
}

// Returns the handler of the server-streaming RPC `method` of `stub`, as
// server-sent events; `active` counts the streams in flight.
template <class Stub, class Request, class Response>
HttpHandler ServeStream(Stub* stub,
                        StreamMethod<Stub, Request, Response> method,
                        std::atomic<int>* active,
                        const std::atomic<bool>* shutting_down) {
  return [=](const HttpRequest& http_request, HttpResponse& http_response) {
    auto request = std::make_shared<Request>();
    auto call = std::make_shared<StreamCall>(active);
    if (!ReadRequest(http_request, http_response, *request, call->context())) {
      return;
    }
    MadeRpc();
    call->Start([stub, method, request](grpc::ClientContext* context,
                                        StreamCall& queue) {
      std::unique_ptr<grpc::ClientReader<Response>> reader =
          (stub->*method)(context, *request);
      Response response;
      bool wanted = true;
      while (reader->Read(&response)) {
        if (wanted && !queue.Push(MessageJson(response))) {
          context->TryCancel();
          wanted = false;
        }
      }
      return reader->Finish();
    });
    ServeEvents(std::move(call), http_response, shutting_down);
  };
}

// Returns the gRPC code an HTTP refusal of the server's own stands for.
grpc::StatusCode RefusalCode(int http_status) {
  switch (http_status) {
    case 404:
      return grpc::StatusCode::NOT_FOUND;
    case 405:
      return grpc::StatusCode::UNIMPLEMENTED;
    case 408:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case 413:
    case 429:
    case 431:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case 503:
      return grpc::StatusCode::UNAVAILABLE;
    default:
      return grpc::StatusCode::INVALID_ARGUMENT;
  }
}

// Answers a path that is not one of gunbaid's.
void NoSuchPath(HttpResponse& response) {
  WriteError(404, grpc::StatusCode::NOT_FOUND,
             "no such path: the web app is at /, the API at "
             "POST /v1/audit:... and /v1/games:... (listed on /)",
             response);
}

// Splits "HOST:PORT" (an IPv6 host in brackets) into `host` and `port`.
// Returns InvalidArgument when it is not that.
absl::Status SplitAddress(const std::string& address, std::string& host,
                          int& port) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--http wants HOST:PORT, e.g. 127.0.0.1:8080; got \"", address, "\"."));
  }
  host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckJsonContentType(absl::string_view content_type) {
  absl::string_view rest = content_type;
  SkipWhitespace(rest);
  const absl::string_view type = Token(rest);
  const bool slash = !rest.empty() && rest.front() == '/';
  if (slash) rest.remove_prefix(1);
  const absl::string_view subtype = Token(rest);
  if (!slash || !absl::EqualsIgnoreCase(type, "application") ||
      !absl::EqualsIgnoreCase(subtype, "json")) {
    return absl::InvalidArgumentError(absl::StrCat(
        content_type.empty() ? "no Content-Type"
                             : absl::StrCat("\"", Excerpt(content_type, 60),
                                            "\" is not application/json")));
  }
  for (;;) {
    SkipWhitespace(rest);
    if (rest.empty()) return absl::OkStatus();
    if (rest.front() != ';') break;
    rest.remove_prefix(1);
    SkipWhitespace(rest);
    if (rest.empty()) return absl::OkStatus();  // A trailing ";".
    const absl::string_view name = Token(rest);
    if (name.empty() || rest.empty() || rest.front() != '=') break;
    rest.remove_prefix(1);
    const std::optional<std::string> value = ParameterValue(rest);
    if (!value.has_value()) break;
    if (absl::EqualsIgnoreCase(name, "charset") &&
        !absl::EqualsIgnoreCase(*value, "utf-8")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "charset ", Excerpt(*value, 40), ": the body must be UTF-8"));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("\"", Excerpt(content_type, 60),
                   "\" is not application/json: a malformed parameter"));
}

int HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

std::string ErrorJson(grpc::StatusCode code, absl::string_view message) {
  return absl::StrCat("{\"code\":", static_cast<int>(code),
                      ",\"status\":", JsonString(GrpcCodeName(code)),
                      ",\"message\":", JsonString(message), "}");
}

HttpGateway::HttpGateway() = default;

HttpGateway::~HttpGateway() {
  BeginShutdown();
  Wait();
}

namespace {

// Answers a request the HTTP server refuses itself (a header over the
// limit, a body over it, too many connections...), and logs and counts it.
void RefuseAsJson(int http_status, absl::string_view reason,
                  const HttpRequest& request, HttpResponse& response) {
  WriteError(http_status, RefusalCode(http_status), reason, response);
  request_start = absl::InfinitePast();
  made_rpc = false;
  LogAnswerWithoutRpc(request, response);
}

// Returns the value of the hex digit `c`, or -1.
int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Returns `path` with its %XX escapes undone (a malformed one kept as is).
std::string DecodePath(absl::string_view path) {
  std::string decoded;
  decoded.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 2 < path.size() &&
        HexDigitValue(path[i + 1]) >= 0 && HexDigitValue(path[i + 2]) >= 0) {
      decoded.push_back(static_cast<char>(HexDigitValue(path[i + 1]) * 16 +
                                          HexDigitValue(path[i + 2])));
      i += 2;
      continue;
    }
    decoded.push_back(path[i]);
  }
  return decoded;
}

}  // namespace

std::unique_ptr<HttpGateway> HttpGateway::ForRequests(
    grpc::Server& server, const HttpOptions& options) {
  auto gateway = std::unique_ptr<HttpGateway>(new HttpGateway());
  // The gRPC server's limits are the only ones: the in-process channel
  // takes any size.
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  gateway->stubs_ = std::make_unique<Stubs>();
  gateway->stubs_->channel = server.InProcessChannel(arguments);
  gateway->stubs_->audit = v1::AuditService::NewStub(gateway->stubs_->channel);
  gateway->stubs_->games = v1::GameService::NewStub(gateway->stubs_->channel);
  gateway->stubs_->rules = v1::RulesService::NewStub(gateway->stubs_->channel);
  gateway->stubs_->logs = v1::LogService::NewStub(gateway->stubs_->channel);
  gateway->DefineRoutes();
  gateway->DefineMetrics(options.metrics);
  gateway->DefineHealth(options.ready);
  gateway->DefineInfo(options.checkpoint_verifier_key);
  return gateway;
}

absl::StatusOr<std::unique_ptr<HttpGateway>> HttpGateway::Start(
    grpc::Server& server, const HttpOptions& options) {
  HttpServerOptions http;
  GUNBAI_RETURN_IF_ERROR(SplitAddress(options.address, http.host, http.port));
  std::unique_ptr<HttpGateway> gateway = ForRequests(server, options);
  http.tls_cert = options.tls_cert;
  http.tls_key = options.tls_key;
  http.max_body_bytes = options.max_body_bytes;
  http.max_header_bytes = kMaxHeaderBytes;
  http.max_header_fields = kMaxHeaderFields;
  http.request_deadline = absl::Milliseconds(options.request_deadline_ms);
  http.write_timeout = absl::Seconds(options.io_timeout_seconds);
  http.keep_alive = absl::Seconds(options.keep_alive_seconds);
  http.max_requests_per_connection = kMaxRequestsPerConnection;
  http.max_connections = options.max_connections;
  http.max_connections_per_address = options.max_connections_per_address;
  http.threads = options.threads;
  http.max_pending = 4 * options.threads;
  http.default_headers = {
      {"Content-Security-Policy", kContentSecurityPolicy},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-store"},
  };
  HttpGateway* routes = gateway.get();
  auto started = HttpServer::Start(
      std::move(http),
      [routes](const HttpRequest& request, HttpResponse& response) {
        routes->Answer(request, response);
      },
      AnswerRefusal);
  if (!started.ok()) return started.status();
  gateway->server_ = *std::move(started);
  return gateway;
}

void HttpGateway::Answer(const HttpRequest& request,
                         HttpResponse& response) const {
  request_start = absl::Now();
  made_rpc = false;
  Dispatch(request, response);
  LogAnswerWithoutRpc(request, response);
}

void HttpGateway::Dispatch(const HttpRequest& request,
                           HttpResponse& response) const {
  const bool get = request.method == "GET" || request.method == "HEAD";
  const std::string path = DecodePath(request.path);
  const auto route = routes_.find(path);
  if (route == routes_.end()) {
    if (get && absl::StartsWith(path, "/app/")) {
      return ServeAsset(path.substr(5), response);
    }
    return NoSuchPath(response);
  }
  if (get && route->second.get != nullptr) {
    return route->second.get(request, response);
  }
  if (request.method == "POST" && route->second.post != nullptr) {
    return route->second.post(request, response);
  }
  const bool api = route->second.post != nullptr;
  response.SetHeader("Allow", api ? "POST" : "GET, HEAD");
  WriteError(
      405, grpc::StatusCode::UNIMPLEMENTED,
      api ? "this path takes POST with a JSON body" : "this path takes GET",
      response);
}

void HttpGateway::ServeAsset(absl::string_view name, HttpResponse& response) {
  const bool plain_name =
      !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
               c == '_' || c == '-';
      });
  const WebAsset* asset = plain_name ? FindWebAsset(name) : nullptr;
  if (asset == nullptr) return NoSuchPath(response);
  response.body = std::string(asset->bytes());
  response.content_type = std::string(WebContentType(asset->name));
}

void HttpGateway::DefineRoutes() {
  AuditStub* audit = stubs_->audit.get();
  GameStub* games = stubs_->games.get();
  RulesStub* rules = stubs_->rules.get();
  LogStub* logs = stubs_->logs.get();
  const auto unary = [this](const char* path, HttpHandler handler) {
    routes_[path].post = std::move(handler);
  };
  const auto stream = [this](const char* path, auto stub, auto method) {
    routes_[path].post =
        ServeStream(stub, method, &active_streams_, &shutting_down_);
  };
  unary("/v1/audit:log", ServeUnary(audit, &AuditStub::AuditLog));
  stream("/v1/audit:logStream", audit, &AuditStub::AuditLogStream);
  stream("/v1/audit:diff", audit, &AuditStub::Diff);
  unary("/v1/audit:diceStats", ServeUnary(audit, &AuditStub::DiceStats));
  unary("/v1/audit:reconcile", ServeUnary(audit, &AuditStub::Reconcile));
  unary("/v1/tournament:standings",
        ServeUnary(audit, &AuditStub::TournamentStandings));
  unary("/v1/tournament:rule", ServeUnary(audit, &AuditStub::TournamentRule));
  unary("/v1/games:create", ServeUnary(games, &GameStub::CreateGame));
  unary("/v1/games:append", ServeUnary(games, &GameStub::AppendEvents));
  unary("/v1/games:read", ServeUnary(games, &GameStub::ReadEvents));
  unary("/v1/games:state", ServeUnary(games, &GameStub::GetGameState));
  unary("/v1/games:proof", ServeUnary(games, &GameStub::GetProof));
  unary("/v1/games:checkpoint", ServeUnary(games, &GameStub::GetCheckpoint));
  unary("/v1/games:registerCheckpointKey",
        ServeUnary(games, &GameStub::RegisterCheckpointKey));
  unary("/v1/games:cosignCheckpoint",
        ServeUnary(games, &GameStub::CosignCheckpoint));
  unary("/v1/games:checkpoints", ServeUnary(games, &GameStub::ListCheckpoints));
  unary("/v1/games:audit", ServeUnary(games, &GameStub::AuditGame));
  stream("/v1/games:watch", games, &GameStub::WatchGame);
  unary("/v1/games:export", ServeUnary(games, &GameStub::ExportGame));
  unary("/v1/games:list", ServeUnary(games, &GameStub::ListGames));
  unary("/v1/games:legalActions",
        ServeUnary(games, &GameStub::GetLegalActions));
  unary("/v1/rules:explain", ServeUnary(rules, &RulesStub::ExplainRule));
  unary("/v1/rulesets:describe",
        ServeUnary(rules, &RulesStub::DescribeRulesets));
  unary("/v1/logs:parse", ServeUnary(logs, &LogStub::ParseLog));
  unary("/v1/logs:states", ServeUnary(logs, &LogStub::LogStates));
  unary("/v1/logs:map", ServeUnary(logs, &LogStub::DrawMap));
  routes_["/"].get = [](const HttpRequest&, HttpResponse& response) {
    ServeAsset("index.html", response);
  };
}

void HttpGateway::DefineMetrics(std::function<std::string()> metrics) {
  if (metrics == nullptr) return;
  routes_["/metrics"].get = [metrics = std::move(metrics)](
                                const HttpRequest&, HttpResponse& response) {
    response.body = metrics();
    response.content_type = kMetricsContentType;
  };
}

void HttpGateway::DefineHealth(std::function<bool()> ready) {
  routes_["/livez"].get = [](const HttpRequest&, HttpResponse& response) {
    response.body = "SERVING\n";
    response.content_type = "text/plain; charset=utf-8";
  };
  routes_["/readyz"].get = [ready = std::move(ready)](const HttpRequest&,
                                                      HttpResponse& response) {
    const bool serving = ready == nullptr || ready();
    response.status = serving ? 200 : 503;
    response.body =
        serving ? "SERVING\n" : "NOT_SERVING: the store does not answer\n";
    response.content_type = "text/plain; charset=utf-8";
  };
}

void HttpGateway::DefineInfo(const std::string& checkpoint_verifier_key) {
  // JSON by hand: one string field, escaped as JSON needs (a verifier key
  // is ASCII letters, digits, '+', '/', '=' and its name).
  std::string escaped;
  for (char c : checkpoint_verifier_key) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    if (static_cast<unsigned char>(c) < 0x20) continue;
    escaped.push_back(c);
  }
  routes_["/v1/info"].get =
      [body = absl::StrCat("{\"checkpointVerifierKey\":\"", escaped, "\"}\n")](
          const HttpRequest&, HttpResponse& response) {
        response.body = body;
        response.content_type = "application/json";
      };
}

void HttpGateway::BeginShutdown() {
  if (shutting_down_.exchange(true)) return;
  // Each stream sees the flag within a tick and sends its last event; then
  // the server closes every connection.
  const absl::Time deadline = absl::Now() + kStreamShutdownWait;
  while (active_streams_.load() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  if (server_ != nullptr) server_->BeginShutdown();
}

void HttpGateway::Wait() {
  if (server_ != nullptr) server_->Wait();
}

int HttpGateway::port() const {
  return server_ == nullptr ? 0 : server_->port();
}

void HttpGateway::AnswerRefusal(int http_status, absl::string_view reason,
                                const HttpRequest& request,
                                HttpResponse& response) {
  RefuseAsJson(http_status, reason, request, response);
}

}  // namespace gunbai::service
