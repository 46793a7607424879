// The generator plug-in list (plugins.h): one entry a ruleset, each written
// in its ruleset's folder. A new ruleset's generator joins here.
#include "generate/plugins.h"

#include <array>

#include "generate/daimyo/daimyo_game.h"
#include "generate/skf/skf_game.h"

namespace gunbai::generate {

absl::Span<const GeneratorPlugin> GeneratorPlugins() {
  static const auto* const kPlugins = new std::array<GeneratorPlugin, 2>{{
      DaimyoGeneratorPlugin(),
      SkfGeneratorPlugin(),
  }};
  return *kPlugins;
}

const GeneratorPlugin* FindGeneratorPlugin(absl::string_view ruleset) {
  for (const GeneratorPlugin& plugin : GeneratorPlugins()) {
    if (plugin.ruleset == ruleset) return &plugin;
  }
  return nullptr;
}

}  // namespace gunbai::generate
