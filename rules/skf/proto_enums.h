// The mapping between the proto enums of battle logs, reports and the SKF
// data and the domain enums of rules/. Part of the proto adapter of the
// Samurai Knight Fever engine (rules/skf/engine.h). Thread-safe: functions
// only.
#ifndef GUNBAI_RULES_SKF_PROTO_ENUMS_H_
#define GUNBAI_RULES_SKF_PROTO_ENUMS_H_

#include <optional>

#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/skf_ruleset.pb.h"
#include "rules/ruleset.h"
#include "rules/skf/tables.h"
#include "rules/types.h"

namespace gunbai::rules::skf {

// Each returns nothing for the UNSPECIFIED value (or an unknown number).
std::optional<TroopType> TroopTypeFromProto(gunbai::v1::TroopType t);
std::optional<Mobility> MobilityFromProto(gunbai::v1::Mobility m);
std::optional<Quality> QualityFromProto(gunbai::v1::Quality q);

// UNSPECIFIED reads as no effect.
MoraleResult MoraleResultFromProto(gunbai::v1::MoraleResult r);
// The inverse, for claims written into a what-if branch.
gunbai::v1::MoraleResult MoraleResultToProto(MoraleResult r);
OddsRounding OddsRoundingFromProto(gunbai::v1::SkfOddsRounding r);

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_PROTO_ENUMS_H_
