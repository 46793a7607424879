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
  std::vector<std::string> args = {
      GUNBAID_PATH,          "--listen", "127.0.0.1:0", "--data-dir", data_dir,
      "--umpire-token-file", token_file};
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
  absl::Status listening = child->ReadPort();
  if (!listening.ok()) return listening;
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

std::string GunbaidProcess::target() const {
  return absl::StrCat("127.0.0.1:", port_);
}

std::string GunbaidProcess::Stderr() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status GunbaidProcess::ReadPort() {
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
  constexpr absl::string_view kPrefix = "gunbaid listening on 127.0.0.1:";
  if (!absl::StartsWith(line, kPrefix) ||
      !absl::SimpleAtoi(line.substr(kPrefix.size()), &port_) || port_ <= 0) {
    return absl::InternalError(absl::StrCat("unexpected line: ", line));
  }
  return absl::OkStatus();
}

}  // namespace gunbai::testing
