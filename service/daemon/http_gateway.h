// gunbaid's HTTP front door (`gunbaid --http`): the JSON API and the
// embedded web app, served beside gRPC by HttpServer (http_server.h), which
// holds under slow and bloated clients.
//
// The JSON API is the gRPC API. Each RPC of gunbai.v1.AuditService and
// gunbai.v1.GameService has a path of its own (/v1/audit:log ...
// /v1/games:list, listed in http_gateway.cc's DefineRoutes), takes a POST
// whose body is the request message in the proto3 JSON mapping, and answers
// the response message likewise; a streaming RPC answers server-sent events.
// Every call goes to the real gRPC server over Server::InProcessChannel, so
// credentials, size limits, admission, overload and every check are the
// gRPC ones, written once: the gateway only converts JSON, forwards the
// `Authorization` header as the `authorization` metadata and maps the
// status (HttpStatusOf). The X-Request-Id header goes as `x-request-id`
// metadata, for the server's log line; a request answered without an RPC
// (a refusal, a file, a scrape) is logged and, when refused, counted in
// ProcessMetrics by the gateway itself. With HttpOptions::metrics, GET
// /metrics serves the daemon's metrics.
//
// Thread-safe: HttpGateway's methods may be called from any thread.
#ifndef GUNBAI_SERVICE_DAEMON_HTTP_GATEWAY_H_
#define GUNBAI_SERVICE_DAEMON_HTTP_GATEWAY_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/server.h"
#include "grpcpp/support/status.h"
#include "service/daemon/grpc_code_name.h"
#include "service/daemon/http_server.h"

namespace gunbai::service {

// The headers on every answer: a strict Content-Security-Policy (no inline
// script or style, nothing from elsewhere), nosniff and no referrer.
inline constexpr char kContentSecurityPolicy[] =
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'";

// Returns the HTTP status for a gRPC code, as google.api's HTTP mapping
// does: INVALID_ARGUMENT and FAILED_PRECONDITION 400, UNAUTHENTICATED 401,
// PERMISSION_DENIED 403, NOT_FOUND 404, ALREADY_EXISTS and ABORTED 409,
// RESOURCE_EXHAUSTED 429, CANCELLED 499, UNIMPLEMENTED 501, UNAVAILABLE
// 503, DEADLINE_EXCEEDED 504, OUT_OF_RANGE 400, OK 200, the rest 500.
int HttpStatusOf(grpc::StatusCode code);

// Returns the JSON error body for `code` and `message`:
// {"code":3,"status":"INVALID_ARGUMENT","message":"..."}, the message
// escaped as a JSON string (also <, > and &, so that it is never markup).
std::string ErrorJson(grpc::StatusCode code, absl::string_view message);

// Whether a request's Content-Type names JSON in UTF-8, read as RFC 9110's
// media type: type "application" and subtype "json" exactly (any case),
// then parameters `; name=value` (the value a token or a quoted string),
// of which a charset must be utf-8 (any case); other parameters are
// allowed and ignored. OK, or INVALID_ARGUMENT saying what is wrong
// ("application/jsonp is not application/json", "charset utf-16: the body
// must be UTF-8", "a malformed parameter") for a 415.
absl::Status CheckJsonContentType(absl::string_view content_type);

struct HttpOptions {
  // HOST:PORT to listen on; port 0 picks a free port. An IPv6 host in
  // brackets ("[::1]:8080").
  std::string address;
  // PEM certificate and key files: HTTPS when both are given.
  std::string tls_cert;
  std::string tls_key;
  // The largest request body; beyond it the answer is 413.
  std::size_t max_body_bytes = 64 << 20;
  // Worker threads, each answering one request at a time (a stream runs
  // on a thread of its own); past four times as many requests running or
  // waiting, 503. Reading requests takes no worker.
  int threads = 32;
  // How long a request (its header and body, after its first byte) may
  // take to arrive whole; past it the connection is closed.
  int request_deadline_ms = 30000;
  // How long one answer (or one event of a stream) may take to be written,
  // and how long an idle keep-alive connection is kept.
  int io_timeout_seconds = 10;
  int keep_alive_seconds = 2;
  // Connections at once, in all (past it a new one is closed at once) and
  // from one client address (past it 429).
  int max_connections = 1024;
  int max_connections_per_address = 64;
  // When set, GET /metrics answers what it returns, as Prometheus' text
  // exposition format; called from any worker thread at once.
  std::function<std::string()> metrics;
  // GET /livez answers 200 "SERVING" while the gateway runs (a liveness
  // probe). GET /readyz answers 200 "SERVING" when `ready` is unset or
  // says so, else 503 "NOT_SERVING" (a readiness probe: the store fails).
  std::function<bool()> ready;
  // GET /v1/info answers what this daemon publishes: the verifier key of
  // its checkpoints (gunbaid --signing-key-file), "" without one.
  std::string checkpoint_verifier_key;
};

class HttpGateway {
 public:
  // Listens on `options.address` and serves the API through `server`
  // (which must outlive the gateway and be started). Returns
  // InvalidArgument for an address that is not HOST:PORT or TLS files that
  // do not load, Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<HttpGateway>> Start(
      grpc::Server& server, const HttpOptions& options);

  // Returns a gateway that answers requests given to Answer, over
  // `server`, without listening (the fuzz target's). AnswerRefusal answers
  // what the HTTP server refuses itself, as a listening gateway does.
  static std::unique_ptr<HttpGateway> ForRequests(grpc::Server& server,
                                                  const HttpOptions& options);
  // Answers one request (any thread), and logs it when it made no RPC.
  void Answer(const HttpRequest& request, HttpResponse& response) const;
  static void AnswerRefusal(int http_status, absl::string_view reason,
                            const HttpRequest& request, HttpResponse& response);

  // Stops and waits (BeginShutdown, then Wait).
  ~HttpGateway();
  HttpGateway(const HttpGateway&) = delete;
  HttpGateway& operator=(const HttpGateway&) = delete;

  // The bound port (0 for a gateway made by ForRequests).
  int port() const;

  // Stops taking connections; each stream in flight ends within a second
  // with an `event: error` saying UNAVAILABLE (gunbaid is shutting down).
  // Returns at once; unary calls in flight finish (or are cancelled by the
  // gRPC server's shutdown).
  void BeginShutdown();

  // Waits until every connection is closed and every worker has stopped.
  void Wait();

 private:
  struct Stubs;
  // What a path answers: GET (and HEAD), POST; the other methods 405.
  struct Route {
    HttpHandler get;
    HttpHandler post;
  };

  HttpGateway();
  void DefineRoutes();
  void DefineMetrics(std::function<std::string()> metrics);
  void DefineHealth(std::function<bool()> ready);
  void DefineInfo(const std::string& checkpoint_verifier_key);
  void Dispatch(const HttpRequest& request, HttpResponse& response) const;
  // Answers the web app's file `name`, or 404.
  static void ServeAsset(absl::string_view name, HttpResponse& response);

  std::unique_ptr<Stubs> stubs_;
  // Filled before the server starts; read only after.
  std::map<std::string, Route> routes_;
  std::atomic<bool> shutting_down_{false};
  std::atomic<int> active_streams_{0};
  std::unique_ptr<HttpServer> server_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_HTTP_GATEWAY_H_
