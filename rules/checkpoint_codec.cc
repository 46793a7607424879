#include "rules/checkpoint_codec.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "rules/battle_state.h"

namespace gunbai::rules {

namespace {

constexpr absl::string_view kMagic = "GBCK";
// The bound on the quantities of a state that are not indices (stands,
// hits, turns, ratings): a turn stops at 1,000,000,000 and everything else
// is far smaller, so a value past this is a corrupt checkpoint.
constexpr int kMaxQuantity = 1 << 30;
// Stands in a rank: the engines take at most 64 (kMaxStands, kMaxBases).
constexpr int kMaxStandsPerRank = 64;
// Positions are bounded where they are read (rules/battlefield.h).
constexpr int kMaxPoseMm = 1 << 24;

// A leader's later loss rolls beyond which a checkpoint is corrupt: one a
// stand lost, and a unit has at most a few dozen.
constexpr std::size_t kMaxLaterLossRolls = 1 << 16;

std::uint64_t Fnv(std::uint64_t h, absl::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // A separator, so that "ab","c" and "a","bc" differ.
  h ^= 0xff;
  h *= 1099511628211ull;
  return h;
}

std::uint64_t Fnv(std::uint64_t h, std::int64_t v) {
  return Fnv(h, absl::StrCat(v));
}

}  // namespace

CheckpointWriter::CheckpointWriter(absl::string_view engine,
                                   std::uint32_t version) {
  out_.append(kMagic.data(), kMagic.size());
  String(engine);
  U64(version);
}

void CheckpointWriter::U64(std::uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void CheckpointWriter::I64(std::int64_t v) {
  // Zigzag: small negative numbers stay short.
  U64((static_cast<std::uint64_t>(v) << 1) ^
      static_cast<std::uint64_t>(v >> 63));
}

void CheckpointWriter::String(absl::string_view s) {
  U64(s.size());
  out_.append(s.data(), s.size());
}

CheckpointReader::CheckpointReader(absl::string_view bytes,
                                   absl::string_view engine,
                                   std::uint32_t version)
    : in_(bytes) {
  if (!absl::StartsWith(in_, kMagic)) {
    Fail("it does not start with GBCK");
    return;
  }
  pos_ = kMagic.size();
  const std::string name = String();
  if (ok() && name != engine) {
    Fail(absl::StrCat("it is a checkpoint of the \"", name.substr(0, 32),
                      "\" engine, not of \"", engine, "\""));
    return;
  }
  const std::uint64_t v = U64();
  if (ok() && v != version) {
    Fail(absl::StrCat("it is in format ", v, "; this engine reads format ",
                      version));
  }
}

void CheckpointReader::Fail(absl::string_view what) {
  if (error_.empty()) error_ = absl::StrCat(what, " (at byte ", pos_, ")");
}

std::uint64_t CheckpointReader::U64() {
  std::uint64_t v = 0;
  for (int shift = 0; ok(); shift += 7) {
    if (pos_ >= in_.size()) {
      Fail("it ends in the middle of a field");
      return 0;
    }
    const auto byte = static_cast<unsigned char>(in_[pos_++]);
    if (shift == 63 && byte > 1) {
      Fail("a number does not fit in 64 bits");
      return 0;
    }
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return 0;
}

std::int64_t CheckpointReader::I64() {
  const std::uint64_t z = U64();
  return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
}

int CheckpointReader::Int(int lo, int hi) {
  const std::int64_t v = I64();
  if (!ok()) return 0;
  if (v < lo || v > hi) {
    Fail(
        absl::StrCat("a number is ", v, ", out of its range ", lo, " to ", hi));
    return 0;
  }
  return static_cast<int>(v);
}

bool CheckpointReader::Bool() {
  const std::uint64_t v = U64();
  if (v > 1) Fail("a flag is neither 0 nor 1");
  return v == 1;
}

std::string CheckpointReader::String() {
  const std::uint64_t size = U64();
  if (!ok()) return "";
  if (size > in_.size() - pos_) {
    Fail("a string runs past the end");
    return "";
  }
  std::string s(in_.substr(pos_, size));
  pos_ += size;
  return s;
}

std::size_t CheckpointReader::Count(std::size_t max) {
  const std::uint64_t n = U64();
  if (!ok()) return 0;
  if (n > max || n > in_.size() - pos_) {
    Fail(absl::StrCat("a list of ", n, " entries cannot be"));
    return 0;
  }
  return static_cast<std::size_t>(n);
}

absl::Status CheckpointReader::Finish() const {
  if (!ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the checkpoint is corrupt: ", error_));
  }
  if (pos_ != in_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the checkpoint is corrupt: ", in_.size() - pos_,
                     " bytes are left after its last field"));
  }
  return absl::OkStatus();
}

std::uint64_t OrderOfBattleFingerprint(const BattleState& state) {
  std::uint64_t h = 14695981039346656037ull;
  h = Fnv(h, static_cast<std::int64_t>(state.clans.size()));
  for (const std::string& clan : state.clans) h = Fnv(h, clan);
  h = Fnv(h, static_cast<std::int64_t>(state.profiles.size()));
  for (const UnitProfile& p : state.profiles) {
    h = Fnv(h, p.id);
    h = Fnv(h, p.name);
    for (int v : {p.clan, static_cast<int>(p.troop_type),
                  static_cast<int>(p.mobility), static_cast<int>(p.quality),
                  static_cast<int>(p.armour), static_cast<int>(p.melee_weapon),
                  static_cast<int>(p.missile_weapon), p.starting_stands}) {
      h = Fnv(h, v);
    }
  }
  h = Fnv(h, static_cast<std::int64_t>(state.leaders.size()));
  for (const LeaderState& l : state.leaders) {
    h = Fnv(h, l.id);
    h = Fnv(h, l.name);
    h = Fnv(h, l.clan);
    h = Fnv(h, static_cast<int>(l.kind));
  }
  return h;
}

namespace {

void WriteUnit(const UnitStatus& u, CheckpointWriter& out) {
  for (int v :
       {u.stands, u.stands_per_rank, u.carried_hits, u.stands_lost,
        u.stands_lost_this_turn, u.halted_until_turn, u.pursued_on_turn,
        u.followed_up_on_turn, u.charging_target, u.charged_into_contact_with,
        u.charges_received, static_cast<int>(u.owed_morale)}) {
    out.Int(v);
  }
  out.Enum(u.formation);
  for (bool b :
       {u.disordered, u.may_not_fire, u.fired_this_turn,
        u.hit_by_fire_this_turn, u.moved_this_turn, u.first_volley_spent,
        u.charging, u.in_melee, u.routing, u.has_routed, u.frenzied, u.pursuing,
        u.pursued_from_long_melee, u.fought_this_turn, u.removed,
        u.charge_fell_short, u.charge_spent, u.placed, u.leader_killed_near}) {
    out.Bool(b);
  }
  out.String(u.removal_owed);
  out.Int(u.pose.x_mm);
  out.Int(u.pose.y_mm);
  out.Int(u.pose.facing_deg);
  out.Int(u.charge_start_mm);
}

void ReadUnit(CheckpointReader& in, const UnitProfile& profile, int units,
              UnitStatus& u) {
  // The bounds the engines keep: stands from 0 to the unit's start, a rank
  // of 1 to kMaxStands stands, no negative count or turn.
  const auto count = [&in] { return in.Int(0, kMaxQuantity); };
  u.stands = in.Int(0, profile.starting_stands);
  u.stands_per_rank = in.Int(1, kMaxStandsPerRank);
  u.carried_hits = count();
  u.stands_lost = in.Int(0, profile.starting_stands);
  u.stands_lost_this_turn = in.Int(0, profile.starting_stands);
  u.halted_until_turn = count();
  u.pursued_on_turn = count();
  u.followed_up_on_turn = count();
  u.charging_target = in.Int(-1, units - 1);
  u.charged_into_contact_with = in.Int(-1, units - 1);
  u.charges_received = count();
  u.owed_morale = static_cast<MoraleReasons>(
      in.Int(0, std::numeric_limits<MoraleReasons>::max()));
  u.formation = in.Enum(Formation::kBuilding);
  for (bool* b :
       {&u.disordered, &u.may_not_fire, &u.fired_this_turn,
        &u.hit_by_fire_this_turn, &u.moved_this_turn, &u.first_volley_spent,
        &u.charging, &u.in_melee, &u.routing, &u.has_routed, &u.frenzied,
        &u.pursuing, &u.pursued_from_long_melee, &u.fought_this_turn,
        &u.removed, &u.charge_fell_short, &u.charge_spent, &u.placed,
        &u.leader_killed_near}) {
    *b = in.Bool();
  }
  u.removal_owed = in.String();
  u.pose.x_mm = in.Int(-kMaxPoseMm, kMaxPoseMm);
  u.pose.y_mm = in.Int(-kMaxPoseMm, kMaxPoseMm);
  u.pose.facing_deg = in.Int(0, 359);
  u.charge_start_mm = in.Int(-1, kMaxPoseMm);
}

void WriteLeader(const LeaderState& l, CheckpointWriter& out) {
  out.Int(l.command_rating);
  out.Int(l.attached_unit);
  out.Bool(l.killed);
  out.Int(l.killed_on_turn);
  out.Bool(l.loss_roll_owed);
  out.Int(l.loss_roll_stands_left);
  out.U64(l.later_loss_rolls.size());
  for (int stands : l.later_loss_rolls) out.Int(stands);
}

void ReadLeader(CheckpointReader& in, int units, LeaderState& l) {
  l.command_rating = in.Int(-kMaxQuantity, kMaxQuantity);
  l.attached_unit = in.Int(-1, units - 1);
  l.killed = in.Bool();
  l.killed_on_turn = in.Int(0, kMaxQuantity);
  l.loss_roll_owed = in.Bool();
  l.loss_roll_stands_left = in.Int(0, kMaxQuantity);
  l.later_loss_rolls.clear();
  const std::size_t later = in.Count(kMaxLaterLossRolls);
  for (std::size_t i = 0; i < later && in.ok(); ++i) {
    l.later_loss_rolls.push_back(in.Int(0, kMaxQuantity));
  }
}

}  // namespace

void WriteBattleState(const BattleState& state, CheckpointWriter& out) {
  out.U64(OrderOfBattleFingerprint(state));
  out.U64(state.units.size());
  for (const UnitStatus& u : state.units) WriteUnit(u, out);
  out.U64(state.leaders.size());
  for (const LeaderState& l : state.leaders) WriteLeader(l, out);
  out.U64(state.melees.size());
  for (const MeleeContact& m : state.melees) {
    out.Int(m.a);
    out.Int(m.b);
    out.Int(m.rounds);
    out.Int(m.last_turn_fought);
  }
  out.Int(state.turn);
  out.Int(state.initiative_clan);
  out.Int(state.active_clan);
  // The clans that ended their part of the turn ride in the high 32 bits
  // of the activated clans (kMaxClans is 32): a checkpoint written before
  // clans ended turns of their own reads back with none ended, as it was.
  out.U64(state.activated_clans |
          (std::uint64_t{state.turn_ended_clans} << 32));
  out.Enum(state.phase);
  out.U64(state.last_seq);
  out.Bool(state.any_event);
}

void ReadBattleState(CheckpointReader& in, BattleState& state) {
  if (in.U64() != OrderOfBattleFingerprint(state) && in.ok()) {
    in.Fail("it is a checkpoint of another order of battle");
    return;
  }
  const int units = static_cast<int>(state.units.size());
  const int clans = static_cast<int>(state.clans.size());
  if (in.U64() != state.units.size()) {
    in.Fail("its number of units is not the order of battle's");
  }
  for (int u = 0; u < units; ++u) {
    if (!in.ok()) return;
    ReadUnit(in, state.profiles[u], units, state.units[u]);
  }
  if (in.U64() != state.leaders.size()) {
    in.Fail("its number of leaders is not the order of battle's");
  }
  for (LeaderState& l : state.leaders) {
    if (!in.ok()) return;
    ReadLeader(in, units, l);
  }
  state.melees.clear();
  const std::size_t melees = in.Count(std::numeric_limits<std::size_t>::max());
  for (std::size_t i = 0; i < melees && in.ok(); ++i) {
    MeleeContact m;
    m.a = in.Int(0, units - 1);
    m.b = in.Int(0, units - 1);
    m.rounds = in.Int(0, kMaxQuantity);
    m.last_turn_fought = in.Int(0, kMaxQuantity);
    state.melees.push_back(m);
  }
  state.turn = in.Int(0, kMaxQuantity);
  state.initiative_clan = in.Int(-1, clans - 1);
  state.active_clan = in.Int(-1, clans - 1);
  const std::uint64_t activated = in.U64();
  state.activated_clans = static_cast<std::uint32_t>(activated);
  state.turn_ended_clans = static_cast<std::uint32_t>(activated >> 32);
  state.phase = in.Enum(Phase::kGameOver);
  state.last_seq = in.U64();
  state.any_event = in.Bool();
}

}  // namespace gunbai::rules
