// Dice statistics for umpires: attributes every declared die of a game, or
// of a corpus of games, to the clan and the player who rolled it, and tests
// the faces, the 2d6 sums and the longest runs against fair dice. A flag is
// a reason to look closer, never proof: fair dice trip a 1% test once in a
// hundred groups.
//
// Thread-safe: functions only, no I/O.
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

// A group is flagged when a p-value or a run probability is below this.
inline constexpr double kDiceFlagLevel = 0.01;
// The 2d6 sums are tested only from this many pairs on, so that every
// expected count n * k / 36 is at least 1 without pooling cells.
inline constexpr std::int64_t kMinPairsForSumTest = 36;

// The dice one clan rolled in one event, in the order rolled. `in_pairs`
// is true where the event rolls 2d6 per stand or per test (firing, melee,
// morale), whose dice 0-1, 2-3, ... are summed.
struct AttributedDice {
  std::uint64_t seq = 0;
  std::string clan;
  std::vector<std::uint32_t> dice;
  bool in_pairs = false;
};

// Statistics of the dice of one group: a clan in one game, or a player
// across a corpus.
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
  // Chi-square of the faces against uniform (5 degrees of freedom).
  double face_chi_square = 0;
  double face_p_value = 1;
  // sum_counts[s - 2] is the number of pairs summing to s.
  std::int64_t pairs = 0;
  std::array<std::int64_t, 11> sum_counts{};
  // Chi-square of the sums against 2d6 (10 degrees of freedom); set only
  // when pairs >= kMinPairsForSumTest.
  std::optional<double> sum_chi_square;
  std::optional<double> sum_p_value;
  // Longest run of one face in the order rolled, its face, and the
  // approximate chance of a run at least that long (RunProbability).
  int longest_run = 0;
  int longest_run_face = 0;
  double run_probability = 1;
  // A p-value or the run probability is below kDiceFlagLevel; `reasons`
  // says which.
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
  bool AnyFlagged() const;
};

// Returns the regularized upper incomplete gamma function Q(a, x) =
// Gamma(a, x) / Gamma(a), for a > 0; 1 for x <= 0.
double RegularizedUpperGamma(double a, double x);

// Returns the chance that a chi-square variable with `degrees_of_freedom`
// is at least `chi_square`: Q(df / 2, chi_square / 2).
double ChiSquarePValue(double chi_square, int degrees_of_freedom);

// Returns the chi-square statistic of face counts against uniform; 0 for
// no dice.
double FaceChiSquare(const std::array<std::int64_t, 6>& face_counts);

// Returns the chi-square statistic of 2d6 sum counts (index s - 2) against
// n * {1,2,3,4,5,6,5,4,3,2,1} / 36; 0 for no pairs.
double SumChiSquare(const std::array<std::int64_t, 11>& sum_counts);

// Returns an approximation of the chance that `dice` fair dice show a run
// of one face at least `run` long: min(1, (n - L + 1) * 5/6 * (1/6)^(L-1)),
// the expected number of such runs. 1 when run <= 1 or n < run.
double RunProbability(std::int64_t dice, int run);

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
// the given names; flags it.
DiceGroupStats SummarizeGroup(const std::vector<AttributedDice>& dice,
                              const std::string& game_id,
                              const std::string& clan,
                              const std::string& player);

// Returns the statistics per clan of each log and, for more than one log,
// per player across all of them (a clan with no player named counts as
// "(clan ID)"). Returns InvalidArgument, naming the game, as AttributeDice.
absl::StatusOr<DiceReport> SummarizeDice(
    const std::vector<gunbai::v1::BattleLog>& logs);

// Returns the report as text: a line saying it is a test of fairness, not
// proof, then a table per group.
std::string FormatDiceText(const DiceReport& report);

// Returns the report as JSON, ending in a newline.
std::string FormatDiceJson(const DiceReport& report);

// Returns the report as a gunbai.v1.DiceStatsReport (AuditService.DiceStats),
// with the caveat that it is statistics, not proof, in `note`.
gunbai::v1::DiceStatsReport DiceReportToProto(const DiceReport& report);

// Returns the report a DiceStatsReport carries, so that a client prints
// exactly what FormatDiceText and FormatDiceJson print locally. Returns
// InvalidArgument when a group has not six face counts or eleven sum counts.
absl::StatusOr<DiceReport> DiceReportFromProto(
    const gunbai::v1::DiceStatsReport& report);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_DICE_STATS_H_
