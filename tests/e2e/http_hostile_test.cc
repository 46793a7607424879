// gunbaid --http against hostile clients, through a real gunbaid and raw
// sockets (no HTTP library between the test and the bytes): slow clients
// that trickle their headers, header floods, bodies declared over the
// limit, and one address opening many connections. Each bound is a flag or
// a constant given here, and each expectation follows from it:
// - the header limit is 16 KiB and 100 lines (service/daemon/
//   http_gateway.cc, kMaxHeaderBytes and kMaxHeaderFields);
// - the body limit is --max-message-bytes;
// - a request must arrive whole within --http-request-deadline-ms;
// - --http-max-connections-per-address connections from one address.
// The figures are scaled down where noted, so that the suite stays
// short: 200 slow connections as in the issue, a 3 s deadline for its 30.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/e2e/gunbaid_process.h"

namespace gunbai::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

// Connects to 127.0.0.1:`port` from `source` (any 127.x.y.z: Linux routes
// the whole block to the loopback). Returns the socket, or -1.
int Connect(int port, const char* source = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads until the connection closes, `timeout` passes, or a whole answer
// (its header and Content-Length bytes) is in. Returns what came.
std::string ReadAnswer(int fd, milliseconds timeout) {
  std::string got;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const std::size_t end = got.find("\r\n\r\n");
    if (end != std::string::npos) {
      const std::size_t at = got.find("Content-Length: ");
      std::size_t length = 0;
      if (at != std::string::npos && at < end &&
          !absl::SimpleAtoi(got.substr(at + 16, got.find("\r\n", at) - at - 16),
                            &length)) {
        return got;  // A length that is no number: the answer as it is.
      }
      if (got.size() >= end + 4 + length) return got;
    }
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return got;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return got;
    char buffer[4096];
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return got;
    got.append(buffer, static_cast<std::size_t>(n));
  }
}

// Returns the status of an HTTP answer ("HTTP/1.1 431 ..."), or 0.
int StatusOf(const std::string& answer) {
  int status = 0;
  if (!absl::StartsWith(answer, "HTTP/1.1 ") || answer.size() < 12 ||
      !absl::SimpleAtoi(answer.substr(9, 3), &status)) {
    return 0;
  }
  return status;
}

// Returns true when the server has closed `fd` (EOF or reset) within
// `timeout`, reading and dropping anything it sends first.
bool ClosedWithin(int fd, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buffer[4096];
    if (recv(fd, buffer, sizeof(buffer), 0) <= 0) return true;
  }
}

// Returns gunbaid's resident memory in KiB (VmRSS), or -1.
long RssKib(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    long kib = 0;
    if (absl::StartsWith(line, "VmRSS:") &&
        absl::SimpleAtoi(
            absl::StripAsciiWhitespace(line.substr(6, line.size() - 9)),
            &kib)) {
      return kib;
    }
  }
  return -1;
}

// A GET whose answer is timed: the honest client.
struct Timed {
  int status = 0;
  milliseconds took{0};
};

Timed TimedGet(int port, const char* path, const char* source = "127.0.0.1") {
  const auto start = Clock::now();
  Timed timed;
  const int fd = Connect(port, source);
  if (fd < 0) return timed;
  if (SendAll(fd, absl::StrCat("GET ", path,
                               " HTTP/1.1\r\nHost: gunbai\r\n"
                               "Connection: close\r\n\r\n"))) {
    timed.status = StatusOf(ReadAnswer(fd, seconds(15)));
  }
  close(fd);
  timed.took = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return timed;
}

class HttpHostileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { signal(SIGPIPE, SIG_IGN); }

  void StartGunbaid(std::vector<std::string> flags) {
    flags.push_back("--http=127.0.0.1:0");
    auto started =
        GunbaidProcess::Start(dir_.path() + "/data", "", dir_.path(), flags);
    ASSERT_TRUE(started.ok()) << started.status();
    daemon_ = *std::move(started);
    port_ = daemon_->http_port();
  }

  TempDir dir_;
  std::unique_ptr<GunbaidProcess> daemon_;
  int port_ = 0;
};

// The attack: 200 connections that send their headers a byte at a
// time. Reading is asynchronous, so they hold no worker: honest requests
// are answered within a second throughout (the issue measured 0 of 2
// within 15 s). And the deadline holds: each slow connection is closed
// within its 3 s deadline (plus a second of slack), however steadily it
// trickles, because the deadline is the whole request's, not each read's.
TEST_F(HttpHostileTest, SlowClientsHoldNoWorkerAndMeetTheDeadline) {
  StartGunbaid({"--http-request-deadline-ms=3000",
                "--http-max-connections-per-address=1000"});
  constexpr int kSlow = 200;
  std::vector<int> slow;
  for (int i = 0; i < kSlow; ++i) {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0) << i;
    slow.push_back(fd);
  }
  const auto opened = Clock::now();
  const std::string request = "GET / HTTP/1.1\r\nHost: gunbai\r\nX-Slow: ";
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    for (std::size_t at = 0; !stop.load(); ++at) {
      const char byte = at < request.size() ? request[at] : 'a';
      for (int fd : slow) send(fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  // Honest clients while the slow ones are held (within the deadline).
  std::vector<Timed> honest;
  while (Clock::now() - opened < milliseconds(2500)) {
    honest.push_back(TimedGet(port_, "/livez"));
    std::this_thread::sleep_for(milliseconds(100));
  }
  ASSERT_GE(honest.size(), 10u);
  milliseconds slowest{0};
  for (const Timed& answer : honest) {
    EXPECT_EQ(answer.status, 200);
    EXPECT_LT(answer.took, milliseconds(1000));
    slowest = std::max(slowest, answer.took);
  }
  std::printf("%zu honest GETs beside %d slow connections, slowest %lld ms\n",
              honest.size(), kSlow, static_cast<long long>(slowest.count()));
  int closed = 0;
  for (int fd : slow) {
    const auto left = std::chrono::duration_cast<milliseconds>(
        opened + seconds(4) - Clock::now());
    if (ClosedWithin(fd, std::max(left, milliseconds(1)))) ++closed;
  }
  stop = true;
  trickle.join();
  for (int fd : slow) close(fd);
  EXPECT_EQ(closed, kSlow) << "slow connections still open 4 s after they "
                              "opened, with a 3 s deadline";
  // And the daemon answers as before.
  EXPECT_EQ(TimedGet(port_, "/livez").status, 200);
}

// One address may hold --http-max-connections-per-address connections
// (4 here); its fifth is answered 429 and closed, while a client from
// another address is served.
TEST_F(HttpHostileTest, OneAddressGetsItsShareOfConnections) {
  StartGunbaid({"--http-max-connections-per-address=4"});
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    const int fd = Connect(port_, "127.0.0.3");
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, "GET / HTTP/1.1\r\n"));  // Never finished.
    held.push_back(fd);
  }
  std::this_thread::sleep_for(milliseconds(200));
  const int fifth = Connect(port_, "127.0.0.3");
  ASSERT_GE(fifth, 0);
  const std::string refused = ReadAnswer(fifth, seconds(5));
  EXPECT_EQ(StatusOf(refused), 429) << refused;
  EXPECT_TRUE(absl::StrContains(refused, "the most it takes from one address"))
      << refused;
  close(fifth);
  const Timed other = TimedGet(port_, "/livez", "127.0.0.4");
  EXPECT_EQ(other.status, 200);
  // A held connection that goes frees its place.
  close(held.back());
  held.pop_back();
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(TimedGet(port_, "/livez", "127.0.0.3").status, 200);
  for (int fd : held) close(fd);
}

// Sends a request line and then header lines of `line` bytes each, up to
// `total` bytes, while reading: returns the answer that came (the flood
// stops at the first byte of one, or when the server closes).
std::string FloodHeaders(int port, std::size_t total) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  std::string answer;
  std::atomic<bool> answered{false};
  std::thread reader([&] {
    answer = ReadAnswer(fd, seconds(20));
    answered = true;
  });
  std::string chunk;
  for (int i = 0; chunk.size() < (64 << 10); ++i) {
    absl::StrAppend(&chunk, "X-Flood-", i, ": ", std::string(80, 'f'), "\r\n");
  }
  bool open = SendAll(fd, "GET / HTTP/1.1\r\nHost: gunbai\r\n");
  for (std::size_t sent = 0; open && !answered.load() && sent < total;
       sent += chunk.size()) {
    open = SendAll(fd, chunk);
  }
  reader.join();
  close(fd);
  return answer;
}

// The flood: header lines without end on 4 connections (it sent
// 1,000,000 lines, 100 MB, and RSS grew 3.3x and stayed). Each is refused
// 431 once past 16 KiB, and gunbaid's memory is back within 10% of where
// it started (the bound).
TEST_F(HttpHostileTest, HeaderFloodGets431AndMemoryComesBack) {
  StartGunbaid({});
  ASSERT_EQ(TimedGet(port_, "/").status, 200);  // Everything paged in.
  const long before = RssKib(daemon_->pid());
  ASSERT_GT(before, 0);
  std::vector<std::thread> floods;
  std::vector<std::string> answers(4);
  for (int i = 0; i < 4; ++i) {
    floods.emplace_back(
        [&, i] { answers[i] = FloodHeaders(port_, 100 << 20); });
  }
  for (std::thread& flood : floods) flood.join();
  for (const std::string& answer : answers) {
    EXPECT_EQ(StatusOf(answer), 431) << answer.substr(0, 300);
    EXPECT_TRUE(absl::StrContains(answer, "header is over 16384 bytes"))
        << answer.substr(0, 300);
  }
  std::this_thread::sleep_for(milliseconds(500));
  const long after = RssKib(daemon_->pid());
  std::printf("RSS %ld KiB before 4 header floods, %ld KiB after\n", before,
              after);
  EXPECT_LE(after, before + before / 10)
      << "RSS " << before << " KiB before the flood, " << after << " after";
  EXPECT_EQ(TimedGet(port_, "/livez").status, 200);
}

// 101 header lines of 10 bytes each (about 1 KiB, well under 16 KiB) are
// over the count: 431. 100 lines are served.
TEST_F(HttpHostileTest, TooManyHeaderLinesGet431) {
  StartGunbaid({});
  const auto request = [this](int lines) {
    std::string bytes = "GET /livez HTTP/1.1\r\n";  // Host is one line.
    absl::StrAppend(&bytes, "Host: gunbai\r\n");
    for (int i = 1; i < lines; ++i) absl::StrAppend(&bytes, "X-", i, ": v\r\n");
    bytes += "Connection: close\r\n\r\n";  // One more line.
    const int fd = Connect(port_);
    SendAll(fd, bytes);
    const std::string answer = ReadAnswer(fd, seconds(5));
    close(fd);
    return StatusOf(answer);
  };
  EXPECT_EQ(request(99), 200);   // 99 + Connection = 100 lines.
  EXPECT_EQ(request(100), 431);  // 101 lines.
}

// Returns the answer to `head` (a request's header, with no body sent
// after it) and how long it took.
std::pair<std::string, milliseconds> AnswerToHead(int port,
                                                  const std::string& head) {
  const auto start = Clock::now();
  const int fd = Connect(port);
  SendAll(fd, head);
  std::string answer = ReadAnswer(fd, seconds(15));
  close(fd);
  return {answer,
          std::chrono::duration_cast<milliseconds>(Clock::now() - start)};
}

// --max-message-bytes 1048576: a declared Content-Length over it is 413 at
// once, with no byte of the body sent (the issue measured 10 s, the read
// timeout); a Content-Length that is not a number is 400 at once; a
// chunked body is 413 at the first chunk whose size goes over (here its
// first, 2 MiB, and in the second case the third of 512 KiB).
TEST_F(HttpHostileTest, BodiesOverTheLimitAreRefusedAtOnce) {
  StartGunbaid({"--max-message-bytes=1048576"});
  const std::string post =
      "POST /v1/audit:log HTTP/1.1\r\nHost: gunbai\r\n"
      "Content-Type: application/json\r\n";
  for (const char* length : {"104857600", "1048577"}) {
    const auto [answer, took] = AnswerToHead(
        port_, absl::StrCat(post, "Content-Length: ", length, "\r\n\r\n"));
    EXPECT_EQ(StatusOf(answer), 413) << length << ": " << answer;
    EXPECT_TRUE(absl::StrContains(answer, "over 1048576 bytes")) << answer;
    EXPECT_LT(took, milliseconds(1000)) << length;
  }
  for (const char* length : {"1e23", "-5", "99999999999999999999999"}) {
    const auto [answer, took] = AnswerToHead(
        port_, absl::StrCat(post, "Content-Length: ", length, "\r\n\r\n"));
    EXPECT_EQ(StatusOf(answer), 400) << length << ": " << answer;
    EXPECT_LT(took, milliseconds(1000)) << length;
  }
  const std::string chunked =
      absl::StrCat(post, "Transfer-Encoding: chunked\r\n\r\n");
  {
    const auto [answer, took] = AnswerToHead(port_, chunked + "200000\r\n");
    EXPECT_EQ(StatusOf(answer), 413) << answer;
    EXPECT_LT(took, milliseconds(1000));
  }
  {
    const std::string half(512 << 10, ' ');
    const auto [answer, took] = AnswerToHead(
        port_, absl::StrCat(chunked, "80000\r\n", half, "\r\n80000\r\n", half,
                            "\r\n80000\r\n"));
    EXPECT_EQ(StatusOf(answer), 413) << answer.substr(0, 300);
    EXPECT_LT(took, milliseconds(1000));
  }
  // A body at the limit is read (and answered by the API: not JSON).
  const auto [answer, took] =
      AnswerToHead(port_, absl::StrCat(post, "Content-Length: 1048576\r\n\r\n",
                                       std::string(1048576, ' ')));
  EXPECT_EQ(StatusOf(answer), 400) << answer.substr(0, 300);
  EXPECT_TRUE(absl::StrContains(answer, "is not a gunbai.v1.AuditLogRequest"))
      << answer.substr(0, 400);
}

}  // namespace
}  // namespace gunbai::testing
