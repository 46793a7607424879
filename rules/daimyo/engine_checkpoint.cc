// The Daimyo engine's checkpoints (rules/engine.h): what each member of the
// DaimyoEngine that outlives an event holds, written in a fixed order with
// rules/checkpoint_codec.h. The order of battle's fixed parts (profiles,
// ids, the indices built from them) come from the freshly created engine a
// checkpoint is restored into; the checkpoint only fingerprints them. The
// scratch of ResolveUnitList (list_mark_, list_generation_, list_units_)
// carries nothing between events and is not written.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rules/base/status_macros.h"
#include "rules/checkpoint_codec.h"
#include "rules/daimyo/daimyo_engine.h"

namespace gunbai::rules::daimyo {

namespace {

constexpr absl::string_view kEngineName = "daimyo";
// Morale test reasons are bits of a 16-bit set (rules::ReasonBit).
constexpr int kMaxReason = 15;
constexpr int kMaxQuantity = 1 << 30;

// Returns the keys of `map`, sorted: hash order must not reach the bytes.
template <typename Map>
std::vector<int> SortedKeys(const Map& map) {
  std::vector<int> keys;
  keys.reserve(map.size());
  for (const auto& [key, value] : map) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

absl::StatusOr<std::string> DaimyoEngine::SaveCheckpoint() const {
  rules::CheckpointWriter out(kEngineName, kCheckpointVersion);
  rules::WriteBattleState(state_, out);
  out.U64(seq_);
  out.U64(turn_);
  out.U64(pending_pairings_.size());
  for (const PairingResult& r : pending_pairings_) {
    for (int v : {r.a, r.b, r.winner, r.loser, r.rounds}) out.Int(v);
    for (bool b : {r.loser_routs, r.loser_flank_or_rear, r.a_flanked,
                   r.b_flanked, r.winner_defends_obstacle}) {
      out.Bool(b);
    }
  }
  out.String(pending_melee_id_);
  out.U64(stands_in_pending_melee_.size());
  for (int unit : SortedKeys(stands_in_pending_melee_)) {
    out.Int(unit);
    out.Int(stands_in_pending_melee_.at(unit));
  }
  out.U64(at_melee_start_.size());
  for (int unit : SortedKeys(at_melee_start_)) {
    const AtMeleeStart& m = at_melee_start_.at(unit);
    for (int v : {unit, m.stands, m.pursued_on_turn, m.followed_up_on_turn}) {
      out.Int(v);
    }
    out.Bool(m.disordered);
    out.Bool(m.disordered_by_pursuit);
  }
  out.I64(findings_left_out_);
  for (std::int64_t n : left_out_by_severity_) out.I64(n);
  // The per-unit vectors, a unit at a time (each has a unit's entries).
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    out.Enum(owed_moves_[u]);
    out.Int(owed_move_opponent_[u]);
    out.Int(owed_move_rounds_[u]);
    // Where the DaimyoEngine kept it before UnitStatus did: the format is the
    // same.
    out.U64(state_.units[u].halt_cause_seq);
    out.Int(may_counter_charge_[u]);
    out.Int(router_steps_[u]);
    out.Int(charged_on_turn_[u]);
    out.Int(rout_moved_on_turn_[u]);
  }
  out.U64(frenzied_this_activation_.size());
  for (int unit : frenzied_this_activation_) out.Int(unit);
  out.U64(challenge_awaiting_round_.seq);
  out.Int(challenge_awaiting_round_.a);
  out.Int(challenge_awaiting_round_.b);
  for (int made : loss_rolls_made_) out.Int(made);
  out.U64(end_of_turn_tests_.size());
  for (const EndOfTurnTest& t : end_of_turn_tests_) {
    out.Int(t.unit);
    out.U64(t.seq);
    out.Int(t.reason);
  }
  out.U64(fought_pairs_.size());
  for (const auto& [a, b] : fought_pairs_) {
    out.Int(a);
    out.Int(b);
  }
  return out.Take();
}

absl::Status DaimyoEngine::RestoreCheckpoint(absl::string_view checkpoint) {
  if (state_.any_event || seq_ != 0) {
    return absl::FailedPreconditionError(
        "a checkpoint is restored into a fresh engine, before any event");
  }
  rules::CheckpointReader in(checkpoint, kEngineName, kCheckpointVersion);
  const int units = static_cast<int>(state_.units.size());
  const auto unit_or_none = [&in, units] { return in.Int(-1, units - 1); };
  // Read into copies: the engine changes only once every byte has passed.
  rules::BattleState state = state_;
  rules::ReadBattleState(in, state);
  const std::uint64_t seq = in.U64();
  const std::uint64_t turn = in.U64();
  if (turn > std::numeric_limits<std::uint32_t>::max()) {
    in.Fail("the event's turn does not fit in 32 bits");
  }
  std::vector<PairingResult> pairings(in.Count(kMaxUnits * 4));
  for (PairingResult& r : pairings) {
    if (!in.ok()) break;
    // Both sides are units; a draw has neither winner nor loser.
    r.a = in.Int(0, units - 1);
    r.b = in.Int(0, units - 1);
    r.winner = unit_or_none();
    r.loser = unit_or_none();
    if ((r.winner < 0) != (r.loser < 0)) {
      in.Fail("a pairing has a winner without a loser, or a loser without");
    }
    r.rounds = in.Int(0, kMaxQuantity);
    for (bool* b : {&r.loser_routs, &r.loser_flank_or_rear, &r.a_flanked,
                    &r.b_flanked, &r.winner_defends_obstacle}) {
      *b = in.Bool();
    }
  }
  std::string melee_id = in.String();
  absl::flat_hash_map<int, int> stands_in_melee;
  for (std::size_t i = in.Count(units); i > 0 && in.ok(); --i) {
    const int unit = in.Int(0, units - 1);
    stands_in_melee[unit] = in.Int(0, kMaxQuantity);
  }
  absl::flat_hash_map<int, AtMeleeStart> at_start;
  for (std::size_t i = in.Count(units); i > 0 && in.ok(); --i) {
    const int unit = in.Int(0, units - 1);
    AtMeleeStart& m = at_start[unit];
    m.stands = in.Int(0, state.profiles[unit].starting_stands);
    m.pursued_on_turn = in.Int(0, kMaxQuantity);
    m.followed_up_on_turn = in.Int(0, kMaxQuantity);
    m.disordered = in.Bool();
    m.disordered_by_pursuit = in.Bool();
  }
  const std::int64_t left_out = in.I64();
  std::array<std::int64_t, 4> left_out_by_severity{};
  for (std::int64_t& n : left_out_by_severity) n = in.I64();
  std::vector<OwedMove> owed_moves(units);
  std::vector<int> opponents(units), rounds(units), may_counter(units);
  std::vector<std::uint64_t> halt_cause(units);
  std::vector<std::uint8_t> router_steps(units);
  std::vector<int> charged_on_turn(units), rout_moved_on_turn(units);
  for (int u = 0; u < units && in.ok(); ++u) {
    owed_moves[u] = in.Enum(OwedMove::kMayRetire);
    opponents[u] = unit_or_none();
    rounds[u] = in.Int(0, kMaxQuantity);
    halt_cause[u] = in.U64();
    may_counter[u] = unit_or_none();
    router_steps[u] = static_cast<std::uint8_t>(in.Int(0, 7));
    charged_on_turn[u] = in.Int(0, static_cast<int>(kMaxTurn));
    rout_moved_on_turn[u] = in.Int(0, static_cast<int>(kMaxTurn));
  }
  std::vector<int> frenzied(in.Count(units));
  for (int& unit : frenzied) unit = in.Int(0, units - 1);
  ChallengeAwaitingRound challenge;
  challenge.seq = in.U64();
  challenge.a = unit_or_none();
  challenge.b = unit_or_none();
  // Awaiting (seq not 0): the two units; else none.
  if ((challenge.seq != 0) != (challenge.a >= 0) ||
      (challenge.a >= 0) != (challenge.b >= 0)) {
    in.Fail("the challenge awaiting its round names its units wrongly");
  }
  std::vector<int> loss_rolls(state_.leaders.size());
  for (int& made : loss_rolls) made = in.Int(0, kMaxQuantity);
  std::vector<EndOfTurnTest> tests(in.Count(kMaxQuantity));
  for (EndOfTurnTest& t : tests) {
    if (!in.ok()) break;
    t.unit = in.Int(0, units - 1);
    t.seq = in.U64();
    t.reason = in.Int(0, kMaxReason);
  }
  std::vector<std::pair<int, int>> fought(in.Count(
      static_cast<std::size_t>(units) * static_cast<std::size_t>(units)));
  for (auto& [a, b] : fought) {
    if (!in.ok()) break;
    a = in.Int(0, units - 1);
    b = in.Int(a, units - 1);
  }
  GUNBAI_RETURN_IF_ERROR(in.Finish());
  state_ = std::move(state);
  seq_ = seq;
  turn_ = static_cast<std::uint32_t>(turn);
  pending_pairings_ = std::move(pairings);
  pending_melee_id_ = std::move(melee_id);
  stands_in_pending_melee_ = std::move(stands_in_melee);
  at_melee_start_ = std::move(at_start);
  findings_left_out_ = left_out;
  left_out_by_severity_ = left_out_by_severity;
  owed_moves_ = std::move(owed_moves);
  owed_move_opponent_ = std::move(opponents);
  owed_move_rounds_ = std::move(rounds);
  for (int u = 0; u < units; ++u) {
    state_.units[u].halt_cause_seq = halt_cause[u];
  }
  may_counter_charge_ = std::move(may_counter);
  router_steps_ = std::move(router_steps);
  charged_on_turn_ = std::move(charged_on_turn);
  rout_moved_on_turn_ = std::move(rout_moved_on_turn);
  frenzied_this_activation_ = std::move(frenzied);
  challenge_awaiting_round_ = challenge;
  loss_rolls_made_ = std::move(loss_rolls);
  end_of_turn_tests_ = std::move(tests);
  fought_pairs_ = std::move(fought);
  fought_pairs_.reserve(state_.units.size());
  return absl::OkStatus();
}

}  // namespace gunbai::rules::daimyo
