// The mapping between the proto enums of the SKF data and its domain
// enums. Part of the proto adapter of the
// Samurai Knight Fever engine (rules/skf/engine.h). Thread-safe: functions
// only.
#ifndef GUNBAI_RULES_SKF_PROTO_ENUMS_H_
#define GUNBAI_RULES_SKF_PROTO_ENUMS_H_

#include <optional>

#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/skf_ruleset.pb.h"
#include "rules/proto_enums.h"
#include "rules/skf/tables.h"
#include "rules/types.h"

namespace gunbai::rules::skf {

// The enums both rulesets share (troop type, mobility, quality, morale
// result) are mapped once, in rules/proto_enums.h; these are SKF's own.
OddsRounding OddsRoundingFromProto(gunbai::v1::SkfOddsRounding r);

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_PROTO_ENUMS_H_
