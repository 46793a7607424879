// A real gunbaid for end-to-end tests: the daemon binary (GUNBAID_PATH) as
// a child process on 127.0.0.1:0 over a data directory, the umpire token in
// a file, its stderr in a file. Thread-compatible.
#ifndef GUNBAI_TESTS_E2E_GUNBAID_PROCESS_H_
#define GUNBAI_TESTS_E2E_GUNBAID_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gunbai::testing {

// A fresh directory under the test's temp dir, removed on destruction.
// path() is empty when it could not be made.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A gunbaid child process; killed (SIGKILL) and reaped on destruction.
class GunbaidProcess {
 public:
  // Starts gunbaid on 127.0.0.1:0 serving live games from `data_dir` with
  // the umpire token in `token_file` (none when empty: live games off
  // unless GUNBAI_UMPIRE_TOKEN is set), plus `extra_args`, and waits for its
  // "gunbaid listening on" line (and its "gunbaid serving HTTP on" line
  // when `extra_args` hold --http). Its stderr goes to a file in `log_dir`.
  // Returns Internal when it cannot be spawned or exits first,
  // DeadlineExceeded when the line does not come in 30 s.
  static absl::StatusOr<std::unique_ptr<GunbaidProcess>> Start(
      const std::string& data_dir, const std::string& token_file,
      const std::string& log_dir,
      const std::vector<std::string>& extra_args = {});

  ~GunbaidProcess();
  GunbaidProcess(const GunbaidProcess&) = delete;
  GunbaidProcess& operator=(const GunbaidProcess&) = delete;

  // Kills the process with SIGKILL and reaps it.
  void Kill();

  // Sends SIGTERM and waits up to `timeout` for the process to exit.
  // Returns its exit status, or DeadlineExceeded (then kills it).
  absl::StatusOr<int> Terminate(std::chrono::seconds timeout);

  pid_t pid() const { return pid_; }
  // "127.0.0.1:PORT".
  std::string target() const;
  // The HTTP port (--http), 0 without --http.
  int http_port() const { return http_port_; }
  // Returns what the process wrote to stderr so far.
  std::string Stderr() const;

 private:
  GunbaidProcess() = default;
  // Reads the next line of stdout; it must be `prefix` then a port.
  absl::Status ReadPort(absl::string_view prefix, int& port);

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  int http_port_ = 0;
  std::string stderr_path_;
};

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_E2E_GUNBAID_PROCESS_H_
