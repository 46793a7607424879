#include "replay/all_readings.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "rules/digest.h"
#include "rules/reading_probe.h"
#include "rules/status_macros.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::FieldDescriptor;

// A branch while the log is replayed.
struct LiveBranch {
  ReadingBranch out;
  std::unique_ptr<LoadedRuleset> ruleset;
  std::unique_ptr<Replay> replay;
  // The branch's last mark and the index of the event after it.
  Replay::Mark mark;
  int mark_next = 0;
};

class Forker {
 public:
  Forker(const v1::BattleLog& log, const LoadedRuleset& base,
         const AuditOptions& options, AllReadingsAudit& audit)
      : log_(log), base_(base), options_(options), audit_(audit) {}

  absl::Status Run() {
    auto first = std::make_unique<LiveBranch>();
    first->out.fixed.assign(audit_.options.size(), -1);
    first->ruleset = std::make_unique<LoadedRuleset>(base_);
    GUNBAI_ASSIGN_OR_RETURN(
        first->replay,
        Replay::Start(log_, *first->ruleset, options_, &first->out.report));
    const bool forks = !audit_.options.empty();
    if (forks) {
      GUNBAI_ASSIGN_OR_RETURN(first->mark, first->replay->MarkHere());
    }
    branches_.push_back(std::move(first));
    const int n = log_.events_size();
    for (int i = 0; i <= n; ++i) {
      const std::size_t stepped = branches_.size();
      for (std::size_t b = 0; b < stepped; ++b) {
        const std::uint32_t consulted = Step(*branches_[b], i);
        GUNBAI_RETURN_IF_ERROR(Fork(b, i, consulted));
      }
      if (options_.cancelled && (i & 255) == 255 && options_.cancelled()) {
        return CancelledAudit();
      }
      if (forks && i < n && (i + 1) % kMarkEvery == 0) {
        for (auto& branch : branches_) {
          GUNBAI_ASSIGN_OR_RETURN(branch->mark, branch->replay->MarkHere());
          branch->mark_next = i + 1;
        }
      }
    }
    for (auto& branch : branches_) {
      branch->out.combinations = 1;
      for (std::size_t o = 0; o < audit_.options.size(); ++o) {
        if (branch->out.fixed[o] < 0) {
          branch->out.combinations *= audit_.options[o].values.size();
        }
      }
      audit_.branches.push_back(std::move(branch->out));
    }
    return absl::OkStatus();
  }

 private:
  // Applies event `i` to `branch` (Finish when i is the log's length) and
  // returns the reading options it consulted that the branch has not
  // fixed (bits by field number).
  std::uint32_t Step(LiveBranch& branch, int i) {
    rules::TakeConsultedReadings();
    if (i < log_.events_size()) {
      branch.replay->Apply(log_.events(i));
    } else {
      branch.replay->Finish(static_cast<std::uint64_t>(log_.events_size()));
    }
    ++audit_.events_applied;
    std::uint32_t free = 0;
    for (std::size_t o = 0; o < audit_.options.size(); ++o) {
      if (branch.out.fixed[o] < 0) {
        free |= std::uint32_t{1} << audit_.options[o].field_number;
      }
    }
    return rules::TakeConsultedReadings() & free;
  }

  // Splits branch `b`, which consulted `consulted` in step `i`: it keeps
  // the values in use of those options, and a new branch is made for each
  // other assignment of them, resumed from b's mark, replayed to step i
  // and stepped (and split again should it consult another free option).
  absl::Status Fork(std::size_t b, int i, std::uint32_t consulted) {
    if (consulted == 0) return absl::OkStatus();
    std::vector<std::size_t> split;
    for (std::size_t o = 0; o < audit_.options.size(); ++o) {
      if ((consulted >> audit_.options[o].field_number) & 1u) {
        split.push_back(o);
        branches_[b]->out.fixed[o] = 0;
      }
    }
    // Every assignment of the split options but the all-in-use one,
    // counted like an odometer.
    std::vector<int> digits(split.size(), 0);
    while (true) {
      std::size_t d = 0;
      while (d < split.size()) {
        if (++digits[d] <
            static_cast<int>(audit_.options[split[d]].values.size())) {
          break;
        }
        digits[d] = 0;
        ++d;
      }
      if (d == split.size()) break;
      std::vector<int> fixed = branches_[b]->out.fixed;
      for (std::size_t k = 0; k < split.size(); ++k) {
        fixed[split[k]] = digits[k];
      }
      GUNBAI_RETURN_IF_ERROR(Branch(b, i, std::move(fixed)));
    }
    return absl::OkStatus();
  }

  absl::Status Branch(std::size_t b, int i, std::vector<int> fixed) {
    const LiveBranch& from = *branches_[b];
    if (from.mark.checkpoint.empty()) {
      return absl::InternalError(
          "a reading forks the replay, but the engine saved no checkpoint to "
          "resume the other reading from");
    }
    auto branch = std::make_unique<LiveBranch>();
    branch->out.fixed = std::move(fixed);
    branch->ruleset = std::make_unique<LoadedRuleset>(
        RulesetWithReadings(base_, audit_.options, branch->out.fixed));
    GUNBAI_ASSIGN_OR_RETURN(
        branch->replay,
        Replay::Resume(log_, *branch->ruleset, options_, &branch->out.report,
                       from.mark, from.out.report));
    branch->mark = from.mark;
    branch->mark_next = from.mark_next;
    // The events since the mark consulted none of the options this branch
    // changes (the branch it leaves had them free), so they go alike.
    for (int k = from.mark_next; k < i; ++k) {
      branch->replay->Apply(log_.events(k));
      ++audit_.events_applied;
    }
    branches_.push_back(std::move(branch));
    const std::size_t index = branches_.size() - 1;
    const std::uint32_t consulted = Step(*branches_[index], i);
    return Fork(index, i, consulted);
  }

  const v1::BattleLog& log_;
  const LoadedRuleset& base_;
  const AuditOptions& options_;
  AllReadingsAudit& audit_;
  std::vector<std::unique_ptr<LiveBranch>> branches_;
};

using FindingKey = std::tuple<std::uint64_t, int, std::string, std::string>;

FindingKey KeyOf(const v1::Finding& f) {
  return {f.seq(), static_cast<int>(f.severity()), f.rule_id(), f.subject()};
}

bool Fails(const v1::Finding& f) {
  return f.severity() == v1::SEVERITY_VIOLATION ||
         f.severity() == v1::SEVERITY_DISPUTE ||
         f.severity() == v1::SEVERITY_WARNING;
}

}  // namespace

std::vector<ReadingOption> ReadingOptionsOf(const LoadedRuleset& ruleset) {
  std::vector<ReadingOption> out;
  const v1::ReadingOptions& options = ruleset.data.options();
  const google::protobuf::Descriptor* d = options.GetDescriptor();
  const google::protobuf::Reflection* r = options.GetReflection();
  // A ruleset without an options section (Samurai Knight Fever's) has no
  // readings to choose between.
  if (!ruleset.data.has_options()) return out;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* field = d->field(i);
    ReadingOption option;
    option.name = field->name();
    option.field_number = field->number();
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
      const bool value = r->GetBool(options, field);
      option.values = {value ? "true" : "false", value ? "false" : "true"};
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      const google::protobuf::EnumDescriptor* e = field->enum_type();
      int in_use = r->GetEnumValue(options, field);
      // An unset option reads as the value numbered 1 (its default).
      if (in_use == 0) in_use = 1;
      const auto* value = e->FindValueByNumber(in_use);
      if (value == nullptr) continue;
      option.values.push_back(value->name());
      for (int v = 0; v < e->value_count(); ++v) {
        const auto* other = e->value(v);
        if (other->number() == 0 || other->number() == in_use) continue;
        option.values.push_back(other->name());
      }
    } else {
      continue;
    }
    out.push_back(std::move(option));
  }
  return out;
}

LoadedRuleset RulesetWithReadings(const LoadedRuleset& base,
                                  const std::vector<ReadingOption>& options,
                                  const std::vector<int>& values) {
  LoadedRuleset out = base;
  v1::ReadingOptions* message = out.data.mutable_options();
  const google::protobuf::Descriptor* d = message->GetDescriptor();
  const google::protobuf::Reflection* r = message->GetReflection();
  for (std::size_t o = 0; o < options.size() && o < values.size(); ++o) {
    if (values[o] < 0) continue;
    const FieldDescriptor* field =
        d->FindFieldByNumber(options[o].field_number);
    const std::string& value = options[o].values[values[o]];
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
      r->SetBool(message, field, value == "true");
    } else {
      r->SetEnum(message, field, field->enum_type()->FindValueByName(value));
    }
  }
  out.digest = base::Sha256Hex(base::DeterministicBytes(out.data));
  return out;
}

absl::StatusOr<AllReadingsAudit> AuditAllReadings(const v1::BattleLog& log,
                                                  const LoadedRuleset& ruleset,
                                                  const AuditOptions& options) {
  AllReadingsAudit audit;
  audit.options = ReadingOptionsOf(ruleset);
  for (const ReadingOption& o : audit.options) {
    audit.combinations *= o.values.size();
  }
  Forker forker(log, ruleset, options, audit);
  GUNBAI_RETURN_IF_ERROR(forker.Run());
  return audit;
}

std::string BranchReadings(const AllReadingsAudit& audit,
                           const ReadingBranch& branch) {
  std::vector<std::string> parts;
  for (std::size_t o = 0; o < audit.options.size(); ++o) {
    if (branch.fixed[o] < 0) continue;
    parts.push_back(absl::StrCat(audit.options[o].name, " = ",
                                 audit.options[o].values[branch.fixed[o]]));
  }
  return absl::StrJoin(parts, ", ");
}

void LabelAllReadings(const AllReadingsAudit& audit, v1::AuditReport& report) {
  // Each finding's branches, by key; first seen in branch order.
  std::map<FindingKey, std::vector<std::size_t>> where;
  std::vector<std::pair<FindingKey, const v1::Finding*>> others;
  for (std::size_t b = 0; b < audit.branches.size(); ++b) {
    for (const v1::Finding& f : audit.branches[b].report.findings()) {
      std::vector<std::size_t>& in = where[KeyOf(f)];
      if (!in.empty() && in.back() == b) continue;
      if (in.empty() && b > 0) others.emplace_back(KeyOf(f), &f);
      in.push_back(b);
    }
  }
  const auto label = [&](v1::Finding& f) {
    const std::vector<std::size_t>& in = where[KeyOf(f)];
    std::uint64_t found = 0;
    for (std::size_t b : in) found += audit.branches[b].combinations;
    f.set_combinations_found(found);
    f.clear_found_under();
    if (found == audit.combinations) return;
    for (std::size_t b : in) {
      f.add_found_under(BranchReadings(audit, audit.branches[b]));
    }
  };
  for (v1::Finding& f : *report.mutable_findings()) label(f);
  report.clear_other_reading_findings();
  // In seq order, then as first found.
  std::stable_sort(others.begin(), others.end(),
                   [](const auto& x, const auto& y) {
                     return std::get<0>(x.first) < std::get<0>(y.first);
                   });
  for (const auto& [key, finding] : others) {
    v1::Finding* f = report.add_other_reading_findings();
    *f = *finding;
    label(*f);
  }
  report.set_all_readings_checked(true);
  report.set_reading_combinations(audit.combinations);
  report.set_reading_branches(
      static_cast<std::uint32_t>(audit.branches.size()));
}

bool AllReadingsHaveFailures(const v1::AuditReport& report, bool any_reading) {
  for (const v1::Finding& f : report.findings()) {
    if (!Fails(f)) continue;
    if (any_reading ||
        f.combinations_found() == report.reading_combinations()) {
      return true;
    }
  }
  if (!any_reading) return false;
  for (const v1::Finding& f : report.other_reading_findings()) {
    if (Fails(f)) return true;
  }
  return false;
}

}  // namespace gunbai::replay
