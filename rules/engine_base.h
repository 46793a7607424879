// The base every ruleset's Engine derives from (rules/engine.h): the
// plumbing the engines share, written once, so that a ruleset supplies only
// its rules. In the spirit of OpenSpiel's State::ApplyAction (public,
// non-virtual: the common checks and bookkeeping) and DoApplyAction
// (virtual: the game's own rules): Apply and Finish are the base's (final);
// the ruleset overrides the hooks they call, one an event body (OnMove,
// OnFiring...), and AddUnitFacts/AddLeaderFacts for its part of the order
// of battle.
//
// The base holds the replay's state, options and output, the seq and turn
// of the event being applied, the indexes of the order of battle's ids, and
// the findings and outcomes plumbing: reporting (with an optional bound on
// the findings listed), recording outcomes, following computed outcomes
// (what-if replays), resolving ids with the messages every ruleset gives,
// and the checks of an event's place in the sequence every ruleset makes.
// Thread-compatible, as Engine.
#ifndef GUNBAI_RULES_ENGINE_BASE_H_
#define GUNBAI_RULES_ENGINE_BASE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "rules/battle_state.h"
#include "rules/engine.h"
#include "rules/types.h"

namespace gunbai::rules {

// Bounds on a log's order of battle, every ruleset's.
inline constexpr int kMaxClans = 32;
inline constexpr int kMaxUnits = 100000;
inline constexpr int kMaxLeaders = 100000;

class EngineBase : public Engine, protected FindingSink {
 public:
  // Applies one event: StartEvent; BeforeSequenceChecks; the sequence
  // checks (CheckSequence: skipped when they say so); BeforeEventBody; the
  // hook of the event's body.
  void Apply(const gunbai::v1::Event& event) final;
  // OnLogEnd, then the count of the findings left out, if any.
  void Finish() final;
  const BattleState& state() const final { return state_; }

  // Returns the unit index for `id`, or -1.
  int FindUnit(absl::string_view id) const;
  // Returns the leader index for `id`, or -1.
  int FindLeader(absl::string_view id) const;

  void SetOutcomes(google::protobuf::RepeatedPtrField<gunbai::v1::Outcome>*
                       outcomes) override {
    outcomes_ = outcomes;
  }

 protected:
  // Where the rulesets' messages differ in form (kept as each gave them,
  // so that no report changes).
  struct Conventions {
    // Findings listed in one report; past it they are counted, and Finish
    // adds one finding (log.findings_truncated) saying how many of each
    // severity were left out, so that a hostile log cannot make a report
    // many times its own size. 0: every finding is listed.
    int max_findings = 0;
    // Quote the ids of the log through Excerpt (rules/excerpt.h) in the
    // messages of unknown units and of an unusable order of battle.
    bool excerpt_ids = false;
    // How log.unit.removed's message ends, after "... and cannot <what>".
    absl::string_view removed_unit_tail = ".";
    // The rule ids (string literals) of an event after the end of the game
    // (skipped), and of an event outside a turn (replayed anyway).
    absl::string_view after_game_end_rule;
    absl::string_view outside_turn_rule;
    // The rule ids of a turn_start while a turn is in progress, and of one
    // whose number is not the one after the last.
    absl::string_view turn_end_missing_rule;
    absl::string_view turn_number_rule;
    // Report a turn_start that names no initiative clan (log.clan.unknown),
    // not only one naming a clan not in the header.
    bool initiative_clan_required = false;
    // The highest turn number the state takes from a turn_start (a larger
    // one is reported, and counted as this).
    std::uint32_t max_turn = 0;
    // The most hits a unit carries towards its next stand loss (or what the
    // ruleset keeps in carried_hits), the bound on a starting position's.
    int max_carried_hits = 0;
  };

  EngineBase(Conventions conventions, const EngineOptions& options,
             EngineOutput output)
      : options_(options),
        findings_(output.findings),
        outcomes_(output.outcomes),
        branch_events_(output.branch_events),
        conventions_(conventions) {}

  // The order of battle: builds the clans, units and leaders of state_ and
  // the id indexes from the log's header and order of battle. Checks what
  // every ruleset checks (2 to kMaxClans clans with unique non-empty ids, at
  // most kMaxUnits units and kMaxLeaders leaders, unit and leader ids
  // non-empty and unique, each of a clan of the header; an attached unit
  // in the order of battle and of the leader's clan) and asks the ruleset
  // for the rest (AddUnitFacts, AddLeaderFacts). Returns InvalidArgument
  // naming the clan, unit or leader and what to fix.
  absl::Status InitOrderOfBattle(const gunbai::v1::BattleLog& log);
  // The ruleset's part of unit `index` of the order of battle, after its id
  // and clan are checked (profile.id, name and clan are set; `status` is a
  // fresh UnitStatus): fills the rest of `profile` and `status`, or returns
  // UnitError. The unit is added once it returns OK.
  virtual absl::Status AddUnitFacts(int index, const gunbai::v1::Unit& unit,
                                    UnitProfile& profile,
                                    UnitStatus& status) = 0;
  // The same for leader `index`, before its attached unit is checked
  // (leader.id, name and clan are set).
  virtual absl::Status AddLeaderFacts(int index,
                                      const gunbai::v1::Leader& proto,
                                      LeaderState& leader) = 0;
  // The log's starting position (gunbai.v1.StartingPosition;
  // starting_position.cc), taken into state_ once the order of battle is
  // built (InitOrderOfBattle calls it when the log has one): the turn,
  // phase and clans, then each unit and leader it lists, the charges, the
  // melee contacts. Returns InvalidArgument naming the field, and the unit
  // or leader by index and id, when the position is unusable (an unknown id,
  // a list longer than what it lists, stands or hits out of range, a charge
  // by one's own clan, a melee of one clan...). What a position may give
  // but likely should not is replay/'s to report (CreateEngine).
  absl::Status InitStartingPosition(const gunbai::v1::StartingPosition& p);
  // InvalidArgument "order_of_battle.units[<index>] (id "<id>"): <what>".
  absl::Status UnitError(int index, const gunbai::v1::Unit& unit,
                         absl::string_view what) const;
  absl::Status LeaderError(int index, const gunbai::v1::Leader& leader,
                           absl::string_view what) const;
  // `id` as the messages quote it (Conventions::excerpt_ids).
  std::string Quote(absl::string_view id) const;

  // The hooks of Apply. Before the sequence checks, for what the event
  // settles whatever it is (even skipped); the default does nothing.
  virtual void BeforeSequenceChecks(const gunbai::v1::Event&) {}
  // After them, before the body's hook, for what the event closes (a melee
  // it is not part of, checks owed until it); the default does nothing.
  virtual void BeforeEventBody(const gunbai::v1::Event&) {}
  // The turn: the base starts a turn at a turn_start (reporting one that
  // comes before the last turn ended, then closing that, and one with the
  // wrong number or an unknown initiative clan, and checking the
  // initiative dice), then calls OnTurnStarted; it ends a turn at a
  // turn_end (reporting one with no turn in progress) and closes a turn in
  // progress at the end of the game. A turn_end whose Event.clan names a
  // clan ends only that clan's part (BattleState::turn_ended_clans): the
  // turn ends at the turn_end that leaves no clan still playing it. CloseTurn
  // runs the ruleset's checks at the end of a turn in progress.
  virtual void CloseTurn() = 0;
  virtual void OnTurnStarted(const gunbai::v1::Event&) {}
  // A turn_end of clan `clan` (an index) that leaves other clans still
  // playing the turn: the clan's part of it is over. The default does
  // nothing.
  virtual void OnClanTurnEnded(int clan) {}
  // One an event body. Each ruleset says what it does with each, even with
  // one its rules do not cover (replayed as the log claims, with an
  // unverifiable finding), so none has a default.
  virtual void OnActivation(const gunbai::v1::Event& event) = 0;
  virtual void OnMove(const gunbai::v1::Move& move) = 0;
  virtual void OnCharge(const gunbai::v1::ChargeDeclaration& charge) = 0;
  virtual void OnFiring(const gunbai::v1::Event& event) = 0;
  virtual void OnMeleeRound(const gunbai::v1::MeleeRound& round) = 0;
  virtual void OnChallenge(const gunbai::v1::Challenge& challenge) = 0;
  virtual void OnMoraleTest(const gunbai::v1::MoraleTest& test) = 0;
  virtual void OnLeaderLoss(const gunbai::v1::LeaderLossRoll& roll) = 0;
  virtual void OnResultMove(const gunbai::v1::ResultMove& move) = 0;
  virtual void OnRemoval(const gunbai::v1::Removal& removal) = 0;
  // What the log still owes after its last event (Finish).
  virtual void OnLogEnd() = 0;

  // Starts applying `event`: takes its seq and turn for the findings and
  // outcomes, and copies it into the branch written out (branch_event_).
  void StartEvent(const gunbai::v1::Event& event);
  // The checks of an event's place every ruleset makes (rules/engine.h's
  // CheckEventStart, then Conventions::after_game_end_rule and
  // outside_turn_rule, then CheckEventTurnAndClan). Returns false when the
  // event is skipped.
  bool CheckSequence(const gunbai::v1::Event& event);

  // True while game_end closes the turn in progress (CloseTurn may leave
  // out what an unplayed turn's activations would owe).
  bool ending_game() const { return ending_game_; }

  // Points a copy of an engine (Engine::Clone) at its own output.
  void SetOutput(EngineOutput output) {
    findings_ = output.findings;
    outcomes_ = output.outcomes;
    branch_events_ = output.branch_events;
  }

  // Findings, as of the current event (seq_, turn_).
  void Report(Finding finding) override;
  // Reports `finding` at `seq`, an earlier event of this turn whose fault
  // shows only now, keeping the findings in seq order.
  void ReportAtEarlierSeq(Finding finding, std::uint64_t seq);
  void Violation(absl::string_view rule_id, std::string subject,
                 std::string message);
  void Unverifiable(absl::string_view rule_id, std::string subject,
                    std::string message);

  // Outcomes: records one worked out at the current event, when outcomes
  // were asked for; `trace` may be null.
  void RecordOutcome(absl::string_view subject, absl::string_view kind,
                     std::string value, Trace* trace);
  bool recording_outcomes() const { return outcomes_ != nullptr; }
  // True at an event whose computed outcomes replace the claimed ones
  // (EngineOptions::FollowsComputedAt).
  bool FollowComputed() const { return options_.FollowsComputedAt(seq_); }

  // Ids. Each Resolve reports the id not in the order of battle
  // (log.unit.unknown, log.leader.unknown) and returns -1.
  int FindClan(absl::string_view id) const;
  int ResolveUnit(absl::string_view id, absl::string_view role);
  int ResolveLeader(absl::string_view id);
  // Returns true when `unit` is on the table; else reports log.unit.removed
  // ("... cannot <what>").
  bool UnitOnTable(int unit, absl::string_view what);
  // True from a turn_start to its turn_end (or the end of the game).
  bool TurnInProgress() const;
  // The move generator's frame, the same in every ruleset: the umpire's
  // turn_start (between turns) and game_end, then for `clan` in a turn the
  // activation it may begin. Returns false when nothing more is offered to
  // `clan` (outside a turn, or no such clan).
  bool ProposeTurnFrame(int clan, bool umpire,
                        std::vector<ProposedEvent>& out) const;

 private:
  // The parts of InitStartingPosition, in its order.
  absl::Status StartTurnAndPhase(const gunbai::v1::StartingPosition& p);
  absl::Status StartUnit(int index, const gunbai::v1::UnitState& unit,
                         std::vector<bool>& listed, std::uint64_t after_seq);
  absl::Status StartUnitStands(int index, const gunbai::v1::UnitState& unit,
                               const UnitProfile& profile) const;
  absl::Status StartUnitTurns(int index,
                              const gunbai::v1::UnitState& unit) const;
  absl::Status StartCharges(int index, const gunbai::v1::UnitState& unit);
  absl::Status CheckChargersNamed(const gunbai::v1::StartingPosition& p);
  absl::Status StartLeader(int index, const gunbai::v1::LeaderState& leader,
                           std::vector<bool>& listed);
  absl::Status CheckUnitLeaders(int index, const gunbai::v1::UnitState& unit);
  absl::Status StartMelee(int index, const gunbai::v1::MeleeContact& melee);
  // InvalidArgument "starting_position.units[<index>] (id "<id>"): <what>",
  // and the same for leaders.
  absl::Status StartUnitError(int index, const gunbai::v1::UnitState& unit,
                              absl::string_view what) const;
  absl::Status StartLeaderError(int index,
                                const gunbai::v1::LeaderState& leader,
                                absl::string_view what) const;

  // The turn_start, turn_end and game_end events (see CloseTurn).
  void StartTurn(const gunbai::v1::Event& event);
  void EndTurn(const gunbai::v1::Event& event);
  void EndGame();

 protected:
  const EngineOptions options_;
  google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings_;
  google::protobuf::RepeatedPtrField<gunbai::v1::Outcome>* outcomes_;
  // A what-if branch written out (EngineOutput::branch_events), and the copy
  // of the event being applied, whose claims the engine sets to the
  // computed outcomes wherever it follows them; null when not written.
  google::protobuf::RepeatedPtrField<gunbai::v1::Event>* branch_events_;
  gunbai::v1::Event* branch_event_ = nullptr;

  BattleState state_;
  absl::flat_hash_map<std::string, int> unit_index_;
  absl::flat_hash_map<std::string, int> leader_index_;
  // The event being applied.
  std::uint64_t seq_ = 0;
  std::uint32_t turn_ = 0;
  // Findings left out past Conventions::max_findings, and by severity:
  // violation, dispute, warning, unverifiable. An engine with a bound
  // keeps them in its checkpoints.
  bool ending_game_ = false;
  std::int64_t findings_left_out_ = 0;
  std::array<std::int64_t, 4> left_out_by_severity_{};

 private:
  // Counts `finding` and returns true when the report already lists
  // Conventions::max_findings findings.
  bool LeftOut(const Finding& finding);
  // Appends log.findings_truncated when findings were left out (past
  // Conventions::max_findings), past the bound on purpose: the one line
  // that says what is missing. The last thing Finish does.
  void ReportFindingsLeftOut();

  const Conventions conventions_;
};

}  // namespace gunbai::rules

#endif  // GUNBAI_RULES_ENGINE_BASE_H_
