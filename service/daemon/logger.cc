#include "service/daemon/logger.h"

#include <atomic>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpc/support/log.h"
#include "rules/text_escape.h"

namespace gunbai::service {

using ::gunbai::base::JsonString;

namespace {

std::atomic<int> log_level{static_cast<int>(LogLevel::kInfo)};
std::atomic<std::FILE*> log_output{nullptr};

absl::Mutex& WriteMutex() {
  static auto* const kMutex = new absl::Mutex();
  return *kMutex;
}

}  // namespace

bool ParseLogLevel(absl::string_view name, LogLevel& level) {
  for (LogLevel each :
       {LogLevel::kError, LogLevel::kWarn, LogLevel::kInfo, LogLevel::kDebug}) {
    if (name == LogLevelName(each)) {
      level = each;
      return true;
    }
  }
  return false;
}

absl::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError:
      return "error";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
  }
  return "info";
}

void SetLogLevel(LogLevel level) {
  log_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) <= log_level.load(std::memory_order_relaxed);
}

void SetLogOutput(std::FILE* out) { log_output.store(out); }

LogField::LogField(absl::string_view key, absl::string_view value)
    : key_(key), json_(JsonString(value)) {}

LogField::LogField(absl::string_view key, std::int64_t value)
    : key_(key), json_(absl::StrCat(value)) {}

LogField::LogField(absl::string_view key, double value)
    : key_(key),
      json_(std::isfinite(value) ? absl::StrFormat("%.3f", value) : "null") {}

std::string LogLine(LogLevel level, absl::string_view message,
                    std::initializer_list<LogField> fields) {
  std::string line = absl::StrCat(
      "{\"time\":",
      JsonString(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(),
                                  absl::UTCTimeZone())),
      ",\"level\":\"", LogLevelName(level), "\",\"msg\":", JsonString(message));
  for (const LogField& field : fields) {
    absl::StrAppend(&line, ",", JsonString(field.key()), ":", field.json());
  }
  line.push_back('}');
  return line;
}

void Log(LogLevel level, absl::string_view message,
         std::initializer_list<LogField> fields) {
  if (!LogEnabled(level)) return;
  std::string line = LogLine(level, message, fields);
  line.push_back('\n');
  std::FILE* out = log_output.load();
  if (out == nullptr) out = stderr;
  absl::MutexLock lock(&WriteMutex());
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

void RouteGrpcLogs() {
  gpr_set_log_function([](gpr_log_func_args* args) {
    const LogLevel level =
        args->severity == GPR_LOG_SEVERITY_ERROR  ? LogLevel::kError
        : args->severity == GPR_LOG_SEVERITY_INFO ? LogLevel::kInfo
                                                  : LogLevel::kDebug;
    Log(level, args->message == nullptr ? "" : args->message,
        {{"source", "grpc"},
         {"file", args->file == nullptr ? "" : args->file},
         {"line", args->line}});
  });
  // gRPC drops lines below its own verbosity (GRPC_VERBOSITY, ERROR by
  // default) before they reach the function.
}

}  // namespace gunbai::service
