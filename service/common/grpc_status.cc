#include "service/common/grpc_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/text_errors.h"
#include "service/common/tls_probe.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

grpc::StatusCode GrpcCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return grpc::StatusCode::OK;
    case absl::StatusCode::kCancelled:
      return grpc::StatusCode::CANCELLED;
    case absl::StatusCode::kUnknown:
      return grpc::StatusCode::UNKNOWN;
    case absl::StatusCode::kInvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case absl::StatusCode::kDeadlineExceeded:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case absl::StatusCode::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case absl::StatusCode::kAlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case absl::StatusCode::kPermissionDenied:
      return grpc::StatusCode::PERMISSION_DENIED;
    case absl::StatusCode::kResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case absl::StatusCode::kFailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case absl::StatusCode::kAborted:
      return grpc::StatusCode::ABORTED;
    case absl::StatusCode::kOutOfRange:
      return grpc::StatusCode::OUT_OF_RANGE;
    case absl::StatusCode::kUnimplemented:
      return grpc::StatusCode::UNIMPLEMENTED;
    case absl::StatusCode::kInternal:
      return grpc::StatusCode::INTERNAL;
    case absl::StatusCode::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case absl::StatusCode::kDataLoss:
      return grpc::StatusCode::DATA_LOSS;
    case absl::StatusCode::kUnauthenticated:
      return grpc::StatusCode::UNAUTHENTICATED;
    default:
      return grpc::StatusCode::UNKNOWN;
  }
}

absl::StatusCode AbslCode(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return absl::StatusCode::kOk;
    case grpc::StatusCode::CANCELLED:
      return absl::StatusCode::kCancelled;
    case grpc::StatusCode::UNKNOWN:
      return absl::StatusCode::kUnknown;
    case grpc::StatusCode::INVALID_ARGUMENT:
      return absl::StatusCode::kInvalidArgument;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::StatusCode::kDeadlineExceeded;
    case grpc::StatusCode::NOT_FOUND:
      return absl::StatusCode::kNotFound;
    case grpc::StatusCode::ALREADY_EXISTS:
      return absl::StatusCode::kAlreadyExists;
    case grpc::StatusCode::PERMISSION_DENIED:
      return absl::StatusCode::kPermissionDenied;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return absl::StatusCode::kResourceExhausted;
    case grpc::StatusCode::FAILED_PRECONDITION:
      return absl::StatusCode::kFailedPrecondition;
    case grpc::StatusCode::ABORTED:
      return absl::StatusCode::kAborted;
    case grpc::StatusCode::OUT_OF_RANGE:
      return absl::StatusCode::kOutOfRange;
    case grpc::StatusCode::UNIMPLEMENTED:
      return absl::StatusCode::kUnimplemented;
    case grpc::StatusCode::INTERNAL:
      return absl::StatusCode::kInternal;
    case grpc::StatusCode::UNAVAILABLE:
      return absl::StatusCode::kUnavailable;
    case grpc::StatusCode::DATA_LOSS:
      return absl::StatusCode::kDataLoss;
    case grpc::StatusCode::UNAUTHENTICATED:
      return absl::StatusCode::kUnauthenticated;
    default:
      return absl::StatusCode::kUnknown;
  }
}

constexpr absl::string_view kGunbaiTypeUrlPrefix =
    "type.googleapis.com/gunbai.";

// Returns the message a user should read for a transport failure, or the
// server's own message for everything else.
std::string ClientMessage(const grpc::Status& status,
                          absl::string_view target) {
  const std::string where = target.empty() ? std::string("the --server address")
                                           : absl::StrCat(target);
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      // A plaintext client's connection to a TLS daemon is closed before
      // any reply ("Socket closed"); a TLS client's fails its handshake.
      if (!target.empty() &&
          absl::StrContains(status.error_message(), "Socket closed") &&
          SpeaksTls(std::string(target))) {
        return absl::StrCat("the daemon at ", target,
                            " speaks TLS: give --tls-ca=FILE, the "
                            "certificate it was started with (gunbaid "
                            "--tls-cert) or its CA");
      }
      return absl::StrCat(
          "the gunbaid daemon is not reachable at ", where, " (",
          status.error_message(), "). Start it with `gunbaid --listen ",
          target.empty() ? absl::string_view("HOST:PORT") : target,
          "`, or check --server.");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::StrCat("gunbaid at ", where, " did not answer in time (",
                          status.error_message(),
                          "); check that the daemon is not overloaded.");
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return absl::StrCat(
          status.error_message(),
          ". The log or its report is larger than the gRPC message limit; "
          "start gunbaid with a larger --max-message-bytes, or audit the "
          "log locally without --server.");
    default:
      return status.error_message();
  }
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const grpc::StatusCode code = GrpcCode(status.code());
  std::string message =
      replay::Excerpt(status.message(), kMaxStatusMessageBytes);
  // gunbai's payloads (a strict refusal's findings) travel as the details
  // of the rich error model: a google.rpc.Status of Any (RpcStatus).
  v1::RpcStatus details;
  status.ForEachPayload(
      [&details](absl::string_view type_url, const absl::Cord& payload) {
        if (!absl::StartsWith(type_url, kGunbaiTypeUrlPrefix)) return;
        google::protobuf::Any* any = details.add_details();
        any->set_type_url(std::string(type_url));
        any->set_value(std::string(payload));
      });
  if (details.details_size() == 0) return grpc::Status(code, message);
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  return grpc::Status(code, message, details.SerializeAsString());
}

absl::Status FromGrpcStatus(const grpc::Status& status,
                            absl::string_view target) {
  if (status.ok()) return absl::OkStatus();
  absl::Status out(AbslCode(status.error_code()),
                   ClientMessage(status, target));
  // The details gunbaid sent, back as payloads; any others are dropped.
  v1::RpcStatus details;
  if (!status.error_details().empty() &&
      details.ParseFromString(status.error_details())) {
    for (const google::protobuf::Any& any : details.details()) {
      if (absl::StartsWith(any.type_url(), kGunbaiTypeUrlPrefix)) {
        out.SetPayload(any.type_url(), absl::Cord(any.value()));
      }
    }
  }
  return out;
}

}  // namespace gunbai::service
