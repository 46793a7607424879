// What the CLI commands read the same way: input files (bounded in size)
// and the credential for a gunbaid.
#ifndef GUNBAI_SERVICE_CLI_INPUT_H_
#define GUNBAI_SERVICE_CLI_INPUT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gunbai::service {

// Returns the whole file at `path` ("-": standard input). NotFound naming
// the path when it cannot be opened; InvalidArgument when it is larger than
// the largest accepted log (replay::kMaxLogBytes).
absl::StatusOr<std::string> ReadInputFile(const std::string& path);

// Returns the credential from `token_file` when set, else from the
// environment variable GUNBAI_TOKEN, without surrounding whitespace.
// InvalidArgument saying `what_for` needs it when there is none.
absl::StatusOr<std::string> ClientToken(const std::string& token_file,
                                        absl::string_view what_for);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_INPUT_H_
