// Collects the first parse error of protobuf's text format with its line and
// column, finds text that is not UTF-8 and enum values the schema does not
// name, and quotes input in short excerpts, for messages that tell the user
// where to look. Thread-safe: functions only (FirstTextError is one
// parse's).
#ifndef GUNBAI_REPLAY_TEXT_ERRORS_H_
#define GUNBAI_REPLAY_TEXT_ERRORS_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "replay/known_enums_generated.h"
#include "rules/excerpt.h"

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

// Parses `text` (protobuf text format) into `message`. At the first error
// returns InvalidArgument "SOURCE:LINE:COLUMN: MESSAGE", the parser's
// message quoted short: the form every text file gunbai reads (rulesets,
// procedures, tournaments) reports its errors in.
absl::Status ParseTextFormat(absl::string_view text, absl::string_view source,
                             google::protobuf::Message& message);

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

// Quoting a user's input in a message (rules/excerpt.h).
using rules::Excerpt;
using rules::kMaxQuotedBytes;

// Returns OK when every enum field of `message`, depth first, holds a value
// its enum type names. Proto3 enums are open: the binary and JSON parsers
// keep a number the schema does not know (policy: 99), which no code that
// reads the field means. Otherwise returns InvalidArgument for the first:
// "PATH: N is not a value of ENUM (NAME, NAME, ...)", PATH such as
// "settings.policy" or "events[3].firing.facts.range", after `prefix` and
// ": " when `prefix` is not empty.
absl::Status CheckKnownEnums(const google::protobuf::Message& message,
                             absl::string_view prefix = {});

// Says whether every enum field of a message holds a number its type names,
// the verdict of CheckKnownEnums without its message, and without
// allocating: for a gunbai.v1 type, the generated check of
// known_enums_generated.h (accessors and ENUM_IsValid, no reflection); for
// another, a plan per message type that lists only the fields that can hold
// an enum, read by reflection. (Walking every field of every message by
// reflection cost about a fifth of an AuditLog call.) CheckKnownEnums asks
// it first and walks for the message only when it says no. Built once per
// type tree; then read-only, so thread-safe. Generated messages only: the
// plans read each type through its generated prototype's reflection.
class KnownEnums {
 public:
  explicit KnownEnums(const google::protobuf::Descriptor* root);
  KnownEnums(const KnownEnums&) = delete;
  KnownEnums& operator=(const KnownEnums&) = delete;

  // The plan of `root`, built on first use and kept for the process.
  static const KnownEnums& For(const google::protobuf::Descriptor* root);

  // Returns true when no enum field under `message` (of the root type)
  // holds an unknown number. May say false where CheckKnownEnums finds
  // nothing (an enum in a oneof not set is read as its default, which is
  // always named), never the other way round.
  bool AllKnown(const google::protobuf::Message& message) const;

 private:
  struct Plan;
  const Plan* PlanFor(const google::protobuf::Descriptor* type);
  const std::vector<bool>* KnownValues(
      const google::protobuf::EnumDescriptor* type);

  // std::map: the plans point at each other, so their addresses must hold.
  std::map<const google::protobuf::Descriptor*, std::unique_ptr<Plan>> plans_;
  std::map<const google::protobuf::EnumDescriptor*, std::vector<bool>> known_;
  // The types whose plans are being built, outermost first.
  std::vector<const google::protobuf::Descriptor*> in_progress_;
  const Plan* root_ = nullptr;
  // The generated check of the root type (known_enums_generated.h), which
  // reads no reflection; null when there is none.
  GeneratedKnownEnums generated_ = nullptr;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_TEXT_ERRORS_H_
