#include "tests/replay/playout.h"

#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "generate/plugins.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/audit.h"
#include "replay/ledger.h"
#include "replay/legal_actions.h"
#include "replay/live_batch.h"

namespace gunbai::testing {

namespace {

namespace v1 = ::gunbai::v1;

constexpr char kDiceKey[] = "gunbai random playouts dice key!";
static_assert(sizeof(kDiceKey) - 1 == 32);

// How much more often a kind of action other than a move or a turn's end
// is chosen: games with something in them.
constexpr int kActionWeight = 4;

std::string Where(const rules::BattleState& state) {
  return absl::StrCat("after seq ", state.last_seq, " (turn ", state.turn, ")");
}

class Playout {
 public:
  Playout(const PlayoutOptions& options, const replay::LoadedRuleset& ruleset)
      : options_(options), ruleset_(ruleset), rng_(options.seed) {
    settings_.set_policy(v1::APPEND_POLICY_STRICT);
    settings_.set_dice_mode(v1::DICE_MODE_SERVER);
  }

  PlayoutResult Run() {
    if (!Start()) return std::move(result_);
    while (result_.failure.empty()) {
      if (result_.events >= options_.max_events) {
        Fail(absl::StrCat("no end after ", result_.events,
                          " events; last offered: ", last_offered_));
        break;
      }
      const rules::BattleState& state = engine_->state();
      if (state.turn > options_.turns ||
          (state.turn == options_.turns &&
           state.phase == rules::Phase::kTurnEnded)) {
        v1::Event end;
        end.set_seq(state.last_seq + 1);
        end.set_turn(static_cast<std::uint32_t>(state.turn));
        end.mutable_game_end();
        Append(end, /*umpire=*/true, "", "game_end");
        break;
      }
      if (!Step()) break;
    }
    if (result_.failure.empty()) Audit();
    return std::move(result_);
  }

 private:
  bool Start() {
    const generate::GeneratorPlugin* generator =
        generate::FindGeneratorPlugin(options_.ruleset);
    if (generator == nullptr) {
      Fail("no generator for the ruleset");
      return false;
    }
    generate::GeneratorOptions g;
    g.seed = options_.seed;
    g.turns = 1;
    g.units_per_clan = options_.units_per_clan;
    g.positions = options_.table;
    absl::StatusOr<generate::GeneratedLog> generated =
        generator->generate(g, ruleset_);
    if (!generated.ok()) {
      Fail(absl::StrCat("cannot set up: ", generated.status().ToString()));
      return false;
    }
    base_ = std::move(generated->log);
    base_.clear_events();
    base_.mutable_header()->set_game_id(
        absl::StrCat("playout-", options_.seed));
    result_.log = base_;
    auto engine = replay::CreateEngine(base_, ruleset_, replay::AuditOptions(),
                                       rules::EngineOutput{&findings_});
    if (!engine.ok()) {
      Fail(absl::StrCat("cannot set up: ", engine.status().ToString()));
      return false;
    }
    engine_ = *std::move(engine);
    head_ = replay::GenesisHash();
    return true;
  }

  // Lists what each clan may do (as its player) and, between turns, what
  // the umpire may; chooses one and appends it. False when it cannot.
  bool Step() {
    const rules::BattleState& state = engine_->state();
    struct Offer {
      v1::LegalAction action;
      bool umpire = false;
      std::string clan;
    };
    std::vector<Offer> offers;
    std::string waiting;
    const auto list = [&](const std::string& clan, bool umpire) -> bool {
      replay::LegalActionsGame game;
      game.log = &base_;
      game.settings = &settings_;
      game.ruleset = &ruleset_;
      game.engine = engine_.get();
      game.version = static_cast<std::uint64_t>(result_.events);
      game.umpire = umpire;
      game.clan = clan;
      auto answer = replay::ListLegalActions(game);
      if (!answer.ok()) {
        Fail(absl::StrCat("the list failed ", Where(state), ": ",
                          answer.status().ToString()));
        return false;
      }
      result_.offered += answer->actions_size();
      if (!answer->waiting_for().empty()) {
        absl::StrAppend(&waiting, clan, ": ", answer->waiting_for(), "; ");
      }
      for (v1::LegalAction& a : *answer->mutable_actions()) {
        if (a.kind() == "game_end") continue;  // The playout ends the game.
        if (umpire && a.kind() != "turn_start") continue;
        offers.push_back({std::move(a), umpire, clan});
      }
      return true;
    };
    const bool between_turns = state.phase == rules::Phase::kBeforeGame ||
                               state.phase == rules::Phase::kTurnEnded;
    if (between_turns) {
      if (!list(state.clans[0], /*umpire=*/true)) return false;
    } else {
      for (const std::string& clan : state.clans) {
        if (!list(clan, /*umpire=*/false)) return false;
      }
    }
    if (offers.empty()) {
      Fail(absl::StrCat("dead end ", Where(state),
                        ": nothing is offered to anyone (", waiting, ")"));
      return false;
    }
    // A kind first, then one action of it: a turn's end is as likely as a
    // move however many moves are offered (the rules set no limit on moves
    // in an activation).
    std::map<std::string, std::vector<std::size_t>> by_kind;
    for (std::size_t i = 0; i < offers.size(); ++i) {
      by_kind[offers[i].action.kind()].push_back(i);
    }
    std::vector<int> weights;
    std::vector<const std::vector<std::size_t>*> kinds;
    last_offered_.clear();
    for (const auto& [kind, indexes] : by_kind) {
      absl::StrAppend(&last_offered_, last_offered_.empty() ? "" : ", ",
                      indexes.size(), " ", kind);
      kinds.push_back(&indexes);
      weights.push_back(kind == "turn_end" || kind == "move" ? 1
                                                             : kActionWeight);
    }
    std::discrete_distribution<int> pick_kind(weights.begin(), weights.end());
    const std::vector<std::size_t>& of_kind =
        *kinds[static_cast<std::size_t>(pick_kind(rng_))];
    Offer& chosen = offers[of_kind[std::uniform_int_distribution<std::size_t>(
        0, of_kind.size() - 1)(rng_)]];
    v1::Event event = chosen.action.event();
    if (chosen.action.needs_destination() && event.has_move()) {
      // Straight ahead by 0-100 mm (within reach), else where it stands.
      const v1::Position& from = chosen.action.from();
      int step = std::uniform_int_distribution<int>(0, 100)(rng_);
      if (chosen.action.reach_mm() > 0) {
        step = std::min<int>(step, static_cast<int>(chosen.action.reach_mm()));
      }
      const double a = from.facing_deg() * M_PI / 180.0;
      v1::Position& to = *event.mutable_move()->mutable_to();
      to = from;
      to.set_x_mm(from.x_mm() +
                  static_cast<int>(std::lround(std::sin(a) * step)));
      to.set_y_mm(from.y_mm() +
                  static_cast<int>(std::lround(std::cos(a) * step)));
      if (!Append(event, chosen.umpire, chosen.clan, chosen.action.kind(),
                  /*may_refuse=*/true)) {
        *event.mutable_move()->mutable_to() = from;
        return Append(event, chosen.umpire, chosen.clan, chosen.action.kind());
      }
      return true;
    }
    return Append(event, chosen.umpire, chosen.clan, chosen.action.kind());
  }

  // Appends `event` as the player of `clan` (or the umpire). A refusal is a
  // failure unless `may_refuse`; then the engine is as it was.
  bool Append(const v1::Event& event, bool umpire, const std::string& clan,
              const std::string& kind, bool may_refuse = false) {
    std::unique_ptr<rules::Engine> backup =
        engine_->Clone(rules::EngineOutput{&findings_});
    const int findings_before = findings_.size();
    replay::LiveBatchGame game;
    game.game_id = base_.header().game_id();
    game.settings = &settings_;
    game.ruleset = &ruleset_;
    game.dice_key = absl::string_view(kDiceKey, sizeof(kDiceKey) - 1);
    game.dice_attempt = ++attempts_;
    game.head = head_;
    game.umpire = umpire;
    game.clan = clan;
    v1::AppendEventsRequest request;
    v1::AppendedEvent& appended = *request.add_events();
    appended.set_event_id(absl::StrCat("p", event.seq()));
    *appended.mutable_event() = event;
    auto stored = replay::PlayLiveBatch(game, request, *engine_, findings_);
    if (!stored.ok()) {
      if (backup != nullptr) engine_ = std::move(backup);
      findings_.DeleteSubrange(findings_before,
                               findings_.size() - findings_before);
      if (!may_refuse) {
        Fail(absl::StrCat("an offered ", kind, " was refused ",
                          Where(engine_->state()), ": ",
                          stored.status().message()));
      }
      return false;
    }
    for (v1::StoredEvent& s : *stored) {
      head_ = s.chain_hash();
      *result_.log.add_events() = std::move(*s.mutable_event());
      ++result_.events;
    }
    ++result_.kinds[kind];
    return true;
  }

  void Audit() {
    auto report = replay::AuditLog(result_.log, ruleset_);
    if (!report.ok()) {
      Fail(absl::StrCat("the audit failed: ", report.status().ToString()));
      return;
    }
    for (const v1::Finding& f : report->findings()) {
      if (f.severity() == v1::SEVERITY_VIOLATION ||
          f.severity() == v1::SEVERITY_DISPUTE ||
          f.severity() == v1::SEVERITY_WARNING) {
        Fail(absl::StrCat("the log does not audit clean: seq ", f.seq(), " ",
                          f.rule_id(), ": ", f.message()));
        return;
      }
    }
  }

  void Fail(std::string what) {
    if (result_.failure.empty()) {
      result_.failure =
          absl::StrCat("seed ", options_.seed, " (", options_.ruleset,
                       options_.table ? ", table" : "", "): ", std::move(what));
    }
  }

  const PlayoutOptions& options_;
  const replay::LoadedRuleset& ruleset_;
  std::mt19937_64 rng_;
  v1::GameSettings settings_;
  v1::BattleLog base_;
  google::protobuf::RepeatedPtrField<v1::Finding> findings_;
  std::unique_ptr<rules::Engine> engine_;
  std::string head_;
  std::string
      last_offered_;  // "3 move, 1 turn_end": the kinds of the last step
  std::uint64_t attempts_ = 0;
  PlayoutResult result_;
};

}  // namespace

PlayoutResult PlayOut(const PlayoutOptions& options,
                      const replay::LoadedRuleset& ruleset) {
  return Playout(options, ruleset).Run();
}

}  // namespace gunbai::testing
