// GetLegalActions against games played by the rules: the sample game that
// audits clean (tests/data/anegawa-clean.textproto) and generated clean
// Daimyo games, appended event by event to a live game by the umpire.
// Before each action a clan takes, the event the game actually plays next
// must be among the actions offered to that clan (same kind, unit and
// target): the completeness of the list, checked against games the engine
// did not choose. Every offered action is by construction one the engine
// took without a violation on a copy of the game (replay/legal_actions.h);
// these tests check that copy stays a copy (the game's answers before and
// after are the same) and the credential rules.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "service/daemon/game_service.h"
#include "service/store/sqlite_game_store.h"
#include "tests/store/in_process_games.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;
constexpr char kUmpire[] = "umpire-credential-0123456789";

v1::BattleLog SampleLog(const std::string& name) {
  const std::string path = absl::StrCat(GUNBAI_TEST_DATA_DIR, "/", name);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  auto log = replay::ParseBattleLog(text, replay::LogFormat::kText, path);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : v1::BattleLog();
}

// The kind, unit and target GetLegalActions would give `event`; empty kind
// for the events it does not offer (challenges, leader-loss rolls,
// removals).
std::string KeyOf(const v1::Event& e) {
  switch (e.body_case()) {
    case v1::Event::kActivation:
      return "activation||";
    case v1::Event::kMove:
      return "move|" + e.move().unit() + "|";
    case v1::Event::kCharge:
      return "charge|" + e.charge().unit() + "|" + e.charge().target();
    case v1::Event::kFiring:
      return "fire|" + e.firing().unit() + "|" + e.firing().target();
    case v1::Event::kMeleeRound:
      if (e.melee_round().sides_size() != 2) return "";
      return "melee|" + e.melee_round().sides(0).unit() + "|" +
             e.melee_round().sides(1).unit();
    case v1::Event::kMoraleTest:
      return "morale|" + e.morale_test().unit() + "|";
    case v1::Event::kResultMove:
      return "result_move|" + e.result_move().unit() + "|";
    case v1::Event::kTurnEnd:
      return "turn_end||";
    default:
      return "";
  }
}

class LegalActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gunbai-legal-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    auto store = SqliteGameStore::Open(dir_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    auto catalog = replay::RulesetCatalog::Builtin();
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::make_unique<replay::RulesetCatalog>(*std::move(catalog));
    served_ = std::make_unique<gunbai::testing::InProcessGames>(
        store_.get(), catalog_.get(), kUmpire);
  }
  void TearDown() override {
    served_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  v1::CreateGameResponse Create(const v1::BattleLog& log,
                                const std::string& id) {
    v1::CreateGameRequest request;
    *request.mutable_header() = log.header();
    request.mutable_header()->set_game_id(id);
    *request.mutable_order_of_battle() = log.order_of_battle();
    if (log.has_table()) *request.mutable_table() = log.table();
    *request.mutable_terrain() = log.terrain();
    request.mutable_settings()->set_policy(v1::APPEND_POLICY_RECORD);
    request.mutable_settings()->set_dice_mode(v1::DICE_MODE_RECORDED);
    grpc::ClientContext context;
    gunbai::testing::AuthorizeAs(context, kUmpire);
    v1::CreateGameResponse response;
    grpc::Status status =
        served_->stub().CreateGame(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  grpc::Status Legal(const std::string& id, const std::string& clan,
                     const std::string& token,
                     v1::GetLegalActionsResponse* out) {
    grpc::ClientContext context;
    gunbai::testing::AuthorizeAs(context, token);
    v1::GetLegalActionsRequest request;
    request.set_game_id(id);
    request.set_clan(clan);
    return served_->stub().GetLegalActions(&context, request, out);
  }

  void Append(const std::string& id, const v1::Event& event, int version) {
    grpc::ClientContext context;
    gunbai::testing::AuthorizeAs(context, kUmpire);
    v1::AppendEventsRequest request;
    request.set_game_id(id);
    request.set_expected_version(static_cast<std::uint64_t>(version));
    v1::AppendedEvent& appended = *request.add_events();
    appended.set_event_id(absl::StrCat("e", event.seq()));
    *appended.mutable_event() = event;
    v1::AppendEventsResponse response;
    grpc::Status status =
        served_->stub().AppendEvents(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  // Plays `log` into game `id`; before each event a clan takes, checks it
  // is offered. Returns the events checked.
  int PlayChecking(const v1::BattleLog& log, const std::string& id) {
    Create(log, id);
    int checked = 0;
    for (int i = 0; i < log.events_size(); ++i) {
      const v1::Event& event = log.events(i);
      const std::string key = KeyOf(event);
      if (!key.empty() && !event.clan().empty()) {
        v1::GetLegalActionsResponse legal;
        grpc::Status status = Legal(id, event.clan(), kUmpire, &legal);
        EXPECT_TRUE(status.ok()) << status.error_message();
        std::set<std::string> offered;
        for (const v1::LegalAction& a : legal.actions()) {
          offered.insert(a.kind() + "|" + a.unit() + "|" + a.target());
          EXPECT_EQ(a.event().seq(), legal.next_seq());
        }
        EXPECT_EQ(legal.next_seq(), event.seq()) << id;
        EXPECT_EQ(legal.version(), static_cast<std::uint64_t>(i));
        EXPECT_TRUE(offered.count(key) == 1)
            << id << " seq " << event.seq() << ": " << key
            << " not offered; waiting_for: " << legal.waiting_for();
        ++checked;
      }
      Append(id, event, i);
      if (HasFailure()) return checked;
      // A unit fires at most once a turn (daimyo.fire.eligibility
      // .once_per_turn): right after its firing, no firing of it is offered.
      if (event.has_firing()) {
        v1::GetLegalActionsResponse after;
        EXPECT_TRUE(Legal(id, event.clan(), kUmpire, &after).ok());
        for (const v1::LegalAction& a : after.actions()) {
          EXPECT_FALSE(a.kind() == "fire" && a.unit() == event.firing().unit())
              << id << " seq " << event.seq() << ": " << a.label();
        }
        ++fired_checks_;
      }
    }
    return checked;
  }

  int fired_checks_ = 0;
  std::string dir_;
  std::unique_ptr<GameStore> store_;
  std::unique_ptr<replay::RulesetCatalog> catalog_;
  std::unique_ptr<gunbai::testing::InProcessGames> served_;
};

TEST_F(LegalActionsTest, TheSampleGameIsAlwaysOffered) {
  EXPECT_GT(PlayChecking(SampleLog("anegawa-clean.textproto"), "anegawa"), 10);
}

TEST_F(LegalActionsTest, GeneratedCleanGamesAreAlwaysOffered) {
  int checked = 0;
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.turns = 2;
    options.units_per_clan = 4;
    checked += PlayChecking(generate::GenerateLog(options),
                            absl::StrCat("gen-", seed));
    if (HasFailure()) break;
  }
  EXPECT_GT(checked, 30);
  EXPECT_GT(fired_checks_, 0);
}

// The same on a table (the generator's deployment, its moves given their
// destinations, its volleys only at targets the tape measure allows): each
// event a clan appends is among the actions offered at its point.
TEST_F(LegalActionsTest, GeneratedTableGamesAreAlwaysOffered) {
  int checked = 0;
  for (std::uint64_t seed : {21u, 22u}) {
    generate::GeneratorOptions options;
    options.seed = seed;
    options.turns = 2;
    options.units_per_clan = 4;
    options.positions = true;
    checked += PlayChecking(generate::GenerateLog(options),
                            absl::StrCat("table-", seed));
    if (HasFailure()) break;
  }
  EXPECT_GT(checked, 20);
}

TEST_F(LegalActionsTest, CredentialsAndWaiting) {
  const v1::BattleLog log = SampleLog("anegawa-clean.textproto");
  const v1::CreateGameResponse created = Create(log, "anegawa");
  ASSERT_EQ(created.credentials_size(), 2);
  const std::string first = created.credentials(0).clan();
  const std::string second = created.credentials(1).clan();
  v1::GetLegalActionsResponse legal;
  // A player asks for another clan: refused; for its own (empty): its own.
  EXPECT_EQ(Legal("anegawa", second, created.credentials(0).token(), &legal)
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(
      Legal("anegawa", "", created.credentials(0).token(), &legal).ok());
  EXPECT_EQ(legal.clan(), first);
  // Before the first turn_start nothing is offered to a player, and the
  // answer says why.
  EXPECT_EQ(legal.actions_size(), 0);
  EXPECT_EQ(
      legal.waiting_for(),
      "the game has not started: the umpire appends the first turn_start");
  // The umpire must name a clan of the game.
  EXPECT_EQ(Legal("anegawa", "", kUmpire, &legal).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Legal("anegawa", "nobody", kUmpire, &legal).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  // The umpire is offered the turn's start.
  ASSERT_TRUE(Legal("anegawa", first, kUmpire, &legal).ok());
  bool start = false;
  for (const v1::LegalAction& a : legal.actions())
    start |= a.kind() == "turn_start";
  EXPECT_TRUE(start);
  EXPECT_EQ(Legal("missing", first, kUmpire, &legal).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace gunbai::service
