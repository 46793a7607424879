// Maps the gunbai.v1 protos of a Daimyo log to the rules engine's domain
// types (Cartographer's FromProto): a firing's shot (the order of battle is
// read by the engine, rules/engine_base.h and DaimyoEngine::AddUnitFacts).
// Thread-safe: functions only.
#ifndef GUNBAI_RULES_DAIMYO_PROTO_MAPPING_H_
#define GUNBAI_RULES_DAIMYO_PROTO_MAPPING_H_

#include "absl/status/statusor.h"
#include "gunbai/v1/battle_log.pb.h"
#include "rules/battle_state.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/measure.h"
#include "rules/proto_enums.h"

namespace gunbai::rules::daimyo {

// Builds a Shot for resolved unit indexes; its dice borrow from `firing`.
Shot ShotFromProto(const gunbai::v1::Firing& firing, int firer, int target);

// A result move's kind; a hold for an unspecified or unknown one.
ResultMoveKind ResultMoveKindFromProto(gunbai::v1::ResultMoveKind kind);

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_PROTO_MAPPING_H_
