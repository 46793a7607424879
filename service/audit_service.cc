#include "service/audit_service.h"

#include <utility>

#include "absl/status/statusor.h"
#include "replay/audit.h"
#include "service/grpc_status.h"

namespace gunbai::service {

AuditServiceImpl::AuditServiceImpl(replay::LoadedRuleset default_ruleset)
    : default_ruleset_(std::move(default_ruleset)) {}

grpc::Status AuditServiceImpl::AuditLog(
    grpc::ServerContext* context, const gunbai::v1::AuditLogRequest* request,
    gunbai::v1::AuditLogResponse* response) {
  absl::StatusOr<replay::LoadedRuleset> request_ruleset;
  const replay::LoadedRuleset* ruleset = &default_ruleset_;
  if (!request->ruleset_textproto().empty()) {
    request_ruleset = replay::LoadRuleset(request->ruleset_textproto(),
                                          "request.ruleset_textproto");
    if (!request_ruleset.ok()) return ToGrpcStatus(request_ruleset.status());
    ruleset = &*request_ruleset;
  }
  absl::StatusOr<gunbai::v1::AuditReport> report =
      replay::AuditLog(request->log(), *ruleset);
  if (!report.ok()) return ToGrpcStatus(report.status());
  *response->mutable_report() = *std::move(report);
  return grpc::Status::OK;
}

}  // namespace gunbai::service
