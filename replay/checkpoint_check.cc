#include "replay/checkpoint_check.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rules/digest.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;

struct Opened {
  const KeptCheckpoint* kept = nullptr;
  ParsedCheckpoint checkpoint;
  std::string problem;  // The signature does not hold.
};

}  // namespace

absl::StatusOr<ParsedCheckpoint> ParseCheckpointText(absl::string_view text) {
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // "a\nb\nc\n" splits into four, the last empty.
  if (lines.size() < 4 || !lines.back().empty()) {
    return absl::InvalidArgumentError(
        "a checkpoint's text is three lines (origin, tree size, base64 "
        "root hash), each ending in a newline");
  }
  ParsedCheckpoint out;
  out.origin = std::string(lines[0]);
  if (out.origin.empty()) {
    return absl::InvalidArgumentError(
        "the checkpoint's origin (line 1) is empty");
  }
  if (lines[1].empty() || (lines[1].size() > 1 && lines[1][0] == '0') ||
      !absl::SimpleAtoi(lines[1], &out.tree_size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "line 2 of the checkpoint, \"", lines[1],
        "\", is not a tree size (a decimal number without leading zeros)"));
  }
  std::string root;
  if (!absl::Base64Unescape(lines[2], &root) || root.size() != 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("line 3 of the checkpoint, \"", lines[2],
                     "\", is not the base64 of a 32-byte root hash"));
  }
  std::copy(root.begin(), root.end(), out.root.begin());
  return out;
}

absl::StatusOr<CheckpointVerdict> VerifyCheckpoints(
    const v1::ExportedGame& game, const std::vector<KeptCheckpoint>& kept,
    const std::vector<NoteVerifier>& keys) {
  const std::string& game_id = game.log().header().game_id();
  std::vector<Opened> opened;
  for (const KeptCheckpoint& k : kept) {
    Opened o;
    o.kept = &k;
    // The text is parsed whether or not it opens, to refuse a note of
    // another game as bad input rather than as tampering.
    const std::size_t blank = k.note.find("\n\n");
    if (blank == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.name,
                       ": not a signed note (no blank line before "
                       "the signatures)"));
    }
    absl::StatusOr<ParsedCheckpoint> parsed =
        ParseCheckpointText(absl::string_view(k.note).substr(0, blank + 1));
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.name, ": ", parsed.status().message()));
    }
    if (!absl::EndsWith(parsed->origin, absl::StrCat("/", game_id))) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.name, " is a checkpoint of \"", parsed->origin,
                       "\", not of this export's game \"", game_id, "\""));
    }
    o.checkpoint = *std::move(parsed);
    absl::StatusOr<std::string> text = OpenNote(k.note, keys);
    if (!text.ok()) o.problem = std::string(text.status().message());
    opened.push_back(std::move(o));
  }
  std::stable_sort(opened.begin(), opened.end(),
                   [](const Opened& a, const Opened& b) {
                     return a.checkpoint.tree_size < b.checkpoint.tree_size;
                   });
  MerkleTree tree;
  for (const v1::Event& e : game.log().events()) {
    tree.Append(MerkleLeafHash(base::DeterministicBytes(e)));
  }
  const auto& events = game.log().events();
  const auto seq_at = [&events](std::uint64_t index) {
    return events[static_cast<int>(index)].seq();
  };
  CheckpointVerdict verdict;
  std::uint64_t held = 0;  // The size of the last checkpoint that holds.
  std::string held_name;
  for (const Opened& o : opened) {
    const std::uint64_t size = o.checkpoint.tree_size;
    if (!o.problem.empty()) {
      verdict.holds = false;
      verdict.text = absl::StrCat(
          "the checkpoint ", o.kept->name, " (", size,
          " events) does not open with the keys given: ", o.problem,
          "; it was changed, or signed by another key");
      return verdict;
    }
    if (size > tree.size()) {
      verdict.holds = false;
      verdict.text = absl::StrCat(
          "the export has ", tree.size(), " events, but the checkpoint ",
          o.kept->name, " signs ", size,
          ": events were removed from the game (the last it holds is seq ",
          tree.size() == 0 ? 0 : seq_at(tree.size() - 1), ")");
      return verdict;
    }
    const MerkleHash root = *tree.Root(size);
    if (root != o.checkpoint.root && size == 0) {
      verdict.holds = false;
      verdict.text = absl::StrCat("the checkpoint ", o.kept->name,
                                  " signs 0 events but not the empty "
                                  "tree's root");
      return verdict;
    }
    if (root != o.checkpoint.root) {
      verdict.holds = false;
      verdict.text = absl::StrCat(
          "the export's first ", size, " events are not those the checkpoint ",
          o.kept->name, " signs (its root ", MerkleHex(o.checkpoint.root),
          ", the export's ", MerkleHex(root), "): an event from seq ",
          seq_at(held), " to seq ", seq_at(size - 1), " (events ", held + 1,
          " to ", size, ") was changed, dropped, inserted or moved",
          held == 0 ? std::string()
                    : absl::StrCat("; the checkpoint ", held_name, " of ", held,
                                   " events before it holds"));
      return verdict;
    }
    held = size;
    held_name = o.kept->name;
  }
  verdict.text =
      opened.empty()
          ? std::string("no checkpoint given")
          : absl::StrCat(
                opened.size(),
                opened.size() == 1 ? " checkpoint holds" : " checkpoints hold",
                ": the export's first ", held, " events are the ones signed");
  return verdict;
}

}  // namespace gunbai::replay
