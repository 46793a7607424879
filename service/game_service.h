// gunbaid's GameService: live games whose events are checked on append,
// kept in a GameStore, chained for tamper evidence, and, in server dice
// mode, rolled by gunbaid from a committed secret. Thread-safe: calls on
// different games run in parallel; calls on one game are serialized by its
// lock. The in-memory replay of each game is a cache rebuilt from the store
// on demand. Watches are limited in all and per game (WatcherSlots), and
// the requests that carry events are admitted by a RequestBudget when one
// is given.
#ifndef GUNBAI_SERVICE_GAME_SERVICE_H_
#define GUNBAI_SERVICE_GAME_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "service/game_store.h"
#include "service/overload.h"

namespace gunbai::service {

class GameServiceImpl final : public gunbai::v1::GameService::Service {
 public:
  // `store` and `rulesets` must outlive the service; each game is replayed
  // under the ruleset its header names. `umpire_token` is the credential
  // that may create games and read and append to any game. At most
  // `max_watchers` watches run at once, `max_watchers_per_game` of one
  // game. `budget`, when not null, must outlive the service and admits
  // CreateGame and AppendEvents.
  GameServiceImpl(GameStore* store, const replay::RulesetCatalog* rulesets,
                  const std::string& umpire_token,
                  int max_watchers = kDefaultMaxWatchers,
                  int max_watchers_per_game = kDefaultMaxWatchersPerGame,
                  RequestBudget* budget = nullptr);

  grpc::Status CreateGame(grpc::ServerContext* context,
                          const gunbai::v1::CreateGameRequest* request,
                          gunbai::v1::CreateGameResponse* response) override;
  grpc::Status AppendEvents(
      grpc::ServerContext* context,
      const gunbai::v1::AppendEventsRequest* request,
      gunbai::v1::AppendEventsResponse* response) override;
  grpc::Status ReadEvents(grpc::ServerContext* context,
                          const gunbai::v1::ReadEventsRequest* request,
                          gunbai::v1::ReadEventsResponse* response) override;
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

 private:
  // Who is calling: the umpire, or the player of one clan of one game.
  struct Caller {
    bool umpire = false;
    std::string clan;
  };

  // One game's cache: its record, its log so far and its replay.
  struct LiveGame {
    explicit LiveGame(std::string game_id) : id(std::move(game_id)) {}
    const std::string id;
    absl::Mutex mu;
    absl::CondVar changed;
    bool loaded ABSL_GUARDED_BY(mu) = false;
    GameRecord record ABSL_GUARDED_BY(mu);
    gunbai::v1::BattleLog log ABSL_GUARDED_BY(mu);
    std::vector<std::string> event_ids ABSL_GUARDED_BY(mu);
    std::vector<std::string> chain_hashes ABSL_GUARDED_BY(mu);
    std::vector<uint64_t> dice_attempts ABSL_GUARDED_BY(mu);
    google::protobuf::RepeatedPtrField<gunbai::v1::Finding> findings
        ABSL_GUARDED_BY(mu);
    // The engine of the ruleset the game's header names.
    const replay::LoadedRuleset* ruleset ABSL_GUARDED_BY(mu) = nullptr;
    std::unique_ptr<rules::Engine> replayer ABSL_GUARDED_BY(mu);
    // Not OK when this gunbaid's ruleset of the game's name is not the one
    // the game was created under (GameSettings.ruleset_digest): the game's
    // stored events are still read and exported, but nothing that needs the
    // rules (append, state, audit, watch) is done, and `replayer` and
    // `ruleset` are null.
    absl::Status ruleset_problem ABSL_GUARDED_BY(mu);
    std::string dice_key ABSL_GUARDED_BY(mu);
  };

  absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context,
                                      const GameRecord* game) const;
  // Returns the game's cache, loading it from the store when needed.
  // NotFound for an unknown game. The game's lock is not held on return.
  absl::StatusOr<LiveGame*> Load(const std::string& game_id);
  absl::Status Rebuild(LiveGame& game) ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  absl::StatusOr<LiveGame*> Authorized(grpc::ServerContext* context,
                                       const std::string& game_id,
                                       Caller* caller);
  // Checks and stores `request`'s events, moving them out of it.
  absl::Status Append(LiveGame& game, const Caller& caller,
                      gunbai::v1::AppendEventsRequest& request,
                      gunbai::v1::AppendEventsResponse& response)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(game.mu);
  // Fills the game-level fields of a read: version, head, settings, dice,
  // header and order of battle.
  void FillRead(const LiveGame& game, gunbai::v1::ReadEventsResponse& response)
      ABSL_SHARED_LOCKS_REQUIRED(game.mu);
  gunbai::v1::DiceCommitment DiceFor(const GameRecord& record) const;
  // Returns the stored events of `game` from seq `next` on, with their
  // findings, at most a page of them (kWatchBatch).
  static std::vector<gunbai::v1::StoredEvent> EventsFrom(const LiveGame& game,
                                                         uint64_t next)
      ABSL_SHARED_LOCKS_REQUIRED(game.mu);
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
  std::atomic<bool> shutting_down_{false};
  WatcherSlots watchers_;
  RequestBudget* const budget_;  // Not owned; may be null.
};

}  // namespace gunbai::service

#endif  // GUNBAI_SERVICE_GAME_SERVICE_H_
