#include "replay/diff.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "replay/audit.h"
#include "replay/log_bytes.h"
#include "rules/status_macros.h"

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
  // Digests of different versions (a report of an older gunbai) are not
  // compared: they differ whatever the states.
  const auto version = [](const v1::AuditReport& r) {
    return std::max<std::uint32_t>(r.final_state_digest_version(), 1);
  };
  diff.set_final_state_changed(!old_report.final_state_digest().empty() &&
                               version(old_report) == version(new_report) &&
                               old_report.final_state_digest() !=
                                   new_report.final_state_digest());
}

// Returns whether a diff of the two reports compares their outcomes (see
// DiffReports).
bool OutcomesCompared(const v1::AuditReport& old_report,
                      const v1::AuditReport& new_report) {
  return OutcomesRecorded(old_report) || !OutcomesRecorded(new_report);
}

// Fills in `diff`, whose outcome_changes are already set, from the two
// reports: the names, the findings added and removed, the end of the game
// and the status.
void FinishDiff(absl::string_view name, const v1::AuditReport& old_report,
                const v1::AuditReport& new_report, bool outcomes_compared,
                v1::LogDiff& diff) {
  diff.set_name(std::string(name));
  diff.set_game_id(new_report.game_id());
  *diff.mutable_old_ruleset() = old_report.ruleset();
  *diff.mutable_new_ruleset() = new_report.ruleset();
  diff.set_outcomes_compared(outcomes_compared);
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
}

// The outcomes two replays of one log in step have written and not yet
// compared, each side's by seq. The outcomes of a seq are compared once the
// last event with that seq is applied (an outcome carries the seq of the
// event that worked it out, rules::AppendOutcome), then freed: a diff holds
// the outcomes of one event, not of the whole game, and the changes come
// out exactly as CompareOutcomes of the whole reports gives them.
class OutcomesInStep {
 public:
  // For a log whose seqs increase every event is the last of its seq;
  // otherwise NoteEvent must be called with every event before the first
  // AfterEvent.
  explicit OutcomesInStep(bool seqs_increase) : seqs_increase_(seqs_increase) {}

  void NoteEvent(int index, std::uint64_t seq) {
    if (!seqs_increase_) last_event_of_seq_[seq] = index;
  }

  // Takes what both reports' outcomes hold after the event at `index`, and
  // compares the outcomes of its seq into `diff` when no event of that seq
  // is left.
  void AfterEvent(int index, std::uint64_t seq, v1::AuditReport& old_report,
                  v1::AuditReport& new_report, v1::LogDiff& diff) {
    Take(old_report, old_pending_);
    Take(new_report, new_pending_);
    if (seqs_increase_ || last_event_of_seq_[seq] == index) {
      Compare(seq, diff);
    }
  }

  // From now on drops, counting them, the changes after `seq`, the event
  // where the games parted (see CutAtParting).
  void PartAt(std::uint64_t seq) { parted_at_ = seq; }
  // Returns the number of changes dropped.
  int dropped() const { return dropped_; }

  // Compares every outcome left (those the end of the game wrote) and
  // puts the changes in the key order of CompareOutcomes.
  void Finish(v1::AuditReport& old_report, v1::AuditReport& new_report,
              v1::LogDiff& diff) {
    Take(old_report, old_pending_);
    Take(new_report, new_pending_);
    std::set<std::uint64_t> seqs;
    for (const auto& [seq, outcomes] : old_pending_) seqs.insert(seq);
    for (const auto& [seq, outcomes] : new_pending_) seqs.insert(seq);
    for (std::uint64_t seq : seqs) Compare(seq, diff);
    auto* changes = diff.mutable_outcome_changes();
    auto by_seq = [](const v1::OutcomeChange& a, const v1::OutcomeChange& b) {
      return a.seq() < b.seq();
    };
    if (!std::is_sorted(changes->begin(), changes->end(), by_seq)) {
      std::stable_sort(changes->begin(), changes->end(), by_seq);
    }
  }

 private:
  using Pending = std::map<std::uint64_t, v1::AuditReport>;

  static void Take(v1::AuditReport& report, Pending& pending) {
    for (v1::Outcome& outcome : *report.mutable_outcomes()) {
      *pending[outcome.seq()].add_outcomes() = std::move(outcome);
    }
    report.mutable_outcomes()->Clear();
  }

  void Compare(std::uint64_t seq, v1::LogDiff& diff) {
    const v1::AuditReport none;
    auto old_side = old_pending_.extract(seq);
    auto new_side = new_pending_.extract(seq);
    if (parted_at_ > 0 && seq > parted_at_) {
      // CutAtParting would leave them out: only their number is kept.
      v1::LogDiff cut;
      CompareOutcomes(old_side ? old_side.mapped() : none,
                      new_side ? new_side.mapped() : none, cut);
      dropped_ += cut.outcome_changes_size();
      return;
    }
    CompareOutcomes(old_side ? old_side.mapped() : none,
                    new_side ? new_side.mapped() : none, diff);
  }

  const bool seqs_increase_;
  // Empty when the seqs increase; else each seq's last event index.
  absl::flat_hash_map<std::uint64_t, int> last_event_of_seq_;
  std::uint64_t parted_at_ = 0;  // 0 until the games part.
  int dropped_ = 0;
  Pending old_pending_;
  Pending new_pending_;
};

}  // namespace

bool OutcomesRecorded(const v1::AuditReport& report) {
  // Reports saved before outcomes_recorded existed: outcomes mean they were.
  return report.outcomes_recorded() || report.outcomes_size() > 0;
}

v1::LogDiff DiffReports(absl::string_view name,
                        const v1::AuditReport& old_report,
                        const v1::AuditReport& new_report) {
  v1::LogDiff diff;
  const bool compared = OutcomesCompared(old_report, new_report);
  if (compared) CompareOutcomes(old_report, new_report, diff);
  FinishDiff(name, old_report, new_report, compared, diff);
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

// Returns `ruleset`, or when null the one of `builtin` the log's header
// names.
absl::StatusOr<const LoadedRuleset*> RulesetFor(const v1::BattleLog& log,
                                                const LoadedRuleset* ruleset,
                                                const RulesetCatalog* builtin) {
  if (ruleset != nullptr) return ruleset;
  if (builtin == nullptr) {
    return absl::InternalError("no built-in rulesets to choose from");
  }
  return builtin->ForLog(log.header());
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

using ViolationKeys =
    std::set<std::tuple<std::uint64_t, std::string, std::string>>;

// Returns the violations of `report` by seq, rule id and subject.
ViolationKeys ViolationsOf(const v1::AuditReport& report) {
  ViolationKeys keys;
  for (const v1::Finding& f : report.findings()) {
    if (f.severity() == v1::SEVERITY_VIOLATION) {
      keys.insert({f.seq(), f.rule_id(), f.subject()});
    }
  }
  return keys;
}

// Returns the first violation of `new_report` from its finding `from` on
// that is not in `old_ones`, or null.
const v1::Finding* FirstViolationNotIn(const ViolationKeys& old_ones,
                                       const v1::AuditReport& new_report,
                                       int from = 0) {
  for (int i = from; i < new_report.findings_size(); ++i) {
    const v1::Finding& f = new_report.findings(i);
    if (f.severity() == v1::SEVERITY_VIOLATION &&
        !old_ones.count({f.seq(), f.rule_id(), f.subject()})) {
      return &f;
    }
  }
  return nullptr;
}

// Returns the first violation of `new_report` that `old_report` lacks (by
// seq, rule id and subject), or null: the event the new side's game makes
// impossible.
const v1::Finding* FirstNewViolation(const v1::AuditReport& old_report,
                                     const v1::AuditReport& new_report) {
  return FirstViolationNotIn(ViolationsOf(old_report), new_report);
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
  // The old game's end cannot be reached under the new rules: the ends are
  // not compared, their difference counted under the parting.
  diff.set_ends_differ_past_parting(diff.result_changed() ||
                                    diff.final_state_changed());
  diff.set_result_changed(false);
  diff.set_final_state_changed(false);
}

// Returns the LogDiff of status FAILED of `log`, whose `side` ("old" or
// "new") could not be replayed.
v1::LogDiff FailedSide(absl::string_view name, const v1::BattleLog& log,
                       absl::string_view side, const absl::Status& s) {
  v1::LogDiff failed = FailedLogDiff(
      name, absl::Status(s.code(), absl::StrCat("under the ", side,
                                                " ruleset: ", s.message())));
  failed.set_game_id(log.header().game_id());
  return failed;
}

}  // namespace

namespace {

// Hands `each` every event of a log, in order; an error when the events
// cannot be read (from bytes), after which the caller parses the log.
using EachEvent = std::function<absl::Status(
    const std::function<void(const v1::Event&)>& each)>;

EachEvent EventsOf(const v1::BattleLog& log) {
  return [&log](const std::function<void(const v1::Event&)>& each) {
    for (const v1::Event& event : log.events()) each(event);
    return absl::OkStatus();
  };
}

// A log as the diffs read it: its header and order of battle, how many
// events it has, and the events, read as often as asked.
struct LogInPasses {
  const v1::BattleLog& head;
  std::uint64_t events = 0;
  bool seqs_increase = true;
  EachEvent each_event;
};

LogInPasses PassesOf(const v1::BattleLog& log) {
  bool increasing = true;
  for (int i = 1; i < log.events_size() && increasing; ++i) {
    increasing = log.events(i).seq() > log.events(i - 1).seq();
  }
  return {log, static_cast<std::uint64_t>(log.events_size()), increasing,
          EventsOf(log)};
}

// AuditLog's steps (AuditSide) for a log read in passes. Sets `read` and
// returns it when the events cannot be read.
absl::StatusOr<v1::AuditReport> AuditInPasses(const LogInPasses& log,
                                              const LoadedRuleset* ruleset,
                                              const RulesetCatalog* builtin,
                                              const AuditOptions& options,
                                              absl::Status& read) {
  GUNBAI_ASSIGN_OR_RETURN(auto chosen, RulesetFor(log.head, ruleset, builtin));
  v1::AuditReport report;
  GUNBAI_ASSIGN_OR_RETURN(auto replay,
                          Replay::Start(log.head, *chosen, options, &report));
  read = log.each_event([&](const v1::Event& event) { replay->Apply(event); });
  if (!read.ok()) return read;
  replay->Finish(log.events);
  return report;
}

// DiffUnderRulesets for a log read in passes; the events of the new side's
// game go to `branch_events` when not null. Returns an error only when the
// events cannot be read.
absl::StatusOr<v1::LogDiff> DiffInStep(
    absl::string_view name, const LogInPasses& log,
    const DiffRulesets& rulesets,
    google::protobuf::RepeatedPtrField<v1::Event>* branch_events) {
  // The new side keeps the claims the old side disputes: a first audit of
  // the old side, without outcomes, finds them.
  absl::Status read;
  auto old_findings = AuditInPasses(log, rulesets.old_ruleset, rulesets.builtin,
                                    Recording(false), read);
  if (!read.ok()) return read;
  if (!old_findings.ok()) {
    return FailedSide(name, log.head, "old", old_findings.status());
  }
  AuditOptions branch = BranchOf(*old_findings);
  // The games part at the first violation of the new side the old side
  // lacks: watched for in step, the changes after it are only counted.
  const ViolationKeys old_violations = ViolationsOf(*old_findings);
  old_findings = v1::AuditReport();
  branch.branch_events = branch_events;
  auto old_ruleset =
      RulesetFor(log.head, rulesets.old_ruleset, rulesets.builtin);
  auto new_ruleset =
      RulesetFor(log.head, rulesets.new_ruleset, rulesets.builtin);
  if (!old_ruleset.ok()) {
    return FailedSide(name, log.head, "old", old_ruleset.status());
  }
  if (!new_ruleset.ok()) {
    return FailedSide(name, log.head, "new", new_ruleset.status());
  }
  // Then both sides in step, the outcomes of each event compared and freed.
  v1::AuditReport old_report, new_report;
  auto old_replay =
      Replay::Start(log.head, **old_ruleset, Recording(true), &old_report);
  if (!old_replay.ok()) {
    return FailedSide(name, log.head, "old", old_replay.status());
  }
  auto new_replay = Replay::Start(log.head, **new_ruleset, branch, &new_report);
  if (!new_replay.ok()) {
    return FailedSide(name, log.head, "new", new_replay.status());
  }
  v1::LogDiff diff;
  OutcomesInStep outcomes(log.seqs_increase);
  int index = 0;
  if (!log.seqs_increase) {
    read = log.each_event([&](const v1::Event& event) {
      outcomes.NoteEvent(index++, event.seq());
    });
    if (!read.ok()) return read;
  }
  bool parted = false;
  int findings_seen = 0;
  index = 0;
  read = log.each_event([&](const v1::Event& event) {
    (*old_replay)->Apply(event);
    (*new_replay)->Apply(event);
    if (!parted) {
      if (const v1::Finding* parting =
              FirstViolationNotIn(old_violations, new_report, findings_seen)) {
        outcomes.PartAt(parting->seq());
        parted = true;
      }
      findings_seen = new_report.findings_size();
    }
    outcomes.AfterEvent(index++, event.seq(), old_report, new_report, diff);
  });
  if (!read.ok()) return read;
  (*old_replay)->Finish(log.events);
  (*new_replay)->Finish(log.events);
  outcomes.Finish(old_report, new_report, diff);
  FinishDiff(name, old_report, new_report,
             OutcomesCompared(old_report, new_report), diff);
  if (const v1::Finding* parting = FirstNewViolation(old_report, new_report)) {
    CutAtParting(*parting, diff);
    diff.set_changes_after_parting(
        diff.changes_after_parting() +
        static_cast<std::uint32_t>(outcomes.dropped()));
    CountChangedEvents(diff);
  }
  return diff;
}

v1::LogDiff NoBaseline(absl::string_view name, const v1::BattleLog& head) {
  v1::LogDiff diff;
  diff.set_name(std::string(name));
  diff.set_game_id(head.header().game_id());
  diff.set_status(v1::LOG_DIFF_STATUS_NO_BASELINE);
  return diff;
}

// DiffAgainstBaseline for a log read in passes, `baseline` not null.
// Returns an error only when the events cannot be read.
absl::StatusOr<v1::LogDiff> DiffWithBaseline(absl::string_view name,
                                             const LogInPasses& log,
                                             const v1::AuditReport& baseline,
                                             const DiffRulesets& rulesets) {
  absl::Status read;
  auto report = AuditInPasses(log, rulesets.new_ruleset, rulesets.builtin,
                              Recording(OutcomesRecorded(baseline)), read);
  if (!read.ok()) return read;
  if (!report.ok()) {
    v1::LogDiff failed = FailedLogDiff(name, report.status());
    failed.set_game_id(log.head.header().game_id());
    return failed;
  }
  v1::LogDiff diff = DiffReports(name, baseline, *report);
  // A report saved without outcomes cannot say whether the engine worked
  // any out: say they were not compared.
  if (!OutcomesRecorded(baseline)) diff.set_outcomes_compared(false);
  return diff;
}

// The log of `bytes` read in passes, its head in `head`.
LogInPasses BytesInPasses(absl::string_view bytes, int recursion_limit,
                          const LogBytesHead& head) {
  return {head.head, head.events, head.seqs_increase,
          [bytes,
           recursion_limit](const std::function<void(const v1::Event&)>& each) {
            return ForEachLogBytesEvent(bytes, recursion_limit, each);
          }};
}

}  // namespace

v1::LogDiff DiffUnderRulesets(absl::string_view name, const v1::BattleLog& log,
                              const DiffRulesets& rulesets,
                              v1::BattleLog* branch_log) {
  google::protobuf::RepeatedPtrField<v1::Event> branch_events;
  // The events of a parsed log are always read.
  v1::LogDiff diff =
      *DiffInStep(name, PassesOf(log), rulesets,
                  branch_log != nullptr ? &branch_events : nullptr);
  if (branch_log != nullptr && diff.status() != v1::LOG_DIFF_STATUS_FAILED) {
    *branch_log->mutable_header() = log.header();
    branch_log->mutable_header()->set_game_id(
        absl::StrCat(log.header().game_id(), "-under-new-ruleset"));
    *branch_log->mutable_header()->mutable_ruleset() = v1::RulesetRef();
    branch_log->mutable_header()->mutable_ruleset()->set_name(
        diff.new_ruleset().name());
    branch_log->mutable_header()->mutable_ruleset()->set_version(
        diff.new_ruleset().version());
    *branch_log->mutable_order_of_battle() = log.order_of_battle();
    if (log.has_starting_position()) {
      *branch_log->mutable_starting_position() = log.starting_position();
    }
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
  if (baseline == nullptr) return NoBaseline(name, log);
  return *DiffWithBaseline(name, PassesOf(log), *baseline, rulesets);
}

absl::StatusOr<v1::LogDiff> DiffUnderRulesetsOfBytes(
    absl::string_view name, absl::string_view log_bytes, int recursion_limit,
    const DiffRulesets& rulesets) {
  GUNBAI_ASSIGN_OR_RETURN(auto head,
                          ReadLogBytesHead(log_bytes, recursion_limit));
  return DiffInStep(name, BytesInPasses(log_bytes, recursion_limit, head),
                    rulesets, /*branch_events=*/nullptr);
}

absl::StatusOr<v1::LogDiff> DiffAgainstBaselineOfBytes(
    absl::string_view name, absl::string_view log_bytes, int recursion_limit,
    const v1::AuditReport* baseline, const DiffRulesets& rulesets) {
  GUNBAI_ASSIGN_OR_RETURN(auto head,
                          ReadLogBytesHead(log_bytes, recursion_limit));
  if (baseline == nullptr) return NoBaseline(name, head.head);
  return DiffWithBaseline(name, BytesInPasses(log_bytes, recursion_limit, head),
                          *baseline, rulesets);
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
  const bool ends_compared =
      diff.result_compared() && !diff.has_parted_at_seq();
  if (ends_compared &&
      diff.old_result().winner() != diff.new_result().winner()) {
    summary_.set_winners_changed(summary_.winners_changed() + 1);
  }
  if (ends_compared && UnitsLeftChanged(diff)) {
    summary_.set_units_left_changed(summary_.units_left_changed() + 1);
  }
  if (diff.has_parted_at_seq()) {
    summary_.set_logs_parted(summary_.logs_parted() + 1);
    if (diff.ends_differ_past_parting()) {
      summary_.set_logs_parted_ends_differ(summary_.logs_parted_ends_differ() +
                                           1);
    }
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
