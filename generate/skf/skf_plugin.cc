// Samurai Knight Fever's entry in the generator plug-in list
// (generate/plugins.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "generate/plugins.h"
#include "generate/skf/skf_game.h"
#include "rules/status_macros.h"

namespace gunbai::generate {

namespace {

// A game plays whole turns; it is not sized by events.
absl::Status CheckOptions(const GeneratorOptions& options) {
  if (options.positions) {
    return absl::InvalidArgumentError("--positions plays Daimyo games only");
  }
  if (options.turns == 0) {
    return absl::InvalidArgumentError(
        "--events sizes Daimyo games only; a Samurai Knight Fever game plays "
        "--turns T");
  }
  return absl::OkStatus();
}

absl::StatusOr<GeneratedLog> Generate(const GeneratorOptions& options,
                                      const replay::LoadedRuleset& ruleset) {
  GUNBAI_ASSIGN_OR_RETURN(auto game,
                          GenerateSkfGameWithFaults(options, ruleset));
  return AsGeneratedLog(std::move(game), SkfFaultCatalogue());
}

std::vector<std::string> FaultKinds(const replay::LoadedRuleset& ruleset) {
  return KindNames(SkfFaultCatalogue(), SkfFaultKindsFor(ruleset));
}

constexpr char kAbout[] =
    R"(With --ruleset skf (or a Samurai Knight Fever ruleset file) the game is
Samurai Knight Fever's: two clans, Uesugi and Takeda, fight single and
multiple melees, check morale, roll for leader hits and play to a victory
by points. Its --faults are a melee side's wrong hits or dice, bases lost
beyond the hits taken, a skipped or wrong morale check (wrong result,
total or dice: only under a ruleset with a morale check), a skipped,
wrong (under a ruleset with a killing die) or unowed leader-hit roll, a
wrong winner at game_end and header victory points other than the
ruleset's (skf.victory.points_mismatch); the kinds go round evenly, and
one that finds no chance in the game is planted as an unowed leader-hit
roll, its manifest line saying in place of what ("in_place_of").)";

constexpr char kExamples[] =
    R"(  gunbai generate --ruleset rules/skf/umpire-example.textproto --faults 3 \
      --manifest skf.jsonl -o skf.textproto
  gunbai audit --ruleset rules/skf/umpire-example.textproto skf.textproto
  gunbai generate --ruleset skf --coverage 300     # SKF rule ids exercised
)";

}  // namespace

GeneratorPlugin SkfGeneratorPlugin() {
  GeneratorPlugin plugin;
  plugin.ruleset = "skf";
  plugin.title = "Samurai Knight Fever";
  plugin.ruleset_help =
      "skf, a Samurai Knight Fever game under the built-in example tables; "
      "or a Samurai Knight Fever ruleset file, such as "
      "rules/skf/umpire-example.textproto, whose version the log's header "
      "names. A Samurai Knight Fever game fields 2 to 64 units a clan and "
      "plays --turns T (not --events)";
  plugin.ruleset_choice = "skf or a Samurai Knight Fever ruleset file";
  plugin.about = kAbout;
  plugin.examples = kExamples;
  plugin.takes_ruleset_files = true;
  // Its readings are settled (rules/skf/RULES.md).
  plugin.reports_reading_options = false;
  plugin.check_options = &CheckOptions;
  plugin.generate = &Generate;
  plugin.fault_kinds = &FaultKinds;
  return plugin;
}

}  // namespace gunbai::generate
