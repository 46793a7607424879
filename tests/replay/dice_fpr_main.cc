// dice_fpr: measures by simulation how often `gunbai dice` (the functions of
// replay/dice_stats.h, unchanged) flags fair dice, and how often it flags a
// player whose dice show one face 30% more often than each other face.
//
// A simulated clan-game is what one clan rolls in one game: events until
// 100-400 dice (uniform), about 90% of them in 2d6 pairs (firing and melee
// of 1-4 stands, morale), the rest initiative, leader-loss and result-move
// dice. A report is N such games between two players, Aki (red) and Ben
// (blue), as `gunbai dice` over N logs: 2N clan groups and, for N > 1, two
// player groups. Every row is simulated afresh from a fixed seed, so the
// table is the same on every run of the same build.
//
// Usage: dice_fpr [--trials=N] [--seed=S] [--max-fair-rate=R]
//   --trials         simulated groups or reports per row (default 20000)
//   --seed           seed of the std::mt19937_64 (default 20240611)
//   --max-fair-rate  exit 1 when a fair row's flag rate exceeds R
//
// Not thread-safe: single-threaded tool.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "replay/dice_stats.h"

namespace gunbai::replay {
namespace {

constexpr std::int64_t kClanDiceMin = 100;
constexpr std::int64_t kClanDiceMax = 400;
constexpr std::int64_t kSmallClanDiceMin = 20;
constexpr std::int64_t kSmallClanDiceMax = 100;
// One face 30% more likely than each other face: 1.3 / 6.3 = 20.6%.
constexpr double kLoadedWeight = 1.3;
constexpr int kLoadedFace = 6;
constexpr double kZ95 = 1.959964;

struct Options {
  std::int64_t trials = 20000;
  std::uint64_t seed = 20240611;
  double max_fair_rate = -1;  // no check
};

// Rolls dice of one player: fair, or with kLoadedFace weighted.
class Dice {
 public:
  explicit Dice(bool loaded) : faces_({1, 1, 1, 1, 1, 1}) {
    if (loaded) {
      std::vector<double> w(6, 1.0);
      w[kLoadedFace - 1] = kLoadedWeight;
      faces_ = std::discrete_distribution<int>(w.begin(), w.end());
    }
  }
  std::uint32_t Roll(std::mt19937_64& rng) {
    return static_cast<std::uint32_t>(faces_(rng) + 1);
  }

 private:
  std::discrete_distribution<int> faces_;
};

// Returns one event's dice: `count` dice, summed in pairs or not.
AttributedDice RollEvent(std::uint64_t seq, const std::string& clan, int count,
                         bool in_pairs, Dice& dice, std::mt19937_64& rng) {
  AttributedDice event{seq, clan, {}, in_pairs};
  for (int i = 0; i < count; ++i) event.dice.push_back(dice.Roll(rng));
  return event;
}

// Returns the dice one clan rolls in one game, between min_dice and
// max_dice (the last event may go a few over), event by event.
std::vector<AttributedDice> RollClanGame(const std::string& clan,
                                         std::int64_t min_dice,
                                         std::int64_t max_dice, Dice& dice,
                                         std::mt19937_64& rng) {
  const std::int64_t target =
      std::uniform_int_distribution<std::int64_t>(min_dice, max_dice)(rng);
  std::uniform_int_distribution<int> kind(0, 19);
  std::uniform_int_distribution<int> stands(1, 4);
  std::vector<AttributedDice> events;
  std::int64_t rolled = 0;
  while (rolled < target) {
    const int k = kind(rng);
    const std::uint64_t seq = events.size() + 1;
    if (k < 12) {  // firing or melee: 2d6 a stand
      events.push_back(RollEvent(seq, clan, 2 * stands(rng), true, dice, rng));
    } else if (k < 15) {  // morale: 2d6
      events.push_back(RollEvent(seq, clan, 2, true, dice, rng));
    } else if (k < 17) {  // result move: 2 dice, not summed
      events.push_back(RollEvent(seq, clan, 2, false, dice, rng));
    } else {  // initiative, leader loss, challenge: 1 die
      events.push_back(RollEvent(seq, clan, 1, false, dice, rng));
    }
    rolled += static_cast<std::int64_t>(events.back().dice.size());
  }
  return events;
}

// Flags `g` as before Holm: any test run with its raw p-value below 1%.
bool FlaggedUncorrected(const DiceGroupStats& g) {
  return (!g.face_too_few_dice && g.face_p_value < kDiceFlagLevel) ||
         (g.sum_p_value.has_value() && *g.sum_p_value < kDiceFlagLevel) ||
         (g.dice >= 2 && g.run_probability < kDiceFlagLevel);
}

// Returns the report of `games` games of Aki (red, loaded or not) against
// Ben (blue, fair).
DiceReport RollReport(int games, bool aki_loaded, std::mt19937_64& rng) {
  Dice aki(aki_loaded);
  Dice ben(false);
  std::vector<DiceGroupStats> clans;
  for (int game = 0; game < games; ++game) {
    const std::string id = absl::StrCat("sim-", game);
    clans.push_back(SummarizeGroup(
        RollClanGame("red", kClanDiceMin, kClanDiceMax, aki, rng), id, "red",
        "Aki"));
    clans.push_back(SummarizeGroup(
        RollClanGame("blue", kClanDiceMin, kClanDiceMax, ben, rng), id, "blue",
        "Ben"));
  }
  return CombineDiceGroups(std::move(clans), games);
}

// Counts how often something happens over the trials of a row.
struct Rate {
  std::int64_t hits = 0;
  std::int64_t trials = 0;
  void Add(bool hit) {
    hits += hit;
    ++trials;
  }
  double Value() const { return trials == 0 ? 0 : double(hits) / trials; }
  // Returns "0.81% (0.70-0.94)": the rate and its 95% Wilson interval.
  std::string Text() const {
    const double n = trials, p = Value(), z2 = kZ95 * kZ95;
    const double mid = (p + z2 / (2 * n)) / (1 + z2 / n);
    const double half =
        kZ95 * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    return absl::StrFormat("%6.2f%% (%.2f-%.2f)", 100 * p,
                           100 * std::max(0.0, mid - half),
                           100 * std::min(1.0, mid + half));
  }
};

struct Row {
  std::string what;
  Rate holm;         // flagged now
  Rate uncorrected;  // flagged with each test at 1%, as before Holm
  Rate exit_one;     // loaded rows: the report exits 1 at all
};

// A fair group alone, as `gunbai dice` of one clan would be.
Row FairGroupRow(const Options& o, std::int64_t min_dice, std::int64_t max_dice,
                 std::mt19937_64& rng) {
  Row row;
  row.what =
      absl::StrFormat("fair: one group alone (%d-%d dice)", min_dice, max_dice);
  Dice fair(false);
  for (std::int64_t t = 0; t < o.trials; ++t) {
    const DiceGroupStats g =
        SummarizeGroup(RollClanGame("red", min_dice, max_dice, fair, rng),
                       "sim", "red", "Aki");
    row.holm.Add(g.flagged);
    row.uncorrected.Add(FlaggedUncorrected(g));
  }
  return row;
}

// Reports of `games` fair games: how often one exits 1.
Row FairReportRow(const Options& o, int games, std::mt19937_64& rng) {
  Row row;
  row.what = absl::StrFormat("fair: report of %d game(s)", games);
  for (std::int64_t t = 0; t < o.trials; ++t) {
    const DiceReport report = RollReport(games, false, rng);
    bool any_uncorrected = false;
    for (const auto& g : report.clans) any_uncorrected |= FlaggedUncorrected(g);
    for (const auto& g : report.players) {
      any_uncorrected |= FlaggedUncorrected(g);
    }
    row.holm.Add(report.AnyFlagged());
    row.uncorrected.Add(any_uncorrected);
  }
  return row;
}

// Reports of `games` games where Aki's dice are loaded: how often one of
// Aki's groups is flagged.
Row LoadedReportRow(const Options& o, int games, std::mt19937_64& rng) {
  Row row;
  row.what = absl::StrFormat("loaded: Aki over %d game(s)", games);
  for (std::int64_t t = 0; t < o.trials; ++t) {
    const DiceReport report = RollReport(games, true, rng);
    bool aki = false, aki_uncorrected = false;
    for (const auto* groups : {&report.clans, &report.players}) {
      for (const DiceGroupStats& g : *groups) {
        if (g.player != "Aki") continue;
        aki |= g.flagged;
        aki_uncorrected |= FlaggedUncorrected(g);
      }
    }
    row.holm.Add(aki);
    row.uncorrected.Add(aki_uncorrected);
    row.exit_one.Add(report.AnyFlagged());
  }
  return row;
}

void PrintRow(const Row& row) {
  std::printf("%-40s %8lld  %-22s %-22s %s\n", row.what.c_str(),
              static_cast<long long>(row.holm.trials), row.holm.Text().c_str(),
              row.uncorrected.Text().c_str(),
              row.exit_one.trials > 0 ? row.exit_one.Text().c_str() : "");
}

bool ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    bool ok = false;
    if (absl::StartsWith(arg, "--trials=")) {
      ok = absl::SimpleAtoi(arg.substr(9), &o.trials) && o.trials > 0;
    } else if (absl::StartsWith(arg, "--seed=")) {
      ok = absl::SimpleAtoi(arg.substr(7), &o.seed);
    } else if (absl::StartsWith(arg, "--max-fair-rate=")) {
      ok = absl::SimpleAtod(arg.substr(16), &o.max_fair_rate);
    }
    if (!ok) {
      std::fprintf(stderr,
                   "usage: dice_fpr [--trials=N] [--seed=S] "
                   "[--max-fair-rate=R]\n");
      return false;
    }
  }
  return true;
}

int Run(const Options& o) {
  std::printf(
      "gunbai dice error rates: %lld trials a row, seed %llu; flag level "
      "%g (Holm over each group's tests, then over the report's groups).\n"
      "Loaded: face %d weighs %.1f against 1 for each other face.\n\n",
      static_cast<long long>(o.trials), static_cast<unsigned long long>(o.seed),
      kDiceFlagLevel, kLoadedFace, kLoadedWeight);
  std::printf("%-40s %8s  %-22s %-22s %s\n", "row", "trials",
              "flagged, Holm (95% CI)", "no correction", "report exits 1");
  std::vector<Row> fair;
  std::uint64_t stream = o.seed;
  auto next_rng = [&]() { return std::mt19937_64(stream++); };
  {
    auto rng = next_rng();
    fair.push_back(FairGroupRow(o, kClanDiceMin, kClanDiceMax, rng));
  }
  {
    auto rng = next_rng();
    fair.push_back(FairGroupRow(o, kSmallClanDiceMin, kSmallClanDiceMax, rng));
  }
  for (int games : {1, 10, 100}) {
    auto rng = next_rng();
    fair.push_back(FairReportRow(o, games, rng));
  }
  for (const Row& row : fair) PrintRow(row);
  for (int games : {1, 5, 20}) {
    auto rng = next_rng();
    PrintRow(LoadedReportRow(o, games, rng));
  }
  if (o.max_fair_rate < 0) return 0;
  for (const Row& row : fair) {
    if (row.holm.Value() > o.max_fair_rate) {
      std::printf("FAIL: %s flags %.2f%% of fair trials, above %.2f%%\n",
                  row.what.c_str(), 100 * row.holm.Value(),
                  100 * o.max_fair_rate);
      return 1;
    }
  }
  std::printf("ok: every fair row at or below %.2f%%\n", 100 * o.max_fair_rate);
  return 0;
}

}  // namespace
}  // namespace gunbai::replay

int main(int argc, char** argv) {
  gunbai::replay::Options options;
  if (!gunbai::replay::ParseArgs(argc, argv, options)) return 2;
  return gunbai::replay::Run(options);
}
