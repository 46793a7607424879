#include "service/common/grpc_shutdown.h"

#include <chrono>
#include <thread>

#include "grpc/grpc.h"

namespace gunbai::service {

void WaitForGrpcShutdown() {
  using std::chrono::milliseconds;
  const auto limit = std::chrono::steady_clock::now() + milliseconds(5000);
  while (grpc_is_initialized() != 0 &&
         std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(milliseconds(1));
  }
}

}  // namespace gunbai::service
