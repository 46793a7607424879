#include "service/generate_cli.h"

#include <algorithm>
#include <cstdint>
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
#include "generate/daimyo/daimyo_game.h"
#include "generate/skf/skf_game.h"
#include "google/protobuf/text_format.h"
#include "replay/audit.h"
#include "replay/coverage.h"
#include "replay/diff.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "rules/rule_docs.h"
#include "service/cli.h"
#include "service/cli_app.h"
#include "service/cli_input.h"
#include "service/report_format.h"

namespace gunbai::service {

namespace {

constexpr char kFooter[] =
    R"(Usage:
  gunbai generate [--seed N] [--turns T | --events E] [--units U]
                  [--faults K] [--format=text|json|binary]
                  [--manifest FILE] [-o FILE] [--ruleset R]
  gunbai generate --coverage N [--ruleset R] [--faults K] [--seed N] ...

Two clans, Oda and Takeda, play whole turns of the Daimyo rules: units
move, fire (and fire at the units charging them), charge (some charges
fall short; a target may stand, retire or counter-charge), fight melees
that last several rounds, with duels between their daimyo first (some are
multi-unit: two units against one, the pairings sharing a melee_id, each
unit moving by its worst result), and make
the push backs, routs, follow-ups and pursuits the outcome owes; they take
every morale test their losses owe (stand lost, being charged, leader
killed, friends routing near or passing through), rally, become frenzied,
and carry out every result. Every claim is worked out by the rules engine
on the game as replayed, so a game without faults audits with no finding.
The same options always give the same bytes.

--faults K plants K known faults (a wrong hits claim, a second volley in a
turn, a die reading 7, a skipped morale test or leader-loss roll, a wrong
melee outcome or duel winner, a push back not made, a halted unit moving,
...), each planted so that the audit finds exactly it and nothing else.
The manifest lists them, one JSON object a line: the seq and the rule id
(and severity and subject) `gunbai audit` must report.

With --ruleset skf (or a Samurai Knight Fever ruleset file) the game is
Samurai Knight Fever's: two clans, Uesugi and Takeda, fight single and
multiple melees, check morale, roll for leader hits and play to a victory
by points. Its --faults are a melee side's wrong hits or dice, bases lost
beyond the hits taken, a skipped or wrong morale check (wrong result,
total or dice: only under a ruleset with a morale check), a skipped,
wrong (under a ruleset with a killing die) or unowed leader-hit roll, a
wrong winner at game_end and header victory points other than the
ruleset's (skf.victory.points_mismatch); the kinds go round evenly, and
one that finds no chance in the game is planted as an unowed leader-hit
roll, its manifest line saying in place of what ("in_place_of").

Examples:
  gunbai generate --seed 7 --turns 6 --units 6 -o game.textproto
  gunbai audit game.textproto                      # exit 0: clean
  gunbai generate --seed 7 --turns 6 --units 6 --faults 3 \
      --manifest planted.jsonl -o faulty.textproto
  gunbai audit faulty.textproto                    # exit 1: the 3 faults
  gunbai generate --ruleset rules/skf/umpire-example.textproto --faults 3 \
      --manifest skf.jsonl -o skf.textproto
  gunbai audit --ruleset rules/skf/umpire-example.textproto skf.textproto
  gunbai generate --ruleset skf --coverage 300     # SKF rule ids exercised

Exit codes:
  0  the game (and manifest) was written
  2  bad command line, or an output file that cannot be written)";

struct GenerateFlags {
  generate::GeneratorOptions options;
  std::string format = "text";
  std::string manifest_path;
  std::string output_path;
  // --coverage N: games to generate and audit for the coverage report.
  int coverage_games = 0;
  // --ruleset: "daimyo" (the default), "skf", or a ruleset file.
  std::string ruleset = "daimyo";
};

std::string Command(const GenerateFlags& f) {
  const generate::GeneratorOptions& o = f.options;
  return absl::StrCat(
      "gunbai generate",
      f.ruleset == "daimyo" ? "" : absl::StrCat(" --ruleset ", f.ruleset),
      " --seed ", o.seed,
      o.turns > 0 ? absl::StrCat(" --turns ", o.turns)
                  : absl::StrCat(" --events ", o.target_events),
      " --units ", o.units_per_clan,
      o.faults > 0 ? absl::StrCat(" --faults ", o.faults) : "");
}

// Returns the log in the chosen format. The text format opens with the
// comment lines that name its message and how it was made.
std::string Render(const gunbai::v1::BattleLog& log, const GenerateFlags& f) {
  if (f.format == "binary") return replay::DeterministicBytes(log);
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

// Returns the ruleset `name_or_path` names: a built-in one by name, else the
// ruleset file at that path.
absl::StatusOr<replay::LoadedRuleset> GeneratorRuleset(
    const std::string& name_or_path) {
  auto catalog = replay::RulesetCatalog::Builtin();
  if (!catalog.ok()) return catalog.status();
  for (const replay::LoadedRuleset* r : catalog->all()) {
    if (r->data.name() == name_or_path) return *r;
  }
  auto text = ReadInputFile(name_or_path);
  if (!text.ok()) return text.status();
  return replay::LoadRuleset(*text, name_or_path);
}

}  // namespace

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

// Generates `flags.coverage_games` games from the seed on, audits each with
// every outcome recorded, and prints how often each rule id documented for
// Daimyo was exercised; the ids never exercised are listed last.
int RunCoverage(const GenerateFlags& flags, std::ostream& out,
                std::ostream& err) {
  auto ruleset = replay::BuiltinDaimyoRuleset();
  if (!ruleset.ok()) {
    err << "gunbai generate: " << ruleset.status().message() << "\n";
    return kExitBadInput;
  }
  replay::RuleCoverage coverage;
  auto variants = replay::ReadingVariants(*ruleset);
  if (!variants.ok()) {
    err << "gunbai generate: " << variants.status().message() << "\n";
    return kExitBadInput;
  }
  replay::AuditOptions audit_options;
  audit_options.record_outcomes = true;
  generate::GeneratorOptions options = flags.options;
  for (int g = 0; g < flags.coverage_games; ++g) {
    options.seed = flags.options.seed + static_cast<std::uint64_t>(g);
    const generate::GeneratedGame game = generate::GenerateGame(options);
    auto report = replay::AuditLog(game.log, *ruleset, audit_options);
    if (!report.ok()) {
      err << "gunbai generate: seed " << options.seed << ": "
          << report.status().message() << "\n";
      return kExitBadInput;
    }
    coverage.Add(*report);
    for (replay::ReadingVariant& variant : *variants) {
      replay::CountReadingDiff(
          replay::DiffUnderRulesets("game", game.log,
                                    {&*ruleset, &variant.ruleset, nullptr}),
          variant);
    }
  }
  PrintRuleCoverage(flags, "daimyo", coverage, out);
  // Each reading option: in how many games the other reading would have
  // changed an outcome (the game replayed under both, as gunbai diff does).
  out << "\nReading options (rules/daimyo/RULES.md): games whose outcomes "
         "the other reading changes\n\n";
  int mattered = 0;
  for (const replay::ReadingVariant& v : *variants) {
    out << absl::StrFormat("  %10d  %s: %s instead of %s (%d event%s)\n",
                           v.games_changed, v.option, v.alternative, v.in_use,
                           v.events_changed, v.events_changed == 1 ? "" : "s");
    if (v.games_changed > 0) ++mattered;
  }
  out << "\n"
      << mattered << " of " << variants->size()
      << " other readings change some game.\n";
  return kExitClean;
}

// The same for Samurai Knight Fever games under `ruleset`: every rule id of
// rules/skf/RULES.md and the scenario rules. The ruleset has no reading
// options (its readings are settled in rules/skf/RULES.md), so there is no
// such section.
int RunSkfCoverage(const GenerateFlags& flags,
                   const replay::LoadedRuleset& ruleset, std::ostream& out,
                   std::ostream& err) {
  replay::RuleCoverage coverage;
  replay::AuditOptions audit_options;
  audit_options.record_outcomes = true;
  generate::GeneratorOptions options = flags.options;
  for (int g = 0; g < flags.coverage_games; ++g) {
    options.seed = flags.options.seed + static_cast<std::uint64_t>(g);
    auto game = generate::GenerateSkfGameWithFaults(options, ruleset);
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
  }
  PrintRuleCoverage(flags, "skf", coverage, out);
  out << "\nReading options: Samurai Knight Fever has none (its readings are "
         "settled, rules/skf/RULES.md).\n";
  return kExitClean;
}

namespace {

int Generate(const GenerateFlags& flags, std::ostream& out, std::ostream& err) {
  generate::GeneratedGame game;
  std::string manifest;
  if (flags.ruleset != "daimyo") {
    auto ruleset = GeneratorRuleset(flags.ruleset);
    if (!ruleset.ok()) {
      err << "gunbai generate: " << ruleset.status().message() << "\n";
      return kExitBadInput;
    }
    if (ruleset->data.name() != "skf") {
      err << "gunbai generate: --ruleset takes daimyo (the default), skf or "
             "a Samurai Knight Fever ruleset file\n";
      return kExitBadInput;
    }
    if (flags.options.turns == 0) {
      err << "gunbai generate: --events sizes Daimyo games only; a Samurai "
             "Knight Fever game plays --turns T\n";
      return kExitBadInput;
    }
    if (flags.coverage_games > 0) {
      return RunSkfCoverage(flags, *ruleset, out, err);
    }
    auto skf = generate::GenerateSkfGameWithFaults(flags.options, *ruleset);
    if (!skf.ok()) {
      err << "gunbai generate: " << skf.status().message() << "\n";
      return kExitBadInput;
    }
    game.log = std::move(skf->log);
    manifest = generate::SkfManifestJsonLines(skf->faults);
  } else if (flags.coverage_games > 0) {
    return RunCoverage(flags, out, err);
  } else {
    game = generate::GenerateGame(flags.options);
    manifest = generate::ManifestJsonLines(game.faults);
  }
  const std::string log = Render(game.log, flags);
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
  CLI::App* command = app.add_subcommand(
      "generate",
      "write a random Daimyo (or Samurai Knight Fever) game that audits "
      "clean, or one with known faults planted in it");
  command->footer(kFooter);
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
  command
      ->add_option("--ruleset", f->ruleset,
                   "daimyo (the default); skf, a Samurai Knight Fever game "
                   "under the built-in example tables; or a Samurai Knight "
                   "Fever ruleset file, such as "
                   "rules/skf/umpire-example.textproto, whose version the "
                   "log's header names. A Samurai Knight Fever game fields 2 "
                   "to 64 units a clan and plays --turns T (not --events)")
      ->type_name("R");
  command
      ->add_option("--manifest", f->manifest_path,
                   "write the manifest of planted faults to FILE; without "
                   "it, a game with faults writes its manifest to stderr")
      ->type_name("FILE");
  command
      ->add_option("-o,--output", f->output_path,
                   "write the log to FILE instead of stdout")
      ->type_name("FILE");
  command->callback(
      [f, &context] { context.code = Generate(*f, context.out, context.err); });
}

}  // namespace gunbai::service
