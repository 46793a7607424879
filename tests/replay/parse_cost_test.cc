// ParseCostModel against protobuf's own measure of the parsed message
// (SpaceUsedLong, which is not our code): the estimate is never below it
// (else a request could cost more than gunbaid admitted) and, for honest
// logs, not far above it (else an honest log could be refused).
#include "replay/parse_cost.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/battle_log.pb.h"

namespace gunbai {
namespace {

namespace v1 = ::gunbai::v1;

v1::BattleLog TextLog(const std::string& name) {
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &log))
      << name;
  return log;
}

replay::ParseCost EstimateOf(const google::protobuf::Message& message,
                             int chunk = 4096) {
  static const replay::ParseCostModel* const model =
      new replay::ParseCostModel(*v1::AuditLogRequest::descriptor());
  EXPECT_EQ(message.GetDescriptor(), v1::AuditLogRequest::descriptor());
  const std::string bytes = message.SerializeAsString();
  // Small chunks, as gRPC's slices come: the walk crosses their edges.
  google::protobuf::io::ArrayInputStream input(
      bytes.data(), static_cast<int>(bytes.size()), chunk);
  return model->Estimate(input, "request");
}

// Parses the request's bytes afresh (a copy made by assignment would size
// its repeated fields exactly) and returns protobuf's count of its memory.
std::int64_t SpaceUsedParsed(const v1::AuditLogRequest& request) {
  v1::AuditLogRequest parsed;
  EXPECT_TRUE(parsed.ParseFromString(request.SerializeAsString()));
  return static_cast<std::int64_t>(parsed.SpaceUsedLong());
}

v1::AuditLogRequest RequestOf(const v1::BattleLog& log) {
  v1::AuditLogRequest request;
  *request.mutable_log() = log;
  return request;
}

v1::Event MoraleNaming(int seq, const std::string& name, int times) {
  v1::Event event;
  event.set_seq(seq);
  event.set_turn(1);
  event.set_clan("oda");
  v1::MoraleTest* test = event.mutable_morale_test();
  test->set_unit("oda-ashigaru");
  for (int i = 0; i < times; ++i) {
    test->mutable_facts()->add_friends_routing_near(name);
  }
  return event;
}

void ExpectBounds(const v1::AuditLogRequest& request, double most_over,
                  const std::string& what) {
  const replay::ParseCost cost = EstimateOf(request);
  const std::int64_t used = SpaceUsedParsed(request);
  EXPECT_TRUE(cost.complete) << what;
  EXPECT_GE(cost.bytes, used) << what;
  EXPECT_LE(static_cast<double>(cost.bytes), most_over * used) << what;
}

TEST(ParseCostTest, HonestLogsAreEstimatedFromAboveAndClosely) {
  for (const char* name :
       {"anegawa-clean.textproto", "nagashino-melee.textproto",
        "sekigahara.textproto", "skf-kawanakajima.textproto"}) {
    ExpectBounds(RequestOf(TextLog(name)), 2.5, name);
  }
  for (int units : {12, 150}) {
    generate::GeneratorOptions options;
    options.seed = 11;
    options.units_per_clan = units;
    options.target_events = 2000;
    ExpectBounds(RequestOf(generate::GenerateLog(options)), 2.5,
                 absl::StrCat("generated, ", units, " units a clan"));
  }
}

TEST(ParseCostTest, RepeatedEmptyNamesCostTheirObjectsNotTheirBytes) {
  v1::AuditLogRequest request = RequestOf(TextLog("anegawa-clean.textproto"));
  *request.mutable_log()->add_events() = MoraleNaming(90, "", 100'000);
  const replay::ParseCost cost = EstimateOf(request);
  ExpectBounds(request, 2.5, "100,000 empty names");
  // Worked by hand: each empty name is 2 bytes on the wire and, parsed, a
  // slot (8 bytes, 16 with the spare room) and a 32-byte std::string with
  // its 16-byte allocation header: 64 bytes, 6.4 MB for 100,000.
  EXPECT_GE(cost.bytes, 6'400'000);
  EXPECT_LE(cost.bytes, 6'400'000 + 200'000);
  // The list is named with the event's place in the log.
  EXPECT_EQ(cost.longest_list_entries, 100'000);
  EXPECT_EQ(cost.longest_list,
            absl::StrCat("request.log.events[", request.log().events_size() - 1,
                         "].morale_test.facts.friends_routing_near"));
}

TEST(ParseCostTest, AFewBytesCostAtMostTheModelsBoundEach) {
  const replay::ParseCostModel model(*v1::AuditLogRequest::descriptor());
  // The empty name's 64 bytes for 2 is 32 a byte; an empty repeated message
  // of the largest class costs more, so the bound is at least 32.
  EXPECT_GE(model.MaxBytesPerWireByte(), 32);
  for (const auto& request :
       {RequestOf(TextLog("sekigahara.textproto")), [] {
          v1::AuditLogRequest r;
          *r.mutable_log()->add_events() = MoraleNaming(3, "", 1000);
          for (int i = 0; i < 1000; ++i) {
            r.mutable_log()->add_events()->mutable_melee_round()->add_sides();
          }
          return r;
        }()}) {
    const std::int64_t wire = static_cast<std::int64_t>(request.ByteSizeLong());
    EXPECT_LE(EstimateOf(request).bytes,
              wire * model.MaxBytesPerWireByte() +
                  static_cast<std::int64_t>(
                      v1::AuditLogRequest::default_instance().SpaceUsedLong()));
  }
}

TEST(ParseCostTest, BytesThatStopParsingAreMarkedIncomplete) {
  std::string bytes =
      RequestOf(TextLog("anegawa-clean.textproto")).SerializeAsString();
  bytes.resize(bytes.size() / 2);
  const replay::ParseCostModel model(*v1::AuditLogRequest::descriptor());
  google::protobuf::io::ArrayInputStream input(bytes.data(),
                                               static_cast<int>(bytes.size()));
  const replay::ParseCost cost = model.Estimate(input, "request");
  EXPECT_FALSE(cost.complete);
  EXPECT_GT(cost.bytes, 0);
}

// The same game with every unit id two letters long: more of its bytes are
// objects and fewer are text, the costliest an honest log gets (parsed, it
// measured 7.9 times its size, estimated 10.9).
TEST(ParseCostTest, AnHonestLogOfShortIdsIsEstimatedClosely) {
  generate::GeneratorOptions options;
  options.seed = 11;
  options.units_per_clan = 12;
  options.target_events = 2000;
  const v1::BattleLog log = generate::GenerateLog(options);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(log, &text));
  for (int i = 0; i < log.order_of_battle().units_size(); ++i) {
    const std::string quoted =
        absl::StrCat("\"", log.order_of_battle().units(i).id(), "\"");
    const std::string short_id = {'"', static_cast<char>('a' + i % 26),
                                  static_cast<char>('a' + i / 26), '"'};
    for (std::size_t at = text.find(quoted); at != std::string::npos;
         at = text.find(quoted, at + short_id.size())) {
      text.replace(at, quoted.size(), short_id);
    }
  }
  v1::BattleLog short_ids;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &short_ids));
  ASSERT_LT(short_ids.ByteSizeLong(), log.ByteSizeLong());
  ExpectBounds(RequestOf(short_ids), 2.5, "two-letter ids");
}

}  // namespace
}  // namespace gunbai
