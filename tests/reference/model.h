// An independent reference model of the Daimyo arithmetic: firing, stand
// loss, leader loss, morale and melee, written from the rules texts
// (/work/shared/seeds), the settled readings (RULES-NOTES.md) and the
// project's own rules page (rules/daimyo/RULES.md), and from nothing in
// rules/ or replay/. It shares no code and no types with the engine: the
// engine is what it checks.
//
// Every table cell in model.cc cites the seed passage it comes from, in our
// own words. Pure functions over plain values; thread-safe.
#ifndef GUNBAI_TESTS_REFERENCE_MODEL_H_
#define GUNBAI_TESTS_REFERENCE_MODEL_H_

#include <string>
#include <vector>

namespace gunbai::reference {

enum class Troop {
  kSamurai,
  kAshigaru,
  kRonin,
  kMonk,
  kPeasant,
  kHatamoto,
  kHeadquarters
};
enum class Mobility { kFoot, kMounted };
enum class Quality { kElite, kVeteran, kSeasoned, kRaw };  // best first
enum class Armour { kNone, kLight, kMedium, kHeavy };
enum class MeleeWeapon {
  kNone,
  kLongSpear,
  kPoleArm,
  kImprovised,
  kLance,
  kSword
};
enum class Missile { kNone, kBow, kArquebus };
enum class Formation { kLine, kColumn, kBuilding };
enum class LeaderKind { kGeneral, kDaimyo };

// One term of a modified total, for the traces we print.
struct Term {
  int value = 0;
  std::string why;
};
int SumTerms(const std::vector<Term>& terms);
std::string TermsText(const std::vector<Term>& terms);

// Counts the 2d6 pairs (stand 1's pair first) whose sum plus `modifier`
// reaches the hit score of firing and melee (8).
int CountHits(const std::vector<int>& dice, int modifier);

// ---- Firing (seed 004) ----
enum class Band { kEffective, kLong, kOut };
// Band of a measured shot: effective up to and including 80 mm, long over
// 80 up to and including 150 mm; in woods (unless firing out at a target
// outside) 30 mm is the limit.
Band BandFromDistance(int distance_mm, bool woods_limit);

struct FireInput {
  bool first_volley = false;  // the unit's first firing of the game
  bool firer_disordered = false;
  bool firer_raw = false;
  bool firer_being_charged = false;
  bool firer_moved = false;
  Missile weapon = Missile::kNone;
  Armour target_armour = Armour::kNone;
  bool target_mounted = false;
  bool effective = false;  // the band the shot is resolved at
  bool target_column_or_flanked = false;
  bool target_in_building = false;
  bool target_in_cover = false;
};
std::vector<Term> FiringFactors(const FireInput& in);

// Most stands that may fire: 2 ranks of the front width in good order, 1
// disordered; never more than the unit has; at most 2 from a building.
int MaxFiringStands(int stands, int stands_per_rank, bool disordered,
                    bool from_building);

// Fire at chargers that began beyond effective range is at long range,
// unless the firers are in cover or Veteran or better.
bool ForcedLongRange(bool at_chargers_from_beyond, bool firer_in_cover,
                     Quality firer_quality);

// ---- Hits and stand loss (004 and 000) ----
struct StandLoss {
  int lost = 0;
  int carried = 0;  // hits left on the unit
};
// Every 3 hits remove a stand; the rest carries over. Never more stands
// than the unit has.
StandLoss ApplyHits(int carried_before, int new_hits, int stands);

// ---- Leader loss (004, repeated in 000) ----
// 1d6 + stands left (a headquarters counts as 1); 4 or less kills.
bool LeaderKilled(int die, int stands_left, bool headquarters);

// ---- Morale (seed 002) ----
enum class MoraleResult {
  kNoEffect,
  kHalt,
  kRetire,
  kRetreat,
  kRout,
  kStandOrRetire,
  kCounterCharge,
  kCharge,
  kRally,
  kDispersed,
  kFrenzy
};
const char* MoraleResultName(MoraleResult r);
int PassScore(Quality q);

struct MoraleInput {
  int reason = 1;  // 1-8
  Troop troop = Troop::kSamurai;
  Mobility mobility = Mobility::kFoot;
  Quality quality = Quality::kSeasoned;
  int best_command_rating = 0;  // 0: no live, non-routing leader attached
  bool pursued_this_turn = false;
  bool uphill_or_in_cover = false;
  bool general_near = false;  // declared, or a General attached (not routing)
  bool long_spear_charged_frontally_by_cavalry = false;
  bool enemy_routing_near = false;
  bool disordered = false;
  bool out_of_command = false;
  bool infantry_charged_by_cavalry = false;
  int friends_routing_equal_or_higher = 0;
  int stands_lost = 0;
  bool enemy_flank_or_rear_near = false;
  bool leader_killed_near = false;
  bool routing = false;
  // A router hit by firing this turn cannot rally (seed 004, "may still
  // rally unless any hits were inflicted"): a pass leaves it routing.
  bool hit_by_fire_this_turn = false;
};

struct MoraleOutcome {
  int total = 0;
  MoraleResult result = MoraleResult::kNoEffect;
  bool passed = false;
  bool frenzy = false;
  std::vector<Term> terms;
};
MoraleOutcome MoraleTest(const MoraleInput& in, int die1, int die2);

// ---- Melee (seed 000) ----
int WeaponFactor(MeleeWeapon weapon, bool enemy_mounted);
// Missile-armed Ashigaru and headquarters fight with improvised weapons.
MeleeWeapon EffectiveMeleeWeapon(Troop troop, Missile missile,
                                 MeleeWeapon weapon);

struct MeleeSideInput {
  Troop troop = Troop::kSamurai;
  Mobility mobility = Mobility::kFoot;
  Quality quality = Quality::kSeasoned;
  Armour armour = Armour::kNone;
  MeleeWeapon weapon = MeleeWeapon::kNone;  // effective weapon
  bool disordered = false;
  bool general_attached = false;
  bool daimyo_attached = false;
  bool frenzied = false;
  bool pursuing = false;
  bool following_up = false;
  // Charged this very enemy this turn, made contact, not fell short.
  bool charged_into_contact = false;
  bool enemy_fighting_to_flank_or_rear = false;  // declared on this side
  bool enemy_uphill_or_behind_obstacle = false;  // declared on this side
  bool in_building = false;  // this side occupies a building
  int stands = 0;
  int stands_per_rank = 1;
  int front_in_contact = 0;
  int overlaps = 0;
};
std::vector<Term> MeleeModifiers(const MeleeSideInput& me,
                                 const MeleeSideInput& enemy, int round);
int MaxMeleeStands(const MeleeSideInput& me, const MeleeSideInput& enemy,
                   int round);

enum class MeleeOutcome { kFirstWins, kSecondWins, kDraw };
struct MeleeVerdict {
  MeleeOutcome outcome = MeleeOutcome::kDraw;
  bool loser_routs = false;  // else pushed back (when not a draw)
};
MeleeVerdict JudgeMelee(int first_hits, int second_hits);

}  // namespace gunbai::reference

#endif  // GUNBAI_TESTS_REFERENCE_MODEL_H_
