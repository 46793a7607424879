#include "rules/daimyo/proto_mapping.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "rules/daimyo/engine_replayer.h"
#include "rules/excerpt.h"
#include "rules/proto_enums.h"

namespace gunbai::rules::daimyo {

namespace {

namespace v1 = ::gunbai::v1;

absl::Status UnitError(int index, const v1::Unit& unit,
                       absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrFormat("order_of_battle.units[%d] (id \"%s\"): %s", index,
                      Excerpt(unit.id()), what));
}

absl::Status LeaderError(int index, const v1::Leader& leader,
                         absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrFormat("order_of_battle.leaders[%d] (id \"%s\"): %s", index,
                      Excerpt(leader.id()), what));
}

int ClanIndex(const rules::BattleState& state, absl::string_view id) {
  auto it = std::find(state.clans.begin(), state.clans.end(), id);
  return it == state.clans.end() ? -1
                                 : static_cast<int>(it - state.clans.begin());
}

absl::Status AddClans(const v1::Header& header, rules::BattleState& state) {
  if (header.clans_size() < 2 || header.clans_size() > kMaxClans) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "header.clans: a battle has 2 to %d clans; this log has %d.", kMaxClans,
        header.clans_size()));
  }
  for (int i = 0; i < header.clans_size(); ++i) {
    const std::string& id = header.clans(i).id();
    if (id.empty() || ClanIndex(state, id) >= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "header.clans[%d]: clan id \"%s\" is %s; give each clan a unique "
          "id.",
          i, Excerpt(id), id.empty() ? "empty" : "used twice"));
    }
    state.clans.push_back(id);
  }
  return absl::OkStatus();
}

absl::Status AddUnit(int i, const v1::Unit& u, rules::BattleState& state,
                     absl::flat_hash_set<std::string>& ids) {
  if (u.id().empty()) return UnitError(i, u, "the unit has no id.");
  if (!ids.insert(u.id()).second) {
    return UnitError(i, u, "the id is used twice; unit ids are unique.");
  }
  rules::UnitProfile p;
  p.id = u.id();
  p.name = u.name();
  p.clan = ClanIndex(state, u.clan());
  if (p.clan < 0) {
    return UnitError(i, u,
                     absl::StrFormat("clan \"%s\" is not in the header.",
                                     Excerpt(u.clan())));
  }
  const std::optional<rules::TroopType> troop =
      rules::TroopTypeFromProto(u.troop_type());
  if (!troop.has_value()) return UnitError(i, u, "troop_type is not set");
  if (*troop == rules::TroopType::kLegendarySamurai) {
    return UnitError(i, u,
                     "legendary samurai are a Samurai Knight Fever troop "
                     "type; the Daimyo rules have none (use SAMURAI, or "
                     "audit under the \"skf\" ruleset).");
  }
  p.troop_type = *troop;
  const std::optional<rules::Quality> quality =
      rules::QualityFromProto(u.quality());
  if (!quality.has_value()) return UnitError(i, u, "quality is not set");
  p.quality = *quality;
  if (u.mobility() == v1::MOBILITY_UNSPECIFIED) {
    return UnitError(i, u, "mobility (foot or mounted) is not set.");
  }
  p.mobility = u.mobility() == v1::MOBILITY_MOUNTED ? rules::Mobility::kMounted
                                                    : rules::Mobility::kFoot;
  p.armour = rules::ArmourFromProto(u.armour());
  p.melee_weapon = rules::MeleeFromProto(u.melee_weapon());
  p.missile_weapon = rules::MissileFromProto(u.missile_weapon());
  if (u.stands() < 1 || u.stands() > static_cast<uint32_t>(kMaxStands)) {
    return UnitError(i, u,
                     absl::StrFormat("stands is %d; a unit has 1 to %d.",
                                     u.stands(), kMaxStands));
  }
  p.starting_stands = static_cast<int>(u.stands());
  rules::UnitStatus s;
  s.stands = p.starting_stands;
  s.stands_per_rank = u.stands_per_rank() == 0
                          ? p.starting_stands
                          : static_cast<int>(std::min<uint32_t>(
                                u.stands_per_rank(), kMaxStands));
  s.formation = FormationFromProto(u.formation());
  s.disordered = u.starting_order() == v1::ORDER_DISORDERED;
  state.profiles.push_back(std::move(p));
  state.units.push_back(s);
  return absl::OkStatus();
}

absl::Status AddLeader(int i, const v1::Leader& l, rules::BattleState& state,
                       const absl::flat_hash_set<std::string>& unit_ids,
                       absl::flat_hash_set<std::string>& ids) {
  if (l.id().empty()) return LeaderError(i, l, "the leader has no id.");
  if (!ids.insert(l.id()).second) {
    return LeaderError(i, l, "the id is used twice; leader ids are unique.");
  }
  rules::LeaderState leader;
  leader.id = l.id();
  leader.name = l.name();
  leader.clan = ClanIndex(state, l.clan());
  if (leader.clan < 0) {
    return LeaderError(i, l,
                       absl::StrFormat("clan \"%s\" is not in the header.",
                                       Excerpt(l.clan())));
  }
  if (l.kind() == v1::LEADER_KIND_UNSPECIFIED) {
    return LeaderError(i, l, "kind (General or Daimyo) is not set.");
  }
  leader.kind = l.kind() == v1::LEADER_KIND_DAIMYO
                    ? rules::LeaderKind::kDaimyo
                    : rules::LeaderKind::kGeneral;
  if (l.command_rating() < 1 || l.command_rating() > 4) {
    return LeaderError(i, l,
                       absl::StrFormat("command_rating is %d; it is 1 to 4.",
                                       l.command_rating()));
  }
  leader.command_rating = static_cast<int>(l.command_rating());
  if (!l.attached_unit().empty()) {
    if (!unit_ids.contains(l.attached_unit())) {
      return LeaderError(i, l,
                         absl::StrFormat("attached_unit \"%s\" is not a unit "
                                         "of the order of battle.",
                                         Excerpt(l.attached_unit())));
    }
    for (std::size_t u = 0; u < state.profiles.size(); ++u) {
      if (state.profiles[u].id == l.attached_unit()) {
        leader.attached_unit = static_cast<int>(u);
      }
    }
    if (state.profiles[leader.attached_unit].clan != leader.clan) {
      return LeaderError(i, l,
                         "the leader is attached to another clan's "
                         "unit.");
    }
  }
  state.leaders.push_back(std::move(leader));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<rules::BattleState> StateFromOrderOfBattle(
    const v1::BattleLog& log) {
  rules::BattleState state;
  absl::Status s = AddClans(log.header(), state);
  if (!s.ok()) return s;
  const auto& oob = log.order_of_battle();
  if (oob.units_size() > kMaxUnits || oob.leaders_size() > kMaxLeaders) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "order_of_battle: at most %d units and %d leaders; this log has %d "
        "and %d.",
        kMaxUnits, kMaxLeaders, oob.units_size(), oob.leaders_size()));
  }
  absl::flat_hash_set<std::string> unit_ids;
  for (int i = 0; i < oob.units_size(); ++i) {
    s = AddUnit(i, oob.units(i), state, unit_ids);
    if (!s.ok()) return s;
  }
  absl::flat_hash_set<std::string> leader_ids;
  for (int i = 0; i < oob.leaders_size(); ++i) {
    s = AddLeader(i, oob.leaders(i), state, unit_ids, leader_ids);
    if (!s.ok()) return s;
  }
  return state;
}

rules::daimyo::Shot ShotFromProto(const v1::Firing& firing, int firer,
                                  int target) {
  rules::daimyo::Shot shot;
  shot.firer = firer;
  shot.target = target;
  shot.stands_firing = static_cast<int>(
      std::min<uint32_t>(firing.stands_firing(), kMaxStands + 1));
  shot.dice = absl::MakeConstSpan(firing.dice().data(), firing.dice_size());
  const v1::FiringFacts& f = firing.facts();
  if (f.range() != v1::RANGE_BAND_UNSPECIFIED) {
    shot.facts.declared_band = BandFromProto(f.range());
  }
  if (f.has_distance_mm()) {
    shot.facts.distance_mm =
        static_cast<int>(std::min<uint32_t>(f.distance_mm(), 1000000));
  }
  shot.facts.woods_limit = f.woods_limit();
  shot.facts.target_in_cover = f.target_in_cover();
  shot.facts.target_in_building = f.target_in_building();
  shot.facts.target_in_column_or_flanked = f.target_in_column_or_flanked();
  shot.facts.firing_from_building = f.firing_from_building();
  if (f.has_firer_being_charged()) {
    shot.facts.firer_being_charged = f.firer_being_charged();
  }
  shot.facts.chargers_began_beyond_effective =
      f.chargers_began_beyond_effective();
  shot.facts.firer_in_cover = f.firer_in_cover();
  return shot;
}

}  // namespace gunbai::rules::daimyo
