#include "replay/live_game.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "replay/audit.h"
#include "replay/ledger.h"
#include "replay/live_batch.h"
#include "replay/proto_mapping.h"
#include "replay/server_dice.h"
#include "rules/digest.h"
#include "rules/excerpt.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

// Returns the AppendEventsResponse of a batch, serialized, byte for byte
// what base::DeterministicBytes makes of it, without a parsed copy of the
// batch's events: `front` (version, head), each of `stored` as an `events`
// field, then `back` (findings, state), in field order as protobuf writes
// a message. The string is sized once: no copy of it is made on the way.
std::string AnswerBytes(const v1::AppendEventsResponse& front,
                        const std::vector<v1::StoredEvent>& stored,
                        const v1::AppendEventsResponse& back) {
  using google::protobuf::internal::WireFormatLite;
  using google::protobuf::io::CodedOutputStream;
  const std::uint32_t tag =
      WireFormatLite::MakeTag(v1::AppendEventsResponse::kEventsFieldNumber,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  std::size_t size = front.ByteSizeLong() + back.ByteSizeLong();
  for (const v1::StoredEvent& e : stored) {
    const std::size_t event_size = e.ByteSizeLong();
    size += CodedOutputStream::VarintSize32(tag) +
            CodedOutputStream::VarintSize64(event_size) + event_size;
  }
  std::string answer;
  answer.reserve(size);
  google::protobuf::io::StringOutputStream raw(&answer);
  CodedOutputStream coded(&raw);
  coded.SetSerializationDeterministic(true);
  front.SerializeWithCachedSizes(&coded);
  for (const v1::StoredEvent& e : stored) {
    coded.WriteTag(tag);
    coded.WriteVarint64(e.GetCachedSize());
    e.SerializeWithCachedSizes(&coded);
  }
  back.SerializeWithCachedSizes(&coded);
  coded.Trim();
  return answer;
}

// Step 2 of AppendToLiveGame: OK when the batch was built on the game's
// version, after catching up with the journal when it was not.
absl::StatusOr<std::optional<std::string>> CheckVersion(
    LiveGame& game, LiveGameJournal& journal,
    const v1::AppendEventsRequest& request) {
  const std::uint64_t expected = request.expected_version();
  if (expected == game.version()) return std::nullopt;
  // Another replica may have appended what the caller has seen.
  GUNBAI_RETURN_IF_ERROR(journal.CatchUp());
  const std::uint64_t version = game.version();
  if (expected == version) return std::nullopt;
  // Or stored this very batch, sent to it at the same time (a client that
  // gave up waiting and sent it again elsewhere): its answer, not a refusal.
  GUNBAI_ASSIGN_OR_RETURN(std::optional<std::string> answered,
                          journal.FindBatch(request.events(0).event_id()));
  if (answered.has_value()) return answered;
  // The first event the caller has not seen is read from (its seq). A
  // caller ahead of the game has none: it is told to read from the start
  // (and expected + 1 could overflow: a client may send any uint64).
  const std::int64_t next_seq =
      expected < version
          ? static_cast<std::int64_t>(
                game.log.events(static_cast<int>(expected)).seq())
          : 0;
  return StaleVersionError(
      expected, version, next_seq,
      absl::StrCat("append again with expected_version ", version));
}

// Steps 5 and 6 of AppendToLiveGame: the batch played into `game`'s engine
// and chained, as it is to be stored.
absl::StatusOr<std::vector<v1::StoredEvent>> PlayBatch(
    LiveGame& game, const LiveAppender& appender, LiveGameJournal& journal,
    v1::AppendEventsRequest& request) {
  std::uint64_t attempt = 0;
  if (appender.settings->dice_mode() == v1::DICE_MODE_SERVER) {
    // Taken, durably, before any die is rolled: a refused batch burns its
    // attempt, so its dice never come back.
    GUNBAI_ASSIGN_OR_RETURN(attempt, journal.NextDiceAttempt());
  }
  LiveBatchGame batch;
  batch.game_id = game.id;
  batch.settings = appender.settings;
  batch.ruleset = game.ruleset;
  batch.dice_key = game.dice_key;
  batch.dice_attempt = attempt;
  batch.head = game.head();
  batch.umpire = appender.umpire;
  batch.clan = appender.clan;
  absl::StatusOr<std::vector<v1::StoredEvent>> played =
      PlayLiveBatch(batch, request, *game.engine, game.findings);
  if (!played.ok()) game.loaded = false;  // Events before it were replayed.
  return played;
}

// The answer to an accepted batch: the version and head after it, its
// events, its findings and the state after it.
std::string AnswerOf(const LiveGame& game, const AppendedBatch& batch,
                     const std::vector<v1::StoredEvent>& stored) {
  v1::AppendEventsResponse front;
  front.set_version(batch.version_before + stored.size());
  front.set_head_hash(stored.back().chain_hash());
  v1::AppendEventsResponse back;
  for (int i = batch.first_finding; i < game.findings.size(); ++i) {
    *back.add_findings() = game.findings[i];
  }
  *back.mutable_state() = SnapshotFromState(game.engine->state());
  return AnswerBytes(front, stored, back);
}

}  // namespace

absl::Status StaleVersionError(std::uint64_t expected_version,
                               std::uint64_t version, std::int64_t next_seq,
                               absl::string_view then) {
  if (expected_version > version) {
    return absl::AbortedError(absl::StrCat(
        "version ", expected_version, " is ahead of the game: it has ", version,
        " events; read it from the start and retry"));
  }
  return absl::AbortedError(absl::StrCat(
      "stale version ", expected_version, ": the game has ", version,
      " events; read from seq ", next_seq, " and ", then));
}

absl::StatusOr<v1::GameSettings> NewGameSettings(const v1::GameSettings& asked,
                                                 const LoadedRuleset& ruleset) {
  v1::GameSettings settings = asked;
  if (settings.policy() == v1::APPEND_POLICY_UNSPECIFIED) {
    settings.set_policy(v1::APPEND_POLICY_STRICT);
  }
  if (settings.dice_mode() == v1::DICE_MODE_UNSPECIFIED) {
    settings.set_dice_mode(v1::DICE_MODE_RECORDED);
  }
  // The game is bound to this ruleset, byte for byte.
  const std::string digest = absl::AsciiStrToLower(settings.ruleset_digest());
  if (!digest.empty() && digest != ruleset.digest) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "settings.ruleset_digest: the game asks for ruleset sha256:%s, but "
        "this gunbaid's \"%s\" ruleset %s is sha256:%s; nothing was created",
        rules::Excerpt(digest), ruleset.data.name(), ruleset.data.version(),
        ruleset.digest));
  }
  settings.set_ruleset_digest(ruleset.digest);
  settings.set_chain_version(kTermsChainVersion);
  // Server dice roll as many dice as the game's ruleset says of each event;
  // a ruleset that cannot say for some kind of event is refused now, not
  // in the middle of the game.
  if (settings.dice_mode() == v1::DICE_MODE_SERVER) {
    absl::Status available = ServerDiceAvailable(ruleset);
    if (!available.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "settings.dice_mode: server dice for the \"%s\" ruleset %s: %s; "
          "give gunbaid a ruleset file that says (gunbaid --ruleset=FILE), or "
          "play with recorded dice (--dice=recorded); nothing was created",
          ruleset.data.name(), ruleset.data.version(), available.message()));
    }
  }
  return settings;
}

absl::Status CheckPlayerSeeds(
    const google::protobuf::RepeatedPtrField<v1::PlayerSeed>& seeds) {
  for (const v1::PlayerSeed& seed : seeds) {
    const std::string& hex = seed.seed_hex();
    const bool is_hex =
        hex.size() % 2 == 0 && std::all_of(hex.begin(), hex.end(), [](char c) {
          return absl::ascii_isxdigit(static_cast<unsigned char>(c));
        });
    if (!is_hex || hex.size() > 256) {
      return absl::InvalidArgumentError(absl::StrCat(
          "player_seeds: the seed of clan \"", rules::Excerpt(seed.clan()),
          "\" must be hex, at most 128 bytes"));
    }
  }
  return absl::OkStatus();
}

std::uint64_t LiveGame::last_seq() const {
  return log.events().empty() ? 0 : log.events(log.events_size() - 1).seq();
}

const std::string& LiveGame::head() const {
  return chain_hashes.empty() ? genesis : chain_hashes.back();
}

void LiveGame::Reset(const v1::Header& header,
                     const v1::OrderOfBattle& order_of_battle,
                     const v1::BattleLog& field) {
  loaded = false;
  log.Clear();
  *log.mutable_header() = header;
  *log.mutable_order_of_battle() = order_of_battle;
  if (field.has_table()) *log.mutable_table() = field.table();
  *log.mutable_terrain() = field.terrain();
  event_ids.clear();
  chain_hashes.clear();
  dice_attempts.clear();
  tree = MerkleTree();
  findings.Clear();
  ruleset = nullptr;
  engine = nullptr;
}

absl::Status ReplayUnderRuleset(LiveGame& game, const LoadedRuleset& ruleset,
                                absl::string_view bound_digest,
                                absl::Status& problem) {
  problem = absl::OkStatus();
  if (!bound_digest.empty() && bound_digest != ruleset.digest) {
    problem = absl::FailedPreconditionError(absl::StrFormat(
        "game %s is played under the \"%s\" ruleset sha256:%s, and this "
        "gunbaid's is sha256:%s (%s); start gunbaid with the ruleset file the "
        "game was created under (--ruleset=FILE). Its events can still be "
        "read and exported",
        game.id, ruleset.data.name(), bound_digest, ruleset.digest,
        ruleset.data.version()));
    return absl::OkStatus();
  }
  game.ruleset = &ruleset;
  GUNBAI_ASSIGN_OR_RETURN(
      game.engine, CreateEngine(game.log, ruleset, AuditOptions(),
                                rules::EngineOutput{&game.findings, nullptr}));
  return absl::OkStatus();
}

bool LiveGame::Absorb(std::vector<v1::StoredEvent>& events,
                      std::size_t replay_from) {
  bool has_end = false;
  std::size_t position = 0;
  // Each event is moved into the log and what is left of it freed: the
  // game is held once, not twice, while it loads.
  for (v1::StoredEvent& stored : events) {
    if (engine != nullptr && position++ >= replay_from) {
      engine->Apply(stored.event());
    }
    has_end = has_end || stored.event().has_game_end();
    event_ids.push_back(std::move(*stored.mutable_event_id()));
    chain_hashes.push_back(std::move(*stored.mutable_chain_hash()));
    dice_attempts.push_back(stored.dice_attempt());
    tree.Append(MerkleLeafHash(base::DeterministicBytes(stored.event())));
    *log.add_events() = std::move(*stored.mutable_event());
    stored = v1::StoredEvent();
  }
  return has_end;
}

namespace {

// A batch answered as it was first: nothing done here.
AppendedBatch Retried(const LiveGame& game, std::string answer) {
  AppendedBatch out;
  out.answer = std::move(answer);
  out.retried = true;
  out.version_before = game.version();
  return out;
}

}  // namespace

absl::StatusOr<AppendedBatch> AppendToLiveGame(
    LiveGame& game, const LiveAppender& appender, LiveGameJournal& journal,
    v1::AppendEventsRequest& request) {
  AppendedBatch out;
  // 1. A retried batch gets its first answer and writes nothing.
  GUNBAI_ASSIGN_OR_RETURN(std::optional<std::string> answered,
                          journal.FindBatch(request.events(0).event_id()));
  // 2-4.
  if (!answered.has_value()) {
    GUNBAI_ASSIGN_OR_RETURN(answered, CheckVersion(game, journal, request));
  }
  if (answered.has_value()) return Retried(game, *std::move(answered));
  if (game.ended) return absl::FailedPreconditionError("the game has ended");
  GUNBAI_RETURN_IF_ERROR(CheckBatchSeqsIncrease(request, game.last_seq()));
  // 5-6.
  out.version_before = game.version();
  out.first_finding = game.findings.size();
  GUNBAI_ASSIGN_OR_RETURN(std::vector<v1::StoredEvent> stored,
                          PlayBatch(game, appender, journal, request));
  // 7. Stored, the events move into the game: the answer holds their bytes.
  out.answer = AnswerOf(game, out, stored);
  absl::StatusOr<std::optional<std::string>> appended =
      journal.Append(out.version_before, stored, out.answer);
  if (!appended.ok() || appended->has_value()) {
    // Refused, or stored first by another call: the engine has played
    // events the game does not keep, so the game is loaded again.
    game.loaded = false;
    if (!appended.ok()) return appended.status();
    return Retried(game, **std::move(appended));
  }
  out.events = stored.size();
  out.ended = game.Absorb(stored, stored.size());
  if (out.ended) {
    if (absl::Status marked = journal.MarkEnded(); !marked.ok()) {
      game.loaded = false;  // The next load marks it again.
      return marked;
    }
    game.ended = true;
  }
  return out;
}

}  // namespace gunbai::replay
