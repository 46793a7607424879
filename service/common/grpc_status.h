// Converts between absl::Status, which replay/ and the CLI speak, and
// grpc::Status, which travels on the wire between gunbai and gunbaid. The
// codes map one to one; the client side also rewrites the messages of
// transport failures so that they tell the user what to do.
// Thread-safe: functions only.
#ifndef GUNBAI_SERVICE_COMMON_GRPC_STATUS_H_
#define GUNBAI_SERVICE_COMMON_GRPC_STATUS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace gunbai::service {

// The longest message a status from gunbaid carries. gRPC sends it in a
// trailer, percent-encoded, and a client refuses trailers over 8 KiB with
// RESOURCE_EXHAUSTED, losing the code and the message.
inline constexpr std::size_t kMaxStatusMessageBytes = 2048;

// Returns the grpc::Status with the same code and message as `status`
// (grpc::Status::OK for an OK status), the message cut to
// kMaxStatusMessageBytes with a note of its length, and its payloads of
// gunbai's (type URLs "type.googleapis.com/gunbai.*", e.g. a strict
// refusal's AppendRefusal) as the details, a serialized gunbai.v1.RpcStatus
// (the shape of google.rpc.Status). Used by the daemon to answer a call.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Returns the absl::Status with the same code as `status`. The message is
// the server's, except for failures of the transport itself: UNAVAILABLE
// says that no gunbaid answers at `target` (the --server address; may be
// empty) and how to start one, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED
// say which limit was hit. The details of gunbai's come back as payloads
// under their type URLs. Used by the client after a call.
absl::Status FromGrpcStatus(const grpc::Status& status,
                            absl::string_view target = {});

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_COMMON_GRPC_STATUS_H_
