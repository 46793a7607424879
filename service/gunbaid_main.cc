// gunbaid: the gunbai audit daemon. Serves gunbai.v1.AuditService (plus
// gRPC health checking and server reflection) on a TCP address until
// SIGTERM or SIGINT. See `gunbaid --help`.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "replay/ruleset_loader.h"
#include "service/audit_service.h"

namespace {

using ::gunbai::replay::LoadedRuleset;
using ::gunbai::service::AuditServiceImpl;

constexpr char kHelp[] = R"(gunbaid - the gunbai audit daemon

gunbaid keeps the Daimyo rules loaded and audits battle logs sent to it over
gRPC, so that many clients (the `gunbai audit --server` command, a tournament
web site, a scorer's script) share one process. It computes exactly the
report that `gunbai audit` computes locally.

It serves these gRPC services, in plaintext (no TLS):
  gunbai.v1.AuditService    AuditLog: audit an inline battle log
  grpc.health.v1.Health     Check: SERVING while the daemon runs
  server reflection         so grpcurl and grpc_cli can list the services

Usage: gunbaid [--listen HOST:PORT] [--max-message-bytes N] [--ruleset FILE]

Flags (write --flag=value or --flag value):
  --listen HOST:PORT       Address to listen on. Default 127.0.0.1:50051,
                           which only this machine can reach; use
                           0.0.0.0:PORT to serve the network. Port 0 picks a
                           free port. On start gunbaid prints one line,
                           "gunbaid listening on HOST:PORT", with the real
                           port.
  --max-message-bytes N    Largest request or reply, in bytes, in both
                           directions. Default 67108864 (64 MiB). A bigger
                           log is refused with RESOURCE_EXHAUSTED.
  --ruleset FILE           Audit under this ruleset file (text format of
                           gunbai.v1.Ruleset) instead of the built-in Daimyo
                           ruleset. A request may still send its own.
  --help                   Show this text.

Example:
  gunbaid --listen 127.0.0.1:50051 &
  gunbai audit --server 127.0.0.1:50051 battle.textproto
  grpcurl -plaintext 127.0.0.1:50051 grpc.health.v1.Health/Check

SIGTERM or SIGINT (Ctrl-C) shuts the daemon down cleanly: calls in flight get
a few seconds to finish, then it exits 0. Exit status 2 means bad flags, an
unreadable ruleset or an address it cannot listen on.
)";

constexpr int kDefaultMaxMessageBytes = 64 << 20;
constexpr int kShutdownGraceSeconds = 5;

struct Options {
  std::string listen = "127.0.0.1:50051";
  int max_message_bytes = kDefaultMaxMessageBytes;
  std::string ruleset_path;
  bool help = false;
};

// Returns whether `flag` is one of gunbaid's flags, all of which take a
// value.
bool IsKnownFlag(absl::string_view flag) {
  return flag == "--listen" || flag == "--max-message-bytes" ||
         flag == "--ruleset";
}

// Sets the option named `flag` to `value`. Returns InvalidArgument for an
// unknown flag or a bad value.
absl::Status SetOption(absl::string_view flag, absl::string_view value,
                       Options& options) {
  if (flag == "--listen") {
    if (value.empty() || !absl::StrContains(value, ':')) {
      return absl::InvalidArgumentError(
          absl::StrCat("--listen wants HOST:PORT, e.g. 127.0.0.1:50051; got \"",
                       value, "\"."));
    }
    options.listen = std::string(value);
  } else if (flag == "--max-message-bytes") {
    int n = 0;
    if (!absl::SimpleAtoi(value, &n) || n <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--max-message-bytes wants a number of bytes from 1 to ",
                       INT_MAX, "; got \"", value, "\"."));
    }
    options.max_message_bytes = n;
  } else if (flag == "--ruleset") {
    if (value.empty()) {
      return absl::InvalidArgumentError("--ruleset wants a file name.");
    }
    options.ruleset_path = std::string(value);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag ", flag, "."));
  }
  return absl::OkStatus();
}

// Parses the command line. Returns InvalidArgument for an unknown flag, a
// flag without its value, a bad value or a stray argument.
absl::StatusOr<Options> ParseFlags(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument \"", arg, "\"."));
    }
    absl::string_view flag = arg;
    absl::string_view value;
    if (const auto eq = arg.find('='); eq != absl::string_view::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (!IsKnownFlag(flag)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag ", flag, "."));
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value."));
    }
    absl::Status s = SetOption(flag, value, options);
    if (!s.ok()) return s;
  }
  return options;
}

// Returns the built-in Daimyo ruleset, or the one in the file at `path`
// when it is not empty. Returns NotFound when the file cannot be read and
// InvalidArgument when it is not a valid ruleset.
absl::StatusOr<LoadedRuleset> LoadDefaultRuleset(const std::string& path) {
  if (path.empty()) return gunbai::replay::BuiltinDaimyoRuleset();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the ruleset file ", path,
                     "; check the path given to --ruleset."));
  }
  return gunbai::replay::LoadRuleset(text.str(), path);
}

// Blocks SIGTERM and SIGINT in this thread and every thread it starts
// later, so that only sigwait in main sees them. Returns the set.
sigset_t BlockShutdownSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Returns `listen` with its port replaced by `port`.
std::string BoundAddress(const std::string& listen, int port) {
  return absl::StrCat(listen.substr(0, listen.rfind(':')), ":", port);
}

// Starts the server on `options.listen`. Returns Unavailable naming the
// address when it cannot be bound. `port` receives the bound port.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartServer(
    const Options& options, AuditServiceImpl& service, int& port) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // Refuse a port another process (another gunbaid) already listens on.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", options.listen,
        ": the address is in use, not of this machine, or not HOST:PORT; "
        "pick another with --listen (port 0 picks a free port)."));
  }
  return server;
}

// Prints `status` as gunbaid's error, with `hint` on a line of its own
// when not empty, and returns the exit code for bad usage.
int Fail(const absl::Status& status, absl::string_view hint = {}) {
  std::fprintf(stderr, "gunbaid: %s\n", std::string(status.message()).c_str());
  if (!hint.empty()) std::fprintf(stderr, "%s\n", std::string(hint).c_str());
  return 2;
}

// Waits for SIGTERM or SIGINT, then stops `server`, giving calls in flight
// a few seconds.
void ServeUntilSignalled(grpc::Server& server, const sigset_t& signals) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::fputs("gunbaid: shutting down\n", stderr);
  server.Shutdown(std::chrono::system_clock::now() +
                  std::chrono::seconds(kShutdownGraceSeconds));
}

}  // namespace

int main(int argc, char** argv) {
  const sigset_t signals = BlockShutdownSignals();
  absl::StatusOr<Options> options = ParseFlags(argc, argv);
  if (!options.ok()) {
    return Fail(options.status(), "Run `gunbaid --help` for the flags.");
  }
  if (options->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  absl::StatusOr<LoadedRuleset> ruleset =
      LoadDefaultRuleset(options->ruleset_path);
  if (!ruleset.ok()) return Fail(ruleset.status());
  AuditServiceImpl service(*std::move(ruleset));
  int port = 0;
  auto server = StartServer(*options, service, port);
  if (!server.ok()) return Fail(server.status());
  std::printf("gunbaid listening on %s\n",
              BoundAddress(options->listen, port).c_str());
  std::fflush(stdout);
  ServeUntilSignalled(**server, signals);
  return 0;
}
