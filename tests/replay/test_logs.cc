#include "tests/replay/test_logs.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"

namespace gunbai::testing {

namespace {

constexpr char kBase[] = R"pb(
  header {
    game_id: "test"
    ruleset { name: "daimyo" version: "1.0" }
    clans { id: "red" }
    clans { id: "blue" }
  }
  order_of_battle {
    units {
      id: "red-teppo"
      clan: "red"
      troop_type: TROOP_TYPE_ASHIGARU
      mobility: MOBILITY_FOOT
      quality: QUALITY_SEASONED
      armour: ARMOUR_LIGHT
      missile_weapon: MISSILE_WEAPON_ARQUEBUS
      stands: 6
      stands_per_rank: 3
    }
    units {
      id: "red-samurai"
      clan: "red"
      troop_type: TROOP_TYPE_SAMURAI
      mobility: MOBILITY_MOUNTED
      quality: QUALITY_VETERAN
      armour: ARMOUR_HEAVY
      melee_weapon: MELEE_WEAPON_LANCE
      stands: 4
      stands_per_rank: 4
    }
    units {
      id: "blue-yumi"
      clan: "blue"
      troop_type: TROOP_TYPE_ASHIGARU
      mobility: MOBILITY_FOOT
      quality: QUALITY_RAW
      armour: ARMOUR_NONE
      missile_weapon: MISSILE_WEAPON_BOW
      stands: 4
      stands_per_rank: 4
    }
    units {
      id: "blue-hq"
      clan: "blue"
      troop_type: TROOP_TYPE_HEADQUARTERS
      mobility: MOBILITY_FOOT
      quality: QUALITY_VETERAN
      stands: 1
    }
    leaders {
      id: "red-gen"
      clan: "red"
      kind: LEADER_KIND_GENERAL
      command_rating: 2
      attached_unit: "red-samurai"
    }
    leaders {
      id: "blue-daimyo"
      clan: "blue"
      kind: LEADER_KIND_DAIMYO
      command_rating: 3
      attached_unit: "blue-hq"
    }
  }
)pb";

}  // namespace

v1::BattleLog BaseLog() {
  v1::BattleLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kBase, &log));
  return log;
}

v1::BattleLog LogWithEvents(const std::string& events_text) {
  v1::BattleLog log = BaseLog();
  v1::BattleLog events;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(events_text, &events))
      << events_text;
  log.mutable_events()->MergeFrom(events.events());
  return log;
}

v1::AuditReport AuditOrDie(const v1::BattleLog& log) {
  auto ruleset = replay::BuiltinRuleset("daimyo");
  EXPECT_TRUE(ruleset.ok()) << ruleset.status();
  auto report = replay::AuditLog(log, *ruleset);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : v1::AuditReport();
}

std::vector<std::string> FindingKeys(const v1::AuditReport& report) {
  std::vector<std::string> keys;
  for (const v1::Finding& f : report.findings()) {
    keys.push_back(absl::StrCat(f.seq(), ":", v1::Severity_Name(f.severity()),
                                ":", f.rule_id()));
  }
  return keys;
}

std::string Ev(int seq, int turn, const std::string& clan,
               const std::string& body) {
  return absl::StrCat("events { seq: ", seq, " turn: ", turn, " clan: \"", clan,
                      "\" ", body, " }\n");
}
std::string TurnStart(int seq, int turn, const std::string& initiative) {
  return Ev(
      seq, turn, "",
      absl::StrCat("turn_start { initiative_clan: \"", initiative, "\" }"));
}
std::string Activation(int seq, int turn, const std::string& clan) {
  return Ev(seq, turn, clan, "activation {}");
}
std::string TurnEnd(int seq, int turn) {
  return Ev(seq, turn, "", "turn_end {}");
}

}  // namespace gunbai::testing
