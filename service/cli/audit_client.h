// The client side of gunbai.v1.AuditService: sends a battle log to a
// running gunbaid and returns the report it computes, for `gunbai audit
// --server`. Thread-safe: each call opens its own channel.
#ifndef GUNBAI_SERVICE_CLI_AUDIT_CLIENT_H_
#define GUNBAI_SERVICE_CLI_AUDIT_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/dice_stats.pb.h"
#include "gunbai/v1/report.pb.h"

namespace gunbai::service {

// How long an audit through the server may take before it is abandoned.
inline constexpr int kAuditDeadlineSeconds = 60;

// Asks the gunbaid at `target` ("HOST:PORT"; TLS trusting the certificate
// file `tls_ca` when given, else plaintext) to audit `log`
// under `ruleset_textproto` (the daemon's default ruleset when empty).
// Messages in both directions are limited to `max_message_bytes`. Returns
// the daemon's status otherwise: INVALID_ARGUMENT for an unusable log or
// ruleset, UNAVAILABLE when no daemon answers at `target`,
// RESOURCE_EXHAUSTED when a message exceeds a size limit and
// DEADLINE_EXCEEDED after kAuditDeadlineSeconds.
// With `record_outcomes` the report carries every outcome worked out; with
// `impact`, what each disputed outcome changed (gunbai audit --impact).
// The report comes through AuditService.AuditLogStream, in pieces merged
// here, so that no message is the whole report; from a daemon without
// that method (UNIMPLEMENTED), through the unary AuditLog.
absl::StatusOr<gunbai::v1::AuditReport> AuditThroughServer(
    const std::string& target, const gunbai::v1::BattleLog& log,
    const std::string& ruleset_textproto, int max_message_bytes,
    bool record_outcomes = false, bool impact = false,
    const std::string& tls_ca = "");

// Asks the gunbaid at `target` (TLS when `tls_ca` is given) for the dice
// statistics of `logs` (AuditService.DiceStats). Returns the daemon's status
// otherwise, as AuditThroughServer does.
absl::StatusOr<gunbai::v1::DiceStatsReport> DiceStatsThroughServer(
    const std::string& target, const std::vector<gunbai::v1::BattleLog>& logs,
    int max_message_bytes, const std::string& tls_ca = "");

// Sends `request` to AuditService.Diff on `channel` (to the daemon at
// `target`, named in errors) and calls `on_response` with each reply as it
// arrives, the summary last. The call is abandoned after
// `deadline_seconds`. Returns the daemon's status, as AuditThroughServer.
absl::Status DiffThroughServer(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& target,
    const gunbai::v1::DiffRequest& request, int deadline_seconds,
    const std::function<void(gunbai::v1::DiffResponse&)>& on_response);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_AUDIT_CLIENT_H_
