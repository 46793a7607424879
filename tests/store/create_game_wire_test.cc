// CreateGame reads its request on the wire before parsing it
// (service/daemon/create_game_wire.h): a header of more clans than any engine
// takes is refused from a skeleton of the request (its first
// kSkeletonClans clans), so that 1.5 million clans in 16 MiB are not parsed
// whole (about ten times their size) to be refused. The refusal a client
// sees must be the one the whole parse gives: same code, same message.
// Unit tests of the wire reading, then calls through a real gRPC server in
// process over a real SQLite store.
#include "service/daemon/create_game_wire.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/in_process_games.h"

namespace gunbai::service {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::gunbai::v1;
using ::gunbai::testing::AuthorizeAs;
using ::gunbai::testing::InProcessGames;

constexpr char kUmpire[] = "umpire-credential-0123456789";

v1::CreateGameRequest Anegawa(const std::string& id) {
  const std::string path =
      absl::StrCat(GUNBAI_TEST_DATA_DIR, "/anegawa-clean.textproto");
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &log));
  v1::CreateGameRequest request;
  *request.mutable_header() = log.header();
  request.mutable_header()->set_game_id(id);
  *request.mutable_order_of_battle() = log.order_of_battle();
  request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
  request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
  return request;
}

// Anegawa's request with clans c0, c1, ... added to its two, `clans` in all.
v1::CreateGameRequest WithClans(int clans) {
  v1::CreateGameRequest request = Anegawa("many-clans");
  while (request.header().clans_size() < clans) {
    request.mutable_header()->add_clans()->set_id(
        absl::StrCat("c", request.header().clans_size()));
  }
  return request;
}

CreateGameWire Read(const std::string& bytes, int keep,
                    CreateGameSkeleton& out) {
  return ReadCreateGameSkeleton(
      [&bytes] {
        return std::make_unique<google::protobuf::io::ArrayInputStream>(
            bytes.data(), static_cast<int>(bytes.size()));
      },
      keep, out);
}

TEST(CreateGameWireTest, CountsTheClansAndKeepsTheFirst) {
  const v1::CreateGameRequest request = WithClans(50);
  CreateGameSkeleton read;
  ASSERT_EQ(Read(request.SerializeAsString(), 10, read),
            CreateGameWire::kSkeleton);
  EXPECT_EQ(read.clans, 50);
  // The skeleton is the request but for clans 10 to 49.
  v1::CreateGameRequest expected = request;
  expected.mutable_header()->mutable_clans()->DeleteSubrange(10, 40);
  EXPECT_EQ(read.skeleton.SerializeAsString(), expected.SerializeAsString());
}

TEST(CreateGameWireTest, AtMostKeepIsParsedWhole) {
  CreateGameSkeleton read;
  EXPECT_EQ(Read(WithClans(10).SerializeAsString(), 10, read),
            CreateGameWire::kParseWhole);
  EXPECT_EQ(read.clans, 10);
}

// A header given twice is one header to protobuf, its clans those of both;
// a field 3 of the header that is not length-delimited is an unknown field
// to protobuf, not a clan.
TEST(CreateGameWireTest, HeaderTwiceAndClansOfTheWrongWireType) {
  v1::CreateGameRequest first = WithClans(30);
  v1::CreateGameRequest second;
  for (int i = 0; i < 20; ++i) {
    second.mutable_header()->add_clans()->set_id(absl::StrCat("d", i));
  }
  std::string bytes = first.SerializeAsString() + second.SerializeAsString();
  // header { 3: 7 } (varint): tag 0x0a, length 2, tag 0x18, value 7.
  bytes += std::string("\x0a\x02\x18\x07", 4);
  v1::CreateGameRequest whole;
  ASSERT_TRUE(whole.ParseFromString(bytes));
  ASSERT_EQ(whole.header().clans_size(), 50);
  CreateGameSkeleton read;
  ASSERT_EQ(Read(bytes, 40, read), CreateGameWire::kSkeleton);
  EXPECT_EQ(read.clans, 50);
  EXPECT_EQ(read.skeleton.header().clans_size(), 40);
  EXPECT_EQ(read.skeleton.header().clans(39).id(), "d9");
}

// Bytes a whole parse refuses are undecodable here too: cut short, or a
// clan id that is not UTF-8 among the clans dropped.
TEST(CreateGameWireTest, WhatAWholeParseRefusesIsUndecodable) {
  const std::string bytes = WithClans(50).SerializeAsString();
  const std::string cut = bytes.substr(0, bytes.size() - 3);
  v1::CreateGameRequest whole;
  ASSERT_FALSE(whole.ParseFromString(cut));
  CreateGameSkeleton read;
  EXPECT_EQ(Read(cut, 10, read), CreateGameWire::kUndecodable);

  v1::CreateGameRequest bad = WithClans(50);
  bad.mutable_header()->mutable_clans(45)->set_id("c\xff");
  const std::string bad_bytes = bad.SerializeAsString();
  ASSERT_FALSE(whole.ParseFromString(bad_bytes));
  EXPECT_EQ(Read(bad_bytes, 10, read), CreateGameWire::kUndecodable);
}

// Worked by hand from the engines' message ("header.clans: a battle has 2
// to %d clans; this log has %d.").
TEST(CreateGameWireTest, TheCountsRefusalIsRewrittenForTheRequestsCount) {
  EXPECT_EQ(ClanCountRefusalFor(
                "header.clans: a battle has 2 to 32 clans; this log has 1024.",
                1024, 1500000),
            "header.clans: a battle has 2 to 32 clans; this log has 1500000.");
  // Not the count's refusal, or not for the skeleton's count: nothing.
  EXPECT_EQ(ClanCountRefusalFor(
                "header.clans: a battle has 2 to 32 clans; this log has 33.",
                1024, 1500000),
            "");
  EXPECT_EQ(ClanCountRefusalFor("header.clans[3]: clan id \"\" is empty; give "
                                "each clan a unique id.",
                                1024, 1500000),
            "");
}

class CreateGameOnWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           absl::StrCat("create_game_wire_", getpid());
    fs::remove_all(dir_);
    auto store = SqliteGameStore::Open(dir_.string());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    games_ =
        std::make_unique<InProcessGames>(store_.get(), catalog_.get(), kUmpire);
  }
  void TearDown() override {
    games_.reset();
    store_.reset();
    fs::remove_all(dir_);
  }

  grpc::Status Create(const v1::CreateGameRequest& request) {
    grpc::ClientContext context;
    AuthorizeAs(context, kUmpire);
    v1::CreateGameResponse response;
    return games_->stub().CreateGame(&context, request, &response);
  }

  fs::path dir_;
  std::unique_ptr<GameStore> store_;
  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<InProcessGames> games_;
};

// Over the skeleton's count the engine's refusal names the request's count,
// as the whole parse's does (33 clans, under it, are parsed whole).
TEST_F(CreateGameOnWireTest, TooManyClansIsTheEnginesRefusal) {
  for (int clans : {33, kSkeletonClans, kSkeletonClans + 1, 5000}) {
    const grpc::Status status = Create(WithClans(clans));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(),
              absl::StrCat("header.clans: a battle has 2 to 32 clans; this "
                           "log has ",
                           clans, "."));
  }
  // Still created when the request is honest.
  EXPECT_TRUE(Create(Anegawa("honest")).ok());
}

// Issue 29: a strict game refuses armies placed on the same ground. On a
// 180 x 120 cm table oda-teppo and asai-yumi both stand at (600, 300): their
// bases overlap wholly. Under the record policy the game is created (the
// audit reports the violation).
TEST_F(CreateGameOnWireTest, AStrictGameRefusesOverlappingPlacements) {
  v1::CreateGameRequest request = Anegawa("overlap");
  request.mutable_table()->set_width_mm(1800);
  request.mutable_table()->set_depth_mm(1200);
  for (int u = 0; u < request.order_of_battle().units_size(); ++u) {
    v1::Position& p = *request.mutable_order_of_battle()
                           ->mutable_units(u)
                           ->mutable_position();
    p.set_x_mm(u < 2 ? 600 : 300 + 200 * u);
    p.set_y_mm(u < 2 ? 300 : 900);
  }
  request.mutable_settings()->set_policy(v1::APPEND_POLICY_STRICT);
  const grpc::Status strict = Create(request);
  EXPECT_EQ(strict.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(strict.error_message(),
              ::testing::HasSubstr("daimyo.table.placement.overlap"));
  EXPECT_THAT(strict.error_message(), ::testing::HasSubstr("(oda-teppo)"));
  EXPECT_THAT(strict.error_message(), ::testing::HasSubstr("(asai-yumi)"));
  request.mutable_header()->set_game_id("overlap-recorded");
  request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
  EXPECT_TRUE(Create(request).ok());
}

// A check before the engine's fails the same way whatever the count of
// clans: an unknown enum number, a ruleset no one has. With 5000 clans (the
// skeleton's path) it must be what it is with 40 (the whole parse's).
TEST_F(CreateGameOnWireTest, EarlierRefusalsAreTheSameWithManyClans) {
  auto with_unknown_policy = [](int clans) {
    v1::CreateGameRequest request = WithClans(clans);
    request.mutable_settings()->set_policy(static_cast<v1::AppendPolicy>(99));
    return request;
  };
  auto with_unknown_ruleset = [](int clans) {
    v1::CreateGameRequest request = WithClans(clans);
    request.mutable_header()->mutable_ruleset()->set_name("no-such-rules");
    return request;
  };
  for (const auto& make : {+with_unknown_policy, +with_unknown_ruleset}) {
    const grpc::Status few = Create(make(40));
    const grpc::Status many = Create(make(5000));
    EXPECT_FALSE(few.ok());
    EXPECT_EQ(many.error_code(), few.error_code());
    EXPECT_EQ(many.error_message(), few.error_message());
  }
}

}  // namespace
}  // namespace gunbai::service
