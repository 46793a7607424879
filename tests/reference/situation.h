// Random situations for the reference check: each is a complete, legal
// Daimyo battle-log fragment whose claims are the reference model's
// (tests/reference/model.h). Deterministic: situation `seed` of a kind is
// always the same log. Thread-safe: no shared state.
#ifndef GUNBAI_TESTS_REFERENCE_SITUATION_H_
#define GUNBAI_TESTS_REFERENCE_SITUATION_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gunbai/v1/battle_log.pb.h"

namespace gunbai::reference {

// The kinds of situation, each a weighting of the same game generator:
// "fire" (firing, stand loss, leader loss), "morale" (charges, leader
// deaths, routs, interpenetration, rallies, every modifier), "melee"
// (charges and melee rounds over several turns), "multi" (multi-unit
// melees, two against one, and counter-charges).
const std::vector<std::string>& SituationKinds();
// Every kind reference_check knows: SituationKinds() and "table" (a volley
// on a table, every fact measured by the reference geometry,
// table_model.h; run on its own, --kinds=table).
const std::vector<std::string>& AllSituationKinds();

struct Situation {
  std::string kind;
  std::uint64_t seed = 0;
  gunbai::v1::BattleLog log;
  // Pending readings (pending.h) whose effect this log relies on: tag ->
  // seq of the first event that relies on it (findings before it are not
  // explained by it).
  std::map<std::string, std::uint64_t> pending_tags;
  // Model workings, one line per claimed event ("seq 7: ..."), for the
  // reproducer files.
  std::vector<std::string> workings;
  // Findings the model expects, rule id -> seq (a log that breaks a rule on
  // purpose: a table volley out of arc, sight or range, or not at the
  // nearest enemy). Any other finding, or one of these missing, is a
  // disagreement.
  std::map<std::string, std::uint64_t> expected_findings;
  // Findings that may come or not (rule ids): neither agreement nor not.
  std::set<std::string> optional_findings;
};

// Builds situation `seed` of `kind` (one of SituationKinds()).
Situation MakeSituation(const std::string& kind, std::uint64_t seed);

// Builds table situation `seed` (table_situation.cc).
Situation MakeTableSituation(std::uint64_t seed);

// Renders a situation as a commented text-format battle log.
std::string SituationText(const Situation& s);

}  // namespace gunbai::reference

#endif  // GUNBAI_TESTS_REFERENCE_SITUATION_H_
