#include "service/daemon/create_game_wire.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "replay/wire_tag.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

constexpr std::uint32_t kHeaderTag =
    WireFormatLite::MakeTag(v1::CreateGameRequest::kHeaderFieldNumber,
                            WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
constexpr std::uint32_t kClansTag = WireFormatLite::MakeTag(
    v1::Header::kClansFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);

// Parses the clan whose length comes next into `clan` (merging, as protobuf
// does), failing also when the bytes end before the length says.
bool ReadClan(CodedInputStream& input, v1::Clan& clan) {
  int length = 0;
  if (!input.ReadVarintSizeAsInt(&length)) return false;
  const int start = input.CurrentPosition();
  const auto limit = input.IncrementRecursionDepthAndPushLimit(length);
  if (limit.second < 0 || !clan.MergePartialFromCodedStream(&input)) {
    return false;
  }
  if (!input.DecrementRecursionDepthAndPopLimit(limit.first)) return false;
  return input.CurrentPosition() - start == length;
}

// Reads one `header` field's payload (its length next), copying its fields
// to `header` but for the clans after the first `keep` of the request,
// which are only parsed and counted.
bool ReadHeader(CodedInputStream& input, int keep, std::int64_t& clans,
                CodedOutputStream& header) {
  int length = 0;
  if (!input.ReadVarintSizeAsInt(&length)) return false;
  const int start = input.CurrentPosition();
  const auto limit = input.IncrementRecursionDepthAndPushLimit(length);
  if (limit.second < 0) return false;
  v1::Clan dropped;
  for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
       tag = replay::ReadParsedTag(input)) {
    if (tag == kClansTag && ++clans > keep) {
      dropped.Clear();
      if (!ReadClan(input, dropped)) return false;
    } else if (!WireFormatLite::SkipField(&input, tag, &header)) {
      return false;
    }
  }
  if (!input.ConsumedEntireMessage()) return false;
  if (!input.DecrementRecursionDepthAndPopLimit(limit.first)) return false;
  return input.CurrentPosition() - start == length;
}

}  // namespace

namespace {

// Counts the clans of the request `wire` holds, every field skipped as a
// parse would read past it; false when the bytes do not decode so.
bool CountClans(google::protobuf::io::ZeroCopyInputStream& wire,
                std::int64_t& clans) {
  CodedInputStream input(&wire);
  for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
       tag = replay::ReadParsedTag(input)) {
    if (tag != kHeaderTag) {
      if (!WireFormatLite::SkipField(&input, tag)) return false;
      continue;
    }
    int length = 0;
    if (!input.ReadVarintSizeAsInt(&length)) return false;
    const auto limit = input.IncrementRecursionDepthAndPushLimit(length);
    if (limit.second < 0) return false;
    for (std::uint32_t field = replay::ReadParsedTag(input); field != 0;
         field = replay::ReadParsedTag(input)) {
      if (field == kClansTag) ++clans;
      if (!WireFormatLite::SkipField(&input, field)) return false;
    }
    if (!input.ConsumedEntireMessage() ||
        !input.DecrementRecursionDepthAndPopLimit(limit.first)) {
      return false;
    }
  }
  return input.ConsumedEntireMessage();
}

}  // namespace

CreateGameWire ReadCreateGameSkeleton(const OpenWire& open, int keep,
                                      CreateGameSkeleton& out) {
  out.clans = 0;
  {
    std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> wire = open();
    if (wire == nullptr || !CountClans(*wire, out.clans)) {
      return CreateGameWire::kUndecodable;
    }
  }
  if (out.clans <= keep) return CreateGameWire::kParseWhole;
  // Read again, copied: the fields of every header (the clans kept) and
  // every other field, as they came. A header given twice is one header to
  // protobuf, the concatenation of the two.
  std::string header_bytes;
  std::string rest_bytes;
  {
    std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> wire = open();
    if (wire == nullptr) return CreateGameWire::kUndecodable;
    CodedInputStream input(wire.get());
    google::protobuf::io::StringOutputStream header_stream(&header_bytes);
    CodedOutputStream header(&header_stream);
    google::protobuf::io::StringOutputStream rest_stream(&rest_bytes);
    CodedOutputStream rest(&rest_stream);
    std::int64_t clans = 0;
    for (std::uint32_t tag = replay::ReadParsedTag(input); tag != 0;
         tag = replay::ReadParsedTag(input)) {
      if (tag == kHeaderTag) {
        if (!ReadHeader(input, keep, clans, header)) {
          return CreateGameWire::kUndecodable;
        }
      } else if (!WireFormatLite::SkipField(&input, tag, &rest)) {
        return CreateGameWire::kUndecodable;
      }
    }
    if (!input.ConsumedEntireMessage()) return CreateGameWire::kUndecodable;
  }
  // The streams are flushed: the skeleton is the other fields, then one
  // header.
  {
    google::protobuf::io::StringOutputStream rest_stream(&rest_bytes);
    CodedOutputStream rest(&rest_stream);
    rest.WriteTag(kHeaderTag);
    rest.WriteVarint32(static_cast<std::uint32_t>(header_bytes.size()));
    rest.WriteString(header_bytes);
  }
  std::string().swap(header_bytes);
  out.skeleton.Clear();
  if (!out.skeleton.ParseFromString(rest_bytes)) {
    return CreateGameWire::kUndecodable;
  }
  return CreateGameWire::kSkeleton;
}

std::string ClanCountRefusalFor(absl::string_view message,
                                std::int64_t skeleton_clans,
                                std::int64_t clans) {
  constexpr absl::string_view kStart = "header.clans: a battle has 2 to ";
  const std::string end =
      absl::StrCat(" clans; this log has ", skeleton_clans, ".");
  if (!absl::StartsWith(message, kStart) || !absl::EndsWith(message, end)) {
    return "";
  }
  // The engine's bound, between the two: digits only.
  const absl::string_view bound = message.substr(
      kStart.size(), message.size() - kStart.size() - end.size());
  if (bound.empty() ||
      bound.find_first_not_of("0123456789") != absl::string_view::npos) {
    return "";
  }
  return absl::StrCat(kStart, bound, " clans; this log has ", clans, ".");
}

}  // namespace gunbai::service
