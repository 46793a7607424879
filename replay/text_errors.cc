#include "replay/text_errors.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

std::string Excerpt(absl::string_view input, std::size_t max_bytes) {
  if (input.size() <= max_bytes) return std::string(input);
  std::size_t cut = max_bytes;
  // Back off continuation bytes (10xxxxxx) so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(input[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return absl::StrCat(input.substr(0, cut), "... (", input.size(), " bytes)");
}

absl::Status CheckKnownEnums(const Message& message, absl::string_view prefix) {
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

}  // namespace gunbai::replay
