// What a disputed outcome changed (gunbai audit --impact): for each event
// with a disputed outcome, the game is replayed a second time with the
// outcomes gunbai computed at that event instead of the ones the log
// claims, and the two branches are compared event by event (units' stands,
// routs and removals, leaders killed, the winner). The comparison ends at
// the first later event that is impossible in the corrected branch: one
// that breaks a rule there that it does not break as played.
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_IMPACT_H_
#define GUNBAI_REPLAY_IMPACT_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/log_stream.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Most events with disputes analysed per report; the rest are listed as
// not analysed (each analysis replays the whole game twice).
inline constexpr int kMaxImpactAnalyses = 1000;

// Fills `report.impacts` for the disputed outcomes of `report`, which is
// the audit of `log` under `ruleset`. Disputes of the game's result
// (game.*) change nothing downstream and are skipped.
//
// Each corrected branch replays the game as it would have gone: from the
// disputed event on it follows the outcomes the engine computes (hits,
// stands lost with carried hits, leader rolls, morale results, melee
// results), keeping the players' declared actions and dice and the outcomes
// of the other events the game as played disputes, and it stops at the
// first declared action it makes impossible. When `branch_logs` is not
// null, it receives each analysed branch as a log, in the order of
// `report.impacts`: its claims are the branch's outcomes, cut before the
// event where the branch stopped, so that auditing it finds none of the
// corrected dispute and its final state is the branch's.
// When `cancelled` is set it is asked every kCancelCheckEvents events of
// each branch (replay/audit.h); when it returns true AddImpacts stops with
// CANCELLED and `report` is to be dropped.
absl::Status AddImpacts(
    const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
    gunbai::v1::AuditReport& report,
    std::vector<gunbai::v1::BattleLog>* branch_logs = nullptr,
    const std::function<bool()>& cancelled = {});

// Calls `visit` with each event of a log in order, until the events end or
// `visit` returns false, and returns OK; or the status of reading them when
// that fails.
using ForEachEvent = std::function<absl::Status(const EventVisitor& visit)>;

// AddImpacts for a log given as its head (`head`: header and order of
// battle; its events are not read) and its events, which every branch reads
// again through `for_each_event` instead of from a log held parsed: for a
// binary log's bytes, ReadBinaryLogHead and ForEachBinaryLogEvent. The
// impacts are AddImpacts's for the log of that head and those events, byte
// for byte. A branch that ends early reads no further, so events after it
// may go unread: the caller checks the whole log first (the streamed audit
// of the same bytes reads every event). Gives no branch logs. Returns the
// status of `for_each_event`
// when it fails, with `report.impacts` partly filled (clear them before
// AddImpacts is tried on the log parsed whole), or CANCELLED as AddImpacts.
absl::Status AddImpactsFromEvents(const gunbai::v1::BattleLog& head,
                                  const ForEachEvent& for_each_event,
                                  const LoadedRuleset& ruleset,
                                  gunbai::v1::AuditReport& report,
                                  const std::function<bool()>& cancelled = {});

// Chooses the ruleset for a log from its head, as its audit chose it.
using RulesetPointerForHead =
    std::function<absl::StatusOr<const LoadedRuleset*>(
        const gunbai::v1::BattleLog&)>;

// AddImpactsFromEvents for the binary log `open` reads (at most `max_bytes`;
// the bytes a streamed audit read): its head read with ReadBinaryLogHead,
// its events streamed for every branch, never the log parsed whole, under
// the ruleset `ruleset_for` picks for the head. Returns true when the
// impacts are added; false, with `report.impacts` cleared, when the bytes
// do not stream as AuditBinaryLogStream reads them (it gave up): the caller
// adds them from the log parsed whole (AddImpacts) instead. Errors: the
// ruleset's, and CANCELLED as AddImpacts.
absl::StatusOr<bool> AddImpactsFromBinaryLog(
    const OpenLogStream& open, std::int64_t max_bytes,
    const RulesetPointerForHead& ruleset_for, gunbai::v1::AuditReport& report,
    const std::function<bool()>& cancelled = {});

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_IMPACT_H_
