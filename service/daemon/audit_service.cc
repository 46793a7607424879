#include "service/daemon/audit_service.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpc/slice.h"
#include "grpcpp/support/method_handler.h"
#include "grpcpp/support/sync_stream.h"
#include "replay/all_readings.h"
#include "replay/audit.h"
#include "replay/corpus.h"
#include "replay/dice_stats.h"
#include "replay/diff.h"
#include "replay/finding_readings.h"
#include "replay/impact.h"
#include "replay/log_stream.h"
#include "replay/reconcile.h"
#include "replay/remedy.h"
#include "replay/text_errors.h"
#include "replay/tournament.h"
#include "replay/wire_tag.h"
#include "rules/digest.h"
#include "rules/excerpt.h"
#include "rules/status_macros.h"
#include "service/common/grpc_status.h"
#include "service/daemon/decode_errors.h"
#include "service/daemon/diff_wire.h"
#include "service/daemon/wire_request.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::internal::WireFormatLite;

// The methods' indices in AuditService, in the order of the proto (as the
// generated code numbers them).
constexpr int kAuditLogIndex = 0;
constexpr int kDiffIndex = 1;
constexpr int kDiceStatsIndex = 2;
constexpr int kAuditLogStreamIndex = 3;

// The status of a call whose client went away or whose deadline passed:
// the client no longer waits for the answer.
grpc::Status Abandoned() {
  return grpc::Status(grpc::StatusCode::CANCELLED,
                      "the call was cancelled or its deadline passed");
}

grpc::Status Undecodable(absl::string_view method) {
  return UndecodableRequest(absl::StrCat("/gunbai.v1.AuditService/", method));
}

// The tag of AuditReport.outcomes and of AuditLogResponse.report on the wire.
constexpr std::uint8_t kOutcomesTag =
    WireFormatLite::MakeTag(v1::AuditReport::kOutcomesFieldNumber,
                            WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
constexpr std::uint8_t kReportTag =
    WireFormatLite::MakeTag(v1::AuditLogResponse::kReportFieldNumber,
                            WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
static_assert(v1::AuditReport::kOutcomesFieldNumber < 16 &&
              v1::AuditLogResponse::kReportFieldNumber < 16);

void AppendVarint(std::uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Moves each outcome of `outcomes` onto the end of `bytes` as it stands in
// an AuditReport's bytes (its tag, its length, itself), leaving `outcomes`
// empty (its cleared messages kept for the replay to reuse): serialized, an
// outcome takes several times less memory than as a message.
void AppendSerialized(google::protobuf::RepeatedPtrField<v1::Outcome>& outcomes,
                      std::string& bytes) {
  for (const v1::Outcome& outcome : outcomes) {
    const std::size_t size = outcome.ByteSizeLong();
    bytes.push_back(static_cast<char>(kOutcomesTag));
    AppendVarint(size, bytes);
    const std::size_t start = bytes.size();
    bytes.resize(start + size);
    outcome.SerializeWithCachedSizesToArray(
        reinterpret_cast<std::uint8_t*>(bytes.data() + start));
  }
  outcomes.Clear();
}

// A slice of gRPC's that owns `bytes` (moved, not copied).
grpc::Slice SliceOwning(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  return grpc::Slice(
      grpc_slice_new_with_user_data(
          owned->data(), owned->size(),
          [](void* p) { delete static_cast<std::string*>(p); }, owned),
      grpc::Slice::STEAL_REF);
}

// The bytes of the AuditLogResponse of `report`, whose outcomes are
// `outcomes` (serialized by AppendSerialized; `report` holds none), as
// protobuf serializes the response: the report's fields in the order of
// their numbers, the outcomes (10) between the result (9) and the impacts
// (11), outcomes_recorded (12) and final_state_digest_version (13). `outcomes`
// is moved into the answer, not copied.
grpc::ByteBuffer ResponseBytes(v1::AuditReport& report, std::string outcomes) {
  // Every field numbered after the outcomes goes after them, as a whole
  // serialization orders them (impacts, the readings' labels, the
  // procedure, ...: all of them, so that a new field cannot be missed).
  v1::AuditReport after;
  std::vector<const google::protobuf::FieldDescriptor*> later;
  const google::protobuf::Descriptor* d = v1::AuditReport::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->number() > v1::AuditReport::kOutcomesFieldNumber) {
      later.push_back(d->field(i));
    }
  }
  report.GetReflection()->SwapFields(&report, &after, later);
  report.clear_outcomes();
  const std::size_t report_size =
      report.ByteSizeLong() + outcomes.size() + after.ByteSizeLong();
  std::string before;
  before.push_back(static_cast<char>(kReportTag));
  AppendVarint(report_size, before);
  report.AppendToString(&before);
  std::string rest = after.SerializeAsString();
  grpc::Slice slices[] = {SliceOwning(std::move(before)),
                          SliceOwning(std::move(outcomes)),
                          SliceOwning(std::move(rest))};
  return grpc::ByteBuffer(slices, 3);
}

// The most bytes of outcomes, findings or impacts one AuditLogStream piece
// holds (one item alone when it is larger).
constexpr std::size_t kAuditPieceBytes = 1 << 20;

// Sends the items of one repeated field of AuditReport in pieces of at most
// kAuditPieceBytes of items (each item counted with its tag and length), as
// they are added. Where a piece ends depends only on the items' sizes: the
// same items give the same pieces, however they are added.
template <typename Item>
class PiecePager {
 public:
  using Field = google::protobuf::RepeatedPtrField<Item>* (*)(v1::AuditReport*);

  PiecePager(Field field, const AuditServiceImpl::PieceWriter& write)
      : field_(field), write_(write) {}

  // Moves every item of `items` into pieces, sending each piece that is
  // full; `items` is left empty (its cleared items kept for reuse). Returns
  // false when a send fails.
  bool Add(google::protobuf::RepeatedPtrField<Item>& items) {
    for (Item& item : items) {
      const std::size_t size = item.ByteSizeLong();
      const std::size_t framed =
          1 + google::protobuf::io::CodedOutputStream::VarintSize64(size) +
          size;
      if (items_ > 0 && bytes_ + framed > kAuditPieceBytes && !Flush()) {
        return false;
      }
      field_(piece_.mutable_report())->Add()->Swap(&item);
      bytes_ += framed;
      ++items_;
    }
    items.Clear();
    return true;
  }

  // Sends the piece begun, if any. Returns false when the send fails.
  bool Flush() {
    if (items_ == 0) return true;
    const bool sent = write_(piece_);
    piece_.Clear();
    bytes_ = 0;
    items_ = 0;
    return sent;
  }

 private:
  const Field field_;
  const AuditServiceImpl::PieceWriter& write_;
  v1::AuditLogStreamResponse piece_;
  std::size_t bytes_ = 0;
  int items_ = 0;
};

google::protobuf::RepeatedPtrField<v1::Outcome>* OutcomesOf(
    v1::AuditReport* report) {
  return report->mutable_outcomes();
}
google::protobuf::RepeatedPtrField<v1::Finding>* FindingsOf(
    v1::AuditReport* report) {
  return report->mutable_findings();
}
google::protobuf::RepeatedPtrField<v1::DisputeImpact>* ImpactsOf(
    v1::AuditReport* report) {
  return report->mutable_impacts();
}

// Sends what `report` still holds, in AuditLogStream's order: its outcomes,
// findings and impacts in pieces (after the outcomes `outcomes` has begun
// to send), then the rest in the last piece. Returns false when a send
// fails.
bool SendReportPieces(v1::AuditReport& report,
                      PiecePager<v1::Outcome>& outcomes,
                      const AuditServiceImpl::PieceWriter& write) {
  if (!outcomes.Add(*report.mutable_outcomes()) || !outcomes.Flush()) {
    return false;
  }
  PiecePager<v1::Finding> findings(&FindingsOf, write);
  if (!findings.Add(*report.mutable_findings()) || !findings.Flush()) {
    return false;
  }
  PiecePager<v1::DisputeImpact> impacts(&ImpactsOf, write);
  if (!impacts.Add(*report.mutable_impacts()) || !impacts.Flush()) {
    return false;
  }
  v1::AuditLogStreamResponse last;
  // Emptied of the three above; the cleared items they kept are not sent.
  report.clear_outcomes();
  report.clear_findings();
  report.clear_impacts();
  *last.mutable_report() = std::move(report);
  return write(last);
}

}  // namespace

AuditServiceImpl::AuditServiceImpl(const replay::RulesetCatalog* rulesets,
                                   RequestBudget* budget)
    : rulesets_(rulesets), budget_(budget) {
  MarkMethodStreamed(
      kAuditLogIndex,
      UnaryOnWire<grpc::ByteBuffer>(
          "AuditLog",
          [this](grpc::ServerContext* context, grpc::ByteBuffer& request,
                 grpc::ByteBuffer* response) {
            return AuditEncodedLogOnWire(context, request, response);
          }));
  MarkMethodStreamed(kDiceStatsIndex,
                     UnaryOnWire<v1::DiceStatsResponse>(
                         "DiceStats", [this](grpc::ServerContext* context,
                                             grpc::ByteBuffer& request,
                                             v1::DiceStatsResponse* response) {
                           return DiceStatsEncoded(context, request, response);
                         }));
  MarkMethodStreamed(
      kAuditLogStreamIndex,
      new grpc::internal::SplitServerStreamingHandler<
          grpc::ByteBuffer, v1::AuditLogStreamResponse>(
          [this](
              grpc::ServerContext* context,
              grpc::ServerSplitStreamer<grpc::ByteBuffer,
                                        v1::AuditLogStreamResponse>* streamer) {
            grpc::ByteBuffer request;
            if (!streamer->Read(&request)) return NoRequest("AuditLogStream");
            return AuditLogStreamEncoded(
                context, request,
                [streamer](const v1::AuditLogStreamResponse& piece) {
                  return streamer->Write(piece);
                });
          }));
  MarkMethodStreamed(
      kDiffIndex,
      new grpc::internal::SplitServerStreamingHandler<grpc::ByteBuffer,
                                                      v1::DiffResponse>(
          [this](grpc::ServerContext* context,
                 grpc::ServerSplitStreamer<grpc::ByteBuffer, v1::DiffResponse>*
                     streamer) {
            grpc::ByteBuffer request;
            if (!streamer->Read(&request)) return NoRequest("Diff");
            return DiffEncoded(context, request,
                               [streamer](const v1::DiffResponse& response) {
                                 return streamer->Write(response);
                               });
          }));
}

grpc::Status AuditServiceImpl::Admit(const grpc::ByteBuffer& request,
                                     const google::protobuf::Descriptor& type,
                                     absl::string_view what,
                                     RequestBudget::Admission& admission) {
  grpc::Status admitted = ToGrpcStatus(AdmitBytes(
      budget_, static_cast<std::int64_t>(request.Length()), what, admission));
  if (!admitted.ok()) return admitted;
  return CheckParseCost(request, type, what);
}

// An AuditLogRequest read off the wire (DecodeAuditRequest): the bytes of
// its log, unparsed, and the rest of it.
struct AuditServiceImpl::DecodedAuditRequest {
  // The payloads of every `log` field one after the other (which is how
  // protobuf merges a message field given twice).
  std::string log_bytes;
  // The other fields; no log. The ruleset text is freed once loaded.
  v1::AuditLogRequest request;
  // The request's ruleset, loaded, when it sends one that loads.
  std::optional<replay::LoadedRuleset> request_ruleset;
  // True when it sends one that does not load.
  bool ruleset_refused = false;
};

namespace {

// Splits an AuditLogRequest's top-level fields as they are read (an
// AuditLogStreamRequest has the same fields): the `log` payloads one after
// the other onto `log_bytes` (which is how protobuf merges a message field
// given twice), the ruleset's text (the last one given, as protobuf keeps
// it) into `ruleset_text`, and the other fields as they came into
// `rest_bytes` (a few bytes, parsed normally later, with protobuf's rules
// for a scalar given twice, a wrong wire type or an unknown field). False
// when the bytes do not decode.
bool SplitAuditRequestFields(grpc::ByteBuffer& wire, std::string& log_bytes,
                             std::string& ruleset_text,
                             std::string& rest_bytes) {
  constexpr std::uint32_t kLogTag =
      WireFormatLite::MakeTag(v1::AuditLogRequest::kLogFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  constexpr std::uint32_t kRulesetTag =
      WireFormatLite::MakeTag(v1::AuditLogRequest::kRulesetTextprotoFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  const std::int64_t wire_bytes = static_cast<std::int64_t>(wire.Length());
  WireRequestStream stream(wire);
  google::protobuf::io::CodedInputStream input(&stream);
  google::protobuf::io::StringOutputStream rest_stream(&rest_bytes);
  google::protobuf::io::CodedOutputStream rest(&rest_stream);
  // Reads a length-delimited payload onto the end of `out`, its memory
  // taken once (a length past the request's end is refused by the read,
  // and reserves no more than the request holds).
  const auto append_payload = [&](std::string& out) {
    int length = 0;
    if (!input.ReadVarintSizeAsInt(&length)) return false;
    const std::int64_t left = wire_bytes - input.CurrentPosition();
    out.reserve(out.size() + static_cast<std::size_t>(std::clamp<std::int64_t>(
                                 length, 0, std::max<std::int64_t>(left, 0))));
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(length > left ? 0 : length));
    return length <= left && input.ReadRaw(out.data() + start, length);
  };
  for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
       tag = replay::ReadParsedTag(input)) {
    if (tag == kLogTag) {
      if (!append_payload(log_bytes)) return false;
    } else if (tag == kRulesetTag) {
      ruleset_text.clear();
      if (!append_payload(ruleset_text)) return false;
    } else if (!WireFormatLite::SkipField(&input, tag, &rest)) {
      // An unknown field is kept (and ignored), as a parse keeps it.
      return false;
    }
  }
  return input.ConsumedEntireMessage();
}

}  // namespace

grpc::Status AuditServiceImpl::DecodeAuditRequest(grpc::ByteBuffer& wire,
                                                  absl::string_view method,
                                                  DecodedAuditRequest& out) {
  std::string ruleset_text;
  std::string rest_bytes;
  if (!SplitAuditRequestFields(wire, out.log_bytes, ruleset_text, rest_bytes)) {
    return Undecodable(method);
  }
  v1::AuditLogRequest& request = out.request;
  // A proto3 string that is not UTF-8 fails the whole parse.
  if (!request.ParseFromString(rest_bytes) ||
      !google::protobuf::internal::IsStructurallyValidUTF8(
          ruleset_text.data(), static_cast<int>(ruleset_text.size()))) {
    return Undecodable(method);
  }
  std::string().swap(rest_bytes);
  request.set_ruleset_textproto(std::move(ruleset_text));
  // The request's ruleset, loaded once and its text freed. One that does
  // not load is left to the whole parse's path, which says so in its turn
  // (after the log's own errors).
  if (!request.ruleset_textproto().empty()) {
    absl::StatusOr<replay::LoadedRuleset> loaded = replay::LoadRuleset(
        request.ruleset_textproto(), "request.ruleset_textproto");
    if (loaded.ok()) {
      out.request_ruleset.emplace(*std::move(loaded));
      std::string().swap(*request.mutable_ruleset_textproto());
    }
  }
  out.ruleset_refused =
      !request.ruleset_textproto().empty() && !out.request_ruleset.has_value();
  return grpc::Status::OK;
}

absl::StatusOr<replay::StreamedAuditResult> AuditServiceImpl::AuditStreamed(
    grpc::ServerContext* context, const DecodedAuditRequest& decoded,
    bool record_outcomes, const replay::AfterStreamedEvent& after_event) {
  // The log is replayed from its bytes one event at a time: only its bytes
  // are held, never the log parsed whole (several times their size). The
  // streamed audit gives up on anything it cannot audit exactly as the
  // whole log's audit would (bytes that do not parse, an unknown enum
  // number or field, a ruleset or order of battle refused): the caller
  // then parses the log whole and audits it as before, which gives the
  // error to answer.
  if (decoded.ruleset_refused || context->IsCancelled() ||
      !replay::CheckKnownEnums(decoded.request).ok()) {
    replay::StreamedAuditResult whole;
    whole.read_whole_because =
        "the request's ruleset or enums are refused, or it was cancelled";
    return whole;
  }
  replay::AuditOptions options;
  options.record_outcomes = record_outcomes;
  options.cancelled = [context] { return context->IsCancelled(); };
  const auto ruleset_for =
      [&](const v1::BattleLog& head) -> absl::StatusOr<replay::LoadedRuleset> {
    if (decoded.request_ruleset.has_value()) return *decoded.request_ruleset;
    GUNBAI_ASSIGN_OR_RETURN(auto chosen, rulesets_->ForLog(head.header()));
    return *chosen;
  };
  const std::string& log_bytes = decoded.log_bytes;
  return replay::AuditBinaryLogStreamOrGiveUp(
      [&log_bytes] {
        return std::make_unique<google::protobuf::io::ArrayInputStream>(
            log_bytes.data(), static_cast<int>(log_bytes.size()));
      },
      ruleset_for, options, static_cast<std::int64_t>(log_bytes.size()),
      after_event);
}

grpc::Status AuditServiceImpl::AddAskedImpacts(grpc::ServerContext* context,
                                               DecodedAuditRequest& decoded,
                                               absl::string_view method,
                                               v1::AuditReport& report) {
  if (!decoded.request.impact()) return grpc::Status::OK;
  if (context->IsCancelled()) return Abandoned();
  const std::function<bool()> cancelled = [context] {
    return context->IsCancelled();
  };
  // The ruleset the audit chose for this header.
  const auto ruleset_for = [&](const v1::BattleLog& head)
      -> absl::StatusOr<const replay::LoadedRuleset*> {
    if (decoded.request_ruleset.has_value()) return &*decoded.request_ruleset;
    return rulesets_->ForLog(head.header());
  };
  // Each branch replays the events from the log's bytes, as the audit did:
  // the log is never held parsed.
  const std::string& log_bytes = decoded.log_bytes;
  const std::int64_t size = static_cast<std::int64_t>(log_bytes.size());
  const replay::OpenLogStream open = [&log_bytes] {
    return std::make_unique<google::protobuf::io::ArrayInputStream>(
        log_bytes.data(), static_cast<int>(log_bytes.size()));
  };
  absl::StatusOr<bool> streamed = replay::AddImpactsFromBinaryLog(
      open, size, ruleset_for, report, cancelled);
  if (!streamed.ok() || *streamed) return ToGrpcStatus(streamed.status());
  // The bytes the audit streamed did not stream again (which they always
  // do): the branches replay the log parsed whole, as before.
  v1::BattleLog log;
  if (!log.ParseFromString(log_bytes)) return Undecodable(method);
  absl::StatusOr<const replay::LoadedRuleset*> ruleset = ruleset_for(log);
  if (!ruleset.ok()) return ToGrpcStatus(ruleset.status());
  return ToGrpcStatus(replay::AddImpacts(log, **ruleset, report,
                                         /*branch_logs=*/nullptr, cancelled));
}

grpc::Status AuditServiceImpl::AddAskedExtras(
    const v1::AuditLogRequest& request, const v1::BattleLog& log,
    const replay::LoadedRuleset& ruleset, v1::AuditReport& report,
    grpc::ServerContext* context) {
  if (request.readings()) {
    absl::Status readings = replay::AddFindingReadings(log, ruleset, report);
    if (!readings.ok()) return ToGrpcStatus(readings);
  }
  if (request.all_readings()) {
    replay::AuditOptions options;
    if (context != nullptr) {
      options.cancelled = [context] { return context->IsCancelled(); };
    }
    absl::StatusOr<replay::AllReadingsAudit> all =
        replay::AuditAllReadings(log, ruleset, options);
    if (!all.ok()) return ToGrpcStatus(all.status());
    replay::LabelAllReadings(*all, report);
  }
  if (request.remedies()) {
    replay::LoadedProcedure procedure = replay::DefaultProcedure();
    if (!request.procedure_textproto().empty()) {
      absl::StatusOr<replay::LoadedProcedure> loaded = replay::LoadProcedure(
          request.procedure_textproto(), "request.procedure_textproto");
      if (!loaded.ok()) return ToGrpcStatus(loaded.status());
      procedure = *std::move(loaded);
    }
    replay::RemedyOptions options;
    options.raised_at.assign(request.raised_at().begin(),
                             request.raised_at().end());
    replay::AddRemedies(log, procedure, options, report);
  }
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::AddAskedExtrasFromBytes(
    DecodedAuditRequest& decoded, absl::string_view method,
    v1::AuditReport& report, grpc::ServerContext* context) {
  const v1::AuditLogRequest& request = decoded.request;
  if (!request.readings() && !request.all_readings() && !request.remedies()) {
    return grpc::Status::OK;
  }
  v1::BattleLog log;
  if (!log.ParseFromString(decoded.log_bytes)) return Undecodable(method);
  if (decoded.request_ruleset.has_value()) {
    return AddAskedExtras(request, log, *decoded.request_ruleset, report,
                          context);
  }
  absl::StatusOr<const replay::LoadedRuleset*> chosen =
      rulesets_->ForLog(log.header());
  if (!chosen.ok()) return ToGrpcStatus(chosen.status());
  return AddAskedExtras(request, log, **chosen, report, context);
}

grpc::Status AuditServiceImpl::AuditWhole(grpc::ServerContext* context,
                                          DecodedAuditRequest& decoded,
                                          absl::string_view method,
                                          v1::AuditLogResponse* response) {
  v1::AuditLogRequest& request = decoded.request;
  const bool parsed = request.mutable_log()->ParseFromString(decoded.log_bytes);
  std::string().swap(decoded.log_bytes);
  if (!parsed) return Undecodable(method);
  if (!decoded.request_ruleset.has_value()) {
    return AuditParsedLog(context, request, response);
  }
  // AuditParsedLog's steps, its ruleset already loaded.
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) return ToGrpcStatus(known);
  return AuditUnder(context, *decoded.request_ruleset, request, response);
}

grpc::Status AuditServiceImpl::AdmitAndDecode(
    grpc::ByteBuffer& wire, const google::protobuf::Descriptor& type,
    absl::string_view method, RequestBudget::Admission& admission,
    DecodedAuditRequest& decoded) {
  grpc::Status admitted = Admit(wire, type, method, admission);
  if (!admitted.ok()) return admitted;
  return DecodeAuditRequest(wire, method, decoded);
}

grpc::Status AuditServiceImpl::AuditEncodedLogOnWire(
    grpc::ServerContext* context, grpc::ByteBuffer& wire,
    grpc::ByteBuffer* response) {
  RequestBudget::Admission admission;
  DecodedAuditRequest decoded;
  grpc::Status decoding = AdmitAndDecode(
      wire, *v1::AuditLogRequest::descriptor(), "AuditLog", admission, decoded);
  if (!decoding.ok()) return decoding;
  // The outcomes are serialized as each event is replayed, never held as
  // messages; on a log the stream gives up on they are dropped with the
  // rest, and the whole parse's audit answers.
  std::string outcomes;
  const bool record_outcomes = decoded.request.record_outcomes();
  replay::AfterStreamedEvent serialize_outcomes;
  if (record_outcomes) {
    serialize_outcomes = [&outcomes](v1::AuditReport& so_far) {
      AppendSerialized(*so_far.mutable_outcomes(), outcomes);
      return true;
    };
  }
  absl::StatusOr<replay::StreamedAuditResult> streamed =
      AuditStreamed(context, decoded, record_outcomes, serialize_outcomes);
  if (!streamed.ok()) return ToGrpcStatus(streamed.status());
  std::optional<v1::AuditReport>& report = streamed->report;
  if (!report.has_value()) {
    std::string().swap(outcomes);
    return AnswerWholeAudit(context, decoded, response);
  }
  grpc::Status impact = AddAskedImpacts(context, decoded, "AuditLog", *report);
  if (!impact.ok()) return impact;
  grpc::Status extras =
      AddAskedExtrasFromBytes(decoded, "AuditLog", *report, context);
  if (!extras.ok()) return extras;
  decoded = DecodedAuditRequest();  // Freed before the answer is built.
  *response = ResponseBytes(*report, std::move(outcomes));
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::AnswerWholeAudit(grpc::ServerContext* context,
                                                DecodedAuditRequest& decoded,
                                                grpc::ByteBuffer* response) {
  v1::AuditLogResponse whole;
  grpc::Status audited = AuditWhole(context, decoded, "AuditLog", &whole);
  if (!audited.ok()) return audited;
  std::string outcomes_of_whole;
  AppendSerialized(*whole.mutable_report()->mutable_outcomes(),
                   outcomes_of_whole);
  *response =
      ResponseBytes(*whole.mutable_report(), std::move(outcomes_of_whole));
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::AuditEncodedLog(grpc::ServerContext* context,
                                               grpc::ByteBuffer& wire,
                                               v1::AuditLogResponse* response) {
  grpc::ByteBuffer bytes;
  grpc::Status status = AuditEncodedLogOnWire(context, wire, &bytes);
  if (!status.ok()) return status;
  if (!ParseWire(bytes, *response)) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "AuditLog's answer does not parse");
  }
  return grpc::Status::OK;
}

namespace {

// Sends a streamed audit's outcomes through `outcomes` after each event
// (false once the client is gone).
replay::AfterStreamedEvent SendingOutcomesTo(
    PiecePager<v1::Outcome>& outcomes) {
  return [&outcomes](v1::AuditReport& so_far) {
    return outcomes.Add(*so_far.mutable_outcomes());
  };
}

}  // namespace

grpc::Status AuditServiceImpl::AuditLogStreamEncoded(
    grpc::ServerContext* context, grpc::ByteBuffer& wire,
    const PieceWriter& write) {
  constexpr absl::string_view kMethod = "AuditLogStream";
  RequestBudget::Admission admission;
  DecodedAuditRequest decoded;
  grpc::Status decoding =
      AdmitAndDecode(wire, *v1::AuditLogStreamRequest::descriptor(), kMethod,
                     admission, decoded);
  if (!decoding.ok()) return decoding;
  // First the streamed audit without outcomes, to know whether the log
  // streams at all: only then is it audited again with them, each sent as
  // its event is replayed (RestreamWithOutcomes), so that no outcome is
  // sent that a whole parse's audit would have to send again.
  absl::StatusOr<replay::StreamedAuditResult> streamed =
      AuditStreamed(context, decoded, /*record_outcomes=*/false,
                    /*after_event=*/{});
  if (!streamed.ok()) return ToGrpcStatus(streamed.status());
  if (!streamed->report.has_value()) {
    return SendWholeAudit(context, decoded, write);
  }
  PiecePager<v1::Outcome> outcomes(&OutcomesOf, write);
  if (decoded.request.record_outcomes()) {
    grpc::Status restreamed = RestreamWithOutcomes(
        context, decoded, SendingOutcomesTo(outcomes), *streamed->report);
    if (!restreamed.ok()) return restreamed;
  }
  grpc::Status impact =
      AddAskedImpacts(context, decoded, kMethod, *streamed->report);
  if (!impact.ok()) return impact;
  grpc::Status extras =
      AddAskedExtrasFromBytes(decoded, kMethod, *streamed->report, context);
  if (!extras.ok()) return extras;
  decoded = DecodedAuditRequest();
  if (context->IsCancelled()) return Abandoned();
  if (!SendReportPieces(*streamed->report, outcomes, write)) {
    return Abandoned();
  }
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::SendWholeAudit(grpc::ServerContext* context,
                                              DecodedAuditRequest& decoded,
                                              const PieceWriter& write) {
  v1::AuditLogResponse whole;
  grpc::Status audited = AuditWhole(context, decoded, "AuditLogStream", &whole);
  if (!audited.ok()) return audited;
  PiecePager<v1::Outcome> outcomes(&OutcomesOf, write);
  if (!SendReportPieces(*whole.mutable_report(), outcomes, write)) {
    return Abandoned();
  }
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::RestreamWithOutcomes(
    grpc::ServerContext* context, const DecodedAuditRequest& decoded,
    const replay::AfterStreamedEvent& send_outcomes, v1::AuditReport& report) {
  bool sent = true;
  absl::StatusOr<replay::StreamedAuditResult> streamed = AuditStreamed(
      context, decoded, /*record_outcomes=*/true, [&](v1::AuditReport& so_far) {
        sent = send_outcomes(so_far);
        return sent;
      });
  if (!sent) return Abandoned();
  if (!streamed.ok()) return ToGrpcStatus(streamed.status());
  if (!streamed->report.has_value()) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        absl::StrCat("the log streamed once but not twice: ",
                                     streamed->read_whole_because));
  }
  report = *std::move(streamed->report);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::AuditParsedLog(grpc::ServerContext* context,
                                              v1::AuditLogRequest& request,
                                              v1::AuditLogResponse* response) {
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) return ToGrpcStatus(known);
  if (request.ruleset_textproto().empty()) {
    auto chosen = rulesets_->ForLog(request.log().header());
    if (!chosen.ok()) return ToGrpcStatus(chosen.status());
    return AuditUnder(context, **chosen, request, response);
  }
  absl::StatusOr<replay::LoadedRuleset> loaded = replay::LoadRuleset(
      request.ruleset_textproto(), "request.ruleset_textproto");
  if (!loaded.ok()) return ToGrpcStatus(loaded.status());
  std::string().swap(*request.mutable_ruleset_textproto());  // Freed.
  return AuditUnder(context, *loaded, request, response);
}

grpc::Status AuditServiceImpl::AuditUnder(grpc::ServerContext* context,
                                          const replay::LoadedRuleset& ruleset,
                                          v1::AuditLogRequest& request,
                                          v1::AuditLogResponse* response) {
  replay::AuditOptions options;
  options.record_outcomes = request.record_outcomes();
  // The replay asks now and then whether the client still waits.
  options.cancelled = [context] { return context->IsCancelled(); };
  if (context->IsCancelled()) return Abandoned();
  absl::StatusOr<v1::AuditReport> report =
      replay::AuditLog(request.log(), ruleset, options);
  if (!report.ok()) return ToGrpcStatus(report.status());
  if (request.impact()) {
    if (context->IsCancelled()) return Abandoned();
    absl::Status impact =
        replay::AddImpacts(request.log(), ruleset, *report,
                           /*branch_logs=*/nullptr, options.cancelled);
    if (!impact.ok()) return ToGrpcStatus(impact);
  }
  grpc::Status extras =
      AddAskedExtras(request, request.log(), ruleset, *report, context);
  if (!extras.ok()) return extras;
  // The log is no longer needed: free it before the report is serialized
  // (Clear would keep its memory for reuse).
  v1::AuditLogRequest().Swap(&request);
  *response->mutable_report() = *std::move(report);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::DiffEncoded(
    grpc::ServerContext* context, grpc::ByteBuffer& wire,
    const std::function<bool(const v1::DiffResponse&)>& write) {
  RequestBudget::Admission admission;
  grpc::Status admitted =
      Admit(wire, *v1::DiffRequest::descriptor(), "Diff", admission);
  if (!admitted.ok()) return admitted;
  // Each log is kept as its bytes (once, the wire's freed as they are
  // read) and diffed from them by the worker that takes it, never parsed
  // whole. Every log is checked first, before any answer is written: a
  // request whose bytes are not all read that way exactly as a whole parse
  // reads them (or do not parse) is parsed whole and diffed as before,
  // which gives the answer to give, errors included.
  DiffRequestParts parts;
  {
    WireRequestStream stream(wire);
    if (!SplitDiffRequest(stream, parts)) return Undecodable("Diff");
  }
  v1::DiffRequest settings;
  if (!settings.ParseFromString(parts.rest)) return Undecodable("Diff");
  const bool from_bytes = std::all_of(
      parts.logs.begin(), parts.logs.end(),
      [](const std::string& log) { return DiffInputReadableFromBytes(log); });
  if (!from_bytes) {
    v1::DiffRequest request;
    v1::DiffRequest().Swap(&settings);
    if (!ParseDiffRequestParts(parts, request)) return Undecodable("Diff");
    return DiffParsed(context, request, write);
  }
  std::string().swap(parts.rest);
  return DiffFromBytes(context, settings, parts.logs, write);
}

grpc::Status AuditServiceImpl::DiffFromBytes(
    grpc::ServerContext* context, const v1::DiffRequest& settings,
    std::vector<std::string>& logs,
    const std::function<bool(const v1::DiffResponse&)>& write) {
  const bool baselines = settings.compare_to_baselines();
  return DiffLogsWith(
      context,
      [&](const std::function<bool(std::size_t, v1::LogDiff)>& on_diff) {
        return replay::DiffLogs(
            settings, logs.size(), /*jobs=*/0,
            [&](std::size_t i, const replay::DiffRulesets& sides) {
              return DiffOfInputBytes(logs[i], baselines, sides);
            },
            [&](std::size_t i, v1::LogDiff diff) {
              // Read no more once diffed (each worker reads its own).
              std::string().swap(logs[i]);
              return on_diff(i, std::move(diff));
            });
      },
      write);
}

grpc::Status AuditServiceImpl::DiffParsed(
    grpc::ServerContext* context, v1::DiffRequest& request,
    const std::function<bool(const v1::DiffResponse&)>& write) {
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) return ToGrpcStatus(known);
  return DiffLogsWith(
      context,
      [&](const std::function<bool(std::size_t, v1::LogDiff)>& on_diff) {
        return replay::DiffRequestLogs(
            request, /*jobs=*/0, [&](std::size_t index, v1::LogDiff diff) {
              // DiffRequestLogs reads a log no more once its diff is done
              // (the workers read other logs only): free it now.
              v1::DiffLogInput().Swap(
                  request.mutable_logs(static_cast<int>(index)));
              return on_diff(index, std::move(diff));
            });
      },
      write);
}

grpc::Status AuditServiceImpl::DiffLogsWith(
    grpc::ServerContext* context,
    const std::function<absl::Status(
        const std::function<bool(std::size_t, v1::LogDiff)>&)>& diff_logs,
    const std::function<bool(const v1::DiffResponse&)>& write) {
  replay::DiffTally tally;
  absl::Status status = diff_logs([&](std::size_t index, v1::LogDiff diff) {
    if (context->IsCancelled()) return false;
    tally.Add(index, diff);
    v1::DiffResponse response;
    response.set_index(static_cast<uint32_t>(index));
    *response.mutable_log() = std::move(diff);
    return write(response);
  });
  if (!status.ok()) return ToGrpcStatus(status);
  if (context->IsCancelled()) return Abandoned();
  v1::DiffResponse last;
  *last.mutable_summary() = tally.Summary();
  write(last);
  return grpc::Status::OK;
}

namespace {

// Adds log `index` of a DiceStats request to `dice`: its enums known, its
// dice counted.
absl::Status AddDiceLog(const v1::BattleLog& log, int index,
                        replay::DiceSummarizer& dice) {
  GUNBAI_RETURN_IF_ERROR(
      replay::CheckKnownEnums(log, absl::StrCat("logs[", index, "]")));
  return dice.AddLog(log);
}

}  // namespace

grpc::Status AuditServiceImpl::DiceStatsEncoded(
    grpc::ServerContext* context, grpc::ByteBuffer& wire,
    v1::DiceStatsResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted =
      Admit(wire, *v1::DiceStatsRequest::descriptor(), "DiceStats", admission);
  if (!admitted.ok()) return admitted;
  // One log at a time: parsed, summarized into counts, freed.
  constexpr std::uint32_t kLogsTag =
      WireFormatLite::MakeTag(v1::DiceStatsRequest::kLogsFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  WireRequestStream stream(wire);
  google::protobuf::io::CodedInputStream input(&stream);
  replay::DiceSummarizer dice;
  int index = 0;
  for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
       tag = replay::ReadParsedTag(input)) {
    if (tag != kLogsTag) {
      // An unknown field, kept and ignored by a parse of the whole message.
      if (!WireFormatLite::SkipField(&input, tag)) {
        return Undecodable("DiceStats");
      }
      continue;
    }
    v1::BattleLog log;
    if (!WireFormatLite::ReadMessage(&input, &log)) {
      return Undecodable("DiceStats");
    }
    absl::Status added = AddDiceLog(log, index++, dice);
    if (!added.ok()) return ToGrpcStatus(added);
    if (context->IsCancelled()) return Abandoned();
  }
  if (!input.ConsumedEntireMessage()) return Undecodable("DiceStats");
  *response->mutable_report() =
      replay::DiceReportToProto(std::move(dice).Finish());
  return grpc::Status::OK;
}

namespace {

// Returns the copy `input` names, as replay::Reconcile takes it; `name` when
// the input names none.
replay::GameCopy CopyOf(const v1::ReconcileCopyInput& input,
                        const std::string& name) {
  replay::GameCopy copy;
  copy.name = input.name().empty() ? name : input.name();
  if (input.has_exported()) {
    copy.log = input.exported().log();
    copy.exported = &input.exported();
  } else {
    copy.log = input.log();
  }
  return copy;
}

}  // namespace

grpc::Status AuditServiceImpl::Reconcile(grpc::ServerContext* context,
                                         const v1::ReconcileRequest* request,
                                         v1::ReconcileResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = ToGrpcStatus(
      AdmitBytes(budget_, static_cast<std::int64_t>(request->ByteSizeLong()),
                 "Reconcile", admission));
  if (!admitted.ok()) return admitted;
  if (request->a().copy_case() == v1::ReconcileCopyInput::COPY_NOT_SET ||
      request->b().copy_case() == v1::ReconcileCopyInput::COPY_NOT_SET) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "give both copies, a and b, each a log or an "
                        "exported game");
  }
  const replay::GameCopy a = CopyOf(request->a(), "A");
  const replay::GameCopy b = CopyOf(request->b(), "B");
  auto ruleset = rulesets_->ForLog(a.log.header());
  if (!ruleset.ok()) return ToGrpcStatus(ruleset.status());
  if (context->IsCancelled()) return Abandoned();
  auto reconciled = replay::Reconcile(a, b, **ruleset);
  if (!reconciled.ok()) return ToGrpcStatus(reconciled.status());
  *response->mutable_reconciliation() = *std::move(reconciled);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::TournamentStandings(
    grpc::ServerContext* context, const v1::TournamentStandingsRequest* request,
    v1::TournamentStandingsResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = ToGrpcStatus(
      AdmitBytes(budget_, static_cast<std::int64_t>(request->ByteSizeLong()),
                 "TournamentStandings", admission));
  if (!admitted.ok()) return admitted;
  auto tournament = replay::LoadTournament(request->tournament_textproto(),
                                           "tournament_textproto");
  if (!tournament.ok()) return ToGrpcStatus(tournament.status());
  // The files by name; the first of a name given twice.
  std::map<std::string, const std::string*> files;
  for (const v1::TournamentFile& f : request->files()) {
    files.emplace(f.name(), &f.content());
  }
  replay::TournamentInputs inputs;
  inputs.log =
      [&files](const std::string& name) -> absl::StatusOr<std::string> {
    auto it = files.find(name);
    if (it == files.end()) {
      return absl::NotFoundError(absl::StrCat(
          "no such file: ", rules::Excerpt(name, rules::kMaxQuotedBytes),
          " was not sent with the tournament (files { name: ... })"));
    }
    return *it->second;
  };
  inputs.ruleset =
      [&files](
          const std::string& name) -> absl::StatusOr<replay::LoadedRuleset> {
    auto it = files.find(name);
    if (it == files.end()) return replay::BuiltinRuleset(name);
    return replay::LoadRuleset(*it->second, name);
  };
  inputs.cancelled = [context] { return context->IsCancelled(); };
  auto games = replay::ReadTournamentGames(*tournament, inputs);
  if (!games.ok()) {
    if (context->IsCancelled()) return Abandoned();
    return ToGrpcStatus(games.status());
  }
  *response->mutable_standings() =
      replay::Standings(*tournament, *std::move(games));
  auto next =
      replay::NextSwissRound(*tournament, response->standings(), nullptr);
  if (next.ok()) *response->mutable_next_round() = *std::move(next);
  return grpc::Status::OK;
}

grpc::Status AuditServiceImpl::TournamentRule(
    grpc::ServerContext* /*context*/, const v1::TournamentRuleRequest* request,
    v1::TournamentRuleResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = ToGrpcStatus(
      AdmitBytes(budget_, static_cast<std::int64_t>(request->ByteSizeLong()),
                 "TournamentRule", admission));
  if (!admitted.ok()) return admitted;
  auto tournament = replay::LoadTournament(request->tournament_textproto(),
                                           "tournament_textproto");
  if (!tournament.ok()) return ToGrpcStatus(tournament.status());
  v1::TournamentRuling asked = request->ruling();
  // Fields this gunbaid does not know would print as numbers in the text
  // to append, which the file then could not read.
  asked.DiscardUnknownFields();
  asked.clear_log_sha256();
  for (const v1::TournamentRound& round : tournament->data.rounds()) {
    if (round.number() != asked.round()) continue;
    for (const v1::TournamentGame& g : round.games()) {
      if (g.table() != asked.table() || g.log().empty()) continue;
      for (const v1::TournamentFile& f : request->files()) {
        if (f.name() == g.log()) {
          asked.set_log_sha256(base::Sha256Hex(f.content()));
          break;
        }
      }
    }
  }
  auto ruling = replay::AppendRuling(*tournament, asked);
  if (!ruling.ok()) return ToGrpcStatus(ruling.status());
  response->set_append_textproto(replay::AppendedField("rulings", *ruling));
  *response->mutable_ruling() = *std::move(ruling);
  return grpc::Status::OK;
}

}  // namespace gunbai::service
