// The gunbaid implementation of gunbai.v1.AuditService: each call replays
// the inline battle log of the request through replay::AuditLog and returns
// its report. Thread-safe: gRPC calls AuditLog from many threads at once;
// the rulesets are loaded once at startup and only read afterwards,
// and each call owns its replay and any ruleset sent with the request.
//
// Each method receives its request as gRPC received it, unparsed (a
// grpc::ByteBuffer), and parses it itself: with a RequestBudget, a call is
// refused RESOURCE_EXHAUSTED at once, before anything is parsed, when its
// size on the wire and the requests in work would exceed the budget; and the
// call owns the parsed request, so it frees the wire bytes as they are
// parsed and each part of the request once used. To clients the methods are
// the unary and server-streaming RPCs of the proto; a request that does not
// decode is INVALID_ARGUMENT saying so (UndecodableRequest).
#ifndef GUNBAI_SERVICE_DAEMON_AUDIT_SERVICE_H_
#define GUNBAI_SERVICE_DAEMON_AUDIT_SERVICE_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "gunbai/v1/audit_service.grpc.pb.h"
#include "replay/log_stream.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/overload.h"

namespace gunbai::service {

class AuditServiceImpl final : public gunbai::v1::AuditService::Service {
 public:
  // Serves audits under the ruleset of `rulesets` each log's header names,
  // when a request sends none. `rulesets` must outlive the service, and
  // `budget` too when not null: every call is then admitted by it first.
  explicit AuditServiceImpl(const replay::RulesetCatalog* rulesets,
                            RequestBudget* budget = nullptr);

  AuditServiceImpl(const AuditServiceImpl&) = delete;
  AuditServiceImpl& operator=(const AuditServiceImpl&) = delete;

  // Audits the log of the AuditLogRequest encoded in `request` (emptied)
  // under its `ruleset_textproto` when set, else under the catalog's ruleset
  // its header names, and fills `response->report()`. Returns
  // INVALID_ARGUMENT when the request does not decode, the ruleset does not
  // parse or the log cannot be replayed at all; rule violations are findings
  // of an OK reply. RESOURCE_EXHAUSTED when the budget is full; CANCELLED or
  // DEADLINE_EXCEEDED, with no report, when the call ends before the audit
  // or before its impact branches start.
  grpc::Status AuditEncodedLog(grpc::ServerContext* context,
                               grpc::ByteBuffer& request,
                               gunbai::v1::AuditLogResponse* response);

  // AuditEncodedLog's answer as the bytes of the AuditLogResponse, what
  // the AuditLog RPC sends: the outcomes are serialized as the replay works
  // them out and never held as messages (AuditEncodedLog parses these
  // bytes). The bytes are protobuf's serialization of the response.
  grpc::Status AuditEncodedLogOnWire(grpc::ServerContext* context,
                                     grpc::ByteBuffer& request,
                                     grpc::ByteBuffer* response);

  // Sends a piece of an AuditLogStream answer; returns false when the
  // client is gone.
  using PieceWriter =
      std::function<bool(const gunbai::v1::AuditLogStreamResponse&)>;

  // AuditEncodedLog's answer for the AuditLogStreamRequest encoded in
  // `request` (emptied; the bytes of an AuditLogRequest), sent through
  // `write` in pieces of about a MiB (see AuditLogStreamResponse): the
  // outcomes as the replay works them out, then the findings, the impacts
  // and the rest of the report last. The same request gives the same
  // pieces, and merged they are AuditEncodedLog's report, byte for byte;
  // the statuses are AuditEncodedLog's. CANCELLED when a write fails. The
  // pieces written before a status that is not OK are to be dropped.
  grpc::Status AuditLogStreamEncoded(grpc::ServerContext* context,
                                     grpc::ByteBuffer& request,
                                     const PieceWriter& write);

  // AuditEncodedLog for a request already parsed whole (`request`, whose
  // log may be freed): what AuditEncodedLog does when the log's bytes
  // cannot be audited one event at a time, and the reference its streamed
  // audit must equal, response and status.
  grpc::Status AuditParsedLog(grpc::ServerContext* context,
                              gunbai::v1::AuditLogRequest& request,
                              gunbai::v1::AuditLogResponse* response);

  // Diffs the logs of the DiffRequest encoded in `request` (emptied; see
  // DiffRequestLogs) on one worker per core and calls `write` with one reply
  // per log as it finishes, then the summary; stops when `write` returns
  // false. Each log is diffed from its bytes (service/daemon/diff_wire.h), the
  // request never parsed whole unless its bytes are not all read that way;
  // the answers are DiffParsed's for the request parsed whole. Returns
  // INVALID_ARGUMENT for a request that does not decode, a ruleset that does
  // not parse or an old ruleset with compare_to_baselines; RESOURCE_EXHAUSTED
  // when the budget is full; CANCELLED when the client goes away or the
  // deadline passes (checked between logs).
  grpc::Status DiffEncoded(
      grpc::ServerContext* context, grpc::ByteBuffer& request,
      const std::function<bool(const gunbai::v1::DiffResponse&)>& write);

  // Diffs each log of `logs` (a DiffRequest's inputs, as bytes) under
  // `settings`, each log's bytes freed once diffed, the answers through
  // `write` as DiffLogsWith sends them.
  grpc::Status DiffFromBytes(
      grpc::ServerContext* context, const gunbai::v1::DiffRequest& settings,
      std::vector<std::string>& logs,
      const std::function<bool(const gunbai::v1::DiffResponse&)>& write);

  // DiffEncoded's answers for `request` parsed whole (the path of every
  // request before, and of those whose bytes DiffEncoded does not read):
  // the logs freed as they are diffed.
  grpc::Status DiffParsed(
      grpc::ServerContext* context, gunbai::v1::DiffRequest& request,
      const std::function<bool(const gunbai::v1::DiffResponse&)>& write);

  // Summarizes the dice of the logs of the DiceStatsRequest encoded in
  // `request` (emptied) as `gunbai dice` does, parsing and freeing one log
  // at a time. Returns INVALID_ARGUMENT when the request does not decode or
  // a log names a unit or leader not in its order of battle,
  // RESOURCE_EXHAUSTED when the budget is full.
  // Reconcile: the two copies of `request`, admitted by their size as the
  // other calls are, set side by side (replay/reconcile.h).
  grpc::Status Reconcile(grpc::ServerContext* context,
                         const gunbai::v1::ReconcileRequest* request,
                         gunbai::v1::ReconcileResponse* response) override;
  // TournamentStandings: the tournament and the files of `request`,
  // admitted by their size as the whole request; each game audited as the
  // CLI's `gunbai tournament standings` audits it.
  grpc::Status TournamentStandings(
      grpc::ServerContext* context,
      const gunbai::v1::TournamentStandingsRequest* request,
      gunbai::v1::TournamentStandingsResponse* response) override;
  // TournamentRule: the ruling of `request` recorded on its tournament.
  grpc::Status TournamentRule(
      grpc::ServerContext* context,
      const gunbai::v1::TournamentRuleRequest* request,
      gunbai::v1::TournamentRuleResponse* response) override;

  grpc::Status DiceStatsEncoded(grpc::ServerContext* context,
                                grpc::ByteBuffer& request,
                                gunbai::v1::DiceStatsResponse* response);

 private:
  struct DecodedAuditRequest;

  // Reads the AuditLogRequest encoded in `wire` (emptied) into `out`, the
  // log left as its bytes. INVALID_ARGUMENT naming `method` when it does not
  // decode.
  static grpc::Status DecodeAuditRequest(grpc::ByteBuffer& wire,
                                         absl::string_view method,
                                         DecodedAuditRequest& out);

  // Admits the request `wire` of message `type` by its size (Admit), then
  // decodes it (DecodeAuditRequest).
  grpc::Status AdmitAndDecode(grpc::ByteBuffer& wire,
                              const google::protobuf::Descriptor& type,
                              absl::string_view method,
                              RequestBudget::Admission& admission,
                              DecodedAuditRequest& decoded);

  // The streamed audit of the decoded request's log (replay/log_stream.h),
  // with outcomes when `record_outcomes`, `after_event` called after each
  // event: its report, or none when it gives up (the caller then audits the
  // log parsed whole: AuditWhole). CANCELLED, or the audit's error.
  absl::StatusOr<replay::StreamedAuditResult> AuditStreamed(
      grpc::ServerContext* context, const DecodedAuditRequest& decoded,
      bool record_outcomes, const replay::AfterStreamedEvent& after_event);

  // When the request asks for them (impact), adds to `report`, the
  // streamed audit of `decoded`, the impacts of its disputes, each branch
  // replayed from the log's bytes; from the log parsed whole when the bytes
  // do not stream (which, once audited as a stream, they do). The impacts
  // are AddImpacts's for the log parsed whole, byte for byte.
  // Adds to `report` (the audit of `log` under `ruleset`) the readings and
  // the remedies the request asks for, when it does.
  // `context` (may be null) stops the audits under other readings when the
  // client no longer waits.
  static grpc::Status AddAskedExtras(const v1::AuditLogRequest& request,
                                     const v1::BattleLog& log,
                                     const replay::LoadedRuleset& ruleset,
                                     v1::AuditReport& report,
                                     grpc::ServerContext* context = nullptr);
  // The same for a request whose log is still its bytes (the streamed
  // audit's): the log is parsed whole only when an extra is asked for.
  grpc::Status AddAskedExtrasFromBytes(DecodedAuditRequest& decoded,
                                       absl::string_view method,
                                       v1::AuditReport& report,
                                       grpc::ServerContext* context);
  grpc::Status AddAskedImpacts(grpc::ServerContext* context,
                               DecodedAuditRequest& decoded,
                               absl::string_view method,
                               gunbai::v1::AuditReport& report);

  // Parses the decoded request's log whole (its bytes freed) and audits it
  // as AuditParsedLog does: the path of a log the stream gives up on.
  grpc::Status AuditWhole(grpc::ServerContext* context,
                          DecodedAuditRequest& decoded,
                          absl::string_view method,
                          gunbai::v1::AuditLogResponse* response);

  // AuditLog's answer, as bytes, for a log the stream gave up on: AuditWhole,
  // its outcomes serialized.
  grpc::Status AnswerWholeAudit(grpc::ServerContext* context,
                                DecodedAuditRequest& decoded,
                                grpc::ByteBuffer* response);

  // AuditLogStream's pieces for a log the stream gave up on: AuditWhole,
  // its report then sent in pieces through `write`.
  grpc::Status SendWholeAudit(grpc::ServerContext* context,
                              DecodedAuditRequest& decoded,
                              const PieceWriter& write);

  // The streamed audit again, with outcomes, `send_outcomes` given the
  // report after each event (it may move the outcomes out; false stops the
  // audit: CANCELLED), into `report`. A log that streamed once streams
  // again: INTERNAL if it does not.
  grpc::Status RestreamWithOutcomes(
      grpc::ServerContext* context, const DecodedAuditRequest& decoded,
      const replay::AfterStreamedEvent& send_outcomes,
      gunbai::v1::AuditReport& report);

  // AuditParsedLog's audit and impact branches once the enums are checked
  // and the ruleset chosen.
  grpc::Status AuditUnder(grpc::ServerContext* context,
                          const replay::LoadedRuleset& ruleset,
                          gunbai::v1::AuditLogRequest& request,
                          gunbai::v1::AuditLogResponse* response);

  // Diffs the logs `diff_logs` hands the callback it is given (DiffLogs or
  // DiffRequestLogs with it), writing each diff as it comes, then the
  // summary; CANCELLED once the client goes away.
  grpc::Status DiffLogsWith(
      grpc::ServerContext* context,
      const std::function<absl::Status(
          const std::function<bool(std::size_t, gunbai::v1::LogDiff)>&)>&
          diff_logs,
      const std::function<bool(const gunbai::v1::DiffResponse&)>& write);

  // Returns OK with the admission of a request of `wire_bytes` by the
  // budget (an empty one without a budget), or the status refusing it.
  // Admits `request` by its size on the wire, then refuses one whose parse
  // as `type` would cost too much (CheckParseCost).
  grpc::Status Admit(const grpc::ByteBuffer& request,
                     const google::protobuf::Descriptor& type,
                     absl::string_view what,
                     RequestBudget::Admission& admission);

  const replay::RulesetCatalog* const rulesets_;  // Not owned.
  RequestBudget* const budget_;                   // Not owned; may be null.
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_AUDIT_SERVICE_H_
