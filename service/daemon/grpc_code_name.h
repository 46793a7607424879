// The names of gRPC's status codes, for error bodies, metric labels and
// log lines. Thread-safe: functions only.
#ifndef GUNBAI_SERVICE_DAEMON_GRPC_CODE_NAME_H_
#define GUNBAI_SERVICE_DAEMON_GRPC_CODE_NAME_H_

#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace gunbai::service {

// Returns the name of a gRPC code as google.rpc.Code spells it
// ("INVALID_ARGUMENT"); "UNKNOWN" for a number that is no code.
absl::string_view GrpcCodeName(grpc::StatusCode code);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_GRPC_CODE_NAME_H_
