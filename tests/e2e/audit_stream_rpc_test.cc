// AuditLog replays the log of its request from the wire bytes one event at a
// time (service/audit_service.cc, replay/log_stream.h) instead of parsing
// the log whole first. Whatever the bytes, the answer must be the one the
// whole parse gives: for each request below, AuditEncodedLog (streamed) and
// AuditParsedLog of the request parsed whole (the path every request took
// before, and still takes when the stream gives up) give the same status,
// code and message, and the same report, byte for byte. A request whose
// bytes do not parse whole must be INVALID_ARGUMENT with the undecodable
// message, as before.
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/audit_service.h"
#include "service/decode_errors.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

// Deterministic bytes of a message (map order fixed), to compare reports.
std::string Bytes(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  return out;
}

class AuditStreamRpc : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    audits_ = std::make_unique<AuditServiceImpl>(catalog_.get());
  }

  // Serves `bytes` both ways and expects the same answer. Returns the
  // streamed status, for the caller to check what it must be.
  grpc::Status ExpectSameAnswer(const std::string& what,
                                const std::string& bytes) {
    SCOPED_TRACE(what);
    // A context bound to no call: never cancelled.
    grpc::ServerContext streamed_context;
    grpc::Slice slice(bytes);
    grpc::ByteBuffer wire(&slice, 1);
    v1::AuditLogResponse streamed;
    const grpc::Status streamed_status =
        audits_->AuditEncodedLog(&streamed_context, wire, &streamed);

    grpc::Status whole_status;
    v1::AuditLogResponse whole;
    v1::AuditLogRequest request;
    if (!request.ParseFromString(bytes)) {
      whole_status = UndecodableRequest("/gunbai.v1.AuditService/AuditLog");
    } else {
      grpc::ServerContext whole_context;
      whole_status = audits_->AuditParsedLog(&whole_context, request, &whole);
    }
    EXPECT_EQ(streamed_status.error_code(), whole_status.error_code());
    EXPECT_EQ(streamed_status.error_message(), whole_status.error_message());
    EXPECT_EQ(Bytes(streamed), Bytes(whole));
    return streamed_status;
  }

  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<AuditServiceImpl> audits_;
};

v1::AuditLogRequest Generated(std::uint64_t seed, int faults, bool outcomes,
                              bool impact) {
  generate::GeneratorOptions options;
  options.seed = seed;
  options.units_per_clan = 12;
  options.target_events = 600;
  options.faults = faults;
  v1::AuditLogRequest request;
  *request.mutable_log() = generate::GenerateGame(options).log;
  request.set_record_outcomes(outcomes);
  request.set_impact(impact);
  return request;
}

// Generated logs, clean and with faults, with and without outcomes and
// impact: all served OK (the generator writes logs the replay accepts), the
// faulty ones with findings, so that the reports compared are not empty.
TEST_F(AuditStreamRpc, GeneratedLogsGiveTheWholeParsesReport) {
  for (std::uint64_t seed : {1u, 7u, 23u}) {
    for (int faults : {0, 6}) {
      for (int flags = 0; flags < 4; ++flags) {
        const v1::AuditLogRequest request =
            Generated(seed, faults, (flags & 1) != 0, (flags & 2) != 0);
        const grpc::Status status = ExpectSameAnswer(
            "seed " + std::to_string(seed) + " faults " +
                std::to_string(faults) + " flags " + std::to_string(flags),
            request.SerializeAsString());
        EXPECT_TRUE(status.ok()) << status.error_message();
      }
    }
  }
}

// The request's fields in the other order (flags first, the log last), the
// log given twice (protobuf merges the two: the second's events follow the
// first's), and an unknown top-level field (kept and ignored): the split of
// the top-level fields must read each as the whole parse does.
TEST_F(AuditStreamRpc, FieldOrderRepeatsAndUnknownFieldsReadAsTheWholeParse) {
  const v1::AuditLogRequest request = Generated(5, 4, true, true);
  v1::AuditLogRequest flags = request;
  flags.clear_log();
  v1::AuditLogRequest log_only;
  *log_only.mutable_log() = request.log();
  EXPECT_TRUE(ExpectSameAnswer("flags first", flags.SerializeAsString() +
                                                  log_only.SerializeAsString())
                  .ok());
  // The log's head in one `log` field, its events in a second.
  v1::AuditLogRequest head = log_only;
  head.mutable_log()->clear_events();
  v1::AuditLogRequest events = log_only;
  events.mutable_log()->clear_header();
  events.mutable_log()->clear_order_of_battle();
  EXPECT_TRUE(
      ExpectSameAnswer("the log in two fields", head.SerializeAsString() +
                                                    flags.SerializeAsString() +
                                                    events.SerializeAsString())
          .ok());
  // Field 9, varint 1 (tag 9 << 3 | 0 = 0x48), before everything; and
  // field 1 as a varint (tag 0x08), which is not the log: an unknown field.
  EXPECT_TRUE(
      ExpectSameAnswer("unknown fields", std::string("\x48\x01\x08\x05", 4) +
                                             request.SerializeAsString())
          .ok());
  // record_outcomes given twice, 1 then 0 (tags 0x18): the last wins.
  EXPECT_TRUE(ExpectSameAnswer("a flag twice", request.SerializeAsString() +
                                                   std::string("\x18\x00", 2))
                  .ok());
}

// Undecodable and refused requests: every truncation point of a small
// request's first bytes and a spread of later ones (a length that runs past
// the end, a cut tag or varint), bytes flipped, an end-group tag at top
// level, a ruleset that does not parse, a header naming no built-in
// ruleset. Each is answered as the whole parse answers it; the undecodable
// ones must be INVALID_ARGUMENT (the truncation to 0 bytes is an empty
// request, which decodes: a log with no header, refused by the catalog).
TEST_F(AuditStreamRpc, MalformedAndRefusedRequestsGiveTheSameErrors) {
  const std::string bytes = Generated(3, 2, true, false).SerializeAsString();
  std::vector<std::size_t> cuts;
  for (std::size_t cut = 0; cut < 64; ++cut) cuts.push_back(cut);
  for (std::size_t cut = 64; cut < bytes.size(); cut += bytes.size() / 37) {
    cuts.push_back(cut);
  }
  int invalid = 0;
  for (std::size_t cut : cuts) {
    const grpc::Status status =
        ExpectSameAnswer("cut at " + std::to_string(cut), bytes.substr(0, cut));
    if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) ++invalid;
  }
  // Every cut leaves a request the whole parse refuses or a log the replay
  // refuses: none is served OK.
  EXPECT_EQ(invalid, static_cast<int>(cuts.size()));
  for (std::size_t at = 1; at < bytes.size(); at += bytes.size() / 29) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0xa5);
    ExpectSameAnswer("flipped at " + std::to_string(at), flipped);
  }
  // Tag 0x0c: field 1, wire type 4 (end group), which no message opened.
  EXPECT_EQ(ExpectSameAnswer("end group", std::string("\x0c", 1) + bytes)
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::AuditLogRequest bad_ruleset = Generated(3, 0, false, false);
  bad_ruleset.set_ruleset_textproto("tables { no");
  EXPECT_EQ(ExpectSameAnswer("bad ruleset", bad_ruleset.SerializeAsString())
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::AuditLogRequest unknown_ruleset = Generated(3, 0, false, false);
  unknown_ruleset.mutable_log()->mutable_header()->mutable_ruleset()->set_name(
      "no-such-ruleset");
  EXPECT_FALSE(
      ExpectSameAnswer("unknown ruleset", unknown_ruleset.SerializeAsString())
          .ok());
}

// An event larger than the stream's arena block (64 KiB), parsed on the
// heap instead: a morale test naming the first unit as routing near 20,000
// times (20,000 names of about 10 bytes, each with a tag and a length: over
// 200 KB), once among the events and once as the last. Same answers.
TEST_F(AuditStreamRpc, AnEventLargerThanTheArenaBlockGivesTheSameReport) {
  v1::AuditLogRequest request = Generated(4, 3, true, false);
  const v1::BattleLog& log = request.log();
  ASSERT_GT(log.events_size(), 10);
  ASSERT_GT(log.order_of_battle().units_size(), 0);
  v1::Event large = log.events(10);
  large.clear_body();
  v1::MoraleTest* test = large.mutable_morale_test();
  test->set_unit(log.order_of_battle().units(0).id());
  test->add_dice(3);
  test->add_dice(4);
  for (int i = 0; i < 20000; ++i) {
    test->mutable_facts()->add_friends_routing_near(
        log.order_of_battle().units(0).id());
  }
  ASSERT_GT(large.ByteSizeLong(), 64u << 10);
  v1::AuditLogRequest last = request;
  *last.mutable_log()->add_events() = large;
  EXPECT_TRUE(ExpectSameAnswer("last", last.SerializeAsString()).ok());
  v1::AuditLogRequest among = request;
  *among.mutable_log()->mutable_events(10) = large;
  EXPECT_TRUE(ExpectSameAnswer("among", among.SerializeAsString()).ok());
}

// An inline ruleset (the built-in daimyo text with a firing hit score of 7
// instead of 8, so that the reports differ from the catalog's): given once,
// given twice (the last wins: a first one that does not parse is
// overridden), with a byte that is not UTF-8 (the whole parse refuses a
// proto3 string so: INVALID_ARGUMENT), and with a word where the hit score
// goes (the text does not parse: the load refuses it, after the log's own
// checks).
TEST_F(AuditStreamRpc, InlineRulesetsReadAsTheWholeParse) {
  std::ifstream file(GUNBAI_SOURCE_DIR "/rules/daimyo/daimyo.textproto");
  std::stringstream text;
  text << file.rdbuf();
  std::string fire7 = text.str();
  ASSERT_NE(fire7.find("hit_score: 8"), std::string::npos);
  fire7.replace(fire7.find("hit_score: 8"), 12, "hit_score: 7");
  v1::AuditLogRequest request = Generated(9, 3, true, true);
  request.set_ruleset_textproto(fire7);
  EXPECT_TRUE(ExpectSameAnswer("inline", request.SerializeAsString()).ok());
  v1::AuditLogRequest first;
  first.set_ruleset_textproto("tables { no");
  EXPECT_TRUE(ExpectSameAnswer("twice", first.SerializeAsString() +
                                            request.SerializeAsString())
                  .ok());
  v1::AuditLogRequest not_utf8 = request;
  not_utf8.set_ruleset_textproto(fire7 + "\xff");
  EXPECT_EQ(
      ExpectSameAnswer("not UTF-8", not_utf8.SerializeAsString()).error_code(),
      grpc::StatusCode::INVALID_ARGUMENT);
  v1::AuditLogRequest unparsed = request;
  std::string bad = fire7;
  bad.replace(bad.find("hit_score: 7"), 12, "hit_score: seven");
  unparsed.set_ruleset_textproto(bad);
  EXPECT_FALSE(
      ExpectSameAnswer("does not parse", unparsed.SerializeAsString()).ok());
}

}  // namespace
}  // namespace gunbai::service
