// Helpers for replay tests: a small order of battle to which a test appends
// events written in text format.
#ifndef GUNBAI_TESTS_REPLAY_TEST_LOGS_H_
#define GUNBAI_TESTS_REPLAY_TEST_LOGS_H_

#include <string>
#include <vector>

#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"

namespace gunbai::testing {

// Two clans ("red", "blue"). Units: red-teppo (Seasoned ashigaru, arquebus,
// light armour, 6 stands, 3 a rank), red-samurai (Veteran mounted samurai,
// heavy armour, lance, 4 stands), blue-yumi (Raw ashigaru, bow, no armour,
// 4 stands, 4 a rank), blue-hq (headquarters, 1 stand). Leaders: red-gen
// (General, 2) with red-samurai; blue-daimyo (Daimyo, 3) with blue-hq.
gunbai::v1::BattleLog BaseLog();

// Returns BaseLog() with `events_text` (text format of repeated `events`)
// parsed in. Fails the test on a parse error.
gunbai::v1::BattleLog LogWithEvents(const std::string& events_text);

// Returns one event in text format (`events { ... }`); `clan` may be empty.
std::string Ev(int seq, int turn, const std::string& clan,
               const std::string& body);
// Returns a turn_start, a clan activation, a turn_end, in text format.
std::string TurnStart(int seq, int turn, const std::string& initiative);
std::string Activation(int seq, int turn, const std::string& clan);
std::string TurnEnd(int seq, int turn);

// Audits under the built-in ruleset; fails the test on an error status.
gunbai::v1::AuditReport AuditOrDie(const gunbai::v1::BattleLog& log);

// Returns "seq:SEVERITY:rule_id" for each finding, in order.
std::vector<std::string> FindingKeys(const gunbai::v1::AuditReport& report);

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_REPLAY_TEST_LOGS_H_
