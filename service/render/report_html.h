// Renders an audit as one self-contained HTML page (`gunbai audit
// --format=html`): the verdict in words, the findings by turn with their
// traces and the rules they cite (as `gunbai explain` reads them), what each
// disputed outcome changed (--impact), every event with its outcomes, and
// pictures as inline SVG: each clan's dice against fair dice (the numbers of
// `gunbai dice`) and each unit's stands over the game (the state `gunbai
// state` replays).
//
// The page fetches nothing and has no script, so it is safe under any
// Content-Security-Policy and as a mailed file; its CSS is in one <style>.
// Every string from the log or the report is escaped (base::HtmlEscape,
// rules/text_escape.h). The same input gives the same bytes. Thread-safe:
// functions only.
#ifndef GUNBAI_SERVICE_RENDER_REPORT_HTML_H_
#define GUNBAI_SERVICE_RENDER_REPORT_HTML_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/dice_stats.h"
#include "replay/ruleset_loader.h"

namespace gunbai::service {

// The events listed one a row, at most: past this the page lists only the
// events with a finding and says how many it left out (a 200,000-event game
// would otherwise be a page no browser opens comfortably).
inline constexpr int kMaxHtmlEventRows = 5000;

// One unit's stands over the game: how many it started with and each event
// after which the number changed (the x of a step chart).
struct UnitStandsSeries {
  std::string unit_id;
  int clan = 0;  // Index into the log's header clans.
  int starting_stands = 0;
  struct Change {
    int event_index = 0;  // 0-based index of the event in the log.
    int stands = 0;
  };
  std::vector<Change> changes;
  // The 0-based event index after which it was removed; -1 if never.
  int removed_after_event = -1;
};

// Everything the page shows. The pointers are borrowed and must outlive the
// call to FormatReportHtml.
struct HtmlReportData {
  const gunbai::v1::AuditReport* report = nullptr;
  const gunbai::v1::BattleLog* log = nullptr;
  // The dice statistics of this one log (replay::SummarizeDice), or, when
  // its dice cannot be attributed to a clan (an event names a unit the
  // order of battle lacks, which the audit reports), why not.
  replay::DiceReport dice;
  std::string dice_unavailable;
  // One series per unit of the order of battle, in its order.
  std::vector<UnitStandsSeries> stands;
};

// Returns each unit's stands after every event of `log`, replayed under
// `ruleset` by replay::ForEachEventState. Returns InvalidArgument as the
// replay does (a log for another ruleset, an unusable order of battle).
absl::StatusOr<std::vector<UnitStandsSeries>> StandsOverGame(
    const gunbai::v1::BattleLog& log, const replay::LoadedRuleset& ruleset);

// Returns what FormatReportHtml needs for `report`, the audit of `log` under
// `ruleset`: the dice statistics (or why there are none) and the stands over
// the game. Returns InvalidArgument as StandsOverGame does.
absl::StatusOr<HtmlReportData> GatherHtmlReportData(
    const gunbai::v1::AuditReport& report, const gunbai::v1::BattleLog& log,
    const replay::LoadedRuleset& ruleset);

// Returns the page: a whole HTML document, ending in a newline.
std::string FormatReportHtml(const HtmlReportData& data);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_RENDER_REPORT_HTML_H_
