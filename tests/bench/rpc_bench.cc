// The RPC path (issue 11, Performance): an AuditLog call to gunbaid's
// AuditService against an echo call of the same message sizes plus the
// offline audit (replay::AuditLog) of the same log, measured in one run.
// The bar: AuditLog costs at most 1.2x (echo + offline audit).
//
// The server is built in this process, as gunbaid builds it (the same
// service class and message limits), on 127.0.0.1 with a port of its own,
// and the client calls it over a real TCP connection. The echo is a
// test-only service registered on the same server: it receives an
// AuditLogRequest (parsed, as AuditLog's is) and answers the AuditLogResponse
// that AuditLog gives for that log, so both calls move the same bytes both
// ways. The figures are wall time per call with the client waiting;
// CPU time is the whole process's (client and server). At the end the
// ratios are printed. BM_Admission* compare what admitting a request costs:
// ByteSizeLong of the parsed request (before) and the wire size (now).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "generate/daimyo/daimyo_game.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/client_unary_call.h"
#include "grpcpp/impl/rpc_method.h"
#include "grpcpp/impl/rpc_service_method.h"
#include "grpcpp/support/method_handler.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/overload.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr int kEvents = 10000;
constexpr char kEchoMethod[] = "/gunbai.bench.Echo/Echo";

// Test-only: answers every AuditLogRequest with the AuditLogResponse given,
// the one AuditLog gives for the benchmark's log.
class EchoService final : public grpc::Service {
 public:
  EchoService() {
    AddMethod(new grpc::internal::RpcServiceMethod(
        kEchoMethod, grpc::internal::RpcMethod::NORMAL_RPC,
        new grpc::internal::RpcMethodHandler<
            EchoService, v1::AuditLogRequest, v1::AuditLogResponse,
            grpc::protobuf::MessageLite, grpc::protobuf::MessageLite>(
            [](EchoService* service, grpc::ServerContext*,
               const v1::AuditLogRequest* request,
               v1::AuditLogResponse* response) {
              benchmark::DoNotOptimize(request);
              *response = service->Answer(request->log().header().game_id());
              return grpc::Status::OK;
            },
            this)));
  }

  void SetAnswer(const std::string& game_id, v1::AuditLogResponse response) {
    answers_[game_id] = std::move(response);
  }
  const v1::AuditLogResponse& Answer(const std::string& game_id) const {
    return answers_.at(game_id);
  }

 private:
  std::map<std::string, v1::AuditLogResponse> answers_;
};

const replay::LoadedRuleset& Ruleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinRuleset("daimyo");
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
      std::abort();
    }
    return new replay::LoadedRuleset(*std::move(loaded));
  }();
  return *ruleset;
}

// The server: AuditService as gunbaid serves it, and the echo.
struct Server {
  Server() : catalog(*replay::RulesetCatalog::Builtin()) {
    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize(64 << 20);
    builder.SetMaxSendMessageSize(64 << 20);
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&audits);
    builder.RegisterService(&echo);
    server = builder.BuildAndStart();
    if (server == nullptr || port == 0) {
      std::fprintf(stderr, "cannot start the server\n");
      std::abort();
    }
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(64 << 20);
    arguments.SetMaxSendMessageSize(64 << 20);
    channel = grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                        grpc::InsecureChannelCredentials(),
                                        arguments);
    stub = v1::AuditService::NewStub(channel);
  }

  replay::RulesetCatalog catalog;
  RequestBudget budget{kDefaultMaxInflightRequestBytes,
                       "--max-inflight-request-bytes"};
  AuditServiceImpl audits{&catalog, &budget};
  EchoService echo;
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::AuditService::Stub> stub;
};

Server& TheServer() {
  static Server* const server = new Server();
  return *server;
}

struct Fixture {
  v1::AuditLogRequest request;
};

// Returns the request for a generated game of `units_per_clan` units a
// clan, made once; the echo's answer for it is set on first use.
const Fixture& Game(int units_per_clan) {
  static auto* const games = new std::map<int, Fixture>();
  auto it = games->find(units_per_clan);
  if (it != games->end()) return it->second;
  generate::GeneratorOptions options;
  options.seed = 1;
  options.target_events = kEvents;
  options.units_per_clan = units_per_clan;
  Fixture game;
  *game.request.mutable_log() = generate::GenerateLog(options);
  game.request.mutable_log()->mutable_header()->set_game_id(
      absl::StrCat("bench-", units_per_clan));
  v1::AuditLogResponse response;
  *response.mutable_report() = *replay::AuditLog(game.request.log(), Ruleset());
  TheServer().echo.SetAnswer(game.request.log().header().game_id(),
                             std::move(response));
  return games->emplace(units_per_clan, std::move(game)).first->second;
}

void BM_AuditLogRpc(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  Server& server = TheServer();
  for (auto _ : state) {
    grpc::ClientContext context;
    v1::AuditLogResponse response;
    grpc::Status s = server.stub->AuditLog(&context, game.request, &response);
    if (!s.ok()) state.SkipWithError(s.error_message().c_str());
    benchmark::DoNotOptimize(response);
  }
  state.SetItemsProcessed(state.iterations() *
                          game.request.log().events_size());
}
BENCHMARK(BM_AuditLogRpc)
    ->Arg(12)
    ->Arg(150)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

void BM_EchoRpc(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  Server& server = TheServer();
  const grpc::internal::RpcMethod method(
      kEchoMethod, grpc::internal::RpcMethod::NORMAL_RPC, server.channel);
  for (auto _ : state) {
    grpc::ClientContext context;
    v1::AuditLogResponse response;
    grpc::Status s = grpc::internal::BlockingUnaryCall<
        v1::AuditLogRequest, v1::AuditLogResponse, grpc::protobuf::MessageLite,
        grpc::protobuf::MessageLite>(server.channel.get(), method, &context,
                                     game.request, &response);
    if (!s.ok()) state.SkipWithError(s.error_message().c_str());
    benchmark::DoNotOptimize(response);
  }
  state.SetItemsProcessed(state.iterations() *
                          game.request.log().events_size());
}
BENCHMARK(BM_EchoRpc)
    ->Arg(12)
    ->Arg(150)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

void BM_OfflineAudit(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::StatusOr<v1::AuditReport> report =
        replay::AuditLog(game.request.log(), Ruleset());
    if (!report.ok()) state.SkipWithError("the audit failed");
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations() *
                          game.request.log().events_size());
}
BENCHMARK(BM_OfflineAudit)
    ->Arg(12)
    ->Arg(150)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

// What admitting a request by the budget costs: before, its ByteSizeLong
// (a walk over every field of the parsed request); now the received
// ByteBuffer's Length(), taken before parsing.
void BM_AdmissionByteSizeLong(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(game.request.ByteSizeLong());
  }
}
BENCHMARK(BM_AdmissionByteSizeLong)
    ->Arg(12)
    ->Arg(150)
    ->Unit(benchmark::kMicrosecond);

void BM_AdmissionWireLength(benchmark::State& state) {
  const Fixture& game = Game(static_cast<int>(state.range(0)));
  const grpc::Slice slice(game.request.SerializeAsString());
  const grpc::ByteBuffer wire(&slice, 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(wire.Length());
  }
}
BENCHMARK(BM_AdmissionWireLength)
    ->Arg(12)
    ->Arg(150)
    ->Unit(benchmark::kMicrosecond);

// Keeps the real time per iteration of every run (the median when
// repeated) and prints AuditLog / (echo + offline) at the end.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      if (run.repetitions > 1 && run.aggregate_name != "median") continue;
      const std::string key =
          absl::StrCat(run.run_name.function_name, "/", run.run_name.args);
      real_[key] = run.GetAdjustedRealTime();
      cpu_[key] = run.GetAdjustedCPUTime();
    }
  }

  void PrintRatios() const {
    for (const char* units : {"12", "150"}) {
      const auto get = [&](const std::map<std::string, double>& times,
                           const std::string& bench) {
        auto it = times.find(absl::StrCat(bench, "/", units));
        return it == times.end() ? -1.0 : it->second;
      };
      const double audit = get(real_, "BM_AuditLogRpc");
      const double echo = get(real_, "BM_EchoRpc");
      const double offline = get(real_, "BM_OfflineAudit");
      if (audit < 0 || echo < 0 || offline < 0) continue;
      std::printf(
          "%s units a side: AuditLog %.0f us, echo %.0f us + offline audit "
          "%.0f us = %.0f us; ratio %.2f (bar 1.2); process CPU: %.0f / "
          "(%.0f + %.0f) = %.2f\n",
          units, audit, echo, offline, echo + offline, audit / (echo + offline),
          get(cpu_, "BM_AuditLogRpc"), get(cpu_, "BM_EchoRpc"),
          get(cpu_, "BM_OfflineAudit"),
          get(cpu_, "BM_AuditLogRpc") /
              (get(cpu_, "BM_EchoRpc") + get(cpu_, "BM_OfflineAudit")));
    }
  }

 private:
  std::map<std::string, double> real_;
  std::map<std::string, double> cpu_;
};

}  // namespace
}  // namespace gunbai::service

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  gunbai::service::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
