#include "service/daemon/http_server.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/thread_pool.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "boost/beast/ssl.hpp"

namespace gunbai::service {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

// How long a refused connection is read and its bytes dropped before it
// is closed (so that the client reads the answer, not a reset), and at
// most how many bytes.
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr std::size_t kMaxLingerBytes = 1 << 20;
// How long the accept loop waits after a failed accept (no descriptors).
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
// What one read asks for while a keep-alive connection waits.
constexpr std::size_t kReadChunk = 4096;
// Past the header, the most the read buffer holds (the body goes straight
// into the request).
constexpr std::size_t kBodyReadBuffer = 64 << 10;

std::chrono::milliseconds Millis(absl::Duration d) {
  return std::chrono::milliseconds(absl::ToInt64Milliseconds(d));
}

// Whether `ec` is one of the parser's errors (a request that does not read
// as HTTP), rather than the connection's.
bool IsHttpError(const beast::error_code& ec) {
  return &ec.category() ==
         &http::make_error_code(http::error::end_of_stream).category();
}

using RequestParser = http::request_parser<http::string_body>;

// Sets the server's limits on a fresh parser.
void ConfigureParser(RequestParser& parser, const HttpServerOptions& options) {
  parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
  parser.body_limit(options.max_body_bytes);
}

// A refusal: the HTTP status and why, in plain words.
struct Refusal {
  int status = 0;
  std::string reason;
};

// Returns the refusal of a parsed header with too many lines, if it is one.
std::optional<Refusal> HeaderRefusal(const RequestParser& parser,
                                     const HttpServerOptions& options) {
  const auto& message = parser.get();
  if (std::distance(message.begin(), message.end()) <=
      options.max_header_fields) {
    return std::nullopt;
  }
  return Refusal{
      431, absl::StrCat("the request has over ", options.max_header_fields,
                        " header lines; send fewer")};
}

// Returns the refusal of a read that failed with `ec`, or nullopt when
// nothing can be answered (the client left, or a deadline closed the
// socket).
std::optional<Refusal> ReadRefusal(const beast::error_code& ec,
                                   const HttpServerOptions& options) {
  if (ec == http::error::header_limit) {
    return Refusal{431, absl::StrCat("the request's header is over ",
                                     options.max_header_bytes,
                                     " bytes; send a shorter one")};
  }
  if (ec == http::error::body_limit) {
    return Refusal{
        413, absl::StrCat("the request body is over ", options.max_body_bytes,
                          " bytes, gunbaid's --max-message-bytes")};
  }
  if (ec == http::error::end_of_stream || !IsHttpError(ec)) {
    return std::nullopt;
  }
  return Refusal{400, absl::StrCat("gunbaid could not read the request as "
                                   "HTTP/1.1 (",
                                   ec.message(), ")")};
}

// Returns the request the parser read (which it gives up).
HttpRequest TakeParsedRequest(RequestParser& parser) {
  http::request<http::string_body> message = parser.release();
  HttpRequest request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  request.path = request.target.substr(0, request.target.find('?'));
  for (const auto& field : message) {
    request.headers.emplace_back(std::string(field.name_string()),
                                 std::string(field.value()));
  }
  request.body = std::move(message.body());
  return request;
}

}  // namespace

std::string HttpRequest::Header(absl::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

int HttpRequest::HeaderCount(absl::string_view name) const {
  int count = 0;
  for (const auto& header : headers) {
    if (absl::EqualsIgnoreCase(header.first, name)) ++count;
  }
  return count;
}

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpHandler handler, HttpRefusal refusal)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        refusal_(std::move(refusal)),
        work_(net::make_work_guard(ioc_)),
        acceptor_(net::make_strand(ioc_)),
        accept_retry_(acceptor_.get_executor()),
        workers_(static_cast<std::size_t>(options_.threads)),
        streams_(static_cast<std::size_t>(options_.max_pending)) {}

  ~Impl() {
    BeginShutdown();
    Wait();
  }

  absl::Status Listen();
  void Serve();
  void BeginShutdown();
  void Wait();
  int port() const { return port_; }

  // Why a connection was let in, or what refuses it.
  enum class Admission { kAdmitted, kTooManyFromAddress };

  class SessionBase : public std::enable_shared_from_this<SessionBase> {
   public:
    virtual ~SessionBase() = default;
    // Closes the connection, from any thread.
    virtual void Close() = 0;
  };

  // Called when a session starts and by its destructor. Register returns
  // false when the server is shutting down (then drop the session).
  bool Register(SessionBase* session, std::weak_ptr<SessionBase> weak);
  void Release(SessionBase* session, const std::string& address);

  // Takes a place for a request's handler, or returns false when
  // `max_pending` requests already run or wait.
  bool TakeHandlerPlace() {
    if (pending_.fetch_add(1) < options_.max_pending) return true;
    pending_.fetch_sub(1);
    return false;
  }
  void GiveHandlerPlace() { pending_.fetch_sub(1); }
  bool TakeStreamPlace() {
    if (open_streams_.fetch_add(1) < options_.max_pending) return true;
    open_streams_.fetch_sub(1);
    return false;
  }
  void GiveStreamPlace() { open_streams_.fetch_sub(1); }

  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }
  const HttpRefusal& refusal() const { return refusal_; }
  net::thread_pool& workers() { return workers_; }
  net::thread_pool& streams() { return streams_; }
  net::ssl::context* tls() { return tls_ ? &*tls_ : nullptr; }

 private:
  void Accept();
  void StartSession(tcp::socket socket);
  // Counts a new connection from `address`; nullopt when it must be closed
  // at once (over max_connections, or shutting down).
  std::optional<Admission> Admit(const std::string& address);

  const HttpServerOptions options_;
  const HttpHandler handler_;
  const HttpRefusal refusal_;
  std::optional<net::ssl::context> tls_;
  std::atomic<int> pending_{0};
  std::atomic<int> open_streams_{0};
  int port_ = 0;

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int connections_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> per_address_ ABSL_GUARDED_BY(mu_);
  std::map<SessionBase*, std::weak_ptr<SessionBase>> sessions_
      ABSL_GUARDED_BY(mu_);

  // Declared after what sessions touch when they are destroyed: the
  // io_context destroys the sessions it still holds before those go.
  net::io_context ioc_{kIoThreads};
  net::executor_work_guard<net::io_context::executor_type> work_;
  tcp::acceptor acceptor_;
  net::steady_timer accept_retry_;
  net::thread_pool workers_;
  net::thread_pool streams_;
  std::vector<std::thread> io_threads_;
  std::atomic<bool> waited_{false};
};

namespace {

// One connection: reads requests one after another under the deadlines,
// hands each to a worker thread and writes its answer. Runs on its own
// strand. `Stream` is beast::tcp_stream or an ssl_stream over one.
template <class Stream>
class Session : public HttpServer::Impl::SessionBase {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;
  using Admission = HttpServer::Impl::Admission;

  Session(HttpServer::Impl& server, Stream stream, std::string address,
          Admission admission)
      : server_(server),
        stream_(std::move(stream)),
        address_(std::move(address)),
        admission_(admission),
        buffer_(server.options().max_header_bytes + kBodyReadBuffer) {}

  ~Session() override { server_.Release(this, address_); }

  void Run() {
    if (!server_.Register(this, weak_from_this())) return;
    net::dispatch(Lowest().get_executor(), [self = Self()] { self->Begin(); });
  }

  void Close() override {
    net::post(Lowest().get_executor(), [self = Self()] { self->CloseNow(); });
  }

 private:
  class Sink : public HttpChunkSink {
   public:
    explicit Sink(Session& session) : session_(session) {}
    bool Write(absl::string_view data) override {
      if (data.empty()) return true;
      return session_.WriteFromThread(
          absl::StrCat(absl::Hex(data.size()), "\r\n", data, "\r\n"));
    }

   private:
    Session& session_;
  };

  std::shared_ptr<Session> Self() {
    return std::static_pointer_cast<Session>(shared_from_this());
  }
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }
  const HttpServerOptions& options() const { return server_.options(); }

  void Begin() {
    Lowest().expires_after(Millis(options().request_deadline));
    if constexpr (kTls) {
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = Self()](beast::error_code ec) {
                                if (ec) return self->CloseNow();
                                self->Admitted();
                              });
    } else {
      Admitted();
    }
  }

  void Admitted() {
    if (admission_ == Admission::kTooManyFromAddress) {
      return Refuse(429, absl::StrCat("your address has ",
                                      options().max_connections_per_address,
                                      " connections open to gunbaid, the "
                                      "most it takes from one address; "
                                      "close one or wait"));
    }
    NextRequest();
  }

  // Waits for the next request: at once on a new connection (its deadline
  // runs from the accept), else up to keep_alive for its first byte.
  void NextRequest() {
    parser_.emplace();
    ConfigureParser(*parser_, options());
    if (requests_ == 0 || buffer_.size() > 0) {
      if (requests_ > 0) {
        Lowest().expires_after(Millis(options().request_deadline));
      }
      return ReadHeader();
    }
    Lowest().expires_after(Millis(options().keep_alive));
    stream_.async_read_some(
        buffer_.prepare(kReadChunk),
        [self = Self()](beast::error_code ec, std::size_t n) {
          if (ec) return self->CloseNow();  // Idle too long, or gone.
          self->buffer_.commit(n);
          self->Lowest().expires_after(
              Millis(self->options().request_deadline));
          self->ReadHeader();
        });
  }

  void ReadHeader() {
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = Self()](beast::error_code ec, std::size_t) {
                              self->OnHeader(ec);
                            });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    if (std::optional<Refusal> refusal = HeaderRefusal(*parser_, options())) {
      return Refuse(refusal->status, refusal->reason);
    }
    if (!parser_->is_done() &&
        absl::EqualsIgnoreCase(std::string(parser_->get()[http::field::expect]),
                               "100-continue")) {
      static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
      return net::async_write(
          stream_, net::buffer(kContinue, sizeof(kContinue) - 1),
          [self = Self()](beast::error_code ec, std::size_t) {
            if (ec) return self->CloseNow();
            self->ReadBody();
          });
    }
    ReadBody();
  }

  void ReadBody() {
    if (parser_->is_done()) return Dispatch();
    http::async_read(stream_, buffer_, *parser_,
                     [self = Self()](beast::error_code ec, std::size_t) {
                       if (ec) return self->OnReadError(ec);
                       self->Dispatch();
                     });
  }

  void OnReadError(beast::error_code ec) {
    // A deadline that passed has closed the socket (beast::error::timeout):
    // nothing can be answered. Nor to a client that left.
    std::optional<Refusal> refusal = ReadRefusal(ec, options());
    if (!refusal.has_value()) return CloseNow();
    Refuse(refusal->status, refusal->reason);
  }

  // Moves what the parser read into request_.
  void TakeRequest() {
    const bool keep_alive = parser_->get().keep_alive();
    head_ = parser_->get().method() == http::verb::head;
    request_ = TakeParsedRequest(*parser_);
    parser_.reset();
    request_.remote_address = address_;
    keep_alive_ =
        keep_alive && ++requests_ < options().max_requests_per_connection;
  }

  void Dispatch() {
    Lowest().expires_never();  // The handler's time is not the client's.
    TakeRequest();
    if (!server_.TakeHandlerPlace()) {
      return Refuse(503,
                    "gunbaid is answering as many requests as it takes "
                    "at once; retry in a moment",
                    /*retry_after=*/true);
    }
    net::post(server_.workers(), [self = Self()] { self->Handle(); });
  }

  // Worker thread: runs the handler, then has the answer written (a
  // stream on a thread of the stream pool).
  void Handle() {
    response_ = HttpResponse();
    server_.handler()(request_, response_);
    request_.body.clear();
    request_.body.shrink_to_fit();
    server_.GiveHandlerPlace();
    if (response_.stream == nullptr) {
      net::post(Lowest().get_executor(),
                [self = Self()] { self->WriteResponse(); });
      return;
    }
    if (!server_.TakeStreamPlace()) {
      response_ = HttpResponse();
      net::post(Lowest().get_executor(), [self = Self()] {
        self->Refuse(503,
                     "gunbaid has as many streams open as it takes; "
                     "close one or retry in a moment",
                     /*retry_after=*/true);
      });
      return;
    }
    net::post(server_.streams(), [self = Self()] {
      self->RunStream();
      self->server_.GiveStreamPlace();
    });
  }

  void AddHeaders(http::fields& fields) const {
    for (const auto& [name, value] : options().default_headers) {
      fields.set(name, value);
    }
    for (const auto& [name, value] : response_.headers) {
      fields.insert(name, value);
    }
    if (!response_.content_type.empty()) {
      fields.set(http::field::content_type, response_.content_type);
    }
  }

  void WriteResponse() {
    if (closed_) return;
    answer_.emplace();
    answer_->version(11);
    answer_->result(static_cast<unsigned>(response_.status));
    AddHeaders(answer_->base());
    answer_->keep_alive(keep_alive_ && !close_after_);
    answer_->body() = std::move(response_.body);
    answer_->prepare_payload();
    if (head_) answer_->body().clear();
    Lowest().expires_after(Millis(options().write_timeout));
    http::async_write(stream_, *answer_,
                      [self = Self()](beast::error_code ec, std::size_t) {
                        self->answer_.reset();
                        if (ec) return self->CloseNow();
                        if (self->close_after_) return self->Linger();
                        if (!self->keep_alive_) return self->CloseNow();
                        self->NextRequest();
                      });
  }

  // Answers `status` with the refusal's body, then closes.
  void Refuse(int status, absl::string_view reason, bool retry_after = false) {
    if (parser_.has_value() && parser_->is_header_done()) {
      request_.method = std::string(parser_->get().method_string());
      request_.target = std::string(parser_->get().target());
      request_.path = request_.target.substr(0, request_.target.find('?'));
    }
    parser_.reset();
    request_.remote_address = address_;
    response_ = HttpResponse();
    response_.status = status;
    server_.refusal()(status, reason, request_, response_);
    if (retry_after) response_.SetHeader("Retry-After", "1");
    close_after_ = true;
    head_ = false;
    WriteResponse();
  }

  // After a refusal: stops sending, reads and drops what the client still
  // sends for a moment, then closes.
  void Linger() {
    beast::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    Lowest().expires_after(kLingerTime);
    Drain();
  }

  void Drain() {
    Lowest().async_read_some(
        net::buffer(drain_),
        [self = Self()](beast::error_code ec, std::size_t n) {
          self->drained_ += n;
          if (ec || self->drained_ > kMaxLingerBytes) return self->CloseNow();
          self->Drain();
        });
  }

  void CloseNow() {
    closed_ = true;
    beast::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Lowest().close();
  }

  // Stream thread: sends the head, then runs the stream; closes after.
  void RunStream() {
    http::response_header<> head;
    head.version(11);
    head.result(static_cast<unsigned>(response_.status));
    AddHeaders(head);
    head.set(http::field::transfer_encoding, "chunked");
    head.set(http::field::connection, "close");
    std::string bytes = absl::StrCat("HTTP/1.1 ", response_.status, " ",
                                     std::string(head.reason()), "\r\n");
    for (const auto& field : head) {
      absl::StrAppend(&bytes, std::string(field.name_string()), ": ",
                      std::string(field.value()), "\r\n");
    }
    bytes += "\r\n";
    if (WriteFromThread(std::move(bytes))) {
      Sink sink(*this);
      response_.stream(sink);
      WriteFromThread("0\r\n\r\n");
    }
    response_ = HttpResponse();
    Close();
  }

  // Any thread but the strand's: writes `bytes` within the write timeout
  // and waits. Returns false when the write failed or the connection is
  // closed.
  bool WriteFromThread(std::string bytes) {
    std::promise<bool> written;
    std::future<bool> done = written.get_future();
    net::post(Lowest().get_executor(), [this, &bytes, &written] {
      if (closed_) {
        written.set_value(false);
        return;
      }
      Lowest().expires_after(Millis(options().write_timeout));
      net::async_write(stream_, net::buffer(bytes),
                       [&written](beast::error_code ec, std::size_t) {
                         written.set_value(!ec);
                       });
    });
    return done.get();
  }

  HttpServer::Impl& server_;
  Stream stream_;
  const std::string address_;
  const Admission admission_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> answer_;
  HttpRequest request_;
  HttpResponse response_;
  int requests_ = 0;
  bool keep_alive_ = false;
  bool head_ = false;
  bool close_after_ = false;
  bool closed_ = false;
  std::array<char, 4096> drain_;
  std::size_t drained_ = 0;
};

}  // namespace

bool HttpServer::Impl::Register(SessionBase* session,
                                std::weak_ptr<SessionBase> weak) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  sessions_.emplace(session, std::move(weak));
  return true;
}

void HttpServer::Impl::Release(SessionBase* session,
                               const std::string& address) {
  absl::MutexLock lock(&mu_);
  sessions_.erase(session);
  --connections_;
  auto it = per_address_.find(address);
  if (it != per_address_.end() && --it->second <= 0) per_address_.erase(it);
}

std::optional<HttpServer::Impl::Admission> HttpServer::Impl::Admit(
    const std::string& address) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || connections_ >= options_.max_connections) {
    return std::nullopt;
  }
  ++connections_;
  int& from_address = per_address_[address];
  ++from_address;
  if (from_address > options_.max_connections_per_address) {
    return Admission::kTooManyFromAddress;
  }
  return Admission::kAdmitted;
}

void HttpServer::Impl::StartSession(tcp::socket socket) {
  beast::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return;  // Gone already.
  const std::string address = remote.address().to_string();
  const std::optional<Admission> admission = Admit(address);
  if (!admission.has_value()) return;  // The socket closes here.
  socket.set_option(tcp::no_delay(true), ec);
  if (tls_.has_value()) {
    std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
        *this,
        beast::ssl_stream<beast::tcp_stream>(
            beast::tcp_stream(std::move(socket)), *tls_),
        address, *admission)
        ->Run();
  } else {
    std::make_shared<Session<beast::tcp_stream>>(
        *this, beast::tcp_stream(std::move(socket)), address, *admission)
        ->Run();
  }
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept(
      net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
        if (ec) {  // Out of descriptors, say: wait a moment.
          accept_retry_.expires_after(kAcceptRetry);
          accept_retry_.async_wait([this](beast::error_code ec) {
            if (!ec) Accept();
          });
          return;
        }
        StartSession(std::move(socket));
        Accept();
      });
}

absl::Status HttpServer::Impl::Listen() {
  if (!options_.tls_cert.empty()) {
    tls_.emplace(net::ssl::context::tls_server);
    beast::error_code ec;
    tls_->set_options(
        net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
            net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
            net::ssl::context::no_tlsv1_1,
        ec);
    if (!ec) tls_->use_certificate_chain_file(options_.tls_cert, ec);
    if (!ec)
      tls_->use_private_key_file(options_.tls_key, net::ssl::context::pem, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot serve HTTPS with --tls-cert ", options_.tls_cert,
                       " and --tls-key ", options_.tls_key, " (", ec.message(),
                       "): give a PEM certificate and its PEM private key."));
    }
  }
  beast::error_code ec;
  tcp::endpoint endpoint;
  tcp::resolver resolver(ioc_);
  const auto found = resolver.resolve(
      options_.host, std::to_string(options_.port), tcp::resolver::passive, ec);
  if (!ec && found.empty()) ec = net::error::host_not_found;
  if (!ec) endpoint = found.begin()->endpoint();
  if (!ec) acceptor_.open(endpoint.protocol(), ec);
  // SO_REUSEADDR only, never SO_REUSEPORT: a second gunbaid cannot take the
  // same port (gRPC's port likewise, GRPC_ARG_ALLOW_REUSEPORT 0).
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen for HTTP on ", options_.host, ":", options_.port, " (",
        ec.message(),
        "): the address is in use, not of this machine, or not HOST:PORT; "
        "pick another with --http (port 0 picks a free port)."));
  }
  port_ = acceptor_.local_endpoint().port();
  return absl::OkStatus();
}

void HttpServer::Impl::Serve() {
  net::post(acceptor_.get_executor(), [this] { Accept(); });
  for (int i = 0; i < kIoThreads; ++i) {
    io_threads_.emplace_back([this] { ioc_.run(); });
  }
}

void HttpServer::Impl::BeginShutdown() {
  std::vector<std::shared_ptr<SessionBase>> open;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    for (const auto& [session, weak] : sessions_) {
      if (auto alive = weak.lock()) open.push_back(std::move(alive));
    }
  }
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
  });
  for (const auto& session : open) session->Close();
}

void HttpServer::Impl::Wait() {
  if (waited_.exchange(true)) return;
  // Handlers and streams finish first: their writes need the I/O threads.
  workers_.join();
  streams_.join();
  work_.reset();
  for (std::thread& thread : io_threads_) thread.join();
}

int ReadHttpRequest(absl::string_view bytes, const HttpServerOptions& options,
                    HttpRequest& request, std::string& reason) {
  RequestParser parser;
  ConfigureParser(parser, options);
  beast::error_code ec;
  bool header_checked = false;
  while (!ec && !parser.is_done()) {
    const std::size_t used =
        parser.put(net::const_buffer(bytes.data(), bytes.size()), ec);
    bytes.remove_prefix(used);
    if (ec == http::error::need_more) {
      // Beast asks for more even with bytes left when they do not end a
      // line; with none left the request is incomplete.
      if (bytes.empty()) return -1;
      if (used == 0) return -1;
      ec = {};
    }
    if (!ec && !header_checked && parser.is_header_done()) {
      header_checked = true;
      if (std::optional<Refusal> refusal = HeaderRefusal(parser, options)) {
        reason = refusal->reason;
        return refusal->status;
      }
    }
    if (!ec && used == 0 && !parser.is_done()) return -1;
  }
  if (ec) {
    std::optional<Refusal> refusal = ReadRefusal(ec, options);
    if (!refusal.has_value()) return -1;
    reason = refusal->reason;
    return refusal->status;
  }
  request = TakeParsedRequest(parser);
  return 0;
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() = default;

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    HttpServerOptions options, HttpHandler handler, HttpRefusal refusal) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler),
                                     std::move(refusal));
  if (absl::Status listening = impl->Listen(); !listening.ok()) {
    return listening;
  }
  impl->Serve();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const { return impl_->port(); }

void HttpServer::BeginShutdown() { impl_->BeginShutdown(); }

void HttpServer::Wait() { impl_->Wait(); }

}  // namespace gunbai::service
