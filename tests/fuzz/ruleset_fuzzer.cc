// Fuzz target: a ruleset file (text format of gunbai.v1.Ruleset) through
// replay::LoadRuleset, as `gunbai --ruleset=FILE` and gunbaid load one;
// when it loads, the sample games of its ruleset's name are audited under
// it (a ruleset that passes validation must not crash the engine).
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/audit.h"
#include "replay/ruleset_loader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = gunbai::replay::LoadRuleset(text, "fuzz.textproto");
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) __builtin_trap();  // Must say why.
    return 0;
  }
  if (loaded->plugin == nullptr) __builtin_trap();  // Documented: never null.
  for (const gunbai::v1::BattleLog& log : gunbai::fuzz::SampleLogs()) {
    const std::string& name = log.header().ruleset().name();
    if ((name.empty() ? "daimyo" : name) != loaded->data.name()) continue;
    gunbai::replay::AuditOptions options;
    options.record_outcomes = true;
    (void)gunbai::replay::AuditLog(log, *loaded, options);
  }
  return 0;
}
