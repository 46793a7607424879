// A GameServiceImpl served in process, for tests and benchmarks that talk
// to it through a stub as a client of gunbaid would: built over `store`
// and `catalog`, with the umpire credential `umpire`, the cache bound and
// the checkpoint interval given, and messages up to 64 MiB each way (the
// default --max-message-bytes).
#ifndef GUNBAI_TESTS_STORE_IN_PROCESS_GAMES_H_
#define GUNBAI_TESTS_STORE_IN_PROCESS_GAMES_H_

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/game_service.h"
#include "service/store/game_store.h"

namespace gunbai::testing {

class InProcessGames {
 public:
  InProcessGames(service::GameStore* store,
                 const replay::RulesetCatalog* catalog,
                 absl::string_view umpire,
                 int max_cached_games = service::kDefaultMaxCachedGames,
                 int checkpoint_every = service::kDefaultCheckpointEvery)
      : games_(store, catalog, std::string(umpire),
               service::kDefaultMaxWatchers,
               service::kDefaultMaxWatchersPerGame, nullptr, max_cached_games,
               checkpoint_every) {
    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize(64 << 20);
    builder.SetMaxSendMessageSize(64 << 20);
    builder.RegisterService(&games_);
    server_ = builder.BuildAndStart();
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    args.SetMaxSendMessageSize(64 << 20);
    stub_ = gunbai::v1::GameService::NewStub(server_->InProcessChannel(args));
  }
  ~InProcessGames() {
    games_.Shutdown();
    server_->Shutdown();
  }
  InProcessGames(const InProcessGames&) = delete;
  InProcessGames& operator=(const InProcessGames&) = delete;

  service::GameServiceImpl& games() { return games_; }
  gunbai::v1::GameService::Stub& stub() { return *stub_; }

 private:
  service::GameServiceImpl games_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<gunbai::v1::GameService::Stub> stub_;
};

// Sends `token` as the call's bearer credential.
inline void AuthorizeAs(grpc::ClientContext& context, absl::string_view token) {
  context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
}

}  // namespace gunbai::testing

#endif  // GUNBAI_TESTS_STORE_IN_PROCESS_GAMES_H_
