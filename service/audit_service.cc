#include "service/audit_service.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/support/method_handler.h"
#include "grpcpp/support/sync_stream.h"
#include "replay/audit.h"
#include "replay/dice_stats.h"
#include "replay/diff.h"
#include "replay/impact.h"
#include "replay/log_stream.h"
#include "replay/text_errors.h"
#include "service/decode_errors.h"
#include "service/diff_cli.h"
#include "service/diff_wire.h"
#include "service/grpc_status.h"
#include "service/wire_request.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::internal::WireFormatLite;

// The methods' indices in AuditService, in the order of the proto (as the
// generated code numbers them).
constexpr int kAuditLogIndex = 0;
constexpr int kDiffIndex = 1;
constexpr int kDiceStatsIndex = 2;

// The status of a call whose client went away or whose deadline passed:
// the client no longer waits for the answer.
grpc::Status Abandoned() {
  return grpc::Status(grpc::StatusCode::CANCELLED,
                      "the call was cancelled or its deadline passed");
}

// The status of a call that ended before its request came.
grpc::Status NoRequest(absl::string_view method) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      absl::StrCat("the call to ", method,
                                   " ended before its request was sent"));
}

grpc::Status Undecodable(absl::string_view method) {
  return UndecodableRequest(absl::StrCat("/gunbai.v1.AuditService/", method));
}

// A unary method whose handler reads the request unparsed: the generated
// WithStreamedUnaryMethod_ wrappers read it parsed, so the budget could
// count it only after parsing. To the client it is the same unary call.
template <typename Response>
grpc::internal::MethodHandler* UnaryOnWire(
    absl::string_view method,
    std::function<grpc::Status(grpc::ServerContext*, grpc::ByteBuffer&,
                               Response*)>
        serve) {
  return new grpc::internal::StreamedUnaryHandler<grpc::ByteBuffer, Response>(
      [method, serve = std::move(serve)](
          grpc::ServerContext* context,
          grpc::ServerUnaryStreamer<grpc::ByteBuffer, Response>* streamer) {
        grpc::ByteBuffer request;
        if (!streamer->Read(&request)) return NoRequest(method);
        Response response;
        grpc::Status status = serve(context, request, &response);
        // Sent with the status, as a unary handler sends it: one batch, not
        // two. A failed write is a client gone, whom the status no longer
        // reaches.
        if (status.ok()) streamer->WriteLast(response, grpc::WriteOptions());
        return status;
      });
}

}  // namespace

AuditServiceImpl::AuditServiceImpl(const replay::RulesetCatalog* rulesets,
                                   RequestBudget* budget)
    : rulesets_(rulesets), budget_(budget) {
  MarkMethodStreamed(kAuditLogIndex,
                     UnaryOnWire<v1::AuditLogResponse>(
                         "AuditLog", [this](grpc::ServerContext* context,
                                            grpc::ByteBuffer& request,
                                            v1::AuditLogResponse* response) {
                           return AuditEncodedLog(context, request, response);
                         }));
  MarkMethodStreamed(kDiceStatsIndex,
                     UnaryOnWire<v1::DiceStatsResponse>(
                         "DiceStats", [this](grpc::ServerContext* context,
                                             grpc::ByteBuffer& request,
                                             v1::DiceStatsResponse* response) {
                           return DiceStatsEncoded(context, request, response);
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
                                     absl::string_view what,
                                     RequestBudget::Admission& admission) {
  return ToGrpcStatus(AdmitBytes(
      budget_, static_cast<std::int64_t>(request.Length()), what, admission));
}

grpc::Status AuditServiceImpl::AuditEncodedLog(grpc::ServerContext* context,
                                               grpc::ByteBuffer& wire,
                                               v1::AuditLogResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(wire, "AuditLog", admission);
  if (!admitted.ok()) return admitted;
  // The request's top-level fields are split as they are read: the log's
  // bytes (the payloads of every `log` field one after the other, which is
  // how protobuf merges a message field given twice), the ruleset's text
  // (the last one given, as protobuf keeps it) and the other fields as they
  // came (a few bytes: parsed normally, with protobuf's rules for a scalar
  // given twice, a wrong wire type or an unknown field).
  constexpr std::uint32_t kLogTag =
      WireFormatLite::MakeTag(v1::AuditLogRequest::kLogFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  constexpr std::uint32_t kRulesetTag =
      WireFormatLite::MakeTag(v1::AuditLogRequest::kRulesetTextprotoFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  const std::int64_t wire_bytes = static_cast<std::int64_t>(wire.Length());
  std::string log_bytes;
  std::string ruleset_text;
  std::string rest_bytes;
  {
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
      out.reserve(out.size() +
                  static_cast<std::size_t>(std::clamp<std::int64_t>(
                      length, 0, std::max<std::int64_t>(left, 0))));
      const std::size_t start = out.size();
      out.resize(start + static_cast<std::size_t>(length > left ? 0 : length));
      return length <= left && input.ReadRaw(out.data() + start, length);
    };
    for (std::uint32_t tag = input.ReadTag(); tag != 0; tag = input.ReadTag()) {
      if (tag == kLogTag) {
        if (!append_payload(log_bytes)) return Undecodable("AuditLog");
      } else if (tag == kRulesetTag) {
        ruleset_text.clear();
        if (!append_payload(ruleset_text)) return Undecodable("AuditLog");
      } else if (!WireFormatLite::SkipField(&input, tag, &rest)) {
        // An unknown field is kept (and ignored), as a parse keeps it.
        return Undecodable("AuditLog");
      }
    }
    if (!input.ConsumedEntireMessage()) return Undecodable("AuditLog");
  }
  v1::AuditLogRequest request;
  // A proto3 string that is not UTF-8 fails the whole parse.
  if (!request.ParseFromString(rest_bytes) ||
      !google::protobuf::internal::IsStructurallyValidUTF8(
          ruleset_text.data(), static_cast<int>(ruleset_text.size()))) {
    return Undecodable("AuditLog");
  }
  std::string().swap(rest_bytes);
  request.set_ruleset_textproto(std::move(ruleset_text));
  // The request's ruleset, loaded once and its text freed. One that does
  // not load is left to the whole parse's path, which says so in its turn
  // (after the log's own errors).
  std::optional<replay::LoadedRuleset> request_ruleset;
  if (!request.ruleset_textproto().empty()) {
    absl::StatusOr<replay::LoadedRuleset> loaded = replay::LoadRuleset(
        request.ruleset_textproto(), "request.ruleset_textproto");
    if (loaded.ok()) {
      request_ruleset.emplace(*std::move(loaded));
      std::string().swap(*request.mutable_ruleset_textproto());
    }
  }
  const bool ruleset_refused =
      !request.ruleset_textproto().empty() && !request_ruleset.has_value();
  // The log is replayed from its bytes one event at a time: only its bytes
  // are held, never the log parsed whole (several times their size). The
  // streamed audit gives up on anything it cannot audit exactly as the
  // whole log's audit would (bytes that do not parse, an unknown enum
  // number or field, a ruleset or order of battle refused): the log is then
  // parsed whole and audited as before, which gives the error to answer.
  replay::AuditOptions options;
  options.record_outcomes = request.record_outcomes();
  options.cancelled = [context] { return context->IsCancelled(); };
  const auto ruleset_for =
      [&](const v1::BattleLog& head) -> absl::StatusOr<replay::LoadedRuleset> {
    if (request_ruleset.has_value()) return *request_ruleset;
    auto chosen = rulesets_->ForLog(head.header());
    if (!chosen.ok()) return chosen.status();
    return **chosen;
  };
  absl::StatusOr<v1::AuditReport> report =
      absl::FailedPreconditionError("not streamed");
  if (!ruleset_refused && !context->IsCancelled() &&
      replay::CheckKnownEnums(request).ok()) {
    report = replay::AuditBinaryLogStream(
        [&log_bytes] {
          return std::make_unique<google::protobuf::io::ArrayInputStream>(
              log_bytes.data(), static_cast<int>(log_bytes.size()));
        },
        ruleset_for, options, static_cast<std::int64_t>(log_bytes.size()));
  }
  if (!report.ok() &&
      report.status().code() != absl::StatusCode::kFailedPrecondition) {
    return ToGrpcStatus(report.status());
  }
  // The whole log, for the audit the stream gave up on or for the impact
  // branches, which replay it again per dispute.
  if (!report.ok() || request.impact()) {
    const bool parsed = request.mutable_log()->ParseFromString(log_bytes);
    std::string().swap(log_bytes);
    if (!parsed) return Undecodable("AuditLog");
  }
  if (!report.ok()) {
    if (!request_ruleset.has_value()) {
      return AuditParsedLog(context, request, response);
    }
    // AuditParsedLog's steps, its ruleset already loaded.
    absl::Status known = replay::CheckKnownEnums(request);
    if (!known.ok()) return ToGrpcStatus(known);
    return AuditUnder(context, *request_ruleset, request, response);
  }
  std::string().swap(log_bytes);
  if (request.impact()) {
    if (context->IsCancelled()) return Abandoned();
    absl::StatusOr<replay::LoadedRuleset> chosen;
    const replay::LoadedRuleset* ruleset = nullptr;
    if (request_ruleset.has_value()) {
      ruleset = &*request_ruleset;
    } else {
      auto from_catalog = rulesets_->ForLog(request.log().header());
      if (!from_catalog.ok()) return ToGrpcStatus(from_catalog.status());
      ruleset = *from_catalog;
    }
    absl::Status impact =
        replay::AddImpacts(request.log(), *ruleset, *report,
                           /*branch_logs=*/nullptr, options.cancelled);
    if (!impact.ok()) return ToGrpcStatus(impact);
  }
  v1::AuditLogRequest().Swap(&request);
  *response->mutable_report() = *std::move(report);
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
  grpc::Status admitted = Admit(wire, "Diff", admission);
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
  const bool baselines = settings.compare_to_baselines();
  return DiffLogsWith(
      context,
      [&](const std::function<bool(std::size_t, v1::LogDiff)>& on_diff) {
        return DiffLogs(
            settings, parts.logs.size(), /*jobs=*/0,
            [&](std::size_t i, const replay::DiffRulesets& sides) {
              return DiffOfInputBytes(parts.logs[i], baselines, sides);
            },
            [&](std::size_t i, v1::LogDiff diff) {
              // Read no more once diffed (each worker reads its own).
              std::string().swap(parts.logs[i]);
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
        return DiffRequestLogs(
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

grpc::Status AuditServiceImpl::DiceStatsEncoded(
    grpc::ServerContext* context, grpc::ByteBuffer& wire,
    v1::DiceStatsResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(wire, "DiceStats", admission);
  if (!admitted.ok()) return admitted;
  // One log at a time: parsed, summarized into counts, freed.
  constexpr std::uint32_t kLogsTag =
      WireFormatLite::MakeTag(v1::DiceStatsRequest::kLogsFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  WireRequestStream stream(wire);
  google::protobuf::io::CodedInputStream input(&stream);
  replay::DiceSummarizer dice;
  int index = 0;
  for (std::uint32_t tag = input.ReadTag(); tag != 0; tag = input.ReadTag()) {
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
    absl::Status known =
        replay::CheckKnownEnums(log, absl::StrCat("logs[", index, "]"));
    if (!known.ok()) return ToGrpcStatus(known);
    absl::Status added = dice.AddLog(log);
    if (!added.ok()) return ToGrpcStatus(added);
    if (context->IsCancelled()) return Abandoned();
    ++index;
  }
  if (!input.ConsumedEntireMessage()) return Undecodable("DiceStats");
  *response->mutable_report() =
      replay::DiceReportToProto(std::move(dice).Finish());
  return grpc::Status::OK;
}

}  // namespace gunbai::service
