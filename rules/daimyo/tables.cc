#include "rules/daimyo/tables.h"

namespace gunbai::rules::daimyo {

namespace {

struct FactorText {
  absl::string_view rule_id;
  absl::string_view label;
  // The table rule (rules/daimyo/RULES.md, the table) that measures the
  // factor's fact on a log with positions; empty for a fact no tape
  // measure settles (armour, quality, a leader attached).
  absl::string_view measured_by = {};
};

constexpr std::array<FactorText, kFiringFactorCount> kFactorText = {{
    {"daimyo.fire.factor.first_volley",
     "first volley of the game, in good order"},
    {"daimyo.fire.factor.light_armour", "target in light armour"},
    {"daimyo.fire.factor.arquebus_vs_cavalry", "arquebus firing at cavalry"},
    {"daimyo.fire.factor.effective_range", "target at effective range",
     "daimyo.table.fire.range"},
    {"daimyo.fire.factor.column_or_flanked", "target in column or flanked",
     "daimyo.table.fire.column_or_flanked"},
    {"daimyo.fire.factor.building", "target occupying a building",
     "daimyo.table.fire.building"},
    {"daimyo.fire.factor.bow_vs_heavy", "bow firing at heavy armour"},
    {"daimyo.fire.factor.disordered", "firing unit disordered"},
    {"daimyo.fire.factor.raw", "firing unit is Raw"},
    {"daimyo.fire.factor.being_charged", "firing unit is being charged"},
    {"daimyo.fire.factor.moved", "firing unit moved or manoeuvred this turn"},
    {"daimyo.fire.factor.cover", "target behind cover",
     "daimyo.table.fire.cover"},
}};

}  // namespace

absl::string_view FiringFactorRuleId(FiringFactor f) {
  return kFactorText[static_cast<std::size_t>(f)].rule_id;
}

absl::string_view FiringFactorLabel(FiringFactor f) {
  return kFactorText[static_cast<std::size_t>(f)].label;
}

absl::string_view FiringFactorMeasuredBy(FiringFactor f) {
  return kFactorText[static_cast<std::size_t>(f)].measured_by;
}

namespace {

constexpr std::array<FactorText, kMeleeModifierCount> kMeleeText = {{
    {"daimyo.melee.modifier.cavalry_charging", "cavalry charging"},
    {"daimyo.melee.modifier.general", "general with the unit"},
    {"daimyo.melee.modifier.frenzied", "frenzied"},
    {"daimyo.melee.modifier.pursuing", "pursuing"},
    {"daimyo.melee.modifier.long_spear_or_lance_first_round",
     "long spear or lance in good order, first round"},
    {"daimyo.melee.modifier.daimyo", "daimyo with the unit"},
    {"daimyo.melee.modifier.pole_arm_first_round",
     "pole arm in good order, first round"},
    {"daimyo.melee.modifier.infantry_charging", "infantry charging"},
    {"daimyo.melee.modifier.following_up", "following up"},
    {"daimyo.melee.modifier.enemy_heavy_armour", "enemy in heavy armour"},
    {"daimyo.melee.modifier.enemy_flank_or_rear",
     "enemy fighting to this side's flank or rear",
     "daimyo.table.melee.flank_or_rear"},
    {"daimyo.melee.modifier.enemy_in_building", "enemy occupying a building",
     "daimyo.table.melee.building"},
    {"daimyo.melee.modifier.enemy_higher_quality", "enemy of higher quality"},
    {"daimyo.melee.modifier.enemy_medium_armour", "enemy in medium armour"},
    {"daimyo.melee.modifier.disordered", "disordered"},
    {"daimyo.melee.modifier.enemy_uphill_or_obstacle",
     "enemy uphill or behind an obstacle",
     "daimyo.table.melee.uphill_or_obstacle"},
}};

constexpr std::array<FactorText, kMoraleModifierCount> kMoraleText = {{
    {"daimyo.morale.modifier.command_rating",
     "command rating of the attached leader"},
    {"daimyo.morale.modifier.pursuing", "pursuing"},
    {"daimyo.morale.modifier.uphill_or_cover",
     "uphill of all enemy near, or in cover",
     "daimyo.table.morale.uphill_or_in_cover"},
    {"daimyo.morale.modifier.general_near", "general near",
     "daimyo.table.morale.general_near"},
    {"daimyo.morale.modifier.long_spear_vs_cavalry",
     "long spear in good order charged frontally by cavalry",
     "daimyo.table.morale.charged_frontally"},
    {"daimyo.morale.modifier.enemy_routing_near", "enemy routing near",
     "daimyo.table.near"},
    {"daimyo.morale.modifier.hatamoto", "hatamoto testing"},
    {"daimyo.morale.modifier.disordered", "disordered"},
    {"daimyo.morale.modifier.out_of_command", "out of command reach",
     "daimyo.table.morale.out_of_command"},
    {"daimyo.morale.modifier.infantry_charged_by_cavalry",
     "infantry charged by cavalry"},
    {"daimyo.morale.modifier.friend_routing_near",
     "friendly unit of equal or higher quality routing near",
     "daimyo.table.near"},
    {"daimyo.morale.modifier.stand_lost", "stand lost"},
    {"daimyo.morale.modifier.enemy_flank_or_rear_near",
     "enemy facing the unit's flank or rear near",
     "daimyo.table.morale.enemy_flank_or_rear"},
    {"daimyo.morale.modifier.leader_killed_near",
     "leader killed near this turn", "daimyo.table.morale.leader_killed_near"},
    {"daimyo.morale.modifier.routing", "routing"},
}};

}  // namespace

absl::string_view MeleeModifierRuleId(MeleeModifier m) {
  return kMeleeText[static_cast<std::size_t>(m)].rule_id;
}
absl::string_view MeleeModifierLabel(MeleeModifier m) {
  return kMeleeText[static_cast<std::size_t>(m)].label;
}
absl::string_view MeleeModifierMeasuredBy(MeleeModifier m) {
  return kMeleeText[static_cast<std::size_t>(m)].measured_by;
}
absl::string_view MoraleModifierRuleId(MoraleModifier m) {
  return kMoraleText[static_cast<std::size_t>(m)].rule_id;
}
absl::string_view MoraleModifierLabel(MoraleModifier m) {
  return kMoraleText[static_cast<std::size_t>(m)].label;
}
absl::string_view MoraleModifierMeasuredBy(MoraleModifier m) {
  return kMoraleText[static_cast<std::size_t>(m)].measured_by;
}

MoraleColumn ColumnForReason(int reason) {
  switch (reason) {
    case 1:
      return MoraleColumn::kStandLoss;
    case 2:
    case 3:
      return MoraleColumn::kBeingCharged;
    case 4:
      return MoraleColumn::kInitiateCharge;
    case 8:
      return MoraleColumn::kRally;
    default:
      return MoraleColumn::kCriticalEvent;
  }
}

}  // namespace gunbai::rules::daimyo
