// What gunbaid answers a request it cannot decode (random bytes, a message
// cut short, a string field that is not UTF-8): INVALID_ARGUMENT saying so,
// where gRPC's generated handlers answer INTERNAL with no message, and no
// line on stderr per such request. Thread-safe.
#ifndef GUNBAI_SERVICE_DAEMON_DECODE_ERRORS_H_
#define GUNBAI_SERVICE_DAEMON_DECODE_ERRORS_H_

#include <memory>

#include "absl/strings/string_view.h"
#include "grpcpp/support/server_interceptor.h"
#include "grpcpp/support/status.h"

namespace gunbai::service {

// Returns a factory for ServerBuilder::experimental().SetInterceptorCreators
// whose interceptor turns the status of a call whose request did not decode
// into INVALID_ARGUMENT naming the method and what can cause it. Other calls
// pass untouched.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewDecodeErrorInterceptorFactory();

// Returns the INVALID_ARGUMENT of a request to `method` ("/pkg.Service/M")
// that did not decode, for the interceptor and for handlers that parse
// their requests themselves.
grpc::Status UndecodableRequest(absl::string_view method);

// Installs a protobuf log handler, for the whole process, that drops
// protobuf's complaint about a string that is not UTF-8 met while parsing
// (the request's status says so) and passes every other line to the log
// (service/daemon/logger.h). Call once, before serving.
void QuietRequestParseLogs();

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_DECODE_ERRORS_H_
