// gunbaid's HTTP/1.1 server: the transport under HttpGateway, built on
// Boost.Beast's event-driven parser so that a hostile client costs a
// connection slot and a bounded buffer, never a thread.
//
// What it guarantees, whatever a client sends or withholds:
// - A request (its header and body, and a TLS handshake before it) must
//   arrive whole within `request_deadline` of its first byte; else 408 and
//   the connection closes. A client that trickles a byte a second holds no
//   worker thread meanwhile: reading is asynchronous, on `kIoThreads`.
// - A header over `max_header_bytes` or `max_header_fields` lines: 431.
// - A declared Content-Length over `max_body_bytes`: 413 at once, before
//   any of the body is read; a chunked body: 413 at the first chunk that
//   goes over. A Content-Length that is not a number: 400.
// - At most `max_connections` connections, and `max_connections_per_address`
//   from one client address (IPv4 or IPv6, whole address): past either a
//   short 503 or 429 and the connection closes.
// - At most `max_pending` requests run or wait for a handler thread; past
//   it 503 with Retry-After.
// - Memory per connection: a parser and its buffer bounded by the header
//   limit, and the body by the body limit; all freed when the request is
//   answered.
// - Every answer is written within `write_timeout`, else the connection is
//   closed; a refused request is answered, then its connection is closed
//   after reading what the client is still sending for a moment, so that
//   the client sees the answer rather than a reset.
//
// Handlers run on `threads` worker threads, one request at a time each. A
// handler fills an HttpResponse; a stream (server-sent events) gets a sink
// and writes chunks until it returns.
//
// Thread-safe: Start, port, BeginShutdown and Wait may be called from any
// thread; the handler is called from the worker threads at once.
#ifndef GUNBAI_SERVICE_DAEMON_HTTP_SERVER_H_
#define GUNBAI_SERVICE_DAEMON_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gunbai::service {

// Threads that read and write sockets (handlers run elsewhere).
inline constexpr int kIoThreads = 2;

struct HttpServerOptions {
  // Where to listen; port 0 picks a free port. A bare IPv6 host (no
  // brackets).
  std::string host;
  int port = 0;
  // PEM certificate and key files: HTTPS when both are given (TLS 1.2 at
  // least).
  std::string tls_cert;
  std::string tls_key;
  std::size_t max_body_bytes = 64 << 20;
  std::size_t max_header_bytes = 16 << 10;
  int max_header_fields = 100;
  absl::Duration request_deadline = absl::Seconds(30);
  absl::Duration write_timeout = absl::Seconds(10);
  // How long an idle keep-alive connection waits for its next request.
  absl::Duration keep_alive = absl::Seconds(2);
  int max_requests_per_connection = 100;
  int max_connections = 1024;
  int max_connections_per_address = 64;
  int threads = 16;
  int max_pending = 64;
  // Headers added to every answer.
  std::vector<std::pair<std::string, std::string>> default_headers;
};

struct HttpRequest {
  std::string method;  // "GET", "POST", "HEAD", ... as sent
  std::string target;  // as sent: the path and any query
  std::string path;    // the target up to any '?'
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote_address;

  // Returns the first value of the header `name` (any case), or "".
  std::string Header(absl::string_view name) const;
  // Returns how many headers named `name` (any case) the request has.
  int HeaderCount(absl::string_view name) const;
};

// Where a streaming answer writes its chunks.
class HttpChunkSink {
 public:
  virtual ~HttpChunkSink() = default;
  // Sends `data` as one chunk, waiting until it is written. Returns false
  // when the client is gone or does not read within the write timeout
  // (then return: nothing more reaches it).
  virtual bool Write(absl::string_view data) = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // When set, the answer is a stream: its status and headers are sent with
  // Transfer-Encoding: chunked, then `stream` runs on the handler's thread
  // and writes the body; the connection closes when it returns.
  std::function<void(HttpChunkSink&)> stream;

  void SetHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
};

// Answers one request; called on a worker thread.
using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

// Fills the answer to a request the server refuses itself (`status` 400,
// 408, 413, 429, 431 or 503, `reason` in plain words), and may log and
// count it; `request` has what was read of it (maybe nothing). Called on an
// I/O thread: it must not block.
using HttpRefusal =
    std::function<void(int status, absl::string_view reason,
                       const HttpRequest& request, HttpResponse& response)>;

// Reads one request from `bytes` as a connection of the server does (the
// same parser, limits and refusals; no socket, no deadline). Returns 0 with
// the request in `request`; the status a connection sending these bytes is
// refused with (400, 413, 431), why in `reason`; or -1 when the bytes end
// before the request does. For the fuzz target and tests.
int ReadHttpRequest(absl::string_view bytes, const HttpServerOptions& options,
                    HttpRequest& request, std::string& reason);

class HttpServer {
 public:
  // Binds and starts serving `handler`. Returns InvalidArgument for TLS
  // files that do not load, Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      HttpServerOptions options, HttpHandler handler, HttpRefusal refusal);

  // BeginShutdown, then Wait.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;

  // Stops accepting and closes every connection (a handler that is
  // running finishes, and its answer is dropped). Returns at once.
  void BeginShutdown();

  // Waits until every handler has returned and every thread has stopped.
  void Wait();

  // The server's state, opaque: http_server.cc only.
  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_HTTP_SERVER_H_
