// The rulesets gunbai knows. Adding one: see rules/README.md, "Adding a
// ruleset".
#include <array>
#include <vector>

#include "rules/builtin_rulesets.h"
#include "rules/daimyo/engine.h"
#include "rules/engine.h"
#include "rules/skf/engine.h"

namespace gunbai::rules {

absl::Span<const RulesetPlugin> RulesetPlugins() {
  static const auto* const kPlugins = new std::array<RulesetPlugin, 2>{{
      {"daimyo", "Daimyo, Samurai Wargames Rules 1550-1615",
       DaimyoRulesetText(), &daimyo::ValidateDaimyoRuleset,
       &daimyo::CreateDaimyoEngine, &daimyo::DaimyoServerDice,
       "rules/daimyo/RULES.md", DaimyoRulesDoc(), nullptr,
       &daimyo::DaimyoDiceInPairs},
      {"skf",
       "Samurai Knight Fever, page 6 (melee, leader hits); example tables",
       SkfRulesetText(), &skf::ValidateSkfRuleset, &skf::CreateSkfEngine,
       &skf::SkfServerDice, "rules/skf/RULES.md", SkfRulesDoc(),
       &skf::SkfVictorySettings, &skf::SkfDiceInPairs},
  }};
  return *kPlugins;
}

std::vector<RulesDoc> RulesDocs() {
  std::vector<RulesDoc> docs = {{"rules/SCENARIO.md", "", ScenarioRulesDoc()}};
  for (const RulesetPlugin& plugin : RulesetPlugins()) {
    if (!plugin.docs.empty()) {
      docs.push_back({plugin.docs_path, plugin.name, plugin.docs});
    }
  }
  return docs;
}

const RulesetPlugin* FindRulesetPlugin(absl::string_view name) {
  for (const RulesetPlugin& plugin : RulesetPlugins()) {
    if (plugin.name == name) return &plugin;
  }
  return nullptr;
}

}  // namespace gunbai::rules
