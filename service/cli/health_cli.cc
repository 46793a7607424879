#include "service/cli/health_cli.h"

#include <chrono>
#include <future>
#include <memory>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/channel_arguments.h"
#include "service/cli/cli_input.h"
#include "service/common/cli_app.h"
#include "service/common/exit_codes.h"

namespace gunbai::service {
namespace {

struct HealthOptions {
  std::string server;
  std::string tls_ca;
  std::string tls_server_name;
  std::string service;
  int timeout_ms = 3000;
};

constexpr char kHealthFooter[] = R"(
Asks the gunbaid at --server the standard gRPC health question
(grpc.health.v1.Health/Check) and prints its answer: SERVING, NOT_SERVING
(a gunbaid stopping, or with --service=gunbai.v1.GameService, one whose
store does not answer) or the reason it could not be asked. Without
--service it asks after the daemon itself (a liveness probe); with
--service=gunbai.v1.GameService after the live games (a readiness probe).
Meant for a container's HEALTHCHECK and a Kubernetes exec probe, where the
daemon serves TLS (Kubernetes' own gRPC probe speaks plaintext only).

Examples:
  gunbai health --server=127.0.0.1:50051
  gunbai health --server=127.0.0.1:50051 --service=gunbai.v1.GameService
  # A pod whose certificate names the Service, not 127.0.0.1:
  gunbai health --server=127.0.0.1:50051 --tls-ca=/etc/gunbai/tls/ca.crt \
      --tls-server-name=gunbaid.gunbai.svc

Exit codes: 0 SERVING; 1 answered, but not SERVING; 2 bad flags; 3 no answer
within --timeout-ms (not listening, TLS refused, too slow).)";

// The HealthCheckResponse bytes of each status: field 1, a varint.
std::string StatusName(const std::string& bytes) {
  if (bytes.empty()) return "UNKNOWN";
  if (bytes.size() == 2 && bytes[0] == 0x08) {
    switch (bytes[1]) {
      case 0:
        return "UNKNOWN";
      case 1:
        return "SERVING";
      case 2:
        return "NOT_SERVING";
      case 3:
        return "SERVICE_UNKNOWN";
    }
  }
  return "an answer that is not a health status";
}

int CheckHealth(const HealthOptions& o, std::ostream& out, std::ostream& err) {
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (!o.tls_ca.empty()) {
    auto ca = ReadInputFile(o.tls_ca);
    if (!ca.ok()) {
      err << "gunbai health: " << ca.status().message() << "\n";
      return kExitBadInput;
    }
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = *ca;
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  if (!o.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(o.tls_server_name);
  }
  auto channel = grpc::CreateCustomChannel(o.server, credentials, args);
  grpc::GenericStub stub(channel);
  // HealthCheckRequest{service}: field 1, length-delimited; none for "".
  std::string request_bytes;
  if (!o.service.empty()) {
    request_bytes = absl::StrCat(
        std::string(1, '\x0a'),
        std::string(1, static_cast<char>(o.service.size())), o.service);
  }
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(o.timeout_ms));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(),
                 &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  const grpc::Status status = done.get_future().get();
  if (!status.ok()) {
    err << "gunbai health: no answer from " << o.server << ": "
        << status.error_message() << " (gRPC code " << status.error_code()
        << ")\n";
    return kExitServer;
  }
  std::string bytes;
  std::vector<grpc::Slice> slices;
  (void)response.Dump(&slices);
  for (const grpc::Slice& s : slices) {
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  const std::string name = StatusName(bytes);
  out << name << "\n";
  return name == "SERVING" ? kExitClean : kExitFindings;
}

}  // namespace

void AddHealthCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<HealthOptions>();
  CLI::App* health = app.add_subcommand(
      "health", "ask a gunbaid whether it serves (for health checks, probes)");
  health->footer(kHealthFooter);
  AddServerOption(*health, o->server, "is asked")->required();
  AddTlsCaOption(*health, o->tls_ca);
  health
      ->add_option("--tls-server-name", o->tls_server_name,
                   "the name the certificate must carry, when --server's host "
                   "is not it (a probe asking 127.0.0.1)")
      ->type_name("NAME");
  health
      ->add_option("--service", o->service,
                   "a service's own health instead of the server's, e.g. "
                   "gunbai.v1.GameService")
      ->type_name("NAME")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.size() < 128 ? std::string() : "at most 127 characters";
          },
          ""));
  health->add_option("--timeout-ms", o->timeout_ms, "how long to wait")
      ->type_name("N")
      ->check(CLI::Range(1, 600000));
  health->callback([o, &context] {
    context.code = CheckHealth(*o, context.out, context.err);
  });
}

}  // namespace gunbai::service
