// The victory points a Samurai Knight Fever log is scored with: page 6's,
// from the ruleset (skf.victory), checked against what the log's scenario
// gives; the total to win is the log's agreement. See engine.h.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/skf/engine.h"
#include "rules/skf/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules::skf {

namespace {

namespace v1 = ::gunbai::v1;

// Caps on what a header gives, as replay reads a scenario for any ruleset.
constexpr uint32_t kMaxHeaderUnitPoints = 1000;
constexpr uint32_t kMaxHeaderPoints = 1000000;

constexpr char kMismatch[] = "skf.victory.points_mismatch";

// One entry of header.scenario.victory.unit_points.
struct ListedPoints {
  int index = 0;
  TroopType type = TroopType::kAshigaru;
  uint32_t points = 0;
};

// What the header's scenario says about the victory points. A field left at
// its default says nothing (rules/skf/RULES.md, "Victory", reading 2).
struct HeaderPoints {
  std::vector<ListedPoints> unit_points;
  // 0: not given.
  uint32_t camp_sack_points = 0;
  // Empty list: not given.
  bool camp_sack_types_given = false;
  std::array<bool, kTroopTypeCount> camp_sack_types{};
  // 0: not given.
  int points_to_win = 0;
};

absl::StatusOr<HeaderPoints> ReadHeader(const v1::VictoryConditions& v) {
  HeaderPoints out;
  for (int i = 0; i < v.unit_points_size(); ++i) {
    std::optional<TroopType> type =
        TroopTypeFromProto(v.unit_points(i).troop_type());
    if (!type.has_value()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "header.scenario.victory.unit_points[%d]: the troop type is not "
          "set.",
          i));
    }
    out.unit_points.push_back({i, *type, v.unit_points(i).points()});
  }
  out.camp_sack_points = v.camp_sack_points();
  for (int i = 0; i < v.camp_sack_troop_types_size(); ++i) {
    std::optional<TroopType> type = TroopTypeFromProto(
        static_cast<v1::TroopType>(v.camp_sack_troop_types(i)));
    if (!type.has_value()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "header.scenario.victory.camp_sack_troop_types[%d]: the troop type "
          "is not set.",
          i));
    }
    out.camp_sack_types_given = true;
    out.camp_sack_types[static_cast<int>(*type)] = true;
  }
  out.points_to_win =
      static_cast<int>(std::min(v.points_to_win(), kMaxHeaderPoints));
  return out;
}

// The header's points as the log gives them (a ruleset without
// skf.victory); a type listed twice takes its last entry.
VictorySettings AsTheLogGivesThem(const HeaderPoints& header) {
  VictorySettings out;
  out.points_to_win = header.points_to_win;
  for (const ListedPoints& listed : header.unit_points) {
    out.unit_points[static_cast<int>(listed.type)] =
        static_cast<int>(std::min(listed.points, kMaxHeaderUnitPoints));
  }
  out.camp_sack_points =
      static_cast<int>(std::min(header.camp_sack_points, kMaxHeaderPoints));
  out.camp_sack_types = header.camp_sack_types;
  return out;
}

std::string Points(int64_t n) {
  return absl::StrCat(n, n == 1 ? " point" : " points");
}

void Report(Severity severity, absl::string_view rule_id, std::string subject,
            std::string message, std::string claimed, std::string computed,
            google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  if (findings == nullptr) return;
  Finding f;
  f.severity = severity;
  f.rule_id = rule_id;
  f.subject = std::move(subject);
  f.message = std::move(message);
  f.claimed = std::move(claimed);
  f.computed = std::move(computed);
  AppendFinding(std::move(f), 0, 0, *findings);
}

// Reports each troop type the header lists with other points than the
// ruleset's.
void CheckUnitPoints(
    const HeaderPoints& header, const VictorySettings& ruleset,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  for (const ListedPoints& listed : header.unit_points) {
    const int points = ruleset.unit_points[static_cast<int>(listed.type)];
    if (listed.points == static_cast<uint32_t>(points)) continue;
    const absl::string_view troop = TroopName(listed.type);
    Report(Severity::kViolation, kMismatch, std::string(troop),
           absl::StrFormat(
               "The header's scenario gives a routed or eliminated %s unit "
               "%s (header.scenario.victory.unit_points[%d]); the ruleset "
               "gives %s (skf.victory.unit_points), and %s is scored.",
               troop, Points(listed.points), listed.index, Points(points),
               Points(points)),
           absl::StrCat(troop, " ", Points(listed.points)),
           absl::StrCat(troop, " ", Points(points)), findings);
  }
}

// Reports camp points, and each troop type allowed to sack a camp, where
// the header gives them and they differ from the ruleset's.
void CheckCampPoints(
    const HeaderPoints& header, const VictorySettings& ruleset,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  const int points = ruleset.camp_sack_points;
  if (header.camp_sack_points != 0 &&
      header.camp_sack_points != static_cast<uint32_t>(points)) {
    Report(Severity::kViolation, kMismatch, "camp",
           absl::StrFormat(
               "The header's scenario gives %s for sacking an enemy camp "
               "(header.scenario.victory.camp_sack_points); the ruleset "
               "gives %s (skf.victory.camp_sack_points), and %s is scored.",
               Points(header.camp_sack_points), Points(points), Points(points)),
           absl::StrCat("camp ", Points(header.camp_sack_points)),
           absl::StrCat("camp ", Points(points)), findings);
  }
  if (!header.camp_sack_types_given) return;
  for (int t = 0; t < kTroopTypeCount; ++t) {
    const bool by_header = header.camp_sack_types[t];
    if (by_header == ruleset.camp_sack_types[t]) continue;
    const absl::string_view troop = TroopName(static_cast<TroopType>(t));
    Report(Severity::kViolation, kMismatch, std::string(troop),
           by_header
               ? absl::StrFormat(
                     "The header's scenario lets %s units sack an enemy camp "
                     "(header.scenario.victory.camp_sack_troop_types); the "
                     "ruleset does not (skf.victory.camp_sack_troop_types), "
                     "and their camp touches score nothing.",
                     troop)
               : absl::StrFormat(
                     "The header's scenario does not let %s units sack an "
                     "enemy camp (header.scenario.victory."
                     "camp_sack_troop_types); the ruleset does "
                     "(skf.victory.camp_sack_troop_types), and their camp "
                     "touches score %s.",
                     troop, Points(points)),
           absl::StrCat(troop, by_header ? " sack" : " do not sack"),
           absl::StrCat(troop, by_header ? " do not sack" : " sack"), findings);
  }
}

}  // namespace

absl::StatusOr<std::optional<VictorySettings>> SkfVictorySettings(
    const v1::BattleLog& log, const v1::Ruleset& data,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  GUNBAI_ASSIGN_OR_RETURN(auto header,
                          ReadHeader(log.header().scenario().victory()));
  auto tables =
      TablesFromProto(data.skf(), absl::StrCat("ruleset ", data.name()));
  if (!tables.ok()) return tables.status();
  if (!tables->victory.has_value()) {
    if (header.points_to_win == 0) return std::nullopt;
    Report(Severity::kUnverifiable, "skf.victory.unchecked", "",
           "The ruleset gives no victory points (skf.victory), so the "
           "header's scenario is scored as the log gives it, unchecked; add "
           "the section to the ruleset file (the built-in one has page 6's "
           "points) to check it.",
           "", "", findings);
    return AsTheLogGivesThem(header);
  }
  VictorySettings settings = *tables->victory;
  CheckUnitPoints(header, settings, findings);
  CheckCampPoints(header, settings, findings);
  if (header.points_to_win > 0) settings.points_to_win = header.points_to_win;
  if (settings.points_to_win == 0) return std::nullopt;
  return settings;
}

}  // namespace gunbai::rules::skf
