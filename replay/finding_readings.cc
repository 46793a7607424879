#include "replay/finding_readings.h"

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "replay/audit.h"
#include "replay/coverage.h"
#include "rules/status_macros.h"

namespace gunbai::replay {
namespace {

namespace v1 = ::gunbai::v1;

using FindingKey = std::tuple<std::uint64_t, int, std::string, std::string>;

FindingKey KeyOf(const v1::Finding& f) {
  return {f.seq(), static_cast<int>(f.severity()), f.rule_id(), f.subject()};
}

}  // namespace

absl::Status AddFindingReadings(const v1::BattleLog& log,
                                const LoadedRuleset& ruleset,
                                v1::AuditReport& report) {
  GUNBAI_ASSIGN_OR_RETURN(std::vector<ReadingVariant> variants,
                          ReadingVariants(ruleset));
  for (const ReadingVariant& variant : variants) {
    GUNBAI_ASSIGN_OR_RETURN(v1::AuditReport other,
                            AuditLog(log, variant.ruleset));
    std::set<FindingKey> found;
    for (const v1::Finding& f : other.findings()) found.insert(KeyOf(f));
    const std::string reading =
        absl::StrCat(variant.option, ": ", variant.alternative);
    for (v1::Finding& f : *report.mutable_findings()) {
      if (found.count(KeyOf(f)) == 0) f.add_not_under_readings(reading);
    }
  }
  report.set_readings_checked(true);
  report.set_readings(static_cast<std::uint32_t>(variants.size()));
  return absl::OkStatus();
}

}  // namespace gunbai::replay
