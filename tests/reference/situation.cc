// The situation generator: a small game simulator that plays random legal
// turns (activations, moves, charges, firing, melee, end-of-turn tests),
// keeps its own state, asks the reference model for every claim, and writes
// the battle log. It reads nothing from rules/ or replay/.
#include "tests/reference/situation.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "tests/reference/model.h"
#include "tests/reference/proto_mapping.h"
#include "tests/reference/rng.h"

namespace gunbai::reference {
namespace {

namespace pb = gunbai::v1;

struct Weights {
  int min_turns = 1, max_turns = 3;
  double missile_unit = 0.6;
  double move = 0.25;
  double charge = 0.2;
  double fire = 0.85;
  double melee_on_charge = 0.0;
  double contact_melee = 0.0;  // a melee declared in contact, no charge
  double leader = 0.5;
  double declared_fact = 0.15;
  double rally = 0.6;
  double near_lists = 0.3;
  double forced_dice = 0.2;  // morale dice forced to 2, 11 or 12
  double challenge = 0.3;    // a challenge before a round, when possible
  double multi = 0.0;        // a melee made multi-unit (last activation only)
  double counter_charge = 0.0;  // a passed being-charged test counters
};

Weights WeightsFor(const std::string& kind) {
  Weights w;
  if (kind == "morale") {
    w.min_turns = 2;
    w.max_turns = 3;
    w.charge = 0.6;
    w.leader = 0.8;
    w.declared_fact = 0.3;
    w.near_lists = 0.6;
    w.forced_dice = 0.35;
    w.melee_on_charge = 0.2;
  } else if (kind == "melee") {
    w.missile_unit = 0.3;
    w.charge = 0.7;
    w.fire = 0.4;
    w.move = 0.1;
    w.melee_on_charge = 0.9;
    w.contact_melee = 0.5;
    w.challenge = 0.5;
    w.multi = 0.3;
    w.counter_charge = 0.5;
  } else if (kind == "multi") {
    // Multi-unit melees and counter-charges: many charges on Ashigaru and
    // Peasants (the units that test when charged by foot), fought at once.
    w.min_turns = 1;
    w.max_turns = 2;
    w.missile_unit = 0.3;
    w.charge = 0.9;
    w.fire = 0.3;
    w.move = 0.1;
    w.melee_on_charge = 0.9;
    w.contact_melee = 0.7;
    w.challenge = 0.3;
    w.multi = 0.9;
    w.counter_charge = 0.7;
  }
  if (kind == "morale") w.counter_charge = 0.5;
  return w;
}

struct Leader {
  std::string id, clan;
  LeaderKind kind = LeaderKind::kGeneral;
  int rating = 1;
  std::string attached;
  bool alive = true;
};

struct Unit {
  std::string id, clan;
  Troop troop = Troop::kSamurai;
  Mobility mobility = Mobility::kFoot;
  Quality quality = Quality::kSeasoned;
  Armour armour = Armour::kNone;
  MeleeWeapon weapon = MeleeWeapon::kNone;
  Missile missile = Missile::kNone;
  int stands = 4, per_rank = 2;
  Formation formation = Formation::kLine;
  bool disordered = false;
  // Game state.
  int hits = 0, lost_in_game = 0;
  bool removed = false, routing = false, rallied_once = false;
  bool frenzied = false, volley_spent = false;
  bool remove_at_turn_end = false;  // destroyed, owes its removal
  int halted_through = 0;
  // A pursuit's +2 waits for the unit's next melee, on a later turn.
  int pursuit_bonus_from_turn = 0;  // 0: none
  // R reading 19 (pursuit_disorder FRESH_ENEMY): its last pursuit came from
  // a melee of more than one round; it is disordered when that pursuit
  // meets a fresh enemy (a melee with the pursuing +2).
  bool pursued_from_long_melee = false;
  // This turn.
  bool fired = false, moved = false, retreated = false, retired = false;
  bool hit_by_fire = false, pursued = false, tested_eot = false;
  bool rally_tested = false, own_leader_killed = false;
  bool routed_this_turn = false;  // Mo: a rout "may not fire", this turn
  std::string charge_target;      // a charge declared this turn, still on
  // R reading 28: a unit charges (or counter-charges) once a turn, even
  // when that charge has ended since (a rout cancels it).
  bool charged_this_turn = false;
  bool counter_charging = false;  // the charge is a counter-charge
  bool charge_fell_short = false;
  // R reading 24: the charge made its contact and that melee has fought a
  // round; its bonus is spent. The enemy it made contact with (not fell
  // short), for the rule that infantry halt against cavalry that charged
  // them into contact this turn (even if the charge has ended since).
  bool charge_spent = false;
  std::string charged_contact_with;
  std::vector<std::string> chargers;  // units charging it (P5: rest of turn)
  std::set<int> owed;
};

struct Contact {
  std::string a, b;  // a: the side that started it
  int rounds = 0;
  int fought_turn = 0;
  std::string followed_up_by;  // the follower's id, fighting next turn
  int follow_up_turn = 0;
  bool new_this_turn = true;
};

// One pairing's round of melee as the model plays it.
struct PairingPlay {
  Unit* us[2] = {nullptr, nullptr};  // the first is the active clan's
  MeleeSideInput in[2];
  pb::MeleeRound msg;  // written to the log by WriteRound
  pb::MeleeSide* side[2] = {nullptr, nullptr};
  std::vector<int> dice[2];
  std::vector<Term> terms[2];
  int most[2] = {0, 0}, hits[2] = {0, 0}, carried_before[2] = {0, 0};
  StandLoss loss[2];
  MeleeVerdict verdict;
  int round = 0;
};

class Game {
 public:
  Game(const std::string& kind, std::uint64_t seed)
      : rng_(seed), w_(WeightsFor(kind)) {
    s_.kind = kind;
    s_.seed = seed;
  }
  Situation Play();

 private:
  // Armies.
  void MakeArmies();
  Unit RandomUnit(const std::string& clan, int n);
  // Sequencing.
  pb::Event* Ev(const std::string& clan);
  // Marks that the log relies on pending reading `tag` from this event on.
  void Rely(const std::string& tag) {
    s_.pending_tags.emplace(tag, seq_ == 0 ? 1 : seq_);
  }
  void Note(const std::string& text) {
    s_.workings.push_back("seq " + std::to_string(seq_) + ": " + text);
  }
  void PlayTurn();
  void Activation(const std::string& clan);
  void EndOfTurn();
  // Actions.
  void RallyTest(Unit& u);
  void MoveUnit(Unit& u);
  void DeclareCharge(Unit& charger, Unit& target, bool forced);
  void Fire(Unit& firer, Unit& target);
  void FightContact(Contact& c);
  void SetUpPairing(Contact& c, Unit* first, Unit* second, PairingPlay* p);
  void RollPairing(PairingPlay* p);
  void SpendBonuses(const PairingPlay& p);
  void WriteRound(PairingPlay* p, std::map<std::string, int>* left);
  int PushBack(Unit& loser);
  bool WinnerMove(Unit& winner, Unit& loser, bool pursue, bool may_halt,
                  int rounds, bool may_keep_contact = true);
  void MultiMelee(Unit& a, Unit& b, Unit& e);
  void DisorderSharedPursuer(std::vector<PairingPlay>* plays, const Unit& e,
                             bool disordered_before);
  void FitSharedStands(std::vector<PairingPlay>* plays, const Unit& e);
  void SettleMultiMelee(const std::vector<PairingPlay*>& fought);
  bool TryMultiMelee(Unit& a, Unit* e);
  void MaybeCounterCharge(Unit& target, Unit& charger,
                          const MoraleOutcome& test);
  void MaybeChallenge(Unit& a, Unit& b);
  Leader* DuellingLeaderOf(const Unit& u);
  void StartMelee(Unit& a, Unit& b);
  // Consequences.
  void LoseStands(Unit& u, int lost, const std::string& clan_of_event);
  MoraleOutcome MoraleTestFor(Unit& u, int reason, pb::MoraleTest* t);
  void ApplyMoraleResult(Unit& u, int reason, const MoraleOutcome& out);
  void RoutMove(Unit& u);
  void ResultMove(Unit& u, pb::ResultMoveKind kind);
  void Remove(Unit& u, const std::string& why);
  void EndCharge(Unit& charger);
  void BreakContact(const Unit& u) {
    for (Contact& c : contacts_)
      if (c.a == u.id || c.b == u.id) c.a.clear(), c.b.clear();
  }
  // Queries.
  Unit* FindUnit(const std::string& id);
  std::vector<Leader*> LiveLeadersOf(const Unit& u);
  bool OnTable(const Unit& u) const { return !u.removed; }
  bool InMelee(const Unit& u) const;
  bool Halted(const Unit& u) const { return u.halted_through >= turn_; }
  std::vector<Unit*> UnitsOf(const std::string& clan);
  std::vector<Unit*> Enemies(const Unit& u);
  std::vector<Unit*> Friends(const Unit& u);
  void RandomSubset(std::vector<Unit*> from, double p,
                    google::protobuf::RepeatedPtrField<std::string>* out,
                    std::vector<Unit*>* chosen);
  std::string Other(const std::string& clan) const {
    return clan == "red" ? "blue" : "red";
  }
  std::pair<int, int> MoraleDice();

  Rng rng_;
  Weights w_;
  Situation s_;
  std::vector<std::unique_ptr<Unit>> units_;
  std::vector<Leader> leaders_;
  std::vector<Contact> contacts_;
  std::uint64_t seq_ = 0;
  int turn_ = 0;
  std::string active_;
  std::string initiative_;  // The clan holding the initiative this turn.
  bool end_of_turn_ = false;
  int turns_ = 0;      // turns in this situation
  int melee_ids_ = 0;  // multi-unit melees so far
  // R melee.once_per_turn: the pairs that fought a round this turn; each
  // stand fights one resolution a turn, so a melee declared in contact does
  // not bring them together again (a new charge would).
  std::set<std::pair<std::string, std::string>> fought_pairs_;
  bool FoughtThisTurn(const Unit& a, const Unit& b) const {
    return fought_pairs_.count(std::minmax(a.id, b.id)) > 0;
  }
};

const char* TroopName(Troop t) {
  switch (t) {
    case Troop::kSamurai:
      return "sam";
    case Troop::kAshigaru:
      return "ash";
    case Troop::kRonin:
      return "ronin";
    case Troop::kMonk:
      return "monk";
    case Troop::kPeasant:
      return "peas";
    case Troop::kHatamoto:
      return "hata";
    case Troop::kHeadquarters:
      return "hq";
  }
  return "u";
}

std::string DiceText(const std::vector<int>& d) {
  std::string out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    out += (i ? (i % 2 ? "+" : " ") : "") + std::to_string(d[i]);
  }
  return out;
}

// ---- Armies ----
Unit Game::RandomUnit(const std::string& clan, int n) {
  Unit u;
  u.clan = clan;
  static const std::vector<Troop> kTroops = {
      Troop::kSamurai,  Troop::kSamurai,     Troop::kAshigaru, Troop::kAshigaru,
      Troop::kAshigaru, Troop::kRonin,       Troop::kMonk,     Troop::kPeasant,
      Troop::kHatamoto, Troop::kHeadquarters};
  u.troop = rng_.Pick(kTroops);
  u.mobility = (u.troop == Troop::kSamurai || u.troop == Troop::kHatamoto ||
                u.troop == Troop::kHeadquarters) &&
                       rng_.Chance(0.4)
                   ? Mobility::kMounted
                   : Mobility::kFoot;
  u.quality = static_cast<Quality>(rng_.In(0, 3));
  u.armour = static_cast<Armour>(rng_.In(0, 3));
  static const std::vector<MeleeWeapon> kWeapons = {
      MeleeWeapon::kNone,       MeleeWeapon::kLongSpear, MeleeWeapon::kPoleArm,
      MeleeWeapon::kImprovised, MeleeWeapon::kLance,     MeleeWeapon::kSword};
  u.weapon = rng_.Pick(kWeapons);
  if (u.troop != Troop::kHeadquarters && rng_.Chance(w_.missile_unit))
    u.missile = rng_.Chance(0.5) ? Missile::kBow : Missile::kArquebus;
  u.stands = u.troop == Troop::kHeadquarters ? rng_.In(1, 2) : rng_.In(2, 8);
  u.per_rank = rng_.In(1, std::min(4, u.stands));
  const int f = rng_.In(0, 9);
  u.formation = f < 7 ? Formation::kLine
                      : (f < 9 ? Formation::kColumn : Formation::kBuilding);
  u.disordered = rng_.Chance(0.15);
  u.id = clan + "-" + TroopName(u.troop) + "-" + std::to_string(n);
  return u;
}

void Game::MakeArmies() {
  for (const std::string clan : {"red", "blue"}) {
    const int n = rng_.In(3, 5);
    for (int i = 1; i <= n; ++i)
      units_.push_back(std::make_unique<Unit>(RandomUnit(clan, i)));
    std::vector<Unit*> mine = UnitsOf(clan);
    // Leaders: a general and a daimyo, each with a chance of being present;
    // mostly attached, sometimes both to one unit.
    for (LeaderKind kind : {LeaderKind::kGeneral, LeaderKind::kDaimyo}) {
      if (!rng_.Chance(w_.leader)) continue;
      Leader l;
      l.clan = clan;
      l.kind = kind;
      l.id = clan + (kind == LeaderKind::kGeneral ? "-general" : "-daimyo");
      l.rating = rng_.In(1, 4);
      if (rng_.Chance(0.85)) l.attached = rng_.Pick(mine)->id;
      leaders_.push_back(l);
    }
  }
  pb::BattleLog& log = s_.log;
  pb::Header* h = log.mutable_header();
  h->set_game_id(s_.kind + "-" + std::to_string(s_.seed));
  h->mutable_ruleset()->set_name("daimyo");
  h->mutable_ruleset()->set_version("1.0");
  for (const char* c : {"red", "blue"}) h->add_clans()->set_id(c);
  for (const auto& up : units_) {
    const Unit& u = *up;
    pb::Unit* p = log.mutable_order_of_battle()->add_units();
    p->set_id(u.id);
    p->set_clan(u.clan);
    p->set_troop_type(ToPb(u.troop));
    p->set_mobility(u.mobility == Mobility::kFoot ? pb::MOBILITY_FOOT
                                                  : pb::MOBILITY_MOUNTED);
    p->set_quality(ToPb(u.quality));
    p->set_armour(ToPb(u.armour));
    p->set_melee_weapon(ToPb(u.weapon));
    p->set_missile_weapon(ToPb(u.missile));
    p->set_stands(u.stands);
    p->set_stands_per_rank(u.per_rank);
    p->set_formation(ToPb(u.formation));
    p->set_starting_order(u.disordered ? pb::ORDER_DISORDERED : pb::ORDER_GOOD);
  }
  for (const Leader& l : leaders_) {
    pb::Leader* p = log.mutable_order_of_battle()->add_leaders();
    p->set_id(l.id);
    p->set_clan(l.clan);
    p->set_kind(l.kind == LeaderKind::kGeneral ? pb::LEADER_KIND_GENERAL
                                               : pb::LEADER_KIND_DAIMYO);
    p->set_command_rating(l.rating);
    p->set_attached_unit(l.attached);
  }
}

// ---- Queries ----
Unit* Game::FindUnit(const std::string& id) {
  for (auto& u : units_)
    if (u->id == id) return u.get();
  return nullptr;
}
std::vector<Leader*> Game::LiveLeadersOf(const Unit& u) {
  std::vector<Leader*> out;
  for (Leader& l : leaders_)
    if (l.alive && l.attached == u.id) out.push_back(&l);
  return out;
}
bool Game::InMelee(const Unit& u) const {
  for (const Contact& c : contacts_)
    if (c.a == u.id || c.b == u.id) return true;
  return false;
}
std::vector<Unit*> Game::UnitsOf(const std::string& clan) {
  // Units destroyed and awaiting removal take no further part.
  std::vector<Unit*> out;
  for (auto& u : units_)
    if (u->clan == clan && !u->removed && !u->remove_at_turn_end)
      out.push_back(u.get());
  return out;
}
std::vector<Unit*> Game::Enemies(const Unit& u) {
  return UnitsOf(Other(u.clan));
}
std::vector<Unit*> Game::Friends(const Unit& u) {
  std::vector<Unit*> out;
  for (Unit* f : UnitsOf(u.clan))
    if (f != &u) out.push_back(f);
  return out;
}
void Game::RandomSubset(std::vector<Unit*> from, double p,
                        google::protobuf::RepeatedPtrField<std::string>* out,
                        std::vector<Unit*>* chosen) {
  for (Unit* u : from) {
    if (!rng_.Chance(p)) continue;
    if (out) *out->Add() = u->id;
    if (chosen) chosen->push_back(u);
  }
}

pb::Event* Game::Ev(const std::string& clan) {
  pb::Event* e = s_.log.add_events();
  e->set_seq(++seq_);
  e->set_turn(turn_);
  if (!clan.empty()) e->set_clan(clan);
  return e;
}

std::pair<int, int> Game::MoraleDice() {
  if (rng_.Chance(w_.forced_dice)) {
    switch (rng_.In(0, 3)) {
      case 0:
        return {1, 1};
      case 1:
        return {6, 6};
      case 2:
        return {5, 6};
      default:
        return {6, 5};
    }
  }
  return {rng_.Die(), rng_.Die()};
}

// ---- Turn sequence ----
Situation Game::Play() {
  MakeArmies();
  turns_ = rng_.In(w_.min_turns, w_.max_turns);
  for (int t = 1; t <= turns_; ++t) PlayTurn();
  return s_;
}

void Game::PlayTurn() {
  ++turn_;
  for (auto& up : units_) {
    Unit& u = *up;
    u.fired = u.moved = u.retreated = u.retired = u.hit_by_fire = false;
    u.pursued = u.tested_eot = u.rally_tested = u.own_leader_killed = false;
    u.routed_this_turn = false;
    u.charge_target.clear();
    u.charged_this_turn = false;
    u.charge_fell_short = false;
    u.charge_spent = false;
    u.counter_charging = false;
    u.charged_contact_with.clear();
    u.chargers.clear();
    u.owed.clear();
  }
  for (Contact& c : contacts_) c.new_this_turn = false;
  fought_pairs_.clear();
  const std::string first = rng_.Chance(0.5) ? "red" : "blue";
  initiative_ = first;
  pb::Event* e = Ev("");
  e->mutable_turn_start()->set_initiative_clan(first);
  end_of_turn_ = false;
  Activation(first);
  Activation(Other(first));
  EndOfTurn();
  Ev("")->mutable_turn_end();
}

void Game::Activation(const std::string& clan) {
  active_ = clan;
  Ev(clan)->mutable_activation();
  // Rally tests first, before the routers move (R: morale.timing).
  for (Unit* u : UnitsOf(clan))
    if (u->routing && turn_ > 1 && !u->rally_tested && rng_.Chance(w_.rally))
      RallyTest(*u);
  // R 29: each router still routing makes its one rout move of the turn
  // (one that routed already this turn has made it).
  for (Unit* u : UnitsOf(clan)) {
    if (!u->routing || u->removed || u->remove_at_turn_end ||
        u->routed_this_turn)
      continue;
    u->routed_this_turn = true;
    pb::ResultMove* m = Ev(clan)->mutable_result_move();
    m->set_unit(u->id);
    m->set_kind(pb::RESULT_MOVE_KIND_ROUT);
    m->add_dice(rng_.Die());
    m->add_dice(rng_.Die());
  }
  // Movement phase: frenzied units must charge; moves; charges.
  for (Unit* u : UnitsOf(clan)) {
    if (u->removed || !u->frenzied || InMelee(*u) || Halted(*u) || u->routing ||
        !u->charge_target.empty() || u->charged_this_turn)
      continue;
    std::vector<Unit*> targets;
    for (Unit* e : Enemies(*u))
      if (!e->routing && !InMelee(*e)) targets.push_back(e);
    if (targets.empty()) targets = Enemies(*u);
    if (!targets.empty())
      DeclareCharge(*u, *rng_.Pick(targets), true);
    else
      Rely("E3");  // no enemy left to charge
  }
  for (Unit* u : UnitsOf(clan)) {
    if (u->removed || u->routing || InMelee(*u) || !u->charge_target.empty() ||
        u->retired || u->retreated)
      continue;
    if (rng_.Chance(w_.move)) MoveUnit(*u);
  }
  if (rng_.Chance(w_.charge)) {
    std::vector<Unit*> chargers;
    for (Unit* u : UnitsOf(clan))
      if (!u->removed && !u->routing && !InMelee(*u) && !Halted(*u) &&
          u->charge_target.empty() && !u->charged_this_turn && !u->retired &&
          !u->retreated && !u->fired)
        chargers.push_back(u);
    if (!chargers.empty()) {
      Unit& c = *rng_.Pick(chargers);
      std::vector<Unit*> targets;
      for (Unit* e : Enemies(c))
        if (!InMelee(*e)) targets.push_back(e);
      if (!targets.empty()) DeclareCharge(c, *rng_.Pick(targets), false);
    }
  }
  // Firing phase: this clan's units, and enemies charged by this clan at
  // their chargers.
  std::vector<Unit*> firers;
  for (auto& up : units_) {
    Unit& u = *up;
    if (u.removed || u.remove_at_turn_end || u.missile == Missile::kNone ||
        u.fired || u.routing || u.routed_this_turn || u.retreated ||
        u.retired || !u.charge_target.empty() || InMelee(u))
      continue;
    std::vector<Unit*> targets;
    if (!u.chargers.empty()) {
      // P5: being charged lasts the turn; fire only at the chargers, and in
      // another clan's activation only at chargers of the active clan.
      for (const std::string& id : u.chargers) {
        Unit* c = FindUnit(id);
        if (c && !c->removed && (u.clan == clan || c->clan == clan))
          targets.push_back(c);
      }
    } else if (u.clan == clan) {
      for (Unit* e : Enemies(u))
        if (!InMelee(*e)) targets.push_back(e);
    }
    if (targets.empty() || !rng_.Chance(w_.fire)) continue;
    firers.push_back(&u);
    Fire(u, *rng_.Pick(targets));
  }
  // Melee phase: new charges in contact, contacts carried over, and
  // (turn 1) a melee declared in contact.
  for (Unit* u : UnitsOf(clan)) {
    // A counter-charge is fought with the charge it meets, in the
    // charger's activation; a charge fights once.
    if (u->removed || u->charge_target.empty() || u->charge_spent ||
        u->counter_charging)
      continue;
    Unit* t = FindUnit(u->charge_target);
    if (!t || t->removed || t->remove_at_turn_end || t->routing ||
        t->retreated || t->retired || InMelee(*t) || InMelee(*u) || u->routing)
      continue;
    // P6: a charge declared short that ends in contact anyway gets no
    // charge bonus.
    if (!u->charge_fell_short || rng_.Chance(0.1 * w_.melee_on_charge))
      if (!TryMultiMelee(*u, t)) StartMelee(*u, *t);
  }
  if (rng_.Chance(turn_ == 1 ? w_.contact_melee : w_.contact_melee / 2)) {
    std::vector<Unit*> mine, pursuers;
    for (Unit* u : UnitsOf(clan))
      if (!u->routing && !InMelee(*u) && u->charge_target.empty() &&
          !u->fired && u->chargers.empty() && !u->retired && !u->retreated)
        (u->pursuit_bonus_from_turn ? pursuers : mine).push_back(u);
    if (!pursuers.empty()) mine = pursuers;
    if (!mine.empty()) {
      Unit& a = *rng_.Pick(mine);
      std::vector<Unit*> theirs, their_pursuers;
      for (Unit* e : Enemies(a))
        if (!e->routing && !InMelee(*e) && !e->fired && e->chargers.empty() &&
            e->charge_target.empty() && !FoughtThisTurn(a, *e)) {
          theirs.push_back(e);
          if (e->pursuit_bonus_from_turn == turn_) their_pursuers.push_back(e);
        }
      // Often an enemy that pursued last turn: the pursuing +2 on both
      // sides, and in a multi-unit melee on the shared unit (reading 26 d).
      if (!their_pursuers.empty() && rng_.Chance(0.5)) theirs = their_pursuers;
      if (!theirs.empty()) {
        Unit* e = rng_.Pick(theirs);
        if (!TryMultiMelee(a, e)) StartMelee(a, *e);
      }
    }
  }
  for (std::size_t i = 0; i < contacts_.size(); ++i) {
    Contact& c = contacts_[i];
    if (c.fought_turn == turn_ || c.a.empty()) continue;
    Unit* a = FindUnit(c.a);
    Unit* b = FindUnit(c.b);
    if (a->clan != clan && b->clan != clan) continue;
    FightContact(c);
  }
  contacts_.erase(std::remove_if(contacts_.begin(), contacts_.end(),
                                 [](const Contact& c) { return c.a.empty(); }),
                  contacts_.end());
}

// ---- Movement ----
void Game::MoveUnit(Unit& u) {
  const bool halted = Halted(u);
  pb::Move* m = Ev(u.clan)->mutable_move();
  m->set_unit(u.id);
  if (halted || rng_.Chance(0.1)) {
    m->set_kind(pb::MOVE_KIND_TURN_ABOUT);  // a halted unit may turn about
  } else {
    m->set_kind(rng_.Chance(0.7) ? pb::MOVE_KIND_MOVE
                                 : pb::MOVE_KIND_MANOEUVRE);
    m->set_distance_mm(rng_.In(10, 120));
    if (rng_.Chance(0.3)) {
      u.formation = static_cast<Formation>(rng_.In(0, 2));
      m->set_formation(ToPb(u.formation));
    }
  }
  u.moved = true;  // F: moved or manoeuvred this turn (a turn about is one)
  Note("move " + u.id);
}

void Game::DeclareCharge(Unit& charger, Unit& target, bool forced) {
  pb::ChargeDeclaration* c = Ev(charger.clan)->mutable_charge();
  c->set_unit(charger.id);
  c->set_target(target.id);
  // A charge that reaches its target is fought this activation; one that
  // will not be fought is declared short.
  const bool fell_short = rng_.Chance(0.1) || !rng_.Chance(w_.melee_on_charge);
  if (fell_short) c->set_fell_short(true);
  charger.charge_target = target.id;
  charger.charged_this_turn = true;
  charger.charge_fell_short = fell_short;
  charger.charge_spent = false;
  charger.moved = true;
  Note("charge " + charger.id + " -> " + target.id +
       (fell_short ? " (fell short)" : "") + (forced ? " (frenzied)" : ""));
  target.chargers.push_back(charger.id);
  // Mo reasons 2 (Ashigaru or Peasants charged) and 3 (infantry, not Elite
  // or frenzied, charged by cavalry): one test, for the higher; routers owe
  // none (R 14), and chargers reaching them destroy them (R 13).
  int reason = 0;
  if (target.troop == Troop::kAshigaru || target.troop == Troop::kPeasant)
    reason = 2;
  if (target.mobility == Mobility::kFoot &&
      charger.mobility == Mobility::kMounted &&
      target.quality != Quality::kElite)
    reason = 3;
  if (target.routing) {
    if (!fell_short) target.remove_at_turn_end = true;
  } else if (reason && !target.frenzied) {
    const MoraleOutcome out =
        MoraleTestFor(target, reason, Ev(target.clan)->mutable_morale_test());
    if (!fell_short) MaybeCounterCharge(target, charger, out);
  }
  // Mo reason 4: Ashigaru missile troops or Peasants initiating a charge,
  // also taken when the charge is declared.
  const bool owes4 =
      !charger.frenzied && ((charger.troop == Troop::kAshigaru &&
                             charger.missile != Missile::kNone) ||
                            charger.troop == Troop::kPeasant);
  if (owes4) MoraleTestFor(charger, 4, Ev(charger.clan)->mutable_morale_test());
}

// Mo: a being-charged test passed gives "stand or retire; counter-charge":
// the unit may counter-charge its charger if of a type allowed to (foot
// never counter-charge cavalry), right after its test, in the charger's
// activation. Not a charge it initiates: no reason-4 test. Not modelled:
// a counter-charge that owes the charger a being-charged test (Ashigaru or
// Peasant chargers, foot charged by cavalry), one from a building, one by
// a unit halted, in melee, charging or that fired.
void Game::MaybeCounterCharge(Unit& target, Unit& charger,
                              const MoraleOutcome& test) {
  if (test.result != MoraleResult::kStandOrRetire ||
      !rng_.Chance(w_.counter_charge))
    return;
  if (target.mobility == Mobility::kFoot &&
      charger.mobility == Mobility::kMounted)
    return;  // Mo: "foot may not counter-charge cavalry"
  if (target.removed || target.remove_at_turn_end || target.routing ||
      Halted(target) || InMelee(target) || !target.charge_target.empty() ||
      target.charged_this_turn || target.fired || target.retired ||
      target.retreated || target.formation == Formation::kBuilding ||
      InMelee(charger))
    return;
  const bool charger_owes_test =
      !charger.frenzied &&
      (charger.troop == Troop::kAshigaru || charger.troop == Troop::kPeasant ||
       (charger.mobility == Mobility::kFoot &&
        target.mobility == Mobility::kMounted &&
        charger.quality != Quality::kElite));
  if (charger_owes_test) return;
  pb::ChargeDeclaration* c = Ev(target.clan)->mutable_charge();
  c->set_unit(target.id);
  c->set_target(charger.id);
  c->set_counter_charge(true);
  target.charge_target = charger.id;
  target.charged_this_turn = true;
  target.charge_fell_short = false;
  target.charge_spent = false;
  target.counter_charging = true;
  target.moved = true;
  charger.chargers.push_back(target.id);
  Note("counter-charge " + target.id + " -> " + charger.id +
       " (both count as charging in the melee they meet in)");
}

// Makes the melee of `a` (the active clan's) and `e` a multi-unit melee
// with a second unit of the active clan, sometimes (last activation only).
bool Game::TryMultiMelee(Unit& a, Unit* e) {
  // The shared unit may have pursued last turn: its pursuing +2 is judged
  // pairing by pairing (reading 26 (d)), see MultiMelee.
  if (turn_ != turns_ || active_ == initiative_ || e == nullptr ||
      e->stands < 4 || !rng_.Chance(w_.multi))
    return false;
  std::vector<Unit*> partners;
  for (Unit* u : UnitsOf(active_))
    if (u != &a && !u->routing && !InMelee(*u) && u->charge_target.empty() &&
        !u->fired && u->chargers.empty() && !u->retired && !u->retreated &&
        !u->rally_tested)
      partners.push_back(u);
  if (partners.empty()) return false;
  MultiMelee(a, *rng_.Pick(partners), *e);
  return true;
}

void Game::EndCharge(Unit& charger) {
  // P5: being charged ends when the charger routs or leaves the table.
  for (auto& up : units_) {
    auto& v = up->chargers;
    if (std::find(v.begin(), v.end(), charger.id) != v.end() && !up->removed)
      Rely("P5");
    v.erase(std::remove(v.begin(), v.end(), charger.id), v.end());
  }
}

// ---- Firing ----
void Game::Fire(Unit& firer, Unit& target) {
  pb::Firing* f = Ev(firer.clan)->mutable_firing();
  f->set_unit(firer.id);
  f->set_target(target.id);
  pb::FiringFacts* facts = f->mutable_facts();
  const bool at_chargers =
      std::find(firer.chargers.begin(), firer.chargers.end(), target.id) !=
      firer.chargers.end();
  // P5: fire at chargers outside the charging clan's activation.
  if (at_chargers && target.clan != active_) Rely("P5");
  // Range.
  bool forced_long = false;
  if (at_chargers && rng_.Chance(0.4)) {
    facts->set_chargers_began_beyond_effective(true);
    if (rng_.Chance(0.3)) facts->set_firer_in_cover(true);
    forced_long = ForcedLongRange(true, facts->firer_in_cover(), firer.quality);
  }
  bool effective;
  const int mode = rng_.In(0, 9);
  if (mode < 4) {
    effective = !forced_long && rng_.Chance(0.5);
    facts->set_range(effective ? pb::RANGE_BAND_EFFECTIVE
                               : pb::RANGE_BAND_LONG);
  } else if (mode < 9) {
    static const std::vector<int> kEdges = {0, 1, 79, 80, 81, 120, 149, 150};
    const int d = rng_.Chance(0.6) ? rng_.Pick(kEdges) : rng_.In(0, 150);
    facts->set_distance_mm(d);
    if (rng_.Chance(0.3))  // a declared band that agrees with the measure
      facts->set_range(BandFromDistance(d, false) == Band::kEffective
                           ? pb::RANGE_BAND_EFFECTIVE
                           : pb::RANGE_BAND_LONG);
    effective = BandFromDistance(d, false) == Band::kEffective && !forced_long;
  } else {
    const int d = rng_.In(0, 30);
    facts->set_distance_mm(d);
    facts->set_woods_limit(true);
    effective = BandFromDistance(d, true) == Band::kEffective && !forced_long;
  }
  // Declared facts.
  const double p = w_.declared_fact;
  if (rng_.Chance(p)) facts->set_target_in_cover(true);
  if (rng_.Chance(p)) facts->set_target_in_building(true);
  if (rng_.Chance(p)) facts->set_target_in_column_or_flanked(true);
  if (rng_.Chance(p)) facts->set_firing_from_building(true);
  const bool charged = !firer.chargers.empty();
  if (charged ? rng_.Chance(0.3) : rng_.Chance(p / 2))
    facts->set_firer_being_charged(true);
  else if (!charged && rng_.Chance(p / 2))
    facts->set_firer_being_charged(false);
  FireInput in;
  in.first_volley = !firer.volley_spent;
  in.firer_disordered = firer.disordered;
  in.firer_raw = firer.quality == Quality::kRaw;
  in.firer_being_charged = charged || facts->firer_being_charged();
  in.firer_moved = firer.moved;
  in.weapon = firer.missile;
  in.target_armour = target.armour;
  in.target_mounted = target.mobility == Mobility::kMounted;
  in.effective = effective;
  in.target_column_or_flanked = target.formation == Formation::kColumn ||
                                facts->target_in_column_or_flanked();
  in.target_in_building =
      target.formation == Formation::kBuilding || facts->target_in_building();
  in.target_in_cover = facts->target_in_cover();
  const bool from_building =
      firer.formation == Formation::kBuilding || facts->firing_from_building();
  const int most = MaxFiringStands(firer.stands, firer.per_rank,
                                   firer.disordered, from_building);
  if (firer.formation == Formation::kBuilding &&
      !facts->firing_from_building() &&
      most < MaxFiringStands(firer.stands, firer.per_rank, firer.disordered,
                             false))
    Rely("P1");
  const int stands = rng_.Chance(0.7) ? most : rng_.In(1, most);
  f->set_stands_firing(stands);
  std::vector<int> dice;
  for (int i = 0; i < 2 * stands; ++i) dice.push_back(rng_.Die());
  for (int d : dice) f->add_dice(d);
  const std::vector<Term> terms = FiringFactors(in);
  const int hits = CountHits(dice, SumTerms(terms));
  const StandLoss loss = ApplyHits(target.hits, hits, target.stands);
  f->set_claimed_hits(hits);
  f->set_claimed_stands_lost(loss.lost);
  Note("fire " + firer.id + " (" + std::to_string(stands) + " of max " +
       std::to_string(most) + ") at " + target.id + ": " + TermsText(terms) +
       "; dice " + DiceText(dice) + " -> " + std::to_string(hits) +
       " hits; carried " + std::to_string(target.hits) + " -> " +
       std::to_string(loss.lost) + " lost, " + std::to_string(loss.carried) +
       " carried");
  firer.fired = true;
  firer.volley_spent = true;  // N: spent even when disordered
  if (hits > 0) target.hit_by_fire = true;
  target.hits = loss.carried;
  LoseStands(target, loss.lost, firer.clan);
}

// Applies `lost` stands to `u`: the reason-1 test owed, and leader-loss
// rolls (P2: one per stand lost, each counting the stands left after the
// event; none after the leader dies).
void Game::LoseStands(Unit& u, int lost, const std::string& clan_of_event) {
  if (lost <= 0) return;
  u.stands -= lost;
  u.lost_in_game += lost;
  u.owed.insert(1);
  const std::vector<Leader*> leaders = LiveLeadersOf(u);
  if (lost >= 2 && !leaders.empty()) Rely("P2");
  if (u.stands == 0) {
    if (InMelee(u)) Rely("E4");
    u.removed = true;  // R 4: removed at once
    EndCharge(u);
    BreakContact(u);
  }
  for (Leader* l : leaders) {
    for (int i = 0; i < lost && l->alive; ++i) {
      const int die = rng_.Die();
      const bool killed =
          LeaderKilled(die, u.stands, u.troop == Troop::kHeadquarters);
      pb::LeaderLossRoll* r = Ev(l->clan)->mutable_leader_loss();
      r->set_leader(l->id);
      r->set_die(die);
      r->set_claimed_killed(killed);
      Note("leader " + l->id + ": " + std::to_string(die) + " + " +
           std::to_string(u.troop == Troop::kHeadquarters ? 1 : u.stands) +
           (killed ? " killed" : " survives"));
      if (!killed) continue;
      l->alive = false;
      // Mo reason 5: own General or Daimyo killed; for his unit and his
      // clan's units declared near.
      if (!u.removed) {
        u.owed.insert(5);
        u.own_leader_killed = true;
      }
      std::vector<Unit*> candidates, near;
      for (Unit* f : Friends(u))
        if (!f->tested_eot) candidates.push_back(f);
      if (rng_.Chance(w_.near_lists))
        RandomSubset(candidates, 0.5, r->mutable_units_near(), &near);
      for (Unit* f : near) f->owed.insert(5);
    }
  }
  (void)clan_of_event;
}

// ---- Morale ----
MoraleOutcome Game::MoraleTestFor(Unit& u, int reason, pb::MoraleTest* t) {
  t->set_unit(u.id);
  t->set_reason(reason);
  auto [d1, d2] = MoraleDice();
  t->add_dice(d1);
  t->add_dice(d2);
  pb::MoraleFacts* facts = t->mutable_facts();
  MoraleInput in;
  in.reason = reason;
  in.troop = u.troop;
  in.mobility = u.mobility;
  in.quality = u.quality;
  in.routing = u.routing;
  in.disordered = u.disordered;
  in.stands_lost = u.lost_in_game;
  in.pursued_this_turn = u.pursued;
  in.hit_by_fire_this_turn = u.hit_by_fire;
  const double p = w_.declared_fact;
  bool general_attached = false;
  for (Leader* l : LiveLeadersOf(u)) {
    if (u.routing) break;  // Mo: a routing leader gives no bonus
    in.best_command_rating = std::max(in.best_command_rating, l->rating);
    if (l->kind == LeaderKind::kGeneral) general_attached = true;
  }
  if (rng_.Chance(p)) facts->set_uphill_or_in_cover(true);
  if (rng_.Chance(p)) facts->set_general_near(true);
  if (rng_.Chance(p)) facts->set_out_of_command(true);
  if (rng_.Chance(p)) facts->set_enemy_facing_flank_or_rear_near(true);
  if (rng_.Chance(p)) facts->set_leader_killed_near(true);
  in.uphill_or_in_cover = facts->uphill_or_in_cover();
  in.general_near = facts->general_near() || general_attached;
  in.out_of_command = facts->out_of_command();
  in.enemy_flank_or_rear_near = facts->enemy_facing_flank_or_rear_near();
  // P4: the -2 is automatic when the unit's own leader was killed this turn.
  if (u.own_leader_killed && !facts->leader_killed_near() && rng_.Chance(0.5))
    facts->set_leader_killed_near(true);
  if (u.own_leader_killed && !facts->leader_killed_near()) Rely("P4");
  in.leader_killed_near = facts->leader_killed_near() || u.own_leader_killed;
  // Charged by cavalry, this turn (by a charge still on).
  bool by_cavalry = false;
  for (const std::string& id : u.chargers) {
    Unit* c = FindUnit(id);
    if (c && c->mobility == Mobility::kMounted) by_cavalry = true;
  }
  in.infantry_charged_by_cavalry = u.mobility == Mobility::kFoot && by_cavalry;
  // R reading 21: the +1 is for foot fighting with a long spear; missile
  // Ashigaru and headquarters fight with improvised weapons whatever their
  // order of battle names. The fact may still be declared.
  const bool fights_long_spear =
      EffectiveMeleeWeapon(u.troop, u.missile, u.weapon) ==
      MeleeWeapon::kLongSpear;
  if (by_cavalry && u.mobility == Mobility::kFoot &&
      u.weapon == MeleeWeapon::kLongSpear && rng_.Chance(0.7)) {
    facts->set_charged_frontally(true);
    in.long_spear_charged_frontally_by_cavalry =
        !u.disordered && fights_long_spear;
  }
  // Routers near, declared by id: enemies (+1 if any) and friends (-1 each
  // of equal or higher quality).
  for (auto& up : units_) {
    Unit& o = *up;
    if (o.removed || !o.routing || &o == &u || !rng_.Chance(0.6)) continue;
    if (o.clan != u.clan) {
      facts->add_enemies_routing_near(o.id);
      in.enemy_routing_near = true;
    } else {
      facts->add_friends_routing_near(o.id);
      if (static_cast<int>(o.quality) <= static_cast<int>(u.quality))
        ++in.friends_routing_equal_or_higher;
    }
  }
  const MoraleOutcome out = MoraleTest(in, d1, d2);
  t->set_claimed_total(out.total);
  t->set_claimed_result(ToPb(out.result));
  if (reason == 8 && u.hit_by_fire && out.passed) Rely("P3");
  Note("morale " + u.id + " reason " + std::to_string(reason) + " (pass " +
       std::to_string(PassScore(u.quality)) + "): " + TermsText(out.terms) +
       "; " + std::to_string(d1) + "+" + std::to_string(d2) + " = " +
       std::to_string(out.total) + " -> " + MoraleResultName(out.result));
  ApplyMoraleResult(u, reason, out);
  return out;
}

void Game::ApplyMoraleResult(Unit& u, int reason, const MoraleOutcome& out) {
  if (out.frenzy) u.frenzied = true;
  // R reading 20 (router_retire_owes NOTHING_MORE): a router whose test gives
  // Retire or Retreat owes nothing more (no move, no halt).
  if (u.routing && (out.result == MoraleResult::kRetire ||
                    out.result == MoraleResult::kRetreat))
    return;
  const bool charger = reason == 4;
  switch (out.result) {
    case MoraleResult::kHalt:
      u.halted_through = turn_ + 1;
      if (charger) {
        u.charge_target.clear();
        EndCharge(u);
      }
      break;
    case MoraleResult::kRetire:
      if (charger) {
        u.charge_target.clear();
        EndCharge(u);
      }
      ResultMove(u, pb::RESULT_MOVE_KIND_RETIRE);
      BreakContact(u);
      u.retired = true;
      u.halted_through = turn_ + 1;
      break;
    case MoraleResult::kRetreat:
      ResultMove(u, pb::RESULT_MOVE_KIND_RETREAT);
      BreakContact(u);
      u.retreated = true;
      u.disordered = true;
      u.halted_through = turn_ + 1;
      break;
    case MoraleResult::kRout:
      if (charger || !u.charge_target.empty()) {
        u.charge_target.clear();
      }
      // R 29: a router that fails again owes no second move.
      if (!u.routing) RoutMove(u);
      break;
    case MoraleResult::kRally:
      u.routing = false;
      u.rallied_once = true;
      break;
    case MoraleResult::kDispersed:
      u.removed = true;
      EndCharge(u);
      break;
    default:
      break;
  }
}

// The unit routs: its rout move, friends near owing 6 (5 when a general or
// daimyo routs with it), interpenetrated friends owing 7 and disordered.
void Game::RoutMove(Unit& u) {
  const bool again = u.rallied_once || u.routing;
  if (u.rallied_once) u.remove_at_turn_end = true;  // R 16: a second rout
  (void)again;
  u.routing = true;
  u.routed_this_turn = true;
  u.disordered = true;
  u.frenzied = false;
  EndCharge(u);
  BreakContact(u);
  pb::ResultMove* m = Ev(u.clan)->mutable_result_move();
  m->set_unit(u.id);
  m->set_kind(pb::RESULT_MOVE_KIND_ROUT);
  m->add_dice(rng_.Die());
  m->add_dice(rng_.Die());
  bool with_leader = false;
  for (Leader* l : LiveLeadersOf(u)) {
    (void)l;
    with_leader = true;
  }
  if (!rng_.Chance(w_.near_lists)) return;
  std::vector<Unit*> candidates;
  for (Unit* f : Friends(u))
    if (!f->routing && !f->tested_eot && !f->remove_at_turn_end)
      candidates.push_back(f);
  std::vector<Unit*> near, through;
  RandomSubset(candidates, 0.5, m->mutable_friends_near(), &near);
  if (rng_.Chance(0.4))
    RandomSubset(candidates, 0.3, m->mutable_interpenetrated(), &through);
  for (Unit* f : near) {
    if (with_leader) {
      f->owed.insert(5);
      continue;
    }
    // Mo reason 6: cavalry and Samurai heed only cavalry and Samurai.
    const bool picky =
        f->mobility == Mobility::kMounted || f->troop == Troop::kSamurai;
    const bool heeded =
        u.mobility == Mobility::kMounted || u.troop == Troop::kSamurai;
    if (!picky || heeded) f->owed.insert(6);
  }
  for (Unit* f : through) {
    f->owed.insert(7);
    f->disordered = true;  // M: the interpenetrated unit is disordered
  }
}

void Game::ResultMove(Unit& u, pb::ResultMoveKind kind) {
  pb::ResultMove* m = Ev(u.clan)->mutable_result_move();
  m->set_unit(u.id);
  m->set_kind(kind);
  m->set_distance_mm(rng_.In(20, 120));
}

void Game::Remove(Unit& u, const std::string& why) {
  pb::Removal* r = Ev(u.clan)->mutable_removal();
  r->set_unit(u.id);
  r->set_reason(why);
  u.removed = true;
  u.remove_at_turn_end = false;
  EndCharge(u);
}

void Game::RallyTest(Unit& u) {
  u.rally_tested = true;
  u.frenzied = false;  // Mo: frenzy lasts until the optional rally test
  MoraleTestFor(u, 8, Ev(u.clan)->mutable_morale_test());
}

void Game::EndOfTurn() {
  end_of_turn_ = true;
  active_.clear();
  for (auto& up : units_)
    if (!up->removed && up->remove_at_turn_end) Remove(*up, "destroyed");
  // Mo: tests for 1, 5, 6, 7 after the last activation, one per unit for the
  // highest reason; a rout may owe more tests, so loop until none.
  for (bool again = true; again;) {
    again = false;
    for (auto& up : units_) {
      Unit& u = *up;
      if (u.removed || u.owed.empty() || u.tested_eot) continue;
      if (u.frenzied) {
        u.owed.clear();
        continue;
      }  // Mo: frenzied never test
      const int reason = *u.owed.rbegin();
      u.tested_eot = true;
      u.owed.clear();
      MoraleTestFor(u, reason, Ev(u.clan)->mutable_morale_test());
      again = true;
    }
  }
  for (auto& up : units_)
    if (!up->removed && up->remove_at_turn_end) Remove(*up, "destroyed");
}

// ---- Melee ----
void Game::StartMelee(Unit& a, Unit& b) {
  Contact c;
  c.a = a.id;
  c.b = b.id;
  contacts_.push_back(c);
  FightContact(contacts_.back());
}

// The leader who may fight a duel for `u`: its daimyo, else its general
// (Ch: "their respective daimyo's (or General) attached"); null when none.
Leader* Game::DuellingLeaderOf(const Unit& u) {
  Leader* general = nullptr;
  for (Leader* l : LiveLeadersOf(u)) {
    if (l->kind == LeaderKind::kDaimyo) return l;
    if (l->kind == LeaderKind::kGeneral && general == nullptr) general = l;
  }
  return general;
}

// Ch (seed text, "Challenges"): two units engaged in melee, each with its
// daimyo or general attached; before the round the leader of the clan
// holding the initiative may challenge. Refused: the refuser's rating drops
// by 1 (not below 1), nothing more. Accepted: each rolls 1d6 + rating,
// ties re-rolled; the higher wins and adds 1 to his rating (not above 4);
// the loser is killed and his unit tests morale at the end of the turn
// (reason 5, and the -2 for its own leader killed this turn), as do the
// units declared near him.
void Game::MaybeChallenge(Unit& a, Unit& b) {
  Leader* la = DuellingLeaderOf(a);
  Leader* lb = DuellingLeaderOf(b);
  if (la == nullptr || lb == nullptr || !rng_.Chance(w_.challenge)) return;
  Leader* challenger = la->clan == initiative_ ? la : lb;
  Leader* challenged = challenger == la ? lb : la;
  Unit& challenged_unit = challenger == la ? b : a;
  Unit& challenger_unit = challenger == la ? a : b;
  pb::Challenge* c = Ev(challenger->clan)->mutable_challenge();
  c->set_challenger(challenger->id);
  c->set_challenged(challenged->id);
  const bool accepted = rng_.Chance(0.7);
  c->set_accepted(accepted);
  if (!accepted) {
    challenged->rating = std::max(1, challenged->rating - 1);
    Note("challenge by " + challenger->id + " refused: " + challenged->id +
         " rating now " + std::to_string(challenged->rating));
    return;
  }
  int da = 0, db = 0;
  do {
    da = rng_.Die();
    db = rng_.Die();
    c->add_dice(da);
    c->add_dice(db);
  } while (da + challenger->rating == db + challenged->rating);
  const bool challenger_wins =
      da + challenger->rating > db + challenged->rating;
  Leader* winner = challenger_wins ? challenger : challenged;
  Leader* loser = challenger_wins ? challenged : challenger;
  Unit& loser_unit = challenger_wins ? challenged_unit : challenger_unit;
  Note("duel " + challenger->id + " " + std::to_string(da) + " + " +
       std::to_string(challenger->rating) + " against " + challenged->id + " " +
       std::to_string(db) + " + " + std::to_string(challenged->rating) + ": " +
       winner->id + " wins");
  c->set_claimed_winner(winner->id);
  winner->rating = std::min(4, winner->rating + 1);
  loser->alive = false;
  loser_unit.owed.insert(5);
  loser_unit.own_leader_killed = true;
  std::vector<Unit*> candidates, near;
  for (Unit* f : Friends(loser_unit))
    if (!f->tested_eot) candidates.push_back(f);
  if (rng_.Chance(w_.near_lists))
    RandomSubset(candidates, 0.5, c->mutable_units_near(), &near);
  for (Unit* f : near) f->owed.insert(5);
}

// The side inputs of one pairing's round, from the game state and random
// declared facts, into `p` (the round message stays local until written).
void Game::SetUpPairing(Contact& c, Unit* first, Unit* second, PairingPlay* p) {
  p->round = ++c.rounds;
  c.fought_turn = turn_;
  fought_pairs_.insert(std::minmax(first->id, second->id));
  pb::MeleeRound& r = p->msg;
  if (rng_.Chance(0.5)) r.set_round(p->round);
  p->us[0] = first;
  p->us[1] = second;
  p->side[0] = r.add_sides();
  p->side[1] = r.add_sides();
  Unit** us = p->us;
  MeleeSideInput* in = p->in;
  pb::MeleeSide** side = p->side;
  const int round = p->round;
  // Which side (if any) is in a building, and how the log says so.
  // R reading 23: a building formation occupies the building; both sides
  // may (each then gives the other -2). Else sometimes declared.
  bool building[2] = {first->formation == Formation::kBuilding,
                      second->formation == Formation::kBuilding};
  if (!building[0] && !building[1] && rng_.Chance(w_.declared_fact / 2))
    building[rng_.In(0, 1)] = true;
  for (int i = 0; i < 2; ++i) {
    Unit& u = *us[i];
    Unit& e = *us[1 - i];
    MeleeSideInput& s = in[i];
    s.troop = u.troop;
    s.mobility = u.mobility;
    s.quality = u.quality;
    s.armour = u.armour;
    s.weapon = EffectiveMeleeWeapon(u.troop, u.missile, u.weapon);
    s.disordered = u.disordered;
    for (Leader* l : LiveLeadersOf(u)) {
      if (l->kind == LeaderKind::kGeneral)
        s.general_attached = true;
      else
        s.daimyo_attached = true;
    }
    s.frenzied = u.frenzied;
    s.stands = u.stands;
    s.stands_per_rank = u.per_rank;
    s.charged_into_contact = u.charge_target == e.id && !u.charge_fell_short &&
                             !u.charge_spent && c.new_this_turn && round == 1;
    if (u.charge_target == e.id && u.charge_fell_short) Rely("P6");
    s.following_up = c.followed_up_by == u.id && c.follow_up_turn == turn_ - 1;
    // M: the pursuer that meets a fresh enemy fights it next turn at +2: a
    // new melee that no charge of this turn started.
    // Reading: result moves (pursuit, follow-up) are not "moved" for the
    // firing -1; the pursuit +2 needs a melee the pursuer did not charge
    // into, and no charge of its own this turn.
    // RULES.md (pursuing): a new melee that neither side charged into: an
    // enemy whose charge on this unit made the contact takes the +2 away.
    const bool enemy_charged_it =
        e.charge_target == u.id && !e.charge_fell_short;
    s.pursuing = u.pursuit_bonus_from_turn == turn_ && c.new_this_turn &&
                 u.charge_target.empty() && !enemy_charged_it;
    if (rng_.Chance(w_.declared_fact / 3)) {
      side[i]->set_pursuing(true);
      s.pursuing = true;
    }
    // R reading 19: a pursuer from a melee of more than one round whose
    // pursuit meets this fresh enemy fights it disordered.
    if (s.pursuing && u.pursued_from_long_melee) {
      u.disordered = true;
      s.disordered = true;
    }
    s.enemy_fighting_to_flank_or_rear = rng_.Chance(w_.declared_fact / 2);
    s.enemy_uphill_or_behind_obstacle = rng_.Chance(w_.declared_fact);
    s.in_building = building[i];
    s.front_in_contact = rng_.In(1, std::min(u.per_rank, u.stands));
    // Overlaps: front-rank stands beside the contact, one a flank.
    const int spare = std::min(u.per_rank, u.stands) - s.front_in_contact;
    s.overlaps = round >= 2 ? rng_.In(0, std::min(2, spare)) : 0;
  }
  for (int i = 0; i < 2; ++i) {
    if (!building[i]) continue;
    const bool by_formation = us[i]->formation == Formation::kBuilding;
    if (!by_formation || rng_.Chance(0.5)) {
      side[i]->set_in_building(true);
      side[1 - i]->set_enemy_in_building(true);
    }
  }
  for (int i = 0; i < 2; ++i)
    p->most[i] = MaxMeleeStands(in[i], in[1 - i], round);
}

// Rolls the pairing's dice (every stand that may fight) and claims its
// hits; writes the declared contact into the round.
void Game::RollPairing(PairingPlay* p) {
  for (int i = 0; i < 2; ++i) {
    pb::MeleeSide* ps = p->side[i];
    const MeleeSideInput& in = p->in[i];
    ps->set_unit(p->us[i]->id);
    ps->set_front_stands_in_contact(in.front_in_contact);
    if (in.overlaps) ps->set_overlap_stands(in.overlaps);
    if (in.enemy_fighting_to_flank_or_rear)
      ps->set_enemy_fighting_to_flank_or_rear(true);
    if (in.enemy_uphill_or_behind_obstacle)
      ps->set_enemy_uphill_or_behind_obstacle(true);
    ps->set_stands_fighting(p->most[i]);
    for (int k = 0; k < 2 * p->most[i]; ++k) p->dice[i].push_back(rng_.Die());
    for (int d : p->dice[i]) ps->add_dice(d);
    p->terms[i] = MeleeModifiers(in, p->in[1 - i], p->round);
    p->hits[i] = CountHits(p->dice[i], SumTerms(p->terms[i]));
    ps->set_claimed_hits(p->hits[i]);
  }
  p->verdict = JudgeMelee(p->hits[0], p->hits[1]);
  p->msg.set_claimed_outcome(p->verdict.outcome == MeleeOutcome::kDraw
                                 ? pb::MELEE_OUTCOME_DRAW
                             : p->verdict.outcome == MeleeOutcome::kFirstWins
                                 ? pb::MELEE_OUTCOME_FIRST_WINS
                                 : pb::MELEE_OUTCOME_SECOND_WINS);
}

// After the rounds of a turn's melee: the pursuit bonus is spent by
// fighting, and a charge by the round it made (reading 24).
void Game::SpendBonuses(const PairingPlay& p) {
  for (Unit* u : p.us) u->pursuit_bonus_from_turn = 0;
  for (int i = 0; i < 2; ++i) {
    if (p.in[i].charged_into_contact)
      p.us[i]->charged_contact_with = p.us[1 - i]->id;
    if (p.us[i]->charge_target == p.us[1 - i]->id) p.us[i]->charge_spent = true;
  }
}

// Writes the round with each side's stands lost, given the stands each
// side has left (`left`, updated) and the hits it carries (updated).
void Game::WriteRound(PairingPlay* p, std::map<std::string, int>* left) {
  for (int i = 0; i < 2; ++i) {
    Unit& u = *p->us[i];
    int& stands = (*left)[u.id];
    const int carried = u.hits;
    p->loss[i] = ApplyHits(carried, p->hits[1 - i], stands);
    p->side[i]->set_claimed_stands_lost(p->loss[i].lost);
    p->carried_before[i] = carried;
  }
  *Ev(active_)->mutable_melee_round() = p->msg;
  for (int i = 0; i < 2; ++i) {
    Unit& u = *p->us[i];
    Note("melee round " + std::to_string(p->round) +
         (p->msg.melee_id().empty() ? "" : " (" + p->msg.melee_id() + ")") +
         " " + u.id + " (" + std::to_string(p->most[i]) +
         " stands): " + TermsText(p->terms[i]) + "; dice " +
         DiceText(p->dice[i]) + " -> " + std::to_string(p->hits[i]) +
         " hits; takes " + std::to_string(p->hits[1 - i]) + " on " +
         std::to_string(p->carried_before[i]) + " carried -> " +
         std::to_string(p->loss[i].lost) + " lost");
  }
  for (int i = 0; i < 2; ++i) {
    p->us[i]->hits = p->loss[i].carried;
    (*left)[p->us[i]->id] -= p->loss[i].lost;
  }
}

void Game::FightContact(Contact& c) {
  Unit* first = FindUnit(c.a);
  Unit* second = FindUnit(c.b);
  if (!first || !second) {
    c.a.clear();
    return;
  }
  if (first->removed || second->removed) {
    c.a.clear();
    return;
  }
  if (first->clan != active_) std::swap(first, second);
  MaybeChallenge(*first, *second);
  PairingPlay p;
  SetUpPairing(c, first, second, &p);
  RollPairing(&p);
  SpendBonuses(p);
  std::map<std::string, int> left = {{first->id, first->stands},
                                     {second->id, second->stands}};
  WriteRound(&p, &left);
  Unit** us = p.us;
  const MeleeVerdict v = p.verdict;
  for (int i = 0; i < 2; ++i) LoseStands(*us[i], p.loss[i].lost, active_);
  if (c.a.empty()) {  // a side lost its last stand: no move is owed
    if (v.outcome != MeleeOutcome::kDraw) Rely("E4");
    return;
  }
  if (v.outcome == MeleeOutcome::kDraw) return;
  const int w = v.outcome == MeleeOutcome::kFirstWins ? 0 : 1;
  Unit& winner = *us[w];
  Unit& loser = *us[1 - w];
  loser.frenzied = false;  // Mo: frenzy ends on a push back or worse
  if (v.loser_routs) {
    const bool flanked = p.in[1 - w].enemy_fighting_to_flank_or_rear;
    const bool second_rout = loser.rallied_once;
    RoutMove(loser);
    if (flanked) loser.remove_at_turn_end = true;  // M: destroyed
    // R (E1): a loser the outcome destroyed leaves its winner free to
    // pursue or halt.
    WinnerMove(winner, loser, /*pursue=*/true,
               /*may_halt=*/flanked && rng_.Chance(0.3), c.rounds);
    c.a.clear();
    if (loser.remove_at_turn_end && !second_rout)
      Remove(loser, "destroyed in melee");
    return;
  }
  const int block = PushBack(loser);
  if (block == 1) {
    WinnerMove(winner, loser, /*pursue=*/false, /*may_halt=*/false, c.rounds);
    c.a.clear();
    Remove(loser, "pushed back into the enemy");
    return;
  }
  if (WinnerMove(winner, loser, /*pursue=*/false, /*may_halt=*/false,
                 c.rounds)) {
    c.followed_up_by = winner.id;
    c.follow_up_turn = turn_;
  } else {
    c.a.clear();
  }
}

// The loser's push back (3 cm): sometimes blocked by friends or impassable
// terrain (disordered) or by enemy troops or the table edge (destroyed: 1).
int Game::PushBack(Unit& loser) {
  loser.frenzied = false;  // Mo: frenzy ends on a push back or worse
  pb::ResultMove* pbm = Ev(loser.clan)->mutable_result_move();
  pbm->set_unit(loser.id);
  pbm->set_kind(pb::RESULT_MOVE_KIND_PUSH_BACK);
  pbm->set_distance_mm(30);
  const int block = rng_.In(0, 9);
  if (block == 0) {
    pbm->set_blocked(pb::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE);
    loser.disordered = true;
  } else if (block == 1) {
    pbm->set_blocked(pb::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE);
    loser.remove_at_turn_end = true;
    return 1;
  }
  return 0;
}

// The winner's follow-up or pursuit (pursue: the loser routs), or its halt
// when infantry beat cavalry that charged them into contact this turn, or
// when `may_halt` and it chooses to. Returns whether it followed up (and
// so stays in melee with a loser that still stands).
bool Game::WinnerMove(Unit& winner, Unit& loser, bool pursue, bool may_halt,
                      int rounds, bool may_keep_contact) {
  // M: infantry do not follow up or pursue cavalry that charged into
  // contact with them this turn.
  const bool must_halt = winner.mobility == Mobility::kFoot &&
                         loser.mobility == Mobility::kMounted &&
                         loser.charged_contact_with == winner.id;
  pb::ResultMove* m = Ev(winner.clan)->mutable_result_move();
  m->set_unit(winner.id);
  if (must_halt || may_halt) {
    m->set_kind(pb::RESULT_MOVE_KIND_HOLD);
    return false;
  }
  if (!pursue) {
    m->set_kind(pb::RESULT_MOVE_KIND_FOLLOW_UP);
    return true;
  }
  m->set_kind(pb::RESULT_MOVE_KIND_PURSUIT);
  m->add_dice(rng_.Die());
  m->add_dice(rng_.Die());
  winner.pursued = true;
  winner.pursuit_bonus_from_turn = turn_ + 1;
  // R reading 19: not disordered now; only when the pursuit meets a fresh
  // enemy (SetUpPairing).
  winner.pursued_from_long_melee = rounds > 1;
  if (may_keep_contact && rng_.Chance(0.15)) {
    m->set_contact_after_pursuit(true);
    loser.remove_at_turn_end = true;
  }
  return false;
}

// ---- Multi-unit melee (seed 000, "Multiple Unit Melee") ----
// Two units of the active clan, `a` and `b`, fight one enemy `e`: two
// pairings sharing a melee_id, fought together. The shared unit's stands
// are split between the pairings by its front contact with each enemy
// (each stand fights one resolution); the pairings' hits are as in any
// round, each applied in turn to the shared unit's hits and stands.
// Generated only in the last activation of the game, so that nothing
// after it (but the end-of-turn tests) depends on who is still in contact.
void Game::MultiMelee(Unit& a, Unit& b, Unit& e) {
  const std::string melee_id =
      "melee-" + std::to_string(turn_) + "-" + std::to_string(++melee_ids_);
  Note("multi-unit melee " + melee_id + ": " + a.id + " and " + b.id +
       " against " + e.id);
  for (Unit* u : {&a, &b}) {
    Contact c;
    c.a = u->id;
    c.b = e.id;
    contacts_.push_back(c);
  }
  const std::vector<Contact*> group = {&contacts_[contacts_.size() - 2],
                                       &contacts_.back()};
  std::vector<PairingPlay> plays(2);
  const bool e_disordered_before = e.disordered;
  for (int k = 0; k < 2; ++k) {
    SetUpPairing(*group[k], k == 0 ? &a : &b, &e, &plays[k]);
    plays[k].msg.set_melee_id(melee_id);
    // The second enemy often comes at the shared unit's flank or rear.
    if (k == 1 && rng_.Chance(0.4))
      plays[k].in[1].enemy_fighting_to_flank_or_rear = true;
    plays[k].most[1] =
        MaxMeleeStands(plays[k].in[1], plays[k].in[0], plays[k].round);
  }
  DisorderSharedPursuer(&plays, e, e_disordered_before);
  FitSharedStands(&plays, e);
  for (PairingPlay& p : plays) RollPairing(&p);
  for (const PairingPlay& p : plays) SpendBonuses(p);
  // R reading 4: a unit whose last stand goes is removed at once, and takes
  // no part in a later pairing of the melee (that pairing is not fought).
  std::map<std::string, int> left = {
      {a.id, a.stands}, {b.id, b.stands}, {e.id, e.stands}};
  std::vector<PairingPlay*> fought;
  for (PairingPlay& p : plays) {
    if (left[e.id] == 0) {
      Note("pairing " + p.us[0]->id + " - " + e.id +
           " not fought: its enemy has no stand left");
      break;
    }
    WriteRound(&p, &left);
    fought.push_back(&p);
  }
  for (Contact* c : group) c->a.clear();  // settled below; none carries on
  // Stand loss and leader rolls, pairing by pairing (reading 3: each roll
  // counts the stands left after its pairing).
  for (PairingPlay* p : fought)
    for (int i = 0; i < 2; ++i) LoseStands(*p->us[i], p->loss[i].lost, active_);
  SettleMultiMelee(fought);
}

// R reading 26 (d): the pairings are fought at once, so a bonus the shared
// unit brings into the melee counts in each pairing that qualifies for it
// (SetUpPairing judges the pursuing +2 pairing by pairing, and the bonus is
// spent only after every pairing's round). R reading 26 (e): the disorder of
// reading 19 goes with that +2 ("will get the +2 ... but will also be
// disordered"): a pursuer from a melee of more than one round is disordered
// in the pairings its pursuit met, and fights a pairing whose enemy charged
// it (no +2 there) in the order it brought into the melee, whatever order
// the pairings are set up or logged in; after the melee it is disordered.
// SetUpPairing disorders the unit itself when its pursuit meets an enemy, so
// a pairing set up after that one takes the disorder along: it is undone
// here from `disordered_before`, the unit's order when the melee began.
void Game::DisorderSharedPursuer(std::vector<PairingPlay>* plays, const Unit& e,
                                 bool disordered_before) {
  for (PairingPlay& p : *plays) {
    const bool met_by_pursuit = p.in[1].pursuing && e.pursued_from_long_melee;
    const bool disordered = disordered_before || met_by_pursuit;
    if (p.in[1].disordered == disordered) continue;
    p.in[1].disordered = disordered;
    Note(e.id + (disordered ? " disordered" : " in good order") +
         " in its pairing with " + p.us[0]->id +
         (disordered ? ": its pursuit met this enemy (reading 19)"
                     : ": its pursuit did not meet this enemy (reading 26 e)"));
    for (int i = 0; i < 2; ++i)
      p.most[i] = MaxMeleeStands(p.in[i], p.in[1 - i], p.round);
  }
}

// Reduces the shared unit's front contact in its pairings until the stands
// that may fight in them add up to no more than it has.
void Game::FitSharedStands(std::vector<PairingPlay>* plays, const Unit& e) {
  for (;;) {
    int sum = 0;
    PairingPlay* widest = nullptr;
    for (PairingPlay& p : *plays) {
      sum += p.most[1];
      if (p.in[1].front_in_contact > 1 &&
          (!widest ||
           p.in[1].front_in_contact > widest->in[1].front_in_contact))
        widest = &p;
    }
    if (sum <= e.stands || widest == nullptr) return;
    --widest->in[1].front_in_contact;
    widest->most[1] =
        MaxMeleeStands(widest->in[1], widest->in[0], widest->round);
  }
}

// How one unit fared over a multi-unit melee's pairings (M: "the single
// unit always suffers the worst melee outcome").
struct MeleeStanding {
  int worst = 0;  // 0 won, 1 drew, 2 pushed back, 3 routed
  int losses = 0;
  bool lost_to_flank = false;  // beaten by an enemy at its flank or rear
  bool flanked = false;        // any enemy of the melee at its flank or rear
  std::vector<Unit*> beaten;   // the enemies it beat
};

void Game::SettleMultiMelee(const std::vector<PairingPlay*>& fought) {
  std::map<std::string, MeleeStanding> st;
  std::vector<Unit*> order;  // units in order of first appearance
  for (PairingPlay* p : fought) {
    for (int i = 0; i < 2; ++i) {
      if (!st.count(p->us[i]->id)) order.push_back(p->us[i]);
      MeleeStanding& s = st[p->us[i]->id];
      if (p->in[i].enemy_fighting_to_flank_or_rear) s.flanked = true;
    }
    if (p->verdict.outcome == MeleeOutcome::kDraw) {
      for (Unit* u : p->us) st[u->id].worst = std::max(st[u->id].worst, 1);
      continue;
    }
    const int w = p->verdict.outcome == MeleeOutcome::kFirstWins ? 0 : 1;
    MeleeStanding& loser = st[p->us[1 - w]->id];
    loser.worst = std::max(loser.worst, p->verdict.loser_routs ? 3 : 2);
    ++loser.losses;
    if (p->in[1 - w].enemy_fighting_to_flank_or_rear)
      loser.lost_to_flank = true;
    st[p->us[w]->id].beaten.push_back(p->us[1 - w]);
  }
  // Losers move first: one move each, for its worst outcome.
  std::set<std::string> second_rout;  // R 16: removed at the turn's end
  std::set<std::string> destroyed;    // by the outcome (flank, two ways)
  for (Unit* u : order) {
    MeleeStanding& s = st[u->id];
    if (u->removed || s.worst < 2) continue;
    if (s.worst == 3) {
      if (u->rallied_once) second_rout.insert(u->id);
      RoutMove(*u);
      // M: routed while contacted on flank or rear: destroyed.
      if (s.flanked) {
        u->remove_at_turn_end = true;
        destroyed.insert(u->id);
        Note(u->id +
             " routs while an enemy is at its flank or rear: destroyed");
      }
    } else {
      PushBack(*u);
      // RULES.md: pushed back from two directions at once (beaten in two
      // pairings, one of them at its flank or rear): destroyed.
      if (s.losses >= 2 && s.lost_to_flank) {
        u->remove_at_turn_end = true;
        destroyed.insert(u->id);
        Note(u->id + " pushed back from two directions: destroyed");
      }
    }
  }
  // Winners: only a unit that won everywhere follows up or pursues; one that
  // drew elsewhere may not (M); of several winners over one loser, one
  // follows and the others halt (RULES.md).
  std::set<std::string> followed;  // losers someone followed
  for (Unit* u : order) {
    MeleeStanding& s = st[u->id];
    if (u->removed || s.beaten.empty()) continue;
    if (s.worst == 1) {
      if (rng_.Chance(0.5)) ResultMove(*u, pb::RESULT_MOVE_KIND_HOLD);
      continue;
    }
    if (s.worst != 0) continue;  // it moved as a loser
    std::vector<Unit*> targets;
    for (Unit* l : s.beaten)
      if (!l->removed) targets.push_back(l);
    if (targets.empty()) continue;  // R (E1): a loser gone owes it nothing
    Unit& loser = *rng_.Pick(targets);
    const bool pursue = st[loser.id].worst == 3;
    // R (reading 26): one that beat several cannot keep contact with them
    // all: it follows up or pursues one of them (as that one's result
    // owes), or halts, at its choice.
    const bool several = s.beaten.size() > 1;
    const bool taken = followed.count(loser.id) > 0;
    if (several) Note(u->id + " beat several: follows one or halts");
    // Not modelled: a pursuer of one of several that keeps contact (the
    // result move does not name the router it pursued).
    WinnerMove(*u, loser, pursue,
               /*may_halt=*/taken || (several && rng_.Chance(0.3)) ||
                   (destroyed.count(loser.id) && rng_.Chance(0.3)),
               1,
               /*may_keep_contact=*/!several);
    followed.insert(loser.id);
  }
  for (Unit* u : order)
    if (!u->removed && u->remove_at_turn_end && st[u->id].worst >= 2 &&
        !second_rout.count(u->id))
      Remove(*u, "destroyed in melee");
}

}  // namespace

const std::vector<std::string>& SituationKinds() {
  static const std::vector<std::string> kKinds = {"fire", "morale", "melee",
                                                  "multi"};
  return kKinds;
}

const std::vector<std::string>& AllSituationKinds() {
  static const std::vector<std::string> kKinds = {"fire", "morale", "melee",
                                                  "multi", "table"};
  return kKinds;
}

Situation MakeSituation(const std::string& kind, std::uint64_t seed) {
  if (kind == "table") return MakeTableSituation(seed);
  Game g(kind, seed);
  return g.Play();
}

std::string SituationText(const Situation& s) {
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(false);
  printer.PrintToString(s.log, &text);
  std::string head =
      "# proto-file: gunbai/v1/battle_log.proto\n"
      "# proto-message: gunbai.v1.BattleLog\n#\n"
      "# reference_check situation: kind " +
      s.kind + ", seed " + std::to_string(s.seed) + "\n";
  if (!s.pending_tags.empty()) {
    head += "# pending readings relied on:";
    for (const auto& [t, seq] : s.pending_tags)
      head += " " + t + " (from seq " + std::to_string(seq) + ")";
    head += "\n";
  }
  if (!s.expected_findings.empty()) {
    head += "# findings the model expects:";
    for (const auto& [id, seq] : s.expected_findings)
      head += " " + id + " (seq " + std::to_string(seq) + ")";
    head += "\n";
  }
  head += "# model workings:\n";
  for (const std::string& w : s.workings) head += "#   " + w + "\n";
  return head + text;
}

}  // namespace gunbai::reference
