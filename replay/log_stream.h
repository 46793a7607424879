// Audits a binary battle log as it is read: the header and order of battle
// first, then each event parsed into a message on one reused arena block and
// replayed, so that memory holds the state, the findings and the report, never
// the whole log. No I/O of its own: the caller opens the input.
// Thread-compatible: each call owns its replay and its input; the ruleset is
// only read.
//
// The streamed audit gives exactly the report AuditLog gives for the log
// ParseBattleLog reads from the same bytes. Where it cannot be sure of that
// cheaply (bytes that do not parse, an enum number no value has, an unknown
// field, a ruleset or order of battle refused) it does not guess: it gives
// up, and the caller audits the log read whole, whose error message is the
// one the user has always seen.
#ifndef GUNBAI_REPLAY_LOG_STREAM_H_
#define GUNBAI_REPLAY_LOG_STREAM_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Opens the log's bytes from their start; called once, or three times when
// a header or order of battle field comes after the first event (see
// AuditBinaryLogStream). Returns null when the input cannot be opened.
using OpenLogStream =
    std::function<std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>()>;

// Chooses the ruleset for a log from its header and order of battle (`head`
// holds no events), as the caller would for the whole log.
using RulesetForHead =
    std::function<absl::StatusOr<LoadedRuleset>(const gunbai::v1::BattleLog&)>;

// Audits the binary gunbai.v1.BattleLog that `open` reads, replaying each
// event as it is parsed, and returns AuditLog's report for it, byte for
// byte. Protobuf lets the fields of a message come in any order and merges a
// message field given twice: when a header or order of battle field comes
// after the first event (or the head before the first event cannot start a
// replay, as when there is none yet), the replay so far is dropped and the
// log is read twice more, once for its header and order of battle, once for
// its events (still streamed).
//
// Returns FailedPrecondition, saying why, when the log is not audited here:
// it is not a valid binary log (including a log larger than `max_bytes`),
// it holds an enum number its type does not name or a field this schema
// does not have, or choosing the ruleset or starting the replay fails. The
// caller then reads the log whole (ParseBattleLog) and audits it with
// AuditLog, which gives the error message to show, or the report.
// `options.branch_events` must be null (what-if branches need the log).
// When `options.cancelled` is set it is asked every kCancelCheckEvents
// events, as AuditLog asks it; when it returns true the audit stops with
// AuditLog's CANCELLED status (CancelledAudit).
absl::StatusOr<gunbai::v1::AuditReport> AuditBinaryLogStream(
    const OpenLogStream& open, const RulesetForHead& ruleset_for,
    const AuditOptions& options, std::int64_t max_bytes);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LOG_STREAM_H_
