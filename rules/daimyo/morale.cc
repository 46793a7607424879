#include "rules/daimyo/morale.h"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/daimyo/melee.h"

namespace gunbai::rules::daimyo {

namespace {

constexpr int kDicePerTest = 2;
constexpr int kFirstReason = 1;
constexpr int kLastReason = 8;
constexpr int kRallyReason = 8;

absl::string_view ColumnName(MoraleColumn column) {
  switch (column) {
    case MoraleColumn::kStandLoss:
      return "column 1 (stand loss)";
    case MoraleColumn::kBeingCharged:
      return "column 2 and 3 (being charged)";
    case MoraleColumn::kInitiateCharge:
      return "column 4 (initiate charge)";
    case MoraleColumn::kCriticalEvent:
      return "column 5, 6 and 7 (critical event)";
    case MoraleColumn::kRally:
      return "column 8 (rally from rout)";
  }
  return "?";
}

std::string LeaderLabel(const LeaderState& leader) {
  if (leader.name.empty()) return leader.id;
  return absl::StrCat(leader.name, " (", leader.id, ")");
}

// Returns the live leader attached to `unit` with the highest command
// rating (the first of equals), or -1.
int BestAttachedLeader(const BattleState& state, int unit) {
  int best = -1;
  for (std::size_t i = 0; i < state.leaders.size(); ++i) {
    const LeaderState& l = state.leaders[i];
    if (l.killed || l.attached_unit != unit) continue;
    if (best < 0 || l.command_rating > state.leaders[best].command_rating) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

// Returns true if a mounted unit still on the table declared a charge on
// `target` this turn.
bool ChargedByCavalry(const BattleState& state, int target) {
  if (!state.IsBeingCharged(target)) return false;
  for (std::size_t i = 0; i < state.units.size(); ++i) {
    const int charger = static_cast<int>(i);
    if (state.IsChargedBy(target, charger) && !state.units[i].removed &&
        state.profiles[i].mobility == Mobility::kMounted) {
      return true;
    }
  }
  return false;
}

// Sums the modifiers that apply and, given a trace, records each as a term.
class ModifierTally {
 public:
  ModifierTally(const MoraleRules& morale, Trace* trace)
      : morale_(morale), trace_(trace) {}

  // Adds `m` counted `times`; `detail()` (called only for a trace) is
  // appended to the modifier's label.
  template <typename Detail>
  void Add(MoraleModifier m, int times, Origin origin, Detail detail) {
    const int value = morale_.modifier(m) * times;
    sum_ += value;
    if (trace_ != nullptr) {
      trace_->push_back(
          Term{value, absl::StrCat(MoraleModifierLabel(m), detail()),
               MoraleModifierRuleId(m), origin,
               origin == Origin::kMeasured ? MoraleModifierMeasuredBy(m)
                                           : absl::string_view()});
    }
  }
  void Add(MoraleModifier m, Origin origin) {
    Add(m, 1, origin, [] { return std::string(); });
  }
  // Records a term of no value that explains why a modifier does not apply.
  void Note(absl::string_view rule_id, std::string label) {
    if (trace_ != nullptr) {
      trace_->push_back(Term{0, std::move(label), rule_id, Origin::kComputed});
    }
  }
  int sum() const { return sum_; }

 private:
  const MoraleRules& morale_;
  Trace* trace_;
  int sum_ = 0;
};

// The attached leader's command rating. "A leader suffers the result of any
// unit he is with. A routing leader does not provide any morale bonuses":
// the leader of a routing unit routs with it and adds nothing.
void AddCommandRating(const BattleState& state, const MoraleTestInput& test,
                      ModifierTally& tally) {
  const int leader = BestAttachedLeader(state, test.unit);
  if (leader < 0) return;
  const LeaderState& l = state.leaders[leader];
  if (state.units[test.unit].routing) {
    tally.Note("daimyo.morale.routing_leader",
               absl::StrCat(LeaderLabel(l),
                            " routs with the unit: a routing leader gives no "
                            "morale bonus"));
    return;
  }
  tally.Add(MoraleModifier::kCommandRating, l.command_rating, Origin::kComputed,
            [&l] {
              return absl::StrFormat(" (%s, rating %d)", LeaderLabel(l),
                                     l.command_rating);
            });
}

// "+1 General within 15cm": as declared, else a live General attached to a
// unit that is not routing (an attached routing General gives no bonus).
void AddGeneralNear(const BattleState& state, const MoraleTestInput& test,
                    ModifierTally& tally) {
  if (test.facts.general_near) {
    tally.Add(MoraleModifier::kGeneralNear, test.facts.fact_origin());
    return;
  }
  const int general = state.AttachedLeader(test.unit, LeaderKind::kGeneral);
  if (general >= 0 && !state.units[test.unit].routing) {
    tally.Add(MoraleModifier::kGeneralNear, 1, Origin::kComputed,
              [&state, general] {
                return absl::StrCat(" (", LeaderLabel(state.leaders[general]),
                                    " attached)");
              });
  }
}

// "+1 Long Spear infantry in good order being charged frontally by
// cavalry": the charge comes from the state, "frontally" is declared, so the
// term counts as declared. The long spear is the one the unit fights with
// (missile Ashigaru fight with improvised weapons unless the option keeps
// their spear).
void AddLongSpearVsCavalry(const ReadingOptions& options,
                           const BattleState& state,
                           const MoraleTestInput& test,
                           bool infantry_charged_by_cavalry,
                           ModifierTally& tally) {
  const UnitProfile& p = state.profiles[test.unit];
  if (infantry_charged_by_cavalry &&
      FightingWeapon(options, p) == MeleeWeapon::kLongSpear &&
      !state.units[test.unit].disordered && test.facts.charged_frontally) {
    tally.Add(MoraleModifier::kLongSpearChargedFrontallyByCavalry,
              test.facts.fact_origin());
  }
}

// One term for each friendly router near of equal or higher quality (Elite
// best, Raw worst). Indexes off the unit list are ignored.
void AddFriendsRouting(const BattleState& state, const MoraleTestInput& test,
                       ModifierTally& tally) {
  const Quality own = state.profiles[test.unit].quality;
  for (const int router : test.facts.friends_routing_near) {
    if (router < 0 || router >= static_cast<int>(state.profiles.size())) {
      continue;
    }
    const Quality q = state.profiles[router].quality;
    if (static_cast<int>(q) > static_cast<int>(own)) continue;
    tally.Add(MoraleModifier::kEachFriendRoutingNear, 1,
              test.facts.fact_origin(), [&state, router, q] {
                return absl::StrCat(": ", UnitLabel(state, router), ", ",
                                    QualityName(q));
              });
  }
}

// "-2 Each stand lost from unit": since the start of the game, or this turn
// only under the option.
void AddStandsLost(const Tables& rules, const BattleState& state,
                   const MoraleTestInput& test, ModifierTally& tally) {
  const UnitStatus& s = state.units[test.unit];
  // Every stand lost this turn (or none at all): both readings count the
  // same stands, and say so alike ("this turn"), so the option is not
  // consulted (rules/reading_probe.h).
  const bool whole_game = s.stands_lost != s.stands_lost_this_turn &&
                          rules.options.stands_lost_count_whole_game();
  const int lost = whole_game ? s.stands_lost : s.stands_lost_this_turn;
  if (lost <= 0) return;
  tally.Add(MoraleModifier::kEachStandLost, lost, Origin::kComputed,
            [lost, whole_game] {
              return absl::StrFormat(
                  " x%d (%s)", lost,
                  whole_game ? "since the start of the game" : "this turn");
            });
}

// "-2 Leader killed this turn within 15cm": as declared, else computed when
// a leader attached to the unit (0 cm) was killed this turn.
void AddLeaderKilled(const BattleState& state, const MoraleTestInput& test,
                     ModifierTally& tally) {
  if (test.facts.leader_killed_near) {
    tally.Add(MoraleModifier::kLeaderKilledNear, test.facts.fact_origin());
    return;
  }
  for (const LeaderState& l : state.leaders) {
    if (!l.killed || l.attached_unit != test.unit ||
        l.killed_on_turn != state.turn) {
      continue;
    }
    tally.Add(MoraleModifier::kLeaderKilledNear, 1, Origin::kComputed, [&l] {
      return absl::StrCat(" (", LeaderLabel(l), ", attached, killed)");
    });
    return;
  }
}

// Adds the modifiers of the morale section that raise the total (command
// rating to Hatamoto), in the order of the section.
void AddMoraleBonuses(const Tables& rules, const BattleState& state,
                      const MoraleTestInput& test,
                      bool infantry_charged_by_cavalry, ModifierTally& tally) {
  const UnitProfile& p = state.profiles[test.unit];
  const UnitStatus& s = state.units[test.unit];
  const MoraleFacts& f = test.facts;
  AddCommandRating(state, test, tally);
  if (s.pursuing) tally.Add(MoraleModifier::kPursuing, Origin::kComputed);
  if (f.uphill_or_in_cover) {
    tally.Add(MoraleModifier::kUphillOrInCover, test.facts.fact_origin());
  }
  AddGeneralNear(state, test, tally);
  AddLongSpearVsCavalry(rules.options, state, test, infantry_charged_by_cavalry,
                        tally);
  if (f.enemies_routing_near > 0) {
    tally.Add(MoraleModifier::kEnemyRoutingNear, 1, test.facts.fact_origin(),
              [&f] {
                return absl::StrFormat(" (%d unit%s)", f.enemies_routing_near,
                                       f.enemies_routing_near == 1 ? "" : "s");
              });
  }
  if (p.troop_type == TroopType::kHatamoto) {
    tally.Add(MoraleModifier::kHatamoto, Origin::kComputed);
  }
}

// Adds the modifiers of the morale section that lower the total
// (disordered to routing), in the order of the section.
void AddMoralePenalties(const Tables& rules, const BattleState& state,
                        const MoraleTestInput& test,
                        bool infantry_charged_by_cavalry,
                        ModifierTally& tally) {
  const UnitStatus& s = state.units[test.unit];
  const MoraleFacts& f = test.facts;
  if (s.disordered) tally.Add(MoraleModifier::kDisordered, Origin::kComputed);
  if (f.out_of_command) {
    tally.Add(MoraleModifier::kOutOfCommand, test.facts.fact_origin());
  }
  if (infantry_charged_by_cavalry) {
    tally.Add(MoraleModifier::kInfantryChargedByCavalry, Origin::kComputed);
  }
  AddFriendsRouting(state, test, tally);
  AddStandsLost(rules, state, test, tally);
  if (f.enemy_facing_flank_or_rear_near) {
    tally.Add(MoraleModifier::kEnemyFacingFlankOrRearNear,
              test.facts.fact_origin());
  }
  AddLeaderKilled(state, test, tally);
  if (s.routing) tally.Add(MoraleModifier::kRouting, Origin::kComputed);
}

// Sums every modifier of the morale section that applies, in the order of
// the section.
int SumModifiers(const Tables& rules, const BattleState& state,
                 const MoraleTestInput& test, Trace* trace) {
  const bool infantry_charged_by_cavalry =
      state.profiles[test.unit].mobility == Mobility::kFoot &&
      ChargedByCavalry(state, test.unit);
  ModifierTally tally(rules.morale, trace);
  AddMoraleBonuses(rules, state, test, infantry_charged_by_cavalry, tally);
  AddMoralePenalties(rules, state, test, infantry_charged_by_cavalry, tally);
  return tally.sum();
}

// Returns true if an unmodified `roll` makes a unit of `type` frenzied:
// Samurai and Ronin from frenzy_samurai_ronin_from (12), Warrior Monks from
// frenzy_warrior_monk_from (11). Hatamoto are not Samurai here: the text
// names "a Samurai or Ronin unit" and Hatamoto are a troop type of their
// own.
bool FrenzyRoll(const MoraleRules& morale, TroopType type, int roll) {
  switch (type) {
    case TroopType::kSamurai:
    case TroopType::kRonin:
      return roll >= morale.frenzy_samurai_ronin_from;
    case TroopType::kWarriorMonk:
      return roll >= morale.frenzy_warrior_monk_from;
    default:
      return false;
  }
}

// Describes the verdict, e.g. "total 4 against 6+: fail by 2, column 1
// (stand loss): retire".
std::string ResultLabel(const MoraleResolution& r, MoraleColumn column,
                        TroopType type) {
  std::string verdict;
  if (r.automatic_fail) {
    verdict = absl::StrFormat("unmodified %d always fails", r.roll);
  } else if (r.frenzy) {
    verdict = absl::StrFormat("unmodified %d: %s become frenzied and pass",
                              r.roll, TroopTypeName(type));
  } else if (r.automatic_pass) {
    verdict = absl::StrFormat("unmodified %d always passes", r.roll);
  } else if (r.passed) {
    verdict = "pass";
  } else {
    verdict = absl::StrFormat("fail by %d%s", r.fail_by,
                              r.fail_by > 4 ? " (row 4+)" : "");
  }
  return absl::StrFormat("total %d against %d+: %s, %s: %s", r.total,
                         r.pass_score, verdict, ColumnName(column),
                         MoraleResultName(r.result));
}

// Sets the pass or fail, fail_by and result from the roll and total.
void Decide(const MoraleRules& morale, TroopType type, int reason,
            MoraleResolution& r) {
  const bool rally = reason == kRallyReason;
  r.automatic_fail = r.roll <= morale.automatic_fail;
  r.automatic_pass = !r.automatic_fail && r.roll >= morale.automatic_pass;
  // "Should a Samurai or Ronin unit roll an unmodified 12, the unit becomes
  // frenzied (unless testing to rally from rout)."
  r.frenzy = !r.automatic_fail && !rally && FrenzyRoll(morale, type, r.roll);
  if (r.automatic_fail) {
    // "An unmodified roll of 2 is an automatic fail and the unit will rout";
    // a rally test that fails disperses the unit. fail_by is the shortfall,
    // at least 1 since the test failed.
    r.passed = false;
    r.fail_by = std::max(1, r.pass_score - r.total);
    r.result = rally ? MoraleResult::kDispersed : MoraleResult::kRout;
    return;
  }
  if (r.frenzy) {
    r.passed = true;
    r.fail_by = 0;
    r.result = MoraleResult::kFrenzy;
    return;
  }
  r.passed = r.automatic_pass || r.total >= r.pass_score;
  r.fail_by = r.passed ? 0 : r.pass_score - r.total;
  r.result = morale.Result(r.fail_by, ColumnForReason(reason));
}

// Ends `unit`'s melee contacts; a partner left with none is out of melee.
void LeaveMelee(BattleState& state, int unit) {
  state.units[unit].in_melee = false;
  std::vector<int> partners;
  for (const MeleeContact& m : state.melees) {
    if (m.Involves(unit)) partners.push_back(m.a == unit ? m.b : m.a);
  }
  std::erase_if(state.melees,
                [unit](const MeleeContact& m) { return m.Involves(unit); });
  for (const int partner : partners) {
    const bool still = std::any_of(
        state.melees.begin(), state.melees.end(),
        [partner](const MeleeContact& m) { return m.Involves(partner); });
    if (!still && partner >= 0) state.units[partner].in_melee = false;
  }
}

// Returns whether the test's reason is one of 1 to 8, reporting one that is
// not; reports a frenzied unit testing but to rally, and a rally test by a
// unit that is not routing.
bool CheckReasonToTest(const BattleState& state, const MoraleTestInput& test,
                       FindingSink& sink) {
  const UnitStatus& s = state.units[test.unit];
  auto label = [&state, &test] { return UnitLabel(state, test.unit); };
  const bool valid_reason =
      test.reason >= kFirstReason && test.reason <= kLastReason;
  if (!valid_reason) {
    ReportViolation(
        sink, state, test.unit, "daimyo.morale.reason",
        absl::StrFormat("%s tested morale for reason %d; the reasons "
                        "are numbered 1 to 8.",
                        label(), test.reason));
  }
  // "Frenzied units do not take morale tests for any reason", yet frenzied
  // troops "continue to be frenzied until they take the optional rally test
  // ... They do not take normal morale tests." We read the rally test
  // (reason 8) as the one test that is not "normal": a frenzied unit breaks
  // the rule by testing for reasons 1-7, never by testing to rally. A rally
  // test still needs a routing unit (below), and a rout ends frenzy, so a
  // frenzied unit rallies only where the log left it frenzied and routing.
  if (valid_reason && test.reason != kRallyReason && s.frenzied) {
    ReportViolation(
        sink, state, test.unit, "daimyo.morale.frenzied_no_test",
        absl::StrFormat("%s is frenzied and tested morale for reason "
                        "%d; frenzied units take no morale tests.",
                        label(), test.reason));
  }
  if (test.reason == kRallyReason && !s.routing) {
    ReportViolation(
        sink, state, test.unit, "daimyo.morale.rally_not_routing",
        absl::StrCat(label(),
                     " tested to rally (reason 8) but is not routing; "
                     "only a routing unit tests to rally."));
  }
  return valid_reason;
}

// Adds up the test's dice and, given a trace, records the roll.
int RollMoraleDice(const MoraleTestInput& test, Trace* trace) {
  int roll = 0;
  std::string dice_text;
  for (std::size_t i = 0; i < test.dice.size(); ++i) {
    roll += static_cast<int>(test.dice[i]);
    if (trace != nullptr) {
      absl::StrAppend(&dice_text, i == 0 ? "" : "+", test.dice[i]);
    }
  }
  if (trace != nullptr) {
    trace->push_back(Term{roll,
                          absl::StrFormat("2d6: %s = %d", dice_text, roll),
                          "daimyo.morale.test", Origin::kDice});
  }
  return roll;
}

// Records the verdict of `r` in the trace: the total against the pass
// score with the table's result, or the rally that hits bar.
void TraceMoraleResult(const MoraleResolution& r, const MoraleTestInput& test,
                       TroopType type, Trace& trace) {
  std::string label = ResultLabel(r, ColumnForReason(test.reason), type);
  if (r.rally_barred_by_hits) {
    absl::StrAppend(&label,
                    ", but firing hit the unit this turn: it may not "
                    "rally and stays routing (no effect)");
  }
  trace.push_back(Term{r.total, std::move(label),
                       r.rally_barred_by_hits ? "daimyo.morale.rally_after_hits"
                                              : "daimyo.morale.result",
                       Origin::kComputed});
}

// Routs `unit`: a unit that rallied and routs again owes its removal; the
// rout disorders it, bars its fire, ends its frenzy and takes it out of
// melee.
void RoutUnit(BattleState& state, int unit) {
  UnitStatus& s = state.units[unit];
  // A unit that rallied and routs again is removed at the end of the
  // turn; a unit still in its first rout is not routing "again".
  if (s.has_routed && !s.routing && s.removal_owed.empty()) {
    s.removal_owed = "routed a second time";
  }
  s.routing = s.has_routed = s.disordered = s.may_not_fire = true;
  s.frenzied = false;
  LeaveMelee(state, unit);
}

}  // namespace

bool CheckMoraleTest(const Tables& /*rules*/, const BattleState& state,
                     const MoraleTestInput& test, FindingSink& sink) {
  bool ok = CheckReasonToTest(state, test, sink);
  if (test.dice.size() != kDicePerTest) {
    ReportViolation(
        sink, state, test.unit, "daimyo.morale.dice_count",
        absl::StrFormat("%s tested morale with %d dice; a morale test "
                        "rolls 2d6.",
                        UnitLabel(state, test.unit), test.dice.size()));
    ok = false;
  }
  if (!CheckDieFaces(
          test.dice,
          [&] {
            return absl::StrCat("the morale test by ",
                                UnitLabel(state, test.unit));
          },
          state.profiles[test.unit].id, sink)) {
    ok = false;
  }
  return ok;
}

MoraleResolution ResolveMoraleTest(const Tables& rules,
                                   const BattleState& state,
                                   const MoraleTestInput& test, Trace* trace) {
  const UnitProfile& p = state.profiles[test.unit];
  MoraleResolution r;
  r.modifier = SumModifiers(rules, state, test, trace);
  r.roll = RollMoraleDice(test, trace);
  r.total = r.roll + r.modifier;
  r.pass_score = rules.morale.pass_score(p.quality);
  Decide(rules.morale, p.troop_type, test.reason, r);
  // "A unit that is the target of firing may still successfully rally unless
  // any hits were inflicted": a pass leaves it routing.
  r.rally_barred_by_hits = test.reason == kRallyReason && r.passed &&
                           state.units[test.unit].hit_by_fire_this_turn;
  if (r.rally_barred_by_hits) r.result = MoraleResult::kNoEffect;
  if (trace != nullptr) TraceMoraleResult(r, test, p.troop_type, *trace);
  return r;
}

void ApplyMoraleResult(BattleState& state, int unit, MoraleResult result) {
  UnitStatus& s = state.units[unit];
  switch (result) {
    case MoraleResult::kHalt:
      s.halted_until_turn = state.turn + 1;
      break;
    case MoraleResult::kRetire:
      s.halted_until_turn = state.turn + 1;
      LeaveMelee(state, unit);
      break;
    case MoraleResult::kRetreat:
      s.halted_until_turn = state.turn + 1;
      s.disordered = true;
      s.may_not_fire = true;
      LeaveMelee(state, unit);
      break;
    case MoraleResult::kRout:
      RoutUnit(state, unit);
      break;
    case MoraleResult::kDispersed:
      s.removed = true;
      state.FootprintChanged(unit);
      break;
    case MoraleResult::kFrenzy:
      s.frenzied = true;
      break;
    case MoraleResult::kRally:
      s.routing = false;
      s.frenzied = false;
      break;
    case MoraleResult::kNoEffect:
    case MoraleResult::kStandOrRetire:
    case MoraleResult::kCounterCharge:
    case MoraleResult::kCharge:
      break;
  }
}

MoraleReasons TestsOwedByCharger(const BattleState& state, int charger) {
  const UnitProfile& p = state.profiles[charger];
  if (state.units[charger].frenzied) return 0;
  const bool ashigaru_missile = p.troop_type == TroopType::kAshigaru &&
                                p.missile_weapon != MissileWeapon::kNone;
  if (ashigaru_missile || p.troop_type == TroopType::kPeasant) {
    return ReasonBit(4);
  }
  return 0;
}

MoraleReasons TestsOwedByTarget(const BattleState& state, int target,
                                int charger) {
  const UnitProfile& p = state.profiles[target];
  const UnitStatus& s = state.units[target];
  // A routing unit does not test for being charged: "If a charging enemy
  // unit contacts a routing unit, the routing unit is destroyed", and the
  // being-charged column has no result that a router could carry out.
  if (s.frenzied || s.routing) return 0;
  MoraleReasons owed = 0;
  if (p.troop_type == TroopType::kAshigaru ||
      p.troop_type == TroopType::kPeasant) {
    owed |= ReasonBit(2);
  }
  if (p.mobility == Mobility::kFoot && p.quality != Quality::kElite &&
      state.profiles[charger].mobility == Mobility::kMounted) {
    owed |= ReasonBit(3);
  }
  return owed;
}

bool HeedsRouter(const BattleState& state, int tester, int router) {
  auto cavalry_or_samurai = [&state](int unit) {
    const UnitProfile& p = state.profiles[unit];
    return p.mobility == Mobility::kMounted ||
           p.troop_type == TroopType::kSamurai;
  };
  return !cavalry_or_samurai(tester) || cavalry_or_samurai(router);
}

int HighestReason(MoraleReasons reasons) {
  const unsigned bits = static_cast<unsigned>(reasons) & ~1u;
  return bits == 0 ? 0 : static_cast<int>(std::bit_width(bits)) - 1;
}

}  // namespace gunbai::rules::daimyo
