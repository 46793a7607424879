#include "service/cli/game_cli.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/checkpoint_check.h"
#include "replay/ledger.h"
#include "replay/live_batch.h"
#include "replay/log_parser.h"
#include "replay/merkle.h"
#include "replay/ruleset_loader.h"
#include "replay/server_dice.h"
#include "replay/signed_note.h"
#include "replay/text_errors.h"
#include "replay/verify_export.h"
#include "rules/digest.h"
#include "rules/status_macros.h"
#include "service/cli/cli.h"
#include "service/cli/cli_input.h"
#include "service/cli/game_client.h"
#include "service/common/cli_app.h"
#include "service/common/grpc_status.h"
#include "service/render/report_format.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

constexpr char kGameFooter[] =
    R"(Every command needs --server=HOST:PORT and a credential: --token-file=F or
the environment variable GUNBAI_TOKEN (the umpire's, or a player's for that
player's game). --tls-ca=F talks TLS to a gunbaid with --tls-cert.

Examples:
  export GUNBAI_TOKEN=$(cat umpire.tok)
  gunbai game create --server=127.0.0.1:50051 --dice=server armies.textproto
  gunbai game append --server=127.0.0.1:50051 --game=ID turn1.textproto
  gunbai game watch --server=127.0.0.1:50051 --game=ID
  gunbai game export --server=127.0.0.1:50051 --game=ID > game.textproto
  gunbai verify game.textproto

Exit codes: 0 done, 1 the game has findings (append, audit), 2 bad input or
refused (stale version, strict game, wrong credential), 3 daemon unreachable.)";

constexpr char kCreateFooter[] =
    R"(Prints the game id, one credential per clan (shown once: hand each player
theirs), the SHA-256 commitment of the dice secret and the digest of the
ruleset the game is bound to (a gunbaid with another ruleset of that name
refuses the game). A LOG with a table (its size, terrain and each unit's
position) makes a game on that table: gunbaid measures every appended
event's facts (rules/README.md, "The table"), and the export carries the table.

Examples:
  gunbai game create --server=127.0.0.1:50051 armies.textproto
  gunbai game create --server=127.0.0.1:50051 --policy=record --dice=server \
      --seed=oda:1f2e3d --seed=takeda:99aa armies.textproto
  gunbai game create --server=gunbai.example.org:50051 --tls-ca=cert.pem \
      --ruleset-digest=$(gunbai ruleset | sed -n 's/^sha256://p') armies.textproto

Exit codes: 0 created, 2 bad input or refused, 3 daemon unreachable.)";

constexpr char kAppendFooter[] =
    R"(Each event gets an id derived from its content, so running the same
append again writes nothing twice. Without --expected-version the current
version is read first. The reply gives each event's dice and what the rules
made of it (hits, stands lost, leader rolls, morale results), the batch's
findings and the state; with --format=json, the AppendEventsResponse (and
for a strict game's refusal, its findings as an AppendRefusal on stdout).

A player appends its own clan's events and ends its part of a turn with a
turn_end of its clan (clan: "oda" turn_end {}); the turn ends when every
clan has, and in a server-dice game gunbaid then starts the next turn.

Example:
  gunbai game append --server=127.0.0.1:50051 --game=ID turn1.textproto

Exit codes: 0 appended, 1 the game has findings, 2 bad input or refused
(stale version, strict game, wrong credential), 3 daemon unreachable.)";

struct GameOptions {
  std::string command;
  std::string file;
  std::string server;
  std::string game;
  std::string token_file;
  std::string tls_ca;
  std::string format = "text";
  std::string policy = "strict";
  std::string dice = "recorded";
  std::string ruleset_digest;
  std::vector<std::string> seeds;
  std::optional<uint64_t> expected_version;
  uint64_t at = 0;
  uint64_t from = 0;
  bool impact = false;
  // gunbai game proof.
  uint64_t seq = 0;
  uint64_t tree_size = 0;
  uint64_t first_size = 0;
  std::string first_root;  // A head the caller holds, hex.
  // gunbai game checkpoint.
  uint32_t turn = 0;
  std::string daemon_key;  // A verifier key the caller trusts, or its file.
  // gunbai game cosign: the player's private key file.
  std::string key_file;
};

struct Connection {
  std::unique_ptr<v1::GameService::Stub> stub;
  std::string token;
  std::string target;

  void Prepare(grpc::ClientContext& context, int seconds) const {
    context.AddMetadata("authorization", "Bearer " + token);
    if (seconds > 0) {
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(seconds));
    }
  }
};

absl::StatusOr<Connection> Connect(const GameOptions& o) {
  if (o.server.empty()) {
    return absl::InvalidArgumentError(
        "give the daemon with --server=HOST:PORT");
  }
  GUNBAI_ASSIGN_OR_RETURN(auto token, ClientToken(o.token_file, "gunbai game"));
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (!o.tls_ca.empty()) {
    GUNBAI_ASSIGN_OR_RETURN(auto ca, ReadInputFile(o.tls_ca));
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ca;
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  Connection c;
  c.stub = v1::GameService::NewStub(
      grpc::CreateCustomChannel(o.server, credentials, args));
  c.token = token;
  c.target = o.server;
  return c;
}

// Returns the status of a GameService call that failed: as FromGrpcStatus
// gives it, except that a gunbaid without live games (started with no
// umpire credential, so serving no GameService) answers UNIMPLEMENTED with
// no message, which becomes one saying so.
absl::Status GameCallStatus(const grpc::Status& status,
                            absl::string_view target) {
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    return absl::UnimplementedError(absl::StrCat(
        "gunbaid at ", target,
        " does not serve live games: it was started without an umpire "
        "credential. Start it with --umpire-token-file=F (or "
        "GUNBAI_UMPIRE_TOKEN) and --data-dir=DIR"));
  }
  return FromGrpcStatus(status, target);
}

int Fail(std::ostream& err, const absl::Status& status) {
  err << "gunbai: " << status.message() << "\n";
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kInternal:
      return kExitServer;
    default:
      return kExitBadInput;
  }
}

void PrintMessage(std::ostream& out, const GameOptions& o,
                  const google::protobuf::Message& message,
                  const std::string& text) {
  if (o.format == "json") {
    out << FormatJson(message);
  } else {
    out << text;
  }
}

std::string FindingsText(
    const google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  std::string out;
  for (const v1::Finding& f : findings) {
    absl::StrAppend(&out, "  seq ", f.seq(), "  ",
                    v1::Severity_Name(f.severity()), "  ", f.rule_id(),
                    "\n    ", f.message(), "\n");
  }
  return out;
}

// Returns "N THING" or "N THINGs".
std::string Count(absl::string_view value, absl::string_view thing) {
  return absl::StrCat(value, " ", thing, value == "1" ? "" : "s");
}

// Returns one outcome the rules worked out, in plain words
// (Outcome.kind: see the engines' RecordOutcome calls).
std::string OutcomeText(const v1::Outcome& o) {
  const std::string& who = o.subject();
  const std::string& value = o.value();
  if (o.kind() == "hits")
    return absl::StrCat(who, " scores ", Count(value, "hit"));
  if (o.kind() == "stands_lost") {
    return absl::StrCat(who, " loses ", Count(value, "stand"));
  }
  if (o.kind() == "killed") {
    return absl::StrCat(who, value == "killed" ? " is killed" : " survives");
  }
  if (o.kind() == "morale_result") {
    return absl::StrCat(who, " tests morale: ", value);
  }
  if (o.kind() == "melee_outcome") return absl::StrCat("the melee: ", value);
  if (o.kind() == "duel_winner")
    return absl::StrCat("the duel is won by ", value);
  if (o.kind() == "odds_column") {
    return absl::StrCat(who, " fights on the ", value, " column");
  }
  return absl::StrCat(who, " ", o.kind(), ": ", value);
}

// Returns what each of `events` came to, a few lines an event: its seq and
// the dice it carries, then (indented) the initiative of a turn start and
// each outcome. Events with neither dice nor outcomes are left out.
std::string EventOutcomesText(
    const google::protobuf::RepeatedPtrField<v1::StoredEvent>& events) {
  std::string text;
  for (const v1::StoredEvent& e : events) {
    const std::vector<uint32_t> dice = replay::EventDice(e.event());
    const bool starts = e.event().has_turn_start();
    if (dice.empty() && e.outcomes().empty() && !starts) continue;
    absl::StrAppend(&text, "  seq ", e.event().seq());
    if (!dice.empty()) absl::StrAppend(&text, " dice:");
    for (uint32_t d : dice) absl::StrAppend(&text, " ", d);
    absl::StrAppend(&text, "\n");
    if (starts) {
      absl::StrAppend(&text, "    turn ", e.event().turn(), " starts",
                      absl::StartsWith(e.event_id(), "gunbaid:")
                          ? " (gunbaid's turn_start)"
                          : "",
                      ": ", e.event().turn_start().initiative_clan(),
                      " has the initiative\n");
    }
    for (const v1::Outcome& o : e.outcomes()) {
      absl::StrAppend(&text, "    ", OutcomeText(o), "\n");
    }
  }
  return text;
}

bool Fails(const google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  for (const v1::Finding& f : findings) {
    if (f.severity() != v1::SEVERITY_UNVERIFIABLE) return true;
  }
  return false;
}

int Create(const GameOptions& o, std::ostream& out, std::ostream& err) {
  if (o.file.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "gunbai game create needs a LOG with the header and "
                         "the order of battle"));
  }
  auto bytes = ReadInputFile(o.file);
  if (!bytes.ok()) return Fail(err, bytes.status());
  auto log = replay::ParseBattleLog(*bytes, replay::FormatFromFileName(o.file),
                                    o.file);
  if (!log.ok()) return Fail(err, log.status());
  if (log->events_size() > 0) {
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         o.file,
                         " has events; create takes the header and "
                         "the order of battle only: append the events "
                         "with `gunbai game append`")));
  }
  v1::CreateGameRequest request;
  *request.mutable_header() = log->header();
  *request.mutable_order_of_battle() = log->order_of_battle();
  // A game on a table: its size and terrain go with the armies.
  if (log->has_table()) *request.mutable_table() = log->table();
  *request.mutable_terrain() = log->terrain();
  request.mutable_settings()->set_policy(o.policy == "record"
                                             ? v1::APPEND_POLICY_RECORD
                                             : v1::APPEND_POLICY_STRICT);
  request.mutable_settings()->set_dice_mode(
      o.dice == "server" ? v1::DICE_MODE_SERVER : v1::DICE_MODE_RECORDED);
  request.mutable_settings()->set_ruleset_digest(o.ruleset_digest);
  for (const std::string& seed : o.seeds) {
    std::vector<std::string> parts =
        absl::StrSplit(seed, absl::MaxSplits(':', 1));
    if (parts.size() != 2) {
      return Fail(err, absl::InvalidArgumentError(
                           "--seed wants CLAN:HEX, e.g. --seed=oda:1f2e3d"));
    }
    v1::PlayerSeed* s = request.add_player_seeds();
    s->set_clan(parts[0]);
    s->set_seed_hex(parts[1]);
  }
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  grpc::ClientContext context;
  c->Prepare(context, 30);
  v1::CreateGameResponse response;
  grpc::Status s = c->stub->CreateGame(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  std::string text = absl::StrCat(
      "game ", response.game_id(), "\n",
      "dice secret sha256:", response.dice().secret_sha256(), "\n",
      "ruleset sha256:", response.settings().ruleset_digest(), "\n",
      "head sha256:", response.head_hash(),
      " (the game's terms: each append moves it on; keep the heads you "
      "are given)\n");
  for (const auto& credential : response.credentials()) {
    absl::StrAppend(&text, "credential for ", credential.clan(), ": ",
                    credential.token(), "\n");
  }
  absl::StrAppend(&text,
                  "Hand each player their credential; gunbaid keeps only its "
                  "hash and cannot show it again.\n");
  PrintMessage(out, o, response, text);
  return kExitClean;
}

absl::StatusOr<uint64_t> CurrentVersion(const Connection& c,
                                        const std::string& game) {
  v1::ReadEventsRequest request;
  request.set_game_id(game);
  request.set_from_seq(UINT64_MAX);
  grpc::ClientContext context;
  c.Prepare(context, 30);
  v1::ReadEventsResponse response;
  grpc::Status s = c.stub->ReadEvents(&context, request, &response);
  if (!s.ok()) return GameCallStatus(s, c.target);
  return response.version();
}

int Append(const GameOptions& o, std::ostream& out, std::ostream& err) {
  if (o.game.empty() || o.file.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "gunbai game append needs --game=ID and an EVENTS "
                         "file"));
  }
  auto bytes = ReadInputFile(o.file);
  if (!bytes.ok()) return Fail(err, bytes.status());
  auto log = replay::ParseBattleLog(*bytes, replay::FormatFromFileName(o.file),
                                    o.file);
  if (!log.ok()) return Fail(err, log.status());
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::AppendEventsRequest request;
  request.set_game_id(o.game);
  if (o.expected_version.has_value()) {
    request.set_expected_version(*o.expected_version);
  } else {
    auto version = CurrentVersion(*c, o.game);
    if (!version.ok()) return Fail(err, version.status());
    request.set_expected_version(*version);
  }
  for (const v1::Event& event : log->events()) {
    v1::AppendedEvent* appended = request.add_events();
    appended->set_event_id(
        base::Sha256Hex(
            absl::StrCat(o.game, "/", base::DeterministicBytes(event)))
            .substr(0, 32));
    *appended->mutable_event() = event;
  }
  grpc::ClientContext context;
  c->Prepare(context, 60);
  v1::AppendEventsResponse response;
  grpc::Status s = c->stub->AppendEvents(&context, request, &response);
  if (!s.ok()) {
    absl::Status refused = GameCallStatus(s, c->target);
    // A strict game's refusal, as JSON: its findings from the status
    // details (AppendRefusal), on stdout, beside the message on stderr.
    auto details = refused.GetPayload(replay::kAppendRefusalTypeUrl);
    v1::AppendRefusal refusal;
    if (o.format == "json" && details.has_value() &&
        refusal.ParseFromString(std::string(*details))) {
      out << FormatJson(refusal);
    }
    return Fail(err, refused);
  }
  PrintMessage(out, o, response,
               absl::StrCat("appended ", response.events_size(),
                            " events; the game has ", response.version(),
                            " events, head sha256:", response.head_hash(), "\n",
                            EventOutcomesText(response.events()),
                            FindingsText(response.findings()),
                            FormatStateText(response.state())));
  return Fails(response.findings()) ? kExitFindings : kExitClean;
}

int Show(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::GetGameStateRequest request;
  request.set_game_id(o.game);
  request.set_at_seq(o.at);
  grpc::ClientContext context;
  c->Prepare(context, 30);
  v1::GetGameStateResponse response;
  grpc::Status s = c->stub->GetGameState(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  PrintMessage(out, o, response.state(), FormatStateText(response.state()));
  return kExitClean;
}

int Watch(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::WatchGameRequest request;
  request.set_game_id(o.game);
  request.set_from_seq(o.from);
  grpc::ClientContext context;
  c->Prepare(context, 0);
  auto reader = c->stub->WatchGame(&context, request);
  v1::WatchGameResponse response;
  bool ended = false;
  uint64_t last_seq = 0;
  while (reader->Read(&response)) {
    const v1::StoredEvent& e = response.event();
    const google::protobuf::FieldDescriptor* kind =
        e.event().GetReflection()->GetOneofFieldDescriptor(
            e.event(), v1::Event::descriptor()->FindOneofByName("body"));
    const std::string body = kind == nullptr ? "empty" : kind->name();
    ended = ended || e.event().has_game_end();
    last_seq = e.event().seq();
    if (o.format == "json") {
      out << FormatJson(response);
    } else {
      out << "seq " << e.event().seq() << " turn " << e.event().turn() << " "
          << (e.event().clan().empty() ? "-" : e.event().clan()) << " " << body
          << "  chain " << e.chain_hash().substr(0, 12) << "\n";
      if (e.event().has_turn_start()) {
        out << "    initiative: " << e.event().turn_start().initiative_clan()
            << "\n";
      }
      for (const v1::Outcome& outcome : e.outcomes()) {
        out << "    " << OutcomeText(outcome) << "\n";
      }
      out << FindingsText(e.findings());
    }
    out.flush();
  }
  grpc::Status s = reader->Finish();
  // The stream ends OK only after game_end; anything else is a watch cut
  // short, which a script must not take for the end of the game.
  const std::string resume =
      absl::StrCat("; watch again with --from=", last_seq);
  if (!s.ok()) {
    absl::Status why = GameCallStatus(s, c->target);
    if (why.code() == absl::StatusCode::kUnavailable ||
        why.code() == absl::StatusCode::kCancelled) {
      return Fail(err,
                  absl::UnavailableError(absl::StrCat(
                      "the watch of game ", o.game, " broke off after seq ",
                      last_seq, ": ", why.message(), resume)));
    }
    return Fail(err, why);
  }
  if (!ended) {
    return Fail(err,
                absl::UnavailableError(absl::StrCat(
                    "the watch of game ", o.game,
                    " ended before game_end, after seq ", last_seq, resume)));
  }
  return kExitClean;
}

int Export(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  // A page at a time (service/cli/game_client.h), each call with its deadline.
  v1::ExportedGame game;
  grpc::Status s = ExportWholeGame(
      o.game,
      [&c](const v1::ExportGameRequest& request,
           v1::ExportGameResponse* response) {
        grpc::ClientContext context;
        c->Prepare(context, 60);
        return c->stub->ExportGame(&context, request, response);
      },
      &game);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  std::string text;
  google::protobuf::TextFormat::PrintToString(game, &text);
  PrintMessage(out, o, game,
               absl::StrCat("# proto-file: gunbai/v1/game_service.proto\n"
                            "# proto-message: gunbai.v1.ExportedGame\n",
                            text));
  return kExitClean;
}

// Reads hex `text` as a Merkle hash; false when it is not 64 hex digits.
bool HashFromHex(const std::string& text, replay::MerkleHash& out) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  const std::string bytes = absl::HexStringToBytes(text);
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return true;
}

std::vector<replay::MerkleHash> HashesFromHex(
    const google::protobuf::RepeatedPtrField<std::string>& hex, bool& ok) {
  std::vector<replay::MerkleHash> out(static_cast<std::size_t>(hex.size()));
  for (int i = 0; i < hex.size(); ++i) {
    ok = ok && HashFromHex(hex[i], out[static_cast<std::size_t>(i)]);
  }
  return out;
}

// gunbai game proof: asks gunbaid for the proofs and checks them here, by
// RFC 9162's algorithms, against the root it sent (and --first-root, a head
// the caller kept, when given).
int Proof(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::GetProofRequest request;
  request.set_game_id(o.game);
  request.set_tree_size(o.tree_size);
  request.set_seq(o.seq);
  request.set_first_size(o.first_size);
  grpc::ClientContext context;
  c->Prepare(context, 30);
  v1::GetProofResponse response;
  grpc::Status s = c->stub->GetProof(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  bool ok = true;
  replay::MerkleHash root{};
  ok = HashFromHex(response.root_hash(), root);
  std::string text =
      absl::StrCat("game ", o.game, ": tree of ", response.tree_size(),
                   " events, root ", response.root_hash(), "\n");
  if (o.seq != 0) {
    replay::MerkleHash leaf{};
    bool parsed = HashFromHex(response.leaf_hash(), leaf);
    const std::vector<replay::MerkleHash> path =
        HashesFromHex(response.inclusion(), parsed);
    const bool verified = parsed && replay::VerifyMerkleInclusion(
                                        response.leaf_index(),
                                        response.tree_size(), leaf, path, root);
    ok = ok && verified;
    absl::StrAppend(&text, "  event ", o.seq, " is leaf ",
                    response.leaf_index(), " (", response.leaf_hash(),
                    "): ", path.size(), " hashes, ",
                    verified ? "verified" : "NOT verified", "\n");
  }
  if (o.first_size != 0) {
    replay::MerkleHash first{};
    bool parsed = HashFromHex(response.first_root_hash(), first);
    if (!o.first_root.empty()) {
      replay::MerkleHash held{};
      if (!HashFromHex(o.first_root, held)) {
        return Fail(err, absl::InvalidArgumentError(
                             "--first-root: give the 64 hex digits of a root"));
      }
      if (held != first) {
        absl::StrAppend(&text, "  the root of ", o.first_size, " events is ",
                        response.first_root_hash(), ", not the ", o.first_root,
                        " you hold\n");
        parsed = false;
      }
    }
    const std::vector<replay::MerkleHash> proof =
        HashesFromHex(response.consistency(), parsed);
    const bool verified =
        parsed && replay::VerifyMerkleConsistency(
                      o.first_size, response.tree_size(), first, root, proof);
    ok = ok && verified;
    absl::StrAppend(&text, "  extends the tree of ", o.first_size,
                    " events (root ", response.first_root_hash(),
                    "): ", proof.size(), " hashes, ",
                    verified ? "verified" : "NOT verified", "\n");
  }
  PrintMessage(out, o, response, text);
  return ok ? kExitClean : kExitFindings;
}

// A verifier key given on the command line: its text ("NAME+ID+KEY"; a
// name holds no '+'), or the path of a file holding it.
absl::StatusOr<replay::NoteVerifier> VerifierKeyArgument(
    const std::string& text_or_file) {
  if (absl::StrContains(text_or_file, '+')) {
    return replay::ParseVerifierKey(text_or_file);
  }
  GUNBAI_ASSIGN_OR_RETURN(std::string file, ReadInputFile(text_or_file));
  return replay::ParseVerifierKey(file);
}

// The daemon's key: --daemon-key when given, else the one gunbaid sent.
absl::StatusOr<replay::NoteVerifier> DaemonKey(const std::string& given,
                                               const std::string& sent) {
  return given.empty() ? replay::ParseVerifierKey(sent)
                       : VerifierKeyArgument(given);
}

// gunbai game checkpoint: asks gunbaid for the game's signed checkpoint (at
// a turn's end, or now), opens it with the daemon's verifier key (the one
// --daemon-key names, else the one the answer carries, said so), checks
// that its text is the checkpoint of the size and root sent, and prints the
// note (to keep, cosign and verify offline).
int Checkpoint(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::GetCheckpointRequest request;
  request.set_game_id(o.game);
  request.set_turn(o.turn);
  grpc::ClientContext context;
  c->Prepare(context, 30);
  v1::GetCheckpointResponse response;
  grpc::Status s = c->stub->GetCheckpoint(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  absl::StatusOr<replay::NoteVerifier> key =
      DaemonKey(o.daemon_key, response.verifier_key());
  if (!key.ok()) return Fail(err, key.status());
  replay::MerkleHash root{};
  const bool root_ok = HashFromHex(response.root_hash(), root);
  absl::StatusOr<std::string> text =
      replay::OpenNote(response.checkpoint(), {*key});
  const bool verified =
      text.ok() && root_ok &&
      *text ==
          replay::CheckpointText(response.origin(), response.tree_size(), root);
  PrintMessage(out, o, response, response.checkpoint());
  err << "checkpoint of game " << o.game
      << (o.turn == 0 ? std::string(" now")
                      : absl::StrCat(" at the end of turn ", o.turn))
      << ": " << response.tree_size() << " events, root "
      << response.root_hash() << "; signature of " << key->name << " "
      << (verified ? "verified" : "NOT verified")
      << (o.daemon_key.empty()
              ? " (with the key the daemon sent: pass --daemon-key with the "
                "one you hold to check it against)"
              : "")
      << "\n";
  if (!text.ok()) err << "  " << text.status().message() << "\n";
  return verified ? kExitClean : kExitFindings;
}

// The words for who cosigned a turn's checkpoint.
std::string WitnessWords(const v1::GetCheckpointResponse& c) {
  std::string out = absl::StrCat("turn ", c.turn(), ": ", c.tree_size(),
                                 " events, root ", c.root_hash(), "; ");
  if (c.agreed()) {
    absl::StrAppend(&out, "agreed (cosigned by ",
                    absl::StrJoin(c.cosigned_by(), ", "), ")");
  } else {
    absl::StrAppend(
        &out, "waiting for ", absl::StrJoin(c.waiting_for(), ", "),
        c.cosigned_by().empty()
            ? std::string()
            : absl::StrCat(" (cosigned by ",
                           absl::StrJoin(c.cosigned_by(), ", "), ")"));
  }
  return out;
}

// gunbai game cosign: registers the player's key (the same key again is
// fine), fetches the turn's checkpoint, checks the daemon's signature (with
// --daemon-key when given), adds the player's cosignature and sends it.
// Prints the note with every cosignature gunbaid holds.
int Cosign(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto key_text = ReadInputFile(o.key_file);
  if (!key_text.ok()) return Fail(err, key_text.status());
  absl::StatusOr<replay::NoteSigner> signer = replay::ParseSignerKey(*key_text);
  if (!signer.ok()) {
    return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                         "--key: ", signer.status().message(),
                         " (make one with `gunbai key --new NAME -o FILE`)")));
  }
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  {
    v1::RegisterCheckpointKeyRequest request;
    request.set_game_id(o.game);
    request.set_verifier_key(replay::VerifierKeyText(*signer));
    v1::RegisterCheckpointKeyResponse response;
    grpc::ClientContext context;
    c->Prepare(context, 30);
    grpc::Status s =
        c->stub->RegisterCheckpointKey(&context, request, &response);
    if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  }
  v1::GetCheckpointResponse checkpoint;
  {
    v1::GetCheckpointRequest request;
    request.set_game_id(o.game);
    request.set_turn(o.turn);
    grpc::ClientContext context;
    c->Prepare(context, 30);
    grpc::Status s = c->stub->GetCheckpoint(&context, request, &checkpoint);
    if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  }
  // The daemon's signature first: a player cosigns only what verifies.
  absl::StatusOr<replay::NoteVerifier> daemon =
      DaemonKey(o.daemon_key, checkpoint.verifier_key());
  if (!daemon.ok()) return Fail(err, daemon.status());
  if (absl::StatusOr<std::string> opened =
          replay::OpenNote(checkpoint.checkpoint(), {*daemon});
      !opened.ok()) {
    err << "gunbai: the daemon's checkpoint of turn " << o.turn
        << " does not verify (" << opened.status().message()
        << "): not cosigned\n";
    return kExitFindings;
  }
  absl::StatusOr<std::string> cosigned =
      replay::AddNoteSignature(checkpoint.checkpoint(), *signer);
  if (!cosigned.ok()) return Fail(err, cosigned.status());
  v1::CosignCheckpointRequest request;
  request.set_game_id(o.game);
  request.set_turn(o.turn);
  request.set_cosigned(*cosigned);
  v1::CosignCheckpointResponse response;
  grpc::ClientContext context;
  c->Prepare(context, 30);
  grpc::Status s = c->stub->CosignCheckpoint(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  PrintMessage(out, o, response, response.checkpoint().cosigned_checkpoint());
  err << "cosigned as " << signer->name << "; "
      << WitnessWords(response.checkpoint()) << "\n";
  return kExitClean;
}

// gunbai game checkpoints: every ended turn's checkpoint and who cosigned.
int Checkpoints(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::ListCheckpointsRequest request;
  request.set_game_id(o.game);
  v1::ListCheckpointsResponse response;
  grpc::ClientContext context;
  c->Prepare(context, 30);
  grpc::Status s = c->stub->ListCheckpoints(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  std::string text;
  for (const v1::GetCheckpointResponse& turn : response.turns()) {
    absl::StrAppend(&text, WitnessWords(turn), "\n");
  }
  if (response.turns().empty()) text = "no turn has ended yet\n";
  PrintMessage(out, o, response, text);
  return kExitClean;
}

int AuditRemote(const GameOptions& o, std::ostream& out, std::ostream& err) {
  auto c = Connect(o);
  if (!c.ok()) return Fail(err, c.status());
  v1::AuditGameRequest request;
  request.set_game_id(o.game);
  request.set_impact(o.impact);
  grpc::ClientContext context;
  c->Prepare(context, 120);
  v1::AuditGameResponse response;
  grpc::Status s = c->stub->AuditGame(&context, request, &response);
  if (!s.ok()) return Fail(err, GameCallStatus(s, c->target));
  PrintMessage(out, o, response.report(), FormatReportText(response.report()));
  const auto& sum = response.report().summary();
  return sum.violations() + sum.disputes() + sum.warnings() > 0 ? kExitFindings
                                                                : kExitClean;
}

}  // namespace

int RunGameCli(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  std::vector<std::string> full = {"game"};
  full.insert(full.end(), args.begin(), args.end());
  return RunCli(full, out, err);
}

namespace {

// Adds the options every `gunbai game` command takes, into `o`.
void AddConnectionOptions(CLI::App& command, GameOptions& o) {
  AddServerOption(command, o.server, "that keeps the game")->required();
  command
      .add_option("--token-file", o.token_file,
                  "read the credential (the umpire's, or a player's) from F "
                  "instead of the environment variable GUNBAI_TOKEN")
      ->type_name("F");
  AddTlsCaOption(command, o.tls_ca);
  AddChoiceOption(command, "--format", o.format, {"text", "json"},
                  "text for people, json: the reply as JSON");
}

CLI::Option* AddGameIdOption(CLI::App& command, GameOptions& o) {
  return command.add_option("--game", o.game, "the game's id")
      ->type_name("ID")
      ->required();
}

// Adds `gunbai game NAME`, running `run` on its options.
CLI::App* AddGameCommand(CLI::App& game, const char* name,
                         const char* description, CliContext& context,
                         int (*run)(const GameOptions&, std::ostream&,
                                    std::ostream&),
                         std::shared_ptr<GameOptions>& o) {
  o = std::make_shared<GameOptions>();
  CLI::App* command = game.add_subcommand(name, description);
  AddConnectionOptions(*command, *o);
  command->callback(
      [o, run, &context] { context.code = run(*o, context.out, context.err); });
  return command;
}

}  // namespace

namespace {

// Adds `gunbai game create` to `game`.
void AddCreateCommand(CLI::App& game, CliContext& context) {
  std::shared_ptr<GameOptions> o;
  CLI::App* create = AddGameCommand(
      game, "create",
      "create a game from LOG's header and order of battle (umpire)", context,
      Create, o);
  create->footer(kCreateFooter);
  create->add_option("LOG", o->file, "the header and the order of battle")
      ->required();
  AddChoiceOption(*create, "--policy", o->policy, {"strict", "record"},
                  "strict: refuse an event that breaks a rule; record: keep "
                  "it, with its findings");
  AddChoiceOption(*create, "--dice", o->dice, {"recorded", "server"},
                  "recorded: the players roll and record their dice; "
                  "server: gunbaid rolls them from a committed secret");
  create
      ->add_option("--seed", o->seeds,
                   "a player's contribution to the server dice, CLAN:HEX "
                   "(repeat for each clan)")
      ->type_name("CLAN:HEX")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& seed) -> std::string {
            return absl::StrContains(seed, ':')
                       ? ""
                       : "give CLAN:HEX, e.g. --seed=oda:1f2e3d";
          },
          ""));
  create
      ->add_option("--ruleset-digest", o->ruleset_digest,
                   "refuse creation unless the daemon's ruleset has this "
                   "digest (`gunbai ruleset` prints digests)")
      ->type_name("HEX");
}

// Adds `gunbai game append` to `game`.
void AddAppendCommand(CLI::App& game, CliContext& context) {
  std::shared_ptr<GameOptions> o;
  CLI::App* append = AddGameCommand(
      game, "append", "append the events of EVENTS (a battle log file)",
      context, Append, o);
  append->footer(kAppendFooter);
  AddGameIdOption(*append, *o);
  append->add_option("EVENTS", o->file, "a battle log file holding events")
      ->required();
  append
      ->add_option_function<uint64_t>(
          "--expected-version",
          [o = o](const uint64_t& n) { o->expected_version = n; },
          "append only if the game has N events (default: read the current "
          "version first)")
      ->type_name("N");
}

// Adds the commands that read a game: show, watch, export and audit.
void AddReadCommands(CLI::App& game, CliContext& context) {
  std::shared_ptr<GameOptions> o;
  CLI::App* show = AddGameCommand(
      game, "show", "print the state after an event", context, Show, o);
  AddGameIdOption(*show, *o);
  show->add_option("--at", o->at,
                   "the state right after event SEQ (default: the last)")
      ->type_name("SEQ");
  show->footer(
      "Example:\n  gunbai game show --server=127.0.0.1:50051 --game=ID "
      "--at=12");

  CLI::App* watch = AddGameCommand(
      game, "watch", "follow the game as it is played", context, Watch, o);
  AddGameIdOption(*watch, *o);
  watch->add_option("--from", o->from, "start after event SEQ")
      ->type_name("SEQ");
  watch->footer(
      "Prints a line per event with its chain hash's first 12 characters\n"
      "(`gunbai verify --head` takes such a prefix), then, indented, the\n"
      "initiative of a turn start, what the rules worked out (hits, stands\n"
      "lost, leader rolls, morale results) and the event's findings.\n\n"
      "Exit codes: 0 the game ended (game_end), 3 the watch broke off (the\n"
      "daemon stopped or the connection broke: watch again with --from),\n"
      "2 refused.\n\nExample:\n"
      "  gunbai game watch --server=127.0.0.1:50051 --game=ID --from=10");

  CLI::App* exported = AddGameCommand(
      game, "export", "the game, for `gunbai verify` and `gunbai audit`",
      context, Export, o);
  AddGameIdOption(*exported, *o);
  exported->footer(
      "Example:\n  gunbai game export --server=127.0.0.1:50051 --game=ID > "
      "game.textproto\n  gunbai verify game.textproto");

  CLI::App* proof = AddGameCommand(
      game, "proof",
      "prove an event is in the game, or that it extends an earlier head "
      "(RFC 9162 Merkle proofs, checked here)",
      context, Proof, o);
  AddGameIdOption(*proof, *o);
  proof->add_option("--seq", o->seq, "prove the event of seq SEQ is in it")
      ->type_name("SEQ");
  proof
      ->add_option("--tree-size", o->tree_size,
                   "the tree of the first N events (default: all so far)")
      ->type_name("N");
  proof
      ->add_option("--first-size", o->first_size,
                   "prove the tree extends the tree of the first M events")
      ->type_name("M");
  proof
      ->add_option("--first-root", o->first_root,
                   "with --first-size: the root of M events you kept (hex); "
                   "the proof must reach it")
      ->type_name("HEX");
  proof->footer(
      "The game's events are the leaves of a Merkle tree as Certificate\n"
      "Transparency keeps its log (RFC 9162), each leaf an event's canonical\n"
      "bytes. gunbaid sends the root and the proofs; this command checks\n"
      "them by the RFC's algorithms. A root you kept from an earlier size\n"
      "(--first-root) and a consistency proof to today's root show nobody\n"
      "rewrote those events since.\n\n"
      "Exit codes: 0 every proof verified, 1 one did not, 2 bad input or\n"
      "refused, 3 daemon unreachable.\n\nExample:\n"
      "  gunbai game proof --server=127.0.0.1:50051 --game=ID --seq=12 "
      "--first-size=8 --first-root=5dc9...");

  CLI::App* checkpoint = AddGameCommand(
      game, "checkpoint",
      "the game's Merkle checkpoint signed by gunbaid, at a turn's end or now "
      "(C2SP signed note, Ed25519)",
      context, Checkpoint, o);
  AddGameIdOption(*checkpoint, *o);
  checkpoint
      ->add_option("--turn", o->turn,
                   "the checkpoint of the end of turn N (default: now)")
      ->type_name("N");
  checkpoint
      ->add_option("--daemon-key", o->daemon_key,
                   "the daemon's verifier key you trust (its text, or a "
                   "file holding it) to open the checkpoint with")
      ->type_name("KEY");
  checkpoint->footer(
      "The checkpoint says: the game's first SIZE events have this Merkle\n"
      "root, signed by the daemon. Keep the one of each turn's end: with\n"
      "`gunbai game proof --first-size=SIZE --first-root=ROOT` later, it\n"
      "shows nobody rewrote those events. The note is printed on standard\n"
      "output (save it to a file); the check goes to standard error. The\n"
      "daemon's verifier key is also at GET /v1/info.\n\n"
      "Exit codes: 0 the signature verified, 1 it did not, 2 bad input or\n"
      "refused (no signing key, turn not ended), 3 daemon unreachable.\n\n"
      "Example:\n"
      "  gunbai game checkpoint --server=127.0.0.1:50051 --game=ID --turn=3 "
      "> turn3.note");

  CLI::App* cosign = AddGameCommand(
      game, "cosign",
      "cosign a turn's checkpoint with your key (registered with the game "
      "the first time)",
      context, Cosign, o);
  AddGameIdOption(*cosign, *o);
  cosign->add_option("--turn", o->turn, "the turn whose end you cosign")
      ->type_name("N")
      ->required();
  cosign
      ->add_option("--key", o->key_file,
                   "your private key file (`gunbai key --new NAME -o FILE` "
                   "writes one); it never leaves this machine")
      ->type_name("FILE")
      ->required();
  cosign
      ->add_option("--daemon-key", o->daemon_key,
                   "the daemon's verifier key you trust (text or file)")
      ->type_name("KEY");
  cosign->footer(
      "At the end of each turn both players cosign the daemon's checkpoint\n"
      "of it: from then on neither the other player nor whoever runs the\n"
      "daemon can change that past without the signatures failing (gunbai\n"
      "verify --checkpoint=NOTE --key=... with every key). The first cosign\n"
      "registers your key's public half with the game; the same key is\n"
      "used for every turn after. Prints the note with every cosignature\n"
      "so far (keep it).\n\n"
      "Exit codes: 0 cosigned, 1 the daemon's signature did not verify (not\n"
      "cosigned), 2 bad input or refused, 3 daemon unreachable.\n\n"
      "Example:\n"
      "  gunbai game cosign --server=127.0.0.1:50051 --game=ID --turn=3 "
      "--key=oda.key > turn3.note");

  CLI::App* checkpoints = AddGameCommand(
      game, "checkpoints",
      "every ended turn's checkpoint and who cosigned it (who has not)",
      context, Checkpoints, o);
  AddGameIdOption(*checkpoints, *o);
  checkpoints->footer(
      "Example:\n  gunbai game checkpoints --server=127.0.0.1:50051 "
      "--game=ID\n  turn 1: 8 events, root 5dc9...; agreed (cosigned by "
      "oda, asai)\n  turn 2: 19 events, root 77ab...; waiting for asai "
      "(cosigned by oda)");

  CLI::App* audit = AddGameCommand(
      game, "audit", "the audit report of the game", context, AuditRemote, o);
  AddGameIdOption(*audit, *o);
  audit->add_flag("--impact", o->impact,
                  "what each disputed outcome changed (as gunbai audit "
                  "--impact)");
  audit->footer(
      "Example:\n  gunbai game audit --server=127.0.0.1:50051 --game=ID "
      "--impact\n\nExit codes: 0 clean, 1 findings, 2 bad input or "
      "refused, 3 daemon unreachable.");
}

}  // namespace

void AddGameCommands(CLI::App& app, CliContext& context) {
  CLI::App* game = app.add_subcommand(
      "game",
      "live games on a gunbaid: create, append, show, watch, export, audit");
  game->footer(kGameFooter);
  game->require_subcommand(1);
  AddCreateCommand(*game, context);
  AddAppendCommand(*game, context);
  AddReadCommands(*game, context);
}

namespace {

// The ruleset an exported game is replayed under (for its dice counts, or
// for the rules a strict game's events kept): the --ruleset file when
// given, otherwise the built-in one its header names. Either must be the
// ruleset the header names, name and version, and the one the game is bound
// to (settings.ruleset_digest): another says nothing about this game.
// `checking` says what needs it, for the message.
absl::StatusOr<replay::LoadedRuleset> VerifyRuleset(
    const std::string& ruleset_path, const v1::ExportedGame& game,
    absl::string_view checking) {
  const v1::Header& header = game.log().header();
  absl::StatusOr<replay::LoadedRuleset> chosen;
  if (!ruleset_path.empty()) {
    GUNBAI_ASSIGN_OR_RETURN(auto text, ReadInputFile(ruleset_path));
    chosen = replay::LoadRuleset(text, ruleset_path);
  } else {
    GUNBAI_ASSIGN_OR_RETURN(auto catalog, replay::RulesetCatalog::Builtin());
    GUNBAI_ASSIGN_OR_RETURN(auto found, catalog.ForLog(header));
    chosen = *found;
  }
  if (!chosen.ok()) return chosen.status();
  GUNBAI_RETURN_IF_ERROR(replay::CheckGamesRuleset(
      game, *chosen,
      ruleset_path.empty() ? std::string("gunbai's built-in one")
                           : ruleset_path,
      checking));
  return chosen;
}

constexpr char kVerifyFooter[] =
    R"(GAME is the output of `gunbai game export` (text, JSON or binary). verify
recomputes the chain of event hashes from the first event and names the
first event edited, dropped, inserted or reordered, and it refuses events
gunbaid would not have stored: any after game_end, and, in a strict game,
any that breaks a rule (replayed under the game's ruleset). For a game
whose dice gunbaid rolled (--dice=server), once the game has ended and the
secret is revealed, it checks that the secret hashes to the commitment
published at creation and recomputes every die, and that each event
carries as many dice as the game's ruleset rolls for it in the game as
played (a duel at the leaders' command ratings then). The game's ruleset
is the built-in one its header names, or FILE when gunbaid played it
under a ruleset file of the umpire's. --head=HEX checks that a head hash
you were given (printed by `gunbai game create` and by each append) is in
the export's chain: an export rewritten and re-hashed holds none of them.

--head takes the full hash or a prefix of at least 12 hex digits (as `gunbai
game watch` prints) that names one hash of the chain.

--checkpoint=NOTE (with --key=KEY) checks the export against a checkpoint
you kept (`gunbai game checkpoint --turn=N`): the note must carry a valid
signature of every key given, name this game, and sign the Merkle root of
the export's first SIZE events. An export edited after the checkpoint was
signed (an event changed, dropped, inserted or moved, or the game cut
short) fails it even when its chain of hashes was recomputed; the verdict
names the checkpoint and the events between the last checkpoint that holds
and it.

Examples:
  gunbai verify game.textproto
  gunbai verify --checkpoint=turn1.note --checkpoint=turn2.note \
      --key=gunbaid.example+1a2b3c4d+AeX... game.textproto
  gunbai verify --head=sha256:3f5e... --head=3f5e9a0c1b2d game.textproto
  gunbai verify --ruleset=house.textproto game.textproto

Exit codes: 0 intact, 1 tampered (the first problem is printed), 2 the file
cannot be read, the game's ruleset is not at hand, the dice cannot be
checked yet (the secret is revealed only after game_end), or a bad command
line (a --head that is not hex, or a prefix naming no single hash).)";

struct VerifyOptions {
  std::string path;
  std::string ruleset_path;
  std::vector<std::string> heads;
  std::vector<std::string> checkpoints;  // Files of signed checkpoints.
  std::vector<std::string> keys;         // Verifier keys, or their files.
};

// Checks the export against the checkpoints given (--checkpoint), each to
// be signed by every key (--key). Returns the exit code and prints the
// verdict; nullopt when every checkpoint holds (or none was given), with
// `summary` set.
std::optional<int> VerifyAgainstCheckpoints(const VerifyOptions& o,
                                            const v1::ExportedGame& game,
                                            std::string& summary,
                                            std::ostream& out,
                                            std::ostream& err) {
  if (o.checkpoints.empty()) {
    if (!o.keys.empty()) {
      return Fail(err, absl::InvalidArgumentError(
                           "--key opens the --checkpoint notes: give both"));
    }
    return std::nullopt;
  }
  if (o.keys.empty()) {
    return Fail(err,
                absl::InvalidArgumentError(
                    "--checkpoint needs --key: the daemon's verifier key (GET "
                    "/v1/info, or `gunbai game checkpoint` prints it), and "
                    "each player's whose cosignature you require"));
  }
  std::vector<replay::NoteVerifier> keys;
  for (const std::string& k : o.keys) {
    absl::StatusOr<replay::NoteVerifier> key = VerifierKeyArgument(k);
    if (!key.ok()) return Fail(err, key.status());
    keys.push_back(*std::move(key));
  }
  std::vector<replay::KeptCheckpoint> kept;
  for (const std::string& path : o.checkpoints) {
    auto note = ReadInputFile(path);
    if (!note.ok()) return Fail(err, note.status());
    kept.push_back({path, *std::move(note)});
  }
  absl::StatusOr<replay::CheckpointVerdict> verdict =
      replay::VerifyCheckpoints(game, kept, keys);
  if (!verdict.ok()) return Fail(err, verdict.status());
  if (!verdict->holds) {
    out << "TAMPERED: " << verdict->text << "\n";
    return kExitFindings;
  }
  summary = verdict->text;
  return std::nullopt;
}

// Reads a --head value: "sha256:" and case dropped; hex, 12 to 64 digits.
std::string CheckHead(std::string& head) {
  absl::string_view value(head);
  absl::ConsumePrefix(&value, "sha256:");
  std::string hex = absl::AsciiStrToLower(value);
  if (hex.size() < 12 || hex.size() > 64 ||
      hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::StrCat("\"", head,
                        "\" is not a head hash: give the 64 hex digits "
                        "(sha256:HEX as create and append print them) or a "
                        "prefix of at least 12");
  }
  head = hex;
  return "";
}

int Verify(const VerifyOptions& o, std::ostream& out, std::ostream& err) {
  auto bytes = ReadInputFile(o.path);
  if (!bytes.ok()) return Fail(err, bytes.status());
  auto game = replay::ParseExportedGame(*bytes, o.path);
  if (!game.ok()) return Fail(err, game.status());
  std::string checkpoints;
  if (std::optional<int> code =
          VerifyAgainstCheckpoints(o, *game, checkpoints, out, err)) {
    return *code;
  }
  auto verdict =
      replay::VerifyExport(*game, o.heads, [&](absl::string_view checking) {
        return VerifyRuleset(o.ruleset_path, *game, checking);
      });
  if (!verdict.ok()) return Fail(err, verdict.status());
  using Kind = replay::ExportVerdict::Kind;
  switch (verdict->kind) {
    case Kind::kIntact:
      out << "ok: " << verdict->text
          << (checkpoints.empty() ? "" : absl::StrCat("; ", checkpoints))
          << "\n";
      return kExitClean;
    case Kind::kTampered:
      out << "TAMPERED: " << verdict->text << "\n";
      return kExitFindings;
    case Kind::kIncomplete:
      out << "INCOMPLETE: " << verdict->text << "\n";
      return kExitBadInput;
    case Kind::kRulesetUnusable:
      err << "gunbai verify: " << verdict->text << "\n";
      return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace

int RunVerifyCli(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  std::vector<std::string> full = {"verify"};
  full.insert(full.end(), args.begin(), args.end());
  return RunCli(full, out, err);
}

void AddVerifyCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* verify = app.add_subcommand(
      "verify", "check an exported live game for tampering, offline");
  verify->footer(kVerifyFooter);
  verify->add_option("GAME", o->path, "the output of `gunbai game export`")
      ->required();
  verify
      ->add_option("--ruleset", o->ruleset_path,
                   "the ruleset file gunbaid played the game under, when not "
                   "the built-in one its header names")
      ->type_name("FILE");
  verify
      ->add_option("--head", o->heads,
                   "a head hash you were given (by create or an append): it "
                   "must be in the export's chain (repeat for more)")
      ->type_name("HEX")
      ->allow_extra_args(false)
      ->transform(CLI::Validator(CheckHead, ""));
  verify
      ->add_option("--checkpoint", o->checkpoints,
                   "a signed checkpoint you kept (`gunbai game checkpoint`): "
                   "the export's first SIZE events must have its root "
                   "(repeat for each turn's)")
      ->type_name("NOTE");
  verify
      ->add_option("--key", o->keys,
                   "with --checkpoint: a verifier key (text or file) every "
                   "checkpoint must carry a valid signature of: the daemon's, "
                   "and each player's whose cosignature you require")
      ->type_name("KEY");
  verify->callback(
      [o, &context] { context.code = Verify(*o, context.out, context.err); });
}

}  // namespace gunbai::service
