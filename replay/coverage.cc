#include "replay/coverage.h"

#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/text_format.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

void RuleCoverage::Add(const gunbai::v1::AuditReport& report) {
  for (const gunbai::v1::Finding& f : report.findings()) ++counts_[f.rule_id()];
  std::set<std::string> ids;
  for (const gunbai::v1::Outcome& o : report.outcomes()) {
    ids.clear();
    for (const gunbai::v1::Term& t : o.trace()) {
      if (!t.rule_id().empty()) ids.insert(t.rule_id());
      // A fact measured on the table: the table rule that measured it
      // decided the term too.
      if (!t.measured_by().empty()) ids.insert(t.measured_by());
    }
    for (const std::string& id : ids) ++counts_[id];
  }
  // A scenario's victory condition that decided a winner: the rule that
  // judges the winner claimed at game_end.
  if (report.result().scored() && !report.result().winner().empty()) {
    ++counts_["game.victory.winner"];
  }
}

std::int64_t RuleCoverage::CountOf(const std::string& id) const {
  auto it = counts_.find(id);
  return it == counts_.end() ? 0 : it->second;
}

namespace {

using google::protobuf::FieldDescriptor;

// Returns `base` with its options message changed by `set`, loaded and
// validated like any ruleset file.
template <typename Set>
absl::StatusOr<LoadedRuleset> WithOption(const LoadedRuleset& base,
                                         const FieldDescriptor* field,
                                         Set set) {
  gunbai::v1::Ruleset data = base.data;
  gunbai::v1::ReadingOptions* options = data.mutable_options();
  set(options->GetReflection(), options, field);
  std::string text;
  google::protobuf::TextFormat::PrintToString(data, &text);
  return LoadRuleset(text, absl::StrCat(base.data.name(), " with ",
                                        field->name(), " changed"));
}

}  // namespace

absl::StatusOr<std::vector<ReadingVariant>> ReadingVariants(
    const LoadedRuleset& base) {
  std::vector<ReadingVariant> out;
  const gunbai::v1::ReadingOptions& options = base.data.options();
  const google::protobuf::Descriptor* d = options.GetDescriptor();
  const google::protobuf::Reflection* r = options.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* field = d->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
      const bool value = r->GetBool(options, field);
      GUNBAI_ASSIGN_OR_RETURN(
          auto loaded,
          WithOption(
              base, field,
              [value](const google::protobuf::Reflection* refl,
                      google::protobuf::Message* m, const FieldDescriptor* f) {
                refl->SetBool(m, f, !value);
              }));
      out.push_back({field->name(), value ? "true" : "false",
                     value ? "false" : "true", std::move(loaded)});
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      const google::protobuf::EnumValueDescriptor* value =
          r->GetEnum(options, field);
      const google::protobuf::EnumDescriptor* e = field->enum_type();
      for (int v = 0; v < e->value_count(); ++v) {
        const google::protobuf::EnumValueDescriptor* other = e->value(v);
        if (other->number() == 0 || other == value) continue;
        GUNBAI_ASSIGN_OR_RETURN(
            auto loaded,
            WithOption(base, field,
                       [other](const google::protobuf::Reflection* refl,
                               google::protobuf::Message* m,
                               const FieldDescriptor* f) {
                         refl->SetEnum(m, f, other);
                       }));
        out.push_back(
            {field->name(), value->name(), other->name(), std::move(loaded)});
      }
    }
  }
  return out;
}

void CountReadingDiff(const gunbai::v1::LogDiff& diff,
                      ReadingVariant& variant) {
  // A change of the final state alone (a flag no later event read) is not
  // an outcome the reading changed.
  if (diff.events_changed() == 0 && !diff.result_changed()) return;
  ++variant.games_changed;
  variant.events_changed += diff.events_changed();
}

}  // namespace gunbai::replay
