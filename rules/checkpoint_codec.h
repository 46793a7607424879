// The bytes of an engine checkpoint (rules::Engine::SaveCheckpoint): a
// small versioned binary writer and a bounds-checked reader, and the
// BattleState written with them. Every engine's checkpoint opens with
// "GBCK", the engine's name and its format version, then its own fields.
//
// Integers are LEB128 varints (signed ones zigzagged), strings and lists are
// length-prefixed; the writer is given fields in a fixed order and maps in
// sorted key order, so an equal state gives equal bytes. The reader never
// reads past its input, never allocates more than its input could hold, and
// checks every enum and index it reads: a corrupt or truncated checkpoint
// makes it fail (ok() false, with the first error), never crash.
// Thread-compatible.
#ifndef GUNBAI_RULES_CHECKPOINT_CODEC_H_
#define GUNBAI_RULES_CHECKPOINT_CODEC_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "rules/battle_state.h"

namespace gunbai::rules {

class CheckpointWriter {
 public:
  // Starts a checkpoint of the engine `engine` (e.g. "daimyo") in format
  // `version`.
  CheckpointWriter(absl::string_view engine, std::uint32_t version);

  void U64(std::uint64_t v);
  void I64(std::int64_t v);
  void Int(int v) { I64(v); }
  void Bool(bool v) { U64(v ? 1 : 0); }
  void String(absl::string_view s);
  template <typename E>
  void Enum(E e) {
    U64(static_cast<std::uint64_t>(e));
  }

  // Returns the bytes written; the writer is left empty.
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class CheckpointReader {
 public:
  // Reads the opening of a checkpoint: fails unless it is one of `engine`
  // in format `version`.
  CheckpointReader(absl::string_view bytes, absl::string_view engine,
                   std::uint32_t version);

  // Each reads one field; once the reader has failed, they read nothing and
  // leave their outputs as they were (zero for the returning ones).
  std::uint64_t U64();
  std::int64_t I64();
  // An int in [lo, hi].
  int Int(int lo, int hi);
  bool Bool();
  std::string String();
  // An enum whose values run from 0 to `last`.
  template <typename E>
  E Enum(E last) {
    const std::uint64_t v = U64();
    if (v > static_cast<std::uint64_t>(last)) {
      Fail("an enum value is out of range");
      return E{};
    }
    return static_cast<E>(v);
  }
  // A count of list entries: fails when the input left could not hold that
  // many entries of at least one byte each, or when it is over `max`.
  std::size_t Count(std::size_t max);

  // Fails the reader with `what` (keeps the first failure).
  void Fail(absl::string_view what);
  bool ok() const { return error_.empty(); }
  // Returns OK when the reader read every byte without failing; else
  // InvalidArgument saying what was wrong and where.
  absl::Status Finish() const;

 private:
  absl::string_view in_;
  std::size_t pos_ = 0;
  std::string error_;
};

// A fingerprint of what the order of battle fixed (clans, unit profiles,
// leader ids and kinds): a checkpoint restored into an engine of another
// order of battle is refused. FNV-1a, 64 bits: a check against mistakes,
// not against forgery (the store keeps a SHA-256 of the whole checkpoint).
std::uint64_t OrderOfBattleFingerprint(const BattleState& state);

// Writes what events change in `state`: the unit statuses, the leaders'
// changing fields, the melees, the turn and sequence (the fixed parts are
// only fingerprinted).
void WriteBattleState(const BattleState& state, CheckpointWriter& out);

// Reads what WriteBattleState wrote into `state`, which holds the starting
// state of the same order of battle; checks the fingerprint and every unit,
// leader and clan index. On failure `in` has failed and `state` is
// partly overwritten: restore into a copy.
void ReadBattleState(CheckpointReader& in, BattleState& state);

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_CHECKPOINT_CODEC_H_
