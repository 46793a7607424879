// AuditLogStream through a real gunbaid (started by gunbaid_process.cc on a
// free port): for generated battles with planted faults, with and without
// outcomes and impact, the pieces it streams, merged in order, are the
// report the unary AuditLog answers for the same request, byte for byte (the
// reference is the other RPC of the same daemon, which the in-process
// tests in audit_stream_rpc_test.cc hold to the whole parse's report); a
// large report comes in several pieces of at most about a MiB; a refused
// log gets the same status from both; and `gunbai audit --server`'s client
// falls back to AuditLog on a daemon without AuditLogStream.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/cli/audit_client.h"
#include "service/daemon/audit_service.h"
#include "tests/e2e/gunbaid_process.h"

namespace gunbai {
namespace {

namespace v1 = ::gunbai::v1;
using testing::GunbaidProcess;
using testing::TempDir;

constexpr auto kCallTimeout = std::chrono::seconds(120);

// Deterministic bytes of a message (map order fixed), to compare reports.
std::string Bytes(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  return out;
}

v1::AuditLogRequest Generated(std::uint64_t seed, int units, int faults,
                              int events, bool outcomes, bool impact) {
  generate::GeneratorOptions options;
  options.seed = seed;
  options.units_per_clan = units;
  options.target_events = events;
  options.faults = faults;
  v1::AuditLogRequest request;
  *request.mutable_log() = generate::GenerateGame(options).log;
  request.set_record_outcomes(outcomes);
  request.set_impact(impact);
  return request;
}

class AuditLogStreamE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    const std::string token_file = dir_.path() + "/umpire.token";
    std::ofstream(token_file) << "umpire-audit-log-stream-test-0123456789\n";
    auto daemon =
        GunbaidProcess::Start(dir_.path() + "/data", token_file, dir_.path());
    ASSERT_TRUE(daemon.ok()) << daemon.status();
    daemon_ = *std::move(daemon);
    grpc::ChannelArguments args;
    // The unary answer of a large report is over gRPC's 4 MiB default.
    args.SetMaxReceiveMessageSize(-1);
    audits_ = v1::AuditService::NewStub(grpc::CreateCustomChannel(
        daemon_->target(), grpc::InsecureChannelCredentials(), args));
  }

  // The unary AuditLog's answer.
  grpc::Status Unary(const v1::AuditLogRequest& request,
                     v1::AuditReport& report) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    v1::AuditLogResponse response;
    grpc::Status status = audits_->AuditLog(&context, request, &response);
    report = response.report();
    return status;
  }

  // AuditLogStream's pieces for the same request (the same bytes: the
  // two requests have the same fields), and their status.
  grpc::Status Streamed(const v1::AuditLogRequest& request,
                        std::vector<v1::AuditLogStreamResponse>& pieces) {
    v1::AuditLogStreamRequest streamed;
    EXPECT_TRUE(streamed.ParseFromString(request.SerializeAsString()));
    EXPECT_EQ(streamed.SerializeAsString(), request.SerializeAsString());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    auto reader = audits_->AuditLogStream(&context, streamed);
    v1::AuditLogStreamResponse piece;
    while (reader->Read(&piece)) pieces.push_back(piece);
    return reader->Finish();
  }

  // Expects the merged pieces to be the unary report; returns how many
  // pieces there were.
  std::size_t ExpectSameReport(const std::string& what,
                               const v1::AuditLogRequest& request) {
    SCOPED_TRACE(what);
    v1::AuditReport unary;
    const grpc::Status unary_status = Unary(request, unary);
    EXPECT_TRUE(unary_status.ok()) << unary_status.error_message();
    std::vector<v1::AuditLogStreamResponse> pieces;
    const grpc::Status status = Streamed(request, pieces);
    EXPECT_TRUE(status.ok()) << status.error_message();
    v1::AuditReport merged;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const v1::AuditReport& r = pieces[i].report();
      if (r.outcomes_size() + r.findings_size() + r.impacts_size() > 1) {
        EXPECT_LE(pieces[i].ByteSizeLong(), (1u << 20) + 16) << "piece " << i;
      }
      merged.MergeFrom(r);
    }
    EXPECT_EQ(Bytes(merged), Bytes(unary));
    return pieces.size();
  }

  TempDir dir_;
  std::unique_ptr<GunbaidProcess> daemon_;
  std::unique_ptr<v1::AuditService::Stub> audits_;
};

// Clean and faulty battles, each with every combination of outcomes and
// impact; the faulty ones have findings, and with impact, impacts, so that
// what is compared is not empty.
TEST_F(AuditLogStreamE2e, GeneratedBattlesGiveTheUnaryReport) {
  for (std::uint64_t seed : {2u, 9u}) {
    for (int faults : {0, 8}) {
      for (int flags = 0; flags < 4; ++flags) {
        const bool outcomes = (flags & 1) != 0;
        const bool impact = (flags & 2) != 0;
        const v1::AuditLogRequest request =
            Generated(seed, 20, faults, 900, outcomes, impact);
        ExpectSameReport("seed " + std::to_string(seed) + " faults " +
                             std::to_string(faults) + " flags " +
                             std::to_string(flags),
                         request);
        if (faults > 0 && impact) {
          v1::AuditReport unary;
          ASSERT_TRUE(Unary(request, unary).ok());
          EXPECT_GT(unary.findings_size(), 0);
          EXPECT_GT(unary.impacts_size(), 0);
        }
      }
    }
  }
}

// A battle of 200 units a side with 30 faults, outcomes and impact: over a
// MiB of outcomes, so several pieces (at least outcome bytes / 1 MiB, plus
// the findings' and the last).
TEST_F(AuditLogStreamE2e, ALargeReportComesInSeveralPieces) {
  const v1::AuditLogRequest request = Generated(31, 200, 30, 8000, true, true);
  const std::size_t pieces = ExpectSameReport("large", request);
  v1::AuditReport unary;
  ASSERT_TRUE(Unary(request, unary).ok());
  v1::AuditReport outcomes_only;
  *outcomes_only.mutable_outcomes() = unary.outcomes();
  ASSERT_GT(outcomes_only.ByteSizeLong(), 1u << 20);
  EXPECT_GE(pieces, outcomes_only.ByteSizeLong() / (1u << 20) + 2);
}

// A log naming no built-in ruleset: both RPCs refuse it alike, and the
// stream sends no piece.
TEST_F(AuditLogStreamE2e, ARefusedLogGetsTheSameStatus) {
  v1::AuditLogRequest request = Generated(4, 8, 2, 200, true, true);
  request.mutable_log()->mutable_header()->mutable_ruleset()->set_name(
      "no-such-ruleset");
  v1::AuditReport unary;
  const grpc::Status unary_status = Unary(request, unary);
  std::vector<v1::AuditLogStreamResponse> pieces;
  const grpc::Status status = Streamed(request, pieces);
  EXPECT_EQ(unary_status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_code(), unary_status.error_code());
  EXPECT_EQ(status.error_message(), unary_status.error_message());
  EXPECT_TRUE(pieces.empty());
}

// A daemon from before AuditLogStream: only the unary AuditLog (served by
// gunbaid's implementation); AuditLogStream is UNIMPLEMENTED, as the
// generated base class answers it.
class UnaryOnlyAuditService final : public v1::AuditService::Service {
 public:
  explicit UnaryOnlyAuditService(const replay::RulesetCatalog* catalog)
      : audits_(catalog) {}

  grpc::Status AuditLog(grpc::ServerContext* context,
                        const v1::AuditLogRequest* request,
                        v1::AuditLogResponse* response) override {
    ++calls_;
    grpc::Slice slice(request->SerializeAsString());
    grpc::ByteBuffer wire(&slice, 1);
    return audits_.AuditEncodedLog(context, wire, response);
  }

  int calls() const { return calls_; }

 private:
  service::AuditServiceImpl audits_;
  std::atomic<int> calls_{0};
};

// gunbai audit --server (AuditThroughServer) against such a daemon falls
// back to AuditLog and gets the report it gets from gunbaid through
// AuditLogStream.
TEST_F(AuditLogStreamE2e, TheClientFallsBackToAuditLogOnAnOlderDaemon) {
  auto catalog = replay::RulesetCatalog::Builtin();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  UnaryOnlyAuditService older(&*catalog);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&older);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);
  const v1::AuditLogRequest request = Generated(6, 20, 8, 900, true, true);
  const absl::StatusOr<v1::AuditReport> fallback = service::AuditThroughServer(
      "127.0.0.1:" + std::to_string(port), request.log(), "", 256 << 20,
      /*record_outcomes=*/true, /*impact=*/true);
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  EXPECT_EQ(older.calls(), 1);
  const absl::StatusOr<v1::AuditReport> streamed = service::AuditThroughServer(
      daemon_->target(), request.log(), "", 256 << 20,
      /*record_outcomes=*/true, /*impact=*/true);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(Bytes(*fallback), Bytes(*streamed));
  EXPECT_GT(streamed->impacts_size(), 0);
  server->Shutdown();
}

}  // namespace
}  // namespace gunbai
