// The Samurai Knight Fever engine through the plug-in interface
// (rules::FindRulesetPlugin("skf")->create), fed small battle logs. The
// melee arithmetic uses the shipped example tables (see melee_test.cc).
#include "rules/engine.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/skf/skf_test_util.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Oda: samurai, 3 bases, Nobunaga attached. Takeda: legendary samurai, 4
// bases; ashigaru, 4 bases.
constexpr char kArmies[] = R"pb(
  header {
    game_id: "skf-engine-test"
    ruleset { name: "skf" version: "page6-example-1" }
    clans { id: "oda" }
    clans { id: "takeda" }
  }
  order_of_battle {
    units {
      id: "oda-sam"
      clan: "oda"
      name: "Oda Samurai"
      troop_type: TROOP_TYPE_SAMURAI
      mobility: MOBILITY_FOOT
      stands: 3
    }
    units {
      id: "oda-sam2"
      clan: "oda"
      troop_type: TROOP_TYPE_SAMURAI
      mobility: MOBILITY_FOOT
      stands: 4
    }
    units {
      id: "tak-leg"
      clan: "takeda"
      name: "Takeda Legends"
      troop_type: TROOP_TYPE_LEGENDARY_SAMURAI
      stands: 4
    }
    units {
      id: "tak-ash"
      clan: "takeda"
      troop_type: TROOP_TYPE_ASHIGARU
      stands: 4
    }
    leaders { id: "nobunaga" clan: "oda" attached_unit: "oda-sam" }
  }
)pb";

// Page 6's example as a log: 3 samurai (12) against 4 legendary samurai
// (24). Oda rolls 5 on 1-2: 1 hit; Takeda rolls 5 on 2-1: 2 hits. Oda loses
// a base to its 2 hits (the other raises its disorder); Takeda's 1 hit
// raises its disorder.
constexpr char kPageExample[] = R"pb(
  events {
    seq: 1
    turn: 1
    turn_start { initiative_clan: "oda" }
  }
  events {
    seq: 2
    turn: 1
    clan: "oda"
    activation {}
  }
  events {
    seq: 3
    turn: 1
    clan: "oda"
    melee_round {
      sides {
        unit: "oda-sam"
        stands_fighting: 3
        dice: 5
        claimed_hits: 1
        claimed_stands_lost: 1
      }
      sides { unit: "tak-leg" stands_fighting: 4 dice: 5 claimed_hits: 2 }
    }
  }
  events {
    seq: 4
    turn: 1
    clan: "oda"
    morale_test {
      unit: "oda-sam"
      dice: 4
      claimed_result: MORALE_RESULT_NO_EFFECT
    }
  }
  events {
    seq: 5
    turn: 1
    clan: "takeda"
    morale_test { unit: "tak-leg" dice: 1 claimed_result: MORALE_RESULT_ROUT }
  }
  events {
    seq: 6
    turn: 1
    clan: "oda"
    leader_loss { leader: "nobunaga" die: 2 claimed_killed: false }
  }
  events {
    seq: 7
    turn: 1
    turn_end {}
  }
)pb";

struct Run {
  std::unique_ptr<rules::Engine> engine;
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  google::protobuf::RepeatedPtrField<v1::Outcome> outcomes;
  std::vector<std::string> ids;

  const v1::Finding* Find(absl::string_view rule_id) const {
    for (const v1::Finding& f : findings) {
      if (f.rule_id() == rule_id) return &f;
    }
    return nullptr;
  }
  const rules::UnitStatus& Unit(absl::string_view id) const {
    const rules::BattleState& s = engine->state();
    for (std::size_t i = 0; i < s.profiles.size(); ++i) {
      if (s.profiles[i].id == id) return s.units[i];
    }
    ADD_FAILURE() << id;
    return s.units[0];
  }
};

v1::BattleLog Log(const std::string& events) {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      std::string(kArmies) + events, &log));
  return log;
}

// Returns the event of `log` with `seq`.
v1::Event& At(v1::BattleLog& log, std::uint64_t seq) {
  for (v1::Event& e : *log.mutable_events()) {
    if (e.seq() == seq) return e;
  }
  ADD_FAILURE() << "no seq " << seq;
  return *log.mutable_events(0);
}

// Removes the event with `seq` from `log`.
void Erase(v1::BattleLog& log, std::uint64_t seq) {
  auto* events = log.mutable_events();
  for (int i = 0; i < events->size(); ++i) {
    if (events->Get(i).seq() == seq) {
      events->DeleteSubrange(i, 1);
      return;
    }
  }
  ADD_FAILURE() << "no seq " << seq;
}

// Replays `log` under the shipped example (or `data`) and collects what the
// engine reports.
std::unique_ptr<Run> Replay(const v1::BattleLog& log,
                            rules::EngineOptions options = {},
                            const v1::Ruleset* data = nullptr) {
  static const v1::Ruleset* const kExample = new v1::Ruleset(ExampleRuleset());
  auto run = std::make_unique<Run>();
  const rules::RulesetPlugin* plugin = rules::FindRulesetPlugin("skf");
  EXPECT_NE(plugin, nullptr);
  if (plugin == nullptr) return run;
  auto engine =
      plugin->create(log, data == nullptr ? *kExample : *data, options,
                     rules::EngineOutput{&run->findings, &run->outcomes});
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return run;
  run->engine = *std::move(engine);
  for (const v1::Event& e : log.events()) run->engine->Apply(e);
  run->engine->Finish();
  for (const v1::Finding& f : run->findings) run->ids.push_back(f.rule_id());
  return run;
}

TEST(SkfEngineTest, PluginIsListed) {
  const rules::RulesetPlugin* plugin = rules::FindRulesetPlugin("skf");
  ASSERT_NE(plugin, nullptr);
  EXPECT_THAT(std::string(plugin->builtin_text), HasSubstr("EXAMPLE"));
  EXPECT_TRUE(plugin->validate(ExampleRuleset(), "builtin:skf").ok());
}

TEST(SkfEngineTest, PageExamplePlayedRight) {
  auto run = Replay(Log(kPageExample));
  // Only the absent morale check is reported, once.
  EXPECT_THAT(run->ids, ElementsAre("skf.morale.unchecked"));
  EXPECT_EQ(run->findings[0].severity(), v1::SEVERITY_UNVERIFIABLE);
  EXPECT_EQ(run->findings[0].seq(), 4u);
  // Oda took 2 hits: 1 base (3 to 2), 1 disorder. Takeda took 1 hit: 1
  // disorder, and routs on its claimed check.
  EXPECT_EQ(run->Unit("oda-sam").stands, 2);
  EXPECT_EQ(run->Unit("oda-sam").carried_hits, 1);
  EXPECT_TRUE(run->Unit("oda-sam").disordered);
  EXPECT_EQ(run->Unit("tak-leg").stands, 4);
  EXPECT_EQ(run->Unit("tak-leg").carried_hits, 1);
  EXPECT_TRUE(run->Unit("tak-leg").routing);
  EXPECT_FALSE(run->engine->state().leaders[0].killed);
  EXPECT_FALSE(run->engine->state().leaders[0].loss_roll_owed);
}

TEST(SkfEngineTest, OutcomesRecordColumnsAndHits) {
  auto run = Replay(Log(kPageExample));
  std::vector<std::string> seen;
  for (const v1::Outcome& o : run->outcomes) {
    seen.push_back(
        absl::StrCat(o.seq(), " ", o.subject(), " ", o.kind(), " ", o.value()));
  }
  EXPECT_THAT(seen, ElementsAre("3 oda-sam odds_column 1-2", "3 oda-sam hits 1",
                                "3 tak-leg odds_column 2-1", "3 tak-leg hits 2",
                                "6 nobunaga killed survives"));
  EXPECT_FALSE(run->outcomes[1].trace().empty());
}

TEST(SkfEngineTest, DisputedHitsFollowTheClaim) {
  v1::BattleLog log = Log(kPageExample);
  // Oda claims 3 hits for its 5 on 1-2 (1 hit); Takeda loses 1 base.
  v1::MeleeRound& round = *At(log, 3).mutable_melee_round();
  round.mutable_sides(0)->set_claimed_hits(3);
  round.mutable_sides(1)->set_claimed_stands_lost(1);
  auto run = Replay(log);
  const v1::Finding* f = run->Find("skf.melee.hit");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::SEVERITY_DISPUTE);
  EXPECT_EQ(f->subject(), "oda-sam");
  EXPECT_EQ(f->claimed(), "3 hits");
  EXPECT_EQ(f->computed(), "1 hit");
  EXPECT_THAT(f->message(), HasSubstr("12 to 24 rolls on 1-2"));
  // The trace: 3 bases x 4 = 12 against 24, column 1-2, die 5, 1 hit.
  std::vector<int> values;
  for (const v1::Term& t : f->trace()) values.push_back(t.value());
  EXPECT_THAT(values, ElementsAre(3, 4, 12, 24, 0, 5, 5, 1));
  EXPECT_EQ(f->trace(5).origin(), v1::TERM_ORIGIN_DICE);
  // As played: Takeda took 3 hits, 1 base and 2 disorder.
  EXPECT_EQ(run->Unit("tak-leg").stands, 3);
  EXPECT_EQ(run->Unit("tak-leg").carried_hits, 2);

  // What if the computed hits had stood at seq 3: 1 hit, no base (the claim
  // of 1 base lost to 1 hit stays), no disorder left over.
  rules::EngineOptions options;
  options.follow_computed_at_seq = 3;
  auto what_if = Replay(log, options);
  EXPECT_EQ(what_if->Find("skf.melee.hit"), nullptr);
  EXPECT_EQ(what_if->Unit("tak-leg").stands, 3);
  EXPECT_EQ(what_if->Unit("tak-leg").carried_hits, 0);
}

TEST(SkfEngineTest, EveryUnitThatFoughtChecksAtOnce) {
  v1::BattleLog log = Log(kPageExample);
  // Takeda's check is missing: owed before the end of the turn.
  Erase(log, 5);
  auto run = Replay(log);
  const v1::Finding* f = run->Find("skf.morale.missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::SEVERITY_VIOLATION);
  EXPECT_EQ(f->subject(), "tak-leg");
  EXPECT_EQ(f->seq(), 7u);
  EXPECT_THAT(f->message(), HasSubstr("the end of the turn"));
}

TEST(SkfEngineTest, MoraleBeforeTheNextMelee) {
  // A second melee starts before the first one's checks: both units of the
  // first owe them, reported at the second melee.
  auto run = Replay(Log(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "oda" }
    }
    events {
      seq: 2
      turn: 1
      clan: "oda"
      activation {}
    }
    events {
      seq: 3
      turn: 1
      melee_round {
        sides { unit: "oda-sam" stands_fighting: 3 dice: 2 claimed_hits: 0 }
        sides { unit: "tak-leg" stands_fighting: 4 dice: 1 claimed_hits: 0 }
      }
    }
    events {
      seq: 4
      turn: 1
      melee_round {
        sides { unit: "oda-sam2" stands_fighting: 4 dice: 1 claimed_hits: 0 }
        sides { unit: "tak-ash" stands_fighting: 4 dice: 1 claimed_hits: 0 }
      }
    }
  )pb"));
  EXPECT_THAT(run->ids, ElementsAre("skf.morale.missing", "skf.morale.missing",
                                    "log.turn_unfinished"));
  EXPECT_EQ(run->findings[0].seq(), 4u);
  EXPECT_THAT(run->findings[0].message(), HasSubstr("the next melee"));
  // The log stops mid-turn: the second melee's checks and Nobunaga's roll
  // are listed, not reported missing.
  EXPECT_THAT(run->findings[2].message(), HasSubstr("nobunaga a leader-hit"));
}

// Page 6's multiple melee: oda-sam2 (4 bases) touches two enemies and
// fights each with the 2 bases in contact with it; then every unit checks
// once.
constexpr char kMultipleMelee[] = R"pb(
  events {
    seq: 1
    turn: 1
    turn_start { initiative_clan: "takeda" }
  }
  events {
    seq: 2
    turn: 1
    clan: "takeda"
    activation {}
  }
  events {
    seq: 3
    turn: 1
    melee_round {
      melee_id: "m1"
      sides { unit: "tak-leg" stands_fighting: 4 dice: 3 claimed_hits: 1 }
      sides {
        unit: "oda-sam2"
        stands_fighting: 2
        front_stands_in_contact: 2
        dice: 6
        claimed_hits: 1
        claimed_stands_lost: 1
      }
    }
  }
  events {
    seq: 4
    turn: 1
    melee_round {
      melee_id: "m1"
      sides { unit: "tak-ash" stands_fighting: 4 dice: 4 claimed_hits: 1 }
      sides {
        unit: "oda-sam2"
        stands_fighting: 2
        front_stands_in_contact: 2
        dice: 2
        claimed_hits: 0
      }
    }
  }
  events {
    seq: 5
    turn: 1
    morale_test { unit: "tak-leg" dice: 3 }
  }
  events {
    seq: 6
    turn: 1
    morale_test { unit: "oda-sam2" dice: 3 }
  }
  events {
    seq: 7
    turn: 1
    morale_test { unit: "tak-ash" dice: 3 }
  }
  events {
    seq: 8
    turn: 1
    turn_end {}
  }
)pb";

TEST(SkfEngineTest, MultipleMeleeSplitsBases) {
  // m1, pairing 1: tak-leg 4 x 6 = 24 against oda-sam2 2 x 4 = 8: 3-1 and
  // 1-3. tak-leg rolls 3 on 3-1: 1 hit (2+). oda-sam2 rolls 6 on 1-3: 1 hit.
  // Pairing 2: tak-ash 4 x 2 = 8 against 2 x 4 = 8: 1-1 both. tak-ash 4:
  // 1 hit; oda-sam2 2: none. oda-sam2 takes 2 hits (1 base, 1 disorder)
  // once the melee is settled, and checks once.
  auto run = Replay(Log(kMultipleMelee));
  EXPECT_THAT(run->ids, ElementsAre("skf.morale.unchecked"));
  EXPECT_EQ(run->Unit("oda-sam2").stands, 3);
  EXPECT_EQ(run->Unit("oda-sam2").carried_hits, 1);
  EXPECT_EQ(run->Unit("tak-leg").carried_hits, 1);
  EXPECT_EQ(run->Unit("tak-ash").carried_hits, 0);
}

TEST(SkfEngineTest, MultipleMeleeBasesMayNotExceedTheUnit) {
  v1::BattleLog log = Log(kMultipleMelee);
  // oda-sam2 claims 3 bases against tak-ash as well as 2 against tak-leg:
  // 5 of its 4 bases.
  At(log, 4).mutable_melee_round()->mutable_sides(1)->set_stands_fighting(3);
  auto run = Replay(log);
  const v1::Finding* f = run->Find("skf.melee.bases.split");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->seq(), 4u);
  EXPECT_EQ(f->subject(), "oda-sam2");
  // And it fights tak-ash with 3 bases, but 2 are in contact.
  const v1::Finding* contact = run->Find("skf.melee.bases.in_contact");
  ASSERT_NE(contact, nullptr);
  EXPECT_EQ(contact->seq(), 4u);
}

TEST(SkfEngineTest, UnitChecksOnlyOnceAfterAMultipleMelee) {
  // oda-sam2 took hits from two enemies and checks twice (seq 6, then
  // again as seq 7, with tak-ash's check and the turn end renumbered).
  v1::BattleLog log = Log(kMultipleMelee);
  At(log, 8).set_seq(9);
  At(log, 7).set_seq(8);
  v1::Event again = At(log, 6);
  again.set_seq(7);
  *log.mutable_events()->Add() = again;
  std::sort(
      log.mutable_events()->begin(), log.mutable_events()->end(),
      [](const v1::Event& a, const v1::Event& b) { return a.seq() < b.seq(); });
  auto run = Replay(log);
  EXPECT_THAT(run->ids, ElementsAre("skf.morale.unchecked", "skf.morale.once"));
  EXPECT_EQ(run->findings[1].seq(), 7u);
}

TEST(SkfEngineTest, SingleMeleeFightsWithAllBases) {
  v1::BattleLog log = Log(kPageExample);
  At(log, 3).mutable_melee_round()->mutable_sides(0)->set_stands_fighting(2);
  auto run = Replay(log);
  const v1::Finding* f = run->Find("skf.melee.bases.all_fight");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->seq(), 3u);
  EXPECT_EQ(f->subject(), "oda-sam");
}

TEST(SkfEngineTest, LeaderHits) {
  v1::BattleLog log = Log(kPageExample);
  // A 1 kills Nobunaga; the log says he survives.
  At(log, 6).mutable_leader_loss()->set_die(1);
  auto run = Replay(log);
  const v1::Finding* f = run->Find("skf.leader_hit.roll");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::SEVERITY_DISPUTE);
  EXPECT_EQ(f->claimed(), "survives");
  EXPECT_EQ(f->computed(), "killed");
  EXPECT_FALSE(run->engine->state().leaders[0].killed);  // As played.

  // No roll at all: missing at the end of the turn.
  log = Log(kPageExample);
  Erase(log, 6);
  run = Replay(log);
  f = run->Find("skf.leader_hit.missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject(), "nobunaga");
  EXPECT_EQ(f->seq(), 7u);
}

TEST(SkfEngineTest, LeaderRollNotOwed) {
  auto run = Replay(Log(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "oda" }
    }
    events {
      seq: 2
      turn: 1
      leader_loss { leader: "nobunaga" die: 1 }
    }
    events {
      seq: 3
      turn: 1
      leader_loss { leader: "nemo" die: 1 }
    }
    events {
      seq: 4
      turn: 1
      turn_end {}
    }
  )pb"));
  EXPECT_THAT(run->ids,
              ElementsAre("skf.leader_hit.not_owed", "log.leader.unknown"));
  EXPECT_FALSE(run->engine->state().leaders[0].killed);
}

TEST(SkfEngineTest, UnknownModifierAndMissingData) {
  v1::Ruleset data = ExampleRuleset();
  // Drop the ashigaru value.
  auto* values = data.mutable_skf()->mutable_melee_values();
  for (int i = 0; i < values->size(); ++i) {
    if (values->Get(i).troop_type() == v1::TROOP_TYPE_ASHIGARU) {
      values->DeleteSubrange(i, 1);
      break;
    }
  }
  auto run = Replay(
      Log(R"pb(
        events {
          seq: 1
          turn: 1
          turn_start { initiative_clan: "oda" }
        }
        events {
          seq: 2
          turn: 1
          melee_round {
            sides {
              unit: "oda-sam2"
              stands_fighting: 4
              dice: 4
              modifiers: "banzai"
              claimed_hits: 1
            }
            sides { unit: "tak-ash" stands_fighting: 4 dice: 4 claimed_hits: 1 }
          }
        }
      )pb"),
      {}, &data);
  EXPECT_THAT(run->ids,
              ElementsAre("skf.melee.modifier.unknown", "skf.melee.unit_value",
                          "log.turn_unfinished"));
  EXPECT_EQ(run->findings[1].severity(), v1::SEVERITY_UNVERIFIABLE);
  EXPECT_THAT(run->findings[1].message(), HasSubstr("ashigaru"));
  // As played: each side's claimed hit lands.
  EXPECT_EQ(run->Unit("tak-ash").carried_hits, 1);
}

TEST(SkfEngineTest, UncoveredMechanismsReportedOncePerKind) {
  auto run = Replay(Log(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "oda" }
    }
    events {
      seq: 2
      turn: 1
      clan: "oda"
      activation {}
    }
    events {
      seq: 3
      turn: 1
      move { unit: "oda-sam" }
    }
    events {
      seq: 4
      turn: 1
      move { unit: "oda-sam2" }
    }
    events {
      seq: 5
      turn: 1
      firing {
        unit: "oda-sam"
        target: "tak-ash"
        claimed_hits: 2
        claimed_stands_lost: 1
      }
    }
    events {
      seq: 6
      turn: 1
      firing { unit: "oda-sam2" target: "tak-ash" claimed_hits: 1 }
    }
    events {
      seq: 7
      turn: 1
      charge { unit: "oda-sam" target: "tak-leg" }
    }
    events {
      seq: 8
      turn: 1
      morale_test { unit: "tak-ash" dice: 2 }
    }
    events {
      seq: 9
      turn: 1
      morale_test { unit: "tak-leg" dice: 2 }
    }
    events {
      seq: 10
      turn: 1
      turn_end {}
    }
  )pb"));
  EXPECT_THAT(
      run->ids,
      ElementsAre("skf.uncovered.movement", "skf.uncovered.firing",
                  "skf.uncovered.charge", "skf.uncovered.morale_reason"));
  // Firing as claimed: 3 hits, 1 base lost, 2 disorder.
  EXPECT_EQ(run->Unit("tak-ash").stands, 3);
  EXPECT_EQ(run->Unit("tak-ash").carried_hits, 2);
}

TEST(SkfEngineTest, BadInputIsFindingsNotACrash) {
  auto run = Replay(Log(R"pb(
    events {
      seq: 5
      turn: 1
      melee_round {}
    }
    events {
      seq: 4
      turn: 2
      turn_start { initiative_clan: "nobody" initiative_dice: 9 }
    }
    events {
      seq: 6
      turn: 2
      melee_round {
        sides {
          unit: "oda-sam"
          stands_fighting: 99
          dice: [ 0, 7 ]
        }
        sides { unit: "ghost" }
      }
    }
    events {
      seq: 7
      turn: 2
      melee_round {
        sides { unit: "oda-sam" stands_fighting: 0 dice: 9 claimed_hits: 1 }
        sides {
          unit: "oda-sam2"
          stands_fighting: 4
          dice: 3
          claimed_stands_lost: 4000000000
        }
      }
    }
    events {
      seq: 8
      turn: 2
      removal { unit: "oda-sam2" }
    }
    events {
      seq: 9
      turn: 2
      removal { unit: "oda-sam2" }
    }
    events { seq: 10 turn: 2 }
    events {
      seq: 11
      turn: 2
      game_end {}
    }
    events {
      seq: 12
      turn: 2
      turn_end {}
    }
  )pb"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.seq.order"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.melee.sides"));
  EXPECT_THAT(run->ids, ::testing::Contains("skf.sequence.outside_turn"));
  EXPECT_THAT(run->ids, ::testing::Contains("skf.sequence.turn_number"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.clan.unknown"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.unit.unknown"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.die.range"));
  EXPECT_THAT(run->ids, ::testing::Contains("skf.melee.enemy"));
  EXPECT_THAT(run->ids, ::testing::Contains("skf.melee.bases.fighting"));
  EXPECT_THAT(run->ids, ::testing::Contains("skf.melee.bases_lost"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.unit.removed"));
  EXPECT_THAT(run->ids, ::testing::Contains("log.event.empty"));
  EXPECT_THAT(run->ids, ::testing::Contains("skf.sequence.after_game_end"));
  EXPECT_TRUE(run->Unit("oda-sam2").removed);
}

TEST(SkfEngineTest, MeleeSizeIsBounded) {
  // 300 pairings of one melee: those past the 256th are skipped, once
  // reported each, and replay stays quick.
  v1::BattleLog log = Log(R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "oda" }
    }
  )pb");
  for (int i = 0; i < 300; ++i) {
    v1::Event* e = log.add_events();
    e->set_seq(2 + i);
    e->set_turn(1);
    v1::MeleeRound* round = e->mutable_melee_round();
    round->set_melee_id("big");
    for (const char* unit : {"oda-sam2", "tak-ash"}) {
      v1::MeleeSide* side = round->add_sides();
      side->set_unit(unit);
      side->set_stands_fighting(1);
      side->add_dice(1);
      side->set_claimed_hits(0);
    }
  }
  auto run = Replay(log);
  EXPECT_EQ(std::count(run->ids.begin(), run->ids.end(),
                       "skf.melee.too_many_pairings"),
            300 - 256);
  EXPECT_EQ(
      std::count(run->ids.begin(), run->ids.end(), "skf.melee.pairing_twice"),
      255);
}

TEST(SkfEngineTest, UnusableOrderOfBattleIsAnError) {
  v1::BattleLog log = Log("");
  log.mutable_order_of_battle()->mutable_units(0)->set_troop_type(
      v1::TROOP_TYPE_UNSPECIFIED);
  const rules::RulesetPlugin* plugin = rules::FindRulesetPlugin("skf");
  ASSERT_NE(plugin, nullptr);
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  auto engine = plugin->create(log, ExampleRuleset(), {},
                               rules::EngineOutput{&findings, nullptr});
  ASSERT_FALSE(engine.ok());
  EXPECT_THAT(std::string(engine.status().message()),
              HasSubstr("order_of_battle.units[0] (id \"oda-sam\")"));
  log = Log("");
  log.mutable_order_of_battle()->mutable_leaders(0)->set_attached_unit("x");
  engine = plugin->create(log, ExampleRuleset(), {},
                          rules::EngineOutput{&findings, nullptr});
  ASSERT_FALSE(engine.ok());
  EXPECT_THAT(std::string(engine.status().message()),
              HasSubstr("attached_unit \"x\""));
}

TEST(SkfEngineTest, MoraleCheckedWhenTheRulesetHasOne) {
  v1::Ruleset data = ExampleRuleset();
  // A test check: 1d6 against 4+ for every quality but Raw; fail by 1 or
  // more retreat, by 3 rout.
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        dice: 1
        pass_scores { quality: QUALITY_SEASONED score: 4 }
        failures { fail_by: 1 result: MORALE_RESULT_RETREAT }
        failures { fail_by: 3 result: MORALE_RESULT_ROUT }
        per_leader_touching: 1
      )pb",
      data.mutable_skf()->mutable_morale()));
  v1::BattleLog log = Log(kPageExample);
  log.mutable_order_of_battle()->mutable_units(0)->set_quality(
      v1::QUALITY_SEASONED);
  log.mutable_order_of_battle()->mutable_units(2)->set_quality(
      v1::QUALITY_SEASONED);
  auto run = Replay(log, {}, &data);
  // oda-sam: 4 + 1 (Nobunaga) = 5 >= 4: no effect, as claimed. tak-leg:
  // 1 against 4+: fails by 3, rout, as claimed.
  EXPECT_THAT(run->ids, IsEmpty());
  // Takeda claims a halt instead: disputed.
  log.mutable_events(4)->mutable_morale_test()->set_claimed_result(
      v1::MORALE_RESULT_HALT);
  run = Replay(log, {}, &data);
  EXPECT_THAT(run->ids, ElementsAre("skf.morale.result"));
  EXPECT_EQ(run->findings[0].computed(), "rout");
  EXPECT_FALSE(run->Unit("tak-leg").routing);  // As played.
}

}  // namespace
}  // namespace gunbai::testing
