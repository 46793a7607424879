#include "service/audit_client.h"

#include <chrono>
#include <memory>
#include <utility>

#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "service/grpc_status.h"

namespace gunbai::service {

namespace {

std::shared_ptr<grpc::Channel> OpenChannel(const std::string& target,
                                           int max_message_bytes) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(max_message_bytes);
  args.SetMaxReceiveMessageSize(max_message_bytes);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   args);
}

}  // namespace

absl::StatusOr<gunbai::v1::AuditReport> AuditThroughServer(
    const std::string& target, const gunbai::v1::BattleLog& log,
    const std::string& ruleset_textproto, int max_message_bytes) {
  auto stub =
      gunbai::v1::AuditService::NewStub(OpenChannel(target, max_message_bytes));
  gunbai::v1::AuditLogRequest request;
  *request.mutable_log() = log;
  request.set_ruleset_textproto(ruleset_textproto);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(kAuditDeadlineSeconds));
  gunbai::v1::AuditLogResponse response;
  grpc::Status status = stub->AuditLog(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, target);
  return std::move(*response.mutable_report());
}

}  // namespace gunbai::service
