// JSON string literals for the text gunbaid writes by hand: the HTTP
// gateway's error bodies and the log's lines. Thread-safe: functions only.
#ifndef GUNBAI_SERVICE_DAEMON_JSON_STRING_H_
#define GUNBAI_SERVICE_DAEMON_JSON_STRING_H_

#include <string>

#include "absl/strings/string_view.h"

namespace gunbai::service {

// Returns `text` as a JSON string literal: quotes, backslashes and control
// characters escaped, and <, > and & too so that no reader takes it for
// markup; bytes that are not UTF-8 become U+FFFD.
std::string JsonString(absl::string_view text);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_JSON_STRING_H_
