// What gunbaid observes of every RPC, in one place: a gRPC server
// interceptor that sees each call, those of gRPC clients and those of the
// HTTP front door (which reach the server over its in-process channel),
// counts it in a Metrics (RecordRpc: transport, method, code, latency)
// and writes one log line for it at info (a health check's at debug):
//   {"time":...,"level":"info","msg":"rpc","request_id":"r7",
//    "transport":"http","method":"/gunbai.v1.GameService/ReadEvents",
//    "game_id":"g1","code":"OK","latency_ms":0.412}
// The request id is the client's `x-request-id` metadata (the HTTP
// gateway forwards the X-Request-Id header) when it is 1 to 64 of
// [A-Za-z0-9._:-], else "r" and a counter of the process; it is sent back
// as `x-request-id` initial metadata. The line never holds metadata other
// than the request id, nor any part of a message: no credential, no body.
//
// Thread-safe.
#ifndef GUNBAI_SERVICE_DAEMON_REQUEST_OBSERVER_H_
#define GUNBAI_SERVICE_DAEMON_REQUEST_OBSERVER_H_

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_interceptor.h"
#include "service/daemon/metrics.h"

namespace gunbai::service {

// The longest request id taken from a client.
inline constexpr int kMaxRequestIdBytes = 64;

// Returns a factory for ServerBuilder::experimental().SetInterceptorCreators
// whose interceptors count into `metrics` (not owned; it must outlive the
// server) and log each call.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewRequestObserverFactory(Metrics* metrics);

// Names `game_id` as the game of the call of `context`, for its log line
// (at most 128 bytes of it are kept). Does nothing for a call no observer
// sees. Cheap: one short lock.
void NoteRequestGameId(const grpc::ServerContextBase* context,
                       absl::string_view game_id);

// Returns a new request id: "r" and the process's next number.
std::string NewRequestId();

// Returns whether `id` is taken as a client's request id.
bool IsValidRequestId(absl::string_view id);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_REQUEST_OBSERVER_H_
