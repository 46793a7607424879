// Digests every layer takes the same way: a SHA-256 as lowercase hex, and a
// message's bytes serialized deterministically (map entries in key order),
// the bytes a ruleset's, a state's and an event's digest are taken over.
#ifndef GUNBAI_RULES_DIGEST_H_
#define GUNBAI_RULES_DIGEST_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace gunbai::base {

// Returns the SHA-256 of `bytes` as lowercase hex (64 characters).
std::string Sha256Hex(absl::string_view bytes);

// Serializes `message` deterministically (map order fixed).
std::string DeterministicBytes(const google::protobuf::Message& message);

}  // namespace gunbai::base

#endif  // GUNBAI_RULES_DIGEST_H_
