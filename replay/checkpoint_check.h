// An exported live game checked against the signed checkpoints a player
// kept (`gunbai verify GAME --checkpoint NOTE --daemon-key KEY`), offline:
// each note must open with the keys given, name the export's game, and
// sign the Merkle root of the export's first SIZE events (each leaf an
// event's deterministic bytes, as gunbaid's tree: replay/merkle.h). An
// export edited after a checkpoint was signed (an event changed, dropped,
// inserted or moved, or the game cut short) no longer has that root, even
// when its chain of hashes was recomputed: the check names the checkpoint
// it breaks and the events between the last checkpoint that holds and it.
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_CHECKPOINT_CHECK_H_
#define GUNBAI_REPLAY_CHECKPOINT_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/merkle.h"
#include "replay/signed_note.h"

namespace gunbai::replay {

// The three lines of a checkpoint's text (c2sp.org/tlog-checkpoint).
struct ParsedCheckpoint {
  std::string origin;
  std::uint64_t tree_size = 0;
  MerkleHash root{};
};

// Parses "ORIGIN\nSIZE\nBASE64(root)\n" (further lines, extensions, are
// allowed and ignored). InvalidArgument, saying which line, otherwise.
absl::StatusOr<ParsedCheckpoint> ParseCheckpointText(absl::string_view text);

// A note as kept: where it came from (a file name), and its bytes.
struct KeptCheckpoint {
  std::string name;
  std::string note;
};

struct CheckpointVerdict {
  bool holds = true;
  // When it holds, a summary; else the first problem, in words.
  std::string text;
};

// Checks `game` against `kept`, in the order of their sizes. Each note must
// carry a valid signature of every key in `keys` (a changed note, or one
// another key signed, does not hold). Returns InvalidArgument when a note
// is not a checkpoint or is of another game (its origin does not end in
// "/" and the export's game id): nothing to check it against.
absl::StatusOr<CheckpointVerdict> VerifyCheckpoints(
    const gunbai::v1::ExportedGame& game,
    const std::vector<KeptCheckpoint>& kept,
    const std::vector<NoteVerifier>& keys);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_CHECKPOINT_CHECK_H_
