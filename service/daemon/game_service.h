// gunbaid's GameService: live games whose events are checked on append,
// kept in a GameStore, chained for tamper evidence, and, in server dice
// mode, rolled by gunbaid from a committed secret. Thread-safe: calls on
// different games run in parallel; calls on one game are serialized by its
// lock. The in-memory replay of each game is a cache rebuilt from the store
// on demand. At most `max_cached_games` games are cached beyond those in use
// (pinned by a call, a watch included): past that the least recently used
// game not in use is dropped and rebuilt from the store when next read.
// Watches are limited in all and per game (WatcherSlots), and the requests
// that carry events are admitted by a RequestBudget when one is given.
#ifndef GUNBAI_SERVICE_DAEMON_GAME_SERVICE_H_
#define GUNBAI_SERVICE_DAEMON_GAME_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/sync_stream.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/live_game.h"
#include "replay/ruleset_loader.h"
#include "replay/signed_note.h"
#include "rules/engine.h"
#include "service/daemon/create_game_wire.h"
#include "service/daemon/overload.h"
#include "service/store/game_checkpoint.h"
#include "service/store/game_store.h"

namespace gunbai::service {

// Games gunbaid keeps replayed in memory, besides those in use
// (gunbaid --max-cached-games); 0 keeps every game read since start.
inline constexpr int kDefaultMaxCachedGames = 256;

class GameServiceImpl final : public gunbai::v1::GameService::Service {
 public:
  // `store` and `rulesets` must outlive the service; each game is replayed
  // under the ruleset its header names. `umpire_token` is the credential
  // that may create games and read and append to any game. At most
  // `max_watchers` watches run at once, `max_watchers_per_game` of one
  // game. `budget`, when not null, must outlive the service and admits
  // CreateGame and AppendEvents. At most `max_cached_games` games not in use
  // stay cached, besides those in use (0: no bound). An append that takes a
  // game past a multiple of `checkpoint_every` events stores a checkpoint
  // of its replay, and a game is loaded from its latest checkpoint (0: no
  // checkpoints are written or read; every load replays the whole game).
  GameServiceImpl(GameStore* store, const replay::RulesetCatalog* rulesets,
                  const std::string& umpire_token,
                  int max_watchers = kDefaultMaxWatchers,
                  int max_watchers_per_game = kDefaultMaxWatchersPerGame,
                  RequestBudget* budget = nullptr,
                  int max_cached_games = kDefaultMaxCachedGames,
                  int checkpoint_every = kDefaultCheckpointEvery);

  grpc::Status CreateGame(grpc::ServerContext* context,
                          const gunbai::v1::CreateGameRequest* request,
                          gunbai::v1::CreateGameResponse* response) override;
  // Over gRPC, AppendEvents is served by AppendEventsAsBytes; this is the
  // same call for callers in process (tests, fuzzing), the answer parsed.
  grpc::Status AppendEvents(
      grpc::ServerContext* context,
      const gunbai::v1::AppendEventsRequest* request,
      gunbai::v1::AppendEventsResponse* response) override;
  grpc::Status ReadEvents(grpc::ServerContext* context,
                          const gunbai::v1::ReadEventsRequest* request,
                          gunbai::v1::ReadEventsResponse* response) override;
  grpc::Status GetLegalActions(
      grpc::ServerContext* context,
      const gunbai::v1::GetLegalActionsRequest* request,
      gunbai::v1::GetLegalActionsResponse* response) override;
  grpc::Status GetProof(grpc::ServerContext* context,
                        const gunbai::v1::GetProofRequest* request,
                        gunbai::v1::GetProofResponse* response) override;
  grpc::Status GetCheckpoint(
      grpc::ServerContext* context,
      const gunbai::v1::GetCheckpointRequest* request,
      gunbai::v1::GetCheckpointResponse* response) override;
  grpc::Status RegisterCheckpointKey(
      grpc::ServerContext* context,
      const gunbai::v1::RegisterCheckpointKeyRequest* request,
      gunbai::v1::RegisterCheckpointKeyResponse* response) override;
  grpc::Status CosignCheckpoint(
      grpc::ServerContext* context,
      const gunbai::v1::CosignCheckpointRequest* request,
      gunbai::v1::CosignCheckpointResponse* response) override;
  grpc::Status ListCheckpoints(
      grpc::ServerContext* context,
      const gunbai::v1::ListCheckpointsRequest* request,
      gunbai::v1::ListCheckpointsResponse* response) override;
  // The key gunbaid signs checkpoints with (gunbaid --signing-key-file).
  // Call before serving; without it GetCheckpoint is refused.
  void SetCheckpointSigner(replay::NoteSigner signer) {
    signer_ = std::move(signer);
  }
  // The verifier key of the checkpoints ("" without a signing key).
  std::string CheckpointVerifierKey() const {
    return signer_.has_value() ? replay::VerifierKeyText(*signer_) : "";
  }
  grpc::Status GetGameState(
      grpc::ServerContext* context,
      const gunbai::v1::GetGameStateRequest* request,
      gunbai::v1::GetGameStateResponse* response) override;
  grpc::Status AuditGame(grpc::ServerContext* context,
                         const gunbai::v1::AuditGameRequest* request,
                         gunbai::v1::AuditGameResponse* response) override;
  // Streams the game's events from `from_seq` on, then each batch as it
  // lands, until game_end, the client goes away or the server stops.
  // RESOURCE_EXHAUSTED at once when the watches in all or of this game are
  // at their limit.
  grpc::Status WatchGame(
      grpc::ServerContext* context, const gunbai::v1::WatchGameRequest* request,
      grpc::ServerWriter<gunbai::v1::WatchGameResponse>* writer) override;
  grpc::Status ExportGame(grpc::ServerContext* context,
                          const gunbai::v1::ExportGameRequest* request,
                          gunbai::v1::ExportGameResponse* response) override;
  // Lists the stored games, a page at a time (umpire only).
  grpc::Status ListGames(grpc::ServerContext* context,
                         const gunbai::v1::ListGamesRequest* request,
                         gunbai::v1::ListGamesResponse* response) override;

  // Wakes every watcher so that a shutting-down server can end them.
  void Shutdown();

  // Stops the store's calls to this service.
  ~GameServiceImpl() override;

  // For tests: the ids of the games in the cache, sorted, and how many of
  // them are in use.
  std::vector<std::string> CachedGamesForTest();
  int PinnedGamesForTest();

  // What the loads of games and the checkpoints have done since start.
  struct CheckpointStats {
    int64_t rebuilds = 0;         // Games loaded from the store.
    int64_t events_replayed = 0;  // Events those loads applied.
    int64_t restored = 0;         // Loads that started from a checkpoint.
    int64_t refused = 0;          // Checkpoints found and not trusted.
    int64_t written = 0;          // Checkpoints stored after appends.
    int64_t write_failures = 0;   // Checkpoints that could not be stored.
  };
  CheckpointStats CheckpointStatsForTest();

 private:
  // Who is calling: the umpire, or the player of one clan of one game.
  struct Caller {
    bool umpire = false;
    std::string clan;
  };

  // One game's cache: its record, its log so far and its replay.
  struct LiveGame {
    explicit LiveGame(std::string game_id) : id(std::move(game_id)) {
      live.id = id;
    }
    const std::string id;
    absl::Mutex mu;
    absl::CondVar changed;
    GameRecord record ABSL_GUARDED_BY(mu);
    // The game's events and their replay under the ruleset its header
    // names, and the rules of an append (replay/live_game.h).
    replay::LiveGame live ABSL_GUARDED_BY(mu);
    // Not OK when this gunbaid's ruleset of the game's name is not the one
    // the game was created under (GameSettings.ruleset_digest): the game's
    // stored events are still read and exported, but nothing that needs the
    // rules (append, state, audit, watch) is done, and `live.engine` and
    // `live.ruleset` are null.
    absl::Status ruleset_problem ABSL_GUARDED_BY(mu);
    // Guarded by the service's games_mu_: the calls using the game (it is
    // not dropped while any is), and when it was last taken (use_count_).
    int pins = 0;
    uint64_t last_use = 0;
    // Set when the store says another process (another replica) may have
    // appended to the game: the next call reads what is new (CatchUp).
    std::atomic<bool> stale{false};
  };

  // A game taken from the cache for one call: it stays cached, its members
  // valid, until the pin is destroyed. Destroy it after releasing the
  // game's lock.
  class GamePin {
   public:
    GamePin(GameServiceImpl* service, LiveGame* game)
        : service_(service), game_(game) {}
    GamePin(GamePin&& other) noexcept
        : service_(other.service_), game_(other.game_) {
      other.game_ = nullptr;
    }
    GamePin& operator=(GamePin&& other) noexcept {
      if (this != &other) {
        if (game_ != nullptr) service_->Unpin(*game_);
        service_ = other.service_;
        game_ = other.game_;
        other.game_ = nullptr;
      }
      return *this;
    }
    GamePin(const GamePin&) = delete;
    ~GamePin() {
      if (game_ != nullptr) service_->Unpin(*game_);
    }
    LiveGame* operator->() const { return game_; }
    LiveGame& operator*() const { return *game_; }

   private:
    GameServiceImpl* service_;
    LiveGame* game_;
  };

  // The store as an append needs it (replay::LiveGameJournal), for one game
  // whose lock the caller holds; a store append times itself and counts its
  // errors in the metrics.
  class StoreJournal;

  absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context,
                                      const GameRecord* game) const;
  // Returns the game's cache, pinned, loading it from the store when
  // needed. NotFound for an unknown game. The game's lock is not held on
  // return.
  absl::StatusOr<GamePin> Load(const std::string& game_id);
  // Returns `game_id`'s cache entry, pinned, or null when there is none.
  LiveGame* PinCached(const std::string& game_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(games_mu_);
  void Unpin(LiveGame& game) ABSL_LOCKS_EXCLUDED(games_mu_);
  // Moves the least recently used games not in use out of the cache, into
  // `dropped`, until at most max_cached_games_ of those not in use remain.
  // The caller frees `dropped` after releasing games_mu_.
  void DropBeyondBound(std::vector<std::unique_ptr<LiveGame>>& dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(games_mu_);
  absl::Status Rebuild(LiveGame& game) ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  // Counts a game loaded again and the events it replayed.
  void CountRebuild(size_t events_replayed) ABSL_LOCKS_EXCLUDED(stats_mu_);
  // Brings a loaded game up to the store: replays the events another
  // process appended since it was read, or rebuilds it when they end the
  // game. Clears `stale` first, so that an append told after it is caught
  // by the next call.
  absl::Status CatchUp(LiveGame& game) ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  // Rebuilds a game not loaded, and catches up one marked stale.
  absl::Status Refresh(LiveGame& game) ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  // The store's listener: marks `game_id` stale (every game, when empty)
  // and wakes its watches.
  void MarkStale(const std::string& game_id) ABSL_LOCKS_EXCLUDED(games_mu_);
  // Restores `game`'s engine and findings from its latest checkpoint that
  // follows `events`, the game's stored events, and returns how many of
  // them it covers; 0, with the engine and findings as created, when there
  // is none or it is not trusted (its digest, its place in the chain or its
  // restore fails).
  absl::StatusOr<size_t> RestoreLatestCheckpoint(
      LiveGame& game, const std::vector<gunbai::v1::StoredEvent>& events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  // Stores a checkpoint of `game`'s replay when the append that took it
  // from `version_before` events crossed a multiple of checkpoint_every_.
  // A failure is counted, not returned: the append is already durable.
  void MaybeCheckpoint(LiveGame& game, uint64_t version_before)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  absl::StatusOr<GamePin> Authorized(grpc::ServerContext* context,
                                     const std::string& game_id,
                                     Caller* caller);
  // What a read of one game needs of it.
  enum class Needs { kEvents, kRules };
  // The prelude of a read of one game, written once: checks the caller's
  // credential for `game_id` (Authorized), takes the game's lock for
  // reading and, when the read needs the rules, refuses a game whose
  // ruleset this gunbaid lacks (LiveGame::ruleset_problem); then returns
  // what `read` returns for the game, the lock held and the game pinned.
  // Fills `response` with the game's checkpoint at the end of `turn` (0:
  // now), signed, and `clans` with the game's clans in header order.
  grpc::Status CheckpointOf(grpc::ServerContext* context,
                            const std::string& game_id, std::uint32_t turn,
                            gunbai::v1::GetCheckpointResponse* response,
                            std::vector<std::string>* clans);
  grpc::Status ReadGame(
      grpc::ServerContext* context, const std::string& game_id, Needs needs,
      absl::FunctionRef<grpc::Status(const LiveGame& game)> read);
  // Checks and stores `request`'s events, moving them out of it, and sets
  // `answer` to the serialized AppendEventsResponse (the one stored with the
  // batch, or the stored one of a retried batch).
  absl::Status Append(LiveGame& game, const Caller& caller,
                      gunbai::v1::AppendEventsRequest& request,
                      std::string& answer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  // CreateGame over gRPC reads its request unparsed (CreateGameOnWire): the
  // budget admits it by its size on the wire, and a header of more clans
  // than any engine takes (kSkeletonClans) is refused from a skeleton of the
  // request, with the message the whole request's refusal gives, without
  // the parse that cost ten times its size (1.5 million clans in 16 MiB).
  void ServeCreateGameOnWire();
  grpc::Status CreateGameOnWire(grpc::ServerContext* context,
                                grpc::ByteBuffer& wire,
                                gunbai::v1::CreateGameResponse* response);
  // The ruleset and engine a CreateGameRequest passed its checks with.
  struct CreateChecks {
    const replay::LoadedRuleset* ruleset = nullptr;
    std::unique_ptr<rules::Engine> engine;
  };
  // Checks `request`'s enums, its ruleset and its header and order of
  // battle under that ruleset's engine; InvalidArgument or the catalog's
  // status for the first that fails, `at_engine` true when the engine
  // refused.
  absl::StatusOr<CreateChecks> CheckCreate(
      const gunbai::v1::CreateGameRequest& request, bool& at_engine);
  // CreateGame once authorized and admitted.
  // The record of a new game from `request`, checked under `ruleset`: its
  // id (drawn when not given), armies, table, settings (replay::
  // NewGameSettings), dice secret and player seeds; no credentials yet.
  absl::StatusOr<GameRecord> NewRecord(
      const gunbai::v1::CreateGameRequest& request,
      const replay::LoadedRuleset& ruleset);
  // Refuses a CreateGame request of millions of clans from its skeleton
  // (the request read without its clans past the first few) when the
  // request would be refused for its clans' count; OK to go on to the
  // whole parse otherwise.
  grpc::Status RefuseBySkeleton(const grpc::ServerContext& context,
                                const CreateGameSkeleton& read);
  grpc::Status CreateParsedGame(const gunbai::v1::CreateGameRequest& request,
                                gunbai::v1::CreateGameResponse* response);
  // AppendEvents over gRPC answers with the bytes of its answer, not a
  // response message: the message would be a parsed copy of the batch's
  // events beside the cache's (the bytes are one serialized copy, the one
  // stored for retries), and a batch of 16 MiB cost 19 times its size.
  // Replaces the generated handler of AppendEvents with one calling
  // AppendEventsAsBytes (gRPC's "streamed unary": one request, one reply).
  void ServeAppendEventsAsBytes();
  grpc::Status AppendEventsAsBytes(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<grpc::ByteBuffer, grpc::ByteBuffer>* stream);
  // Admits, authorizes and appends `request`; sets `answer` as Append does.
  grpc::Status AnswerAppend(grpc::ServerContext* context,
                            gunbai::v1::AppendEventsRequest& request,
                            std::string& answer);
  // Fills the game-level fields of a read: version, head, settings, dice,
  // header and order of battle.
  void FillRead(const LiveGame& game, gunbai::v1::ReadEventsResponse& response)
      ABSL_SHARED_LOCKS_REQUIRED(game.mu);
  gunbai::v1::DiceCommitment DiceFor(const GameRecord& record) const;
  // Fills `response` with the page of `game`'s export `request` asks for.
  grpc::Status ExportPage(const LiveGame& game,
                          const gunbai::v1::ExportGameRequest& request,
                          gunbai::v1::ExportGameResponse& response) const
      ABSL_SHARED_LOCKS_REQUIRED(game.mu);
  // Returns the index in `game`'s log of its first event with a seq of at
  // least `seq` (the number of events when there is none).
  static int FirstEventFrom(const LiveGame& game, uint64_t seq)
      ABSL_SHARED_LOCKS_REQUIRED(game.mu);
  // Returns the stored events of `game` from seq `next` on, with their
  // findings, at most a page of them (kWatchBatch).
  static std::vector<gunbai::v1::StoredEvent> EventsFrom(const LiveGame& game,
                                                         uint64_t next)
      ABSL_SHARED_LOCKS_REQUIRED(game.mu);
  // A watch's wait: up to 200 ms for `g`'s events from seq `next` on,
  // then those read (a page at most) into `fresh`, and whether the game has
  // ended. UNAVAILABLE, saying where to watch from, when the store cannot
  // be read.
  grpc::Status WaitForEvents(LiveGame& g, uint64_t next,
                             std::vector<gunbai::v1::StoredEvent>& fresh,
                             bool& ended) ABSL_LOCKS_EXCLUDED(g.mu);
  // Fills the outcomes of `events`, a run of `game_id`'s stored events in
  // seq order, from the store (StoredEvent.outcomes); leaves them without
  // when the store cannot be read.
  void AddStoredOutcomes(const std::string& game_id,
                         std::vector<gunbai::v1::StoredEvent>& events);
  // Returns OK with the admission of `request` by the budget (an empty one
  // without a budget), or the status refusing it.
  grpc::Status Admit(const google::protobuf::Message& request,
                     absl::string_view what,
                     RequestBudget::Admission& admission);

  GameStore* store_;
  const replay::RulesetCatalog* rulesets_;
  const std::string umpire_hash_;
  absl::Mutex games_mu_;
  std::map<std::string, std::unique_ptr<LiveGame>> games_
      ABSL_GUARDED_BY(games_mu_);
  const int max_cached_games_;                         // 0: no bound.
  uint64_t use_count_ ABSL_GUARDED_BY(games_mu_) = 0;  // Loads so far.
  std::atomic<bool> shutting_down_{false};
  WatcherSlots watchers_;
  RequestBudget* const budget_;  // Not owned; may be null.
  const int checkpoint_every_;   // 0: no checkpoints.
  // Signs the Merkle checkpoints; set once before serving.
  std::optional<replay::NoteSigner> signer_;
  absl::Mutex stats_mu_;
  CheckpointStats stats_ ABSL_GUARDED_BY(stats_mu_);
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_DAEMON_GAME_SERVICE_H_
