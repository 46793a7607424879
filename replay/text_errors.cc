#include "replay/text_errors.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/common.h"

namespace gunbai::replay {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::TextFormat;

// Protobuf's own UTF-8 check, the one its binary parser applies to string
// fields, so that "valid" here is what the wire accepts.
bool ValidUtf8(const std::string& s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(
      s.data(), static_cast<int>(s.size()));
}

struct BadString {
  std::string path;
  int line = -1;  // 0-based, as the parser counts; -1 when unknown.
  int column = -1;
};

std::string Element(const std::string& prefix, const FieldDescriptor* field,
                    int index) {
  std::string path =
      prefix.empty() ? field->name() : absl::StrCat(prefix, ".", field->name());
  if (index >= 0) absl::StrAppend(&path, "[", index, "]");
  return path;
}

// Finds the first string holding invalid UTF-8 under `message`.
bool FindBad(const Message& message, const TextFormat::ParseInfoTree* tree,
             const std::string& prefix, BadString& bad) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const bool repeated = field->is_repeated();
    const int count = repeated ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      const int index = repeated ? i : -1;
      if (field->type() == FieldDescriptor::TYPE_STRING) {
        std::string scratch;
        const std::string& value =
            repeated ? reflection->GetRepeatedStringReference(message, field, i,
                                                              &scratch)
                     : reflection->GetStringReference(message, field, &scratch);
        if (ValidUtf8(value)) continue;
        bad.path = Element(prefix, field, index);
        if (tree != nullptr) {
          const TextFormat::ParseLocation at = tree->GetLocation(field, index);
          bad.line = at.line;
          bad.column = at.column;
        }
        return true;
      }
      if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      const Message& nested =
          repeated ? reflection->GetRepeatedMessage(message, field, i)
                   : reflection->GetMessage(message, field);
      const TextFormat::ParseInfoTree* nested_tree =
          tree != nullptr ? tree->GetTreeForNested(field, index) : nullptr;
      if (FindBad(nested, nested_tree, Element(prefix, field, index), bad)) {
        return true;
      }
    }
  }
  return false;
}

// Returns the value names of `type`, for saying what a field may hold.
std::string EnumValueNames(const google::protobuf::EnumDescriptor& type) {
  std::vector<std::string> names;
  for (int i = 0; i < type.value_count(); ++i) {
    names.push_back(type.value(i)->name());
  }
  return absl::StrJoin(names, ", ");
}

// Finds the first enum field under `message` holding a number its type does
// not name; sets `problem` to say which.
// The field and element index of each message on the way down to the one
// being searched, for the path of a problem (built only when one is found).
using EnumPath = std::vector<std::pair<const FieldDescriptor*, int>>;

// Finds the first enum field under `message` whose number has no name. Walks
// the descriptor's fields (no list of set fields, no path strings on the
// way: a whole log is checked on every request).
bool FindUnknownEnum(const Message& message, EnumPath& path,
                     std::string& problem) {
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  for (int f = 0; f < d->field_count(); ++f) {
    const FieldDescriptor* field = d->field(f);
    const auto type = field->cpp_type();
    if (type != FieldDescriptor::CPPTYPE_ENUM &&
        type != FieldDescriptor::CPPTYPE_MESSAGE) {
      continue;
    }
    const bool repeated = field->is_repeated();
    int count = 0;
    if (repeated) {
      count = reflection->FieldSize(message, field);
    } else if (type == FieldDescriptor::CPPTYPE_MESSAGE ||
               field->has_presence()) {
      count = reflection->HasField(message, field) ? 1 : 0;
    } else {
      count = 1;  // An implicit-presence enum: 0 when unset, always named.
    }
    for (int i = 0; i < count; ++i) {
      const int index = repeated ? i : -1;
      if (type == FieldDescriptor::CPPTYPE_ENUM) {
        const int value =
            repeated ? reflection->GetRepeatedEnumValue(message, field, i)
                     : reflection->GetEnumValue(message, field);
        const google::protobuf::EnumDescriptor& enum_type = *field->enum_type();
        if (enum_type.FindValueByNumber(value) != nullptr) continue;
        std::string prefix;
        for (const auto& [outer, outer_index] : path) {
          prefix = Element(prefix, outer, outer_index);
        }
        problem = absl::StrCat(Element(prefix, field, index), ": ", value,
                               " is not a value of ", enum_type.full_name(),
                               " (", EnumValueNames(enum_type), ")");
        return true;
      }
      const Message& nested =
          repeated ? reflection->GetRepeatedMessage(message, field, i)
                   : reflection->GetMessage(message, field);
      path.emplace_back(field, index);
      const bool found = FindUnknownEnum(nested, path, problem);
      path.pop_back();
      if (found) return true;
    }
  }
  return false;
}

}  // namespace

struct KnownEnums::Plan {
  struct EnumField {
    const FieldDescriptor* field;
    const std::vector<bool>* known;                // Indexed by number.
    const google::protobuf::EnumDescriptor* type;  // Numbers beyond it.
  };
  struct MessageField {
    const FieldDescriptor* field;
    const Plan* plan;
  };
  // A oneof's members by their index in it; null for one with no enum under
  // it. The case set is read once, not each member's HasField.
  struct OneofField {
    const google::protobuf::OneofDescriptor* oneof;
    std::vector<const Plan*> members;
  };

  std::vector<EnumField> enums;
  std::vector<MessageField> messages;
  std::vector<OneofField> oneofs;
  // Every generated message of a type shares it; asking the message costs
  // a call per message.
  const google::protobuf::Reflection* reflection = nullptr;

  bool Empty() const {
    return enums.empty() && messages.empty() && oneofs.empty();
  }
  static bool Known(const EnumField& e, int number) {
    if (number >= 0 && static_cast<std::size_t>(number) < e.known->size()) {
      return (*e.known)[static_cast<std::size_t>(number)];
    }
    return e.type->FindValueByNumber(number) != nullptr;
  }
  bool AllKnown(const Message& message) const;
};

bool KnownEnums::Plan::AllKnown(const Message& message) const {
  for (const EnumField& e : enums) {
    if (!e.field->is_repeated()) {
      if (!Known(e, reflection->GetEnumValue(message, e.field))) return false;
      continue;
    }
    const int count = reflection->FieldSize(message, e.field);
    for (int i = 0; i < count; ++i) {
      if (!Known(e, reflection->GetRepeatedEnumValue(message, e.field, i))) {
        return false;
      }
    }
  }
  for (const OneofField& o : oneofs) {
    const FieldDescriptor* set =
        reflection->GetOneofFieldDescriptor(message, o.oneof);
    if (set == nullptr) continue;
    const Plan* member =
        o.members[static_cast<std::size_t>(set->index_in_oneof())];
    if (member != nullptr &&
        !member->AllKnown(reflection->GetMessage(message, set))) {
      return false;
    }
  }
  for (const MessageField& m : messages) {
    if (!m.field->is_repeated()) {
      if (reflection->HasField(message, m.field) &&
          !m.plan->AllKnown(reflection->GetMessage(message, m.field))) {
        return false;
      }
      continue;
    }
    const int count = reflection->FieldSize(message, m.field);
    for (int i = 0; i < count; ++i) {
      if (!m.plan->AllKnown(
              reflection->GetRepeatedMessage(message, m.field, i))) {
        return false;
      }
    }
  }
  return true;
}

KnownEnums::KnownEnums(const google::protobuf::Descriptor* root)
    : generated_(FindGeneratedKnownEnums(root)) {
  root_ = PlanFor(root);
}

const KnownEnums& KnownEnums::For(const google::protobuf::Descriptor* root) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* const plans = new std::map<const google::protobuf::Descriptor*,
                                          std::unique_ptr<const KnownEnums>>();
  absl::MutexLock lock(&mu);
  std::unique_ptr<const KnownEnums>& plan = (*plans)[root];
  if (plan == nullptr) plan = std::make_unique<const KnownEnums>(root);
  return *plan;
}

bool KnownEnums::AllKnown(const Message& message) const {
  // A message not of the root's generated type (a dynamic one) is not
  // planned for: say no, and CheckKnownEnums walks it.
  if (message.GetReflection() != root_->reflection) return false;
  if (generated_ != nullptr) return generated_(message);
  return root_->AllKnown(message);
}

// A type met again while its plan is being built (a recursive message) is
// kept as if it could hold enums.
const KnownEnums::Plan* KnownEnums::PlanFor(
    const google::protobuf::Descriptor* type) {
  auto [it, inserted] = plans_.try_emplace(type);
  if (!inserted) return it->second.get();
  it->second = std::make_unique<Plan>();
  Plan& plan = *it->second;
  in_progress_.push_back(type);
  plan.reflection = google::protobuf::MessageFactory::generated_factory()
                        ->GetPrototype(type)
                        ->GetReflection();
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      plan.enums.push_back(
          {field, KnownValues(field->enum_type()), field->enum_type()});
      continue;
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const google::protobuf::Descriptor* nested = field->message_type();
    const bool in_progress = std::find(in_progress_.begin(), in_progress_.end(),
                                       nested) != in_progress_.end();
    const Plan* nested_plan = PlanFor(nested);
    if (!in_progress && nested_plan->Empty()) continue;
    const google::protobuf::OneofDescriptor* oneof =
        field->real_containing_oneof();
    if (oneof == nullptr) {
      plan.messages.push_back({field, nested_plan});
      continue;
    }
    auto member = std::find_if(
        plan.oneofs.begin(), plan.oneofs.end(),
        [oneof](const Plan::OneofField& o) { return o.oneof == oneof; });
    if (member == plan.oneofs.end()) {
      plan.oneofs.push_back(
          {oneof, std::vector<const Plan*>(
                      static_cast<std::size_t>(oneof->field_count()))});
      member = plan.oneofs.end() - 1;
    }
    member->members[static_cast<std::size_t>(field->index_in_oneof())] =
        nested_plan;
  }
  in_progress_.pop_back();
  return &plan;
}

const std::vector<bool>* KnownEnums::KnownValues(
    const google::protobuf::EnumDescriptor* type) {
  // Enum numbers up to this are looked up in a table.
  constexpr int kMaxIndexed = 1024;
  auto [it, inserted] = known_.try_emplace(type);
  if (inserted) {
    for (int i = 0; i < type->value_count(); ++i) {
      const int number = type->value(i)->number();
      if (number < 0 || number > kMaxIndexed) continue;
      if (it->second.size() <= static_cast<std::size_t>(number)) {
        it->second.resize(static_cast<std::size_t>(number) + 1, false);
      }
      it->second[static_cast<std::size_t>(number)] = true;
    }
  }
  return &it->second;
}

absl::Status CheckKnownEnums(const Message& message, absl::string_view prefix) {
  if (KnownEnums::For(message.GetDescriptor()).AllKnown(message)) {
    return absl::OkStatus();
  }
  std::string problem;
  EnumPath path;
  if (!FindUnknownEnum(message, path, problem)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      prefix.empty() ? problem : absl::StrCat(prefix, ": ", problem));
}

absl::Status CheckUtf8(const Message& message,
                       const TextFormat::ParseInfoTree* tree,
                       absl::string_view source, absl::string_view reading) {
  BadString bad;
  if (!FindBad(message, tree, "", bad)) return absl::OkStatus();
  const std::string where =
      bad.line >= 0
          ? absl::StrCat(source, ":", bad.line + 1, ":", bad.column + 1)
          : std::string(source);
  return absl::InvalidArgumentError(absl::StrCat(
      where, ": ", bad.path,
      " is not valid UTF-8 text (an escape such as \\xff makes a byte that "
      "is no character); write it as plain text (",
      reading, ")"));
}

absl::Status CheckTextUtf8(absl::string_view text, const Message& parsed,
                           absl::string_view source,
                           absl::string_view reading) {
  absl::Status found = CheckUtf8(parsed, nullptr, source, reading);
  if (found.ok()) return found;
  TextFormat::Parser parser;
  TextFormat::ParseInfoTree locations;
  parser.WriteLocationsTo(&locations);
  std::unique_ptr<Message> again(parsed.New());
  google::protobuf::io::ArrayInputStream input(text.data(),
                                               static_cast<int>(text.size()));
  if (!parser.Parse(&input, again.get())) return found;
  return CheckUtf8(*again, &locations, source, reading);
}

absl::Status ParseTextFormat(absl::string_view text, absl::string_view source,
                             google::protobuf::Message& message) {
  google::protobuf::TextFormat::Parser parser;
  FirstTextError errors;
  parser.RecordErrorsTo(&errors);
  google::protobuf::io::ArrayInputStream input(text.data(),
                                               static_cast<int>(text.size()));
  if (parser.Parse(&input, &message)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(source, ":", errors.line(), ":", errors.column(), ": ",
                   Excerpt(errors.message(), 2 * kMaxQuotedBytes)));
}

}  // namespace gunbai::replay
