// Renders audit reports and state snapshots for people (plain text) and for
// machines (JSON, proto3 mapping). Deterministic: the same report gives the
// same bytes. Thread-safe: functions only.
#ifndef GUNBAI_SERVICE_RENDER_REPORT_FORMAT_H_
#define GUNBAI_SERVICE_RENDER_REPORT_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/state.pb.h"

namespace gunbai::service {

// The word for where a trace term's value came from ("computed",
// "declared", "dice"), as the text and HTML reports print it.
absl::string_view OriginName(gunbai::v1::TermOrigin origin);

// "1 event", "3 events".
std::string Plural(std::uint64_t n, absl::string_view one,
                   absl::string_view many);

// Returns the report as readable text, findings grouped by turn, each with
// its message, the claimed and computed values and the trace of terms.
std::string FormatReportText(const gunbai::v1::AuditReport& report);

// Returns the state as a readable table of units and leaders.
std::string FormatStateText(const gunbai::v1::BattleStateSnapshot& state);

// Returns any message as JSON with the proto field names, ending in a
// newline.
std::string FormatJson(const google::protobuf::Message& message);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_RENDER_REPORT_FORMAT_H_
