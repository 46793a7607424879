// Daimyo's data file (gunbai.v1.Ruleset's Daimyo sections) to its tables
// (rules/ruleset.h), and the checks of those sections.
#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "rules/battlefield_proto.h"
#include "rules/daimyo/engine.h"
#include "rules/daimyo/tables.h"
#include "rules/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules::daimyo {

namespace {

using rules::daimyo::FiringFactor;

absl::Status Positive(absl::string_view source, absl::string_view field,
                      int value) {
  if (value > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": ", field, " must be greater than 0 (it is ",
                   value, "); set it in the ruleset file."));
}

absl::Status Validate(const rules::daimyo::Tables& r,
                      absl::string_view source) {
  const struct {
    absl::string_view field;
    int value;
  } required[] = {
      {"firing.dice_per_stand", r.firing.dice_per_stand},
      {"firing.hit_score", r.firing.hit_score},
      {"firing.effective_range_mm", r.firing.effective_range_mm},
      {"firing.long_range_mm", r.firing.long_range_mm},
      {"firing.ranks_good_order", r.firing.ranks_good_order},
      {"firing.ranks_disordered", r.firing.ranks_disordered},
      {"firing.max_stands_from_building", r.firing.max_stands_from_building},
      {"stand_loss.hits_per_stand", r.hits_per_stand},
      {"melee.dice_per_stand", r.melee.dice_per_stand},
      {"melee.hit_score", r.melee.hit_score},
      {"melee.ranks_first_round", r.melee.ranks_first_round},
      {"melee.ranks_later_rounds", r.melee.ranks_later_rounds},
      {"melee.ranks_disordered", r.melee.ranks_disordered},
      {"melee.rout_margin", r.melee.rout_margin},
      {"melee.max_command_rating", r.melee.max_command_rating},
  };
  for (const auto& f : required) {
    GUNBAI_RETURN_IF_ERROR(Positive(source, f.field, f.value));
  }
  if (r.firing.dice_per_stand > 6) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": firing.dice_per_stand is at most 6."));
  }
  if (r.melee.dice_per_stand > 6) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": melee.dice_per_stand is at most 6."));
  }
  if (r.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the ruleset needs a name."));
  }
  return absl::OkStatus();
}

// The index of a named weapon or quality in the tables (the domain enum's
// number), -1 for UNSPECIFIED or an unnamed number.
int MeleeWeaponIndex(gunbai::v1::MeleeWeapon w) {
  const std::optional<rules::MeleeWeapon> weapon =
      rules::NamedMeleeWeaponFromProto(w);
  return weapon.has_value() ? static_cast<int>(*weapon) : -1;
}

int QualityIndex(gunbai::v1::Quality q) {
  const std::optional<rules::Quality> quality = rules::QualityFromProto(q);
  return quality.has_value() ? static_cast<int>(*quality) : -1;
}

// The melee modifiers' values, in the order of rules::daimyo::MeleeModifier.
std::array<int, rules::daimyo::kMeleeModifierCount> MeleeModifiersToDomain(
    const gunbai::v1::MeleeModifiers& x) {
  return {
      x.cavalry_charging(),
      x.general_with_unit(),
      x.frenzied(),
      x.pursuing(),
      x.good_order_long_spear_or_lance_first_round(),
      x.daimyo_with_unit(),
      x.good_order_pole_arm_first_round(),
      x.infantry_charging(),
      x.following_up(),
      x.enemy_heavy_armour(),
      x.enemy_fighting_to_flank_or_rear(),
      x.enemy_in_building(),
      x.enemy_higher_quality(),
      x.enemy_medium_armour(),
      x.disordered(),
      x.enemy_uphill_or_behind_obstacle(),
  };
}

rules::daimyo::MeleeRules MeleeToDomain(const gunbai::v1::MeleeRules& m) {
  rules::daimyo::MeleeRules r;
  r.dice_per_stand = static_cast<int>(m.dice_per_stand());
  r.hit_score = static_cast<int>(m.hit_score());
  for (const auto& w : m.weapons()) {
    const int i = MeleeWeaponIndex(w.weapon());
    if (i >= 0) r.weapons[i] = {w.vs_foot(), w.vs_mounted()};
  }
  r.modifiers = MeleeModifiersToDomain(m.modifiers());
  r.push_back_mm = static_cast<int>(m.push_back_mm());
  r.rout_margin = static_cast<int>(m.rout_margin());
  r.ranks_first_round = static_cast<int>(m.ranks_first_round());
  r.ranks_long_spear_first_round =
      static_cast<int>(m.ranks_long_spear_first_round());
  r.ranks_later_rounds = static_cast<int>(m.ranks_later_rounds());
  r.ranks_disordered = static_cast<int>(m.ranks_disordered());
  r.overlaps_from_round = static_cast<int>(m.overlaps_from_round());
  r.overlaps_per_flank = static_cast<int>(m.overlaps_per_flank());
  r.front_stands_vs_headquarters =
      static_cast<int>(m.front_stands_vs_headquarters());
  r.max_stands_building_side = static_cast<int>(m.max_stands_building_side());
  r.min_command_rating = static_cast<int>(m.min_command_rating());
  r.max_command_rating = static_cast<int>(m.max_command_rating());
  return r;
}

// The morale modifiers' values, in the order of rules::daimyo::MoraleModifier.
std::array<int, rules::daimyo::kMoraleModifierCount> MoraleModifiersToDomain(
    const gunbai::v1::MoraleModifiers& x) {
  return {
      x.per_command_rating_point(),
      x.pursuing(),
      x.uphill_or_in_cover(),
      x.general_near(),
      x.long_spear_good_order_charged_frontally_by_cavalry(),
      x.enemy_routing_near(),
      x.hatamoto(),
      x.disordered(),
      x.out_of_command(),
      x.infantry_charged_by_cavalry(),
      x.each_friend_of_equal_or_higher_quality_routing_near(),
      x.each_stand_lost(),
      x.enemy_facing_flank_or_rear_near(),
      x.leader_killed_near(),
      x.routing(),
  };
}

rules::daimyo::MoraleRules MoraleToDomain(const gunbai::v1::MoraleRules& m) {
  rules::daimyo::MoraleRules r;
  for (const auto& p : m.pass_scores()) {
    const int i = QualityIndex(p.quality());
    if (i >= 0) r.pass_scores[i] = static_cast<int>(p.score());
  }
  for (const auto& row : m.result_table()) {
    if (row.fail_by() > 4) continue;
    auto& out = r.result_table[row.fail_by()];
    out[0] = MoraleResultFromProto(row.stand_loss());
    out[1] = MoraleResultFromProto(row.being_charged());
    out[2] = MoraleResultFromProto(row.initiate_charge());
    out[3] = MoraleResultFromProto(row.critical_event());
    out[4] = MoraleResultFromProto(row.rally());
  }
  r.proximity_mm = static_cast<int>(m.proximity_mm());
  r.proximity_in_melee_mm = static_cast<int>(m.proximity_in_melee_mm());
  r.modifiers = MoraleModifiersToDomain(m.modifiers());
  r.automatic_pass = static_cast<int>(m.automatic_pass());
  r.automatic_fail = static_cast<int>(m.automatic_fail());
  r.frenzy_samurai_ronin_from = static_cast<int>(m.frenzy_samurai_ronin_from());
  r.frenzy_warrior_monk_from = static_cast<int>(m.frenzy_warrior_monk_from());
  return r;
}

absl::Status ValidateTables(const gunbai::v1::Ruleset& d,
                            absl::string_view source) {
  bool rows[5] = {false, false, false, false, false};
  for (const auto& row : d.morale().result_table()) {
    if (row.fail_by() > 4) {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": morale.result_table fail_by is 0 to 4 (4 means 4 or "
                       "more); found ",
                       row.fail_by(), "."));
    }
    rows[row.fail_by()] = true;
  }
  for (int i = 0; i < 5; ++i) {
    if (!rows[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": morale.result_table has no row for fail_by ", i, "."));
    }
  }
  bool qualities[4] = {false, false, false, false};
  for (const auto& p : d.morale().pass_scores()) {
    const int i = QualityIndex(p.quality());
    if (i >= 0) qualities[i] = true;
  }
  for (bool q : qualities) {
    if (!q) {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": morale.pass_scores needs a score for each quality "
                       "(Elite, Veteran, Seasoned, Raw)."));
    }
  }
  return absl::OkStatus();
}

// Copies the enum reading options; an unset option keeps its default.
void OptionsToDomain(const gunbai::v1::ReadingOptions& o,
                     rules::daimyo::ReadingOptions& r) {
  if (o.leader_roll_stands() == gunbai::v1::LEADER_ROLL_STANDS_AT_THE_ROLL) {
    r.set_leader_roll_stands(rules::daimyo::LeaderRollStands::kAtTheRoll);
  }
  if (o.being_charged_lasts() ==
      gunbai::v1::BEING_CHARGED_LASTS_CHARGERS_ACTIVATION) {
    r.set_being_charged_lasts(
        rules::daimyo::BeingChargedLasts::kChargersActivation);
  }
  if (o.pursuit_disorder() == gunbai::v1::PURSUIT_DISORDER_ALWAYS) {
    r.set_pursuit_disorder(rules::daimyo::PursuitDisorder::kAlways);
  }
  if (o.router_retire_owes() == gunbai::v1::ROUTER_RETIRE_OWES_THE_MOVE) {
    r.set_router_retire_owes(rules::daimyo::RouterRetireOwes::kTheMove);
  }
  if (o.missile_ashigaru_spear() ==
      gunbai::v1::MISSILE_ASHIGARU_SPEAR_LONG_SPEAR) {
    r.set_missile_ashigaru_spear(
        rules::daimyo::MissileAshigaruSpear::kLongSpear);
  }
}

// The firing section: the ranges, the ranks that fire and the factors.
rules::daimyo::FiringRules FiringToDomain(const gunbai::v1::FiringRules& f) {
  rules::daimyo::FiringRules r;
  r.dice_per_stand = static_cast<int>(f.dice_per_stand());
  r.hit_score = static_cast<int>(f.hit_score());
  r.effective_range_mm = static_cast<int>(f.effective_range_mm());
  r.long_range_mm = static_cast<int>(f.long_range_mm());
  r.woods_range_mm = static_cast<int>(f.woods_range_mm());
  r.max_stands_from_building = static_cast<int>(f.max_stands_from_building());
  r.ranks_good_order = static_cast<int>(f.ranks_good_order());
  r.ranks_disordered = static_cast<int>(f.ranks_disordered());
  const auto& x = f.factors();
  auto set = [&r](FiringFactor factor, int value) {
    r.factors[static_cast<std::size_t>(factor)] = value;
  };
  set(FiringFactor::kFirstVolley, x.first_volley());
  set(FiringFactor::kTargetLightArmour, x.target_light_armour());
  set(FiringFactor::kArquebusVsCavalry, x.arquebus_vs_cavalry());
  set(FiringFactor::kEffectiveRange, x.effective_range());
  set(FiringFactor::kTargetColumnOrFlanked, x.target_column_or_flanked());
  set(FiringFactor::kTargetInBuilding, x.target_in_building());
  set(FiringFactor::kBowVsHeavyArmour, x.bow_vs_heavy_armour());
  set(FiringFactor::kFirerDisordered, x.firer_disordered());
  set(FiringFactor::kFirerRaw, x.firer_raw());
  set(FiringFactor::kFirerBeingCharged, x.firer_being_charged());
  set(FiringFactor::kFirerMoved, x.firer_moved());
  set(FiringFactor::kTargetInCover, x.target_in_cover());
  return r;
}

rules::daimyo::Tables ToDomain(const gunbai::v1::Ruleset& d) {
  rules::daimyo::Tables r;
  r.name = d.name();
  r.version = d.version();
  r.firing = FiringToDomain(d.firing());
  r.melee = MeleeToDomain(d.melee());
  r.morale = MoraleToDomain(d.morale());
  r.hits_per_stand = static_cast<int>(d.stand_loss().hits_per_stand());
  r.leader_killed_at_or_below =
      static_cast<int>(d.leader_loss().killed_at_or_below());
  r.headquarters_counts_as_stands =
      static_cast<int>(d.leader_loss().headquarters_counts_as());
  r.options.set_first_volley_spent_when_disordered(
      d.options().first_volley_spent_when_disordered());
  r.options.set_stands_lost_count_whole_game(
      d.options().stands_lost_count_whole_game());
  OptionsToDomain(d.options(), r.options);
  if (d.has_table()) {
    // Validated by ValidateDaimyoRuleset before any engine is built.
    absl::StatusOr<rules::TableRules> table =
        rules::TableRulesFromProto(d.table(), "ruleset");
    if (table.ok()) r.table = *std::move(table);
  }
  return r;
}

}  // namespace

rules::daimyo::Tables DaimyoRulesFromData(const gunbai::v1::Ruleset& data) {
  return ToDomain(data);
}

absl::Status ValidateDaimyoRuleset(const gunbai::v1::Ruleset& data,
                                   absl::string_view source) {
  GUNBAI_RETURN_IF_ERROR(Validate(ToDomain(data), source));
  if (data.has_table()) {
    GUNBAI_RETURN_IF_ERROR(
        rules::TableRulesFromProto(data.table(), source).status());
  }
  return ValidateTables(data, source);
}

bool DaimyoDiceInPairs(gunbai::v1::Event::BodyCase roll, int /*dice*/) {
  return roll == gunbai::v1::Event::kFiring ||
         roll == gunbai::v1::Event::kMeleeRound ||
         roll == gunbai::v1::Event::kMoraleTest;
}

}  // namespace gunbai::rules::daimyo
