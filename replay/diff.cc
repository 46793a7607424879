#include "replay/diff.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
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
    // A ruleset that differs only in its version is no change.
    if (f.rule_id() == "log.ruleset.version") continue;
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
                                          AuditOptions options) {
  if (ruleset == nullptr) {
    if (builtin == nullptr) {
      return absl::InternalError("no built-in rulesets to choose from");
    }
    auto chosen = builtin->ForLog(log.header());
    if (!chosen.ok()) return chosen.status();
    ruleset = *chosen;
  }
  return AuditLog(log, *ruleset, options);
}

AuditOptions Recording(bool record_outcomes) {
  AuditOptions options;
  options.record_outcomes = record_outcomes;
  return options;
}

// The new side of a diff under rulesets: the game as it would have gone
// under the new ruleset, keeping the outcomes the old side disputes.
AuditOptions BranchOf(const v1::AuditReport& old_report) {
  AuditOptions options = Recording(true);
  options.follow_computed_from_seq = 1;
  for (const v1::Finding& f : old_report.findings()) {
    if (f.severity() == v1::SEVERITY_DISPUTE) {
      options.keep_claims_at.push_back(f.seq());
    }
  }
  std::sort(options.keep_claims_at.begin(), options.keep_claims_at.end());
  return options;
}

// Returns the first violation of `new_report` that `old_report` lacks (by
// seq, rule id and subject), or null: the event the new side's game makes
// impossible.
const v1::Finding* FirstNewViolation(const v1::AuditReport& old_report,
                                     const v1::AuditReport& new_report) {
  std::set<std::tuple<std::uint64_t, std::string, std::string>> old_ones;
  for (const v1::Finding& f : old_report.findings()) {
    if (f.severity() == v1::SEVERITY_VIOLATION) {
      old_ones.insert({f.seq(), f.rule_id(), f.subject()});
    }
  }
  for (const v1::Finding& f : new_report.findings()) {
    if (f.severity() == v1::SEVERITY_VIOLATION &&
        !old_ones.count({f.seq(), f.rule_id(), f.subject()})) {
      return &f;
    }
  }
  return nullptr;
}

// Leaves out the changes after the event where the games parted.
void CutAtParting(const v1::Finding& parting, v1::LogDiff& diff) {
  const std::uint64_t seq = parting.seq();
  diff.set_parted_at_seq(seq);
  diff.set_parted_reason(
      absl::StrCat("event seq ", seq, " is impossible under the new ruleset (",
                   parting.rule_id(), ": ", parting.message(), ")"));
  int dropped = 0;
  auto cut = [seq, &dropped](auto* field) {
    const int before = field->size();
    field->erase(std::remove_if(field->begin(), field->end(),
                                [seq](const auto& x) { return x.seq() > seq; }),
                 field->end());
    dropped += before - field->size();
  };
  cut(diff.mutable_outcome_changes());
  cut(diff.mutable_findings_added());
  cut(diff.mutable_findings_removed());
  diff.set_changes_after_parting(static_cast<std::uint32_t>(dropped));
}

}  // namespace

v1::LogDiff DiffUnderRulesets(absl::string_view name, const v1::BattleLog& log,
                              const DiffRulesets& rulesets,
                              v1::BattleLog* branch_log) {
  auto old_report =
      AuditSide(log, rulesets.old_ruleset, rulesets.builtin, Recording(true));
  absl::StatusOr<v1::AuditReport> new_report;
  google::protobuf::RepeatedPtrField<v1::Event> branch_events;
  if (old_report.ok()) {
    AuditOptions branch = BranchOf(*old_report);
    if (branch_log != nullptr) branch.branch_events = &branch_events;
    new_report = AuditSide(log, rulesets.new_ruleset, rulesets.builtin, branch);
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
  v1::LogDiff diff = DiffReports(name, *old_report, *new_report);
  if (const v1::Finding* parting =
          FirstNewViolation(*old_report, *new_report)) {
    CutAtParting(*parting, diff);
    CountChangedEvents(diff);
  }
  if (branch_log != nullptr) {
    *branch_log->mutable_header() = log.header();
    branch_log->mutable_header()->set_game_id(
        absl::StrCat(log.header().game_id(), "-under-new-ruleset"));
    *branch_log->mutable_header()->mutable_ruleset() = v1::RulesetRef();
    branch_log->mutable_header()->mutable_ruleset()->set_name(
        new_report->ruleset().name());
    branch_log->mutable_header()->mutable_ruleset()->set_version(
        new_report->ruleset().version());
    *branch_log->mutable_order_of_battle() = log.order_of_battle();
    *branch_log->mutable_terrain() = log.terrain();
    for (v1::Event& event : branch_events) {
      if (diff.has_parted_at_seq() && event.seq() >= diff.parted_at_seq()) {
        break;
      }
      *branch_log->add_events() = std::move(event);
    }
  }
  return diff;
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
                          Recording(OutcomesRecorded(*baseline)));
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

namespace {

// True when a clan's units left differ between the two results.
bool UnitsLeftChanged(const v1::LogDiff& diff) {
  for (const v1::ClanResult& n : diff.new_result().clans()) {
    for (const v1::ClanResult& o : diff.old_result().clans()) {
      if (o.clan() == n.clan() && o.units_left() != n.units_left()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

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
  if (diff.result_compared() &&
      diff.old_result().winner() != diff.new_result().winner()) {
    summary_.set_winners_changed(summary_.winners_changed() + 1);
  }
  if (diff.result_compared() && UnitsLeftChanged(diff)) {
    summary_.set_units_left_changed(summary_.units_left_changed() + 1);
  }
  if (diff.has_parted_at_seq()) {
    summary_.set_logs_parted(summary_.logs_parted() + 1);
  }
  for (const v1::OutcomeChange& c : diff.outcome_changes()) {
    v1::OutcomeKindChanges& kind = by_kind_[c.kind()];
    std::int64_t old_value = 0;
    std::int64_t new_value = 0;
    if (c.has_old_outcome() && c.has_new_outcome() &&
        absl::SimpleAtoi(c.old_outcome().value(), &old_value) &&
        absl::SimpleAtoi(c.new_outcome().value(), &new_value)) {
      if (new_value > old_value) kind.set_more(kind.more() + 1);
      if (new_value < old_value) kind.set_fewer(kind.fewer() + 1);
    } else {
      kind.set_other(kind.other() + 1);
    }
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
  for (const auto& [kind, changes] : by_kind_) {
    v1::OutcomeKindChanges* out = summary.add_outcomes_by_kind();
    *out = changes;
    out->set_kind(kind);
  }
  for (const auto& [position, name] : no_baseline_) {
    summary.add_no_baseline(name);
  }
  for (const auto& [position, failed] : failed_) *summary.add_failed() = failed;
  return summary;
}

}  // namespace gunbai::replay
