// AuditLog replays the log of its request from the wire bytes one event at a
// time (service/daemon/audit_service.cc, replay/log_stream.h) instead of
// parsing the log whole first. Whatever the bytes, the answer must be the one
// the whole parse gives: for each request below, AuditEncodedLog (streamed) and
// AuditParsedLog of the request parsed whole (the path every request took
// before, and still takes when the stream gives up) give the same status,
// code and message, and the same report, byte for byte. A request whose
// bytes do not parse whole must be INVALID_ARGUMENT with the undecodable
// message, as before.
//
// AuditLogStream (AuditLogStreamEncoded) is checked against the same whole
// parse for every request here: the same status, and the pieces it sends,
// merged, the same report byte for byte; pieces in the documented order
// and bound (outcomes, findings, impacts, the rest last), and the same
// pieces when the request is served again.
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
#include "service/daemon/audit_service.h"
#include "service/daemon/decode_errors.h"

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
    ExpectSamePieces(bytes, whole_status, whole);
    // What the AuditLog RPC sends: protobuf's own serialization of the
    // whole parse's response (no maps in it: one canonical form), though
    // built of the outcomes serialized as they came.
    grpc::ServerContext wire_context;
    grpc::Slice again(bytes);
    grpc::ByteBuffer request_again(&again, 1);
    grpc::ByteBuffer answer;
    const grpc::Status wire_status =
        audits_->AuditEncodedLogOnWire(&wire_context, request_again, &answer);
    EXPECT_EQ(wire_status.error_code(), whole_status.error_code());
    if (wire_status.ok()) {
      std::vector<grpc::Slice> slices;
      EXPECT_TRUE(answer.Dump(&slices).ok());
      std::string sent;
      for (const grpc::Slice& slice : slices) {
        sent.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
      }
      EXPECT_EQ(sent, whole.SerializeAsString());
    }
    return streamed_status;
  }

  // Serves `bytes` to AuditLogStream and returns its status and the bytes
  // of each piece it sent.
  grpc::Status StreamPieces(const std::string& bytes,
                            std::vector<std::string>& pieces) {
    grpc::ServerContext context;
    grpc::Slice slice(bytes);
    grpc::ByteBuffer wire(&slice, 1);
    return audits_->AuditLogStreamEncoded(
        &context, wire, [&pieces](const v1::AuditLogStreamResponse& piece) {
          pieces.push_back(Bytes(piece));
          return true;
        });
  }

  // Expects AuditLogStream to answer `bytes` as the whole parse answered
  // them (`whole_status`, `whole`), in pieces as AuditLogStreamResponse
  // says, the same pieces twice.
  void ExpectSamePieces(const std::string& bytes,
                        const grpc::Status& whole_status,
                        const v1::AuditLogResponse& whole) {
    std::vector<std::string> pieces;
    const grpc::Status status = StreamPieces(bytes, pieces);
    EXPECT_EQ(status.error_code(), whole_status.error_code());
    // The undecodable message names the method called.
    const std::string undecodable =
        UndecodableRequest("/gunbai.v1.AuditService/AuditLog").error_message();
    EXPECT_EQ(status.error_message(),
              whole_status.error_message() == undecodable
                  ? UndecodableRequest("/gunbai.v1.AuditService/AuditLogStream")
                        .error_message()
                  : whole_status.error_message());
    if (!status.ok()) return;
    ASSERT_FALSE(pieces.empty());
    v1::AuditReport merged;
    // 0 outcomes, 1 findings, 2 impacts: each piece's kind, never lower
    // than the one before.
    int kind = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      v1::AuditLogStreamResponse piece;
      ASSERT_TRUE(piece.ParseFromString(pieces[i]));
      const v1::AuditReport& r = piece.report();
      const int lists = (r.outcomes_size() > 0) + (r.findings_size() > 0) +
                        (r.impacts_size() > 0);
      if (i + 1 == pieces.size()) {
        EXPECT_EQ(lists, 0) << "the last piece holds the rest only";
      } else {
        EXPECT_EQ(lists, 1) << "piece " << i << " holds one list";
        v1::AuditReport list_only = r;
        list_only.clear_outcomes();
        list_only.clear_findings();
        list_only.clear_impacts();
        EXPECT_EQ(list_only.ByteSizeLong(), 0u) << "piece " << i;
        const int this_kind = r.outcomes_size() > 0   ? 0
                              : r.findings_size() > 0 ? 1
                                                      : 2;
        EXPECT_GE(this_kind, kind) << "piece " << i;
        kind = this_kind;
        // At most 1 MiB of items, each with its tag and length (a few bytes
        // more for the piece's own framing), unless one item alone.
        const int items =
            r.outcomes_size() + r.findings_size() + r.impacts_size();
        if (items > 1) {
          EXPECT_LE(pieces[i].size(), (1u << 20) + 16) << "piece " << i;
        }
      }
      merged.MergeFrom(r);
    }
    EXPECT_EQ(Bytes(merged), Bytes(whole.report()));
    std::vector<std::string> again;
    EXPECT_TRUE(StreamPieces(bytes, again).ok());
    EXPECT_EQ(again, pieces) << "the same request gives the same pieces";
    last_pieces_ = pieces.size();
  }

  // How many pieces the last OK AuditLogStream answer had.
  std::size_t last_pieces_ = 0;

  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<AuditServiceImpl> audits_;
};

v1::AuditLogRequest Generated(std::uint64_t seed, int faults, bool outcomes,
                              bool impact, int units = 12, int events = 600) {
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

// A battle of 200 units a side with faults, outcomes and impact: over a
// MiB of outcomes, so that AuditLogStream sends several pieces of them
// (ExpectSamePieces checks their order, bound and merge).
TEST_F(AuditStreamRpc, ALargeReportIsSentInSeveralPiecesThatMergeToIt) {
  const v1::AuditLogRequest request = Generated(13, 12, true, true, 200, 8000);
  EXPECT_TRUE(ExpectSameAnswer("large", request.SerializeAsString()).ok());
  // Worked out from the bound, not from the engine: a report of R bytes of
  // outcomes needs at least R / 1 MiB pieces of them, plus the findings'
  // and the last piece.
  v1::AuditLogResponse whole;
  v1::AuditLogRequest parsed = request;
  grpc::ServerContext context;
  ASSERT_TRUE(audits_->AuditParsedLog(&context, parsed, &whole).ok());
  v1::AuditReport outcomes_only;
  *outcomes_only.mutable_outcomes() = whole.report().outcomes();
  ASSERT_GT(outcomes_only.ByteSizeLong(), 1u << 20);
  EXPECT_GE(last_pieces_, outcomes_only.ByteSizeLong() / (1u << 20) + 2);
  ASSERT_GT(whole.report().impacts_size(), 0);
}

// The log's events before its header and order of battle: the streamed
// audit reads the head after them (a second and third pass), and with
// outcomes AuditLogStream reads the head first. Same answers.
TEST_F(AuditStreamRpc, AHeadAfterTheEventsGivesTheSameReport) {
  for (int flags = 0; flags < 4; ++flags) {
    const v1::AuditLogRequest request =
        Generated(21, 5, (flags & 1) != 0, (flags & 2) != 0);
    v1::AuditLogRequest events = request;
    events.mutable_log()->clear_header();
    events.mutable_log()->clear_order_of_battle();
    v1::AuditLogRequest head = request;
    head.mutable_log()->clear_events();
    head.mutable_log()->clear_terrain();
    head.clear_record_outcomes();
    head.clear_impact();
    EXPECT_TRUE(
        ExpectSameAnswer("head last, flags " + std::to_string(flags),
                         events.SerializeAsString() + head.SerializeAsString())
            .ok());
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
  // Field 99, varint 1 (tag 99 << 3 | 0 = 792, varint 0x98 0x06), before
  // everything; and field 1 as a varint (tag 0x08), which is not the log:
  // unknown fields. (Field 9 served here until it became all_readings.)
  EXPECT_TRUE(ExpectSameAnswer("unknown fields",
                               std::string("\x98\x06\x01\x08\x05", 5) +
                                   request.SerializeAsString())
                  .ok());
  // Every reading, the readings one by one and the remedies: the fields the
  // report carries after its outcomes (numbered 11 on) come after them
  // streamed too.
  v1::AuditLogRequest extras = request;
  extras.set_all_readings(true);
  extras.set_readings(true);
  extras.set_remedies(true);
  EXPECT_TRUE(ExpectSameAnswer("every extra", extras.SerializeAsString()).ok());
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
