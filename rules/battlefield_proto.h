// Reads a log's table, terrain and positions, and a ruleset's table rules,
// from their protos into rules/battlefield.h's types, bounded and checked.
// Thread-safe (pure functions).
#ifndef GUNBAI_RULES_BATTLEFIELD_PROTO_H_
#define GUNBAI_RULES_BATTLEFIELD_PROTO_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/battle_state.h"
#include "rules/battlefield.h"

namespace gunbai::rules {

// Returns the pose a Position gives; InvalidArgument naming `where` (e.g.
// "unit \"oda-ash-1\" position") when a coordinate is beyond kMaxTableMm.
absl::StatusOr<Pose> PoseFromProto(const gunbai::v1::Position& p,
                                   absl::string_view where);
gunbai::v1::Position PoseToProto(const Pose& pose);

// Returns a ruleset's table rules; InvalidArgument naming the field of
// `source` when an entry is out of range (a base of 1 to 1000 mm a side, an
// arc of 0 to 90 degrees, a gap and a contact of at most 100 mm, a move
// rate of 1 to 10000 mm).
absl::StatusOr<TableRules> TableRulesFromProto(const gunbai::v1::TableRules& t,
                                               absl::string_view source);

// Returns the battlefield of `log`, or nullopt when it has no table, with
// each unit of `state` given its base size and move rate from `rules`.
// Returns InvalidArgument naming the field and what to do when the table's
// size is 0 or beyond kMaxTableMm; when there are more than
// kMaxTerrainFeatures features, a feature has more than kMaxTerrainPoints
// points, the terrain more than kMaxTerrainPointsInAll in all, or a
// feature too few points for its kind or one beyond the bounds; when the
// log has more than kMaxTableUnits units; when a camp's clan is not in the
// header. Returns FailedPrecondition when the ruleset has no table rules or
// none gives a unit its base size.
absl::StatusOr<std::optional<Battlefield>> BattlefieldFromLog(
    const gunbai::v1::BattleLog& log, const TableRules& rules,
    const BattleState& state);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_BATTLEFIELD_PROTO_H_
