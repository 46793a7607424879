// CreateGame's request read on the wire before it is parsed whole: the
// clans of its header counted, so that a request of millions of clans
// (which every engine refuses: a battle has a few) is refused from a
// skeleton of it, the request with only its first clans, instead of after
// a parse that cost ten times its size. No I/O; thread-compatible.
#ifndef GUNBAI_SERVICE_DAEMON_CREATE_GAME_WIRE_H_
#define GUNBAI_SERVICE_DAEMON_CREATE_GAME_WIRE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "gunbai/v1/game_service.pb.h"

namespace gunbai::service {

// The clans a skeleton keeps: more than any engine takes (each refuses a
// header of more clans than its own bound, rules/*: 32 today, before it
// reads any clan), and few enough that the skeleton costs nothing.
inline constexpr int kSkeletonClans = 1024;

// What ReadCreateGameSkeleton found.
enum class CreateGameWire {
  // The bytes do not decode as a CreateGameRequest: a whole parse fails too.
  kUndecodable,
  // At most `keep` clans: parse the request whole, as before.
  kParseWhole,
  // More than `keep` clans: `skeleton` holds the request with only its
  // first `keep` clans (every other clan was parsed, checked and dropped).
  kSkeleton,
};

struct CreateGameSkeleton {
  // The header's clans on the wire (the elements of every `header` field's
  // `clans`, as protobuf merges a header given twice).
  std::int64_t clans = 0;
  gunbai::v1::CreateGameRequest skeleton;  // Set for kSkeleton.
};

// Opens the request's bytes from their start (called once or twice);
// returns null when they cannot be read.
using OpenWire =
    std::function<std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>()>;

// Reads the CreateGameRequest that `open` reads, counting its header's
// clans into `out.clans` without copying anything; when there are more
// than `keep`, reads it again and parses it with only the first `keep`
// clans into `out.skeleton`. A clan dropped is parsed first, alone, so
// that bytes a whole parse refuses (a clan cut short, a name that is not
// UTF-8) give kUndecodable here too. kUndecodable may also come for bytes
// of at most `keep` clans that a parse refuses (a field cut short); others
// it refuses (a string not UTF-8) are kParseWhole, for the parse to say.
CreateGameWire ReadCreateGameSkeleton(const OpenWire& open, int keep,
                                      CreateGameSkeleton& out);

// Returns the engines' refusal of a header of too many clans ("header.clans:
// a battle has 2 to B clans; this log has N.") for `clans` instead of the
// skeleton's `skeleton_clans`, when `message` is that refusal for the
// skeleton; else an empty string (the refusal is not the count's: the
// caller must parse the request whole to answer).
std::string ClanCountRefusalFor(absl::string_view message,
                                std::int64_t skeleton_clans,
                                std::int64_t clans);

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_CREATE_GAME_WIRE_H_
