// The arbiter's remedy (gunbai audit --remedies, gunbai remedy): for each
// finding of an audit, what an agreed error-resolution procedure
// (proto/gunbai/v1/procedure.proto) orders: the error stands, sealed by a
// later roll of the other side, or play goes back to a point, the erring
// clan moves again from there, and named rolls are made again. Then the
// plan for the whole log: the events kept (play resumes after the last)
// and every roll to make again. rules/README.md, "Remedies", gives the
// default procedure and why each field is what it is. Thread-safe:
// functions only.
#ifndef GUNBAI_REPLAY_REMEDY_H_
#define GUNBAI_REPLAY_REMEDY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/procedure.pb.h"
#include "gunbai/v1/report.pb.h"

namespace gunbai::replay {

// A procedure as loaded: its data, and the SHA-256 (hex) of its
// deterministic binary form, which a report names.
struct LoadedProcedure {
  gunbai::v1::ErrorProcedure data;
  std::string digest;
};

// Parses `text` (a procedure in text format; `source` names it in errors)
// and checks it: a name and version, a re-roll scope and a redo point.
absl::StatusOr<LoadedProcedure> LoadProcedure(absl::string_view text,
                                              absl::string_view source);

// The shipped default, rules/procedures/pbem-default.textproto.
LoadedProcedure DefaultProcedure();

struct RemedyOptions {
  // The seqs before whose roll the other side raised the errors found
  // earlier (gunbai remedy --raised-at): with raised_error_stays_open, an
  // error before such a seq is not sealed by a roll at or after it.
  std::vector<std::uint64_t> raised_at;
};

// Fills the remedy of each finding of `report` (the audit of `log`) under
// `procedure`, and report.procedure. A finding's erring clan is its
// subject's (a unit or leader of the order of battle), else its event's.
void AddRemedies(const gunbai::v1::BattleLog& log,
                 const LoadedProcedure& procedure, const RemedyOptions& options,
                 gunbai::v1::AuditReport& report);

// What the remedies of a report (AddRemedies) order for the whole game:
// play goes back to the earliest point any of them orders.
struct RemedyPlan {
  // True when some finding orders a redo; false when every error stands
  // (or there is none): the log is kept whole.
  bool redo = false;
  std::uint64_t resume_after_seq = 0;  // The last event kept.
  std::string redo_clan;               // The clan that moves first again.
  // Every roll to make again, in seq order, each once.
  std::vector<std::uint64_t> reroll_seqs;
  // The findings that stand (sealed), by seq.
  std::vector<std::uint64_t> standing_seqs;
  // `log` up to and including resume_after_seq.
  gunbai::v1::BattleLog kept;
};

RemedyPlan PlanRemedy(const gunbai::v1::BattleLog& log,
                      const gunbai::v1::AuditReport& report);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_REMEDY_H_
