#include "replay/legal_actions.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "replay/audit.h"
#include "replay/live_batch.h"

namespace gunbai::replay {

namespace {

// The key a trial's server dice are drawn with (a game's is 32 bytes).
constexpr char kTrialDiceKey[] = "gunbai legal-actions trial key!!";
static_assert(sizeof(kTrialDiceKey) - 1 == 32);

// A candidate: the event, and what the answer says of it.
struct Candidate {
  v1::Event event;
  std::string label;
  std::string kind;
  std::string unit;
  std::string target;
  // For a firing: candidates of each count from the most down, tried in
  // that order; the first legal one is offered.
  int stands = 0;
};

class Trial {
 public:
  Trial(const LegalActionsGame& game, std::string checkpoint)
      : game_(game), checkpoint_(std::move(checkpoint)) {
    settings_ = *game.settings;
    settings_.set_policy(v1::APPEND_POLICY_STRICT);
    if (game.ruleset->plugin->server_dice != nullptr) {
      settings_.set_dice_mode(v1::DICE_MODE_SERVER);
    }
  }

  // True when the engine, from the game's state, takes `event` with no
  // violation (as a strict game would store it).
  bool Legal(const v1::Event& event) {
    google::protobuf::RepeatedPtrField<v1::Finding> findings;
    auto engine = CreateEngine(*game_.log, *game_.ruleset, AuditOptions(),
                               rules::EngineOutput{&findings, nullptr});
    if (!engine.ok() || !(*engine)->RestoreCheckpoint(checkpoint_).ok()) {
      return false;
    }
    findings.Clear();
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
    v1::AppendEventsRequest request;
    v1::AppendedEvent& appended = *request.add_events();
    appended.set_event_id("legal-actions-trial");
    *appended.mutable_event() = event;
    auto played = PlayLiveBatch(batch, request, **engine, findings);
    if (!played.ok()) return false;
    return std::none_of(findings.begin(), findings.end(),
                        [](const v1::Finding& f) {
                          return f.severity() == v1::SEVERITY_VIOLATION;
                        });
  }

 private:
  const LegalActionsGame& game_;
  const std::string checkpoint_;
  v1::GameSettings settings_;
};

class CandidateList {
 public:
  CandidateList(const rules::BattleState& state, std::uint64_t seq,
                absl::string_view clan)
      : state_(state), seq_(seq), clan_(clan) {}

  Candidate& Add(std::string kind, std::string label, bool clan_event = true) {
    Candidate& c = candidates_.emplace_back();
    c.kind = std::move(kind);
    c.label = std::move(label);
    c.event.set_seq(seq_);
    c.event.set_turn(static_cast<std::uint32_t>(std::max(state_.turn, 0)));
    if (clan_event) c.event.set_clan(std::string(clan_));
    return c;
  }

  std::vector<Candidate>& all() { return candidates_; }

 private:
  const rules::BattleState& state_;
  const std::uint64_t seq_;
  const absl::string_view clan_;
  std::vector<Candidate> candidates_;
};

const std::string& NameOf(const rules::BattleState& state, int unit) {
  const rules::UnitProfile& p = state.profiles[static_cast<std::size_t>(unit)];
  return p.name.empty() ? p.id : p.name;
}

// The stands a side may fight with, most first: every count down to one
// (which the engine allows depends on both sides' frontages, the round and
// the weapons; the first it takes is offered).
std::vector<int> FightingChoices(const rules::UnitStatus& s) {
  std::vector<int> choices;
  for (int n = s.stands; n >= 1; --n) choices.push_back(n);
  return choices;
}

// A melee round of `u` against `e`, for each count of stands fighting on
// either side (the first legal one is offered: Candidate::stands groups
// them).
void AddMeleeCandidates(const rules::BattleState& state, int u, int e,
                        CandidateList& list) {
  const rules::UnitStatus& mine = state.units[static_cast<std::size_t>(u)];
  const rules::UnitStatus& theirs = state.units[static_cast<std::size_t>(e)];
  for (int a : FightingChoices(mine)) {
    for (int b : FightingChoices(theirs)) {
      Candidate& round =
          list.Add("melee", absl::StrCat(NameOf(state, u), " fights ",
                                         NameOf(state, e), " (a melee round, ",
                                         a, " stands against ", b, ")"));
      round.unit = state.profiles[static_cast<std::size_t>(u)].id;
      round.target = state.profiles[static_cast<std::size_t>(e)].id;
      round.stands = a;
      v1::MeleeRound& r = *round.event.mutable_melee_round();
      for (const auto& [side, stands] : {std::pair{u, a}, std::pair{e, b}}) {
        const rules::UnitStatus& st =
            state.units[static_cast<std::size_t>(side)];
        v1::MeleeSide& out = *r.add_sides();
        out.set_unit(state.profiles[static_cast<std::size_t>(side)].id);
        out.set_stands_fighting(static_cast<std::uint32_t>(stands));
        out.set_front_stands_in_contact(static_cast<std::uint32_t>(
            std::min(st.stands, std::max(st.stands_per_rank, 1))));
      }
    }
  }
}

void AddUnitCandidates(const rules::BattleState& state, int u, int clan,
                       CandidateList& list) {
  const rules::UnitProfile& me = state.profiles[static_cast<std::size_t>(u)];
  const rules::UnitStatus& status = state.units[static_cast<std::size_t>(u)];
  const std::string& name = NameOf(state, u);
  const struct {
    v1::MoveKind kind;
    const char* words;
  } moves[] = {{v1::MOVE_KIND_MOVE, "moves"},
               {v1::MOVE_KIND_MANOEUVRE, "manoeuvres"},
               {v1::MOVE_KIND_TURN_ABOUT, "turns about"}};
  for (const auto& m : moves) {
    Candidate& c = list.Add("move", absl::StrCat(name, " ", m.words));
    c.unit = me.id;
    c.event.mutable_move()->set_unit(me.id);
    c.event.mutable_move()->set_kind(m.kind);
  }
  for (std::size_t e = 0; e < state.profiles.size(); ++e) {
    if (state.profiles[e].clan == clan || state.units[e].removed) continue;
    const std::string& enemy = state.profiles[e].id;
    const std::string& enemy_name = NameOf(state, static_cast<int>(e));
    Candidate& charge =
        list.Add("charge", absl::StrCat(name, " charges ", enemy_name));
    charge.unit = me.id;
    charge.target = enemy;
    charge.event.mutable_charge()->set_unit(me.id);
    charge.event.mutable_charge()->set_target(enemy);
    for (int stands = status.stands; stands >= 1; --stands) {
      Candidate& fire = list.Add("fire", "");
      fire.unit = me.id;
      fire.target = enemy;
      fire.stands = stands;
      fire.label = absl::StrCat(name, " fires at ", enemy_name, " (up to ",
                                stands, stands == 1 ? " stand)" : " stands)");
      v1::Firing& firing = *fire.event.mutable_firing();
      firing.set_unit(me.id);
      firing.set_target(enemy);
      firing.set_stands_firing(static_cast<std::uint32_t>(stands));
      firing.mutable_facts()->set_range(v1::RANGE_BAND_EFFECTIVE);
    }
    const rules::UnitStatus& them = state.units[e];
    const bool in_contact =
        state.FindMelee(u, static_cast<int>(e)) != nullptr ||
        status.charged_into_contact_with == static_cast<int>(e) ||
        them.charged_into_contact_with == u ||
        status.charging_target == static_cast<int>(e) ||
        them.charging_target == u;
    if (in_contact) AddMeleeCandidates(state, u, static_cast<int>(e), list);
  }
  // Each reason, highest first: the engine takes only a test the game owes
  // (for the highest reason owed), which the state alone does not show for
  // every reason (a leader killed near, routers passing through).
  for (int reason = 8; reason >= 1; --reason) {
    Candidate& c = list.Add(
        "morale", absl::StrCat(name, " tests morale (reason ", reason, ")"));
    c.unit = me.id;
    c.event.mutable_morale_test()->set_unit(me.id);
    c.event.mutable_morale_test()->set_reason(
        static_cast<std::uint32_t>(reason));
  }
  const struct {
    v1::ResultMoveKind kind;
    const char* words;
  } results[] = {{v1::RESULT_MOVE_KIND_PUSH_BACK, "is pushed back"},
                 {v1::RESULT_MOVE_KIND_FOLLOW_UP, "follows up"},
                 {v1::RESULT_MOVE_KIND_ROUT, "routs"},
                 {v1::RESULT_MOVE_KIND_PURSUIT, "pursues"},
                 {v1::RESULT_MOVE_KIND_RETIRE, "retires"},
                 {v1::RESULT_MOVE_KIND_RETREAT, "retreats"},
                 {v1::RESULT_MOVE_KIND_HOLD, "holds its ground"}};
  for (const auto& r : results) {
    Candidate& c = list.Add("result_move", absl::StrCat(name, " ", r.words));
    c.unit = me.id;
    c.event.mutable_result_move()->set_unit(me.id);
    c.event.mutable_result_move()->set_kind(r.kind);
  }
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
  absl::StatusOr<std::string> checkpoint = game.engine->SaveCheckpoint();
  if (!checkpoint.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this ruleset does not list its legal actions (",
        checkpoint.status().message(), "); declare the event in full"));
  }
  const auto at = std::find(state.clans.begin(), state.clans.end(), game.clan);
  const int clan =
      at == state.clans.end() ? -1 : static_cast<int>(at - state.clans.begin());
  CandidateList list(state, last_seq + 1, game.clan);
  if (game.umpire) {
    Candidate& start =
        list.Add("turn_start", absl::StrCat("Start turn ", state.turn + 1),
                 /*clan_event=*/false);
    start.event.set_turn(
        static_cast<std::uint32_t>(std::max(state.turn, 0) + 1));
    start.event.mutable_turn_start();
    list.Add("game_end", "End the game", /*clan_event=*/false)
        .event.mutable_game_end();
  }
  list.Add("activation", absl::StrCat(game.clan, " begins its activation"))
      .event.mutable_activation();
  for (std::size_t u = 0; u < state.profiles.size(); ++u) {
    if (state.profiles[u].clan != clan || state.units[u].removed) continue;
    AddUnitCandidates(state, static_cast<int>(u), clan, list);
  }
  list.Add("turn_end", absl::StrCat(game.clan, " ends its turn"))
      .event.mutable_turn_end();

  Trial trial(game, *std::move(checkpoint));
  int tried = 0;
  // The firing (or melee round) of a unit at a target already offered:
  // its other counts of stands are not.
  std::string offered;
  for (Candidate& c : list.all()) {
    const bool counted =
        c.kind == "fire" || c.kind == "melee" || c.kind == "morale";
    if (counted && offered == c.kind + "|" + c.unit + "|" + c.target) continue;
    if (++tried > kMaxLegalActionCandidates) {
      answer.set_waiting_for(absl::StrCat(
          "only the first ", kMaxLegalActionCandidates,
          " candidate actions were tried; declare any other in full"));
      break;
    }
    if (!trial.Legal(c.event)) continue;
    if (counted) offered = c.kind + "|" + c.unit + "|" + c.target;
    v1::LegalAction& out = *answer.add_actions();
    out.set_label(c.label);
    out.set_kind(c.kind);
    out.set_unit(c.unit);
    out.set_target(c.target);
    if (c.kind == "fire")
      out.set_max_stands(static_cast<std::uint32_t>(c.stands));
    *out.mutable_event() = std::move(c.event);
  }
  if (answer.actions().empty() && answer.waiting_for().empty()) {
    answer.set_waiting_for(WaitingFor(state, clan));
  }
  return answer;
}

}  // namespace gunbai::replay
