// Signed notes and checkpoints (replay/signed_note.h) against what is not
// gunbai: the example note Go's golang.org/x/mod/sumdb/note documents (its
// verifier key and signature, also checked with python3-cryptography), and
// a round trip with every byte of a signed note's text changed once.
#include "replay/signed_note.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gunbai::replay {
namespace {

using ::testing::HasSubstr;

constexpr char kGoVerifier[] =
    "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
constexpr char kGoNote[] =
    "This is an example message.\n\n\xE2\x80\x94 example.com/foo "
    "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRK"
    "uwHjG1Yu72IneyaQM=\n";

TEST(SignedNoteTest, GosPublishedExampleOpens) {
  absl::StatusOr<NoteVerifier> v = ParseVerifierKey(kGoVerifier);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->name, "example.com/foo");
  EXPECT_EQ(v->key_id, 0x530d903au);
  absl::StatusOr<std::string> text = OpenNote(kGoNote, {*v});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "This is an example message.\n");
  std::string changed = kGoNote;
  changed[0] = 't';
  EXPECT_FALSE(OpenNote(changed, {*v}).ok());
}

TEST(SignedNoteTest, SignedCheckpointsOpenAndAnyChangeIsRefused) {
  absl::StatusOr<NoteSigner> daemon = NewNoteSigner("gunbaid.test/game-1");
  absl::StatusOr<NoteSigner> player = NewNoteSigner("oda.player");
  ASSERT_TRUE(daemon.ok() && player.ok());
  MerkleHash root{};
  root[0] = 0xab;
  const std::string text = CheckpointText("gunbaid.test/game-1", 19, root);
  EXPECT_EQ(text,
            "gunbaid.test/game-1\n19\n"
            "qwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
  absl::StatusOr<std::string> note = SignNote(text, *daemon);
  ASSERT_TRUE(note.ok()) << note.status();
  absl::StatusOr<std::string> cosigned = AddNoteSignature(*note, *player);
  ASSERT_TRUE(cosigned.ok()) << cosigned.status();
  const NoteVerifier dv = *ParseVerifierKey(VerifierKeyText(*daemon));
  const NoteVerifier pv = *ParseVerifierKey(VerifierKeyText(*player));
  EXPECT_EQ(*OpenNote(*cosigned, {dv, pv}), text);
  // Only the daemon's signature: the player's is required and missing.
  EXPECT_THAT(std::string(OpenNote(*note, {dv, pv}).status().message()),
              HasSubstr("no signature of oda.player"));
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    std::string changed = *cosigned;
    changed[i] = changed[i] == '1' ? '2' : '1';
    EXPECT_FALSE(OpenNote(changed, {dv}).ok()) << "byte " << i;
  }
  // Keys whose base64 holds a '+' (about half of them) read back too: 40
  // new keys, each written and read as a key file and a verifier key.
  for (int i = 0; i < 40; ++i) {
    const NoteSigner k = *NewNoteSigner("k");
    EXPECT_EQ(ParseSignerKey(SignerKeyText(k))->public_key, k.public_key)
        << SignerKeyText(k);
    EXPECT_EQ(ParseVerifierKey(VerifierKeyText(k))->public_key, k.public_key)
        << VerifierKeyText(k);
  }
  // The key file round trip keeps the key.
  absl::StatusOr<NoteSigner> read = ParseSignerKey(SignerKeyText(*daemon));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->public_key, daemon->public_key);
  EXPECT_FALSE(NewNoteSigner("has space").ok());
  EXPECT_FALSE(ParseVerifierKey("example.com/foo+530d903b+AekyeRrm56hApGFkyQR4"
                                "ZCbV54Id2LKaANYcrnKv3U2k")
                   .ok());
}

}  // namespace
}  // namespace gunbai::replay
