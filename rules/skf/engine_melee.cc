// The melee part of the Samurai Knight Fever engine: pairings, the bases
// each fights with, the hits, and the settling of a melee. See engine.h.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/skf/engine.h"

namespace gunbai::rules::skf {

namespace {

namespace v1 = ::gunbai::v1;

// Modifier names a side may give; more are ignored with a violation.
constexpr int kMaxModifierNames = 64;

std::string Hits(int n) { return absl::StrCat(n, n == 1 ? " hit" : " hits"); }

}  // namespace

void SkfEngine::OnMeleeRound(const v1::MeleeRound& round) {
  if (round.sides_size() != 2) {
    Violation("log.melee.sides", "",
              absl::StrFormat("A melee pairing has two sides; this one has "
                              "%d. It is skipped.",
                              round.sides_size()));
    return;
  }
  const int a = ResolveUnit(round.sides(0).unit(), "melee unit");
  const int b = ResolveUnit(round.sides(1).unit(), "melee unit");
  if (a < 0 || b < 0 || !UnitOnTable(a, "fight") || !UnitOnTable(b, "fight") ||
      !StartMelee(round, a, b)) {
    return;
  }
  ShowPhase(Phase::kMelee);
  Pairing pairing;
  pairing.seq = seq_;
  pairing.turn = turn_;
  pairing.units = {a, b};
  for (int s = 0; s < 2; ++s) {
    const v1::MeleeSide& side = round.sides(s);
    pairing.bases[s] = static_cast<int>(
        std::min<uint32_t>(side.stands_fighting(), kMaxBases + 1));
    pairing.in_contact[s] = static_cast<int>(
        std::min<uint32_t>(side.front_stands_in_contact(), kMaxBases + 1));
  }
  CheckBases(round, pairing);
  const bool dice_ok[2] = {CheckDice(round.sides(0), a),
                           CheckDice(round.sides(1), b)};
  const MeleePairing input = PairingInput(round, pairing);
  std::array<bool, 2> resolvable = CheckMeleePairing(tables_, input, *this);
  for (int s = 0; s < 2; ++s) resolvable[s] = resolvable[s] && dice_ok[s];
  ResolveHits(round, input, resolvable, pairing);
  ++pairings_in_melee_[a];
  ++pairings_in_melee_[b];
  pairings_.push_back(pairing);
}

bool SkfEngine::StartMelee(const v1::MeleeRound& round, int a, int b) {
  if (a == b) {
    Violation("skf.melee.enemy", state_.profiles[a].id,
              absl::StrCat(UnitLabel(state_, a),
                           " fights itself; the pairing is skipped."));
    return false;
  }
  if (!melee_open_) {
    melee_open_ = true;
    melee_id_ = round.melee_id();
    if (!melee_id_.empty() && settled_melee_ids_.contains(melee_id_)) {
      Violation("skf.melee.id_reused", round.sides(0).unit(),
                absl::StrFormat(
                    "The melee \"%s\" was fought and settled earlier this "
                    "turn; the pairings of one melee are logged together, "
                    "before its morale checks. This pairing is replayed as "
                    "a new melee.",
                    melee_id_));
    }
  }
  if (static_cast<int>(pairings_.size()) >= kMaxPairings) {
    Violation("skf.melee.too_many_pairings", round.sides(0).unit(),
              absl::StrFormat("The melee \"%s\" has more than %d pairings; "
                              "this one is skipped.",
                              melee_id_, kMaxPairings));
    return false;
  }
  if (state_.profiles[a].clan == state_.profiles[b].clan) {
    Violation("skf.melee.enemy", round.sides(0).unit(),
              absl::StrFormat("%s and %s are of the same clan; a melee is "
                              "fought against the enemy.",
                              UnitLabel(state_, a), UnitLabel(state_, b)));
  }
  for (const Pairing& p : pairings_) {
    if ((p.units[0] == a && p.units[1] == b) ||
        (p.units[0] == b && p.units[1] == a)) {
      Violation(
          "skf.melee.pairing_twice", round.sides(0).unit(),
          absl::StrFormat("%s and %s are already paired in this melee "
                          "(seq %d); each pair of units fights once.",
                          UnitLabel(state_, a), UnitLabel(state_, b), p.seq));
      break;
    }
  }
  return true;
}

void SkfEngine::CheckBases(const v1::MeleeRound& round,
                           const Pairing& pairing) {
  for (int s = 0; s < 2; ++s) {
    const int unit = pairing.units[s];
    const int have = state_.units[unit].stands;
    const int bases = pairing.bases[s];
    if (bases < 1 || bases > have) {
      Violation("skf.melee.bases.fighting", round.sides(s).unit(),
                absl::StrFormat("%s fights with %d bases; it has %d, and "
                                "fights with 1 to %d.",
                                UnitLabel(state_, unit), bases, have, have));
      continue;
    }
    const int before = bases_in_melee_[unit];
    bases_in_melee_[unit] = std::min(before + bases, 2 * kMaxBases);
    if (before > 0 && before + bases > have) {
      Violation(
          "skf.melee.bases.split", round.sides(s).unit(),
          absl::StrFormat("%s fights with %d bases here and %d in its other "
                          "pairings of this melee: %d, but it has %d. In a "
                          "multiple melee each base fights only the enemy it "
                          "touches.",
                          UnitLabel(state_, unit), bases, before,
                          before + bases, have));
    }
  }
}

bool SkfEngine::CheckDice(const v1::MeleeSide& side, int unit) {
  const auto& dice = side.dice();
  const bool faces_ok = CheckDieFaces(
      absl::MakeConstSpan(dice.data(), dice.size()),
      [&] { return absl::StrCat("the melee roll of ", side.unit()); },
      side.unit(), *this);
  if (dice.size() == 1) return faces_ok;
  Violation("skf.melee.dice_count", side.unit(),
            absl::StrFormat("%s rolls %d dice in melee; each side rolls one "
                            "die on its odds column. Its hits are not "
                            "checked.",
                            UnitLabel(state_, unit), dice.size()));
  return false;
}

MeleePairing SkfEngine::PairingInput(const v1::MeleeRound& round,
                                     const Pairing& pairing) {
  MeleePairing input;
  for (int s = 0; s < 2; ++s) {
    const v1::MeleeSide& side = round.sides(s);
    const int unit = pairing.units[s];
    MeleeSideInput& in = input.sides[s];
    in.id = state_.profiles[unit].id;
    in.label = UnitLabel(state_, unit);
    in.troop_type = state_.profiles[unit].troop_type;
    in.mobility = facts_[unit].mobility;
    in.bases_fighting = std::min(pairing.bases[s], kMaxBases);
    in.die = side.dice_size() == 1 ? static_cast<int>(side.dice(0)) : 0;
    std::vector<std::string>& names = modifier_names_[s];
    names.clear();
    for (const std::string& name : side.modifiers()) {
      if (static_cast<int>(names.size()) == kMaxModifierNames) {
        Violation("skf.melee.modifier.too_many", side.unit(),
                  absl::StrFormat("%s names more than %d modifiers; the rest "
                                  "are ignored.",
                                  in.label, kMaxModifierNames));
        break;
      }
      names.push_back(name);
    }
    in.modifiers = names;
  }
  return input;
}

void SkfEngine::ResolveHits(const v1::MeleeRound& round,
                            const MeleePairing& input,
                            std::array<bool, 2> resolvable, Pairing& pairing) {
  std::array<int, 2> hits = {0, 0};  // Scored by each side.
  for (int s = 0; s < 2; ++s) {
    const v1::MeleeSide& side = round.sides(s);
    if (resolvable[s]) {
      Trace trace;
      const MeleeSideResult res = ResolveMeleeSide(
          tables_, input, s, outcomes_ != nullptr ? &trace : nullptr);
      hits[s] = res.hits;
      if (outcomes_ != nullptr) {
        RecordOutcome(side.unit(), "odds_column",
                      ColumnName(tables_.columns[res.column]), nullptr);
        RecordOutcome(side.unit(), "hits", absl::StrCat(res.hits), &trace);
      }
      if (FollowComputed() && branch_event_ != nullptr &&
          side.has_claimed_hits()) {
        branch_event_->mutable_melee_round()
            ->mutable_sides(s)
            ->set_claimed_hits(static_cast<uint32_t>(res.hits));
      }
      if (FollowComputed() || !side.has_claimed_hits()) continue;
      if (side.claimed_hits() != static_cast<uint32_t>(res.hits)) {
        ReportHitDispute(input, s, side.claimed_hits(), res.hits);
      }
    } else if (!side.has_claimed_hits()) {
      Unverifiable("skf.melee.hit", side.unit(),
                   absl::StrCat(input.sides[s].label,
                                ": its hits cannot be worked out and the log "
                                "claims none; replay lands none."));
      continue;
    }
    hits[s] = static_cast<int>(std::min<uint32_t>(side.claimed_hits(), 1000));
  }
  for (int s = 0; s < 2; ++s) {
    const v1::MeleeSide& side = round.sides(s);
    const int taken = hits[1 - s];
    int lost = static_cast<int>(
        std::min<uint32_t>(side.claimed_stands_lost(), kMaxBases + 1));
    if (lost > taken) {
      Violation("skf.melee.bases_lost", side.unit(),
                absl::StrFormat("%s claims %d base%s lost to %s; each base "
                                "removed takes one hit.",
                                input.sides[s].label, lost,
                                lost == 1 ? "" : "s", Hits(taken)));
      if (FollowComputed()) lost = taken;
    }
    // The branch removes as many bases as it lands (never more than the
    // hits taken, as the log chose), and says so.
    if (FollowComputed() && branch_event_ != nullptr &&
        side.has_claimed_stands_lost()) {
      branch_event_->mutable_melee_round()
          ->mutable_sides(s)
          ->set_claimed_stands_lost(static_cast<uint32_t>(lost));
    }
    pairing.hits_taken[s] = taken;
    pairing.bases_lost[s] = lost;
  }
}

void SkfEngine::ReportHitDispute(const MeleePairing& input, int side,
                                 uint32_t claimed, int computed) {
  Finding f;
  f.severity = Severity::kDispute;
  f.rule_id = "skf.melee.hit";
  f.subject = input.sides[side].id;
  const MeleeSideResult res = ResolveMeleeSide(tables_, input, side, &f.trace);
  f.claimed = Hits(static_cast<int>(std::min<uint32_t>(claimed, 1000)));
  f.computed = Hits(computed);
  const std::string column = ColumnName(tables_.columns[res.column]);
  f.message = absl::StrFormat(
      "%s in melee with %s: the log claims %s, the die gives %d (%d to %d "
      "rolls on %s; %d %+d = %d%s).",
      input.sides[side].label, input.sides[1 - side].label, f.claimed, computed,
      res.own_value, res.enemy_value, column, input.sides[side].die,
      res.modifier, res.score,
      res.unmodified_six
          ? absl::StrCat(", and an unmodified 6 at ", column, " always hits")
          : std::string());
  Report(std::move(f));
}

void SkfEngine::CheckBasesAtSettle() {
  const std::uint64_t seq = seq_;
  const std::uint32_t turn = turn_;
  for (const Pairing& p : pairings_) {
    seq_ = p.seq;  // Findings name the pairing.
    turn_ = p.turn;
    for (int s = 0; s < 2; ++s) {
      const int unit = p.units[s];
      const int have = state_.units[unit].stands;
      if (p.bases[s] < 1 || p.bases[s] > have) continue;  // Reported.
      const std::string& id = state_.profiles[unit].id;
      const int pairings = pairings_in_melee_[unit];
      if (pairings == 1 && p.bases[s] != have) {
        Violation("skf.melee.bases.all_fight", id,
                  absl::StrFormat("%s fights one enemy with %d of its %d "
                                  "bases; a unit in a single melee fights "
                                  "with all its bases.",
                                  UnitLabel(state_, unit), p.bases[s], have));
      } else if (pairings > 1 && p.in_contact[s] > 0 &&
                 p.bases[s] != p.in_contact[s]) {
        Violation("skf.melee.bases.in_contact", id,
                  absl::StrFormat("%s fights %s with %d bases, but %d are in "
                                  "contact with it; in a multiple melee a "
                                  "unit fights each enemy with the bases in "
                                  "contact with it.",
                                  UnitLabel(state_, unit),
                                  UnitLabel(state_, p.units[1 - s]), p.bases[s],
                                  p.in_contact[s]));
      }
    }
  }
  seq_ = seq;
  turn_ = turn;
}

void SkfEngine::SettleMelee() {
  if (!melee_open_) return;
  melee_open_ = false;
  if (!melee_id_.empty()) settled_melee_ids_.insert(melee_id_);
  CheckBasesAtSettle();
  // The hits of every pairing land together: both sides roll at once.
  std::vector<int> fighters;
  for (const Pairing& p : pairings_) {
    for (int s = 0; s < 2; ++s) {
      const int unit = p.units[s];
      if (std::find(fighters.begin(), fighters.end(), unit) == fighters.end()) {
        fighters.push_back(unit);
        bases_lost_in_melee_[unit] = 0;
      }
      const int before = state_.units[unit].stands;
      LandHits(unit, p.hits_taken[s], p.bases_lost[s]);
      bases_lost_in_melee_[unit] += before - state_.units[unit].stands;
    }
  }
  morale_melee_seq_ = pairings_.empty() ? seq_ : pairings_.front().seq;
  for (int unit : fighters) {
    bases_in_melee_[unit] = 0;
    pairings_in_melee_[unit] = 0;
    state_.units[unit].fought_this_turn = true;
    if (!state_.units[unit].removed) {
      morale_due_[unit] = MoraleDue::kOwed;
      window_units_.push_back(unit);
    }
    for (int leader : unit_leaders_[unit]) {
      if (state_.leaders[leader].killed) continue;
      leader_rolls_owed_[leader] = std::min(leader_rolls_owed_[leader] + 1, 64);
      state_.leaders[leader].loss_roll_owed = true;
    }
  }
  pairings_.clear();
}

void SkfEngine::CloseMoraleWindow(absl::string_view what) {
  for (int unit : window_units_) {
    if (morale_due_[unit] == MoraleDue::kOwed && !state_.units[unit].removed) {
      Violation(
          "skf.morale.missing", state_.profiles[unit].id,
          absl::StrFormat("%s fought in the melee at seq %d but did "
                          "not check morale before %s; after a melee "
                          "every unit that fought checks at once, even "
                          "with no casualties.",
                          UnitLabel(state_, unit), morale_melee_seq_, what));
    }
    morale_due_[unit] = MoraleDue::kNone;
    bases_lost_in_melee_[unit] = 0;
  }
  window_units_.clear();
}

}  // namespace gunbai::rules::skf
