// The move generator of the Samurai Knight Fever engine (rules/engine.h,
// Engine::ProposeEvents): what a clan may append next, from the state and
// the engine's bookkeeping. Page 6 covers the melee and what it owes (a
// morale check for each unit that fought, a leader-hit roll for each
// leader touching one); it gives no turn sequence, moves, charges or fire,
// so none of those is proposed (the audit replays them as declared). Each
// proposal is tried by the audit's own checks (replay/legal_actions.h).
// What is proposed is stated in RULES.md, "What may happen next".
#include <memory>
#include <vector>

#include "rules/skf/engine.h"

namespace gunbai::rules::skf {

namespace v1 = ::gunbai::v1;

std::unique_ptr<Engine> SkfEngine::Clone(EngineOutput output) const {
  std::unique_ptr<SkfEngine> copy(new SkfEngine(*this));
  copy->SetOutput(output);
  return copy;
}

bool SkfEngine::ProposeEvents(int clan, bool umpire,
                              std::vector<ProposedEvent>& out) const {
  if (melee_open_) {
    // The open melee's hits land, and its checks fall due, at the next
    // event that is not one of its pairings: read them from a settled copy.
    std::unique_ptr<SkfEngine> settled(new SkfEngine(*this));
    settled->SetOutput(EngineOutput{});
    settled->SettleMelee();
    return settled->ProposeEvents(clan, umpire, out);
  }
  const BattleState& s = state_;
  if (!ProposeTurnFrame(clan, umpire, out)) return true;
  const std::string& clan_id = s.clans[static_cast<std::size_t>(clan)];
  const auto add = [&out, &clan_id](absl::string_view kind, int unit,
                                    int target) -> ProposedEvent& {
    ProposedEvent& p = out.emplace_back();
    p.kind = kind;
    p.unit = unit;
    p.target = target;
    p.event.set_clan(clan_id);
    return p;
  };
  const bool ended = (s.turn_ended_clans >> clan & 1u) != 0;
  const bool active = s.active_clan == clan && !ended;
  // What the last melee owes: each unit's check, each leader's roll.
  const int units = static_cast<int>(s.units.size());
  for (int u = 0; u < units; ++u) {
    const UnitProfile& me = s.profiles[static_cast<std::size_t>(u)];
    if (me.clan != clan || s.units[static_cast<std::size_t>(u)].removed ||
        morale_due_[static_cast<std::size_t>(u)] != MoraleDue::kOwed) {
      continue;
    }
    add("morale", u, -1).event.mutable_morale_test()->set_unit(me.id);
  }
  for (std::size_t l = 0; l < s.leaders.size(); ++l) {
    const LeaderState& leader = s.leaders[l];
    if (leader.clan != clan || leader.killed || leader_rolls_owed_[l] <= 0) {
      continue;
    }
    ProposedEvent& roll = add("leader_loss", leader.attached_unit, -1);
    roll.leader = static_cast<int>(l);
    roll.event.mutable_leader_loss()->set_leader(leader.id);
  }
  if (ended) return true;
  // In its activation, a clan's unit that has not fought this turn may
  // fight any enemy that has not either (a melee of one pairing; the page
  // has no contact or movement, so the log declares who touches whom).
  if (active) {
    for (int a = 0; a < units; ++a) {
      const UnitStatus& sa = s.units[static_cast<std::size_t>(a)];
      if (s.profiles[static_cast<std::size_t>(a)].clan != clan || sa.removed ||
          sa.fought_this_turn) {
        continue;
      }
      for (int b = 0; b < units; ++b) {
        const UnitStatus& sb = s.units[static_cast<std::size_t>(b)];
        if (s.profiles[static_cast<std::size_t>(b)].clan == clan ||
            sb.removed || sb.fought_this_turn) {
          continue;
        }
        ProposedEvent& round = add("melee", a, b);
        round.max_stands = sa.stands;
        v1::MeleeRound& r = *round.event.mutable_melee_round();
        for (const int side : {a, b}) {
          const UnitStatus& st = s.units[static_cast<std::size_t>(side)];
          v1::MeleeSide& m = *r.add_sides();
          m.set_unit(s.profiles[static_cast<std::size_t>(side)].id);
          m.set_stands_fighting(static_cast<std::uint32_t>(st.stands));
        }
      }
    }
  }
  add("turn_end", -1, -1).event.mutable_turn_end();
  return true;
}

}  // namespace gunbai::rules::skf
