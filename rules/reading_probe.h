// Which reading options (gunbai.v1.ReadingOptions, by field number) the
// rules consulted on this thread: each getter of a ruleset's reading
// options notes its option here, so that an audit under every combination
// of readings (replay/all_readings.h) can share one replay until a reading
// is first consulted, and fork there. A note costs one OR to a
// thread-local word; nothing reads it but that audit. Thread-safe: each
// thread has its own word.
#ifndef GUNBAI_RULES_READING_PROBE_H_
#define GUNBAI_RULES_READING_PROBE_H_

#include <cstdint>

namespace gunbai::rules {

inline thread_local std::uint32_t consulted_readings = 0;

// Notes that the reading option with proto field number `field` (1-31) was
// consulted.
inline void NoteReading(int field) {
  consulted_readings |= std::uint32_t{1} << field;
}

// Returns the options noted since the last call (bit n: field number n),
// and forgets them.
inline std::uint32_t TakeConsultedReadings() {
  const std::uint32_t out = consulted_readings;
  consulted_readings = 0;
  return out;
}

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_READING_PROBE_H_
