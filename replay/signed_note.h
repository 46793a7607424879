// Signed notes and checkpoints in the C2SP formats transparency logs and
// their witnesses use (c2sp.org/signed-note, c2sp.org/tlog-checkpoint),
// with Ed25519 keys (OpenSSL 3): a note is UTF-8 text ending in a newline,
// a blank line, then one line a signature, "— NAME BASE64(key id || sig)".
// The key id is the first 4 bytes of SHA-256(name || 0x0A || 0x01 ||
// public key); a verifier key, the text a signer shares, is
// "NAME+HEX(key id)+BASE64(0x01 || public key)". A checkpoint is the note
// whose text is the log's origin line, its tree size and its root hash in
// base64, one a line. gunbaid will sign a game's checkpoint at each turn's
// end and the players cosign it (issue 34). Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_SIGNED_NOTE_H_
#define GUNBAI_REPLAY_SIGNED_NOTE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "replay/merkle.h"

namespace gunbai::replay {

// An Ed25519 key for notes: its name, and the 32-byte seed (private) or
// public key.
struct NoteSigner {
  std::string name;
  std::array<std::uint8_t, 32> seed{};
  std::array<std::uint8_t, 32> public_key{};
};
struct NoteVerifier {
  std::string name;
  std::uint32_t key_id = 0;
  std::array<std::uint8_t, 32> public_key{};
};

// A new key named `name` (no spaces, no '+', not empty), its seed drawn
// from OpenSSL's random generator.
absl::StatusOr<NoteSigner> NewNoteSigner(absl::string_view name);
// The private key file's text: "PRIVATE+KEY+NAME+HEX(id)+BASE64(0x01 ||
// seed)", as Go's sumdb/note writes it; and back.
std::string SignerKeyText(const NoteSigner& signer);
absl::StatusOr<NoteSigner> ParseSignerKey(absl::string_view text);

std::uint32_t NoteKeyId(absl::string_view name,
                        const std::array<std::uint8_t, 32>& public_key);
// "NAME+HEX(id)+BASE64(0x01 || public key)", and back.
std::string VerifierKeyText(const NoteSigner& signer);
absl::StatusOr<NoteVerifier> ParseVerifierKey(absl::string_view text);

// Signs `text` (non-empty, ending in '\n', no blank line) and returns the
// note: the text, a blank line and the signature line.
absl::StatusOr<std::string> SignNote(absl::string_view text,
                                     const NoteSigner& signer);
// Adds the signature line of `signer` to `note` (a cosignature).
absl::StatusOr<std::string> AddNoteSignature(absl::string_view note,
                                             const NoteSigner& signer);

// Opens `note`: returns its text when a signature line of every key in
// `required` verifies over it. A line of a key not in `required` is
// ignored; a line of a required key that does not verify refuses the note.
absl::StatusOr<std::string> OpenNote(absl::string_view note,
                                     const std::vector<NoteVerifier>& required);

// Returns the signature line of `signer` in `note` ("— NAME BASE64\n"),
// when it verifies; the errors of OpenNote otherwise. A cosignature is
// kept as this line, and added back after the signer's own.
absl::StatusOr<std::string> SignatureLineOf(absl::string_view note,
                                            const NoteVerifier& signer);

// The text of a checkpoint: "ORIGIN\nSIZE\nBASE64(root)\n".
std::string CheckpointText(absl::string_view origin, std::uint64_t tree_size,
                           const MerkleHash& root);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_SIGNED_NOTE_H_
