// Dice statistics for umpires: attributes every declared die of a game, or
// of a corpus of games, to the clan and the player who rolled it, and tests
// the faces, the 2d6 sums and the longest run against fair dice. A flag is
// a reason to look closer, never proof.
//
// The tests of a group: two-sided ones against any unfairness (the faces
// and the 2d6 sums by the Cressie-Read power divergence, lambda = 2/3,
// against the chi-square distribution, only when every cell expects at
// least kMinExpectedCount: far in the tail, where a report's correction
// looks, it keeps its level where Pearson's chi-square, also reported,
// flags fair dice up to twice too often; the longest run, exactly), and
// one-sided ones aimed at the ways dice are loaded or fudged, each an
// upper tail under fair dice: too many 6s (exact binomial: the face a
// loaded die favours, since in Daimyo every roll is better high), too many
// of another face (the most over-represented of 1-5, its exact binomial
// tail times 5), and a total too high (the sum of the dice, by the normal
// approximation, which overstates the tail of a sum of dice and so errs
// safe).
//
// Error rates: the tests of a group are combined by Holm's weighted
// step-down procedure, each test with a share of the group's error rate
// (kSixesWeight ... kRunWeight, most to the one-sided tests), into one
// group p-value; the group p-values of a report by weighted Holm again (in
// a report of several games the player groups hold half the weight: a die
// loaded for a whole event shows most across games), so that
// fair dice flag some group of a report at most kDiceFlagLevel of the
// time, whatever the tests' dependence and however many games the report
// covers (deploy/dice-fpr.sh measures it, and the power against three
// loadings).
//
// Thread-safe: functions only, no I/O, no randomness; DiceReport is a plain
// value.
#ifndef GUNBAI_REPLAY_DICE_STATS_H_
#define GUNBAI_REPLAY_DICE_STATS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/dice_stats.pb.h"

namespace gunbai::replay {

// The family-wise error rate of a report: a group is flagged when its
// p-value after Holm, over its tests and then over every group of the
// report, is below this.
inline constexpr double kDiceFlagLevel = 0.01;
// A chi-square test runs only when each of its cells expects this many.
inline constexpr std::int64_t kMinExpectedCount = 5;
// So the faces are tested from 6 * 5 dice on.
inline constexpr std::int64_t kMinDiceForFaceTest = 6 * kMinExpectedCount;
// The shares of a group's error rate (weighted Holm; they add up to 1, and
// the shares of the tests run are rescaled to add up to 1): most to the
// tests aimed at a loaded die, whose power they buy near the limit.
inline constexpr double kSixesWeight = 0.45;
inline constexpr double kOtherFaceWeight = 0.15;
inline constexpr double kHighTotalWeight = 0.1;
inline constexpr double kFaceWeight = 0.1;
inline constexpr double kSumWeight = 0.1;
inline constexpr double kRunWeight = 0.1;
// In a report of several games, the share of its error rate the player
// groups (each player's dice across the games) hold together; the clan
// groups (one clan in one game) share the rest. A die loaded for a whole
// event shows most across games.
inline constexpr double kPlayerGroupsWeight = 0.5;
// And the 2d6 sums from 30 pairs on: pooled into 3 cells (2-6, 7, 8-12)
// the 7s expect 30 * 6/36 = 5 (see SumCellsFor).
inline constexpr std::int64_t kMinPairsForSumTest = 30;

// The dice one clan rolled in one event, in the order rolled. `in_pairs`
// is true where the log's ruleset sums the roll's dice 0-1, 2-3, ... as 2d6
// (RulesetPlugin::dice_in_pairs: Daimyo's firing, melee and morale rolls;
// a log that names no ruleset is read as the first plug-in's, one whose
// ruleset gunbai does not know has every die alone).
struct AttributedDice {
  std::uint64_t seq = 0;
  std::string clan;
  std::vector<std::uint32_t> dice;
  bool in_pairs = false;
};

// Statistics of the dice of one group: a clan in one game, or a player
// across a corpus. Every p-value is 1 for a test not run.
struct DiceGroupStats {
  // Game id (empty for a player group), clan id (empty for a player group)
  // and player name.
  std::string game_id;
  std::string clan;
  std::string player;
  // Dice 1-6 counted below; dice outside 1-6, counted nowhere else.
  std::int64_t dice = 0;
  std::int64_t invalid_dice = 0;
  // face_counts[f - 1] is the number of f's.
  std::array<std::int64_t, 6> face_counts{};
  // Pearson's chi-square and the power divergence (FaceDivergence) of the
  // faces against uniform, always worked out; the divergence is tested (5
  // degrees of freedom, face_p_value) only from kMinDiceForFaceTest dice.
  double face_chi_square = 0;
  double face_divergence = 0;
  bool face_too_few_dice = true;
  double face_p_value = 1;
  // sum_counts[s - 2] is the number of pairs summing to s.
  std::int64_t pairs = 0;
  std::array<std::int64_t, 11> sum_counts{};
  // Cells the sums were tested in (SumCellsFor: 11, or fewer with the tails
  // pooled; cells - 1 degrees of freedom), Pearson's chi-square and the
  // tested power divergence in those cells; set only from
  // kMinPairsForSumTest pairs.
  int sum_cells = 0;
  std::optional<double> sum_chi_square;
  std::optional<double> sum_divergence;
  std::optional<double> sum_p_value;
  // Longest run of one face in the order rolled and its face.
  int longest_run = 0;
  int longest_run_face = 0;
  // Lengths of the unbroken stretches of dice 1-6 in the order rolled: a
  // die outside 1-6 breaks a run, and so does the end of a game. Used for
  // run_probability; not carried in the proto.
  std::vector<std::int64_t> run_stretches;
  // The exact chance that fair dice in those stretches show a run at least
  // longest_run long (RunProbabilityOfStretches); tested from 2 dice.
  double run_probability = 1;
  // The one-sided tests, from kMinDiceForFaceTest dice (unset below):
  // the chance under fair dice of at least face_counts[5] 6s; of at least
  // as many of `other_face` (the face of 1-5 whose upper tail is smallest),
  // times 5; and of a total of the dice at least as high (`high_total_z`
  // standard deviations above 3.5 a die).
  std::optional<double> sixes_p_value;
  int other_face = 0;
  std::optional<double> other_face_p_value;
  double high_total_z = 0;
  std::optional<double> high_total_p_value;
  // The p-values after weighted Holm over the tests this group ran.
  double face_adjusted_p_value = 1;
  std::optional<double> sum_adjusted_p_value;
  double run_adjusted_p_value = 1;
  std::optional<double> sixes_adjusted_p_value;
  std::optional<double> other_face_adjusted_p_value;
  std::optional<double> high_total_adjusted_p_value;
  // The smallest adjusted p-value: the chance, under fair dice, of a test
  // of this group as extreme, corrected for the tests run.
  double group_p_value = 1;
  // group_p_value after Holm over every group of the report.
  double call_p_value = 1;
  // call_p_value is below kDiceFlagLevel; `reasons` names the tests whose
  // adjusted p-value is.
  bool flagged = false;
  std::vector<std::string> reasons;
};

struct DiceReport {
  // One group per clan of each game, in log order then header order.
  std::vector<DiceGroupStats> clans;
  // One group per player across all games, in order of first appearance;
  // filled only for more than one game.
  std::vector<DiceGroupStats> players;
  int games = 0;
  // Returns true when some group is flagged (call_p_value below
  // kDiceFlagLevel): what `gunbai dice` exits 1 on.
  bool AnyFlagged() const;
};

// Returns the regularized upper incomplete gamma function Q(a, x) =
// Gamma(a, x) / Gamma(a), for a > 0; 1 for x <= 0.
double RegularizedUpperGamma(double a, double x);

// Returns the chance that a chi-square variable with `degrees_of_freedom`
// is at least `chi_square`: Q(df / 2, chi_square / 2).
double ChiSquarePValue(double chi_square, int degrees_of_freedom);

// Returns the Cressie-Read power-divergence statistic with lambda = 2/3 of
// `observed` against `expected` (the same total; every expected count
// positive): 9/5 * sum o * ((o / e)^(2/3) - 1). Like Pearson's chi-square
// (lambda = 1) it tends to chi-square with cells - 1 degrees of freedom.
double PowerDivergence(const std::vector<double>& observed,
                       const std::vector<double>& expected);

// Returns the chi-square statistic of face counts against uniform; 0 for
// no dice.
double FaceChiSquare(const std::array<std::int64_t, 6>& face_counts);

// Returns the power divergence of face counts against uniform; 0 for no
// dice.
double FaceDivergence(const std::array<std::int64_t, 6>& face_counts);

// Returns the chi-square statistic of 2d6 sum counts (index s - 2) against
// n * {1,2,3,4,5,6,5,4,3,2,1} / 36; 0 for no pairs.
double SumChiSquare(const std::array<std::int64_t, 11>& sum_counts);

// Returns the number of cells the sums of `pairs` pairs are tested in: 11
// while every sum expects kMinExpectedCount (180 pairs), else the fewest
// outermost sums pooled on each side into their inner neighbour that gives
// every cell that many: 9 cells (2-3 ... 11-12) from 60 pairs, 7 from 45,
// 5 from 36, 3 (2-6, 7, 8-12) from 30; 0 (not tested) below 30.
int SumCellsFor(std::int64_t pairs);

// Returns the chi-square statistic of the sums pooled into `cells` cells
// (an odd number from 3 to 11, as SumCellsFor) against 2d6; 0 for no pairs.
double PooledSumChiSquare(const std::array<std::int64_t, 11>& sum_counts,
                          int cells);

// Returns the power divergence of the sums pooled into `cells` cells
// against 2d6; 0 for no pairs.
double PooledSumDivergence(const std::array<std::int64_t, 11>& sum_counts,
                           int cells);

// Returns the exact chance that `dice` fair d6 in a row show a run of one
// face at least `run` long: 1 for run <= 1 (with a die), 0 for dice < run,
// never above 1 (at near certainty the sum is rounded down to 1).
// Works through the chain of "no such run yet, the current run began at
// die m" in O(dice) steps.
double RunProbability(std::int64_t dice, int run);

// Returns the exact chance that fair dice in separate stretches of these
// lengths show a run at least `run` long in one of them:
// 1 - prod(1 - RunProbability(n, run)).
double RunProbabilityOfStretches(const std::vector<std::int64_t>& stretches,
                                 int run);

// Returns the exact chance that `n` fair dice show a given face at least
// `k` times: the upper tail of Binomial(n, 1/6), summed in log space
// (1 for k <= 0, 0 for k > n).
double BinomialUpperTail(std::int64_t n, std::int64_t k);

// Returns the chance that the total of `n` fair dice is at least `total`,
// by the normal approximation with continuity correction (mean 3.5 n,
// variance 35/12 n), with its z in `z`; 1 for no dice.
double HighTotalPValue(std::int64_t n, std::int64_t total, double& z);

// Returns the p-values adjusted by Holm's weighted step-down procedure, in
// the order given, `weights` positive and rescaled to add up to 1: sorted
// by p / w, the i-th (from 0) is p / w times the weight of it and those
// after it, capped at 1 and raised to the largest adjusted value before
// it. Rejecting each hypothesis whose adjusted p-value is below alpha keeps
// the chance of any false rejection at most alpha, whatever their
// dependence; with equal weights it is HolmAdjust.
std::vector<double> WeightedHolmAdjust(const std::vector<double>& p_values,
                                       const std::vector<double>& weights);

// Returns the p-values adjusted by Holm's step-down procedure, in the order
// given: sorted ascending, the i-th (from 0) of m is multiplied by m - i,
// capped at 1, and raised to the largest adjusted value before it.
// Rejecting each hypothesis whose adjusted p-value is below alpha keeps the
// chance of any false rejection at most alpha, whatever their dependence.
std::vector<double> HolmAdjust(const std::vector<double>& p_values);

// Returns the dice of every event of `log`, each with the clan that rolled
// it: a firing, the firer's; a melee round, each side's unit's; a morale
// test, the unit's; a leader-loss roll, the leader's (a die of 0, not
// rolled, is left out); a challenge, the challenger's and the challenged's
// leaders' in turn; a result move and initiative dice, Event.clan (left out
// when empty). Returns InvalidArgument naming the event when a unit or
// leader is not in the order of battle.
absl::StatusOr<std::vector<AttributedDice>> AttributeDice(
    const gunbai::v1::BattleLog& log);

// Returns the statistics of `dice` (in the order rolled) as one group with
// the given names, flagged as a report of that group alone.
DiceGroupStats SummarizeGroup(const std::vector<AttributedDice>& dice,
                              const std::string& game_id,
                              const std::string& clan,
                              const std::string& player);

// Returns the report of `games` games from the groups of their clans (as
// SummarizeGroup gives them, in log order then header order): adds, for
// more than one game, one group per player across the games in order of
// first appearance, and applies Holm over all the groups. SummarizeDice is
// AttributeDice and SummarizeGroup per clan, then this.
DiceReport CombineDiceGroups(std::vector<DiceGroupStats> clans, int games);

// Returns one group per clan of `log`'s header, in header order, with the
// counts of its dice and their stretches but no test run: what AddGame
// takes, and what a shard of `gunbai dice` carries (DiceTallyToProto).
// Returns InvalidArgument, naming the game, as AttributeDice.
absl::StatusOr<std::vector<DiceGroupStats>> TallyClans(
    const gunbai::v1::BattleLog& log);

// Returns `group`'s counts and stretches (its names too) as a DiceTally.
gunbai::v1::DiceTally DiceTallyToProto(const DiceGroupStats& group);

// Returns the group a DiceTally carries, untested. Returns InvalidArgument
// saying what is wrong when the counts do not fit together (not six face
// counts or eleven sums, a negative count, faces or stretches that do not
// add up to the dice, more pairs than dice allow, a run longer than its
// stretch, more dice than a log can hold), so that a part edited or cut by
// hand is refused rather than tested.
absl::StatusOr<DiceGroupStats> DiceTallyFromProto(
    const gunbai::v1::DiceTally& tally);

// Builds the report of SummarizeDice one log at a time, keeping only the
// counts of each clan's dice (not the dice): a caller may free each log once
// added. Thread-compatible.
class DiceSummarizer {
 public:
  // Adds one group per clan of `log`'s header, in header order. Returns
  // InvalidArgument, naming the game, as SummarizeDice; nothing of `log` is
  // added then.
  absl::Status AddLog(const gunbai::v1::BattleLog& log);

  // Adds one game from the groups of its clans as TallyClans gives them:
  // AddLog is TallyClans then this. A merge of shards adds each game's
  // tallies in corpus order, and so gets the report one run would.
  void AddGame(std::vector<DiceGroupStats> clans);

  // Returns the report of the logs added, as SummarizeDice gives it.
  DiceReport Finish() &&;

 private:
  std::vector<DiceGroupStats> clans_;
  int games_ = 0;
};

// Returns the statistics per clan of each log and, for more than one log,
// per player across all of them (a clan with no player named counts as
// "(clan ID)"), flagged as CombineDiceGroups. Returns InvalidArgument,
// naming the game, as AttributeDice.
absl::StatusOr<DiceReport> SummarizeDice(
    const std::vector<gunbai::v1::BattleLog>& logs);

// Returns the report as text: a line saying it is a test of fairness, not
// proof, and which correction is applied, then a table per group with the
// raw and the adjusted p-values.
std::string FormatDiceText(const DiceReport& report);

// Returns the report as JSON, ending in a newline.
std::string FormatDiceJson(const DiceReport& report);

// Returns the report as a gunbai.v1.DiceStatsReport (AuditService.DiceStats),
// with the caveat that it is statistics, not proof, in `note`.
gunbai::v1::DiceStatsReport DiceReportToProto(const DiceReport& report);

// Returns the report a DiceStatsReport carries, so that a client prints
// exactly what FormatDiceText and FormatDiceJson print locally. A report
// without `correction` (from a gunbaid before Holm) is corrected here from
// its raw p-values. Returns
// InvalidArgument when a group has not six face counts or eleven sum counts.
absl::StatusOr<DiceReport> DiceReportFromProto(
    const gunbai::v1::DiceStatsReport& report);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_DICE_STATS_H_
