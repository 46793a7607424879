// legal_playouts: random playouts through the legal-action list
// (tests/replay/playout.h), many games, for a person to run (the suite runs
// a few in playout_test). Prints what was played and every failure, and
// exits 1 when any playout fails.
//
// Usage: legal_playouts [--games=N] [--seed=S] [--ruleset=daimyo|skf]
//                       [--ruleset-file=PATH] [--table] [--turns=T] [--units=U]
//   --games    playouts (default 100); seeds S, S+1, ...
//   --seed     the first seed (default 1)
//   --ruleset  daimyo (default) or skf
//   --ruleset-file  the ruleset from a file instead of the built-in one of
//              that name (the SKF smoke plays rules/skf/umpire-example
//              .textproto: server dice need its morale check)
//   --table    Daimyo on a table (the generator's deployment)
//   --turns    turns before the umpire ends each game (default 3)
//   --units    units a clan (default 4)
//   --dump-dir write each failed playout's log there, as
//              playout-<seed>.textproto
//
// tests/replay/playouts.sh runs the 10,000 of issue 28's closing figures.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "google/protobuf/text_format.h"
#include "replay/ruleset_loader.h"
#include "tests/replay/playout.h"

int main(int argc, char** argv) {
  gunbai::testing::PlayoutOptions options;
  int games = 100;
  std::string dump_dir;
  std::string ruleset_file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&arg](absl::string_view flag, int& out) {
      if (!absl::StartsWith(arg, flag)) return false;
      if (!absl::SimpleAtoi(arg.substr(flag.size()), &out)) {
        std::fprintf(stderr, "legal_playouts: %s takes a number\n",
                     std::string(flag).c_str());
        std::exit(2);
      }
      return true;
    };
    int n = 0;
    if (value("--games=", games)) continue;
    if (value("--seed=", n)) {
      options.seed = static_cast<std::uint64_t>(n);
      continue;
    }
    if (value("--turns=", options.turns)) continue;
    if (value("--units=", options.units_per_clan)) continue;
    if (absl::StartsWith(arg, "--ruleset=")) {
      options.ruleset = arg.substr(10);
      continue;
    }
    if (absl::StartsWith(arg, "--ruleset-file=")) {
      ruleset_file = arg.substr(15);
      continue;
    }
    if (absl::StartsWith(arg, "--dump-dir=")) {
      dump_dir = arg.substr(11);
      continue;
    }
    if (arg == "--table") {
      options.table = true;
      continue;
    }
    std::fprintf(stderr,
                 "legal_playouts: unknown argument %s (see the usage at the "
                 "top of tests/replay/playout_main.cc)\n",
                 arg.c_str());
    return 2;
  }
  absl::StatusOr<gunbai::replay::LoadedRuleset> ruleset;
  if (ruleset_file.empty()) {
    ruleset = gunbai::replay::BuiltinRuleset(options.ruleset);
  } else {
    std::ifstream in(ruleset_file);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "legal_playouts: cannot read %s\n",
                   ruleset_file.c_str());
      return 2;
    }
    ruleset = gunbai::replay::LoadRuleset(text, ruleset_file);
    if (ruleset.ok()) options.ruleset = ruleset->data.name();
  }
  if (!ruleset.ok()) {
    std::fprintf(stderr, "legal_playouts: %s\n",
                 ruleset.status().ToString().c_str());
    return 2;
  }
  const std::uint64_t first = options.seed;
  int failed = 0;
  long long events = 0;
  long long offered = 0;
  std::map<std::string, long long> kinds;
  for (int g = 0; g < games; ++g) {
    options.seed = first + static_cast<std::uint64_t>(g);
    const gunbai::testing::PlayoutResult r =
        gunbai::testing::PlayOut(options, *ruleset);
    events += r.events;
    offered += r.offered;
    for (const auto& [kind, n] : r.kinds) kinds[kind] += n;
    if (!r.failure.empty()) {
      ++failed;
      if (failed <= 20) std::printf("FAIL %s\n", r.failure.c_str());
      if (!dump_dir.empty()) {
        std::string text;
        google::protobuf::TextFormat::PrintToString(r.log, &text);
        std::ofstream(dump_dir + "/playout-" + std::to_string(options.seed) +
                      ".textproto")
            << text;
      }
    }
    if ((g + 1) % 500 == 0) {
      std::fprintf(stderr, "legal_playouts: %d of %d games, %d failed\n", g + 1,
                   games, failed);
    }
  }
  std::printf(
      "%d playouts (%s%s, %d units a clan, %d turns, seeds %llu-%llu):"
      " %d failed; %lld events, %.1f actions offered a point\n",
      games, options.ruleset.c_str(), options.table ? ", table" : "",
      options.units_per_clan, options.turns,
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + games - 1), failed, events,
      events > 0 ? static_cast<double>(offered) / events : 0.0);
  for (const auto& [kind, n] : kinds) {
    std::printf("  %-12s %lld\n", kind.c_str(), n);
  }
  return failed == 0 ? 0 : 1;
}
