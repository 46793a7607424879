// The generator plug-in list: a game generator per ruleset, chosen by the
// ruleset's name (`gunbai generate --ruleset NAME`), as rules/engine.h's
// RulesetPlugins() chooses an engine. Each entry is written in its
// ruleset's folder (generate/<name>/<name>_plugin.cc); the list itself is
// generate/plugins.cc, a build target of its own (gunbai_generator_plugins),
// so that a caller such as service/cli/generate_cli.cc reaches every generator
// through this header and names none. Thread-safe: constant data.
#ifndef GUNBAI_GENERATE_PLUGINS_H_
#define GUNBAI_GENERATE_PLUGINS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "generate/game_generator.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {

// A generated game as `gunbai generate` writes it: the log and the manifest
// of its planted faults (JSON lines, ManifestJsonLines; empty for a clean
// game).
struct GeneratedLog {
  gunbai::v1::BattleLog log;
  std::string manifest;
};

struct GeneratorPlugin {
  // The ruleset's name, as its engine's plug-in and the logs' headers give
  // it, e.g. "skf"; `--ruleset NAME` plays under its built-in ruleset.
  absl::string_view ruleset;
  // The ruleset for people, in the command's summary: "Samurai Knight
  // Fever".
  absl::string_view title;
  // What --ruleset takes for this ruleset, in the option's help (the first
  // entry's is followed by " (the default)"): "skf, a Samurai Knight Fever
  // game under the built-in example tables; or a ... ruleset file ...".
  absl::string_view ruleset_help;
  // The same, short, in the error naming what --ruleset takes: "skf or a
  // Samurai Knight Fever ruleset file".
  absl::string_view ruleset_choice;
  // The help's paragraphs on the ruleset's games and their faults (blank
  // lines between them, no newline at the end), and its example lines (each
  // indented by two spaces and ending in a newline).
  absl::string_view about;
  absl::string_view examples;
  // True when --ruleset may name a ruleset file of this name; false when
  // the generator plays the built-in ruleset only.
  bool takes_ruleset_files = false;
  // True when the coverage report (--coverage) lists, for each reading
  // option of the ruleset (replay::ReadingVariants), the games its other
  // value would change; false for a ruleset with none.
  bool reports_reading_options = false;
  // Returns InvalidArgument, its message for the user, when `options` do
  // not suit the ruleset's games (a usage error); null when all do.
  absl::Status (*check_options)(const GeneratorOptions& options) = nullptr;
  // Plays a game with `options` under `ruleset`, a ruleset of this name,
  // and returns its log and manifest; InvalidArgument when the options or
  // the ruleset cannot make a game.
  absl::StatusOr<GeneratedLog> (*generate)(
      const GeneratorOptions& options,
      const replay::LoadedRuleset& ruleset) = nullptr;
  // The names of the fault kinds a game under `ruleset` may have planted
  // (the manifests' "kind"), in catalogue order.
  std::vector<std::string> (*fault_kinds)(
      const replay::LoadedRuleset& ruleset) = nullptr;
};

// Returns `game` as `gunbai generate` writes it: its log, and its manifest
// with the kinds named as `catalogue` names them. For the entries.
template <typename Kind>
GeneratedLog AsGeneratedLog(GeneratedGameOf<Kind> game,
                            absl::Span<const FaultKindSpec<Kind>> catalogue) {
  GeneratedLog out;
  out.manifest = ManifestJsonLines(catalogue, game.faults);
  out.log = std::move(game.log);
  return out;
}

// Returns the names of `kinds`, as `catalogue` names them. For the entries.
template <typename Kind>
std::vector<std::string> KindNames(
    absl::Span<const FaultKindSpec<Kind>> catalogue,
    const std::vector<Kind>& kinds) {
  std::vector<std::string> names;
  for (Kind kind : kinds) {
    names.emplace_back(CatalogueEntry(catalogue, kind).name);
  }
  return names;
}

// Every generator, the default (Daimyo's) first.
absl::Span<const GeneratorPlugin> GeneratorPlugins();

// Returns the generator of the ruleset named `ruleset`, or null.
const GeneratorPlugin* FindGeneratorPlugin(absl::string_view ruleset);

}  // namespace gunbai::generate

#endif  // GUNBAI_GENERATE_PLUGINS_H_
