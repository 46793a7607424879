#include "rules/skf/morale.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gunbai::rules::skf {

namespace {

constexpr absl::string_view kMoraleRule = "skf.morale.result";

int PassScore(const MoraleTest& test, std::optional<Quality> quality) {
  if (!quality.has_value()) return 0;
  return test.pass_scores[static_cast<std::size_t>(*quality)];
}

MoraleResult FailureResult(const MoraleTest& test, int fail_by) {
  MoraleResult result = MoraleResult::kNoEffect;
  for (const MoraleFailure& f : test.failures) {
    if (fail_by >= f.fail_by) result = f.result;
  }
  return result;
}

}  // namespace

bool CheckMoraleTest(const MoraleTest& test, const MoraleInput& in,
                     FindingSink& sink) {
  bool ok = true;
  if (static_cast<int>(in.dice.size()) != test.dice) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "skf.morale.dice_count";
    f.subject = in.id;
    f.message = absl::StrFormat(
        "%s checks morale with %d dice; the check rolls %d. It is not "
        "checked.",
        in.label, in.dice.size(), test.dice);
    sink.Report(std::move(f));
    ok = false;
  }
  if (PassScore(test, in.quality) <= 0) {
    Finding f;
    f.severity = Severity::kUnverifiable;
    f.rule_id = "skf.morale.pass_score";
    f.subject = in.id;
    f.message =
        in.quality.has_value()
            ? absl::StrFormat(
                  "The ruleset gives no morale pass score for %s units, so "
                  "the check of %s is not checked; add one to "
                  "skf.morale.pass_scores in the ruleset file.",
                  QualityName(*in.quality), in.label)
            : absl::StrFormat(
                  "%s has no quality in the order of battle, so its morale "
                  "check is not checked; give the unit a quality.",
                  in.label);
    sink.Report(std::move(f));
    ok = false;
  }
  return ok;
}

MoraleOutcome ResolveMoraleTest(const MoraleTest& test, const MoraleInput& in,
                                Trace* trace) {
  MoraleOutcome out;
  for (std::uint32_t die : in.dice) {
    out.total += static_cast<int>(die);
    if (trace != nullptr) {
      trace->push_back(
          {static_cast<int>(die), "die", kMoraleRule, Origin::kDice});
    }
  }
  const struct {
    int count;
    int per;
    absl::string_view what;
  } modifiers[] = {
      {in.leaders_touching, test.per_leader_touching, "leaders touching"},
      {in.bases_lost, test.per_base_lost, "bases lost in the melee"},
      {in.disorder, test.per_disorder_point, "disorder factor"},
  };
  for (const auto& m : modifiers) {
    if (m.count == 0 || m.per == 0) continue;
    out.total += m.count * m.per;
    if (trace != nullptr) {
      trace->push_back({m.count * m.per,
                        absl::StrFormat("%s: %d x %+d", m.what, m.count, m.per),
                        "skf.morale.modifier", Origin::kComputed});
    }
  }
  out.pass_score = PassScore(test, in.quality);
  out.fail_by = out.total >= out.pass_score ? 0 : out.pass_score - out.total;
  out.result = out.fail_by == 0 ? MoraleResult::kNoEffect
                                : FailureResult(test, out.fail_by);
  if (trace != nullptr) {
    trace->push_back(
        {out.total,
         out.fail_by == 0
             ? absl::StrFormat("total %d, %d+ passes: no effect", out.total,
                               out.pass_score)
             : absl::StrFormat("total %d, %d+ passes: fails by %d, %s",
                               out.total, out.pass_score, out.fail_by,
                               MoraleResultName(out.result)),
         kMoraleRule, Origin::kComputed});
  }
  return out;
}

bool LeaderHitKills(int killed_at_or_below, int die, Trace* trace) {
  const bool killed = die <= killed_at_or_below;
  if (trace != nullptr) {
    trace->push_back(
        {die,
         absl::StrFormat("leader-hit die: %d or less kills; %s",
                         killed_at_or_below, killed ? "killed" : "survives"),
         "skf.leader_hit.roll", Origin::kDice});
  }
  return killed;
}

}  // namespace gunbai::rules::skf
