#include "replay/impact.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "replay/audit.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

std::string UnitInWords(const rules::UnitStatus& u) {
  if (u.removed) return "removed";
  return absl::StrCat(u.stands, u.stands == 1 ? " stand" : " stands",
                      u.routing ? ", routing" : "");
}

bool SameUnit(const rules::UnitStatus& a, const rules::UnitStatus& b) {
  return a.removed == b.removed && a.routing == b.routing &&
         (a.removed || a.stands == b.stands);
}

// Every unit and leader whose state differs between the branches, in order
// of battle order.
std::vector<v1::BranchDifference> Differences(const rules::BattleState& a,
                                              const rules::BattleState& b) {
  std::vector<v1::BranchDifference> out;
  for (std::size_t u = 0; u < a.units.size(); ++u) {
    if (SameUnit(a.units[u], b.units[u])) continue;
    v1::BranchDifference& d = out.emplace_back();
    d.set_subject(a.profiles[u].id);
    d.set_as_played(UnitInWords(a.units[u]));
    d.set_corrected(UnitInWords(b.units[u]));
  }
  for (std::size_t l = 0; l < a.leaders.size(); ++l) {
    if (a.leaders[l].killed == b.leaders[l].killed) continue;
    v1::BranchDifference& d = out.emplace_back();
    d.set_subject(a.leaders[l].id);
    d.set_as_played(a.leaders[l].killed ? "killed" : "alive");
    d.set_corrected(b.leaders[l].killed ? "killed" : "alive");
  }
  return out;
}

bool SameDifferences(const std::vector<v1::BranchDifference>& x,
                     const std::vector<v1::BranchDifference>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i].subject() != y[i].subject() ||
        x[i].as_played() != y[i].as_played() ||
        x[i].corrected() != y[i].corrected()) {
      return false;
    }
  }
  return true;
}

// Returns the first violation the corrected branch reports for this event
// (findings from `b_from` on) that the branch as played does not (findings
// from `a_from` on), or null.
const v1::Finding* NewViolation(const v1::AuditReport& a, int a_from,
                                const v1::AuditReport& b, int b_from) {
  for (int i = b_from; i < b.findings_size(); ++i) {
    const v1::Finding& f = b.findings(i);
    if (f.severity() != v1::SEVERITY_VIOLATION) continue;
    bool as_played = false;
    for (int j = a_from; j < a.findings_size() && !as_played; ++j) {
      as_played = a.findings(j).rule_id() == f.rule_id() &&
                  a.findings(j).subject() == f.subject();
    }
    if (!as_played) return &f;
  }
  return nullptr;
}

absl::Status Analyse(const v1::BattleLog& log, const LoadedRuleset& ruleset,
                     v1::DisputeImpact& impact) {
  v1::AuditReport a_report;
  v1::AuditReport b_report;
  AuditOptions corrected;
  corrected.follow_computed_at_seq = impact.seq();
  auto a = Replay::Start(log, ruleset, AuditOptions(), &a_report);
  if (!a.ok()) return a.status();
  auto b = Replay::Start(log, ruleset, corrected, &b_report);
  if (!b.ok()) return b.status();
  std::vector<v1::BranchDifference> differences;
  bool reached_dispute = false;
  for (const v1::Event& event : log.events()) {
    const int a_from = a_report.findings_size();
    const int b_from = b_report.findings_size();
    (*a)->Apply(event);
    (*b)->Apply(event);
    reached_dispute = reached_dispute || event.seq() == impact.seq();
    if (!reached_dispute) continue;
    if (event.seq() != impact.seq()) {
      if (const v1::Finding* f =
              NewViolation(a_report, a_from, b_report, b_from)) {
        impact.set_ended_at_seq(event.seq());
        impact.set_ended_reason(absl::StrFormat(
            "event seq %d is impossible in the corrected branch (%s: %s)",
            event.seq(), f->rule_id(), f->message()));
        break;
      }
    }
    impact.set_compared_through_seq(event.seq());
    std::vector<v1::BranchDifference> now =
        Differences((*a)->state(), (*b)->state());
    if (SameDifferences(now, differences)) continue;
    v1::BranchStep* step = impact.add_steps();
    step->set_seq(event.seq());
    step->set_turn(event.turn());
    for (const v1::BranchDifference& d : now) *step->add_differences() = d;
    differences = std::move(now);
  }
  for (const v1::BranchDifference& d : differences) {
    *impact.add_final_differences() = d;
  }
  if (impact.ended_at_seq() == 0) {
    (*a)->Finish(static_cast<uint64_t>(log.events_size()));
    (*b)->Finish(static_cast<uint64_t>(log.events_size()));
    impact.set_winner_as_played(a_report.result().winner());
    impact.set_winner_corrected(b_report.result().winner());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddImpacts(const v1::BattleLog& log, const LoadedRuleset& ruleset,
                        v1::AuditReport& report) {
  uint64_t last_seq = 0;
  bool any = false;
  int analysed = 0;
  for (const v1::Finding& f : report.findings()) {
    if (f.severity() != v1::SEVERITY_DISPUTE ||
        absl::StartsWith(f.rule_id(), "game.")) {
      continue;
    }
    // Several disputes of one event share one corrected branch: the first
    // names it.
    if (any && f.seq() == last_seq) continue;
    any = true;
    last_seq = f.seq();
    v1::DisputeImpact* impact = report.add_impacts();
    impact->set_seq(f.seq());
    impact->set_rule_id(f.rule_id());
    impact->set_subject(f.subject());
    impact->set_claimed(f.claimed());
    impact->set_computed(f.computed());
    if (++analysed > kMaxImpactAnalyses) {
      impact->set_ended_reason(absl::StrFormat(
          "not analysed: only the first %d events with disputes are",
          kMaxImpactAnalyses));
      continue;
    }
    absl::Status status = Analyse(log, ruleset, *impact);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace gunbai::replay
