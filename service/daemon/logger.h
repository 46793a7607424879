// gunbaid's log: one JSON object a line on stderr, with the time, the
// level, a message and fields:
//   {"time":"2026-12-02T20:01:02.345Z","level":"info","msg":"request",
//    "request_id":"r1","method":"/gunbai.v1.GameService/AppendEvents",...}
// Lines below the process's level (SetLogLevel, gunbaid --log-level) are
// dropped. Callers never pass a credential, a password or a request body.
//
// Thread-safe: lines written at once from several threads never mix.
#ifndef GUNBAI_SERVICE_DAEMON_LOGGER_H_
#define GUNBAI_SERVICE_DAEMON_LOGGER_H_

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "absl/strings/string_view.h"

namespace gunbai::service {

// From the most to the least severe; a level shows the lines of its own
// and every more severe one.
enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// Returns the level named `name` ("error", "warn", "info", "debug") in
// `level`; false for any other name.
bool ParseLogLevel(absl::string_view name, LogLevel& level);
absl::string_view LogLevelName(LogLevel level);

// Sets the process's level (default kInfo).
void SetLogLevel(LogLevel level);
// Returns whether a line at `level` is written.
bool LogEnabled(LogLevel level);

// Sends the lines to `out` instead of stderr (null: back to stderr); for
// tests. Not to be called while others log.
void SetLogOutput(std::FILE* out);

// One field of a line: its key and its value, already JSON (a string
// value is quoted and escaped by the constructor).
class LogField {
 public:
  LogField(absl::string_view key, absl::string_view value);
  LogField(absl::string_view key, const char* value)
      : LogField(key, absl::string_view(value)) {}
  LogField(absl::string_view key, const std::string& value)
      : LogField(key, absl::string_view(value)) {}
  LogField(absl::string_view key, std::int64_t value);
  LogField(absl::string_view key, int value)
      : LogField(key, static_cast<std::int64_t>(value)) {}
  // A number with three decimals (milliseconds to the microsecond).
  LogField(absl::string_view key, double value);

  const std::string& key() const { return key_; }
  const std::string& json() const { return json_; }

 private:
  std::string key_;
  std::string json_;
};

// Writes one line at `level` with `message` and `fields` (in order, after
// time, level and msg) when the level is enabled.
void Log(LogLevel level, absl::string_view message,
         std::initializer_list<LogField> fields = {});

// Sends gRPC's own log lines (gpr_log) through Log: its debug lines at
// debug, info at info, errors at error, each with its file and line. Call
// once, before serving.
void RouteGrpcLogs();

// Returns the line Log would write at `level`, without its newline.
std::string LogLine(LogLevel level, absl::string_view message,
                    std::initializer_list<LogField> fields);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_LOGGER_H_
