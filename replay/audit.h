// Audits a whole battle log, or replays it up to an event to show the state
// there. The entry points service/ calls. Thread-safe: each call owns its
// replay; the ruleset is only read.
#ifndef GUNBAI_REPLAY_AUDIT_H_
#define GUNBAI_REPLAY_AUDIT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/state.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/engine.h"
#include "rules/victory.h"

namespace gunbai::replay {

struct AuditOptions {
  // Record every outcome the engine works out in the report's `outcomes`
  // (for gunbai diff and gunbai audit --outcomes).
  bool record_outcomes = false;
  // When non-zero: the event whose computed outcomes replace the claimed
  // ones (what-if replay; see rules::EngineOptions).
  std::uint64_t follow_computed_at_seq = 0;
  // A branch: from this seq on, computed outcomes replace the claimed ones
  // except at the seqs of `keep_claims_at` (sorted; rules::EngineOptions).
  std::uint64_t follow_computed_from_seq = 0;
  std::vector<std::uint64_t> keep_claims_at;
  // When not null: the branch written out as events (rules::EngineOutput).
  google::protobuf::RepeatedPtrField<gunbai::v1::Event>* branch_events =
      nullptr;
  // When set: asked every kCancelCheckEvents events whether the caller
  // still wants the answer (a gRPC call whose client left or whose deadline
  // passed); when it returns true the audit stops with CANCELLED.
  std::function<bool()> cancelled;
};

// How often a long replay asks AuditOptions::cancelled: about a
// millisecond of replay.
inline constexpr int kCancelCheckEvents = 4096;

// The status of an audit stopped because its caller no longer waits.
absl::Status CancelledAudit();

// Replays every event of `log` under `ruleset` and returns the report: the
// findings in event order, the summary, the ruleset digest, the final state
// digest and the game result (units left, victory points and the winner
// when the scenario has a victory condition; a claimed winner that differs
// is disputed, game.victory.winner). Returns InvalidArgument when the
// header or order of battle makes replay impossible, or when the log is for
// another ruleset; broken rules are findings, never errors.
absl::StatusOr<gunbai::v1::AuditReport> AuditLog(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    const AuditOptions& options = AuditOptions());

// Creates the engine of `ruleset` for `log`: refuses a log for another
// ruleset (InvalidArgument), warns in `output.findings` when the version
// differs (log.ruleset.version), and passes the what-if option on.
absl::StatusOr<std::unique_ptr<rules::Engine>> CreateEngine(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    const AuditOptions& options, rules::EngineOutput output);

// A replay in progress, for callers that step through a log themselves
// (what-if comparisons): the engine plus the victory bookkeeping.
class Replay {
 public:
  // Starts a replay of `log` (its header and order of battle) under
  // `ruleset`, writing to `report`, which must outlive the Replay.
  static absl::StatusOr<std::unique_ptr<Replay>> Start(
      const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
      const AuditOptions& options, gunbai::v1::AuditReport* report);
  ~Replay();

  void Apply(const gunbai::v1::Event& event);
  // Finishes the log and fills in the report's summary and result.
  void Finish(std::uint64_t events);
  const rules::BattleState& state() const;

  // A point a replay can be taken up again from, under another reading of
  // its ruleset (replay/all_readings.h): the engine's checkpoint, the
  // victory tally and how many findings were reported.
  struct Mark {
    std::string checkpoint;
    std::optional<rules::VictoryTracker> victory;
    int findings = 0;
  };
  // Returns the mark of the replay after the events applied so far;
  // Unimplemented when its engine has no checkpoints.
  absl::StatusOr<Mark> MarkHere() const;
  // Starts a replay of `log` under `ruleset` (the marked replay's ruleset
  // but for its reading options) from `mark`, writing to `report`, into
  // which the first mark.findings findings of `from` (the marked replay's
  // report) are copied. The events after the mark are then applied as to
  // any replay.
  static absl::StatusOr<std::unique_ptr<Replay>> Resume(
      const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
      const AuditOptions& options, gunbai::v1::AuditReport* report,
      const Mark& mark, const gunbai::v1::AuditReport& from);

 private:
  struct Impl;
  explicit Replay(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Replays `log` up to and including the event numbered `seq` (the whole log
// when absent) and returns the state there. Returns NotFound when no event
// has that number.
absl::StatusOr<gunbai::v1::BattleStateSnapshot> StateAt(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    std::optional<std::uint64_t> seq);

struct EventDigest {
  std::uint64_t seq = 0;
  std::string digest;
};

// Replays `log` under `ruleset` as `gunbai state` does (no victory
// bookkeeping, findings dropped) and calls `visit` with each event and the
// state right after it; the state is only valid during the call. Returns
// InvalidArgument as CreateEngine.
absl::Status ForEachEventState(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    absl::FunctionRef<void(const gunbai::v1::Event&, const rules::BattleState&)>
        visit);

// Replays `log` and returns the state digest after every event.
absl::StatusOr<std::vector<EventDigest>> StateDigests(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset);

// Returns true when a report should fail a script: any violation, dispute or
// warning. Unverifiable findings alone do not fail.
bool ReportHasFailures(const gunbai::v1::AuditReport& report);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_AUDIT_H_
