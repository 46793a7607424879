#include "replay/audit.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "replay/proto_mapping.h"
#include "replay/replayer.h"

namespace gunbai::replay {

namespace v1 = ::gunbai::v1;

namespace {

void Summarize(v1::AuditReport& report) {
  v1::AuditSummary* summary = report.mutable_summary();
  for (const v1::Finding& f : report.findings()) {
    switch (f.severity()) {
      case v1::SEVERITY_VIOLATION:
        summary->set_violations(summary->violations() + 1);
        break;
      case v1::SEVERITY_DISPUTE:
        summary->set_disputes(summary->disputes() + 1);
        break;
      case v1::SEVERITY_WARNING:
        summary->set_warnings(summary->warnings() + 1);
        break;
      case v1::SEVERITY_UNVERIFIABLE:
        summary->set_unverifiable(summary->unverifiable() + 1);
        break;
      default:
        break;
    }
  }
}

}  // namespace

absl::StatusOr<v1::AuditReport> AuditLog(const v1::BattleLog& log,
                                         const LoadedRuleset& ruleset) {
  v1::AuditReport report;
  report.set_game_id(log.header().game_id());
  report.mutable_ruleset()->set_name(ruleset.rules.name);
  report.mutable_ruleset()->set_version(ruleset.rules.version);
  report.mutable_ruleset()->set_digest(ruleset.digest);
  auto replayer = Replayer::Create(log, ruleset, report.mutable_findings());
  if (!replayer.ok()) return replayer.status();
  for (const v1::Event& event : log.events()) (*replayer)->Apply(event);
  (*replayer)->Finish();

  const rules::BattleState& state = (*replayer)->state();
  report.set_events_replayed(static_cast<uint64_t>(log.events_size()));
  report.set_turns(static_cast<uint32_t>(state.turn));
  const int disputes = (*replayer)->disputes();
  report.set_branch(
      disputes == 0
          ? "as logged: no outcome was disputed"
          : absl::StrFormat("as played: after each of the %d disputed "
                            "outcomes, replay went on with the outcome the "
                            "log claims",
                            disputes));
  report.set_final_state_digest(SnapshotFromState(state).digest());
  Summarize(report);
  return report;
}

absl::StatusOr<v1::BattleStateSnapshot> StateAt(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    std::optional<std::uint64_t> seq) {
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  auto replayer = Replayer::Create(log, ruleset, &findings);
  if (!replayer.ok()) return replayer.status();
  for (const v1::Event& event : log.events()) {
    (*replayer)->Apply(event);
    if (seq.has_value() && event.seq() == *seq) {
      return SnapshotFromState((*replayer)->state());
    }
  }
  if (seq.has_value()) {
    return absl::NotFoundError(absl::StrFormat(
        "No event has seq %d; `gunbai state LOG` without --at shows the end "
        "of the game.",
        *seq));
  }
  return SnapshotFromState((*replayer)->state());
}

absl::StatusOr<std::vector<EventDigest>> StateDigests(
    const v1::BattleLog& log, const LoadedRuleset& ruleset) {
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  auto replayer = Replayer::Create(log, ruleset, &findings);
  if (!replayer.ok()) return replayer.status();
  std::vector<EventDigest> out;
  out.reserve(log.events_size());
  for (const v1::Event& event : log.events()) {
    (*replayer)->Apply(event);
    out.push_back(
        {event.seq(), SnapshotFromState((*replayer)->state()).digest()});
  }
  return out;
}

bool ReportHasFailures(const v1::AuditReport& report) {
  const auto& s = report.summary();
  return s.violations() + s.disputes() + s.warnings() > 0;
}

}  // namespace gunbai::replay
