#include "service/cli/audit_client.h"

#include <chrono>
#include <memory>
#include <utility>

#include "grpcpp/client_context.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "service/cli/client_channel.h"
#include "service/common/grpc_status.h"

namespace gunbai::service {

namespace {

// AuditThroughServer through the unary AuditLog, for a daemon from before
// AuditLogStream.
absl::StatusOr<gunbai::v1::AuditReport> AuditThroughUnary(
    gunbai::v1::AuditService::Stub& stub, const std::string& target,
    const gunbai::v1::AuditLogStreamRequest& streamed) {
  gunbai::v1::AuditLogRequest request;
  *request.mutable_log() = streamed.log();
  request.set_ruleset_textproto(streamed.ruleset_textproto());
  request.set_record_outcomes(streamed.record_outcomes());
  request.set_impact(streamed.impact());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(kAuditDeadlineSeconds));
  gunbai::v1::AuditLogResponse response;
  grpc::Status status = stub.AuditLog(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, target);
  return std::move(*response.mutable_report());
}

}  // namespace

absl::StatusOr<gunbai::v1::AuditReport> AuditThroughServer(
    const std::string& target, const gunbai::v1::BattleLog& log,
    const std::string& ruleset_textproto, int max_message_bytes,
    bool record_outcomes, bool impact, const std::string& tls_ca) {
  auto channel =
      OpenClientChannel(target, tls_ca, max_message_bytes, max_message_bytes);
  if (!channel.ok()) return channel.status();
  auto stub = gunbai::v1::AuditService::NewStub(*channel);
  gunbai::v1::AuditLogStreamRequest request;
  *request.mutable_log() = log;
  request.set_ruleset_textproto(ruleset_textproto);
  request.set_record_outcomes(record_outcomes);
  request.set_impact(impact);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(kAuditDeadlineSeconds));
  std::unique_ptr<grpc::ClientReader<gunbai::v1::AuditLogStreamResponse>>
      reader = stub->AuditLogStream(&context, request);
  // The pieces merged in order are AuditLog's report.
  gunbai::v1::AuditReport report;
  gunbai::v1::AuditLogStreamResponse piece;
  bool any = false;
  while (reader->Read(&piece)) {
    report.MergeFrom(piece.report());
    any = true;
  }
  grpc::Status status = reader->Finish();
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED && !any) {
    return AuditThroughUnary(*stub, target, request);
  }
  if (!status.ok()) return FromGrpcStatus(status, target);
  return report;
}

absl::StatusOr<gunbai::v1::DiceStatsReport> DiceStatsThroughServer(
    const std::string& target, const std::vector<gunbai::v1::BattleLog>& logs,
    int max_message_bytes, const std::string& tls_ca) {
  auto channel =
      OpenClientChannel(target, tls_ca, max_message_bytes, max_message_bytes);
  if (!channel.ok()) return channel.status();
  auto stub = gunbai::v1::AuditService::NewStub(*channel);
  gunbai::v1::DiceStatsRequest request;
  for (const gunbai::v1::BattleLog& log : logs) *request.add_logs() = log;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(kAuditDeadlineSeconds));
  gunbai::v1::DiceStatsResponse response;
  grpc::Status status = stub->DiceStats(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, target);
  return std::move(*response.mutable_report());
}

absl::Status DiffThroughServer(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& target,
    const gunbai::v1::DiffRequest& request, int deadline_seconds,
    const std::function<void(gunbai::v1::DiffResponse&)>& on_response) {
  auto stub = gunbai::v1::AuditService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(deadline_seconds));
  std::unique_ptr<grpc::ClientReader<gunbai::v1::DiffResponse>> reader =
      stub->Diff(&context, request);
  gunbai::v1::DiffResponse response;
  while (reader->Read(&response)) on_response(response);
  grpc::Status status = reader->Finish();
  if (!status.ok()) return FromGrpcStatus(status, target);
  return absl::OkStatus();
}

}  // namespace gunbai::service
