#include "tests/fuzz/proto_mutator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace gunbai::fuzz {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A mutated repeated field grows at most to this many elements.
constexpr int kMaxRepeated = 4096;
// A mutated string grows at most to this many bytes.
constexpr std::size_t kMaxStringBytes = 4096;
// Nested messages deeper than this are not entered.
constexpr int kMaxDepth = 16;

// A field of one message in the tree: where a mutation may land.
struct Slot {
  Message* message;
  const FieldDescriptor* field;
};

std::size_t Below(Rng& rng, std::size_t n) {
  return n == 0 ? 0 : static_cast<std::size_t>(rng() % n);
}

bool OneIn(Rng& rng, unsigned n) { return rng() % n == 0; }

// Collects every field of `message` and of the messages set inside it.
void CollectSlots(Message& message, int depth, std::vector<Slot>& slots) {
  const Descriptor* type = message.GetDescriptor();
  const Reflection* reflection = message.GetReflection();
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    slots.push_back({&message, field});
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
        depth >= kMaxDepth) {
      continue;
    }
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(message, field);
      for (int j = 0; j < n; ++j) {
        CollectSlots(*reflection->MutableRepeatedMessage(&message, field, j),
                     depth + 1, slots);
      }
    } else if (reflection->HasField(message, field)) {
      CollectSlots(*reflection->MutableMessage(&message, field), depth + 1,
                   slots);
    }
  }
}

// Collects every string value in the tree: the ids a mutation may reuse.
void CollectStrings(const Message& message, int depth,
                    std::vector<std::string>& strings) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          strings.push_back(reflection->GetRepeatedString(message, field, j));
        }
      } else {
        strings.push_back(reflection->GetString(message, field));
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
               depth < kMaxDepth) {
      if (field->is_repeated()) {
        for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
          CollectStrings(reflection->GetRepeatedMessage(message, field, j),
                         depth + 1, strings);
        }
      } else {
        CollectStrings(reflection->GetMessage(message, field), depth + 1,
                       strings);
      }
    }
  }
}

// Steps and bit flips are done on the unsigned twin of T, so that INT_MAX + 1
// wraps to INT_MIN instead of overflowing (C++20 converts back modulo 2^N).
template <typename T>
T MutateInteger(T value, Rng& rng) {
  using Unsigned = std::make_unsigned_t<T>;
  const auto bits = static_cast<Unsigned>(value);
  switch (rng() % 7) {
    case 0:
      return static_cast<T>(static_cast<Unsigned>(bits + 1u));
    case 1:
      return static_cast<T>(static_cast<Unsigned>(bits - 1u));
    case 2:
      return static_cast<T>(Below(rng, 8));
    case 3:
      return static_cast<T>(Below(rng, 100));
    case 4: {
      const T bounds[] = {0,
                          static_cast<T>(-1),
                          std::numeric_limits<T>::max(),
                          std::numeric_limits<T>::min(),
                          static_cast<T>(std::numeric_limits<T>::max() / 2),
                          64,
                          65,
                          1000};
      return bounds[Below(rng, std::size(bounds))];
    }
    case 5:
      return static_cast<T>(static_cast<Unsigned>(
          bits ^ (Unsigned{1} << Below(rng, sizeof(T) * 8))));
    default:
      return static_cast<T>((static_cast<std::uint64_t>(rng()) << 32) ^ rng());
  }
}

template <typename T>
T MutateFloating(T value, Rng& rng) {
  switch (rng() % 6) {
    case 0:
      return value + 1;
    case 1:
      return -value;
    case 2:
      return std::numeric_limits<T>::quiet_NaN();
    case 3:
      return std::numeric_limits<T>::infinity();
    case 4:
      return std::numeric_limits<T>::max();
    default:
      return static_cast<T>(static_cast<double>(rng()) / 1000.0);
  }
}

int MutateEnum(const FieldDescriptor* field, int value, Rng& rng) {
  const auto* type = field->enum_type();
  if (!OneIn(rng, 4))
    return type->value(Below(rng, type->value_count()))->number();
  // An open enum may hold any int (INT_MAX too): step without overflowing.
  const auto step = static_cast<unsigned>(1 + Below(rng, 100));
  return OneIn(rng, 2) ? static_cast<int>(static_cast<unsigned>(value) + step)
                       : static_cast<int>(rng());
}

// Edits the bytes of a string: a string field keeps printable ASCII (a
// proto3 string must be UTF-8, and other bytes are refused by the parser,
// which the byte-level fallback already tries).
std::string MutateString(std::string value, bool text, Rng& rng,
                         const std::vector<std::string>& pool) {
  const auto random_char = [&]() -> char {
    if (!text) return static_cast<char>(rng());
    static constexpr char kChars[] =
        "abcdefghijklmnopqrstuvwxyz0123456789-_. ABCXYZ\"\\\n";
    return kChars[Below(rng, sizeof(kChars) - 1)];
  };
  switch (rng() % 8) {
    case 0:
    case 1:
    case 2:
      if (!pool.empty()) return pool[Below(rng, pool.size())];
      return value;
    case 3:
      return "";
    case 4:
      if (!value.empty()) value[Below(rng, value.size())] = random_char();
      return value;
    case 5:
      if (value.size() < kMaxStringBytes) {
        value.insert(value.begin() + Below(rng, value.size() + 1),
                     random_char());
      }
      return value;
    case 6:
      if (!value.empty())
        value.erase(Below(rng, value.size()), 1 + Below(rng, 4));
      return value;
    default:
      if (value.size() * 2 <= kMaxStringBytes) value += value;
      return value;
  }
}

void MutateScalar(Message& message, const FieldDescriptor* field, Rng& rng,
                  const std::vector<std::string>& pool) {
  const Reflection* r = message.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(&message, field,
                  MutateInteger(r->GetInt32(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(&message, field,
                  MutateInteger(r->GetInt64(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(&message, field,
                   MutateInteger(r->GetUInt32(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(&message, field,
                   MutateInteger(r->GetUInt64(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(&message, field,
                   MutateFloating(r->GetDouble(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(&message, field,
                  MutateFloating(r->GetFloat(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(&message, field, !r->GetBool(message, field));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(&message, field,
                      MutateEnum(field, r->GetEnumValue(message, field), rng));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(&message, field,
                   MutateString(r->GetString(message, field),
                                field->type() == FieldDescriptor::TYPE_STRING,
                                rng, pool));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (r->HasField(message, field) && OneIn(rng, 2)) {
        r->ClearField(&message, field);
      } else {
        r->MutableMessage(&message, field);  // Sets it (and its oneof case).
      }
      break;
  }
}

// Changes element `index` of a repeated scalar field.
void MutateRepeatedScalar(Message& message, const FieldDescriptor* field,
                          int index, Rng& rng,
                          const std::vector<std::string>& pool) {
  const Reflection* r = message.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetRepeatedInt32(
          &message, field, index,
          MutateInteger(r->GetRepeatedInt32(message, field, index), rng));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetRepeatedInt64(
          &message, field, index,
          MutateInteger(r->GetRepeatedInt64(message, field, index), rng));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->SetRepeatedUInt32(
          &message, field, index,
          MutateInteger(r->GetRepeatedUInt32(message, field, index), rng));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetRepeatedUInt64(
          &message, field, index,
          MutateInteger(r->GetRepeatedUInt64(message, field, index), rng));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetRepeatedDouble(
          &message, field, index,
          MutateFloating(r->GetRepeatedDouble(message, field, index), rng));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetRepeatedFloat(
          &message, field, index,
          MutateFloating(r->GetRepeatedFloat(message, field, index), rng));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetRepeatedBool(&message, field, index,
                         !r->GetRepeatedBool(message, field, index));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->SetRepeatedEnumValue(
          &message, field, index,
          MutateEnum(field, r->GetRepeatedEnumValue(message, field, index),
                     rng));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetRepeatedString(
          &message, field, index,
          MutateString(r->GetRepeatedString(message, field, index),
                       field->type() == FieldDescriptor::TYPE_STRING, rng,
                       pool));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      break;  // Its fields are slots of their own.
  }
}

// Appends a default element to a repeated field.
void AddDefault(Message& message, const FieldDescriptor* field) {
  const Reflection* r = message.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r->AddInt32(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->AddInt64(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->AddUInt32(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->AddUInt64(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->AddDouble(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->AddFloat(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->AddBool(&message, field, false);
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->AddEnumValue(&message, field, 0);
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      r->AddString(&message, field, "");
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      r->AddMessage(&message, field);
      break;
  }
}

// Appends a copy of element `index` and moves it to a random place.
void DuplicateElement(Message& message, const FieldDescriptor* field, int index,
                      Rng& rng) {
  const Reflection* r = message.GetReflection();
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    std::unique_ptr<Message> copy(
        r->GetRepeatedMessage(message, field, index).New());
    copy->CopyFrom(r->GetRepeatedMessage(message, field, index));
    r->AddAllocatedMessage(&message, field, copy.release());
  } else {
    AddDefault(message, field);
    const int last = r->FieldSize(message, field) - 1;
    // Copy the scalar by swapping through the new slot after a set.
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        r->SetRepeatedString(&message, field, last,
                             r->GetRepeatedString(message, field, index));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        r->SetRepeatedEnumValue(&message, field, last,
                                r->GetRepeatedEnumValue(message, field, index));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->SetRepeatedUInt32(&message, field, last,
                             r->GetRepeatedUInt32(message, field, index));
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        r->SetRepeatedInt32(&message, field, last,
                            r->GetRepeatedInt32(message, field, index));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->SetRepeatedUInt64(&message, field, last,
                             r->GetRepeatedUInt64(message, field, index));
        break;
      default:
        break;
    }
  }
  const int last = r->FieldSize(message, field) - 1;
  r->SwapElements(
      &message, field, last,
      static_cast<int>(Below(rng, static_cast<std::size_t>(last) + 1)));
}

void MutateRepeated(Message& message, const FieldDescriptor* field, Rng& rng,
                    const std::vector<std::string>& pool) {
  const Reflection* r = message.GetReflection();
  const int n = r->FieldSize(message, field);
  const int op = n == 0 ? 0 : static_cast<int>(rng() % 5);
  const int index = static_cast<int>(Below(rng, static_cast<std::size_t>(n)));
  switch (op) {
    case 0:
      if (n < kMaxRepeated) AddDefault(message, field);
      break;
    case 1:  // Remove element `index`: move it last, then drop it.
      r->SwapElements(&message, field, index, n - 1);
      r->RemoveLast(&message, field);
      break;
    case 2:
      if (n < kMaxRepeated) DuplicateElement(message, field, index, rng);
      break;
    case 3:
      r->SwapElements(
          &message, field, index,
          static_cast<int>(Below(rng, static_cast<std::size_t>(n))));
      break;
    default:
      MutateRepeatedScalar(message, field, index, rng, pool);
      break;
  }
}

// Collects the messages of the tree whose type is `type`.
void CollectOfType(Message& message, const Descriptor* type, int depth,
                   std::vector<Message*>& found) {
  if (message.GetDescriptor() == type) found.push_back(&message);
  if (depth >= kMaxDepth) return;
  const Reflection* r = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int j = 0; j < r->FieldSize(message, field); ++j) {
        CollectOfType(*r->MutableRepeatedMessage(&message, field, j), type,
                      depth + 1, found);
      }
    } else {
      CollectOfType(*r->MutableMessage(&message, field), type, depth + 1,
                    found);
    }
  }
}

bool WriteBack(const Message& message, std::uint8_t* out, std::size_t max_size,
               std::size_t& size) {
  std::string bytes;
  if (!message.SerializeToString(&bytes) || bytes.size() > max_size) {
    return false;
  }
  std::memcpy(out, bytes.data(), bytes.size());
  size = bytes.size();
  return true;
}

}  // namespace

void MutateMessage(Message& message, Rng& rng) {
  std::vector<Slot> slots;
  CollectSlots(message, 0, slots);
  if (slots.empty()) return;
  std::vector<std::string> pool;
  CollectStrings(message, 0, pool);
  const Slot slot = slots[Below(rng, slots.size())];
  if (slot.field->is_repeated()) {
    MutateRepeated(*slot.message, slot.field, rng, pool);
  } else {
    MutateScalar(*slot.message, slot.field, rng, pool);
  }
}

void CrossOverMessages(const Message& from, Message& into, Rng& rng) {
  std::vector<Message*> donors;
  std::unique_ptr<Message> from_copy(from.New());
  from_copy->CopyFrom(from);
  std::vector<Slot> slots;
  CollectSlots(into, 0, slots);
  std::vector<Slot> message_slots;
  for (const Slot& s : slots) {
    if (s.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      message_slots.push_back(s);
    }
  }
  if (message_slots.empty()) return;
  const Slot slot = message_slots[Below(rng, message_slots.size())];
  CollectOfType(*from_copy, slot.field->message_type(), 0, donors);
  if (donors.empty()) return;
  const Message& donor = *donors[Below(rng, donors.size())];
  const Reflection* r = slot.message->GetReflection();
  if (slot.field->is_repeated()) {
    if (r->FieldSize(*slot.message, slot.field) >= kMaxRepeated) return;
    r->AddMessage(slot.message, slot.field)->CopyFrom(donor);
    const int last = r->FieldSize(*slot.message, slot.field) - 1;
    r->SwapElements(
        slot.message, slot.field, last,
        static_cast<int>(Below(rng, static_cast<std::size_t>(last) + 1)));
  } else {
    r->MutableMessage(slot.message, slot.field)->CopyFrom(donor);
  }
}

std::size_t MutateSerialized(const Message& prototype, std::uint8_t* data,
                             std::size_t size, std::size_t max_size,
                             unsigned int seed) {
  Rng rng(seed);
  std::unique_ptr<Message> message(prototype.New());
  if (OneIn(rng, 16) ||
      !message->ParseFromArray(data, static_cast<int>(size))) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  const int rounds = 1 + static_cast<int>(Below(rng, 3));
  for (int i = 0; i < rounds; ++i) MutateMessage(*message, rng);
  std::size_t new_size = 0;
  if (!WriteBack(*message, data, max_size, new_size)) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  return new_size;
}

std::size_t CrossOverSerialized(const Message& prototype,
                                const std::uint8_t* data1, std::size_t size1,
                                const std::uint8_t* data2, std::size_t size2,
                                std::uint8_t* out, std::size_t max_out_size,
                                unsigned int seed) {
  Rng rng(seed);
  std::unique_ptr<Message> into(prototype.New());
  std::unique_ptr<Message> from(prototype.New());
  if (!into->ParseFromArray(data1, static_cast<int>(size1)) ||
      !from->ParseFromArray(data2, static_cast<int>(size2))) {
    return 0;
  }
  CrossOverMessages(*from, *into, rng);
  std::size_t new_size = 0;
  return WriteBack(*into, out, max_out_size, new_size) ? new_size : 0;
}

}  // namespace gunbai::fuzz
