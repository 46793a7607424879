// The reference tables. Each cell cites where it comes from:
//   F = seed 004 (firing), M = seed 000 (melee), Mo = seed 002 (morale),
//   N = /work/shared/RULES-NOTES.md, R = rules/daimyo/RULES.md (readings),
//   P = a reading the integrator is landing now (pending.cc lists them).
#include "tests/reference/model.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace gunbai::reference {
namespace {

constexpr int kHitScore = 8;      // F "Procedure": 8 or more is a hit; M too.
constexpr int kHitsPerStand = 3;  // F "Result": 3 hits remove a stand.
constexpr int kEffectiveMm = 80;  // F "Ranges": effective 0-8 cm; N: inclusive.
constexpr int kLongMm = 150;      // F "Ranges": long 8-15 cm; N: over 8 to 15.
constexpr int kWoodsMm = 30;      // F "Ranges": 3 cm in woods.
constexpr int kMaxFromBuilding =
    2;  // F: at most 2 stands fire from a building.
constexpr int kLeaderKilledAtOrBelow = 4;  // F "Result": 4 or less, killed.

// Firing factors (F table; N splits its lost columns into plus and minus).
struct FireFactorTable {
  int first_volley = +2;         // F: +2 1st volley in game (good order only)
  int light_armour = +1;         // F: +1 target in light armour
  int arquebus_vs_cavalry = +1;  // F: +1 arquebus against cavalry
  int effective_range = +1;      // F: +1 firing at effective range
  int column_or_flanked = +1;    // F: +1 target in column or flanked
  int building = -2;             // F: -2 target occupying a building
  int bow_vs_heavy = -1;         // F: -1 bow against heavy armour
  int disordered = -1;           // F: -1 firing unit disordered
  int raw = -1;                  // F: -1 firing unit Raw
  int being_charged = -1;        // F: -1 firing unit being charged
  int moved = -1;                // F: -1 firing unit moved/manoeuvred
  int cover = -1;                // F: -1 target behind cover (not buildings)
};
constexpr FireFactorTable kFire;

// Weapon table (M "Weapon Table": vs foot, vs mounted).
struct WeaponRow {
  MeleeWeapon weapon;
  int vs_foot;
  int vs_mounted;
};
constexpr WeaponRow kWeapons[] = {
    {MeleeWeapon::kLongSpear, +1, +2},   // M: long-shafted spear
    {MeleeWeapon::kPoleArm, +2, +2},     // M: pole arm
    {MeleeWeapon::kImprovised, +1, +0},  // M: improvised melee weapons
    {MeleeWeapon::kLance, +1, +1},       // M: lance
    // N: a weapon the table lacks (sword, none) fights at +0.
};

// Melee modifiers (M "Melee Modifiers"; N: every minus is the enemy's
// advantage, taken by the side that suffers it).
struct MeleeModifierTable {
  int cavalry_charging = +2;      // M: +2 cavalry charging
  int general = +2;               // M: +2 general with unit
  int frenzied = +2;              // M: +2 frenzied
  int pursuing = +2;              // M: +2 pursuing
  int spear_lance_first = +2;     // M: +2 good order long spear/lance, round 1
  int daimyo = +1;                // M: +1 daimyo with unit
  int pole_arm_first = +1;        // M: +1 good order pole arm, round 1
  int infantry_charging = +1;     // M: +1 infantry charging
  int following_up = +1;          // M: +1 following up
  int enemy_heavy = -2;           // M: -2 enemy has heavy armour
  int enemy_flank_rear = -2;      // M: -2 enemy fighting to flank/rear
  int enemy_building = -2;        // M: -2 enemy occupying a building
  int enemy_higher_quality = -1;  // M: -1 enemy has higher quality status
  int enemy_medium = -1;          // M: -1 enemy has medium armour
  int disordered = -1;            // M: -1 disordered
  int enemy_uphill = -1;          // M: -1 enemy uphill or behind obstacle
};
constexpr MeleeModifierTable kMelee;

constexpr int kMaxStandsBuildingSide = 2;  // M: up to 2 stands a building side.

// Morale modifiers (Mo "Morale Die Roll Modifiers").
struct MoraleModifierTable {
  int per_rating_point = +1;    // Mo: + command rating of attached leader
  int pursuing = +2;            // Mo: +2 pursuing
  int uphill_or_cover = +1;     // Mo: +1 uphill of all enemy near, or in cover
  int general_near = +1;        // Mo: +1 general within 15 cm
  int long_spear_vs_cav = +1;   // Mo: +1 long spear in good order charged
                                //     frontally by cavalry
  int enemy_routing = +1;       // Mo: +1 any enemy routing near
  int hatamoto = +1;            // Mo: +1 Hatamoto testing
  int disordered = -1;          // Mo: -1 disordered
  int out_of_command = -1;      // Mo: -1 out of command reach
  int inf_charged_by_cav = -1;  // Mo: -1 infantry being charged by cavalry
  int friend_routing = -1;      // Mo: -1 each friend of equal/higher quality
                                //     routing near
  int stand_lost = -2;          // Mo: -2 each stand lost (N: in the game)
  int enemy_flank = -2;         // Mo: -2 non-routing enemy facing flank/rear
  int leader_killed = -2;       // Mo: -2 leader killed this turn near
  int routing = -2;             // Mo: -2 routing
};
constexpr MoraleModifierTable kMorale;

constexpr int kAutoPass = 12;  // Mo: an unmodified 12 always passes.
constexpr int kAutoFail = 2;   // Mo: an unmodified 2 fails and routs.

// Morale table (Mo "Morale Table"): rows pass, fail by 1, 2, 3, 4+;
// columns reason 1; 2 and 3; 4; 5, 6 and 7; 8.
using R = MoraleResult;
constexpr MoraleResult kMoraleTable[5][5] = {
    // 1 stand loss   2,3 charged         4 initiate    5-7 critical  8 rally
    {R::kNoEffect, R::kStandOrRetire, R::kCharge, R::kNoEffect, R::kRally},
    {R::kHalt, R::kRetire, R::kHalt, R::kRetire, R::kDispersed},
    {R::kRetire, R::kRetreat, R::kHalt, R::kRetreat, R::kDispersed},
    {R::kRetreat, R::kRetreat, R::kHalt, R::kRout, R::kDispersed},
    {R::kRout, R::kRout, R::kRetire, R::kRout, R::kDispersed},
};

int MoraleColumn(int reason) {
  switch (reason) {
    case 1:
      return 0;
    case 2:
    case 3:
      return 1;
    case 4:
      return 2;
    case 8:
      return 4;
    default:
      return 3;  // 5, 6, 7
  }
}

int QualityRank(Quality q) { return static_cast<int>(q); }  // 0 = Elite

}  // namespace

int SumTerms(const std::vector<Term>& terms) {
  int sum = 0;
  for (const Term& t : terms) sum += t.value;
  return sum;
}

std::string TermsText(const std::vector<Term>& terms) {
  std::string out;
  for (const Term& t : terms) {
    if (!out.empty()) out += ", ";
    out += (t.value >= 0 ? "+" : "") + std::to_string(t.value) + " " + t.why;
  }
  return out.empty() ? "no modifiers" : out;
}

int CountHits(const std::vector<int>& dice, int modifier) {
  int hits = 0;
  for (std::size_t i = 0; i + 1 < dice.size(); i += 2) {
    if (dice[i] + dice[i + 1] + modifier >= kHitScore) ++hits;
  }
  return hits;
}

Band BandFromDistance(int distance_mm, bool woods_limit) {
  if (woods_limit && distance_mm > kWoodsMm) return Band::kOut;
  if (distance_mm <= kEffectiveMm) return Band::kEffective;
  if (distance_mm <= kLongMm) return Band::kLong;
  return Band::kOut;
}

std::vector<Term> FiringFactors(const FireInput& in) {
  std::vector<Term> t;
  // N: the first-volley bonus is the unit's first firing; disordered then,
  // no bonus (and it is spent: the caller marks it).
  if (in.first_volley && !in.firer_disordered)
    t.push_back({kFire.first_volley, "first volley"});
  if (in.target_armour == Armour::kLight)
    t.push_back({kFire.light_armour, "target light armour"});
  if (in.weapon == Missile::kArquebus && in.target_mounted)
    t.push_back({kFire.arquebus_vs_cavalry, "arquebus at cavalry"});
  if (in.effective) t.push_back({kFire.effective_range, "effective range"});
  if (in.target_column_or_flanked)
    t.push_back({kFire.column_or_flanked, "target column/flanked"});
  if (in.target_in_building)
    t.push_back({kFire.building, "target in building"});
  if (in.weapon == Missile::kBow && in.target_armour == Armour::kHeavy)
    t.push_back({kFire.bow_vs_heavy, "bow at heavy armour"});
  if (in.firer_disordered) t.push_back({kFire.disordered, "firer disordered"});
  if (in.firer_raw) t.push_back({kFire.raw, "firer Raw"});
  if (in.firer_being_charged)
    t.push_back({kFire.being_charged, "firer being charged"});
  if (in.firer_moved) t.push_back({kFire.moved, "firer moved"});
  // F: cover "except buildings"; R reading 5: a building target never also
  // takes the cover -1.
  if (in.target_in_cover && !in.target_in_building)
    t.push_back({kFire.cover, "target in cover"});
  return t;
}

int MaxFiringStands(int stands, int stands_per_rank, bool disordered,
                    bool from_building) {
  const int ranks = disordered ? 1 : 2;  // F: disordered 1 rank, good order 2
  int most = std::min(stands, ranks * std::max(1, stands_per_rank));
  if (from_building) most = std::min(most, kMaxFromBuilding);
  return most;
}

bool ForcedLongRange(bool at_chargers_from_beyond, bool firer_in_cover,
                     Quality firer_quality) {
  if (!at_chargers_from_beyond) return false;
  // F: unless behind cover or at least veteran quality.
  return !(firer_in_cover ||
           QualityRank(firer_quality) <= QualityRank(Quality::kVeteran));
}

StandLoss ApplyHits(int carried_before, int new_hits, int stands) {
  const int total = carried_before + new_hits;
  StandLoss loss;
  loss.lost = std::min(stands, total / kHitsPerStand);
  loss.carried = total - loss.lost * kHitsPerStand;
  if (loss.lost == stands) loss.carried = 0;  // the unit is gone
  return loss;
}

bool LeaderKilled(int die, int stands_left, bool headquarters) {
  // F: a headquarters counts as 1 remaining stand.
  const int counted = headquarters ? 1 : stands_left;
  return die + counted <= kLeaderKilledAtOrBelow;
}

const char* MoraleResultName(MoraleResult r) {
  switch (r) {
    case R::kNoEffect:
      return "no effect";
    case R::kHalt:
      return "halt";
    case R::kRetire:
      return "retire";
    case R::kRetreat:
      return "retreat";
    case R::kRout:
      return "rout";
    case R::kStandOrRetire:
      return "stand or retire";
    case R::kCounterCharge:
      return "counter-charge";
    case R::kCharge:
      return "charge";
    case R::kRally:
      return "rally";
    case R::kDispersed:
      return "dispersed";
    case R::kFrenzy:
      return "frenzy";
  }
  return "?";
}

int PassScore(Quality q) {
  switch (q) {
    case Quality::kElite:
      return 4;  // Mo: Elite 4+
    case Quality::kVeteran:
      return 5;  // Mo: Veteran 5+
    case Quality::kSeasoned:
      return 6;  // Mo: Seasoned 6+
    case Quality::kRaw:
      return 7;  // Mo: Raw 7+
  }
  return 6;
}

namespace {
std::vector<Term> MoraleModifiers(const MoraleInput& in) {
  std::vector<Term> t;
  if (in.best_command_rating > 0)
    t.push_back(
        {kMorale.per_rating_point * in.best_command_rating, "command rating"});
  if (in.pursued_this_turn) t.push_back({kMorale.pursuing, "pursuing"});
  if (in.uphill_or_in_cover)
    t.push_back({kMorale.uphill_or_cover, "uphill or cover"});
  if (in.general_near) t.push_back({kMorale.general_near, "general near"});
  if (in.long_spear_charged_frontally_by_cavalry)
    t.push_back({kMorale.long_spear_vs_cav, "long spear vs cavalry"});
  if (in.enemy_routing_near)
    t.push_back({kMorale.enemy_routing, "enemy routing near"});
  if (in.troop == Troop::kHatamoto) t.push_back({kMorale.hatamoto, "Hatamoto"});
  if (in.disordered) t.push_back({kMorale.disordered, "disordered"});
  if (in.out_of_command)
    t.push_back({kMorale.out_of_command, "out of command"});
  if (in.infantry_charged_by_cavalry)
    t.push_back({kMorale.inf_charged_by_cav, "infantry charged by cavalry"});
  if (in.friends_routing_equal_or_higher > 0)
    t.push_back({kMorale.friend_routing * in.friends_routing_equal_or_higher,
                 "friends routing near"});
  if (in.stands_lost > 0)
    t.push_back({kMorale.stand_lost * in.stands_lost, "stands lost"});
  if (in.enemy_flank_or_rear_near)
    t.push_back({kMorale.enemy_flank, "enemy on flank/rear near"});
  if (in.leader_killed_near)
    t.push_back({kMorale.leader_killed, "leader killed near"});
  if (in.routing) t.push_back({kMorale.routing, "routing"});
  return t;
}

bool FrenzyOn(Troop troop, int unmodified) {
  // Mo: Samurai or Ronin on an unmodified 12; Warrior Monks on 11 or 12.
  // R reading 14: Hatamoto are not Samurai.
  if (troop == Troop::kSamurai || troop == Troop::kRonin)
    return unmodified >= 12;
  if (troop == Troop::kMonk) return unmodified >= 11;
  return false;
}
}  // namespace

MoraleOutcome MoraleTest(const MoraleInput& in, int die1, int die2) {
  MoraleOutcome out;
  out.terms = MoraleModifiers(in);
  const int unmodified = die1 + die2;
  out.total = unmodified + SumTerms(out.terms);
  const int column = MoraleColumn(in.reason);
  const int pass = PassScore(in.quality);
  if (unmodified == kAutoFail) {
    // N: an unmodified 2 fails and routs; R 14: in every column, and a
    // rallying unit disperses.
    out.passed = false;
    out.result = in.reason == 8 ? R::kDispersed : R::kRout;
    return out;
  }
  if (in.reason != 8 && FrenzyOn(in.troop, unmodified)) {
    // Mo, N: frenzied on the unmodified roll alone (never on a rally); the
    // test then counts as passed, whatever the modifiers.
    out.passed = true;
    out.frenzy = true;
    out.result = R::kFrenzy;
    return out;
  }
  out.passed = unmodified == kAutoPass || out.total >= pass;
  if (out.passed) {
    out.result = kMoraleTable[0][column];
    // P3: a router hit by firing this turn cannot rally.
    if (in.reason == 8 && in.hit_by_fire_this_turn) out.result = R::kNoEffect;
    return out;
  }
  const int fail_by = std::min(4, pass - out.total);  // N: 4+ the last row
  out.result = kMoraleTable[fail_by][column];
  return out;
}

int WeaponFactor(MeleeWeapon weapon, bool enemy_mounted) {
  for (const WeaponRow& row : kWeapons) {
    if (row.weapon == weapon)
      return enemy_mounted ? row.vs_mounted : row.vs_foot;
  }
  return 0;
}

MeleeWeapon EffectiveMeleeWeapon(Troop troop, Missile missile,
                                 MeleeWeapon weapon) {
  // M: missile-armed ashigaru and headquarters use improvised weapons.
  if (troop == Troop::kHeadquarters) return MeleeWeapon::kImprovised;
  if (troop == Troop::kAshigaru && missile != Missile::kNone)
    return MeleeWeapon::kImprovised;
  return weapon;
}

std::vector<Term> MeleeModifiers(const MeleeSideInput& me,
                                 const MeleeSideInput& enemy, int round) {
  std::vector<Term> t;
  const int weapon =
      WeaponFactor(me.weapon, enemy.mobility == Mobility::kMounted);
  if (weapon != 0) t.push_back({weapon, "weapon"});
  // M: no charge bonus against a building; P6: charge bonuses need a charge
  // that made contact this turn (not fell short).
  const bool charge_bonus = me.charged_into_contact && !enemy.in_building;
  if (charge_bonus && me.mobility == Mobility::kMounted)
    t.push_back({kMelee.cavalry_charging, "cavalry charging"});
  if (me.general_attached) t.push_back({kMelee.general, "general"});
  if (me.frenzied) t.push_back({kMelee.frenzied, "frenzied"});
  if (me.pursuing) t.push_back({kMelee.pursuing, "pursuing"});
  const bool first_good = round == 1 && !me.disordered;
  if (first_good && (me.weapon == MeleeWeapon::kLongSpear ||
                     me.weapon == MeleeWeapon::kLance))
    t.push_back({kMelee.spear_lance_first, "spear/lance first round"});
  if (me.daimyo_attached) t.push_back({kMelee.daimyo, "daimyo"});
  if (first_good && me.weapon == MeleeWeapon::kPoleArm)
    t.push_back({kMelee.pole_arm_first, "pole arm first round"});
  if (charge_bonus && me.mobility == Mobility::kFoot)
    t.push_back({kMelee.infantry_charging, "infantry charging"});
  if (me.following_up) t.push_back({kMelee.following_up, "following up"});
  if (enemy.armour == Armour::kHeavy)
    t.push_back({kMelee.enemy_heavy, "enemy heavy armour"});
  if (me.enemy_fighting_to_flank_or_rear)
    t.push_back({kMelee.enemy_flank_rear, "enemy on flank/rear"});
  if (enemy.in_building)
    t.push_back({kMelee.enemy_building, "enemy in building"});
  if (QualityRank(enemy.quality) < QualityRank(me.quality))
    t.push_back({kMelee.enemy_higher_quality, "enemy higher quality"});
  if (enemy.armour == Armour::kMedium)
    t.push_back({kMelee.enemy_medium, "enemy medium armour"});
  if (me.disordered) t.push_back({kMelee.disordered, "disordered"});
  if (me.enemy_uphill_or_behind_obstacle)
    t.push_back({kMelee.enemy_uphill, "enemy uphill/obstacle"});
  return t;
}

int MaxMeleeStands(const MeleeSideInput& me, const MeleeSideInput& enemy,
                   int round) {
  // M: front-edge contact (1 against a headquarters), plus the rank behind.
  int front = std::min(me.front_in_contact, std::max(1, me.stands_per_rank));
  if (enemy.troop == Troop::kHeadquarters) front = std::min(front, 1);
  int ranks = round == 1 ? 1 : 2;  // M: 1 rank in round 1, then 2
  // M: long-shafted spears to their front fight 2 ranks in round 1.
  if (round == 1 && me.weapon == MeleeWeapon::kLongSpear &&
      !me.enemy_fighting_to_flank_or_rear)
    ranks = 2;
  if (me.disordered) ranks = 1;  // M: disordered units one rank
  // The rank behind: only stands that are there (a partial rear rank).
  const int behind =
      std::min(front, std::max(0, me.stands - me.stands_per_rank));
  int most = front + (ranks == 2 ? behind : 0);
  if (round >= 2) most += std::min(me.overlaps, 2);  // M, N: one a flank
  if (me.in_building || enemy.in_building)
    most = std::min(most, kMaxStandsBuildingSide);
  return std::min(most, me.stands);
}

MeleeVerdict JudgeMelee(int first_hits, int second_hits) {
  MeleeVerdict v;
  if (first_hits == second_hits) return v;  // M: equal, another round
  v.outcome = first_hits > second_hits ? MeleeOutcome::kFirstWins
                                       : MeleeOutcome::kSecondWins;
  // M: 2 more hits than the loser routs it; else a 3 cm push back.
  v.loser_routs = std::abs(first_hits - second_hits) >= 2;
  return v;
}

}  // namespace gunbai::reference
