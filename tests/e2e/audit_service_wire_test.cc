// AuditService reads its requests off the wire itself (service/daemon/
// audit_service.h): the request budget admits a request by its size on the
// wire before any of it is parsed, a request that does not decode is
// INVALID_ARGUMENT, and DiceStats parses its logs one at a time. In process,
// through a real gRPC server (Server::InProcessChannel).
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/overload.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kDiceStats[] = "/gunbai.v1.AuditService/DiceStats";
constexpr char kAuditLog[] = "/gunbai.v1.AuditService/AuditLog";

// A two-clan log whose red clan rolls `dice` in one firing.
v1::BattleLog FiringLog(const std::string& game_id, const std::string& dice) {
  v1::BattleLog log;
  const std::string text = absl::StrCat(
      R"pb(
        header { game_id: ")pb",
      game_id, R"pb(                                                                         "
      ruleset { name: "daimyo" }
      clans { id: "red" player: "Aki" }
      clans { id: "blue" player: "Ben" }
    }
                                                                                             order_of_battle {
      units { id: "red-teppo" clan: "red" }
      units { id: "blue-yumi" clan: "blue" }
    }
    events {
      seq: 1
      turn: 1
      clan: "red"
      firing { unit: "red-teppo" target: "blue-yumi" dice: [ )pb",
      dice,
      R"pb(                                                           ] }
                                                                      })pb");
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &log));
  return log;
}

class AuditServiceWire : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    audits_ = std::make_unique<AuditServiceImpl>(catalog_.get(), &budget_);
    grpc::ServerBuilder builder;
    builder.RegisterService(audits_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    channel_ = server_->InProcessChannel(grpc::ChannelArguments());
  }
  void TearDown() override { server_->Shutdown(); }

  // Sends `bytes` as the request of `method`; returns the status and fills
  // `reply` with the answer's bytes.
  grpc::Status RawCall(const std::string& method, const std::string& bytes,
                       std::string* reply = nullptr) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status s) { done.set_value(std::move(s)); });
    grpc::Status status = done.get_future().get();
    if (reply != nullptr && status.ok()) {
      grpc::Slice whole;
      EXPECT_TRUE(response.DumpToSingleSlice(&whole).ok());
      *reply = std::string(reinterpret_cast<const char*>(whole.begin()),
                           whole.size());
    }
    return status;
  }

  // A budget of 1,000 bytes.
  RequestBudget budget_{1000, "--max-inflight-request-bytes"};
  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<AuditServiceImpl> audits_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

// With one request of 1 byte in work, a request of 1,000 bytes would take
// the budget to 1,001: refused, though its bytes are no protobuf at all (a
// budget that counted the parsed request would have answered
// INVALID_ARGUMENT); 999 bytes fit (1 + 999 = 1,000) and are then refused as
// undecodable. Alone, the 1,000 bytes are served (decoded, and refused).
TEST_F(AuditServiceWire, BudgetCountsTheWireSizeBeforeParsing) {
  const std::string garbage(1000, '\xff');
  for (const char* method : {kAuditLog, kDiceStats}) {
    SCOPED_TRACE(method);
    {
      auto held = budget_.Admit(1, "held");
      ASSERT_TRUE(held.ok());
      grpc::Status refused = RawCall(method, garbage);
      EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << refused.error_message();
      EXPECT_TRUE(
          absl::StrContains(refused.error_message(), "request of 1000 bytes"))
          << refused.error_message();
      grpc::Status fits = RawCall(method, garbage.substr(0, 999));
      EXPECT_EQ(fits.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
          << fits.error_message();
      EXPECT_EQ(budget_.InWork(), 1);  // The 999 bytes were given back.
    }
    grpc::Status alone = RawCall(method, garbage);
    EXPECT_EQ(alone.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_TRUE(
        absl::StrContains(alone.error_message(), "could not be decoded"));
    EXPECT_TRUE(absl::StrContains(alone.error_message(), method));
    EXPECT_EQ(budget_.InWork(), 0);
  }
}

// DiceStats parses its logs one at a time off the wire: the answer is the
// one of the whole request; a field it does not know is skipped as a parse
// of the whole message would; a log cut short is undecodable; an unknown
// enum names the log it is in.
TEST_F(AuditServiceWire, DiceStatsReadsOneLogAtATime) {
  // Red rolls 1 2 3 4 in game a (pairs 1+2, 3+4), 6 6 in game b (6+6).
  v1::DiceStatsRequest first, second;
  *first.add_logs() = FiringLog("a", "1, 2, 3, 4");
  *second.add_logs() = FiringLog("b", "6, 6");
  // Encoded messages concatenated are their merge: the two logs, with field
  // 9 (the varint 5), which DiceStatsRequest does not have, in between.
  const std::string bytes =
      first.SerializeAsString() + "\x48\x05" + second.SerializeAsString();
  std::string reply;
  grpc::Status status = RawCall(kDiceStats, bytes, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  v1::DiceStatsResponse response;
  ASSERT_TRUE(response.ParseFromString(reply));
  const v1::DiceStatsReport& report = response.report();
  // Two clan groups a game, then the players Aki (red) and Ben (blue).
  ASSERT_EQ(report.clans_size(), 4);
  EXPECT_EQ(report.clans(0).dice(), 4);  // a, red
  EXPECT_EQ(report.clans(1).dice(), 0);  // a, blue
  EXPECT_EQ(report.clans(2).dice(), 2);  // b, red
  ASSERT_EQ(report.players_size(), 2);
  EXPECT_EQ(report.players(0).player(), "Aki");
  EXPECT_EQ(report.players(0).dice(), 6);
  EXPECT_EQ(report.players(0).pairs(), 3);

  const std::string cut = bytes.substr(0, bytes.size() - 3);
  grpc::Status cut_status = RawCall(kDiceStats, cut);
  EXPECT_EQ(cut_status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(
      absl::StrContains(cut_status.error_message(), "could not be decoded"))
      << cut_status.error_message();

  second.mutable_logs(0)
      ->mutable_events(0)
      ->mutable_firing()
      ->mutable_facts()
      ->set_range(static_cast<v1::RangeBand>(99));
  grpc::Status unknown = RawCall(
      kDiceStats, first.SerializeAsString() + second.SerializeAsString());
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(unknown.error_message(), "logs[1]"))
      << unknown.error_message();
}

}  // namespace
}  // namespace gunbai::service
