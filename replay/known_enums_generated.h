// The enum check of KnownEnums (replay/text_errors.h) in generated code:
// replay/known_enums_generated.cc, written by replay/gen_known_enums.py from
// proto/gunbai/v1, has a function per message type with an enum field at or
// below it that reads each such field through its accessor and asks
// ENUM_IsValid, with no reflection. Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_KNOWN_ENUMS_GENERATED_H_
#define GUNBAI_REPLAY_KNOWN_ENUMS_GENERATED_H_

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace gunbai::replay {

// Returns true when every enum field under the message, which must be a
// generated message of the type it was found for, holds a named number.
using GeneratedKnownEnums = bool (*)(const google::protobuf::Message&);

// Returns the generated check of `type`; null for a type with no enum at or
// below it, or not of gunbai.v1.
GeneratedKnownEnums FindGeneratedKnownEnums(
    const google::protobuf::Descriptor* type);

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_KNOWN_ENUMS_GENERATED_H_
