#include "service/cli/generate_cli.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "generate/game_generator.h"
#include "generate/plugins.h"
#include "google/protobuf/text_format.h"
#include "replay/audit.h"
#include "replay/coverage.h"
#include "replay/diff.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "rules/engine.h"
#include "rules/rule_docs.h"
#include "rules/status_macros.h"
#include "service/cli/cli.h"
#include "service/cli/cli_input.h"
#include "service/cli/shard.h"
#include "service/common/cli_app.h"
#include "service/render/report_format.h"

namespace gunbai::service {

namespace {

constexpr char kUsage[] =
    R"(Usage:
  gunbai generate [--seed N] [--turns T | --events E] [--units U]
                  [--faults K] [--positions] [--format=text|json|binary]
                  [--manifest FILE] [-o FILE] [--ruleset R]
  gunbai generate --count C --out-dir DIR [--shard I/N] [--seed N] ...
  gunbai generate --coverage N [--ruleset R] [--faults K] [--seed N] ...

A corpus: --count C --out-dir DIR writes the games of seeds N to N+C-1 as
DIR/game-SEED.textproto (.json, .binpb), each byte for byte what
`gunbai generate --seed SEED` with the same options writes, and with
--faults its manifest beside it as DIR/game-SEED.manifest.jsonl. Each file
is written whole or not at all. With --shard=I/N it writes only the games
whose file name hashes to I: N hosts with the same options write the whole
corpus between them, each game once.
  gunbai generate --count 100000 --turns 4 --out-dir corpus --shard=$I/8)";

constexpr char kExitCodes[] =
    R"(Exit codes:
  0  the game (and manifest), or every game of the corpus, was written
  2  bad command line, or an output file that cannot be written)";

// The generators, the default first.
absl::Span<const generate::GeneratorPlugin> Plugins() {
  return generate::GeneratorPlugins();
}
const generate::GeneratorPlugin& DefaultPlugin() { return Plugins().front(); }

// The command's summary, naming the rulesets it plays.
std::string Summary() {
  std::vector<absl::string_view> others;
  for (const generate::GeneratorPlugin& p : Plugins().subspan(1)) {
    others.push_back(p.title);
  }
  return absl::StrCat(
      "write a random ", DefaultPlugin().title,
      others.empty()
          ? ""
          : absl::StrCat(" (or ", absl::StrJoin(others, " or "), ")"),
      " game that audits clean, or one with known faults planted in it");
}

// The help after the options: the usage, each generator's paragraphs and
// examples, the exit codes.
std::string Footer() {
  std::string about;
  std::string examples;
  for (const generate::GeneratorPlugin& p : Plugins()) {
    absl::StrAppend(&about, p.about, "\n\n");
    absl::StrAppend(&examples, p.examples);
  }
  return absl::StrCat(kUsage, "\n\n", about, "Examples:\n", examples, "\n",
                      kExitCodes);
}

// What --ruleset takes, from `what` of each generator, the default's marked
// as such, joined by `separator`.
std::string RulesetList(absl::string_view generate::GeneratorPlugin::*what,
                        absl::string_view separator) {
  std::vector<std::string> parts;
  for (const generate::GeneratorPlugin& p : Plugins()) {
    parts.push_back(&p == &DefaultPlugin()
                        ? absl::StrCat(p.*what, " (the default)")
                        : std::string(p.*what));
  }
  return absl::StrJoin(parts, separator);
}

// For the option's help, and short, for an error.
std::string RulesetHelp() {
  return RulesetList(&generate::GeneratorPlugin::ruleset_help, "; ");
}
std::string RulesetChoices() {
  return RulesetList(&generate::GeneratorPlugin::ruleset_choice, ", ");
}

struct GenerateFlags {
  generate::GeneratorOptions options;
  std::string format = "text";
  std::string manifest_path;
  std::string output_path;
  // --coverage N: games to generate and audit for the coverage report.
  int coverage_games = 0;
  // --count C --out-dir DIR [--shard I/N]: a corpus of C games in DIR.
  std::int64_t count = 0;
  std::string out_dir;
  ShardChoice shard;
  // --ruleset: a generator's ruleset name (the default's unless given), or
  // a ruleset file.
  std::string ruleset = std::string(DefaultPlugin().ruleset);
};

std::string Command(const GenerateFlags& f) {
  const generate::GeneratorOptions& o = f.options;
  return absl::StrCat("gunbai generate",
                      f.ruleset == DefaultPlugin().ruleset
                          ? ""
                          : absl::StrCat(" --ruleset ", f.ruleset),
                      " --seed ", o.seed,
                      o.turns > 0 ? absl::StrCat(" --turns ", o.turns)
                                  : absl::StrCat(" --events ", o.target_events),
                      " --units ", o.units_per_clan,
                      o.faults > 0 ? absl::StrCat(" --faults ", o.faults) : "",
                      o.positions ? " --positions" : "");
}

// Returns the log in the chosen format. The text format opens with the
// comment lines that name its message and how it was made.
std::string Render(const gunbai::v1::BattleLog& log, const GenerateFlags& f) {
  if (f.format == "binary") return base::DeterministicBytes(log);
  if (f.format == "json") return FormatJson(log);
  std::string text = absl::StrCat(
      "# proto-file: gunbai/v1/battle_log.proto\n"
      "# proto-message: gunbai.v1.BattleLog\n"
      "#\n"
      "# Made by `",
      Command(f), "`.\n");
  std::string body;
  google::protobuf::TextFormat::PrintToString(log, &body);
  return text + body;
}

// Writes `bytes` to `path`; returns false when it cannot.
bool WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
  file.close();
  return static_cast<bool>(file);
}

// A generator and the ruleset it plays under.
struct ChosenGenerator {
  const generate::GeneratorPlugin* plugin = nullptr;
  replay::LoadedRuleset ruleset;
};

// Returns the generator `name_or_path` names with its ruleset: a
// generator's built-in ruleset by name, else the ruleset file at that path,
// played by the generator of its name when that one takes files.
absl::StatusOr<ChosenGenerator> ChooseGenerator(
    const std::string& name_or_path) {
  ChosenGenerator chosen;
  chosen.plugin = generate::FindGeneratorPlugin(name_or_path);
  if (chosen.plugin != nullptr) {
    GUNBAI_ASSIGN_OR_RETURN(auto builtin, replay::BuiltinRuleset(name_or_path));
    chosen.ruleset = std::move(builtin);
    return chosen;
  }
  GUNBAI_ASSIGN_OR_RETURN(auto text, ReadInputFile(name_or_path));
  GUNBAI_ASSIGN_OR_RETURN(auto loaded, replay::LoadRuleset(text, name_or_path));
  chosen.plugin = generate::FindGeneratorPlugin(loaded.data.name());
  if (chosen.plugin == nullptr || !chosen.plugin->takes_ruleset_files) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ruleset takes ", RulesetChoices()));
  }
  chosen.ruleset = std::move(loaded);
  return chosen;
}

// Prints how often each rule id documented for `ruleset_name` (and the
// scenario rules every ruleset shares) was exercised in `coverage`, the ids
// never exercised last.
void PrintRuleCoverage(const GenerateFlags& flags,
                       absl::string_view ruleset_name,
                       const replay::RuleCoverage& coverage,
                       std::ostream& out) {
  out << "Rule coverage of " << flags.coverage_games << " generated game"
      << (flags.coverage_games == 1 ? "" : "s") << " (" << Command(flags)
      << " and the next seeds): times each documented rule id was exercised\n"
      << "(named by a finding or by a term of an outcome's trace)\n\n";
  int documented = 0;
  std::vector<std::string> never;
  for (const rules::RulesDoc& doc : rules::RulesDocs()) {
    if (doc.ruleset != ruleset_name && !doc.ruleset.empty()) continue;
    for (const rules::DocumentedRule& rule : rules::DocumentedRules(doc)) {
      ++documented;
      const std::int64_t n = coverage.CountOf(rule.id);
      out << absl::StrFormat("  %10d  %s\n", n, rule.id);
      if (n == 0) never.push_back(rule.id);
    }
  }
  out << "\n"
      << documented - static_cast<int>(never.size()) << " of " << documented
      << " documented rule ids exercised";
  if (never.empty()) {
    out << ".\n";
  } else {
    out << "; never exercised (" << never.size()
        << "): " << absl::StrJoin(never, ", ") << "\n";
  }
}

// Generates `flags.coverage_games` games from the seed on with `chosen`'s
// generator, audits each with every outcome recorded, and prints how often
// each rule id documented for the ruleset was exercised (the ids never
// exercised last) and, for a ruleset with reading options, in how many
// games each option's other value would have changed an outcome.
int RunCoverage(const GenerateFlags& flags, const ChosenGenerator& chosen,
                std::ostream& out, std::ostream& err) {
  const generate::GeneratorPlugin& plugin = *chosen.plugin;
  const replay::LoadedRuleset& ruleset = chosen.ruleset;
  replay::RuleCoverage coverage;
  std::vector<replay::ReadingVariant> variants;
  if (plugin.reports_reading_options) {
    auto all = replay::ReadingVariants(ruleset);
    if (!all.ok()) {
      err << "gunbai generate: " << all.status().message() << "\n";
      return kExitBadInput;
    }
    variants = *std::move(all);
  }
  replay::AuditOptions audit_options;
  audit_options.record_outcomes = true;
  generate::GeneratorOptions options = flags.options;
  for (int g = 0; g < flags.coverage_games; ++g) {
    options.seed = flags.options.seed + static_cast<std::uint64_t>(g);
    auto game = plugin.generate(options, ruleset);
    if (!game.ok()) {
      err << "gunbai generate: " << game.status().message() << "\n";
      return kExitBadInput;
    }
    auto report = replay::AuditLog(game->log, ruleset, audit_options);
    if (!report.ok()) {
      err << "gunbai generate: seed " << options.seed << ": "
          << report.status().message() << "\n";
      return kExitBadInput;
    }
    coverage.Add(*report);
    for (replay::ReadingVariant& variant : variants) {
      replay::CountReadingDiff(
          replay::DiffUnderRulesets("game", game->log,
                                    {&ruleset, &variant.ruleset, nullptr}),
          variant);
    }
  }
  PrintRuleCoverage(flags, plugin.ruleset, coverage, out);
  const absl::string_view docs = ruleset.plugin->docs_path;
  if (!plugin.reports_reading_options) {
    out << "\nReading options: " << plugin.title
        << " has none (its readings are settled, " << docs << ").\n";
    return kExitClean;
  }
  // Each reading option: in how many games the other reading would have
  // changed an outcome (the game replayed under both, as gunbai diff does).
  out << "\nReading options (" << docs
      << "): games whose outcomes the other reading changes\n\n";
  int mattered = 0;
  for (const replay::ReadingVariant& v : variants) {
    out << absl::StrFormat("  %10d  %s: %s instead of %s (%d event%s)\n",
                           v.games_changed, v.option, v.alternative, v.in_use,
                           v.events_changed, v.events_changed == 1 ? "" : "s");
    if (v.games_changed > 0) ++mattered;
  }
  out << "\n"
      << mattered << " of " << variants.size()
      << " other readings change some game.\n";
  return kExitClean;
}

// The file extension of a corpus game in `format`.
absl::string_view CorpusExtension(const std::string& format) {
  return format == "binary" ? ".binpb"
         : format == "json" ? ".json"
                            : ".textproto";
}

// Writes `bytes` to `path` whole or not at all: to a temporary file beside
// it, then renamed over it. Returns false when it cannot.
bool WriteFileWhole(const std::string& path, const std::string& bytes) {
  const std::string temporary = path + ".partial";
  if (!WriteFile(temporary, bytes)) {
    std::remove(temporary.c_str());
    return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

// Returns a message saying what is wrong with --count, --out-dir and
// --shard together with the other options, empty when they make sense.
std::string CheckCorpusFlags(const GenerateFlags& f) {
  if (f.count == 0) {
    if (!f.out_dir.empty()) return "--out-dir needs --count C: how many games";
    if (f.shard.sharded()) {
      return "--shard splits a corpus: add --count C --out-dir DIR";
    }
    return "";
  }
  if (f.out_dir.empty()) {
    return "--count writes a corpus into a directory: add --out-dir DIR";
  }
  if (f.coverage_games > 0 || !f.output_path.empty() ||
      !f.manifest_path.empty()) {
    return "--count writes every game and manifest into --out-dir: drop "
           "--coverage, -o and --manifest";
  }
  const std::uint64_t last_seed_room =
      std::numeric_limits<std::uint64_t>::max() - f.options.seed;
  if (static_cast<std::uint64_t>(f.count - 1) > last_seed_room) {
    return "--seed N plus --count C runs past the largest seed; choose a "
           "smaller --seed";
  }
  return "";
}

// Writes the corpus: the games of seeds seed..seed+count-1 in the shard
// chosen, each as `gunbai generate --seed SEED` would write it, and a line
// on `err` every 1000 games and at the end.
int WriteCorpus(const GenerateFlags& flags, const ChosenGenerator& chosen,
                std::ostream& err) {
  std::error_code error;
  std::filesystem::create_directories(flags.out_dir, error);
  if (error) {
    err << "gunbai generate: " << flags.out_dir
        << ": cannot make the directory (" << error.message()
        << "); check the path\n";
    return kExitBadInput;
  }
  const std::string shard_words =
      flags.shard.sharded() ? absl::StrCat(" (shard ", flags.shard.shard,
                                           " of ", flags.shard.shards, ")")
                            : "";
  // Writes DIR/NAME whole; false, said on `err`, when it cannot.
  auto write = [&flags, &err](const std::string& name,
                              const std::string& bytes) {
    const std::string path = std::filesystem::path(flags.out_dir) / name;
    if (WriteFileWhole(path, bytes)) return true;
    err << "gunbai generate: " << path
        << ": cannot write the file; check the directory\n";
    return false;
  };
  GenerateFlags one = flags;
  std::int64_t written = 0;
  for (std::int64_t g = 0; g < flags.count; ++g) {
    one.options.seed = flags.options.seed + static_cast<std::uint64_t>(g);
    const std::string stem = absl::StrCat("game-", one.options.seed);
    const std::string name = absl::StrCat(stem, CorpusExtension(flags.format));
    if (!InShard(name, flags.shard)) continue;
    auto game = chosen.plugin->generate(one.options, chosen.ruleset);
    if (!game.ok()) {
      err << "gunbai generate: seed " << one.options.seed << ": "
          << game.status().message() << "\n";
      return kExitBadInput;
    }
    if (!write(name, Render(game->log, one)) ||
        (one.options.faults > 0 &&
         !write(absl::StrCat(stem, ".manifest.jsonl"), game->manifest))) {
      return kExitBadInput;
    }
    ++written;
    if (written % 1000 == 0) {
      err << "gunbai generate: " << written << " games written" << shard_words
          << ", " << g + 1 << " of " << flags.count << " seeds done\n";
    }
  }
  err << "gunbai generate: wrote " << written << " of " << flags.count
      << " games" << shard_words << " to " << flags.out_dir << " (seeds "
      << flags.options.seed << " to "
      << flags.options.seed + static_cast<std::uint64_t>(flags.count - 1)
      << ")\n";
  return kExitClean;
}

int Generate(const GenerateFlags& flags, std::ostream& out, std::ostream& err) {
  if (std::string wrong = CheckCorpusFlags(flags); !wrong.empty()) {
    err << "gunbai generate: " << wrong << "\n";
    return kExitBadInput;
  }
  auto chosen = ChooseGenerator(flags.ruleset);
  if (!chosen.ok()) {
    err << "gunbai generate: " << chosen.status().message() << "\n";
    return kExitBadInput;
  }
  const generate::GeneratorPlugin& plugin = *chosen->plugin;
  if (plugin.check_options != nullptr) {
    if (absl::Status s = plugin.check_options(flags.options); !s.ok()) {
      err << "gunbai generate: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  if (flags.coverage_games > 0) return RunCoverage(flags, *chosen, out, err);
  if (flags.count > 0) return WriteCorpus(flags, *chosen, err);
  auto game = plugin.generate(flags.options, chosen->ruleset);
  if (!game.ok()) {
    err << "gunbai generate: " << game.status().message() << "\n";
    return kExitBadInput;
  }
  const std::string& manifest = game->manifest;
  const std::string log = Render(game->log, flags);
  if (flags.output_path.empty()) {
    out << log;
  } else if (!WriteFile(flags.output_path, log)) {
    err << "gunbai generate: " << flags.output_path
        << ": cannot write the file; check the path\n";
    return kExitBadInput;
  }
  if (!flags.manifest_path.empty()) {
    if (!WriteFile(flags.manifest_path, manifest)) {
      err << "gunbai generate: " << flags.manifest_path
          << ": cannot write the file; check the path\n";
      return kExitBadInput;
    }
  } else if (flags.options.faults > 0) {
    err << manifest;
  }
  return kExitClean;
}

}  // namespace

int RunGenerateCli(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  std::vector<std::string> full = {"generate"};
  full.insert(full.end(), args.begin(), args.end());
  return RunCli(full, out, err);
}

void AddGenerateCommand(CLI::App& app, CliContext& context) {
  auto f = std::make_shared<GenerateFlags>();
  generate::GeneratorOptions& o = f->options;
  o.turns = 8;
  CLI::App* command = app.add_subcommand("generate", Summary());
  command->footer(Footer());
  command->add_option("--seed", o.seed, "the seed of the game (default 1)")
      ->type_name("N");
  CLI::Option* turns =
      command->add_option("--turns", o.turns, "play T whole turns (default 8)")
          ->type_name("T")
          ->check(CLI::Range(1, 100000));
  command
      ->add_option_function<int>(
          "--events",
          [f](const int& events) {
            f->options.turns = 0;
            f->options.target_events = events;
          },
          "instead of turns: a log of exactly E events (at least 5), the "
          "last turns only moving; for benchmarks")
      ->type_name("E")
      ->check(CLI::Range(5, 10000000))
      ->excludes(turns);
  command
      ->add_option("--units", o.units_per_clan,
                   "units a clan fields (default 8; 1 to 1000)")
      ->type_name("U")
      ->check(CLI::Range(1, 1000));
  command->add_option("--faults", o.faults, "plant K faults (default 0)")
      ->type_name("K")
      ->check(CLI::Range(0, 1000));
  command->add_flag(
      "--positions", o.positions,
      "Daimyo: play on a 180 x 120 cm table with terrain (woods, a hill, a "
      "wall, a pond or a house) and every unit's position; moves and charges "
      "give where "
      "they end, and the table settles range, arc, sight, the nearest target, "
      "cover, contact, flank and the 15 cm of morale, which the log then "
      "declares only as measured. With --turns (not --events), at most 256 "
      "units a clan; past 16 the table is 180 cm wider for each 16 more");
  AddChoiceOption(*command, "--format", f->format, {"text", "json", "binary"},
                  "the log's format: text is protobuf text format, what "
                  "`gunbai audit` reads");
  command
      ->add_option("--coverage", f->coverage_games,
                   "instead of writing a game: generate N games (the seed and "
                   "the next ones, with --faults K each), audit each, and "
                   "print how often every rule id documented for the ruleset "
                   "(and the scenario rules) was exercised, the ids no game "
                   "exercised last, and for each reading option of the "
                   "Daimyo ruleset the games its other value would change")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  command->add_option("--ruleset", f->ruleset, RulesetHelp())->type_name("R");
  command
      ->add_option("--manifest", f->manifest_path,
                   "write the manifest of planted faults to FILE; without "
                   "it, a game with faults writes its manifest to stderr")
      ->type_name("FILE");
  command
      ->add_option("-o,--output", f->output_path,
                   "write the log to FILE instead of stdout")
      ->type_name("FILE");
  command
      ->add_option("--count", f->count,
                   "instead of one game: a corpus of C games, the seed and "
                   "the next ones, written into --out-dir")
      ->type_name("C")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{100000000}));
  command
      ->add_option("--out-dir", f->out_dir,
                   "with --count: the directory the games go in "
                   "(DIR/game-SEED.textproto; made when missing)")
      ->type_name("DIR");
  AddShardOption(*command, f->shard,
                 "with --count: write only shard I of N (0 <= I < N) of the "
                 "corpus, the games whose file name hashes to I");
  command->callback(
      [f, &context] { context.code = Generate(*f, context.out, context.err); });
}

}  // namespace gunbai::service
