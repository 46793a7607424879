#include "replay/dice_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "google/protobuf/util/json_util.h"
#include "replay/log_parser.h"
#include "replay/text_errors.h"
#include "rules/engine.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

constexpr int kFaceDegreesOfFreedom = 5;
constexpr int kSumCells = 11;
constexpr int kSumWays[kSumCells] = {1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1};
// A run needs two dice; a test of fewer cannot reject.
constexpr std::int64_t kMinDiceForRunTest = 2;
// RunProbability sums the chances of the current run's start over the last
// this many dice: older starts weigh 6^-32 or less, below double rounding.
constexpr int kRunWindow = 32;
constexpr int kMaxGammaIterations = 1000;
constexpr double kGammaEpsilon = 1e-15;
constexpr double kTiny = 1e-300;

// P(a, x) by its series; good for x < a + 1.
double LowerGammaSeries(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n <= kMaxGammaIterations; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kGammaEpsilon) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) by its continued fraction (modified Lentz); good for x >= a + 1.
double UpperGammaFraction(double a, double x) {
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i <= kMaxGammaIterations; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kGammaEpsilon) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

// Whom the dice of a game belong to: unit and leader ids to clan ids; and
// which of its rolls its ruleset sums in pairs (RulesetPlugin::
// dice_in_pairs; null for a ruleset gunbai does not know: every die alone).
struct Owners {
  absl::flat_hash_map<std::string, std::string> unit_clan;
  absl::flat_hash_map<std::string, std::string> leader_clan;
  bool (*in_pairs)(v1::Event::BodyCase roll, int dice) = nullptr;
};

Owners OwnersOf(const v1::BattleLog& log) {
  Owners owners;
  // A log that names no ruleset is read by the first plug-in's, as the
  // audit reads it (replay::RulesetCatalog::ForLog).
  const std::string& name = log.header().ruleset().name();
  const rules::RulesetPlugin* plugin = name.empty()
                                           ? &rules::RulesetPlugins().front()
                                           : rules::FindRulesetPlugin(name);
  if (plugin != nullptr) owners.in_pairs = plugin->dice_in_pairs;
  const v1::OrderOfBattle& oob = log.order_of_battle();
  for (const v1::Unit& u : oob.units()) owners.unit_clan[u.id()] = u.clan();
  for (const v1::Leader& l : oob.leaders()) {
    owners.leader_clan[l.id()] = l.clan();
  }
  return owners;
}

absl::StatusOr<std::string> ClanOf(
    const absl::flat_hash_map<std::string, std::string>& clans,
    const std::string& id, const char* what, const v1::Event& event) {
  auto it = clans.find(id);
  if (it == clans.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("event ", event.seq(), ": ", what, " \"", Excerpt(id),
                     "\" is not in the order of battle"));
  }
  return it->second;
}

// The dice of one roll: a clan's dice of one event, in the order rolled.
using Roll = absl::Span<const std::uint32_t>;

template <typename Repeated>
Roll RollOf(const Repeated& dice) {
  return Roll(dice.data(), static_cast<std::size_t>(dice.size()));
}

// Calls `on_roll(clan, dice, in_pairs)` for each roll of `event`, in the
// order rolled (see AttributeDice), without copying a die; rolls with no
// clan or no dice are left out.
template <typename OnRoll>
absl::Status ForEachRoll(const v1::Event& event, const Owners& owners,
                         OnRoll&& on_roll) {
  auto add = [&](const std::string& clan, Roll dice) {
    if (clan.empty() || dice.empty()) return;
    on_roll(
        clan, dice,
        owners.in_pairs != nullptr &&
            owners.in_pairs(event.body_case(), static_cast<int>(dice.size())));
  };
  switch (event.body_case()) {
    case v1::Event::kTurnStart:
      add(event.clan(), RollOf(event.turn_start().initiative_dice()));
      break;
    case v1::Event::kFiring: {
      auto clan =
          ClanOf(owners.unit_clan, event.firing().unit(), "unit", event);
      if (!clan.ok()) return clan.status();
      add(*clan, RollOf(event.firing().dice()));
      break;
    }
    case v1::Event::kMeleeRound:
      for (const v1::MeleeSide& side : event.melee_round().sides()) {
        GUNBAI_ASSIGN_OR_RETURN(
            auto clan, ClanOf(owners.unit_clan, side.unit(), "unit", event));
        add(clan, RollOf(side.dice()));
      }
      break;
    case v1::Event::kChallenge: {
      const v1::Challenge& c = event.challenge();
      auto challenger =
          ClanOf(owners.leader_clan, c.challenger(), "leader", event);
      if (!challenger.ok()) return challenger.status();
      auto challenged =
          ClanOf(owners.leader_clan, c.challenged(), "leader", event);
      if (!challenged.ok()) return challenged.status();
      for (int i = 0; i < c.dice_size(); ++i) {
        add(i % 2 == 0 ? *challenger : *challenged,
            RollOf(c.dice()).subspan(i, 1));
      }
      break;
    }
    case v1::Event::kMoraleTest: {
      auto clan =
          ClanOf(owners.unit_clan, event.morale_test().unit(), "unit", event);
      if (!clan.ok()) return clan.status();
      add(*clan, RollOf(event.morale_test().dice()));
      break;
    }
    case v1::Event::kLeaderLoss: {
      if (event.leader_loss().die() == 0) break;
      GUNBAI_ASSIGN_OR_RETURN(
          auto clan, ClanOf(owners.leader_clan, event.leader_loss().leader(),
                            "leader", event));
      const std::uint32_t die = event.leader_loss().die();
      add(clan, Roll(&die, 1));
      break;
    }
    case v1::Event::kResultMove:
      add(event.clan(), RollOf(event.result_move().dice()));
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

// Appends the dice of `event` to `out`.
absl::Status AttributeEvent(const v1::Event& event, const Owners& owners,
                            std::vector<AttributedDice>& out) {
  return ForEachRoll(
      event, owners, [&](const std::string& clan, Roll dice, bool in_pairs) {
        out.push_back({event.seq(), clan,
                       std::vector<std::uint32_t>(dice.begin(), dice.end()),
                       in_pairs});
      });
}

bool IsFace(std::uint32_t die) { return die >= 1 && die <= 6; }

// Counts one die into `group`, continuing the current run and stretch.
void TallyDie(std::uint32_t die, int& run, std::uint32_t& last,
              std::int64_t& stretch, DiceGroupStats& group) {
  if (!IsFace(die)) {
    ++group.invalid_dice;
    if (stretch > 0) group.run_stretches.push_back(stretch);
    run = 0;
    last = 0;
    stretch = 0;
    return;
  }
  ++group.dice;
  ++stretch;
  ++group.face_counts[die - 1];
  run = die == last ? run + 1 : 1;
  last = die;
  if (run > group.longest_run) {
    group.longest_run = run;
    group.longest_run_face = static_cast<int>(die);
  }
}

// Counts the 2d6 pairs of `roll` into `group`.
void TallyPairs(Roll roll, DiceGroupStats& group) {
  for (std::size_t i = 0; i + 1 < roll.size(); i += 2) {
    if (!IsFace(roll[i]) || !IsFace(roll[i + 1])) continue;
    ++group.pairs;
    ++group.sum_counts[roll[i] + roll[i + 1] - 2];
  }
}

// A group being counted roll by roll: the run and the stretch go on from
// one roll to the next.
struct GroupTally {
  DiceGroupStats group;
  int run = 0;
  std::uint32_t last = 0;
  std::int64_t stretch = 0;

  // Adds the faces, the pair sums, the runs and the stretch of `roll`.
  void Add(Roll roll, bool in_pairs) {
    for (std::uint32_t die : roll) TallyDie(die, run, last, stretch, group);
    if (in_pairs) TallyPairs(roll, group);
  }
  // Ends the last stretch.
  void End() {
    if (stretch > 0) group.run_stretches.push_back(stretch);
    stretch = 0;
  }
};

// Adds the faces, the pair sums, the runs and the stretches of `dice` to
// `group`.
void Tally(const std::vector<AttributedDice>& dice, DiceGroupStats& group) {
  GroupTally tally;
  tally.group = std::move(group);
  for (const AttributedDice& roll : dice) {
    tally.Add(Roll(roll.dice), roll.in_pairs);
  }
  tally.End();
  group = std::move(tally.group);
}

// Returns how many sums are pooled into each tail to make `cells` cells.
int PooledPerTail(int cells) { return (kSumCells - cells) / 2 + 1; }

// Returns `values` (per sum 2-12) pooled into `cells` cells: the outermost
// PooledPerTail(cells) sums on each side make one cell each.
template <typename Values>
std::vector<double> PoolSums(const Values& values, int cells) {
  const int tail = PooledPerTail(cells);
  std::vector<double> pooled(cells, 0.0);
  for (int s = 0; s < kSumCells; ++s) {
    const int cell =
        s < tail ? 0 : (s >= kSumCells - tail ? cells - 1 : s - tail + 1);
    pooled[cell] += values[s];
  }
  return pooled;
}

// Returns the face counts as observed and expected counts.
void FaceCells(const std::array<std::int64_t, 6>& face_counts,
               std::vector<double>& observed, std::vector<double>& expected) {
  observed.assign(face_counts.begin(), face_counts.end());
  const double n = std::accumulate(observed.begin(), observed.end(), 0.0);
  expected.assign(6, n / 6);
}

// Returns the sum counts pooled into `cells` cells as observed and expected
// counts.
void SumCells(const std::array<std::int64_t, 11>& sum_counts, int cells,
              std::vector<double>& observed, std::vector<double>& expected) {
  observed = PoolSums(sum_counts, cells);
  const double n = std::accumulate(observed.begin(), observed.end(), 0.0);
  expected = PoolSums(kSumWays, cells);
  for (double& e : expected) e *= n / 36;
}

// Returns Pearson's chi-square of `observed` against `expected`; 0 when
// nothing is expected.
double PearsonChiSquare(const std::vector<double>& observed,
                        const std::vector<double>& expected) {
  double chi = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected[i] <= 0) return 0;
    const double d = observed[i] - expected[i];
    chi += d * d / expected[i];
  }
  return chi;
}

// Tests the faces of `group` when there are enough dice.
void TestFaces(DiceGroupStats& group) {
  group.face_chi_square = FaceChiSquare(group.face_counts);
  group.face_divergence = FaceDivergence(group.face_counts);
  group.face_too_few_dice = group.dice < kMinDiceForFaceTest;
  group.face_p_value =
      group.face_too_few_dice
          ? 1.0
          : ChiSquarePValue(group.face_divergence, kFaceDegreesOfFreedom);
}

// Tests the 2d6 sums of `group` when there are enough pairs.
void TestSums(DiceGroupStats& group) {
  group.sum_cells = SumCellsFor(group.pairs);
  group.sum_chi_square.reset();
  group.sum_divergence.reset();
  group.sum_p_value.reset();
  if (group.sum_cells == 0) return;
  group.sum_chi_square = PooledSumChiSquare(group.sum_counts, group.sum_cells);
  group.sum_divergence = PooledSumDivergence(group.sum_counts, group.sum_cells);
  group.sum_p_value =
      ChiSquarePValue(*group.sum_divergence, group.sum_cells - 1);
}

// Runs the one-sided tests of `group` when there are enough dice.
void TestOneSided(DiceGroupStats& group) {
  group.sixes_p_value.reset();
  group.other_face = 0;
  group.other_face_p_value.reset();
  group.high_total_z = 0;
  group.high_total_p_value.reset();
  if (group.dice < kMinDiceForFaceTest) return;
  group.sixes_p_value = BinomialUpperTail(group.dice, group.face_counts[5]);
  double smallest = 2;
  for (int face = 1; face <= 5; ++face) {
    const double tail =
        BinomialUpperTail(group.dice, group.face_counts[face - 1]);
    if (tail < smallest) {
      smallest = tail;
      group.other_face = face;
    }
  }
  group.other_face_p_value = std::min(1.0, 5 * smallest);
  std::int64_t total = 0;
  for (int face = 1; face <= 6; ++face) {
    total += face * group.face_counts[face - 1];
  }
  group.high_total_p_value =
      HighTotalPValue(group.dice, total, group.high_total_z);
}

// Adjusts the p-values of the tests `group` ran by weighted Holm, and sets
// its group p-value to the smallest.
void AdjustWithinGroup(DiceGroupStats& group) {
  std::vector<double> raw;
  std::vector<double> weights;
  std::vector<double*> adjusted_into;
  auto add = [&](double p, double weight, double* into) {
    raw.push_back(p);
    weights.push_back(weight);
    adjusted_into.push_back(into);
  };
  group.face_adjusted_p_value = 1;
  group.run_adjusted_p_value = 1;
  group.sum_adjusted_p_value.reset();
  group.sixes_adjusted_p_value.reset();
  group.other_face_adjusted_p_value.reset();
  group.high_total_adjusted_p_value.reset();
  if (!group.face_too_few_dice) {
    add(group.face_p_value, kFaceWeight, &group.face_adjusted_p_value);
  }
  if (group.sum_p_value.has_value()) {
    group.sum_adjusted_p_value = 1;
    add(*group.sum_p_value, kSumWeight, &*group.sum_adjusted_p_value);
  }
  if (group.dice >= kMinDiceForRunTest) {
    add(group.run_probability, kRunWeight, &group.run_adjusted_p_value);
  }
  if (group.sixes_p_value.has_value()) {
    group.sixes_adjusted_p_value = 1;
    add(*group.sixes_p_value, kSixesWeight, &*group.sixes_adjusted_p_value);
  }
  if (group.other_face_p_value.has_value()) {
    group.other_face_adjusted_p_value = 1;
    add(*group.other_face_p_value, kOtherFaceWeight,
        &*group.other_face_adjusted_p_value);
  }
  if (group.high_total_p_value.has_value()) {
    group.high_total_adjusted_p_value = 1;
    add(*group.high_total_p_value, kHighTotalWeight,
        &*group.high_total_adjusted_p_value);
  }
  const std::vector<double> adjusted = WeightedHolmAdjust(raw, weights);
  for (std::size_t i = 0; i < adjusted.size(); ++i) {
    *adjusted_into[i] = adjusted[i];
  }
  group.group_p_value =
      adjusted.empty() ? 1.0
                       : *std::min_element(adjusted.begin(), adjusted.end());
}

// Runs the tests of `group` from its counts and combines them.
void TestGroup(DiceGroupStats& group) {
  TestFaces(group);
  TestSums(group);
  group.run_probability =
      RunProbabilityOfStretches(group.run_stretches, group.longest_run);
  TestOneSided(group);
  AdjustWithinGroup(group);
}

// Returns "0.1234", or "1.2e-07" below 0.0001.
std::string PValueText(double p) {
  return p >= 1e-4 ? absl::StrFormat("%.4f", p) : absl::StrFormat("%.2g", p);
}

// Returns the tests of a flagged `group` whose adjusted p-value is below
// kDiceFlagLevel, each with its raw and adjusted p-value.
std::vector<std::string> ReasonsFor(const DiceGroupStats& group) {
  std::vector<std::string> reasons;
  if (group.face_adjusted_p_value < kDiceFlagLevel) {
    reasons.push_back(absl::StrFormat("faces: divergence %.2f, p = %s, Holm %s",
                                      group.face_divergence,
                                      PValueText(group.face_p_value),
                                      PValueText(group.face_adjusted_p_value)));
  }
  if (group.sum_adjusted_p_value.has_value() &&
      *group.sum_adjusted_p_value < kDiceFlagLevel) {
    reasons.push_back(
        absl::StrFormat("2d6 sums: divergence %.2f, p = %s, Holm %s",
                        *group.sum_divergence, PValueText(*group.sum_p_value),
                        PValueText(*group.sum_adjusted_p_value)));
  }
  if (group.sixes_adjusted_p_value.value_or(1) < kDiceFlagLevel) {
    reasons.push_back(absl::StrFormat(
        "too many 6s: %d of %d (expected %.1f), p = %s, Holm %s",
        group.face_counts[5], group.dice, group.dice / 6.0,
        PValueText(*group.sixes_p_value),
        PValueText(*group.sixes_adjusted_p_value)));
  }
  if (group.other_face_adjusted_p_value.value_or(1) < kDiceFlagLevel) {
    reasons.push_back(absl::StrFormat(
        "too many %ds: %d of %d (expected %.1f), p = %s (x5), Holm %s",
        group.other_face, group.face_counts[group.other_face - 1], group.dice,
        group.dice / 6.0, PValueText(*group.other_face_p_value),
        PValueText(*group.other_face_adjusted_p_value)));
  }
  if (group.high_total_adjusted_p_value.value_or(1) < kDiceFlagLevel) {
    reasons.push_back(absl::StrFormat(
        "total too high: %.2f standard deviations, p = %s, Holm %s",
        group.high_total_z, PValueText(*group.high_total_p_value),
        PValueText(*group.high_total_adjusted_p_value)));
  }
  if (group.run_adjusted_p_value < kDiceFlagLevel) {
    reasons.push_back(absl::StrFormat("run of %d %ds: chance %s, Holm %s",
                                      group.longest_run, group.longest_run_face,
                                      PValueText(group.run_probability),
                                      PValueText(group.run_adjusted_p_value)));
  }
  return reasons;
}

// Adjusts the group p-values of `groups`, the groups of one report, by
// weighted Holm, and flags those below kDiceFlagLevel: the player groups
// (across games) share kPlayerGroupsWeight of the weight and the clan
// groups the rest, equally within each kind; with one kind only, every
// group weighs the same (Holm's procedure).
void AdjustAcrossGroups(const std::vector<DiceGroupStats*>& groups) {
  std::vector<double> raw;
  std::size_t players = 0;
  for (const DiceGroupStats* g : groups) {
    raw.push_back(g->group_p_value);
    players += g->clan.empty() && g->game_id.empty();
  }
  const std::size_t clans = groups.size() - players;
  std::vector<double> weights;
  for (const DiceGroupStats* g : groups) {
    const bool player = g->clan.empty() && g->game_id.empty();
    if (players == 0 || clans == 0) {
      weights.push_back(1.0);
    } else if (player) {
      weights.push_back(kPlayerGroupsWeight / static_cast<double>(players));
    } else {
      weights.push_back((1 - kPlayerGroupsWeight) / static_cast<double>(clans));
    }
  }
  const std::vector<double> adjusted = WeightedHolmAdjust(raw, weights);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    DiceGroupStats& g = *groups[i];
    g.call_p_value = adjusted[i];
    g.flagged = g.call_p_value < kDiceFlagLevel;
    g.reasons = g.flagged ? ReasonsFor(g) : std::vector<std::string>();
  }
}

// Adds the counts of `from` to `into`; the longest run is the longest of
// either (runs do not join across games, so the stretches are kept apart).
void Merge(const DiceGroupStats& from, DiceGroupStats& into) {
  into.dice += from.dice;
  into.invalid_dice += from.invalid_dice;
  into.pairs += from.pairs;
  for (int f = 0; f < 6; ++f) into.face_counts[f] += from.face_counts[f];
  for (int s = 0; s < 11; ++s) into.sum_counts[s] += from.sum_counts[s];
  into.run_stretches.insert(into.run_stretches.end(),
                            from.run_stretches.begin(),
                            from.run_stretches.end());
  if (from.longest_run > into.longest_run) {
    into.longest_run = from.longest_run;
    into.longest_run_face = from.longest_run_face;
  }
}

std::string PlayerOf(const v1::Clan& clan) {
  return clan.player().empty() ? absl::StrCat("(clan ", clan.id(), ")")
                               : clan.player();
}

std::string GroupTitle(const DiceGroupStats& g) {
  if (g.clan.empty()) return absl::StrCat("Player ", g.player, ", all games");
  return absl::StrCat("Game ", g.game_id, ", clan ", g.clan, " (player ",
                      g.player, ")");
}

void AppendFaceText(const DiceGroupStats& g, std::string& out) {
  absl::StrAppend(&out, "  face  ");
  for (int f = 1; f <= 6; ++f) absl::StrAppendFormat(&out, "%6d", f);
  absl::StrAppend(&out, "\n  count ");
  for (auto c : g.face_counts) absl::StrAppendFormat(&out, "%6d", c);
  absl::StrAppendFormat(&out, "\n  expect%6.1f each\n", g.dice / 6.0);
  if (g.face_too_few_dice) {
    absl::StrAppendFormat(&out,
                          "  faces: too few dice to test (needs %d, %d "
                          "expected a face)\n",
                          kMinDiceForFaceTest, kMinExpectedCount);
    return;
  }
  absl::StrAppendFormat(&out,
                        "  faces: divergence %.2f (chi-square %.2f), 5 df: "
                        "p = %s, Holm %s\n",
                        g.face_divergence, g.face_chi_square,
                        PValueText(g.face_p_value),
                        PValueText(g.face_adjusted_p_value));
}

void AppendSumText(const DiceGroupStats& g, std::string& out) {
  if (!g.sum_p_value.has_value()) {
    absl::StrAppendFormat(&out,
                          "  2d6 sums of %d pairs: too few pairs to test "
                          "(needs %d)\n",
                          g.pairs, kMinPairsForSumTest);
    return;
  }
  const std::string pooled =
      g.sum_cells < kSumCells
          ? absl::StrFormat(", tails pooled into %d cells", g.sum_cells)
          : "";
  absl::StrAppendFormat(
      &out,
      "  2d6 sums of %d pairs: divergence %.2f (chi-square %.2f), %d df%s: "
      "p = %s, Holm %s\n",
      g.pairs, *g.sum_divergence, *g.sum_chi_square, g.sum_cells - 1, pooled,
      PValueText(*g.sum_p_value), PValueText(*g.sum_adjusted_p_value));
}

void AppendRunText(const DiceGroupStats& g, std::string& out) {
  if (g.longest_run == 0) return;
  if (g.dice < kMinDiceForRunTest) {
    absl::StrAppendFormat(&out, "  longest run: %d (too few dice to test)\n",
                          g.longest_run);
    return;
  }
  absl::StrAppendFormat(&out,
                        "  longest run: %d in a row of face %d, chance %s "
                        "(exact), Holm %s\n",
                        g.longest_run, g.longest_run_face,
                        PValueText(g.run_probability),
                        PValueText(g.run_adjusted_p_value));
}

void AppendOneSidedText(const DiceGroupStats& g, std::string& out) {
  if (!g.sixes_p_value.has_value()) return;
  absl::StrAppendFormat(&out,
                        "  too many 6s (one-sided): %d, p = %s, Holm %s\n",
                        g.face_counts[5], PValueText(*g.sixes_p_value),
                        PValueText(*g.sixes_adjusted_p_value));
  absl::StrAppendFormat(
      &out, "  too many of another face: %ds, %d, p = %s (x5), Holm %s\n",
      g.other_face, g.face_counts[g.other_face - 1],
      PValueText(*g.other_face_p_value),
      PValueText(*g.other_face_adjusted_p_value));
  absl::StrAppendFormat(&out,
                        "  total too high: %.2f standard deviations above "
                        "3.5 a die, p = %s, Holm %s\n",
                        g.high_total_z, PValueText(*g.high_total_p_value),
                        PValueText(*g.high_total_adjusted_p_value));
}

// Appends the table of `g`, one of `groups` groups of its report.
void AppendGroupText(const DiceGroupStats& g, std::size_t groups,
                     std::string& out) {
  absl::StrAppend(
      &out, "\n", GroupTitle(g), ": ", g.dice, " dice",
      g.invalid_dice > 0
          ? absl::StrCat(", ", g.invalid_dice, " outside 1-6 (not counted)")
          : "",
      g.flagged ? "  ** FLAGGED **" : "", "\n");
  AppendFaceText(g, out);
  AppendOneSidedText(g, out);
  AppendSumText(g, out);
  AppendRunText(g, out);
  absl::StrAppendFormat(
      &out,
      "  group p = %s (weighted Holm over its tests); in this "
      "report p = %s (weighted Holm over %d groups)\n",
      PValueText(g.group_p_value), PValueText(g.call_p_value), groups);
  for (const std::string& reason : g.reasons) {
    absl::StrAppend(&out, "  flag: ", reason, "\n");
  }
}

constexpr char kCaveat[] =
    "Dice statistics - a test of fairness, not proof: a flag says the dice "
    "are unlikely under fair dice. Each group's tests (two-sided ones, and "
    "one-sided ones aimed at loaded dice: too many 6s, too many of another "
    "face, a total too high) are combined by Holm's weighted step-down "
    "procedure, and then all the groups of this report by Holm's, so fair "
    "dice flag a group in at most 1 report in 100, however many games and "
    "players it covers.";

// What the report's p-values were corrected by: "holm" before the
// one-sided tests (their fields absent), "weighted-holm" since.
constexpr char kCorrection[] = "weighted-holm";

}  // namespace

bool DiceReport::AnyFlagged() const {
  for (const auto& g : clans) {
    if (g.flagged) return true;
  }
  for (const auto& g : players) {
    if (g.flagged) return true;
  }
  return false;
}

double RegularizedUpperGamma(double a, double x) {
  if (x <= 0 || a <= 0) return 1.0;
  if (x < a + 1.0) return 1.0 - LowerGammaSeries(a, x);
  return UpperGammaFraction(a, x);
}

double ChiSquarePValue(double chi_square, int degrees_of_freedom) {
  return RegularizedUpperGamma(degrees_of_freedom / 2.0, chi_square / 2.0);
}

double PowerDivergence(const std::vector<double>& observed,
                       const std::vector<double>& expected) {
  constexpr double kLambda = 2.0 / 3;
  double sum = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected[i] <= 0) return 0;
    if (observed[i] > 0) {
      sum += observed[i] * (std::pow(observed[i] / expected[i], kLambda) - 1);
    }
  }
  return 2 / (kLambda * (kLambda + 1)) * sum;
}

double FaceChiSquare(const std::array<std::int64_t, 6>& face_counts) {
  std::vector<double> observed, expected;
  FaceCells(face_counts, observed, expected);
  return PearsonChiSquare(observed, expected);
}

double FaceDivergence(const std::array<std::int64_t, 6>& face_counts) {
  std::vector<double> observed, expected;
  FaceCells(face_counts, observed, expected);
  return PowerDivergence(observed, expected);
}

double SumChiSquare(const std::array<std::int64_t, 11>& sum_counts) {
  return PooledSumChiSquare(sum_counts, kSumCells);
}

int SumCellsFor(std::int64_t pairs) {
  for (int cells = kSumCells; cells >= 3; cells -= 2) {
    const std::vector<double> ways = PoolSums(kSumWays, cells);
    const double fewest = *std::min_element(ways.begin(), ways.end());
    if (pairs * fewest >= kMinExpectedCount * 36.0) return cells;
  }
  return 0;
}

double PooledSumChiSquare(const std::array<std::int64_t, 11>& sum_counts,
                          int cells) {
  std::vector<double> observed, expected;
  SumCells(sum_counts, cells, observed, expected);
  return PearsonChiSquare(observed, expected);
}

double PooledSumDivergence(const std::array<std::int64_t, 11>& sum_counts,
                           int cells) {
  std::vector<double> observed, expected;
  SumCells(sum_counts, cells, observed, expected);
  return PowerDivergence(observed, expected);
}

double RunProbability(std::int64_t dice, int run) {
  if (run <= 1) return run <= 0 || dice >= 1 ? 1.0 : 0.0;
  if (dice < run) return 0.0;
  // starts[m] is the chance that no run of `run` has shown in dice 1..m and
  // die m + 1 begins a new run (die 1 always does). A run of `run` first
  // shows when one beginning at die m + 1 repeats `run` - 1 times, so the
  // answer is 6^-(run-1) times the sum of starts[0 .. dice - run]: the
  // events are disjoint, as a run that long leaves no new start inside it.
  // Only the last `window` starts are read: they are kept in a ring
  // (starts[m] at recent[m % kRunWindow]), so a die costs no memory and a
  // game of millions of dice needs no vector of them.
  const int window = std::min(run - 1, kRunWindow);
  std::array<double, kRunWindow> recent{};
  recent[0] = 1.0;
  double sum_of_starts = 1.0;
  for (std::int64_t m = 1; m <= dice - run; ++m) {
    // No run of `run` yet after die m: the current run began at die m - j
    // + 1 (from 0) and has repeated j times, j < run - 1.
    double none_yet = 0;
    double repeats = 1;
    for (std::int64_t j = 0; j < window && j < m; ++j) {
      none_yet +=
          recent[static_cast<std::size_t>((m - 1 - j) % kRunWindow)] * repeats;
      repeats /= 6;
    }
    const double start = none_yet * 5 / 6;  // die m + 1 shows another face
    recent[static_cast<std::size_t>(m % kRunWindow)] = start;
    sum_of_starts += start;
  }
  // Near certainty the sum rounds a hair above 1 (a run of 2 in 195 dice or
  // more): 1 - p then went below 0 and RunProbabilityOfStretches' log1p
  // gave NaN, printed as "chance nan" and as invalid JSON (issue 32).
  return std::min(1.0, sum_of_starts * std::pow(1.0 / 6.0, run - 1));
}

double RunProbabilityOfStretches(const std::vector<std::int64_t>& stretches,
                                 int run) {
  if (run <= 1) return 1.0;
  double log_no_run = 0;
  for (std::int64_t n : stretches) {
    log_no_run += std::log1p(-RunProbability(n, run));
  }
  return -std::expm1(log_no_run);
}

std::vector<double> HolmAdjust(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(
      order.begin(), order.end(),
      [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double largest = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double scaled =
        std::min(1.0, static_cast<double>(m - i) * p_values[order[i]]);
    largest = std::max(largest, scaled);
    adjusted[order[i]] = largest;
  }
  return adjusted;
}

std::vector<double> WeightedHolmAdjust(const std::vector<double>& p_values,
                                       const std::vector<double>& weights) {
  const std::size_t m = p_values.size();
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  // p / w ascending; p * total / w is the same order.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) {
                     return p_values[a] * weights[b] < p_values[b] * weights[a];
                   });
  std::vector<double> adjusted(m);
  double remaining = total;  // The weight of this test and those after it.
  double largest = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t at = order[i];
    const double scaled = std::min(1.0, p_values[at] * remaining / weights[at]);
    largest = std::max(largest, scaled);
    adjusted[at] = largest;
    remaining -= weights[at];
  }
  return adjusted;
}

double BinomialUpperTail(std::int64_t n, std::int64_t k) {
  if (k <= 0) return 1.0;
  if (k > n) return 0.0;
  // log P(X = j) = log C(n, j) + j log(1/6) + (n - j) log(5/6); the terms
  // fall from the mode on, so the sum from k stops once a term is
  // negligible; below the mode the tail is 1 - the lower tail.
  const double log_p = std::log(1.0 / 6);
  const double log_q = std::log(5.0 / 6);
  const double dn = static_cast<double>(n);
  auto log_term = [&](std::int64_t j) {
    const double dj = static_cast<double>(j);
    return std::lgamma(dn + 1) - std::lgamma(dj + 1) -
           std::lgamma(dn - dj + 1) + dj * log_p + (dn - dj) * log_q;
  };
  const std::int64_t mode = (n + 1) / 6;
  if (k <= mode) {
    double lower = 0;  // P(X <= k - 1), summed down from k - 1.
    for (std::int64_t j = k - 1; j >= 0; --j) {
      const double term = std::exp(log_term(j));
      lower += term;
      if (term < lower * 1e-17) break;
    }
    return std::max(0.0, std::min(1.0, 1.0 - lower));
  }
  double upper = 0;
  for (std::int64_t j = k; j <= n; ++j) {
    const double term = std::exp(log_term(j));
    upper += term;
    if (term < upper * 1e-17) break;
  }
  return std::min(1.0, upper);
}

double HighTotalPValue(std::int64_t n, std::int64_t total, double& z) {
  z = 0;
  if (n <= 0) return 1.0;
  const double dn = static_cast<double>(n);
  const double mean = 3.5 * dn;
  const double sd = std::sqrt(35.0 / 12 * dn);
  // A total of at least `total`: from total - 1/2 on the continuous scale.
  z = (static_cast<double>(total) - 0.5 - mean) / sd;
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

absl::StatusOr<std::vector<AttributedDice>> AttributeDice(
    const v1::BattleLog& log) {
  const Owners owners = OwnersOf(log);
  std::vector<AttributedDice> out;
  for (const v1::Event& event : log.events()) {
    GUNBAI_RETURN_IF_ERROR(AttributeEvent(event, owners, out));
  }
  return out;
}

DiceGroupStats SummarizeGroup(const std::vector<AttributedDice>& dice,
                              const std::string& game_id,
                              const std::string& clan,
                              const std::string& player) {
  DiceGroupStats group;
  group.game_id = game_id;
  group.clan = clan;
  group.player = player;
  Tally(dice, group);
  TestGroup(group);
  AdjustAcrossGroups({&group});
  return group;
}

DiceReport CombineDiceGroups(std::vector<DiceGroupStats> clans, int games) {
  DiceReport report;
  report.games = games;
  report.clans = std::move(clans);
  if (games > 1) {
    absl::flat_hash_map<std::string, std::size_t> player_index;
    for (const DiceGroupStats& clan : report.clans) {
      auto [it, inserted] =
          player_index.try_emplace(clan.player, report.players.size());
      if (inserted) {
        report.players.emplace_back();
        report.players.back().player = clan.player;
      }
      Merge(clan, report.players[it->second]);
    }
    for (DiceGroupStats& g : report.players) TestGroup(g);
  }
  std::vector<DiceGroupStats*> all;
  for (DiceGroupStats& g : report.clans) all.push_back(&g);
  for (DiceGroupStats& g : report.players) all.push_back(&g);
  AdjustAcrossGroups(all);
  return report;
}

absl::StatusOr<std::vector<DiceGroupStats>> TallyClans(
    const v1::BattleLog& log) {
  const Owners owners = OwnersOf(log);
  const auto& clans = log.header().clans();
  std::vector<GroupTally> tallies(static_cast<std::size_t>(clans.size()));
  // Each clan id to its groups (a header may name a clan twice).
  absl::flat_hash_map<std::string, std::vector<std::size_t>> groups_of;
  for (int i = 0; i < clans.size(); ++i) {
    groups_of[clans[i].id()].push_back(static_cast<std::size_t>(i));
  }
  for (const v1::Event& event : log.events()) {
    absl::Status s = ForEachRoll(
        event, owners, [&](const std::string& clan, Roll dice, bool in_pairs) {
          auto it = groups_of.find(clan);
          if (it == groups_of.end()) return;
          for (std::size_t g : it->second) tallies[g].Add(dice, in_pairs);
        });
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "game ", Excerpt(log.header().game_id()), ": ", s.message()));
    }
  }
  std::vector<DiceGroupStats> out;
  out.reserve(tallies.size());
  for (int i = 0; i < clans.size(); ++i) {
    GroupTally& tally = tallies[static_cast<std::size_t>(i)];
    tally.End();
    DiceGroupStats& group = tally.group;
    group.game_id = log.header().game_id();
    group.clan = clans[i].id();
    group.player = PlayerOf(clans[i]);
    out.push_back(std::move(group));
  }
  return out;
}

namespace {

// Sets the names and counts of `g` that a DiceTally and a DiceGroupStats
// proto both carry (the same field names in each).
template <typename Proto>
void CountsToProto(const DiceGroupStats& g, Proto& out) {
  out.set_game_id(g.game_id);
  out.set_clan(g.clan);
  out.set_player(g.player);
  out.set_dice(g.dice);
  out.set_invalid_dice(g.invalid_dice);
  for (std::int64_t c : g.face_counts) out.add_face_counts(c);
  out.set_pairs(g.pairs);
  for (std::int64_t c : g.sum_counts) out.add_sum_counts(c);
  out.set_longest_run(g.longest_run);
  out.set_longest_run_face(g.longest_run_face);
}

}  // namespace

v1::DiceTally DiceTallyToProto(const DiceGroupStats& group) {
  v1::DiceTally t;
  CountsToProto(group, t);
  for (std::int64_t n : group.run_stretches) t.add_run_stretches(n);
  return t;
}

absl::StatusOr<DiceGroupStats> DiceTallyFromProto(const v1::DiceTally& t) {
  // No log holds more dice than it has bytes; the bound keeps every sum
  // below overflow and every run chance quick.
  constexpr std::int64_t kMaxDice = static_cast<std::int64_t>(kMaxLogBytes);
  auto bad = [&t](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("game ", Excerpt(t.game_id()), ", clan ",
                     Excerpt(t.clan()), ": ", what));
  };
  if (t.face_counts_size() != 6 || t.sum_counts_size() != kSumCells) {
    return bad(absl::StrCat("wants 6 face counts and 11 sum counts, has ",
                            t.face_counts_size(), " and ",
                            t.sum_counts_size()));
  }
  auto in_range = [](std::int64_t v) { return v >= 0 && v <= kMaxDice; };
  if (!in_range(t.dice()) || !in_range(t.invalid_dice()) ||
      !in_range(t.pairs())) {
    return bad(
        absl::StrCat("dice, invalid dice and pairs must be 0 to ", kMaxDice));
  }
  DiceGroupStats g;
  g.game_id = t.game_id();
  g.clan = t.clan();
  g.player = t.player();
  g.dice = t.dice();
  g.invalid_dice = t.invalid_dice();
  g.pairs = t.pairs();
  std::int64_t faces = 0;
  for (int f = 0; f < 6; ++f) {
    if (!in_range(t.face_counts(f))) return bad("a face count out of range");
    g.face_counts[f] = t.face_counts(f);
    faces += g.face_counts[f];
  }
  std::int64_t sums = 0;
  for (int s = 0; s < kSumCells; ++s) {
    if (!in_range(t.sum_counts(s))) return bad("a sum count out of range");
    g.sum_counts[s] = t.sum_counts(s);
    sums += g.sum_counts[s];
  }
  if (faces != g.dice || sums != g.pairs || 2 * g.pairs > g.dice) {
    return bad(absl::StrCat("the counts do not add up: ", faces, " faces and ",
                            sums, " sums for ", g.dice, " dice and ", g.pairs,
                            " pairs"));
  }
  std::int64_t stretched = 0;
  std::int64_t longest_stretch = 0;
  for (std::int64_t n : t.run_stretches()) {
    if (n <= 0 || n > g.dice - stretched) {
      return bad(absl::StrCat("the run stretches do not add up to the ", g.dice,
                              " dice: a stretch of ", n));
    }
    stretched += n;
    longest_stretch = std::max(longest_stretch, n);
  }
  if (stretched != g.dice) {
    return bad(absl::StrCat("the run stretches add up to ", stretched,
                            ", not to the ", g.dice, " dice"));
  }
  const bool face_ok = t.longest_run_face() >= 1 && t.longest_run_face() <= 6;
  if (t.longest_run() < 0 || t.longest_run() > longest_stretch ||
      (g.dice > 0) != (t.longest_run() > 0) ||
      (t.longest_run() > 0 &&
       (!face_ok ||
        g.face_counts[t.longest_run_face() - 1] < t.longest_run())) ||
      (t.longest_run() == 0 && t.longest_run_face() != 0)) {
    return bad(absl::StrCat(
        "the longest run (", t.longest_run(), " of ", t.longest_run_face(),
        ") and the run stretches do not fit the ", g.dice, " dice"));
  }
  g.longest_run = t.longest_run();
  g.longest_run_face = t.longest_run_face();
  g.run_stretches.assign(t.run_stretches().begin(), t.run_stretches().end());
  return g;
}

absl::Status DiceSummarizer::AddLog(const v1::BattleLog& log) {
  GUNBAI_ASSIGN_OR_RETURN(auto clans, TallyClans(log));
  AddGame(std::move(clans));
  return absl::OkStatus();
}

void DiceSummarizer::AddGame(std::vector<DiceGroupStats> clans) {
  for (DiceGroupStats& group : clans) {
    TestGroup(group);
    AdjustAcrossGroups({&group});
    clans_.push_back(std::move(group));
  }
  ++games_;
}

DiceReport DiceSummarizer::Finish() && {
  return CombineDiceGroups(std::move(clans_), games_);
}

absl::StatusOr<DiceReport> SummarizeDice(
    const std::vector<v1::BattleLog>& logs) {
  DiceSummarizer summarizer;
  for (const v1::BattleLog& log : logs) {
    GUNBAI_RETURN_IF_ERROR(summarizer.AddLog(log));
  }
  return std::move(summarizer).Finish();
}

std::string FormatDiceText(const DiceReport& report) {
  const std::size_t groups = report.clans.size() + report.players.size();
  std::string out = absl::StrCat(kCaveat, "\n");
  absl::StrAppendFormat(
      &out,
      "Faces: against 1/6 each, from %d dice. 2d6 sums (the pairs of the "
      "rolls the ruleset sums as 2d6): against 1,2,...,6,...,2,1 in 36, from "
      "%d pairs, the "
      "outermost sums pooled until every cell expects %d. Both by the "
      "Cressie-Read divergence (lambda 2/3) against chi-square, which keeps "
      "its level far in the tail (Pearson's chi-square shown beside it). "
      "Longest run: its exact chance under fair dice. One-sided, from %d "
      "dice: too many 6s and too many of another face (exact binomial "
      "tails, the other face's times 5), a total too high (normal "
      "approximation). Correction: weighted Holm over each group's tests "
      "(shares: 6s %g, another face %g, total %g, faces %g, sums %g, run "
      "%g), then over the %d groups of this report%s; a group is flagged "
      "when its report p-value is below %g.\n",
      kMinDiceForFaceTest, kMinPairsForSumTest, kMinExpectedCount,
      kMinDiceForFaceTest, kSixesWeight, kOtherFaceWeight, kHighTotalWeight,
      kFaceWeight, kSumWeight, kRunWeight, groups,
      report.players.empty()
          ? ""
          : absl::StrFormat(" (the player groups holding %g of the weight)",
                            kPlayerGroupsWeight),
      kDiceFlagLevel);
  for (const DiceGroupStats& g : report.clans) AppendGroupText(g, groups, out);
  for (const DiceGroupStats& g : report.players) {
    AppendGroupText(g, groups, out);
  }
  int flagged = 0;
  for (const auto& g : report.clans) flagged += g.flagged;
  for (const auto& g : report.players) flagged += g.flagged;
  absl::StrAppend(&out, "\n", report.games, " game(s), ", groups, " group(s), ",
                  flagged, " flagged.\n");
  return out;
}

std::string FormatDiceJson(const DiceReport& report) {
  // The report's proto in proto3's JSON (field names as in the .proto, every
  // field written, 64-bit counts as strings, NaN as "NaN"): the same JSON
  // gunbaid's JSON API sends.
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string out;
  // The message is built here, so it always prints.
  (void)google::protobuf::util::MessageToJsonString(DiceReportToProto(report),
                                                    &out, options);
  out += "\n";
  return out;
}

namespace {

v1::DiceGroupStats GroupToProto(const DiceGroupStats& g) {
  v1::DiceGroupStats out;
  CountsToProto(g, out);
  out.set_face_chi_square(g.face_chi_square);
  out.set_face_divergence(g.face_divergence);
  out.set_face_too_few_dice(g.face_too_few_dice);
  out.set_face_p_value(g.face_p_value);
  out.set_face_adjusted_p_value(g.face_adjusted_p_value);
  out.set_sum_cells(g.sum_cells);
  if (g.sum_chi_square.has_value()) out.set_sum_chi_square(*g.sum_chi_square);
  if (g.sum_divergence.has_value()) out.set_sum_divergence(*g.sum_divergence);
  if (g.sum_p_value.has_value()) out.set_sum_p_value(*g.sum_p_value);
  if (g.sum_adjusted_p_value.has_value()) {
    out.set_sum_adjusted_p_value(*g.sum_adjusted_p_value);
  }
  out.set_run_probability(g.run_probability);
  out.set_run_adjusted_p_value(g.run_adjusted_p_value);
  if (g.sixes_p_value.has_value()) {
    out.set_sixes_p_value(*g.sixes_p_value);
    out.set_sixes_adjusted_p_value(g.sixes_adjusted_p_value.value_or(1));
    out.set_other_face(g.other_face);
    out.set_other_face_p_value(g.other_face_p_value.value_or(1));
    out.set_other_face_adjusted_p_value(
        g.other_face_adjusted_p_value.value_or(1));
    out.set_high_total_z(g.high_total_z);
    out.set_high_total_p_value(g.high_total_p_value.value_or(1));
    out.set_high_total_adjusted_p_value(
        g.high_total_adjusted_p_value.value_or(1));
  }
  out.set_group_p_value(g.group_p_value);
  out.set_call_p_value(g.call_p_value);
  out.set_flagged(g.flagged);
  for (const std::string& r : g.reasons) out.add_reasons(r);
  return out;
}

// Copies the tests of the faces and the sums of `g` into `out`.
void TestsFromProto(const v1::DiceGroupStats& g, DiceGroupStats& out) {
  out.face_chi_square = g.face_chi_square();
  out.face_divergence = g.face_divergence();
  out.face_too_few_dice = g.face_too_few_dice();
  out.face_p_value = g.face_p_value();
  out.face_adjusted_p_value = g.face_adjusted_p_value();
  out.sum_cells = g.sum_cells();
  if (g.has_sum_chi_square()) out.sum_chi_square = g.sum_chi_square();
  if (g.has_sum_divergence()) out.sum_divergence = g.sum_divergence();
  if (g.has_sum_p_value()) out.sum_p_value = g.sum_p_value();
  if (g.has_sum_adjusted_p_value()) {
    out.sum_adjusted_p_value = g.sum_adjusted_p_value();
  }
  out.run_probability = g.run_probability();
  out.run_adjusted_p_value = g.run_adjusted_p_value();
  if (g.has_sixes_p_value()) {
    out.sixes_p_value = g.sixes_p_value();
    out.sixes_adjusted_p_value = g.sixes_adjusted_p_value();
    out.other_face = std::clamp(g.other_face(), 1, 5);
    out.other_face_p_value = g.other_face_p_value();
    out.other_face_adjusted_p_value = g.other_face_adjusted_p_value();
    out.high_total_z = g.high_total_z();
    out.high_total_p_value = g.high_total_p_value();
    out.high_total_adjusted_p_value = g.high_total_adjusted_p_value();
  }
  out.group_p_value = g.group_p_value();
  out.call_p_value = g.call_p_value();
}

absl::StatusOr<DiceGroupStats> GroupFromProto(const v1::DiceGroupStats& g) {
  DiceGroupStats out;
  if (g.face_counts_size() != 6 || g.sum_counts_size() != 11) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "dice group %s/%s/%s has %d face counts and %d sum counts; it needs "
        "6 and 11",
        g.game_id(), g.clan(), g.player(), g.face_counts_size(),
        g.sum_counts_size()));
  }
  out.game_id = g.game_id();
  out.clan = g.clan();
  out.player = g.player();
  out.dice = g.dice();
  out.invalid_dice = g.invalid_dice();
  std::copy(g.face_counts().begin(), g.face_counts().end(),
            out.face_counts.begin());
  out.pairs = g.pairs();
  std::copy(g.sum_counts().begin(), g.sum_counts().end(),
            out.sum_counts.begin());
  out.longest_run = g.longest_run();
  out.longest_run_face = g.longest_run_face();
  TestsFromProto(g, out);
  out.flagged = g.flagged();
  out.reasons.assign(g.reasons().begin(), g.reasons().end());
  return out;
}

// Corrects a report of a gunbaid from before Holm (no `correction`), which
// sent raw p-values only: Pearson's chi-square of the faces (from one die)
// and of the sums in 11 cells (from 36 pairs), and an approximate run
// chance. Holm is applied here to those p-values, as they are.
void CorrectReportOfOldServer(DiceReport& report) {
  std::vector<DiceGroupStats*> all;
  for (auto* groups : {&report.clans, &report.players}) {
    for (DiceGroupStats& g : *groups) {
      g.face_divergence = g.face_chi_square;
      g.face_too_few_dice = g.dice == 0;
      if (g.sum_p_value.has_value()) {
        g.sum_cells = kSumCells;
        g.sum_divergence = g.sum_chi_square.value_or(0);
      }
      AdjustWithinGroup(g);
      all.push_back(&g);
    }
  }
  AdjustAcrossGroups(all);
}

}  // namespace

v1::DiceStatsReport DiceReportToProto(const DiceReport& report) {
  v1::DiceStatsReport out;
  out.set_note(kCaveat);
  out.set_correction(kCorrection);
  out.set_games(report.games);
  for (const DiceGroupStats& g : report.clans) {
    *out.add_clans() = GroupToProto(g);
  }
  for (const DiceGroupStats& g : report.players) {
    *out.add_players() = GroupToProto(g);
  }
  out.set_flagged(report.AnyFlagged());
  out.set_flag_level(kDiceFlagLevel);
  return out;
}

absl::StatusOr<DiceReport> DiceReportFromProto(
    const v1::DiceStatsReport& report) {
  DiceReport out;
  out.games = report.games();
  for (const v1::DiceGroupStats& g : report.clans()) {
    GUNBAI_ASSIGN_OR_RETURN(auto group, GroupFromProto(g));
    out.clans.push_back(std::move(group));
  }
  for (const v1::DiceGroupStats& g : report.players()) {
    GUNBAI_ASSIGN_OR_RETURN(auto group, GroupFromProto(g));
    out.players.push_back(std::move(group));
  }
  if (report.correction().empty()) CorrectReportOfOldServer(out);
  return out;
}

}  // namespace gunbai::replay
