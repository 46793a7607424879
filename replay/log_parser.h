// Parses a battle log from bytes in any of its three encodings: protobuf
// text format, JSON (proto3 mapping) or binary. No I/O: the caller reads the
// file. Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_LOG_PARSER_H_
#define GUNBAI_REPLAY_LOG_PARSER_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"

namespace gunbai::replay {

enum class LogFormat { kAuto, kText, kJson, kBinary };

// The largest log accepted, in bytes (256 MiB).
inline constexpr std::size_t kMaxLogBytes = std::size_t{256} << 20;

// Returns the format named by a file name's extension (.textproto, .txtpb,
// .pbtxt, .json, .pb, .binpb), or kAuto when it names none.
LogFormat FormatFromFileName(absl::string_view file_name);

// The bytes at the start of an input that kAuto looks at to tell binary
// from text.
inline constexpr std::size_t kFormatSniffBytes = 4096;

// Returns the format kAuto reads an input as, from its first bytes
// `prefix`: JSON when it starts with '{' after whitespace, binary when its
// first kFormatSniffBytes bytes hold a control character other than
// whitespace, else text. `whole_input`: `prefix` is the whole input.
// Returns kAuto when a prefix that is not the whole input cannot tell (it
// is whitespace only, or shorter than kFormatSniffBytes).
LogFormat SniffLogFormat(absl::string_view prefix, bool whole_input);

// Parses `bytes`. With kAuto, JSON is recognised by a leading '{', text
// format is tried next and binary last. `source_name` names the input in
// errors. Returns InvalidArgument naming the line and column of a text or
// JSON error, or saying which format was expected, or naming an enum field
// that holds a number its type has no value for.
absl::StatusOr<gunbai::v1::BattleLog> ParseBattleLog(
    absl::string_view bytes, LogFormat format, absl::string_view source_name);

// Parses an exported live game (gunbai.v1.ExportedGame), as ParseBattleLog
// does a log, the format taken from the file name's extension or content.
absl::StatusOr<gunbai::v1::ExportedGame> ParseExportedGame(
    absl::string_view bytes, absl::string_view source_name);

// Parses any message the way ParseBattleLog parses a log.
absl::Status ParseMessage(absl::string_view bytes, LogFormat format,
                          absl::string_view source_name,
                          google::protobuf::Message& message);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_LOG_PARSER_H_
