// What the CLI commands read the same way: input files (bounded in size)
// and the credential for a gunbaid.
#ifndef GUNBAI_SERVICE_CLI_CLI_INPUT_H_
#define GUNBAI_SERVICE_CLI_CLI_INPUT_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"

namespace gunbai::service {

// Returns the whole file at `path` ("-": standard input), without a UTF-8
// byte-order mark at its start. NotFound naming the path when it cannot be
// opened; InvalidArgument naming it when it is a folder, is empty, or is
// larger than the largest accepted log (replay::kMaxLogBytes).
absl::StatusOr<std::string> ReadInputFile(const std::string& path);

// Writes `text` to `path` whole or not at all: into PATH.tmp, then renamed
// (-o of the commands that write a report or a log).
absl::Status WriteOutputFile(const std::string& path, const std::string& text);

// The ruleset a command's --ruleset FILE names, or when `ruleset_path` is
// empty the built-in one `log`'s header names (gunbai reconcile, remedy).
absl::StatusOr<replay::LoadedRuleset> RulesetFileOrBuiltin(
    const std::string& ruleset_path, const gunbai::v1::BattleLog& log);

// Returns true when the file at `path` can be audited as a stream of binary
// events: a regular file (not standard input or a pipe, which cannot be read
// twice) of at most replay::kMaxLogBytes that ParseBattleLog would read as
// binary under `format` (kBinary, or kAuto and its first bytes say binary).
// Reads at most replay::kFormatSniffBytes of it.
bool IsBinaryLogFile(const std::string& path, replay::LogFormat format);

// Opens the file at `path` for reading from its start, in blocks, without
// reading it whole. Returns null when it cannot be opened.
std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> OpenFileStream(
    const std::string& path);

// The file name extensions of battle logs a folder is searched for.
inline constexpr std::initializer_list<const char*> kLogExtensions = {
    ".textproto", ".txtpb", ".pbtxt", ".json", ".pb", ".binpb"};

// Returns `paths` in the order given with each folder replaced by the
// files under it (searched recursively) whose extension, in any case, is
// one of `extensions`, in byte order of their paths. A path that is not a
// folder is kept as given, so that reading it fails with its name.
std::vector<std::string> ExpandFolders(
    const std::vector<std::string>& paths,
    std::initializer_list<const char*> extensions);

// Returns the credential from `token_file` when set, else from the
// environment variable GUNBAI_TOKEN, without surrounding whitespace.
// InvalidArgument saying `what_for` needs it when there is none.
absl::StatusOr<std::string> ClientToken(const std::string& token_file,
                                        absl::string_view what_for);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_CLI_INPUT_H_
