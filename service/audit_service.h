// The gunbaid implementation of gunbai.v1.AuditService: each call replays
// the inline battle log of the request through replay::AuditLog and returns
// its report. Thread-safe: gRPC calls AuditLog from many threads at once;
// the rulesets are loaded once at startup and only read afterwards,
// and each call owns its replay and any ruleset sent with the request.
// With a RequestBudget, a call is refused RESOURCE_EXHAUSTED at once when
// the requests in work would exceed it.
#ifndef GUNBAI_SERVICE_AUDIT_SERVICE_H_
#define GUNBAI_SERVICE_AUDIT_SERVICE_H_

#include "grpcpp/server_context.h"
#include "grpcpp/support/status.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/overload.h"

namespace gunbai::service {

class AuditServiceImpl final : public gunbai::v1::AuditService::Service {
 public:
  // Serves audits under the ruleset of `rulesets` each log's header names,
  // when a request sends none. `rulesets` must outlive the service, and
  // `budget` too when not null: every call is then admitted by it first.
  explicit AuditServiceImpl(const replay::RulesetCatalog* rulesets,
                            RequestBudget* budget = nullptr);

  AuditServiceImpl(const AuditServiceImpl&) = delete;
  AuditServiceImpl& operator=(const AuditServiceImpl&) = delete;

  // Audits `request->log()` under `request->ruleset_textproto()` when it is
  // set, else under the catalog's ruleset its header names, and fills
  // `response->report()`. Returns INVALID_ARGUMENT when the ruleset does not
  // parse or the log cannot be replayed at all; rule violations are findings of
  // an OK reply. RESOURCE_EXHAUSTED when the budget is full; CANCELLED or
  // DEADLINE_EXCEEDED, with no report, when the call ends before the audit
  // or before its impact branches start.
  grpc::Status AuditLog(grpc::ServerContext* context,
                        const gunbai::v1::AuditLogRequest* request,
                        gunbai::v1::AuditLogResponse* response) override;

  // Diffs the logs of `request` (see DiffRequestLogs) on one worker per
  // core and writes one reply per log as it finishes, then the summary.
  // Returns INVALID_ARGUMENT for a ruleset that does not parse or an old
  // ruleset with compare_to_baselines; RESOURCE_EXHAUSTED when the budget
  // is full; CANCELLED when the client goes away or the deadline passes
  // (checked between logs).
  grpc::Status Diff(
      grpc::ServerContext* context, const gunbai::v1::DiffRequest* request,
      grpc::ServerWriter<gunbai::v1::DiffResponse>* writer) override;

  // Summarizes the dice of `request->logs()` as `gunbai dice` does.
  // Returns INVALID_ARGUMENT when a log names a unit or leader not in its
  // order of battle, RESOURCE_EXHAUSTED when the budget is full.
  grpc::Status DiceStats(grpc::ServerContext* context,
                         const gunbai::v1::DiceStatsRequest* request,
                         gunbai::v1::DiceStatsResponse* response) override;

 private:
  // Returns OK with the admission of `request` by the budget (an empty one
  // without a budget), or the status refusing it.
  grpc::Status Admit(const google::protobuf::Message& request,
                     absl::string_view what,
                     RequestBudget::Admission& admission);

  const replay::RulesetCatalog* const rulesets_;  // Not owned.
  RequestBudget* const budget_;                   // Not owned; may be null.
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_AUDIT_SERVICE_H_
