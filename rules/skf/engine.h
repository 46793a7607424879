// The Samurai Knight Fever ruleset's plug-in entry points (rules/engine.h):
// the check of its data (gunbai.v1.SkfRules, the umpire's tables) and the
// engine that replays a log under page 6 of the rules (rules/skf/RULES.md).
// The pure rules are in rules/skf/melee.h and rules/skf/morale.h; this is
// the adapter from the log's proto messages to them.
//
// The engine resolves ids, keeps the turn sequence, groups the pairings of
// a melee by melee_id and settles the melee when its last pairing is logged
// (hits land then, all at once), then owes each unit that fought one morale
// check before the next melee and each leader touching it one leader-hit
// roll before the end of the turn. What page 6 does not cover (firing,
// movement, charges, duels, result moves) is replayed as the log claims,
// with one unverifiable finding per kind. After a disputed outcome it goes
// on with the claimed one, except at EngineOptions::follow_computed_at_seq.
// The plumbing (findings, outcomes, ids, the order of battle's common
// checks, the sequence checks and the switch on the event) is
// rules/engine_base.h's. The code: engine.cc (the units' and leaders' own
// checks, the turn, uncovered events), engine_melee.cc, engine_after.cc
// (morale checks, leader hits), data.cc (the tables), victory.cc (the
// victory points a log is scored with).
// Thread-safe: functions only; each SkfEngine is thread-compatible.
#ifndef GUNBAI_RULES_SKF_ENGINE_H_
#define GUNBAI_RULES_SKF_ENGINE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/battle_state.h"
#include "rules/engine.h"
#include "rules/engine_base.h"
#include "rules/skf/melee.h"
#include "rules/skf/tables.h"
#include "rules/types.h"

namespace gunbai::rules {

// Returns the text of rules/skf/skf.textproto, embedded at build time.
absl::string_view SkfRulesetText();

// Returns the text of rules/skf/RULES.md, embedded at build time.
absl::string_view SkfRulesDoc();

}  // namespace gunbai::rules

namespace gunbai::rules::skf {

// Converts the umpire's tables to domain form. Returns InvalidArgument
// naming `source` and the field (e.g. "skf.odds_columns[1].own") when a
// value is out of range or repeated.
absl::StatusOr<Tables> TablesFromProto(const gunbai::v1::SkfRules& data,
                                       absl::string_view source);

// Checks the skf section of a ruleset file (RulesetPlugin::validate).
absl::Status ValidateSkfRuleset(const gunbai::v1::Ruleset& data,
                                absl::string_view source);

// Builds the engine for `log` (RulesetPlugin::create). Returns
// InvalidArgument naming the unit or leader when the order of battle is
// unusable, or the field when `data` does not validate.
absl::StatusOr<std::unique_ptr<Engine>> CreateSkfEngine(
    const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
    const EngineOptions& options, EngineOutput output);

// The dice gunbaid rolls for an event of a live game with server dice
// (RulesetPlugin::server_dice): a melee pairing 2 (one a side), a morale
// check the ruleset's skf.morale.dice (FailedPrecondition without
// skf.morale), a leader-hit roll 1, anything else none.
absl::StatusOr<ServerDicePlan> SkfServerDice(const gunbai::v1::Event& event,
                                             const gunbai::v1::Ruleset& data,
                                             const BattleState& state);

// The victory by points of `log` (RulesetPlugin::victory): the ruleset's
// unit and camp points (skf.victory) with the header's points_to_win, or
// the ruleset's default_points_to_win when the header gives none. Reports a
// violation (skf.victory.points_mismatch) for each unit or camp value of
// the header that disagrees with the ruleset's. Without skf.victory, the
// header's points as the log gives them (skf.victory.unchecked). Returns
// nullopt when no total to win is known, and InvalidArgument naming the
// header field when a troop type in the scenario is not set.
absl::StatusOr<std::optional<VictorySettings>> SkfVictorySettings(
    const gunbai::v1::BattleLog& log, const gunbai::v1::Ruleset& data,
    google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings);

// How the dice statistics read an SKF roll (RulesetPlugin::dice_in_pairs):
// a morale check of two dice is 2d6; a melee side's die, a leader-hit
// roll and a morale check of any other number of dice count die by die.
bool SkfDiceInPairs(gunbai::v1::Event::BodyCase roll, int dice);

// Bounds on a unit (those on the order of battle, kMaxClans, kMaxUnits and
// kMaxLeaders, are every ruleset's: rules/engine_base.h).
inline constexpr int kMaxBases = 64;
inline constexpr int kMaxDisorder = 1000;
// Pairings of one melee; more are skipped with a violation.
inline constexpr int kMaxPairings = 256;

// The Samurai Knight Fever Engine (see the top of this file). Prefer
// CreateSkfEngine; Create takes tables already in domain form (tests).
class SkfEngine final : public EngineBase {
 public:
  // Builds the starting state from the log's order of battle. Returns
  // InvalidArgument naming the unit or leader when it is unusable.
  static absl::StatusOr<std::unique_ptr<SkfEngine>> Create(
      const gunbai::v1::BattleLog& log, Tables tables,
      const EngineOptions& options, EngineOutput output);

  // Checkpoints (rules/engine.h; engine_checkpoint.cc): every member that
  // carries state from one event to the next. Bump the version when a
  // member is added.
  static constexpr std::uint32_t kCheckpointVersion = 3;
  std::uint32_t CheckpointVersion() const override {
    return kCheckpointVersion;
  }
  absl::StatusOr<std::string> SaveCheckpoint() const override;
  absl::Status RestoreCheckpoint(absl::string_view checkpoint) override;

  // The move generator (engine_generate.cc; RULES.md, "What may happen
  // next") and the copy its proposals are tried on.
  bool ProposeEvents(int clan, bool umpire,
                     std::vector<ProposedEvent>& out) const override;
  std::unique_ptr<Engine> Clone(EngineOutput output) const override;

 private:
  // Mechanisms page 6 does not cover, reported once a log each.
  enum class Uncovered {
    kFiring,
    kMovement,
    kCharge,
    kChallenge,
    kResultMove,
    kMoraleReason,
  };
  static constexpr int kUncoveredKinds = 6;

  // Where a unit stands with its check after the last melee.
  enum class MoraleDue { kNone, kOwed, kTaken };

  // What the order of battle leaves open about a unit.
  struct UnitFacts {
    std::optional<Mobility> mobility;
    std::optional<Quality> quality;
  };

  // One pairing of the melee being fought; its hits land when the melee is
  // settled.
  struct Pairing {
    std::uint64_t seq = 0;
    std::uint32_t turn = 0;
    std::array<int, 2> units = {-1, -1};
    std::array<int, 2> bases = {0, 0};
    // Declared bases in contact with the enemy; 0 when not declared.
    std::array<int, 2> in_contact = {0, 0};
    std::array<int, 2> hits_taken = {0, 0};
    std::array<int, 2> bases_lost = {0, 0};
  };

  SkfEngine(Tables tables, const EngineOptions& options, EngineOutput output)
      : EngineBase({.max_findings = 0,
                    .excerpt_ids = false,
                    .removed_unit_tail = "; the event is skipped.",
                    .after_game_end_rule = "skf.sequence.after_game_end",
                    .outside_turn_rule = "skf.sequence.outside_turn",
                    .turn_end_missing_rule = "skf.sequence.turn_end_missing",
                    .turn_number_rule = "skf.sequence.turn_number",
                    .initiative_clan_required = false,
                    .max_turn = 100000,
                    .max_carried_hits = kMaxDisorder},
                   options, output),
        tables_(std::move(tables)) {}

  absl::Status Init(const gunbai::v1::BattleLog& log);
  absl::Status AddUnitFacts(int index, const gunbai::v1::Unit& unit,
                            UnitProfile& profile, UnitStatus& status) override;
  absl::Status AddLeaderFacts(int index, const gunbai::v1::Leader& proto,
                              LeaderState& leader) override;

  void ReportUncovered(Uncovered kind);

  // Shows `phase` in the state (gunbai state) while a turn is in progress;
  // page 6 gives no turn sequence, so the order of phases is not checked.
  void ShowPhase(Phase phase);

  // Settles the open melee at an event that is not one of its pairings,
  // and closes the window of the checks it owes (EngineBase::Apply).
  void BeforeEventBody(const gunbai::v1::Event& event) override;
  void OnLogEnd() override;

  // Events page 6 covers only in passing.
  void OnActivation(const gunbai::v1::Event& event) override;
  void CloseTurn() override;
  void OnMove(const gunbai::v1::Move& move) override;
  void OnCharge(const gunbai::v1::ChargeDeclaration& charge) override;
  void OnFiring(const gunbai::v1::Event& event) override;
  void OnChallenge(const gunbai::v1::Challenge& challenge) override;
  void OnResultMove(const gunbai::v1::ResultMove& move) override;
  void OnRemoval(const gunbai::v1::Removal& removal) override;
  // Lands `hits` on `unit`, `bases_lost` of them as bases lost and the rest
  // on its disorder factor; a unit with no bases left is removed.
  void LandHits(int unit, int hits, int bases_lost);

  // Melee (engine_melee.cc).
  void OnMeleeRound(const gunbai::v1::MeleeRound& round) override;
  bool StartMelee(const gunbai::v1::MeleeRound& round, int a, int b);
  void CheckBases(const gunbai::v1::MeleeRound& round, const Pairing& pairing);
  bool CheckDice(const gunbai::v1::MeleeSide& side, int unit);
  MeleePairing PairingInput(const gunbai::v1::MeleeRound& round,
                            const Pairing& pairing);
  void ResolveHits(const gunbai::v1::MeleeRound& round,
                   const MeleePairing& input, std::array<bool, 2> resolvable,
                   Pairing& pairing);
  void ReportHitDispute(const MeleePairing& input, int side, uint32_t claimed,
                        int computed);
  void SettleMelee();
  // Checks the bases of each pairing of the settled melee against the
  // number of pairings its units fought in.
  void CheckBasesAtSettle();
  // Reports the checks still owed by the last melee as missing, before
  // `what` (e.g. "the next melee"), and closes the window.
  void CloseMoraleWindow(absl::string_view what);
  int LeadersTouching(int unit) const;

  // After a melee (engine_after.cc).
  void OnMoraleTest(const gunbai::v1::MoraleTest& test) override;
  void CheckMoraleRoll(const gunbai::v1::MoraleTest& test, int unit,
                       MoraleResult& result);
  void ReportMoraleDispute(absl::string_view rule_id, int unit,
                           std::string claimed, std::string computed,
                           std::string message, Trace trace);
  void ApplyMoraleResult(int unit, MoraleResult result);
  void OnLeaderLoss(const gunbai::v1::LeaderLossRoll& roll) override;
  void CheckOwedLeaderRolls();
  void KillLeader(int leader);

  Tables tables_;
  std::vector<UnitFacts> facts_;
  // The leaders attached to (touching) each unit.
  std::vector<std::vector<int>> unit_leaders_;
  std::array<bool, kUncoveredKinds> uncovered_reported_{};
  bool morale_unchecked_reported_ = false;
  bool leader_hits_unchecked_reported_ = false;

  // The melee being fought: open from its first pairing until an event
  // that is not one of its pairings.
  bool melee_open_ = false;
  std::string melee_id_;
  std::vector<Pairing> pairings_;
  // The modifier names of the pairing being checked (MeleeSideInput spans
  // them).
  std::array<std::vector<std::string>, 2> modifier_names_;
  // Bases each unit fights with in the open melee, over its pairings, and
  // the number of its pairings.
  std::vector<int> bases_in_melee_;
  std::vector<int> pairings_in_melee_;
  absl::flat_hash_set<std::string> settled_melee_ids_;  // This turn.

  // The checks owed by the last melee, until the next melee, activation or
  // the end of the turn.
  std::vector<MoraleDue> morale_due_;
  std::vector<int> window_units_;
  std::vector<int> bases_lost_in_melee_;
  std::uint64_t morale_melee_seq_ = 0;
  // Leader-hit rolls owed, per leader, until the end of the turn.
  std::vector<int> leader_rolls_owed_;
};

}  // namespace gunbai::rules::skf

#endif  // GUNBAI_RULES_SKF_ENGINE_H_
