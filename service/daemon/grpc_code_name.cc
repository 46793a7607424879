#include "service/daemon/grpc_code_name.h"

#include <iterator>

namespace gunbai::service {

absl::string_view GrpcCodeName(grpc::StatusCode code) {
  static constexpr absl::string_view kNames[] = {
      "OK",
      "CANCELLED",
      "UNKNOWN",
      "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED",
      "NOT_FOUND",
      "ALREADY_EXISTS",
      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION",
      "ABORTED",
      "OUT_OF_RANGE",
      "UNIMPLEMENTED",
      "INTERNAL",
      "UNAVAILABLE",
      "DATA_LOSS",
      "UNAUTHENTICATED",
  };
  const int index = static_cast<int>(code);
  if (index < 0 || index >= static_cast<int>(std::size(kNames))) {
    return "UNKNOWN";
  }
  return kNames[index];
}

}  // namespace gunbai::service
