// Waiting for gRPC's own shutdown before a process exits.
#ifndef GUNBAI_SERVICE_COMMON_GRPC_SHUTDOWN_H_
#define GUNBAI_SERVICE_COMMON_GRPC_SHUTDOWN_H_

namespace gunbai::service {

// gRPC shuts itself down when its last object goes. When that last object
// is released on one of gRPC's own threads (a connection closed late, as a
// TLS one can be on a loaded machine), the clean-up runs on a detached
// thread, and a process that returns from main meanwhile tears down what
// that thread still uses. Call this after every gRPC object of the process
// is gone: it waits, at most 5 seconds, until gRPC has finished. A process
// that never started gRPC does not wait.
void WaitForGrpcShutdown();

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_COMMON_GRPC_SHUTDOWN_H_
