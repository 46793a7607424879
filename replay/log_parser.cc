#include "replay/log_parser.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "replay/text_errors.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

namespace {

using gunbai::v1::BattleLog;

// Returns 1-based line and column of byte `offset` in `text`.
std::pair<int, int> LineColumn(absl::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

// Returns protobuf's own error message with what it quotes of the input
// kept short: it quotes a bad token or field name in full.
std::string ParserMessage(absl::string_view message) {
  return Excerpt(message, 2 * kMaxQuotedBytes);
}

absl::Status ParseText(absl::string_view bytes, absl::string_view source,
                       google::protobuf::Message& log) {
  google::protobuf::TextFormat::Parser parser;
  FirstTextError errors;
  parser.RecordErrorsTo(&errors);
  google::protobuf::io::ArrayInputStream input(bytes.data(),
                                               static_cast<int>(bytes.size()));
  if (!parser.Parse(&input, &log)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ":", errors.line(), ":", errors.column(), ": ",
                     ParserMessage(errors.message()),
                     " (reading the log as protobuf text format)"));
  }
  return CheckTextUtf8(bytes, log, source,
                       "reading the log as protobuf text format");
}

// Returns the offset of the first character at or after `at` that is not
// JSON whitespace.
std::size_t SkipJsonSpace(absl::string_view json, std::size_t at) {
  while (at < json.size() && absl::ascii_isspace(json[at])) ++at;
  return at;
}

// Returns the offset just past the JSON value that starts at `at` (a
// string, an object or array with everything in it, or a literal).
std::size_t SkipJsonValue(absl::string_view json, std::size_t at) {
  at = SkipJsonSpace(json, at);
  int depth = 0;
  for (; at < json.size(); ++at) {
    const char c = json[at];
    if (c == '"') {
      for (++at; at < json.size() && json[at] != '"'; ++at) {
        if (json[at] == '\\') ++at;
      }
      if (depth == 0) return at + 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return at;
      if (--depth == 0) return at + 1;
    } else if (depth == 0 && (c == ',' || absl::ascii_isspace(c))) {
      return at;
    }
  }
  return at;
}

// Returns `name` in lowerCamelCase, as JSON may spell a proto field.
std::string LowerCamel(absl::string_view name) {
  std::string camel;
  bool upper = false;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    camel += upper ? absl::ascii_toupper(c) : c;
    upper = false;
  }
  return camel;
}

// Finds the key of the field a protobuf JSON error's path names
// ("events[3].seq") in `json`: each key searched for after the one before
// it (by its proto or its JSON name), each [i] counted out in its array.
// Returns npos when a step is not found.
std::size_t JsonPathOffset(absl::string_view json, absl::string_view path) {
  std::size_t at = 0;
  std::size_t key = absl::string_view::npos;
  for (absl::string_view step : absl::StrSplit(path, '.')) {
    const std::size_t bracket = step.find('[');
    const absl::string_view name = step.substr(0, bracket);
    const std::size_t proto = json.find(absl::StrCat("\"", name, "\""), at);
    const std::size_t camel =
        json.find(absl::StrCat("\"", LowerCamel(name), "\""), at);
    key = std::min(proto, camel);
    if (key == absl::string_view::npos) return key;
    at = json.find(':', key);
    if (at == absl::string_view::npos) return at;
    ++at;
    for (absl::string_view rest = step.substr(std::min(bracket, step.size()));
         absl::ConsumePrefix(&rest, "[");) {
      const std::size_t close = rest.find(']');
      int index = 0;
      if (close == absl::string_view::npos ||
          !absl::SimpleAtoi(rest.substr(0, close), &index)) {
        return absl::string_view::npos;
      }
      rest.remove_prefix(close + 1);
      at = SkipJsonSpace(json, at);
      if (at >= json.size() || json[at] != '[') return absl::string_view::npos;
      ++at;
      for (int i = 0; i < index; ++i) {
        at = SkipJsonSpace(json, SkipJsonValue(json, at));
        if (at >= json.size() || json[at] != ',') {
          return absl::string_view::npos;
        }
        ++at;
      }
      key = SkipJsonSpace(json, at);
    }
  }
  return key;
}

// Finds where in `bytes` protobuf 3.21's JSON error points. Syntax errors
// carry an excerpt of the input and a caret line; field errors name the
// field. Returns npos when neither can be placed.
std::size_t JsonErrorOffset(absl::string_view bytes,
                            absl::string_view message) {
  const std::size_t nl = message.find('\n');
  if (nl != absl::string_view::npos) {
    const std::size_t nl2 = message.find('\n', nl + 1);
    if (nl2 != absl::string_view::npos) {
      const absl::string_view excerpt = message.substr(nl + 1, nl2 - nl - 1);
      const std::size_t caret = message.find('^', nl2 + 1);
      const std::size_t at = bytes.find(excerpt);
      if (at != absl::string_view::npos && caret != absl::string_view::npos) {
        return at + (caret - nl2 - 1);
      }
    }
    return absl::string_view::npos;
  }
  // "(events[3].seq): invalid value ..." (a value of the wrong type).
  if (absl::StartsWith(message, "(")) {
    const std::size_t end = message.find("): ");
    if (end != absl::string_view::npos) {
      return JsonPathOffset(bytes, message.substr(1, end - 1));
    }
  }
  // "(path) name: Cannot find field." and the like.
  const std::size_t close = message.find(") ");
  const std::size_t colon = message.find(':', close);
  if (close == absl::string_view::npos || colon == absl::string_view::npos) {
    return absl::string_view::npos;
  }
  const std::string quoted =
      absl::StrCat("\"", message.substr(close + 2, colon - close - 2), "\"");
  return bytes.find(quoted);
}

absl::Status ParseJson(absl::string_view bytes, absl::string_view source,
                       google::protobuf::Message& log) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(bytes.data(), bytes.size()), &log, options);
  if (status.ok()) {
    return CheckUtf8(log, nullptr, source, "reading the log as JSON");
  }
  const std::string message(status.message());
  const std::size_t offset = JsonErrorOffset(bytes, message);
  const std::string first_line =
      ParserMessage(absl::string_view(message).substr(0, message.find('\n')));
  if (offset == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", first_line, " (reading the log as JSON)"));
  }
  const auto [line, column] = LineColumn(bytes, offset);
  return absl::InvalidArgumentError(absl::StrCat(source, ":", line, ":", column,
                                                 ": ", first_line,
                                                 " (reading the log as JSON)"));
}

absl::Status ParseBinary(absl::string_view bytes, absl::string_view source,
                         google::protobuf::Message& log) {
  // Our error says what is wrong; protobuf's own log line (invalid UTF-8 in
  // a string field, say) would only repeat it on stderr.
  google::protobuf::LogSilencer silence;
  if (!log.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": not a valid binary ", log.GetDescriptor()->full_name(),
        "; "
        "name a text or JSON log with --input-format or its file "
        "extension"));
  }
  return absl::OkStatus();
}

bool LooksBinary(absl::string_view bytes) {
  return std::any_of(
      bytes.begin(),
      bytes.begin() + std::min<std::size_t>(bytes.size(), kFormatSniffBytes),
      [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 && c != '\n' && c != '\r' && c != '\t';
      });
}

// Parses `bytes` as `format`; kAuto as SniffLogFormat says.
absl::Status ParseAs(absl::string_view bytes, LogFormat format,
                     absl::string_view source_name,
                     google::protobuf::Message& message) {
  if (format == LogFormat::kAuto) {
    format = SniffLogFormat(bytes, /*whole_input=*/true);
  }
  switch (format) {
    case LogFormat::kJson:
      return ParseJson(bytes, source_name, message);
    case LogFormat::kBinary:
      return ParseBinary(bytes, source_name, message);
    case LogFormat::kText:
    case LogFormat::kAuto:
      break;
  }
  return ParseText(bytes, source_name, message);
}

}  // namespace

LogFormat SniffLogFormat(absl::string_view prefix, bool whole_input) {
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(prefix);
  if (!whole_input && (trimmed.empty() || prefix.size() < kFormatSniffBytes)) {
    return LogFormat::kAuto;
  }
  if (!trimmed.empty() && trimmed.front() == '{') return LogFormat::kJson;
  return LooksBinary(prefix) ? LogFormat::kBinary : LogFormat::kText;
}

LogFormat FormatFromFileName(absl::string_view file_name) {
  const std::string lower = absl::AsciiStrToLower(file_name);
  for (absl::string_view ext : {".textproto", ".txtpb", ".pbtxt", ".txt"}) {
    if (absl::EndsWith(lower, ext)) return LogFormat::kText;
  }
  if (absl::EndsWith(lower, ".json")) return LogFormat::kJson;
  for (absl::string_view ext : {".binpb", ".pb", ".bin"}) {
    if (absl::EndsWith(lower, ext)) return LogFormat::kBinary;
  }
  return LogFormat::kAuto;
}

absl::Status ParseMessage(absl::string_view bytes, LogFormat format,
                          absl::string_view source_name,
                          google::protobuf::Message& message) {
  if (bytes.size() > kMaxLogBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": the input is ", bytes.size(),
                     " bytes; the largest accepted is ", kMaxLogBytes,
                     ". Split the game into several logs."));
  }
  GUNBAI_RETURN_IF_ERROR(ParseAs(bytes, format, source_name, message));
  // A number no enum value has means nothing to gunbai, nor to gunbaid,
  // which refuses it too.
  return CheckKnownEnums(message, source_name);
}

absl::StatusOr<BattleLog> ParseBattleLog(absl::string_view bytes,
                                         LogFormat format,
                                         absl::string_view source_name) {
  BattleLog log;
  GUNBAI_RETURN_IF_ERROR(ParseMessage(bytes, format, source_name, log));
  return log;
}

absl::StatusOr<gunbai::v1::ExportedGame> ParseExportedGame(
    absl::string_view bytes, absl::string_view source_name) {
  gunbai::v1::ExportedGame game;
  absl::Status s =
      ParseMessage(bytes, FormatFromFileName(source_name), source_name, game);
  if (!s.ok()) return s;
  return game;
}

}  // namespace gunbai::replay
