// gunbai verify --checkpoint (issue 34): an export checked offline against
// the checkpoints a player kept. anegawa-clean (19 events; turn 1 ends with
// the umpire's turn_end at seq 8) is exported, and checkpoints of its
// first 8 events (turn 1) and of all 19 (turn 2) are signed with a daemon
// key and cosigned by a player's key. Then the export is altered underneath
// as a dishonest store or operator would (one who also recomputes the chain
// of hashes, which this export does not even carry: only the checkpoints
// are checked here): each attack must be caught, naming the checkpoint it
// breaks and where the break lies.
#include "replay/checkpoint_check.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/ledger.h"
#include "replay/merkle.h"
#include "replay/signed_note.h"
#include "rules/digest.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::HasSubstr;

v1::ExportedGame Anegawa() {
  std::ifstream in(std::string(GUNBAI_TEST_DATA_DIR) +
                   "/anegawa-clean.textproto");
  std::stringstream text;
  text << in.rdbuf();
  v1::ExportedGame game;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      text.str(), game.mutable_log()));
  return game;
}

// The checkpoint of the first `size` events of `game`, signed by `signers`.
std::string Checkpoint(const v1::ExportedGame& game, std::uint64_t size,
                       const std::vector<NoteSigner>& signers) {
  MerkleTree tree;
  for (int i = 0; i < static_cast<int>(size); ++i) {
    tree.Append(MerkleLeafHash(base::DeterministicBytes(game.log().events(i))));
  }
  std::string note = *SignNote(
      CheckpointText("gunbaid.test/anegawa-clean", size, *tree.Root(size)),
      signers[0]);
  for (std::size_t s = 1; s < signers.size(); ++s) {
    note = *AddNoteSignature(note, signers[s]);
  }
  return note;
}

class CheckpointCheckTest : public ::testing::Test {
 protected:
  CheckpointCheckTest()
      : daemon_(*NewNoteSigner("gunbaid.test")),
        player_(*NewNoteSigner("oda.player")),
        honest_(Anegawa()) {
    kept_ = {{"turn1.note", Checkpoint(honest_, 8, {daemon_, player_})},
             {"turn2.note", Checkpoint(honest_, 19, {daemon_, player_})}};
  }

  std::vector<NoteVerifier> Keys(bool with_player = true) const {
    std::vector<NoteVerifier> keys = {
        *ParseVerifierKey(VerifierKeyText(daemon_))};
    if (with_player) {
      keys.push_back(*ParseVerifierKey(VerifierKeyText(player_)));
    }
    return keys;
  }

  CheckpointVerdict Check(const v1::ExportedGame& game) const {
    absl::StatusOr<CheckpointVerdict> v =
        VerifyCheckpoints(game, kept_, Keys());
    EXPECT_TRUE(v.ok()) << v.status();
    return v.value_or(CheckpointVerdict{false, "error"});
  }

  NoteSigner daemon_;
  NoteSigner player_;
  v1::ExportedGame honest_;
  std::vector<KeptCheckpoint> kept_;
};

TEST_F(CheckpointCheckTest, AnHonestExportHoldsBoth) {
  const CheckpointVerdict v = Check(honest_);
  EXPECT_TRUE(v.holds) << v.text;
  EXPECT_EQ(v.text,
            "2 checkpoints hold: the export's first 19 events are the ones "
            "signed");
}

TEST_F(CheckpointCheckTest, AChangedEventOfTurnOneBreaksItsCheckpoint) {
  v1::ExportedGame game = honest_;
  game.mutable_log()->mutable_events(4)->set_turn(1);      // Unchanged value...
  game.mutable_log()->mutable_events(4)->set_clan("oda");  // ...a new clan.
  const CheckpointVerdict v = Check(game);
  EXPECT_FALSE(v.holds);
  EXPECT_THAT(v.text, HasSubstr("the export's first 8 events are not those "
                                "the checkpoint turn1.note signs"));
  EXPECT_THAT(v.text, HasSubstr("from seq 1 to seq 8 (events 1 to 8)"));
}

TEST_F(CheckpointCheckTest, AChangedEventOfTurnTwoIsPlacedAfterTurnOne) {
  v1::ExportedGame game = honest_;
  game.mutable_log()->mutable_events(11)->set_clan("changed");
  const CheckpointVerdict v = Check(game);
  EXPECT_FALSE(v.holds);
  EXPECT_THAT(v.text, HasSubstr("turn2.note"));
  EXPECT_THAT(v.text, HasSubstr("from seq 9 to seq 19 (events 9 to 19)"));
  EXPECT_THAT(v.text, HasSubstr("the checkpoint turn1.note of 8 events "
                                "before it holds"));
}

TEST_F(CheckpointCheckTest, DroppedInsertedAndMovedEventsAreCaught) {
  v1::ExportedGame dropped = honest_;
  dropped.mutable_log()->mutable_events()->DeleteSubrange(2, 1);
  EXPECT_THAT(Check(dropped).text, HasSubstr("turn1.note"));
  // A copy of seq 3 slipped in after seq 10 (moved there from the end).
  v1::ExportedGame inserted = honest_;
  *inserted.mutable_log()->add_events() = honest_.log().events(2);
  for (int i = 19; i > 10; --i) {
    inserted.mutable_log()->mutable_events()->SwapElements(i, i - 1);
  }
  const CheckpointVerdict v = Check(inserted);
  EXPECT_FALSE(v.holds);
  EXPECT_THAT(v.text, HasSubstr("turn2.note"));
  v1::ExportedGame moved = honest_;
  moved.mutable_log()->mutable_events()->SwapElements(9, 10);
  EXPECT_THAT(Check(moved).text, HasSubstr("from seq 9 to seq 19"));
  EXPECT_FALSE(Check(dropped).holds);
  EXPECT_FALSE(Check(moved).holds);
}

TEST_F(CheckpointCheckTest, AGameCutShortIsCaught) {
  v1::ExportedGame game = honest_;
  game.mutable_log()->mutable_events()->DeleteSubrange(15, 4);
  const CheckpointVerdict v = Check(game);
  EXPECT_FALSE(v.holds);
  EXPECT_EQ(v.text,
            "the export has 15 events, but the checkpoint turn2.note signs "
            "19: events were removed from the game (the last it holds is "
            "seq 15)");
}

// A dishonest operator rewrites turn 2 and signs its own checkpoint of it
// with the daemon's key: against the daemon's key alone that passes (the
// daemon's word is all it is); the player's cosignature, which the operator
// cannot make, refuses it.
TEST_F(CheckpointCheckTest, ARewriteResignedByTheDaemonFailsThePlayersKey) {
  v1::ExportedGame game = honest_;
  game.mutable_log()->mutable_events(11)->set_clan("changed");
  std::vector<KeptCheckpoint> forged = {
      kept_[0], {"turn2.note", Checkpoint(game, 19, {daemon_})}};
  absl::StatusOr<CheckpointVerdict> daemon_only =
      VerifyCheckpoints(game, forged, Keys(/*with_player=*/false));
  ASSERT_TRUE(daemon_only.ok());
  EXPECT_TRUE(daemon_only->holds);
  absl::StatusOr<CheckpointVerdict> both =
      VerifyCheckpoints(game, forged, Keys());
  ASSERT_TRUE(both.ok());
  EXPECT_FALSE(both->holds);
  EXPECT_THAT(both->text, HasSubstr("the checkpoint turn2.note (19 events) "
                                    "does not open with the keys given"));
}

TEST_F(CheckpointCheckTest, AChangedNoteAndAnotherGamesNoteAreRefused) {
  std::vector<KeptCheckpoint> changed = kept_;
  const std::size_t at = changed[0].note.find("\n8\n");
  ASSERT_NE(at, std::string::npos);
  changed[0].note.replace(at, 3, "\n7\n");
  absl::StatusOr<CheckpointVerdict> v =
      VerifyCheckpoints(honest_, changed, Keys());
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->holds);
  EXPECT_THAT(v->text, HasSubstr("turn1.note (7 events) does not open"));
  v1::ExportedGame other = honest_;
  other.mutable_log()->mutable_header()->set_game_id("other");
  EXPECT_EQ(VerifyCheckpoints(other, kept_, Keys()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ParseCheckpointTextTest, RefusesWhatIsNotACheckpointSayingWhichLine) {
  EXPECT_TRUE(ParseCheckpointText(
                  "o/g\n8\nqwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n")
                  .ok());
  EXPECT_THAT(
      std::string(ParseCheckpointText("o/g\n08\nqw==\n").status().message()),
      HasSubstr("line 2"));
  EXPECT_THAT(
      std::string(ParseCheckpointText("o/g\n8\nqw==\n").status().message()),
      HasSubstr("line 3"));
  EXPECT_FALSE(ParseCheckpointText("o/g\n8\n").ok());
}

}  // namespace
}  // namespace gunbai::replay
