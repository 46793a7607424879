// Diff diffs each log of its request from the request's bytes
// (service/daemon/diff_wire.h, replay/log_bytes.h) instead of parsing the
// request whole first. Whatever the bytes, the answers must be the whole
// parse's: for each request below, DiffEncoded (from the bytes) and DiffParsed
// of the request parsed whole (the path every request took before, and still
// takes when the bytes are not read) give the same status, code and
// message, and the same replies, byte for byte, log by log (the workers
// finish in any order, so the replies are compared by index), and the same
// summary. A request whose bytes do not parse whole must be
// INVALID_ARGUMENT with the undecodable message, as before.
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "replay/audit.h"
#include "replay/log_bytes.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/decode_errors.h"
#include "service/daemon/diff_wire.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

// Deterministic bytes of a message (map order fixed), to compare replies.
std::string Bytes(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The built-in daimyo ruleset with firing hitting on 7, not 8: the diffs
// are not empty.
std::string Fire7() {
  std::string text =
      ReadFile(GUNBAI_SOURCE_DIR "/rules/daimyo/daimyo.textproto");
  text.replace(text.find("hit_score: 8"), 12, "hit_score: 7");
  return text;
}

v1::BattleLog Generated(std::uint64_t seed, int faults) {
  generate::GeneratorOptions options;
  options.seed = seed;
  options.units_per_clan = 12;
  options.target_events = 400;
  options.faults = faults;
  return generate::GenerateGame(options).log;
}

v1::BattleLog Anegawa() {
  v1::BattleLog log;
  google::protobuf::TextFormat::ParseFromString(
      ReadFile(GUNBAI_TEST_DATA "/anegawa-clean.textproto"), &log);
  return log;
}

// What a Diff call answered: its status and its replies by index, the
// summary under -1.
struct Answer {
  grpc::Status status;
  std::map<std::int64_t, std::string> replies;
};

class DiffStreamRpc : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    audits_ = std::make_unique<AuditServiceImpl>(catalog_.get());
  }

  static std::function<bool(const v1::DiffResponse&)> Collect(Answer& answer) {
    return [&answer](const v1::DiffResponse& response) {
      const std::int64_t key =
          response.has_summary() ? -1
                                 : static_cast<std::int64_t>(response.index());
      EXPECT_EQ(answer.replies.count(key), 0u) << "index " << key << " twice";
      answer.replies[key] = Bytes(response);
      return true;
    };
  }

  // Serves `bytes` both ways and expects the same answer. Returns the
  // answer from the bytes, for the caller to check what it must be.
  Answer ExpectSameAnswer(const std::string& what, const std::string& bytes) {
    SCOPED_TRACE(what);
    // A context bound to no call: never cancelled.
    grpc::ServerContext streamed_context;
    grpc::Slice slice(bytes);
    grpc::ByteBuffer wire(&slice, 1);
    Answer streamed;
    streamed.status =
        audits_->DiffEncoded(&streamed_context, wire, Collect(streamed));

    Answer whole;
    v1::DiffRequest request;
    if (!request.ParseFromString(bytes)) {
      whole.status = UndecodableRequest("/gunbai.v1.AuditService/Diff");
    } else {
      grpc::ServerContext whole_context;
      whole.status =
          audits_->DiffParsed(&whole_context, request, Collect(whole));
    }
    EXPECT_EQ(streamed.status.error_code(), whole.status.error_code());
    EXPECT_EQ(streamed.status.error_message(), whole.status.error_message());
    EXPECT_EQ(streamed.replies.size(), whole.replies.size());
    for (const auto& [index, reply] : whole.replies) {
      auto it = streamed.replies.find(index);
      if (it == streamed.replies.end()) {
        ADD_FAILURE() << "no reply " << index;
        continue;
      }
      EXPECT_EQ(it->second, reply) << "reply " << index;
    }
    return streamed;
  }

  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<AuditServiceImpl> audits_;
};

// The logs of the requests below take the path from the bytes: a test that
// the comparisons are of the new path, not of the whole parse twice.
TEST(DiffWire, GeneratedLogsAreReadFromTheirBytes) {
  for (std::uint64_t seed : {1u, 2u}) {
    v1::DiffLogInput input;
    input.set_name("generated");
    *input.mutable_log() = Generated(seed, 3);
    EXPECT_TRUE(DiffInputReadableFromBytes(input.SerializeAsString()));
    auto head = replay::ReadLogBytesHead(input.log().SerializeAsString(), 98);
    ASSERT_TRUE(head.ok()) << head.status();
    EXPECT_EQ(head->events,
              static_cast<std::uint64_t>(input.log().events_size()));
    EXPECT_EQ(head->head.header().SerializeAsString(),
              input.log().header().SerializeAsString());
  }
  // A field the reading does not know (9, varint): not read from bytes.
  EXPECT_FALSE(DiffInputReadableFromBytes(std::string("\x48\x01", 2)));
}

// Generated logs, clean and with faults, and Anegawa, under a ruleset whose
// firing hits on 7 (the old side the built-in one): served OK, changed.
TEST_F(DiffStreamRpc, GeneratedLogsGiveTheWholeParsesDiffs) {
  v1::DiffRequest request;
  request.set_new_ruleset_textproto(Fire7());
  int n = 0;
  for (std::uint64_t seed : {1u, 7u, 23u}) {
    for (int faults : {0, 6}) {
      v1::DiffLogInput* input = request.add_logs();
      input->set_name("log-" + std::to_string(n++));
      *input->mutable_log() = Generated(seed, faults);
    }
  }
  *request.add_logs()->mutable_log() = Anegawa();
  const Answer answer =
      ExpectSameAnswer("generated", request.SerializeAsString());
  EXPECT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_EQ(answer.replies.size(), 8u);
  v1::DiffResponse last;
  ASSERT_TRUE(last.ParseFromString(answer.replies.at(-1)));
  EXPECT_GT(last.summary().logs_changed(), 0u);
}

// Baseline mode: a log with its saved report (audited under the built-in
// ruleset, outcomes recorded), one with a report saved without outcomes,
// one without any (NO_BASELINE).
TEST_F(DiffStreamRpc, BaselinesGiveTheWholeParsesDiffs) {
  v1::DiffRequest request;
  request.set_new_ruleset_textproto(Fire7());
  request.set_compare_to_baselines(true);
  for (int i = 0; i < 3; ++i) {
    v1::DiffLogInput* input = request.add_logs();
    input->set_name("log-" + std::to_string(i));
    *input->mutable_log() = Generated(11 + i, 2);
    if (i == 2) continue;
    auto ruleset = catalog_->ForLog(input->log().header());
    ASSERT_TRUE(ruleset.ok());
    replay::AuditOptions options;
    options.record_outcomes = i == 0;
    auto report = replay::AuditLog(input->log(), **ruleset, options);
    ASSERT_TRUE(report.ok());
    *input->mutable_baseline() = *report;
  }
  EXPECT_TRUE(
      ExpectSameAnswer("baselines", request.SerializeAsString()).status.ok());
  // And an old ruleset with baselines: refused, as before.
  request.set_old_ruleset_textproto(Fire7());
  EXPECT_EQ(ExpectSameAnswer("old ruleset", request.SerializeAsString())
                .status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

// The fields in other orders and given twice, and unknown fields: the
// rulesets before the logs; a log's head in one `log` field and its events
// in a second (protobuf merges them), the header after the events; a name
// given twice (the last wins); seqs that repeat; an unknown field at the
// top level (kept and ignored), in a DiffLogInput and in a log (the request
// is then parsed whole: same answers).
TEST_F(DiffStreamRpc, FieldOrderRepeatsAndUnknownFieldsReadAsTheWholeParse) {
  v1::DiffRequest settings;
  settings.set_new_ruleset_textproto(Fire7());
  const v1::BattleLog log = Generated(5, 4);
  v1::DiffRequest logs;
  *logs.add_logs()->mutable_log() = log;
  EXPECT_TRUE(
      ExpectSameAnswer("settings after",
                       logs.SerializeAsString() + settings.SerializeAsString())
          .status.ok());

  v1::BattleLog head = log;
  head.clear_events();
  v1::BattleLog events = log;
  events.clear_header();
  events.clear_order_of_battle();
  v1::DiffLogInput name;
  name.set_name("first name");
  v1::DiffLogInput second_name;
  second_name.set_name("second name");
  v1::DiffLogInput head_field;
  *head_field.mutable_log() = head;
  v1::DiffLogInput events_field;
  *events_field.mutable_log() = events;
  // events, then the head, then the names: one DiffLogInput.
  const std::string input =
      events_field.SerializeAsString() + head_field.SerializeAsString() +
      name.SerializeAsString() + second_name.SerializeAsString();
  EXPECT_TRUE(DiffInputReadableFromBytes(input));
  std::string request = settings.SerializeAsString();
  request += '\x0a';  // logs, field 1, length-delimited.
  // The length's bytes are in the string once `out` is gone.
  std::string with_length;
  {
    google::protobuf::io::StringOutputStream stream(&with_length);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.WriteVarint32(static_cast<std::uint32_t>(input.size()));
  }
  request += with_length + input;
  EXPECT_TRUE(ExpectSameAnswer("split log", request).status.ok());

  v1::DiffRequest repeated_seqs = settings;
  v1::BattleLog again = log;
  again.mutable_events(5)->set_seq(again.events(4).seq());
  *repeated_seqs.add_logs()->mutable_log() = again;
  EXPECT_TRUE(
      ExpectSameAnswer("repeated seq", repeated_seqs.SerializeAsString())
          .status.ok());

  // Field 9, varint 1 (tag 0x48): at the top level; inside the first
  // DiffLogInput (its bytes end with it); inside its log.
  const std::string bytes =
      settings.SerializeAsString() + logs.SerializeAsString();
  EXPECT_TRUE(
      ExpectSameAnswer("unknown at top", std::string("\x48\x01", 2) + bytes)
          .status.ok());
  v1::DiffLogInput with_unknown = logs.logs(0);
  with_unknown.mutable_log()->mutable_header()->set_event("x");
  std::string unknown_input =
      with_unknown.SerializeAsString() + std::string("\x48\x01", 2);
  EXPECT_FALSE(DiffInputReadableFromBytes(unknown_input));
  std::string unknown_in_log =
      with_unknown.log().SerializeAsString() + std::string("\x48\x01", 2);
  EXPECT_FALSE(replay::ReadLogBytesHead(unknown_in_log, 98).ok());
}

// Undecodable and refused requests: cuts at many points, bytes flipped, an
// event with an enum number no value names (CheckKnownEnums's message), a
// name and an event string that are not UTF-8, a ruleset that does not
// parse, a log whose order of battle the engine refuses (a FAILED diff),
// an empty request.
TEST_F(DiffStreamRpc, MalformedAndRefusedRequestsGiveTheSameAnswers) {
  v1::DiffRequest request;
  for (std::uint64_t seed : {3u, 4u}) {
    *request.add_logs()->mutable_log() = Generated(seed, 2);
  }
  const std::string bytes = request.SerializeAsString();
  int invalid = 0;
  int cuts = 0;
  for (std::size_t cut = 1; cut < bytes.size(); cut += bytes.size() / 41) {
    ++cuts;
    const Answer answer =
        ExpectSameAnswer("cut at " + std::to_string(cut), bytes.substr(0, cut));
    if (answer.status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      ++invalid;
    }
  }
  EXPECT_GT(invalid, 0);
  for (std::size_t at = 1; at < bytes.size(); at += bytes.size() / 29) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0xa5);
    ExpectSameAnswer("flipped at " + std::to_string(at), flipped);
  }
  v1::DiffRequest unknown_enum = request;
  for (v1::Event& event :
       *unknown_enum.mutable_logs(1)->mutable_log()->mutable_events()) {
    if (event.has_firing()) {
      event.mutable_firing()->mutable_facts()->set_range(
          static_cast<v1::RangeBand>(77));
      break;
    }
  }
  EXPECT_EQ(ExpectSameAnswer("unknown enum", unknown_enum.SerializeAsString())
                .status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::DiffRequest bad_name = request;
  bad_name.mutable_logs(1)->set_name("log\xff");
  EXPECT_EQ(ExpectSameAnswer("name not UTF-8", bad_name.SerializeAsString())
                .status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::DiffRequest bad_string = request;
  bad_string.mutable_logs(0)->mutable_log()->mutable_events(3)->set_clan(
      "oda\xff");
  EXPECT_EQ(ExpectSameAnswer("event not UTF-8", bad_string.SerializeAsString())
                .status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::DiffRequest bad_ruleset = request;
  bad_ruleset.set_new_ruleset_textproto("tables { no");
  EXPECT_EQ(ExpectSameAnswer("bad ruleset", bad_ruleset.SerializeAsString())
                .status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::DiffRequest bad_oob = request;
  bad_oob.mutable_logs(0)->mutable_log()->mutable_header()->clear_clans();
  EXPECT_TRUE(
      ExpectSameAnswer("bad order of battle", bad_oob.SerializeAsString())
          .status.ok());
  EXPECT_TRUE(ExpectSameAnswer("empty", "").status.ok());
}

// Tags protobuf's generated parser refuses but CodedInputStream::ReadTag
// takes (found by rpc_fuzzer: a Diff of an over-long tag answered OK with
// an empty summary, where the whole parse is undecodable): a tag's varint
// of more than five bytes (ReadTag keeps its low 32 bits) and field number
// 0, at the top of the request, in a log's input and in a log. A tag of
// exactly five bytes is legal and read alike.
TEST_F(DiffStreamRpc, TagsAParseRefusesAreRefusedFromTheBytes) {
  v1::DiffRequest request;
  *request.add_logs()->mutable_log() = Generated(5, 2);
  const std::string good = request.SerializeAsString();
  // Field 2 (compare_to_baselines), varint 0, its tag 0x10 in six bytes:
  // 0x90 0x80 0x80 0x80 0x80 0x00 (a parse stops at five).
  const std::string six_byte_tag("\x90\x80\x80\x80\x80\x00\x00", 7);
  // The same tag in five bytes, legal.
  const std::string five_byte_tag("\x90\x80\x80\x80\x00\x00", 6);
  // Field 0, wire type 0 (tag 0x00 ends a parse as an error) and wire type
  // 2 (tag 0x02) with an empty payload.
  const std::string field_zero_varint("\x00\x01", 2);
  const std::string field_zero_bytes("\x02\x00", 2);
  for (const std::string& bad :
       {six_byte_tag, field_zero_varint, field_zero_bytes}) {
    EXPECT_EQ(ExpectSameAnswer("at the top", good + bad).status.error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
    // Inside the log input (DiffRequest.logs, field 1) and inside its log
    // (DiffLogInput.log, field 2), each length grown by the bad bytes.
    v1::DiffLogInput input = request.logs(0);
    std::string log = input.log().SerializeAsString() + bad;
    input.clear_log();
    std::string input_bytes = input.SerializeAsString();
    {
      google::protobuf::io::StringOutputStream stream(&input_bytes);
      google::protobuf::io::CodedOutputStream out(&stream);
      out.WriteTag(v1::DiffLogInput::kLogFieldNumber << 3 | 2);
      out.WriteVarint32(static_cast<std::uint32_t>(log.size()));
      out.WriteString(log);
    }
    for (const std::string& payload : {input_bytes, input_bytes + bad}) {
      std::string bytes;
      {
        google::protobuf::io::StringOutputStream stream(&bytes);
        google::protobuf::io::CodedOutputStream out(&stream);
        out.WriteTag(v1::DiffRequest::kLogsFieldNumber << 3 | 2);
        out.WriteVarint32(static_cast<std::uint32_t>(payload.size()));
        out.WriteString(payload);
      }
      EXPECT_EQ(ExpectSameAnswer("in a log", bytes).status.error_code(),
                grpc::StatusCode::INVALID_ARGUMENT);
    }
  }
  const Answer five = ExpectSameAnswer("five-byte tag", good + five_byte_tag);
  EXPECT_TRUE(five.status.ok()) << five.status.error_message();
  EXPECT_EQ(five.replies.size(), 2u);  // The log's diff and the summary.
}

// An unknown group nested in an event, as deep as protobuf's limit of 100
// allows and one deeper: the event is parsed alone from the bytes, so its
// depth in the request must be counted as the whole parse counts it (the
// event is at depth 3: request, DiffLogInput, log). Both paths must agree
// at every depth around the limit; the deepest ones are undecodable.
TEST_F(DiffStreamRpc, NestingAtTheLimitReadsAsTheWholeParse) {
  v1::DiffRequest request;
  *request.add_logs()->mutable_log() = Generated(8, 0);
  int undecodable = 0;
  int decoded = 0;
  for (int depth = 90; depth <= 100; ++depth) {
    v1::DiffRequest nested = request;
    v1::Event* event = nested.mutable_logs(0)->mutable_log()->mutable_events(2);
    // Field 15 as a group: start tag 15 << 3 | 3 = 123, end tag 124.
    std::string groups(depth, '\x7b');
    groups += std::string(depth, '\x7c');
    // Merged alone, the event allows three levels more than in the
    // request: what it does not take, the request would not either.
    if (!event->MergeFromString(groups)) continue;
    const Answer answer = ExpectSameAnswer("depth " + std::to_string(depth),
                                           nested.SerializeAsString());
    ++(answer.status.ok() ? decoded : undecodable);
  }
  EXPECT_GT(decoded, 0);
  EXPECT_GT(undecodable, 0) << "no depth reached the limit";
}

}  // namespace
}  // namespace gunbai::service
