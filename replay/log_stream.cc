#include "replay/log_stream.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/wire_format_lite.h"
#include "replay/text_errors.h"
#include "replay/wire_tag.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;
using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::io::CodedInputStream;
using WireFormatLite = google::protobuf::internal::WireFormatLite;

absl::Status NotStreamed(absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("not audited as a stream: ", why));
}

const KnownEnums& EventEnums() {
  static const KnownEnums& enums = KnownEnums::For(v1::Event::descriptor());
  return enums;
}
const KnownEnums& LogEnums() {
  static const KnownEnums& enums = KnownEnums::For(v1::BattleLog::descriptor());
  return enums;
}
const KnownEnums& TerrainEnums() {
  static const KnownEnums& enums =
      KnownEnums::For(v1::TerrainFeature::descriptor());
  return enums;
}

// The message each event of a streamed log is parsed into, on an arena
// whose block is ours and outlives it: each Read gives the block back whole
// first, so a loop over the events does not allocate (only a string over
// 15 bytes or an event over the block does). An event larger than the
// block is parsed on the heap: on an arena, each growth of a repeated field
// would leave the array it outgrew until the next event (for an event of
// millions of names, arrays as large as the event's bytes); on the heap it
// is freed.
class EventSlot {
 public:
  EventSlot()
      : block_(new char[kBlockBytes]), arena_(ArenaOptions(block_.get())) {}

  // Reads the length and the event after an events tag, `index` (counting
  // from 0) naming it in the reason given up with. Returns the event, valid
  // until the next Read, or NotStreamed when it does not parse or holds an
  // enum number its type does not name.
  absl::StatusOr<const v1::Event*> Read(CodedInputStream& input,
                                        std::uint64_t index) {
    arena_.Reset();
    large_.reset();
    int length = 0;
    if (!input.ReadVarintSizeAsInt(&length)) {
      return NotStreamed(absl::StrCat("event ", index, " does not parse"));
    }
    v1::Event* event = nullptr;
    if (length > static_cast<int>(kBlockBytes)) {
      large_ = std::make_unique<v1::Event>();
      event = large_.get();
    } else {
      event = google::protobuf::Arena::CreateMessage<v1::Event>(&arena_);
    }
    if (!ReadMessageOfLength(input, length, event)) {
      return NotStreamed(absl::StrCat("event ", index, " does not parse"));
    }
    if (!EventEnums().AllKnown(*event)) {
      return NotStreamed(
          absl::StrCat("event ", index, " holds an unknown enum number"));
    }
    return event;
  }

 private:
  static constexpr std::size_t kBlockBytes = 64 << 10;
  static google::protobuf::ArenaOptions ArenaOptions(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kBlockBytes;
    return options;
  }
  // Declared before the arena, which must go first.
  std::unique_ptr<char[]> block_;
  google::protobuf::Arena arena_;
  std::unique_ptr<v1::Event> large_;
};

// Skips a length-delimited field.
absl::Status SkipField(CodedInputStream& input) {
  int length = 0;
  if (!input.ReadVarintSizeAsInt(&length) || !input.Skip(length)) {
    return NotStreamed("a field runs past the end of the bytes");
  }
  return absl::OkStatus();
}

// The bound a pass reads within: `max_bytes` within what an int counts.
std::int64_t ClampedMaxBytes(std::int64_t max_bytes) {
  return std::clamp<std::int64_t>(max_bytes, 0, INT_MAX - 1);
}

// Reads the log's bytes that `open` gives once, calling
// `read_field(field_number, input, stop)` with the input at the length of
// each top-level field (every field of a BattleLog is a message field: any
// other wire type is given up on); `read_field` reads or skips the field
// and sets `stop` to end the pass early, OK. Gives up when the bytes end in
// the middle of a field or are more than `max_bytes` (ClampedMaxBytes).
template <typename ReadField>
absl::Status ReadLogFields(const OpenLogStream& open, std::int64_t max_bytes,
                           ReadField&& read_field) {
  std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> stream = open();
  if (stream == nullptr) return NotStreamed("the input cannot be opened");
  CodedInputStream input(stream.get());
  // One byte over the bound, to tell a log of max_bytes from a longer one.
  input.SetTotalBytesLimit(static_cast<int>(max_bytes + 1));
  for (;;) {
    const std::uint32_t tag = ReadParsedTag(input);
    if (tag == 0) {
      if (!input.ConsumedEntireMessage()) {
        return NotStreamed("the bytes end in the middle of a field");
      }
      break;
    }
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      return NotStreamed(
          absl::StrCat("field ", field, " is not a message field of the log"));
    }
    bool stop = false;
    absl::Status read = read_field(field, input, stop);
    if (!read.ok() || stop) return read;
  }
  if (input.CurrentPosition() > max_bytes) {
    return NotStreamed(
        absl::StrCat("the log is more than ", max_bytes, " bytes"));
  }
  return absl::OkStatus();
}

absl::Status NotALogField(int field) {
  return NotStreamed(
      absl::StrCat("field ", field, " is not a field of the log"));
}

// Merges a header, order of battle, starting position or table field into
// `head`, as protobuf merges a message field given more than once; appends
// a terrain feature, as protobuf appends to a repeated field.
absl::Status MergeHeadField(int field, CodedInputStream& input,
                            v1::BattleLog& head) {
  google::protobuf::Message* into = nullptr;
  absl::string_view what;
  switch (field) {
    case v1::BattleLog::kTerrainFieldNumber: {
      v1::TerrainFeature* terrain = head.add_terrain();
      if (!ReadWholeMessage(input, terrain) ||
          !TerrainEnums().AllKnown(*terrain)) {
        return NotStreamed("a terrain feature does not parse");
      }
      return absl::OkStatus();
    }
    case v1::BattleLog::kTableFieldNumber:
      into = head.mutable_table();
      what = "the table does not parse";
      break;
    case v1::BattleLog::kHeaderFieldNumber:
      into = head.mutable_header();
      what = "the header does not parse";
      break;
    case v1::BattleLog::kOrderOfBattleFieldNumber:
      into = head.mutable_order_of_battle();
      what = "the order of battle does not parse";
      break;
    default:
      into = head.mutable_starting_position();
      what = "the starting position does not parse";
      break;
  }
  if (!ReadWholeMessage(input, into)) return NotStreamed(what);
  return absl::OkStatus();
}

// Which fields of the log a pass over its bytes reads; the others it skips.
enum class Pass {
  // Everything in one pass: the usual case, header and order of battle
  // before the events. Stops at a header or order of battle field that
  // comes after an event.
  kWhole,
  // The header and order of battle, wherever they are.
  kHead,
  // The events and terrain, the head being known.
  kEvents,
};

// One streamed audit: the head, the replay, the report, and the message
// each event is parsed into.
class StreamedAudit {
 public:
  StreamedAudit(const OpenLogStream& open, const RulesetForHead& ruleset_for,
                const AuditOptions& options, std::int64_t max_bytes,
                const AfterStreamedEvent& after_event)
      : open_(open),
        ruleset_for_(ruleset_for),
        options_(options),
        after_event_(after_event),
        max_bytes_(ClampedMaxBytes(max_bytes)) {}

  absl::StatusOr<v1::AuditReport> Run() {
    bool head_after_events = false;
    // With after_event_, never a replay dropped and started again once the
    // caller has seen it: the head is read first, in a pass of its own.
    GUNBAI_RETURN_IF_ERROR(after_event_
                               ? absl::OkStatus()
                               : ReadPass(Pass::kWhole, head_after_events));
    if (head_after_events || after_event_) {
      // Start again: the replay so far began from a head that was not yet
      // whole.
      replay_.reset();
      ruleset_.reset();
      report_.Clear();
      head_.Clear();
      events_ = 0;
      // Only a kWhole pass sets it again.
      head_after_events = false;
      GUNBAI_RETURN_IF_ERROR(ReadPass(Pass::kHead, head_after_events));
      GUNBAI_RETURN_IF_ERROR(ReadPass(Pass::kEvents, head_after_events));
    }
    if (replay_ == nullptr) {
      GUNBAI_RETURN_IF_ERROR(StartReplay());
    }
    replay_->Finish(events_);
    replay_.reset();
    return std::move(report_);
  }

 private:
  // Reads the log's bytes once, as `pass` says. Sets `head_after_events`
  // and stops when a kWhole pass meets a header or order of battle field
  // after an event.
  absl::Status ReadPass(Pass pass, bool& head_after_events) {
    return ReadLogFields(
        open_, max_bytes_, [&](int field, CodedInputStream& input, bool& stop) {
          absl::Status read = ReadField(field, pass, input, head_after_events);
          stop = head_after_events;
          return read;
        });
  }

  absl::Status ReadField(int field, Pass pass, CodedInputStream& input,
                         bool& head_after_events) {
    switch (field) {
      case v1::BattleLog::kHeaderFieldNumber:
      case v1::BattleLog::kOrderOfBattleFieldNumber:
      case v1::BattleLog::kStartingPositionFieldNumber:
      case v1::BattleLog::kTerrainFieldNumber:
      case v1::BattleLog::kTableFieldNumber:
        if (pass == Pass::kEvents) return SkipField(input);
        if (replay_ != nullptr) {
          head_after_events = true;
          return absl::OkStatus();
        }
        return ReadHeadField(field, input);
      case v1::BattleLog::kEventsFieldNumber:
        if (pass == Pass::kHead) return SkipField(input);
        return ReadEvent(pass, input, head_after_events);
      default:
        return NotALogField(field);
    }
  }

  absl::Status ReadHeadField(int field, CodedInputStream& input) {
    return MergeHeadField(field, input, head_);
  }

  absl::Status ReadEvent(Pass pass, CodedInputStream& input,
                         bool& head_after_events) {
    GUNBAI_ASSIGN_OR_RETURN(const v1::Event* read,
                            event_slot_.Read(input, events_));
    const v1::Event* event = read;
    if (replay_ == nullptr) {
      absl::Status started = StartReplay();
      if (!started.ok() && pass == Pass::kWhole) {
        // The head may not be whole yet (the events first, the header
        // after them): read it from the whole log before giving up.
        head_after_events = true;
        return absl::OkStatus();
      }
      if (!started.ok()) return started;
    }
    replay_->Apply(*event);
    ++events_;
    if (after_event_ && !after_event_(report_)) return CancelledAudit();
    // Asked as AuditLog asks it: after every kCancelCheckEvents events.
    if (events_ % kCancelCheckEvents == 0 && options_.cancelled &&
        options_.cancelled()) {
      return CancelledAudit();
    }
    return absl::OkStatus();
  }

  absl::Status StartReplay() {
    if (!LogEnums().AllKnown(head_)) {
      return NotStreamed("the head holds an unknown enum number");
    }
    absl::StatusOr<LoadedRuleset> ruleset = ruleset_for_(head_);
    if (!ruleset.ok()) return NotStreamed(ruleset.status().message());
    ruleset_.emplace(*std::move(ruleset));
    absl::StatusOr<std::unique_ptr<Replay>> replay =
        Replay::Start(head_, *ruleset_, options_, &report_);
    if (!replay.ok()) return NotStreamed(replay.status().message());
    replay_ = *std::move(replay);
    return absl::OkStatus();
  }

  const OpenLogStream& open_;
  const RulesetForHead& ruleset_for_;
  const AuditOptions& options_;
  const AfterStreamedEvent& after_event_;
  const std::int64_t max_bytes_;
  // The header and order of battle; never any events.
  v1::BattleLog head_;
  // Outlives replay_, which reads it.
  std::optional<LoadedRuleset> ruleset_;
  v1::AuditReport report_;
  std::unique_ptr<Replay> replay_;
  std::uint64_t events_ = 0;
  EventSlot event_slot_;
};

}  // namespace

absl::StatusOr<v1::AuditReport> AuditBinaryLogStream(
    const OpenLogStream& open, const RulesetForHead& ruleset_for,
    const AuditOptions& options, std::int64_t max_bytes,
    const AfterStreamedEvent& after_event) {
  if (options.branch_events != nullptr) {
    return NotStreamed("a what-if branch needs the whole log");
  }
  // A string that is not UTF-8 fails the parse; protobuf's log line would
  // only repeat on stderr what the whole log's parse then says.
  google::protobuf::LogSilencer silence;
  return StreamedAudit(open, ruleset_for, options, max_bytes, after_event)
      .Run();
}

absl::StatusOr<StreamedAuditResult> AuditBinaryLogStreamOrGiveUp(
    const OpenLogStream& open, const RulesetForHead& ruleset_for,
    const AuditOptions& options, std::int64_t max_bytes,
    const AfterStreamedEvent& after_event) {
  absl::StatusOr<v1::AuditReport> report =
      AuditBinaryLogStream(open, ruleset_for, options, max_bytes, after_event);
  StreamedAuditResult result;
  if (report.ok()) {
    result.report = *std::move(report);
  } else if (absl::IsFailedPrecondition(report.status())) {
    result.read_whole_because = std::string(report.status().message());
  } else {
    return report.status();
  }
  return result;
}

absl::StatusOr<v1::BattleLog> ReadBinaryLogHead(const OpenLogStream& open,
                                                std::int64_t max_bytes) {
  google::protobuf::LogSilencer silence;
  v1::BattleLog head;
  absl::Status read = ReadLogFields(
      open, ClampedMaxBytes(max_bytes),
      [&](int field, CodedInputStream& input, bool&) -> absl::Status {
        switch (field) {
          case v1::BattleLog::kHeaderFieldNumber:
          case v1::BattleLog::kOrderOfBattleFieldNumber:
          case v1::BattleLog::kStartingPositionFieldNumber:
          case v1::BattleLog::kTerrainFieldNumber:
          case v1::BattleLog::kTableFieldNumber:
            return MergeHeadField(field, input, head);
          case v1::BattleLog::kEventsFieldNumber:
            return SkipField(input);
          default:
            return NotALogField(field);
        }
      });
  if (!read.ok()) return read;
  if (!LogEnums().AllKnown(head)) {
    return NotStreamed("the head holds an unknown enum number");
  }
  return head;
}

absl::Status ForEachBinaryLogEvent(const OpenLogStream& open,
                                   std::int64_t max_bytes,
                                   const EventVisitor& visit) {
  google::protobuf::LogSilencer silence;
  EventSlot event;
  std::uint64_t events = 0;
  return ReadLogFields(
      open, ClampedMaxBytes(max_bytes),
      [&](int field, CodedInputStream& input, bool& stop) -> absl::Status {
        switch (field) {
          case v1::BattleLog::kHeaderFieldNumber:
          case v1::BattleLog::kOrderOfBattleFieldNumber:
          case v1::BattleLog::kStartingPositionFieldNumber:
          case v1::BattleLog::kTerrainFieldNumber:
          case v1::BattleLog::kTableFieldNumber:
            return SkipField(input);
          case v1::BattleLog::kEventsFieldNumber: {
            GUNBAI_ASSIGN_OR_RETURN(const v1::Event* read,
                                    event.Read(input, events++));
            stop = !visit(*read);
            return absl::OkStatus();
          }
          default:
            return NotALogField(field);
        }
      });
}

bool ReadWholeMessage(google::protobuf::io::CodedInputStream& input,
                      google::protobuf::Message* message) {
  int length = 0;
  if (!input.ReadVarintSizeAsInt(&length)) return false;
  return ReadMessageOfLength(input, length, message);
}

bool ReadMessageOfLength(google::protobuf::io::CodedInputStream& input,
                         int length, google::protobuf::Message* message) {
  const int start = input.CurrentPosition();
  const std::pair<CodedInputStream::Limit, int> limit =
      input.IncrementRecursionDepthAndPushLimit(length);
  if (limit.second < 0 || !message->MergePartialFromCodedStream(&input)) {
    return false;
  }
  if (!input.DecrementRecursionDepthAndPopLimit(limit.first)) return false;
  return input.CurrentPosition() - start == length;
}

}  // namespace gunbai::replay
