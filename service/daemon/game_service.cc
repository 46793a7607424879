#include "service/daemon/game_service.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/method_handler.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/slice.h"
#include "replay/audit.h"
#include "replay/impact.h"
#include "replay/ledger.h"
#include "replay/legal_actions.h"
#include "replay/live_batch.h"
#include "replay/merkle.h"
#include "replay/proto_mapping.h"
#include "replay/server_dice.h"
#include "replay/text_errors.h"
#include "rules/digest.h"
#include "rules/status_macros.h"
#include "service/common/grpc_status.h"
#include "service/daemon/auth.h"
#include "service/daemon/create_game_wire.h"
#include "service/daemon/decode_errors.h"
#include "service/daemon/metrics.h"
#include "service/daemon/request_observer.h"
#include "service/daemon/wire_request.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

constexpr int kMaxBatch = 10000;
static_assert(replay::kMaxLiveBatchEvents == GameStore::kMaxBatchEvents,
              "a batch gunbaid plays is one the store takes");
static_assert(static_cast<std::size_t>(kMaxBatch) <=
              replay::kMaxLiveBatchEvents);
constexpr std::size_t kMaxEventIdLength = 128;
// CreateGame's and AppendEvents' places among GameService's methods, in the
// order game_service.proto declares them (service/daemon/game_service.h says
// why they are served apart).
constexpr int kCreateGameMethod = 0;
constexpr int kAppendEventsMethod = 1;
constexpr char kCreateGameMethodName[] = "/gunbai.v1.GameService/CreateGame";
// Games in one ListGames reply.
constexpr int kMaxListedGames = 1000;
// Events a watch copies out of a game at a time: a watch from seq 1 of a
// long game holds a page, not the game.
constexpr int kWatchBatch = 1000;
// Bytes of events one ReadEvents or ExportGame reply carries, besides one
// event that alone is larger: a reply costs a page, not the game, and
// gRPC's message limit never refuses a long game's read.
constexpr size_t kPageBytes = size_t{2} << 20;

// The chain hash a game's first event chains from (replay::GameGenesis).
std::string GenesisOf(const GameRecord& record) {
  return replay::GameGenesis(record.header, record.order_of_battle,
                             record.settings, record.dice, record.field);
}

bool ValidGameId(absl::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
           c == '_' || c == '.';
  });
}

std::string DiceKeyFor(const GameRecord& record) {
  return replay::DiceKey(absl::HexStringToBytes(record.secret_hex),
                         record.dice.player_seeds());
}

absl::Status ValidateBatch(const v1::AppendEventsRequest& request) {
  if (request.events_size() == 0) {
    return absl::InvalidArgumentError("the batch has no events");
  }
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(known.message(), "; nothing was written"));
  }
  if (request.events_size() > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the batch has %d events; send at most %d at a time",
                        request.events_size(), kMaxBatch));
  }
  absl::flat_hash_set<std::string> ids;
  for (int i = 0; i < request.events_size(); ++i) {
    const std::string& id = request.events(i).event_id();
    if (id.empty() || id.size() > kMaxEventIdLength) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "events[%d]: every event needs an event_id of 1 to %d characters "
          "(it makes retries safe)",
          i, kMaxEventIdLength));
    }
    if (!ids.insert(id).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "events[%d]: event_id \"%s\" appears twice in the batch", i, id));
    }
  }
  return absl::OkStatus();
}

// Returns the engine of `request`'s header and order of battle under
// `ruleset`, or the status refusing them. The log the engine is created from
// borrows them from the request and gives them back: a copy doubled what a
// request of a million clans or units cost before it was refused. gRPC owns
// the request, which is not a const object, and the handler reads it only
// after this returns.
absl::StatusOr<std::unique_ptr<rules::Engine>> EngineFor(
    const v1::CreateGameRequest& request,
    const replay::LoadedRuleset& ruleset) {
  auto& owned = const_cast<v1::CreateGameRequest&>(request);
  v1::BattleLog log;
  log.mutable_header()->Swap(owned.mutable_header());
  log.mutable_order_of_battle()->Swap(owned.mutable_order_of_battle());
  log.mutable_terrain()->Swap(owned.mutable_terrain());
  if (owned.has_table()) *log.mutable_table() = owned.table();
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  auto engine = replay::CreateEngine(log, ruleset, replay::AuditOptions(),
                                     rules::EngineOutput{&findings, nullptr});
  owned.mutable_header()->Swap(log.mutable_header());
  owned.mutable_order_of_battle()->Swap(log.mutable_order_of_battle());
  owned.mutable_terrain()->Swap(log.mutable_terrain());
  // A strict game refuses what breaks the rules before the first event: the
  // armies' placement on the table (units off it, or on the same ground).
  const v1::AppendPolicy policy = request.settings().policy();
  if (engine.ok() && (policy == v1::APPEND_POLICY_STRICT ||
                      policy == v1::APPEND_POLICY_UNSPECIFIED)) {
    for (const v1::Finding& f : findings) {
      if (f.severity() != v1::SEVERITY_VIOLATION) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "the game is strict and its armies break the rules before the "
          "first event: ",
          f.rule_id(), ": ", f.message(), " Nothing was created."));
    }
  }
  return engine;
}

// The MAC of a ListGames page token: HMAC-SHA256 under `key` (the umpire
// credential's hash, which only this gunbaid and its umpire know) of the
// last game id of the page, hex, 32 digits.
std::string PageTokenMac(absl::string_view key, absl::string_view game_id) {
  const std::string message = absl::StrCat("gunbai.ListGames\n", game_id);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
       mac, &size);
  return absl::BytesToHexString(
             absl::string_view(reinterpret_cast<const char*>(mac), size))
      .substr(0, 32);
}

// Returns the ListGames page token of a page that ends at `game_id`:
// "g1.<the id, web-safe base64>.<PageTokenMac>". Opaque to clients.
std::string PageTokenAfter(absl::string_view key, absl::string_view game_id) {
  return absl::StrCat("g1.", absl::WebSafeBase64Escape(game_id), ".",
                      PageTokenMac(key, game_id));
}

// Returns the game id a page token of PageTokenAfter's names, or
// InvalidArgument for one this gunbaid (under this umpire credential) did
// not give: edited, forged, or another gunbaid's.
absl::StatusOr<std::string> GameIdOfPageToken(absl::string_view key,
                                              absl::string_view token) {
  const std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  std::string game_id;
  if (parts.size() == 3 && parts[0] == "g1" &&
      absl::WebSafeBase64Unescape(parts[1], &game_id) &&
      SameHash(parts[2], PageTokenMac(key, game_id))) {
    return game_id;
  }
  return absl::InvalidArgumentError(
      "page_token: not a token this gunbaid gave; give the next_page_token "
      "of the previous reply unchanged, or none for the first page");
}

// Returns `answer` as a message gRPC sends without copying it.
grpc::ByteBuffer SendableAnswer(std::string answer) {
  auto* owned = new std::string(std::move(answer));
  grpc::Slice slice(
      owned->data(), owned->size(),
      [](void* bytes) { delete static_cast<std::string*>(bytes); }, owned);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace

GameServiceImpl::GameServiceImpl(GameStore* store,
                                 const replay::RulesetCatalog* rulesets,
                                 const std::string& umpire_token,
                                 int max_watchers, int max_watchers_per_game,
                                 RequestBudget* budget, int max_cached_games,
                                 int checkpoint_every)
    : store_(store),
      rulesets_(rulesets),
      umpire_hash_(TokenHash(umpire_token)),
      max_cached_games_(std::max(max_cached_games, 0)),
      watchers_(max_watchers, max_watchers_per_game),
      budget_(budget),
      checkpoint_every_(std::max(checkpoint_every, 0)) {
  ServeCreateGameOnWire();
  ServeAppendEventsAsBytes();
  store_->OnAppend([this](const std::string& game_id) { MarkStale(game_id); });
}

GameServiceImpl::~GameServiceImpl() { store_->OnAppend(nullptr); }

void GameServiceImpl::MarkStale(const std::string& game_id) {
  absl::MutexLock lock(&games_mu_);
  for (auto& [id, game] : games_) {
    if (!game_id.empty() && id != game_id) continue;
    game->stale = true;
    // Without the game's lock: an append may hold it while it waits for
    // the store. A watch that misses the signal wakes within its timeout.
    game->changed.SignalAll();
  }
}

GameServiceImpl::CheckpointStats GameServiceImpl::CheckpointStatsForTest() {
  absl::MutexLock lock(&stats_mu_);
  return stats_;
}

std::vector<std::string> GameServiceImpl::CachedGamesForTest() {
  absl::MutexLock lock(&games_mu_);
  std::vector<std::string> ids;
  for (const auto& [id, game] : games_) ids.push_back(id);
  return ids;
}

int GameServiceImpl::PinnedGamesForTest() {
  absl::MutexLock lock(&games_mu_);
  return static_cast<int>(
      std::count_if(games_.begin(), games_.end(),
                    [](const auto& entry) { return entry.second->pins > 0; }));
}

grpc::Status GameServiceImpl::Admit(const google::protobuf::Message& request,
                                    absl::string_view what,
                                    RequestBudget::Admission& admission) {
  return ToGrpcStatus(AdmitRequest(budget_, request, what, admission));
}

void GameServiceImpl::Shutdown() {
  shutting_down_ = true;
  absl::MutexLock lock(&games_mu_);
  for (auto& [id, game] : games_) {
    absl::MutexLock game_lock(&game->mu);
    game->changed.SignalAll();
  }
}

absl::StatusOr<GameServiceImpl::Caller> GameServiceImpl::Authenticate(
    const grpc::ServerContext& context, const GameRecord* game) const {
  GUNBAI_ASSIGN_OR_RETURN(auto token, BearerToken(context));
  const std::string hash = TokenHash(token);
  if (SameHash(hash, umpire_hash_)) return Caller{true, ""};
  if (game != nullptr) {
    for (const auto& [clan, clan_hash] : game->credential_hashes) {
      if (SameHash(hash, clan_hash)) return Caller{false, clan};
    }
  }
  return absl::PermissionDeniedError(
      game == nullptr ? "only the umpire may do this"
                      : "this credential is neither the umpire's nor a "
                        "player's of this game");
}

absl::StatusOr<GameServiceImpl::GamePin> GameServiceImpl::Load(
    const std::string& game_id) {
  if (!ValidGameId(game_id)) {
    return absl::InvalidArgumentError(
        "a game id is 1 to 64 letters, digits, '-', '_' or '.'");
  }
  LiveGame* game = nullptr;
  {
    absl::MutexLock lock(&games_mu_);
    game = PinCached(game_id);
  }
  if (game == nullptr) {
    // Only games the store knows get a cache entry: made-up ids cost a
    // lookup, not memory (the version itself is not needed here).
    GUNBAI_RETURN_IF_ERROR(store_->Version(game_id).status());
    absl::MutexLock lock(&games_mu_);
    game = PinCached(game_id);
    if (game == nullptr) {
      auto& slot = games_[game_id];
      slot = std::make_unique<LiveGame>(game_id);
      game = slot.get();
      game->pins = 1;
      game->last_use = ++use_count_;
      ProcessMetrics().SetGamesCached(static_cast<int64_t>(games_.size()));
    }
  }
  // From here the pin gives the game back to the cache on every return.
  GamePin pin(this, game);
  absl::MutexLock lock(&game->mu);
  GUNBAI_RETURN_IF_ERROR(
      CountStoreError(StoreOperation::kRead, Refresh(*game)));
  return pin;
}

GameServiceImpl::LiveGame* GameServiceImpl::PinCached(
    const std::string& game_id) {
  auto it = games_.find(game_id);
  if (it == games_.end()) return nullptr;
  LiveGame* game = it->second.get();
  ++game->pins;
  game->last_use = ++use_count_;
  return game;
}

void GameServiceImpl::Unpin(LiveGame& game) {
  // Games are dropped here only: a game taken from the cache is in use, so
  // only its release can leave too many games not in use. They are freed
  // after games_mu_ is released: a long game's replay takes a while
  // to free, and other calls need the lock meanwhile.
  std::vector<std::unique_ptr<LiveGame>> dropped;
  absl::MutexLock lock(&games_mu_);
  --game.pins;
  DropBeyondBound(dropped);
  ProcessMetrics().SetGamesCached(static_cast<int64_t>(games_.size()));
}

void GameServiceImpl::DropBeyondBound(
    std::vector<std::unique_ptr<LiveGame>>& dropped) {
  if (max_cached_games_ == 0) return;
  // Deterministic: the game taken longest ago (by use_count_, not a clock)
  // goes first. None of them is locked, since only a pinned game's lock is
  // ever taken outside games_mu_.
  for (;;) {
    auto oldest = games_.end();
    int idle = 0;
    for (auto it = games_.begin(); it != games_.end(); ++it) {
      if (it->second->pins > 0) continue;
      ++idle;
      if (oldest == games_.end() ||
          it->second->last_use < oldest->second->last_use) {
        oldest = it;
      }
    }
    if (idle <= max_cached_games_) return;
    dropped.push_back(std::move(oldest->second));
    games_.erase(oldest);
  }
}

absl::Status GameServiceImpl::Rebuild(LiveGame& game) {
  game.live.loaded = false;
  GUNBAI_ASSIGN_OR_RETURN(auto record, store_->GetGame(game.id));
  GUNBAI_ASSIGN_OR_RETURN(auto events, store_->ReadEvents(game.id, 0));
  game.record = std::move(record);
  game.live.Reset(game.record.header, game.record.order_of_battle,
                  game.record.field);
  game.ruleset_problem = absl::OkStatus();
  GUNBAI_ASSIGN_OR_RETURN(const replay::LoadedRuleset* ruleset,
                          rulesets_->ForLog(game.live.log.header()));
  GUNBAI_RETURN_IF_ERROR(replay::ReplayUnderRuleset(
      game.live, *ruleset, game.record.settings.ruleset_digest(),
      game.ruleset_problem));
  // The events a checkpoint covers are still read into the log (reads,
  // watches and exports serve them), but not replayed.
  size_t from_checkpoint = 0;
  if (game.live.engine != nullptr) {
    GUNBAI_ASSIGN_OR_RETURN(auto restored,
                            RestoreLatestCheckpoint(game, events));
    from_checkpoint = restored;
  }
  CountRebuild(game.live.engine != nullptr ? events.size() - from_checkpoint
                                           : 0);
  const bool has_end = game.live.Absorb(events, from_checkpoint);
  // A crash between storing a batch with game_end and marking the game
  // ended leaves the mark undone: the stored log decides.
  if (has_end && !game.record.ended) {
    GUNBAI_RETURN_IF_ERROR(store_->MarkEnded(game.id));
    game.record.ended = true;
  }
  game.live.dice_key = DiceKeyFor(game.record);
  game.live.genesis = GenesisOf(game.record);
  game.live.ended = game.record.ended;
  game.live.loaded = true;
  return absl::OkStatus();
}

void GameServiceImpl::CountRebuild(size_t events_replayed) {
  absl::MutexLock lock(&stats_mu_);
  ++stats_.rebuilds;
  if (events_replayed > 0) {
    stats_.events_replayed += events_replayed;
    ProcessMetrics().AddEventsReplayed(events_replayed);
  }
}

absl::Status GameServiceImpl::Refresh(LiveGame& game) {
  if (!game.live.loaded) return Rebuild(game);
  if (game.stale) return CatchUp(game);
  return absl::OkStatus();
}

absl::Status GameServiceImpl::CatchUp(LiveGame& game) {
  game.stale = false;
  if (!game.live.loaded) return Rebuild(game);
  const uint64_t cached = game.live.event_ids.size();
  GUNBAI_ASSIGN_OR_RETURN(const uint64_t version, store_->Version(game.id));
  if (version == cached) return absl::OkStatus();
  const uint64_t from_seq =
      game.live.log.events().empty()
          ? 0
          : game.live.log.events(game.live.log.events_size() - 1).seq() + 1;
  GUNBAI_ASSIGN_OR_RETURN(auto events, store_->ReadEvents(game.id, from_seq));
  // Fewer than the version says (the store moved back?), or an end (the
  // record changes too): read the whole game again.
  const bool ends = std::any_of(
      events.begin(), events.end(),
      [](const v1::StoredEvent& e) { return e.event().has_game_end(); });
  if (version < cached || cached + events.size() < version || ends) {
    return Rebuild(game);
  }
  {
    absl::MutexLock lock(&stats_mu_);
    if (game.live.engine != nullptr) {
      stats_.events_replayed += events.size();
      ProcessMetrics().AddEventsReplayed(events.size());
    }
  }
  game.live.Absorb(events, 0);
  game.changed.SignalAll();
  return absl::OkStatus();
}

absl::StatusOr<size_t> GameServiceImpl::RestoreLatestCheckpoint(
    LiveGame& game, const std::vector<v1::StoredEvent>& events) {
  if (checkpoint_every_ == 0 || game.live.engine->CheckpointVersion() == 0) {
    return 0;
  }
  auto latest = store_->LatestCheckpoint(game.id, game.live.ruleset->digest,
                                         game.live.engine->CheckpointVersion());
  // A store that cannot give one costs a full replay, not the load.
  if (!latest.ok() || !latest->has_value()) return 0;
  const StoredCheckpoint& checkpoint = **latest;
  // It must follow these very events: its last is at its place in the
  // chain.
  const uint64_t n = checkpoint.after_version;
  absl::Status trusted =
      n == 0 || n > events.size() ||
              events[n - 1].chain_hash() != checkpoint.head_hash ||
              events[n - 1].event().seq() != checkpoint.after_seq
          ? absl::DataLossError("the checkpoint does not follow the events")
          : RestoreFromCheckpoint(checkpoint, *game.live.engine,
                                  game.live.findings);
  absl::MutexLock lock(&stats_mu_);
  if (trusted.ok()) {
    ++stats_.restored;
    return n;
  }
  ++stats_.refused;
  // Never trusted: the game is replayed whole, on a fresh engine.
  game.live.findings.Clear();
  auto replayer = replay::CreateEngine(
      game.live.log, *game.live.ruleset, replay::AuditOptions(),
      rules::EngineOutput{&game.live.findings, nullptr});
  if (!replayer.ok()) return replayer.status();
  game.live.engine = *std::move(replayer);
  return 0;
}

void GameServiceImpl::MaybeCheckpoint(LiveGame& game, uint64_t version_before) {
  const uint64_t version = game.live.event_ids.size();
  if (checkpoint_every_ == 0 || game.live.engine == nullptr ||
      game.live.engine->CheckpointVersion() == 0 ||
      version / checkpoint_every_ == version_before / checkpoint_every_) {
    return;
  }
  absl::StatusOr<StoredCheckpoint> checkpoint = MakeCheckpoint(
      *game.live.engine, game.live.findings, version,
      game.live.log.events(game.live.log.events_size() - 1).seq(),
      game.live.chain_hashes.back(), game.live.ruleset->digest);
  absl::Status stored = checkpoint.ok()
                            ? store_->WriteCheckpoint(game.id, *checkpoint)
                            : checkpoint.status();
  CountStoreError(StoreOperation::kCheckpoint, stored);
  absl::MutexLock lock(&stats_mu_);
  ++(stored.ok() ? stats_.written : stats_.write_failures);
}

absl::StatusOr<GameServiceImpl::GamePin> GameServiceImpl::Authorized(
    grpc::ServerContext* context, const std::string& game_id, Caller* caller) {
  NoteRequestGameId(context, game_id);  // For the call's log line.
  // Check the credential before saying anything about the game.
  GUNBAI_ASSIGN_OR_RETURN(auto token, BearerToken(*context));
  auto game = Load(game_id);
  if (!game.ok()) {
    if (SameHash(TokenHash(token), umpire_hash_)) return game.status();
    return absl::PermissionDeniedError(
        "this credential is neither the umpire's nor a player's of this "
        "game");
  }
  {
    absl::ReaderMutexLock lock(&(*game)->mu);
    GUNBAI_ASSIGN_OR_RETURN(auto who, Authenticate(*context, &(*game)->record));
    *caller = who;
  }
  return *std::move(game);
}

grpc::Status GameServiceImpl::ReadGame(
    grpc::ServerContext* context, const std::string& game_id, Needs needs,
    absl::FunctionRef<grpc::Status(const LiveGame& game)> read) {
  Caller caller;
  auto game = Authorized(context, game_id, &caller);
  if (!game.ok()) return ToGrpcStatus(game.status());
  LiveGame& g = **game;
  absl::ReaderMutexLock lock(&g.mu);
  if (needs == Needs::kRules && !g.ruleset_problem.ok()) {
    return ToGrpcStatus(g.ruleset_problem);
  }
  return read(g);
}

v1::DiceCommitment GameServiceImpl::DiceFor(const GameRecord& record) const {
  v1::DiceCommitment dice = record.dice;
  if (record.ended) {
    dice.set_revealed_secret(record.secret_hex);
  } else {
    dice.clear_revealed_secret();
  }
  return dice;
}

void GameServiceImpl::ServeCreateGameOnWire() {
  MarkMethodStreamed(
      kCreateGameMethod,
      new grpc::internal::StreamedUnaryHandler<grpc::ByteBuffer,
                                               v1::CreateGameResponse>(
          [this](grpc::ServerContext* context,
                 grpc::ServerUnaryStreamer<grpc::ByteBuffer,
                                           v1::CreateGameResponse>* stream) {
            grpc::ByteBuffer wire;
            if (!stream->Read(&wire)) {
              return UndecodableRequest(kCreateGameMethodName);
            }
            v1::CreateGameResponse response;
            grpc::Status status = CreateGameOnWire(context, wire, &response);
            // With the status, in one batch, as gRPC's unary handlers send.
            if (status.ok()) {
              stream->WriteLast(response, grpc::WriteOptions());
            }
            return status;
          }));
}

grpc::Status GameServiceImpl::CreateGameOnWire(
    grpc::ServerContext* context, grpc::ByteBuffer& wire,
    v1::CreateGameResponse* response) {
  // Admitted by its size on the wire, before anything is parsed. Then, in
  // the order the generated handler gave: a request that does not decode
  // is refused so before its credential is looked at.
  RequestBudget::Admission admission;
  grpc::Status admitted =
      ToGrpcStatus(AdmitBytes(budget_, static_cast<std::int64_t>(wire.Length()),
                              "CreateGame", admission));
  if (!admitted.ok()) return admitted;
  CreateGameSkeleton read;
  CreateGameWire kind;
  // Read without taking the buffer's bytes (the whole parse may follow),
  // and without a copy of them unless the clans are too many.
  kind = ReadCreateGameSkeleton(
      [&wire] { return std::make_unique<grpc::ProtoBufferReader>(&wire); },
      kSkeletonClans, read);
  if (kind == CreateGameWire::kUndecodable) {
    return UndecodableRequest(kCreateGameMethodName);
  }
  if (kind == CreateGameWire::kSkeleton) {
    grpc::Status refused = RefuseBySkeleton(*context, read);
    if (!refused.ok()) return refused;
  }
  read = CreateGameSkeleton();
  grpc::Status affordable =
      CheckParseCost(wire, *v1::CreateGameRequest::descriptor(), "CreateGame");
  if (!affordable.ok()) return affordable;
  v1::CreateGameRequest request;
  {
    WireRequestStream stream(wire);
    if (!request.ParseFromZeroCopyStream(&stream)) {
      return UndecodableRequest(kCreateGameMethodName);
    }
  }
  auto caller = Authenticate(*context, nullptr);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return CreateParsedGame(request, response);
}

grpc::Status GameServiceImpl::RefuseBySkeleton(
    const grpc::ServerContext& context, const CreateGameSkeleton& read) {
  // Millions of clans, every one of which decodes. The skeleton meets every
  // check before the engine as the request would (no clan holds an enum or
  // names the ruleset), and the engine refuses its count, which the
  // request's only makes larger. Any other verdict is left to the whole
  // parse.
  auto caller = Authenticate(context, nullptr);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  bool at_engine = false;
  auto checked = CheckCreate(read.skeleton, at_engine);
  if (!checked.ok() && !at_engine) return ToGrpcStatus(checked.status());
  if (!checked.ok()) {
    const std::string refusal = ClanCountRefusalFor(checked.status().message(),
                                                    kSkeletonClans, read.clans);
    if (!refusal.empty()) {
      return ToGrpcStatus(absl::InvalidArgumentError(refusal));
    }
  }
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::CreateGame(grpc::ServerContext* context,
                                         const v1::CreateGameRequest* request,
                                         v1::CreateGameResponse* response) {
  auto caller = Authenticate(*context, nullptr);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(*request, "CreateGame", admission);
  if (!admitted.ok()) return admitted;
  return CreateParsedGame(*request, response);
}

absl::StatusOr<GameServiceImpl::CreateChecks> GameServiceImpl::CheckCreate(
    const v1::CreateGameRequest& request, bool& at_engine) {
  at_engine = false;
  // An enum number the schema does not name would be stored and read as
  // whatever the code falls back to (record policy, recorded dice).
  absl::Status known = replay::CheckKnownEnums(request);
  if (!known.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(known.message(), "; nothing was created"));
  }
  // The order of battle must be usable under the ruleset the header names.
  GUNBAI_ASSIGN_OR_RETURN(auto ruleset, rulesets_->ForLog(request.header()));
  at_engine = true;
  GUNBAI_ASSIGN_OR_RETURN(auto engine, EngineFor(request, *ruleset));
  return CreateChecks{ruleset, std::move(engine)};
}

absl::StatusOr<GameRecord> GameServiceImpl::NewRecord(
    const v1::CreateGameRequest& request,
    const replay::LoadedRuleset& ruleset) {
  GameRecord record;
  record.game_id = request.header().game_id();
  if (record.game_id.empty()) {
    GUNBAI_ASSIGN_OR_RETURN(std::string raw, RandomBytes(8));
    record.game_id = absl::StrCat("game-", absl::BytesToHexString(raw));
  }
  if (!ValidGameId(record.game_id)) {
    return absl::InvalidArgumentError(
        "header.game_id: a game id is 1 to 64 letters, digits, '-', '_' or "
        "'.'");
  }
  record.header = request.header();
  record.header.set_game_id(record.game_id);
  record.order_of_battle = request.order_of_battle();
  if (request.has_table()) *record.field.mutable_table() = request.table();
  *record.field.mutable_terrain() = request.terrain();
  GUNBAI_ASSIGN_OR_RETURN(record.settings,
                          replay::NewGameSettings(request.settings(), ruleset));
  GUNBAI_ASSIGN_OR_RETURN(std::string secret, RandomBytes(32));
  record.secret_hex = absl::BytesToHexString(secret);
  record.dice.set_secret_sha256(base::Sha256Hex(secret));
  GUNBAI_RETURN_IF_ERROR(replay::CheckPlayerSeeds(request.player_seeds()));
  *record.dice.mutable_player_seeds() = request.player_seeds();
  return record;
}

grpc::Status GameServiceImpl::CreateParsedGame(
    const v1::CreateGameRequest& request, v1::CreateGameResponse* response) {
  bool at_engine = false;
  auto checked = CheckCreate(request, at_engine);
  if (!checked.ok()) return ToGrpcStatus(checked.status());
  absl::StatusOr<GameRecord> record = NewRecord(request, *checked->ruleset);
  if (!record.ok()) return ToGrpcStatus(record.status());
  for (const std::string& clan : checked->engine->state().clans) {
    auto token = NewToken();
    if (!token.ok()) return ToGrpcStatus(token.status());
    record->credential_hashes.emplace_back(clan, TokenHash(*token));
    v1::PlayerCredential* credential = response->add_credentials();
    credential->set_clan(clan);
    credential->set_token(*token);
  }
  absl::Status stored = store_->CreateGame(*record);
  CountStoreError(StoreOperation::kCreate, stored);
  if (!stored.ok()) {
    response->Clear();
    return ToGrpcStatus(stored);
  }
  response->set_game_id(record->game_id);
  *response->mutable_dice() = DiceFor(*record);
  *response->mutable_settings() = record->settings;
  response->set_head_hash(GenesisOf(*record));
  return grpc::Status::OK;
}

void GameServiceImpl::ServeAppendEventsAsBytes() {
  MarkMethodStreamed(
      kAppendEventsMethod,
      new grpc::internal::StreamedUnaryHandler<grpc::ByteBuffer,
                                               grpc::ByteBuffer>(
          [this](grpc::ServerContext* context,
                 grpc::ServerUnaryStreamer<grpc::ByteBuffer, grpc::ByteBuffer>*
                     stream) { return AppendEventsAsBytes(context, stream); }));
}

grpc::Status GameServiceImpl::AppendEventsAsBytes(
    grpc::ServerContext* context,
    grpc::ServerUnaryStreamer<grpc::ByteBuffer, grpc::ByteBuffer>* stream) {
  constexpr absl::string_view kMethod = "/gunbai.v1.GameService/AppendEvents";
  grpc::ByteBuffer wire;
  if (!stream->Read(&wire)) return UndecodableRequest(kMethod);
  // Refused before it is parsed when its parse would cost too much (the
  // size budget admits it again, parsed, in AnswerAppend).
  grpc::Status affordable = CheckParseCost(
      wire, *v1::AppendEventsRequest::descriptor(), "AppendEvents");
  if (!affordable.ok()) return affordable;
  v1::AppendEventsRequest request;
  {
    WireRequestStream bytes(wire);
    if (!request.ParseFromZeroCopyStream(&bytes)) {
      return UndecodableRequest(kMethod);
    }
  }
  std::string answer;
  grpc::Status s = AnswerAppend(context, request, answer);
  if (!s.ok()) return s;
  // With the status, in one batch, as gRPC's unary handlers send.
  stream->WriteLast(SendableAnswer(std::move(answer)), grpc::WriteOptions());
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::AppendEvents(
    grpc::ServerContext* context, const v1::AppendEventsRequest* request,
    v1::AppendEventsResponse* response) {
  // The events are moved out of the request, not copied (Append): a caller
  // in process gives a request it reads no more.
  std::string answer;
  grpc::Status s = AnswerAppend(
      context, const_cast<v1::AppendEventsRequest&>(*request), answer);
  if (!s.ok()) return s;
  if (!response->ParseFromString(answer)) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "an append's answer does not parse");
  }
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::AnswerAppend(grpc::ServerContext* context,
                                           v1::AppendEventsRequest& request,
                                           std::string& answer) {
  RequestBudget::Admission admission;
  grpc::Status admitted = Admit(request, "AppendEvents", admission);
  if (!admitted.ok()) return admitted;
  absl::Status valid = ValidateBatch(request);
  if (!valid.ok()) return ToGrpcStatus(valid);
  Caller caller;
  auto game = Authorized(context, request.game_id(), &caller);
  if (!game.ok()) return ToGrpcStatus(game.status());
  absl::MutexLock lock(&(*game)->mu);
  if (absl::Status s = Refresh(**game); !s.ok()) return ToGrpcStatus(s);
  if (!(*game)->ruleset_problem.ok()) {
    return ToGrpcStatus((*game)->ruleset_problem);
  }
  absl::Status s = Append(**game, caller, request, answer);
  if (!s.ok()) {
    answer.clear();
    return ToGrpcStatus(s);
  }
  (*game)->changed.SignalAll();
  return grpc::Status::OK;
}

class GameServiceImpl::StoreJournal final : public replay::LiveGameJournal {
 public:
  StoreJournal(GameServiceImpl* service, LiveGame& game)
      : service_(service), game_(game) {}

  absl::StatusOr<std::optional<std::string>> FindBatch(
      absl::string_view first_event_id) override {
    return service_->store_->FindBatch(game_.id, first_event_id);
  }
  absl::Status CatchUp() override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return service_->CatchUp(game_);
  }
  absl::StatusOr<uint64_t> NextDiceAttempt() override {
    return service_->store_->NextDiceAttempt(game_.id);
  }
  absl::StatusOr<std::optional<std::string>> Append(
      uint64_t expected_version, const std::vector<v1::StoredEvent>& events,
      absl::string_view answer) override {
    const absl::Time start = absl::Now();
    auto result =
        service_->store_->Append(game_.id, expected_version, events, answer);
    if (!result.ok()) {
      return CountStoreError(StoreOperation::kAppend, result.status());
    }
    if (result->stored_answer.has_value()) return result->stored_answer;
    ProcessMetrics().RecordAppend(absl::Now() - start);
    return std::nullopt;
  }
  absl::Status MarkEnded() override {
    return service_->store_->MarkEnded(game_.id);
  }

 private:
  GameServiceImpl* service_;
  LiveGame& game_;
};

absl::Status GameServiceImpl::Append(LiveGame& game, const Caller& caller,
                                     v1::AppendEventsRequest& request,
                                     std::string& answer) {
  StoreJournal journal(this, game);
  const replay::LiveAppender appender{&game.record.settings, caller.umpire,
                                      caller.clan};
  GUNBAI_ASSIGN_OR_RETURN(
      replay::AppendedBatch batch,
      replay::AppendToLiveGame(game.live, appender, journal, request));
  answer = std::move(batch.answer);
  if (batch.retried) return absl::OkStatus();
  ProcessMetrics().AddEventsReplayed(batch.events);
  for (int i = batch.first_finding; i < game.live.findings.size(); ++i) {
    ProcessMetrics().AddFindings(game.live.findings[i].rule_id(), 1);
  }
  if (batch.ended) game.record.ended = true;
  MaybeCheckpoint(game, batch.version_before);
  return absl::OkStatus();
}

void GameServiceImpl::FillRead(const LiveGame& game,
                               v1::ReadEventsResponse& response) {
  response.set_version(game.live.event_ids.size());
  response.set_head_hash(game.live.chain_hashes.empty()
                             ? GenesisOf(game.record)
                             : game.live.chain_hashes.back());
  *response.mutable_settings() = game.record.settings;
  *response.mutable_dice() = DiceFor(game.record);
  *response.mutable_header() = game.record.header;
  *response.mutable_order_of_battle() = game.record.order_of_battle;
}

grpc::Status GameServiceImpl::ReadEvents(grpc::ServerContext* context,
                                         const v1::ReadEventsRequest* request,
                                         v1::ReadEventsResponse* response) {
  Caller caller;
  auto game = Authorized(context, request->game_id(), &caller);
  if (!game.ok()) return ToGrpcStatus(game.status());
  auto page = store_->ReadEventPage(request->game_id(), request->from_seq(),
                                    kPageBytes);
  if (!page.ok()) return ToGrpcStatus(page.status());
  absl::ReaderMutexLock lock(&(*game)->mu);
  FillRead(**game, *response);
  for (v1::StoredEvent& e : page->events) {
    *response->add_events() = std::move(e);
  }
  response->set_next_seq(page->next_seq);
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::GetGameState(
    grpc::ServerContext* context, const v1::GetGameStateRequest* request,
    v1::GetGameStateResponse* response) {
  return ReadGame(context, request->game_id(), Needs::kRules,
                  [&](const LiveGame& g) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                    if (request->at_seq() == 0) {
                      // The state after the last event is the live replay's,
                      // kept since the load (from a checkpoint or the first
                      // event) and every append.
                      *response->mutable_state() =
                          replay::SnapshotFromState(g.live.engine->state());
                      return grpc::Status::OK;
                    }
                    std::optional<uint64_t> at = request->at_seq();
                    auto state =
                        replay::StateAt(g.live.log, *g.live.ruleset, at);
                    if (!state.ok()) return ToGrpcStatus(state.status());
                    *response->mutable_state() = *std::move(state);
                    return grpc::Status::OK;
                  });
}

grpc::Status GameServiceImpl::GetProof(grpc::ServerContext* context,
                                       const v1::GetProofRequest* request,
                                       v1::GetProofResponse* response) {
  return ReadGame(
      context, request->game_id(), Needs::kEvents,
      [&](const LiveGame& g) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        const replay::MerkleTree& tree = g.live.tree;
        const std::uint64_t size =
            request->tree_size() == 0 ? tree.size() : request->tree_size();
        if (size > tree.size()) {
          return grpc::Status(grpc::StatusCode::OUT_OF_RANGE,
                              absl::StrCat("game ", g.id, " has ", tree.size(),
                                           " events, not ", size, " yet"));
        }
        response->set_tree_size(size);
        response->set_root_hash(replay::MerkleHex(*tree.Root(size)));
        if (request->seq() != 0) {
          const auto& events = g.live.log.events();
          const auto it =
              std::lower_bound(events.begin(), events.end(), request->seq(),
                               [](const v1::Event& e, std::uint64_t seq) {
                                 return e.seq() < seq;
                               });
          const std::uint64_t index =
              static_cast<std::uint64_t>(it - events.begin());
          if (it == events.end() || it->seq() != request->seq() ||
              index >= size) {
            return grpc::Status(
                grpc::StatusCode::NOT_FOUND,
                absl::StrCat("no event of seq ", request->seq(),
                             " among the first ", size, " of game ", g.id));
          }
          response->set_leaf_index(index);
          response->set_leaf_hash(replay::MerkleHex(tree.LeafHash(index)));
          const absl::StatusOr<std::vector<replay::MerkleHash>> path =
              tree.InclusionProof(index, size);
          if (!path.ok()) return ToGrpcStatus(path.status());
          for (const replay::MerkleHash& h : *path) {
            response->add_inclusion(replay::MerkleHex(h));
          }
        }
        if (request->first_size() != 0) {
          absl::StatusOr<std::vector<replay::MerkleHash>> proof =
              tree.ConsistencyProof(request->first_size(), size);
          if (!proof.ok()) {
            return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                std::string(proof.status().message()));
          }
          response->set_first_size(request->first_size());
          response->set_first_root_hash(
              replay::MerkleHex(*tree.Root(request->first_size())));
          for (const replay::MerkleHash& h : *proof) {
            response->add_consistency(replay::MerkleHex(h));
          }
        }
        return grpc::Status::OK;
      });
}

namespace {

// The number of events up to the end of turn `turn` of `events` (in seq
// order), or nullopt when the game has not gone past it: no later turn's
// event, nor the umpire's turn_end or the game_end of that turn.
std::optional<std::uint64_t> EventsThroughTurn(
    const google::protobuf::RepeatedPtrField<v1::Event>& events,
    std::uint32_t turn) {
  std::uint64_t size = 0;
  bool ended = false;
  for (const v1::Event& e : events) {
    if (e.turn() > turn) {
      ended = true;
      break;
    }
    ++size;
    if (e.turn() == turn &&
        ((e.has_turn_end() && e.clan().empty()) || e.has_game_end())) {
      ended = true;
    }
  }
  if (!ended) return std::nullopt;
  return size;
}

}  // namespace

grpc::Status GameServiceImpl::CheckpointOf(grpc::ServerContext* context,
                                           const std::string& game_id,
                                           std::uint32_t turn,
                                           v1::GetCheckpointResponse* response,
                                           std::vector<std::string>* clans) {
  if (!signer_.has_value()) {
    return grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        "this gunbaid signs no checkpoints: start it with "
        "--signing-key-file=FILE (a key `gunbai key --new NAME` writes)");
  }
  return ReadGame(
      context, game_id, Needs::kEvents,
      [&](const LiveGame& g) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        const replay::MerkleTree& tree = g.live.tree;
        std::uint64_t size = tree.size();
        if (turn != 0) {
          const std::optional<std::uint64_t> through =
              EventsThroughTurn(g.live.log.events(), turn);
          if (!through.has_value()) {
            return grpc::Status(
                grpc::StatusCode::FAILED_PRECONDITION,
                absl::StrCat("turn ", turn, " of game ", g.id,
                             " has not ended: its checkpoint is issued once "
                             "the umpire's turn_end or a later turn's event "
                             "is accepted"));
          }
          size = *through;
        }
        const replay::MerkleHash root = *tree.Root(size);
        const std::string origin = absl::StrCat(signer_->name, "/", g.id);
        absl::StatusOr<std::string> note = replay::SignNote(
            replay::CheckpointText(origin, size, root), *signer_);
        if (!note.ok()) return ToGrpcStatus(note.status());
        response->set_origin(origin);
        response->set_tree_size(size);
        response->set_root_hash(replay::MerkleHex(root));
        response->set_checkpoint(*std::move(note));
        response->set_verifier_key(replay::VerifierKeyText(*signer_));
        response->set_turn(turn);
        for (const v1::Clan& c : g.live.log.header().clans()) {
          clans->push_back(c.id());
        }
        return grpc::Status::OK;
      });
}

// Adds to `response` (a turn's checkpoint) the players' keys and the
// cosignatures `witnesses` holds of its tree size, in `clans` order.
void AddWitnessing(const GameWitnesses& witnesses,
                   const std::vector<std::string>& clans,
                   v1::GetCheckpointResponse& response) {
  for (const auto& [clan, key] : witnesses.keys) {
    v1::PlayerCheckpointKey* k = response.add_player_keys();
    k->set_clan(clan);
    k->set_verifier_key(key);
  }
  if (response.turn() == 0) return;
  std::string cosigned = response.checkpoint();
  for (const std::string& clan : clans) {
    const auto it = std::find_if(
        witnesses.cosignatures.begin(), witnesses.cosignatures.end(),
        [&](const StoredCosignature& c) {
          return c.clan == clan && c.tree_size == response.tree_size();
        });
    if (it == witnesses.cosignatures.end()) {
      response.add_waiting_for(clan);
      continue;
    }
    response.add_cosigned_by(clan);
    cosigned += it->signature_line;
  }
  response.set_cosigned_checkpoint(cosigned);
  response.set_agreed(response.waiting_for().empty() && !clans.empty());
}

grpc::Status GameServiceImpl::GetCheckpoint(
    grpc::ServerContext* context, const v1::GetCheckpointRequest* request,
    v1::GetCheckpointResponse* response) {
  std::vector<std::string> clans;
  grpc::Status s = CheckpointOf(context, request->game_id(), request->turn(),
                                response, &clans);
  if (!s.ok()) return s;
  absl::StatusOr<GameWitnesses> witnesses =
      store_->ReadWitnesses(request->game_id());
  if (!witnesses.ok()) return ToGrpcStatus(witnesses.status());
  AddWitnessing(*witnesses, clans, *response);
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::ListCheckpoints(
    grpc::ServerContext* context, const v1::ListCheckpointsRequest* request,
    v1::ListCheckpointsResponse* response) {
  // The turns that have ended: up to the last event's turn.
  std::uint32_t last_turn = 0;
  grpc::Status s =
      ReadGame(context, request->game_id(), Needs::kEvents,
               [&](const LiveGame& g) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                 const auto& events = g.live.log.events();
                 if (!events.empty())
                   last_turn = events[events.size() - 1].turn();
                 return grpc::Status::OK;
               });
  if (!s.ok()) return s;
  absl::StatusOr<GameWitnesses> witnesses =
      store_->ReadWitnesses(request->game_id());
  if (!witnesses.ok()) return ToGrpcStatus(witnesses.status());
  for (std::uint32_t turn = 1; turn <= last_turn; ++turn) {
    v1::GetCheckpointResponse one;
    std::vector<std::string> clans;
    s = CheckpointOf(context, request->game_id(), turn, &one, &clans);
    if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION &&
        signer_.has_value()) {
      break;  // The last turn, still open.
    }
    if (!s.ok()) return s;
    AddWitnessing(*witnesses, clans, one);
    *response->add_turns() = std::move(one);
  }
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::RegisterCheckpointKey(
    grpc::ServerContext* context,
    const v1::RegisterCheckpointKeyRequest* request,
    v1::RegisterCheckpointKeyResponse* response) {
  Caller caller;
  auto game = Authorized(context, request->game_id(), &caller);
  if (!game.ok()) return ToGrpcStatus(game.status());
  if (caller.umpire || caller.clan.empty()) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "checkpoint keys are the players': sign in with a "
                        "clan's credential");
  }
  absl::StatusOr<replay::NoteVerifier> key =
      replay::ParseVerifierKey(request->verifier_key());
  if (!key.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("verifier_key: ", key.status().message(),
                                     " (`gunbai key --new NAME` prints one)"));
  }
  absl::Status stored = store_->RegisterWitnessKey(
      request->game_id(), caller.clan, request->verifier_key());
  if (!stored.ok()) return ToGrpcStatus(stored);
  response->set_clan(caller.clan);
  response->set_verifier_key(request->verifier_key());
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::CosignCheckpoint(
    grpc::ServerContext* context, const v1::CosignCheckpointRequest* request,
    v1::CosignCheckpointResponse* response) {
  Caller caller;
  {
    auto game = Authorized(context, request->game_id(), &caller);
    if (!game.ok()) return ToGrpcStatus(game.status());
  }
  if (caller.umpire || caller.clan.empty()) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "the players cosign checkpoints: sign in with a "
                        "clan's credential");
  }
  if (request->turn() == 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "cosign a turn's checkpoint: give the turn");
  }
  v1::GetCheckpointResponse& checkpoint = *response->mutable_checkpoint();
  std::vector<std::string> clans;
  grpc::Status s = CheckpointOf(context, request->game_id(), request->turn(),
                                &checkpoint, &clans);
  if (!s.ok()) return s;
  absl::StatusOr<GameWitnesses> witnesses =
      store_->ReadWitnesses(request->game_id());
  if (!witnesses.ok()) return ToGrpcStatus(witnesses.status());
  const auto mine =
      std::find_if(witnesses->keys.begin(), witnesses->keys.end(),
                   [&](const auto& k) { return k.first == caller.clan; });
  if (mine == witnesses->keys.end()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        absl::StrCat("clan ", caller.clan,
                                     " has registered no checkpoint key in "
                                     "this game: register it first "
                                     "(RegisterCheckpointKey)"));
  }
  absl::StatusOr<replay::NoteVerifier> player =
      replay::ParseVerifierKey(mine->second);
  absl::StatusOr<replay::NoteVerifier> daemon =
      replay::ParseVerifierKey(checkpoint.verifier_key());
  if (!player.ok() || !daemon.ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "a stored checkpoint key does not parse");
  }
  absl::StatusOr<std::string> text =
      replay::OpenNote(request->cosigned(), {*daemon, *player});
  if (!text.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("the cosigned checkpoint does not open: ",
                                     text.status().message()));
  }
  const std::size_t blank = checkpoint.checkpoint().find("\n\n");
  if (*text != checkpoint.checkpoint().substr(0, blank + 1)) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("the cosigned note is not this daemon's checkpoint of "
                     "turn ",
                     request->turn(), " (", checkpoint.tree_size(),
                     " events, root ", checkpoint.root_hash(), ")"));
  }
  absl::StatusOr<std::string> line =
      replay::SignatureLineOf(request->cosigned(), *player);
  if (!line.ok()) return ToGrpcStatus(line.status());
  StoredCosignature cosignature;
  cosignature.clan = caller.clan;
  cosignature.tree_size = checkpoint.tree_size();
  cosignature.signature_line = *std::move(line);
  absl::Status stored = store_->AddCosignature(request->game_id(), cosignature);
  if (!stored.ok()) return ToGrpcStatus(stored);
  // Read again: what the store now holds, this cosignature included.
  witnesses = store_->ReadWitnesses(request->game_id());
  if (!witnesses.ok()) return ToGrpcStatus(witnesses.status());
  AddWitnessing(*witnesses, clans, checkpoint);
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::GetLegalActions(
    grpc::ServerContext* context, const v1::GetLegalActionsRequest* request,
    v1::GetLegalActionsResponse* response) {
  Caller caller;
  auto game = Authorized(context, request->game_id(), &caller);
  if (!game.ok()) return ToGrpcStatus(game.status());
  LiveGame& g = **game;
  // Exclusive, not shared: listing the actions measures on the live
  // replayer's table, whose shape cache (rules::ShapeCache) a measurement
  // fills in, so two listings at once would write it together.
  absl::MutexLock lock(&g.mu);
  if (!g.ruleset_problem.ok()) return ToGrpcStatus(g.ruleset_problem);
  if (!g.live.loaded || g.live.engine == nullptr) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "the game is being loaded; ask again");
  }
  absl::StatusOr<std::string> clan = replay::ClanToList(
      g.live.log.header(), g.id, caller.umpire, caller.clan, request->clan());
  if (!clan.ok()) return ToGrpcStatus(clan.status());
  replay::LegalActionsGame legal;
  legal.log = &g.live.log;
  legal.settings = &g.record.settings;
  legal.ruleset = g.live.ruleset;
  legal.engine = g.live.engine.get();
  legal.version = g.live.event_ids.size();
  legal.ended = g.record.ended;
  legal.umpire = caller.umpire;
  legal.clan = *clan;
  auto answer = replay::ListLegalActions(legal);
  if (!answer.ok()) return ToGrpcStatus(answer.status());
  *response = *std::move(answer);
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::AuditGame(grpc::ServerContext* context,
                                        const v1::AuditGameRequest* request,
                                        v1::AuditGameResponse* response) {
  return ReadGame(
      context, request->game_id(), Needs::kRules,
      [&](const LiveGame& g) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        replay::AuditOptions options;
        // The replay asks now and then whether the client still waits.
        options.cancelled = [context] { return context->IsCancelled(); };
        auto report = replay::AuditLog(g.live.log, *g.live.ruleset, options);
        if (!report.ok()) return ToGrpcStatus(report.status());
        if (request->impact()) {
          absl::Status impact =
              replay::AddImpacts(g.live.log, *g.live.ruleset, *report,
                                 /*branch_logs=*/nullptr, options.cancelled);
          if (!impact.ok()) return ToGrpcStatus(impact);
        }
        *response->mutable_report() = *std::move(report);
        return grpc::Status::OK;
      });
}

grpc::Status GameServiceImpl::ExportGame(grpc::ServerContext* context,
                                         const v1::ExportGameRequest* request,
                                         v1::ExportGameResponse* response) {
  return ReadGame(context, request->game_id(), Needs::kEvents,
                  [&](const LiveGame& g) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                    return ExportPage(g, *request, *response);
                  });
}

grpc::Status GameServiceImpl::ExportPage(
    const LiveGame& g, const v1::ExportGameRequest& request,
    v1::ExportGameResponse& response) const {
  const auto& events = g.live.log.events();
  const int first = FirstEventFrom(g, request.from_seq());
  // A page: kPageBytes of events with their ids and hashes, at least one.
  int end = first;
  for (size_t bytes = 0; end < events.size(); ++end) {
    const size_t size = events[end].ByteSizeLong() +
                        g.live.event_ids[end].size() +
                        g.live.chain_hashes[end].size();
    if (end > first && bytes + size > kPageBytes) break;
    bytes += size;
  }
  v1::ExportedGame* out = response.mutable_game();
  if (first == 0) {
    *out->mutable_log()->mutable_header() = g.live.log.header();
    *out->mutable_log()->mutable_order_of_battle() =
        g.live.log.order_of_battle();
    if (g.live.log.has_table())
      *out->mutable_log()->mutable_table() = g.live.log.table();
    *out->mutable_log()->mutable_terrain() = g.live.log.terrain();
  }
  *out->mutable_settings() = g.record.settings;
  *out->mutable_dice() = DiceFor(g.record);
  for (int i = first; i < end; ++i) {
    *out->mutable_log()->add_events() = events[i];
    out->add_event_ids(g.live.event_ids[i]);
    out->add_chain_hashes(g.live.chain_hashes[i]);
    out->add_dice_attempts(g.live.dice_attempts[i]);
  }
  if (end < events.size()) response.set_next_seq(events[end].seq());
  return grpc::Status::OK;
}

grpc::Status GameServiceImpl::ListGames(grpc::ServerContext* context,
                                        const v1::ListGamesRequest* request,
                                        v1::ListGamesResponse* response) {
  auto caller = Authenticate(*context, nullptr);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  auto ids = store_->ListGames();
  if (!ids.ok()) {
    CountStoreError(StoreOperation::kList, ids.status());
    return ToGrpcStatus(ids.status());
  }
  const int page_size =
      request->page_size() == 0 || request->page_size() > kMaxListedGames
          ? kMaxListedGames
          : static_cast<int>(request->page_size());
  std::string after;
  if (!request->page_token().empty()) {
    auto last = GameIdOfPageToken(umpire_hash_, request->page_token());
    if (!last.ok()) return ToGrpcStatus(last.status());
    after = *std::move(last);
  }
  // Ids are sorted: a page starts after the last id of the previous one.
  auto it = std::upper_bound(ids->begin(), ids->end(), after);
  for (; it != ids->end() && response->games_size() < page_size; ++it) {
    auto record = store_->GetGame(*it);
    if (!record.ok()) return ToGrpcStatus(record.status());
    auto version = store_->Version(*it);
    if (!version.ok()) return ToGrpcStatus(version.status());
    v1::GameListing* listing = response->add_games();
    listing->set_game_id(*it);
    listing->set_version(*version);
    listing->set_ended(record->ended);
  }
  if (it != ids->end()) {
    response->set_next_page_token(PageTokenAfter(umpire_hash_, *std::prev(it)));
  }
  return grpc::Status::OK;
}

int GameServiceImpl::FirstEventFrom(const LiveGame& game, uint64_t seq) {
  // Seqs increase through the stored game.
  const auto& events = game.live.log.events();
  return static_cast<int>(
      std::lower_bound(events.begin(), events.end(), seq,
                       [](const v1::Event& event, uint64_t wanted) {
                         return event.seq() < wanted;
                       }) -
      events.begin());
}

std::vector<v1::StoredEvent> GameServiceImpl::EventsFrom(const LiveGame& game,
                                                         uint64_t next) {
  const auto& events = game.live.log.events();
  const int first = FirstEventFrom(game, next);
  const int end = std::min(events.size(), first + kWatchBatch);
  std::vector<v1::StoredEvent> fresh;
  if (first >= end) return fresh;
  // The findings of those events, in one pass.
  const uint64_t last_seq = events[end - 1].seq();
  absl::flat_hash_map<uint64_t, std::vector<const v1::Finding*>> findings;
  for (const v1::Finding& f : game.live.findings) {
    if (f.seq() >= next && f.seq() <= last_seq) {
      findings[f.seq()].push_back(&f);
    }
  }
  fresh.reserve(end - first);
  for (int i = first; i < end; ++i) {
    v1::StoredEvent& e = fresh.emplace_back();
    *e.mutable_event() = events[i];
    e.set_event_id(game.live.event_ids[i]);
    e.set_chain_hash(game.live.chain_hashes[i]);
    e.set_dice_attempt(game.live.dice_attempts[i]);
    auto found = findings.find(events[i].seq());
    if (found == findings.end()) continue;
    for (const v1::Finding* f : found->second) *e.add_findings() = *f;
  }
  return fresh;
}

grpc::Status GameServiceImpl::WatchGame(
    grpc::ServerContext* context, const v1::WatchGameRequest* request,
    grpc::ServerWriter<v1::WatchGameResponse>* writer) {
  Caller caller;
  auto game = Authorized(context, request->game_id(), &caller);
  if (!game.ok()) return ToGrpcStatus(game.status());
  LiveGame& g = **game;
  {
    absl::ReaderMutexLock lock(&g.mu);
    if (!g.ruleset_problem.ok()) return ToGrpcStatus(g.ruleset_problem);
  }
  // Held until the watch ends; a client that vanishes is cut off by the
  // server's keepalive, which cancels the call and frees the slot.
  auto slot = watchers_.Take(g.id);
  if (!slot.ok()) return ToGrpcStatus(slot.status());
  uint64_t next = std::max<uint64_t>(request->from_seq(), 1);
  while (!context->IsCancelled() && !shutting_down_) {
    std::vector<v1::StoredEvent> fresh;
    bool ended = false;
    grpc::Status waited = WaitForEvents(g, next, fresh, ended);
    if (!waited.ok()) return waited;
    AddStoredOutcomes(g.id, fresh);
    for (v1::StoredEvent& e : fresh) {
      next = e.event().seq() + 1;
      v1::WatchGameResponse response;
      *response.mutable_event() = std::move(e);
      if (!writer->Write(response)) return grpc::Status::CANCELLED;
    }
    if (ended && fresh.empty()) return grpc::Status::OK;
  }
  if (context->IsCancelled()) return grpc::Status::CANCELLED;
  // The client must not take the end of a stopping daemon's stream for the
  // end of the game.
  return grpc::Status(
      grpc::StatusCode::UNAVAILABLE,
      absl::StrFormat("gunbaid is stopping: the watch of game %s ends before "
                      "the game does; watch again from seq %d once it is "
                      "back",
                      g.id, next));
}

grpc::Status GameServiceImpl::WaitForEvents(LiveGame& g, uint64_t next,
                                            std::vector<v1::StoredEvent>& fresh,
                                            bool& ended) {
  absl::MutexLock lock(&g.mu);
  if (g.live.last_seq() < next) {
    g.changed.WaitWithTimeout(&g.mu, absl::Milliseconds(200));
  }
  if (absl::Status s = Refresh(g); !s.ok()) {
    return grpc::Status(
        grpc::StatusCode::UNAVAILABLE,
        absl::StrFormat("the watch of game %s could not read the store "
                        "(%s); watch again from seq %d",
                        g.id, s.message(), next));
  }
  fresh = EventsFrom(g, next);
  ended = g.record.ended;
  return grpc::Status::OK;
}

void GameServiceImpl::AddStoredOutcomes(const std::string& game_id,
                                        std::vector<v1::StoredEvent>& events) {
  if (events.empty()) return;
  // The cache keeps no outcomes (they would cost memory for every event of
  // every cached game): the store's copy of each event has them.
  const uint64_t last_seq = events.back().event().seq();
  uint64_t from = events.front().event().seq();
  size_t i = 0;
  while (from != 0 && i < events.size()) {
    auto page = store_->ReadEventPage(game_id, from, kPageBytes);
    if (!page.ok()) return;  // The events go out without their outcomes.
    for (v1::StoredEvent& stored : page->events) {
      while (i < events.size() &&
             events[i].event().seq() < stored.event().seq()) {
        ++i;
      }
      if (i == events.size()) return;
      if (events[i].event().seq() == stored.event().seq()) {
        *events[i].mutable_outcomes() = std::move(*stored.mutable_outcomes());
      }
    }
    if (page->events.empty() || page->events.back().event().seq() >= last_seq) {
      return;
    }
    from = page->next_seq;
  }
}

}  // namespace gunbai::service
