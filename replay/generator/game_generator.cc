#include "replay/generator/game_generator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "replay/proto_mapping.h"
#include "replay/replayer.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/leader_loss.h"
#include "rules/daimyo/morale.h"

namespace gunbai::generate {

namespace {

namespace v1 = ::gunbai::v1;
using rules::MoraleReasons;
using rules::MoraleResult;

// turn_start, one activation per clan and turn_end.
constexpr int kTurnFrameEvents = 4;
// The smallest closing: one turn frame and game_end.
constexpr int kFinalTurnMinEvents = kTurnFrameEvents + 1;
constexpr int kClans = 2;
constexpr absl::string_view kClanIds[kClans] = {"oda", "takeda"};
constexpr absl::string_view kClanNames[kClans] = {"Oda", "Takeda"};
// A unit this small is left alone: it has been worn down enough.
constexpr int kFewStands = 2;
constexpr int kMovePercent = 35;
constexpr int kFirePercent = 80;
constexpr int kRallyPercent = 50;
constexpr int kMoraleDice = 2;
constexpr int kRallyReason = 8;
// The most events a frenzied unit's charge brings: the charge, its target's
// being-charged test, the retire, retreat or rout move the test owes, and
// the target's removal when that rout is its second.
constexpr int kChargeEvents = 4;
// The most events an end-of-turn test brings when the unit cannot become
// frenzied: the test, a result move, and a removal after a second rout.
constexpr int kTestEvents = 3;

constexpr MoraleReasons ReasonBits(std::initializer_list<int> reasons) {
  MoraleReasons bits = 0;
  for (int r : reasons) bits |= static_cast<MoraleReasons>(1u << r);
  return bits;
}
constexpr MoraleReasons kChargeReasons = ReasonBits({2, 3, 4});
constexpr MoraleReasons kEndOfTurnReasons = ReasonBits({1, 5, 6, 7});

[[noreturn]] void Die(absl::string_view what) {
  std::fprintf(stderr, "game_generator: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::abort();
}

const replay::LoadedRuleset& BuiltinRuleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinDaimyoRuleset();
    if (!loaded.ok()) Die(loaded.status().ToString());
    return new replay::LoadedRuleset(*std::move(loaded));
  }();
  return *ruleset;
}

// Plays one generated game into a BattleLog, replaying each event as it is
// written so that every claim is computed on the state the auditor will see.
//
// Event budget: optional events (moves, firings, rally tests) are made only
// when what they may bring still fits with everything the game owes: the
// rest of the turn frame, the charges frenzied units owe in activations
// still to come, the end-of-turn morale tests owed so far with their result
// moves, and the closing turn (its frame, game_end, and a charge for every
// frenzied unit). The closing turn then fills the budget exactly with moves.
//
// Three choices keep every clan able to fill the closing turn and every
// frenzied unit able to charge: the unit with the clan's General never tests
// to rally (so, never dispersed, it stays on the table and, being Ashigaru,
// never becomes frenzied); routing units are never shot at (so a router is
// never routed again and removed); and a charge never makes a Samurai test
// (so frenzy comes only from end-of-turn tests, never in the middle of a
// turn, and never to a unit a being-charged test halted into the next turn,
// which could then neither charge nor leave its frenzied charge undeclared).
class FiringGameGenerator {
 public:
  FiringGameGenerator(const GeneratorOptions& options,
                      const replay::LoadedRuleset& ruleset)
      : ruleset_(ruleset),
        rules_(ruleset.rules),
        rng_(options.seed),
        seed_(options.seed),
        target_events_(std::max(options.target_events, kFinalTurnMinEvents)),
        units_per_clan_(std::max(options.units_per_clan, 1)) {}

  v1::BattleLog Generate() &&;

 private:
  struct UnitPlan {
    int clan = 0;
    bool missile = false;
    bool general = false;  // The clan's General is attached.
    int line_width = 4;    // Stands a rank when in line.
  };

  int Uniform(int lo, int hi);  // Inclusive; deterministic on every platform.
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  const rules::BattleState& state() const { return replayer_->state(); }
  const rules::UnitStatus& status(int unit) const {
    return state().units[unit];
  }
  const std::string& UnitId(int unit) const {
    return state().profiles[unit].id;
  }
  std::string ClanOf(int unit) const {
    return std::string(kClanIds[plans_[unit].clan]);
  }
  int events() const { return log_.events_size(); }
  bool OnTable(int unit) const { return !status(unit).removed; }
  std::vector<int> UnitsOnTable(int clan) const;

  // Event budget.
  bool Affordable(int cost) const;
  int Reserved() const;
  int FinalTurnMinEvents() const;
  int EndOfTurnTestEvents() const;
  int TestEvents(int unit) const;
  bool MayBecomeFrenzied(int unit) const;
  bool OwesEndOfTurnTest(int unit) const;
  bool MustCharge(int unit) const;
  int Chargers(int clan) const;
  std::vector<int> Absorbers(int clan) const;

  void BuildHeader();
  void BuildOrderOfBattle();
  void AddMissileUnit(int clan, int n, v1::Unit& unit);
  void AddSamuraiUnit(int clan, int n, v1::Unit& unit);

  void Emit(v1::Event& event);
  void StartTurn();
  void Activate(int clan);
  void EndTurn();
  void PlayTurn();
  void PlayFinalTurn();

  // Movement.
  void MaybeMove(int unit);
  void Absorb(int unit);
  void MoveUnit(int unit);
  void TurnAbout(int unit);
  void ChargeWithFrenzied(int clan);
  std::vector<int> ChargeTargets(int charger) const;
  void DeclareCharge(int charger);

  // Firing.
  bool MayFire(int unit) const;
  void FillFacts(v1::FiringFacts& facts);
  std::vector<int> Targets(int clan, int stands_firing) const;
  void TryFire(int firer);
  int LeadersAttached(int unit) const;
  void RollOwedLeaderLosses();

  // Morale.
  void RallyRouters(int clan);
  void TakeEndOfTurnTests();
  void TakeMoraleTest(int unit, int reason);
  void CarryOutResult(int unit, MoraleResult result, bool was_routing);
  void MakeResultMove(int unit, v1::ResultMoveKind kind);
  void Remove(int unit);

  const replay::LoadedRuleset& ruleset_;
  const rules::Ruleset& rules_;
  std::mt19937_64 rng_;
  const std::uint64_t seed_;
  const int target_events_;
  const int units_per_clan_;

  v1::BattleLog log_;
  google::protobuf::RepeatedPtrField<v1::Finding> findings_;
  std::unique_ptr<replay::Replayer> replayer_;
  std::vector<UnitPlan> plans_;  // Parallel to the order of battle.
  std::uint64_t seq_ = 0;
  std::uint32_t turn_ = 0;
  int active_clan_ = 0;
  int pending_frame_events_ = 0;  // Activations and turn_end still owed.
};

int FiringGameGenerator::Uniform(int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(rng_() % span);
}

std::vector<int> FiringGameGenerator::UnitsOnTable(int clan) const {
  std::vector<int> out;
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    if (plans_[u].clan == clan && OnTable(unit)) out.push_back(unit);
  }
  return out;
}

// An optional event fits when, after it and the most it may bring, the game
// can still pay everything it owes.
bool FiringGameGenerator::Affordable(int cost) const {
  return events() + cost + Reserved() <= target_events_;
}

// Returns the events a turn in play still owes, the closing turn included.
// Frenzied units charge first thing in their activation, so only clans not
// yet activated this turn owe charges.
int FiringGameGenerator::Reserved() const {
  int charges = 0;
  for (int c = 0; c < kClans; ++c) {
    if ((state().activated_clans & (1u << c)) == 0) charges += Chargers(c);
  }
  return pending_frame_events_ + kChargeEvents * charges +
         EndOfTurnTestEvents() + FinalTurnMinEvents();
}

int FiringGameGenerator::FinalTurnMinEvents() const {
  return kFinalTurnMinEvents +
         kChargeEvents * (Chargers(0) + Chargers(kClans - 1));
}

int FiringGameGenerator::EndOfTurnTestEvents() const {
  int events = 0;
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    if (OwesEndOfTurnTest(unit)) events += TestEvents(unit);
  }
  return events;
}

// A unit that may become frenzied on its test charges in the closing turn
// instead of moving as the test's result.
int FiringGameGenerator::TestEvents(int unit) const {
  return MayBecomeFrenzied(unit) ? 1 + kChargeEvents : kTestEvents;
}

bool FiringGameGenerator::MayBecomeFrenzied(int unit) const {
  switch (state().profiles[unit].troop_type) {
    case rules::TroopType::kSamurai:
    case rules::TroopType::kRonin:
    case rules::TroopType::kWarriorMonk:
      return true;
    default:
      return false;
  }
}

bool FiringGameGenerator::OwesEndOfTurnTest(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return !s.removed && !s.frenzied && (s.owed_morale & kEndOfTurnReasons) != 0;
}

// A frenzied unit declares a charge in each activation of its clan, unless
// it routs or fights.
bool FiringGameGenerator::MustCharge(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return s.frenzied && !s.removed && !s.routing && !s.in_melee && !s.charging &&
         !s.fought_this_turn;
}

int FiringGameGenerator::Chargers(int clan) const {
  int n = 0;
  for (int unit : UnitsOnTable(clan)) {
    if (status(unit).frenzied && !status(unit).routing) ++n;
  }
  return n;
}

// Returns the units of `clan` that can always make one more move: a rout
// move when routing, a turn about when halted, a move otherwise. Frenzied
// units charge instead.
std::vector<int> FiringGameGenerator::Absorbers(int clan) const {
  std::vector<int> out;
  for (int unit : UnitsOnTable(clan)) {
    const rules::UnitStatus& s = status(unit);
    if ((s.frenzied && !s.routing) || s.in_melee) continue;
    out.push_back(unit);
  }
  return out;
}

v1::BattleLog FiringGameGenerator::Generate() && {
  BuildHeader();
  BuildOrderOfBattle();
  auto replayer = replay::Replayer::Create(log_, ruleset_, &findings_);
  if (!replayer.ok()) Die(replayer.status().ToString());
  replayer_ = *std::move(replayer);
  while (true) {
    const int spare = target_events_ - events() - FinalTurnMinEvents();
    const int on_table =
        static_cast<int>(UnitsOnTable(0).size() + UnitsOnTable(1).size());
    const int turn_min =
        kTurnFrameEvents + kChargeEvents * (Chargers(0) + Chargers(1));
    if (spare <= turn_min || spare <= on_table) {
      PlayFinalTurn();
      break;
    }
    PlayTurn();
  }
  v1::Event end;
  end.mutable_game_end();
  Emit(end);
  return std::move(log_);
}

void FiringGameGenerator::BuildHeader() {
  v1::Header* header = log_.mutable_header();
  header->set_game_id(absl::StrCat("generated-firing-", seed_));
  header->mutable_ruleset()->set_name(rules_.name);
  header->mutable_ruleset()->set_version(rules_.version);
  header->set_event("gunbai generator");
  header->set_date("1575-06-28");
  for (int c = 0; c < kClans; ++c) {
    v1::Clan* clan = header->add_clans();
    clan->set_id(std::string(kClanIds[c]));
    clan->set_name(std::string(kClanNames[c]));
    clan->set_player(absl::StrCat("player ", c + 1));
  }
}

void FiringGameGenerator::BuildOrderOfBattle() {
  v1::OrderOfBattle* oob = log_.mutable_order_of_battle();
  for (int c = 0; c < kClans; ++c) {
    for (int n = 1; n <= units_per_clan_; ++n) {
      v1::Unit* unit = oob->add_units();
      unit->set_id(absl::StrCat(kClanIds[c], "-", n));
      unit->set_clan(std::string(kClanIds[c]));
      if (n % 3 != 0) {
        AddMissileUnit(c, n, *unit);
      } else {
        AddSamuraiUnit(c, n, *unit);
      }
    }
    v1::Leader* general = oob->add_leaders();
    general->set_id(absl::StrCat(kClanIds[c], "-general"));
    general->set_clan(std::string(kClanIds[c]));
    general->set_name(absl::StrCat(kClanNames[c], " General"));
    general->set_kind(v1::LEADER_KIND_GENERAL);
    general->set_command_rating(2);
    general->set_attached_unit(absl::StrCat(kClanIds[c], "-1"));
  }
}

void FiringGameGenerator::AddMissileUnit(int clan, int n, v1::Unit& unit) {
  const bool arquebus = Chance(60);
  unit.set_name(absl::StrCat(kClanNames[clan],
                             arquebus ? " Teppo-gumi " : " Yumi-gumi ", n));
  unit.set_troop_type(v1::TROOP_TYPE_ASHIGARU);
  unit.set_mobility(v1::MOBILITY_FOOT);
  constexpr v1::Quality kQualities[] = {v1::QUALITY_RAW, v1::QUALITY_SEASONED,
                                        v1::QUALITY_SEASONED,
                                        v1::QUALITY_VETERAN};
  unit.set_quality(kQualities[Uniform(0, 3)]);
  unit.set_armour(Chance(50) ? v1::ARMOUR_LIGHT : v1::ARMOUR_NONE);
  unit.set_melee_weapon(v1::MELEE_WEAPON_IMPROVISED);
  unit.set_missile_weapon(arquebus ? v1::MISSILE_WEAPON_ARQUEBUS
                                   : v1::MISSILE_WEAPON_BOW);
  unit.set_stands(static_cast<uint32_t>(Uniform(4, 8)));
  const int width = Uniform(3, 4);
  unit.set_stands_per_rank(static_cast<uint32_t>(width));
  unit.set_formation(v1::FORMATION_LINE);
  unit.set_starting_order(Chance(10) ? v1::ORDER_DISORDERED : v1::ORDER_GOOD);
  plans_.push_back(
      {clan, /*missile=*/true, /*general=*/n == 1, /*line_width=*/width});
}

void FiringGameGenerator::AddSamuraiUnit(int clan, int n, v1::Unit& unit) {
  const bool mounted = Chance(50);
  unit.set_name(absl::StrCat(kClanNames[clan],
                             mounted ? " Kiba-musha " : " Samurai ", n));
  unit.set_troop_type(v1::TROOP_TYPE_SAMURAI);
  unit.set_mobility(mounted ? v1::MOBILITY_MOUNTED : v1::MOBILITY_FOOT);
  unit.set_quality(Chance(30) ? v1::QUALITY_ELITE : v1::QUALITY_VETERAN);
  unit.set_armour(Chance(50) ? v1::ARMOUR_HEAVY : v1::ARMOUR_MEDIUM);
  unit.set_melee_weapon(mounted ? v1::MELEE_WEAPON_LANCE
                                : v1::MELEE_WEAPON_POLE_ARM);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  unit.set_stands(static_cast<uint32_t>(Uniform(4, 6)));
  const int width = Uniform(2, 4);
  unit.set_stands_per_rank(static_cast<uint32_t>(width));
  unit.set_formation(v1::FORMATION_LINE);
  unit.set_starting_order(v1::ORDER_GOOD);
  plans_.push_back(
      {clan, /*missile=*/false, /*general=*/false, /*line_width=*/width});
}

void FiringGameGenerator::Emit(v1::Event& event) {
  event.set_seq(++seq_);
  event.set_turn(turn_);
  replayer_->Apply(event);
  *log_.add_events() = std::move(event);
}

void FiringGameGenerator::StartTurn() {
  ++turn_;
  const int initiative = static_cast<int>((turn_ - 1) % kClans);
  v1::Event event;
  event.mutable_turn_start()->set_initiative_clan(
      std::string(kClanIds[initiative]));
  Emit(event);
  pending_frame_events_ = kClans + 1;
}

// Activates `clan` and makes the charges its frenzied units owe.
void FiringGameGenerator::Activate(int clan) {
  active_clan_ = clan;
  v1::Event event;
  event.set_clan(std::string(kClanIds[clan]));
  event.mutable_activation();
  Emit(event);
  --pending_frame_events_;
  ChargeWithFrenzied(clan);
}

// Takes the morale tests owed at the end of the turn, then ends it.
void FiringGameGenerator::EndTurn() {
  TakeEndOfTurnTests();
  v1::Event event;
  event.mutable_turn_end();
  Emit(event);
  pending_frame_events_ = 0;
}

void FiringGameGenerator::PlayTurn() {
  StartTurn();
  const int first = state().initiative_clan;
  for (int i = 0; i < kClans; ++i) {
    const int clan = (first + i) % kClans;
    Activate(clan);
    RallyRouters(clan);
    const std::vector<int> units = UnitsOnTable(clan);
    for (int unit : units) MaybeMove(unit);
    for (int unit : units) {
      if (MayFire(unit) && Chance(kFirePercent)) TryFire(unit);
    }
  }
  EndTurn();
}

// Closes the game with one turn of charges (for frenzied units) and moves
// that fill the budget exactly, split between the two activations; a unit
// moves twice only when there are more moves than units.
void FiringGameGenerator::PlayFinalTurn() {
  StartTurn();
  const int first = state().initiative_clan;
  for (int i = 0; i < kClans; ++i) {
    const int clan = (first + i) % kClans;
    const int other = (clan + 1) % kClans;
    Activate(clan);
    std::vector<int> pool = Absorbers(clan);
    // turn_end and game_end follow; before them, the other activation with
    // its charges when this one is the first.
    int moves = target_events_ - events() - 2;
    if (i == 0) {
      moves -= 1 + kChargeEvents * Chargers(other);
      if (!Absorbers(other).empty()) moves = (moves + 1) / 2;
    }
    // Fisher-Yates shuffle, so that who moves is random.
    for (std::size_t k = 0; k + 1 < pool.size(); ++k) {
      std::swap(pool[k], pool[Uniform(static_cast<int>(k),
                                      static_cast<int>(pool.size()) - 1)]);
    }
    for (int m = 0; m < moves && !pool.empty(); ++m) {
      Absorb(pool[m % pool.size()]);
    }
  }
  EndTurn();
}

// Moves `unit` now and then, in the way its state allows.
void FiringGameGenerator::MaybeMove(int unit) {
  if (!Chance(kMovePercent) || !Affordable(1)) return;
  const rules::UnitStatus& s = status(unit);
  if ((s.frenzied && !s.routing) || s.in_melee) return;
  Absorb(unit);
}

// Makes one move that `unit` may always make: routers flee further (a rout
// move is allowed at any time), halted units turn about (a halt allows it),
// the others move.
void FiringGameGenerator::Absorb(int unit) {
  if (status(unit).routing) {
    MakeResultMove(unit, v1::RESULT_MOVE_KIND_ROUT);
  } else if (state().IsHalted(unit)) {
    TurnAbout(unit);
  } else {
    MoveUnit(unit);
  }
}

void FiringGameGenerator::MoveUnit(int unit) {
  const UnitPlan& plan = plans_[unit];
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::Move* move = event.mutable_move();
  move->set_unit(UnitId(unit));
  move->set_kind(v1::MOVE_KIND_MOVE);
  const bool mounted =
      state().profiles[unit].mobility == rules::Mobility::kMounted;
  move->set_distance_mm(
      static_cast<uint32_t>(Uniform(10, mounted ? 240 : 120)));
  if (Chance(10)) {
    const bool in_column = status(unit).formation == rules::Formation::kColumn;
    move->set_formation(in_column ? v1::FORMATION_LINE : v1::FORMATION_COLUMN);
    move->set_stands_per_rank(
        static_cast<uint32_t>(in_column ? plan.line_width : 2));
  }
  Emit(event);
}

void FiringGameGenerator::TurnAbout(int unit) {
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::Move* move = event.mutable_move();
  move->set_unit(UnitId(unit));
  move->set_kind(v1::MOVE_KIND_TURN_ABOUT);
  Emit(event);
}

void FiringGameGenerator::ChargeWithFrenzied(int clan) {
  for (int unit : UnitsOnTable(clan)) {
    if (MustCharge(unit)) DeclareCharge(unit);
  }
}

// Returns the enemies `charger` may charge without making a new frenzied
// unit: a Samurai that tests for being charged could roll its frenzy, and
// then owe charges the budget did not plan for. The enemy General's unit
// (Ashigaru, always on the table) is always among them.
std::vector<int> FiringGameGenerator::ChargeTargets(int charger) const {
  std::vector<int> out;
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    if (plans_[u].clan == plans_[charger].clan || !OnTable(unit)) continue;
    if (MayBecomeFrenzied(unit) &&
        rules::daimyo::TestsOwedByTarget(state(), unit, charger) != 0) {
      continue;
    }
    out.push_back(unit);
  }
  return out;
}

// Declares the charge a frenzied unit owes, then the test its target owes
// for being charged. The generator plays no melee, so every charge falls
// short of its target (a routing target then survives).
void FiringGameGenerator::DeclareCharge(int charger) {
  const std::vector<int> targets = ChargeTargets(charger);
  if (targets.empty()) return;
  const int target = targets[Uniform(0, static_cast<int>(targets.size()) - 1)];
  v1::Event event;
  event.set_clan(ClanOf(charger));
  v1::ChargeDeclaration* charge = event.mutable_charge();
  charge->set_unit(UnitId(charger));
  charge->set_target(UnitId(target));
  charge->set_fell_short(true);
  Emit(event);
  const rules::UnitStatus& t = status(target);
  const MoraleReasons owed = t.owed_morale & kChargeReasons;
  if (owed != 0 && !t.removed && !t.frenzied) {
    TakeMoraleTest(target, rules::daimyo::HighestReason(owed));
  }
}

// Routers, units that retreated this turn, frenzied units and chargers hold
// their fire.
bool FiringGameGenerator::MayFire(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return plans_[unit].missile && !s.removed && !s.routing && !s.may_not_fire &&
         !s.frenzied && !s.charging && !s.in_melee && !s.fired_this_turn;
}

void FiringGameGenerator::FillFacts(v1::FiringFacts& facts) {
  const rules::FiringRules& firing = rules_.firing;
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
  facts.set_target_in_column_or_flanked(Chance(10));
}

// Returns the enemies of `clan` that may be shot at by `stands_firing`
// stands: on the table, not routing, not yet worn down, and sure to survive
// the volley.
std::vector<int> FiringGameGenerator::Targets(int clan,
                                              int stands_firing) const {
  const int per_stand = rules_.hits_per_stand;
  const int worst_loss = (per_stand - 1 + stands_firing) / per_stand;
  std::vector<int> out;
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    const int stands = state().units[u].stands;
    if (plans_[u].clan == clan || !OnTable(unit) || status(unit).routing) {
      continue;
    }
    if (stands > kFewStands && stands > worst_loss) out.push_back(unit);
  }
  return out;
}

int FiringGameGenerator::LeadersAttached(int unit) const {
  int n = 0;
  for (const rules::LeaderState& leader : state().leaders) {
    if (!leader.killed && leader.attached_unit == unit) ++n;
  }
  return n;
}

void FiringGameGenerator::TryFire(int firer) {
  v1::Event event;
  event.set_clan(std::string(kClanIds[active_clan_]));
  v1::Firing* firing = event.mutable_firing();
  firing->set_unit(UnitId(firer));
  FillFacts(*firing->mutable_facts());
  const rules::daimyo::Shot probe =
      replay::ShotFromProto(*firing, firer, /*target=*/-1);
  const int max_stands = rules::daimyo::MaxFiringStands(rules_, state(), probe);
  if (max_stands <= 0) return;
  const int stands = Chance(85) ? max_stands : Uniform(1, max_stands);
  const std::vector<int> targets = Targets(active_clan_, stands);
  if (targets.empty()) return;
  const int target = targets[Uniform(0, static_cast<int>(targets.size()) - 1)];
  // A lost stand owes the target a test at the end of the turn (a killed
  // leader owes the same unit one, merged into it).
  const bool new_test = !OwesEndOfTurnTest(target) && !status(target).frenzied;
  if (!Affordable(1 + LeadersAttached(target) +
                  (new_test ? TestEvents(target) : 0))) {
    return;
  }
  firing->set_target(UnitId(target));
  firing->set_stands_firing(static_cast<uint32_t>(stands));
  for (int d = 0; d < stands * rules_.firing.dice_per_stand; ++d) {
    firing->add_dice(static_cast<uint32_t>(Uniform(1, 6)));
  }
  const rules::daimyo::Shot shot =
      replay::ShotFromProto(*firing, firer, target);
  const int hits =
      rules::daimyo::ResolveFiring(rules_, state(), shot, nullptr).hits;
  const rules::UnitStatus& hit_unit = state().units[target];
  const int lost = std::min(rules::StandsLostByHits(hit_unit.carried_hits, hits,
                                                    rules_.hits_per_stand),
                            hit_unit.stands);
  firing->set_claimed_hits(static_cast<uint32_t>(hits));
  firing->set_claimed_stands_lost(static_cast<uint32_t>(lost));
  Emit(event);
  RollOwedLeaderLosses();
}

void FiringGameGenerator::RollOwedLeaderLosses() {
  for (std::size_t i = 0; i < state().leaders.size(); ++i) {
    const rules::LeaderState& leader = state().leaders[i];
    if (!leader.loss_roll_owed) continue;
    const int die = Uniform(1, 6);
    const bool killed =
        rules::daimyo::ResolveLeaderLoss(rules_, leader, die, nullptr).killed;
    v1::Event event;
    event.set_clan(std::string(kClanIds[active_clan_]));
    v1::LeaderLossRoll* roll = event.mutable_leader_loss();
    roll->set_leader(leader.id);
    roll->set_die(static_cast<uint32_t>(die));
    roll->set_claimed_killed(killed);
    Emit(event);
  }
}

// Routers of the active clan test to rally now and then, before they move.
// The General's unit never does: a failed rally disperses the unit, and the
// closing turn needs a unit in every clan that stays on the table.
void FiringGameGenerator::RallyRouters(int clan) {
  for (int unit : UnitsOnTable(clan)) {
    if (!status(unit).routing || plans_[unit].general) continue;
    if (Chance(kRallyPercent) && Affordable(1)) {
      TakeMoraleTest(unit, kRallyReason);
    }
  }
}

// Takes, after the last activation of the turn, the one test each unit owes
// for reasons 1, 5, 6 and 7: for the highest of them.
void FiringGameGenerator::TakeEndOfTurnTests() {
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    if (!OwesEndOfTurnTest(unit)) continue;
    TakeMoraleTest(unit, rules::daimyo::HighestReason(status(unit).owed_morale &
                                                      kEndOfTurnReasons));
  }
}

// Rolls `unit`'s test for `reason` with every claim worked out on the state
// before it, declaring no measured facts, then carries out its result.
void FiringGameGenerator::TakeMoraleTest(int unit, int reason) {
  const bool was_routing = status(unit).routing;
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::MoraleTest* test = event.mutable_morale_test();
  test->set_unit(UnitId(unit));
  test->set_reason(static_cast<uint32_t>(reason));
  for (int d = 0; d < kMoraleDice; ++d) {
    test->add_dice(static_cast<uint32_t>(Uniform(1, 6)));
  }
  rules::daimyo::MoraleTestInput in;
  in.unit = unit;
  in.reason = reason;
  in.dice = absl::MakeConstSpan(test->dice().data(), test->dice_size());
  const rules::daimyo::MoraleResolution res =
      rules::daimyo::ResolveMoraleTest(rules_, state(), in, nullptr);
  test->set_claimed_total(res.total);
  test->set_claimed_result(replay::MoraleResultToProto(res.result));
  Emit(event);
  CarryOutResult(unit, res.result, was_routing);
}

// Makes the move a result owes at once (a router already fleeing owes no new
// rout move), and removes a unit the result destroyed (a second rout).
// Halts, the halt after a retire or retreat, frenzy and routing are kept by
// the replayed state, which the rest of the generator reads.
void FiringGameGenerator::CarryOutResult(int unit, MoraleResult result,
                                         bool was_routing) {
  switch (result) {
    case MoraleResult::kRetire:
      MakeResultMove(unit, v1::RESULT_MOVE_KIND_RETIRE);
      break;
    case MoraleResult::kRetreat:
      MakeResultMove(unit, v1::RESULT_MOVE_KIND_RETREAT);
      break;
    case MoraleResult::kRout:
      if (!was_routing) MakeResultMove(unit, v1::RESULT_MOVE_KIND_ROUT);
      break;
    default:
      break;
  }
  const rules::UnitStatus& s = status(unit);
  if (!s.removed && !s.removal_owed.empty()) Remove(unit);
}

void FiringGameGenerator::MakeResultMove(int unit, v1::ResultMoveKind kind) {
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::ResultMove* move = event.mutable_result_move();
  move->set_unit(UnitId(unit));
  move->set_kind(kind);
  move->set_distance_mm(static_cast<uint32_t>(Uniform(30, 150)));
  Emit(event);
}

void FiringGameGenerator::Remove(int unit) {
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::Removal* removal = event.mutable_removal();
  removal->set_unit(UnitId(unit));
  removal->set_reason(status(unit).removal_owed);
  Emit(event);
}

}  // namespace

v1::BattleLog GenerateFiringGame(const GeneratorOptions& options) {
  return FiringGameGenerator(options, BuiltinRuleset()).Generate();
}

std::string SerializeDeterministic(const v1::BattleLog& log) {
  return replay::DeterministicBytes(log);
}

}  // namespace gunbai::generate
