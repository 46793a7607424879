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

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
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

// A split view: the daemon shows asai a history whose turn 2 differs from
// the one oda saw, and each cosigns what it was shown. No turn-2 note then
// carries both players' signatures: against every key, each player's copy
// fails, and neither history can pass for agreed.
TEST_F(CheckpointCheckTest, ASplitViewNeverGetsBothCosignatures) {
  const NoteSigner asai = *NewNoteSigner("asai.player");
  v1::ExportedGame shown_to_asai = honest_;
  shown_to_asai.mutable_log()->mutable_events(11)->set_clan("changed");
  const std::vector<KeptCheckpoint> odas = {
      {"turn2-oda.note", Checkpoint(honest_, 19, {daemon_, player_})}};
  const std::vector<KeptCheckpoint> asais = {
      {"turn2-asai.note", Checkpoint(shown_to_asai, 19, {daemon_, asai})}};
  std::vector<NoteVerifier> every_key = Keys();
  every_key.push_back(*ParseVerifierKey(VerifierKeyText(asai)));
  absl::StatusOr<CheckpointVerdict> oda_view =
      VerifyCheckpoints(honest_, odas, every_key);
  absl::StatusOr<CheckpointVerdict> asai_view =
      VerifyCheckpoints(shown_to_asai, asais, every_key);
  ASSERT_TRUE(oda_view.ok() && asai_view.ok());
  EXPECT_FALSE(oda_view->holds);
  EXPECT_THAT(oda_view->text, HasSubstr("no signature of asai.player"));
  EXPECT_FALSE(asai_view->holds);
  EXPECT_THAT(asai_view->text, HasSubstr("no signature of oda.player"));
}

// An honest game of 40 turns, a checkpoint at each turn's end (after the
// umpire's turn_end) cosigned by both players: every one holds.
TEST_F(CheckpointCheckTest, AnHonestFortyTurnGameHoldsEveryTurn) {
  generate::GeneratorOptions options;
  options.seed = 40;
  options.turns = 40;
  options.units_per_clan = 4;
  v1::ExportedGame game;
  *game.mutable_log() = generate::GenerateGame(options).log;
  game.mutable_log()->mutable_header()->set_game_id("anegawa-clean");
  std::vector<KeptCheckpoint> notes;
  const auto& events = game.log().events();
  for (int i = 0; i < events.size(); ++i) {
    if (events[i].has_turn_end() && events[i].clan().empty()) {
      notes.push_back({absl::StrCat("turn", events[i].turn(), ".note"),
                       Checkpoint(game, i + 1, {daemon_, player_})});
    }
  }
  ASSERT_EQ(notes.size(), 40u);
  absl::StatusOr<CheckpointVerdict> v = VerifyCheckpoints(game, notes, Keys());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->holds) << v->text;
  EXPECT_THAT(v->text, HasSubstr("40 checkpoints hold"));
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
