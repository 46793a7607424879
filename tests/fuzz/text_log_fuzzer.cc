// Fuzz target: a battle log in protobuf text format or JSON (the first
// byte chooses: even text, odd JSON; the rest is the log), parsed by
// replay::ParseBattleLog as `gunbai audit` parses a file, then audited under
// the built-in ruleset its header names with the state checked after every
// event. libFuzzer's byte mutations suit these formats; the dictionary
// (text_log.dict) gives it the field names.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "replay/log_parser.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size == 0) return 0;
  const bool json = (data[0] & 1) != 0;
  const absl::string_view bytes(reinterpret_cast<const char*>(data + 1),
                                size - 1);
  auto log =
      gunbai::replay::ParseBattleLog(bytes,
                                     json ? gunbai::replay::LogFormat::kJson
                                          : gunbai::replay::LogFormat::kText,
                                     json ? "fuzz.json" : "fuzz.textproto");
  if (!log.ok()) {
    if (log.status().message().empty()) __builtin_trap();  // Must say why.
    return 0;
  }
  gunbai::fuzz::AuditUnderHeaderRuleset(*log, /*impact=*/false);
  return 0;
}
