// The game frame of the GamePlayer: the armies, turns and activations, the
// event budget of games sized by events, movement and fault bookkeeping.
// See player.h.
#include "generate/daimyo/player.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "replay/proto_mapping.h"
#include "rules/battlefield_proto.h"
#include "rules/daimyo/engine.h"
#include "rules/daimyo/morale.h"
#include "rules/proto_enums.h"
#include "rules/victory.h"

namespace gunbai::generate::internal {

namespace {

// turn_start, one activation per clan and turn_end.
constexpr int kTurnFrameEvents = 4;
// The smallest game: one turn frame and game_end.
constexpr int kMinEvents = kTurnFrameEvents + 1;
constexpr int kClans = 2;
constexpr absl::string_view kClanIds[kClans] = {"oda", "takeda"};
constexpr absl::string_view kClanNames[kClans] = {"Oda", "Takeda"};
constexpr int kMovePercent = 35;
constexpr int kDaimyoUnit = 3;  // The unit number the Daimyo leads.

// Faults are due from a time drawn up to the middle of a game sized by
// turns, or the first third of one sized by events (whose last turns only
// move), so that most find a chance to be planted as drawn.
int FaultWindowEnd(const GeneratorOptions& options) {
  if (options.turns > 0) return (options.turns + 1) / 2;
  return std::max(options.target_events, kMinEvents) / 3;
}

// Games sized by turns that dice for the initiative each turn (one die a
// clan) instead of alternating it, drawn with their dice from a stream of
// their own, so that the other games are the same as before they could. A
// game sized by events alternates it: its budget plans the closing turn's
// order of activation.
constexpr int kInitiativeDicePercent = 30;
constexpr std::uint64_t kInitiativeStream = 0x696e6974ULL;  // "init"

// Keeps the fault plan apart from the game's own generators.
constexpr std::uint64_t kFaultStream = 0x6661756c74ULL;  // "fault"

// Plans the faults of a game with `options`: kinds from the whole
// catalogue, taken in turn from a place the seed sets (so that a corpus of
// consecutive seeds plants each kind equally often), due from the first
// turn (or event) to FaultWindowEnd.
FaultPlanner<FaultKind> PlanFaults(const GeneratorOptions& options) {
  std::mt19937_64 rng(options.seed ^ kFaultStream);
  const int faults = std::max(options.faults, 0);
  return FaultPlanner<FaultKind>(
      rng, faults, CatalogueKinds(FaultCatalogue()), options.turns > 0 ? 1 : 0,
      FaultWindowEnd(options),
      options.seed * static_cast<std::uint64_t>(faults));
}

// The victory by points of every game (Samurai Knight Fever's rule, which
// a Daimyo game may agree to): what a routed or eliminated unit yields, and
// the total to win, which grows with the armies.
constexpr std::pair<v1::TroopType, int> kUnitPoints[] = {
    {v1::TROOP_TYPE_ASHIGARU, 1},     {v1::TROOP_TYPE_PEASANT, 1},
    {v1::TROOP_TYPE_SAMURAI, 2},      {v1::TROOP_TYPE_RONIN, 2},
    {v1::TROOP_TYPE_WARRIOR_MONK, 2}, {v1::TROOP_TYPE_HATAMOTO, 3},
    {v1::TROOP_TYPE_HEADQUARTERS, 3},
};
constexpr int kMinPointsToWin = 3;

// Returns the victory settings of the log's scenario, as the audit scores
// them.
rules::VictorySettings VictorySettingsOf(const v1::BattleLog& log) {
  const v1::VictoryConditions& victory = log.header().scenario().victory();
  rules::VictorySettings settings;
  settings.points_to_win = static_cast<int>(victory.points_to_win());
  for (const v1::UnitPoints& entry : victory.unit_points()) {
    const auto type = rules::TroopTypeFromProto(entry.troop_type());
    if (type.has_value()) {
      settings.unit_points[static_cast<int>(*type)] =
          static_cast<int>(entry.points());
    }
  }
  return settings;
}

[[noreturn]] void Die(absl::string_view what) {
  std::fprintf(stderr, "game_generator: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::abort();
}

}  // namespace

GamePlayer::GamePlayer(const GeneratorOptions& options,
                       const replay::LoadedRuleset& ruleset)
    : options_(options),
      ruleset_(ruleset),
      rules_(rules::daimyo::DaimyoRulesFromData(ruleset.data)),
      rng_(options.seed),
      variety_rng_(options.seed ^ 0x9e3779b97f4a7c15ULL),
      initiative_rng_(options.seed ^ kInitiativeStream),
      dices_for_initiative_(options.turns > 0 &&
                            UniformDraw(initiative_rng_, 1, 100) <=
                                kInitiativeDicePercent),
      target_events_(std::max(options.target_events, kMinEvents)),
      units_per_clan_(std::max(options.units_per_clan, 1)),
      planner_(PlanFaults(options)) {}

int GamePlayer::Uniform(int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(rng_() % span);
}

int GamePlayer::FaultClock() const {
  return sized_by_events() ? events() : static_cast<int>(turn_);
}

std::string GamePlayer::ClanId(int clan) const {
  return std::string(kClanIds[clan]);
}

std::vector<int> GamePlayer::UnitsOnTable(int clan) const {
  std::vector<int> out;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (plans_[unit].clan == clan && OnTable(unit)) out.push_back(unit);
  }
  return out;
}

bool GamePlayer::MayBecomeFrenzied(int unit) const {
  switch (state().profiles[unit].troop_type) {
    case rules::TroopType::kSamurai:
    case rules::TroopType::kRonin:
    case rules::TroopType::kWarriorMonk:
      return true;
    default:
      return false;
  }
}

bool GamePlayer::OwesEndOfTurnTest(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return !s.removed && !s.frenzied && (s.owed_morale & kEndOfTurnReasons) != 0;
}

// True when the replayer can owe `unit` no result move this turn: it was
// not charged (a passed being-charged test leaves a stand-or-retire choice
// open until the turn ends) and it has not fought.
bool GamePlayer::OwesNothing(int unit) const {
  return OnTable(unit) && !targeted_this_turn_[unit] &&
         !status(unit).fought_this_turn && !status(unit).in_melee;
}

// A frenzied unit declares a charge in each activation of its clan, unless
// it routs, fights, or is halted (the halt wins over frenzy).
bool GamePlayer::MustCharge(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return s.frenzied && !s.removed && !s.routing && !s.in_melee && !s.charging &&
         !s.fought_this_turn && !state().IsHalted(unit);
}

// ---------------------------------------------------------------------------
// Budget. An optional event (a move, a volley, a charge, a rally test) is
// made only when, after it and the most it may bring, the game can still pay
// everything it owes: the rest of the turn frame, the melees still to fight
// this turn, the frenzied charges of clans still to activate, the morale
// tests owed at the end of the turn, and the closing turn. The closing turn
// then fills the budget exactly with moves.

bool GamePlayer::Affordable(int cost) const {
  if (!sized_by_events()) return true;
  return events() + cost + Reserved() <= target_events_;
}

int GamePlayer::Reserved() const {
  int frenzied = 0;
  int router_moves = 0;
  for (int c = 0; c < kClans; ++c) {
    if ((state().activated_clans & (1u << c)) == 0) {
      frenzied += FrenziedChargers(c);
      router_moves += RoutersToMove(c);
    }
  }
  int tests = 0;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (OwesEndOfTurnTest(unit)) ++tests;
  }
  return pending_frame_events_ + kContactReserve * Contacts(true) +
         kPendingPairingReserve *
             static_cast<int>(new_pairings_.size() + ongoing_joins_.size()) +
         kFallShortChargeEvents * frenzied + kTestChainEvents * tests +
         router_moves + ClosingReserve();
}

// Returns what the closing turn may need besides its moves: its frame and
// game_end, a round for every melee, a charge that falls short for every
// unit that is or may become frenzied, and a stand-in for every fault not
// yet planted.
int GamePlayer::ClosingReserve() const {
  int frenzy = 0;
  int routers = 0;  // Each makes its rout move in the closing turn.
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (OnTable(unit) && (status(unit).frenzied || MayBecomeFrenzied(unit))) {
      ++frenzy;
    }
    if (OnTable(unit) && status(unit).routing) ++routers;
  }
  return kMinEvents + kContactReserve * Contacts(false) +
         kFallShortChargeEvents * frenzy + routers + planner_.pending();
}

// A full turn is played while, besides the closing turn, the budget holds
// its frame, its melees and frenzied charges, and a move for every unit.
bool GamePlayer::FullTurnFits() const {
  const int on_table =
      static_cast<int>(UnitsOnTable(0).size() + UnitsOnTable(1).size());
  const int mandatory =
      kTurnFrameEvents + kContactReserve * Contacts(false) +
      kFallShortChargeEvents * (FrenziedChargers(0) + FrenziedChargers(1));
  return events() + mandatory + on_table + ClosingReserve() < target_events_;
}

int GamePlayer::Contacts(bool unfought_only) const {
  int n = 0;
  for (const rules::MeleeContact& m : state().melees) {
    if (!OnTable(m.a) || !OnTable(m.b)) continue;
    if (unfought_only && m.last_turn_fought == static_cast<int>(turn_)) {
      continue;
    }
    ++n;
  }
  return n;
}

int GamePlayer::FrenziedChargers(int clan) const {
  int n = 0;
  for (int unit : UnitsOnTable(clan)) {
    if (status(unit).frenzied && !status(unit).routing) ++n;
  }
  return n;
}

// ---------------------------------------------------------------------------
// The game frame.

GeneratedGame GamePlayer::Play() && {
  BuildHeader();
  BuildOrderOfBattle();
  if (positions()) {
    if (sized_by_events()) Die("a game with positions is sized by turns");
    BuildTable();
    DeployUnits();
  }
  auto replayer = rules::daimyo::DaimyoEngine::Create(log_, rules_, &findings_);
  if (!replayer.ok()) Die(replayer.status().ToString());
  replayer_ = *std::move(replayer);
  if (positions()) {
    auto field = rules::BattlefieldFromLog(log_, rules_.table, state());
    if (!field.ok()) Die(field.status().ToString());
    if (!field->has_value()) Die("the log has no table");
    field_ = **std::move(field);
  }
  targeted_this_turn_.assign(plans_.size(), false);
  charged_this_turn_.assign(plans_.size(), false);
  left_this_activation_.assign(plans_.size(), false);
  has_drawn_dice_.assign(plans_.size(), false);
  drawn_dice_.assign(plans_.size(), {0, 0});
  leader_roll_skipped_.assign(state().leaders.size(), false);
  victory_ =
      std::make_unique<rules::VictoryTracker>(VictorySettingsOf(log_), state());
  if (sized_by_events()) {
    while (FullTurnFits()) PlayTurn(TurnKind::kFull);
    PlayTurn(TurnKind::kClosing);
  } else {
    while (static_cast<int>(turn_) < options_.turns) PlayTurn(TurnKind::kFull);
  }
  v1::Event end;
  v1::GameEnd* game_end = end.mutable_game_end();
  if (victory_->winner() >= 0) {
    game_end->set_claimed_winner(ClanId(victory_->winner()));
  }
  Emit(end);
  std::sort(faults_.begin(), faults_.end(),
            [](const PlantedFault& a, const PlantedFault& b) {
              return a.seq < b.seq;
            });
  return GeneratedGame{std::move(log_), std::move(faults_)};
}

void GamePlayer::BuildHeader() {
  v1::Header* header = log_.mutable_header();
  // A game with planted faults is another game than the clean one.
  header->set_game_id(options_.faults > 0
                          ? absl::StrCat("generated-", options_.seed,
                                         "-faults-", options_.faults)
                          : absl::StrCat("generated-", options_.seed));
  header->mutable_ruleset()->set_name(rules_.name);
  header->mutable_ruleset()->set_version(rules_.version);
  header->set_event("gunbai generate");
  header->set_date("1575-06-28");
  v1::VictoryConditions* victory =
      header->mutable_scenario()->mutable_victory();
  victory->set_points_to_win(
      static_cast<uint32_t>(std::max(kMinPointsToWin, units_per_clan_)));
  for (const auto& [troop_type, points] : kUnitPoints) {
    v1::UnitPoints* entry = victory->add_unit_points();
    entry->set_troop_type(troop_type);
    entry->set_points(static_cast<uint32_t>(points));
  }
  for (int c = 0; c < kClans; ++c) {
    v1::Clan* clan = header->add_clans();
    clan->set_id(std::string(kClanIds[c]));
    clan->set_name(std::string(kClanNames[c]));
    clan->set_player(absl::StrCat("player ", c + 1));
  }
}

namespace {

// The troop kinds of the armies, one function each (AddUnitOfKind).
enum class TroopKind {
  kMissileAshigaru,
  kSpearAshigaru,
  kSamurai,
  kRonin,
  kWarriorMonks,
  kPeasants,
  kHatamoto,
  kHeadquarters,
};
constexpr int kTroopKinds = 8;

}  // namespace

// Unit 1 of each clan is missile Ashigaru with the General; the others
// take the troop kinds in turn, from a place the seed and the clan set, so
// that every kind turns up across a few games even with small armies.
void GamePlayer::BuildOrderOfBattle() {
  v1::OrderOfBattle* oob = log_.mutable_order_of_battle();
  for (int c = 0; c < kClans; ++c) {
    const int offset = static_cast<int>(options_.seed % kTroopKinds) + 3 * c;
    for (int n = 1; n <= units_per_clan_; ++n) {
      v1::Unit* unit = oob->add_units();
      unit->set_id(absl::StrCat(kClanIds[c], "-", n));
      unit->set_clan(std::string(kClanIds[c]));
      const TroopKind kind =
          n == 1 ? TroopKind::kMissileAshigaru
                 : static_cast<TroopKind>((n - 2 + offset) % kTroopKinds);
      AddUnitOfKind(c, n, static_cast<int>(kind), *unit);
    }
    // The General stays with unit 1, or now and then leads unit 2 into
    // the fighting (his +2 in melee, his duels and his death).
    // (Always, when a game is to plant a wrong duel winner: duels come
    // only between leaders whose units fight.)
    const bool general_fights = Chance(40);
    AddLeader(
        c, v1::LEADER_KIND_GENERAL,
        units_per_clan_ >= 2 && (general_fights ||
                                 planner_.Planned(FaultKind::kDuelWinnerWrong))
            ? 2
            : 1);
    if (units_per_clan_ >= kDaimyoUnit) {
      AddLeader(c, v1::LEADER_KIND_DAIMYO, kDaimyoUnit);
    }
  }
}

void GamePlayer::AddUnitOfKind(int clan, int n, int kind, v1::Unit& unit) {
  switch (static_cast<TroopKind>(kind)) {
    case TroopKind::kMissileAshigaru:
      return AddMissileUnit(clan, n, unit);
    case TroopKind::kSpearAshigaru:
      return AddSpearUnit(clan, n, unit);
    case TroopKind::kSamurai:
      return AddSamuraiUnit(clan, n, unit);
    case TroopKind::kRonin:
      return AddRoninUnit(clan, n, unit);
    case TroopKind::kWarriorMonks:
      return AddMonkUnit(clan, n, unit);
    case TroopKind::kPeasants:
      return AddPeasantUnit(clan, n, unit);
    case TroopKind::kHatamoto:
      return AddHatamotoUnit(clan, n, unit);
    case TroopKind::kHeadquarters:
      return AddHeadquartersUnit(clan, n, unit);
  }
}

void GamePlayer::AddLeader(int clan, v1::LeaderKind kind, int unit_number) {
  const bool general = kind == v1::LEADER_KIND_GENERAL;
  v1::Leader* leader = log_.mutable_order_of_battle()->add_leaders();
  leader->set_id(
      absl::StrCat(kClanIds[clan], general ? "-general" : "-daimyo"));
  leader->set_clan(std::string(kClanIds[clan]));
  leader->set_name(
      absl::StrCat(kClanNames[clan], general ? " General" : " Daimyo"));
  leader->set_kind(kind);
  leader->set_command_rating(general ? 2
                                     : static_cast<uint32_t>(Uniform(2, 3)));
  leader->set_attached_unit(absl::StrCat(kClanIds[clan], "-", unit_number));
}

// Sets what every unit has and records its plan: `width` stands a rank in
// line; now and then a melee unit starts in column (two stands a rank).
void GamePlayer::FinishUnit(int clan, int n, int stands, int width,
                            v1::Unit& unit) {
  const bool missile = unit.missile_weapon() != v1::MISSILE_WEAPON_NONE;
  unit.set_stands(static_cast<uint32_t>(stands));
  unit.set_stands_per_rank(static_cast<uint32_t>(width));
  if (unit.formation() == v1::FORMATION_UNSPECIFIED) {
    const bool column = !missile && width > 2 && Chance(10);
    unit.set_formation(column ? v1::FORMATION_COLUMN : v1::FORMATION_LINE);
    if (column) unit.set_stands_per_rank(2);
  }
  if (unit.starting_order() == v1::ORDER_UNSPECIFIED) {
    unit.set_starting_order(Chance(5) ? v1::ORDER_DISORDERED : v1::ORDER_GOOD);
  }
  plans_.push_back({clan, missile, /*keeps_table=*/n == 1, width});
}

// Missile Ashigaru, now and then holding a building (at most 2 stands fire
// from it).
void GamePlayer::AddMissileUnit(int clan, int n, v1::Unit& unit) {
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
  // Now and then the order of battle gives them a long spear, which they
  // fight with only under the reading missile_ashigaru_spear LONG_SPEAR.
  unit.set_melee_weapon(Variety(20) ? v1::MELEE_WEAPON_LONG_SPEAR
                                    : v1::MELEE_WEAPON_IMPROVISED);
  unit.set_missile_weapon(arquebus ? v1::MISSILE_WEAPON_ARQUEBUS
                                   : v1::MISSILE_WEAPON_BOW);
  if (Chance(15)) unit.set_formation(v1::FORMATION_BUILDING);
  unit.set_starting_order(Chance(10) ? v1::ORDER_DISORDERED : v1::ORDER_GOOD);
  const int stands = Uniform(4, 8);
  FinishUnit(clan, n, stands, Uniform(3, 4), unit);
}

void GamePlayer::AddSpearUnit(int clan, int n, v1::Unit& unit) {
  unit.set_name(absl::StrCat(kClanNames[clan], " Nagae-yari ", n));
  unit.set_troop_type(v1::TROOP_TYPE_ASHIGARU);
  unit.set_mobility(v1::MOBILITY_FOOT);
  unit.set_quality(Chance(30) ? v1::QUALITY_VETERAN : v1::QUALITY_SEASONED);
  unit.set_armour(v1::ARMOUR_LIGHT);
  unit.set_melee_weapon(v1::MELEE_WEAPON_LONG_SPEAR);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  const int stands = Uniform(6, 8);
  FinishUnit(clan, n, stands, 4, unit);
}

// Samurai: foot with pole arms, or mounted with lances, some of them
// mounted archers.
void GamePlayer::AddSamuraiUnit(int clan, int n, v1::Unit& unit) {
  const bool mounted = Chance(50);
  unit.set_name(absl::StrCat(kClanNames[clan],
                             mounted ? " Kiba-musha " : " Samurai ", n));
  unit.set_troop_type(v1::TROOP_TYPE_SAMURAI);
  unit.set_mobility(mounted ? v1::MOBILITY_MOUNTED : v1::MOBILITY_FOOT);
  unit.set_quality(Chance(30) ? v1::QUALITY_ELITE : v1::QUALITY_VETERAN);
  unit.set_armour(Chance(50) ? v1::ARMOUR_HEAVY : v1::ARMOUR_MEDIUM);
  unit.set_melee_weapon(mounted ? v1::MELEE_WEAPON_LANCE
                                : v1::MELEE_WEAPON_POLE_ARM);
  unit.set_missile_weapon(mounted && Chance(30) ? v1::MISSILE_WEAPON_BOW
                                                : v1::MISSILE_WEAPON_NONE);
  const int stands = Uniform(4, 6);
  FinishUnit(clan, n, stands, Uniform(2, 4), unit);
}

void GamePlayer::AddRoninUnit(int clan, int n, v1::Unit& unit) {
  unit.set_name(absl::StrCat(kClanNames[clan], " Ronin ", n));
  unit.set_troop_type(v1::TROOP_TYPE_RONIN);
  unit.set_mobility(v1::MOBILITY_FOOT);
  unit.set_quality(Chance(50) ? v1::QUALITY_VETERAN : v1::QUALITY_SEASONED);
  unit.set_armour(Chance(50) ? v1::ARMOUR_MEDIUM : v1::ARMOUR_LIGHT);
  unit.set_melee_weapon(v1::MELEE_WEAPON_SWORD);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  const int stands = Uniform(4, 6);
  FinishUnit(clan, n, stands, Uniform(2, 3), unit);
}

void GamePlayer::AddMonkUnit(int clan, int n, v1::Unit& unit) {
  unit.set_name(absl::StrCat(kClanNames[clan], " Sohei ", n));
  unit.set_troop_type(v1::TROOP_TYPE_WARRIOR_MONK);
  unit.set_mobility(v1::MOBILITY_FOOT);
  unit.set_quality(Chance(50) ? v1::QUALITY_VETERAN : v1::QUALITY_SEASONED);
  unit.set_armour(Chance(50) ? v1::ARMOUR_LIGHT : v1::ARMOUR_NONE);
  unit.set_melee_weapon(v1::MELEE_WEAPON_POLE_ARM);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  const int stands = Uniform(4, 6);
  FinishUnit(clan, n, stands, Uniform(2, 3), unit);
}

void GamePlayer::AddPeasantUnit(int clan, int n, v1::Unit& unit) {
  unit.set_name(absl::StrCat(kClanNames[clan], " Ikki ", n));
  unit.set_troop_type(v1::TROOP_TYPE_PEASANT);
  unit.set_mobility(v1::MOBILITY_FOOT);
  unit.set_quality(v1::QUALITY_RAW);
  unit.set_armour(v1::ARMOUR_NONE);
  unit.set_melee_weapon(v1::MELEE_WEAPON_NONE);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  const int stands = Uniform(6, 8);
  FinishUnit(clan, n, stands, 4, unit);
}

// Hatamoto, the daimyo's guard: Elite in heavy armour, mounted with lances
// or on foot with swords.
void GamePlayer::AddHatamotoUnit(int clan, int n, v1::Unit& unit) {
  const bool mounted = Chance(50);
  unit.set_name(absl::StrCat(kClanNames[clan], " Hatamoto ", n));
  unit.set_troop_type(v1::TROOP_TYPE_HATAMOTO);
  unit.set_mobility(mounted ? v1::MOBILITY_MOUNTED : v1::MOBILITY_FOOT);
  unit.set_quality(v1::QUALITY_ELITE);
  unit.set_armour(v1::ARMOUR_HEAVY);
  unit.set_melee_weapon(mounted ? v1::MELEE_WEAPON_LANCE
                                : v1::MELEE_WEAPON_SWORD);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  const int stands = Uniform(3, 5);
  FinishUnit(clan, n, stands, Uniform(2, 3), unit);
}

// A headquarters: a small unit that fights with improvised weapons; one
// enemy stand in contact counts against it.
void GamePlayer::AddHeadquartersUnit(int clan, int n, v1::Unit& unit) {
  unit.set_name(absl::StrCat(kClanNames[clan], " Honjin ", n));
  unit.set_troop_type(v1::TROOP_TYPE_HEADQUARTERS);
  unit.set_mobility(v1::MOBILITY_FOOT);
  unit.set_quality(Chance(50) ? v1::QUALITY_VETERAN : v1::QUALITY_SEASONED);
  unit.set_armour(v1::ARMOUR_MEDIUM);
  unit.set_melee_weapon(v1::MELEE_WEAPON_IMPROVISED);
  unit.set_missile_weapon(v1::MISSILE_WEAPON_NONE);
  unit.set_formation(v1::FORMATION_LINE);
  FinishUnit(clan, n, 3, 3, unit);
}

void GamePlayer::Emit(v1::Event& event) {
  event.set_seq(++seq_);
  event.set_turn(turn_);
  replayer_->Apply(event);
  if (event.has_charge()) {
    const int charger = replayer_->FindUnit(event.charge().unit());
    if (charger >= 0) charged_this_turn_[charger] = true;
  }
  *log_.add_events() = std::move(event);
}

// Plays one turn: each clan's activation (its frenzied units' charges, rally
// tests, moves and charges, firing, melee), then the end-of-turn tests.
void GamePlayer::PlayTurn(TurnKind kind) {
  StartTurn();
  planting_ = kind == TurnKind::kFull;
  const bool last =
      !sized_by_events() && static_cast<int>(turn_) == options_.turns;
  int first = state().initiative_clan;
  if (kind != TurnKind::kFull &&
      Absorbers((first + kClans - 1) % kClans).empty()) {
    // The closing turn's moves fill the budget in the last activation, by
    // units that may move any number of times: routers may not (one rout
    // move a turn), so the clan that has such units goes last (the rules
    // give no order of activation: rules/daimyo/RULES.md, reading 11).
    first = (first + 1) % kClans;
  }
  for (int i = 0; i < kClans; ++i) {
    const int clan = (first + i) % kClans;
    Activate(clan);
    ChargeWithFrenzied(clan, kind);
    if (kind == TurnKind::kFull) {
      RallyRouters(clan);
      MoveRouters(clan);
      MovementPhase(clan);
      FiringPhase(clan);
    } else {
      MoveRouters(clan);
      if (i == kClans - 1) PadClosingTurn(clan);
    }
    MeleePhase(clan);
    if (last && i == kClans - 1) PlantLeftoverFaults(events());
  }
  EndTurn(kind);
}

// The initiative alternates, or, in a game that dices for it, goes to the
// clan with the higher die, a tie to the clan that did not hold it the turn
// before (before turn 1, Oda held it): gunbaid's rule for server dice
// (proto/gunbai/v1/game_service.proto).
void GamePlayer::StartTurn() {
  ++turn_;
  int initiative = static_cast<int>((turn_ - 1) % kClans);
  v1::Event event;
  if (dices_for_initiative_) {
    std::array<std::uint32_t, kClans> dice{};
    for (std::uint32_t& die : dice) {
      die = static_cast<std::uint32_t>(UniformDraw(initiative_rng_, 1, 6));
      event.mutable_turn_start()->add_initiative_dice(die);
    }
    const int before = turn_ == 1 ? 0 : state().initiative_clan;
    initiative = dice[0] > dice[1]   ? 0
                 : dice[1] > dice[0] ? 1
                                     : (before + 1) % kClans;
  }
  event.mutable_turn_start()->set_initiative_clan(
      std::string(kClanIds[initiative]));
  Emit(event);
  pending_frame_events_ = kClans + 1;
  std::fill(targeted_this_turn_.begin(), targeted_this_turn_.end(), false);
  std::fill(charged_this_turn_.begin(), charged_this_turn_.end(), false);
  std::fill(leader_roll_skipped_.begin(), leader_roll_skipped_.end(), false);
}

void GamePlayer::Activate(int clan) {
  active_clan_ = clan;
  v1::Event event;
  event.set_clan(std::string(kClanIds[clan]));
  event.mutable_activation();
  Emit(event);
  for (std::size_t i : faults_due_next_activation_) faults_[i].seq = seq_;
  faults_due_next_activation_.clear();
  --pending_frame_events_;
  new_pairings_.clear();
  ongoing_joins_.clear();
  std::fill(left_this_activation_.begin(), left_this_activation_.end(), false);
}

// Takes the morale tests owed at the end of the turn, then ends it; faults
// found at the turn's end get its seq.
void GamePlayer::EndTurn(TurnKind kind) {
  TakeEndOfTurnTests();
  v1::Event event;
  event.mutable_turn_end();
  Emit(event);
  victory_->EndOfTurn(state());
  for (std::size_t i : deferred_faults_) faults_[i].seq = seq_;
  deferred_faults_.clear();
  for (std::size_t i : faults_due_next_activation_) faults_[i].seq = seq_;
  faults_due_next_activation_.clear();
  pending_frame_events_ = 0;
}

// ---------------------------------------------------------------------------
// Movement.

// Each unit of the active clan charges, moves, or stays, in army order.
void GamePlayer::MovementPhase(int clan) {
  for (int unit : UnitsOnTable(clan)) {
    if (!OnTable(unit) || left_this_activation_[unit]) continue;
    if (MayCharge(unit) && Affordable(kChargeCost) && MaybeCharge(unit)) {
      continue;  // The charge was its move.
    }
    MaybeMove(unit);
  }
}

// Moves `unit` now and then, in the way its state allows; a unit that moves
// may, as a planted fault, follow it with a result move nothing owes.
void GamePlayer::MaybeMove(int unit) {
  // A halted unit always moves when a halted-unit-moves fault is due.
  const bool fault_due =
      planting_ && state().IsHalted(unit) &&
      planner_.Due(FaultKind::kHaltedUnitMoves, FaultClock());
  if (!(fault_due || Chance(kMovePercent)) || !Affordable(1)) return;
  const rules::UnitStatus& s = status(unit);
  // A charge, a counter-charge too, was its move for the turn (reading 39).
  if ((s.frenzied && !s.routing) || s.in_melee || s.charging ||
      charged_this_turn_[unit]) {
    return;
  }
  Absorb(unit);
  if (OnTable(unit) && OwesNothing(unit) && Affordable(1) &&
      MayPlant(FaultKind::kResultMoveNotOwed)) {
    HoldNotOwed(unit, FaultKind::kResultMoveNotOwed);
  }
}

// Makes one move that `unit` may always make: halted units turn about (a
// halt allows it), the others move; routers make no move here (their one
// rout move a turn is MoveRouters'). A halted unit that moves is a planted
// fault.
void GamePlayer::Absorb(int unit) {
  if (status(unit).routing) {
    return;
  } else if (state().IsHalted(unit)) {
    if (MayPlant(FaultKind::kHaltedUnitMoves)) {
      if (!MoveUnit(unit)) {
        planner_.Return(FaultKind::kHaltedUnitMoves);
        return;
      }
      RecordFault(FaultKind::kHaltedUnitMoves, seq_, UnitId(unit),
                  absl::StrCat(UnitId(unit), " moves while halted"));
    } else {
      TurnAbout(unit);
    }
  } else {
    MoveUnit(unit);
  }
}

bool GamePlayer::MoveUnit(int unit) {
  const UnitPlan& plan = plans_[unit];
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::Move* move = event.mutable_move();
  move->set_unit(UnitId(unit));
  move->set_kind(v1::MOVE_KIND_MOVE);
  if (positions()) {
    // On the table: where it ends and how far its front centre went (it
    // stands where it is when no pose is free); no change of formation.
    const rules::Pose from = status(unit).pose;
    const rules::Pose to = MoveTo(unit).value_or(from);
    if (!EndAccepted(unit, to)) return false;  // Stuck where a move left it.
    *move->mutable_to() = rules::PoseToProto(to);
    // A move that ends facing another way wheeled: a manoeuvre.
    if (to.facing_deg != from.facing_deg) {
      move->set_kind(v1::MOVE_KIND_MANOEUVRE);
    }
    const long mm =
        std::lround(std::hypot(to.x_mm - from.x_mm, to.y_mm - from.y_mm));
    if (mm > 0) move->set_distance_mm(static_cast<uint32_t>(mm));
    Emit(event);
    return true;
  }
  const bool mounted =
      state().profiles[unit].mobility == rules::Mobility::kMounted;
  move->set_distance_mm(
      static_cast<uint32_t>(Uniform(10, mounted ? 240 : 120)));
  if (Chance(10)) {
    // A change of formation is a manoeuvre.
    move->set_kind(v1::MOVE_KIND_MANOEUVRE);
    const bool in_column = status(unit).formation == rules::Formation::kColumn;
    move->set_formation(in_column ? v1::FORMATION_LINE : v1::FORMATION_COLUMN);
    move->set_stands_per_rank(
        static_cast<uint32_t>(in_column ? plan.line_width : 2));
  }
  Emit(event);
  return true;
}

void GamePlayer::TurnAbout(int unit) {
  if (positions()) {
    // Turned about, it stands on the ground behind it: not when that is
    // beyond the table's edge, in a pond or under another unit (a second
    // line close behind): it stays as it is.
    const rules::Pose about = rules::daimyo::ResultPose(
        *field_, state(), unit, rules::daimyo::ResultPath::kTurnAndAway, 0);
    if (!EndAccepted(unit, about) ||
        rules::daimyo::OverlappedUnit(*field_, state(), unit, about) >= 0) {
      return;
    }
  }
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::Move* move = event.mutable_move();
  move->set_unit(UnitId(unit));
  move->set_kind(v1::MOVE_KIND_TURN_ABOUT);
  Emit(event);
}

// Returns the units of `clan` that can always make one more move (see
// Absorb): not frenzied (they charge instead), not in melee, and not a
// unit that charged this turn (its charge was its move). The
// General's unit is always among them.
std::vector<int> GamePlayer::Absorbers(int clan) const {
  std::vector<int> out;
  for (int unit : UnitsOnTable(clan)) {
    const rules::UnitStatus& s = status(unit);
    if (s.routing || s.frenzied || s.in_melee || s.charging ||
        charged_this_turn_[unit]) {
      continue;
    }
    out.push_back(unit);
  }
  return out;
}

// Fills the closing turn's budget exactly: draws the dice of the tests owed
// at the end of the turn now, counts the events their results bring, and
// makes the moves that remain, split across the clan's units at random.
void GamePlayer::PadClosingTurn(int clan) {
  const int tests = PredictEndOfTurnTests();
  // turn_end and game_end follow.
  int moves = target_events_ - events() - tests - 2;
  if (moves < 0) Die("the event budget ran out before the closing turn");
  moves -= PlantLeftoverFaults(moves);
  std::vector<int> pool = Absorbers(clan);
  if (pool.empty() && moves > 0) Die("no unit left to move");
  // Fisher-Yates shuffle, so that who moves is random.
  for (std::size_t k = 0; k + 1 < pool.size(); ++k) {
    std::swap(
        pool[k],
        pool[Uniform(static_cast<int>(k), static_cast<int>(pool.size()) - 1)]);
  }
  for (int m = 0; m < moves; ++m) Absorb(pool[m % pool.size()]);
}

// Draws the dice of every test owed at the end of the turn and returns the
// events the tests and their results will bring. Moves do not change a
// test's modifiers, so the results hold when the tests are taken.
int GamePlayer::PredictEndOfTurnTests() {
  int events = 0;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (!OwesEndOfTurnTest(unit)) continue;
    std::array<std::uint32_t, 2>& dice = drawn_dice_[unit];
    dice = {RollDie(), RollDie()};
    has_drawn_dice_[unit] = true;
    rules::daimyo::MoraleTestInput in;
    in.unit = unit;
    in.reason = rules::daimyo::HighestReason(status(unit).owed_morale &
                                             kEndOfTurnReasons);
    in.dice = absl::MakeConstSpan(dice);
    const rules::MoraleResult result =
        rules::daimyo::ResolveMoraleTest(rules_, state(), in, nullptr).result;
    const rules::UnitStatus& s = status(unit);
    events += 1;
    if ((result == rules::MoraleResult::kRetire ||
         result == rules::MoraleResult::kRetreat) &&
        (!s.routing || rules_.options.router_retire_owes() ==
                           rules::daimyo::RouterRetireOwes::kTheMove)) {
      events += 1;
    } else if (result == rules::MoraleResult::kRout && !s.routing) {
      events += s.has_routed ? 2 : 1;  // A second rout is removed.
    }
  }
  return events;
}

// ---------------------------------------------------------------------------
// Faults.

// Returns true when a fault of `kind` is to be planted now; the caller then
// plants it and records it.
bool GamePlayer::MayPlant(FaultKind kind) {
  return planting_ && planner_.Take(kind, FaultClock());
}

bool GamePlayer::MayPlantAnyTime(FaultKind kind) {
  return planting_ && planner_.Take(kind, std::numeric_limits<int>::max());
}

void GamePlayer::RecordFault(FaultKind kind, std::uint64_t seq,
                             std::string subject, std::string description) {
  PlantedFault f = NewFault(FaultCatalogue(), kind, seq);
  f.subject = std::move(subject);
  f.description = std::move(description);
  faults_.push_back(std::move(f));
}

// Records a fault the audit reports when the turn ends (something owed that
// the log skipped); EndTurn fills in the seq.
void GamePlayer::RecordDeferredFault(FaultKind kind, std::string subject,
                                     std::string description) {
  RecordFault(kind, 0, std::move(subject), std::move(description));
  deferred_faults_.push_back(faults_.size() - 1);
}

void GamePlayer::RecordFaultDueNextActivation(FaultKind kind,
                                              std::string subject,
                                              std::string description) {
  RecordFault(kind, 0, std::move(subject), std::move(description));
  faults_due_next_activation_.push_back(faults_.size() - 1);
}

// Makes a hold result move for `unit`, which owes none.
void GamePlayer::HoldNotOwed(int unit, FaultKind as) {
  v1::Event event;
  event.set_clan(ClanOf(unit));
  v1::ResultMove* move = event.mutable_result_move();
  move->set_unit(UnitId(unit));
  move->set_kind(v1::RESULT_MOVE_KIND_HOLD);
  Emit(event);
  RecordFault(as, seq_, UnitId(unit),
              absl::StrCat(UnitId(unit),
                           " holds after a melee it did not "
                           "fight"));
}

// Plants each fault that found no chance to be planted as drawn, up to
// `room` of them, as a result move nothing owes, which any unit that owes
// nothing can make at any time; the manifest names the kind each stands in
// for. Returns how many it planted.
int GamePlayer::PlantLeftoverFaults(int room) {
  const std::vector<FaultKind> leftover = planner_.TakeAll();
  std::vector<int> candidates;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (OwesNothing(unit)) candidates.push_back(unit);
  }
  if (candidates.empty()) return 0;
  const int planted = std::min(static_cast<int>(leftover.size()), room);
  for (int i = 0; i < planted; ++i) {
    HoldNotOwed(candidates[Uniform(0, static_cast<int>(candidates.size()) - 1)],
                FaultKind::kResultMoveNotOwed);
    if (leftover[i] != FaultKind::kResultMoveNotOwed) {
      PlantedFault& f = faults_.back();
      f.in_place_of = std::string(FaultSpecOf(leftover[i]).name);
      absl::StrAppend(&f.description, ", in place of a ", f.in_place_of,
                      " fault, which found no chance in this game");
    }
  }
  return planted;
}

}  // namespace gunbai::generate::internal
