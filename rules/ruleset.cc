#include "rules/ruleset.h"

namespace gunbai::rules {

namespace {

struct FactorText {
  absl::string_view rule_id;
  absl::string_view label;
};

constexpr std::array<FactorText, kFiringFactorCount> kFactorText = {{
    {"daimyo.fire.factor.first_volley",
     "first volley of the game, in good order"},
    {"daimyo.fire.factor.light_armour", "target in light armour"},
    {"daimyo.fire.factor.arquebus_vs_cavalry", "arquebus firing at cavalry"},
    {"daimyo.fire.factor.effective_range", "target at effective range"},
    {"daimyo.fire.factor.column_or_flanked", "target in column or flanked"},
    {"daimyo.fire.factor.building", "target occupying a building"},
    {"daimyo.fire.factor.bow_vs_heavy", "bow firing at heavy armour"},
    {"daimyo.fire.factor.disordered", "firing unit disordered"},
    {"daimyo.fire.factor.raw", "firing unit is Raw"},
    {"daimyo.fire.factor.being_charged", "firing unit is being charged"},
    {"daimyo.fire.factor.moved", "firing unit moved or manoeuvred this turn"},
    {"daimyo.fire.factor.cover", "target behind cover"},
}};

}  // namespace

absl::string_view FiringFactorRuleId(FiringFactor f) {
  return kFactorText[static_cast<std::size_t>(f)].rule_id;
}

absl::string_view FiringFactorLabel(FiringFactor f) {
  return kFactorText[static_cast<std::size_t>(f)].label;
}

}  // namespace gunbai::rules
