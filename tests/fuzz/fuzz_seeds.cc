// Writes the seed corpora of the fuzz targets, run at build time:
//   fuzz_seeds OUT_DIR
// makes OUT_DIR/<target>/ for binary_log_fuzzer, text_log_fuzzer,
// ruleset_fuzzer and rpc_fuzzer, from the sample games of tests/data, the
// built-in ruleset files and games of the generator (a few small clean ones
// and the same with planted faults). Nothing here is committed: the seeds
// are made again whenever the generator or the samples change.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/util/json_util.h"
#include "gunbai/v1/audit_service.pb.h"
#include "gunbai/v1/game_service.pb.h"
#include "tests/fuzz/fuzz_support.h"

namespace gunbai::fuzz {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::gunbai::v1;

// The RPC numbers of rpc_fuzzer.cc (its first input byte).
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
};
// The second byte of an rpc_fuzzer input: the umpire calls, the live game
// records every event (APPEND_POLICY_RECORD) with recorded dice.
constexpr std::uint8_t kUmpireRecordPolicy = 4;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string Json(const v1::BattleLog& log) {
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(log, &json);
  return json;
}

// Small generated games: clean, and with planted faults.
std::vector<v1::BattleLog> GeneratedLogs() {
  std::vector<v1::BattleLog> logs;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.turns = 2 + static_cast<int>(seed % 3);
    options.units_per_clan = 3 + static_cast<int>(seed % 4);
    options.faults = seed > 3 ? static_cast<int>(seed) - 2 : 0;
    logs.push_back(generate::GenerateLog(options));
  }
  return logs;
}

std::string RpcInput(Rpc rpc, std::uint8_t scene,
                     const google::protobuf::Message& request) {
  std::string bytes(1, static_cast<char>(rpc));
  bytes += static_cast<char>(scene);
  bytes += request.SerializeAsString();
  return bytes;
}

void WriteRpcSeeds(const fs::path& dir, const std::vector<v1::BattleLog>& logs,
                   const std::string& ruleset_text) {
  int n = 0;
  const auto put = [&](Rpc rpc, std::uint8_t scene,
                       const google::protobuf::Message& request) {
    WriteFile(dir / absl::StrCat("seed-", n++), RpcInput(rpc, scene, request));
  };
  const v1::BattleLog& live = SampleLogs().front();  // The seed game.
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const v1::BattleLog& log = logs[i];
    v1::AuditLogRequest audit;
    *audit.mutable_log() = log;
    audit.set_impact(true);
    audit.set_record_outcomes(i % 2 == 0);
    if (i == 0) audit.set_ruleset_textproto(ruleset_text);
    put(kAuditLog, 0, audit);
    v1::CreateGameRequest create;
    *create.mutable_header() = log.header();
    create.mutable_header()->set_game_id(absl::StrCat("fuzz-", i));
    *create.mutable_order_of_battle() = log.order_of_battle();
    put(kCreateGame, 0, create);
  }
  v1::DiffRequest diff;
  for (std::size_t i = 0; i < logs.size() && i < 3; ++i) {
    v1::DiffLogInput* input = diff.add_logs();
    input->set_name(absl::StrCat("log-", i));
    *input->mutable_log() = logs[i];
  }
  diff.set_new_ruleset_textproto(ruleset_text);
  put(kDiff, 0, diff);
  v1::DiceStatsRequest dice;
  for (const v1::BattleLog& log : logs) *dice.add_logs() = log;
  put(kDiceStats, 0, dice);

  // Appends to the seed game: the whole sample in one batch, its first
  // turn, and one event from each clan's player.
  for (int cut : {live.events_size(), 12, 1}) {
    v1::AppendEventsRequest append;
    append.set_game_id(live.header().game_id());
    for (int i = 0; i < cut && i < live.events_size(); ++i) {
      v1::AppendedEvent* event = append.add_events();
      event->set_event_id(absl::StrCat("e", live.events(i).seq()));
      *event->mutable_event() = live.events(i);
    }
    put(kAppendEvents, kUmpireRecordPolicy, append);
    put(kAppendEvents, 0, append);
    if (cut == 1) put(kAppendEvents, 1, append);
  }
  v1::ReadEventsRequest read;
  read.set_game_id(live.header().game_id());
  put(kReadEvents, 1, read);
  v1::GetGameStateRequest state;
  state.set_game_id(live.header().game_id());
  put(kGetGameState, 2, state);
  v1::AuditGameRequest audit_game;
  audit_game.set_game_id(live.header().game_id());
  audit_game.set_impact(true);
  put(kAuditGame, 0, audit_game);
  v1::ExportGameRequest export_game;
  export_game.set_game_id(live.header().game_id());
  put(kExportGame, 0, export_game);
  v1::ListGamesRequest list;
  list.set_page_size(1);
  put(kListGames, 0, list);
}

// Returns a POST of `json` to `path`, with its Content-Length.
std::string Post(const std::string& path, const std::string& json) {
  return absl::StrCat("POST ", path,
                      " HTTP/1.1\r\nHost: gunbai\r\n"
                      "Content-Type: application/json\r\nContent-Length: ",
                      json.size(), "\r\n\r\n", json);
}

// http_request_fuzzer: the pages, each API path the gateway serves
// without live games, a sample log audited, chunked and 100-continue
// bodies, and refusals (a bad content type, a header over the limit).
void WriteHttpSeeds(const fs::path& dir,
                    const std::vector<v1::BattleLog>& logs) {
  int n = 0;
  const auto put = [&](const std::string& bytes) {
    WriteFile(dir / absl::StrCat("request-", n++, ".http"), bytes);
  };
  for (const char* path :
       {"/", "/app/app.js", "/livez", "/readyz", "/nowhere", "/v1/audit:log"}) {
    put(absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: gunbai\r\n\r\n"));
  }
  // The smallest sample log (of those under the fuzzer's 64 KiB body).
  std::string smallest;
  for (const v1::BattleLog& log : logs) {
    const std::string json = Json(log);
    if (json.size() < (60 << 10) &&
        (smallest.empty() || json.size() < smallest.size())) {
      smallest = json;
    }
  }
  const std::string audit = absl::StrCat("{\"log\":", smallest, "}");
  put(Post("/v1/audit:log", audit));
  put(Post("/v1/audit:logStream", audit));
  put(Post("/v1/audit:diceStats", absl::StrCat("{\"logs\":[", smallest, "]}")));
  put(Post("/v1/logs:states", audit));
  put(Post("/v1/rules:explain", "{\"query\":\"daimyo.fire.\"}"));
  put(Post("/v1/rulesets:describe", "{}"));
  put(Post("/v1/games:list", "{}"));
  put(
      absl::StrCat("POST /v1/rulesets:describe HTTP/1.1\r\nHost: gunbai\r\n"
                   "Content-Type: application/json\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n1\r\n}"
                   "\r\n0\r\n\r\n"));
  put(
      absl::StrCat("POST /v1/rulesets:describe HTTP/1.1\r\nHost: gunbai\r\n"
                   "Content-Type: application/json\r\nExpect: 100-continue"
                   "\r\nContent-Length: 2\r\n\r\n{}"));
  put(
      absl::StrCat("POST /v1/rulesets:describe HTTP/1.1\r\nHost: gunbai\r\n"
                   "Content-Type: application/json; charset=utf-16\r\n"
                   "Content-Length: 2\r\n\r\n{}"));
  put(absl::StrCat("GET / HTTP/1.1\r\nHost: gunbai\r\nX-Long: ",
                   std::string(5000, 'x'), "\r\n\r\n"));
}

int Main(const fs::path& out) {
  for (const char* target :
       {"binary_log_fuzzer", "text_log_fuzzer", "ruleset_fuzzer", "rpc_fuzzer",
        "http_request_fuzzer"}) {
    fs::remove_all(out / target);
    fs::create_directories(out / target);
  }
  std::vector<v1::BattleLog> logs = SampleLogs();
  const std::vector<v1::BattleLog> generated = GeneratedLogs();
  logs.insert(logs.end(), generated.begin(), generated.end());
  for (std::size_t i = 0; i < logs.size(); ++i) {
    WriteFile(out / "binary_log_fuzzer" / absl::StrCat("log-", i, ".binpb"),
              logs[i].SerializeAsString());
    std::string text = "\0";
    text[0] = 0;
    WriteFile(out / "text_log_fuzzer" / absl::StrCat("log-", i, ".textproto"),
              text + logs[i].DebugString());
    WriteFile(out / "text_log_fuzzer" / absl::StrCat("log-", i, ".json"),
              "\1" + Json(logs[i]));
  }
  const fs::path rules = fs::path(GUNBAI_SOURCE_DIR) / "rules";
  const std::string daimyo = ReadFile(rules / "daimyo" / "daimyo.textproto");
  WriteFile(out / "ruleset_fuzzer" / "daimyo.textproto", daimyo);
  WriteFile(out / "ruleset_fuzzer" / "skf.textproto",
            ReadFile(rules / "skf" / "skf.textproto"));
  WriteRpcSeeds(out / "rpc_fuzzer", SampleLogs(), daimyo);
  WriteHttpSeeds(out / "http_request_fuzzer", SampleLogs());
  std::printf("fuzz seeds: %zu logs in %s\n", logs.size(), out.c_str());
  return 0;
}

}  // namespace
}  // namespace gunbai::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR\n");
    return 2;
  }
  return gunbai::fuzz::Main(argv[1]);
}
