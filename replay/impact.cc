#include "replay/impact.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "replay/audit.h"
#include "rules/status_macros.h"

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

// Returns the log of the corrected branch: the log's header (its game id
// marked as the branch, its ruleset the one replayed under), order of
// battle, starting position and terrain, and the branch's events, cut before
// `ended_at_seq` (0: not cut).
v1::BattleLog BranchLog(const v1::BattleLog& log, const LoadedRuleset& ruleset,
                        std::uint64_t dispute_seq,
                        google::protobuf::RepeatedPtrField<v1::Event>& events,
                        std::uint64_t ended_at_seq) {
  v1::BattleLog out;
  *out.mutable_header() = log.header();
  out.mutable_header()->set_game_id(
      absl::StrCat(log.header().game_id(), "-corrected-at-", dispute_seq));
  out.mutable_header()->mutable_ruleset()->set_name(ruleset.data.name());
  out.mutable_header()->mutable_ruleset()->set_version(ruleset.data.version());
  *out.mutable_order_of_battle() = log.order_of_battle();
  if (log.has_starting_position()) {
    *out.mutable_starting_position() = log.starting_position();
  }
  *out.mutable_terrain() = log.terrain();
  for (v1::Event& event : events) {
    if (ended_at_seq != 0 && event.seq() >= ended_at_seq) break;
    *out.add_events() = std::move(event);
  }
  return out;
}

// Replays the two branches of `impact` through the events `for_each_event`
// gives, from the head of `log` (and its terrain, for `branch_log`).
absl::Status Analyse(const v1::BattleLog& log,
                     const ForEachEvent& for_each_event,
                     const LoadedRuleset& ruleset,
                     const std::vector<std::uint64_t>& disputed_seqs,
                     v1::DisputeImpact& impact, v1::BattleLog* branch_log,
                     const std::function<bool()>& cancelled) {
  v1::AuditReport a_report;
  v1::AuditReport b_report;
  // The corrected branch: the computed outcomes at the disputed event and at
  // every later one, but for the other events the game as played disputes
  // (each what-if corrects one mistake of the players).
  AuditOptions corrected;
  corrected.follow_computed_at_seq = impact.seq();
  corrected.follow_computed_from_seq = impact.seq() + 1;
  corrected.keep_claims_at = disputed_seqs;
  google::protobuf::RepeatedPtrField<v1::Event> branch_events;
  if (branch_log != nullptr) corrected.branch_events = &branch_events;
  GUNBAI_ASSIGN_OR_RETURN(
      auto a, Replay::Start(log, ruleset, AuditOptions(), &a_report));
  GUNBAI_ASSIGN_OR_RETURN(auto b,
                          Replay::Start(log, ruleset, corrected, &b_report));
  std::vector<v1::BranchDifference> differences;
  bool reached_dispute = false;
  int until_check = kCancelCheckEvents;
  bool stopped = false;
  std::uint64_t events = 0;
  absl::Status read = for_each_event([&](const v1::Event& event) {
    if (--until_check == 0) {
      until_check = kCancelCheckEvents;
      if (cancelled && cancelled()) {
        stopped = true;
        return false;
      }
    }
    ++events;
    const int a_from = a_report.findings_size();
    const int b_from = b_report.findings_size();
    a->Apply(event);
    b->Apply(event);
    reached_dispute = reached_dispute || event.seq() == impact.seq();
    if (!reached_dispute) return true;
    if (event.seq() != impact.seq()) {
      if (const v1::Finding* f =
              NewViolation(a_report, a_from, b_report, b_from)) {
        impact.set_ended_at_seq(event.seq());
        impact.set_ended_reason(absl::StrFormat(
            "event seq %d is impossible in the corrected branch (%s: %s)",
            event.seq(), f->rule_id(), f->message()));
        return false;
      }
    }
    impact.set_compared_through_seq(event.seq());
    std::vector<v1::BranchDifference> now = Differences(a->state(), b->state());
    if (SameDifferences(now, differences)) return true;
    v1::BranchStep* step = impact.add_steps();
    step->set_seq(event.seq());
    step->set_turn(event.turn());
    for (const v1::BranchDifference& d : now) *step->add_differences() = d;
    differences = std::move(now);
    return true;
  });
  if (!read.ok()) return read;
  if (stopped) return CancelledAudit();
  for (const v1::BranchDifference& d : differences) {
    *impact.add_final_differences() = d;
  }
  if (impact.ended_at_seq() == 0) {
    // Every event was replayed.
    a->Finish(events);
    b->Finish(events);
    impact.set_winner_as_played(a_report.result().winner());
    impact.set_winner_corrected(b_report.result().winner());
  }
  if (branch_log != nullptr) {
    *branch_log = BranchLog(log, ruleset, impact.seq(), branch_events,
                            impact.ended_at_seq());
  }
  return absl::OkStatus();
}

// AddImpacts over the events `for_each_event` gives.
absl::Status AddImpactsOf(const v1::BattleLog& log,
                          const ForEachEvent& for_each_event,
                          const LoadedRuleset& ruleset, v1::AuditReport& report,
                          std::vector<v1::BattleLog>* branch_logs,
                          const std::function<bool()>& cancelled) {
  // The events the game as played disputes, which a branch keeps as played.
  std::vector<std::uint64_t> disputed_seqs;
  for (const v1::Finding& f : report.findings()) {
    if (f.severity() == v1::SEVERITY_DISPUTE) disputed_seqs.push_back(f.seq());
  }
  std::sort(disputed_seqs.begin(), disputed_seqs.end());
  disputed_seqs.erase(std::unique(disputed_seqs.begin(), disputed_seqs.end()),
                      disputed_seqs.end());
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
    v1::BattleLog* branch_log = nullptr;
    if (branch_logs != nullptr) branch_log = &branch_logs->emplace_back();
    if (cancelled && cancelled()) return CancelledAudit();
    GUNBAI_RETURN_IF_ERROR(Analyse(log, for_each_event, ruleset, disputed_seqs,
                                   *impact, branch_log, cancelled));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddImpacts(const v1::BattleLog& log, const LoadedRuleset& ruleset,
                        v1::AuditReport& report,
                        std::vector<v1::BattleLog>* branch_logs,
                        const std::function<bool()>& cancelled) {
  return AddImpactsOf(
      log,
      [&log](const EventVisitor& visit) {
        for (const v1::Event& event : log.events()) {
          if (!visit(event)) break;
        }
        return absl::OkStatus();
      },
      ruleset, report, branch_logs, cancelled);
}

absl::Status AddImpactsFromEvents(const v1::BattleLog& head,
                                  const ForEachEvent& for_each_event,
                                  const LoadedRuleset& ruleset,
                                  v1::AuditReport& report,
                                  const std::function<bool()>& cancelled) {
  return AddImpactsOf(head, for_each_event, ruleset, report,
                      /*branch_logs=*/nullptr, cancelled);
}

absl::StatusOr<bool> AddImpactsFromBinaryLog(
    const OpenLogStream& open, std::int64_t max_bytes,
    const RulesetPointerForHead& ruleset_for, v1::AuditReport& report,
    const std::function<bool()>& cancelled) {
  absl::StatusOr<v1::BattleLog> head = ReadBinaryLogHead(open, max_bytes);
  absl::Status impact = head.status();
  if (head.ok()) {
    GUNBAI_ASSIGN_OR_RETURN(const LoadedRuleset* ruleset, ruleset_for(*head));
    impact = AddImpactsFromEvents(
        *head,
        [&](const EventVisitor& visit) {
          return ForEachBinaryLogEvent(open, max_bytes, visit);
        },
        *ruleset, report, cancelled);
  }
  // The stream gives up with FailedPrecondition (log_stream.h); anything
  // else is the answer.
  if (!absl::IsFailedPrecondition(impact)) {
    GUNBAI_RETURN_IF_ERROR(impact);
    return true;
  }
  report.clear_impacts();
  return false;
}

}  // namespace gunbai::replay
