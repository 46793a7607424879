#include "service/cli/shard.h"

#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "rules/status_macros.h"
#include "service/cli/cli_input.h"

namespace gunbai::service {

namespace {

// Returns (I, N) of a --shard value, (0, 0) when it is not two numbers
// around a slash.
ShardChoice ParseShard(const std::string& value) {
  ShardChoice parsed;
  const std::size_t slash = value.find('/');
  if (slash == std::string::npos ||
      !absl::SimpleAtoi(value.substr(0, slash), &parsed.shard) ||
      !absl::SimpleAtoi(value.substr(slash + 1), &parsed.shards)) {
    return {};
  }
  return parsed;
}

// Returns what is wrong with a --shard value, empty when it is I/N with
// 0 <= I < N <= kMaxShards.
std::string ShardError(std::string& value) {
  const ShardChoice parsed = ParseShard(value);
  if (parsed.shards == 0 || parsed.shards > kMaxShards ||
      parsed.shard >= parsed.shards) {
    return absl::StrCat(
        "wants I/N, shard I of N counted from 0 (0 <= I < N <= ", kMaxShards,
        "), e.g. 0/4 ... 3/4; got \"", value, "\"");
  }
  return "";
}

}  // namespace

std::uint32_t ShardOf(absl::string_view name, std::uint32_t shards) {
  std::uint64_t hash = 0xcbf29ce484222325u;
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 0x100000001b3u;
  }
  return static_cast<std::uint32_t>(hash % shards);
}

bool InShard(absl::string_view name, const ShardChoice& choice) {
  return !choice.sharded() || ShardOf(name, choice.shards) == choice.shard;
}

CLI::Option* AddShardOption(CLI::App& command, ShardChoice& choice,
                            const std::string& description) {
  return command
      .add_option_function<std::string>(
          "--shard",
          [&choice](const std::string& value) { choice = ParseShard(value); },
          description)
      ->type_name("I/N")
      ->check(CLI::Validator(ShardError, ""));
}

absl::Status CheckPartsFit(const std::vector<PartHeader>& parts) {
  const PartHeader& first = parts.front();
  std::map<std::uint32_t, std::string> seen;
  for (const PartHeader& p : parts) {
    if (p.shards != first.shards || p.corpus_size != first.corpus_size ||
        p.run != first.run) {
      return absl::InvalidArgumentError(absl::StrCat(
          p.path, " is not of the same run as ", first.path, ": ", p.shards,
          " shards of ", p.corpus_size, " (", p.run, "), against ",
          first.shards, " of ", first.corpus_size, " (", first.run, ")"));
    }
    if (p.shard >= p.shards) {
      return absl::InvalidArgumentError(
          absl::StrCat(p.path, ": shard ", p.shard, " of ", p.shards,
                       " does not exist (shards are numbered from 0)"));
    }
    auto [it, added] = seen.emplace(p.shard, p.path);
    if (!added) {
      return absl::InvalidArgumentError(
          absl::StrCat(p.path, " and ", it->second, " are both shard ", p.shard,
                       " of ", p.shards, "; give each shard once"));
    }
  }
  std::vector<std::string> missing;
  std::uint64_t entries = 0;
  for (const PartHeader& p : parts) entries += p.entries;
  for (std::uint32_t shard = 0; shard < first.shards; ++shard) {
    if (!seen.contains(shard)) missing.push_back(absl::StrCat(shard));
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard", missing.size() == 1 ? " " : "s ", absl::StrJoin(missing, ", "),
        " of ", first.shards, " missing: give every part"));
  }
  if (entries != first.corpus_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("the parts hold ", entries,
                     " entries between them, not the ", first.corpus_size,
                     " of the corpus they say they split; was a part "
                     "cut short or edited?"));
  }
  return absl::OkStatus();
}

absl::Status PositionCheck::Fill(const std::string& path,
                                 std::uint64_t position) {
  const std::uint64_t total = filled_.size();
  if (position >= total || filled_[position]) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": entry ", position,
                     position >= total ? " is past the corpus's "
                                       : " is in two parts of the ",
                     total, " entries"));
  }
  filled_[position] = true;
  return absl::OkStatus();
}

absl::Status PositionCheck::Complete() const {
  for (std::uint64_t position = 0; position < filled_.size(); ++position) {
    if (!filled_[position]) {
      return absl::InvalidArgumentError(
          absl::StrCat("no part holds entry ", position, " of the ",
                       filled_.size(), "; was a part cut short?"));
    }
  }
  return absl::OkStatus();
}

absl::Status NotAPart(const std::string& path, absl::string_view command,
                      absl::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": not a part of a sharded ", command,
      " run (the output of `gunbai ", command, " --shard=I/N --format=json`)",
      detail.empty() ? "" : ": ", detail));
}

absl::Status ParsePartJson(const std::string& path, absl::string_view command,
                           google::protobuf::Message& part) {
  GUNBAI_ASSIGN_OR_RETURN(auto bytes, ReadInputFile(path));
  google::protobuf::util::JsonParseOptions options;
  auto s = google::protobuf::util::JsonStringToMessage(bytes, &part, options);
  if (!s.ok()) return NotAPart(path, command, std::string(s.message()));
  return absl::OkStatus();
}

absl::Status OtherPartFormat(const std::string& path, std::uint32_t format,
                             std::uint32_t supported) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": a part of format ", format,
      ", written by another gunbai release (this one merges format ", supported,
      "); write every part with the same release"));
}

}  // namespace gunbai::service
