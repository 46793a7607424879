#include "service/render/report_html.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "replay/audit.h"
#include "replay/explain.h"
#include "rules/battle_state.h"
#include "rules/digest.h"
#include "rules/status_macros.h"
#include "rules/text_escape.h"
#include "service/render/report_format.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::base::HtmlEscape;

// The page's whole style sheet. Readable from 360 px up (tables scroll
// sideways inside their box, charts scale), printable (no scroll boxes, no
// navigation, findings kept whole). Colour is never the only cue: each
// severity has its word and a sign, each line of a chart its own dash.
constexpr char kCss[] = R"css(
:root{--fg:#1b1b1b;--muted:#555;--line:#ccc;--bg:#fff;--soft:#f4f4f4;
--violation:#b3261e;--dispute:#a15c00;--warning:#6b5b00;--unverifiable:#555;
--clean:#1e6b2f}
*{box-sizing:border-box}
body{margin:0 auto;padding:1rem;max-width:64rem;color:var(--fg);
background:var(--bg);font:16px/1.45 system-ui,-apple-system,"Segoe UI",
Roboto,"Noto Sans",sans-serif;overflow-wrap:anywhere}
h1{font-size:1.6rem;margin:.2rem 0 .6rem}
h2{font-size:1.3rem;margin:2rem 0 .6rem;border-bottom:2px solid var(--line)}
h3{font-size:1.1rem;margin:1.2rem 0 .4rem}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;
font-size:.92em}
a{color:#0b57d0}
nav ul{display:flex;flex-wrap:wrap;gap:.3rem 1rem;padding:0;list-style:none}
.verdict{border:3px solid;border-radius:.4rem;padding:.7rem 1rem;
margin:1rem 0;font-size:1.15rem}
.verdict.clean{border-color:var(--clean)}
.verdict.findings{border-color:var(--violation)}
.verdict strong{display:block;font-size:1.3rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;
margin:0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
.table-wrap{overflow-x:auto;margin:.4rem 0 1rem}
table{border-collapse:collapse;min-width:100%}
caption{text-align:left;color:var(--muted);padding:.2rem 0}
table{overflow-wrap:break-word}
th,td{border:1px solid var(--line);padding:.25rem .45rem;text-align:left;
vertical-align:top}
th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.finding{border-left:6px solid var(--line);padding:.3rem 0 .3rem .8rem;
margin:0 0 1.2rem}
.finding header{display:flex;flex-wrap:wrap;gap:.2rem .8rem;
align-items:baseline}
.badge{font-weight:700;letter-spacing:.03em}
.sev-violation{border-color:var(--violation)}
.sev-violation .badge{color:var(--violation)}
.sev-dispute{border-color:var(--dispute)}
.sev-dispute .badge{color:var(--dispute)}
.sev-warning{border-color:var(--warning)}
.sev-warning .badge{color:var(--warning)}
.sev-unverifiable .badge{color:var(--unverifiable)}
tr.has-finding td:first-child{border-left:4px solid var(--violation)}
.chart-title{margin:.6rem 0 0;font-size:.95rem;font-weight:600}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));
gap:1rem}
figure{margin:0}
figcaption{color:var(--muted);font-size:.9rem}
svg{width:100%;height:auto;display:block}
svg text{font:11px system-ui,sans-serif;fill:#1b1b1b}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.2rem 1rem;
font-size:.9rem}
.legend svg{display:inline-block;width:2.4rem;height:.8rem;
vertical-align:middle}
.rule{border-top:1px solid var(--line);padding-top:.3rem}
.src{color:var(--muted);font-size:.9rem}
.flag{font-weight:700;color:var(--violation)}
footer{margin-top:2rem;color:var(--muted);font-size:.9rem}
@media (max-width:480px){body{padding:.6rem;font-size:15px}
h1{font-size:1.3rem}.facts{grid-template-columns:1fr}.facts dd{margin-bottom:.3rem}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;
clip:rect(0 0 0 0)}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;
min-width:0}
table.stack tr{border:1px solid var(--line);margin:0 0 .4rem;padding:.2rem .5rem}
table.stack tr.has-finding{border-left:4px solid var(--violation)}
table.stack tr.has-finding td:first-child{border-left:0}
table.stack td{border:0;padding:.05rem 0;text-align:left}
table.stack td[data-label]::before{content:attr(data-label) ": ";
font-weight:700;color:var(--muted)}
table.stack td:empty{display:none}
table.stack caption{display:block}}
@media print{nav{display:none}.table-wrap{overflow:visible}
.finding,figure,tr{break-inside:avoid}a{color:inherit;text-decoration:none}
body{max-width:none}}
)css";

// Eight colours a viewer with the common colour blindness still tells
// apart, each paired with its own dash so that print in grey does too.
constexpr std::array<const char*, 8> kLineColours = {
    "#0072b2", "#d55e00", "#009e73", "#cc79a7",
    "#56b4e9", "#e69f00", "#000000", "#7f7f7f"};
constexpr std::array<const char*, 4> kLineDashes = {"", "6 3", "2 3",
                                                    "8 3 2 3"};

// An id usable in an id attribute and a fragment link: letters, digits,
// '.', '_' and '-' kept, anything else '-'.
std::string AnchorId(absl::string_view prefix, absl::string_view id) {
  std::string out(prefix);
  for (char c : id) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                      c == '-';
    out += keep ? c : '-';
  }
  return out;
}

absl::string_view SeverityWord(v1::Severity s) {
  switch (s) {
    case v1::SEVERITY_VIOLATION:
      return "violation";
    case v1::SEVERITY_DISPUTE:
      return "dispute";
    case v1::SEVERITY_WARNING:
      return "warning";
    case v1::SEVERITY_UNVERIFIABLE:
      return "unverifiable";
    default:
      return "unknown";
  }
}

// The sign beside a severity's word: the badge reads without colour.
absl::string_view SeveritySign(v1::Severity s) {
  switch (s) {
    case v1::SEVERITY_VIOLATION:
      return "\xE2\x9C\x96";  // heavy multiplication x
    case v1::SEVERITY_DISPUTE:
      return "\xE2\x89\xA0";  // not equal to
    case v1::SEVERITY_WARNING:
      return "\xE2\x9A\xA0";  // warning sign
    default:
      return "?";
  }
}

// The names the log gives its clans, units and leaders, for labels.
class Names {
 public:
  explicit Names(const v1::BattleLog& log) {
    for (const v1::Clan& c : log.header().clans()) names_[c.id()] = c.name();
    for (const v1::Unit& u : log.order_of_battle().units()) {
      names_[u.id()] = u.name();
    }
    for (const v1::Leader& l : log.order_of_battle().leaders()) {
      names_[l.id()] = l.name();
    }
  }
  // Returns "Name (id)" escaped, or the id alone when it has no name.
  std::string Label(absl::string_view id) const {
    auto it = names_.find(std::string(id));
    if (it == names_.end() || it->second.empty() || it->second == id) {
      return HtmlEscape(id);
    }
    return absl::StrCat(HtmlEscape(it->second), " (", HtmlEscape(id), ")");
  }

 private:
  std::map<std::string, std::string> names_;
};

std::string CspStyleHash() {
  std::string bytes;
  bytes = absl::HexStringToBytes(base::Sha256Hex(kCss));
  return absl::StrCat("'sha256-", absl::Base64Escape(bytes), "'");
}

void AppendHead(const v1::AuditReport& report, std::string& out) {
  absl::StrAppend(
      &out,
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
      "charset=\"utf-8\">\n<meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
      "'none'; style-src ",
      CspStyleHash(),
      "\">\n<meta name=\"generator\" content=\"gunbai audit "
      "--format=html\">\n<title>gunbai audit: ",
      HtmlEscape(report.game_id()), "</title>\n<style>", kCss,
      "</style>\n</head>\n<body>\n");
}

std::string SummaryWords(const v1::AuditSummary& s) {
  return absl::StrJoin({Plural(s.violations(), "violation", "violations"),
                        Plural(s.disputes(), "dispute", "disputes"),
                        Plural(s.warnings(), "warning", "warnings")},
                       ", ");
}

void AppendVerdict(const v1::AuditReport& report, std::string& out) {
  const v1::AuditSummary& s = report.summary();
  const bool clean = replay::ReportHasFailures(report) == false;
  absl::StrAppendFormat(
      &out,
      "<section class=\"verdict %s\" id=\"verdict\" aria-labelledby="
      "\"verdict-title\" data-verdict=\"%s\" data-violations=\"%d\" "
      "data-disputes=\"%d\" data-warnings=\"%d\" data-unverifiable=\"%d\">\n",
      clean ? "clean" : "findings", clean ? "clean" : "findings",
      s.violations(), s.disputes(), s.warnings(), s.unverifiable());
  if (clean) {
    absl::StrAppend(&out,
                    "<strong id=\"verdict-title\">\xE2\x9C\x94 Clean</strong>"
                    "gunbai replayed every event through the rules and found "
                    "no violation, dispute or warning.");
  } else {
    absl::StrAppend(
        &out, "<strong id=\"verdict-title\">\xE2\x9C\x96 Not clean: ",
        SummaryWords(s),
        "</strong>A <em>violation</em> is an action the rules forbid; a "
        "<em>dispute</em> is an outcome the log claims that the dice and the "
        "rules do not give; a <em>warning</em> is legal but suspicious.");
  }
  if (s.unverifiable() > 0) {
    absl::StrAppend(&out, " ", Plural(s.unverifiable(), "thing", "things"),
                    " gunbai could not check (unverifiable).");
  }
  absl::StrAppend(&out, "\n</section>\n");
}

void AppendFacts(const v1::AuditReport& report, const v1::BattleLog& log,
                 std::string& out) {
  absl::StrAppend(&out, "<dl class=\"facts\">\n<dt>Ruleset</dt><dd>",
                  HtmlEscape(report.ruleset().name()), " ",
                  HtmlEscape(report.ruleset().version()),
                  " <span class=\"mono\">sha256:",
                  HtmlEscape(report.ruleset().digest()), "</span></dd>\n");
  absl::StrAppend(&out, "<dt>Replayed</dt><dd>",
                  Plural(report.events_replayed(), "event", "events"), " over ",
                  Plural(report.turns(), "turn", "turns"), "</dd>\n");
  for (const v1::Clan& c : log.header().clans()) {
    absl::StrAppend(&out, "<dt>Clan</dt><dd>",
                    HtmlEscape(c.name().empty() ? c.id() : c.name()), " (",
                    HtmlEscape(c.id()), ")");
    if (!c.player().empty()) {
      absl::StrAppend(&out, ", played by ", HtmlEscape(c.player()));
    }
    absl::StrAppend(&out, "</dd>\n");
  }
  absl::StrAppend(&out, "<dt>Replay branch</dt><dd>",
                  HtmlEscape(report.branch()), "</dd>\n</dl>\n");
}

void AppendResult(const v1::GameResult& result, const Names& names,
                  std::string& out) {
  if (result.clans().empty()) return;
  absl::StrAppend(
      &out,
      "<h2 id=\"result\">How the game ended</h2>\n<div "
      "class=\"table-wrap\"><table>\n<caption>At the end of the log",
      result.scored() ? "; victory points counted at the end of each turn" : "",
      "</caption>\n<thead><tr><th scope=\"col\">Clan</th>",
      result.scored() ? "<th scope=\"col\" class=\"num\">Points</th>" : "",
      "<th scope=\"col\" class=\"num\">Units left</th><th scope=\"col\" "
      "class=\"num\">Stands left</th><th scope=\"col\" "
      "class=\"num\">Routing</th></tr></thead>\n<tbody>\n");
  for (const v1::ClanResult& c : result.clans()) {
    absl::StrAppend(&out, "<tr><th scope=\"row\">", names.Label(c.clan()),
                    "</th>");
    if (result.scored()) {
      absl::StrAppend(&out, "<td class=\"num\">", c.victory_points(), "</td>");
    }
    absl::StrAppend(&out, "<td class=\"num\">", c.units_left(),
                    "</td><td class=\"num\">", c.stands_left(),
                    "</td><td class=\"num\">", c.units_routing(),
                    "</td></tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></div>\n");
  if (result.scored()) {
    absl::StrAppend(
        &out, "<p>",
        result.winner().empty()
            ? std::string("No winner: no clan alone reached the total.")
            : absl::StrCat("Winner: ", names.Label(result.winner()),
                           " (at the end of turn ", result.decided_turn(),
                           ")."),
        "</p>\n");
  }
}

void AppendTrace(const v1::Finding& f, std::string& out) {
  if (f.trace().empty()) return;
  absl::StrAppend(&out,
                  "<div class=\"table-wrap\"><table class=\"trace stack\">\n"
                  "<caption>The arithmetic</caption>\n<thead><tr><th "
                  "scope=\"col\" class=\"num\">Value</th><th "
                  "scope=\"col\">Term</th><th scope=\"col\">Rule</th><th "
                  "scope=\"col\">From</th></tr></thead>\n<tbody>\n");
  for (const v1::Term& t : f.trace()) {
    // Modifiers read as signed terms; dice and totals as plain numbers.
    const std::string value = t.origin() == v1::TERM_ORIGIN_DICE
                                  ? absl::StrCat(t.value())
                                  : absl::StrFormat("%+d", t.value());
    absl::StrAppend(&out, "<tr><td class=\"num\" data-label=\"Value\">", value,
                    "</td><td data-label=\"Term\">", HtmlEscape(t.label()),
                    "</td><td data-label=\"Rule\">");
    if (!t.rule_id().empty()) {
      absl::StrAppend(&out, "<a href=\"#", AnchorId("rule-", t.rule_id()),
                      "\"><code>", HtmlEscape(t.rule_id()), "</code></a>");
    }
    absl::StrAppend(&out, "</td><td data-label=\"From\">",
                    OriginName(t.origin()), "</td></tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></div>\n");
}

// The anchor of the index-th impact, for the finding it belongs to.
std::string ImpactAnchor(int index) { return absl::StrCat("impact-", index); }

// The impact of the dispute `f`, if any: same seq, rule and subject.
int ImpactOf(const v1::AuditReport& report, const v1::Finding& f) {
  for (int i = 0; i < report.impacts_size(); ++i) {
    const v1::DisputeImpact& impact = report.impacts(i);
    if (impact.seq() == f.seq() && impact.rule_id() == f.rule_id() &&
        impact.subject() == f.subject()) {
      return i;
    }
  }
  return -1;
}

void AppendFinding(const v1::AuditReport& report, int index, const Names& names,
                   std::string& out) {
  const v1::Finding& f = report.findings(index);
  const absl::string_view word = SeverityWord(f.severity());
  absl::StrAppend(
      &out, "<article class=\"finding sev-", word, "\" id=\"finding-", index,
      "\" data-rule=\"", HtmlEscape(f.rule_id()), "\" data-seq=\"", f.seq(),
      "\">\n<header><span class=\"badge\">", SeveritySign(f.severity()), " ",
      absl::AsciiStrToUpper(std::string(word)), "</span> <a href=\"#ev-",
      f.seq(), "\">seq ", f.seq(), "</a> <a href=\"#",
      AnchorId("rule-", f.rule_id()), "\"><code>", HtmlEscape(f.rule_id()),
      "</code></a>");
  if (!f.subject().empty()) {
    absl::StrAppend(&out, " <span>", names.Label(f.subject()), "</span>");
  }
  absl::StrAppend(&out, "</header>\n<p>", HtmlEscape(f.message()), "</p>\n");
  if (!f.claimed().empty() || !f.computed().empty()) {
    absl::StrAppend(&out, "<p>The log claims <strong>", HtmlEscape(f.claimed()),
                    "</strong>; gunbai computes <strong>",
                    HtmlEscape(f.computed()), "</strong>.</p>\n");
  }
  AppendTrace(f, out);
  const int impact = ImpactOf(report, f);
  if (impact >= 0) {
    absl::StrAppend(&out, "<p><a href=\"#", ImpactAnchor(impact),
                    "\">What this outcome changed downstream</a></p>\n");
  }
  absl::StrAppend(&out, "</article>\n");
}

void AppendFindings(const v1::AuditReport& report, const Names& names,
                    std::string& out) {
  absl::StrAppend(&out, "<h2 id=\"findings\">Findings by turn (",
                  report.findings_size(), ")</h2>\n");
  if (report.findings().empty()) {
    absl::StrAppend(&out, "<p>None.</p>\n");
    return;
  }
  std::int64_t turn = -1;
  for (int i = 0; i < report.findings_size(); ++i) {
    const v1::Finding& f = report.findings(i);
    if (static_cast<std::int64_t>(f.turn()) != turn) {
      turn = f.turn();
      absl::StrAppend(&out, "<h3>",
                      turn == 0 ? std::string("Before the first turn")
                                : absl::StrCat("Turn ", turn),
                      "</h3>\n");
    }
    AppendFinding(report, i, names, out);
  }
}

void AppendDifferences(
    const google::protobuf::RepeatedPtrField<v1::BranchDifference>& ds,
    const Names& names, std::string& out) {
  if (ds.empty()) {
    absl::StrAppend(&out, "the branches agree");
    return;
  }
  absl::StrAppend(&out, "<ul>");
  for (const v1::BranchDifference& d : ds) {
    absl::StrAppend(&out, "<li>", names.Label(d.subject()), ": ",
                    HtmlEscape(d.corrected()),
                    " (as played: ", HtmlEscape(d.as_played()), ")</li>");
  }
  absl::StrAppend(&out, "</ul>");
}

void AppendImpact(const v1::DisputeImpact& impact, int index,
                  const Names& names, std::string& out) {
  absl::StrAppend(&out, "<section class=\"impact\" id=\"", ImpactAnchor(index),
                  "\">\n<h3>What if seq ", impact.seq(),
                  " had gone as computed</h3>\n<p><a href=\"#",
                  AnchorId("rule-", impact.rule_id()), "\"><code>",
                  HtmlEscape(impact.rule_id()), "</code></a> ",
                  names.Label(impact.subject()), ": ",
                  HtmlEscape(impact.computed()), ", not ",
                  HtmlEscape(impact.claimed()), ".</p>\n");
  if (impact.compared_through_seq() == 0 && !impact.ended_reason().empty()) {
    absl::StrAppend(&out, "<p>", HtmlEscape(impact.ended_reason()),
                    "</p>\n</section>\n");
    return;
  }
  if (impact.steps().empty()) {
    absl::StrAppend(&out, "<p>No unit or leader ends up different.</p>\n");
  } else {
    absl::StrAppend(&out,
                    "<div class=\"table-wrap\"><table>\n<caption>The "
                    "corrected game against the game as played</caption>\n"
                    "<thead><tr><th scope=\"col\">After seq</th><th "
                    "scope=\"col\">Turn</th><th scope=\"col\">Corrected (as "
                    "played)</th></tr></thead>\n<tbody>\n");
    for (const v1::BranchStep& step : impact.steps()) {
      absl::StrAppend(&out, "<tr><td class=\"num\"><a href=\"#ev-", step.seq(),
                      "\">", step.seq(), "</a></td><td class=\"num\">",
                      step.turn(), "</td><td>");
      AppendDifferences(step.differences(), names, out);
      absl::StrAppend(&out, "</td></tr>\n");
    }
    absl::StrAppend(&out, "</tbody></table></div>\n");
  }
  if (impact.ended_at_seq() != 0) {
    absl::StrAppend(&out, "<p>The comparison ends at seq ",
                    impact.ended_at_seq(), ": ",
                    HtmlEscape(impact.ended_reason()), "</p>\n");
  } else {
    absl::StrAppend(&out, "<p>Compared to the end of the log (seq ",
                    impact.compared_through_seq(), ").");
    if (impact.winner_as_played() != impact.winner_corrected()) {
      absl::StrAppend(&out, " The winner changes: ",
                      impact.winner_corrected().empty()
                          ? std::string("none")
                          : names.Label(impact.winner_corrected()),
                      " (as played: ",
                      impact.winner_as_played().empty()
                          ? std::string("none")
                          : names.Label(impact.winner_as_played()),
                      ").");
    }
    absl::StrAppend(&out, "</p>\n");
  }
  absl::StrAppend(&out, "</section>\n");
}

void AppendImpacts(const v1::AuditReport& report, const Names& names,
                   std::string& out) {
  if (report.impacts().empty()) return;
  absl::StrAppend(&out,
                  "<h2 id=\"impacts\">What each disputed outcome changed</h2>\n"
                  "<p>Each disputed outcome replayed a second time as gunbai "
                  "computes it, the players' actions and dice kept, and "
                  "compared event by event with the game as played.</p>\n");
  for (int i = 0; i < report.impacts_size(); ++i) {
    AppendImpact(report.impacts(i), i, names, out);
  }
}

// A bar chart of `observed` counts against `expected` ones (one bar each),
// labelled `labels`, as an accessible SVG.
struct BarChart {
  std::string title;
  std::vector<std::string> labels;
  std::vector<std::int64_t> observed;
  std::vector<double> expected;
};

void AppendBarChart(const BarChart& chart, std::string& out) {
  constexpr double kWidth = 300, kHeight = 150, kLeft = 28, kRight = 6,
                   kTop = 14, kBottom = 22;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  double top = 1;
  for (std::size_t i = 0; i < chart.observed.size(); ++i) {
    top = std::max(
        {top, static_cast<double>(chart.observed[i]), chart.expected[i]});
  }
  const double slot = plot_w / static_cast<double>(chart.observed.size());
  const auto y = [&](double v) { return kTop + plot_h - v / top * plot_h; };
  absl::StrAppendFormat(
      &out,
      "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\">"
      "<title>%s</title>\n",
      kWidth, kHeight, chart.title, chart.title);
  absl::StrAppendFormat(&out,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#888\"/>\n",
                        kLeft, y(0), kWidth - kRight, y(0));
  absl::StrAppendFormat(&out,
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f"
                        "</text><text x=\"%.1f\" y=\"%.1f\" "
                        "text-anchor=\"end\">0</text>\n",
                        kLeft - 3, kTop + 4, top, kLeft - 3, y(0) + 4);
  for (std::size_t i = 0; i < chart.observed.size(); ++i) {
    const double x = kLeft + slot * static_cast<double>(i);
    const double v = static_cast<double>(chart.observed[i]);
    absl::StrAppendFormat(&out,
                          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                          "height=\"%.1f\" fill=\"#56b4e9\"/>",
                          x + slot * 0.15, y(v), slot * 0.7, y(0) - y(v));
    absl::StrAppendFormat(
        &out,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
        "stroke=\"#000\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
        x + slot * 0.05, y(chart.expected[i]), x + slot * 0.95,
        y(chart.expected[i]));
    absl::StrAppendFormat(
        &out,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
        x + slot / 2, std::max(y(v) - 3, 10.0), chart.observed[i], x + slot / 2,
        kHeight - 8, chart.labels[i]);
  }
  absl::StrAppend(&out, "</svg>\n");
}

void AppendBarTable(const BarChart& chart, absl::string_view what,
                    std::string& out) {
  absl::StrAppend(&out,
                  "<details><summary>The numbers</summary>"
                  "<div class=\"table-wrap\"><table><thead><tr><th "
                  "scope=\"col\">",
                  what,
                  "</th><th scope=\"col\" class=\"num\">Rolled</th><th "
                  "scope=\"col\" class=\"num\">Fair dice expect</th></tr>"
                  "</thead><tbody>");
  for (std::size_t i = 0; i < chart.observed.size(); ++i) {
    absl::StrAppendFormat(&out,
                          "<tr><th scope=\"row\">%s</th><td "
                          "class=\"num\">%d</td><td class=\"num\">%.1f</td>"
                          "</tr>",
                          chart.labels[i], chart.observed[i],
                          chart.expected[i]);
  }
  absl::StrAppend(&out, "</tbody></table></div></details>\n");
}

std::string PValue(double p) {
  return p < 0.0001 ? std::string("&lt; 0.0001") : absl::StrFormat("%.4f", p);
}

void AppendDiceGroup(const replay::DiceGroupStats& g, const Names& names,
                     std::string& out) {
  const std::string clan = names.Label(g.clan);
  absl::StrAppend(&out, "<figure class=\"dice\" data-clan=\"",
                  HtmlEscape(g.clan), "\">\n<h3>", clan, "</h3>\n");
  BarChart faces;
  faces.title = absl::StrCat("Faces rolled by ", clan, ": ", g.dice,
                             " dice against fair dice");
  for (int f = 0; f < 6; ++f) {
    faces.labels.push_back(absl::StrCat(f + 1));
    faces.observed.push_back(g.face_counts[f]);
    faces.expected.push_back(static_cast<double>(g.dice) / 6.0);
  }
  absl::StrAppend(&out, "<p class=\"chart-title\" aria-hidden=\"true\">Faces (",
                  Plural(g.dice, "die", "dice"), ")</p>\n");
  AppendBarChart(faces, out);
  AppendBarTable(faces, "Face", out);
  if (g.pairs > 0) {
    // 2d6: 1, 2, ..., 6, ..., 1 ways in 36 for the sums 2 to 12.
    BarChart sums;
    sums.title = absl::StrCat("2d6 totals rolled by ", clan, ": ", g.pairs,
                              " pairs against fair dice");
    for (int s = 2; s <= 12; ++s) {
      const int ways = 6 - std::abs(s - 7);
      sums.labels.push_back(absl::StrCat(s));
      sums.observed.push_back(g.sum_counts[s - 2]);
      sums.expected.push_back(static_cast<double>(g.pairs) * ways / 36.0);
    }
    absl::StrAppend(
        &out, "<p class=\"chart-title\" aria-hidden=\"true\">2d6 totals (",
        Plural(g.pairs, "pair", "pairs"), ")</p>\n");
    AppendBarChart(sums, out);
    AppendBarTable(sums, "Total", out);
  }
  absl::StrAppend(&out,
                  "<figcaption>Bars: as rolled; black dashes: what "
                  "fair dice expect. ");
  absl::StrAppend(
      &out,
      g.face_too_few_dice
          ? "Too few dice to test the faces. "
          : absl::StrCat("Faces p = ", PValue(g.face_adjusted_p_value), ". "));
  if (g.sum_adjusted_p_value.has_value()) {
    absl::StrAppend(&out, "Totals p = ", PValue(*g.sum_adjusted_p_value), ". ");
  }
  absl::StrAppend(&out, "Longest run of one face: ", g.longest_run);
  if (g.longest_run > 0) {
    absl::StrAppend(&out, " (", g.longest_run_face, "s)");
  }
  absl::StrAppend(&out, " (p = ", PValue(g.run_adjusted_p_value), "). ");
  if (g.flagged) {
    absl::StrAppend(&out, "<span class=\"flag\">\xE2\x9A\xA0 Flagged: ",
                    HtmlEscape(absl::StrJoin(g.reasons, ", ")), "</span>");
  } else {
    absl::StrAppend(&out, "Not flagged.");
  }
  absl::StrAppend(&out, "</figcaption>\n</figure>\n");
}

void AppendDice(const HtmlReportData& data, const Names& names,
                std::string& out) {
  absl::StrAppend(
      &out,
      "<h2 id=\"dice\">Dice against fair dice</h2>\n<p>The declared dice of "
      "each clan (as <code>gunbai dice</code> counts them), each face and "
      "each 2d6 total against what fair dice give. A test of fairness, not "
      "proof: a clan is flagged when its dice would be unlikely for fair "
      "dice (p-values after Holm's weighted correction, flagged below ",
      absl::StrFormat("%.2f", replay::kDiceFlagLevel), ").</p>\n");
  if (!data.dice_unavailable.empty()) {
    absl::StrAppend(&out, "<p>The dice cannot be counted by clan: ",
                    HtmlEscape(data.dice_unavailable), "</p>\n");
    return;
  }
  absl::StrAppend(&out, "<div class=\"charts\">\n");
  for (const replay::DiceGroupStats& g : data.dice.clans) {
    AppendDiceGroup(g, names, out);
  }
  absl::StrAppend(&out, "</div>\n");
}

// The x of the chart after event `event_index` of `events`.
struct StandsAxes {
  double left = 26, right = 6, top = 16, bottom = 20, width = 400, height = 200;
  int events = 1;
  int max_stands = 1;
  double X(int after_events) const {
    return left + (width - left - right) * after_events / events;
  }
  double Y(int stands) const {
    return top + (height - top - bottom) * (1.0 - 1.0 * stands / max_stands);
  }
};

std::string SeriesPoints(const UnitStandsSeries& s, const StandsAxes& a) {
  std::string points =
      absl::StrFormat("%.1f,%.1f", a.X(0), a.Y(s.starting_stands));
  int stands = s.starting_stands;
  for (const UnitStandsSeries::Change& c : s.changes) {
    absl::StrAppendFormat(&points, " %.1f,%.1f %.1f,%.1f",
                          a.X(c.event_index + 1), a.Y(stands),
                          a.X(c.event_index + 1), a.Y(c.stands));
    stands = c.stands;
  }
  // A removed unit's line ends where it left the table.
  const int end =
      s.removed_after_event >= 0 ? s.removed_after_event + 1 : a.events;
  absl::StrAppendFormat(&points, " %.1f,%.1f", a.X(end), a.Y(stands));
  return points;
}

void AppendTurnLines(const v1::BattleLog& log, const StandsAxes& a,
                     std::string& out) {
  std::vector<std::pair<int, std::uint32_t>> starts;  // event index, turn
  std::int64_t turn = -1;
  for (int i = 0; i < log.events_size(); ++i) {
    if (static_cast<std::int64_t>(log.events(i).turn()) != turn) {
      turn = log.events(i).turn();
      starts.emplace_back(i, log.events(i).turn());
    }
  }
  // At most kMaxTurnMarks turns marked (a line and its label), evenly, so
  // that labels as wide as "T1000" never overlap and a long game's lines do
  // not grey the chart.
  constexpr std::size_t kMaxTurnMarks = 8;
  const std::size_t every = std::max<std::size_t>(
      1, (starts.size() + kMaxTurnMarks - 1) / kMaxTurnMarks);
  for (std::size_t k = 0; k < starts.size(); k += every) {
    const double x = a.X(starts[k].first);
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                          "y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\">T%d</text>",
                          x, a.top, x, a.Y(0), x + 2, a.top - 4,
                          starts[k].second);
  }
  absl::StrAppend(&out, "\n");
}

std::string LineStyle(int k) {
  const char* dash = kLineDashes[k % kLineDashes.size()];
  std::string style =
      absl::StrFormat("fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
                      kLineColours[k % kLineColours.size()]);
  if (*dash != '\0')
    absl::StrAppendFormat(&style, " stroke-dasharray=\"%s\"", dash);
  return style;
}

void AppendClanStands(const HtmlReportData& data, int clan, const Names& names,
                      std::string& out) {
  const v1::BattleLog& log = *data.log;
  std::vector<const UnitStandsSeries*> units;
  StandsAxes axes;
  axes.events = std::max(1, log.events_size());
  for (const UnitStandsSeries& s : data.stands) {
    if (s.clan != clan) continue;
    units.push_back(&s);
    axes.max_stands = std::max(axes.max_stands, s.starting_stands);
    for (const auto& c : s.changes) {
      axes.max_stands = std::max(axes.max_stands, c.stands);
    }
  }
  if (units.empty()) return;
  const std::string clan_label = names.Label(log.header().clans(clan).id());
  const std::string title =
      absl::StrCat("Stands of each unit of ", clan_label, " over the game");
  absl::StrAppend(&out, "<figure class=\"stands\" data-clan=\"",
                  HtmlEscape(log.header().clans(clan).id()), "\">\n<h3>",
                  clan_label, "</h3>\n");
  absl::StrAppendFormat(&out,
                        "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                        "aria-label=\"%s\"><title>%s</title>\n",
                        axes.width, axes.height, title, title);
  AppendTurnLines(log, axes, out);
  absl::StrAppendFormat(
      &out,
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>"
      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>"
      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">events &#8594;</text>\n",
      axes.left, axes.Y(0), axes.width - axes.right, axes.Y(0), axes.left - 4,
      axes.Y(axes.max_stands) + 4, axes.max_stands, axes.left - 4,
      axes.Y(0) + 4, axes.width - axes.right, axes.height - 6);
  for (std::size_t k = 0; k < units.size(); ++k) {
    absl::StrAppend(&out, "<polyline ", LineStyle(static_cast<int>(k)),
                    " points=\"", SeriesPoints(*units[k], axes), "\"><title>",
                    names.Label(units[k]->unit_id), "</title></polyline>\n");
  }
  absl::StrAppend(&out, "</svg>\n<ul class=\"legend\">\n");
  for (std::size_t k = 0; k < units.size(); ++k) {
    absl::StrAppend(&out,
                    "<li><svg viewBox=\"0 0 30 10\" aria-hidden=\"true\">"
                    "<line x1=\"0\" y1=\"5\" x2=\"30\" y2=\"5\" ",
                    LineStyle(static_cast<int>(k)), "/></svg> ",
                    names.Label(units[k]->unit_id), "</li>\n");
  }
  absl::StrAppend(&out,
                  "</ul>\n<div class=\"table-wrap\"><table><thead><tr><th "
                  "scope=\"col\">Unit</th><th scope=\"col\" "
                  "class=\"num\">Start</th><th scope=\"col\" "
                  "class=\"num\">End</th><th "
                  "scope=\"col\">Removed</th></tr></thead><tbody>\n");
  for (const UnitStandsSeries* s : units) {
    const int end =
        s->changes.empty() ? s->starting_stands : s->changes.back().stands;
    absl::StrAppend(
        &out, "<tr><th scope=\"row\">", names.Label(s->unit_id),
        "</th><td class=\"num\">", s->starting_stands,
        "</td><td class=\"num\">", end, "</td><td>",
        s->removed_after_event < 0
            ? std::string("no")
            : absl::StrCat("after seq ",
                           log.events(s->removed_after_event).seq()),
        "</td></tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></div>\n</figure>\n");
}

void AppendStands(const HtmlReportData& data, const Names& names,
                  std::string& out) {
  absl::StrAppend(&out,
                  "<h2 id=\"stands\">Stands over the game</h2>\n<p>Each "
                  "unit's stands after every event, as the replay has them "
                  "(<code>gunbai state</code>); the thin lines mark the start "
                  "of turns, and a removed unit's line ends where it was "
                  "removed.</p>\n<div class=\"charts\">\n");
  for (int c = 0; c < data.log->header().clans_size(); ++c) {
    AppendClanStands(data, c, names, out);
  }
  absl::StrAppend(&out, "</div>\n");
}

// What an event is, in a few words.
std::string EventWords(const v1::Event& e, const Names& n) {
  switch (e.body_case()) {
    case v1::Event::kTurnStart:
      return e.turn_start().initiative_clan().empty()
                 ? absl::StrCat("turn ", e.turn(), " starts")
                 : absl::StrCat("turn ", e.turn(), " starts, initiative ",
                                n.Label(e.turn_start().initiative_clan()));
    case v1::Event::kActivation:
      return absl::StrCat(n.Label(e.clan()), " activates");
    case v1::Event::kMove:
      return absl::StrCat(n.Label(e.move().unit()), " moves");
    case v1::Event::kCharge:
      return absl::StrCat(n.Label(e.charge().unit()), " charges ",
                          n.Label(e.charge().target()));
    case v1::Event::kFiring:
      return absl::StrCat(
          n.Label(e.firing().unit()), " fires at ",
          n.Label(e.firing().target()), " with ",
          Plural(e.firing().stands_firing(), "stand", "stands"));
    case v1::Event::kMeleeRound: {
      std::vector<std::string> sides;
      for (const v1::MeleeSide& s : e.melee_round().sides()) {
        sides.push_back(n.Label(s.unit()));
      }
      return absl::StrCat("melee: ", absl::StrJoin(sides, " against "));
    }
    case v1::Event::kChallenge:
      return absl::StrCat(n.Label(e.challenge().challenger()), " challenges ",
                          n.Label(e.challenge().challenged()));
    case v1::Event::kMoraleTest:
      return absl::StrCat(n.Label(e.morale_test().unit()), " tests its morale");
    case v1::Event::kLeaderLoss:
      return absl::StrCat("leader-loss roll for ",
                          n.Label(e.leader_loss().leader()));
    case v1::Event::kResultMove:
      return absl::StrCat(n.Label(e.result_move().unit()), " result move");
    case v1::Event::kRemoval:
      return absl::StrCat(n.Label(e.removal().unit()), " removed");
    case v1::Event::kTurnEnd:
      return absl::StrCat("turn ", e.turn(), " ends");
    case v1::Event::kGameEnd:
      return "the game ends";
    default:
      return "(no body)";
  }
}

void AppendEventRow(const v1::Event& e, const Names& names,
                    const std::vector<const v1::Outcome*>* outcomes,
                    const std::vector<int>* findings,
                    const v1::AuditReport& report, std::string& out) {
  absl::StrAppend(&out, "<tr id=\"ev-", e.seq(), "\"",
                  findings != nullptr ? " class=\"has-finding\"" : "",
                  "><td class=\"num\" data-label=\"Seq\">", e.seq(),
                  "</td><td class=\"num\" data-label=\"Turn\">", e.turn(),
                  "</td><td data-label=\"Clan\">",
                  e.clan().empty() ? std::string() : names.Label(e.clan()),
                  "</td><td data-label=\"Event\">", EventWords(e, names),
                  "</td><td data-label=\"Outcome\">");
  if (outcomes != nullptr) {
    std::vector<std::string> parts;
    for (const v1::Outcome* o : *outcomes) {
      parts.push_back(
          absl::StrCat(names.Label(o->subject()), " ",
                       HtmlEscape(absl::StrReplaceAll(o->kind(), {{"_", " "}})),
                       ": ", HtmlEscape(o->value())));
    }
    absl::StrAppend(&out, absl::StrJoin(parts, "; "));
  }
  absl::StrAppend(&out, "</td><td data-label=\"Findings\">");
  if (findings != nullptr) {
    std::vector<std::string> links;
    for (int i : *findings) {
      const v1::Finding& f = report.findings(i);
      links.push_back(absl::StrCat("<a href=\"#finding-", i, "\">",
                                   SeveritySign(f.severity()), " ",
                                   SeverityWord(f.severity()), " <code>",
                                   HtmlEscape(f.rule_id()), "</code></a>"));
    }
    absl::StrAppend(&out, absl::StrJoin(links, "<br>"));
  }
  absl::StrAppend(&out, "</td></tr>\n");
}

void AppendEvents(const v1::AuditReport& report, const v1::BattleLog& log,
                  const Names& names, std::string& out) {
  std::map<std::uint64_t, std::vector<const v1::Outcome*>> outcomes;
  for (const v1::Outcome& o : report.outcomes())
    outcomes[o.seq()].push_back(&o);
  std::map<std::uint64_t, std::vector<int>> findings;
  for (int i = 0; i < report.findings_size(); ++i) {
    findings[report.findings(i).seq()].push_back(i);
  }
  absl::StrAppend(&out, "<h2 id=\"events\">Every event</h2>\n");
  if (!report.outcomes_recorded()) {
    absl::StrAppend(&out,
                    "<p>The outcomes were not recorded for this "
                    "report.</p>\n");
  }
  const bool cut = log.events_size() > kMaxHtmlEventRows;
  if (cut) {
    absl::StrAppend(&out, "<p>The log has ", log.events_size(),
                    " events: the first ", kMaxHtmlEventRows,
                    " are listed, then only those with a finding. "
                    "<code>gunbai audit --outcomes --format=json</code> "
                    "gives every outcome.</p>\n");
  }
  absl::StrAppend(&out,
                  "<div class=\"table-wrap\"><table class=\"events stack\">\n"
                  "<thead><tr><th scope=\"col\" class=\"num\">Seq</th><th "
                  "scope=\"col\" class=\"num\">Turn</th><th "
                  "scope=\"col\">Clan</th><th scope=\"col\">Event</th><th "
                  "scope=\"col\">Outcome</th><th "
                  "scope=\"col\">Findings</th></tr></thead>\n<tbody>\n");
  for (int i = 0; i < log.events_size(); ++i) {
    const v1::Event& e = log.events(i);
    auto o = outcomes.find(e.seq());
    auto f = findings.find(e.seq());
    if (cut && i >= kMaxHtmlEventRows && f == findings.end()) continue;
    AppendEventRow(e, names, o == outcomes.end() ? nullptr : &o->second,
                   f == findings.end() ? nullptr : &f->second, report, out);
  }
  absl::StrAppend(&out, "</tbody></table></div>\n");
}

// Every rule id the findings, their traces and the impacts cite, sorted.
std::set<std::string> CitedRules(const v1::AuditReport& report) {
  std::set<std::string> ids;
  for (const v1::Finding& f : report.findings()) {
    if (!f.rule_id().empty()) ids.insert(f.rule_id());
    for (const v1::Term& t : f.trace()) {
      if (!t.rule_id().empty()) ids.insert(t.rule_id());
    }
  }
  for (const v1::DisputeImpact& i : report.impacts()) {
    if (!i.rule_id().empty()) ids.insert(i.rule_id());
  }
  return ids;
}

void AppendMentions(
    const google::protobuf::RepeatedPtrField<v1::RuleMention>& mentions,
    absl::string_view summary, std::string& out) {
  if (mentions.empty()) return;
  absl::StrAppend(&out, "<details><summary>", summary, " (", mentions.size(),
                  ")</summary>\n");
  for (const v1::RuleMention& m : mentions) {
    absl::StrAppend(&out, "<p>", HtmlEscape(m.text()), " <span class=\"src\">(",
                    HtmlEscape(m.path()), ", \"", HtmlEscape(m.section()),
                    "\")</span></p>\n");
  }
  absl::StrAppend(&out, "</details>\n");
}

void AppendRule(const std::string& id, absl::string_view ruleset,
                std::string& out) {
  const replay::RuleLookup lookup = replay::ExplainRule(id, false);
  absl::StrAppend(&out, "<section class=\"rule\" id=\"", AnchorId("rule-", id),
                  "\">\n<h3><code>", HtmlEscape(id), "</code></h3>\n");
  std::vector<const v1::DocumentedRule*> rows;
  if (lookup.exact) {
    for (const v1::DocumentedRule& r : lookup.answer.rules()) {
      if (r.ruleset().empty() || r.ruleset() == ruleset) rows.push_back(&r);
    }
    if (rows.empty()) {
      for (const v1::DocumentedRule& r : lookup.answer.rules()) {
        rows.push_back(&r);
      }
    }
  }
  for (const v1::DocumentedRule* r : rows) {
    absl::StrAppend(&out, "<p>", HtmlEscape(r->text()),
                    "</p>\n<p class=\"src\">", HtmlEscape(r->path()), ", \"",
                    HtmlEscape(r->section()), "\"");
    if (!r->severity().empty()) {
      absl::StrAppend(&out, "; severity: ", HtmlEscape(r->severity()));
    }
    absl::StrAppend(&out, "</p>\n");
    AppendMentions(r->mentions(), "Also in the rules doc", out);
  }
  if (lookup.exact) {
    AppendMentions(lookup.answer.mentions(), "Mentioned in the rules docs",
                   out);
  }
  if (!lookup.exact || (rows.empty() && lookup.answer.mentions().empty())) {
    absl::StrAppend(&out, "<p>No rules doc states this rule id.</p>\n");
  }
  absl::StrAppend(&out, "</section>\n");
}

void AppendRules(const v1::AuditReport& report, std::string& out) {
  const std::set<std::string> ids = CitedRules(report);
  if (ids.empty()) return;
  absl::StrAppend(&out,
                  "<h2 id=\"rules\">The rules cited</h2>\n<p>How gunbai "
                  "reads each rule above, from its rules docs (the same text "
                  "as <code>gunbai explain RULE</code>).</p>\n");
  for (const std::string& id : ids) {
    AppendRule(id, report.ruleset().name(), out);
  }
}

void AppendNav(const v1::AuditReport& report, std::string& out) {
  absl::StrAppend(&out,
                  "<nav aria-label=\"Sections\"><ul><li><a "
                  "href=\"#findings\">Findings</a></li>");
  if (!report.impacts().empty()) {
    absl::StrAppend(&out, "<li><a href=\"#impacts\">Impacts</a></li>");
  }
  absl::StrAppend(&out,
                  "<li><a href=\"#dice\">Dice</a></li><li><a "
                  "href=\"#stands\">Stands</a></li><li><a "
                  "href=\"#events\">Events</a></li>");
  if (!CitedRules(report).empty()) {
    absl::StrAppend(&out, "<li><a href=\"#rules\">Rules cited</a></li>");
  }
  absl::StrAppend(&out, "</ul></nav>\n");
}

}  // namespace

absl::StatusOr<std::vector<UnitStandsSeries>> StandsOverGame(
    const v1::BattleLog& log, const replay::LoadedRuleset& ruleset) {
  std::vector<UnitStandsSeries> series;
  std::map<std::string, int> clan_index;
  for (int c = 0; c < log.header().clans_size(); ++c) {
    clan_index.emplace(log.header().clans(c).id(), c);
  }
  bool started = false;
  int index = 0;
  GUNBAI_RETURN_IF_ERROR(replay::ForEachEventState(
      log, ruleset, [&](const v1::Event&, const rules::BattleState& state) {
        if (!started) {
          started = true;
          for (std::size_t u = 0; u < state.profiles.size(); ++u) {
            UnitStandsSeries s;
            s.unit_id = state.profiles[u].id;
            const int c = state.profiles[u].clan;
            if (c >= 0 && static_cast<std::size_t>(c) < state.clans.size()) {
              auto it =
                  clan_index.find(state.clans[static_cast<std::size_t>(c)]);
              s.clan = it == clan_index.end() ? -1 : it->second;
            } else {
              s.clan = -1;
            }
            s.starting_stands = state.profiles[u].starting_stands;
            series.push_back(std::move(s));
          }
        }
        for (std::size_t u = 0; u < series.size() && u < state.units.size();
             ++u) {
          UnitStandsSeries& s = series[u];
          const int before =
              s.changes.empty() ? s.starting_stands : s.changes.back().stands;
          if (state.units[u].stands != before) {
            s.changes.push_back({index, state.units[u].stands});
          }
          if (state.units[u].removed && s.removed_after_event < 0) {
            s.removed_after_event = index;
          }
        }
        ++index;
      }));
  if (!started) {
    // No events: every unit stands as the order of battle puts it.
    for (const v1::Unit& u : log.order_of_battle().units()) {
      UnitStandsSeries s;
      s.unit_id = u.id();
      auto it = clan_index.find(u.clan());
      s.clan = it == clan_index.end() ? -1 : it->second;
      s.starting_stands = static_cast<int>(u.stands());
      series.push_back(std::move(s));
    }
  }
  return series;
}

absl::StatusOr<HtmlReportData> GatherHtmlReportData(
    const v1::AuditReport& report, const v1::BattleLog& log,
    const replay::LoadedRuleset& ruleset) {
  HtmlReportData data;
  data.report = &report;
  data.log = &log;
  absl::StatusOr<replay::DiceReport> dice = replay::SummarizeDice({log});
  if (dice.ok()) {
    data.dice = *std::move(dice);
  } else {
    data.dice_unavailable = std::string(dice.status().message());
  }
  GUNBAI_ASSIGN_OR_RETURN(data.stands, StandsOverGame(log, ruleset));
  return data;
}

std::string FormatReportHtml(const HtmlReportData& data) {
  const v1::AuditReport& report = *data.report;
  const v1::BattleLog& log = *data.log;
  const Names names(log);
  std::string out;
  AppendHead(report, out);
  absl::StrAppend(&out, "<header>\n<h1>Audit of game &#8220;",
                  HtmlEscape(report.game_id()), "&#8221;</h1>\n");
  AppendVerdict(report, out);
  AppendFacts(report, log, out);
  AppendNav(report, out);
  absl::StrAppend(&out, "</header>\n<main>\n");
  AppendFindings(report, names, out);
  AppendImpacts(report, names, out);
  AppendResult(report.result(), names, out);
  AppendDice(data, names, out);
  AppendStands(data, names, out);
  AppendEvents(report, log, names, out);
  AppendRules(report, out);
  absl::StrAppend(&out,
                  "</main>\n<footer><p>Written by <code>gunbai audit "
                  "--format=html</code>. Final state digest "
                  "<span class=\"mono\">sha256:",
                  HtmlEscape(report.final_state_digest()),
                  "</span>.</p></footer>\n</body>\n</html>\n");
  return out;
}

}  // namespace gunbai::service
