#include "service/audit_service.h"

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "replay/audit.h"
#include "replay/dice_stats.h"
#include "replay/diff.h"
#include "replay/impact.h"
#include "replay/text_errors.h"
#include "service/diff_cli.h"
#include "service/grpc_status.h"

namespace gunbai::service {

AuditServiceImpl::AuditServiceImpl(const replay::RulesetCatalog* rulesets)
    : rulesets_(rulesets) {}

grpc::Status AuditServiceImpl::AuditLog(
    grpc::ServerContext* context, const gunbai::v1::AuditLogRequest* request,
    gunbai::v1::AuditLogResponse* response) {
  absl::Status known = replay::CheckKnownEnums(*request);
  if (!known.ok()) return ToGrpcStatus(known);
  absl::StatusOr<replay::LoadedRuleset> request_ruleset;
  const replay::LoadedRuleset* ruleset = nullptr;
  if (request->ruleset_textproto().empty()) {
    auto chosen = rulesets_->ForLog(request->log().header());
    if (!chosen.ok()) return ToGrpcStatus(chosen.status());
    ruleset = *chosen;
  } else {
    request_ruleset = replay::LoadRuleset(request->ruleset_textproto(),
                                          "request.ruleset_textproto");
    if (!request_ruleset.ok()) return ToGrpcStatus(request_ruleset.status());
    ruleset = &*request_ruleset;
  }
  replay::AuditOptions options;
  options.record_outcomes = request->record_outcomes();
  absl::StatusOr<gunbai::v1::AuditReport> report =
      replay::AuditLog(request->log(), *ruleset, options);
  if (!report.ok()) return ToGrpcStatus(report.status());
  if (request->impact()) {
    absl::Status impact = replay::AddImpacts(request->log(), *ruleset, *report);
    if (!impact.ok()) return ToGrpcStatus(impact);
  }
  *response->mutable_report() = *std::move(report);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::Diff(
    grpc::ServerContext* context, const gunbai::v1::DiffRequest* request,
    grpc::ServerWriter<gunbai::v1::DiffResponse>* writer) {
  absl::Status known = replay::CheckKnownEnums(*request);
  if (!known.ok()) return ToGrpcStatus(known);
  replay::DiffTally tally;
  absl::Status status = DiffRequestLogs(
      *request, /*jobs=*/0, [&](std::size_t index, gunbai::v1::LogDiff diff) {
        if (context->IsCancelled()) return false;
        tally.Add(index, diff);
        gunbai::v1::DiffResponse response;
        response.set_index(static_cast<uint32_t>(index));
        *response.mutable_log() = std::move(diff);
        return writer->Write(response);
      });
  if (!status.ok()) return ToGrpcStatus(status);
  if (context->IsCancelled()) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
  }
  gunbai::v1::DiffResponse last;
  *last.mutable_summary() = tally.Summary();
  writer->Write(last);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::DiceStats(
    grpc::ServerContext* context, const gunbai::v1::DiceStatsRequest* request,
    gunbai::v1::DiceStatsResponse* response) {
  absl::Status known = replay::CheckKnownEnums(*request);
  if (!known.ok()) return ToGrpcStatus(known);
  const std::vector<gunbai::v1::BattleLog> logs(request->logs().begin(),
                                                request->logs().end());
  absl::StatusOr<replay::DiceReport> report = replay::SummarizeDice(logs);
  if (!report.ok()) return ToGrpcStatus(report.status());
  *response->mutable_report() = replay::DiceReportToProto(*report);
  return grpc::Status::OK;
}

}  // namespace gunbai::service
