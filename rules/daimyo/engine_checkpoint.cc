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
#include "rules/checkpoint_codec.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/status_macros.h"

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
  WriteMeleeParts(out);
  out.I64(findings_left_out_);
  for (std::int64_t n : left_out_by_severity_) out.I64(n);
  WriteUnitParts(out);
  WriteTurnParts(out);
  return out.Take();
}

void DaimyoEngine::WriteMeleeParts(rules::CheckpointWriter& out) const {
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
}

void DaimyoEngine::WriteUnitParts(rules::CheckpointWriter& out) const {
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
}

void DaimyoEngine::WriteTurnParts(rules::CheckpointWriter& out) const {
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
}

// What a checkpoint holds beyond the state, read before any of it is taken
// into the engine.
struct DaimyoEngine::RestoredParts {
  std::vector<PairingResult> pairings;
  std::string melee_id;
  absl::flat_hash_map<int, int> stands_in_melee;
  absl::flat_hash_map<int, AtMeleeStart> at_start;
  std::int64_t left_out = 0;
  std::array<std::int64_t, 4> left_out_by_severity{};
  std::vector<OwedMove> owed_moves;
  std::vector<int> opponents, rounds, may_counter;
  std::vector<std::uint64_t> halt_cause;
  std::vector<std::uint8_t> router_steps;
  std::vector<int> charged_on_turn, rout_moved_on_turn;
  std::vector<int> frenzied;
  ChallengeAwaitingRound challenge;
  std::vector<int> loss_rolls;
  std::vector<EndOfTurnTest> tests;
  std::vector<std::pair<int, int>> fought;
};

absl::Status DaimyoEngine::RestoreCheckpoint(absl::string_view checkpoint) {
  if (state_.any_event || seq_ != 0) {
    return absl::FailedPreconditionError(
        "a checkpoint is restored into a fresh engine, before any event");
  }
  rules::CheckpointReader in(checkpoint, kEngineName, kCheckpointVersion);
  const int units = static_cast<int>(state_.units.size());
  // Read into copies: the engine changes only once every byte has passed.
  rules::BattleState state = state_;
  rules::ReadBattleState(in, state);
  const std::uint64_t seq = in.U64();
  const std::uint64_t turn = in.U64();
  if (turn > std::numeric_limits<std::uint32_t>::max()) {
    in.Fail("the event's turn does not fit in 32 bits");
  }
  RestoredParts parts;
  ReadMeleeParts(in, units, state, parts);
  parts.left_out = in.I64();
  for (std::int64_t& n : parts.left_out_by_severity) n = in.I64();
  ReadUnitParts(in, units, parts);
  ReadTurnParts(in, units, state_.leaders.size(), parts);
  GUNBAI_RETURN_IF_ERROR(in.Finish());
  state_ = std::move(state);
  seq_ = seq;
  turn_ = static_cast<std::uint32_t>(turn);
  TakeRestoredParts(std::move(parts));
  return absl::OkStatus();
}

void DaimyoEngine::ReadMeleeParts(rules::CheckpointReader& in, int units,
                                  const rules::BattleState& state,
                                  RestoredParts& parts) {
  const auto unit_or_none = [&in, units] { return in.Int(-1, units - 1); };
  parts.pairings.resize(in.Count(kMaxUnits * 4));
  for (PairingResult& r : parts.pairings) {
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
  parts.melee_id = in.String();
  for (std::size_t i = in.Count(units); i > 0 && in.ok(); --i) {
    const int unit = in.Int(0, units - 1);
    parts.stands_in_melee[unit] = in.Int(0, kMaxQuantity);
  }
  for (std::size_t i = in.Count(units); i > 0 && in.ok(); --i) {
    const int unit = in.Int(0, units - 1);
    AtMeleeStart& m = parts.at_start[unit];
    m.stands = in.Int(0, state.profiles[unit].starting_stands);
    m.pursued_on_turn = in.Int(0, kMaxQuantity);
    m.followed_up_on_turn = in.Int(0, kMaxQuantity);
    m.disordered = in.Bool();
    m.disordered_by_pursuit = in.Bool();
  }
}

void DaimyoEngine::ReadUnitParts(rules::CheckpointReader& in, int units,
                                 RestoredParts& parts) {
  const auto unit_or_none = [&in, units] { return in.Int(-1, units - 1); };
  parts.owed_moves.resize(units);
  for (std::vector<int>* v :
       {&parts.opponents, &parts.rounds, &parts.may_counter,
        &parts.charged_on_turn, &parts.rout_moved_on_turn}) {
    v->resize(units);
  }
  parts.halt_cause.resize(units);
  parts.router_steps.resize(units);
  for (int u = 0; u < units && in.ok(); ++u) {
    parts.owed_moves[u] = in.Enum(OwedMove::kMayRetire);
    parts.opponents[u] = unit_or_none();
    parts.rounds[u] = in.Int(0, kMaxQuantity);
    parts.halt_cause[u] = in.U64();
    parts.may_counter[u] = unit_or_none();
    parts.router_steps[u] = static_cast<std::uint8_t>(in.Int(0, 7));
    parts.charged_on_turn[u] = in.Int(0, static_cast<int>(kMaxTurn));
    parts.rout_moved_on_turn[u] = in.Int(0, static_cast<int>(kMaxTurn));
  }
}

void DaimyoEngine::ReadTurnParts(rules::CheckpointReader& in, int units,
                                 std::size_t leaders, RestoredParts& parts) {
  const auto unit_or_none = [&in, units] { return in.Int(-1, units - 1); };
  parts.frenzied.resize(in.Count(units));
  for (int& unit : parts.frenzied) unit = in.Int(0, units - 1);
  ChallengeAwaitingRound& challenge = parts.challenge;
  challenge.seq = in.U64();
  challenge.a = unit_or_none();
  challenge.b = unit_or_none();
  // Awaiting (seq not 0): the two units; else none.
  if ((challenge.seq != 0) != (challenge.a >= 0) ||
      (challenge.a >= 0) != (challenge.b >= 0)) {
    in.Fail("the challenge awaiting its round names its units wrongly");
  }
  parts.loss_rolls.resize(leaders);
  for (int& made : parts.loss_rolls) made = in.Int(0, kMaxQuantity);
  parts.tests.resize(in.Count(kMaxQuantity));
  for (EndOfTurnTest& t : parts.tests) {
    if (!in.ok()) break;
    t.unit = in.Int(0, units - 1);
    t.seq = in.U64();
    t.reason = in.Int(0, kMaxReason);
  }
  parts.fought.resize(in.Count(static_cast<std::size_t>(units) *
                               static_cast<std::size_t>(units)));
  for (auto& [a, b] : parts.fought) {
    if (!in.ok()) break;
    a = in.Int(0, units - 1);
    b = in.Int(a, units - 1);
  }
}

void DaimyoEngine::TakeRestoredParts(RestoredParts&& parts) {
  pending_pairings_ = std::move(parts.pairings);
  pending_melee_id_ = std::move(parts.melee_id);
  stands_in_pending_melee_ = std::move(parts.stands_in_melee);
  at_melee_start_ = std::move(parts.at_start);
  findings_left_out_ = parts.left_out;
  left_out_by_severity_ = parts.left_out_by_severity;
  owed_moves_ = std::move(parts.owed_moves);
  owed_move_opponent_ = std::move(parts.opponents);
  owed_move_rounds_ = std::move(parts.rounds);
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    state_.units[u].halt_cause_seq = parts.halt_cause[u];
  }
  may_counter_charge_ = std::move(parts.may_counter);
  router_steps_ = std::move(parts.router_steps);
  charged_on_turn_ = std::move(parts.charged_on_turn);
  rout_moved_on_turn_ = std::move(parts.rout_moved_on_turn);
  frenzied_this_activation_ = std::move(parts.frenzied);
  challenge_awaiting_round_ = parts.challenge;
  loss_rolls_made_ = std::move(parts.loss_rolls);
  end_of_turn_tests_ = std::move(parts.tests);
  fought_pairs_ = std::move(parts.fought);
  fought_pairs_.reserve(state_.units.size());
}

}  // namespace gunbai::rules::daimyo
