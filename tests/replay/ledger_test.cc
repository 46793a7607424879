// The tamper-evident ledger (chain hashes) and server dice: a chain finds the
// first edited, dropped, inserted or moved event; server dice are
// deterministic, fair, rolled in the canonical order and counts, and
// verifiable once the secret is revealed. Known answers were computed
// independently with Python's hmac and hashlib.
#include "replay/ledger.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"
#include "replay/server_dice.h"
#include "replay/verify_export.h"
#include "rules/battle_state.h"
#include "rules/daimyo/engine.h"
#include "rules/digest.h"
#include "rules/engine.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::gunbai::replay::ChainBreak;
using ::gunbai::v1::Event;
using ::gunbai::v1::ExportedGame;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

Event ParseEvent(absl::string_view text) {
  Event event;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(std::string(text), &event))
      << text;
  return event;
}

// Sets the chain hashes of `game` as gunbaid would have stored them.
void Rechain(ExportedGame& game) {
  game.clear_chain_hashes();
  std::string previous = replay::GenesisHash();
  for (const Event& event : game.log().events()) {
    previous = replay::ChainHash(previous, event);
    game.add_chain_hashes(previous);
  }
}

// Five events of one turn, chained.
ExportedGame ChainedGame() {
  ExportedGame game;
  auto* events = game.mutable_log()->mutable_events();
  *events->Add() = ParseEvent(R"pb(seq: 1
                                   turn: 1
                                   turn_start { initiative_clan: "red" })pb");
  *events->Add() = ParseEvent(R"pb(seq: 2
                                   turn: 1
                                   clan: "red"
                                   activation {})pb");
  *events->Add() = ParseEvent(R"pb(
    seq: 3
    turn: 1
    clan: "red"
    firing {
      unit: "red-ash"
      target: "blue-sam"
      stands_firing: 2
      dice: [ 6, 5, 2, 1 ]
    }
  )pb");
  *events->Add() = ParseEvent(R"pb(
    seq: 4
    turn: 1
    clan: "blue"
    morale_test {
      unit: "blue-sam"
      dice: [ 3, 4 ]
    }
  )pb");
  *events->Add() = ParseEvent(R"pb(seq: 5
                                   turn: 1
                                   turn_end {})pb");
  Rechain(game);
  return game;
}

TEST(LedgerTest, GenesisIsSixtyFourZeros) {
  EXPECT_EQ(replay::GenesisHash(), std::string(64, '0'));
}

TEST(LedgerTest, ChainHashIsSha256OfPreviousBytesThenEventBytes) {
  const Event event = ParseEvent(R"pb(seq: 2
                                      turn: 1
                                      turn_end {})pb");
  const std::string previous(64, 'a');
  EXPECT_EQ(replay::ChainHash(previous, event),
            base::Sha256Hex(absl::HexStringToBytes(previous) +
                            base::DeterministicBytes(event)));
  EXPECT_THAT(replay::ChainHash(previous, event), SizeIs(64));
  EXPECT_NE(replay::ChainHash(previous, event),
            replay::ChainHash(replay::GenesisHash(), event));
}

TEST(LedgerTest, ChainHashRefusesAPreviousThatIsNotAHash) {
  const Event event = ParseEvent(R"pb(seq: 1
                                      turn_end {})pb");
  EXPECT_EQ(replay::ChainHash("00", event), "");
  EXPECT_EQ(replay::ChainHash(std::string(64, 'g'), event), "");
}

TEST(LedgerTest, IntactChainVerifies) {
  EXPECT_EQ(replay::VerifyChain(ChainedGame()), std::nullopt);
}

TEST(LedgerTest, EmptyGameVerifies) {
  EXPECT_EQ(replay::VerifyChain(ExportedGame()), std::nullopt);
}

TEST(LedgerTest, UppercaseHashesVerify) {
  ExportedGame game = ChainedGame();
  for (std::string& hash : *game.mutable_chain_hashes()) {
    for (char& c : hash) c = static_cast<char>(std::toupper(c));
  }
  EXPECT_EQ(replay::VerifyChain(game), std::nullopt);
}

TEST(LedgerTest, EditedDieIsFoundAtItsEvent) {
  ExportedGame game = ChainedGame();
  game.mutable_log()->mutable_events(2)->mutable_firing()->set_dice(1, 6);
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 2);
  EXPECT_EQ(broken->seq, 3u);
  EXPECT_EQ(broken->reason,
            "event at index 2 (seq 3) does not match its chain hash: it was "
            "edited, or an event before it was dropped, inserted or moved");
}

TEST(LedgerTest, DroppedEventIsFoundWhereItWas) {
  ExportedGame game = ChainedGame();
  auto* events = game.mutable_log()->mutable_events();
  events->erase(events->begin() + 1);
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 1);
  EXPECT_EQ(broken->seq, 3u);
}

TEST(LedgerTest, DroppedLastEventIsACountMismatch) {
  ExportedGame game = ChainedGame();
  game.mutable_log()->mutable_events()->RemoveLast();
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 4);
  EXPECT_EQ(broken->seq, 0u);
  EXPECT_THAT(broken->reason, HasSubstr("4 events and 5 chain hashes"));
}

TEST(LedgerTest, InsertedEventIsFoundWhereItWasPut) {
  ExportedGame game = ChainedGame();
  auto* events = game.mutable_log()->mutable_events();
  events->Add(ParseEvent(R"pb(seq: 3
                              turn: 1
                              clan: "red"
                              activation {})pb"));
  // Move the new event from the end to index 2.
  for (int i = events->size() - 1; i > 2; --i) events->SwapElements(i, i - 1);
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 2);
  EXPECT_EQ(broken->seq, 3u);
  EXPECT_THAT(broken->reason, HasSubstr("does not match its chain hash"));
}

TEST(LedgerTest, EventAppendedWithoutAHashIsFound) {
  ExportedGame game = ChainedGame();
  game.mutable_log()->mutable_events()->Add(
      ParseEvent(R"pb(seq: 6
                      turn: 2
                      turn_start {})pb"));
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 5);
  EXPECT_EQ(broken->seq, 6u);
  EXPECT_THAT(broken->reason, HasSubstr("has no chain hash"));
}

TEST(LedgerTest, ReorderedEventsAreFoundAtTheFirstMoved) {
  ExportedGame game = ChainedGame();
  game.mutable_log()->mutable_events()->SwapElements(2, 3);
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 2);
  EXPECT_EQ(broken->seq, 4u);
}

TEST(LedgerTest, SeqEditedBackwardsIsReportedOutOfOrder) {
  ExportedGame game = ChainedGame();
  game.mutable_log()->mutable_events(2)->set_seq(1);
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 2);
  EXPECT_EQ(broken->seq, 1u);
  EXPECT_THAT(broken->reason, HasSubstr("does not match its chain hash"));
  EXPECT_THAT(broken->reason,
              HasSubstr("its seq does not follow seq 2 of the event before it, "
                        "so events are out of order"));
}

TEST(LedgerTest, OutOfOrderChainComputedInThatOrderIsFound) {
  ExportedGame game = ChainedGame();
  game.mutable_log()->mutable_events()->SwapElements(2, 3);
  Rechain(game);
  std::optional<ChainBreak> broken = replay::VerifyChain(game);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 3);
  EXPECT_EQ(broken->seq, 3u);
  EXPECT_THAT(broken->reason,
              HasSubstr("does not follow seq 4 of the event before it"));
}

// Chain version 2 chains from the game's terms. For header {game_id: "g"},
// no order of battle, settings {chain_version: 2} and no commitment the
// bytes are "gunbai chain v2", then 3 (8 bytes) 0a 01 67, 0, 2 (8 bytes)
// 20 02, 0: SHA-256 by Python (hashlib) 914bb369...dd80. Version 0 chains
// from zeros, and a revealed secret is no part of the terms.
// Regression (issue 11): verify said ok for an event after game_end whose
// chain hash was recomputed; gunbaid stores nothing after the end.
TEST(LedgerTest, EventAfterGameEndIsOneGunbaidWouldNotStore) {
  ExportedGame game = ChainedGame();
  EXPECT_EQ(replay::VerifyStorable(game, nullptr), std::nullopt);
  *game.mutable_log()->add_events() = ParseEvent(R"pb(seq: 6
                                                      turn: 1
                                                      game_end {})pb");
  Rechain(game);
  EXPECT_EQ(replay::VerifyStorable(game, nullptr), std::nullopt);
  *game.mutable_log()->add_events() =
      ParseEvent(R"pb(seq: 7
                      turn: 2
                      turn_start { initiative_clan: "red" })pb");
  Rechain(game);
  ASSERT_EQ(replay::VerifyChain(game), std::nullopt);
  const std::optional<ChainBreak> after = replay::VerifyStorable(game, nullptr);
  ASSERT_NE(after, std::nullopt);
  EXPECT_EQ(after->index, 6);
  EXPECT_EQ(after->seq, 7u);
  EXPECT_THAT(after->reason, HasSubstr("comes after game_end (seq 6)"));
}

TEST(LedgerTest, GameGenesisHashesTheTermsFromVersion2) {
  v1::Header header;
  header.set_game_id("g");
  v1::GameSettings settings;
  v1::DiceCommitment dice;
  EXPECT_EQ(replay::GameGenesis(header, {}, settings, dice, {}),
            replay::GenesisHash());
  settings.set_chain_version(2);
  EXPECT_EQ(replay::GameGenesis(header, {}, settings, dice, {}),
            "914bb369fffbbc3e7cc8a5a5dd293b8f5c364f49067a9ef6309d6d3dff23dd80");
  dice.set_revealed_secret("abcd");
  EXPECT_EQ(replay::GameGenesis(header, {}, settings, dice, {}),
            "914bb369fffbbc3e7cc8a5a5dd293b8f5c364f49067a9ef6309d6d3dff23dd80");
  header.set_game_id("h");
  EXPECT_NE(replay::GameGenesis(header, {}, settings, dice, {}),
            "914bb369fffbbc3e7cc8a5a5dd293b8f5c364f49067a9ef6309d6d3dff23dd80");
}

// A game on a table commits to its table and terrain too; a game without
// one hashes as before tables (the value above, worked before they came).
TEST(LedgerTest, GameGenesisCommitsToTheTableOfAGameWithPositions) {
  v1::Header header;
  header.set_game_id("g");
  v1::GameSettings settings;
  settings.set_chain_version(2);
  v1::DiceCommitment dice;
  v1::BattleLog log;
  EXPECT_EQ(
      replay::GameGenesis(header, {}, settings, dice, replay::FieldOf(log)),
      "914bb369fffbbc3e7cc8a5a5dd293b8f5c364f49067a9ef6309d6d3dff23dd80");
  log.mutable_table()->set_width_mm(1800);
  log.mutable_table()->set_depth_mm(1200);
  const std::string with_table =
      replay::GameGenesis(header, {}, settings, dice, replay::FieldOf(log));
  EXPECT_NE(with_table,
            "914bb369fffbbc3e7cc8a5a5dd293b8f5c364f49067a9ef6309d6d3dff23dd80");
  v1::TerrainFeature* wood = log.add_terrain();
  wood->set_id("wood");
  wood->set_kind(v1::TERRAIN_KIND_WOODS);
  EXPECT_NE(
      replay::GameGenesis(header, {}, settings, dice, replay::FieldOf(log)),
      with_table);
  // Events are not part of the field.
  log.add_events()->set_seq(1);
  EXPECT_EQ(replay::FieldOf(log).events_size(), 0);
}

TEST(LedgerTest, HexToBytesDecodesEitherCaseAndRefusesOthers) {
  EXPECT_EQ(replay::HexToBytes("00ffAb"), std::string("\x00\xff\xab", 3));
  EXPECT_EQ(replay::HexToBytes(""), std::string());
  EXPECT_EQ(replay::HexToBytes("abc"), std::nullopt);
  EXPECT_EQ(replay::HexToBytes("zz"), std::nullopt);
}

// The seeds and secret of the server-dice tests.
google::protobuf::RepeatedPtrField<v1::PlayerSeed> Seeds() {
  google::protobuf::RepeatedPtrField<v1::PlayerSeed> seeds;
  v1::PlayerSeed* red = seeds.Add();
  red->set_clan("red");
  red->set_seed_hex("cafe");
  v1::PlayerSeed* blue = seeds.Add();
  blue->set_clan("blue");
  blue->set_seed_hex("beef01");
  return seeds;
}

const std::string& Secret() {
  static const std::string* const secret = new std::string(
      absl::HexStringToBytes("00112233445566778899aabbccddeeff"));
  return *secret;
}

std::string Key() { return replay::DiceKey(Secret(), Seeds()); }

TEST(ServerDiceTest, DiceKeyIsSha256OfSecretThenSeeds) {
  // sha256(secret || "red" 00 ca fe || "blue" 00 be ef 01), by Python.
  EXPECT_EQ(absl::BytesToHexString(Key()),
            "7314d031dae5d32f00fad8683711a1493817ba93cf3975e71404a5b04288e77b");
}

TEST(ServerDiceTest, DiceKeyDependsOnSeedOrderAndRefusesNonHex) {
  google::protobuf::RepeatedPtrField<v1::PlayerSeed> seeds = Seeds();
  seeds.SwapElements(0, 1);
  EXPECT_NE(replay::DiceKey(Secret(), seeds), Key());
  seeds.Mutable(0)->set_seed_hex("not hex");
  EXPECT_EQ(replay::DiceKey(Secret(), seeds), "");
}

TEST(ServerDiceTest, DieFromByteSkipsTheBiasedTail) {
  EXPECT_EQ(replay::DieFromByte(0), 1u);
  EXPECT_EQ(replay::DieFromByte(5), 6u);
  EXPECT_EQ(replay::DieFromByte(6), 1u);
  EXPECT_EQ(replay::DieFromByte(251), 6u);  // 251 % 6 + 1.
  EXPECT_EQ(replay::DieFromByte(252), std::nullopt);
  EXPECT_EQ(replay::DieFromByte(255), std::nullopt);
  // Bytes 0-251 give each face exactly 42 times.
  std::array<int, 7> faces{};
  for (int b = 0; b < 256; ++b) {
    if (std::optional<uint32_t> die = replay::DieFromByte(b)) ++faces[*die];
  }
  EXPECT_THAT(faces, ElementsAre(0, 42, 42, 42, 42, 42, 42));
}

std::vector<uint32_t> DiceOf(absl::string_view key, absl::string_view game,
                             uint64_t seq, int count) {
  std::vector<uint32_t> dice;
  for (int i = 0; i < count; ++i) {
    dice.push_back(replay::DeriveDie(key, game, /*attempt=*/1, seq, i));
  }
  return dice;
}

TEST(ServerDiceTest, DeriveDieMatchesAnIndependentImplementation) {
  // HMAC-SHA256(key, "game-1" 00 || attempt 1 || seq 7 || index ||
  // counter 0), first byte below 252, by Python's hmac module.
  EXPECT_THAT(DiceOf(Key(), "game-1", 7, 10),
              ElementsAre(1, 6, 2, 2, 1, 2, 4, 2, 6, 2));
}

TEST(ServerDiceTest, DeriveDieIsDeterministicAndDependsOnEveryInput) {
  const std::vector<uint32_t> dice = DiceOf(Key(), "game-1", 7, 32);
  EXPECT_EQ(DiceOf(Key(), "game-1", 7, 32), dice);
  // 32 dice agree by chance with probability 6^-32.
  EXPECT_NE(DiceOf(Key(), "game-1", 8, 32), dice);
  EXPECT_NE(DiceOf(Key(), "game-2", 7, 32), dice);
  EXPECT_NE(DiceOf(std::string(32, 'k'), "game-1", 7, 32), dice);
  std::vector<uint32_t> shifted;  // Die index 1 onwards.
  for (int i = 1; i <= 32; ++i) {
    shifted.push_back(replay::DeriveDie(Key(), "game-1", 1, 7, i));
  }
  EXPECT_NE(shifted, dice);
  std::vector<uint32_t> next_attempt;  // A new roll attempt, same event.
  for (int i = 0; i < 32; ++i) {
    next_attempt.push_back(replay::DeriveDie(Key(), "game-1", 2, 7, i));
  }
  EXPECT_NE(next_attempt, dice);
}

TEST(ServerDiceTest, DiceAreFairByChiSquare) {
  // 60,000 dice: 6 per event over seqs 1-10,000. A fair die expects 10,000
  // of each face; chi-square = sum over faces of (observed - 10,000)^2 /
  // 10,000 has 5 degrees of freedom (mean 5). For 5 degrees of freedom
  // P(chi-square > x) = erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2) (1 + x/3),
  // which at x = 30 is about 1.5e-5 (the 0.1% point is 20.5): a fair source
  // fails this bound almost never, while one that favours a face by 1% (100
  // in 10,000) adds about 6 per such face. The dice are deterministic, so
  // this passes or fails for good; Python computes 5.11 for them
  // (attempt 1; faces 10165, 9906, 10054, 10007, 9893, 9975).
  std::array<int, 7> faces{};
  for (uint64_t seq = 1; seq <= 10000; ++seq) {
    for (uint32_t index = 0; index < 6; ++index) {
      const uint32_t die = replay::DeriveDie(Key(), "chi", 1, seq, index);
      ASSERT_GE(die, 1u);
      ASSERT_LE(die, 6u);
      ++faces[die];
    }
  }
  double chi_square = 0;
  for (int face = 1; face <= 6; ++face) {
    const double diff = faces[face] - 10000.0;
    chi_square += diff * diff / 10000.0;
  }
  EXPECT_LT(chi_square, 30.0);
  EXPECT_NEAR(chi_square, 5.11, 1e-3);
}

// A roll-off of two parties with offsets 3 and 2 (a Daimyo duel between
// leaders of command rating 3 and 2).
rules::ServerDicePlan::RollOff Duel(int a, int b, int max_groups) {
  rules::ServerDicePlan::RollOff plan;
  plan.group = 2;
  plan.offsets = {a, b};
  plan.max_groups = max_groups;
  return plan;
}

TEST(ServerDiceTest, RollOffRollsGroupsUntilTheTotalsDiffer) {
  // Offsets 3 and 2: 2+3 = 3+2 ties, 4+3 = 7 beats 1+2 = 3.
  const std::vector<uint32_t> script = {2, 3, 4, 1, 6, 6};
  std::size_t next = 0;
  EXPECT_THAT(
      replay::RollOffDice(Duel(3, 2, 100), [&] { return script[next++]; }),
      ElementsAre(2, 3, 4, 1));
  EXPECT_EQ(next, 4u);
}

TEST(ServerDiceTest, RollOffOfThreeDecidesWhenAnyTotalDiffers) {
  // Three parties, offsets 0, 1, 0: 3, 2+1, 3 all tie at 3; 5, 4+1, 6 do
  // not (6 differs), so two groups are rolled.
  rules::ServerDicePlan::RollOff plan;
  plan.group = 3;
  plan.offsets = {0, 1, 0};
  plan.max_groups = 10;
  const std::vector<uint32_t> script = {3, 2, 3, 5, 4, 6, 1, 1, 1};
  std::size_t next = 0;
  EXPECT_THAT(replay::RollOffDice(plan, [&] { return script[next++]; }),
              ElementsAre(3, 2, 3, 5, 4, 6));
}

TEST(ServerDiceTest, RollOffStopsAfterTheMostGroups) {
  EXPECT_THAT(replay::RollOffDice(Duel(2, 2, rules::daimyo::kMaxDuelPairs),
                                  [] { return 3u; }),
              SizeIs(2 * rules::daimyo::kMaxDuelPairs));
  EXPECT_EQ(rules::daimyo::kMaxDuelPairs, 100);
}

TEST(ServerDiceTest, MalformedRollOffRollsNothing) {
  rules::ServerDicePlan::RollOff plan = Duel(1, 2, 5);
  plan.offsets.pop_back();  // one offset for a group of two
  int rolled = 0;
  EXPECT_THAT(replay::RollOffDice(plan,
                                  [&] {
                                    ++rolled;
                                    return 1u;
                                  }),
              SizeIs(0));
  EXPECT_EQ(rolled, 0);
}

// The built-in Daimyo ruleset, whose dice counts the server rolls.
const replay::LoadedRuleset& Daimyo() {
  static const auto* const kDaimyo =
      new replay::LoadedRuleset(*replay::BuiltinRuleset("daimyo"));
  return *kDaimyo;
}

// Two clans; red-daimyo (rating 3) and blue-gen (rating 2).
rules::BattleState TwoClans() {
  rules::BattleState state;
  state.clans = {"red", "blue"};
  rules::LeaderState daimyo;
  daimyo.id = "red-daimyo";
  daimyo.command_rating = 3;
  state.leaders.push_back(daimyo);
  rules::LeaderState general;
  general.id = "blue-gen";
  general.clan = 1;
  general.command_rating = 2;
  state.leaders.push_back(general);
  return state;
}

// Rolls server dice for event `seq` of game "g", of body `text`, and returns
// its dice.
std::vector<uint32_t> Rolled(uint64_t seq, absl::string_view text) {
  Event event = ParseEvent(text);
  event.set_seq(seq);
  absl::Status rolled =
      replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event);
  EXPECT_TRUE(rolled.ok()) << rolled;
  return replay::EventDice(event);
}

TEST(ServerDiceTest, RollsTheCountOfEachEventKind) {
  EXPECT_THAT(Rolled(1, R"pb(turn_start {})pb"), SizeIs(2));
  EXPECT_THAT(Rolled(2, R"pb(firing { stands_firing: 3 })pb"), SizeIs(6));
  EXPECT_THAT(Rolled(3, R"pb(morale_test { unit: "u" })pb"), SizeIs(2));
  EXPECT_THAT(Rolled(4, R"pb(leader_loss { leader: "blue-gen" })pb"),
              SizeIs(1));
  EXPECT_THAT(Rolled(5, R"pb(result_move { kind: RESULT_MOVE_KIND_ROUT })pb"),
              SizeIs(2));
  EXPECT_THAT(
      Rolled(6, R"pb(result_move { kind: RESULT_MOVE_KIND_PURSUIT })pb"),
      SizeIs(2));
  EXPECT_THAT(
      Rolled(7, R"pb(result_move { kind: RESULT_MOVE_KIND_PUSH_BACK })pb"),
      IsEmpty());
  EXPECT_THAT(Rolled(8, R"pb(move { unit: "u" })pb"), IsEmpty());
  EXPECT_THAT(Rolled(9, R"pb(turn_end {})pb"), IsEmpty());
}

TEST(ServerDiceTest, RolledDiceAreTheDerivedDiceInOrder) {
  EXPECT_EQ(Rolled(2, R"pb(firing { stands_firing: 3 })pb"),
            DiceOf(Key(), "g", 2, 6));
  EXPECT_EQ(Rolled(4, R"pb(leader_loss { leader: "blue-gen" })pb"),
            DiceOf(Key(), "g", 4, 1));
}

TEST(ServerDiceTest, MeleeRollsSideZeroThenSideOne) {
  Event event = ParseEvent(R"pb(
    seq: 11
    melee_round {
      sides { unit: "a" stands_fighting: 2 }
      sides { unit: "b" stands_fighting: 3 }
    }
  )pb");
  ASSERT_TRUE(
      replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event).ok());
  const std::vector<uint32_t> dice = DiceOf(Key(), "g", 11, 10);
  EXPECT_THAT(event.melee_round().sides(0).dice(),
              ElementsAre(dice[0], dice[1], dice[2], dice[3]));
  EXPECT_THAT(
      event.melee_round().sides(1).dice(),
      ElementsAre(dice[4], dice[5], dice[6], dice[7], dice[8], dice[9]));
}

TEST(ServerDiceTest, ChallengeWithATieRollsASecondPair) {
  // Find an event whose first pair ties at ratings 3 and 2 (die difference
  // -1) and whose second does not; about one seq in seven.
  uint64_t seq = 1;
  for (; seq < 1000; ++seq) {
    const std::vector<uint32_t> d = DiceOf(Key(), "g", seq, 4);
    if (d[0] + 3 == d[1] + 2 && d[2] + 3 != d[3] + 2) break;
  }
  ASSERT_LT(seq, 1000u);
  Event event = ParseEvent(R"pb(
    challenge { challenger: "red-daimyo" challenged: "blue-gen" accepted: true }
  )pb");
  event.set_seq(seq);
  ASSERT_TRUE(
      replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event).ok());
  EXPECT_THAT(event.challenge().dice(), SizeIs(4));
  EXPECT_EQ(replay::EventDice(event), DiceOf(Key(), "g", seq, 4));
}

TEST(ServerDiceTest, EveryDuelEndsOnItsFirstDecisivePair) {
  for (uint64_t seq = 1; seq <= 200; ++seq) {
    Event event = ParseEvent(R"pb(
      challenge {
        challenger: "red-daimyo"
        challenged: "blue-gen"
        accepted: true
      }
    )pb");
    event.set_seq(seq);
    ASSERT_TRUE(
        replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event)
            .ok());
    const auto& dice = event.challenge().dice();
    ASSERT_GE(dice.size(), 2);
    ASSERT_EQ(dice.size() % 2, 0);
    for (int i = 0; i < dice.size(); i += 2) {
      const bool last = i + 2 == dice.size();
      EXPECT_EQ(dice[i] + 3 != dice[i + 1] + 2, last) << "seq " << seq;
    }
  }
}

// The Daimyo plug-in states a duel as a neutral roll-off: two dice a group,
// offset by the leaders' command ratings in the state given (TwoClans:
// red-daimyo 3, blue-gen 2), at most kMaxDuelPairs groups; a refused
// challenge rolls no dice and is no roll-off.
TEST(ServerDiceTest, DaimyoDuelIsARollOffAtTheRatingsNow) {
  const replay::LoadedRuleset& daimyo = Daimyo();
  rules::BattleState state = TwoClans();
  auto accepted =
      daimyo.plugin->server_dice(ParseEvent(R"pb(challenge {
                                                   challenger: "red-daimyo"
                                                   challenged: "blue-gen"
                                                   accepted: true
                                                 })pb"),
                                 daimyo.data, state);
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_TRUE(accepted->open_ended());
  EXPECT_EQ(accepted->dice, 0);
  EXPECT_EQ(accepted->roll_off.group, 2);
  EXPECT_THAT(accepted->roll_off.offsets, ElementsAre(3, 2));
  EXPECT_EQ(accepted->roll_off.max_groups, rules::daimyo::kMaxDuelPairs);
  // A rating changed by the game (a duel won: blue-gen 2 -> 3) is the one
  // the plan uses.
  for (rules::LeaderState& leader : state.leaders) {
    if (leader.id == "blue-gen") leader.command_rating = 3;
  }
  auto later =
      daimyo.plugin->server_dice(ParseEvent(R"pb(challenge {
                                                   challenger: "red-daimyo"
                                                   challenged: "blue-gen"
                                                   accepted: true
                                                 })pb"),
                                 daimyo.data, state);
  ASSERT_TRUE(later.ok());
  EXPECT_THAT(later->roll_off.offsets, ElementsAre(3, 3));
  auto refused =
      daimyo.plugin->server_dice(ParseEvent(R"pb(challenge {
                                                   challenger: "red-daimyo"
                                                   challenged: "blue-gen"
                                                 })pb"),
                                 daimyo.data, state);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->open_ended());
  EXPECT_EQ(refused->dice, 0);
}

TEST(ServerDiceTest, RefusedChallengeRollsNothing) {
  EXPECT_THAT(Rolled(3, R"pb(challenge {
                               challenger: "red-daimyo"
                               challenged: "blue-gen"
                             })pb"),
              IsEmpty());
}

TEST(ServerDiceTest, ChallengeOfAnUnknownLeaderIsRefused) {
  Event event = ParseEvent(R"pb(
    seq: 3
    challenge { challenger: "red-daimyo" challenged: "nobody" accepted: true }
  )pb");
  absl::Status rolled =
      replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event);
  EXPECT_EQ(rolled.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(rolled.message(), HasSubstr("'nobody'"));
}

TEST(ServerDiceTest, EventsCarryingDiceAreRefused) {
  for (absl::string_view text : {
           R"pb(seq: 2
                firing {
                  stands_firing: 1
                  dice: [ 6, 6 ]
                })pb",
           R"pb(seq: 2
                leader_loss { leader: "blue-gen" die: 6 })pb",
           R"pb(seq: 2
                melee_round {
                  sides { stands_fighting: 1 }
                  sides {
                    stands_fighting: 1
                    dice: [ 1, 2 ]
                  }
                })pb",
       }) {
    Event event = ParseEvent(text);
    const Event before = event;
    absl::Status rolled =
        replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event);
    EXPECT_EQ(rolled.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(rolled.message(),
              "this game rolls its own dice: leave dice empty");
    EXPECT_EQ(event.DebugString(), before.DebugString());
  }
}

TEST(ServerDiceTest, BadKeysAndStandCountsAreRefused) {
  Event event = ParseEvent(R"pb(seq: 2
                                firing { stands_firing: 3 })pb");
  EXPECT_EQ(replay::RollServerDice(TwoClans(), Daimyo(), "short", "g", 1, event)
                .code(),
            absl::StatusCode::kInvalidArgument);
  event.mutable_firing()->set_stands_firing(65);
  EXPECT_EQ(
      replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, event).code(),
      absl::StatusCode::kInvalidArgument);
  Event melee =
      ParseEvent(R"pb(seq: 2
                      melee_round { sides { stands_fighting: 1 } })pb");
  EXPECT_EQ(
      replay::RollServerDice(TwoClans(), Daimyo(), Key(), "g", 1, melee).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(replay::EventDice(melee), IsEmpty());
}

// An ended server-dice game of game id "live-1" whose dice gunbaid rolled.
ExportedGame ServerGame() {
  ExportedGame game;
  game.mutable_settings()->set_dice_mode(v1::DICE_MODE_SERVER);
  v1::Header* header = game.mutable_log()->mutable_header();
  header->set_game_id("live-1");
  header->add_clans()->set_id("red");
  header->add_clans()->set_id("blue");
  // The leaders of TwoClans(), whose ratings decide the duel.
  v1::Leader* daimyo =
      game.mutable_log()->mutable_order_of_battle()->add_leaders();
  daimyo->set_id("red-daimyo");
  daimyo->set_clan("red");
  daimyo->set_kind(v1::LEADER_KIND_DAIMYO);
  daimyo->set_command_rating(3);
  v1::Leader* general =
      game.mutable_log()->mutable_order_of_battle()->add_leaders();
  general->set_id("blue-gen");
  general->set_clan("blue");
  general->set_kind(v1::LEADER_KIND_GENERAL);
  general->set_command_rating(2);
  *game.mutable_dice()->mutable_player_seeds() = Seeds();
  game.mutable_dice()->set_secret_sha256(base::Sha256Hex(Secret()));
  game.mutable_dice()->set_revealed_secret(absl::BytesToHexString(Secret()));
  for (absl::string_view text : {
           R"pb(seq: 1
                turn: 1
                turn_start { initiative_clan: "red" })pb",
           R"pb(seq: 2
                turn: 1
                clan: "red"
                activation {})pb",
           R"pb(seq: 3
                turn: 1
                clan: "red"
                firing { stands_firing: 3 })pb",
           R"pb(seq: 4
                turn: 1
                clan: "blue"
                morale_test { unit: "u" })pb",
           R"pb(seq: 5
                turn: 1
                challenge {
                  challenger: "red-daimyo"
                  challenged: "blue-gen"
                  accepted: true
                })pb",
           R"pb(seq: 6
                turn: 1
                leader_loss { leader: "blue-gen" })pb",
       }) {
    Event event = ParseEvent(text);
    EXPECT_TRUE(
        replay::RollServerDice(TwoClans(), Daimyo(), Key(), "live-1", 1, event)
            .ok());
    *game.mutable_log()->add_events() = std::move(event);
    game.add_dice_attempts(1);
  }
  Rechain(game);
  return game;
}

TEST(ServerDiceTest, VerifyAcceptsTheServersDice) {
  EXPECT_EQ(replay::VerifyServerDice(ServerGame(), Daimyo()), std::nullopt);
}

TEST(ServerDiceTest, VerifyNamesATamperedDie) {
  ExportedGame game = ServerGame();
  v1::Firing* firing = game.mutable_log()->mutable_events(2)->mutable_firing();
  const uint32_t rolled = firing->dice(4);
  firing->set_dice(4, rolled % 6 + 1);
  std::optional<ChainBreak> broken = replay::VerifyServerDice(game, Daimyo());
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 2);
  EXPECT_EQ(broken->seq, 3u);
  EXPECT_THAT(broken->reason, HasSubstr("die 4 is"));
  EXPECT_THAT(broken->reason,
              HasSubstr(absl::StrCat("the server's die there is ", rolled)));
}

TEST(ServerDiceTest, VerifyFindsDroppedDice) {
  ExportedGame game = ServerGame();
  game.mutable_log()->mutable_events(3)->mutable_morale_test()->clear_dice();
  std::optional<ChainBreak> broken = replay::VerifyServerDice(game, Daimyo());
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 3);
  EXPECT_THAT(broken->reason,
              HasSubstr("it carries 0 dice where the server rolls 2"));
}

// A duel lengthened by a pair of the server's own next dice: every value
// is the server's, but the duel was decided before them.
TEST(ServerDiceTest, VerifyFindsADuelThatGoesOnPastItsDecision) {
  ExportedGame game = ServerGame();
  v1::Challenge* duel =
      game.mutable_log()->mutable_events(4)->mutable_challenge();
  const int decided = duel->dice_size();
  ASSERT_GE(decided, 2);
  for (int i = 0; i < 2; ++i) {
    duel->add_dice(replay::DeriveDie(Key(), "live-1", 1, 5,
                                     static_cast<uint32_t>(decided + i)));
  }
  std::optional<ChainBreak> broken = replay::VerifyServerDice(game, Daimyo());
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, 4);
  EXPECT_THAT(broken->reason,
              HasSubstr(absl::StrCat("the duel carries ", decided + 2,
                                     " dice, but the server's dice decide it "
                                     "after ",
                                     decided)));
}

TEST(ServerDiceTest, VerifyRejectsAWrongRevealedSecret) {
  ExportedGame game = ServerGame();
  game.mutable_dice()->set_revealed_secret("00112233");
  std::optional<ChainBreak> broken = replay::VerifyServerDice(game, Daimyo());
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, -1);
  EXPECT_EQ(broken->reason,
            "the revealed secret does not match the commitment published at "
            "creation");
}

TEST(ServerDiceTest, VerifyRejectsAnUnrevealedSecret) {
  ExportedGame game = ServerGame();
  game.mutable_dice()->clear_revealed_secret();
  std::optional<ChainBreak> broken = replay::VerifyServerDice(game, Daimyo());
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->index, -1);
  EXPECT_THAT(broken->reason,
              HasSubstr("the secret is revealed only when the game has ended"));
}

TEST(ServerDiceTest, VerifyRejectsAGameWithRecordedDice) {
  ExportedGame game = ServerGame();
  game.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
  std::optional<ChainBreak> broken = replay::VerifyServerDice(game, Daimyo());
  ASSERT_TRUE(broken.has_value());
  EXPECT_THAT(broken->reason, HasSubstr("DICE_MODE_RECORDED"));
}

TEST(ServerDiceTest, ServerGameChainVerifiesToo) {
  EXPECT_EQ(replay::VerifyChain(ServerGame()), std::nullopt);
}

// replay::VerifyExport, the verdict `gunbai verify` prints, case by case on
// ChainedGame (record policy, recorded dice, chain version 0: the chain
// starts from 64 zeros).
absl::StatusOr<replay::LoadedRuleset> NoRulesetWanted(absl::string_view) {
  ADD_FAILURE() << "this game needs no ruleset";
  return absl::InternalError("asked");
}

TEST(VerifyExportTest, AnIntactGameIsOkWithItsHead) {
  const ExportedGame game = ChainedGame();
  auto verdict = replay::VerifyExport(game, {}, NoRulesetWanted);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->kind, replay::ExportVerdict::Kind::kIntact);
  EXPECT_EQ(verdict->text,
            absl::StrCat("5 events, chain head ", game.chain_hashes(4),
                         "; dice recorded by the players (nothing to "
                         "recompute)"));
}

TEST(VerifyExportTest, HeadsMustBeInTheChain) {
  const ExportedGame game = ChainedGame();
  // The third event's hash, by a 12-digit prefix, and the genesis (64
  // zeros) are both in the chain.
  const std::string third = game.chain_hashes(2).substr(0, 12);
  auto verdict = replay::VerifyExport(game, {third, std::string(64, '0')},
                                      NoRulesetWanted);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->kind, replay::ExportVerdict::Kind::kIntact);
  // A head none of the six hashes starts with: the first head not in it.
  std::string other = third;
  other[0] = other[0] == 'a' ? 'b' : 'a';
  verdict = replay::VerifyExport(game, {third, other}, NoRulesetWanted);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->kind, replay::ExportVerdict::Kind::kTampered);
  EXPECT_EQ(verdict->text,
            absl::StrCat("the head sha256:", other,
                         " you were given is not in this export's chain: "
                         "what you saw was changed, dropped or reordered, "
                         "or the game's terms were edited"));
  // An empty prefix names all six (genesis and five events): no verdict.
  auto head = replay::HeadNotInChain(game, replay::GenesisHash(), {""});
  EXPECT_EQ(head.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(head.status().message(), HasSubstr("is the start of 6 hashes"));
}

TEST(VerifyExportTest, ServerDiceBeforeTheSecretIsIncomplete) {
  ExportedGame game = ChainedGame();
  game.mutable_settings()->set_dice_mode(v1::DICE_MODE_SERVER);
  auto verdict = replay::VerifyExport(game, {}, NoRulesetWanted);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->kind, replay::ExportVerdict::Kind::kIncomplete);
  EXPECT_EQ(verdict->text,
            "the chain of 5 events is intact, but the dice can be checked "
            "only after game_end, when gunbaid reveals its secret");
}

TEST(VerifyExportTest, AStrictGameAsksForItsRulesetAndPassesOnItsError) {
  ExportedGame game = ChainedGame();
  game.mutable_settings()->set_policy(v1::APPEND_POLICY_STRICT);
  std::string asked;
  auto verdict = replay::VerifyExport(
      game, {},
      [&](absl::string_view checking) -> absl::StatusOr<replay::LoadedRuleset> {
        asked = std::string(checking);
        return absl::NotFoundError("no such file");
      });
  EXPECT_EQ(asked,
            "the chain is intact, but which events a strict game refuses");
  EXPECT_EQ(verdict.status().code(), absl::StatusCode::kNotFound);
  // A broken chain is found before any ruleset is asked for.
  game.mutable_log()->mutable_events(2)->mutable_firing()->set_dice(0, 1);
  verdict = replay::VerifyExport(game, {}, NoRulesetWanted);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->kind, replay::ExportVerdict::Kind::kTampered);
  EXPECT_THAT(verdict->text, HasSubstr("seq 3"));
}

TEST(VerifyExportTest, TheRulesetMustBeTheGamesByNameAndDigest) {
  ExportedGame game = ChainedGame();
  auto daimyo = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(daimyo.ok()) << daimyo.status();
  // No name in the header: read as Daimyo's, so Daimyo's built-in is it.
  EXPECT_TRUE(
      replay::CheckGamesRuleset(game, *daimyo, "gunbai's built-in one", "x")
          .ok());
  game.mutable_log()->mutable_header()->mutable_ruleset()->set_name("skf");
  absl::Status wrong =
      replay::CheckGamesRuleset(game, *daimyo, "house.textproto", "the dice");
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.message(),
              HasSubstr("the dice can only be checked under the game's "
                        "ruleset: the game was played under the \"skf\""));
  EXPECT_THAT(wrong.message(), HasSubstr("and house.textproto is \"daimyo\""));
  game.mutable_log()->mutable_header()->mutable_ruleset()->clear_name();
  game.mutable_settings()->set_ruleset_digest(std::string(64, 'f'));
  wrong = replay::CheckGamesRuleset(game, *daimyo, "gunbai's built-in one",
                                    "the dice");
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.message(),
              HasSubstr(absl::StrCat("gunbai's built-in one is sha256:",
                                     daimyo->digest)));
}

}  // namespace
}  // namespace gunbai::testing
