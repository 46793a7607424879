// A structure-aware mutator for libFuzzer written on protobuf reflection
// (libprotobuf-mutator is not packaged in Debian 12): it parses an input as
// a message, changes one field chosen by reflection and serializes it back,
// so that mutations stay inside the schema and reach the replay instead of
// dying in the wire-format parser. Thread-compatible: functions only; each
// call works on the message it is given.
#ifndef GUNBAI_TESTS_FUZZ_PROTO_MUTATOR_H_
#define GUNBAI_TESTS_FUZZ_PROTO_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <random>

#include "google/protobuf/message.h"

namespace gunbai::fuzz {

using Rng = std::minstd_rand;

// Changes one field of `message` or of a message nested in it, chosen by
// reflection among all fields, set or not: a scalar gets a nearby, boundary
// or random value; a bool flips; an enum takes a known or an unknown number;
// a string takes another string of the message (so ids keep matching), gets
// its bytes edited, or is emptied; a submessage is set or cleared (which
// also switches a oneof); a repeated field gets an element added, removed,
// duplicated, swapped or changed.
void MutateMessage(google::protobuf::Message& message, Rng& rng);

// Replaces a random submessage of `into` by a same-typed one from `from`
// (or appends it when the field is repeated). Does nothing when the two
// share no message type.
void CrossOverMessages(const google::protobuf::Message& from,
                       google::protobuf::Message& into, Rng& rng);

// The whole LLVMFuzzerCustomMutator for inputs that are `prototype`'s type
// serialized: parses `data[0, size)`, mutates it (a few times) and writes
// it back when it fits in `max_size`; falls back to LLVMFuzzerMutate when
// the input does not parse or the result does not fit, and now and then on
// purpose, so that byte-level damage is tried too. Returns the new size.
std::size_t MutateSerialized(const google::protobuf::Message& prototype,
                             std::uint8_t* data, std::size_t size,
                             std::size_t max_size, unsigned int seed);

// The whole LLVMFuzzerCustomCrossOver for the same inputs: parses both,
// crosses them over, writes the result to `out`. Returns 0 (no result) when
// either does not parse or the result does not fit.
std::size_t CrossOverSerialized(const google::protobuf::Message& prototype,
                                const std::uint8_t* data1, std::size_t size1,
                                const std::uint8_t* data2, std::size_t size2,
                                std::uint8_t* out, std::size_t max_out_size,
                                unsigned int seed);

}  // namespace gunbai::fuzz

// libFuzzer's own mutator, for the fallback.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t max_size);

#endif  // GUNBAI_TESTS_FUZZ_PROTO_MUTATOR_H_
