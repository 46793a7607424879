// gunbaid: the gunbai audit daemon. Serves gunbai.v1.AuditService and, with
// an umpire credential, gunbai.v1.GameService (live games in an SQLite
// store), plus gRPC health checking and server reflection, and with --http
// the same API as JSON over HTTP and the web app, until SIGTERM or SIGINT.
// See `gunbaid --help`.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "replay/explain.h"
#include "replay/ruleset_loader.h"
#include "replay/signed_note.h"
#include "rules/status_macros.h"
#include "service/common/cli_app.h"
#include "service/common/grpc_shutdown.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/auth.h"
#include "service/daemon/decode_errors.h"
#include "service/daemon/game_service.h"
#include "service/daemon/http_gateway.h"
#include "service/daemon/log_service.h"
#include "service/daemon/logger.h"
#include "service/daemon/metrics.h"
#include "service/daemon/overload.h"
#include "service/daemon/request_observer.h"
#include "service/daemon/rules_service.h"
#include "service/daemon/store_health.h"
#include "service/store/store_uri.h"

namespace {

using ::gunbai::replay::LoadedRuleset;
using ::gunbai::service::AuditServiceImpl;
using ::gunbai::service::GameServiceImpl;

constexpr char kDescription[] = R"(the gunbai audit daemon

gunbaid keeps the Daimyo rules loaded and audits battle logs sent to it over
gRPC, so that many clients (the `gunbai audit --server` command, a tournament
web site, a scorer's script) share one process. It computes exactly the
report that `gunbai audit` computes locally.

It serves these gRPC services:
  gunbai.v1.AuditService    AuditLog: audit an inline battle log;
                            AuditLogStream: the same report in pieces, the
                            outcomes sent as they are worked out (what
                            `gunbai audit --server` calls)
  gunbai.v1.GameService     live games for play-by-email: create a game,
                            append turns (checked on arrival), read, watch,
                            audit and export them, list what a clan may do
                            now; dice rolled by gunbaid if the game wants. Served when an umpire credential
                            is given (--umpire-token-file or the environment
                            variable GUNBAI_UMPIRE_TOKEN).
  gunbai.v1.RulesService    ExplainRule: a rule id's reading, as `gunbai
                            explain`; DescribeRulesets: the rulesets and
                            the schema's enums, for clients that build logs
  gunbai.v1.LogService      ParseLog: a log file read in any format;
                            LogStates: every unit's state after each event;
                            DrawMap: the table after an event, as SVG
  grpc.health.v1.Health     Check: for "" (the daemon: liveness) SERVING
                            while it runs; for "gunbai.v1.GameService"
                            (readiness) NOT_SERVING while the store fails
                            (asked every second then), SERVING again once
                            it answers
  server reflection         so grpcurl and grpc_cli can list the services

With --http it also serves every API as JSON over HTTP (HTTPS with
--tls-cert), and the web app at /: POST /v1/audit:log, /v1/audit:logStream,
/v1/audit:diff, /v1/audit:diceStats, /v1/games:create, /v1/games:append,
/v1/games:read, /v1/games:state, /v1/games:proof, /v1/games:audit, /v1/games:watch,
/v1/games:export, /v1/games:list, /v1/games:legalActions,
/v1/rules:explain, /v1/rulesets:describe, /v1/logs:parse, /v1/logs:states.
A body is the request message in the proto3 JSON mapping, the answer the
response message (streams as server-sent events), the credential the header
"Authorization: Bearer TOKEN"; an error is {"code", "status", "message"} under the HTTP status of
its gRPC code. Every call goes through the gRPC server, with its checks and
limits.)";

constexpr char kFooter[] =
    R"(Observability: with --http, GET /metrics answers Prometheus metrics (RPCs
by transport, method and code with latency histograms, appends, events
replayed, findings by rule, games cached, store errors). stderr is JSON
lines: one per RPC at info (request_id, from an x-request-id header or
metadata, else generated; transport; method; game_id; code; latency_ms),
never a credential or a body. See "Observability" in deploy/README.md.

Overload: beyond a limit a call gets RESOURCE_EXHAUSTED at once, saying
which limit; memory stays bounded.

Example:
  gunbaid --listen 127.0.0.1:50051 --http 127.0.0.1:8080 &
  gunbai audit --server 127.0.0.1:50051 battle.textproto
  curl -H 'Content-Type: application/json' -d '{"log": {...}}' \
    http://127.0.0.1:8080/v1/audit:log
  grpcurl -plaintext 127.0.0.1:50051 grpc.health.v1.Health/Check

SIGTERM or SIGINT (Ctrl-C) shuts the daemon down cleanly: calls in flight get
a few seconds to finish, then it exits 0. Exit status 2 means bad flags, an
unreadable ruleset or an address it cannot listen on.)";

constexpr int kDefaultMaxMessageBytes = 64 << 20;

// The live-games service's name in the health service: its health is the
// store's (WatchStoreHealth).
constexpr absl::string_view kGameServiceName = "gunbai.v1.GameService";
constexpr int kShutdownGraceSeconds = 5;

struct Options {
  std::string listen = "127.0.0.1:50051";
  std::string http;
  int max_message_bytes = kDefaultMaxMessageBytes;
  std::string ruleset_path;
  std::string data_dir = "gunbai-data";
  std::string store;
  std::string store_password_file;
  std::string umpire_token_file;
  std::string signing_key_file;
  std::string tls_cert;
  std::string tls_key;
  bool allow_remote_plaintext = false;
  // Overload limits (see the descriptions in DefineFlags).
  std::int64_t max_threads = 64;
  std::int64_t memory_quota_bytes = std::int64_t{1} << 30;
  std::int64_t max_inflight_request_bytes =
      gunbai::service::kDefaultMaxInflightRequestBytes;
  std::int64_t max_streams_per_connection = 32;
  std::int64_t max_watchers = gunbai::service::kDefaultMaxWatchers;
  std::int64_t max_watchers_per_game =
      gunbai::service::kDefaultMaxWatchersPerGame;
  std::int64_t max_cached_games = gunbai::service::kDefaultMaxCachedGames;
  std::int64_t checkpoint_every = gunbai::service::kDefaultCheckpointEvery;
  std::int64_t keepalive_ms = 60000;
  std::int64_t keepalive_timeout_ms = 20000;
  std::int64_t min_client_ping_interval_ms = 10000;
  std::int64_t http_request_deadline_ms = 30000;
  std::int64_t http_max_connections = 1024;
  std::int64_t http_max_connections_per_address = 64;
  std::string log_level = "info";
};

// A flag taking a whole number from `min` to `max`.
struct NumberFlag {
  const char* name;
  std::int64_t min;
  std::int64_t max;
  std::int64_t Options::*field;
  const char* description;
};

constexpr std::int64_t kMaxMillis = std::int64_t{24} * 3600 * 1000;

constexpr NumberFlag kNumberFlags[] = {
    {"--max-threads", 4, 10000, &Options::max_threads,
     "Threads serving calls, gRPC's resource quota. Default 64. Each watch "
     "holds one."},
    {"--memory-quota-bytes", 1 << 20, std::int64_t{1} << 40,
     &Options::memory_quota_bytes,
     "gRPC's memory quota for connection buffers; over it gRPC shrinks windows "
     "and then cancels the calls of the largest users. Default 1073741824."},
    {"--max-inflight-request-bytes", 1, std::int64_t{1} << 40,
     &Options::max_inflight_request_bytes,
     "Requests worked on at once (AuditLog, Diff, DiceStats, CreateGame, "
     "AppendEvents), summed by their encoded size; one request is always "
     "served when it is alone. Default 134217728 (128 MiB)."},
    {"--max-streams-per-connection", 1, 1 << 20,
     &Options::max_streams_per_connection,
     "Calls at once on one client connection. Default 32."},
    {"--max-watchers", 1, 5000, &Options::max_watchers,
     "Live-game watches at once, in all. Default 32; at most half of "
     "--max-threads."},
    {"--max-watchers-per-game", 1, 5000, &Options::max_watchers_per_game,
     "Watches of one game at once. Default 8."},
    {"--max-cached-games", 0, 1 << 20, &Options::max_cached_games,
     "Live games kept replayed in memory besides those a call or watch is "
     "using; past N the least recently used is dropped and rebuilt from the "
     "store when next read. Default 256; 0 keeps every game read since start."},
    {"--checkpoint-every", 0, 1 << 30, &Options::checkpoint_every,
     "An append that takes a game past a multiple of N events stores a "
     "checkpoint of its replay (the engine's state and the findings so far, "
     "with their SHA-256); after a restart the game replays only the events "
     "after its latest checkpoint. Default 10000; 0 stores and reads none."},
    {"--keepalive-ms", 10, kMaxMillis, &Options::keepalive_ms,
     "Ping a client after N ms without data, and close its connection (freeing "
     "its watches) when no answer comes in --keepalive-timeout-ms. Default "
     "60000."},
    {"--keepalive-timeout-ms", 10, kMaxMillis, &Options::keepalive_timeout_ms,
     "See --keepalive-ms. Default 20000."},
    {"--min-client-ping-interval-ms", 0, kMaxMillis,
     &Options::min_client_ping_interval_ms,
     "The shortest interval between a client's pings that gunbaid accepts "
     "(more often, it closes the connection after two). Default 10000."},
    {"--http-request-deadline-ms", 100, kMaxMillis,
     &Options::http_request_deadline_ms,
     "With --http: a request's header and body must arrive whole within N ms "
     "of its first byte (a new connection's, of its accept), else the "
     "connection is closed; a client that trickles its request holds no "
     "thread meanwhile. Default 30000 (a 64 MiB body needs 2.2 MB/s)."},
    {"--http-max-connections", 1, 1 << 20, &Options::http_max_connections,
     "With --http: connections at once; past N a new one is closed at once. "
     "Default 1024 (keep it under the open-files limit)."},
    {"--http-max-connections-per-address", 1, 1 << 20,
     &Options::http_max_connections_per_address,
     "With --http: connections at once from one client address; past N the "
     "answer is 429. Default 64. Behind a reverse proxy every client has its "
     "address: raise it, and let the proxy keep its own per-client limit."},
};

// Returns a CLI11 check refusing an empty value; `what` is what to give.
CLI::Validator NotEmpty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        return value.empty() ? absl::StrCat("give ", what) : "";
      },
      "");
}

// Defines where gunbaid listens and what it reads: --listen, --data-dir,
// the umpire's credential and TLS.
void DefineServingFlags(CLI::App& app, Options& options) {
  app.add_option("--listen", options.listen,
                 "Address to listen on. Default 127.0.0.1:50051, which only "
                 "this machine can reach. Port 0 picks a free port. On start "
                 "gunbaid prints one line, \"gunbaid listening on "
                 "HOST:PORT\", with the real port. Without TLS gunbaid listens "
                 "only on loopback unless --allow-remote-plaintext.")
      ->type_name("HOST:PORT")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            return absl::StrContains(value, ':')
                       ? ""
                       : absl::StrCat(
                             "wants HOST:PORT, e.g. 127.0.0.1:50051; "
                             "got \"",
                             value, "\".");
          },
          ""));
  app.add_option("--http", options.http,
                 "Also serve the JSON API and the web app over HTTP on "
                 "HOST:PORT (HTTPS with --tls-cert and --tls-key), e.g. "
                 "127.0.0.1:8080; off by default. Port 0 picks a free port; "
                 "on start gunbaid prints a second line, \"gunbaid serving "
                 "HTTP on HOST:PORT\". The same loopback rule as --listen. "
                 "Bodies up to --max-message-bytes (413 beyond); --max-threads "
                 "/ 2 connections served at once.")
      ->type_name("HOST:PORT")
      ->check(NotEmpty("HOST:PORT"));
  app.add_option("--data-dir", options.data_dir,
                 "Where live games are kept (SQLite, WAL, every append "
                 "durable before it is acknowledged). Default ./gunbai-data.")
      ->type_name("DIR")
      ->check(NotEmpty("a path"));
  app.add_option("--store", options.store, gunbai::service::kStoreFlagHelp)
      ->type_name("URI")
      ->check(NotEmpty("sqlite:DIR or postgresql://USER@HOST:PORT/DBNAME"));
  app.add_option("--store-password-file", options.store_password_file,
                 "The PostgreSQL password of --store, the file's first line.")
      ->type_name("F")
      ->check(NotEmpty("a path"));
  app.add_option("--umpire-token-file", options.umpire_token_file,
                 "The umpire's credential (16+ characters), read from a file "
                 "so it never shows in `ps`. Or set GUNBAI_UMPIRE_TOKEN.")
      ->type_name("F")
      ->check(NotEmpty("a path"));
  app.add_option("--signing-key-file", options.signing_key_file,
                 "Sign each live game's Merkle checkpoints (at each turn's "
                 "end and on request: GetCheckpoint, gunbai game "
                 "checkpoint) with this Ed25519 key, a file `gunbai key "
                 "--new NAME` writes; its verifier key is published at GET "
                 "/v1/info and in every checkpoint answer.")
      ->type_name("F")
      ->check(NotEmpty("a path"));
  app.add_option("--tls-cert", options.tls_cert,
                 "Serve TLS with this PEM certificate (and --tls-key).")
      ->type_name("F")
      ->check(NotEmpty("a path"));
  app.add_option("--tls-key", options.tls_key,
                 "The PEM private key of --tls-cert.")
      ->type_name("F")
      ->check(NotEmpty("a path"));
  app.add_flag("--allow-remote-plaintext", options.allow_remote_plaintext,
               "Listen on a non-loopback address without TLS.");
}

// Defines --max-message-bytes, --ruleset and the overload limits of
// kNumberFlags.
void DefineLimitFlags(CLI::App& app, Options& options) {
  app.add_option("--max-message-bytes", options.max_message_bytes,
                 "Largest request or reply, in bytes, in both directions. "
                 "Default 67108864 (64 MiB). A bigger log is refused with "
                 "RESOURCE_EXHAUSTED.")
      ->type_name("N")
      ->check(CLI::Range(1, INT_MAX));
  app.add_option("--ruleset", options.ruleset_path,
                 "Use this ruleset file (text format of gunbai.v1.Ruleset) "
                 "instead of the built-in ruleset of its name; each log and "
                 "game is replayed under the ruleset its header names "
                 "(gunbai ruleset --list). A request may still send its own.")
      ->type_name("FILE")
      ->check(NotEmpty("a file name"));
  for (const NumberFlag& number : kNumberFlags) {
    app.add_option(number.name, options.*(number.field), number.description)
        ->type_name("N")
        ->group("Overload")
        ->check(CLI::Range(number.min, number.max));
  }
}

// Defines --log-level.
void DefineLogFlags(CLI::App& app, Options& options) {
  app.add_option("--log-level", options.log_level,
                 "The least severe log lines written: error, warn, info "
                 "(default: also a line per request) or debug (also health "
                 "checks). Each line on stderr is a JSON object; see "
                 "\"Observability\" in deploy/README.md.")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}));
}

// Defines gunbaid's flags on `app`, storing into `options`; `--man` and
// `--bash-completion` set `print`.
void DefineFlags(CLI::App& app, Options& options, std::string& print) {
  gunbai::service::UseGunbaiHelpFormat(app);
  app.footer(kFooter);
  app.set_version_flag(
      "--version", [] { return gunbai::service::VersionText("gunbaid"); },
      "print gunbaid's version, its built-in rulesets' digests and the gRPC "
      "and protobuf versions");
  DefineServingFlags(app, options);
  DefineLimitFlags(app, options);
  DefineLogFlags(app, options);
  app.add_flag_callback(
      "--man", [&print] { print = "man"; },
      "print gunbaid's man page (roff, section 8) and exit");
  app.add_flag_callback(
      "--bash-completion", [&print] { print = "bash"; },
      "print a bash completion script for gunbaid and exit");
}

// Returns InvalidArgument when the flags parsed into `options` do not go
// together.
absl::Status CheckFlags(const Options& options) {
  // Each watch holds a thread to the end: watches must leave threads for
  // everything else.
  if (options.max_watchers > options.max_threads / 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-watchers is ", options.max_watchers,
        ", more than half of --max-threads (", options.max_threads,
        "); each watch holds a thread, so lower it or raise --max-threads."));
  }
  return absl::OkStatus();
}

// Returns the built-in rulesets, the one in the file at `path` (when not
// empty) taking the place of the built-in one of its name. Returns NotFound
// when the file cannot be read and InvalidArgument when it is not a valid
// ruleset.
absl::StatusOr<gunbai::replay::RulesetCatalog> LoadRulesets(
    const std::string& path) {
  auto catalog = gunbai::replay::RulesetCatalog::Builtin();
  if (!catalog.ok() || path.empty()) return catalog;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the ruleset file ", path,
                     "; check the path given to --ruleset."));
  }
  GUNBAI_ASSIGN_OR_RETURN(auto loaded,
                          gunbai::replay::LoadRuleset(text.str(), path));
  catalog->Replace(std::move(loaded));
  return catalog;
}

// Returns every documented rule id (gunbai explain --list): the findings
// counted by rule, each at zero from the start.
std::vector<std::string> DocumentedRuleIds() {
  const gunbai::replay::RuleLookup docs = gunbai::replay::ExplainRule("", true);
  std::vector<std::string> ids;
  for (const auto& rule : docs.answer.rules()) ids.push_back(rule.id());
  return ids;
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

// Returns InvalidArgument when gunbaid would serve `address` (given to
// `flag`) without TLS off loopback and --allow-remote-plaintext is not
// given. The one check for --listen and --http.
absl::Status CheckPlaintext(const Options& options, absl::string_view flag,
                            const std::string& address) {
  if (!options.tls_cert.empty() || options.allow_remote_plaintext) {
    return absl::OkStatus();
  }
  const std::string host = address.substr(0, address.rfind(':'));
  const bool loopback =
      absl::StartsWith(host, "127.") || host == "localhost" || host == "[::1]";
  if (loopback) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "without TLS gunbaid listens only on loopback; ", flag, " ", address,
      " is not. Give --tls-cert and --tls-key, or --allow-remote-plaintext "
      "if a trusted network is in front."));
}

// Returns the server credentials: TLS from the certificate and key files,
// or plaintext, which only a loopback address may use unless allowed.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
    const Options& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together.");
  }
  if (!options.tls_cert.empty()) {
    auto read = [](const std::string& path) -> absl::StatusOr<std::string> {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      if (!in || !(text << in.rdbuf())) {
        return absl::NotFoundError(absl::StrCat("cannot read ", path));
      }
      return text.str();
    };
    GUNBAI_ASSIGN_OR_RETURN(auto cert, read(options.tls_cert));
    GUNBAI_ASSIGN_OR_RETURN(auto key, read(options.tls_key));
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({key, cert});
    return grpc::SslServerCredentials(ssl);
  }
  GUNBAI_RETURN_IF_ERROR(CheckPlaintext(options, "--listen", options.listen));
  return grpc::InsecureServerCredentials();
}

// Bounds the server's threads, connection memory and calls per
// connection, and sets the keepalive policy: gunbaid pings an idle client
// and closes a connection whose client does not answer, which cancels its
// calls (a watch of a vanished client ends and frees its slot).
void SetOverloadLimits(const Options& options, grpc::ServerBuilder& builder) {
  grpc::ResourceQuota quota("gunbaid");
  quota.SetMaxThreads(static_cast<int>(options.max_threads));
  quota.Resize(static_cast<std::size_t>(options.memory_quota_bytes));
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(
      GRPC_ARG_MAX_CONCURRENT_STREAMS,
      static_cast<int>(options.max_streams_per_connection));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             static_cast<int>(options.keepalive_ms));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                             static_cast<int>(options.keepalive_timeout_ms));
  // Ping a watch that sends no data: a watch of a quiet game is exactly
  // the call a vanished client would hold.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
      static_cast<int>(options.min_client_ping_interval_ms));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
}

// The live games, when an umpire credential turns them on: the store, its
// health (StoreHealth) and the service, which sees the store through its
// health's watch. Destroyed in reverse: the service, the watch, the health
// (its prober stopped), the store.
struct LiveGames {
  std::unique_ptr<gunbai::service::GameStore> store;
  std::unique_ptr<gunbai::service::StoreHealth> health;
  std::unique_ptr<gunbai::service::HealthWatchedStore> watched;
  std::unique_ptr<GameServiceImpl> games;
};

// Opens the store and the live-games service into `live`, unless no umpire
// credential is given (a warning: live games are off). Returns the store's
// or the credential's error.
absl::Status OpenLiveGames(const Options& options,
                           const gunbai::replay::RulesetCatalog& rulesets,
                           gunbai::service::RequestBudget& budget,
                           LiveGames& live) {
  auto umpire = gunbai::service::LoadUmpireToken(options.umpire_token_file);
  if (!umpire.ok()) {
    if (!options.umpire_token_file.empty()) return umpire.status();
    gunbai::service::Log(gunbai::service::LogLevel::kWarn,
                         "no umpire credential (--umpire-token-file or "
                         "GUNBAI_UMPIRE_TOKEN): live games are off");
    return absl::OkStatus();
  }
  GUNBAI_ASSIGN_OR_RETURN(
      live.store,
      gunbai::service::OpenGameStore(options.store, options.store_password_file,
                                     options.data_dir));
  live.health = std::make_unique<gunbai::service::StoreHealth>();
  live.watched = std::make_unique<gunbai::service::HealthWatchedStore>(
      live.store.get(), live.health.get());
  live.games = std::make_unique<GameServiceImpl>(
      live.watched.get(), &rulesets, *umpire,
      static_cast<int>(options.max_watchers),
      static_cast<int>(options.max_watchers_per_game), &budget,
      static_cast<int>(options.max_cached_games),
      static_cast<int>(options.checkpoint_every));
  if (!options.signing_key_file.empty()) {
    std::ifstream in(options.signing_key_file, std::ios::binary);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf())) {
      return absl::NotFoundError(absl::StrCat(
          "cannot read the signing key file ", options.signing_key_file,
          "; check the path given to --signing-key-file."));
    }
    absl::StatusOr<gunbai::replay::NoteSigner> signer =
        gunbai::replay::ParseSignerKey(text.str());
    if (!signer.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--signing-key-file ", options.signing_key_file, ": ",
                       signer.status().message(),
                       " (make one with `gunbai key --new NAME`)"));
    }
    live.games->SetCheckpointSigner(*std::move(signer));
  }
  return absl::OkStatus();
}

// The live-games service's health in `server`'s health service follows the
// store's (NOT_SERVING while it fails, logged at each change); the overall
// health stays SERVING while the daemon runs, for a liveness probe.
void WatchStoreHealth(LiveGames& live, grpc::Server& server) {
  gunbai::service::GameStore* store = live.store.get();
  live.health->Start(
      // A game no one names: NOT_FOUND is the store answering.
      [store] { return store->Version("gunbaid-health-probe").status(); },
      [&server](bool serving) {
        server.GetHealthCheckService()->SetServingStatus(
            std::string(kGameServiceName), serving);
        gunbai::service::Log(
            serving ? gunbai::service::LogLevel::kInfo
                    : gunbai::service::LogLevel::kWarn,
            serving ? "the store answers: live games SERVING"
                    : "the store does not answer: live games NOT_SERVING "
                      "(the overall health stays SERVING)");
      });
}

// Starts the server on `options.listen`, every call counted in `metrics`
// and logged. Returns Unavailable naming the address when it cannot be
// bound. `port` receives the bound port.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartServer(
    const Options& options, AuditServiceImpl& service,
    gunbai::service::RulesServiceImpl& rules,
    gunbai::service::LogServiceImpl& logs, GameServiceImpl* games,
    gunbai::service::Metrics& metrics, int& port) {
  GUNBAI_ASSIGN_OR_RETURN(auto credentials, Credentials(options));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // Refuse a port another process (another gunbaid) already listens on.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  SetOverloadLimits(options, builder);
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(gunbai::service::NewDecodeErrorInterceptorFactory());
  interceptors.push_back(gunbai::service::NewRequestObserverFactory(&metrics));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.AddListeningPort(options.listen, credentials, &port);
  builder.RegisterService(&service);
  builder.RegisterService(&rules);
  builder.RegisterService(&logs);
  if (games != nullptr) builder.RegisterService(games);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", options.listen,
        ": the address is in use, not of this machine, or not HOST:PORT; "
        "pick another with --listen (port 0 picks a free port)."));
  }
  return server;
}

// Logs `status` as gunbaid's error, with `hint` when not empty, and
// returns the exit code for bad usage.
int Fail(const absl::Status& status, absl::string_view hint = {}) {
  using gunbai::service::LogLevel;
  if (hint.empty()) {
    gunbai::service::Log(LogLevel::kError, status.message());
  } else {
    gunbai::service::Log(LogLevel::kError, status.message(), {{"hint", hint}});
  }
  return 2;
}

// Starts the HTTP front door on `options.http` in front of `server`,
// serving `metrics` (which must outlive it) at GET /metrics.
// Returns InvalidArgument or Unavailable as HttpGateway::Start does.
absl::StatusOr<std::unique_ptr<gunbai::service::HttpGateway>> StartHttp(
    const Options& options, grpc::Server& server,
    const gunbai::service::PrometheusMetrics& metrics,
    const gunbai::service::StoreHealth* health, const GameServiceImpl* games) {
  gunbai::service::HttpOptions http;
  http.address = options.http;
  http.tls_cert = options.tls_cert;
  http.tls_key = options.tls_key;
  http.max_body_bytes = static_cast<std::size_t>(options.max_message_bytes);
  http.request_deadline_ms = static_cast<int>(std::min<std::int64_t>(
      options.http_request_deadline_ms, std::numeric_limits<int>::max()));
  http.max_connections = static_cast<int>(options.http_max_connections);
  http.max_connections_per_address =
      static_cast<int>(options.http_max_connections_per_address);
  http.metrics = [&metrics] { return metrics.Exposition(); };
  if (health != nullptr) {
    http.ready = [health] { return health->serving(); };
  }
  if (games != nullptr) {
    http.checkpoint_verifier_key = games->CheckpointVerifierKey();
  }
  // Half of gRPC's threads, so that HTTP clients alone cannot take them
  // all; each HTTP call also holds a gRPC thread while it runs.
  http.threads =
      static_cast<int>(std::max<std::int64_t>(2, options.max_threads / 2));
  return gunbai::service::HttpGateway::Start(server, http);
}

// Waits for SIGTERM or SIGINT, then stops `http` (its streams end with an
// error event) and `server`, giving calls in flight a few seconds.
void ServeUntilSignalled(grpc::Server& server, LiveGames& live,
                         gunbai::service::HttpGateway* http,
                         const sigset_t& signals) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  gunbai::service::Log(gunbai::service::LogLevel::kInfo, "shutting down");
  if (live.health != nullptr) live.health->Stop();
  if (http != nullptr) http->BeginShutdown();
  if (live.games != nullptr) live.games->Shutdown();
  server.Shutdown(std::chrono::system_clock::now() +
                  std::chrono::seconds(kShutdownGraceSeconds));
  if (http != nullptr) http->Wait();
}

// Serves until SIGTERM or SIGINT; returns the exit code.
int Run(int argc, char** argv) {
  const sigset_t signals = BlockShutdownSignals();
  Options parsed;
  std::string print;
  CLI::App app(kDescription, "gunbaid");
  DefineFlags(app, parsed, print);
  gunbai::service::CliContext context{std::cout, std::cerr};
  const int code = gunbai::service::RunParsed(
      app, std::vector<std::string>(argv + 1, argv + argc), context);
  if (code != 0 || context.done) return code;
  if (print == "man") {
    std::cout << gunbai::service::ManPage(app, 8);
    return 0;
  }
  if (print == "bash") {
    std::cout << gunbai::service::BashCompletion(app);
    return 0;
  }
  gunbai::service::LogLevel log_level = gunbai::service::LogLevel::kInfo;
  gunbai::service::ParseLogLevel(parsed.log_level, log_level);
  gunbai::service::SetLogLevel(log_level);
  gunbai::service::RouteGrpcLogs();
  if (absl::Status s = CheckFlags(parsed); !s.ok()) {
    return Fail(s, "Run `gunbaid --help` for the flags.");
  }
  if (!parsed.http.empty()) {
    if (absl::Status s = CheckPlaintext(parsed, "--http", parsed.http);
        !s.ok()) {
      return Fail(s);
    }
  }
  // A client that goes away mid-answer must not kill gunbaid: a write to a
  // socket whose peer closed raises SIGPIPE unless sent with MSG_NOSIGNAL
  // (Asio's are, OpenSSL's are not).
  signal(SIGPIPE, SIG_IGN);
  const Options* options = &parsed;
  auto rulesets = LoadRulesets(options->ruleset_path);
  if (!rulesets.ok()) return Fail(rulesets.status());
  // A request that does not decode is answered INVALID_ARGUMENT; a line on
  // stderr for each would let any client fill the log.
  gunbai::service::QuietRequestParseLogs();
  gunbai::service::PrometheusMetrics metrics(DocumentedRuleIds());
  gunbai::service::SetProcessMetrics(&metrics);
  // Taken back however Run returns, after everything that reports into it.
  const absl::Cleanup uninstall_metrics = [] {
    gunbai::service::SetProcessMetrics(nullptr);
  };
  gunbai::service::RequestBudget budget(options->max_inflight_request_bytes,
                                        "--max-inflight-request-bytes");
  AuditServiceImpl service(&*rulesets, &budget);
  gunbai::service::RulesServiceImpl rules(&*rulesets);
  gunbai::service::LogServiceImpl logs(&*rulesets, &budget);
  LiveGames live;
  if (absl::Status s = OpenLiveGames(*options, *rulesets, budget, live);
      !s.ok()) {
    return Fail(s);
  }
  GameServiceImpl* games = live.games.get();
  int port = 0;
  auto server =
      StartServer(*options, service, rules, logs, games, metrics, port);
  if (!server.ok()) return Fail(server.status());
  if (games != nullptr) WatchStoreHealth(live, **server);
  std::printf("gunbaid listening on %s\n",
              BoundAddress(options->listen, port).c_str());
  std::unique_ptr<gunbai::service::HttpGateway> http;
  if (!options->http.empty()) {
    auto started =
        StartHttp(*options, **server, metrics, live.health.get(), games);
    if (!started.ok()) return Fail(started.status());
    http = *std::move(started);
    std::printf("gunbaid serving HTTP on %s\n",
                BoundAddress(options->http, http->port()).c_str());
  }
  std::fflush(stdout);
  ServeUntilSignalled(**server, live, http.get(), signals);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Every gRPC object is gone when Run returns.
  const int code = Run(argc, argv);
  gunbai::service::WaitForGrpcShutdown();
  return code;
}
