// The Daimyo ruleset's engine (a rules::Engine, on rules::EngineBase): takes
// a battle log's events one at a time, resolves their ids, enforces the
// sequence of a turn, measures the table, calls the pure rules of this
// folder (firing, melee, morale, leader loss) and reports findings. After a
// disputed outcome it goes on with the outcome as played (the claimed one),
// so one error does not cascade. Its methods are spread over the
// engine_*.cc files by part of the turn.
// Thread-compatible: one DaimyoEngine per game; distinct engines may run on
// distinct threads.
#ifndef GUNBAI_RULES_DAIMYO_DAIMYO_ENGINE_H_
#define GUNBAI_RULES_DAIMYO_DAIMYO_ENGINE_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "rules/battle_state.h"
#include "rules/battlefield.h"
#include "rules/checkpoint_codec.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/leader_loss.h"
#include "rules/daimyo/measure.h"
#include "rules/daimyo/melee.h"
#include "rules/daimyo/morale.h"
#include "rules/daimyo/tables.h"
#include "rules/engine.h"
#include "rules/engine_base.h"
#include "rules/types.h"

namespace gunbai::rules::daimyo {

// Returns "1 hit" or "N hits".
inline std::string HitsInWords(std::int64_t n) {
  return n == 1 ? std::string("1 hit") : std::to_string(n) + " hits";
}

// Bounds on a unit (those on the order of battle, kMaxClans, kMaxUnits and
// kMaxLeaders, are every ruleset's: rules/engine_base.h).
inline constexpr int kMaxStands = 64;
// The highest turn number the state takes from a turn_start: a larger one is
// reported as daimyo.sequence.turn_number and counted as this, so that
// `turn + 1` (the next turn expected, a halt until the next turn) cannot
// overflow an int. High enough for any real game and for the benchmarks'
// generated logs (a million events of moves run to some 200,000 turns).
inline constexpr std::uint32_t kMaxTurn = 1000000000;
// Findings listed in one report; past it they are counted, and one finding
// (log.findings_truncated) says how many of each severity were left out, so
// a hostile log cannot make a report many times its own size.
inline constexpr int kMaxFindingsPerLog = 20000;

// The Daimyo rules' Engine (see rules/engine.h and rules/daimyo/engine.h),
// on rules::EngineBase (rules/engine_base.h): the base applies each event
// and holds the findings, outcomes, ids and order of battle; this class
// supplies the Daimyo rules through the base's hooks.
class DaimyoEngine final : public rules::EngineBase {
 public:
  // What a unit owes after a melee round or a morale result.
  enum class OwedMove {
    kNone,
    kPushBack,
    kRout,
    kFollowUp,
    kPursue,
    kMayFollowUp,  // Follow up or halt, at its choice.
    kMayPursue,
    // Beat several enemies in one multi-unit melee: follow up one that was
    // pushed back, pursue one that routs, or halt, at its choice.
    kMayFollowUpOrPursue,
    kHold,  // Must halt.
    kRetire,
    kRetreat,
    kMayRetire,  // Passed a being-charged test: stand, or retire.
  };

  // Builds the starting state from the log's header and order of battle.
  // `ruleset` must outlive the DaimyoEngine. Findings are appended to
  // `findings`, which must outlive the DaimyoEngine too. Returns
  // InvalidArgument naming the unit or leader when the order of battle is
  // unusable (unknown clan, duplicate id, stands out of range).
  static absl::StatusOr<std::unique_ptr<DaimyoEngine>> Create(
      const gunbai::v1::BattleLog& log, const rules::daimyo::Tables& rules,
      google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings);
  // The same with the engine options and outputs of rules/engine.h.
  static absl::StatusOr<std::unique_ptr<DaimyoEngine>> Create(
      const gunbai::v1::BattleLog& log, const rules::daimyo::Tables& rules,
      const rules::EngineOptions& options, rules::EngineOutput output);

  // Checkpoints (rules/engine.h; engine_checkpoint.cc): every member that
  // carries state from one event to the next, in the format of
  // rules/checkpoint_codec.h. Bump the version when a member is added.
  static constexpr std::uint32_t kCheckpointVersion = 5;
  std::uint32_t CheckpointVersion() const override {
    return kCheckpointVersion;
  }
  absl::StatusOr<std::string> SaveCheckpoint() const override;
  absl::Status RestoreCheckpoint(absl::string_view checkpoint) override;

  // The move generator (engine_generate.cc; rules/engine.h).
  bool ProposeEvents(int clan, bool umpire,
                     std::vector<rules::ProposedEvent>& out) const override;
  std::unique_ptr<rules::Engine> Clone(
      rules::EngineOutput output) const override;

  // True when `unit` made a rout move in the current turn (a router makes
  // one a turn: reading 29).
  bool RoutMovedThisTurn(int unit) const {
    return state_.turn > 0 && rout_moved_on_turn_[unit] == state_.turn;
  }

 private:
  DaimyoEngine(const rules::daimyo::Tables& rules,
               const rules::EngineOptions& options, rules::EngineOutput output)
      : EngineBase({.max_findings = kMaxFindingsPerLog,
                    .excerpt_ids = true,
                    .removed_unit_tail = ".",
                    .after_game_end_rule = "daimyo.sequence.after_game_end",
                    .outside_turn_rule = "daimyo.sequence.outside_turn",
                    .turn_end_missing_rule = "daimyo.sequence.turn_end_missing",
                    .turn_number_rule = "daimyo.sequence.turn_number",
                    .initiative_clan_required = true,
                    .max_turn = kMaxTurn,
                    .max_carried_hits = rules.hits_per_stand - 1},
                   options, output),
        rules_(rules) {}

  // The move generator's parts (engine_generate.cc): the result moves
  // unit `u` owes or may make, its volleys at each enemy it may fire at,
  // and a melee round of the contact between `a` and `b` when one of them
  // is clan `clan`'s.
  // A checkpoint's parts beyond the state, in the order they are written
  // (engine_checkpoint.cc): the pending melee, each unit's owed moves and
  // turn marks, then the turn's pending tests, rolls and fought pairs.
  struct RestoredParts;
  static void ReadMeleeParts(rules::CheckpointReader& in, int units,
                             const rules::BattleState& state,
                             RestoredParts& parts);
  static void ReadUnitParts(rules::CheckpointReader& in, int units,
                            RestoredParts& parts);
  static void ReadTurnParts(rules::CheckpointReader& in, int units,
                            std::size_t leaders, RestoredParts& parts);
  void TakeRestoredParts(RestoredParts&& parts);
  // Writes the pending melee: its pairings, stands fought and what each
  // unit brought into it.
  void WriteMeleeParts(rules::CheckpointWriter& out) const;
  // Writes each unit's owed move, its halt's cause and its turn marks.
  void WriteUnitParts(rules::CheckpointWriter& out) const;
  // Writes the turn's frenzied units, awaited challenge, leader-loss rolls,
  // end-of-turn tests and fought pairs.
  void WriteTurnParts(rules::CheckpointWriter& out) const;

  struct Proposals;
  // The leader-loss rolls clan `clan` owes.
  void ProposeLeaderLossRolls(int clan, Proposals& add) const;
  // What unit `u` owes whether or not its clan is active: a removal, its
  // morale tests (end-of-turn ones once every clan is in), a router's rally
  // test, its result moves.
  void ProposeOwed(int u, Proposals& add) const;
  // The counter-charge `u` may declare, if any.
  void ProposeCounterCharge(int u, Proposals& add) const;
  // The moves `u` may make and the charges it may declare.
  void ProposeMovesAndCharges(int u, Proposals& add) const;
  // The melee rounds clan `clan` may offer.
  void ProposeMeleeRounds(int clan, Proposals& add) const;
  // True while a frenzied unit of this activation still owes its charge.
  bool FrenzyChargeOwed() const;
  // What unit `u` of the clan may do: what it owes and, unless its clan
  // has `ended` its part of the turn, a counter-charge, its volleys (none
  // while a frenzy charge is owed) and, when `active`, its moves and charges.
  void ProposeForUnit(int u, bool active, bool ended, bool frenzy_owed,
                      Proposals& add) const;
  void ProposeResultMoves(int u, Proposals& add) const;
  // The result moves `u` may make owing none: a router's rout move and a
  // frenzied pursuer's pursuit, each once a turn.
  void ProposeUnowedResultMoves(int u, Proposals& add) const;
  // A result move of `kind` for `u`, with the block a table measures; none
  // for a follow-up or pursuit while the loser has still to move.
  void ProposeResultMove(int u, gunbai::v1::ResultMoveKind kind,
                         Proposals& add) const;
  void ProposeFirings(int u, Proposals& add) const;
  // On a table: the volley of `u` at `e` at the band measured, or none
  // (nullptr) when `e` is out of range, arc or sight.
  rules::ProposedEvent* ProposeMeasuredFiring(int u, int e,
                                              Proposals& add) const;
  void ProposeMeleeRound(int a, int b, int clan, Proposals& add) const;
  // On a table: where a charge of `u` on `target` ends (its `to`).
  void ProposeChargeEnd(int u, int target, rules::ProposedEvent& offer) const;

  absl::Status Init(const gunbai::v1::BattleLog& log);
  absl::Status AddUnitFacts(int index, const gunbai::v1::Unit& unit,
                            rules::UnitProfile& profile,
                            rules::UnitStatus& status) override;
  absl::Status AddLeaderFacts(int index, const gunbai::v1::Leader& proto,
                              rules::LeaderState& leader) override;
  void ReportUnfinishedTurn();

  // EngineBase::Apply's hooks: a challenge awaiting its round, before the
  // sequence checks; the pending melee settled at an event not of it.
  void BeforeSequenceChecks(const gunbai::v1::Event& event) override;
  void BeforeEventBody(const gunbai::v1::Event& event) override;
  // What the log still owes after its last event (leader-loss rolls, result
  // moves, morale tests, removals of a turn left unfinished).
  void OnLogEnd() override;

  bool EnterPhase(rules::Phase phase, absl::string_view what);
  // Resolves a list of unit ids (units near, routers near, units passed
  // through) into the distinct units it names, in order, into `out`. The
  // work and the findings are bounded by the units, not by the list: ids
  // not in the order of battle are one finding (log.unit.unknown) and units
  // named more than once another (log.unit.listed_twice), each with the
  // count.
  void ResolveUnitList(
      const google::protobuf::RepeatedPtrField<std::string>& ids,
      absl::string_view role, std::vector<int>& out);
  void CheckDiceFaces(const google::protobuf::RepeatedField<uint32_t>& dice,
                      absl::string_view what, absl::string_view subject);

  void OnTurnStarted(const gunbai::v1::Event& event) override;
  void OnActivation(const gunbai::v1::Event& event) override;
  void OnMove(const gunbai::v1::Move& move) override;
  void OnCharge(const gunbai::v1::ChargeDeclaration& charge) override;
  void OnFiring(const gunbai::v1::Event& event) override;
  void OnLeaderLoss(const gunbai::v1::LeaderLossRoll& roll) override;
  // The outcome of one pairing, kept until its melee is settled.
  struct PairingResult {
    int a = -1;
    int b = -1;
    int winner = -1;  // Unit index; -1 for a draw.
    int loser = -1;
    bool loser_routs = false;
    bool loser_flank_or_rear = false;
    // An enemy fights the flank or rear of side a, of side b (whatever the
    // outcome): a unit routed from a melee while so contacted is destroyed.
    bool a_flanked = false;
    bool b_flanked = false;
    bool winner_defends_obstacle = false;
    int rounds = 0;
  };

  void OnMeleeRound(const gunbai::v1::MeleeRound& round) override;
  // The steps of a melee round, in order. The round's two units, or none
  // when it cannot be fought (reported).
  std::optional<std::pair<int, int>> MeleeRoundUnits(
      const gunbai::v1::MeleeRound& round);
  // Measures `pairing` on the table, on the footprints its units had when
  // their multi-unit melee began.
  void MeasureOnMeleeStart(rules::daimyo::MeleePairing& pairing);
  // The round's number as logged, and one round a turn for a pair.
  void CheckRoundCount(const gunbai::v1::MeleeRound& round,
                       const rules::daimyo::MeleePairing& pairing);
  // Each side's hits: computed (and checked against the claim) when the
  // dice can be read, else as claimed.
  std::array<int, 2> MeleeHits(const gunbai::v1::MeleeRound& round,
                               const rules::daimyo::MeleePairing& pairing,
                               bool resolvable);
  // Each side's stands lost as claimed (-1 when not claimed or followed as
  // computed), checked against the rule.
  std::array<int, 2> MeleeStandsLost(const gunbai::v1::MeleeRound& round,
                                     const rules::daimyo::MeleePairing& pairing,
                                     std::array<int, 2> hits, bool resolvable);
  rules::daimyo::MeleePairing PairingFromProto(
      const gunbai::v1::MeleeRound& round, int a, int b) const;
  // Reports side `side`'s hits, `res`, against the claimed ones, with
  // `trace` (the side's, when it was resolved with one; else resolved again
  // for it).
  void ReportMeleeHitDispute(const rules::daimyo::MeleePairing& pairing,
                             int side, uint32_t claimed,
                             const rules::daimyo::MeleeSideResolution& res,
                             const rules::Trace* trace);
  // Sets the claims of the branch's copy of a round to the computed hits,
  // stands lost and outcome (EngineOutput::branch_events).
  void WriteBranchMeleeClaims(const rules::daimyo::MeleePairing& pairing,
                              std::array<int, 2> hits);
  // Keeps what units `a` and `b` bring into the pending multi-unit melee,
  // the first time each fights in it.
  void NoteMeleeStart(int a, int b);
  // Returns a round's outcome as its recorded outcome says it: "draw", or
  // "WINNER wins, LOSER pushed back" (or "routs", or "routs, destroyed
  // ..." with an enemy on its flank or rear).
  std::string MeleeOutcomeText(const rules::daimyo::MeleePairing& pairing,
                               rules::daimyo::MeleeOutcome outcome) const;
  // Decides the round's outcome from `hits`, records it and checks the
  // claimed one; in a what-if writes the computed claims into the branch.
  rules::daimyo::MeleeOutcome MeleeRoundOutcome(
      const gunbai::v1::MeleeRound& round,
      const rules::daimyo::MeleePairing& pairing, std::array<int, 2> hits,
      bool resolvable);
  void CheckClaimedOutcome(const gunbai::v1::MeleeRound& round,
                           const rules::daimyo::MeleePairing& pairing,
                           std::array<int, 2> hits,
                           rules::daimyo::MeleeOutcome outcome);
  void CheckStandsSplit(const gunbai::v1::MeleeRound& round,
                        const rules::daimyo::MeleePairing& pairing);
  void RecordPairing(const gunbai::v1::MeleeRound& round,
                     const rules::daimyo::MeleePairing& pairing,
                     rules::daimyo::MeleeOutcome outcome, int rounds);
  // Gives the units of `pairing` that are in a pending multi-unit melee
  // back the pursuit and follow-up turns the round spent: they are spent
  // when the melee is settled.
  void KeepBonusesForTheWholeMelee(const rules::daimyo::MeleePairing& pairing);
  // Works out what every unit of the pending melee owes: the single unit
  // takes its worst outcome over its pairings.
  void SettleMelee();
  // Notes in settling_ each unit's worst standing over the pairings, and
  // how it lost.
  void NoteStandings();
  // Works out what each pairing's loser, then each winner, owes.
  void SettlePairings();
  // Ends the pending melee: the bonuses brought into it are spent.
  void EndPendingMelee();
  void SettleLoser(const PairingResult& r, bool routs, int losses,
                   bool lost_to_flank, bool flanked);
  void SettleWinner(const PairingResult& r, bool won_everywhere,
                    bool drew_elsewhere, int winners_of_loser);
  void LeaveMelee(int unit);
  // On a table, after `unit`'s result move: its pairings whose two units
  // no longer touch end (reading 38), but for a winner still to follow its
  // loser.
  void BreakOffOutOfContact(int unit);
  // Takes a push back: it ends frenzy, applies the block and leaves the
  // melee unless the winner follows up.
  void OnPushBack(int unit, const gunbai::v1::ResultMove& move,
                  gunbai::v1::MoveBlock blocked);
  // Takes a rout move: owed by a new rout, or a router's one a turn.
  void OnRoutMove(int unit, const gunbai::v1::ResultMove& move,
                  gunbai::v1::MoveBlock blocked);
  // Takes a follow-up, owed or chosen (on a table, after the loser moves).
  void OnFollowUp(int unit, const gunbai::v1::ResultMove& move);
  // Takes a pursuit, owed or chosen, or a frenzied pursuer's one pursuit in
  // each later turn.
  void OnPursuit(int unit, const gunbai::v1::ResultMove& move);
  bool TakeOwedMove(int unit, const gunbai::v1::ResultMove& move,
                    std::initializer_list<OwedMove> allowed);
  bool FollowedUpBy(int loser) const;
  // On a table, true while the loser `winner` must follow still owes its
  // push back or rout (reading 35: the loser moves first); the check
  // reports a follow-up or pursuit made before it.
  bool FollowsLoserStillToMove(int winner) const;
  void CheckFollowsLoser(int winner, const gunbai::v1::ResultMove& move);
  // Makes the follow-up or pursuit owed against `loser`, destroyed by its
  // move, a choice: there is nothing left to keep contact with.
  void ReleaseWinnersOf(int loser);
  void ApplyBlock(int unit, gunbai::v1::MoveBlock blocked);
  void ApplyRout(int unit, const gunbai::v1::ResultMove& move,
                 gunbai::v1::MoveBlock blocked);
  void ApplyPursuit(int unit, const gunbai::v1::ResultMove& move);
  // Disorders a side whose pursuit from a melee of more than one round meets
  // this fresh enemy (the default reading of pursuit disorder).
  void DisorderPursuersMeetingFreshEnemy(
      const rules::daimyo::MeleePairing& pairing);
  void OweRoutTests(
      int router, const google::protobuf::RepeatedPtrField<std::string>& near,
      const google::protobuf::RepeatedPtrField<std::string>& through);
  void OweLeaderDeathTests(
      int unit, const google::protobuf::RepeatedPtrField<std::string>& near);
  void CheckMeleeAtTurnEnd();
  // Ends the melees of units removed (their last stand lost): their
  // opponents are free.
  void EndMeleesOfRemovedUnits();
  // A result move is made as soon as its result comes: one still owed when
  // `what` happens (another clan's activation; a new result for the same
  // unit) is missing. `unit` -1 checks every unit; `what` names the event,
  // built only for a finding.
  void CheckResultMovesMade(int unit, absl::FunctionRef<std::string()> what);
  // Whether `unit` owes a result move it must make (not one at its choice).
  bool OwesCompulsoryMove(int unit) const;

  // Morale (engine_morale.cc).
  void OweChargeTests(int charger, int target, bool counter);
  void CheckChargeTestsTaken();
  void CheckEndOfTurnTestsTaken();
  void MissingTest(int unit, int reason, absl::string_view when);
  void CheckEarlyEndOfTurnTests(absl::string_view clan);
  void StartActivation();
  // Returns true if a unit of another clan than `unit`'s is on the table.
  bool AnyEnemyOnTable(int unit) const;
  void EndActivation();
  // Reports each frenzied unit that owed its charge and did not declare
  // it; the movement phase that could take it is over.
  void CheckFrenzyChargesDeclared();
  // The flow of a turn (engine_flow.cc): how often a unit may do a thing,
  // and when what a result owes must be paid.
  // A unit that declared a charge (or counter-charge) this turn makes no
  // other move in it: the charge was its move (reading 39).
  void CheckMoveAfterCharge(int unit);
  void CheckChargeOnceATurn(int unit, bool counter);
  // Checks a rout move of `unit` against the once-a-turn rule and its
  // timing (an owed rout move is immediate; a router's rout move of a later
  // turn comes in its clan's activation), and records it.
  void CheckRoutMove(int unit, bool owed);
  // Reports the routers of the active clan that made no rout move this turn
  // and did not rally (end of the activation).
  void CheckRoutersMoved();
  // Checks a rally test's timing (reading 30) and records it; false when it
  // is out of turn (reported).
  bool CheckRallyTiming(int unit);
  // Reports the routers of the clans not activated this turn that made no
  // rout move: at the end of the turn, or of one clan's part of it
  // (`only_clan`) when that clan ends it without an activation.
  void CheckRoutersOfClansNotActivated(int only_clan = -1);
  // True when `u`, frenzied in this activation, still owes the charge its
  // frenzy demands (daimyo.morale.frenzied_must_charge).
  bool OwesFrenzyCharge(int u) const;
  // A clan's own turn_end: ends its activation if it is the active clan.
  void OnClanTurnEnded(int clan) override;
  bool CheckTestTiming(int unit, int reason);
  // Keeps in `units` those routing, on the table and of the tester's side
  // (`friends`) or the other; the others are one finding
  // (daimyo.morale.near_not_routing). Returns how many are kept.
  int KeepRoutersNear(int tester, bool friends, std::vector<int>& units);
  rules::daimyo::MoraleTestInput MoraleInputFromProto(
      const gunbai::v1::MoraleTest& test, int unit, std::vector<int>& friends);
  void ReportMoraleDisputes(const gunbai::v1::MoraleTest& test,
                            const rules::daimyo::MoraleTestInput& in,
                            const rules::daimyo::MoraleResolution& res);
  void ApplyTestResult(int unit, int reason, rules::MoraleResult result,
                       const gunbai::v1::MoraleTest& test);
  // What the engine keeps of a test's result (the unit `was_routing`
  // before it): the halt's cause, the move it owes, the charge it ends, the
  // tests a new rout owes its friends, the charger it may counter.
  void OweAfterTestResult(int unit, int reason, rules::MoraleResult result,
                          bool was_routing, const gunbai::v1::MoraleTest& test);
  // Sets the claims of the branch's copy of a morale test to the computed
  // total and result (EngineOutput::branch_events).
  void WriteBranchMoraleClaims(const rules::daimyo::MoraleResolution& res);
  int FirstChargerOf(int target) const;
  void CancelCharge(int unit);
  bool CheckHalted(int unit, absl::string_view what);
  void CheckCounterCharge(int unit, int target);
  void OnChallenge(const gunbai::v1::Challenge& challenge) override;
  // Marks a duel between units neither in melee nor charging each other as
  // engaged by the next round, which must follow.
  void AwaitRoundIfNotEngaged(rules::daimyo::Duel& duel);
  // Resolves an accepted duel the dice settle: reports a claimed winner
  // that differs, records the winner (in a what-if, into the branch).
  // Returns the winner's leader index.
  int ComputedDuelWinner(const gunbai::v1::Challenge& challenge,
                         const rules::daimyo::Duel& duel);
  // Returns the leader index of the claimed winner when he is one of the
  // duel's two leaders, else -1.
  int ClaimedDuelWinner(const gunbai::v1::Challenge& challenge,
                        const rules::daimyo::Duel& duel) const;
  void OnMoraleTest(const gunbai::v1::MoraleTest& test) override;
  void OnResultMove(const gunbai::v1::ResultMove& move) override;
  void OnRemoval(const gunbai::v1::Removal& removal) override;

  // The tape measure (engine_table.cc; rules/daimyo/measure.h): on a log
  // with a table, each measures an event's facts, reports a declared fact
  // the table contradicts, and puts the measured facts in its input.
  // Reports units that start off the table or on another unit's base.
  void CheckPlacement();
  void CheckMeleePlacement();
  double LossSlack(int unit) const;
  absl::Status InitTable(const gunbai::v1::BattleLog& log);
  // True when the log has a table and `unit` is placed on it.
  bool Measuring(int unit) const;
  // What an event is, for a finding's words: built only when a finding is
  // made (most measured events make none, and the words cost more than
  // measuring a fact).
  using Text = absl::FunctionRef<std::string()>;
  // Reports a fact declared but not measured (rule_id, naming `what` and
  // why not); returns the measured fact.
  bool MeasuredFact(absl::string_view rule_id, int subject, Text what,
                    absl::string_view fact, bool declared, bool measured,
                    absl::string_view why_not);
  void PlaceUnit(int unit, const rules::Pose& pose);
  void MeasureMove(const gunbai::v1::Move& move, int unit);
  void CheckMoveEnd(const std::string& subject, int unit, const rules::Pose& to,
                    absl::string_view did);
  void MeasureCharge(const gunbai::v1::ChargeDeclaration& charge, int unit,
                     int target);
  void MeasureFiring(rules::daimyo::Shot& shot);
  void ReportShotGeometry(const rules::daimyo::Shot& shot,
                          const rules::daimyo::ShotMeasure& m, Text what);
  void MeasureShotFacts(rules::daimyo::Shot& shot,
                        const rules::daimyo::ShotMeasure& m, Text what);
  void MeasureMelee(rules::daimyo::MeleePairing& pairing);
  void MeasureMorale(const gunbai::v1::MoraleTest& test,
                     rules::daimyo::MoraleTestInput& in,
                     std::vector<int>& friends);
  // Reports the units of `declared` that are not in `measured`.
  void CompareNear(int unit, Text what, absl::string_view list,
                   const std::vector<int>& declared,
                   const std::vector<int>& measured);
  // Reports the units of `declared` (listed `as` ...) that are not in
  // `measured`, saying `why_not`; the finding gives both lists.
  void CompareListed(absl::string_view rule_id, int unit, Text what, Text as,
                     const std::vector<int>& declared,
                     const std::vector<int>& measured,
                     absl::string_view why_not);
  // The rout of `router` listed `list_units_` as passed through; reports
  // those its measured path (`measured`) does not cross.
  void CompareThrough(int router, const std::vector<int>& measured);
  // Moves the unit as the result move takes it; returns the block that
  // applies (measured for a push back or a rout; else as declared).
  // Where a result move on a table ends and what stops it (nothing for a
  // hold, or off the table), and the block the rules read from that.
  std::optional<rules::daimyo::MoveMeasure> ResultMoveEnd(
      const gunbai::v1::ResultMove& move, int unit) const;
  static gunbai::v1::MoveBlock MeasuredBlock(
      const gunbai::v1::ResultMove& move, const rules::daimyo::MoveMeasure& m);
  gunbai::v1::MoveBlock MeasureResultMove(const gunbai::v1::ResultMove& move,
                                          int unit);
  // Replaces the friends listed near `unit` (a router's, a dead leader's)
  // with those measured near it; `what` names the event in a finding.
  void MeasureFriendsNear(int unit, Text what, std::vector<int>& near);

  void CheckOwedRolls();
  // Runs every end-of-turn check: the last activation's, owed leader-loss
  // rolls, melee obligations, owed morale tests.
  void CloseTurn() override;
  void ApplyLeaderLoss(int leader, bool killed);
  // Reports a claimed death or survival the roll, `res`, contradicts; in a
  // what-if writes the computed one into the branch. Returns whether the
  // leader dies as replay goes on (computed in a what-if, else as claimed).
  bool SettleLeaderLossDispute(const gunbai::v1::LeaderLossRoll& roll,
                               const rules::LeaderState& leader,
                               const rules::daimyo::LeaderLossResolution& res);
  // The rules of a charge's declaration: the active clan (or a
  // counter-charge), not halted, on an enemy, not routing or in melee, once
  // a turn.
  void CheckChargeDeclared(const gunbai::v1::ChargeDeclaration& charge,
                           int unit, int target);
  // Reports a list of units' ids not in the order of battle (`unknown` of
  // them, the first `first_unknown`) and units named twice (`repeated`, the
  // first `first_repeated`).
  void ReportUnitListProblems(absl::string_view role, std::int64_t unknown,
                              const std::string* first_unknown,
                              std::int64_t repeated, int first_repeated);
  // A what-if's firing: the computed `hits` stand, and the stands they
  // remove (written into the branch's copy of the event).
  void ApplyComputedFiring(const gunbai::v1::Firing& firing,
                           const rules::daimyo::Shot& shot, int hits);
  // Resolves a shot the dice can settle: records its hits and reports a
  // claim that differs; returns the computed hits.
  int ComputedFiringHits(const gunbai::v1::Firing& firing,
                         const rules::daimyo::Shot& shot);
  // Records the stands `hits` remove from `target` and checks the claimed
  // ones against them; returns the claimed stands lost (-1: none claimed).
  int ClaimedFiringStandsLost(const gunbai::v1::Firing& firing, int target,
                              int hits);
  // Reports the shot's hits, `res`, against the claimed ones, with `trace`
  // (the shot's, when it was resolved with one; else resolved again for it).
  void ReportFiringDispute(const gunbai::v1::Firing& firing,
                           const rules::daimyo::Shot& shot,
                           const rules::daimyo::FiringResolution& res,
                           const rules::Trace* trace);
  void ReportStandLossDispute(absl::string_view rule_id, int target, int hits,
                              int claimed, int computed);

  // Owned: a DaimyoEngine outlives no caller's copy of the ruleset.
  const rules::daimyo::Tables rules_;
  // The table, on a log with one (fixed once built: not checkpointed).
  std::optional<rules::Battlefield> field_;
  // Melee bookkeeping, per unit index (engine_melee.cc).
  std::vector<PairingResult> pending_pairings_;
  std::string pending_melee_id_;
  // Stands each unit has fought with in the pending multi-unit melee.
  absl::flat_hash_map<int, int> stands_in_pending_melee_;
  // What each unit of the pending multi-unit melee brought into it: its
  // pairings are fought at once (reading 26), so a stand lost in one still
  // fought in the others, a bonus for last turn's pursuit or follow-up
  // counts in each pairing, and a pursuer's disorder (reading 19) belongs
  // to the pairings its pursuit met, whatever order the log gives them.
  struct AtMeleeStart {
    int stands = 0;
    int pursued_on_turn = 0;
    int followed_up_on_turn = 0;
    bool disordered = false;
    // Set when a pairing of the melee disordered the unit as a pursuer
    // meeting a fresh enemy: it stays disordered once the melee settles.
    bool disordered_by_pursuit = false;
  };
  absl::flat_hash_map<int, AtMeleeStart> at_melee_start_;
  // SettleMelee's scratch: each unit of the pending melee's pairings, found
  // by a linear search (a melee holds a few units), kept between melees so
  // that settling one allocates nothing.
  struct SettlingUnit {
    int unit = -1;
    bool noted = false;
    int worst = 0;   // Its worst Standing (engine_melee.cc) over the pairings.
    int losses = 0;  // Pairings it lost (each to another winner).
    bool lost_to_flank = false;
    bool flanked = false;  // In any pairing of the melee.
    bool settled_as_winner = false;
  };
  std::vector<SettlingUnit> settling_;
  SettlingUnit& SettlingOf(int unit);
  // ResolveUnitList's marks: list_mark_[u] == list_generation_ when unit u
  // is already in the list being resolved.
  std::vector<std::uint32_t> list_mark_;
  std::uint32_t list_generation_ = 0;
  std::vector<int> list_units_;  // Scratch for the lists of one event.
  // On a table, the friends the rout just measured passes through
  // (MeasureResultMove), for OweRoutTests to use in place of the declared
  // list; empty otherwise.
  std::optional<std::vector<int>> measured_through_;
  std::vector<OwedMove> owed_moves_;
  std::vector<int> owed_move_opponent_;
  std::vector<int> owed_move_rounds_;
  // Morale bookkeeping, per unit index (engine_morale.cc).
  std::vector<int> may_counter_charge_;  // The charger it may counter, or -1.
  std::vector<int> frenzied_this_activation_;
  // A challenge between leaders whose units were not yet engaged: the next
  // event must be their round of melee (seq 0: none awaiting).
  struct ChallengeAwaitingRound {
    std::uint64_t seq = 0;
    int a = -1, b = -1;  // The two units.
  };
  ChallengeAwaitingRound challenge_awaiting_round_;
  void CheckChallengeFollowedByRound(const gunbai::v1::Event& event);
  // Leader-loss rolls each leader made this turn (by leader index), for the
  // message of the rolls still owed when the turn ends.
  std::vector<int> loss_rolls_made_;
  // What each router has done in the current activation (RouterStep bits):
  // a rally test comes once, from a unit routing when its clan's activation
  // began, before its rout move (engine_morale.cc).
  enum RouterStep : std::uint8_t {
    kRoutingAtActivationStart = 1,
    kRallyTested = 2,
    kRoutMovedThisActivation = 4,
  };
  std::vector<std::uint8_t> router_steps_;
  // The turn of each unit's last charge declaration, and of its last rout
  // move (0: none): a unit charges once a turn, and a router makes one rout
  // move a turn (engine_flow.cc).
  std::vector<int> charged_on_turn_;
  std::vector<int> rout_moved_on_turn_;
  struct EndOfTurnTest {
    int unit;
    std::uint64_t seq;
    int reason;
  };
  std::vector<EndOfTurnTest> end_of_turn_tests_;  // Taken this turn so far.
  // The pairs (lower unit index first) that fought a melee round this turn:
  // a pair fights once a turn even when its contact ended in between (a
  // push back and follow-up, a rout) and a charge would bring it back.
  std::vector<std::pair<int, int>> fought_pairs_;
  bool FoughtThisTurn(int a, int b) const;
};

}  // namespace gunbai::rules::daimyo

#endif  // GUNBAI_RULES_DAIMYO_DAIMYO_ENGINE_H_
