// A binary battle log held as its bytes and read from them as often as
// asked, never parsed whole: checked once field by field (each event parsed
// alone into one reused message), its head (header, order of battle, a
// starting position)
// kept parsed, its events handed out one at a time, in order. For the
// daemon's Diff, which replays each log of a request three times (the old
// side's findings, then both sides in step) from the request's bytes.
//
// A pass reads exactly what a whole parse of the same bytes reads, or says
// it cannot be sure: any field of a number or wire type the log's schema
// does not read as a message (an unknown field, a header given as a
// number), bytes that do not parse, a nesting deeper than the whole parse
// allows, an enum number its type does not name. The caller then parses
// the log whole, as before, which gives the answer to give.
//
// No I/O. Thread-compatible: the functions share nothing.
#ifndef GUNBAI_REPLAY_LOG_BYTES_H_
#define GUNBAI_REPLAY_LOG_BYTES_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"

namespace gunbai::replay {

// The head of a log read from its bytes, and what a replay needs of its
// events before reading them.
struct LogBytesHead {
  // The header, order of battle, starting position and table, merged as
  // protobuf merges a message field given twice, and the terrain; never
  // the events.
  gunbai::v1::BattleLog head;
  std::uint64_t events = 0;
  // Whether each event's seq is above the one before it.
  bool seqs_increase = true;
};

// Reads the gunbai.v1.BattleLog encoded in `bytes` field by field and
// returns its head. `recursion_limit` is the nesting a whole parse leaves
// the log's own fields: protobuf's 100 less the log's depth in the message
// parsed (2 for DiffRequest.logs[i].log). Returns FailedPrecondition,
// saying why, when the bytes are not read here (see the file comment).
absl::StatusOr<LogBytesHead> ReadLogBytesHead(absl::string_view bytes,
                                              int recursion_limit);

// Calls `each` with every event of `bytes`, in order, each parsed into one
// reused message valid only during the call. For bytes ReadLogBytesHead
// read; FailedPrecondition (and fewer calls) for others.
absl::Status ForEachLogBytesEvent(
    absl::string_view bytes, int recursion_limit,
    const std::function<void(const gunbai::v1::Event&)>& each);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LOG_BYTES_H_
