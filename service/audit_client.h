// The client side of gunbai.v1.AuditService: sends a battle log to a
// running gunbaid and returns the report it computes, for `gunbai audit
// --server`. Thread-safe: each call opens its own channel.
#ifndef GUNBAI_SERVICE_AUDIT_CLIENT_H_
#define GUNBAI_SERVICE_AUDIT_CLIENT_H_

#include <string>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"

namespace gunbai::service {

// How long an audit through the server may take before it is abandoned.
inline constexpr int kAuditDeadlineSeconds = 60;

// Asks the gunbaid at `target` ("HOST:PORT", plaintext) to audit `log`
// under `ruleset_textproto` (the daemon's default ruleset when empty).
// Messages in both directions are limited to `max_message_bytes`. Returns
// the daemon's status otherwise: INVALID_ARGUMENT for an unusable log or
// ruleset, UNAVAILABLE when no daemon answers at `target`,
// RESOURCE_EXHAUSTED when a message exceeds a size limit and
// DEADLINE_EXCEEDED after kAuditDeadlineSeconds.
absl::StatusOr<gunbai::v1::AuditReport> AuditThroughServer(
    const std::string& target, const gunbai::v1::BattleLog& log,
    const std::string& ruleset_textproto, int max_message_bytes);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_AUDIT_CLIENT_H_
