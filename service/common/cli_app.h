// What the command lines of `gunbai` and `gunbaid` share, on CLI11: the
// options every client command takes the same way (--server, --tls-ca,
// enumerated values), running a parse with gunbai's exit codes, the
// --version text, and the man page and bash completion written from the
// same definitions as --help. CLI11 reports a bad command line by throwing;
// RunParsed is the one place that catches it. Thread-compatible.
#ifndef GUNBAI_SERVICE_COMMON_CLI_APP_H_
#define GUNBAI_SERVICE_COMMON_CLI_APP_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gunbai::service {

// Where a command's results and errors go and the exit code it left.
struct CliContext {
  std::ostream& out;
  std::ostream& err;
  int code = 0;
  // Set when --help or --version was printed: nothing more to do.
  bool done = false;
};

// Gives `app` (call before adding its commands, which inherit it) gunbai's
// help layout: the whole command path in the usage line, descriptions
// wrapped to 80 columns.
void UseGunbaiHelpFormat(CLI::App& app);

// Adds `--server=HOST:PORT` storing into `server`; an empty value or one
// without a port is a usage error. `what` says what the daemon does.
CLI::Option* AddServerOption(CLI::App& app, std::string& server,
                             const std::string& what);

// Adds `--tls-ca=FILE` storing into `tls_ca`: the PEM certificate (or CA)
// a gunbaid started with --tls-cert presents.
CLI::Option* AddTlsCaOption(CLI::App& app, std::string& tls_ca);

// Adds `--NAME=VALUE` storing into `value`, whose valid values are
// `choices`; another value is a usage error that lists them.
CLI::Option* AddChoiceOption(CLI::App& app, const std::string& name,
                             std::string& value,
                             const std::vector<std::string>& choices,
                             const std::string& description);

// Parses `args` (without the program name) with `app` and runs the
// callback of the command they select. Returns that command's exit code
// (`context.code`), 0 after --help or --version (printed to
// `context.out`), or 2 after a usage error, which is printed to
// `context.err` with the command's name and how to get its help.
int RunParsed(CLI::App& app, const std::vector<std::string>& args,
              CliContext& context);

// Returns the text of `--version` for `program`: gunbai's version, the
// built-in rulesets and their digests, and the gRPC, protobuf and CLI11
// versions it was built with.
std::string VersionText(absl::string_view program);

// Returns a man page (roff, man(7) macros) of `app` and every command under
// it, in manual `section`: the same descriptions, options and footers as
// --help. Deterministic: no date.
std::string ManPage(const CLI::App& app, int section);

// Returns a bash completion script for `app`: command names, option names
// and the valid values of enumerated options.
std::string BashCompletion(const CLI::App& app);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_COMMON_CLI_APP_H_
