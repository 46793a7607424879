#include "service/daemon/log_service.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/map_scene.h"
#include "replay/parse_cost.h"
#include "replay/proto_mapping.h"
#include "replay/text_errors.h"
#include "service/common/grpc_status.h"
#include "service/daemon/decode_errors.h"
#include "service/daemon/wire_request.h"
#include "service/render/map_svg.h"
#include "service/render/report_html.h"

namespace gunbai::service {

namespace {

// The methods' indices in LogService, in the order of the proto.
constexpr int kParseLogIndex = 0;
constexpr int kLogStatesIndex = 1;
constexpr int kDrawMapIndex = 2;

grpc::Status Undecodable(absl::string_view method) {
  return UndecodableRequest(absl::StrCat("/gunbai.v1.LogService/", method));
}

const char* FormatName(replay::LogFormat format) {
  switch (format) {
    case replay::LogFormat::kText:
      return "text";
    case replay::LogFormat::kJson:
      return "json";
    case replay::LogFormat::kBinary:
      return "binary";
    case replay::LogFormat::kAuto:
      break;
  }
  return "";
}

// The format `content` is read in: the file name's, else what its first
// bytes say (as ParseBattleLog's kAuto reads it).
replay::LogFormat FormatOf(absl::string_view content,
                           absl::string_view file_name) {
  replay::LogFormat format = replay::FormatFromFileName(file_name);
  if (format == replay::LogFormat::kAuto) {
    format = replay::SniffLogFormat(content, /*whole_input=*/true);
  }
  return format == replay::LogFormat::kAuto ? replay::LogFormat::kText : format;
}

// Refuses binary content whose parse would cost more than the request's
// own allowance (a list of empty names costs 20 times its bytes parsed).
grpc::Status CheckBinaryContentCost(absl::string_view content) {
  static const replay::ParseCostModel* const model =
      new replay::ParseCostModel(*v1::BattleLog::descriptor());
  google::protobuf::io::ArrayInputStream input(
      content.data(), static_cast<int>(content.size()));
  const replay::ParseCost cost = model->Estimate(input, "content");
  const std::int64_t allowed =
      kParseCostPerWireByte * static_cast<std::int64_t>(content.size()) +
      kParseCostSlackBytes;
  if (cost.bytes <= allowed) return grpc::Status::OK;
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      absl::StrCat("ParseLog: the log would take about ", cost.bytes >> 20,
                   " MiB parsed, more than gunbaid lets a file of ",
                   content.size(), " bytes take; most of it is ",
                   cost.longest_list, ", a list of ", cost.longest_list_entries,
                   " entries. Send it without the repeats."));
}

}  // namespace

LogServiceImpl::LogServiceImpl(const replay::RulesetCatalog* rulesets,
                               RequestBudget* budget)
    : rulesets_(rulesets), budget_(budget) {
  MarkMethodStreamed(
      kParseLogIndex,
      UnaryOnWire<v1::ParseLogResponse>(
          "ParseLog", [this](grpc::ServerContext*, grpc::ByteBuffer& request,
                             v1::ParseLogResponse* response) {
            return ParseLogEncoded(request, response);
          }));
  MarkMethodStreamed(
      kLogStatesIndex,
      UnaryOnWire<v1::LogStatesResponse>(
          "LogStates", [this](grpc::ServerContext*, grpc::ByteBuffer& request,
                              v1::LogStatesResponse* response) {
            return LogStatesEncoded(request, response);
          }));
  MarkMethodStreamed(
      kDrawMapIndex,
      UnaryOnWire<v1::DrawMapResponse>(
          "DrawMap", [this](grpc::ServerContext*, grpc::ByteBuffer& request,
                            v1::DrawMapResponse* response) {
            return DrawMapEncoded(request, response);
          }));
}

grpc::Status LogServiceImpl::ParseLogEncoded(grpc::ByteBuffer& request,
                                             v1::ParseLogResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = ToGrpcStatus(
      AdmitBytes(budget_, static_cast<std::int64_t>(request.Length()),
                 "ParseLog", admission));
  if (!admitted.ok()) return admitted;
  v1::ParseLogRequest parsed;
  if (!ParseWire(request, parsed)) return Undecodable("ParseLog");
  return ParseLogParsed(parsed, response);
}

grpc::Status LogServiceImpl::ParseLogParsed(const v1::ParseLogRequest& request,
                                            v1::ParseLogResponse* response) {
  const std::string& content = request.content();
  if (content.size() > kMaxParseLogBytes) {
    return grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("the file is ", content.size(),
                     " bytes; the web app reads logs of at most ",
                     kMaxParseLogBytes >> 20,
                     " MiB: audit a bigger one with `gunbai audit FILE`"));
  }
  const replay::LogFormat format = FormatOf(content, request.file_name());
  if (format == replay::LogFormat::kBinary) {
    grpc::Status cost = CheckBinaryContentCost(content);
    if (!cost.ok()) return cost;
  }
  const std::string name =
      request.file_name().empty() ? "the file" : request.file_name();
  absl::StatusOr<v1::BattleLog> log =
      replay::ParseBattleLog(content, format, name);
  if (!log.ok()) {
    // A live game's export (what the live page's Export button and `gunbai
    // game export` write, with its chain and dice attempts) holds the log:
    // the audit page opens it as the log it holds.
    absl::StatusOr<v1::ExportedGame> game =
        replay::ParseExportedGame(content, name);
    if (!game.ok() || !game->has_log()) return ToGrpcStatus(log.status());
    *response->mutable_log() = std::move(*game->mutable_log());
    response->set_format(FormatName(format));
    return grpc::Status::OK;
  }
  *response->mutable_log() = *std::move(log);
  response->set_format(FormatName(format));
  return grpc::Status::OK;
}

grpc::Status LogServiceImpl::LogStatesEncoded(grpc::ByteBuffer& request,
                                              v1::LogStatesResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = ToGrpcStatus(
      AdmitBytes(budget_, static_cast<std::int64_t>(request.Length()),
                 "LogStates", admission));
  if (!admitted.ok()) return admitted;
  grpc::Status cost =
      CheckParseCost(request, *v1::LogStatesRequest::descriptor(), "LogStates");
  if (!cost.ok()) return cost;
  v1::LogStatesRequest parsed;
  if (!ParseWire(request, parsed)) return Undecodable("LogStates");
  return LogStatesParsed(parsed, response);
}

namespace {

// Adds the states after each of the request's events from its from_seq on,
// `count` at most, replayed under `ruleset`.
absl::Status AddEventStates(const v1::LogStatesRequest& request,
                            const replay::LoadedRuleset& ruleset,
                            v1::LogStatesResponse& response) {
  std::uint32_t left = request.count();
  return replay::ForEachEventState(
      request.log(), ruleset,
      [&](const v1::Event& event, const rules::BattleState& state) {
        if (left == 0 || event.seq() < request.from_seq()) return;
        --left;
        v1::EventState& out = *response.add_states();
        out.set_seq(event.seq());
        *out.mutable_state() = replay::SnapshotFromState(state);
      });
}

// Adds each unit's stands over `log`'s game, its changes at their events'
// seqs.
void AddStands(const v1::BattleLog& log,
               const std::vector<UnitStandsSeries>& stands,
               v1::LogStatesResponse& response) {
  std::map<std::string, std::string> clan_of;
  for (const v1::Unit& unit : log.order_of_battle().units()) {
    clan_of.emplace(unit.id(), unit.clan());
  }
  const auto seq_of = [&log](int index) -> std::uint64_t {
    return index >= 0 && index < log.events_size() ? log.events(index).seq()
                                                   : 0;
  };
  for (const UnitStandsSeries& series : stands) {
    v1::UnitStands& out = *response.add_stands();
    out.set_unit(series.unit_id);
    out.set_clan(clan_of[series.unit_id]);
    out.set_starting_stands(static_cast<std::uint32_t>(series.starting_stands));
    for (const UnitStandsSeries::Change& change : series.changes) {
      v1::UnitStands::Change& c = *out.add_changes();
      c.set_seq(seq_of(change.event_index));
      c.set_stands(static_cast<std::uint32_t>(change.stands));
    }
    if (series.removed_after_event >= 0) {
      out.set_removed_after_seq(seq_of(series.removed_after_event));
    }
  }
}

}  // namespace

grpc::Status LogServiceImpl::LogStatesParsed(
    const v1::LogStatesRequest& request, v1::LogStatesResponse* response) {
  if (request.count() > kMaxStatesPerRequest) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("count is ", request.count(), "; ask for at most ",
                     kMaxStatesPerRequest,
                     " states a request and page with from_seq"));
  }
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) return ToGrpcStatus(known);
  const v1::BattleLog& log = request.log();
  absl::StatusOr<const replay::LoadedRuleset*> ruleset =
      rulesets_->ForLog(log.header());
  if (!ruleset.ok()) return ToGrpcStatus(ruleset.status());
  if (request.count() > 0) {
    absl::Status replayed = AddEventStates(request, **ruleset, *response);
    if (!replayed.ok()) return ToGrpcStatus(replayed);
  }
  if (request.stands_over_game()) {
    absl::StatusOr<std::vector<UnitStandsSeries>> stands =
        StandsOverGame(log, **ruleset);
    if (!stands.ok()) return ToGrpcStatus(stands.status());
    AddStands(log, *stands, *response);
  }
  return grpc::Status::OK;
}

grpc::Status LogServiceImpl::DrawMapEncoded(grpc::ByteBuffer& request,
                                            v1::DrawMapResponse* response) {
  RequestBudget::Admission admission;
  grpc::Status admitted = ToGrpcStatus(
      AdmitBytes(budget_, static_cast<std::int64_t>(request.Length()),
                 "DrawMap", admission));
  if (!admitted.ok()) return admitted;
  grpc::Status cost =
      CheckParseCost(request, *v1::DrawMapRequest::descriptor(), "DrawMap");
  if (!cost.ok()) return cost;
  v1::DrawMapRequest parsed;
  if (!ParseWire(request, parsed)) return Undecodable("DrawMap");
  return DrawMapParsed(parsed, response);
}

grpc::Status LogServiceImpl::DrawMapParsed(const v1::DrawMapRequest& request,
                                           v1::DrawMapResponse* response) {
  const double scale = request.px_per_cm() == 0 ? 5 : request.px_per_cm();
  if (!(scale >= 0.5 && scale <= 50)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "px_per_cm is out of range; give 0.5 to 50, or 0 for "
                        "the default 5");
  }
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) return ToGrpcStatus(known);
  absl::StatusOr<const replay::LoadedRuleset*> ruleset =
      rulesets_->ForLog(request.log().header());
  if (!ruleset.ok()) return ToGrpcStatus(ruleset.status());
  absl::StatusOr<replay::MapScene> scene =
      replay::SceneAt(request.log(), **ruleset, request.at_seq());
  if (!scene.ok()) return ToGrpcStatus(scene.status());
  response->set_svg(RenderMapSvg(*scene, scale));
  return grpc::Status::OK;
}

}  // namespace gunbai::service
