#include "rules/daimyo/firing.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gunbai::rules::daimyo {

namespace {

RangeBand BandForDistance(const FiringRules& firing, int distance_mm,
                          bool woods_limit) {
  if (woods_limit && distance_mm > firing.woods_range_mm) {
    return RangeBand::kOutOfRange;
  }
  if (distance_mm <= firing.effective_range_mm) return RangeBand::kEffective;
  if (distance_mm <= firing.long_range_mm) return RangeBand::kLong;
  return RangeBand::kOutOfRange;
}

bool VeteranOrBetter(Quality q) {
  return q == Quality::kElite || q == Quality::kVeteran;
}

void CheckWhoMayFire(const BattleState& state, const Shot& shot,
                     FindingSink& sink) {
  const UnitProfile& firer = state.profiles[shot.firer];
  const bool active = firer.clan == state.active_clan;
  bool charged_by_active = false;
  // Only a unit of another clan needs the scan for chargers.
  for (std::size_t i = 0; !active && i < state.units.size(); ++i) {
    if (state.IsChargedBy(shot.firer, static_cast<int>(i)) &&
        state.profiles[i].clan == state.active_clan) {
      charged_by_active = true;
    }
  }
  // Who may fire rests on the charges in the log, never on a declared
  // "being charged" fact, which only sets the factor.
  if (!active && !charged_by_active) {
    ReportViolation(
        sink, state, shot.firer, "daimyo.fire.eligibility.active_clan",
        absl::StrFormat("%s fired, but only units of the active clan "
                        "(%s) or the targets of its charges may fire.",
                        UnitLabel(state, shot.firer),
                        state.active_clan >= 0 ? state.clans[state.active_clan]
                                               : std::string("none")));
  }
  // "Stands being charged may only fire at troops charging them", for as
  // long as the unit is being charged (the reading option), in whichever
  // clan's activation it fires.
  if ((charged_by_active || (active && state.IsBeingCharged(shot.firer))) &&
      !state.IsChargedBy(shot.firer, shot.target)) {
    ReportViolation(
        sink, state, shot.firer,
        "daimyo.fire.eligibility.charged_fire_at_chargers",
        absl::StrFormat("%s is being charged and may fire only at a unit "
                        "charging it; %s is not charging it.",
                        UnitLabel(state, shot.firer),
                        UnitLabel(state, shot.target)));
  }
}

// Reports what keeps the firing unit itself from firing: no missile weapon,
// a volley already fired this turn, a charge or melee, a rout, a retreat.
void CheckFirerEligible(const BattleState& state, const Shot& shot,
                        FindingSink& sink) {
  const UnitProfile& firer = state.profiles[shot.firer];
  const UnitStatus& status = state.units[shot.firer];
  // Built only when a finding needs it: firing is on the hot path.
  auto label = [&state, &shot] { return UnitLabel(state, shot.firer); };
  if (firer.missile_weapon == MissileWeapon::kNone) {
    ReportViolation(
        sink, state, shot.firer, "daimyo.fire.eligibility.missile_weapon",
        absl::StrCat(label(), " has no bow or arquebus and cannot fire."));
  }
  if (status.fired_this_turn) {
    ReportViolation(sink, state, shot.firer,
                    "daimyo.fire.eligibility.once_per_turn",
                    absl::StrCat(label(),
                                 " already fired this turn; a unit fires at "
                                 "most once per turn."));
  }
  if (status.charging || status.in_melee) {
    ReportViolation(
        sink, state, shot.firer, "daimyo.fire.eligibility.charging_or_in_melee",
        absl::StrCat(label(), " is ", status.charging ? "charging" : "in melee",
                     " and may not fire."));
  }
  if (status.routing) {
    ReportViolation(sink, state, shot.firer, "daimyo.fire.eligibility.routing",
                    absl::StrCat(label(), " is routing and may not fire."));
  }
  if (status.may_not_fire && !status.routing) {
    ReportViolation(
        sink, state, shot.firer, "daimyo.fire.eligibility.morale_result",
        absl::StrCat(label(),
                     " retreated after a morale test this turn and may "
                     "not fire."));
  }
}

// Reports a target that is not an enemy unit still on the table.
void CheckTargetEligible(const BattleState& state, const Shot& shot,
                         FindingSink& sink) {
  const UnitProfile& target = state.profiles[shot.target];
  if (target.clan == state.profiles[shot.firer].clan) {
    ReportViolation(sink, state, shot.firer, "daimyo.fire.target.enemy",
                    absl::StrCat(UnitLabel(state, shot.firer), " fired at ",
                                 UnitLabel(state, shot.target),
                                 ", which is not an enemy unit."));
  } else if (state.units[shot.target].removed) {
    ReportViolation(sink, state, shot.firer, "daimyo.fire.target.on_table",
                    absl::StrCat(UnitLabel(state, shot.firer), " fired at ",
                                 UnitLabel(state, shot.target),
                                 ", which is no longer on the table."));
  }
}

// Says why a shot is out of range, for its finding: the measured distance
// against the long range (and the woods limit), or that it was declared so.
std::string OutOfRangeWhy(const Tables& rules, const Shot& shot) {
  return shot.facts.distance_mm.has_value()
             ? absl::StrFormat(
                   " at %d mm (long range ends at %d "
                   "mm%s)",
                   *shot.facts.distance_mm, rules.firing.long_range_mm,
                   shot.facts.woods_limit
                       ? absl::StrFormat(", %d mm in woods",
                                         rules.firing.woods_range_mm)
                       : "")
             : " (declared out of range)";
}

// Warns when the declared band is not the one the given distance falls in:
// the measured distance is used.
void CheckDeclaredBand(const Tables& rules, const BattleState& state,
                       const Shot& shot, FindingSink& sink) {
  const ShotFacts& facts = shot.facts;
  if (!facts.distance_mm.has_value() || !facts.declared_band.has_value() ||
      *facts.declared_band == BandForDistance(rules.firing, *facts.distance_mm,
                                              facts.woods_limit)) {
    return;
  }
  Finding f;
  f.severity = Severity::kWarning;
  f.rule_id = "daimyo.fire.range.band_mismatch";
  f.subject = state.profiles[shot.firer].id;
  f.message = absl::StrFormat(
      "%s declared %s but measured %d mm, which is %s; gunbai uses the "
      "measured distance.",
      UnitLabel(state, shot.firer), RangeBandName(*facts.declared_band),
      *facts.distance_mm,
      RangeBandName(BandForDistance(rules.firing, *facts.distance_mm,
                                    facts.woods_limit)));
  sink.Report(std::move(f));
}

// Reports a shot out of range, a declared band the distance contradicts,
// and an effective range declared at chargers the rules put at long range.
void CheckRange(const Tables& rules, const BattleState& state, const Shot& shot,
                FindingSink& sink) {
  // Built only when a finding needs it: firing is on the hot path.
  auto label = [&state, &shot] { return UnitLabel(state, shot.firer); };
  const ResolvedBand band = ResolveBand(rules, state, shot);
  if (band.band == RangeBand::kOutOfRange) {
    ReportViolation(sink, state, shot.firer, "daimyo.fire.eligibility.range",
                    absl::StrCat(label(), " fired at a target out of range",
                                 OutOfRangeWhy(rules, shot), "."));
  }
  CheckDeclaredBand(rules, state, shot, sink);
  const ShotFacts& facts = shot.facts;
  if (band.forced_long && !facts.distance_mm.has_value() &&
      facts.declared_band == RangeBand::kEffective) {
    ReportViolation(sink, state, shot.firer,
                    "daimyo.fire.range.long_at_chargers",
                    absl::StrCat(label(),
                                 " fired at effective range at chargers that "
                                 "began their charge beyond effective range; "
                                 "that fire is at long range unless the "
                                 "firers are in cover or Veteran or Elite."));
  }
}

// Describes a volley of more stands than `max_stands`: the building's limit
// when `building_cap`, else the ranks the unit's order lets fire.
std::string TooManyStandsMessage(const Tables& rules, const BattleState& state,
                                 const Shot& shot, int max_stands,
                                 bool building_cap) {
  const UnitStatus& status = state.units[shot.firer];
  const std::string label = UnitLabel(state, shot.firer);
  if (building_cap) {
    return absl::StrFormat(
        "%s fired with %d stands from a building (%s); "
        "at most %d may fire from a building.",
        label, shot.stands_firing,
        status.formation == Formation::kBuilding ? "its formation"
        : shot.facts.measured                    ? "measured on the table"
                                                 : "declared",
        max_stands);
  }
  const int ranks = status.disordered ? rules.firing.ranks_disordered
                                      : rules.firing.ranks_good_order;
  return absl::StrFormat(
      "%s fired with %d stands; %s with %d stands a rank and %d "
      "stands it may fire with at most %d (%d rank%s deep).",
      label, shot.stands_firing,
      status.disordered ? "disordered" : "in good order",
      status.stands_per_rank, status.stands, max_stands, ranks,
      ranks == 1 ? "" : "s");
}

// Reports a volley of more stands than the unit's ranks, or a building,
// let fire.
void CheckRanks(const Tables& rules, const BattleState& state, const Shot& shot,
                FindingSink& sink) {
  const int max_stands = MaxFiringStands(rules, state, shot);
  if (shot.stands_firing <= max_stands) return;
  const bool building_cap = FiresFromBuilding(state, shot) &&
                            max_stands == rules.firing.max_stands_from_building;
  ReportViolation(
      sink, state, shot.firer,
      building_cap ? "daimyo.fire.eligibility.building"
                   : "daimyo.fire.eligibility.ranks",
      TooManyStandsMessage(rules, state, shot, max_stands, building_cap));
}

// Returns whether the shot gives a range band or a distance; reports it
// unverifiable when it gives neither.
bool RangeGiven(const BattleState& state, const Shot& shot, FindingSink& sink) {
  if (shot.facts.declared_band.has_value() ||
      shot.facts.distance_mm.has_value()) {
    return true;
  }
  Finding f;
  f.severity = Severity::kUnverifiable;
  f.rule_id = "daimyo.fire.range.undeclared";
  f.subject = state.profiles[shot.firer].id;
  f.message = absl::StrCat(UnitLabel(state, shot.firer),
                           " fired with neither a range band nor a "
                           "distance declared; the hits cannot be "
                           "worked out. Add facts { range: ... } or "
                           "distance_mm.");
  sink.Report(std::move(f));
  return false;
}

// Returns whether the log has the dice the firing stands roll; reports
// no stands, or the wrong number of dice.
bool CheckDiceCount(const Tables& rules, const BattleState& state,
                    const Shot& shot, FindingSink& sink) {
  const std::size_t want = static_cast<std::size_t>(shot.stands_firing) *
                           rules.firing.dice_per_stand;
  if (shot.stands_firing <= 0) {
    ReportViolation(sink, state, shot.firer, "daimyo.fire.dice_count",
                    absl::StrCat(UnitLabel(state, shot.firer),
                                 " fired with no stands declared; give "
                                 "stands_firing."));
    return false;
  }
  if (shot.dice.size() != want) {
    ReportViolation(
        sink, state, shot.firer, "daimyo.fire.dice_count",
        absl::StrFormat("%s fired with %d stands, which roll %d dice "
                        "(%d per stand); the log has %d.",
                        UnitLabel(state, shot.firer), shot.stands_firing, want,
                        rules.firing.dice_per_stand, shot.dice.size()));
    return false;
  }
  return true;
}

// Returns whether the dice can be resolved: a range given, the right
// number of dice, each 1-6; reports each that is not.
bool CheckDice(const Tables& rules, const BattleState& state, const Shot& shot,
               FindingSink& sink) {
  bool ok = RangeGiven(state, shot, sink);
  if (!CheckDiceCount(rules, state, shot, sink)) ok = false;
  if (!CheckDieFaces(
          shot.dice,
          [&] {
            return absl::StrCat("the firing by ", UnitLabel(state, shot.firer));
          },
          state.profiles[shot.firer].id, sink)) {
    ok = false;
  }
  return ok;
}

struct FactorCheck {
  FiringFactor factor;
  bool applies;
  Origin origin;
};

}  // namespace

bool FirerBeingCharged(const BattleState& state, const Shot& shot) {
  if (shot.facts.firer_being_charged.has_value()) {
    return *shot.facts.firer_being_charged;
  }
  return state.IsBeingCharged(shot.firer);
}

ResolvedBand ResolveBand(const Tables& rules, const BattleState& state,
                         const Shot& shot) {
  ResolvedBand r;
  if (shot.facts.distance_mm.has_value()) {
    r.band = BandForDistance(rules.firing, *shot.facts.distance_mm,
                             shot.facts.woods_limit);
    r.origin = shot.facts.measured ? Origin::kMeasured : Origin::kComputed;
  } else {
    r.band = shot.facts.declared_band.value_or(RangeBand::kEffective);
    r.origin = Origin::kDeclared;
  }
  // The facts first: FirerBeingCharged scans every unit.
  if (r.band == RangeBand::kEffective &&
      shot.facts.chargers_began_beyond_effective &&
      FirerBeingCharged(state, shot) && !shot.facts.firer_in_cover &&
      !VeteranOrBetter(state.profiles[shot.firer].quality)) {
    r.band = RangeBand::kLong;
    r.forced_long = true;
    r.origin = Origin::kComputed;
  }
  return r;
}

bool FiresFromBuilding(const BattleState& state, const Shot& shot) {
  return shot.facts.firing_from_building ||
         state.units[shot.firer].formation == Formation::kBuilding;
}

int MaxFiringStands(const Tables& rules, const BattleState& state,
                    const Shot& shot) {
  const UnitStatus& status = state.units[shot.firer];
  const int ranks = status.disordered ? rules.firing.ranks_disordered
                                      : rules.firing.ranks_good_order;
  int max_stands = std::min(status.stands, ranks * status.stands_per_rank);
  if (FiresFromBuilding(state, shot)) {
    max_stands = std::min(max_stands, rules.firing.max_stands_from_building);
  }
  return max_stands;
}

bool CheckFiring(const Tables& rules, const BattleState& state,
                 const Shot& shot, FindingSink& sink) {
  CheckWhoMayFire(state, shot, sink);
  CheckFirerEligible(state, shot, sink);
  CheckTargetEligible(state, shot, sink);
  CheckRange(rules, state, shot, sink);
  CheckRanks(rules, state, shot, sink);
  return CheckDice(rules, state, shot, sink);
}

namespace {

// The firing factors that add to the roll (first volley to target in
// column or flanked): whether each applies to `shot` (at `band`) and where
// its fact came from.
std::array<FactorCheck, 5> FiringBonusChecks(const BattleState& state,
                                             const Shot& shot,
                                             const ResolvedBand& band) {
  const UnitProfile& firer = state.profiles[shot.firer];
  const UnitStatus& status = state.units[shot.firer];
  const UnitProfile& target = state.profiles[shot.target];
  const ShotFacts& facts = shot.facts;
  const bool column = state.units[shot.target].formation == Formation::kColumn;
  return {{
      {FiringFactor::kFirstVolley,
       !status.first_volley_spent && !status.disordered, Origin::kComputed},
      {FiringFactor::kTargetLightArmour, target.armour == Armour::kLight,
       Origin::kComputed},
      {FiringFactor::kArquebusVsCavalry,
       firer.missile_weapon == MissileWeapon::kArquebus &&
           target.mobility == Mobility::kMounted,
       Origin::kComputed},
      {FiringFactor::kEffectiveRange, band.band == RangeBand::kEffective,
       band.origin},
      {FiringFactor::kTargetColumnOrFlanked,
       facts.target_in_column_or_flanked || column,
       facts.target_in_column_or_flanked ? facts.fact_origin()
                                         : Origin::kComputed},
  }};
}

// The firing factors that take from the roll (target in a building to
// target in cover): whether each applies to `shot` and where its fact came
// from.
std::array<FactorCheck, 7> FiringPenaltyChecks(const BattleState& state,
                                               const Shot& shot) {
  const UnitProfile& firer = state.profiles[shot.firer];
  const UnitStatus& status = state.units[shot.firer];
  const UnitProfile& target = state.profiles[shot.target];
  const ShotFacts& facts = shot.facts;
  const Origin charged_origin = facts.firer_being_charged.has_value()
                                    ? Origin::kDeclared
                                    : Origin::kComputed;
  const bool building =
      state.units[shot.target].formation == Formation::kBuilding;
  return {{
      {FiringFactor::kTargetInBuilding, facts.target_in_building || building,
       facts.target_in_building ? facts.fact_origin() : Origin::kComputed},
      {FiringFactor::kBowVsHeavyArmour,
       firer.missile_weapon == MissileWeapon::kBow &&
           target.armour == Armour::kHeavy,
       Origin::kComputed},
      {FiringFactor::kFirerDisordered, status.disordered, Origin::kComputed},
      {FiringFactor::kFirerRaw, firer.quality == Quality::kRaw,
       Origin::kComputed},
      {FiringFactor::kFirerBeingCharged, FirerBeingCharged(state, shot),
       charged_origin},
      {FiringFactor::kFirerMoved, status.moved_this_turn, Origin::kComputed},
      {FiringFactor::kTargetInCover,
       facts.target_in_cover && !facts.target_in_building && !building,
       facts.fact_origin()},
  }};
}

// Every firing factor, whether it applies to `shot` (at `band`) and where
// its fact came from, in the order a trace lists them: those that add,
// then those that take away.
std::array<FactorCheck, 12> FiringFactorChecks(const BattleState& state,
                                               const Shot& shot,
                                               const ResolvedBand& band) {
  const std::array<FactorCheck, 5> bonuses =
      FiringBonusChecks(state, shot, band);
  const std::array<FactorCheck, 7> penalties = FiringPenaltyChecks(state, shot);
  std::array<FactorCheck, 12> checks{};
  std::copy(bonuses.begin(), bonuses.end(), checks.begin());
  std::copy(penalties.begin(), penalties.end(),
            checks.begin() + bonuses.size());
  return checks;
}

// The trace's notes on the range band: a long range forced by chargers,
// and on a table a measured long range (no bonus, but the distance shown).
void TraceRangeBand(const Shot& shot, const ResolvedBand& band, Trace& trace) {
  const ShotFacts& facts = shot.facts;
  if (band.forced_long) {
    trace.push_back(
        Term{0, "long range forced: chargers began beyond effective range",
             "daimyo.fire.range.long_at_chargers", Origin::kComputed});
  }
  if (facts.measured && !band.forced_long && band.band == RangeBand::kLong &&
      facts.distance_mm.has_value()) {
    trace.push_back(
        Term{0,
             absl::StrFormat("long range, %.1f cm measured: no effective-range "
                             "bonus",
                             *facts.distance_mm / 10.0),
             "daimyo.table.fire.range", Origin::kMeasured});
  }
}

// Rolls each firing stand's dice against the hit score with `res`'s
// modifier, counting its hits.
void RollFiringStands(const Tables& rules, const Shot& shot,
                      FiringResolution& res, Trace* trace) {
  const int per_stand = rules.firing.dice_per_stand;
  for (int s = 0; s < shot.stands_firing; ++s) {
    int roll = 0;
    std::string dice_text;
    for (int d = 0; d < per_stand; ++d) {
      const int die = static_cast<int>(shot.dice[s * per_stand + d]);
      roll += die;
      if (trace != nullptr) {
        absl::StrAppend(&dice_text, d == 0 ? "" : "+", die);
      }
    }
    const int total = roll + res.modifier;
    const bool hit = total >= rules.firing.hit_score;
    if (hit) ++res.hits;
    if (trace != nullptr) {
      trace->push_back(
          Term{total,
               absl::StrFormat("stand %d: %s %+d = %d, %s (%d+ hits)", s + 1,
                               dice_text, res.modifier, total,
                               hit ? "hit" : "miss", rules.firing.hit_score),
               "daimyo.fire.hit", Origin::kDice});
    }
  }
}

}  // namespace

FiringResolution ResolveFiring(const Tables& rules, const BattleState& state,
                               const Shot& shot, Trace* trace) {
  FiringResolution res;
  res.band = ResolveBand(rules, state, shot);
  // The factors are worked out before the range notes are traced: they
  // read the state only.
  const std::array<FactorCheck, 12> checks =
      FiringFactorChecks(state, shot, res.band);
  if (trace != nullptr) TraceRangeBand(shot, res.band, *trace);
  for (const FactorCheck& c : checks) {
    if (!c.applies) continue;
    const int value = rules.firing.factor(c.factor);
    res.modifier += value;
    if (trace != nullptr) {
      trace->push_back(Term{value, std::string(FiringFactorLabel(c.factor)),
                            FiringFactorRuleId(c.factor), c.origin,
                            c.origin == Origin::kMeasured
                                ? FiringFactorMeasuredBy(c.factor)
                                : absl::string_view()});
    }
  }
  RollFiringStands(rules, shot, res, trace);
  return res;
}

int ApplyFiring(const Tables& rules, BattleState& state, const Shot& shot,
                int hits, int stands_lost) {
  UnitStatus& firer = state.units[shot.firer];
  firer.fired_this_turn = true;
  if (!firer.first_volley_spent &&
      (!firer.disordered ||
       rules.options.first_volley_spent_when_disordered())) {
    firer.first_volley_spent = true;
  }
  UnitStatus& target = state.units[shot.target];
  if (target.removed) return 0;
  if (hits > 0) target.hit_by_fire_this_turn = true;
  const int lost = ApplyHits(target, hits, rules.hits_per_stand, stands_lost);
  state.FootprintChanged(shot.target);
  if (lost > 0) {
    target.owed_morale |= ReasonBit(1);
    OweLeaderLossRolls(state, shot.target, rules.headquarters_counts_as_stands,
                       lost);
  }
  return lost;
}

}  // namespace gunbai::rules::daimyo
