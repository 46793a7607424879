#include "replay/legal_actions.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "replay/audit.h"
#include "replay/text_errors.h"
#include "replay/live_batch.h"

namespace gunbai::replay {

namespace {

// The key a trial's server dice are drawn with (a game's is 32 bytes).
constexpr char kTrialDiceKey[] = "gunbai legal-actions trial key!!";
static_assert(sizeof(kTrialDiceKey) - 1 == 32);

using rules::ProposedEvent;

// Tries events on a copy of the game's replay: the engine's own copy
// (Engine::Clone) when it has one, else one restored from its checkpoint.
class Trial {
 public:
  explicit Trial(const LegalActionsGame& game) : game_(game) {
    settings_ = *game.settings;
    settings_.set_policy(v1::APPEND_POLICY_STRICT);
    if (game.ruleset->plugin->server_dice != nullptr) {
      settings_.set_dice_mode(v1::DICE_MODE_SERVER);
    }
  }

  // FailedPrecondition when the engine can be copied neither way.
  absl::Status Prepare() {
    findings_.Clear();
    if (game_.engine->Clone(rules::EngineOutput{&findings_, nullptr}) !=
        nullptr) {
      return absl::OkStatus();
    }
    absl::StatusOr<std::string> checkpoint = game_.engine->SaveCheckpoint();
    if (!checkpoint.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "this ruleset does not list its legal actions (",
          checkpoint.status().message(), "); declare the event in full"));
    }
    checkpoint_ = *std::move(checkpoint);
    return absl::OkStatus();
  }

  // True when the engine, from the game's state, takes `event` with no
  // violation (as a strict game would store it).
  bool Legal(const v1::Event& event) {
    findings_.Clear();
    std::unique_ptr<rules::Engine> engine =
        game_.engine->Clone(rules::EngineOutput{&findings_, nullptr});
    if (engine == nullptr) {
      auto created = CreateEngine(*game_.log, *game_.ruleset, AuditOptions(),
                                  rules::EngineOutput{&findings_, nullptr});
      if (!created.ok() || !(*created)->RestoreCheckpoint(checkpoint_).ok()) {
        return false;
      }
      engine = *std::move(created);
      findings_.Clear();
    }
    LiveBatchGame batch;
    batch.game_id = "legal-actions";
    batch.settings = &settings_;
    batch.ruleset = game_.ruleset;
    // Any 32-byte key: the dice of a trial decide nothing it is kept for.
    batch.dice_key =
        absl::string_view(kTrialDiceKey, sizeof(kTrialDiceKey) - 1);
    batch.head = "legal-actions-trial";
    batch.umpire = game_.umpire;
    batch.clan = game_.clan;
    request_.Clear();
    v1::AppendedEvent& appended = *request_.add_events();
    appended.set_event_id("legal-actions-trial");
    *appended.mutable_event() = event;
    auto played = PlayLiveBatch(batch, request_, *engine, findings_);
    if (!played.ok()) return false;
    return std::none_of(findings_.begin(), findings_.end(),
                        [](const v1::Finding& f) {
                          return f.severity() == v1::SEVERITY_VIOLATION;
                        });
  }

 private:
  const LegalActionsGame& game_;
  std::string checkpoint_;
  v1::GameSettings settings_;
  google::protobuf::RepeatedPtrField<v1::Finding> findings_;
  v1::AppendEventsRequest request_;
};

const std::string& NameOf(const rules::BattleState& state, int unit) {
  const rules::UnitProfile& p = state.profiles[static_cast<std::size_t>(unit)];
  return p.name.empty() ? p.id : p.name;
}

// The generic candidates, for a ruleset without a move generator
// (Engine::ProposeEvents): every event of each kind the clan's units could
// make, left to the trial.
void ProposeGeneric(const rules::BattleState& state, int clan, bool umpire,
                    absl::string_view clan_id,
                    std::vector<ProposedEvent>& out) {
  const auto add = [&out, clan_id](absl::string_view kind, int unit,
                                   int target) -> ProposedEvent& {
    ProposedEvent& p = out.emplace_back();
    p.kind = kind;
    p.unit = unit;
    p.target = target;
    p.event.set_clan(std::string(clan_id));
    return p;
  };
  if (umpire) {
    out.emplace_back().kind = "turn_start";
    out.back().event.mutable_turn_start();
    out.emplace_back().kind = "game_end";
    out.back().event.mutable_game_end();
  }
  add("activation", -1, -1).event.mutable_activation();
  for (std::size_t i = 0; i < state.profiles.size(); ++i) {
    const int u = static_cast<int>(i);
    const rules::UnitProfile& me = state.profiles[i];
    const rules::UnitStatus& status = state.units[i];
    if (me.clan != clan || status.removed) continue;
    for (const v1::MoveKind kind : {v1::MOVE_KIND_MOVE, v1::MOVE_KIND_MANOEUVRE,
                                    v1::MOVE_KIND_TURN_ABOUT}) {
      v1::Move& move = *add("move", u, -1).event.mutable_move();
      move.set_unit(me.id);
      move.set_kind(kind);
    }
    for (std::size_t j = 0; j < state.profiles.size(); ++j) {
      const int e = static_cast<int>(j);
      if (state.profiles[j].clan == clan || state.units[j].removed) continue;
      const std::string& enemy = state.profiles[j].id;
      v1::ChargeDeclaration& charge =
          *add("charge", u, e).event.mutable_charge();
      charge.set_unit(me.id);
      charge.set_target(enemy);
      ProposedEvent& fire = add("fire", u, e);
      fire.max_stands = status.stands;
      fire.ranges = {v1::RANGE_BAND_EFFECTIVE, v1::RANGE_BAND_LONG};
      v1::Firing& firing = *fire.event.mutable_firing();
      firing.set_unit(me.id);
      firing.set_target(enemy);
      firing.set_stands_firing(static_cast<std::uint32_t>(status.stands));
      firing.mutable_facts()->set_range(v1::RANGE_BAND_EFFECTIVE);
      const rules::UnitStatus& them = state.units[j];
      const bool in_contact = state.FindMelee(u, e) != nullptr ||
                              status.charged_into_contact_with == e ||
                              them.charged_into_contact_with == u ||
                              status.charging_target == e ||
                              them.charging_target == u;
      if (!in_contact) continue;
      ProposedEvent& round = add("melee", u, e);
      round.max_stands = status.stands;
      v1::MeleeRound& r = *round.event.mutable_melee_round();
      for (const int side : {u, e}) {
        const rules::UnitStatus& st =
            state.units[static_cast<std::size_t>(side)];
        v1::MeleeSide& s = *r.add_sides();
        s.set_unit(state.profiles[static_cast<std::size_t>(side)].id);
        s.set_stands_fighting(static_cast<std::uint32_t>(st.stands));
        s.set_front_stands_in_contact(static_cast<std::uint32_t>(
            std::min(st.stands, std::max(st.stands_per_rank, 1))));
      }
    }
    // Each reason, highest first: the engine takes only the test the game
    // owes.
    for (int reason = 8; reason >= 1; --reason) {
      v1::MoraleTest& test = *add("morale", u, -1).event.mutable_morale_test();
      test.set_unit(me.id);
      test.set_reason(static_cast<std::uint32_t>(reason));
    }
    for (const v1::ResultMoveKind kind :
         {v1::RESULT_MOVE_KIND_PUSH_BACK, v1::RESULT_MOVE_KIND_FOLLOW_UP,
          v1::RESULT_MOVE_KIND_ROUT, v1::RESULT_MOVE_KIND_PURSUIT,
          v1::RESULT_MOVE_KIND_RETIRE, v1::RESULT_MOVE_KIND_RETREAT,
          v1::RESULT_MOVE_KIND_HOLD}) {
      v1::ResultMove& move =
          *add("result_move", u, -1).event.mutable_result_move();
      move.set_unit(me.id);
      move.set_kind(kind);
    }
  }
  add("turn_end", -1, -1).event.mutable_turn_end();
}

absl::string_view MoveWords(v1::MoveKind kind) {
  switch (kind) {
    case v1::MOVE_KIND_MANOEUVRE:
      return "manoeuvres";
    case v1::MOVE_KIND_TURN_ABOUT:
      return "turns about";
    default:
      return "moves";
  }
}

absl::string_view ResultMoveWords(v1::ResultMoveKind kind) {
  switch (kind) {
    case v1::RESULT_MOVE_KIND_PUSH_BACK:
      return "is pushed back";
    case v1::RESULT_MOVE_KIND_FOLLOW_UP:
      return "follows up";
    case v1::RESULT_MOVE_KIND_ROUT:
      return "routs";
    case v1::RESULT_MOVE_KIND_PURSUIT:
      return "pursues";
    case v1::RESULT_MOVE_KIND_RETIRE:
      return "retires";
    case v1::RESULT_MOVE_KIND_RETREAT:
      return "retreats";
    case v1::RESULT_MOVE_KIND_HOLD:
      return "holds its ground";
    default:
      return "makes a result move";
  }
}

// What the action is, in plain words.
std::string Label(const rules::BattleState& state, const ProposedEvent& p,
                  absl::string_view clan_id) {
  const v1::Event& e = p.event;
  const std::string unit = p.unit >= 0 ? NameOf(state, p.unit) : "";
  const std::string target = p.target >= 0 ? NameOf(state, p.target) : "";
  switch (e.body_case()) {
    case v1::Event::kTurnStart:
      return absl::StrCat("Start turn ", e.turn());
    case v1::Event::kGameEnd:
      return "End the game";
    case v1::Event::kActivation:
      return absl::StrCat(clan_id, " begins its activation");
    case v1::Event::kTurnEnd:
      return absl::StrCat(clan_id, " ends its turn");
    case v1::Event::kMove:
      return absl::StrCat(unit, " ", MoveWords(e.move().kind()));
    case v1::Event::kCharge:
      return absl::StrCat(
          unit, e.charge().counter_charge() ? " counter-charges " : " charges ",
          target);
    case v1::Event::kFiring: {
      const v1::Firing& f = e.firing();
      std::string range;
      if (p.ranges.size() == 1) {
        range = absl::StrCat(
            p.ranges[0] == v1::RANGE_BAND_LONG ? ", long range"
                                               : ", effective range",
            f.facts().has_distance_mm()
                ? absl::StrCat(", ", f.facts().distance_mm() / 10, " cm")
                : "");
      }
      return absl::StrCat(
          unit, " fires at ", target, " (up to ", f.stands_firing(),
          f.stands_firing() == 1 ? " stand" : " stands", range, ")");
    }
    case v1::Event::kMeleeRound: {
      const v1::MeleeRound& r = e.melee_round();
      return absl::StrCat(unit, " fights ", target, " (a melee round, ",
                          r.sides(0).stands_fighting(), " stands against ",
                          r.sides(1).stands_fighting(), ")");
    }
    case v1::Event::kMoraleTest:
      return e.morale_test().reason() == 8
                 ? absl::StrCat(unit, " tests to rally (reason 8)")
                 : absl::StrCat(unit, " tests morale (reason ",
                                e.morale_test().reason(), ")");
    case v1::Event::kResultMove:
      return absl::StrCat(unit, " ", ResultMoveWords(e.result_move().kind()));
    case v1::Event::kLeaderLoss: {
      const std::string& leader = e.leader_loss().leader();
      for (const rules::LeaderState& l : state.leaders) {
        if (l.id == leader) {
          return absl::StrCat(l.name.empty() ? l.id : l.name,
                              " rolls for leader loss");
        }
      }
      return absl::StrCat(leader, " rolls for leader loss");
    }
    case v1::Event::kRemoval:
      return absl::StrCat(unit, " is removed (", e.removal().reason(), ")");
    default:
      return std::string(p.kind);
  }
}

// Sets the stands of a firing or of the acting side of a melee round.
void SetStands(v1::Event& event, int stands, int their_stands) {
  if (event.has_firing()) {
    event.mutable_firing()->set_stands_firing(
        static_cast<std::uint32_t>(stands));
  } else if (event.has_melee_round()) {
    v1::MeleeRound& r = *event.mutable_melee_round();
    r.mutable_sides(0)->set_stands_fighting(static_cast<std::uint32_t>(stands));
    r.mutable_sides(1)->set_stands_fighting(
        static_cast<std::uint32_t>(their_stands));
  }
}

// The counts of stands a proposal is tried with, in order: for a firing
// the most, then one (none fires when one may not), then the rest down;
// for a melee round each count of either side, most first.
std::vector<std::pair<int, int>> StandsToTry(const ProposedEvent& p) {
  std::vector<std::pair<int, int>> tries;
  if (p.max_stands <= 0) return tries;
  if (p.event.has_firing()) {
    tries.emplace_back(p.max_stands, 0);
    if (p.max_stands > 1) tries.emplace_back(1, 0);
    for (int n = p.max_stands - 1; n >= 2; --n) tries.emplace_back(n, 0);
  } else if (p.event.has_melee_round() &&
             p.event.melee_round().sides_size() == 2) {
    const int theirs =
        static_cast<int>(p.event.melee_round().sides(1).stands_fighting());
    for (int a = p.max_stands; a >= 1; --a) {
      for (int b = theirs; b >= 1; --b) tries.emplace_back(a, b);
    }
  }
  return tries;
}

// Why the clan may append nothing now, in words.
std::string WaitingFor(const rules::BattleState& state, int clan) {
  const auto name = [&state](int c) {
    return c >= 0 && static_cast<std::size_t>(c) < state.clans.size()
               ? state.clans[static_cast<std::size_t>(c)]
               : std::string("another clan");
  };
  if (state.turn == 0) {
    return "the game has not started: the umpire appends the first "
           "turn_start";
  }
  if (clan >= 0 && (state.turn_ended_clans >> clan & 1u) != 0) {
    return absl::StrCat(name(clan), " has ended turn ", state.turn,
                        "; waiting for the other clans to end theirs");
  }
  if (state.active_clan >= 0 && state.active_clan != clan) {
    return absl::StrCat("waiting for ", name(state.active_clan),
                        " to finish its activation");
  }
  return "the rules allow this clan nothing now: wait for the others, or "
         "ask the umpire";
}

}  // namespace

absl::StatusOr<v1::GetLegalActionsResponse> ListLegalActions(
    const LegalActionsGame& game) {
  v1::GetLegalActionsResponse answer;
  answer.set_version(game.version);
  answer.set_clan(std::string(game.clan));
  const rules::BattleState& state = game.engine->state();
  std::uint64_t last_seq = state.last_seq;
  if (!game.log->events().empty()) {
    last_seq = std::max(last_seq, game.log->events().rbegin()->seq());
  }
  answer.set_next_seq(last_seq + 1);
  answer.set_turn(static_cast<std::uint32_t>(std::max(state.turn, 0)));
  if (game.ended) {
    answer.set_waiting_for("the game has ended");
    return answer;
  }
  Trial trial(game);
  if (absl::Status ready = trial.Prepare(); !ready.ok()) return ready;
  const auto at = std::find(state.clans.begin(), state.clans.end(), game.clan);
  const int clan =
      at == state.clans.end() ? -1 : static_cast<int>(at - state.clans.begin());
  std::vector<ProposedEvent> proposals;
  if (!game.engine->ProposeEvents(clan, game.umpire, proposals)) {
    proposals.clear();
    ProposeGeneric(state, clan, game.umpire, game.clan, proposals);
  }
  const bool recorded_dice =
      game.settings->dice_mode() == v1::DICE_MODE_RECORDED;
  int tried = 0;
  // A morale test offered for a unit: the generic candidates' lower
  // reasons are not tried.
  std::string offered_test;
  for (ProposedEvent& p : proposals) {
    v1::Event& event = p.event;
    event.set_seq(last_seq + 1);
    const bool starts_turn = event.has_turn_start();
    event.set_turn(static_cast<std::uint32_t>(std::max(state.turn, 0) +
                                              (starts_turn ? 1 : 0)));
    const std::string unit_id =
        p.unit >= 0 ? state.profiles[static_cast<std::size_t>(p.unit)].id : "";
    if (event.has_morale_test() && offered_test == unit_id) continue;
    bool legal = false;
    std::vector<std::pair<int, int>> counts = StandsToTry(p);
    if (counts.empty()) counts.emplace_back(0, 0);
    for (const auto& [mine, theirs] : counts) {
      if (++tried > kMaxLegalActionCandidates) break;
      if (mine > 0) SetStands(event, mine, theirs);
      if (trial.Legal(event)) {
        legal = true;
        if (mine > 0) p.max_stands = mine;
        break;
      }
    }
    if (tried > kMaxLegalActionCandidates) {
      answer.set_waiting_for(absl::StrCat(
          "only the first ", kMaxLegalActionCandidates,
          " candidate actions were tried; declare any other in full"));
      break;
    }
    if (!legal) continue;
    if (event.has_morale_test()) offered_test = unit_id;
    v1::LegalAction& out = *answer.add_actions();
    out.set_label(Label(state, p, game.clan));
    out.set_kind(std::string(p.kind));
    out.set_unit(unit_id);
    if (p.target >= 0) {
      out.set_target(state.profiles[static_cast<std::size_t>(p.target)].id);
    }
    if (p.max_stands > 0) {
      out.set_max_stands(static_cast<std::uint32_t>(p.max_stands));
    }
    for (const v1::RangeBand band : p.ranges) out.add_ranges(band);
    out.set_needs_destination(p.needs_destination);
    out.set_reach_mm(static_cast<std::uint32_t>(std::max(p.reach_mm, 0)));
    if (p.unit >= 0) {
      const rules::UnitStatus& st =
          state.units[static_cast<std::size_t>(p.unit)];
      if (st.placed) {
        out.mutable_from()->set_x_mm(st.pose.x_mm);
        out.mutable_from()->set_y_mm(st.pose.y_mm);
        out.mutable_from()->set_facing_deg(st.pose.facing_deg);
      }
    }
    if (recorded_dice && game.ruleset->plugin->server_dice != nullptr) {
      auto plan =
          game.ruleset->plugin->server_dice(event, game.ruleset->data, state);
      if (plan.ok() && !plan->open_ended()) {
        out.set_dice(static_cast<std::uint32_t>(plan->dice));
      }
    }
    *out.mutable_event() = std::move(event);
  }
  if (answer.actions().empty() && answer.waiting_for().empty()) {
    answer.set_waiting_for(WaitingFor(state, clan));
  }
  return answer;
}

absl::StatusOr<std::string> ClanToList(const v1::Header& header,
                                       absl::string_view game_id, bool umpire,
                                       absl::string_view callers_clan,
                                       absl::string_view asked) {
  if (!umpire) {
    if (!asked.empty() && asked != callers_clan) {
      return absl::PermissionDeniedError(
          absl::StrCat("your credential is ", callers_clan,
                       "'s: ask for its actions (clan empty or \"",
                       callers_clan, "\"), not ", Excerpt(asked)));
    }
    return std::string(callers_clan);
  }
  const auto& clans = header.clans();
  if (std::none_of(clans.begin(), clans.end(),
                   [&](const v1::Clan& c) { return c.id() == asked; })) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the umpire names the clan whose actions to list: ",
        asked.empty() ? std::string("none given") : Excerpt(asked),
        " is not a clan of game ", game_id));
  }
  return std::string(asked);
}

}  // namespace gunbai::replay
