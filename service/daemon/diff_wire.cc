#include "service/daemon/diff_wire.h"

#include <climits>
#include <cstdint>
#include <optional>
#include <utility>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/wire_format_lite.h"
#include "replay/corpus.h"
#include "replay/log_bytes.h"
#include "replay/text_errors.h"
#include "replay/wire_tag.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

constexpr std::uint32_t Tag(int field) {
  return WireFormatLite::MakeTag(field,
                                 WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}
constexpr std::uint32_t kLogsTag = Tag(v1::DiffRequest::kLogsFieldNumber);
constexpr std::uint32_t kNameTag = Tag(v1::DiffLogInput::kNameFieldNumber);
constexpr std::uint32_t kLogTag = Tag(v1::DiffLogInput::kLogFieldNumber);
constexpr std::uint32_t kBaselineTag =
    Tag(v1::DiffLogInput::kBaselineFieldNumber);

// The nesting a whole parse of a DiffRequest leaves the fields of a
// DiffLogInput (depth 1) and of its log and baseline (depth 2): protobuf's
// default of 100 less the depth.
constexpr int kInputFieldsLimit = 99;
constexpr int kLogFieldsLimit = 98;

// A DiffLogInput's fields, viewed in its bytes.
struct InputFields {
  absl::string_view name;  // The last one given, as a parse keeps it.
  // The payloads of every `log` field, and of every `baseline` field: a
  // parse merges a message field given twice, which is parsing the two
  // payloads one after the other.
  std::vector<absl::string_view> log;
  std::vector<absl::string_view> baseline;
  std::string joined_log;  // The log's payloads joined, when more than one.

  absl::string_view Log() {
    if (log.size() <= 1) return log.empty() ? absl::string_view() : log[0];
    if (joined_log.empty()) {
      for (absl::string_view part : log) {
        joined_log.append(part.data(), part.size());
      }
    }
    return joined_log;
  }
};

// Splits the DiffLogInput of `bytes` into its fields; false for a field of
// another number or wire type, a name that is not UTF-8 (a parse fails on
// it) or bytes cut short.
bool SplitInput(absl::string_view bytes, InputFields& fields) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX - 1)) return false;
  CodedInputStream input(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                         static_cast<int>(bytes.size()));
  for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
       tag = replay::ReadParsedTag(input)) {
    if (tag != kNameTag && tag != kLogTag && tag != kBaselineTag) return false;
    int length = 0;
    if (!input.ReadVarintSizeAsInt(&length)) return false;
    const int start = input.CurrentPosition();
    if (!input.Skip(length)) return false;
    const absl::string_view payload = bytes.substr(start, length);
    if (tag == kNameTag) {
      if (!google::protobuf::internal::IsStructurallyValidUTF8(
              payload.data(), static_cast<int>(payload.size()))) {
        return false;
      }
      fields.name = payload;
    } else if (tag == kLogTag) {
      fields.log.push_back(payload);
    } else {
      fields.baseline.push_back(payload);
    }
  }
  return input.ConsumedEntireMessage() &&
         input.CurrentPosition() == static_cast<int>(bytes.size());
}

// Parses the baseline's payloads into `baseline` as a whole parse does;
// false when they do not parse or hold an enum number no value names.
bool ParseBaseline(const std::vector<absl::string_view>& payloads,
                   v1::AuditReport& baseline) {
  google::protobuf::LogSilencer silence;
  for (absl::string_view payload : payloads) {
    CodedInputStream input(
        reinterpret_cast<const std::uint8_t*>(payload.data()),
        static_cast<int>(payload.size()));
    input.SetRecursionLimit(kLogFieldsLimit);
    if (!baseline.MergePartialFromCodedStream(&input) ||
        !input.ConsumedEntireMessage() ||
        input.CurrentPosition() != static_cast<int>(payload.size())) {
      return false;
    }
  }
  return replay::KnownEnums::For(v1::AuditReport::descriptor())
      .AllKnown(baseline);
}

}  // namespace

bool SplitDiffRequest(google::protobuf::io::ZeroCopyInputStream& wire,
                      DiffRequestParts& parts) {
  CodedInputStream input(&wire);
  google::protobuf::io::StringOutputStream rest_stream(&parts.rest);
  google::protobuf::io::CodedOutputStream rest(&rest_stream);
  for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
       tag = replay::ReadParsedTag(input)) {
    if (tag == kLogsTag) {
      int length = 0;
      std::string& log = parts.logs.emplace_back();
      // ReadString takes the bytes as they come, so a length past the
      // request's end costs no more than the request holds.
      if (!input.ReadVarintSizeAsInt(&length) ||
          !input.ReadString(&log, length)) {
        return false;
      }
    } else if (!WireFormatLite::SkipField(&input, tag, &rest)) {
      // An unknown field is kept (and ignored), as a parse keeps it.
      return false;
    }
  }
  return input.ConsumedEntireMessage();
}

bool ParseDiffRequestParts(DiffRequestParts& parts, v1::DiffRequest& request) {
  // The bytes again, the logs after the other fields: the order of two
  // different fields changes nothing a parse gives.
  std::string bytes = std::move(parts.rest);
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    for (std::string& log : parts.logs) {
      out.WriteTag(kLogsTag);
      out.WriteVarint32(static_cast<std::uint32_t>(log.size()));
      out.WriteString(log);
      std::string().swap(log);
    }
  }
  parts.logs.clear();
  return request.ParseFromString(bytes);
}

bool DiffInputReadableFromBytes(absl::string_view input) {
  InputFields fields;
  if (!SplitInput(input, fields)) return false;
  if (!replay::ReadLogBytesHead(fields.Log(), kLogFieldsLimit).ok()) {
    return false;
  }
  v1::AuditReport baseline;
  return fields.baseline.empty() || ParseBaseline(fields.baseline, baseline);
}

v1::LogDiff DiffOfInputBytes(absl::string_view input, bool compare_to_baselines,
                             const replay::DiffRulesets& sides) {
  InputFields fields;
  std::optional<v1::AuditReport> baseline;
  absl::StatusOr<v1::LogDiff> diff =
      absl::FailedPreconditionError("the input does not split");
  if (SplitInput(input, fields)) {
    if (!fields.baseline.empty()) {
      baseline.emplace();
      if (!ParseBaseline(fields.baseline, *baseline)) baseline.reset();
    }
    const std::string name(fields.name);
    if (!compare_to_baselines) {
      diff = replay::DiffUnderRulesetsOfBytes(name, fields.Log(),
                                              kLogFieldsLimit, sides);
    } else if (fields.baseline.empty() || baseline.has_value()) {
      diff = replay::DiffAgainstBaselineOfBytes(
          name, fields.Log(), kLogFieldsLimit,
          baseline.has_value() ? &*baseline : nullptr, sides);
    }
  }
  if (diff.ok()) return *std::move(diff);
  // Not for bytes DiffInputReadableFromBytes read; for any others, the
  // input parsed whole, as deep in the request as it was.
  v1::DiffLogInput parsed;
  CodedInputStream whole(reinterpret_cast<const std::uint8_t*>(input.data()),
                         static_cast<int>(input.size()));
  whole.SetRecursionLimit(kInputFieldsLimit);
  parsed.MergePartialFromCodedStream(&whole);
  return replay::DiffOfInput(parsed, compare_to_baselines, sides);
}

}  // namespace gunbai::service
