// Replays a battle log event by event through the rules engine: resolves ids,
// enforces the sequence of a turn, calls the checks and transitions of
// rules/, and reports findings. After a disputed outcome it goes on with the
// outcome as played (the claimed one), so one error does not cascade.
// Thread-compatible: one Replayer per log; distinct Replayers may run on
// distinct threads.
#ifndef GUNBAI_REPLAY_REPLAYER_H_
#define GUNBAI_REPLAY_REPLAYER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/report.pb.h"
#include "replay/ruleset_loader.h"
#include "rules/battle_state.h"
#include "rules/daimyo/firing.h"
#include "rules/types.h"

namespace gunbai::replay {

// Bounds on a log's order of battle.
inline constexpr int kMaxClans = 32;
inline constexpr int kMaxUnits = 100000;
inline constexpr int kMaxLeaders = 100000;
inline constexpr int kMaxStands = 64;

class Replayer : private rules::FindingSink {
 public:
  // Builds the starting state from the log's header and order of battle.
  // `ruleset` must outlive the Replayer. Findings are appended to
  // `findings`, which must outlive the Replayer too. Returns InvalidArgument
  // naming the unit or leader when the order of battle is unusable (unknown
  // clan, duplicate id, stands out of range).
  static absl::StatusOr<std::unique_ptr<Replayer>> Create(
      const gunbai::v1::BattleLog& log, const LoadedRuleset& ruleset,
      google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings);

  // Replays one event: checks it, reports its findings, applies it.
  void Apply(const gunbai::v1::Event& event);

  // Reports what the log still owes after its last event (leader-loss
  // rolls). Call once, after the last Apply.
  void Finish();

  const rules::BattleState& state() const { return state_; }
  int disputes() const { return disputes_; }
  // Returns the unit index for `id`, or -1.
  int FindUnit(absl::string_view id) const;

 private:
  Replayer(const LoadedRuleset& ruleset,
           google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings)
      : ruleset_(ruleset), rules_(ruleset.rules), findings_(findings) {}

  absl::Status Init(const gunbai::v1::BattleLog& log);
  void Report(rules::Finding finding) override;
  void Violation(absl::string_view rule_id, std::string subject,
                 std::string message);

  bool CheckSequence(const gunbai::v1::Event& event);
  bool EnterPhase(rules::Phase phase, absl::string_view what);
  int ResolveUnit(absl::string_view id, absl::string_view role);
  bool UnitOnTable(int unit, absl::string_view what);
  int FindClan(absl::string_view id) const;
  void CheckDiceFaces(const google::protobuf::RepeatedField<uint32_t>& dice,
                      absl::string_view what, absl::string_view subject);

  void OnTurnStart(const gunbai::v1::Event& event);
  void OnActivation(const gunbai::v1::Event& event);
  void OnMove(const gunbai::v1::Move& move);
  void OnCharge(const gunbai::v1::ChargeDeclaration& charge);
  void OnFiring(const gunbai::v1::Event& event);
  void OnLeaderLoss(const gunbai::v1::LeaderLossRoll& roll);
  void OnMeleeRound(const gunbai::v1::MeleeRound& round);
  void OnChallenge(const gunbai::v1::Challenge& challenge);
  void OnMoraleTest(const gunbai::v1::MoraleTest& test);
  void OnResultMove(const gunbai::v1::ResultMove& move);
  void OnRemoval(const gunbai::v1::Removal& removal);
  void OnTurnEnd();
  void CheckOwedRolls();
  void OnGameEnd();
  void LandHits(int unit, int hits);
  void ApplyLeaderLoss(int leader, bool killed);
  void ReportFiringDispute(const gunbai::v1::Firing& firing,
                           const rules::daimyo::Shot& shot, int computed);
  void ReportStandLossDispute(int target, int hits, int claimed, int computed);
  void Unchecked(absl::string_view rule_id, std::string subject,
                 absl::string_view what);

  const LoadedRuleset& ruleset_;
  const rules::Ruleset& rules_;
  google::protobuf::RepeatedPtrField<gunbai::v1::Finding>* findings_;
  rules::BattleState state_;
  absl::flat_hash_map<std::string, int> unit_index_;
  absl::flat_hash_map<std::string, int> leader_index_;
  std::uint64_t seq_ = 0;
  std::uint32_t turn_ = 0;
  int disputes_ = 0;
};

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_REPLAYER_H_
