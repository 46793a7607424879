// dice_fpr: measures by simulation how often `gunbai dice` (the functions of
// replay/dice_stats.h, unchanged) flags fair dice, and how often it flags a
// player whose die is loaded, three ways: face 6 at 1.3/6 (the other faces
// sharing the rest), face 6 at 1.2/6, and faces 4-6 each at 1.1/6 (a die
// that rolls high). Beside each loaded row, the limit: how often the one
// test a statistician would aim at that loading, knowing it, flags the
// player's dice at 1% alone (the one-sided binomial test of the 6s, or the
// one-sided test of the total for the high die).
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
#include <array>
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
constexpr double kZ95 = 1.959964;

// A way to load a die: each face's chance, times 6.
struct Loading {
  const char* name;
  std::array<double, 6> weights;
  bool high_total;  // its limit is the test of the total, not of the 6s
};
constexpr Loading kLoadings[] = {
    {"6 at 1.3/6", {0.94, 0.94, 0.94, 0.94, 0.94, 1.3}, false},
    {"6 at 1.2/6", {0.96, 0.96, 0.96, 0.96, 0.96, 1.2}, false},
    {"4-6 at 1.1/6", {0.9, 0.9, 0.9, 1.1, 1.1, 1.1}, true},
};
constexpr Loading kFair = {"fair", {1, 1, 1, 1, 1, 1}, false};

struct Options {
  std::int64_t trials = 20000;
  std::uint64_t seed = 20240611;
  double max_fair_rate = -1;  // no check
};

// Rolls dice of one player, as `loading` weighs the faces.
class Dice {
 public:
  explicit Dice(const Loading& loading)
      : faces_(loading.weights.begin(), loading.weights.end()) {}
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

// Flags `g` as with no correction: any test run with its raw p-value below
// 1%.
bool FlaggedUncorrected(const DiceGroupStats& g) {
  return (!g.face_too_few_dice && g.face_p_value < kDiceFlagLevel) ||
         (g.sum_p_value.has_value() && *g.sum_p_value < kDiceFlagLevel) ||
         (g.dice >= 2 && g.run_probability < kDiceFlagLevel) ||
         g.sixes_p_value.value_or(1) < kDiceFlagLevel ||
         g.other_face_p_value.value_or(1) < kDiceFlagLevel ||
         g.high_total_p_value.value_or(1) < kDiceFlagLevel;
}

// Returns the report of `games` games of Aki (red, dice as `loading`)
// against Ben (blue, fair).
DiceReport RollReport(int games, const Loading& loading, std::mt19937_64& rng) {
  Dice aki(loading);
  Dice ben(kFair);
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
  Rate limit;        // loaded rows: the one aimed test at 1% alone
};

// A fair group alone, as `gunbai dice` of one clan would be.
Row FairGroupRow(const Options& o, std::int64_t min_dice, std::int64_t max_dice,
                 std::mt19937_64& rng) {
  Row row;
  row.what =
      absl::StrFormat("fair: one group alone (%d-%d dice)", min_dice, max_dice);
  Dice fair(kFair);
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
    const DiceReport report = RollReport(games, kFair, rng);
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

// Returns whether the one test aimed at `loading` flags `g` at 1% alone.
bool FlaggedByTheAimedTest(const DiceGroupStats& g, const Loading& loading) {
  if (loading.high_total) {
    std::int64_t total = 0;
    for (int f = 1; f <= 6; ++f) total += f * g.face_counts[f - 1];
    double z = 0;
    return HighTotalPValue(g.dice, total, z) < kDiceFlagLevel;
  }
  return BinomialUpperTail(g.dice, g.face_counts[5]) < kDiceFlagLevel;
}

// Reports of `games` games where Aki's dice are loaded: how often one of
// Aki's groups is flagged, and the limit (the aimed test on all of Aki's
// dice: the player group, or the clan's for one game).
Row LoadedReportRow(const Options& o, int games, const Loading& loading,
                    std::mt19937_64& rng) {
  Row row;
  row.what =
      absl::StrFormat("loaded %s: Aki over %d game(s)", loading.name, games);
  for (std::int64_t t = 0; t < o.trials; ++t) {
    const DiceReport report = RollReport(games, loading, rng);
    bool aki = false, aki_uncorrected = false;
    for (const auto* groups : {&report.clans, &report.players}) {
      for (const DiceGroupStats& g : *groups) {
        if (g.player != "Aki") continue;
        aki |= g.flagged;
        aki_uncorrected |= FlaggedUncorrected(g);
      }
    }
    const DiceGroupStats& all_of_aki =
        games == 1 ? report.clans[0] : report.players[0];
    row.holm.Add(aki);
    row.uncorrected.Add(aki_uncorrected);
    row.exit_one.Add(report.AnyFlagged());
    row.limit.Add(FlaggedByTheAimedTest(all_of_aki, loading));
  }
  return row;
}

void PrintRow(const Row& row) {
  std::printf("%-40s %8lld  %-22s %-22s %-22s %s\n", row.what.c_str(),
              static_cast<long long>(row.holm.trials), row.holm.Text().c_str(),
              row.uncorrected.Text().c_str(),
              row.exit_one.trials > 0 ? row.exit_one.Text().c_str() : "",
              row.limit.trials > 0 ? row.limit.Text().c_str() : "");
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
      "%g (weighted Holm over each group's tests, then Holm over the "
      "report's groups).\nLimit: the one test aimed at the loading, at 1%% "
      "alone, on all of Aki's dice.\n\n",
      static_cast<long long>(o.trials), static_cast<unsigned long long>(o.seed),
      kDiceFlagLevel);
  std::printf("%-40s %8s  %-22s %-22s %-22s %s\n", "row", "trials",
              "flagged (95% CI)", "each test at 1%", "report exits 1", "limit");
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
  for (const Loading& loading : kLoadings) {
    for (int games : {1, 5, 20}) {
      auto rng = next_rng();
      PrintRow(LoadedReportRow(o, games, loading, rng));
    }
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
