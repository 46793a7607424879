// Charges, melee rounds, duels and the moves an outcome owes, for the
// GamePlayer. See player.h.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "generate/daimyo/player.h"
#include "rules/battlefield_proto.h"
#include "rules/daimyo/melee.h"
#include "rules/daimyo/morale.h"

namespace gunbai::generate::internal {

namespace {

using rules::MoraleResult;

constexpr int kSamuraiChargePercent = 35;
// A unit with a daimyo charges more often, seeking the enemy daimyo's unit
// for a duel.
constexpr int kDaimyoChargePercent = 60;
constexpr int kChallengePercent = 75;
// A fault clock reading past every fault's due time.
constexpr int kAnyTime = std::numeric_limits<int>::max();
constexpr int kSpearChargePercent = 25;
constexpr int kMissileChargePercent = 8;
constexpr int kFallShortPercent = 8;
// Dice rolls tried for a round before its dice are set to extremes.
constexpr int kMeleeRolls = 30;
constexpr int kPushBackMm = 30;
// A unit that may charge joins a friend's charge of this activation on the
// same target, when it may (see JoinTarget), this often: a multi-unit melee.
constexpr int kJoinChargePercent = 25;
// A unit that may join a melee in contact from an earlier turn does so this
// often.
constexpr int kJoinOngoingPercent = 15;
// On a table fewer chargers stand where they may join (off the target's
// flank or rear, with a free pose there): those that do join this often.
constexpr int kJoinChargeOnATablePercent = 80;
// The second charger of a multi-unit melee comes at the target's flank or
// rear this often.
constexpr int kJoinFlankPercent = 40;

v1::MeleeOutcome OutcomeToProto(const rules::daimyo::MeleeOutcome& outcome) {
  if (outcome.winner < 0) return v1::MELEE_OUTCOME_DRAW;
  return outcome.winner == 0 ? v1::MELEE_OUTCOME_FIRST_WINS
                             : v1::MELEE_OUTCOME_SECOND_WINS;
}

}  // namespace

// Declares the charge each frenzied unit of `clan` owes: into contact when
// the budget allows, otherwise falling short on a target whose test cannot
// make a new frenzied unit.
void GamePlayer::ChargeWithFrenzied(int clan, TurnKind kind) {
  for (int unit : UnitsOnTable(clan)) {
    if (!OnTable(unit) || !MustCharge(unit)) continue;
    const std::vector<int> contact = ContactTargets(unit);
    if (kind == TurnKind::kFull && !contact.empty() &&
        Affordable(kChargeCost)) {
      Charge(unit, contact[Uniform(0, static_cast<int>(contact.size()) - 1)],
             /*falls_short=*/false);
      continue;
    }
    const std::vector<int> targets = FallShortTargets(unit);
    Charge(unit, targets[Uniform(0, static_cast<int>(targets.size()) - 1)],
           /*falls_short=*/true);
  }
}

bool GamePlayer::MayCharge(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return OnTable(unit) && !plans_[unit].keeps_table && !s.routing &&
         !s.in_melee && !s.charging && !s.frenzied && !s.fought_this_turn &&
         !state().IsHalted(unit) && !left_this_activation_[unit] &&
         s.stands >= 2;
}

// True when `unit` is free to be charged into a new melee: not the
// General's unit, not routing, not fighting, charging or charged already.
bool GamePlayer::MayBeCharged(int unit) const {
  const rules::UnitStatus& s = status(unit);
  return OnTable(unit) && !plans_[unit].keeps_table && !s.routing &&
         !s.in_melee && !s.charging && !s.fought_this_turn &&
         s.charges_received == 0 && !targeted_this_turn_[unit] &&
         !left_this_activation_[unit];
}

// Returns the enemies `charger` may charge into a new melee: free to be
// charged, and such that neither unit can lose its last stand in the first
// round, even if every enemy stand fights and hits (and a planted fault
// claims one hit more). See LeavesContactStuck for why.
std::vector<int> GamePlayer::ContactTargets(int charger) const {
  // At most two ranks of the narrower front fight, and an overlap a flank.
  auto survives = [this](int unit, int enemy) {
    const rules::UnitStatus& u = status(unit);
    const rules::UnitStatus& e = status(enemy);
    const int front =
        std::min({u.stands_per_rank, u.stands, e.stands_per_rank, e.stands});
    const int fighting = std::min(e.stands, 2 * front + 2);
    return rules::StandsLost(u, fighting + 1, rules_.hits_per_stand) < u.stands;
  };
  std::vector<int> out;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (plans_[unit].clan != plans_[charger].clan && MayBeCharged(unit) &&
        survives(unit, charger) && survives(charger, unit) &&
        (!positions() || ChargeReaches(charger, unit))) {
      out.push_back(unit);
    }
  }
  return out;
}

// Returns the enemies a charge may fall short on without making a new
// frenzied unit (a Samurai that tests for being charged could roll its
// frenzy). The enemy General's unit, Ashigaru and never in melee, is always
// among them.
std::vector<int> GamePlayer::FallShortTargets(int charger) const {
  std::vector<int> out;
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (plans_[unit].clan == plans_[charger].clan || !OnTable(unit) ||
        status(unit).in_melee) {
      continue;
    }
    if (MayBecomeFrenzied(unit) &&
        rules::daimyo::TestsOwedByTarget(state(), unit, charger) != 0) {
      continue;
    }
    out.push_back(unit);
  }
  // Not a shielded unit while there is another.
  std::vector<int> open;
  for (int unit : out) {
    if (!Shielded(unit)) open.push_back(unit);
  }
  if (!open.empty()) out = std::move(open);
  if (positions()) {
    // On a table: not one it already touches (a charge that falls short
    // ends apart), unless there is no other.
    std::vector<int> apart;
    for (int unit : out) {
      if (Gap(charger, unit) >= 1.5) apart.push_back(unit);
    }
    if (!apart.empty()) return apart;
  }
  return out;
}

// Charges now and then with `unit`, which may charge: a routing enemy (the
// charge destroys it unless it falls short), or an enemy free to be charged,
// a daimyo seeking out the enemy daimyo. Returns true when it charged.
bool GamePlayer::MaybeCharge(int unit) {
  if (MaybeJoinCharge(unit) || MaybeJoinOngoing(unit)) return true;
  const int daimyo = state().AttachedLeader(unit, rules::LeaderKind::kDaimyo);
  const int led = LeaderOf(unit);
  // A planned duel-winner fault sends leaders after enemy leaders.
  const bool duel_due = led >= 0 && planting_ &&
                        planner_.Due(FaultKind::kDuelWinnerWrong, kAnyTime);
  const int percent = plans_[unit].missile      ? kMissileChargePercent
                      : daimyo >= 0 || duel_due ? kDaimyoChargePercent
                      : MayBecomeFrenzied(unit) ? kSamuraiChargePercent
                                                : kSpearChargePercent;
  if (!Chance(percent)) return false;
  if (!plans_[unit].missile && Chance(20)) {
    std::vector<int> routers;
    for (int enemy = 0; enemy < UnitCount(); ++enemy) {
      if (plans_[enemy].clan != plans_[unit].clan && OnTable(enemy) &&
          status(enemy).routing && !plans_[enemy].keeps_table &&
          !targeted_this_turn_[enemy] &&
          (!positions() || ChargeReaches(unit, enemy))) {
        routers.push_back(enemy);
      }
    }
    if (!routers.empty()) {
      // Drawn one after the other, in this order, so that every compiler
      // plays the same game (a function's arguments are evaluated in no
      // set order: clang draws left to right, GCC right to left).
      const bool falls_short = Chance(30);
      const int router =
          routers[Uniform(0, static_cast<int>(routers.size()) - 1)];
      Charge(unit, router, falls_short);
      return true;
    }
  }
  std::vector<int> targets = ContactTargets(unit);
  if (targets.empty()) return false;
  if ((daimyo >= 0 && Chance(80)) || duel_due) {
    std::vector<int> with_leaders;
    for (int t : targets) {
      if (duel_due
              ? LeaderOf(t) >= 0
              : state().AttachedLeader(t, rules::LeaderKind::kDaimyo) >= 0) {
        with_leaders.push_back(t);
      }
    }
    if (!with_leaders.empty()) targets = with_leaders;
  }
  // In this order on every compiler (as above).
  const bool falls_short = Chance(kFallShortPercent);
  const int target = targets[Uniform(0, static_cast<int>(targets.size()) - 1)];
  Charge(unit, target, falls_short);
  return true;
}

// The most stands `unit` fights with in a first round with one stand in
// front contact: one a rank, as many ranks as may fight.
int GamePlayer::FrontStandsMax(int unit) const {
  const rules::daimyo::MeleeRules& m = rules_.melee;
  return std::min(status(unit).stands,
                  std::max({m.ranks_first_round, m.ranks_long_spear_first_round,
                            m.ranks_disordered}));
}

// Returns the target of a friend's charge this activation that `charger`
// may charge too, making a multi-unit melee of two pairings, or -1. The
// target has that one charger so far and is free otherwise (not charging,
// not fought this turn), and is big enough that its stands split between
// the two rounds: the first round may use all but the stands the second
// needs with one stand in front (the rounds are fought at once, so a stand
// lost in the first still fights in the second: RULES.md reading 26). Neither
// round can take a unit's last stand: the target survives both chargers' every
// stand hitting, and the second charger the target's.
//
// On a table the second charger comes at the target's flank or rear (its
// front is the first charger's), from where it stands, to a free contact
// pose within its charge (JoinPose).
int GamePlayer::JoinTarget(int charger) const {
  if (plans_[charger].missile) return -1;
  const rules::UnitStatus& c = status(charger);
  for (const Pairing& p : new_pairings_) {
    const int target = p.target;
    if (p.charger == charger || !ContactMade(p)) continue;
    const rules::UnitStatus& t = status(target);
    if (plans_[target].keeps_table || t.charging || t.fought_this_turn ||
        t.charges_received != 1) {
      continue;
    }
    const int first = status(p.charger).stands;
    const int hits_per_stand = rules_.hits_per_stand;
    const int needed = FrontStandsMax(target);
    if (t.stands - needed < needed) continue;
    if (rules::StandsLost(t, first + c.stands + 1, hits_per_stand) >=
            t.stands ||
        rules::StandsLost(c, t.stands + 1, hits_per_stand) >= c.stands) {
      continue;
    }
    if (positions() && !JoinPose(charger, target).has_value()) continue;
    return target;
  }
  return -1;
}

// Now and then charges with `charger` a target a friend charged this
// activation (see JoinTarget). Returns true when it charged.
bool GamePlayer::MaybeJoinCharge(int charger) {
  const int target = JoinTarget(charger);
  if (target < 0 ||
      !Variety(positions() ? kJoinChargeOnATablePercent : kJoinChargePercent)) {
    return false;
  }
  Charge(charger, target, /*falls_short=*/false, /*join=*/true);
  return true;
}

bool GamePlayer::OnlyContact(int unit, int enemy) const {
  int contacts = 0;
  bool with_enemy = false;
  for (const rules::MeleeContact& m : state().melees) {
    if (!m.Involves(unit)) continue;
    ++contacts;
    with_enemy = with_enemy || m.Between(unit, enemy);
  }
  return contacts == 1 && with_enemy;
}

// Without a table: a melee in contact from an earlier turn, between a
// friend of `charger` and an enemy, that neither has fought this turn nor
// will before this activation's melee phase (the clan that activates first
// fights every melee in contact). Each of the two fights only the other;
// the enemy is free otherwise (not charged, charging, the General's unit
// or routing) and big enough that its stands split between the friend's
// round and the charger's (as JoinTarget), and no round can take a unit's
// last stand. (On a table the charger would need a free pose against the
// enemy's flank or rear with the friend at its front: not generated yet.)
std::pair<int, int> GamePlayer::JoinOngoingTarget(int charger) const {
  if (positions() || plans_[charger].missile) return {-1, -1};
  const rules::UnitStatus& c = status(charger);
  const int hits_per_stand = rules_.hits_per_stand;
  for (const rules::MeleeContact& m : state().melees) {
    if (m.last_turn_fought >= static_cast<int>(turn_)) continue;
    const int f = plans_[m.a].clan == plans_[charger].clan ? m.a : m.b;
    const int t = f == m.a ? m.b : m.a;
    if (f == charger || plans_[f].clan != plans_[charger].clan ||
        plans_[t].clan == plans_[charger].clan || !OnTable(f) || !OnTable(t)) {
      continue;
    }
    const rules::UnitStatus& fs = status(f);
    const rules::UnitStatus& ts = status(t);
    // (Not a frenzied friend: should the target rout from its test, the
    // friend would be free and owe a charge its clan's frenzied charges
    // have already come by.)
    if (plans_[t].keeps_table || ts.routing || fs.routing || fs.frenzied ||
        ts.charging || ts.fought_this_turn || fs.fought_this_turn ||
        ts.charges_received != 0 || targeted_this_turn_[t] ||
        left_this_activation_[t] || left_this_activation_[f] ||
        !OnlyContact(f, t) || !OnlyContact(t, f)) {
      continue;
    }
    const int needed = FrontStandsMax(t);
    if (ts.stands - needed < needed) continue;
    if (rules::StandsLost(ts, fs.stands + c.stands + 1, hits_per_stand) >=
            ts.stands ||
        rules::StandsLost(c, ts.stands + 1, hits_per_stand) >= c.stands ||
        rules::StandsLost(fs, ts.stands + 1, hits_per_stand) >= fs.stands) {
      continue;
    }
    return {f, t};
  }
  return {-1, -1};
}

// Now and then charges with `charger` the enemy a friend has been fighting
// since an earlier turn (see JoinOngoingTarget): the two pairings are then
// fought as one multi-unit melee. The target, in melee, stands: it neither
// retires nor counter-charges. Returns true when it charged.
bool GamePlayer::MaybeJoinOngoing(int charger) {
  const auto [f, t] = JoinOngoingTarget(charger);
  if (t < 0 || !Variety(kJoinOngoingPercent)) return false;
  targeted_this_turn_[t] = true;
  v1::Event event;
  event.set_clan(ClanOf(charger));
  v1::ChargeDeclaration* charge = event.mutable_charge();
  charge->set_unit(UnitId(charger));
  charge->set_target(UnitId(t));
  Emit(event);
  TakeChargeTests(charger);
  TakeChargeTests(t);
  ongoing_joins_.push_back({charger, f, t});
  return true;
}

// Declares `charger`'s charge on `target`, takes the tests it owes at once
// (the charger's for initiating it, the target's for being charged), lets
// the target answer, and keeps the pairing for the melee phase when the
// charge reaches contact.
void GamePlayer::Charge(int charger, int target, bool falls_short, bool join) {
  const bool target_routing = status(target).routing;
  targeted_this_turn_[target] = true;
  v1::Event event;
  event.set_clan(ClanOf(charger));
  v1::ChargeDeclaration* charge = event.mutable_charge();
  charge->set_unit(UnitId(charger));
  charge->set_target(UnitId(target));
  charge->set_fell_short(falls_short);
  if (positions()) {
    // Where it ends: in contact with the side of the target it comes at,
    // or part of the way there when it falls short.
    std::optional<rules::Pose> contact =
        join ? JoinPose(charger, target) : ContactPose(charger, target);
    // A charger touching its target already cannot fall short of it.
    if (falls_short && contact.has_value() && Gap(charger, target) >= 1.5) {
      contact.reset();
    }
    const rules::Pose to =
        contact.has_value() ? *contact : ShortPose(charger, target);
    // One that stays where it stands gives no end (the engine then leaves
    // it there, measuring nothing).
    if (contact.has_value() || !(to == status(charger).pose)) {
      *charge->mutable_to() = rules::PoseToProto(to);
    }
    charge->set_fell_short(!contact.has_value());
    falls_short = charge->fell_short();
  }
  Emit(event);
  TakeChargeTests(charger);
  const MoraleResult answer = TakeChargeTests(target);
  if (target_routing) {
    RemoveDestroyed();  // Caught routers are destroyed.
    return;
  }
  if (falls_short) return;
  AnswerCharge(charger, target, answer);
  const Pairing pairing{charger, target};
  if (ContactMade(pairing)) new_pairings_.push_back(pairing);
}

// A target that passed its being-charged test may stand, retire, or
// counter-charge its charger (foot never counter-charges cavalry).
void GamePlayer::AnswerCharge(int charger, int target, MoraleResult answer) {
  if (answer != MoraleResult::kStandOrRetire || !OnTable(target) ||
      state().IsHalted(target)) {
    return;
  }
  const int roll = Uniform(1, 100);
  if (roll <= 12) {
    MakeResultMove(target, v1::RESULT_MOVE_KIND_RETIRE);
    return;
  }
  const bool foot_against_horse =
      state().profiles[target].mobility == rules::Mobility::kFoot &&
      state().profiles[charger].mobility == rules::Mobility::kMounted;
  // A target charged a second time counter-charges neither charger (the
  // generator's choice: reading 27 would let it counter either).
  if (roll > 35 || foot_against_horse || !OnTable(charger) ||
      !state().IsChargedBy(target, charger) ||
      status(target).charges_received >= 2) {
    return;
  }
  v1::Event event;
  event.set_clan(ClanOf(target));
  v1::ChargeDeclaration* counter = event.mutable_charge();
  counter->set_unit(UnitId(target));
  counter->set_target(UnitId(charger));
  counter->set_counter_charge(true);
  Emit(event);
  TakeChargeTests(charger);  // The charger may now owe a being-charged test.
}

bool GamePlayer::ContactMade(const Pairing& p) const {
  for (int unit : {p.charger, p.target}) {
    const rules::UnitStatus& s = status(unit);
    if (s.removed || s.routing || s.in_melee || left_this_activation_[unit]) {
      return false;
    }
  }
  return state().IsChargedBy(p.target, p.charger);
}

// Fights the melees of the activation: first every melee still in contact
// from earlier turns (the first activation of a turn fights them all), then
// the charges that reached contact this activation.
void GamePlayer::MeleePhase(int clan) {
  const std::vector<OngoingJoin> joins = std::move(ongoing_joins_);
  ongoing_joins_.clear();
  const auto joined = [&joins](int x, int y) {
    return std::any_of(joins.begin(), joins.end(), [&](const OngoingJoin& j) {
      return (j.friend_unit == x && j.target == y) ||
             (j.friend_unit == y && j.target == x);
    });
  };
  // The melees a charge joined this activation: the friend's pairing and
  // the charger's, fought as one (each one by one should the join have
  // come apart: the target routed by its test, or a unit gone).
  for (const OngoingJoin& j : joins) {
    const rules::MeleeContact* m = state().FindMelee(j.friend_unit, j.target);
    const bool ongoing =
        m != nullptr && OnTable(j.friend_unit) && OnTable(j.target) &&
        m->last_turn_fought != static_cast<int>(turn_) &&
        !status(j.target).routing && !status(j.friend_unit).routing;
    const bool charged =
        OnTable(j.charger) && OnTable(j.target) && !status(j.charger).routing &&
        !status(j.target).routing && state().IsChargedBy(j.target, j.charger);
    if (ongoing && charged) {
      FightMultiMelee(j.target, {j.friend_unit, j.charger});
    } else if (ongoing) {
      FightPairing(j.friend_unit, j.target);
    } else if (charged) {
      FightPairing(j.charger, j.target);
    }
  }
  std::vector<std::pair<int, int>> ongoing;
  for (const rules::MeleeContact& m : state().melees) {
    if (!OnTable(m.a) || !OnTable(m.b) ||
        m.last_turn_fought == static_cast<int>(turn_) || joined(m.a, m.b)) {
      continue;
    }
    ongoing.push_back(plans_[m.a].clan == clan ? std::make_pair(m.a, m.b)
                                               : std::make_pair(m.b, m.a));
  }
  for (const auto& [a, b] : ongoing) {
    const rules::MeleeContact* m = state().FindMelee(a, b);
    if (m == nullptr || !OnTable(a) || !OnTable(b) ||
        m->last_turn_fought == static_cast<int>(turn_)) {
      continue;
    }
    FightPairing(a, b);
  }
  const std::vector<Pairing> pairings = std::move(new_pairings_);
  new_pairings_.clear();
  std::vector<bool> fought(pairings.size(), false);
  for (std::size_t i = 0; i < pairings.size(); ++i) {
    if (fought[i]) continue;
    fought[i] = true;
    const Pairing& p = pairings[i];
    std::size_t j = i + 1;
    while (j < pairings.size() && pairings[j].target != p.target) ++j;
    if (j == pairings.size()) {
      if (ContactMade(p)) FightPairing(p.charger, p.target);
      continue;
    }
    fought[j] = true;  // Two chargers on one target: one melee.
    const Pairing& q = pairings[j];
    if (ContactMade(p) && ContactMade(q)) {
      FightMultiMelee(p.target, {p.charger, q.charger});
      continue;
    }
    if (ContactMade(p)) FightPairing(p.charger, p.target);
    if (ContactMade(q)) FightPairing(q.charger, q.target);
  }
}

// Fights the melee of `target` with two chargers of the active clan: a
// duel first (with the first charger, when both have leaders), then a round
// for each pairing under one melee_id, the target's stands split between
// them, then the leader-loss rolls and the moves the whole melee owes. The
// conditions JoinTarget checked are checked again (firing came between);
// should they fail, the pairings are fought one by one.
void GamePlayer::FightMultiMelee(int target, std::array<int, 2> chargers) {
  const rules::UnitStatus& t = status(target);
  const int needed = FrontStandsMax(target);
  const int budget = t.stands - needed;
  if (budget < needed) {
    FightPairing(chargers[0], target);
    if (ContactMade(Pairing{chargers[1], target})) {
      FightPairing(chargers[1], target);
    }
    return;
  }
  MaybeChallenge(chargers[0], target);
  MeleeShare share;
  share.melee_id = absl::StrCat("turn", turn_, "-", UnitId(target));
  share.shared = target;
  share.stands_budget = budget;
  std::array<RoundResult, 2> results;
  share.start_stands = t.stands;
  results[0] = FightRound(chargers[0], target, &share);
  int rounds = 1;
  if (OnTable(target) && OnTable(chargers[1]) && !status(target).routing &&
      state().IsChargedBy(target, chargers[1])) {
    share.first = &results[0];
    share.shared_in_building = results[0].in_building[1];
    share.stands_budget = share.start_stands - results[0].stands_fighting[1];
    results[1] = FightRound(chargers[1], target, &share);
    rounds = 2;
  }
  RollOwedLeaderLosses(active_clan_);
  MakeMultiMeleeMoves(absl::MakeConstSpan(results.data(), rounds));
  RemoveDestroyed();
}

// Fights one round between `a` (the active clan's unit) and `b`: a duel
// first when both have a leader who may fight one, then the round with
// every claim computed, the leader-loss rolls it owes, the moves its
// outcome owes and the removals they bring.
void GamePlayer::FightPairing(int a, int b) {
  MaybeChallenge(a, b);
  const RoundResult result = FightRound(a, b, nullptr);
  RollOwedLeaderLosses(plans_[a].clan);
  if (result.winner >= 0) MakeMeleeResultMoves(result);
  RemoveDestroyed();
}

// Writes the round between `a` and `b` with every claim computed, and
// returns what it owes. A round of a multi-unit melee (`share`) carries its
// melee_id and narrows the front until the shared unit's stands fit its
// budget; its second round may bring the second charger on the target's
// flank or rear, and keeps the target in the building it held.
GamePlayer::RoundResult GamePlayer::FightRound(int a, int b,
                                               const MeleeShare* share) {
  v1::Event event;
  event.set_clan(ClanOf(a));
  v1::MeleeRound* round = event.mutable_melee_round();
  if (share != nullptr) round->set_melee_id(share->melee_id);
  rules::daimyo::MeleePairing pairing;
  pairing.round = rules::daimyo::NextRound(state(), a, b);
  round->set_round(static_cast<uint32_t>(pairing.round));
  auto front_width = [this](int unit) {
    return std::min(status(unit).stands_per_rank, status(unit).stands);
  };
  int front = std::min(front_width(a), front_width(b));
  if (Chance(20)) front = Uniform(1, front);
  const int units[2] = {a, b};
  // On a table the second pairing of a multi-unit melee is measured as the
  // engine measures it, on the footprints the melee began with (RULES.md
  // reading 26 (g)): the shared unit with the stands it had then.
  std::optional<rules::BattleState> at_start;
  if (positions() && share != nullptr && share->first != nullptr) {
    at_start = state();
    at_start->units[share->shared].stands = share->start_stands;
    at_start->FootprintChanged(share->shared);
  }
  const rules::BattleState& at = at_start.has_value() ? *at_start : state();
  for (int s = 0; s < 2; ++s) {
    // On a table a first round's front contact is the one measured (a side
    // fought in its flank or rear keeps the declared count: reading 45).
    int in_contact = front;
    if (positions() && pairing.round == 1) {
      const int measured =
          rules::daimyo::MeasureMeleeSide(*field_, at, units[s], units[1 - s])
              .front_stands_in_contact;
      if (measured > 0) in_contact = measured;
    }
    v1::MeleeSide* side = round->add_sides();
    side->set_unit(UnitId(units[s]));
    side->set_front_stands_in_contact(static_cast<uint32_t>(in_contact));
    rules::daimyo::MeleeSideInput& in = pairing.sides[s];
    in.unit = units[s];
    in.facts.front_stands_in_contact = in_contact;
    if (pairing.round >= rules_.melee.overlaps_from_round &&
        front_width(units[s]) > in_contact && Chance(25)) {
      side->set_overlap_stands(1);
      in.facts.overlap_stands = 1;
    }
  }
  DeclareMeleeFacts(*round, pairing, at);
  if (share != nullptr) FitShare(*share, *round, pairing);
  for (int s = 0; s < 2; ++s) {
    pairing.sides[s].stands_fighting =
        rules::daimyo::MaxFightingStands(rules_, state(), pairing, s);
    // On a table the front in contact is measured, not narrowed to the
    // budget (FitShare): the shared unit fights with fewer stands than it
    // may instead, which a pairing of a multi-unit melee may (reading 26).
    if (positions() && share != nullptr && units[s] == share->shared) {
      pairing.sides[s].stands_fighting =
          std::min(pairing.sides[s].stands_fighting, share->stands_budget);
    }
    round->mutable_sides(s)->set_stands_fighting(
        static_cast<uint32_t>(pairing.sides[s].stands_fighting));
  }
  std::array<int, 2> hits = RollMeleeDice(*round, pairing, share);
  // A hits fault in a multi-unit melee could undo what its dice were
  // rolled for (see SecondRoundAcceptable): only the dice are planted.
  if (!PlantMeleeDiceFault(*round) && share == nullptr) {
    PlantMeleeHitsFault(*round, pairing, hits);
  }
  for (int s = 0; s < 2; ++s) {
    const rules::UnitStatus& u = status(units[s]);
    round->mutable_sides(s)->set_claimed_stands_lost(static_cast<uint32_t>(
        rules::StandsLost(u, hits[1 - s], rules_.hits_per_stand)));
  }
  const rules::daimyo::MeleeOutcome outcome =
      rules::daimyo::DecideOutcome(rules_, hits[0], hits[1]);
  round->set_claimed_outcome(OutcomeToProto(outcome));
  PlantMeleeOutcomeFault(*round);
  const RoundResult result = ResultOf(pairing, hits);
  Emit(event);
  return result;
}

// What a round with `hits` owes, worked out on the state before it.
GamePlayer::RoundResult GamePlayer::ResultOf(
    const rules::daimyo::MeleePairing& pairing, std::array<int, 2> hits) const {
  RoundResult result;
  result.a = pairing.sides[0].unit;
  result.b = pairing.sides[1].unit;
  for (int s = 0; s < 2; ++s) {
    result.stands_fighting[s] = pairing.sides[s].stands_fighting;
    result.in_building[s] = pairing.sides[s].facts.in_building;
  }
  const rules::daimyo::MeleeOutcome outcome =
      rules::daimyo::DecideOutcome(rules_, hits[0], hits[1]);
  if (outcome.winner >= 0) {
    const int w = outcome.winner;
    result.winner = pairing.sides[w].unit;
    result.loser = pairing.sides[1 - w].unit;
    result.loser_routs = outcome.loser_routs;
    result.follow =
        rules::daimyo::MustFollowUp(state(), result.winner, result.loser);
    result.winner_may_halt = pairing.sides[w].facts.defending_linear_obstacle &&
                             !status(result.winner).frenzied;
    result.loser_flanked =
        pairing.sides[1 - w].facts.enemy_fighting_to_flank_or_rear;
  }
  return result;
}

// Fits a round of a multi-unit melee to `share`: the second round counts
// the shared unit's stands as the melee began. Without a table, the second
// round's side facts (a charger on the flank or rear now and then, the
// target in the building it held or not), then a front narrowed until the
// shared unit's stands fighting fit its budget (one stand in front always
// does: see JoinTarget); on a table those are measured, and FightRound
// keeps the shared unit's stands fighting to the budget instead.
void GamePlayer::FitShare(const MeleeShare& share, v1::MeleeRound& round,
                          rules::daimyo::MeleePairing& pairing) {
  const int s = pairing.sides[0].unit == share.shared ? 0 : 1;
  if (share.first != nullptr) {
    // The rounds are fought at once (RULES.md reading 26): the second
    // round's limit counts the stands the shared unit began with, a stand
    // lost in the first still fighting there.
    pairing.sides[s].stands = share.start_stands;
  }
  // On a table the sides' facts and the front are the measured ones
  // (DeclareMeasuredMeleeFacts); FightRound keeps the shared unit's stands
  // to its budget.
  if (positions()) return;
  if (share.first != nullptr) {
    const bool flank = Chance(kJoinFlankPercent);
    for (int side = 0; side < 2; ++side) {
      rules::daimyo::MeleeSideFacts& f = pairing.sides[side].facts;
      v1::MeleeSide* proto = round.mutable_sides(side);
      f.enemy_fighting_to_flank_or_rear = side == s && flank;
      f.in_building = side == s && share.shared_in_building;
      f.enemy_in_building = side != s && share.shared_in_building;
      proto->set_enemy_fighting_to_flank_or_rear(
          f.enemy_fighting_to_flank_or_rear);
      proto->set_in_building(f.in_building);
      proto->set_enemy_in_building(f.enemy_in_building);
    }
  }
  int front = pairing.sides[s].facts.front_stands_in_contact;
  while (front > 1 && rules::daimyo::MaxFightingStands(
                          rules_, state(), pairing, s) > share.stands_budget) {
    --front;
    for (int side = 0; side < 2; ++side) {
      pairing.sides[side].facts.front_stands_in_contact = front;
      round.mutable_sides(side)->set_front_stands_in_contact(
          static_cast<uint32_t>(front));
    }
  }
}

// Declares now and then what a tape measure would show of the pairing, on
// both the log's sides and the pairing the claims are worked out on: one
// side fighting the other's flank or rear, a side uphill or behind an
// obstacle, a side defending a linear obstacle, one side holding a
// building (its enemy then fights a unit in a building).
void GamePlayer::DeclareMeleeFacts(v1::MeleeRound& round,
                                   rules::daimyo::MeleePairing& pairing,
                                   const rules::BattleState& at) {
  if (positions()) DeclareMeasuredMeleeFacts(round, pairing, at);
  const int flanked = !positions() && Chance(6) ? Uniform(0, 1) : -1;
  const int in_building = !positions() && Chance(6) ? Uniform(0, 1) : -1;
  for (int s = 0; s < 2; ++s) {
    v1::MeleeSide* side = round.mutable_sides(s);
    rules::daimyo::MeleeSideFacts& f = pairing.sides[s].facts;
    if (positions()) {
      MaybeDeclarePursuing(round, pairing, s);
      continue;
    }
    f.enemy_fighting_to_flank_or_rear = s == flanked;
    f.enemy_uphill_or_behind_obstacle = Chance(10);
    f.defending_linear_obstacle = Chance(8);
    f.in_building = s == in_building;
    f.enemy_in_building = in_building >= 0 && s != in_building;
    side->set_enemy_fighting_to_flank_or_rear(
        f.enemy_fighting_to_flank_or_rear);
    side->set_enemy_uphill_or_behind_obstacle(
        f.enemy_uphill_or_behind_obstacle);
    side->set_defending_linear_obstacle(f.defending_linear_obstacle);
    MaybeDeclarePursuing(round, pairing, s);
    side->set_in_building(f.in_building);
    side->set_enemy_in_building(f.enemy_in_building);
  }
}

// A pursuer of last turn meeting this enemy in a first round may declare
// its +2 for pursuing (not one from a long melee: the replayer would
// disorder it, which the claims here do not foresee).
void GamePlayer::MaybeDeclarePursuing(v1::MeleeRound& round,
                                      rules::daimyo::MeleePairing& pairing,
                                      int s) {
  const rules::UnitStatus& u = status(pairing.sides[s].unit);
  if (pairing.round == 1 && u.pursued_on_turn > 0 &&
      u.pursued_on_turn + 1 == static_cast<int>(turn_) &&
      !u.pursued_from_long_melee && Chance(50)) {
    pairing.sides[s].facts.pursuing = true;
    round.mutable_sides(s)->set_pursuing(true);
  }
}

// Challenges before the round when both units have a daimyo or general
// attached: the leader of the clan holding the initiative challenges, the
// other accepts or refuses; the duel's dice pairs re-roll ties.
// Returns the daimyo attached to `unit`, else its general, else -1.
int GamePlayer::LeaderOf(int unit) const {
  const int daimyo = state().AttachedLeader(unit, rules::LeaderKind::kDaimyo);
  return daimyo >= 0
             ? daimyo
             : state().AttachedLeader(unit, rules::LeaderKind::kGeneral);
}

void GamePlayer::MaybeChallenge(int a, int b) {
  int challenger = LeaderOf(a);
  int challenged = LeaderOf(b);
  // A duel-winner fault takes the first duel it can, whenever it is due:
  // a duel kills a leader, leaders are few, and their units often meet
  // early or not at all.
  const bool fault_due =
      planting_ && planner_.Due(FaultKind::kDuelWinnerWrong, kAnyTime);
  if (challenger < 0 || challenged < 0 ||
      !(fault_due || Chance(kChallengePercent))) {
    return;
  }

  // A duel's death would settle a leader-loss roll left out as a fault.
  if (leader_roll_skipped_[challenger] || leader_roll_skipped_[challenged]) {
    return;
  }
  const auto& leaders = state().leaders;
  if (leaders[challenger].clan != state().initiative_clan) {
    std::swap(challenger, challenged);
  }
  v1::Event event;
  event.set_clan(ClanId(leaders[challenger].clan));
  v1::Challenge* c = event.mutable_challenge();
  c->set_challenger(leaders[challenger].id);
  c->set_challenged(leaders[challenged].id);
  c->set_accepted(fault_due || Chance(75));
  if (c->accepted()) {
    const int ra = leaders[challenger].command_rating;
    const int rb = leaders[challenged].command_rating;
    while (true) {
      const std::uint32_t da = RollDie();
      const std::uint32_t db = RollDie();
      c->add_dice(da);
      c->add_dice(db);
      if (static_cast<int>(da) + ra != static_cast<int>(db) + rb) break;
    }
    rules::daimyo::Duel duel;
    duel.challenger = challenger;
    duel.challenged = challenged;
    duel.accepted = true;
    duel.dice = absl::MakeConstSpan(c->dice().data(), c->dice_size());
    const int winner = rules::daimyo::ResolveDuel(state(), duel, nullptr);
    int claimed = winner;
    if (MayPlantAnyTime(FaultKind::kDuelWinnerWrong)) {
      claimed = winner == challenger ? challenged : challenger;
      RecordFault(FaultKind::kDuelWinnerWrong, seq_ + 1, leaders[challenger].id,
                  absl::StrCat("the duel is claimed for ", leaders[claimed].id,
                               "; the dice give it to ", leaders[winner].id));
    }
    c->set_claimed_winner(leaders[claimed].id);
    ListUnitsNearDeath(winner == challenger ? challenged : challenger,
                       *c->mutable_units_near());
  }
  Emit(event);
}

// Rolls the round's dice, and rolls them again when they would destroy a
// unit in a way that leaves its opponent in a contact no move can end (see
// LeavesContactStuck). After kMeleeRolls tries it tries the extremes, each
// side's dice all 1 or all 6, for one that ends the melee cleanly. Returns
// the hits each side scores.
std::array<int, 2> GamePlayer::RollMeleeDice(
    v1::MeleeRound& round, rules::daimyo::MeleePairing& pairing,
    const MeleeShare* share) {
  // The extremes, as the face each side's dice all show.
  constexpr std::array<std::uint32_t, 2> kExtremes[] = {
      {1, 1}, {6, 1}, {1, 6}, {6, 6}};
  constexpr int kAttempts = kMeleeRolls + 4;
  std::array<int, 2> hits = {0, 0};
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    for (int s = 0; s < 2; ++s) {
      v1::MeleeSide* side = round.mutable_sides(s);
      side->clear_dice();
      const int dice =
          pairing.sides[s].stands_fighting * rules_.melee.dice_per_stand;
      for (int d = 0; d < dice; ++d) {
        side->add_dice(attempt < kMeleeRolls
                           ? RollDie()
                           : kExtremes[attempt - kMeleeRolls][s]);
      }
      pairing.sides[s].dice =
          absl::MakeConstSpan(side->dice().data(), side->dice_size());
    }
    for (int s = 0; s < 2; ++s) {
      hits[s] =
          rules::daimyo::ResolveMeleeSide(rules_, state(), pairing, s, nullptr)
              .hits;
      round.mutable_sides(s)->set_claimed_hits(static_cast<uint32_t>(hits[s]));
    }
    if (LeavesContactStuck(pairing, hits)) continue;
    if (share == nullptr || MultiRoundAcceptable(*share, pairing, hits)) break;
  }
  return hits;
}

// True when a round of a multi-unit melee with `hits` takes no unit's last
// stand (a removal mid-melee would end the other pairing unfought), and, in
// the second round, when the melee it completes is one SecondRoundAcceptable
// allows.
bool GamePlayer::MultiRoundAcceptable(
    const MeleeShare& share, const rules::daimyo::MeleePairing& pairing,
    std::array<int, 2> hits) const {
  for (int s = 0; s < 2; ++s) {
    const rules::UnitStatus& u = status(pairing.sides[s].unit);
    if (rules::StandsLost(u, hits[1 - s], rules_.hits_per_stand) >= u.stands) {
      return false;
    }
  }
  return share.first == nullptr ||
         SecondRoundAcceptable(*share.first, ResultOf(pairing, hits));
}

// True when the two rounds of a multi-unit melee, `first` and `second`
// (the shared unit second in each), settle into at most one contact left:
// the shared unit does not draw both (two contacts stay), and is not pushed
// back with a compulsory follow-up in one while drawing the other (the
// follower keeps it in both contacts). With a follow-up it may choose, the
// winner then halts (MakeMultiMeleeMoves). A shared unit that wins both
// follows up or pursues one loser at most (reading 26 (b)): one contact.
bool GamePlayer::SecondRoundAcceptable(const RoundResult& first,
                                       const RoundResult& second) const {
  const int shared = first.b;
  const std::array<const RoundResult*, 2> rounds = {&first, &second};
  int drawn = 0;
  bool followed_into_draw = false;
  for (const RoundResult* r : rounds) {
    if (r->winner < 0) ++drawn;
  }
  for (const RoundResult* r : rounds) {
    if (r->loser == shared && !r->loser_routs && drawn == 1 && r->follow &&
        !r->winner_may_halt) {
      followed_into_draw = true;
    }
  }
  return drawn < 2 && !followed_into_draw;
}

// Makes the moves a multi-unit melee owes once all its rounds are fought,
// as the rules settle it: each unit takes its worst standing over its
// pairings. Losers move first, each once: a rout if it routed anywhere,
// else a push back. Then each winner that won everywhere follows up or
// pursues where owed (only one of several winners against one loser, and
// where the loser is destroyed or the winner defends a linear obstacle, at
// its choice), and halts otherwise; a winner that drew elsewhere halts; a
// winner that lost elsewhere has moved as a loser. A unit routed while an
// enemy of the melee fights its flank or rear, or pushed back by two with
// one of them on its flank or rear, is destroyed (the replayer owes its
// removal, which RemoveDestroyed makes).
void GamePlayer::MakeMultiMeleeMoves(absl::Span<const RoundResult> results) {
  if (results.size() == 1) {
    if (results[0].winner >= 0) MakeMeleeResultMoves(results[0]);
    return;
  }
  enum Standing { kWon, kDrew, kPushedBack, kRouted };
  std::map<int, Standing> worst;
  std::map<int, int> winners_of;
  auto note = [&worst](int unit, Standing s) {
    auto [it, inserted] = worst.emplace(unit, s);
    if (!inserted) it->second = std::max(it->second, s);
  };
  bool drawn = false;
  for (const RoundResult& r : results) {
    if (r.winner < 0) {
      note(r.a, kDrew);
      note(r.b, kDrew);
      drawn = true;
      continue;
    }
    note(r.winner, kWon);
    note(r.loser, r.loser_routs ? kRouted : kPushedBack);
    ++winners_of[r.loser];
  }
  // Each loser destroyed before its move (as MakeMeleeResultMoves judges
  // it: a rout that removes it at the end of the turn, a second one, leaves
  // it on the table for the winner to pursue), or by a move blocked by
  // enemies or the table edge.
  std::map<int, bool> destroyed;
  for (const RoundResult& r : results) {
    if (r.winner < 0 || destroyed.count(r.loser) > 0) continue;
    destroyed[r.loser] = !OnTable(r.loser) ||
                         !status(r.loser).removal_owed.empty() ||
                         (worst[r.loser] == kRouted && r.loser_flanked);
  }
  std::vector<int> moved;
  for (const RoundResult& r : results) {
    if (r.winner < 0 ||
        std::find(moved.begin(), moved.end(), r.loser) != moved.end())
      continue;
    moved.push_back(r.loser);
    if (OnTable(r.loser)) {
      loser_blocked_by_enemy_ = false;
      MoveLoser(r.loser, worst[r.loser] == kRouted, /*followed_up=*/false);
      if (loser_blocked_by_enemy_) destroyed[r.loser] = true;
    }
  }
  // Each winner's wins, and for one that beat several the win it chose.
  std::map<int, std::vector<std::size_t>> wins;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].winner >= 0) wins[results[i].winner].push_back(i);
  }
  std::map<int, std::size_t> chosen;
  for (const auto& [winner, list] : wins) {
    if (list.size() > 1) {
      chosen[winner] = static_cast<std::size_t>(
          Uniform(0, static_cast<int>(list.size()) - 1));
    }
  }
  std::vector<int> followed;  // Losers a winner followed up or pursued.
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RoundResult& r = results[i];
    if (r.winner < 0 || !OnTable(r.winner) || worst[r.winner] == kPushedBack ||
        worst[r.winner] == kRouted) {
      continue;
    }
    // A unit that beat two makes one move (reading 26 (b)): it follows up
    // or pursues the one of them it chooses, or halts.
    const auto& mine = wins[r.winner];
    const bool beat_several = mine.size() > 1;
    if (beat_several && i != mine[chosen[r.winner]]) continue;
    const int loser = r.loser;
    const bool routs = worst[loser] == kRouted;
    // Drew elsewhere: it halts. Another winner moved up: it halts too.
    const bool follow =
        r.follow && worst[r.winner] == kWon &&
        std::find(followed.begin(), followed.end(), loser) == followed.end();
    bool moves_up = follow;
    if (follow && !destroyed[loser] &&
        (r.winner_may_halt || winners_of[loser] > 1 || beat_several)) {
      // Its choice; not into a loser still in contact with a drawn pairing.
      moves_up = !(drawn && !routs) && Chance(60);
    }
    MoveWinner(r.winner, loser, routs, destroyed[loser], /*may_plant=*/false,
               follow, moves_up);
    const v1::ResultMoveKind made =
        log_.events(events() - 1).result_move().kind();
    if (made == v1::RESULT_MOVE_KIND_FOLLOW_UP ||
        made == v1::RESULT_MOVE_KIND_PURSUIT) {
      followed.push_back(loser);
    }
  }
}

// True when hits `hits` would take a unit's last stand and leave the melee
// contact in place with nobody to end it: the replayer keeps a contact with
// a unit whose last stand falls until one side moves away, so a destroyed
// unit's opponent must rout, pursue or halt, not stay to follow up or draw.
bool GamePlayer::LeavesContactStuck(const rules::daimyo::MeleePairing& pairing,
                                    std::array<int, 2> hits) const {
  std::array<bool, 2> destroyed;
  for (int s = 0; s < 2; ++s) {
    const rules::UnitStatus& u = status(pairing.sides[s].unit);
    destroyed[s] =
        rules::StandsLost(u, hits[1 - s], rules_.hits_per_stand) >= u.stands;
  }
  if (!destroyed[0] && !destroyed[1]) {
    return positions() && FollowUpFallsShort(pairing, hits);
  }
  if (destroyed[0] && destroyed[1]) return true;
  const rules::daimyo::MeleeOutcome outcome =
      rules::daimyo::DecideOutcome(rules_, hits[0], hits[1]);
  if (outcome.winner < 0) return true;
  if (outcome.loser_routs) return false;
  return rules::daimyo::MustFollowUp(state(),
                                     pairing.sides[outcome.winner].unit,
                                     pairing.sides[1 - outcome.winner].unit);
}

// On a table: true when hits `hits` push the loser back and owe a follow-up
// that would not reach it again (a third unit in the winner's way), so that
// the melee would go on with the two apart. Worked out as the engine will:
// the stands lost first, then the push back and the follow-up to contact.
bool GamePlayer::FollowUpFallsShort(const rules::daimyo::MeleePairing& pairing,
                                    std::array<int, 2> hits) const {
  const rules::daimyo::MeleeOutcome outcome =
      rules::daimyo::DecideOutcome(rules_, hits[0], hits[1]);
  if (outcome.winner < 0 || outcome.loser_routs) return false;
  const int winner = pairing.sides[outcome.winner].unit;
  const int loser = pairing.sides[1 - outcome.winner].unit;
  if (!rules::daimyo::MustFollowUp(state(), winner, loser)) return false;
  rules::BattleState s = state();
  for (int side = 0; side < 2; ++side) {
    rules::UnitStatus& u = s.units[pairing.sides[side].unit];
    u.stands -= rules::StandsLost(u, hits[1 - side], rules_.hits_per_stand);
    s.FootprintChanged(pairing.sides[side].unit);
  }
  // The push back and the follow-up to contact, measured as the engine
  // will (rules::daimyo::MeasureResultMove).
  const std::optional<rules::daimyo::MoveMeasure> push =
      rules::daimyo::MeasureResultMove(rules_, *field_, s, loser,
                                       rules::daimyo::ResultMoveKind::kPushBack,
                                       0, nullptr, winner);
  if (push->blocked_by_enemy_or_edge) return false;  // Destroyed: no follow-up.
  s.units[loser].pose = push->to;
  s.FootprintChanged(loser);
  const std::optional<rules::daimyo::MoveMeasure> follow =
      rules::daimyo::MeasureResultMove(rules_, *field_, s, winner,
                                       rules::daimyo::ResultMoveKind::kFollowUp,
                                       0, nullptr, loser);
  s.units[winner].pose = follow->to;
  s.FootprintChanged(winner);
  return !rules::InContact(*field_, s, winner, loser);
}

// Plants a claim one hit off on one side, when the hits as claimed leave no
// contact stuck; the game then goes on with them, as the replayer does.
void GamePlayer::PlantMeleeHitsFault(v1::MeleeRound& round,
                                     const rules::daimyo::MeleePairing& pairing,
                                     std::array<int, 2>& hits) {
  if (!planner_.Due(FaultKind::kMeleeHitsWrong, FaultClock()) || !planting_) {
    return;
  }
  const int s = Uniform(0, 1);
  std::array<int, 2> claimed = hits;
  claimed[s] = hits[s] > 0 && Chance(50) ? hits[s] - 1 : hits[s] + 1;
  if (LeavesContactStuck(pairing, claimed)) return;
  planner_.Take(FaultKind::kMeleeHitsWrong, FaultClock());
  round.mutable_sides(s)->set_claimed_hits(static_cast<uint32_t>(claimed[s]));
  const std::string& unit = UnitId(pairing.sides[s].unit);
  RecordFault(FaultKind::kMeleeHitsWrong, seq_ + 1, unit,
              absl::StrCat(unit, " claims ", claimed[s],
                           " melee hits; the dice give ", hits[s]));
  hits = claimed;
}

// Plants one die too many or too few on one side of a round whose claims are
// already worked out. The replayer cannot resolve a round whose dice are
// wrong and goes on with the claimed hits, which stay right, so the game is
// unchanged. Returns true when planted.
bool GamePlayer::PlantMeleeDiceFault(v1::MeleeRound& round) {
  if (!MayPlant(FaultKind::kMeleeDiceCount)) return false;
  const int s = Uniform(0, 1);
  v1::MeleeSide* side = round.mutable_sides(s);
  if (side->dice_size() > 1 && Chance(50)) {
    side->mutable_dice()->RemoveLast();
  } else {
    side->add_dice(RollDie());
  }
  RecordFault(FaultKind::kMeleeDiceCount, seq_ + 1, side->unit(),
              absl::StrCat(side->unit(), " rolls ", side->dice_size(),
                           " melee dice for ", side->stands_fighting(),
                           " stands fighting"));
  return true;
}

// Plants a claimed outcome other than the one the hits give; the replayer
// settles the melee from the hits, so the game is unchanged.
void GamePlayer::PlantMeleeOutcomeFault(v1::MeleeRound& round) {
  if (!MayPlant(FaultKind::kMeleeOutcomeWrong)) return;
  const v1::MeleeOutcome right = round.claimed_outcome();
  const v1::MeleeOutcome others[2] = {
      right == v1::MELEE_OUTCOME_FIRST_WINS ? v1::MELEE_OUTCOME_SECOND_WINS
                                            : v1::MELEE_OUTCOME_FIRST_WINS,
      right == v1::MELEE_OUTCOME_DRAW ? v1::MELEE_OUTCOME_SECOND_WINS
                                      : v1::MELEE_OUTCOME_DRAW};
  round.set_claimed_outcome(others[Uniform(0, 1)]);
  RecordFault(FaultKind::kMeleeOutcomeWrong, seq_ + 1, round.sides(0).unit(),
              absl::StrCat("the round is claimed as ",
                           v1::MeleeOutcome_Name(round.claimed_outcome()),
                           "; the hits give ", v1::MeleeOutcome_Name(right)));
}

// Makes the loser's push back or rout, then the winner's follow-up, pursuit
// or halt. `result.follow` says whether the winner must follow up (infantry
// that beat cavalry charging it this turn halts instead); a winner that
// may halt (defending a linear obstacle) sometimes does.
void GamePlayer::MakeMeleeResultMoves(const RoundResult& result) {
  const int winner = result.winner;
  const int loser = result.loser;
  // A loser that no longer exists (its last stand lost, destroyed by the
  // outcome: routed while fought in flank or rear, or by a move blocked by
  // enemies or the table edge) leaves the winner the choice to move up.
  const bool destroyed_before = !OnTable(loser) ||
                                !status(loser).removal_owed.empty() ||
                                (result.loser_routs && result.loser_flanked);
  const bool moves_up =
      result.follow && (!result.winner_may_halt || Chance(60));
  // One fault a pairing: a winner that halts would free a loser that did
  // not move, which could then be owed its push back in another melee.
  loser_blocked_by_enemy_ = false;
  const bool loser_moved =
      !OnTable(loser) || MoveLoser(loser, result.loser_routs, moves_up);
  const bool loser_destroyed = destroyed_before || loser_blocked_by_enemy_;
  if (OnTable(winner)) {
    MoveWinner(winner, loser, result.loser_routs, loser_destroyed,
               moves_up && loser_moved && !result.winner_may_halt,
               result.follow, moves_up);
  }
}

// Pushes the loser back 3 cm (sometimes blocked by friends, which disorders
// it, or by enemies, which destroys it), or routs it with the friends it
// passes through or routs near. A planted fault skips a push back that a
// follow-up keeps in contact, when the loser owes no other move this turn;
// not on a table, where the winner's follow-up would then come before its
// loser's push back, a second finding (daimyo.table.result_move.order,
// reading 35): there the fault comes as its stand-in. Returns true when the
// loser moved.
bool GamePlayer::MoveLoser(int loser, bool routs, bool followed_up) {
  if (!routs && followed_up && !OwesEndOfTurnTest(loser) && !positions() &&
      MayPlantAnyTime(FaultKind::kResultMoveMissing)) {
    RecordFaultDueNextActivation(
        FaultKind::kResultMoveMissing, UnitId(loser),
        absl::StrCat(UnitId(loser), " is pushed back but does not move"));
    return false;
  }
  v1::Event event;
  event.set_clan(ClanOf(loser));
  v1::ResultMove* move = event.mutable_result_move();
  move->set_unit(UnitId(loser));
  const int block = Uniform(1, 100);
  if (positions()) {
    // On a table the block is the one the engine measures: the rout turned
    // about and fled its roll, the push back 3 cm the way the winner faces.
    const v1::ResultMoveKind kind =
        routs ? v1::RESULT_MOVE_KIND_ROUT : v1::RESULT_MOVE_KIND_PUSH_BACK;
    move->set_kind(kind);
    if (routs) {
      move->add_dice(RollDie());
      move->add_dice(RollDie());
      move->set_distance_mm((move->dice(0) + move->dice(1)) * 10);
    } else {
      move->set_distance_mm(kPushBackMm);
    }
    const int opponent = MeleeOpponent(loser);
    const rules::daimyo::MoveMeasure predicted = PredictResultMove(
        loser, kind, static_cast<int>(move->distance_mm()), nullptr, opponent);
    const v1::MoveBlock blocked = PredictedBlock(kind, predicted);
    if (blocked != v1::MOVE_BLOCK_NONE) move->set_blocked(blocked);
    loser_blocked_by_enemy_ = blocked == v1::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE;
    if (routs) {
      // Routers pass through friends: those whose bases the rout crosses
      // (the engine measures the same list; they are disordered and test).
      AddPassedThrough(loser, predicted.to, *move);
    }
  } else if (routs) {
    move->set_kind(v1::RESULT_MOVE_KIND_ROUT);
    move->add_dice(RollDie());
    move->add_dice(RollDie());
    move->set_distance_mm((move->dice(0) + move->dice(1)) * 10);
    if (block <= 5) move->set_blocked(v1::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE);
    AddRoutFacts(loser, *move);
  } else {
    move->set_kind(v1::RESULT_MOVE_KIND_PUSH_BACK);
    move->set_distance_mm(kPushBackMm);
    if (block <= 8) {
      move->set_blocked(v1::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE);
    } else if (block <= 11) {
      move->set_blocked(v1::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE);
      loser_blocked_by_enemy_ = true;
    }
  }
  Emit(event);
  left_this_activation_[loser] = true;
  return true;
}

// Names, now and then, a friend the routers pass through (it is disordered
// and tests) and a friend they rout near (it tests): units not in melee.
void GamePlayer::AddRoutFacts(int router, v1::ResultMove& move) {
  std::vector<int> friends;
  for (int unit : UnitsOnTable(plans_[router].clan)) {
    if (unit != router && !status(unit).in_melee && !status(unit).routing &&
        !Shielded(unit)) {
      friends.push_back(unit);
    }
  }
  if (friends.empty()) return;
  if (Chance(15)) {
    move.add_interpenetrated(
        UnitId(friends[Uniform(0, static_cast<int>(friends.size()) - 1)]));
  }
  if (Chance(25)) {
    move.add_friends_near(
        UnitId(friends[Uniform(0, static_cast<int>(friends.size()) - 1)]));
  }
}

// Makes the winner's move: a follow-up after a push back, a pursuit after a
// rout (sometimes catching the routers, who are then destroyed), or a halt
// where it may not follow. A planted fault (when `may_plant`) halts a winner
// owed a follow-up or pursuit.
void GamePlayer::MoveWinner(int winner, int loser, bool loser_routs,
                            bool loser_destroyed, bool may_plant, bool follow,
                            bool moves_up) {
  v1::ResultMoveKind kind = v1::RESULT_MOVE_KIND_HOLD;
  if (loser_destroyed) {
    // Nothing left to keep contact with: the winner may move up or halt
    // (infantry that beat cavalry charging them halt all the same).
    if (follow && Chance(50)) {
      kind = loser_routs ? v1::RESULT_MOVE_KIND_PURSUIT
                         : v1::RESULT_MOVE_KIND_FOLLOW_UP;
    }
  } else if (follow && moves_up) {
    kind = loser_routs ? v1::RESULT_MOVE_KIND_PURSUIT
                       : v1::RESULT_MOVE_KIND_FOLLOW_UP;
    if (may_plant && MayPlant(FaultKind::kResultMoveWrong)) {
      RecordFault(FaultKind::kResultMoveWrong, seq_ + 1, UnitId(winner),
                  absl::StrCat(UnitId(winner), " halts where it owes a ",
                               loser_routs ? "pursuit" : "follow-up"));
      kind = v1::RESULT_MOVE_KIND_HOLD;
    }
  }
  v1::Event event;
  event.set_clan(ClanOf(winner));
  v1::ResultMove* move = event.mutable_result_move();
  move->set_unit(UnitId(winner));
  move->set_kind(kind);
  if (kind == v1::RESULT_MOVE_KIND_PURSUIT) {
    move->add_dice(RollDie());
    move->add_dice(RollDie());
    move->set_distance_mm((move->dice(0) + move->dice(1)) * 10);
    const rules::UnitStatus& l = status(loser);
    if (positions()) {
      SetPursuitTo(winner, loser, *move);  // Caught if it reaches them.
    } else if (!l.removed && l.routing && l.removal_owed.empty() &&
               Chance(15)) {
      move->set_contact_after_pursuit(true);
    }
  } else if (kind == v1::RESULT_MOVE_KIND_FOLLOW_UP && !positions()) {
    // On a table a follow-up gives no distance: it moves up to contact.
    move->set_distance_mm(kPushBackMm);
  }
  Emit(event);
}

void GamePlayer::RemoveDestroyed() {
  for (int unit = 0; unit < UnitCount(); ++unit) {
    if (OnTable(unit) && !status(unit).removal_owed.empty()) Remove(unit);
  }
}

}  // namespace gunbai::generate::internal
