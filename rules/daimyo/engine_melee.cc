// The melee part of the DaimyoEngine: rounds, duels, the moves an outcome owes,
// and removals. See replayer.h.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/melee.h"
#include "rules/daimyo/morale.h"
#include "rules/daimyo/proto_mapping.h"

namespace gunbai::rules::daimyo {

namespace {

namespace v1 = ::gunbai::v1;
using rules::Finding;
using rules::Phase;
using rules::Severity;
using OwedMove = DaimyoEngine::OwedMove;

// How bad an outcome is for one unit in one pairing, worst last.
enum class Standing { kWon, kDrew, kPushedBack, kRouted };

absl::string_view OwedMoveName(OwedMove m) {
  switch (m) {
    case OwedMove::kNone:
      return "no result move";
    case OwedMove::kPushBack:
      return "a push back";
    case OwedMove::kRout:
      return "a rout move";
    case OwedMove::kFollowUp:
      return "a follow-up";
    case OwedMove::kPursue:
      return "a pursuit";
    case OwedMove::kMayFollowUp:
      return "a follow-up or a halt (its choice)";
    case OwedMove::kMayPursue:
      return "a pursuit or a halt (its choice)";
    case OwedMove::kMayFollowUpOrPursue:
      return "a follow-up, a pursuit or a halt (its choice)";
    case OwedMove::kHold:
      return "to halt";
    case OwedMove::kRetire:
      return "a retire move";
    case OwedMove::kMayRetire:
      return "to stand or retire (its choice)";
    case OwedMove::kRetreat:
      return "a retreat move";
  }
  return "?";
}

// A unit that beat several enemies in one multi-unit melee cannot keep
// contact with them all (the seed excuses a follow-up a multi-unit melee
// makes impossible): it may follow up or pursue one of them, as that one's
// result owes (a pursuit for a router), or halt. `first` and `next` are the
// moves owed for two of them.
OwedMove MoveAfterSeveralWins(OwedMove first, OwedMove next) {
  const auto follows = [](OwedMove m) {
    return m == OwedMove::kFollowUp || m == OwedMove::kMayFollowUp ||
           m == OwedMove::kMayFollowUpOrPursue;
  };
  const auto pursues = [](OwedMove m) {
    return m == OwedMove::kPursue || m == OwedMove::kMayPursue ||
           m == OwedMove::kMayFollowUpOrPursue;
  };
  const bool follow = follows(first) || follows(next);
  const bool pursue = pursues(first) || pursues(next);
  if (follow && pursue) return OwedMove::kMayFollowUpOrPursue;
  if (follow) return OwedMove::kMayFollowUp;
  if (pursue) return OwedMove::kMayPursue;
  return OwedMove::kHold;
}

bool Compulsory(OwedMove m) {
  return m == OwedMove::kPushBack || m == OwedMove::kRout ||
         m == OwedMove::kFollowUp || m == OwedMove::kPursue ||
         m == OwedMove::kRetire || m == OwedMove::kRetreat;
}

}  // namespace

rules::daimyo::MeleePairing DaimyoEngine::PairingFromProto(
    const v1::MeleeRound& round, int a, int b) const {
  rules::daimyo::MeleePairing pairing;
  const int units[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    const v1::MeleeSide& side = round.sides(i);
    rules::daimyo::MeleeSideInput& in = pairing.sides[i];
    in.unit = units[i];
    in.stands_fighting =
        static_cast<int>(std::min<uint32_t>(side.stands_fighting(), 65));
    in.dice = absl::MakeConstSpan(side.dice().data(), side.dice_size());
    in.facts.front_stands_in_contact = static_cast<int>(
        std::min<uint32_t>(side.front_stands_in_contact(), 64));
    in.facts.overlap_stands =
        static_cast<int>(std::min<uint32_t>(side.overlap_stands(), 64));
    in.facts.enemy_fighting_to_flank_or_rear =
        side.enemy_fighting_to_flank_or_rear();
    in.facts.enemy_uphill_or_behind_obstacle =
        side.enemy_uphill_or_behind_obstacle();
    in.facts.enemy_in_building = side.enemy_in_building();
    in.facts.in_building = side.in_building();
    in.facts.defending_linear_obstacle = side.defending_linear_obstacle();
    if (side.has_following_up()) in.facts.following_up = side.following_up();
    if (side.has_pursuing()) in.facts.pursuing = side.pursuing();
    const auto start = at_melee_start_.find(units[i]);
    if (start != at_melee_start_.end()) in.stands = start->second.stands;
  }
  pairing.round = rules::daimyo::NextRound(state_, a, b);
  pairing.multi_unit = !round.melee_id().empty();
  return pairing;
}

void DaimyoEngine::OnMeleeRound(const v1::MeleeRound& round) {
  EnterPhase(Phase::kMelee, "melee round");
  const std::optional<std::pair<int, int>> units = MeleeRoundUnits(round);
  if (!units.has_value()) return;
  const auto [a, b] = *units;
  if (round.melee_id().empty() || round.melee_id() != pending_melee_id_) {
    at_melee_start_.clear();
  }
  // A result move still owed comes before the unit fights again (reading
  // 34): a router owes its rout move, a loser its push back.
  for (const int unit : {a, b}) {
    CheckResultMovesMade(unit,
                         [] { return std::string("its next melee round"); });
  }
  rules::daimyo::MeleePairing pairing = PairingFromProto(round, a, b);
  MeasureOnMeleeStart(pairing);
  if (!round.melee_id().empty()) NoteMeleeStart(a, b);
  DisorderPursuersMeetingFreshEnemy(pairing);
  CheckRoundCount(round, pairing);
  const bool resolvable =
      rules::daimyo::CheckMeleePairing(rules_, state_, pairing, *this);
  CheckStandsSplit(round, pairing);
  const std::array<int, 2> hits = MeleeHits(round, pairing, resolvable);
  const std::array<int, 2> stands_lost =
      MeleeStandsLost(round, pairing, hits, resolvable);
  const rules::daimyo::MeleeOutcome outcome =
      MeleeRoundOutcome(round, pairing, hits, resolvable);
  const int rounds_before = pairing.round - 1;
  rules::daimyo::ApplyMeleeRound(rules_, state_, pairing, hits, stands_lost);
  KeepBonusesForTheWholeMelee(pairing);
  RecordPairing(round, pairing, outcome, rounds_before + 1);
  // A side that lost its last stand is off the table at once (reading 4):
  // its melees end, and an opponent with no other contact is free now, not
  // only at the end of the turn.
  for (const rules::daimyo::MeleeSideInput& side : pairing.sides) {
    if (state_.units[side.unit].removed) LeaveMelee(side.unit);
  }
}

void DaimyoEngine::NoteMeleeStart(int a, int b) {
  for (int unit : {a, b}) {
    const rules::UnitStatus& u = state_.units[unit];
    at_melee_start_.emplace(
        unit, AtMeleeStart{u.stands, u.pursued_on_turn, u.followed_up_on_turn,
                           u.disordered});
  }
}

std::string DaimyoEngine::MeleeOutcomeText(
    const rules::daimyo::MeleePairing& pairing,
    rules::daimyo::MeleeOutcome outcome) const {
  if (outcome.winner < 0) return "draw";
  const rules::daimyo::MeleeSideInput& loser =
      pairing.sides[1 - outcome.winner];
  // The loser's fate is part of the outcome: a push back and a rout differ
  // as much as who won (a rout with an enemy on its flank or rear destroys
  // the loser).
  const char* fate = !outcome.loser_routs ? " pushed back"
                     : loser.facts.enemy_fighting_to_flank_or_rear
                         ? " routs, destroyed (enemy on its flank or rear)"
                         : " routs";
  return absl::StrCat(state_.profiles[pairing.sides[outcome.winner].unit].id,
                      " wins, ", state_.profiles[loser.unit].id, fate);
}

rules::daimyo::MeleeOutcome DaimyoEngine::MeleeRoundOutcome(
    const v1::MeleeRound& round, const rules::daimyo::MeleePairing& pairing,
    std::array<int, 2> hits, bool resolvable) {
  const rules::daimyo::MeleeOutcome outcome =
      rules::daimyo::DecideOutcome(rules_, hits[0], hits[1]);
  if (recording_outcomes()) {
    const std::string text = MeleeOutcomeText(pairing, outcome);
    rules::Trace trace = {rules::Term{
        hits[0] - hits[1],
        absl::StrCat(hits[0], " hits against ", hits[1], ": ", text,
                     " (more hits win, 2 or more ahead rout the loser)"),
        "daimyo.melee.outcome"}};
    RecordOutcome(round.sides(0).unit(), "melee_outcome", text, &trace);
  }
  CheckClaimedOutcome(round, pairing, hits, outcome);
  if (resolvable && FollowComputed()) WriteBranchMeleeClaims(pairing, hits);
  return outcome;
}

std::optional<std::pair<int, int>> DaimyoEngine::MeleeRoundUnits(
    const v1::MeleeRound& round) {
  if (round.sides_size() != 2) {
    Violation("log.melee.sides", "",
              absl::StrFormat("A melee round has two sides; this one has %d. "
                              "It is skipped.",
                              round.sides_size()));
    return std::nullopt;
  }
  const int a = ResolveUnit(round.sides(0).unit(), "melee unit");
  const int b = ResolveUnit(round.sides(1).unit(), "melee unit");
  if (a < 0 || b < 0 || !UnitOnTable(a, "fight") || !UnitOnTable(b, "fight")) {
    return std::nullopt;
  }
  if (a == b) {
    // Found by the fuzzer: a unit paired with itself would be put in melee
    // with itself and take both sides' losses.
    Violation("daimyo.melee.enemy", round.sides(0).unit(),
              absl::StrFormat("%s is on both sides of the melee round; a "
                              "unit fights an enemy unit, never itself. The "
                              "round is skipped.",
                              UnitLabel(state_, a)));
    return std::nullopt;
  }
  return std::make_pair(a, b);
}

void DaimyoEngine::MeasureOnMeleeStart(rules::daimyo::MeleePairing& pairing) {
  // The pairings of a multi-unit melee are fought at once (reading 26 (a)):
  // a later one is measured on the footprints the melee began with, not on
  // one narrowed by the stands an earlier pairing took (a flank contact
  // would open by half a stand's width).
  absl::InlinedVector<std::pair<int, int>, 2> now;
  for (const rules::daimyo::MeleeSideInput& side : pairing.sides) {
    const int unit = side.unit;
    const auto start = at_melee_start_.find(unit);
    rules::UnitStatus& s = state_.units[static_cast<std::size_t>(unit)];
    if (start != at_melee_start_.end() && start->second.stands != s.stands) {
      now.emplace_back(unit, s.stands);
      s.stands = start->second.stands;
      state_.FootprintChanged(unit);
    }
  }
  MeasureMelee(pairing);
  for (const auto& [unit, stands] : now) {
    state_.units[static_cast<std::size_t>(unit)].stands = stands;
    state_.FootprintChanged(unit);
  }
}

void DaimyoEngine::CheckRoundCount(const v1::MeleeRound& round,
                                   const rules::daimyo::MeleePairing& pairing) {
  const int a = pairing.sides[0].unit;
  const int b = pairing.sides[1].unit;
  if (round.round() != 0 && round.round() != uint32_t(pairing.round)) {
    Violation("daimyo.melee.round_number", round.sides(0).unit(),
              absl::StrFormat("The log calls this round %d; %s and %s have "
                              "fought %d round%s, so this is round %d.",
                              round.round(), UnitLabel(state_, a),
                              UnitLabel(state_, b), pairing.round - 1,
                              pairing.round == 2 ? "" : "s", pairing.round));
  }
  // The contact's own count catches a second round while it lasts; this
  // catches one after it ended and a charge or pursuit renewed it.
  const rules::MeleeContact* contact = state_.FindMelee(a, b);
  const bool counted =
      contact != nullptr && contact->last_turn_fought == state_.turn;
  if (FoughtThisTurn(a, b)) {
    if (!counted) {
      Violation("daimyo.melee.once_per_turn", round.sides(0).unit(),
                absl::StrFormat("%s and %s already fought each other this "
                                "turn; each stand fights one melee "
                                "resolution a turn.",
                                UnitLabel(state_, a), UnitLabel(state_, b)));
    }
  } else {
    fought_pairs_.emplace_back(std::min(a, b), std::max(a, b));
  }
}

std::array<int, 2> DaimyoEngine::MeleeHits(
    const v1::MeleeRound& round, const rules::daimyo::MeleePairing& pairing,
    bool resolvable) {
  std::array<int, 2> hits = {0, 0};
  for (int side = 0; side < 2; ++side) {
    const v1::MeleeSide& s = round.sides(side);
    if (resolvable) {
      // Resolved once, with its trace when the outcome is recorded; the
      // dispute copies that trace (before the outcome takes it).
      rules::Trace trace;
      const bool traced = recording_outcomes();
      const rules::daimyo::MeleeSideResolution res =
          rules::daimyo::ResolveMeleeSide(rules_, state_, pairing, side,
                                          traced ? &trace : nullptr);
      hits[side] = res.hits;
      if (!FollowComputed() && s.has_claimed_hits() &&
          s.claimed_hits() != uint32_t(hits[side])) {
        ReportMeleeHitDispute(pairing, side, s.claimed_hits(), res,
                              traced ? &trace : nullptr);
      }
      if (traced) {
        RecordOutcome(s.unit(), "hits", absl::StrCat(hits[side]), &trace);
      }
      if (FollowComputed()) continue;
    }
    if (s.has_claimed_hits()) {
      hits[side] = static_cast<int>(std::min<uint32_t>(s.claimed_hits(), 1000));
    } else if (!resolvable) {
      Unverifiable(
          "daimyo.melee.hit", s.unit(),
          absl::StrCat(UnitLabel(state_, pairing.sides[side].unit),
                       ": the dice cannot be read and the log claims no "
                       "hits; replay lands none."));
    }
  }
  return hits;
}

std::array<int, 2> DaimyoEngine::MeleeStandsLost(
    const v1::MeleeRound& round, const rules::daimyo::MeleePairing& pairing,
    std::array<int, 2> hits, bool resolvable) {
  std::array<int, 2> stands_lost = {-1, -1};
  for (int side = 0; side < 2; ++side) {
    const v1::MeleeSide& s = round.sides(side);
    const rules::UnitStatus& u = state_.units[pairing.sides[side].unit];
    const int computed =
        rules::StandsLost(u, hits[1 - side], rules_.hits_per_stand);
    if (recording_outcomes()) {
      rules::Trace trace = rules::StandLossTrace(
          u, hits[1 - side], rules_.hits_per_stand, "daimyo.melee.stand_loss");
      RecordOutcome(s.unit(), "stands_lost", absl::StrCat(computed), &trace);
    }
    if (resolvable && FollowComputed()) continue;
    if (!s.has_claimed_stands_lost()) continue;
    stands_lost[side] =
        static_cast<int>(std::min<uint32_t>(s.claimed_stands_lost(), 64));
    if (stands_lost[side] != computed) {
      ReportStandLossDispute("daimyo.melee.stand_loss",
                             pairing.sides[side].unit, hits[1 - side],
                             stands_lost[side], computed);
    }
  }
  return stands_lost;
}

void DaimyoEngine::WriteBranchMeleeClaims(
    const rules::daimyo::MeleePairing& pairing, std::array<int, 2> hits) {
  if (branch_event_ == nullptr) return;
  v1::MeleeRound* claims = branch_event_->mutable_melee_round();
  for (int side = 0; side < 2; ++side) {
    v1::MeleeSide* s = claims->mutable_sides(side);
    const rules::UnitStatus& u = state_.units[pairing.sides[side].unit];
    if (s->has_claimed_hits()) s->set_claimed_hits(hits[side]);
    if (s->has_claimed_stands_lost()) {
      s->set_claimed_stands_lost(
          rules::StandsLost(u, hits[1 - side], rules_.hits_per_stand));
    }
  }
  if (claims->claimed_outcome() != v1::MELEE_OUTCOME_UNSPECIFIED) {
    const rules::daimyo::MeleeOutcome outcome =
        rules::daimyo::DecideOutcome(rules_, hits[0], hits[1]);
    claims->set_claimed_outcome(outcome.winner < 0
                                    ? v1::MELEE_OUTCOME_DRAW
                                    : (outcome.winner == 0
                                           ? v1::MELEE_OUTCOME_FIRST_WINS
                                           : v1::MELEE_OUTCOME_SECOND_WINS));
  }
}

void DaimyoEngine::ReportMeleeHitDispute(
    const rules::daimyo::MeleePairing& pairing, int side, uint32_t claimed,
    const rules::daimyo::MeleeSideResolution& res, const rules::Trace* trace) {
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = "daimyo.melee.hit";
  const int unit = pairing.sides[side].unit;
  f.subject = state_.profiles[unit].id;
  if (trace != nullptr) {
    f.trace = *trace;
  } else {
    rules::daimyo::ResolveMeleeSide(rules_, state_, pairing, side, &f.trace);
  }
  const int computed = res.hits;
  f.claimed = HitsInWords(claimed);
  f.computed = HitsInWords(computed);
  f.message = absl::StrFormat(
      "%s in melee with %s, round %d: the log claims %d hit%s, the dice give "
      "%d (each stand's 2d6 %+d, %d or more hits).",
      UnitLabel(state_, unit), UnitLabel(state_, pairing.sides[1 - side].unit),
      pairing.round, claimed, claimed == 1 ? "" : "s", computed, res.modifier,
      rules_.melee.hit_score);
  Report(std::move(f));
}

void DaimyoEngine::CheckClaimedOutcome(
    const v1::MeleeRound& round, const rules::daimyo::MeleePairing& pairing,
    std::array<int, 2> hits, rules::daimyo::MeleeOutcome outcome) {
  if (round.claimed_outcome() == v1::MELEE_OUTCOME_UNSPECIFIED) return;
  const v1::MeleeOutcome computed =
      outcome.winner < 0
          ? v1::MELEE_OUTCOME_DRAW
          : (outcome.winner == 0 ? v1::MELEE_OUTCOME_FIRST_WINS
                                 : v1::MELEE_OUTCOME_SECOND_WINS);
  if (computed == round.claimed_outcome()) return;
  auto name = [&](v1::MeleeOutcome o) -> std::string {
    if (o == v1::MELEE_OUTCOME_DRAW) return "a draw";
    const int side = o == v1::MELEE_OUTCOME_FIRST_WINS ? 0 : 1;
    return absl::StrCat(state_.profiles[pairing.sides[side].unit].id, " wins");
  };
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = "daimyo.melee.outcome";
  f.subject = state_.profiles[pairing.sides[0].unit].id;
  f.claimed = name(round.claimed_outcome());
  f.computed = name(computed);
  f.message = absl::StrFormat(
      "The log calls the round %s, but with %d hits against %d (as played) "
      "it is %s: the side with more hits wins.",
      f.claimed, hits[0], hits[1], f.computed);
  Report(std::move(f));
}

void DaimyoEngine::CheckStandsSplit(
    const v1::MeleeRound& round, const rules::daimyo::MeleePairing& pairing) {
  // The pairings of one multi-unit melee share each unit's stands: a stand
  // fights one resolution, so a unit's stands across them add up to at most
  // its size.
  if (round.melee_id().empty() || round.melee_id() != pending_melee_id_) {
    stands_in_pending_melee_.clear();
  }
  for (const rules::daimyo::MeleeSideInput& side : pairing.sides) {
    int& used = stands_in_pending_melee_[side.unit];
    used += side.stands_fighting;
    const int stands = side.stands.value_or(state_.units[side.unit].stands);
    if (used > stands) {
      Violation("daimyo.melee.stand_fights_twice",
                state_.profiles[side.unit].id,
                absl::StrFormat("%s has fought with %d stands in the pairings "
                                "of melee %s but has %d; each stand fights one "
                                "resolution a turn.",
                                UnitLabel(state_, side.unit), used,
                                round.melee_id(), stands));
    }
  }
}

void DaimyoEngine::RecordPairing(const v1::MeleeRound& round,
                                 const rules::daimyo::MeleePairing& pairing,
                                 rules::daimyo::MeleeOutcome outcome,
                                 int rounds) {
  PairingResult r;
  r.a = pairing.sides[0].unit;
  r.b = pairing.sides[1].unit;
  r.rounds = rounds;
  r.a_flanked = pairing.sides[0].facts.enemy_fighting_to_flank_or_rear;
  r.b_flanked = pairing.sides[1].facts.enemy_fighting_to_flank_or_rear;
  if (outcome.winner >= 0) {
    const int w = outcome.winner;
    r.winner = pairing.sides[w].unit;
    r.loser = pairing.sides[1 - w].unit;
    r.loser_routs = outcome.loser_routs;
    r.loser_flank_or_rear =
        pairing.sides[1 - w].facts.enemy_fighting_to_flank_or_rear;
    r.winner_defends_obstacle =
        pairing.sides[w].facts.defending_linear_obstacle;
  }
  pending_melee_id_ = round.melee_id();
  pending_pairings_.push_back(r);
}

DaimyoEngine::SettlingUnit& DaimyoEngine::SettlingOf(int unit) {
  for (SettlingUnit& s : settling_) {
    if (s.unit == unit) return s;
  }
  settling_.push_back(SettlingUnit{});
  settling_.back().unit = unit;
  return settling_.back();
}

void DaimyoEngine::SettleMelee() {
  if (pending_pairings_.empty()) return;
  NoteStandings();
  SettlePairings();
  EndPendingMelee();
}

void DaimyoEngine::NoteStandings() {
  // Each unit's worst standing over the pairings, and how it lost.
  settling_.clear();
  auto note = [this](int unit, Standing s) {
    SettlingUnit& u = SettlingOf(unit);
    u.worst =
        u.noted ? std::max(u.worst, static_cast<int>(s)) : static_cast<int>(s);
    u.noted = true;
  };
  for (const PairingResult& r : pending_pairings_) {
    if (r.a_flanked) SettlingOf(r.a).flanked = true;
    if (r.b_flanked) SettlingOf(r.b).flanked = true;
    if (r.winner < 0) {
      note(r.a, Standing::kDrew);
      note(r.b, Standing::kDrew);
      continue;
    }
    note(r.winner, Standing::kWon);
    note(r.loser, r.loser_routs ? Standing::kRouted : Standing::kPushedBack);
    SettlingUnit& loser = SettlingOf(r.loser);
    ++loser.losses;
    if (r.loser_flank_or_rear) loser.lost_to_flank = true;
  }
}

void DaimyoEngine::SettlePairings() {
  auto worst = [this](int unit) {
    return static_cast<Standing>(SettlingOf(unit).worst);
  };
  // Every unit of the pairings is in settling_ now: the lookups below add
  // none, so the references they return stay valid.
  for (const PairingResult& r : pending_pairings_) {
    if (r.winner < 0) continue;
    const SettlingUnit& loser = SettlingOf(r.loser);
    SettleLoser(r, worst(r.loser) == Standing::kRouted, loser.losses,
                loser.lost_to_flank, loser.flanked);
  }
  for (const PairingResult& r : pending_pairings_) {
    if (r.winner < 0) continue;
    SettlingUnit& winner = SettlingOf(r.winner);
    const bool beat_another = winner.settled_as_winner;
    winner.settled_as_winner = true;
    const OwedMove before = owed_moves_[r.winner];
    // A loser's winners are the pairings it lost.
    SettleWinner(r, worst(r.winner) == Standing::kWon,
                 worst(r.winner) == Standing::kDrew,
                 SettlingOf(r.loser).losses);
    if (beat_another && worst(r.winner) == Standing::kWon) {
      owed_moves_[r.winner] =
          MoveAfterSeveralWins(before, owed_moves_[r.winner]);
    }
  }
}

void DaimyoEngine::EndPendingMelee() {
  // The bonuses brought into the melee are spent now, and a pursuer that a
  // pairing disordered stays disordered (the order of the units does not
  // matter: each is set alike).
  for (const auto& [unit, start] : at_melee_start_) {
    rules::UnitStatus& u = state_.units[unit];
    u.pursued_on_turn = 0;
    u.followed_up_on_turn = 0;
    if (start.disordered_by_pursuit) u.disordered = true;
  }
  pending_pairings_.clear();
  pending_melee_id_.clear();
  stands_in_pending_melee_.clear();
  at_melee_start_.clear();
}

void DaimyoEngine::KeepBonusesForTheWholeMelee(
    const rules::daimyo::MeleePairing& pairing) {
  for (const rules::daimyo::MeleeSideInput& side : pairing.sides) {
    const auto start = at_melee_start_.find(side.unit);
    if (start == at_melee_start_.end()) continue;
    rules::UnitStatus& u = state_.units[side.unit];
    u.pursued_on_turn = start->second.pursued_on_turn;
    u.followed_up_on_turn = start->second.followed_up_on_turn;
  }
}

void DaimyoEngine::SettleLoser(const PairingResult& r, bool routs, int losses,
                               bool lost_to_flank, bool flanked) {
  const int u = r.loser;
  owed_moves_[u] = routs ? OwedMove::kRout : OwedMove::kPushBack;
  owed_move_rounds_[u] = r.rounds;
  rules::UnitStatus& s = state_.units[u];
  // Routed while any enemy of the melee fights its flank or rear (in a
  // multi-unit melee, also one it drew with or beat).
  if (routs && flanked) {
    s.removal_owed = "routed from melee while contacted in flank or rear";
  } else if (losses >= 2 && lost_to_flank) {
    s.removal_owed = "pushed back from two directions at once";
  }
}

void DaimyoEngine::SettleWinner(const PairingResult& r, bool won_everywhere,
                                bool drew_elsewhere, int winners_of_loser) {
  const int w = r.winner;
  if (!won_everywhere) {
    // A unit that lost elsewhere moves as a loser; one that drew elsewhere
    // may not follow up, even if frenzied.
    if (drew_elsewhere) owed_moves_[w] = OwedMove::kHold;
    return;
  }
  owed_move_opponent_[w] = r.loser;
  owed_move_rounds_[w] = r.rounds;
  const rules::UnitStatus& loser = state_.units[r.loser];
  const bool destroyed = !loser.removal_owed.empty() || loser.removed;
  const bool pursue = owed_moves_[r.loser] == OwedMove::kRout;
  if (!rules::daimyo::MustFollowUp(state_, w, r.loser)) {
    owed_moves_[w] = OwedMove::kHold;
  } else if (destroyed) {
    // A loser that no longer exists (its last stand lost, or destroyed by
    // the outcome) needs no follow-up or pursuit: the winner may still move
    // up, or halt.
    owed_moves_[w] = pursue ? OwedMove::kMayPursue : OwedMove::kMayFollowUp;
  } else if ((r.winner_defends_obstacle && !state_.units[w].frenzied) ||
             winners_of_loser > 1) {
    // A defender of a linear obstacle may choose; of several winners only
    // one may follow up, at their choice.
    owed_moves_[w] = pursue ? OwedMove::kMayPursue : OwedMove::kMayFollowUp;
  } else {
    owed_moves_[w] = pursue ? OwedMove::kPursue : OwedMove::kFollowUp;
  }
}

void DaimyoEngine::LeaveMelee(int unit) {
  state_.units[unit].in_melee = false;
  auto& melees = state_.melees;
  for (const rules::MeleeContact& m : melees) {
    const int other = m.a == unit ? m.b : (m.b == unit ? m.a : -1);
    if (other < 0) continue;
    bool still = false;
    for (const rules::MeleeContact& n : melees) {
      if (n.Involves(other) && !n.Involves(unit)) still = true;
    }
    if (!still) state_.units[other].in_melee = false;
  }
  melees.erase(std::remove_if(melees.begin(), melees.end(),
                              [unit](const rules::MeleeContact& m) {
                                return m.Involves(unit);
                              }),
               melees.end());
}

void DaimyoEngine::BreakOffOutOfContact(int unit) {
  if (!Measuring(unit)) return;
  const auto follows = [this](int w, int l) {
    const OwedMove owed = owed_moves_[w];
    return owed_move_opponent_[w] == l &&
           (owed == OwedMove::kFollowUp || owed == OwedMove::kPursue ||
            owed == OwedMove::kMayFollowUp || owed == OwedMove::kMayPursue ||
            owed == OwedMove::kMayFollowUpOrPursue);
  };
  auto& melees = state_.melees;
  const auto apart = [&](const rules::MeleeContact& m) {
    if (!m.Involves(unit)) return false;
    const int other = m.a == unit ? m.b : m.a;
    return Measuring(other) &&
           !rules::InContact(*field_, state_, unit, other) &&
           !follows(other, unit) && !follows(unit, other);
  };
  std::vector<int> parted;
  for (const rules::MeleeContact& m : melees) {
    if (apart(m)) parted.push_back(m.a == unit ? m.b : m.a);
  }
  if (parted.empty()) return;
  melees.erase(std::remove_if(melees.begin(), melees.end(), apart),
               melees.end());
  // Each of them is still in a melee while it has another pairing.
  parted.push_back(unit);
  for (const int u : parted) {
    state_.units[u].in_melee = std::any_of(
        melees.begin(), melees.end(),
        [u](const rules::MeleeContact& m) { return m.Involves(u); });
  }
}

bool DaimyoEngine::TakeOwedMove(int unit, const v1::ResultMove& move,
                                std::initializer_list<OwedMove> allowed) {
  const OwedMove owed = owed_moves_[unit];
  if (std::find(allowed.begin(), allowed.end(), owed) != allowed.end()) {
    owed_moves_[unit] = OwedMove::kNone;
    const bool follows = move.kind() == v1::RESULT_MOVE_KIND_FOLLOW_UP ||
                         move.kind() == v1::RESULT_MOVE_KIND_PURSUIT;
    if (follows && owed_move_opponent_[unit] >= 0) {
      // Only one victorious unit follows up: the others must now halt.
      for (std::size_t o = 0; o < owed_moves_.size(); ++o) {
        if (static_cast<int>(o) != unit &&
            owed_move_opponent_[o] == owed_move_opponent_[unit] &&
            (owed_moves_[o] == OwedMove::kMayFollowUp ||
             owed_moves_[o] == OwedMove::kMayPursue ||
             owed_moves_[o] == OwedMove::kMayFollowUpOrPursue)) {
          owed_moves_[o] = OwedMove::kHold;
        }
      }
    }
    return true;
  }
  // A wrong move answers the obligation: one mistake, one finding.
  owed_moves_[unit] = OwedMove::kNone;
  Violation(owed == OwedMove::kNone ? "daimyo.result_move.not_owed"
                                    : "daimyo.result_move.wrong",
            move.unit(),
            absl::StrFormat("%s makes a %s move, but the rules owe it %s.",
                            UnitLabel(state_, unit),
                            v1::ResultMoveKind_Name(move.kind()),
                            OwedMoveName(owed)));
  return false;
}

void DaimyoEngine::OnResultMove(const v1::ResultMove& move) {
  const int unit = ResolveUnit(move.unit(), "unit");
  if (unit < 0 || !UnitOnTable(unit, "make a result move")) return;
  CheckDiceFaces(move.dice(), "move roll", move.unit());
  rules::UnitStatus& s = state_.units[unit];
  const v1::MoveBlock blocked = MeasureResultMove(move, unit);
  switch (move.kind()) {
    case v1::RESULT_MOVE_KIND_PUSH_BACK:
      OnPushBack(unit, move, blocked);
      break;
    case v1::RESULT_MOVE_KIND_ROUT:
      OnRoutMove(unit, move, blocked);
      break;
    case v1::RESULT_MOVE_KIND_FOLLOW_UP:
      OnFollowUp(unit, move);
      break;
    case v1::RESULT_MOVE_KIND_PURSUIT:
      OnPursuit(unit, move);
      break;
    case v1::RESULT_MOVE_KIND_HOLD:
      TakeOwedMove(unit, move,
                   {OwedMove::kHold, OwedMove::kMayFollowUp,
                    OwedMove::kMayPursue, OwedMove::kMayFollowUpOrPursue});
      if (owed_move_opponent_[unit] >= 0) LeaveMelee(unit);
      break;
    case v1::RESULT_MOVE_KIND_RETIRE:
      TakeOwedMove(unit, move, {OwedMove::kRetire, OwedMove::kMayRetire});
      LeaveMelee(unit);
      break;
    case v1::RESULT_MOVE_KIND_RETREAT:
      TakeOwedMove(unit, move, {OwedMove::kRetreat});
      s.disordered = true;
      LeaveMelee(unit);
      break;
    default:
      Violation("log.result_move.kind", move.unit(),
                "A result move needs a kind (push back, rout, ...).");
      break;
  }
}

void DaimyoEngine::OnPushBack(int unit, const v1::ResultMove& move,
                              v1::MoveBlock blocked) {
  TakeOwedMove(unit, move, {OwedMove::kPushBack});
  state_.units[unit].frenzied = false;
  ApplyBlock(unit, blocked);
  if (!FollowedUpBy(unit)) LeaveMelee(unit);
  BreakOffOutOfContact(unit);
}

void DaimyoEngine::OnRoutMove(int unit, const v1::ResultMove& move,
                              v1::MoveBlock blocked) {
  const bool owed =
      !state_.units[unit].routing || owed_moves_[unit] != OwedMove::kNone;
  if (owed) TakeOwedMove(unit, move, {OwedMove::kRout});
  CheckRoutMove(unit, owed);
  ApplyRout(unit, move, blocked);
}

void DaimyoEngine::OnFollowUp(int unit, const v1::ResultMove& move) {
  CheckFollowsLoser(unit, move);
  TakeOwedMove(unit, move,
               {OwedMove::kFollowUp, OwedMove::kMayFollowUp,
                OwedMove::kMayFollowUpOrPursue});
  state_.units[unit].followed_up_on_turn = state_.turn;
  BreakOffOutOfContact(unit);
}

void DaimyoEngine::OnPursuit(int unit, const v1::ResultMove& move) {
  const rules::UnitStatus& s = state_.units[unit];
  CheckFollowsLoser(unit, move);
  // A frenzied pursuer pursues on once in each later turn; a second
  // pursuit in one turn is a move nothing owes.
  if (!(s.frenzied && s.pursued_on_turn > 0 &&
        s.pursued_on_turn < state_.turn &&
        owed_moves_[unit] == OwedMove::kNone)) {
    TakeOwedMove(unit, move,
                 {OwedMove::kPursue, OwedMove::kMayPursue,
                  OwedMove::kMayFollowUpOrPursue});
  }
  ApplyPursuit(unit, move);
}

bool DaimyoEngine::FollowsLoserStillToMove(int winner) const {
  const int loser = owed_move_opponent_[static_cast<std::size_t>(winner)];
  if (!Measuring(winner) || loser < 0 ||
      state_.units[static_cast<std::size_t>(loser)].removed) {
    return false;
  }
  const OwedMove owed = owed_moves_[static_cast<std::size_t>(loser)];
  return owed == OwedMove::kPushBack || owed == OwedMove::kRout;
}

void DaimyoEngine::CheckFollowsLoser(int winner, const v1::ResultMove& move) {
  if (!FollowsLoserStillToMove(winner)) return;
  const int loser = owed_move_opponent_[static_cast<std::size_t>(winner)];
  Violation(
      "daimyo.table.result_move.order", move.unit(),
      absl::StrFormat(
          "%s makes its %s before %s has made its %s; on a table the "
          "winner moves into the ground the loser leaves, so the "
          "loser moves first (reading 35).",
          UnitLabel(state_, winner),
          move.kind() == v1::RESULT_MOVE_KIND_PURSUIT ? "pursuit" : "follow-up",
          UnitLabel(state_, loser),
          OwedMoveName(owed_moves_[static_cast<std::size_t>(loser)])));
}

void DaimyoEngine::ReleaseWinnersOf(int loser) {
  for (std::size_t w = 0; w < owed_moves_.size(); ++w) {
    if (owed_move_opponent_[w] != loser) continue;
    if (owed_moves_[w] == OwedMove::kFollowUp) {
      owed_moves_[w] = OwedMove::kMayFollowUp;
    } else if (owed_moves_[w] == OwedMove::kPursue) {
      owed_moves_[w] = OwedMove::kMayPursue;
    }
  }
}

bool DaimyoEngine::FollowedUpBy(int loser) const {
  for (std::size_t w = 0; w < owed_moves_.size(); ++w) {
    if (owed_move_opponent_[w] != loser) continue;
    if (owed_moves_[w] == OwedMove::kFollowUp ||
        owed_moves_[w] == OwedMove::kMayFollowUp) {
      return true;
    }
    // The winner followed up already, before the loser's push back: the
    // contact is kept, and its round this turn is fought
    // (daimyo.melee.once_per_turn holds till the next turn).
    if (owed_moves_[w] == OwedMove::kNone &&
        state_.units[w].followed_up_on_turn == state_.turn && state_.turn > 0) {
      return true;
    }
  }
  return false;
}

void DaimyoEngine::ApplyBlock(int unit, v1::MoveBlock blocked) {
  rules::UnitStatus& s = state_.units[unit];
  if (blocked == v1::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE) {
    s.disordered = true;
  } else if (blocked == v1::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE) {
    ReleaseWinnersOf(unit);
    s.removal_owed = "its move was blocked by enemy troops or the table edge";
  }
}

void DaimyoEngine::ApplyRout(int unit, const v1::ResultMove& move,
                             v1::MoveBlock blocked) {
  rules::UnitStatus& s = state_.units[unit];
  const bool new_rout = !s.routing;
  if (new_rout && s.has_routed && s.removal_owed.empty()) {
    s.removal_owed = "routed a second time (removed at the end of the turn)";
  }
  s.routing = s.has_routed = s.disordered = s.may_not_fire = true;
  // Frenzy ends when the unit is "pushed back or worse in melee": a new
  // rout does it, a router's continuing rout move does not (a router that
  // became frenzied on its test for a lost stand stays frenzied).
  if (new_rout) s.frenzied = false;
  rules::EndCharge(state_, unit);  // A charge ends when its charger routs.
  LeaveMelee(unit);
  ApplyBlock(unit, blocked);
  OweRoutTests(unit, move.friends_near(), move.interpenetrated());
}

void DaimyoEngine::DisorderPursuersMeetingFreshEnemy(
    const rules::daimyo::MeleePairing& pairing) {
  // Nothing below changes a unit that did not pursue from a long melee and
  // whose disorder is the one it brought into this melee: the readings
  // agree, and the option is not consulted (rules/reading_probe.h).
  const bool may_change = [&] {
    for (int side = 0; side < 2; ++side) {
      const int unit = pairing.sides[side].unit;
      const rules::UnitStatus& s = state_.units[unit];
      if (s.pursued_from_long_melee) return true;
      const auto start = at_melee_start_.find(unit);
      if (start != at_melee_start_.end() &&
          start->second.disordered != s.disordered) {
        return true;
      }
    }
    return false;
  }();
  if (!may_change) return;
  if (rules_.options.pursuit_disorder() !=
      rules::daimyo::PursuitDisorder::kFreshEnemy) {
    return;
  }
  for (int side = 0; side < 2; ++side) {
    const int unit = pairing.sides[side].unit;
    rules::UnitStatus& s = state_.units[unit];
    // In a multi-unit melee the disorder goes with the +2 (reading 26 e): a
    // pairing its pursuit did not meet is fought in the order the unit
    // brought into the melee, whether the log writes it before or after.
    const auto start = at_melee_start_.find(unit);
    if (start != at_melee_start_.end()) s.disordered = start->second.disordered;
    // "will get the +2 modifier for pursuing but will also be disordered if
    // the original melee lasted more than one turn": it fights disordered.
    if (s.pursued_from_long_melee &&
        rules::daimyo::PursuesIntoThisMelee(state_, pairing, side)) {
      s.disordered = true;
      if (start != at_melee_start_.end()) {
        start->second.disordered_by_pursuit = true;
      }
    }
  }
}

void DaimyoEngine::ApplyPursuit(int unit, const v1::ResultMove& move) {
  rules::UnitStatus& s = state_.units[unit];
  const int router = owed_move_opponent_[unit];
  s.pursued_from_long_melee = owed_move_rounds_[unit] > 1;
  if (s.pursued_from_long_melee &&
      rules_.options.pursuit_disorder() ==
          rules::daimyo::PursuitDisorder::kAlways) {
    s.disordered = true;
  }
  s.pursuing = true;
  s.pursued_on_turn = state_.turn;
  LeaveMelee(unit);
  if (move.contact_after_pursuit() && router >= 0 &&
      !state_.units[router].removed) {
    state_.units[router].removal_owed =
        "still in contact with its pursuers after the rout and pursuit";
  }
  owed_move_opponent_[unit] = -1;
}

void DaimyoEngine::OweRoutTests(
    int router, const google::protobuf::RepeatedPtrField<std::string>& near,
    const google::protobuf::RepeatedPtrField<std::string>& through) {
  const bool leader_routs =
      state_.AttachedLeader(router, rules::LeaderKind::kGeneral) >= 0 ||
      state_.AttachedLeader(router, rules::LeaderKind::kDaimyo) >= 0;
  ResolveUnitList(near, "unit near the routers", list_units_);
  if (Measuring(router)) {
    MeasureFriendsNear(
        router,
        [&] { return absl::StrCat(UnitLabel(state_, router), "'s rout move"); },
        list_units_);
  }
  for (const int u : list_units_) {
    if (u == router || state_.units[u].removed) continue;
    if (state_.profiles[u].clan != state_.profiles[router].clan) continue;
    if (leader_routs) {
      state_.units[u].owed_morale |= rules::ReasonBit(5);
    } else if (rules::daimyo::HeedsRouter(state_, u, router)) {
      state_.units[u].owed_morale |= rules::ReasonBit(6);
    }
  }
  ResolveUnitList(through, "interpenetrated unit", list_units_);
  if (measured_through_.has_value()) {
    CompareThrough(router, *measured_through_);
    list_units_ = *std::move(measured_through_);
    measured_through_.reset();
  }
  for (const int u : list_units_) {
    if (state_.units[u].removed) continue;
    state_.units[u].disordered = true;
    state_.units[u].owed_morale |= rules::ReasonBit(7);
  }
}

void DaimyoEngine::OnRemoval(const v1::Removal& removal) {
  const int unit = ResolveUnit(removal.unit(), "removed unit");
  if (unit < 0 || !UnitOnTable(unit, "be removed again")) return;
  state_.units[unit].removed = true;
  state_.FootprintChanged(unit);
  state_.units[unit].removal_owed.clear();
  rules::EndCharge(state_, unit);
  owed_moves_[unit] = OwedMove::kNone;
  LeaveMelee(unit);
}

bool DaimyoEngine::FoughtThisTurn(int a, int b) const {
  const std::pair<int, int> pair(std::min(a, b), std::max(a, b));
  return std::find(fought_pairs_.begin(), fought_pairs_.end(), pair) !=
         fought_pairs_.end();
}

bool DaimyoEngine::OwesCompulsoryMove(int unit) const {
  return Compulsory(owed_moves_[static_cast<std::size_t>(unit)]);
}

void DaimyoEngine::CheckResultMovesMade(int unit,
                                        absl::FunctionRef<std::string()> what) {
  // One unit's, or (unit -1) every unit's.
  const std::size_t first = unit >= 0 ? static_cast<std::size_t>(unit) : 0;
  const std::size_t end = unit >= 0 ? std::min(first + 1, state_.units.size())
                                    : state_.units.size();
  for (std::size_t u = first; u < end; ++u) {
    if (!Compulsory(owed_moves_[u]) || state_.units[u].removed) continue;
    Violation("daimyo.result_move.missing", state_.profiles[u].id,
              absl::StrFormat("%s owed %s, but %s came first; a result move "
                              "is made as soon as its result comes.",
                              UnitLabel(state_, static_cast<int>(u)),
                              OwedMoveName(owed_moves_[u]), what()));
    owed_moves_[u] = OwedMove::kNone;
  }
}

void DaimyoEngine::EndMeleesOfRemovedUnits() {
  // A unit that lost its last stand is off the table: its melees are over,
  // and its opponents are free (they need not fight on next turn).
  for (std::size_t i = 0; i < state_.melees.size();) {
    const rules::MeleeContact& m = state_.melees[i];
    const int gone = state_.units[m.a].removed   ? m.a
                     : state_.units[m.b].removed ? m.b
                                                 : -1;
    if (gone < 0) {
      ++i;
      continue;
    }
    LeaveMelee(gone);  // Erases contact i, at least: look at i again.
  }
}

void DaimyoEngine::CheckMeleeAtTurnEnd() {
  SettleMelee();
  EndMeleesOfRemovedUnits();
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    rules::UnitStatus& s = state_.units[u];
    const std::string& id = state_.profiles[u].id;
    if (Compulsory(owed_moves_[u]) && !s.removed) {
      Violation("daimyo.result_move.missing", id,
                absl::StrFormat("%s owed %s after its melee this turn; the "
                                "log has none.",
                                UnitLabel(state_, static_cast<int>(u)),
                                OwedMoveName(owed_moves_[u])));
    }
    owed_moves_[u] = OwedMove::kNone;
    owed_move_opponent_[u] = -1;
    if (!s.removal_owed.empty() && !s.removed) {
      Violation("daimyo.melee.destroyed_not_removed", id,
                absl::StrFormat("%s was destroyed (%s) but stays on the "
                                "table; remove it before the turn ends.",
                                UnitLabel(state_, static_cast<int>(u)),
                                s.removal_owed));
      s.removal_owed.clear();
    }
  }
  for (const rules::MeleeContact& m : state_.melees) {
    if (m.last_turn_fought == state_.turn) continue;
    Violation("daimyo.melee.must_fight", state_.profiles[m.a].id,
              absl::StrFormat("%s and %s are in melee but did not fight this "
                              "turn; units in contact fight every turn until "
                              "the melee is decided.",
                              UnitLabel(state_, m.a), UnitLabel(state_, m.b)));
  }
}

void DaimyoEngine::OnChallenge(const v1::Challenge& challenge) {
  auto challenger = leader_index_.find(challenge.challenger());
  auto challenged = leader_index_.find(challenge.challenged());
  if (challenger == leader_index_.end() || challenged == leader_index_.end()) {
    Violation("log.leader.unknown", challenge.challenger(),
              "A leader of the challenge is not in the order of battle; the "
              "event is skipped.");
    return;
  }
  EnterPhase(Phase::kMelee, "challenge");
  rules::daimyo::Duel duel;
  duel.challenger = challenger->second;
  duel.challenged = challenged->second;
  duel.accepted = challenge.accepted();
  duel.dice =
      absl::MakeConstSpan(challenge.dice().data(), challenge.dice_size());
  AwaitRoundIfNotEngaged(duel);
  const bool resolvable =
      rules::daimyo::CheckDuel(rules_, state_, duel, *this) && duel.accepted;
  int winner = resolvable ? ComputedDuelWinner(challenge, duel) : -1;
  if (duel.accepted && !(resolvable && FollowComputed())) {
    const int claimed = ClaimedDuelWinner(challenge, duel);
    if (claimed >= 0) winner = claimed;  // As played.
  }
  const int loser_unit =
      winner < 0 ? -1
                 : state_
                       .leaders[winner == duel.challenger ? duel.challenged
                                                          : duel.challenger]
                       .attached_unit;
  rules::daimyo::ApplyDuel(rules_, state_, duel, winner);
  if (loser_unit >= 0) OweLeaderDeathTests(loser_unit, challenge.units_near());
}

void DaimyoEngine::AwaitRoundIfNotEngaged(rules::daimyo::Duel& duel) {
  // Units neither in contact nor charging each other may still be about to
  // fight a round the log declares in contact: the event that follows must
  // be that round (CheckChallengeFollowedByRound), as RULES.md reading 25.
  const rules::LeaderState& a = state_.leaders[duel.challenger];
  const rules::LeaderState& b = state_.leaders[duel.challenged];
  const int ua = a.attached_unit;
  const int ub = b.attached_unit;
  if (!a.killed && !b.killed && ua >= 0 && ub >= 0 &&
      state_.FindMelee(ua, ub) == nullptr && !state_.IsChargedBy(ua, ub) &&
      !state_.IsChargedBy(ub, ua)) {
    duel.engaged_by_next_round = true;
    challenge_awaiting_round_ = {seq_, ua, ub};
  }
}

int DaimyoEngine::ComputedDuelWinner(const v1::Challenge& challenge,
                                     const rules::daimyo::Duel& duel) {
  const int winner = rules::daimyo::ResolveDuel(state_, duel, nullptr);
  if (!challenge.claimed_winner().empty() &&
      challenge.claimed_winner() != state_.leaders[winner].id) {
    Finding f;
    f.severity = Severity::kDispute;
    f.rule_id = "daimyo.challenge.duel";
    f.subject = challenge.challenger();
    rules::daimyo::ResolveDuel(state_, duel, &f.trace);
    f.claimed = absl::StrCat(challenge.claimed_winner(), " wins");
    f.computed = absl::StrCat(state_.leaders[winner].id, " wins");
    f.message = absl::StrFormat(
        "The log says %s won the duel, but 1d6 + command rating gives the "
        "win to %s.",
        challenge.claimed_winner(), state_.leaders[winner].id);
    Report(std::move(f));
  }
  if (recording_outcomes()) {
    // The duel's dice, rating and verdict, pair by pair: the rule that
    // decided it is exercised (gunbai generate --coverage).
    rules::Trace trace;
    rules::daimyo::ResolveDuel(state_, duel, &trace);
    RecordOutcome(challenge.challenger(), "duel_winner",
                  state_.leaders[winner].id, &trace);
  }
  if (FollowComputed() && branch_event_ != nullptr &&
      !challenge.claimed_winner().empty()) {
    branch_event_->mutable_challenge()->set_claimed_winner(
        state_.leaders[winner].id);
  }
  return winner;
}

int DaimyoEngine::ClaimedDuelWinner(const v1::Challenge& challenge,
                                    const rules::daimyo::Duel& duel) const {
  if (challenge.claimed_winner().empty()) return -1;
  auto it = leader_index_.find(challenge.claimed_winner());
  if (it != leader_index_.end() &&
      (it->second == duel.challenger || it->second == duel.challenged)) {
    return it->second;
  }
  return -1;
}

void DaimyoEngine::CheckChallengeFollowedByRound(const v1::Event& event) {
  if (challenge_awaiting_round_.seq == 0) return;
  const ChallengeAwaitingRound c = challenge_awaiting_round_;
  challenge_awaiting_round_ = ChallengeAwaitingRound();
  if (event.has_melee_round() && event.melee_round().sides_size() == 2) {
    const auto a = unit_index_.find(event.melee_round().sides(0).unit());
    const auto b = unit_index_.find(event.melee_round().sides(1).unit());
    if (a != unit_index_.end() && b != unit_index_.end() &&
        ((a->second == c.a && b->second == c.b) ||
         (a->second == c.b && b->second == c.a))) {
      return;
    }
  }
  Violation("daimyo.challenge.engaged", state_.profiles[c.a].id,
            absl::StrFormat(
                "The challenge at seq %d was made while %s and %s were "
                "neither in melee nor charging each other, and this event is "
                "not their round of melee: a challenge is made between units "
                "engaged in melee, right before their round.",
                c.seq, UnitLabel(state_, c.a), UnitLabel(state_, c.b)));
}

void DaimyoEngine::OweLeaderDeathTests(
    int unit, const google::protobuf::RepeatedPtrField<std::string>& near) {
  ResolveUnitList(near, "unit near the dead leader", list_units_);
  if (Measuring(unit)) {
    MeasureFriendsNear(
        unit,
        [&] {
          return absl::StrCat("The death of the leader with ",
                              UnitLabel(state_, unit));
        },
        list_units_);
    // "-2 Leader killed this turn within 15cm", measured as reason 5 is, at
    // the death: his own unit (0 cm) and the friends then near (reading 44).
    state_.units[unit].leader_killed_near = true;
    for (const int u : list_units_) state_.units[u].leader_killed_near = true;
  }
  for (const int u : list_units_) {
    if (state_.units[u].removed) continue;
    if (state_.profiles[u].clan != state_.profiles[unit].clan) continue;
    state_.units[u].owed_morale |= rules::ReasonBit(5);
  }
}

}  // namespace gunbai::rules::daimyo
