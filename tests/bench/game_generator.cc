#include "tests/bench/game_generator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "replay/proto_mapping.h"
#include "replay/replayer.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/leader_loss.h"

namespace gunbai::testgen {

namespace {

namespace v1 = ::gunbai::v1;

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
    int line_width = 4;  // Stands a rank when in line.
  };

  int Uniform(int lo, int hi);  // Inclusive; deterministic on every platform.
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  const rules::BattleState& state() const { return replayer_->state(); }
  int events() const { return log_.events_size(); }
  bool Affordable(int cost) const;
  bool OnTable(int unit) const { return !state().units[unit].removed; }
  std::vector<int> UnitsOnTable(int clan) const;

  void BuildHeader();
  void BuildOrderOfBattle();
  void AddMissileUnit(int clan, int n, v1::Unit& unit);
  void AddSamuraiUnit(int clan, int n, v1::Unit& unit);

  void Emit(v1::Event& event);
  void StartTurn();
  void Activate(int clan);
  void EndTurn();
  void PlayTurn();
  void PlayFinalTurn(int moves);
  void MoveUnit(int unit);
  void FillFacts(v1::FiringFacts& facts);
  std::vector<int> Targets(int clan, int stands_firing) const;
  void TryFire(int firer);
  int LeadersAttached(int unit) const;
  void RollOwedLeaderLosses();

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

// An optional event fits when the turn can still close and a final turn
// (with game_end) still fits after it.
bool FiringGameGenerator::Affordable(int cost) const {
  return events() + cost + pending_frame_events_ + kFinalTurnMinEvents <=
         target_events_;
}

std::vector<int> FiringGameGenerator::UnitsOnTable(int clan) const {
  std::vector<int> out;
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    if (plans_[u].clan == clan && OnTable(unit)) out.push_back(unit);
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
    const int spare = target_events_ - events() - kFinalTurnMinEvents;
    const int on_table =
        static_cast<int>(UnitsOnTable(0).size() + UnitsOnTable(1).size());
    if (spare <= kTurnFrameEvents || spare <= on_table) {
      PlayFinalTurn(spare);
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
  plans_.push_back({clan, /*missile=*/true, width});
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
  plans_.push_back({clan, /*missile=*/false, width});
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

void FiringGameGenerator::Activate(int clan) {
  active_clan_ = clan;
  v1::Event event;
  event.set_clan(std::string(kClanIds[clan]));
  event.mutable_activation();
  Emit(event);
  --pending_frame_events_;
}

void FiringGameGenerator::EndTurn() {
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
    const std::vector<int> units = UnitsOnTable(clan);
    for (int unit : units) {
      if (Chance(kMovePercent) && Affordable(1)) MoveUnit(unit);
    }
    for (int unit : units) {
      if (plans_[unit].missile && Chance(kFirePercent)) TryFire(unit);
    }
  }
  EndTurn();
}

// Closes the game with one turn of exactly `moves` moves, split between the
// two activations; a unit moves twice only when there are more moves than
// units.
void FiringGameGenerator::PlayFinalTurn(int moves) {
  StartTurn();
  const int first = state().initiative_clan;
  std::vector<int> units[kClans] = {UnitsOnTable(first),
                                    UnitsOnTable((first + 1) % kClans)};
  int share[kClans] = {(moves + 1) / 2, moves / 2};
  if (units[0].empty() || units[1].empty()) {
    // A clan with nothing left on the table cannot move: the other moves.
    share[0] = units[0].empty() ? 0 : moves;
    share[1] = moves - share[0];
  }
  for (int i = 0; i < kClans; ++i) {
    Activate((first + i) % kClans);
    std::vector<int>& pool = units[i];
    // Fisher-Yates shuffle, so that who moves is random.
    for (std::size_t k = 0; k + 1 < pool.size(); ++k) {
      std::swap(pool[k], pool[Uniform(static_cast<int>(k),
                                      static_cast<int>(pool.size()) - 1)]);
    }
    for (int m = 0; m < share[i] && !pool.empty(); ++m) {
      MoveUnit(pool[m % pool.size()]);
    }
  }
  EndTurn();
}

void FiringGameGenerator::MoveUnit(int unit) {
  const UnitPlan& plan = plans_[unit];
  v1::Event event;
  event.set_clan(std::string(kClanIds[plan.clan]));
  v1::Move* move = event.mutable_move();
  move->set_unit(state().profiles[unit].id);
  move->set_kind(v1::MOVE_KIND_MOVE);
  const bool mounted =
      state().profiles[unit].mobility == rules::Mobility::kMounted;
  move->set_distance_mm(
      static_cast<uint32_t>(Uniform(10, mounted ? 240 : 120)));
  if (Chance(10)) {
    const bool in_column =
        state().units[unit].formation == rules::Formation::kColumn;
    move->set_formation(in_column ? v1::FORMATION_LINE : v1::FORMATION_COLUMN);
    move->set_stands_per_rank(
        static_cast<uint32_t>(in_column ? plan.line_width : 2));
  }
  Emit(event);
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
// stands: on the table, not yet worn down, and sure to survive the volley.
std::vector<int> FiringGameGenerator::Targets(int clan,
                                              int stands_firing) const {
  const int per_stand = rules_.hits_per_stand;
  const int worst_loss = (per_stand - 1 + stands_firing) / per_stand;
  std::vector<int> out;
  for (std::size_t u = 0; u < plans_.size(); ++u) {
    const int unit = static_cast<int>(u);
    const int stands = state().units[u].stands;
    if (plans_[u].clan == clan || !OnTable(unit)) continue;
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
  firing->set_unit(state().profiles[firer].id);
  FillFacts(*firing->mutable_facts());
  const rules::daimyo::Shot probe =
      replay::ShotFromProto(*firing, firer, /*target=*/-1);
  const int max_stands = rules::daimyo::MaxFiringStands(rules_, state(), probe);
  if (max_stands <= 0) return;
  const int stands = Chance(85) ? max_stands : Uniform(1, max_stands);
  const std::vector<int> targets = Targets(active_clan_, stands);
  if (targets.empty()) return;
  const int target = targets[Uniform(0, static_cast<int>(targets.size()) - 1)];
  if (!Affordable(1 + LeadersAttached(target))) return;
  firing->set_target(state().profiles[target].id);
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

}  // namespace

v1::BattleLog GenerateFiringGame(const GeneratorOptions& options) {
  return FiringGameGenerator(options, BuiltinRuleset()).Generate();
}

std::string SerializeDeterministic(const v1::BattleLog& log) {
  return replay::DeterministicBytes(log);
}

}  // namespace gunbai::testgen
