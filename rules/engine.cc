#include "rules/engine.h"

#include <utility>

namespace gunbai::rules {

namespace v1 = ::gunbai::v1;

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

}  // namespace gunbai::rules
