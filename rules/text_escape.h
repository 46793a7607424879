// Text made safe for the formats gunbai writes by hand: JSON string
// literals and HTML (or SVG) text and attribute values. One escaper of each
// for every layer: the daemon's error bodies and log lines, the generator's
// manifests, the dice report, the HTML reports and the SVG maps. Untrusted
// bytes (names and notes from a log) are welcome: what is not UTF-8 becomes
// U+FFFD. Thread-safe: functions only.
#ifndef GUNBAI_RULES_TEXT_ESCAPE_H_
#define GUNBAI_RULES_TEXT_ESCAPE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace gunbai::base {

// Returns `text` as a JSON string literal, quotes included: quotes,
// backslashes and control characters escaped (\" \\ \u00XX), and <, > and &
// too so that no reader takes it for markup; bytes that are not UTF-8
// become U+FFFD.
std::string JsonString(absl::string_view text);

// Returns `text` escaped for HTML or XML text and attribute values: & < > "
// ' as entities (&amp; &lt; &gt; &quot; &#39;); tab and newline kept; other
// control characters and bytes that are not UTF-8 become U+FFFD.
std::string HtmlEscape(absl::string_view text);

// Returns the length (1-4) of the well-formed UTF-8 sequence starting at
// `text[i]`, or 0 when none starts there (a stray byte, an overlong form, a
// surrogate, past U+10FFFF or cut short). `i` < text.size().
int Utf8Length(absl::string_view text, std::size_t i);

}  // namespace gunbai::base

#endif  // GUNBAI_RULES_TEXT_ESCAPE_H_
