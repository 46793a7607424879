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
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/message.h"
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

// Called after each event a streamed audit replays, with the report so far.
// It may move the report's outcomes out (the replay only ever appends to
// them); returning false stops the audit with CANCELLED (CancelledAudit).
using AfterStreamedEvent = std::function<bool(gunbai::v1::AuditReport&)>;

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
// When `after_event` is set it is called after each event replayed, and the
// head is read in a pass of its own before the events (so that no replay is
// ever dropped and started again once `after_event` has seen it): three
// passes over the bytes, the first two only skipping events. Whether the
// log is audited here or given up on is the same either way.
absl::StatusOr<gunbai::v1::AuditReport> AuditBinaryLogStream(
    const OpenLogStream& open, const RulesetForHead& ruleset_for,
    const AuditOptions& options, std::int64_t max_bytes,
    const AfterStreamedEvent& after_event = {});

// What a streamed audit came to: its report, or none when the log is not
// audited as a stream and must be read whole, `read_whole_because` saying
// why (the reasons AuditBinaryLogStream gives up).
struct StreamedAuditResult {
  std::optional<gunbai::v1::AuditReport> report;
  std::string read_whole_because;
};

// AuditBinaryLogStream with its giving up as a result, not a status, for a
// caller that then audits the log parsed whole: an error is only an error
// (CANCELLED, or the audit's own).
absl::StatusOr<StreamedAuditResult> AuditBinaryLogStreamOrGiveUp(
    const OpenLogStream& open, const RulesetForHead& ruleset_for,
    const AuditOptions& options, std::int64_t max_bytes,
    const AfterStreamedEvent& after_event = {});

// Returns the head (header and order of battle, merged from every field of
// theirs wherever it is, as a parse of the whole log merges them; no events,
// no terrain) of the binary log `open` reads, its events skipped unparsed.
// FailedPrecondition, as AuditBinaryLogStream gives up, when the fields do
// not parse or are not a log's, the head or a terrain feature holds an enum
// number its type does not name, or the bytes are more than `max_bytes`.
absl::StatusOr<gunbai::v1::BattleLog> ReadBinaryLogHead(
    const OpenLogStream& open, std::int64_t max_bytes);

// Called with each event of a log in order; returns false to stop reading.
// The event is valid only during the call.
using EventVisitor = std::function<bool(const gunbai::v1::Event&)>;

// Calls `visit` with each event of the binary log `open` reads, in order,
// each parsed as AuditBinaryLogStream parses it (one reused arena block, no
// allocation per event), until the events end or `visit` returns false: OK.
// FailedPrecondition as AuditBinaryLogStream gives up (an event that does
// not parse or holds an unknown enum number, bytes that are not a log's or
// more than `max_bytes`), possibly after some events were visited.
absl::Status ForEachBinaryLogEvent(const OpenLogStream& open,
                                   std::int64_t max_bytes,
                                   const EventVisitor& visit);

// Reads a length-delimited message field (its length first) into
// `message`, merging, as WireFormatLite::ReadMessage does, one recursion
// level deeper; and also fails when the bytes end before the length says
// (ReadMessage takes a message cut at the end of the input for a whole one).
bool ReadWholeMessage(google::protobuf::io::CodedInputStream& input,
                      google::protobuf::Message* message);
// ReadWholeMessage once the length is read.
bool ReadMessageOfLength(google::protobuf::io::CodedInputStream& input,
                         int length, google::protobuf::Message* message);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LOG_STREAM_H_
