// Fuzz target: one RPC's request through gunbaid's service implementations,
// called directly with a grpc::ServerContext (no network, no channel).
//
// Input: byte 0 chooses, byte 1 sets the scene, the rest is the request
// serialized. Byte 0 % kRpcCount is the RPC: AuditService's AuditLog (and
// the same bytes to AuditLogStream, through AuditLogStreamEncoded), Diff
// (DiffEncoded with a callback for the stream, a ServerWriter cannot be
// made without a call; checked against DiffParsed of the request parsed
// whole) and DiceStats, and
// GameService's CreateGame, AppendEvents, ReadEvents, GetGameState,
// AuditGame, ExportGame and ListGames (WatchGame is left out: it waits for
// news until its client goes away). Byte 1: bits 0-1 the credential (the
// umpire, the first clan's player, the second's, none), bit 2 the live
// game's policy (strict or record), bit 3 its dice (recorded or server),
// bit 4 its table (none, or the table-game sample's with its terrain).
//
// Each game-service input starts from nothing: a fresh SQLite store in a
// temporary directory (on /dev/shm when there is one), a GameServiceImpl
// on it and the Sekigahara sample's game created by the umpire; then the
// fuzzed request; then, as the umpire, the state, the audit with its
// what-if branches, the export and a read of the game it touched, and the
// same again from a second GameServiceImpl on the same store (a restart:
// the game rebuilt from what was stored). Mutations go through the schema
// of the chosen request (tests/fuzz/proto_mutator.h).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "grpcpp/test/server_context_test_spouse.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/text_errors.h"
#include "service/cli/diff_cli.h"
#include "service/daemon/audit_service.h"
#include "service/daemon/decode_errors.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/proto_mutator.h"

namespace gunbai::fuzz {
namespace {

namespace v1 = ::gunbai::v1;

enum Rpc : std::uint8_t {
  kAuditLog,
  kDiff,
  kDiceStats,
  kCreateGame,
  kAppendEvents,
  kReadEvents,
  kGetGameState,
  kAuditGame,
  kExportGame,
  kListGames,
  kRpcCount,
};

constexpr char kUmpireToken[] = "fuzz-umpire-token";

const google::protobuf::Message& RequestPrototype(std::uint8_t selector) {
  switch (selector % kRpcCount) {
    case kAuditLog:
      return v1::AuditLogRequest::default_instance();
    case kDiff:
      return v1::DiffRequest::default_instance();
    case kDiceStats:
      return v1::DiceStatsRequest::default_instance();
    case kCreateGame:
      return v1::CreateGameRequest::default_instance();
    case kAppendEvents:
      return v1::AppendEventsRequest::default_instance();
    case kReadEvents:
      return v1::ReadEventsRequest::default_instance();
    case kGetGameState:
      return v1::GetGameStateRequest::default_instance();
    case kAuditGame:
      return v1::AuditGameRequest::default_instance();
    case kExportGame:
      return v1::ExportGameRequest::default_instance();
    default:
      return v1::ListGamesRequest::default_instance();
  }
}

// A server context carrying `token` as a bearer credential (none when
// empty).
class CallContext {
 public:
  explicit CallContext(const std::string& token) : spouse_(&context_) {
    if (!token.empty()) {
      spouse_.AddClientMetadata("authorization", "Bearer " + token);
    }
  }
  grpc::ServerContext* get() { return &context_; }

 private:
  grpc::ServerContext context_;
  grpc::testing::ServerContextTestSpouse spouse_;
};

// The directory each game-service input's store lives in, made once.
const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path* const dir = [] {
    std::string base = "/dev/shm";
    if (access(base.c_str(), W_OK) != 0) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr ? tmp : "/tmp";
    }
    std::string pattern = base + "/gunbai-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    auto* path = new std::filesystem::path(pattern);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(ScratchDir(), ignored);
    });
    return path;
  }();
  return *dir;
}

void RunAuditService(std::uint8_t rpc, const std::string& bytes) {
  static service::AuditServiceImpl* const audit =
      new service::AuditServiceImpl(&BuiltinCatalog());
  CallContext context("");
  // The service parses the bytes itself, as it does what gRPC hands it.
  const grpc::Slice slice(bytes);
  grpc::ByteBuffer wire(&slice, 1);
  if (rpc == kAuditLog) {
    v1::AuditLogResponse response;
    (void)audit->AuditEncodedLog(context.get(), wire, &response);
    // The same request to AuditLogStream (the same fields), its pieces
    // merged as a client merges them.
    grpc::ByteBuffer streamed_wire(&slice, 1);
    v1::AuditReport merged;
    (void)audit->AuditLogStreamEncoded(
        context.get(), streamed_wire,
        [&merged](const v1::AuditLogStreamResponse& piece) {
          merged.MergeFrom(piece.report());
          return true;
        });
  } else if (rpc == kDiff) {
    // Diff from the bytes and Diff of the request parsed whole must answer
    // alike (tests/e2e/diff_stream_rpc_test.cc): the same status and the
    // same replies, by index (the workers finish in any order).
    auto collect = [](std::map<std::int64_t, std::string>& replies) {
      return [&replies](const v1::DiffResponse& response) {
        replies[response.has_summary() ? -1 : response.index()] =
            response.SerializeAsString();
        return true;
      };
    };
    std::map<std::int64_t, std::string> streamed, whole;
    const grpc::Status streamed_status =
        audit->DiffEncoded(context.get(), wire, collect(streamed));
    v1::DiffRequest request;
    grpc::Status whole_status;
    if (request.ParseFromString(bytes)) {
      CallContext whole_context("");
      whole_status =
          audit->DiffParsed(whole_context.get(), request, collect(whole));
    } else {
      whole_status =
          service::UndecodableRequest("/gunbai.v1.AuditService/Diff");
    }
    if (streamed_status.error_code() != whole_status.error_code() ||
        streamed_status.error_message() != whole_status.error_message() ||
        streamed != whole) {
      std::fprintf(stderr, "Diff from bytes: %s; parsed whole: %s\n",
                   streamed_status.error_message().c_str(),
                   whole_status.error_message().c_str());
      std::abort();
    }
  } else {
    v1::DiceStatsResponse response;
    (void)audit->DiceStatsEncoded(context.get(), wire, &response);
  }
}

// The live game every game-service input starts from.
struct SeedGame {
  std::string id;
  std::vector<std::string> player_tokens;
};

SeedGame CreateSeedGame(service::GameServiceImpl& games, std::uint8_t scene) {
  // Bit 4: the sample on a table (tests/data/table-game, the same clans).
  const v1::BattleLog& sample =
      (scene & 16) != 0 ? SampleLogs().back() : SampleLogs().front();
  v1::CreateGameRequest request;
  *request.mutable_header() = sample.header();
  *request.mutable_order_of_battle() = sample.order_of_battle();
  if (sample.has_table()) *request.mutable_table() = sample.table();
  *request.mutable_terrain() = sample.terrain();
  request.mutable_settings()->set_policy(
      (scene & 4) != 0 ? v1::APPEND_POLICY_RECORD : v1::APPEND_POLICY_STRICT);
  request.mutable_settings()->set_dice_mode(
      (scene & 8) != 0 ? v1::DICE_MODE_SERVER : v1::DICE_MODE_RECORDED);
  v1::CreateGameResponse response;
  CallContext context(kUmpireToken);
  grpc::Status status = games.CreateGame(context.get(), &request, &response);
  if (!status.ok()) {
    std::fprintf(stderr, "seed game: %s\n", status.error_message().c_str());
    std::abort();
  }
  SeedGame seed{response.game_id(), {}};
  for (const v1::PlayerCredential& c : response.credentials()) {
    seed.player_tokens.push_back(c.token());
  }
  return seed;
}

// Reads, replays and audits `game_id` as the umpire, as a client would
// after the fuzzed call.
void LookAtGame(service::GameServiceImpl& games, const std::string& game_id) {
  {
    CallContext context(kUmpireToken);
    v1::GetGameStateRequest request;
    request.set_game_id(game_id);
    v1::GetGameStateResponse response;
    (void)games.GetGameState(context.get(), &request, &response);
  }
  {
    CallContext context(kUmpireToken);
    v1::AuditGameRequest request;
    request.set_game_id(game_id);
    request.set_impact(true);
    v1::AuditGameResponse response;
    (void)games.AuditGame(context.get(), &request, &response);
  }
  {
    CallContext context(kUmpireToken);
    v1::ExportGameRequest request;
    request.set_game_id(game_id);
    v1::ExportGameResponse response;
    (void)games.ExportGame(context.get(), &request, &response);
  }
  {
    CallContext context(kUmpireToken);
    v1::ReadEventsRequest request;
    request.set_game_id(game_id);
    v1::ReadEventsResponse response;
    (void)games.ReadEvents(context.get(), &request, &response);
  }
  // What each clan of the sample game may do now, from whatever state the
  // input left the game in (every candidate tried on a copy of it).
  for (const char* clan : {"tokugawa", "ishida"}) {
    CallContext context(kUmpireToken);
    v1::GetLegalActionsRequest request;
    request.set_game_id(game_id);
    request.set_clan(clan);
    v1::GetLegalActionsResponse response;
    (void)games.GetLegalActions(context.get(), &request, &response);
  }
}

template <typename Request, typename Response>
void Call(service::GameServiceImpl& games,
          grpc::Status (service::GameServiceImpl::*method)(grpc::ServerContext*,
                                                           const Request*,
                                                           Response*),
          const std::string& bytes, const std::string& token,
          std::string* game_id) {
  Request request;
  if (!request.ParseFromString(bytes)) return;
  Response response;
  CallContext context(token);
  grpc::Status status = (games.*method)(context.get(), &request, &response);
  if (!status.ok() && status.error_message().empty()) {
    std::fprintf(stderr, "an error without a message: code %d\n",
                 static_cast<int>(status.error_code()));
    __builtin_trap();
  }
  if constexpr (std::is_same_v<Response, v1::CreateGameResponse>) {
    if (status.ok()) *game_id = response.game_id();
  }
}

void RunGameService(std::uint8_t rpc, std::uint8_t scene,
                    const std::string& bytes) {
  const std::filesystem::path dir = ScratchDir() / "store";
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  {
    auto store = service::SqliteGameStore::Open(dir.string());
    if (!store.ok()) std::abort();
    std::string touched;
    {
      service::GameServiceImpl games(store->get(), &BuiltinCatalog(),
                                     kUmpireToken);
      const SeedGame seed = CreateSeedGame(games, scene);
      touched = seed.id;
      std::string token;
      switch (scene & 3) {
        case 0:
          token = kUmpireToken;
          break;
        case 1:
        case 2:
          token = seed.player_tokens.at((scene & 3) - 1);
          break;
        default:
          break;
      }
      using G = service::GameServiceImpl;
      switch (rpc) {
        case kCreateGame:
          Call(games, &G::CreateGame, bytes, token, &touched);
          break;
        case kAppendEvents:
          Call(games, &G::AppendEvents, bytes, token, &touched);
          break;
        case kReadEvents:
          Call(games, &G::ReadEvents, bytes, token, &touched);
          break;
        case kGetGameState:
          Call(games, &G::GetGameState, bytes, token, &touched);
          break;
        case kAuditGame:
          Call(games, &G::AuditGame, bytes, token, &touched);
          break;
        case kExportGame:
          Call(games, &G::ExportGame, bytes, token, &touched);
          break;
        default:
          Call(games, &G::ListGames, bytes, token, &touched);
          break;
      }
      LookAtGame(games, touched);
      games.Shutdown();
    }
    service::GameServiceImpl restarted(store->get(), &BuiltinCatalog(),
                                       kUmpireToken);
    LookAtGame(restarted, touched);
    restarted.Shutdown();
  }
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace gunbai::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace gunbai::fuzz;
  if (size < 2) return 0;
  const std::uint8_t rpc = data[0] % kRpcCount;
  const std::string bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  if (rpc <= kDiceStats) {
    RunAuditService(rpc, bytes);
  } else {
    RunGameService(rpc, data[1], bytes);
  }
  return 0;
}

// Mutates the request as its type; now and then the selector or the scene
// byte instead (which then reads the same bytes as another request).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data,
                                               std::size_t size,
                                               std::size_t max_size,
                                               unsigned int seed) {
  using namespace gunbai::fuzz;
  if (size < 2 || max_size < 2) return LLVMFuzzerMutate(data, size, max_size);
  Rng rng(seed);
  if (rng() % 32 == 0) {
    data[rng() % 2] = static_cast<std::uint8_t>(rng());
    return size;
  }
  return 2 + MutateSerialized(RequestPrototype(data[0]), data + 2, size - 2,
                              max_size - 2, seed);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(
    const std::uint8_t* data1, std::size_t size1, const std::uint8_t* data2,
    std::size_t size2, std::uint8_t* out, std::size_t max_out_size,
    unsigned int seed) {
  using namespace gunbai::fuzz;
  if (size1 < 2 || size2 < 2 || max_out_size < 2 ||
      data1[0] % kRpcCount != data2[0] % kRpcCount) {
    return 0;
  }
  out[0] = data1[0];
  out[1] = data1[1];
  const std::size_t n = CrossOverSerialized(
      RequestPrototype(data1[0]), data1 + 2, size1 - 2, data2 + 2, size2 - 2,
      out + 2, max_out_size - 2, seed);
  return n == 0 ? 0 : n + 2;
}
