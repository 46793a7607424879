#include "service/audit_service.h"

#include <cstdint>
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

namespace {

// The status of a call whose client went away or whose deadline passed:
// the client no longer waits for the answer.
grpc::Status Abandoned() {
  return grpc::Status(grpc::StatusCode::CANCELLED,
                      "the call was cancelled or its deadline passed");
}

}  // namespace

AuditServiceImpl::AuditServiceImpl(const replay::RulesetCatalog* rulesets,
                                   RequestBudget* budget)
    : rulesets_(rulesets), budget_(budget) {}

grpc::Status AuditServiceImpl::Admit(const google::protobuf::Message& request,
                                     absl::string_view what,
                                     RequestBudget::Admission& admission) {
  return ToGrpcStatus(AdmitRequest(budget_, request, what, admission));
}

grpc::Status AuditServiceImpl::AuditLog(
    grpc::ServerContext* context, const gunbai::v1::AuditLogRequest* request,
    gunbai::v1::AuditLogResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(*request, "AuditLog", admission);
  if (!admitted.ok()) return admitted;
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
  // The replay asks now and then whether the client still waits.
  options.cancelled = [context] { return context->IsCancelled(); };
  if (context->IsCancelled()) return Abandoned();
  absl::StatusOr<gunbai::v1::AuditReport> report =
      replay::AuditLog(request->log(), *ruleset, options);
  if (!report.ok()) return ToGrpcStatus(report.status());
  if (request->impact()) {
    if (context->IsCancelled()) return Abandoned();
    absl::Status impact =
        replay::AddImpacts(request->log(), *ruleset, *report,
                           /*branch_logs=*/nullptr, options.cancelled);
    if (!impact.ok()) return ToGrpcStatus(impact);
  }
  *response->mutable_report() = *std::move(report);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::Diff(
    grpc::ServerContext* context, const gunbai::v1::DiffRequest* request,
    grpc::ServerWriter<gunbai::v1::DiffResponse>* writer) {
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(*request, "Diff", admission);
  if (!admitted.ok()) return admitted;
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
  if (context->IsCancelled()) return Abandoned();
  gunbai::v1::DiffResponse last;
  *last.mutable_summary() = tally.Summary();
  writer->Write(last);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::DiceStats(
    grpc::ServerContext* context, const gunbai::v1::DiceStatsRequest* request,
    gunbai::v1::DiceStatsResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(*request, "DiceStats", admission);
  if (!admitted.ok()) return admitted;
  absl::Status known = replay::CheckKnownEnums(*request);
  if (!known.ok()) return ToGrpcStatus(known);
  // The logs are moved out of the request, not copied: a copy doubled the
  // call's memory. gRPC owns the request, which is not a const object, and
  // reads it no more once the handler runs.
  auto* owned = const_cast<gunbai::v1::DiceStatsRequest*>(request);
  std::vector<gunbai::v1::BattleLog> logs;
  logs.reserve(owned->logs_size());
  for (gunbai::v1::BattleLog& log : *owned->mutable_logs()) {
    logs.push_back(std::move(log));
  }
  absl::StatusOr<replay::DiceReport> report = replay::SummarizeDice(logs);
  if (!report.ok()) return ToGrpcStatus(report.status());
  *response->mutable_report() = replay::DiceReportToProto(*report);
  return grpc::Status::OK;
}

}  // namespace gunbai::service
