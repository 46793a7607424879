// Loads a ruleset data file (text format of gunbai.v1.Ruleset) into the
// domain Ruleset the rules engine reads, and computes its content digest.
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_RULESET_LOADER_H_
#define GUNBAI_REPLAY_RULESET_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/ruleset.h"

namespace gunbai::replay {

struct LoadedRuleset {
  rules::Ruleset rules;
  gunbai::v1::Ruleset data;
  // SHA-256 (hex) of the data's deterministic binary serialization: the
  // same for two files that differ only in comments, spacing or order.
  std::string digest;
};

// Parses and validates a ruleset in text format. `source_name` names it in
// errors. Returns InvalidArgument with line and column when the text does
// not parse, or naming the field when a value is out of range.
absl::StatusOr<LoadedRuleset> LoadRuleset(absl::string_view textproto,
                                          absl::string_view source_name);

// Returns the built-in Daimyo ruleset. Never fails for a built binary (a
// test covers it); the Status is for form.
absl::StatusOr<LoadedRuleset> BuiltinDaimyoRuleset();

// Returns the SHA-256 of `bytes` as lowercase hex.
std::string Sha256Hex(absl::string_view bytes);

// Serializes `message` deterministically (map order fixed).
std::string DeterministicBytes(const google::protobuf::Message& message);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_RULESET_LOADER_H_
