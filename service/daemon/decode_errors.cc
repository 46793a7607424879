#include "service/daemon/decode_errors.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"
#include "grpcpp/support/interceptor.h"
#include "grpcpp/support/status.h"
#include "service/daemon/logger.h"

namespace gunbai::service {

namespace {

using grpc::experimental::InterceptionHookPoints;

// Replaces the INTERNAL status gRPC gives a request that did not decode.
class DecodeErrorInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit DecodeErrorInterceptor(const char* method)
      : method_(method == nullptr ? "" : method) {}

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    // The sync server hands interceptors a null message when it could not
    // parse the request's bytes; the handler then never runs.
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr) {
      undecoded_ = true;
    }
    if (undecoded_ &&
        methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS) &&
        methods->GetSendStatus().error_code() == grpc::StatusCode::INTERNAL) {
      methods->ModifySendStatus(UndecodableRequest(method_));
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  bool undecoded_ = false;
};

class DecodeErrorInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new DecodeErrorInterceptor(info->method());
  }
};

void LogToStderrUnlessParseComplaint(google::protobuf::LogLevel level,
                                     const char* filename, int line,
                                     const std::string& message) {
  if (level < google::protobuf::LOGLEVEL_FATAL &&
      absl::StrContains(message, "invalid UTF-8 data when parsing")) {
    return;
  }
  const LogLevel ours =
      level == google::protobuf::LOGLEVEL_INFO      ? LogLevel::kInfo
      : level == google::protobuf::LOGLEVEL_WARNING ? LogLevel::kWarn
                                                    : LogLevel::kError;
  Log(ours, message,
      {{"source", "protobuf"}, {"file", filename}, {"line", line}});
}

}  // namespace

grpc::Status UndecodableRequest(absl::string_view method) {
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      absl::StrCat("the request to ", method,
                   " could not be decoded: it is not the method's "
                   "request message in protobuf's binary encoding (its "
                   "bytes are cut short or are not protobuf, a field "
                   "has the wrong type, or a string field is not UTF-8)"));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewDecodeErrorInterceptorFactory() {
  return std::make_unique<DecodeErrorInterceptorFactory>();
}

void QuietRequestParseLogs() {
  google::protobuf::SetLogHandler(&LogToStderrUnlessParseComplaint);
}

}  // namespace gunbai::service
