#include "rules/engine.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace gunbai::rules {

namespace v1 = ::gunbai::v1;

absl::StatusOr<std::string> Engine::SaveCheckpoint() const {
  return absl::UnimplementedError("this ruleset's engine has no checkpoints");
}

absl::Status Engine::RestoreCheckpoint(absl::string_view) {
  return absl::UnimplementedError("this ruleset's engine has no checkpoints");
}

v1::Severity SeverityToProto(Severity s) {
  switch (s) {
    case Severity::kViolation:
      return v1::SEVERITY_VIOLATION;
    case Severity::kDispute:
      return v1::SEVERITY_DISPUTE;
    case Severity::kWarning:
      return v1::SEVERITY_WARNING;
    case Severity::kUnverifiable:
      return v1::SEVERITY_UNVERIFIABLE;
  }
  return v1::SEVERITY_UNSPECIFIED;
}

v1::TermOrigin OriginToProto(Origin o) {
  switch (o) {
    case Origin::kComputed:
      return v1::TERM_ORIGIN_COMPUTED;
    case Origin::kDeclared:
      return v1::TERM_ORIGIN_DECLARED;
    case Origin::kDice:
      return v1::TERM_ORIGIN_DICE;
    case Origin::kMeasured:
      return v1::TERM_ORIGIN_MEASURED;
  }
  return v1::TERM_ORIGIN_UNSPECIFIED;
}

namespace {

void AppendTrace(Trace& trace,
                 google::protobuf::RepeatedPtrField<v1::Term>& out) {
  for (Term& term : trace) {
    v1::Term* t = out.Add();
    t->set_value(term.value);
    t->set_label(std::move(term.label));
    t->set_rule_id(std::string(term.rule_id));
    t->set_origin(OriginToProto(term.origin));
    if (!term.measured_by.empty()) {
      t->set_measured_by(std::string(term.measured_by));
    }
  }
}

}  // namespace

void AppendFinding(Finding finding, std::uint64_t seq, std::uint32_t turn,
                   google::protobuf::RepeatedPtrField<v1::Finding>& out) {
  v1::Finding* f = out.Add();
  f->set_seq(seq);
  f->set_turn(turn);
  f->set_severity(SeverityToProto(finding.severity));
  f->set_rule_id(std::string(finding.rule_id));
  f->set_message(std::move(finding.message));
  f->set_subject(std::move(finding.subject));
  f->set_claimed(std::move(finding.claimed));
  f->set_computed(std::move(finding.computed));
  AppendTrace(finding.trace, *f->mutable_trace());
}

void AppendOutcome(std::uint64_t seq, absl::string_view subject,
                   absl::string_view kind, std::string value, Trace* trace,
                   google::protobuf::RepeatedPtrField<v1::Outcome>* out) {
  if (out == nullptr) return;
  v1::Outcome* o = out->Add();
  o->set_seq(seq);
  o->set_subject(std::string(subject));
  o->set_kind(std::string(kind));
  o->set_value(std::move(value));
  if (trace != nullptr) AppendTrace(*trace, *o->mutable_trace());
}

namespace {

void LogViolation(FindingSink& sink, absl::string_view rule_id,
                  std::string subject, std::string message) {
  Finding f;
  f.severity = Severity::kViolation;
  f.rule_id = rule_id;
  f.subject = std::move(subject);
  f.message = std::move(message);
  sink.Report(std::move(f));
}

}  // namespace

bool CheckEventStart(const v1::Event& event, BattleState& state,
                     FindingSink& sink) {
  if (state.any_event && event.seq() <= state.last_seq) {
    LogViolation(sink, "log.seq.order", "",
                 absl::StrFormat("Event seq %d follows seq %d; sequence "
                                 "numbers must increase. Renumber the log.",
                                 event.seq(), state.last_seq));
  }
  state.any_event = true;
  state.last_seq = event.seq();
  if (event.body_case() == v1::Event::BODY_NOT_SET) {
    LogViolation(sink, "log.event.empty", "",
                 "The event has no body (turn_start, firing, melee_round, "
                 "...); it is skipped.");
    return false;
  }
  return true;
}

void CheckEventTurnAndClan(const v1::Event& event, const BattleState& state,
                           FindingSink& sink) {
  if (!event.has_turn_start() && state.turn > 0 &&
      event.turn() != static_cast<uint32_t>(state.turn)) {
    LogViolation(sink, "log.turn.mismatch", "",
                 absl::StrFormat("The event says turn %d but the game is in "
                                 "turn %d.",
                                 event.turn(), state.turn));
  }
  if (!event.clan().empty() && std::find(state.clans.begin(), state.clans.end(),
                                         event.clan()) == state.clans.end()) {
    LogViolation(sink, "log.clan.unknown", event.clan(),
                 absl::StrFormat("The acting clan \"%s\" is not in the "
                                 "header.",
                                 event.clan()));
  }
}

}  // namespace gunbai::rules
