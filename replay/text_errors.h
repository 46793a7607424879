// Collects the first parse error of protobuf's text format with its line and
// column, finds text that is not UTF-8 and enum values the schema does not
// name, and quotes input in short excerpts, for messages that tell the user
// where to look. Thread-safe: functions only (FirstTextError is one
// parse's).
#ifndef GUNBAI_REPLAY_TEXT_ERRORS_H_
#define GUNBAI_REPLAY_TEXT_ERRORS_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace gunbai::replay {

class FirstTextError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!has_error_) {
      has_error_ = true;
      line_ = line + 1;  // The parser counts from 0.
      column_ = column + 1;
      message_ = message;
    }
  }
  void AddWarning(int, int, const std::string&) override {}

  bool has_error() const { return has_error_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

// Returns OK when every string field of `message` holds valid UTF-8, the
// check protobuf's binary parser makes. The text and JSON parsers let
// escapes such as "\xff" through, and such a string cannot be sent over
// gRPC or written as JSON. Otherwise returns InvalidArgument for the first
// one, depth first in field-number order: "SOURCE:LINE:COLUMN: PATH is not
// valid UTF-8 text ... (READING)", the line and column from `tree` (the text
// parser's locations; null for none) and PATH such as
// "events[3].firing.unit".
absl::Status CheckUtf8(const google::protobuf::Message& message,
                       const google::protobuf::TextFormat::ParseInfoTree* tree,
                       absl::string_view source, absl::string_view reading);

// CheckUtf8 for `parsed`, parsed from the text format `text`: the text is
// parsed again, recording where each field is, only when a string is found
// invalid, so that a valid log pays no more than the walk.
absl::Status CheckTextUtf8(absl::string_view text,
                           const google::protobuf::Message& parsed,
                           absl::string_view source, absl::string_view reading);

// The most bytes of a user's input an error message quotes: a message quoting
// a whole 100,000-character id would exceed what gRPC carries in a status.
inline constexpr std::size_t kMaxQuotedBytes = 80;

// Returns `input` for quoting in a message: itself when it is at most
// `max_bytes` long, else its first `max_bytes` bytes (cut before a UTF-8
// character that would not fit) followed by "... (N bytes)".
std::string Excerpt(absl::string_view input,
                    std::size_t max_bytes = kMaxQuotedBytes);

// Returns OK when every enum field of `message`, depth first, holds a value
// its enum type names. Proto3 enums are open: the binary and JSON parsers
// keep a number the schema does not know (policy: 99), which no code that
// reads the field means. Otherwise returns InvalidArgument for the first:
// "PATH: N is not a value of ENUM (NAME, NAME, ...)", PATH such as
// "settings.policy" or "events[3].firing.facts.range", after `prefix` and
// ": " when `prefix` is not empty.
absl::Status CheckKnownEnums(const google::protobuf::Message& message,
                             absl::string_view prefix = {});

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_TEXT_ERRORS_H_
