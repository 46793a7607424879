// Daimyo's tables in domain terms: the factors, modifiers, tables and
// constants its rules read (rules/daimyo/firing.h, melee.h, morale.h,
// leader_loss.h), and its readings. Built from the ruleset's data by
// DaimyoRulesFromData (rules/daimyo/engine.h). Immutable once built; safe to
// share between threads.
#ifndef GUNBAI_RULES_DAIMYO_TABLES_H_
#define GUNBAI_RULES_DAIMYO_TABLES_H_

#include <array>
#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "rules/battlefield.h"
#include "rules/reading_probe.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {

// The firing factors of Daimyo, in the order of the firing section.
enum class FiringFactor {
  kFirstVolley,
  kTargetLightArmour,
  kArquebusVsCavalry,
  kEffectiveRange,
  kTargetColumnOrFlanked,
  kTargetInBuilding,
  kBowVsHeavyArmour,
  kFirerDisordered,
  kFirerRaw,
  kFirerBeingCharged,
  kFirerMoved,
  kTargetInCover,
};
inline constexpr std::size_t kFiringFactorCount = 12;

// Returns the stable rule id of a firing factor.
absl::string_view FiringFactorRuleId(FiringFactor f);
// Returns a plain description of a firing factor, e.g. "target in light
// armour".
absl::string_view FiringFactorLabel(FiringFactor f);
// Returns the id of the table rule that measures a firing factor's fact on a
// log with positions ("daimyo.table.fire.cover"), or empty when no tape
// measure settles it. The same for the melee and morale modifiers below.
absl::string_view FiringFactorMeasuredBy(FiringFactor f);

struct FiringRules {
  int dice_per_stand = 2;
  int hit_score = 8;
  int effective_range_mm = 80;
  int long_range_mm = 150;
  int woods_range_mm = 30;
  int max_stands_from_building = 2;
  int ranks_good_order = 2;
  int ranks_disordered = 1;
  std::array<int, kFiringFactorCount> factors{};

  int factor(FiringFactor f) const {
    return factors[static_cast<std::size_t>(f)];
  }
};

// The melee modifiers of Daimyo, in the order of the melee section. Every
// minus entry is an advantage of the enemy, counted on the side it hurts.
enum class MeleeModifier {
  kCavalryCharging,
  kGeneralWithUnit,
  kFrenzied,
  kPursuing,
  kGoodOrderLongSpearOrLanceFirstRound,
  kDaimyoWithUnit,
  kGoodOrderPoleArmFirstRound,
  kInfantryCharging,
  kFollowingUp,
  kEnemyHeavyArmour,
  kEnemyFightingToFlankOrRear,
  kEnemyInBuilding,
  kEnemyHigherQuality,
  kEnemyMediumArmour,
  kDisordered,
  kEnemyUphillOrBehindObstacle,
};
inline constexpr std::size_t kMeleeModifierCount = 16;

absl::string_view MeleeModifierRuleId(MeleeModifier m);
absl::string_view MeleeModifierLabel(MeleeModifier m);
absl::string_view MeleeModifierMeasuredBy(MeleeModifier m);

struct WeaponFactors {
  int vs_foot = 0;
  int vs_mounted = 0;
};

struct MeleeRules {
  int dice_per_stand = 2;
  int hit_score = 8;
  // Indexed by MeleeWeapon; weapons the table lacks stay at 0.
  std::array<WeaponFactors, 6> weapons{};
  std::array<int, kMeleeModifierCount> modifiers{};
  int push_back_mm = 30;
  int rout_margin = 2;
  int ranks_first_round = 1;
  int ranks_long_spear_first_round = 2;
  int ranks_later_rounds = 2;
  int ranks_disordered = 1;
  int overlaps_from_round = 2;
  int overlaps_per_flank = 1;
  int front_stands_vs_headquarters = 1;
  int max_stands_building_side = 2;
  int min_command_rating = 1;
  int max_command_rating = 4;

  int modifier(MeleeModifier m) const {
    return modifiers[static_cast<std::size_t>(m)];
  }
  const WeaponFactors& weapon(MeleeWeapon w) const {
    return weapons[static_cast<std::size_t>(w)];
  }
};

// The morale die-roll modifiers, in the order of the morale section.
enum class MoraleModifier {
  kCommandRating,  // Per point of the attached leader's rating.
  kPursuing,
  kUphillOrInCover,
  kGeneralNear,
  kLongSpearChargedFrontallyByCavalry,
  kEnemyRoutingNear,
  kHatamoto,
  kDisordered,
  kOutOfCommand,
  kInfantryChargedByCavalry,
  kEachFriendRoutingNear,
  kEachStandLost,
  kEnemyFacingFlankOrRearNear,
  kLeaderKilledNear,
  kRouting,
};
inline constexpr std::size_t kMoraleModifierCount = 15;

absl::string_view MoraleModifierRuleId(MoraleModifier m);
absl::string_view MoraleModifierLabel(MoraleModifier m);
absl::string_view MoraleModifierMeasuredBy(MoraleModifier m);

// The morale table's columns, by reason for testing.
enum class MoraleColumn {
  kStandLoss,       // Reason 1.
  kBeingCharged,    // Reasons 2 and 3.
  kInitiateCharge,  // Reason 4.
  kCriticalEvent,   // Reasons 5, 6 and 7.
  kRally,           // Reason 8.
};
inline constexpr std::size_t kMoraleColumnCount = 5;

// Returns the column for reason 1-8.
MoraleColumn ColumnForReason(int reason);

struct MoraleRules {
  // Indexed by Quality.
  std::array<int, 4> pass_scores{};
  // [fail by 0 (a pass), 1, 2, 3, 4 or more][column].
  std::array<std::array<MoraleResult, kMoraleColumnCount>, 5> result_table{};
  int proximity_mm = 150;
  int proximity_in_melee_mm = 50;
  std::array<int, kMoraleModifierCount> modifiers{};
  int automatic_pass = 12;
  int automatic_fail = 2;
  int frenzy_samurai_ronin_from = 12;
  int frenzy_warrior_monk_from = 11;

  int pass_score(Quality q) const {
    return pass_scores[static_cast<std::size_t>(q)];
  }
  int modifier(MoraleModifier m) const {
    return modifiers[static_cast<std::size_t>(m)];
  }
  MoraleResult Result(int fail_by, MoraleColumn column) const {
    const int row = fail_by < 0 ? 0 : (fail_by > 4 ? 4 : fail_by);
    return result_table[row][static_cast<std::size_t>(column)];
  }
};

// The stands a late leader-loss roll adds: those left after the loss that
// owes it, or those at the roll.
enum class LeaderRollStands { kAfterTheLoss, kAtTheRoll };
// How long a unit is "being charged": the rest of the turn, or the
// activation in which the charge was declared.
enum class BeingChargedLasts { kRestOfTurn, kChargersActivation };
// Whether a pursuer from a melee of more than one round is disordered only
// when its pursuit meets a fresh enemy, or always.
enum class PursuitDisorder { kFreshEnemy, kAlways };
// Whether a router whose stand-loss test gives Retire or Retreat owes nothing
// more, or the move.
enum class RouterRetireOwes { kNothingMore, kTheMove };
// Whether missile Ashigaru with a long spear fight and test as improvised or
// as long spears.
enum class MissileAshigaruSpear { kImprovised, kLongSpear };

// The reading options of a ruleset (rules/daimyo/RULES.md, "Readings";
// gunbai.v1.ReadingOptions). Each getter notes its option as consulted
// (rules/reading_probe.h): an audit under every reading forks where one is.
class ReadingOptions {
 public:
  bool first_volley_spent_when_disordered() const {
    return Read(1, first_volley_spent_when_disordered_);
  }
  bool stands_lost_count_whole_game() const {
    return Read(2, stands_lost_count_whole_game_);
  }
  LeaderRollStands leader_roll_stands() const {
    return Read(3, leader_roll_stands_);
  }
  BeingChargedLasts being_charged_lasts() const {
    return Read(4, being_charged_lasts_);
  }
  PursuitDisorder pursuit_disorder() const {
    return Read(5, pursuit_disorder_);
  }
  RouterRetireOwes router_retire_owes() const {
    return Read(6, router_retire_owes_);
  }
  MissileAshigaruSpear missile_ashigaru_spear() const {
    return Read(7, missile_ashigaru_spear_);
  }

  void set_first_volley_spent_when_disordered(bool v) {
    first_volley_spent_when_disordered_ = v;
  }
  void set_stands_lost_count_whole_game(bool v) {
    stands_lost_count_whole_game_ = v;
  }
  void set_leader_roll_stands(LeaderRollStands v) { leader_roll_stands_ = v; }
  void set_being_charged_lasts(BeingChargedLasts v) {
    being_charged_lasts_ = v;
  }
  void set_pursuit_disorder(PursuitDisorder v) { pursuit_disorder_ = v; }
  void set_router_retire_owes(RouterRetireOwes v) { router_retire_owes_ = v; }
  void set_missile_ashigaru_spear(MissileAshigaruSpear v) {
    missile_ashigaru_spear_ = v;
  }

 private:
  // `field`: the option's field number in gunbai.v1.ReadingOptions.
  template <typename T>
  static T Read(int field, T value) {
    NoteReading(field);
    return value;
  }

  bool first_volley_spent_when_disordered_ = true;
  bool stands_lost_count_whole_game_ = true;
  LeaderRollStands leader_roll_stands_ = LeaderRollStands::kAfterTheLoss;
  BeingChargedLasts being_charged_lasts_ = BeingChargedLasts::kRestOfTurn;
  PursuitDisorder pursuit_disorder_ = PursuitDisorder::kFreshEnemy;
  RouterRetireOwes router_retire_owes_ = RouterRetireOwes::kNothingMore;
  MissileAshigaruSpear missile_ashigaru_spear_ =
      MissileAshigaruSpear::kImprovised;
};

struct Tables {
  std::string name;
  std::string version;
  FiringRules firing;
  MeleeRules melee;
  MoraleRules morale;
  int hits_per_stand = 3;
  int leader_killed_at_or_below = 4;
  int headquarters_counts_as_stands = 1;
  ReadingOptions options;
  // Measuring a log with positions (rules/battlefield.h).
  TableRules table;
};

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_TABLES_H_
