// Deterministic shards of a corpus, for the commands that split their work
// across hosts (`gunbai diff`, `gunbai dice` and `gunbai generate` with
// --shard=I/N), and the checks a merge makes that the parts it is given are
// the N shards of one run, each once.
//
// A corpus entry falls in shard FNV-1a-64(name) mod N: the same on every
// machine, and an entry's shard does not depend on the other entries, so a
// shard is chosen without reading the corpus.
//
// Thread-safe: functions only.
#ifndef GUNBAI_SERVICE_CLI_SHARD_H_
#define GUNBAI_SERVICE_CLI_SHARD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace gunbai::service {

// The largest N of --shard=I/N.
inline constexpr std::uint32_t kMaxShards = 100000;

// --shard=I/N: shard I (from 0) of N; shards 0 means the whole corpus.
struct ShardChoice {
  std::uint32_t shard = 0;
  std::uint32_t shards = 0;
  bool sharded() const { return shards != 0; }
};

// Returns the shard of `shards` (at least 1) that the entry named `name`
// falls in: its FNV-1a 64-bit hash modulo `shards`.
std::uint32_t ShardOf(absl::string_view name, std::uint32_t shards);

// Returns true when `name` is in `choice`'s shard (always when unsharded).
bool InShard(absl::string_view name, const ShardChoice& choice);

// Adds --shard=I/N to `command`, into `choice`, with `description` as its
// help; a value that is not I/N with 0 <= I < N <= kMaxShards is refused
// by CLI11 with what it wants.
CLI::Option* AddShardOption(CLI::App& command, ShardChoice& choice,
                            const std::string& description);

// What a merge knows of one part before it reads the part's entries: the
// file it came from, its shard, and `run`, everything that must be equal in
// the parts of one run (the corpus size first, then whatever else the
// command compares, e.g. the rulesets of a diff), in words.
struct PartHeader {
  std::string path;
  std::uint32_t shard = 0;
  std::uint32_t shards = 0;
  std::uint64_t corpus_size = 0;
  std::string run;
  // How many of the corpus's entries the part holds.
  std::uint64_t entries = 0;
};

// Returns OK when `parts` (at least one) are the shards 0..N-1 of one run,
// each once; else InvalidArgument naming the file: a part of another run
// (another N, corpus size or `run`), a shard that does not exist, a shard
// twice, or the shards missing.
absl::Status CheckPartsFit(const std::vector<PartHeader>& parts);

// Returns InvalidArgument naming the file at `path`: not a part of a
// sharded `command` run, how one is written, and `detail` (the parser's
// words) when there is one.
absl::Status NotAPart(const std::string& path, absl::string_view command,
                      absl::string_view detail);

// Reads the JSON part at `path` into `part`. Returns ReadInputFile's error,
// or NotAPart when it is not JSON of `part`'s type.
absl::Status ParsePartJson(const std::string& path, absl::string_view command,
                           google::protobuf::Message& part);

// Returns InvalidArgument naming the file: a part of `format`, not the
// `supported` one this release merges.
absl::Status OtherPartFormat(const std::string& path, std::uint32_t format,
                             std::uint32_t supported);

// Returns the part (a DiffPart, a DicePart: a message with part_format and
// shards) of `gunbai command --shard=I/N --format=json` at `path`, of the
// part format `supported`. Returns InvalidArgument naming the file when it
// is not one (not JSON of the part, no part format or no shard count) or
// is of another format.
template <typename Part>
absl::StatusOr<Part> LoadPart(const std::string& path,
                              absl::string_view command,
                              std::uint32_t supported) {
  Part part;
  if (absl::Status s = ParsePartJson(path, command, part); !s.ok()) return s;
  if (part.part_format() == 0 || part.shards() == 0) {
    return NotAPart(path, command, "");
  }
  if (part.part_format() != supported) {
    return OtherPartFormat(path, part.part_format(), supported);
  }
  return part;
}

// Collects the entries of the parts by their place in the whole corpus and
// checks that every place from 0 to `corpus_size` - 1 is filled once.
class PositionCheck {
 public:
  explicit PositionCheck(std::uint64_t corpus_size)
      : filled_(corpus_size, false) {}

  // Notes that the part read from `path` holds the entry at `position`.
  // Returns InvalidArgument naming the file when it is past the corpus or
  // held by another part already.
  absl::Status Fill(const std::string& path, std::uint64_t position);

  // Returns InvalidArgument naming the first place no part filled (a part
  // cut short), OK when all are.
  absl::Status Complete() const;

 private:
  std::vector<bool> filled_;
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_CLI_SHARD_H_
