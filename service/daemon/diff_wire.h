// AuditService.Diff's request read on the wire: each log's DiffLogInput kept
// as its bytes, checked once field by field, then diffed from its bytes on
// the worker that takes it (replay::DiffUnderRulesetsOfBytes), so that the
// request is never held parsed whole (about seven times its size) and no
// log is held parsed whole either. Whatever the bytes, the answers are those
// of the whole parse: where the reading from bytes cannot be sure of that
// (a field it does not read, bytes that do not parse, an enum number no
// value names), the request is parsed whole and diffed as before.
//
// No I/O. Thread-compatible; DiffOfInputBytes may run on many threads at
// once, each for its own bytes.
#ifndef GUNBAI_SERVICE_DAEMON_DIFF_WIRE_H_
#define GUNBAI_SERVICE_DAEMON_DIFF_WIRE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/diff.pb.h"
#include "replay/diff.h"

namespace gunbai::service {

// The top-level fields of a DiffRequest as they came: the bytes of each
// `logs` element, in order, and every other field (the rulesets' texts and
// the mode: a few bytes besides the rulesets).
struct DiffRequestParts {
  std::vector<std::string> logs;
  std::string rest;
};

// Reads the DiffRequest encoded in `wire` into `parts`. Returns false when
// the bytes end in the middle of a field or hold a field that does not
// parse as a field (then a whole parse fails too).
bool SplitDiffRequest(google::protobuf::io::ZeroCopyInputStream& wire,
                      DiffRequestParts& parts);

// Parses `parts` into `request` as the whole request's bytes parse; false
// when they do not. Frees the parts' bytes as it goes.
bool ParseDiffRequestParts(DiffRequestParts& parts,
                           gunbai::v1::DiffRequest& request);

// Returns true when the DiffLogInput encoded in `input` (the bytes of one
// DiffRequest.logs element) is read from its bytes exactly as a whole parse
// of the request reads it: every field one the reading knows, its log's
// bytes read by replay::ReadLogBytesHead, its baseline parsed with every
// enum number named. Parses nothing whole but the baseline.
bool DiffInputReadableFromBytes(absl::string_view input);

// Returns the diff DiffOfInput gives the DiffLogInput encoded in `input`,
// which DiffInputReadableFromBytes said true of, read from its bytes.
gunbai::v1::LogDiff DiffOfInputBytes(absl::string_view input,
                                     bool compare_to_baselines,
                                     const replay::DiffRulesets& sides);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_DIFF_WIRE_H_
