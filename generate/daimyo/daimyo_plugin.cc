// Daimyo's entry in the generator plug-in list (generate/plugins.h).
#include <string>
#include <vector>

#include "generate/daimyo/daimyo_game.h"
#include "generate/plugins.h"

namespace gunbai::generate {

namespace {

// A game with positions is sized by turns and fits its armies on the table
// (wider for more than 16 units a clan).
absl::Status CheckOptions(const GeneratorOptions& options) {
  if (options.positions && options.turns <= 0) {
    return absl::InvalidArgumentError(
        "--positions plays --turns T, not --events E");
  }
  if (options.positions && options.units_per_clan > 256) {
    return absl::InvalidArgumentError(
        "--positions deploys at most 256 units a clan (on a table 180 cm "
        "wider for each 16 units over 16)");
  }
  return absl::OkStatus();
}

absl::StatusOr<GeneratedLog> Generate(const GeneratorOptions& options,
                                      const replay::LoadedRuleset& ruleset) {
  return AsGeneratedLog(GenerateDaimyoGame(options, ruleset), FaultCatalogue());
}

// Every kind, under any Daimyo ruleset.
std::vector<std::string> FaultKinds(const replay::LoadedRuleset&) {
  return KindNames(FaultCatalogue(), CatalogueKinds(FaultCatalogue()));
}

constexpr char kAbout[] =
    R"(Two clans, Oda and Takeda, play whole turns of the Daimyo rules: units
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
(and severity and subject) `gunbai audit` must report.)";

constexpr char kExamples[] =
    R"(  gunbai generate --seed 7 --turns 6 --units 6 -o game.textproto
  gunbai audit game.textproto                      # exit 0: clean
  gunbai generate --seed 7 --turns 6 --units 6 --faults 3 \
      --manifest planted.jsonl -o faulty.textproto
  gunbai audit faulty.textproto                    # exit 1: the 3 faults
  gunbai generate --seed 7 --turns 6 --units 6 --positions -o table.textproto
  gunbai map table.textproto --at=40 -o table.svg  # the table after seq 40
)";

}  // namespace

GeneratorPlugin DaimyoGeneratorPlugin() {
  GeneratorPlugin plugin;
  plugin.ruleset = "daimyo";
  plugin.title = "Daimyo";
  plugin.ruleset_help = "daimyo";
  plugin.ruleset_choice = "daimyo";
  plugin.about = kAbout;
  plugin.examples = kExamples;
  // Its games play the built-in tables (the tests' rulesets aside).
  plugin.takes_ruleset_files = false;
  plugin.reports_reading_options = true;
  plugin.check_options = &CheckOptions;
  plugin.generate = &Generate;
  plugin.fault_kinds = &FaultKinds;
  return plugin;
}

}  // namespace gunbai::generate
