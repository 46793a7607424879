// Firing and leader-loss rolls for the GamePlayer. See player.h.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/player.h"
#include "replay/proto_mapping.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/leader_loss.h"
#include "rules/daimyo/proto_mapping.h"

namespace gunbai::generate::internal {

namespace {

// A unit this small is no longer shot at: it has been worn down enough, and
// no volley can then destroy a unit.
constexpr int kFewStands = 2;
constexpr int kFirePercent = 80;
constexpr int kLateLeaderRollPercent = 50;
constexpr int kFireAtChargerPercent = 70;

}  // namespace

// The active clan's missile units fire, then the units its charges are
// coming at fire at their chargers.
void GamePlayer::FiringPhase(int clan) {
  for (int unit : UnitsOnTable(clan)) {
    if (MayFire(unit) && Chance(kFirePercent)) {
      TryFire(unit, /*charger=*/-1, /*second_volley=*/false);
    }
  }
  for (int charger : UnitsOnTable(clan)) {
    const int target = status(charger).charging_target;
    if (!status(charger).charging || target < 0 || !OnTable(target)) continue;
    if (MayFire(target) && Chance(kFireAtChargerPercent)) {
      TryFire(target, charger, /*second_volley=*/false);
    }
  }
  RollOwedLeaderLosses(clan);  // The rolls a volley left for later.
}

// Routers, units that retreated this turn, frenzied units, chargers and
// units in melee hold their fire.
bool GamePlayer::MayFire(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return plans_[unit].missile && !s.removed && !s.routing && !s.may_not_fire &&
         !s.frenzied && !s.charging && !s.in_melee && !s.fired_this_turn;
}

void GamePlayer::FillFacts(v1::FiringFacts& facts) {
  const rules::daimyo::FiringRules& firing = rules_.firing;
  const int roll = Uniform(1, 100);
  if (roll <= 5) {
    facts.set_woods_limit(true);
    facts.set_distance_mm(
        static_cast<uint32_t>(Uniform(5, firing.woods_range_mm)));
  } else if (roll <= 30) {
    facts.set_distance_mm(
        static_cast<uint32_t>(Uniform(5, firing.long_range_mm)));
  }
  const bool effective =
      facts.has_distance_mm()
          ? facts.distance_mm() <=
                static_cast<uint32_t>(firing.effective_range_mm)
          : Chance(60);
  facts.set_range(effective ? v1::RANGE_BAND_EFFECTIVE : v1::RANGE_BAND_LONG);
  facts.set_target_in_cover(Chance(10));
  facts.set_target_in_building(Chance(6));
  facts.set_target_in_column_or_flanked(Chance(10));
  facts.set_firer_in_cover(Chance(15));
  facts.set_firing_from_building(Chance(5));
}

// True when `target` keeps more than a few stands after the worst volley of
// `stands_firing` stands, with one hit to spare for a planted fault.
bool GamePlayer::SurvivesVolley(int target, int stands_firing) const {
  const rules::UnitStatus& t = status(target);
  const int worst_loss =
      rules::StandsLost(t, stands_firing + 1, rules_.hits_per_stand);
  return t.stands > kFewStands && t.stands > worst_loss;
}

// Returns the enemies `firer` may shoot at with `stands_firing` stands: on
// the table, not in melee, now and then routing, and sure to survive the
// volley.
std::vector<int> GamePlayer::Targets(int firer, int stands_firing) {
  std::vector<int> out;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (plans_[unit].clan == plans_[firer].clan || !OnTable(unit)) continue;
    if (Shielded(unit)) continue;
    const rules::UnitStatus& s = status(unit);
    // Routers are shot at now and then (a router hit this turn may not
    // rally).
    if ((s.routing && !Chance(30)) || s.in_melee) continue;
    // A target of two charges keeps its stands for the multi-unit melee
    // they bring (see JoinTarget).
    if (s.charges_received >= 2) continue;
    if (SurvivesVolley(unit, stands_firing)) out.push_back(unit);
  }
  return out;
}

// Returns a unit on the table charging `unit`, or -1.
int GamePlayer::FirstChargerOf(int unit) const {
  for (int c = 0; c < UnitCount(); ++c) {
    if (OnTable(c) && state().IsChargedBy(unit, c)) return c;
  }
  return -1;
}

// Fires `firer` at a target of its choice, or at `charger` (>= 0) when the
// firer is being charged by it. Every claim is computed on the state; a
// planted fault may then change the claim or the dice, or follow the volley
// with a second one. Returns true when the volley was fired.
bool GamePlayer::TryFire(int firer, int charger, bool second_volley) {
  v1::Event event;
  event.set_clan(ClanOf(firer));
  v1::Firing* firing = event.mutable_firing();
  firing->set_unit(UnitId(firer));
  if (!positions()) FillFacts(*firing->mutable_facts());
  if (!positions() && charger >= 0 && Chance(25)) {
    // Fire at chargers that began beyond effective range is at long range
    // (a measured distance is left to the replayer to judge).
    v1::FiringFacts* facts = firing->mutable_facts();
    facts->set_chargers_began_beyond_effective(true);
    if (!facts->has_distance_mm()) facts->set_range(v1::RANGE_BAND_LONG);
  }
  rules::daimyo::Shot probe =
      rules::daimyo::ShotFromProto(*firing, firer, /*target=*/-1);
  if (positions()) {
    // On a table the firers hold a building when their centre stands in
    // one (the engine measures it): at most 2 stands fire from it.
    probe.facts.firing_from_building =
        rules::FeatureAt(*field_, rules::TerrainKind::kBuilding, state(),
                         firer) != nullptr;
  }
  const int max_stands = rules::daimyo::MaxFiringStands(rules_, state(), probe);
  if (max_stands <= 0) return false;
  const int stands = Chance(85) ? max_stands : Uniform(1, max_stands);
  int target = charger;
  if (target < 0 && state().IsBeingCharged(firer)) {
    // A unit being charged fires only at a unit charging it.
    target = FirstChargerOf(firer);
    if (target < 0 || !SurvivesVolley(target, stands)) return false;
    if (positions() && !MayShoot(firer, target, /*at_charger=*/true)) {
      return false;
    }
  } else if (target < 0) {
    std::vector<int> targets = Targets(firer, stands);
    if (positions()) {
      // On a table: only a target the rules allow (in range, arc and sight,
      // the nearest such enemy).
      std::erase_if(targets, [this, firer](int t) {
        return !MayShoot(firer, t, /*at_charger=*/false);
      });
    }
    if (targets.empty()) return false;
    target = targets[Uniform(0, static_cast<int>(targets.size()) - 1)];
  } else if (!SurvivesVolley(target, stands) ||
             (positions() && !MayShoot(firer, target, /*at_charger=*/true))) {
    return false;
  }
  if (!second_volley && charger < 0 && !Affordable(kFireCost)) return false;
  firing->set_target(UnitId(target));
  firing->set_stands_firing(static_cast<uint32_t>(stands));
  for (int d = 0; d < stands * rules_.firing.dice_per_stand; ++d) {
    firing->add_dice(RollDie());
  }
  rules::daimyo::Shot shot =
      rules::daimyo::ShotFromProto(*firing, firer, target);
  if (positions()) {
    // The tape measure's reading, declared as measured: the distance and
    // the band the shot is worked out at; the other facts are the table's.
    ApplyShotMeasure(shot);
    const rules::RangeBand band =
        rules::daimyo::ResolveBand(rules_, state(), shot).band;
    firing->mutable_facts()->set_distance_mm(
        static_cast<uint32_t>(*shot.facts.distance_mm));
    firing->mutable_facts()->set_range(band == rules::RangeBand::kEffective
                                           ? v1::RANGE_BAND_EFFECTIVE
                                           : v1::RANGE_BAND_LONG);
  }
  const int hits =
      rules::daimyo::ResolveFiring(rules_, state(), shot, nullptr).hits;
  firing->set_claimed_hits(static_cast<uint32_t>(hits));
  if (!second_volley) PlantFiringFault(*firing, hits, target);
  const rules::UnitStatus& t = status(target);
  // The stands lost follow the hits as claimed: the game as played.
  const int lost = rules::StandsLost(
      t, static_cast<int>(firing->claimed_hits()), rules_.hits_per_stand);
  firing->set_claimed_stands_lost(static_cast<uint32_t>(lost));
  Emit(event);
  if (second_volley) {
    RecordFault(FaultKind::kFireTwice, seq_, UnitId(firer),
                absl::StrCat(UnitId(firer), " fires a second time this turn"));
  }
  // Most leader-loss rolls follow their volley at once; now and then they
  // wait for the end of the firing phase, so that a later volley may take
  // another stand first (the reading leader_roll_stands decides which
  // stands-left figure such a late roll adds).
  if (!Variety(kLateLeaderRollPercent)) {
    RollOwedLeaderLosses(plans_[firer].clan);
  }
  if (!second_volley && charger < 0 && OnTable(firer) &&
      Affordable(kFireCost) && MayPlant(FaultKind::kFireTwice) &&
      !TryFire(firer, -1, /*second_volley=*/true)) {
    planner_.Return(FaultKind::kFireTwice);  // No target left for it.
  }
  return true;
}

// Plants at most one fault in a volley about to be written: a claim one hit
// off (the target survives it, SurvivesVolley keeps a hit to spare), one die
// too many or too few, or a die off the faces. With wrong dice the replayer
// cannot resolve the volley and goes on with the claimed hits, which stay
// right.
void GamePlayer::PlantFiringFault(v1::Firing& firing, int hits, int target) {
  const std::string firer = firing.unit();
  if (MayPlant(FaultKind::kFireHitsWrong)) {
    const int claimed = hits > 0 && Chance(50) ? hits - 1 : hits + 1;
    firing.set_claimed_hits(static_cast<uint32_t>(claimed));
    RecordFault(FaultKind::kFireHitsWrong, seq_ + 1, firer,
                absl::StrCat(firer, " claims ", claimed, " hits on ",
                             UnitId(target), "; the dice give ", hits));
  } else if (MayPlant(FaultKind::kFireDiceCount)) {
    if (Chance(50)) {
      firing.add_dice(RollDie());
    } else {
      firing.mutable_dice()->RemoveLast();
    }
    RecordFault(FaultKind::kFireDiceCount, seq_ + 1, firer,
                absl::StrCat(firer, " rolls ", firing.dice_size(), " dice for ",
                             firing.stands_firing(), " stands"));
  } else if (MayPlant(FaultKind::kDieOutOfRange)) {
    const int i = Uniform(0, firing.dice_size() - 1);
    firing.set_dice(i, Chance(50) ? 7u : 0u);
    RecordFault(
        FaultKind::kDieOutOfRange, seq_ + 1, firer,
        absl::StrCat(firer, "'s die ", i + 1, " reads ", firing.dice(i)));
  }
}

// Rolls every leader-loss roll owed, as `acting_clan`. A planted fault may
// skip a roll (the audit finds it missing when the turn ends; the leader's
// later rolls this turn are skipped too) or claim the other fate, which the
// game then follows.
void GamePlayer::RollOwedLeaderLosses(int acting_clan) {
  for (std::size_t i = 0; i < state().leaders.size(); ++i) {
    RollOwedLeaderLoss(acting_clan, i);
  }
}

// Rolls each leader-loss roll leader `i` owes, one for each stand lost.
void GamePlayer::RollOwedLeaderLoss(int acting_clan, std::size_t i) {
  while (state().leaders[i].loss_roll_owed && !leader_roll_skipped_[i]) {
    const rules::LeaderState& leader = state().leaders[i];
    if (MayPlantAnyTime(FaultKind::kLeaderLossMissing)) {
      leader_roll_skipped_[i] = true;
      RecordDeferredFault(FaultKind::kLeaderLossMissing, leader.id,
                          absl::StrCat(leader.id,
                                       " makes no leader-loss roll after his "
                                       "unit lost a stand"));
      continue;
    }
    const int die = Uniform(1, 6);
    rules::LeaderState counted = leader;
    counted.loss_roll_stands_left =
        rules::daimyo::LeaderRollStandsCounted(rules_, state(), leader);
    const bool killed =
        rules::daimyo::ResolveLeaderLoss(rules_, counted, die, nullptr).killed;
    v1::Event event;
    event.set_clan(ClanId(acting_clan));
    v1::LeaderLossRoll* roll = event.mutable_leader_loss();
    roll->set_leader(leader.id);
    roll->set_die(static_cast<uint32_t>(die));
    roll->set_claimed_killed(killed);
    if (killed)
      ListUnitsNearDeath(static_cast<int>(i), *roll->mutable_units_near());
    if (MayPlantAnyTime(FaultKind::kLeaderLossClaimWrong)) {
      roll->set_claimed_killed(!killed);
      RecordFault(FaultKind::kLeaderLossClaimWrong, seq_ + 1, leader.id,
                  absl::StrCat(leader.id, " is claimed ",
                               killed ? "to survive" : "killed", "; the roll ",
                               die, " says otherwise"));
    }
    Emit(event);
  }
}

}  // namespace gunbai::generate::internal
