#include "replay/diff.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "replay/audit.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

// An outcome's key: (seq, subject, kind) and which occurrence of that
// triple it is, so that a log with a repeated seq still pairs one to one.
using OutcomeKey = std::tuple<std::uint64_t, std::string, std::string, int>;

std::map<OutcomeKey, const v1::Outcome*> OutcomesByKey(
    const v1::AuditReport& report) {
  std::map<OutcomeKey, const v1::Outcome*> out;
  std::map<std::tuple<std::uint64_t, std::string, std::string>, int> seen;
  for (const v1::Outcome& o : report.outcomes()) {
    const int n = seen[{o.seq(), o.subject(), o.kind()}]++;
    out.emplace(OutcomeKey{o.seq(), o.subject(), o.kind(), n}, &o);
  }
  return out;
}

// Fills `diff.outcome_changes` with the outcomes whose value differs or
// that only one side worked out, in key order.
void CompareOutcomes(const v1::AuditReport& old_report,
                     const v1::AuditReport& new_report, v1::LogDiff& diff) {
  const auto old_outcomes = OutcomesByKey(old_report);
  const auto new_outcomes = OutcomesByKey(new_report);
  std::set<OutcomeKey> keys;
  for (const auto& [key, o] : old_outcomes) keys.insert(key);
  for (const auto& [key, o] : new_outcomes) keys.insert(key);
  for (const OutcomeKey& key : keys) {
    auto o = old_outcomes.find(key);
    auto n = new_outcomes.find(key);
    const bool has_old = o != old_outcomes.end();
    const bool has_new = n != new_outcomes.end();
    if (has_old && has_new && o->second->value() == n->second->value()) {
      continue;
    }
    v1::OutcomeChange* change = diff.add_outcome_changes();
    change->set_seq(std::get<0>(key));
    change->set_subject(std::get<1>(key));
    change->set_kind(std::get<2>(key));
    if (has_old) *change->mutable_old_outcome() = *o->second;
    if (has_new) *change->mutable_new_outcome() = *n->second;
  }
}

using FindingKey = std::tuple<std::uint64_t, int, std::string, std::string,
                              std::string, std::string>;

FindingKey KeyOf(const v1::Finding& f) {
  return {f.seq(),     static_cast<int>(f.severity()),
          f.rule_id(), f.subject(),
          f.claimed(), f.computed()};
}

// Appends to `unmatched` the findings of `from` that `against` lacks,
// counting repeats: two equal findings need two to match.
void Unmatched(const google::protobuf::RepeatedPtrField<v1::Finding>& from,
               const google::protobuf::RepeatedPtrField<v1::Finding>& against,
               google::protobuf::RepeatedPtrField<v1::Finding>* unmatched) {
  std::map<FindingKey, int> available;
  for (const v1::Finding& f : against) ++available[KeyOf(f)];
  for (const v1::Finding& f : from) {
    int& left = available[KeyOf(f)];
    if (left > 0) {
      --left;
    } else {
      *unmatched->Add() = f;
    }
  }
}

// Sets events_changed and first_changed_seq from the changes found.
void CountChangedEvents(v1::LogDiff& diff) {
  std::set<std::uint64_t> seqs;
  for (const auto& c : diff.outcome_changes()) seqs.insert(c.seq());
  for (const auto& f : diff.findings_added()) seqs.insert(f.seq());
  for (const auto& f : diff.findings_removed()) seqs.insert(f.seq());
  diff.set_events_changed(static_cast<std::uint32_t>(seqs.size()));
  if (!seqs.empty()) diff.set_first_changed_seq(*seqs.begin());
}

void CompareEndOfGame(const v1::AuditReport& old_report,
                      const v1::AuditReport& new_report, v1::LogDiff& diff) {
  diff.set_result_compared(old_report.has_result());
  *diff.mutable_old_result() = old_report.result();
  *diff.mutable_new_result() = new_report.result();
  if (old_report.has_result()) {
    diff.set_result_changed(!google::protobuf::util::MessageDifferencer::Equals(
        old_report.result(), new_report.result()));
  }
  diff.set_old_final_state_digest(old_report.final_state_digest());
  diff.set_new_final_state_digest(new_report.final_state_digest());
  diff.set_final_state_changed(!old_report.final_state_digest().empty() &&
                               old_report.final_state_digest() !=
                                   new_report.final_state_digest());
}

}  // namespace

bool OutcomesRecorded(const v1::AuditReport& report) {
  // Reports saved before outcomes_recorded existed: outcomes mean they were.
  return report.outcomes_recorded() || report.outcomes_size() > 0;
}

v1::LogDiff DiffReports(absl::string_view name,
                        const v1::AuditReport& old_report,
                        const v1::AuditReport& new_report) {
  v1::LogDiff diff;
  diff.set_name(std::string(name));
  diff.set_game_id(new_report.game_id());
  *diff.mutable_old_ruleset() = old_report.ruleset();
  *diff.mutable_new_ruleset() = new_report.ruleset();
  diff.set_outcomes_compared(OutcomesRecorded(old_report) ||
                             !OutcomesRecorded(new_report));
  if (diff.outcomes_compared()) CompareOutcomes(old_report, new_report, diff);
  Unmatched(new_report.findings(), old_report.findings(),
            diff.mutable_findings_added());
  Unmatched(old_report.findings(), new_report.findings(),
            diff.mutable_findings_removed());
  CountChangedEvents(diff);
  CompareEndOfGame(old_report, new_report, diff);
  const bool changed = diff.outcome_changes_size() > 0 ||
                       diff.findings_added_size() > 0 ||
                       diff.findings_removed_size() > 0 ||
                       diff.result_changed() || diff.final_state_changed();
  diff.set_status(changed ? v1::LOG_DIFF_STATUS_CHANGED
                          : v1::LOG_DIFF_STATUS_SAME);
  return diff;
}

v1::LogDiff FailedLogDiff(absl::string_view name, const absl::Status& status) {
  v1::LogDiff diff;
  diff.set_name(std::string(name));
  diff.set_status(v1::LOG_DIFF_STATUS_FAILED);
  diff.set_error(std::string(status.message()));
  return diff;
}

namespace {

absl::StatusOr<v1::AuditReport> AuditSide(const v1::BattleLog& log,
                                          const LoadedRuleset* ruleset,
                                          const RulesetCatalog* builtin,
                                          bool record_outcomes) {
  if (ruleset == nullptr) {
    if (builtin == nullptr) {
      return absl::InternalError("no built-in rulesets to choose from");
    }
    auto chosen = builtin->ForLog(log.header());
    if (!chosen.ok()) return chosen.status();
    ruleset = *chosen;
  }
  AuditOptions options;
  options.record_outcomes = record_outcomes;
  return AuditLog(log, *ruleset, options);
}

}  // namespace

v1::LogDiff DiffUnderRulesets(absl::string_view name, const v1::BattleLog& log,
                              const DiffRulesets& rulesets) {
  auto old_report = AuditSide(log, rulesets.old_ruleset, rulesets.builtin,
                              /*record_outcomes=*/true);
  absl::StatusOr<v1::AuditReport> new_report;
  if (old_report.ok()) {
    new_report = AuditSide(log, rulesets.new_ruleset, rulesets.builtin,
                           /*record_outcomes=*/true);
  }
  if (!old_report.ok() || !new_report.ok()) {
    const absl::Status& s =
        old_report.ok() ? new_report.status() : old_report.status();
    v1::LogDiff failed = FailedLogDiff(
        name,
        absl::Status(s.code(),
                     absl::StrCat(old_report.ok() ? "under the new ruleset: "
                                                  : "under the old ruleset: ",
                                  s.message())));
    failed.set_game_id(log.header().game_id());
    return failed;
  }
  return DiffReports(name, *old_report, *new_report);
}

v1::LogDiff DiffAgainstBaseline(absl::string_view name,
                                const v1::BattleLog& log,
                                const v1::AuditReport* baseline,
                                const DiffRulesets& rulesets) {
  if (baseline == nullptr) {
    v1::LogDiff diff;
    diff.set_name(std::string(name));
    diff.set_game_id(log.header().game_id());
    diff.set_status(v1::LOG_DIFF_STATUS_NO_BASELINE);
    return diff;
  }
  auto report = AuditSide(log, rulesets.new_ruleset, rulesets.builtin,
                          /*record_outcomes=*/OutcomesRecorded(*baseline));
  if (!report.ok()) {
    v1::LogDiff failed = FailedLogDiff(name, report.status());
    failed.set_game_id(log.header().game_id());
    return failed;
  }
  v1::LogDiff diff = DiffReports(name, *baseline, *report);
  // A report saved without outcomes cannot say whether the engine worked
  // any out: say they were not compared.
  if (!OutcomesRecorded(*baseline)) diff.set_outcomes_compared(false);
  return diff;
}

void DiffTally::Add(std::size_t position, const v1::LogDiff& diff) {
  summary_.set_logs_total(summary_.logs_total() + 1);
  if (diff.status() == v1::LOG_DIFF_STATUS_FAILED) {
    v1::FailedLog failed;
    failed.set_name(diff.name());
    failed.set_error(diff.error());
    failed_[position] = std::move(failed);
    return;
  }
  if (diff.status() == v1::LOG_DIFF_STATUS_NO_BASELINE) {
    no_baseline_[position] = diff.name();
    return;
  }
  summary_.set_logs_compared(summary_.logs_compared() + 1);
  if (diff.status() == v1::LOG_DIFF_STATUS_CHANGED) {
    summary_.set_logs_changed(summary_.logs_changed() + 1);
  }
  summary_.set_events_changed(summary_.events_changed() +
                              diff.events_changed());
  summary_.set_outcomes_changed(summary_.outcomes_changed() +
                                diff.outcome_changes_size());
  if (diff.result_changed() || diff.final_state_changed()) {
    summary_.set_results_changed(summary_.results_changed() + 1);
  }
  if (!diff.outcomes_compared()) {
    summary_.set_outcomes_not_compared(summary_.outcomes_not_compared() + 1);
  }
  for (const v1::Finding& f : diff.findings_added()) {
    auto& rule = by_rule_[f.rule_id()];
    rule.set_added(rule.added() + 1);
  }
  for (const v1::Finding& f : diff.findings_removed()) {
    auto& rule = by_rule_[f.rule_id()];
    rule.set_removed(rule.removed() + 1);
  }
}

v1::DiffSummary DiffTally::Summary() const {
  v1::DiffSummary summary = summary_;
  for (const auto& [rule_id, changes] : by_rule_) {
    v1::RuleFindingChanges* out = summary.add_findings_by_rule();
    *out = changes;
    out->set_rule_id(rule_id);
  }
  for (const auto& [position, name] : no_baseline_) {
    summary.add_no_baseline(name);
  }
  for (const auto& [position, failed] : failed_) *summary.add_failed() = failed;
  return summary;
}

}  // namespace gunbai::replay
