// The Daimyo ruleset's plug-in entry points (rules/engine.h): the engine is
// the DaimyoEngine (rules/daimyo/daimyo_engine.h), its data conversion and
// checks are in data.cc, its server dice in server_dice.cc.
#ifndef GUNBAI_RULES_DAIMYO_ENGINE_H_
#define GUNBAI_RULES_DAIMYO_ENGINE_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rules/daimyo/tables.h"
#include "rules/engine.h"

namespace gunbai::rules {

// Returns the text of rules/daimyo/daimyo.textproto, embedded at build time.
absl::string_view DaimyoRulesetText();

// Returns the text of rules/daimyo/RULES.md, embedded at build time.
absl::string_view DaimyoRulesDoc();

}  // namespace gunbai::rules

namespace gunbai::rules::daimyo {

// Checks the Daimyo sections of a ruleset file (firing, stand loss, melee,
// morale tables).
absl::Status ValidateDaimyoRuleset(const gunbai::v1::Ruleset& data,
                                   absl::string_view source);

// Returns the Daimyo tables of `data` in domain form; `data` has passed
// ValidateDaimyoRuleset.
Tables DaimyoRulesFromData(const gunbai::v1::Ruleset& data);

absl::StatusOr<std::unique_ptr<Engine>> CreateDaimyoEngine(
    const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
    const EngineOptions& options, EngineOutput output);

// A duel stops after this many pairs even if all tied. Fair dice never get
// there: a pair ties with chance at most 1/6, so 100 ties in a row have
// chance below 6^-100.
inline constexpr int kMaxDuelPairs = 100;

// The dice gunbaid rolls for an event of a live Daimyo game with server dice
// (RulesetPlugin::server_dice; server_dice.cc): a duel is a roll-off
// of the two leaders' dice plus their command ratings in `state`.
absl::StatusOr<ServerDicePlan> DaimyoServerDice(const gunbai::v1::Event& event,
                                                const gunbai::v1::Ruleset& data,
                                                const BattleState& state);

// How the dice statistics read a Daimyo roll (RulesetPlugin::dice_in_pairs;
// data.cc): a firing, each side of a melee round and a morale test roll
// 2d6 (per stand, or per test); every other roll is single dice.
bool DaimyoDiceInPairs(gunbai::v1::Event::BodyCase roll, int dice);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_ENGINE_H_
