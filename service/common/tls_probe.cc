#include "service/common/tls_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "absl/strings/match.h"
#include "openssl/ssl.h"

namespace gunbai::service {

namespace {

// Connects a TCP socket to `host`:`port` within `timeout_ms`, with reads
// and writes bounded by the same time. Returns the socket, or -1.
int ConnectWithTimeout(const std::string& host, const std::string& port,
                       int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found,
                                                               &freeaddrinfo);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd =
        socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    bool connected = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    if (!connected && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int error = 0;
      socklen_t size = sizeof(error);
      connected = poll(&p, 1, timeout_ms) == 1 &&
                  getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 &&
                  error == 0;
    }
    if (connected) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      timeval t{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof(t));
      return fd;
    }
    close(fd);
  }
  return -1;
}

}  // namespace

bool SpeaksTls(const std::string& target, int timeout_ms) {
  const auto colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0 ||
      absl::StrContains(target, "/")) {
    return false;
  }
  std::string host = target.substr(0, colon);
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  const int fd = ConnectWithTimeout(host, target.substr(colon + 1), timeout_ms);
  if (fd < 0) return false;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> context(
      SSL_CTX_new(TLS_client_method()), &SSL_CTX_free);
  bool tls = false;
  if (context != nullptr) {
    SSL_CTX_set_verify(context.get(), SSL_VERIFY_NONE, nullptr);
    std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(context.get()),
                                                  &SSL_free);
    static const unsigned char kAlpnH2[] = {2, 'h', '2'};
    if (ssl != nullptr && SSL_set_fd(ssl.get(), fd) == 1 &&
        SSL_set_alpn_protos(ssl.get(), kAlpnH2, sizeof(kAlpnH2)) == 0) {
      tls = SSL_connect(ssl.get()) == 1;
      if (tls) SSL_shutdown(ssl.get());
    }
  }
  close(fd);
  return tls;
}

}  // namespace gunbai::service
