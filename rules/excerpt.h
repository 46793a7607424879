// Quotes a user's input in an error message, cut to a length gRPC carries.
// Thread-safe: functions only.
#ifndef GUNBAI_RULES_EXCERPT_H_
#define GUNBAI_RULES_EXCERPT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace gunbai::rules {

// The most bytes of a user's input an error message quotes: a message quoting
// a whole 100,000-character id would exceed what gRPC carries in a status.
inline constexpr std::size_t kMaxQuotedBytes = 80;

// Returns `input` for quoting in a message: itself when it is at most
// `max_bytes` long, else its first `max_bytes` bytes (cut before a UTF-8
// character that would not fit) followed by "... (N bytes)".
std::string Excerpt(absl::string_view input,
                    std::size_t max_bytes = kMaxQuotedBytes);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_EXCERPT_H_
