#include "service/render/report_format.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

absl::string_view SeverityName(v1::Severity s) {
  switch (s) {
    case v1::SEVERITY_VIOLATION:
      return "VIOLATION";
    case v1::SEVERITY_DISPUTE:
      return "DISPUTE";
    case v1::SEVERITY_WARNING:
      return "WARNING";
    case v1::SEVERITY_UNVERIFIABLE:
      return "UNVERIFIABLE";
    default:
      return "?";
  }
}

std::string SummaryLine(const v1::AuditSummary& s) {
  return absl::StrJoin(
      {Plural(s.violations(), "violation", "violations"),
       Plural(s.disputes(), "dispute", "disputes"),
       Plural(s.warnings(), "warning", "warnings"),
       Plural(s.unverifiable(), "unverifiable", "unverifiable")},
      ", ");
}

// Appends what the readings say of `f`, when they were checked: whether it
// holds under every reading of the ruleset, or under which not.
void AppendReadings(const v1::Finding& f, std::string& out) {
  if (f.not_under_readings().empty()) {
    absl::StrAppend(&out, "    holds under every reading of the rules\n");
    return;
  }
  absl::StrAppend(&out, "    not found under the other reading: ",
                  absl::StrJoin(f.not_under_readings(), "; "),
                  " (it rests on the reading the ruleset chose)\n");
}

// Appends what the audit under every reading says of `f` (--all-readings):
// found under every combination, or under how many and which readings.
void AppendAllReadings(const v1::Finding& f, std::uint64_t combinations,
                       std::string& out) {
  if (f.combinations_found() == combinations) {
    absl::StrAppend(&out, "    holds under every reading of the rules (",
                    combinations, " of ", combinations, " combinations)\n");
    return;
  }
  absl::StrAppend(&out, "    found under ", f.combinations_found(), " of ",
                  combinations, " combinations of the readings, where ",
                  absl::StrJoin(f.found_under(), "; or "), "\n");
}

void AppendFinding(const v1::Finding& f, const v1::AuditReport& report,
                   std::string& out) {
  absl::StrAppend(&out, "  seq ", f.seq(), "  ", SeverityName(f.severity()),
                  "  ", f.rule_id());
  if (!f.subject().empty()) absl::StrAppend(&out, "  [", f.subject(), "]");
  absl::StrAppend(&out, "\n    ", f.message(), "\n");
  if (!f.claimed().empty() || !f.computed().empty()) {
    absl::StrAppend(&out, "    claimed: ", f.claimed(),
                    "; computed: ", f.computed(), "\n");
  }
  for (const v1::Term& t : f.trace()) {
    // Modifiers read as signed terms; dice and totals as plain numbers.
    const std::string value = t.origin() == v1::TERM_ORIGIN_DICE
                                  ? absl::StrFormat("%3d", t.value())
                                  : absl::StrFormat("%+3d", t.value());
    absl::StrAppend(
        &out, absl::StrFormat("      %s  %-60s %s (%s)\n", value, t.label(),
                              t.rule_id(), OriginName(t.origin())));
  }
  if (report.readings_checked()) AppendReadings(f, out);
  if (report.all_readings_checked()) {
    AppendAllReadings(f, report.reading_combinations(), out);
  }
  if (f.has_remedy())
    absl::StrAppend(&out, "    remedy: ", f.remedy().text(), "\n");
}

// The victory points and the winner, when the scenario scores them.
void AppendResult(const v1::GameResult& result, std::string& out) {
  absl::StrAppend(&out, "\nVictory points (counted at the end of each turn)\n");
  for (const v1::ClanResult& c : result.clans()) {
    absl::StrAppend(
        &out, absl::StrFormat("  %-12s %3d points; %d units left (%d "
                              "stands), %d routing\n",
                              c.clan(), c.victory_points(), c.units_left(),
                              c.stands_left(), c.units_routing()));
  }
  if (result.winner().empty()) {
    absl::StrAppend(&out, "  no winner: no clan alone reached the total\n");
  } else {
    absl::StrAppend(&out, "  winner: ", result.winner(),
                    " (at the end of turn ", result.decided_turn(), ")\n");
  }
}

void AppendDifferences(
    const google::protobuf::RepeatedPtrField<v1::BranchDifference>& ds,
    absl::string_view indent, std::string& out) {
  if (ds.empty()) {
    absl::StrAppend(&out, indent, "the branches agree\n");
    return;
  }
  for (const v1::BranchDifference& d : ds) {
    absl::StrAppend(&out, indent, d.subject(), ": ", d.corrected(),
                    " (as played: ", d.as_played(), ")\n");
  }
}

// What one disputed outcome changed downstream (--impact).
void AppendImpact(const v1::DisputeImpact& impact, std::string& out) {
  absl::StrAppend(&out, "\nWhat if seq ", impact.seq(),
                  " had gone as computed (", impact.rule_id(), " [",
                  impact.subject(), "]: ", impact.computed(), ", not ",
                  impact.claimed(), ")\n");
  if (impact.compared_through_seq() == 0 && !impact.ended_reason().empty()) {
    absl::StrAppend(&out, "  ", impact.ended_reason(), "\n");
    return;
  }
  for (const v1::BranchStep& step : impact.steps()) {
    absl::StrAppend(&out, "  after seq ", step.seq(), " (turn ", step.turn(),
                    "):\n");
    AppendDifferences(step.differences(), "    ", out);
  }
  if (impact.steps().empty()) {
    absl::StrAppend(&out, "  no unit or leader ends up different\n");
  }
  if (impact.ended_at_seq() != 0) {
    absl::StrAppend(&out, "  comparison ends: ", impact.ended_reason(), "\n");
  } else {
    absl::StrAppend(&out, "  compared to the end of the log (seq ",
                    impact.compared_through_seq(), ")\n");
    if (impact.winner_as_played() != impact.winner_corrected()) {
      absl::StrAppend(
          &out, "  the winner changes: ",
          impact.winner_corrected().empty() ? "none"
                                            : impact.winner_corrected(),
          " (as played: ",
          impact.winner_as_played().empty() ? "none"
                                            : impact.winner_as_played(),
          ")\n");
    }
  }
}

}  // namespace

absl::string_view OriginName(gunbai::v1::TermOrigin o) {
  switch (o) {
    case gunbai::v1::TERM_ORIGIN_COMPUTED:
      return "computed";
    case gunbai::v1::TERM_ORIGIN_DECLARED:
      return "declared";
    case gunbai::v1::TERM_ORIGIN_DICE:
      return "dice";
    case gunbai::v1::TERM_ORIGIN_MEASURED:
      return "measured";
    default:
      return "?";
  }
}

std::string Plural(std::uint64_t n, absl::string_view one,
                   absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string FormatReportText(const v1::AuditReport& report) {
  std::string out;
  const auto& s = report.summary();
  absl::StrAppend(&out, "gunbai audit of game \"", report.game_id(),
                  "\" under ", report.ruleset().name(), " ",
                  report.ruleset().version(), "\n");
  absl::StrAppend(&out, "ruleset digest sha256:", report.ruleset().digest(),
                  "\n");
  absl::StrAppend(&out, Plural(report.events_replayed(), "event", "events"),
                  " over ", Plural(report.turns(), "turn", "turns"), ": ",
                  SummaryLine(s), "\n");
  absl::StrAppend(&out, "replay branch: ", report.branch(), "\n");
  if (report.has_procedure()) {
    absl::StrAppend(&out, "remedies under procedure ",
                    report.procedure().name(), " ",
                    report.procedure().version(),
                    " (sha256:", report.procedure().digest(), ")\n");
  }
  int64_t current_turn = -1;
  for (const v1::Finding& f : report.findings()) {
    if (static_cast<int64_t>(f.turn()) != current_turn) {
      current_turn = f.turn();
      if (current_turn == 0) {
        absl::StrAppend(&out, "\nBefore the first turn\n");
      } else {
        absl::StrAppend(&out, "\nTurn ", current_turn, "\n");
      }
    }
    AppendFinding(f, report, out);
  }
  if (report.all_readings_checked()) {
    absl::StrAppend(
        &out, "\nEvery reading: ", report.reading_combinations(),
        " combinations of the ruleset's reading options audited, in ",
        report.reading_branches(),
        report.reading_branches() == 1 ? " replay" : " replays",
        " (they share a replay until a reading could change something)\n");
    if (report.other_reading_findings().empty()) {
      absl::StrAppend(&out, "  no other reading gives another finding\n");
    } else {
      absl::StrAppend(&out,
                      "Found only under other readings than the ruleset's\n");
      for (const v1::Finding& f : report.other_reading_findings()) {
        AppendFinding(f, report, out);
      }
    }
  }
  if (report.result().scored()) AppendResult(report.result(), out);
  for (const v1::DisputeImpact& impact : report.impacts()) {
    AppendImpact(impact, out);
  }
  absl::StrAppend(
      &out, "\nfinal state digest sha256:", report.final_state_digest(), "\n");
  if (s.violations() + s.disputes() + s.warnings() == 0) {
    absl::StrAppend(&out,
                    "verdict: clean, no violations, disputes or "
                    "warnings\n");
  } else {
    absl::StrAppend(&out, "verdict: ", SummaryLine(s), "\n");
  }
  if (!report.findings().empty()) {
    absl::StrAppend(&out,
                    "How gunbai reads a rule above: gunbai explain RULE "
                    "(e.g. gunbai explain ",
                    report.findings(0).rule_id(), ")\n");
  }
  return out;
}

std::string FormatStateText(const v1::BattleStateSnapshot& state) {
  std::string out;
  absl::StrAppend(&out, "state after seq ", state.after_seq(), ": turn ",
                  state.turn(), ", phase ", state.phase());
  if (!state.initiative_clan().empty()) {
    absl::StrAppend(&out, ", initiative ", state.initiative_clan());
  }
  if (!state.active_clan().empty()) {
    absl::StrAppend(&out, ", active ", state.active_clan());
  }
  absl::StrAppend(&out, state.game_over() ? ", game over" : "", "\n");
  absl::StrAppend(&out, absl::StrFormat("%-16s %-10s %6s %4s  %s\n", "unit",
                                        "clan", "stands", "hits", "status"));
  for (const v1::UnitState& u : state.units()) {
    std::vector<std::string> flags;
    if (u.removed()) flags.push_back("removed");
    if (u.routing()) flags.push_back("routing");
    if (u.disordered()) flags.push_back("disordered");
    if (u.halted()) flags.push_back("halted");
    if (u.in_melee()) flags.push_back("in melee");
    if (u.charging()) flags.push_back("charging");
    if (u.charged_by_size() > 0) {
      flags.push_back(
          absl::StrCat("charged by ", absl::StrJoin(u.charged_by(), ",")));
    }
    if (u.frenzied()) flags.push_back("frenzied");
    if (u.fired_this_turn()) flags.push_back("fired");
    if (u.moved_this_turn()) flags.push_back("moved");
    if (u.first_volley_spent()) flags.push_back("first volley spent");
    if (u.leaders_size() > 0) {
      flags.push_back(
          absl::StrCat("leaders ", absl::StrJoin(u.leaders(), ",")));
    }
    if (u.owed_morale_reasons_size() > 0) {
      flags.push_back(absl::StrCat("owes morale test (reason ",
                                   absl::StrJoin(u.owed_morale_reasons(), ","),
                                   ")"));
    }
    absl::StrAppend(
        &out, absl::StrFormat("%-16s %-10s %6d %4d  %s\n", u.id(), u.clan(),
                              u.stands(), u.carried_hits(),
                              absl::StrJoin(flags, "; ")));
  }
  for (const v1::LeaderState& l : state.leaders()) {
    absl::StrAppend(
        &out,
        absl::StrFormat("leader %-12s rating %d, %s%s%s\n", l.id(),
                        l.command_rating(),
                        l.attached_unit().empty()
                            ? std::string("unattached")
                            : absl::StrCat("with ", l.attached_unit()),
                        l.killed() ? ", killed" : "",
                        l.loss_roll_owed() ? ", owes a leader-loss roll" : ""));
  }
  absl::StrAppend(&out, "state digest sha256:", state.digest(), "\n");
  return out;
}

std::string FormatJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

}  // namespace gunbai::service
