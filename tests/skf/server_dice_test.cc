// Server dice for Samurai Knight Fever games: how many dice gunbaid rolls
// for each event (rules/skf/RULES.md, "Server dice"), and that the dice of
// an exported game are checked against those counts, not Daimyo's.
#include "replay/server_dice.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/digest.h"
#include "rules/engine.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::Event ParseEvent(absl::string_view text) {
  v1::Event event;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(std::string(text), &event))
      << text;
  return event;
}

// The shipped example ruleset: no morale check.
replay::LoadedRuleset Example() { return *replay::BuiltinRuleset("skf"); }

// The example with a morale check of `dice` dice.
replay::LoadedRuleset WithMorale(std::uint32_t dice) {
  replay::LoadedRuleset ruleset = Example();
  v1::SkfMoraleTest* morale = ruleset.data.mutable_skf()->mutable_morale();
  morale->set_dice(dice);
  v1::SkfPassScore* pass = morale->add_pass_scores();
  pass->set_quality(v1::QUALITY_SEASONED);
  pass->set_score(4);
  // A whole check: gunbai verify now replays the game under the ruleset,
  // whose data checks want a result for a failed test.
  v1::SkfMoraleFailure* fail = morale->add_failures();
  fail->set_fail_by(1);
  fail->set_result(v1::MORALE_RESULT_ROUT);
  return ruleset;
}

const replay::LoadedRuleset& Daimyo() {
  static const auto* const kDaimyo =
      new replay::LoadedRuleset(*replay::BuiltinRuleset("daimyo"));
  return *kDaimyo;
}

std::string Key() { return std::string(replay::kDiceKeyBytes, '\x5a'); }

rules::BattleState TwoClans() {
  rules::BattleState state;
  state.clans = {"uesugi", "takeda"};
  return state;
}

constexpr absl::string_view kMelee = R"pb(
  seq: 7
  turn: 1
  clan: "uesugi"
  melee_round {
    melee_id: "m1"
    sides { unit: "ue-sam" stands_fighting: 4 }
    sides { unit: "tak-ash" stands_fighting: 6 }
  })pb";

// Page 6: each side of a pairing rolls one die on its own odds column, so
// a pairing is 2 dice whatever the bases; Daimyo would roll 2 per stand
// fighting, 2 x (4 + 6) = 20.
TEST(SkfServerDiceTest, PairingRollsOneDieASide) {
  const rules::RulesetPlugin& skf = *Example().plugin;
  ASSERT_NE(skf.server_dice, nullptr);
  auto plan = skf.server_dice(ParseEvent(kMelee), Example().data, TwoClans());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->dice, 2);
  EXPECT_THAT(plan->side_dice, ElementsAre(1, 1));
  EXPECT_FALSE(plan->open_ended());
  auto daimyo = Daimyo().plugin->server_dice(ParseEvent(kMelee), Daimyo().data,
                                             TwoClans());
  ASSERT_TRUE(daimyo.ok());
  EXPECT_EQ(daimyo->dice, 20);
  EXPECT_THAT(daimyo->side_dice, ElementsAre(8, 12));

  v1::Event three = ParseEvent(kMelee);
  *three.mutable_melee_round()->add_sides() = three.melee_round().sides(0);
  EXPECT_EQ(skf.server_dice(three, Example().data, TwoClans()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The morale check rolls skf.morale.dice; without skf.morale gunbaid cannot
// know, and says which field to add.
TEST(SkfServerDiceTest, MoraleCheckRollsTheRulesetsDice) {
  const v1::Event test = ParseEvent(R"pb(seq: 8
                                         turn: 1
                                         clan: "takeda"
                                         morale_test { unit: "tak-ash" })pb");
  const rules::RulesetPlugin& skf = *Example().plugin;
  auto none = skf.server_dice(test, Example().data, TwoClans());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("skf.morale"));
  for (std::uint32_t dice : {1u, 2u}) {
    auto plan = skf.server_dice(test, WithMorale(dice).data, TwoClans());
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->dice, static_cast<int>(dice));
  }
}

// A leader-hit roll is 1d6; page 6 has no initiative roll, and firing,
// duels and result moves are not covered (replayed as claimed): no dice.
TEST(SkfServerDiceTest, LeaderHitOneDieAndUncoveredNone) {
  const rules::RulesetPlugin& skf = *Example().plugin;
  const v1::Ruleset& data = Example().data;
  auto hit =
      skf.server_dice(ParseEvent(R"pb(seq: 9
                                      turn: 1
                                      leader_loss { leader: "kenshin" })pb"),
                      data, TwoClans());
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ(hit->dice, 1);
  for (absl::
           string_view
               text : {
                   R"pb(seq: 1
                        turn: 1
                        turn_start { initiative_clan: "uesugi" })pb",
                   R"pb(seq: 2
                        turn: 1
                        clan: "uesugi"
                        firing { stands_firing: 3 })pb",
                   R"pb(seq: 3
                        turn: 1
                        challenge {
                          challenger: "kenshin"
                          challenged: "shingen"
                          accepted: true
                        })pb",
                   R"pb(seq: 4
                        turn: 1
                        result_move {
                          unit: "tak-ash"
                          kind: RESULT_MOVE_KIND_ROUT
                        })pb",
               }) {
    auto plan = skf.server_dice(ParseEvent(text), data, TwoClans());
    ASSERT_TRUE(plan.ok()) << text;
    EXPECT_EQ(plan->dice, 0) << text;
    EXPECT_FALSE(plan->open_ended()) << text;
  }
}

TEST(SkfServerDiceTest, AvailableOnlyWithAMoraleCheck) {
  absl::Status example = replay::ServerDiceAvailable(Example());
  EXPECT_EQ(example.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(example.message(), HasSubstr("skf.morale"));
  EXPECT_TRUE(replay::ServerDiceAvailable(WithMorale(2)).ok());
  EXPECT_TRUE(replay::ServerDiceAvailable(Daimyo()).ok());
}

// The dice are the published derivation's, die index 0 for the first side
// and 1 for the second.
TEST(SkfServerDiceTest, RollFillsOneDieASide) {
  v1::Event event = ParseEvent(kMelee);
  ASSERT_TRUE(
      replay::RollServerDice(TwoClans(), WithMorale(1), Key(), "g", 3, event)
          .ok());
  EXPECT_THAT(event.melee_round().sides(0).dice(),
              ElementsAre(replay::DeriveDie(Key(), "g", 3, 7, 0)));
  EXPECT_THAT(event.melee_round().sides(1).dice(),
              ElementsAre(replay::DeriveDie(Key(), "g", 3, 7, 1)));
  v1::Event fire = ParseEvent(R"pb(seq: 2
                                   turn: 1
                                   clan: "uesugi"
                                   firing { stands_firing: 3 })pb");
  ASSERT_TRUE(
      replay::RollServerDice(TwoClans(), WithMorale(1), Key(), "g", 3, fire)
          .ok());
  EXPECT_THAT(replay::EventDice(fire), IsEmpty());
}

// An ended SKF game with server dice (secret 0102030405060708, a seed from
// Uesugi) whose one event is the pairing kMelee, rolled by the server;
// `edit` then changes the event as a forger would.
template <typename Edit>
v1::ExportedGame EndedGameWithThePairing(Edit edit) {
  const std::string secret = absl::HexStringToBytes("0102030405060708");
  v1::ExportedGame game;
  game.mutable_settings()->set_dice_mode(v1::DICE_MODE_SERVER);
  v1::Header* header = game.mutable_log()->mutable_header();
  header->set_game_id("skf-live");
  header->mutable_ruleset()->set_name("skf");
  header->add_clans()->set_id("uesugi");
  header->add_clans()->set_id("takeda");
  v1::PlayerSeed* seed = game.mutable_dice()->add_player_seeds();
  seed->set_clan("uesugi");
  seed->set_seed_hex("ab");
  game.mutable_dice()->set_secret_sha256(base::Sha256Hex(secret));
  game.mutable_dice()->set_revealed_secret(absl::BytesToHexString(secret));
  const std::string key = replay::DiceKey(secret, game.dice().player_seeds());
  v1::Event melee = ParseEvent(kMelee);
  EXPECT_TRUE(replay::RollServerDice(TwoClans(), WithMorale(1), key, "skf-live",
                                     1, melee)
                  .ok());
  edit(melee);
  *game.mutable_log()->add_events() = melee;
  game.add_dice_attempts(1);
  return game;
}

// Such a game verifies under SKF's counts. Verify replays the game as
// gunbaid did while rolling (issue 11: a duel's dice follow the ratings of
// the moment), so under Daimyo's ruleset the SKF game cannot be counted at
// all, and the verifier says why instead of counting Daimyo's dice.
TEST(SkfServerDiceTest, VerifyChecksCountsUnderTheGamesRuleset) {
  const v1::ExportedGame game = EndedGameWithThePairing([](v1::Event&) {});
  auto skf = replay::VerifyServerDice(game, WithMorale(1));
  EXPECT_EQ(skf, std::nullopt) << skf->reason;
  auto daimyo = replay::VerifyServerDice(game, Daimyo());
  ASSERT_NE(daimyo, std::nullopt);
  EXPECT_THAT(daimyo->reason,
              HasSubstr("the game cannot be replayed to count its dice"));
  EXPECT_THAT(daimyo->reason, HasSubstr("the log is for the ruleset \"skf\""));
}

// Dice moved from one side of a pairing to the other keep the total and
// the order of the values, but are not the server's: side 0 would roll with
// two dice.
TEST(SkfServerDiceTest, VerifyChecksEachSidesDice) {
  const v1::ExportedGame game = EndedGameWithThePairing([](v1::Event& melee) {
    v1::MeleeRound* round = melee.mutable_melee_round();
    round->mutable_sides(0)->add_dice(round->sides(1).dice(0));
    round->mutable_sides(1)->clear_dice();
  });
  auto moved = replay::VerifyServerDice(game, WithMorale(1));
  ASSERT_NE(moved, std::nullopt);
  EXPECT_THAT(moved->reason,
              HasSubstr("side 0 (ue-sam) carries 2 dice where the server "
                        "rolls 1"));
}

// A plug-in whose plan does not fit the event is refused, not trusted: a
// melee round's sides must each get a count, adding up to the round's.
absl::StatusOr<rules::ServerDicePlan> Lopsided(const v1::Event& event,
                                               const v1::Ruleset&,
                                               const rules::BattleState&) {
  rules::ServerDicePlan plan;
  plan.dice = 2;
  if (event.has_melee_round()) plan.side_dice = {2};  // One side only.
  return plan;
}

TEST(SkfServerDiceTest, PlanThatDoesNotFitTheEventIsAnError) {
  rules::RulesetPlugin plugin = *Example().plugin;
  plugin.server_dice = &Lopsided;
  replay::LoadedRuleset ruleset = Example();
  ruleset.plugin = &plugin;
  v1::Event event = ParseEvent(kMelee);
  const absl::Status status =
      replay::RollServerDice(TwoClans(), ruleset, Key(), "g", 1, event);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("not one count for each side"));
  EXPECT_THAT(replay::EventDice(event), IsEmpty());
}

// Daimyo's counts are the ruleset file's dice per stand (2 in the rules):
// a house file with 1 die a stand firing and 3 in melee rolls 3 dice for 3
// stands firing and 3 x (4 + 6) = 30 for the pairing above.
TEST(SkfServerDiceTest, DaimyoCountsFollowTheFilesDicePerStand) {
  replay::LoadedRuleset house = Daimyo();
  house.data.mutable_firing()->set_dice_per_stand(1);
  house.data.mutable_melee()->set_dice_per_stand(3);
  auto fire = house.plugin->server_dice(
      ParseEvent(R"pb(seq: 2
                      turn: 1
                      clan: "uesugi"
                      firing { stands_firing: 3 })pb"),
      house.data, TwoClans());
  ASSERT_TRUE(fire.ok());
  EXPECT_EQ(fire->dice, 3);
  auto melee =
      house.plugin->server_dice(ParseEvent(kMelee), house.data, TwoClans());
  ASSERT_TRUE(melee.ok());
  EXPECT_EQ(melee->dice, 30);
  EXPECT_THAT(melee->side_dice, ElementsAre(12, 18));
}

}  // namespace
}  // namespace gunbai::testing
