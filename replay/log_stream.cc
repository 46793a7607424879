#include "replay/log_stream.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
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

// Says whether every enum field of a message holds a number its type names,
// as CheckKnownEnums does, but without building the path of each field nor
// allocating: a plan per message type lists only the fields that can hold
// an enum, so an event costs a few reflection reads. Built once per type
// tree; then read-only, so thread-safe.
class KnownEnums {
 public:
  explicit KnownEnums(const Descriptor* root) { root_ = PlanFor(root); }

  // Returns true when no enum field under `message` (of the root type)
  // holds an unknown number.
  bool AllKnown(const Message& message) const {
    return AllKnown(message, *root_);
  }

 private:
  struct EnumField {
    const FieldDescriptor* field;
    const std::vector<bool>* known;  // Indexed by number, from 0.
    const EnumDescriptor* type;      // For numbers outside `known`.
  };
  struct Plan;
  struct MessageField {
    const FieldDescriptor* field;
    const Plan* plan;
  };
  // A oneof's members by their index in it; null for one with no enum under
  // it. The case set is read once, not each member's HasField.
  struct OneofField {
    const google::protobuf::OneofDescriptor* oneof;
    std::vector<const Plan*> members;
  };
  struct Plan {
    std::vector<EnumField> enums;
    std::vector<MessageField> messages;
    std::vector<OneofField> oneofs;
    // Every generated message of a type shares it; asking the message
    // costs a call per message.
    const Reflection* reflection = nullptr;
    bool Empty() const {
      return enums.empty() && messages.empty() && oneofs.empty();
    }
  };

  // Returns the plan of `type`; empty when no enum can be under it. A type
  // met again while its plan is being built (a recursive message) is kept
  // as if it could hold enums.
  const Plan* PlanFor(const Descriptor* type) {
    auto [it, inserted] = plans_.try_emplace(type);
    if (!inserted) return &it->second;
    in_progress_.push_back(type);
    Plan plan;
    plan.reflection = google::protobuf::MessageFactory::generated_factory()
                          ->GetPrototype(type)
                          ->GetReflection();
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
        plan.enums.push_back(
            {field, KnownValues(field->enum_type()), field->enum_type()});
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        const Descriptor* nested = field->message_type();
        const bool in_progress =
            std::find(in_progress_.begin(), in_progress_.end(), nested) !=
            in_progress_.end();
        const Plan* nested_plan = PlanFor(nested);
        if (!in_progress && nested_plan->Empty()) continue;
        const google::protobuf::OneofDescriptor* oneof =
            field->real_containing_oneof();
        if (oneof == nullptr) {
          plan.messages.push_back({field, nested_plan});
          continue;
        }
        auto member = std::find_if(
            plan.oneofs.begin(), plan.oneofs.end(),
            [oneof](const OneofField& o) { return o.oneof == oneof; });
        if (member == plan.oneofs.end()) {
          plan.oneofs.push_back(
              {oneof, std::vector<const Plan*>(
                          static_cast<std::size_t>(oneof->field_count()))});
          member = plan.oneofs.end() - 1;
        }
        member->members[static_cast<std::size_t>(field->index_in_oneof())] =
            nested_plan;
      }
    }
    in_progress_.pop_back();
    it = plans_.find(type);
    it->second = std::move(plan);
    return &it->second;
  }

  const std::vector<bool>* KnownValues(const EnumDescriptor* type) {
    auto [it, inserted] = known_.try_emplace(type);
    if (inserted) {
      for (int i = 0; i < type->value_count(); ++i) {
        const int number = type->value(i)->number();
        if (number < 0 || number > kMaxIndexed) continue;
        if (it->second.size() <= static_cast<std::size_t>(number)) {
          it->second.resize(static_cast<std::size_t>(number) + 1, false);
        }
        it->second[static_cast<std::size_t>(number)] = true;
      }
    }
    return &it->second;
  }

  static bool Known(const EnumField& e, int number) {
    if (number >= 0 && static_cast<std::size_t>(number) < e.known->size()) {
      return (*e.known)[static_cast<std::size_t>(number)];
    }
    return e.type->FindValueByNumber(number) != nullptr;
  }

  static bool AllKnown(const Message& message, const Plan& plan) {
    const Reflection* reflection = plan.reflection;
    for (const EnumField& e : plan.enums) {
      if (!e.field->is_repeated()) {
        if (!Known(e, reflection->GetEnumValue(message, e.field))) return false;
        continue;
      }
      const int count = reflection->FieldSize(message, e.field);
      for (int i = 0; i < count; ++i) {
        if (!Known(e, reflection->GetRepeatedEnumValue(message, e.field, i))) {
          return false;
        }
      }
    }
    for (const OneofField& o : plan.oneofs) {
      const FieldDescriptor* set =
          reflection->GetOneofFieldDescriptor(message, o.oneof);
      if (set == nullptr) continue;
      const Plan* member =
          o.members[static_cast<std::size_t>(set->index_in_oneof())];
      if (member != nullptr &&
          !AllKnown(reflection->GetMessage(message, set), *member)) {
        return false;
      }
    }
    for (const MessageField& m : plan.messages) {
      if (!m.field->is_repeated()) {
        if (reflection->HasField(message, m.field) &&
            !AllKnown(reflection->GetMessage(message, m.field), *m.plan)) {
          return false;
        }
        continue;
      }
      const int count = reflection->FieldSize(message, m.field);
      for (int i = 0; i < count; ++i) {
        if (!AllKnown(reflection->GetRepeatedMessage(message, m.field, i),
                      *m.plan)) {
          return false;
        }
      }
    }
    return true;
  }

  // Enum numbers up to this are looked up in a table.
  static constexpr int kMaxIndexed = 1024;
  // std::map: the plans point at each other, so their addresses must hold.
  std::map<const Descriptor*, Plan> plans_;
  std::map<const EnumDescriptor*, std::vector<bool>> known_;
  // The types whose plans are being built, outermost first.
  std::vector<const Descriptor*> in_progress_;
  const Plan* root_ = nullptr;
};

const KnownEnums& EventEnums() {
  static const KnownEnums* const enums =
      new KnownEnums(v1::Event::descriptor());
  return *enums;
}
const KnownEnums& LogEnums() {
  static const KnownEnums* const enums =
      new KnownEnums(v1::BattleLog::descriptor());
  return *enums;
}
const KnownEnums& TerrainEnums() {
  static const KnownEnums* const enums =
      new KnownEnums(v1::TerrainFeature::descriptor());
  return *enums;
}

// Reads a length-delimited message field into `message`, merging, as
// WireFormatLite::ReadMessage does, and also fails when the bytes end before
// the length says (ReadMessage takes a message cut at the end of the input
// for a whole one).
bool ReadWholeMessage(CodedInputStream& input, Message* message) {
  int length = 0;
  if (!input.ReadVarintSizeAsInt(&length)) return false;
  const int start = input.CurrentPosition();
  const std::pair<CodedInputStream::Limit, int> limit =
      input.IncrementRecursionDepthAndPushLimit(length);
  if (limit.second < 0 || !message->MergePartialFromCodedStream(&input)) {
    return false;
  }
  if (!input.DecrementRecursionDepthAndPopLimit(limit.first)) return false;
  return input.CurrentPosition() - start == length;
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
                const AuditOptions& options, std::int64_t max_bytes)
      : open_(open),
        ruleset_for_(ruleset_for),
        options_(options),
        max_bytes_(std::clamp<std::int64_t>(max_bytes, 0, INT_MAX - 1)),
        event_block_(new char[kEventBlockBytes]),
        event_arena_(EventArenaOptions(event_block_.get())) {}

  absl::StatusOr<v1::AuditReport> Run() {
    bool head_after_events = false;
    absl::Status read = ReadPass(Pass::kWhole, head_after_events);
    if (!read.ok()) return read;
    if (head_after_events) {
      // Start again: the replay so far began from a head that was not yet
      // whole.
      replay_.reset();
      ruleset_.reset();
      report_.Clear();
      head_.Clear();
      events_ = 0;
      // Only a kWhole pass sets it again.
      head_after_events = false;
      read = ReadPass(Pass::kHead, head_after_events);
      if (!read.ok()) return read;
      read = ReadPass(Pass::kEvents, head_after_events);
      if (!read.ok()) return read;
    }
    if (replay_ == nullptr) {
      absl::Status started = StartReplay();
      if (!started.ok()) return started;
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
    std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> stream = open_();
    if (stream == nullptr) return NotStreamed("the input cannot be opened");
    CodedInputStream input(stream.get());
    // One byte over the bound, to tell a log of max_bytes from a longer one.
    input.SetTotalBytesLimit(static_cast<int>(max_bytes_ + 1));
    for (;;) {
      const std::uint32_t tag = input.ReadTag();
      if (tag == 0) {
        if (!input.ConsumedEntireMessage()) {
          return NotStreamed("the bytes end in the middle of a field");
        }
        break;
      }
      absl::Status read = ReadField(tag, pass, input, head_after_events);
      if (!read.ok() || head_after_events) return read;
    }
    if (input.CurrentPosition() > max_bytes_) {
      return NotStreamed(
          absl::StrCat("the log is more than ", max_bytes_, " bytes"));
    }
    return absl::OkStatus();
  }

  absl::Status ReadField(std::uint32_t tag, Pass pass, CodedInputStream& input,
                         bool& head_after_events) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      return NotStreamed(
          absl::StrCat("field ", field, " is not a message field of the log"));
    }
    switch (field) {
      case v1::BattleLog::kHeaderFieldNumber:
      case v1::BattleLog::kOrderOfBattleFieldNumber:
        if (pass == Pass::kEvents) return Skip(input);
        if (replay_ != nullptr) {
          head_after_events = true;
          return absl::OkStatus();
        }
        return ReadHeadField(field, input);
      case v1::BattleLog::kEventsFieldNumber:
        if (pass == Pass::kHead) return Skip(input);
        return ReadEvent(pass, input, head_after_events);
      case v1::BattleLog::kTerrainFieldNumber:
        if (pass == Pass::kHead) return Skip(input);
        return ReadTerrain(input);
      default:
        return NotStreamed(
            absl::StrCat("field ", field, " is not a field of the log"));
    }
  }

  // Merges a header or order of battle field into the head, as protobuf
  // merges a message field given more than once.
  absl::Status ReadHeadField(int field, CodedInputStream& input) {
    const bool read =
        field == v1::BattleLog::kHeaderFieldNumber
            ? ReadWholeMessage(input, head_.mutable_header())
            : ReadWholeMessage(input, head_.mutable_order_of_battle());
    if (!read) {
      return NotStreamed(field == v1::BattleLog::kHeaderFieldNumber
                             ? "the header does not parse"
                             : "the order of battle does not parse");
    }
    return absl::OkStatus();
  }

  absl::Status ReadEvent(Pass pass, CodedInputStream& input,
                         bool& head_after_events) {
    // Each event is parsed into a message on an arena whose block is ours
    // and outlives it: Reset() gives the block back whole, so the loop does
    // not allocate (only a string over 15 bytes or an event over the block
    // does).
    event_arena_.Reset();
    v1::Event* event =
        google::protobuf::Arena::CreateMessage<v1::Event>(&event_arena_);
    if (!ReadWholeMessage(input, event)) {
      return NotStreamed(absl::StrCat("event ", events_, " does not parse"));
    }
    if (!EventEnums().AllKnown(*event)) {
      return NotStreamed(
          absl::StrCat("event ", events_, " holds an unknown enum number"));
    }
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
    return absl::OkStatus();
  }

  // Terrain is not replayed, but is checked as the whole log's parse checks
  // it.
  absl::Status ReadTerrain(CodedInputStream& input) {
    terrain_.Clear();
    if (!ReadWholeMessage(input, &terrain_) ||
        !TerrainEnums().AllKnown(terrain_)) {
      return NotStreamed("a terrain feature does not parse");
    }
    return absl::OkStatus();
  }

  static absl::Status Skip(CodedInputStream& input) {
    int length = 0;
    if (!input.ReadVarintSizeAsInt(&length) || !input.Skip(length)) {
      return NotStreamed("a field runs past the end of the bytes");
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
  const std::int64_t max_bytes_;
  // The header and order of battle; never any events.
  v1::BattleLog head_;
  // Outlives replay_, which reads it.
  std::optional<LoadedRuleset> ruleset_;
  v1::AuditReport report_;
  std::unique_ptr<Replay> replay_;
  std::uint64_t events_ = 0;
  static constexpr std::size_t kEventBlockBytes = 64 << 10;
  static google::protobuf::ArenaOptions EventArenaOptions(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kEventBlockBytes;
    return options;
  }
  // Declared before the arena, which must go first.
  std::unique_ptr<char[]> event_block_;
  google::protobuf::Arena event_arena_;
  v1::TerrainFeature terrain_;
};

}  // namespace

absl::StatusOr<v1::AuditReport> AuditBinaryLogStream(
    const OpenLogStream& open, const RulesetForHead& ruleset_for,
    const AuditOptions& options, std::int64_t max_bytes) {
  if (options.branch_events != nullptr) {
    return NotStreamed("a what-if branch needs the whole log");
  }
  // A string that is not UTF-8 fails the parse; protobuf's log line would
  // only repeat on stderr what the whole log's parse then says.
  google::protobuf::LogSilencer silence;
  return StreamedAudit(open, ruleset_for, options, max_bytes).Run();
}

}  // namespace gunbai::replay
