// The table of a log with positions at any point of its game, as a scene
// service/render/map_svg.h draws (`gunbai map`, LogService.DrawMap): the log's
// terrain, every unit on the table where the replay has it after the event,
// with its markers and leaders, and what the event did (a volley's line of
// fire with its distance and the firer's range rings, a charge's or a
// move's path, a melee's contact). Thread-safe (pure functions).
#ifndef GUNBAI_REPLAY_MAP_SCENE_H_
#define GUNBAI_REPLAY_MAP_SCENE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "replay/map_types.h"
#include "replay/ruleset_loader.h"

namespace gunbai::replay {

// Returns the scene right after the event numbered `at_seq` (0: before the
// first event, as the order of battle or starting position places the
// units). Returns FailedPrecondition when the log has no table (it gives no
// positions to draw), NotFound when no event has that number, and
// InvalidArgument as CreateEngine.
absl::StatusOr<MapScene> SceneAt(const gunbai::v1::BattleLog& log,
                                 const LoadedRuleset& ruleset,
                                 std::uint64_t at_seq);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_MAP_SCENE_H_
