#include "service/store/game_checkpoint.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/digest.h"
#include "rules/status_macros.h"

namespace gunbai::service {

namespace v1 = ::gunbai::v1;

std::string CheckpointDigest(absl::string_view state,
                             absl::string_view findings) {
  return base::Sha256Hex(
      absl::StrCat("gunbai checkpoint\n", state.size(), "\n", state, findings));
}

absl::StatusOr<StoredCheckpoint> MakeCheckpoint(
    const rules::Engine& engine,
    const google::protobuf::RepeatedPtrField<v1::Finding>& findings,
    uint64_t after_version, uint64_t after_seq, absl::string_view head_hash,
    absl::string_view ruleset_digest) {
  GUNBAI_ASSIGN_OR_RETURN(std::string state, engine.SaveCheckpoint());
  StoredCheckpoint checkpoint;
  checkpoint.after_version = after_version;
  checkpoint.after_seq = after_seq;
  checkpoint.head_hash = std::string(head_hash);
  checkpoint.ruleset_digest = std::string(ruleset_digest);
  checkpoint.format = engine.CheckpointVersion();
  checkpoint.state = std::move(state);
  // The findings as an AuditReport holding nothing else.
  v1::AuditReport report;
  *report.mutable_findings() = findings;
  checkpoint.findings = base::DeterministicBytes(report);
  checkpoint.sha256 = CheckpointDigest(checkpoint.state, checkpoint.findings);
  return checkpoint;
}

absl::Status RestoreFromCheckpoint(
    const StoredCheckpoint& checkpoint, rules::Engine& engine,
    google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  if (CheckpointDigest(checkpoint.state, checkpoint.findings) !=
      checkpoint.sha256) {
    return absl::DataLossError(
        absl::StrCat("the checkpoint after ", checkpoint.after_version,
                     " events does not match its digest"));
  }
  v1::AuditReport report;
  if (!report.ParseFromString(checkpoint.findings)) {
    return absl::DataLossError("the checkpoint's findings do not parse");
  }
  GUNBAI_RETURN_IF_ERROR(engine.RestoreCheckpoint(checkpoint.state));
  findings.Swap(report.mutable_findings());
  return absl::OkStatus();
}

}  // namespace gunbai::service
