// The Samurai Knight Fever engine's checkpoints (rules/engine.h): what each
// member of the SkfEngine that outlives an event holds, written in a fixed
// order with rules/checkpoint_codec.h (the settled melee ids sorted). What
// the order of battle fixes (profiles, facts_, unit_leaders_, the id
// indices) comes from the freshly created engine a checkpoint is restored
// into; modifier_names_ is the scratch of one pairing and is not written.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rules/checkpoint_codec.h"
#include "rules/skf/engine.h"
#include "rules/status_macros.h"

namespace gunbai::rules::skf {

namespace {

constexpr absl::string_view kEngineName = "skf";
constexpr int kMaxQuantity = 1 << 30;
// Melee ids settled in one turn beyond which a checkpoint is corrupt.
constexpr std::size_t kMaxSettledMelees = std::size_t{1} << 24;

}  // namespace

absl::StatusOr<std::string> SkfEngine::SaveCheckpoint() const {
  CheckpointWriter out(kEngineName, kCheckpointVersion);
  WriteBattleState(state_, out);
  out.U64(seq_);
  out.U64(turn_);
  for (bool reported : uncovered_reported_) out.Bool(reported);
  out.Bool(morale_unchecked_reported_);
  out.Bool(leader_hits_unchecked_reported_);
  out.Bool(melee_open_);
  out.String(melee_id_);
  out.U64(pairings_.size());
  for (const Pairing& p : pairings_) {
    out.U64(p.seq);
    out.U64(p.turn);
    for (int side = 0; side < 2; ++side) {
      for (int v : {p.units[side], p.bases[side], p.in_contact[side],
                    p.hits_taken[side], p.bases_lost[side]}) {
        out.Int(v);
      }
    }
  }
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    out.Int(bases_in_melee_[u]);
    out.Int(pairings_in_melee_[u]);
    out.Enum(morale_due_[u]);
    out.Int(bases_lost_in_melee_[u]);
  }
  std::vector<absl::string_view> settled(settled_melee_ids_.begin(),
                                         settled_melee_ids_.end());
  std::sort(settled.begin(), settled.end());
  out.U64(settled.size());
  for (absl::string_view id : settled) out.String(id);
  out.U64(window_units_.size());
  for (int unit : window_units_) out.Int(unit);
  out.U64(morale_melee_seq_);
  for (int owed : leader_rolls_owed_) out.Int(owed);
  return out.Take();
}

absl::Status SkfEngine::RestoreCheckpoint(absl::string_view checkpoint) {
  if (state_.any_event || seq_ != 0) {
    return absl::FailedPreconditionError(
        "a checkpoint is restored into a fresh engine, before any event");
  }
  CheckpointReader in(checkpoint, kEngineName, kCheckpointVersion);
  const int units = static_cast<int>(state_.units.size());
  const auto count = [&in] { return in.Int(0, kMaxQuantity); };
  // Read into copies: the engine changes only once every byte has passed.
  BattleState state = state_;
  ReadBattleState(in, state);
  const std::uint64_t seq = in.U64();
  const std::uint64_t turn = in.U64();
  if (turn > std::numeric_limits<std::uint32_t>::max()) {
    in.Fail("the event's turn does not fit in 32 bits");
  }
  std::array<bool, kUncoveredKinds> uncovered{};
  for (bool& reported : uncovered) reported = in.Bool();
  const bool morale_unchecked = in.Bool();
  const bool leader_hits_unchecked = in.Bool();
  const bool melee_open = in.Bool();
  std::string melee_id = in.String();
  std::vector<Pairing> pairings(in.Count(kMaxPairings));
  for (Pairing& p : pairings) {
    if (!in.ok()) break;
    p.seq = in.U64();
    const std::uint64_t pairing_turn = in.U64();
    if (pairing_turn > std::numeric_limits<std::uint32_t>::max()) {
      in.Fail("a pairing's turn does not fit in 32 bits");
    }
    p.turn = static_cast<std::uint32_t>(pairing_turn);
    for (int side = 0; side < 2; ++side) {
      p.units[side] = in.Int(0, units - 1);
      // Declared bases are kept up to one over kMaxBases (engine_melee.cc).
      p.bases[side] = in.Int(0, kMaxBases + 1);
      p.in_contact[side] = in.Int(0, kMaxBases + 1);
      p.hits_taken[side] = count();
      p.bases_lost[side] = in.Int(0, kMaxBases + 1);
    }
  }
  std::vector<int> bases_in_melee(units), pairings_in_melee(units),
      bases_lost(units);
  std::vector<MoraleDue> morale_due(units);
  for (int u = 0; u < units && in.ok(); ++u) {
    bases_in_melee[u] = count();
    pairings_in_melee[u] = count();
    morale_due[u] = in.Enum(MoraleDue::kTaken);
    bases_lost[u] = count();
  }
  absl::flat_hash_set<std::string> settled;
  for (std::size_t i = in.Count(kMaxSettledMelees); i > 0 && in.ok(); --i) {
    settled.insert(in.String());
  }
  std::vector<int> window(in.Count(std::numeric_limits<std::size_t>::max()));
  for (int& unit : window) unit = in.Int(0, units - 1);
  const std::uint64_t morale_melee_seq = in.U64();
  std::vector<int> leader_rolls(state_.leaders.size());
  for (int& owed : leader_rolls) owed = count();
  GUNBAI_RETURN_IF_ERROR(in.Finish());
  state_ = std::move(state);
  seq_ = seq;
  turn_ = static_cast<std::uint32_t>(turn);
  uncovered_reported_ = uncovered;
  morale_unchecked_reported_ = morale_unchecked;
  leader_hits_unchecked_reported_ = leader_hits_unchecked;
  melee_open_ = melee_open;
  melee_id_ = std::move(melee_id);
  pairings_ = std::move(pairings);
  bases_in_melee_ = std::move(bases_in_melee);
  pairings_in_melee_ = std::move(pairings_in_melee);
  morale_due_ = std::move(morale_due);
  bases_lost_in_melee_ = std::move(bases_lost);
  settled_melee_ids_ = std::move(settled);
  window_units_ = std::move(window);
  morale_melee_seq_ = morale_melee_seq;
  leader_rolls_owed_ = std::move(leader_rolls);
  return absl::OkStatus();
}

}  // namespace gunbai::rules::skf
