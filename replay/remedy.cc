#include "replay/remedy.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "replay/text_errors.h"
#include "rules/builtin_rulesets.h"
#include "rules/digest.h"
#include "rules/excerpt.h"

namespace gunbai::replay {

namespace v1 = ::gunbai::v1;

absl::StatusOr<LoadedProcedure> LoadProcedure(absl::string_view text,
                                              absl::string_view source) {
  LoadedProcedure loaded;
  if (absl::Status parsed = ParseTextFormat(text, source, loaded.data);
      !parsed.ok()) {
    return parsed;
  }
  const v1::ErrorProcedure& p = loaded.data;
  if (p.name().empty() || p.version().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source,
        ": a procedure needs a name and a version (a report names them), as "
        "rules/procedures/pbem-default.textproto has."));
  }
  if (p.reroll_scope() == v1::REROLL_SCOPE_UNSPECIFIED ||
      p.redo_point() == v1::REDO_POINT_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        source,
        ": give reroll_scope (REROLL_SCOPE_EVENT, _SEGMENT or _TURN) and "
        "redo_point (REDO_POINT_ERROR or _ACTIVATION)."));
  }
  loaded.digest = base::Sha256Hex(base::DeterministicBytes(loaded.data));
  return loaded;
}

LoadedProcedure DefaultProcedure() {
  absl::StatusOr<LoadedProcedure> loaded = LoadProcedure(
      rules::DefaultProcedureText(), "rules/procedures/pbem-default.textproto");
  // The shipped file is checked by the suite; a broken build stops here.
  if (!loaded.ok()) std::abort();
  return *std::move(loaded);
}

namespace {

bool HasDice(const v1::Event& e) {
  switch (e.body_case()) {
    case v1::Event::kTurnStart:
      return e.turn_start().initiative_dice_size() > 0;
    case v1::Event::kFiring:
      return e.firing().dice_size() > 0;
    case v1::Event::kMeleeRound:
      for (const v1::MeleeSide& side : e.melee_round().sides()) {
        if (side.dice_size() > 0) return true;
      }
      return false;
    case v1::Event::kChallenge:
      return e.challenge().dice_size() > 0;
    case v1::Event::kMoraleTest:
      return e.morale_test().dice_size() > 0;
    case v1::Event::kLeaderLoss:
      return e.leader_loss().die() > 0;
    case v1::Event::kResultMove:
      return e.result_move().dice_size() > 0;
    default:
      return false;
  }
}

// The segment an event opens or belongs to within an activation: -1 for
// the events that follow from another (tests, result moves, leader-loss
// rolls, removals), which belong to the segment of the event before them.
enum Segment { kConsequence = -1, kMovement = 0, kFiring = 1, kMelee = 2 };

Segment SegmentOf(const v1::Event& e) {
  switch (e.body_case()) {
    case v1::Event::kMove:
    case v1::Event::kCharge:
      return kMovement;
    case v1::Event::kFiring:
      return kFiring;
    case v1::Event::kMeleeRound:
    case v1::Event::kChallenge:
      return kMelee;
    default:
      return kConsequence;
  }
}

bool OpensFrame(const v1::Event& e) {
  return e.has_turn_start() || e.has_activation() || e.has_turn_end() ||
         e.has_game_end();
}

// The log's events, with what the remedies ask of them.
class LogIndex {
 public:
  explicit LogIndex(const v1::BattleLog& log) : log_(log) {
    for (int i = 0; i < log.events_size(); ++i) {
      index_.emplace(log.events(i).seq(), i);
    }
    for (const v1::Unit& u : log.order_of_battle().units()) {
      clan_of_[u.id()] = u.clan();
    }
    for (const v1::Leader& l : log.order_of_battle().leaders()) {
      clan_of_[l.id()] = l.clan();
    }
  }

  int size() const { return log_.events_size(); }
  const v1::Event& at(int i) const { return log_.events(i); }
  // The index of the event of `seq`, or -1 (a finding about the armies).
  int IndexOf(std::uint64_t seq) const {
    auto it = index_.find(seq);
    return it == index_.end() ? -1 : it->second;
  }
  std::string ClanOf(const std::string& id) const {
    auto it = clan_of_.find(id);
    return it == clan_of_.end() ? std::string() : it->second;
  }

  // The first event of the segment event `i` falls in: walking back within
  // its activation over events of the same segment and their consequences.
  int SegmentStart(int i) const {
    int own = kConsequence;
    for (int j = i; j >= 0 && own == kConsequence; --j) {
      if (OpensFrame(at(j))) break;
      own = SegmentOf(at(j));
    }
    int start = i;
    for (int j = i - 1; j >= 0; --j) {
      const v1::Event& e = at(j);
      if (OpensFrame(e)) break;
      const int s = SegmentOf(e);
      if (s != kConsequence && s != own) break;
      start = j;
    }
    return start;
  }
  // The activation of `clan` that event `i` falls in (its index), or -1.
  int ActivationStart(int i, const std::string& clan) const {
    for (int j = i; j >= 0; --j) {
      const v1::Event& e = at(j);
      if (e.has_activation() && e.clan() == clan) return j;
      if (e.has_turn_start()) return -1;
    }
    return -1;
  }
  int TurnStart(int i) const {
    for (int j = i; j >= 0; --j) {
      if (at(j).has_turn_start()) return j;
    }
    return 0;
  }

 private:
  const v1::BattleLog& log_;
  std::map<std::uint64_t, int> index_;
  std::map<std::string, std::string> clan_of_;
};

std::string SeqList(const std::vector<std::uint64_t>& seqs) {
  constexpr std::size_t kShown = 8;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < seqs.size() && i < kShown; ++i) {
    shown.push_back(absl::StrCat(seqs[i]));
  }
  std::string out = absl::StrJoin(shown, ", ");
  if (seqs.size() > kShown) {
    absl::StrAppend(&out, " and ", seqs.size() - kShown, " more");
  }
  return out;
}

v1::Remedy RemedyFor(const LogIndex& log, const v1::ErrorProcedure& p,
                     const RemedyOptions& options, const v1::Finding& f) {
  v1::Remedy r;
  const int e = log.IndexOf(f.seq());
  std::string clan = log.ClanOf(f.subject());
  if (clan.empty() && e >= 0) clan = log.at(e).clan();
  if (e < 0) {
    // About the armies or the table, before the first event: set them
    // right and play from the start.
    r.set_kind(v1::Remedy::KIND_REDO);
    r.set_resume_after_seq(0);
    r.set_text(
        "redo: correct the armies or the table and play from the first "
        "event");
    return r;
  }
  // Sealed: the first legal roll by the other side after the error, unless
  // the error was raised before it.
  if (p.later_roll_seals()) {
    for (int j = e + 1; j < log.size(); ++j) {
      const v1::Event& roll = log.at(j);
      if (!HasDice(roll) || roll.clan().empty() || roll.clan() == clan) {
        continue;
      }
      const bool raised =
          p.raised_error_stays_open() &&
          std::any_of(options.raised_at.begin(), options.raised_at.end(),
                      [&](std::uint64_t at) {
                        return at > f.seq() && at <= roll.seq();
                      });
      if (raised) break;
      r.set_kind(v1::Remedy::KIND_STANDS);
      r.set_sealed_by_seq(roll.seq());
      r.set_text(absl::StrCat("stands: sealed by the roll at seq ", roll.seq(),
                              " (", roll.clan(),
                              "), made before anyone raised the error"));
      return r;
    }
  }
  int redo = e;
  if (p.redo_point() == v1::REDO_POINT_ACTIVATION && !clan.empty()) {
    const int a = log.ActivationStart(e, clan);
    if (a >= 0) redo = a;
  }
  int scope = e;
  if (p.reroll_scope() == v1::REROLL_SCOPE_SEGMENT) {
    scope = log.SegmentStart(e);
  } else if (p.reroll_scope() == v1::REROLL_SCOPE_TURN) {
    scope = log.TurnStart(e);
  }
  const int cut = std::min(redo, scope);
  r.set_kind(v1::Remedy::KIND_REDO);
  r.set_resume_after_seq(cut == 0 ? 0 : log.at(cut - 1).seq());
  r.set_redo_clan(clan);
  for (int j = scope; j <= e; ++j) {
    if (HasDice(log.at(j))) r.add_reroll_seqs(log.at(j).seq());
  }
  int seen = 0;
  if (p.reroll_seen_dice()) {
    for (int j = e + 1; j < log.size(); ++j) {
      if (HasDice(log.at(j))) {
        r.add_reroll_seqs(log.at(j).seq());
        ++seen;
      }
    }
  }
  const std::vector<std::uint64_t> rerolls(r.reroll_seqs().begin(),
                                           r.reroll_seqs().end());
  r.set_text(absl::StrCat(
      "redo: keep the log up to seq ", r.resume_after_seq(),
      " and play again from seq ", log.at(cut).seq(),
      clan.empty() ? std::string()
                   : absl::StrCat(", where ", clan, " makes its move again"),
      rerolls.empty()
          ? std::string("; nothing to roll again")
          : absl::StrCat("; roll again seq ", SeqList(rerolls),
                         seen > 0 ? absl::StrCat(" (", seen,
                                                 " of them rolled after the "
                                                 "error and seen)")
                                  : std::string())));
  return r;
}

}  // namespace

void AddRemedies(const v1::BattleLog& log, const LoadedProcedure& procedure,
                 const RemedyOptions& options, v1::AuditReport& report) {
  const LogIndex index(log);
  for (v1::Finding& f : *report.mutable_findings()) {
    *f.mutable_remedy() = RemedyFor(index, procedure.data, options, f);
  }
  v1::RulesetInfo* info = report.mutable_procedure();
  info->set_name(procedure.data.name());
  info->set_version(procedure.data.version());
  info->set_digest(procedure.digest);
}

RemedyPlan PlanRemedy(const v1::BattleLog& log, const v1::AuditReport& report) {
  RemedyPlan plan;
  const v1::Finding* first = nullptr;
  for (const v1::Finding& f : report.findings()) {
    const v1::Remedy& r = f.remedy();
    if (r.kind() == v1::Remedy::KIND_STANDS) {
      plan.standing_seqs.push_back(f.seq());
    } else if (r.kind() == v1::Remedy::KIND_REDO &&
               (first == nullptr ||
                r.resume_after_seq() < first->remedy().resume_after_seq())) {
      first = &f;
    }
  }
  std::sort(plan.standing_seqs.begin(), plan.standing_seqs.end());
  plan.kept = log;
  if (first == nullptr) return plan;
  plan.redo = true;
  plan.resume_after_seq = first->remedy().resume_after_seq();
  // Errors after the point play resumes from are cut with their events.
  std::erase_if(plan.standing_seqs, [&plan](std::uint64_t seq) {
    return seq > plan.resume_after_seq;
  });
  plan.redo_clan = first->remedy().redo_clan();
  std::set<std::uint64_t> rerolls;
  for (const v1::Finding& f : report.findings()) {
    if (f.remedy().kind() != v1::Remedy::KIND_REDO) continue;
    for (std::uint64_t seq : f.remedy().reroll_seqs()) {
      if (seq > plan.resume_after_seq) rerolls.insert(seq);
    }
  }
  plan.reroll_seqs.assign(rerolls.begin(), rerolls.end());
  plan.kept.clear_events();
  for (const v1::Event& e : log.events()) {
    if (e.seq() <= plan.resume_after_seq) *plan.kept.add_events() = e;
  }
  return plan;
}

}  // namespace gunbai::replay
