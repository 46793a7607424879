#include "tests/e2e/gunbaid_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

extern char** environ;

namespace gunbai::testing {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr std::chrono::seconds kStartTimeout{30};

std::atomic<int> next_id{0};

}  // namespace

TempDir::TempDir() {
  std::string pattern = absl::StrCat(::testing::TempDir(), "/e2e-XXXXXX");
  path_ = mkdtemp(pattern.data()) != nullptr ? pattern : "";
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

absl::StatusOr<std::unique_ptr<GunbaidProcess>> GunbaidProcess::Start(
    const std::string& data_dir, const std::string& token_file,
    const std::string& log_dir, const std::vector<std::string>& extra_args) {
  auto child = std::unique_ptr<GunbaidProcess>(new GunbaidProcess());
  child->stderr_path_ = absl::StrCat(log_dir, "/gunbaid-", next_id++, ".err");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError("pipe2");
  child->stdout_fd_ = fds[0];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                   child->stderr_path_.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> args = {GUNBAID_PATH, "--listen", "127.0.0.1:0",
                                   "--data-dir", data_dir};
  if (!token_file.empty()) {
    args.insert(args.end(), {"--umpire-token-file", token_file});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int rc = posix_spawn(&child->pid_, GUNBAID_PATH, &actions, nullptr,
                             argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    child->pid_ = -1;
    return absl::InternalError(absl::StrCat("cannot spawn ", GUNBAID_PATH));
  }
  absl::Status listening =
      child->ReadPort("gunbaid listening on 127.0.0.1:", child->port_);
  if (!listening.ok()) return listening;
  for (const std::string& arg : extra_args) {
    if (arg != "--http" && !absl::StartsWith(arg, "--http=")) continue;
    listening = child->ReadPort("gunbaid serving HTTP on 127.0.0.1:",
                                child->http_port_);
    if (!listening.ok()) return listening;
  }
  return child;
}

GunbaidProcess::~GunbaidProcess() {
  Kill();
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

void GunbaidProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

absl::StatusOr<int> GunbaidProcess::Terminate(std::chrono::seconds timeout) {
  if (pid_ <= 0) return absl::FailedPreconditionError("not running");
  kill(pid_, SIGTERM);
  const auto deadline = steady_clock::now() + timeout;
  while (steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  Kill();
  return absl::DeadlineExceededError("gunbaid did not exit after SIGTERM");
}

std::string GunbaidProcess::target() const {
  return absl::StrCat("127.0.0.1:", port_);
}

std::string GunbaidProcess::Stderr() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status GunbaidProcess::ReadPort(absl::string_view prefix, int& port) {
  const auto deadline = steady_clock::now() + kStartTimeout;
  std::string line;
  while (true) {
    const auto left = std::chrono::duration_cast<milliseconds>(
        deadline - steady_clock::now());
    pollfd p = {stdout_fd_, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) == 0) {
      return absl::DeadlineExceededError(
          absl::StrCat("no line from gunbaid in time; stderr: ", Stderr()));
    }
    char c;
    if (read(stdout_fd_, &c, 1) <= 0) {
      return absl::InternalError(
          absl::StrCat("gunbaid exited; stderr: ", Stderr()));
    }
    if (c == '\n') break;
    line.push_back(c);
  }
  if (!absl::StartsWith(line, prefix) ||
      !absl::SimpleAtoi(line.substr(prefix.size()), &port) || port <= 0) {
    return absl::InternalError(absl::StrCat("unexpected line: ", line));
  }
  return absl::OkStatus();
}

}  // namespace gunbai::testing
