// What parsing a message would cost in memory, read off its wire bytes
// without building anything: for gunbaid to refuse, before it parses a
// request, one whose parsed form would be many times its own size (a list
// naming one unit a million times is 2 bytes an entry on the wire and a
// pointer and a 32-byte std::string parsed). Thread-safe: a model is only
// read once built.
#ifndef GUNBAI_REPLAY_PARSE_COST_H_
#define GUNBAI_REPLAY_PARSE_COST_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream.h"

namespace gunbai::replay {

// The estimate for one message's bytes.
struct ParseCost {
  // About what the parsed message takes on the heap: each object, string
  // and repeated field with an allocator's overhead and a growing repeated
  // field's spare room (protobuf's own SpaceUsedLong, which counts neither,
  // is never more; tests/replay/parse_cost_test.cc checks both bounds).
  std::int64_t bytes = 0;
  // The repeated field holding the most entries in any one message, as a
  // path ("log.events[3].morale_test.facts.friends_routing_near", events
  // counted from 0), and how many; empty and 0 when there is none.
  std::string longest_list;
  std::int64_t longest_list_entries = 0;
  // False when the bytes stopped parsing before their end (the estimate is
  // then of what came before); the parse itself says why.
  bool complete = true;
};

// The sizes a parse of one message type allocates, from its generated
// classes. Build one per request type, once (they are immutable).
class ParseCostModel {
 public:
  // `type` must be a generated message type (its prototype is measured).
  explicit ParseCostModel(const google::protobuf::Descriptor& type);

  // Walks `input` as a parse of the model's type would (to protobuf's
  // recursion limit) and estimates its cost. `root_name` starts the path of
  // the longest list ("request").
  ParseCost Estimate(google::protobuf::io::ZeroCopyInputStream& input,
                     const std::string& root_name) const;

  // The most any wire byte of this type can cost parsed: a request of
  // `n` bytes costs at most n times this, so that one small enough need not
  // be walked.
  std::int64_t MaxBytesPerWireByte() const { return max_per_wire_byte_; }

 private:
  void Measure(const google::protobuf::Descriptor& type);

  const google::protobuf::Descriptor& root_;
  // sizeof each generated class reachable from the root.
  absl::flat_hash_map<const google::protobuf::Descriptor*, std::int64_t>
      object_bytes_;
  std::int64_t max_per_wire_byte_ = 0;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_PARSE_COST_H_
