// The flow part of the DaimyoEngine: how often a unit may do a thing in a turn,
// and when what a result owes is paid (RULES.md, "The flow of a turn").
// See daimyo_engine.h.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/daimyo/daimyo_engine.h"

namespace gunbai::rules::daimyo {

void DaimyoEngine::CheckChargeOnceATurn(int unit, bool counter) {
  const int turn = state_.turn;
  if (counter) {
    // One counter-charge for each passed being-charged test: the test's
    // leave to counter is used up.
    may_counter_charge_[unit] = -1;
  } else if (charged_on_turn_[unit] == turn && turn > 0) {
    Violation("daimyo.charge.once_a_turn", state_.profiles[unit].id,
              absl::StrFormat("%s declares a charge, but it already declared "
                              "one this turn (turn %d); a unit charges once "
                              "a turn, and its charge lasts the turn.",
                              UnitLabel(state_, unit), turn));
  }
  charged_on_turn_[unit] = turn;
}

void DaimyoEngine::CheckMoveAfterCharge(int unit) {
  const int turn = state_.turn;
  if (charged_on_turn_[unit] != turn || turn <= 0) return;
  Violation("daimyo.move.after_charge", state_.profiles[unit].id,
            absl::StrFormat("%s moves after its charge this turn (turn %d); "
                            "a charge is the charger's move for the turn "
                            "(reading 39).",
                            UnitLabel(state_, unit), turn));
}

void DaimyoEngine::CheckRoutMove(int unit, bool owed) {
  const int turn = state_.turn;
  const bool own_activation = state_.profiles[unit].clan == state_.active_clan;
  if (!owed) {
    if (rout_moved_on_turn_[unit] == turn && turn > 0) {
      Violation("daimyo.rout.once_a_turn", state_.profiles[unit].id,
                absl::StrFormat("%s makes a second rout move in turn %d; a "
                                "router makes one rout move a turn (the move "
                                "its rout owes, or on later turns one in its "
                                "clan's activation).",
                                UnitLabel(state_, unit), turn));
    } else if (!own_activation) {
      Violation(
          "daimyo.rout.timing", state_.profiles[unit].id,
          absl::StrFormat(
              "%s makes a rout move outside its clan's activation; a unit "
              "that is still routing from an earlier turn makes its rout move "
              "when %s is activated.",
              UnitLabel(state_, unit),
              state_.clans[state_.profiles[unit].clan]));
    }
  }
  rout_moved_on_turn_[unit] = turn;
  if (own_activation) router_steps_[unit] |= kRoutMovedThisActivation;
}

bool DaimyoEngine::CheckRallyTiming(int unit) {
  const std::uint8_t steps = router_steps_[unit];
  const auto refuse = [this, unit](absl::string_view rule_id,
                                   absl::string_view why) {
    Violation(rule_id, state_.profiles[unit].id,
              absl::StrCat(UnitLabel(state_, unit), " tests to rally", why));
    return false;
  };
  if (state_.profiles[unit].clan != state_.active_clan ||
      state_.phase != rules::Phase::kMovement ||
      (steps & kRoutMovedThisActivation) != 0) {
    return refuse("daimyo.morale.timing",
                  " outside its clan's activation; a rally test comes when "
                  "the routers' clan is activated, before they move.");
  }
  if ((steps & kRoutingAtActivationStart) == 0 && state_.units[unit].routing) {
    return refuse("daimyo.morale.rally_routed_this_activation",
                  ", but it began routing during this activation; a rally "
                  "test is for a unit routing when its clan's activation "
                  "begins.");
  }
  if ((steps & kRallyTested) != 0) {
    return refuse("daimyo.morale.rally_twice",
                  " a second time in this activation; a router tests once, "
                  "when its clan is activated.");
  }
  router_steps_[unit] |= kRallyTested;
  return true;
}

void DaimyoEngine::CheckRoutersMoved() {
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    if ((router_steps_[u] & kRoutingAtActivationStart) == 0) continue;
    const rules::UnitStatus& s = state_.units[u];
    if (!s.routing || s.removed || !s.removal_owed.empty() ||
        rout_moved_on_turn_[u] == state_.turn) {
      continue;
    }
    Violation("daimyo.rout.move_missing", state_.profiles[u].id,
              absl::StrFormat("%s is routing and did not rally, but made no "
                              "rout move in %s's activation; a router moves "
                              "at rout speed towards its base line each turn "
                              "until it rallies or leaves the table.",
                              UnitLabel(state_, static_cast<int>(u)),
                              state_.clans[state_.active_clan]));
  }
}

void DaimyoEngine::CheckRoutersOfClansNotActivated(int only_clan) {
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    const rules::UnitStatus& s = state_.units[u];
    const int clan = state_.profiles[u].clan;
    if ((only_clan >= 0 && clan != only_clan) ||
        (state_.activated_clans >> clan & 1u) != 0 || !s.routing || s.removed ||
        !s.removal_owed.empty() || rout_moved_on_turn_[u] == state_.turn ||
        owed_moves_[u] == OwedMove::kRout) {
      // A router that owes the move of a fresh rout makes that move outside
      // any activation; one that owes a push back still owes its rout move.
      continue;
    }
    Violation("daimyo.rout.move_missing", state_.profiles[u].id,
              absl::StrFormat(
                  "%s is routing, but %s ended without %s's "
                  "activation, in which it makes its rout move "
                  "(or tests to rally).",
                  UnitLabel(state_, static_cast<int>(u)),
                  only_clan >= 0 ? absl::StrCat(state_.clans[clan],
                                                "'s part of turn ", state_.turn)
                                 : absl::StrCat("turn ", state_.turn),
                  state_.clans[clan]));
    // Reported once: the turn's close does not report it again.
    rout_moved_on_turn_[u] = state_.turn;
  }
}

void DaimyoEngine::OnClanTurnEnded(int clan) {
  // A clan that ends its part of the turn without an activation leaves its
  // routers' moves unmade: they are missing now, since it can no longer
  // activate this turn.
  if ((state_.activated_clans >> clan & 1u) == 0) {
    CheckRoutersOfClansNotActivated(clan);
  }
  if (state_.active_clan != clan) return;
  // The clan's own turn_end closes its activation: what the activation owed
  // falls due here, and nothing of it may follow.
  EndActivation();
  state_.active_clan = -1;
  state_.phase = rules::Phase::kTurnStart;
}

}  // namespace gunbai::rules::daimyo
