#include "replay/parse_cost.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/wire_format_lite.h"
#include "replay/wire_tag.h"

namespace gunbai::replay {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;

// An allocation's header and rounding, as glibc's malloc takes them.
constexpr std::int64_t kHeap = 16;
// A repeated field's slot for one entry: a pointer, twice over for the room
// a growing field keeps spare.
constexpr std::int64_t kSlot = 2 * sizeof(void*);
constexpr std::int64_t kStringObject = sizeof(std::string);
// Longer strings leave std::string's own buffer for the heap.
constexpr std::int64_t kShortString = 15;
// Protobuf's default recursion limit: deeper bytes do not parse.
constexpr int kMaxDepth = 100;

std::int64_t ScalarBytes(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return 8;
    case FieldDescriptor::CPPTYPE_BOOL:
      return 1;
    default:
      return 4;
  }
}

std::int64_t StringBytes(std::int64_t length) {
  return kStringObject + kHeap +
         (length > kShortString ? length + 1 + kHeap : 0);
}

// The wire type a field's values come in when not packed.
WireFormatLite::WireType WireTypeOf(const FieldDescriptor& field) {
  return WireFormatLite::WireTypeForFieldType(
      static_cast<WireFormatLite::FieldType>(field.type()));
}

class Walker {
 public:
  Walker(const absl::flat_hash_map<const Descriptor*, std::int64_t>& objects,
         google::protobuf::io::ZeroCopyInputStream& input)
      : objects_(objects), input_(&input) {
    input_.SetRecursionLimit(kMaxDepth + 1);
  }

  // Walks one message of `type` to the current limit (or the end).
  bool Walk(const Descriptor& type, int depth);

  ParseCost& cost() { return cost_; }
  std::vector<std::pair<const FieldDescriptor*, std::int64_t>>& path() {
    return path_;
  }

 private:
  // Counts of the repeated (and seen singular message) fields of one
  // message, by field.
  using Counts =
      absl::InlinedVector<std::pair<const FieldDescriptor*, std::int64_t>, 8>;

  static std::int64_t& CountOf(Counts& counts, const FieldDescriptor* field) {
    for (auto& [f, n] : counts) {
      if (f == field) return n;
    }
    counts.emplace_back(field, 0);
    return counts.back().second;
  }

  bool SkipUnknown(std::uint32_t tag);
  bool WalkPacked(const FieldDescriptor& field, std::int64_t& entries);
  void NoteLongest(const Counts& counts);

  const absl::flat_hash_map<const Descriptor*, std::int64_t>& objects_;
  google::protobuf::io::CodedInputStream input_;
  ParseCost cost_;
  // The fields (and entry of each repeated one) from the root to the
  // message being walked.
  std::vector<std::pair<const FieldDescriptor*, std::int64_t>> path_;
  std::string root_name_;

 public:
  void set_root_name(std::string name) { root_name_ = std::move(name); }
};

bool Walker::SkipUnknown(std::uint32_t tag) {
  // Kept in the message's unknown fields: about the bytes themselves.
  const int before = input_.CurrentPosition();
  if (!WireFormatLite::SkipField(&input_, tag)) return false;
  cost_.bytes += input_.CurrentPosition() - before + 8;
  return true;
}

bool Walker::WalkPacked(const FieldDescriptor& field, std::int64_t& entries) {
  int length = 0;
  if (!input_.ReadVarintSizeAsInt(&length)) return false;
  std::int64_t n = 0;
  switch (WireTypeOf(field)) {
    case WireFormatLite::WIRETYPE_FIXED32:
      n = length / 4;
      if (!input_.Skip(length)) return false;
      break;
    case WireFormatLite::WIRETYPE_FIXED64:
      n = length / 8;
      if (!input_.Skip(length)) return false;
      break;
    default: {
      // One varint ends at each byte below 0x80.
      const void* data;
      int size;
      int left = length;
      while (left > 0) {
        if (!input_.GetDirectBufferPointer(&data, &size)) return false;
        const int take = std::min(left, size);
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (int i = 0; i < take; ++i) n += bytes[i] < 0x80;
        input_.Skip(take);
        left -= take;
      }
    }
  }
  entries += n;
  cost_.bytes += 2 * n * ScalarBytes(field);
  return true;
}

void Walker::NoteLongest(const Counts& counts) {
  for (const auto& [field, n] : counts) {
    if (!field->is_repeated() || n <= cost_.longest_list_entries) continue;
    cost_.longest_list_entries = n;
    std::string path = root_name_;
    for (const auto& [f, entry] : path_) {
      absl::StrAppend(&path, ".", f->name());
      if (f->is_repeated()) absl::StrAppend(&path, "[", entry, "]");
    }
    absl::StrAppend(&path, ".", field->name());
    cost_.longest_list = std::move(path);
  }
}

bool Walker::Walk(const Descriptor& type, int depth) {
  Counts counts;
  for (std::uint32_t tag = ReadParsedTag(input_); tag != 0;
       tag = ReadParsedTag(input_)) {
    const FieldDescriptor* field = type.FindFieldByNumber(
        static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)));
    const auto wire_type = WireFormatLite::GetTagWireType(tag);
    if (field == nullptr) {
      if (!SkipUnknown(tag)) return false;
      continue;
    }
    const bool packed = field->is_repeated() && field->is_packable() &&
                        wire_type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (!packed && wire_type != WireTypeOf(*field)) {
      if (!SkipUnknown(tag)) return false;  // A parse keeps it unknown.
      continue;
    }
    std::int64_t& seen = CountOf(counts, field);
    if (packed) {
      if (!WalkPacked(*field, seen)) return false;
      continue;
    }
    const std::int64_t slot = field->is_repeated() ? kSlot : 0;
    switch (field->type()) {
      case FieldDescriptor::TYPE_STRING:
      case FieldDescriptor::TYPE_BYTES: {
        int length = 0;
        if (!input_.ReadVarintSizeAsInt(&length) || !input_.Skip(length)) {
          return false;
        }
        cost_.bytes += slot + StringBytes(length);
        break;
      }
      case FieldDescriptor::TYPE_MESSAGE: {
        if (depth >= kMaxDepth) return false;
        int length = 0;
        if (!input_.ReadVarintSizeAsInt(&length)) return false;
        const Descriptor& sub = *field->message_type();
        // A singular message given again merges into the first.
        if (field->is_repeated() || seen == 0) {
          const auto it = objects_.find(&sub);
          cost_.bytes += slot + kHeap + (it == objects_.end() ? 0 : it->second);
        }
        const auto limit = input_.PushLimit(length);
        path_.emplace_back(field, seen);
        const bool ok = Walk(sub, depth + 1) && input_.BytesUntilLimit() == 0;
        path_.pop_back();
        input_.PopLimit(limit);
        if (!ok) return false;
        break;
      }
      case FieldDescriptor::TYPE_GROUP:
        if (!SkipUnknown(tag)) return false;
        break;
      default:
        if (!WireFormatLite::SkipField(&input_, tag)) return false;
        if (field->is_repeated()) cost_.bytes += 2 * ScalarBytes(*field);
    }
    ++seen;
  }
  NoteLongest(counts);
  return input_.ConsumedEntireMessage();
}

}  // namespace

ParseCostModel::ParseCostModel(const Descriptor& type) : root_(type) {
  Measure(type);
  for (const auto& [type, bytes] : object_bytes_) {
    // A repeated entry of an empty message is two bytes on the wire.
    max_per_wire_byte_ =
        std::max(max_per_wire_byte_, (kSlot + kHeap + bytes + 1) / 2);
  }
  // An empty string in a repeated field, two bytes on the wire.
  max_per_wire_byte_ =
      std::max(max_per_wire_byte_, (kSlot + StringBytes(0) + 1) / 2);
}

void ParseCostModel::Measure(const Descriptor& type) {
  if (object_bytes_.contains(&type)) return;
  const google::protobuf::Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(
          &type);
  object_bytes_[&type] =
      prototype == nullptr
          ? 0
          : static_cast<std::int64_t>(
                prototype->GetReflection()->SpaceUsedLong(*prototype));
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* field = type.field(i);
    if (field->message_type() != nullptr) Measure(*field->message_type());
  }
}

ParseCost ParseCostModel::Estimate(
    google::protobuf::io::ZeroCopyInputStream& input,
    const std::string& root_name) const {
  Walker walker(object_bytes_, input);
  walker.set_root_name(root_name);
  const auto root = object_bytes_.find(&root_);
  walker.cost().bytes = root == object_bytes_.end() ? 0 : root->second;
  walker.cost().complete = walker.Walk(root_, 0);
  return std::move(walker.cost());
}

}  // namespace gunbai::replay
