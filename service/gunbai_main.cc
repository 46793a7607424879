// gunbai: the command line. See `gunbai --help`.
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "grpc/grpc.h"
#include "service/cli.h"

namespace {

// gRPC shuts itself down when its last object goes. When that last object
// is released on one of gRPC's own threads (a connection closed late, as a
// TLS one can be on a loaded machine), the clean-up runs on a detached thread,
// and a process that returns from main meanwhile tears down what that thread
// still uses. Wait, a bounded time, until gRPC has finished. A command that
// never talked to a daemon never started gRPC and does not wait.
void WaitForGrpcShutdown() {
  using std::chrono::milliseconds;
  const auto limit = std::chrono::steady_clock::now() + milliseconds(5000);
  while (grpc_is_initialized() != 0 &&
         std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(milliseconds(1));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const int code = gunbai::service::RunCli(args, std::cout, std::cerr);
  std::cout.flush();
  WaitForGrpcShutdown();
  return code;
}
