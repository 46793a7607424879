#include "replay/log_bytes.h"

#include <climits>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/wire_format_lite.h"
#include "replay/log_stream.h"
#include "replay/text_errors.h"
#include "replay/wire_tag.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::Message;
using google::protobuf::io::CodedInputStream;
using WireFormatLite = google::protobuf::internal::WireFormatLite;

absl::Status NotRead(absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("the log is not read from its bytes: ", why));
}

constexpr std::uint32_t Tag(int field) {
  return WireFormatLite::MakeTag(field,
                                 WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}
constexpr std::uint32_t kHeaderTag = Tag(v1::BattleLog::kHeaderFieldNumber);
constexpr std::uint32_t kOrderOfBattleTag =
    Tag(v1::BattleLog::kOrderOfBattleFieldNumber);
constexpr std::uint32_t kEventsTag = Tag(v1::BattleLog::kEventsFieldNumber);
constexpr std::uint32_t kTerrainTag = Tag(v1::BattleLog::kTerrainFieldNumber);
constexpr std::uint32_t kTableTag = Tag(v1::BattleLog::kTableFieldNumber);
constexpr std::uint32_t kStartingPositionTag =
    Tag(v1::BattleLog::kStartingPositionFieldNumber);

// One pass over a log's bytes, each event parsed into a message on an arena
// whose block is ours (Reset gives it back whole: no allocation per event
// but for strings over 15 bytes), an event over the block on the heap (on
// the arena, each growth of a repeated field would keep the array it
// outgrew).
class LogBytesPass {
 public:
  LogBytesPass(absl::string_view bytes, int recursion_limit)
      : bytes_(bytes),
        recursion_limit_(recursion_limit),
        event_block_(new char[kEventBlockBytes]),
        event_arena_(EventArenaOptions(event_block_.get())) {}

  // Reads every field, the head into `head` when not null, each event
  // given to `each` when set.
  absl::Status Run(LogBytesHead* head,
                   const std::function<void(const v1::Event&)>* each) {
    if (bytes_.size() > static_cast<std::size_t>(INT_MAX - 1)) {
      return NotRead("the log is over 2 GiB");
    }
    // A string that is not UTF-8 fails the parse; protobuf's log line would
    // only repeat what the whole parse then says.
    google::protobuf::LogSilencer silence;
    CodedInputStream input(reinterpret_cast<const std::uint8_t*>(bytes_.data()),
                           static_cast<int>(bytes_.size()));
    input.SetRecursionLimit(recursion_limit_);
    std::uint64_t events = 0;
    std::uint64_t last_seq = 0;
    for (std::uint32_t tag = ReadParsedTag(input); tag != 0;
         tag = ReadParsedTag(input)) {
      if (tag == kHeaderTag || tag == kOrderOfBattleTag ||
          tag == kStartingPositionTag || tag == kTableTag) {
        if (head == nullptr) {
          if (!Skip(input)) return NotRead("a field runs past the bytes");
          continue;
        }
        Message* field =
            tag == kHeaderTag
                ? static_cast<Message*>(head->head.mutable_header())
            : tag == kOrderOfBattleTag
                ? static_cast<Message*>(head->head.mutable_order_of_battle())
            : tag == kTableTag
                ? static_cast<Message*>(head->head.mutable_table())
                : head->head.mutable_starting_position();
        if (!ReadWholeMessage(input, field)) {
          return NotRead(
              "the header, order of battle, starting position or table does "
              "not parse");
        }
      } else if (tag == kEventsTag) {
        const v1::Event* event = ReadEvent(input);
        if (event == nullptr) {
          return NotRead(absl::StrCat("event ", events, " does not parse"));
        }
        if (head != nullptr) {
          if (!KnownEnums::For(v1::Event::descriptor()).AllKnown(*event)) {
            return NotRead(absl::StrCat("event ", events,
                                        " holds an unknown enum number"));
          }
          if (events > 0 && event->seq() <= last_seq) {
            head->seqs_increase = false;
          }
          last_seq = event->seq();
        }
        if (each != nullptr) (*each)(*event);
        ++events;
      } else if (tag == kTerrainTag) {
        if (head == nullptr) {
          if (!Skip(input)) return NotRead("a field runs past the bytes");
          continue;
        }
        v1::TerrainFeature* terrain = head->head.add_terrain();
        if (!ReadWholeMessage(input, terrain) ||
            !KnownEnums::For(v1::TerrainFeature::descriptor())
                 .AllKnown(*terrain)) {
          return NotRead("a terrain feature does not parse");
        }
      } else {
        return NotRead(absl::StrCat("field ",
                                    WireFormatLite::GetTagFieldNumber(tag),
                                    " is not a message field of the log"));
      }
    }
    if (!input.ConsumedEntireMessage() ||
        input.CurrentPosition() != static_cast<int>(bytes_.size())) {
      return NotRead("the bytes end in the middle of a field");
    }
    if (head != nullptr) {
      if (!KnownEnums::For(v1::BattleLog::descriptor()).AllKnown(head->head)) {
        return NotRead("the head holds an unknown enum number");
      }
      head->events = events;
    }
    return absl::OkStatus();
  }

 private:
  static bool Skip(CodedInputStream& input) {
    int length = 0;
    return input.ReadVarintSizeAsInt(&length) && input.Skip(length);
  }

  // Returns the event whose length comes next, parsed, or null.
  const v1::Event* ReadEvent(CodedInputStream& input) {
    event_arena_.Reset();
    large_.reset();
    int length = 0;
    if (!input.ReadVarintSizeAsInt(&length)) return nullptr;
    v1::Event* event = nullptr;
    if (static_cast<std::size_t>(length) > kEventBlockBytes) {
      large_ = std::make_unique<v1::Event>();
      event = large_.get();
    } else {
      event = google::protobuf::Arena::CreateMessage<v1::Event>(&event_arena_);
    }
    return ReadMessageOfLength(input, length, event) ? event : nullptr;
  }

  static constexpr std::size_t kEventBlockBytes = 64 << 10;
  static google::protobuf::ArenaOptions EventArenaOptions(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kEventBlockBytes;
    return options;
  }

  absl::string_view bytes_;
  const int recursion_limit_;
  std::unique_ptr<v1::Event> large_;
  // Declared before the arena, which must go first.
  std::unique_ptr<char[]> event_block_;
  google::protobuf::Arena event_arena_;
};

}  // namespace

absl::StatusOr<LogBytesHead> ReadLogBytesHead(absl::string_view bytes,
                                              int recursion_limit) {
  LogBytesHead head;
  absl::Status read =
      LogBytesPass(bytes, recursion_limit).Run(&head, /*each=*/nullptr);
  if (!read.ok()) return read;
  return head;
}

absl::Status ForEachLogBytesEvent(
    absl::string_view bytes, int recursion_limit,
    const std::function<void(const v1::Event&)>& each) {
  return LogBytesPass(bytes, recursion_limit).Run(/*head=*/nullptr, &each);
}

}  // namespace gunbai::replay
