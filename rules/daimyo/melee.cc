#include "rules/daimyo/melee.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gunbai::rules::daimyo {

namespace {

void Report(FindingSink& sink, Severity severity, absl::string_view rule_id,
            std::string subject, std::string message) {
  Finding f;
  f.severity = severity;
  f.rule_id = rule_id;
  f.subject = std::move(subject);
  f.message = std::move(message);
  sink.Report(std::move(f));
}

// Returns true when quality `a` is higher than `b` (Elite is highest).
bool HigherQuality(Quality a, Quality b) {
  return static_cast<int>(a) < static_cast<int>(b);
}

absl::string_view WeaponName(MeleeWeapon w) {
  switch (w) {
    case MeleeWeapon::kNone:
      return "no weapon in the table";
    case MeleeWeapon::kLongSpear:
      return "long-shafted spear";
    case MeleeWeapon::kPoleArm:
      return "pole arm";
    case MeleeWeapon::kImprovised:
      return "improvised weapons";
    case MeleeWeapon::kLance:
      return "lance";
    case MeleeWeapon::kSword:
      return "sword (not in the table)";
  }
  return "?";
}

int RanksFighting(const Tables& rules, const BattleState& state,
                  const MeleePairing& pairing, int side) {
  const MeleeSideInput& in = pairing.sides[side];
  const UnitStatus& status = state.units[in.unit];
  if (status.disordered) return rules.melee.ranks_disordered;
  if (pairing.round > 1) return rules.melee.ranks_later_rounds;
  const bool spear_to_front =
      FightingWeapon(rules.options, state.profiles[in.unit]) ==
          MeleeWeapon::kLongSpear &&
      !in.facts.enemy_fighting_to_flank_or_rear;
  return spear_to_front ? rules.melee.ranks_long_spear_first_round
                        : rules.melee.ranks_first_round;
}

// Returns true if `unit` occupies a building: its formation, or the side's
// declared fact.
bool InBuilding(const BattleState& state, int unit, bool declared) {
  return declared || state.units[unit].formation == Formation::kBuilding;
}

struct ModifierCheck {
  MeleeModifier modifier;
  bool applies;
  Origin origin;
};

bool CheckDice(const Tables& rules, const BattleState& state,
               const MeleeSideInput& in, FindingSink& sink) {
  const std::string& id = state.profiles[in.unit].id;
  bool ok = true;
  const std::size_t want =
      static_cast<std::size_t>(in.stands_fighting) * rules.melee.dice_per_stand;
  if (in.dice.size() != want) {
    Report(sink, Severity::kViolation, "daimyo.melee.dice_count", id,
           absl::StrFormat("%s fights with %d stands, which roll %d dice (%d "
                           "per stand); the log has %d.",
                           UnitLabel(state, in.unit), in.stands_fighting, want,
                           rules.melee.dice_per_stand, in.dice.size()));
    ok = false;
  }
  if (!CheckDieFaces(
          in.dice,
          [&] {
            return absl::StrCat(UnitLabel(state, in.unit), "'s melee roll");
          },
          id, sink)) {
    ok = false;
  }
  return ok;
}

void CheckStands(const Tables& rules, const BattleState& state,
                 const MeleePairing& pairing, int side, FindingSink& sink) {
  const MeleeSideInput& in = pairing.sides[side];
  const std::string& id = state.profiles[in.unit].id;
  if (in.facts.front_stands_in_contact <= 0) {
    Report(sink, Severity::kUnverifiable, "daimyo.melee.contact_undeclared", id,
           absl::StrCat(UnitLabel(state, in.unit),
                        ": the log does not say how many stands are in "
                        "front-edge contact (front_stands_in_contact), so the "
                        "stands that may fight cannot be checked."));
    return;
  }
  const int max = MaxFightingStands(rules, state, pairing, side);
  if (in.stands_fighting > max) {
    Report(
        sink, Severity::kViolation, "daimyo.melee.stands", id,
        absl::StrFormat(
            "%s fights with %d stands; in round %d it may "
            "fight with at most %d (%d in front contact, %d "
            "rank%s deep%s).",
            UnitLabel(state, in.unit), in.stands_fighting, pairing.round, max,
            in.facts.front_stands_in_contact,
            RanksFighting(rules, state, pairing, side),
            RanksFighting(rules, state, pairing, side) == 1 ? "" : "s",
            pairing.round >= rules.melee.overlaps_from_round ? ", plus overlaps"
                                                             : ""));
  } else if (in.stands_fighting < max && !pairing.multi_unit) {
    // (In a multi-unit melee a unit may keep stands eligible here for its
    // other pairing, which the round cannot see: reading 26 (f).)
    Report(sink, Severity::kWarning, "daimyo.melee.stands_fewer", id,
           absl::StrFormat("%s fights with %d stands but %d may fight; every "
                           "eligible stand rolls.",
                           UnitLabel(state, in.unit), in.stands_fighting, max));
  }
}

}  // namespace

MeleeWeapon FightingWeapon(const ReadingOptions& options,
                           const UnitProfile& p) {
  if (p.troop_type == TroopType::kHeadquarters) return MeleeWeapon::kImprovised;
  if (p.troop_type == TroopType::kAshigaru &&
      p.missile_weapon != MissileWeapon::kNone) {
    const bool keeps_spear =
        p.melee_weapon == MeleeWeapon::kLongSpear &&
        options.missile_ashigaru_spear() == MissileAshigaruSpear::kLongSpear;
    return keeps_spear ? MeleeWeapon::kLongSpear : MeleeWeapon::kImprovised;
  }
  return p.melee_weapon;
}

bool PursuesIntoThisMelee(const BattleState& state, const MeleePairing& pairing,
                          int side) {
  const MeleeSideInput& in = pairing.sides[side];
  if (in.facts.pursuing.has_value()) return *in.facts.pursuing;
  const int u = in.unit;
  const int e = pairing.sides[1 - side].unit;
  const UnitStatus& status = state.units[u];
  // When the enemy charges the former pursuer, the contact is that charge,
  // not the pursuit.
  const bool enemy_charged_it =
      state.IsChargedBy(u, e) && !state.units[e].charge_fell_short;
  return status.pursued_on_turn > 0 &&
         status.pursued_on_turn == state.turn - 1 && pairing.round == 1 &&
         !status.charging && !enemy_charged_it;
}

int NextRound(const BattleState& state, int a, int b) {
  const MeleeContact* contact = state.FindMelee(a, b);
  return contact == nullptr ? 1 : contact->rounds + 1;
}

int MaxFightingStands(const Tables& rules, const BattleState& state,
                      const MeleePairing& pairing, int side) {
  const MeleeSideInput& in = pairing.sides[side];
  const UnitStatus& status = state.units[in.unit];
  const int stands = in.stands.value_or(status.stands);
  const int enemy = pairing.sides[1 - side].unit;
  int front = std::min(
      {in.facts.front_stands_in_contact, status.stands_per_rank, stands});
  if (state.profiles[enemy].troop_type == TroopType::kHeadquarters) {
    front = std::min(front, rules.melee.front_stands_vs_headquarters);
  }
  const int ranks = RanksFighting(rules, state, pairing, side);
  const int behind = std::max(0, stands - status.stands_per_rank);
  const int rear = std::min(front * std::max(0, ranks - 1), behind);
  const int overlaps = pairing.round >= rules.melee.overlaps_from_round
                           ? std::min(in.facts.overlap_stands,
                                      2 * rules.melee.overlaps_per_flank)
                           : 0;
  int max = std::min(front + rear + overlaps, stands);
  if (InBuilding(state, in.unit, in.facts.in_building) ||
      InBuilding(state, enemy, in.facts.enemy_in_building)) {
    max = std::min(max, rules.melee.max_stands_building_side);
  }
  return max;
}

bool CheckMeleePairing(const Tables& rules, const BattleState& state,
                       const MeleePairing& pairing, FindingSink& sink) {
  const int a = pairing.sides[0].unit;
  const int b = pairing.sides[1].unit;
  const std::string& id = state.profiles[a].id;
  if (state.profiles[a].clan != state.active_clan) {
    Report(sink, Severity::kViolation, "daimyo.melee.active_clan", id,
           absl::StrCat("The first side of a melee round is the active "
                        "clan's unit; ",
                        UnitLabel(state, a), " is not of the active clan."));
  }
  if (state.profiles[a].clan == state.profiles[b].clan) {
    Report(sink, Severity::kViolation, "daimyo.melee.enemy", id,
           absl::StrCat(UnitLabel(state, a), " and ", UnitLabel(state, b),
                        " are of the same clan."));
  }
  const MeleeContact* contact = state.FindMelee(a, b);
  if (contact != nullptr && contact->last_turn_fought == state.turn) {
    Report(sink, Severity::kViolation, "daimyo.melee.once_per_turn", id,
           absl::StrFormat("%s and %s already fought each other this turn; "
                           "each stand fights one melee resolution a turn.",
                           UnitLabel(state, a), UnitLabel(state, b)));
  }
  bool ok = true;
  for (int side = 0; side < 2; ++side) {
    CheckStands(rules, state, pairing, side, sink);
    ok = CheckDice(rules, state, pairing.sides[side], sink) && ok;
  }
  return ok;
}

namespace {

// Returns where a fact that the log may declare came from: declared when it
// does, else computed.
Origin OriginOf(const std::optional<bool>& declared) {
  return declared.has_value() ? Origin::kDeclared : Origin::kComputed;
}

// Whether side `side` of `pairing` has the bonus of last turn's pursuit, and
// of last turn's follow-up.
struct LastTurnsMove {
  bool pursuing = false;
  bool following_up = false;
};

// Works out the bonuses last turn's move brings into this round.
LastTurnsMove BonusesOfLastTurnsMove(const BattleState& state,
                                     const MeleePairing& pairing, int side) {
  const MeleeSideInput& in = pairing.sides[side];
  const UnitStatus& status = state.units[in.unit];
  // The bonuses belong to the round after the move: a melee a pursuit brings
  // on "will take place on the following turn", and a follow-up keeps contact
  // for next turn's round. A move this turn gives nothing against a unit that
  // charges later this turn.
  // A pursuit that met this enemy fights it the following turn, in a new
  // melee that the pursuer did not charge into; a follow-up keeps the same
  // melee going into its next round.
  LastTurnsMove moved;
  moved.pursuing = PursuesIntoThisMelee(state, pairing, side);
  moved.following_up = in.facts.following_up.value_or(
      status.followed_up_on_turn > 0 &&
      status.followed_up_on_turn == state.turn - 1 && pairing.round != 1);
  return moved;
}

// The melee modifiers that add to the roll (cavalry charging to following
// up): whether each applies to side `side` of `pairing` and where its fact
// came from.
std::array<ModifierCheck, 9> MeleeBonusChecks(const BattleState& state,
                                              const MeleePairing& pairing,
                                              int side, MeleeWeapon weapon,
                                              bool charge_bonus) {
  const MeleeSideInput& in = pairing.sides[side];
  const int u = in.unit;
  const UnitProfile& me = state.profiles[u];
  const UnitStatus& status = state.units[u];
  const bool first_round = pairing.round == 1;
  const bool good_order = !status.disordered;
  const LastTurnsMove moved = BonusesOfLastTurnsMove(state, pairing, side);
  return {{
      {MeleeModifier::kCavalryCharging,
       charge_bonus && me.mobility == Mobility::kMounted, Origin::kComputed},
      {MeleeModifier::kGeneralWithUnit,
       state.AttachedLeader(u, LeaderKind::kGeneral) >= 0, Origin::kComputed},
      {MeleeModifier::kFrenzied, status.frenzied, Origin::kComputed},
      {MeleeModifier::kPursuing, moved.pursuing, OriginOf(in.facts.pursuing)},
      {MeleeModifier::kGoodOrderLongSpearOrLanceFirstRound,
       good_order && first_round &&
           (weapon == MeleeWeapon::kLongSpear || weapon == MeleeWeapon::kLance),
       Origin::kComputed},
      {MeleeModifier::kDaimyoWithUnit,
       state.AttachedLeader(u, LeaderKind::kDaimyo) >= 0, Origin::kComputed},
      {MeleeModifier::kGoodOrderPoleArmFirstRound,
       good_order && first_round && weapon == MeleeWeapon::kPoleArm,
       Origin::kComputed},
      {MeleeModifier::kInfantryCharging,
       charge_bonus && me.mobility == Mobility::kFoot, Origin::kComputed},
      {MeleeModifier::kFollowingUp, moved.following_up,
       OriginOf(in.facts.following_up)},
  }};
}

// The melee modifiers that take from the roll (enemy in heavy armour to
// enemy uphill or behind an obstacle): whether each applies to side `side`
// of `pairing` and where its fact came from.
std::array<ModifierCheck, 7> MeleePenaltyChecks(const BattleState& state,
                                                const MeleePairing& pairing,
                                                int side,
                                                bool enemy_in_building) {
  const MeleeSideInput& in = pairing.sides[side];
  const UnitProfile& me = state.profiles[in.unit];
  const UnitProfile& enemy = state.profiles[pairing.sides[1 - side].unit];
  const UnitStatus& status = state.units[in.unit];
  const MeleeSideFacts& facts = in.facts;
  return {{
      {MeleeModifier::kEnemyHeavyArmour, enemy.armour == Armour::kHeavy,
       Origin::kComputed},
      {MeleeModifier::kEnemyFightingToFlankOrRear,
       facts.enemy_fighting_to_flank_or_rear, facts.fact_origin()},
      {MeleeModifier::kEnemyInBuilding, enemy_in_building,
       facts.enemy_in_building ? facts.fact_origin() : Origin::kComputed},
      {MeleeModifier::kEnemyHigherQuality,
       HigherQuality(enemy.quality, me.quality), Origin::kComputed},
      {MeleeModifier::kEnemyMediumArmour, enemy.armour == Armour::kMedium,
       Origin::kComputed},
      {MeleeModifier::kDisordered, status.disordered, Origin::kComputed},
      {MeleeModifier::kEnemyUphillOrBehindObstacle,
       facts.enemy_uphill_or_behind_obstacle, facts.fact_origin()},
  }};
}

// Every melee modifier, whether it applies to side `side` of `pairing` and
// where its fact came from, in the order a trace lists them: those that add,
// then those that take away.
std::array<ModifierCheck, 16> MeleeModifierChecks(const BattleState& state,
                                                  const MeleePairing& pairing,
                                                  int side, MeleeWeapon weapon,
                                                  bool charge_bonus,
                                                  bool enemy_in_building) {
  const std::array<ModifierCheck, 9> bonuses =
      MeleeBonusChecks(state, pairing, side, weapon, charge_bonus);
  const std::array<ModifierCheck, 7> penalties =
      MeleePenaltyChecks(state, pairing, side, enemy_in_building);
  std::array<ModifierCheck, 16> checks{};
  std::copy(bonuses.begin(), bonuses.end(), checks.begin());
  std::copy(penalties.begin(), penalties.end(),
            checks.begin() + bonuses.size());
  return checks;
}

// Sets `res`'s weapon factor, `weapon`'s against the enemy's mounted or
// foot, as the start of its modifier; records it in a trace.
void AddWeaponFactor(const Tables& rules, MeleeWeapon weapon,
                     const UnitProfile& enemy, MeleeSideResolution& res,
                     Trace* trace) {
  const WeaponFactors& wf = rules.melee.weapon(weapon);
  res.weapon_factor =
      enemy.mobility == Mobility::kMounted ? wf.vs_mounted : wf.vs_foot;
  res.modifier = res.weapon_factor;
  if (trace != nullptr) {
    trace->push_back(Term{
        res.weapon_factor,
        absl::StrCat(WeaponName(weapon), " against ",
                     enemy.mobility == Mobility::kMounted ? "mounted" : "foot"),
        "daimyo.melee.weapon", Origin::kComputed});
  }
}

// Rolls each fighting stand's dice against the hit score with `res`'s
// modifier, counting its hits.
void RollMeleeStands(const Tables& rules, const MeleeSideInput& in,
                     const UnitProfile& me, MeleeSideResolution& res,
                     Trace* trace) {
  const int per_stand = rules.melee.dice_per_stand;
  for (int s = 0; s < in.stands_fighting; ++s) {
    int roll = 0;
    std::string dice_text;
    for (int d = 0; d < per_stand; ++d) {
      const int die = static_cast<int>(in.dice[s * per_stand + d]);
      roll += die;
      if (trace != nullptr) absl::StrAppend(&dice_text, d == 0 ? "" : "+", die);
    }
    const int total = roll + res.modifier;
    const bool hit = total >= rules.melee.hit_score;
    if (hit) ++res.hits;
    if (trace != nullptr) {
      trace->push_back(
          Term{total,
               absl::StrFormat("%s stand %d: %s %+d = %d, %s (%d+ hits)", me.id,
                               s + 1, dice_text, res.modifier, total,
                               hit ? "hit" : "miss", rules.melee.hit_score),
               "daimyo.melee.hit", Origin::kDice});
    }
  }
}

// Reports a challenge between leaders whose units are not engaged in melee
// with each other (then returns false: the duel is not fought), by a leader
// of a clan without the initiative, or after the pairing's round this turn.
bool CheckDuelMayBeFought(const BattleState& state, const Duel& duel,
                          FindingSink& sink) {
  const LeaderState& a = state.leaders[duel.challenger];
  const LeaderState& b = state.leaders[duel.challenged];
  const bool attached =
      !a.killed && !b.killed && a.attached_unit >= 0 && b.attached_unit >= 0;
  const MeleeContact* contact =
      attached ? state.FindMelee(a.attached_unit, b.attached_unit) : nullptr;
  // A contact exists from the first round fought; before it, units are
  // engaged by a charge of one on the other declared this turn.
  const bool charged_into_contact =
      attached && (state.IsChargedBy(a.attached_unit, b.attached_unit) ||
                   state.IsChargedBy(b.attached_unit, a.attached_unit));
  if (contact == nullptr && !charged_into_contact &&
      !(attached && duel.engaged_by_next_round)) {
    Report(sink, Severity::kViolation, "daimyo.challenge.engaged", a.id,
           absl::StrFormat("%s may challenge %s only when both are alive and "
                           "attached to units engaged in melee with each "
                           "other.",
                           a.id, b.id));
    return false;
  }
  if (a.clan != state.initiative_clan) {
    Report(sink, Severity::kViolation, "daimyo.challenge.initiative", a.id,
           absl::StrFormat("%s challenged, but only the leader of the clan "
                           "holding the initiative (%s) may challenge.",
                           a.id,
                           state.initiative_clan >= 0
                               ? state.clans[state.initiative_clan]
                               : std::string("none")));
  }
  if (contact != nullptr && contact->last_turn_fought == state.turn) {
    Report(sink, Severity::kViolation, "daimyo.challenge.before_round", a.id,
           "A challenge is fought before the round of melee; this pairing "
           "already fought its round this turn.");
  }
  return true;
}

// Returns whether an accepted duel's dice come in pairs of 1-6, the
// challenger's first, every pair but the last a tie (1d6 + rating each,
// `rating_a` and `rating_b`) and the last not.
bool DuelDiceValid(const Duel& duel, int rating_a, int rating_b) {
  bool ok = duel.dice.size() >= 2 && duel.dice.size() % 2 == 0;
  for (std::size_t i = 0; ok && i < duel.dice.size(); ++i) {
    if (duel.dice[i] < 1 || duel.dice[i] > 6) ok = false;
  }
  for (std::size_t i = 0; ok && i + 2 < duel.dice.size(); i += 2) {
    if (static_cast<int>(duel.dice[i]) + rating_a !=
        static_cast<int>(duel.dice[i + 1]) + rating_b) {
      ok = false;  // Only a tie is re-rolled.
    }
  }
  if (ok) {
    const std::size_t n = duel.dice.size();
    ok = static_cast<int>(duel.dice[n - 2]) + rating_a !=
         static_cast<int>(duel.dice[n - 1]) + rating_b;
  }
  return ok;
}

}  // namespace

MeleeSideResolution ResolveMeleeSide(const Tables& rules,
                                     const BattleState& state,
                                     const MeleePairing& pairing, int side,
                                     Trace* trace) {
  const MeleeSideInput& in = pairing.sides[side];
  const int u = in.unit;
  const int e = pairing.sides[1 - side].unit;
  const UnitProfile& me = state.profiles[u];
  const UnitProfile& enemy = state.profiles[e];
  // "No charge bonus modifiers are applied to units charging a building";
  // the bonus belongs to the contact the charge made (not one that fell
  // short, nor a later contact between the same units this turn).
  const bool enemy_in_building =
      InBuilding(state, e, in.facts.enemy_in_building);
  const bool charge_bonus =
      state.ChargeMadeThisContact(u, e) && !enemy_in_building;
  const MeleeWeapon weapon = FightingWeapon(rules.options, me);

  MeleeSideResolution res;
  AddWeaponFactor(rules, weapon, enemy, res, trace);
  for (const ModifierCheck& c : MeleeModifierChecks(
           state, pairing, side, weapon, charge_bonus, enemy_in_building)) {
    if (!c.applies) continue;
    const int value = rules.melee.modifier(c.modifier);
    res.modifier += value;
    if (trace != nullptr) {
      trace->push_back(Term{value, std::string(MeleeModifierLabel(c.modifier)),
                            MeleeModifierRuleId(c.modifier), c.origin,
                            c.origin == Origin::kMeasured
                                ? MeleeModifierMeasuredBy(c.modifier)
                                : absl::string_view()});
    }
  }
  RollMeleeStands(rules, in, me, res, trace);
  return res;
}

MeleeOutcome DecideOutcome(const Tables& rules, int hits0, int hits1) {
  MeleeOutcome out;
  if (hits0 == hits1) return out;
  out.winner = hits0 > hits1 ? 0 : 1;
  out.loser_routs = std::abs(hits0 - hits1) >= rules.melee.rout_margin;
  return out;
}

std::array<int, 2> ApplyMeleeRound(const Tables& rules, BattleState& state,
                                   const MeleePairing& pairing,
                                   std::array<int, 2> hits,
                                   std::array<int, 2> stands_lost) {
  const int a = pairing.sides[0].unit;
  const int b = pairing.sides[1].unit;
  MeleeContact* contact = state.FindMelee(a, b);
  if (contact == nullptr) {
    state.melees.push_back(MeleeContact{a, b, 0, 0});
    contact = &state.melees.back();
  }
  ++contact->rounds;
  contact->last_turn_fought = state.turn;
  std::array<int, 2> lost = {0, 0};
  for (int side = 0; side < 2; ++side) {
    UnitStatus& u = state.units[pairing.sides[side].unit];
    // A charge on this enemy has now made its contact and fought it.
    if (state.IsChargedBy(pairing.sides[1 - side].unit,
                          pairing.sides[side].unit)) {
      u.charge_spent = true;
    }
    u.in_melee = true;
    u.fought_this_turn = true;
    u.pursued_on_turn = 0;
    u.followed_up_on_turn = 0;
  }
  for (int side = 0; side < 2; ++side) {
    const int target = pairing.sides[1 - side].unit;
    lost[1 - side] = ApplyHits(state.units[target], hits[side],
                               rules.hits_per_stand, stands_lost[1 - side]);
    state.FootprintChanged(target);
    if (lost[1 - side] > 0) {
      state.units[target].owed_morale |= ReasonBit(1);
      OweLeaderLossRolls(state, target, rules.headquarters_counts_as_stands,
                         lost[1 - side]);
    }
  }
  return lost;
}

bool MustFollowUp(const BattleState& state, int winner, int loser) {
  // "Cavalry that charged into contact this turn": a charge that fell short
  // made no contact; one that did counts even after it ended (the cavalry
  // routed) or in an earlier melee of the turn.
  const bool infantry_beat_charging_cavalry =
      state.profiles[winner].mobility == Mobility::kFoot &&
      state.profiles[loser].mobility == Mobility::kMounted &&
      state.units[loser].charged_into_contact_with == winner;
  return !infantry_beat_charging_cavalry;
}

bool CheckDuel(const Tables& rules, const BattleState& state, const Duel& duel,
               FindingSink& sink) {
  if (!CheckDuelMayBeFought(state, duel, sink)) return false;
  const LeaderState& a = state.leaders[duel.challenger];
  const LeaderState& b = state.leaders[duel.challenged];
  if (!duel.accepted) {
    if (!duel.dice.empty()) {
      Report(sink, Severity::kViolation, "daimyo.challenge.dice", a.id,
             "A refused challenge rolls no dice.");
    }
    return true;
  }
  const bool ok = DuelDiceValid(duel, a.command_rating, b.command_rating);
  if (!ok) {
    Report(sink, Severity::kViolation, "daimyo.challenge.dice", a.id,
           absl::StrFormat("The duel's dice must come in pairs of 1-6, "
                           "challenger first; every pair but the last a tie "
                           "(1d6 + rating each: %d and %d) and the last not.",
                           a.command_rating, b.command_rating));
  }
  return ok;
}

int ResolveDuel(const BattleState& state, const Duel& duel, Trace* trace) {
  const LeaderState& a = state.leaders[duel.challenger];
  const LeaderState& b = state.leaders[duel.challenged];
  int winner = -1;
  for (std::size_t i = 0; i + 1 < duel.dice.size(); i += 2) {
    const int ta = static_cast<int>(duel.dice[i]) + a.command_rating;
    const int tb = static_cast<int>(duel.dice[i + 1]) + b.command_rating;
    winner = ta > tb ? duel.challenger : (tb > ta ? duel.challenged : -1);
    if (trace != nullptr) {
      trace->push_back(Term{
          ta - tb,
          absl::StrFormat(
              "%s %d+%d = %d against %s %d+%d = %d: %s", a.id, duel.dice[i],
              a.command_rating, ta, b.id, duel.dice[i + 1], b.command_rating,
              tb,
              winner < 0 ? "tie, re-roll"
                         : absl::StrCat(state.leaders[winner].id, " wins")),
          "daimyo.challenge.duel", Origin::kDice});
    }
  }
  return winner;
}

void ApplyDuel(const Tables& rules, BattleState& state, const Duel& duel,
               int winner) {
  LeaderState& challenged = state.leaders[duel.challenged];
  if (!duel.accepted) {
    challenged.command_rating =
        std::max(rules.melee.min_command_rating, challenged.command_rating - 1);
    return;
  }
  if (winner < 0) return;
  const int loser =
      winner == duel.challenger ? duel.challenged : duel.challenger;
  LeaderState& w = state.leaders[winner];
  w.command_rating =
      std::min(rules.melee.max_command_rating, w.command_rating + 1);
  LeaderState& l = state.leaders[loser];
  l.killed = true;
  l.killed_on_turn = state.turn;
  SettleLeaderLossRoll(l, /*killed=*/true);
  if (l.attached_unit >= 0) {
    state.units[l.attached_unit].owed_morale |= ReasonBit(5);
  }
}

}  // namespace gunbai::rules::daimyo
