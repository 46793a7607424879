#ifndef GUNBAI_REPLAY_WIRE_TAG_H_
#define GUNBAI_REPLAY_WIRE_TAG_H_

#include <cstdint>

#include "google/protobuf/io/coded_stream.h"

namespace gunbai::replay {

// Reads the next field's tag the way protobuf's generated parsers do, for
// code that reads a message's bytes field by field and must accept exactly
// what a whole parse accepts. CodedInputStream::ReadTag is laxer: it takes
// a tag's varint of up to ten bytes (keeping the low 32 bits) and field
// number 0, both of which fail a parse. Returns 0 at the end of the bytes
// and for a tag a parse refuses; then ConsumedEntireMessage() tells the two
// apart (it is false for the refused tag).
inline std::uint32_t ReadParsedTag(
    google::protobuf::io::CodedInputStream& input) {
  const int before = input.CurrentPosition();
  const std::uint32_t tag = input.ReadTag();
  if (tag == 0) return 0;
  constexpr int kMaxTagBytes = 5;  // A 32-bit varint.
  if (input.CurrentPosition() - before > kMaxTagBytes || (tag >> 3) == 0) {
    return 0;
  }
  return tag;
}

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_WIRE_TAG_H_
