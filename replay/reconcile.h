// Two copies of one game set side by side, for a play-by-email arbiter
// whose players' copies disagree ("that is not what I sent"): the events
// both hold from the first, where they part and how (an event changed,
// inserted or dropped, two swapped, the same event with other dice, or one
// copy cut short), what the rules say of each copy from there on (its
// violations and disputes, by an audit under the game's ruleset), and, for
// an exported live game, whether its chain holds. `gunbai reconcile` prints
// it. Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_RECONCILE_H_
#define GUNBAI_REPLAY_RECONCILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "gunbai/v1/reconcile.pb.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// One copy: its name (a path as given), its log, and, when it is an
// exported live game, the export (whose log is `log`).
struct GameCopy {
  std::string name;
  gunbai::v1::BattleLog log;
  const gunbai::v1::ExportedGame* exported = nullptr;
};

// Returns the reconciliation of copies `a` and `b` under `ruleset` (the
// game's: its header's). Returns InvalidArgument, saying which and what to
// do, when they are not copies of one game (other game ids) or name other
// rulesets (name or version) or other ruleset digests; or when a copy's
// audit cannot run.
absl::StatusOr<gunbai::v1::Reconciliation> Reconcile(
    const GameCopy& a, const GameCopy& b, const LoadedRuleset& ruleset);

// Returns the reconciliation as text for a person: the shared events, the
// divergence with the events side by side, what the rules and the chains
// say of each copy, and the verdict.
std::string FormatReconciliation(const gunbai::v1::Reconciliation& r);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_RECONCILE_H_
