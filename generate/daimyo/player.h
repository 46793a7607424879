// The player behind GenerateGame (internal to the generator): it plays both
// clans of one game, writing each event into the log and replaying it at
// once, so that every choice and every claim is made on the state the
// auditor will see. The choices are simple and sensible: units move now and
// then, fire when they may, charge enemies that are free to be charged,
// fight every melee they are in, take every test they owe and carry out its
// result. Thread-compatible: one GamePlayer per game.
#ifndef GUNBAI_GENERATE_DAIMYO_PLAYER_H_
#define GUNBAI_GENERATE_DAIMYO_PLAYER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "generate/daimyo/daimyo_game.h"
#include "generate/fault_planner.h"
#include "generate/game_generator.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/battlefield.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/firing.h"
#include "rules/daimyo/measure.h"
#include "rules/daimyo/melee.h"
#include "rules/daimyo/morale.h"
#include "rules/types.h"
#include "rules/victory.h"

namespace gunbai::generate::internal {

namespace v1 = ::gunbai::v1;

// Morale test reasons as bits: those tested when a charge is declared, and
// those tested at the end of the turn.
inline constexpr rules::MoraleReasons kChargeReasons =
    rules::ReasonBit(2) | rules::ReasonBit(3) | rules::ReasonBit(4);
inline constexpr rules::MoraleReasons kEndOfTurnReasons =
    rules::ReasonBit(1) | rules::ReasonBit(5) | rules::ReasonBit(6) |
    rules::ReasonBit(7);

// Events the budget reserves (target_events mode), each a worst case.
// A morale test with its result move and the removal a second rout owes.
inline constexpr int kTestChainEvents = 3;
// A frenzied unit's charge that falls short on a target that cannot become
// frenzied: the charge, the target's test, its move and its removal.
inline constexpr int kFallShortChargeEvents = 4;
// One pairing's turn of melee: challenge, round, two leader-loss rolls, two
// result moves, two removals; then each side's end-of-turn test chain and
// the chains of two friends a rout move names.
inline constexpr int kContactReserve = 8 + 4 * kTestChainEvents;
// A charged unit's volley at its charger: the firing, a leader-loss roll and
// the charger's test chain.
inline constexpr int kChargedFireEvents = 2 + kTestChainEvents;
// A pairing a charge brought into contact, until it fights: the volley at
// the charger, this turn's melee, and the same again in the closing turn.
inline constexpr int kPendingPairingReserve =
    kChargedFireEvents + 2 * kContactReserve;
// A charge to contact: the declaration, both units' test chains, a
// counter-charge and the charger's second test chain, a new frenzied unit's
// charge, and the pairing it brings.
inline constexpr int kChargeCost =
    2 + 3 * kTestChainEvents + kFallShortChargeEvents + kPendingPairingReserve;
// A volley: the firing, a leader-loss roll and the target's test chain.
inline constexpr int kFireCost = 2 + kTestChainEvents;

class GamePlayer {
 public:
  GamePlayer(const GeneratorOptions& options,
             const replay::LoadedRuleset& ruleset);

  GeneratedGame Play() &&;

 private:
  struct UnitPlan {
    int clan = 0;
    bool missile = false;
    // The clan's General's unit: never in melee, never shot to pieces,
    // never rallying (a failed rally disperses), so that every clan keeps a
    // unit on the table that can always make one more move.
    bool keeps_table = false;
    int line_width = 4;  // Stands a rank when in line.
  };
  enum class TurnKind {
    kFull,     // Everything: moves, charges, firing, melee.
    kClosing,  // The last turn of a game sized by events: the melees and
               // charges owed, then moves that make the count exact.
  };
  // What a melee round owes, as the moves after it need it.
  struct RoundResult {
    int a = -1;  // The round's two units, the active clan's first.
    int b = -1;
    int winner = -1;  // -1: a draw.
    int loser = -1;
    bool loser_routs = false;
    bool follow = false;           // The winner must follow up or pursue.
    bool winner_may_halt = false;  // It defends a linear obstacle.
    bool loser_flanked = false;    // The winner fought its flank or rear.
    std::array<int, 2> stands_fighting = {0, 0};       // Per side, a then b.
    std::array<bool, 2> in_building = {false, false};  // As declared.
  };
  // A charge that reached its target, to be fought in the melee phase.
  struct Pairing {
    int charger = -1;
    int target = -1;
  };
  // How one round of a multi-unit melee (one target fought by two chargers,
  // its rounds sharing a melee_id) is fought: the target's stands are split
  // between the rounds, each stand fighting one of them.
  struct MeleeShare {
    std::string melee_id;
    int shared = -1;        // The unit fought in both rounds.
    int stands_budget = 0;  // Its stands this round may use.
    // The first round's result, when this is the second round.
    const RoundResult* first = nullptr;
    bool shared_in_building = false;  // As declared in the first round.
    int start_stands = 0;  // The shared unit's stands as the melee began.
  };

  // Randomness and the clocks.
  int Uniform(int lo, int hi);  // Inclusive; deterministic on every platform.
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  // A chance drawn from a stream of its own, for variety added after the
  // main stream's draws were fixed: a seed's game changes only where such a
  // choice comes out true.
  bool Variety(int percent) {
    return static_cast<int>(variety_rng_() % 100) < percent;
  }
  std::uint32_t RollDie() { return static_cast<std::uint32_t>(Uniform(1, 6)); }
  int FaultClock() const;  // A turn, or an event count.
  bool sized_by_events() const { return options_.turns <= 0; }

  // State.
  const rules::BattleState& state() const { return replayer_->state(); }
  const rules::UnitStatus& status(int unit) const {
    return state().units[unit];
  }
  const std::string& UnitId(int unit) const {
    return state().profiles[unit].id;
  }
  std::string ClanId(int clan) const;
  std::string ClanOf(int unit) const { return ClanId(plans_[unit].clan); }
  int events() const { return log_.events_size(); }
  bool OnTable(int unit) const { return !status(unit).removed; }
  int UnitCount() const { return static_cast<int>(plans_.size()); }
  std::vector<int> UnitsOnTable(int clan) const;
  bool MayBecomeFrenzied(int unit) const;
  bool OwesEndOfTurnTest(int unit) const;
  bool OwesNothing(int unit) const;
  bool MustCharge(int unit) const;
  // True for the General's unit of a game sized by events: the closing
  // turn's moves need a unit that can always move, so nothing the player
  // chooses makes it test (no volley at it, no rout naming it near or
  // passing through it, no charge falling short on it while there is
  // another target): only its own charges' and melees' tests could rout it,
  // and it makes neither.
  bool Shielded(int unit) const {
    return sized_by_events() && plans_[unit].keeps_table;
  }

  // Budget (player.cc): used only when the game is sized by events.
  bool Affordable(int cost) const;
  int Reserved() const;
  int ClosingReserve() const;
  bool FullTurnFits() const;
  int Contacts(bool unfought_only) const;
  int FrenziedChargers(int clan) const;

  // The game frame (player.cc).
  void BuildHeader();
  void BuildOrderOfBattle();
  void AddUnitOfKind(int clan, int n, int kind, v1::Unit& unit);
  void FinishUnit(int clan, int n, int stands, int width, v1::Unit& unit);
  void AddMissileUnit(int clan, int n, v1::Unit& unit);
  void AddSpearUnit(int clan, int n, v1::Unit& unit);
  void AddSamuraiUnit(int clan, int n, v1::Unit& unit);
  void AddRoninUnit(int clan, int n, v1::Unit& unit);
  void AddMonkUnit(int clan, int n, v1::Unit& unit);
  void AddPeasantUnit(int clan, int n, v1::Unit& unit);
  void AddHatamotoUnit(int clan, int n, v1::Unit& unit);
  void AddHeadquartersUnit(int clan, int n, v1::Unit& unit);
  void AddLeader(int clan, v1::LeaderKind kind, int unit_number);
  void Emit(v1::Event& event);
  void PlayTurn(TurnKind kind);
  void StartTurn();
  void Activate(int clan);
  void EndTurn(TurnKind kind);

  // Movement (player.cc).
  void MovementPhase(int clan);
  void MaybeMove(int unit);
  void Absorb(int unit);
  bool MoveUnit(int unit);  // False when it found nowhere to go.
  void TurnAbout(int unit);
  std::vector<int> Absorbers(int clan) const;
  void PadClosingTurn(int clan);
  int PredictEndOfTurnTests();

  // Firing (player_fire.cc).
  void FiringPhase(int clan);
  bool MayFire(int unit) const;
  void FillFacts(v1::FiringFacts& facts);
  bool SurvivesVolley(int target, int stands_firing) const;
  std::vector<int> Targets(int firer, int stands_firing);
  bool TryFire(int firer, int charger, bool second_volley);
  void PlantFiringFault(v1::Firing& firing, int hits, int target);
  void RollOwedLeaderLosses(int acting_clan);
  int FirstChargerOf(int unit) const;
  void RollOwedLeaderLoss(int acting_clan, std::size_t leader);

  // Charges and melee (player_melee.cc).
  void ChargeWithFrenzied(int clan, TurnKind kind);
  bool MayCharge(int unit) const;
  bool MayBeCharged(int unit) const;
  std::vector<int> ContactTargets(int charger) const;
  std::vector<int> FallShortTargets(int charger) const;
  bool MaybeCharge(int unit);
  void Charge(int charger, int target, bool falls_short, bool join = false);
  void AnswerCharge(int charger, int target, rules::MoraleResult result);
  bool ContactMade(const Pairing& p) const;
  void MeleePhase(int clan);
  void FightPairing(int a, int b);
  RoundResult FightRound(int a, int b, const MeleeShare* share);
  int JoinTarget(int charger) const;
  bool MaybeJoinCharge(int charger);
  // A melee still in contact from an earlier turn, not yet fought this
  // turn, whose enemy `charger` may charge to join it: the friend in it,
  // and the enemy; {-1, -1} when none (JoinOngoingTarget).
  std::pair<int, int> JoinOngoingTarget(int charger) const;
  bool MaybeJoinOngoing(int charger);
  // Whether `unit` fights exactly one melee contact, the one with `enemy`.
  bool OnlyContact(int unit, int enemy) const;
  int FrontStandsMax(int unit) const;
  void FightMultiMelee(int target, std::array<int, 2> chargers);
  void FitShare(const MeleeShare& share, v1::MeleeRound& round,
                rules::daimyo::MeleePairing& pairing);
  bool MultiRoundAcceptable(const MeleeShare& share,
                            const rules::daimyo::MeleePairing& pairing,
                            std::array<int, 2> hits) const;
  bool SecondRoundAcceptable(const RoundResult& first,
                             const RoundResult& second) const;
  RoundResult ResultOf(const rules::daimyo::MeleePairing& pairing,
                       std::array<int, 2> hits) const;
  void MakeMultiMeleeMoves(absl::Span<const RoundResult> results);
  int LeaderOf(int unit) const;
  void MaybeChallenge(int a, int b);
  std::array<int, 2> RollMeleeDice(v1::MeleeRound& round,
                                   rules::daimyo::MeleePairing& pairing,
                                   const MeleeShare* share);
  bool LeavesContactStuck(const rules::daimyo::MeleePairing& pairing,
                          std::array<int, 2> hits) const;
  bool FollowUpFallsShort(const rules::daimyo::MeleePairing& pairing,
                          std::array<int, 2> hits) const;
  bool PlantMeleeDiceFault(v1::MeleeRound& round);
  void PlantMeleeHitsFault(v1::MeleeRound& round,
                           const rules::daimyo::MeleePairing& pairing,
                           std::array<int, 2>& hits);
  void PlantMeleeOutcomeFault(v1::MeleeRound& round);
  void DeclareMeleeFacts(v1::MeleeRound& round,
                         rules::daimyo::MeleePairing& pairing,
                         const rules::BattleState& at);
  void MaybeDeclarePursuing(v1::MeleeRound& round,
                            rules::daimyo::MeleePairing& pairing, int s);
  void MakeMeleeResultMoves(const RoundResult& result);
  bool MoveLoser(int loser, bool routs, bool followed_up);
  void MoveWinner(int winner, int loser, bool loser_routs, bool loser_destroyed,
                  bool may_plant, bool follow, bool moves_up);
  void AddRoutFacts(int router, v1::ResultMove& move);
  void RemoveDestroyed();

  // Morale (player_morale.cc).
  void RallyRouters(int clan);
  void MoveRouters(int clan);
  int RoutersToMove(int clan) const;
  rules::MoraleResult TakeChargeTests(int unit);
  void TakeEndOfTurnTests();
  rules::MoraleResult TakeMoraleTest(int unit, int reason);
  void FillMoraleFacts(int unit, v1::MoraleTest& test);
  rules::daimyo::MoraleTestInput MoraleInput(int unit,
                                             const v1::MoraleTest& test,
                                             std::vector<int>& friends) const;
  void CarryOutResult(int unit, rules::MoraleResult result, bool was_routing);
  // Now and then lists, for leader `leader`'s death, friends of his clan
  // near his unit, who then test for it (reason 5) at the end of the turn.
  void ListUnitsNearDeath(
      int leader, google::protobuf::RepeatedPtrField<std::string>& near);
  void MakeResultMove(int unit, v1::ResultMoveKind kind);
  void Remove(int unit);

  // The table (player_table.cc), with --positions only: the table and its
  // terrain, the units deployed, and the poses moves and charges end in,
  // each checked on the table as the engine measures it; the measured facts
  // put into the claims the player works out, as the engine puts them.
  bool positions() const { return options_.positions; }
  // The table's width: 180 cm, and 180 more for each 16 units a clan more.
  int TableWidthMm() const;
  void BuildTable();
  void DeployUnits();
  geometry::OrientedRect FootprintOf(int unit) const;
  geometry::OrientedRect FootprintAt(int unit, const rules::Pose& pose) const;
  double Gap(int a, int b) const;  // cm between two units.
  bool PoseFree(int unit, const rules::Pose& pose, double clearance,
                int except) const;
  std::optional<rules::Pose> MoveTo(int unit);
  bool EndAccepted(int unit, const rules::Pose& pose) const;
  std::optional<rules::Pose> ContactPose(int charger, int target) const;
  std::optional<rules::Pose> JoinPose(int charger, int target) const;
  std::optional<rules::Pose> FreeContactPose(int charger, int target) const;
  bool WithinCharge(int charger, const rules::Pose& pose) const;
  bool ChargeReaches(int charger, int target) const;
  rules::Pose ShortPose(int charger, int target);
  bool MayShoot(int firer, int target, bool at_charger) const;
  void ApplyShotMeasure(rules::daimyo::Shot& shot) const;
  void DeclareMeasuredMeleeFacts(v1::MeleeRound& round,
                                 rules::daimyo::MeleePairing& pairing,
                                 const rules::BattleState& at) const;
  void ApplyMoraleMeasure(rules::daimyo::MoraleTestInput& in,
                          std::vector<int>& friends) const;
  int MeleeOpponent(int unit) const;
  // Lists in the rout `move` of `unit`, ending at `end` (as
  // PredictResultMove works it out), the friends it passes through, as the
  // engine measures them (rules::daimyo::FriendsPassedThrough).
  void AddPassedThrough(int unit, const rules::Pose& end,
                        v1::ResultMove& move) const;
  rules::daimyo::MoveMeasure PredictResultMove(int unit,
                                               v1::ResultMoveKind kind,
                                               int distance_mm,
                                               const rules::Pose* to,
                                               int fought) const;
  v1::MoveBlock PredictedBlock(v1::ResultMoveKind kind,
                               const rules::daimyo::MoveMeasure& m) const;
  rules::Pose FlightPose(int router, int distance_mm) const;
  void SetPursuitTo(int winner, int loser, v1::ResultMove& move);

  // Faults (player.cc).
  bool MayPlant(FaultKind kind);
  // The same, whatever the fault's due time: for the kinds whose chances
  // are few and often early (a duel, a push back followed up, a leader's
  // loss roll), which would otherwise be planted as stand-ins.
  bool MayPlantAnyTime(FaultKind kind);
  void RecordFault(FaultKind kind, std::uint64_t seq, std::string subject,
                   std::string description);
  void RecordDeferredFault(FaultKind kind, std::string subject,
                           std::string description);
  // Records a fault the audit reports at the next activation (a result
  // move skipped: it is made as soon as its result comes, reading 34), or
  // at the turn's end when no activation comes first.
  void RecordFaultDueNextActivation(FaultKind kind, std::string subject,
                                    std::string description);
  void HoldNotOwed(int unit, FaultKind as);
  int PlantLeftoverFaults(int room);

  const GeneratorOptions options_;
  const replay::LoadedRuleset& ruleset_;
  const rules::daimyo::Tables rules_;  // Daimyo's tables, from ruleset_.data.
  std::mt19937_64 rng_;
  std::mt19937_64 variety_rng_;
  // The initiative dice's own stream, and whether the game dices for it.
  std::mt19937_64 initiative_rng_;
  const bool dices_for_initiative_;
  const int target_events_;
  const int units_per_clan_;
  FaultPlanner<FaultKind> planner_;

  v1::BattleLog log_;
  google::protobuf::RepeatedPtrField<v1::Finding> findings_;
  std::unique_ptr<rules::daimyo::DaimyoEngine> replayer_;
  // The table of a game with positions, as the engine reads it from the log.
  std::optional<rules::Battlefield> field_;
  // The scenario's victory by points, scored as each turn ends.
  std::unique_ptr<rules::VictoryTracker> victory_;
  std::vector<UnitPlan> plans_;  // Parallel to the order of battle.
  std::uint64_t seq_ = 0;
  std::uint32_t turn_ = 0;
  int active_clan_ = 0;
  int pending_frame_events_ = 0;       // Activations and turn_end still owed.
  bool planting_ = true;               // Faults may be planted in this turn.
  bool in_end_of_turn_tests_ = false;  // TakeEndOfTurnTests is running.
  // The loser's last move was blocked by enemies or the table edge.
  bool loser_blocked_by_enemy_ = false;
  std::vector<Pairing> new_pairings_;  // This activation's.
  // This activation's charges that join a melee in contact from an earlier
  // turn: the charger, and the friend already fighting the target.
  struct OngoingJoin {
    int charger = -1;
    int friend_unit = -1;
    int target = -1;
  };
  std::vector<OngoingJoin> ongoing_joins_;
  // Per unit: charged this turn (it may owe a stand-or-retire choice until
  // the turn ends), moved away by a result move this activation.
  std::vector<bool> targeted_this_turn_;
  // Per unit: declared a charge (a counter-charge too) this turn, which was
  // its move for the turn (reading 39).
  std::vector<bool> charged_this_turn_;
  std::vector<bool> left_this_activation_;
  std::vector<bool> leader_roll_skipped_;  // Per leader, this turn.
  // End-of-turn dice drawn ahead in the closing turn, per unit.
  std::vector<std::array<std::uint32_t, 2>> drawn_dice_;
  std::vector<bool> has_drawn_dice_;
  std::vector<PlantedFault> faults_;
  std::vector<std::size_t> deferred_faults_;  // Waiting for turn_end's seq.
  // Waiting for the seq of the next activation, or turn_end's.
  std::vector<std::size_t> faults_due_next_activation_;
};

}  // namespace gunbai::generate::internal

#endif  // GUNBAI_GENERATE_DAIMYO_PLAYER_H_
