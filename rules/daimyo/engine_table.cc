// The tape measure in the Daimyo replay: on a log with a table, each event's
// facts that need measuring are measured (rules/daimyo/measure.h), a
// declared fact the table contradicts is a violation naming both, and the
// measured facts are the ones the rules are worked out with. A fact the
// table settles need not be declared. Without a table, or for a unit not
// placed, every fact is as declared. The readings are in RULES.md, "The
// table".
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "rules/battlefield_proto.h"
#include "rules/daimyo/daimyo_engine.h"
#include "rules/daimyo/measure.h"
#include "rules/daimyo/proto_mapping.h"
#include "rules/status_macros.h"

namespace gunbai::rules::daimyo {
namespace {

namespace v1 = gunbai::v1;

// A declared distance within this of the measured one agrees (mm): a tape
// measure read to the half centimetre.
constexpr int kDistanceToleranceMm = 5;

}  // namespace

absl::Status DaimyoEngine::InitTable(const v1::BattleLog& log) {
  GUNBAI_ASSIGN_OR_RETURN(field_,
                          rules::BattlefieldFromLog(log, rules_.table, state_));
  if (!field_.has_value()) return absl::OkStatus();
  std::vector<std::string> unplaced;
  for (std::size_t u = 0; u < state_.units.size(); ++u) {
    if (!state_.units[u].placed && !state_.units[u].removed) {
      unplaced.push_back(state_.profiles[u].id);
    }
  }
  CheckPlacement();
  if (!unplaced.empty()) {
    Finding f;
    f.severity = Severity::kWarning;
    f.rule_id = "daimyo.table.unplaced";
    f.subject = unplaced.front();
    f.message = absl::StrFormat(
        "The log has a table, but %d unit%s have no position (%s): what "
        "involves them is taken as declared.",
        unplaced.size(), unplaced.size() == 1 ? "" : "s",
        absl::StrJoin(
            unplaced.begin(),
            unplaced.begin() + std::min<std::size_t>(unplaced.size(), 5),
            ", "));
    Report(std::move(f));
  }
  return absl::OkStatus();
}

void DaimyoEngine::CheckPlacement() {
  // Where the armies start (issue 29): wholly on the table, and no two
  // bases on the same ground (reading 36; touching is allowed).
  const int units = static_cast<int>(state_.units.size());
  for (int u = 0; u < units; ++u) {
    if (!Measuring(u)) continue;
    const geometry::Polygon shape = rules::daimyo::InnerShape(
        *field_, rules::Footprint(*field_, state_, u));
    if (!rules::OnTable(*field_, shape)) {
      Violation("daimyo.table.placement.off_table", state_.profiles[u].id,
                absl::StrCat(UnitLabel(state_, u),
                             " starts with part of its base beyond the "
                             "table's edge; place every unit wholly on the "
                             "table."));
    }
    const geometry::Box box = geometry::BoxOf(shape);
    for (int o = u + 1; o < units; ++o) {
      if (!Measuring(o)) continue;
      const rules::UnitShape& other = field_->Shape(state_, o);
      if (geometry::BoxesMeet(box, other.box) &&
          geometry::PolygonsIntersect(shape, other.polygon)) {
        Violation(
            "daimyo.table.placement.overlap", state_.profiles[u].id,
            absl::StrCat(UnitLabel(state_, u), " and ", UnitLabel(state_, o),
                         " start on the same ground: their bases overlap. "
                         "Place them apart, touching at most."));
      }
    }
  }
  CheckMeleePlacement();
}

// How far a unit's footprint has drawn in from its edges at full strength
// (cm): half the frontage and all the depth its lost stands took, the most
// a point of contact on its base can have moved since it was made.
double DaimyoEngine::LossSlack(int unit) const {
  const rules::UnitStatus& s = state_.units[unit];
  const int per_rank = std::max(1, s.stands_per_rank);
  const int full = std::max(1, state_.profiles[unit].starting_stands);
  const int now = std::max(1, s.stands);
  const auto ranks = [per_rank](int stands) {
    return (stands + per_rank - 1) / per_rank;
  };
  const double width = field_->base_width_mm[unit] / 10.0;
  const double depth = field_->base_depth_mm[unit] / 10.0;
  return std::max(0, std::min(full, per_rank) - std::min(now, per_rank)) *
             width / 2 +
         std::max(0, ranks(full) - ranks(now)) * depth;
}

void DaimyoEngine::CheckMeleePlacement() {
  // A starting position's melees: the two units in contact, or as near it
  // as the stands they have lost allow (reading 40: a fight keeps its
  // contact as losses narrow the footprints; reading 46).
  for (const rules::MeleeContact& c : state_.melees) {
    if (!Measuring(c.a) || !Measuring(c.b)) continue;
    const double gap = geometry::PolygonDistance(
        field_->Shape(state_, c.a).polygon, field_->Shape(state_, c.b).polygon);
    const double allowed =
        field_->rules.contact_mm / 10.0 + LossSlack(c.a) + LossSlack(c.b);
    if (gap <= allowed + 0.05) continue;
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.placement.melee_apart";
    f.subject = state_.profiles[c.a].id;
    f.claimed = "in melee";
    f.computed = absl::StrCat(rules::Cm(gap), " apart");
    f.message = absl::StrCat(
        "The starting position has ", UnitLabel(state_, c.a), " and ",
        UnitLabel(state_, c.b), " in melee, but they start ", rules::Cm(gap),
        " apart; with the stands they have lost, a melee's units are at most ",
        rules::Cm(allowed),
        " apart (reading 46). Place them in contact, or leave the melee out.");
    Report(std::move(f));
  }
}

bool DaimyoEngine::Measuring(int unit) const {
  return field_.has_value() && unit >= 0 && state_.units[unit].placed &&
         !state_.units[unit].removed;
}

bool DaimyoEngine::MeasuredFact(absl::string_view rule_id, int subject,
                                Text what, absl::string_view fact,
                                bool declared, bool measured,
                                absl::string_view why_not) {
  if (declared && !measured) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = rule_id;
    f.subject = state_.profiles[subject].id;
    f.claimed = std::string(fact);
    f.computed = absl::StrCat("not ", fact);
    f.message = absl::StrCat(what(), ": the log declares ", fact,
                             "; measured on the table, not: ", why_not, ".");
    Report(std::move(f));
  }
  return measured;
}

void DaimyoEngine::PlaceUnit(int unit, const rules::Pose& pose) {
  rules::UnitStatus& s = state_.units[unit];
  s.pose = pose;
  s.placed = true;
  state_.FootprintChanged(unit);
}

void DaimyoEngine::MeasureMove(const v1::Move& move, int unit) {
  if (!Measuring(unit)) return;
  const auto label = [this, unit] { return UnitLabel(state_, unit); };
  rules::Pose to = state_.units[unit].pose;
  if (move.has_to()) {
    absl::StatusOr<rules::Pose> read =
        rules::PoseFromProto(move.to(), "move.to");
    if (!read.ok()) {
      Violation("daimyo.table.position", move.unit(),
                absl::StrCat(label(), ": ", read.status().message(),
                             " The unit stays where it was."));
      return;
    }
    to = *read;
  } else if (move.kind() == v1::MOVE_KIND_TURN_ABOUT) {
    to = rules::daimyo::ResultPose(*field_, state_, unit,
                                   rules::daimyo::ResultPath::kTurnAndAway, 0);
  } else {
    Finding f;
    f.severity = Severity::kWarning;
    f.rule_id = "daimyo.table.move.to";
    f.subject = move.unit();
    f.message = absl::StrCat(label(),
                             " moved, but the move gives no `to`: on a log "
                             "with a table the unit stays where it was.");
    Report(std::move(f));
    return;
  }
  CheckMoveEnd(move.unit(), unit, to, "moved");
  // How far its front centre went.
  const rules::Pose& from = state_.units[unit].pose;
  const double distance =
      std::hypot(to.x_mm - from.x_mm, to.y_mm - from.y_mm) / 10;
  const int measured_mm = static_cast<int>(std::lround(distance * 10));
  if (move.distance_mm() > 0 && std::abs(static_cast<int>(std::min<uint32_t>(
                                             move.distance_mm(), 1u << 30)) -
                                         measured_mm) > kDistanceToleranceMm) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.move.distance";
    f.subject = move.unit();
    f.claimed = rules::Cm(move.distance_mm() / 10.0);
    f.computed = rules::Cm(distance);
    f.message =
        absl::StrCat(label(), ": the log declares a move of ", f.claimed,
                     "; its front centre moved ", f.computed, ".");
    Report(std::move(f));
  }
  PlaceUnit(unit, to);
}

void DaimyoEngine::CheckMoveEnd(const std::string& subject, int unit,
                                const rules::Pose& to, absl::string_view did) {
  // Where it ends, shrunk by the contact distance: touching an edge or a
  // feature is not crossing it. The way there is the players' (a move may
  // wheel round what is in its way): only the end is measured.
  const geometry::Polygon shape = rules::daimyo::InnerShape(
      *field_, rules::FootprintAt(*field_, state_, unit, to));
  if (!rules::OnTable(*field_, shape)) {
    Violation("daimyo.table.move.off_table", subject,
              absl::StrCat(UnitLabel(state_, unit), " ", did,
                           " off the table: part of it ends beyond the "
                           "table's edge."));
  }
  // Bases hold their ground: no unit ends a move on another's (a push back
  // is stopped by troops in its way; stands cannot fire over other units).
  const int under = rules::daimyo::OverlappedUnit(*field_, state_, unit, shape);
  if (under >= 0) {
    Violation("daimyo.table.move.overlap", subject,
              absl::StrCat(UnitLabel(state_, unit), " ", did, " onto ",
                           UnitLabel(state_, under),
                           ": the two bases overlap. A unit ends a move "
                           "beside another, touching at most."));
  }
  for (const rules::TerrainFeature& t : field_->terrain) {
    if (t.kind == rules::TerrainKind::kImpassable &&
        geometry::PolygonsIntersect(t.area, shape)) {
      Violation("daimyo.table.move.impassable", subject,
                absl::StrCat(UnitLabel(state_, unit), " ", did,
                             " into impassable terrain \"", t.id, "\"."));
      break;
    }
  }
  // How far its front centre goes, against the move rate (a charge is a
  // move into contact: reading 37).
  const rules::Pose& from = state_.units[unit].pose;
  const double distance =
      std::hypot(to.x_mm - from.x_mm, to.y_mm - from.y_mm) / 10;
  const int rate = field_->move_mm[unit];
  if (rate > 0 && std::lround(distance * 10) > rate + kDistanceToleranceMm) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.move.rate";
    f.subject = subject;
    f.claimed = rules::Cm(distance);
    f.computed = absl::StrCat("at most ", rules::Cm(rate / 10.0));
    f.message = absl::StrCat(UnitLabel(state_, unit), " ", did, " ", f.claimed,
                             "; the ruleset's move rate for it is ",
                             rules::Cm(rate / 10.0), ".");
    Report(std::move(f));
  }
}

void DaimyoEngine::MeasureCharge(const v1::ChargeDeclaration& charge, int unit,
                                 int target) {
  rules::UnitStatus& s = state_.units[unit];
  s.charge_start_mm = -1;
  if (!Measuring(unit) || !Measuring(target)) return;
  const double start = rules::UnitDistance(*field_, state_, unit, target);
  s.charge_start_mm = static_cast<int>(std::lround(start * 10));
  if (!charge.has_to()) return;
  absl::StatusOr<rules::Pose> to =
      rules::PoseFromProto(charge.to(), "charge.to");
  if (!to.ok()) {
    Violation(
        "daimyo.table.position", charge.unit(),
        absl::StrCat(UnitLabel(state_, unit), ": ", to.status().message()));
    return;
  }
  CheckMoveEnd(charge.unit(), unit, *to, "charged");
  PlaceUnit(unit, *to);
  const double after = rules::UnitDistance(*field_, state_, unit, target);
  const bool contact = after * 10 <= field_->rules.contact_mm + 0.05;
  if (contact == !charge.fell_short()) return;
  Finding f;
  f.severity = Severity::kViolation;
  f.rule_id = "daimyo.table.charge.contact";
  f.subject = charge.unit();
  f.claimed = charge.fell_short() ? "fell short" : "contact";
  f.computed = contact ? "contact" : absl::StrCat(rules::Cm(after), " apart");
  f.message = absl::StrCat(
      UnitLabel(state_, unit), "'s charge on ", UnitLabel(state_, target),
      charge.fell_short()
          ? ": the log says it fell short, but it ends in contact."
          : absl::StrCat(": the charge ends ", rules::Cm(after),
                         " from its target, not in contact; declare "
                         "fell_short, or give where it touches."));
  Report(std::move(f));
}

void DaimyoEngine::MeasureFiring(rules::daimyo::Shot& shot) {
  if (!Measuring(shot.firer) || !Measuring(shot.target)) return;
  const rules::daimyo::ShotMeasure m = rules::daimyo::MeasureShot(
      rules_, *field_, state_, shot.firer, shot.target);
  rules::daimyo::ShotFacts& facts = shot.facts;
  const auto what = [&] {
    return absl::StrCat(UnitLabel(state_, shot.firer), " firing at ",
                        UnitLabel(state_, shot.target));
  };
  const std::string& subject = state_.profiles[shot.firer].id;
  const std::optional<RangeBand> declared_band = facts.declared_band;
  const int measured_mm = static_cast<int>(std::lround(m.distance * 10));
  if (facts.distance_mm.has_value() &&
      std::abs(*facts.distance_mm - measured_mm) > kDistanceToleranceMm) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.fire.distance";
    f.subject = subject;
    f.claimed = rules::Cm(*facts.distance_mm / 10.0);
    f.computed = rules::Cm(m.distance);
    f.message = absl::StrCat(what(), ": the log declares ", f.claimed,
                             "; measured between the nearest points, ",
                             f.computed, ".");
    Report(std::move(f));
  }
  facts.declared_band.reset();
  facts.distance_mm = measured_mm;
  facts.measured = true;
  ReportShotGeometry(shot, m, what);
  MeasureShotFacts(shot, m, what);
  // The band the shot is worked out at: the measured distance's, or long at
  // chargers that began beyond effective range.
  const rules::daimyo::ResolvedBand band =
      rules::daimyo::ResolveBand(rules_, state_, shot);
  if (declared_band.has_value() && *declared_band != band.band) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.fire.range";
    f.subject = subject;
    f.claimed = std::string(RangeBandName(*declared_band));
    f.computed =
        absl::StrCat(rules::Cm(m.distance), ", ", RangeBandName(band.band));
    f.message = absl::StrCat(
        what(), ": the log declares ", f.claimed, "; measured ",
        rules::Cm(m.distance), m.woods_limit ? " with the woods limit" : "",
        ", ",
        band.forced_long
            ? absl::StrCat(
                  "and the chargers began their charge ",
                  rules::Cm(state_.units[shot.target].charge_start_mm / 10.0),
                  " away, beyond effective range: long range")
            : std::string(RangeBandName(band.band)),
        ".");
    Report(std::move(f));
  }
}

void DaimyoEngine::ReportShotGeometry(const rules::daimyo::Shot& shot,
                                      const rules::daimyo::ShotMeasure& m,
                                      Text what) {
  const std::string& subject = state_.profiles[shot.firer].id;
  if (!m.in_arc) {
    Violation("daimyo.table.fire.arc", subject,
              absl::StrFormat("%s: the target is outside the arc of fire "
                              "(%d degrees off straight ahead from the front "
                              "corners).",
                              what(), field_->rules.infantry_fire_arc_deg));
  }
  if (!m.line_of_sight) {
    Violation("daimyo.table.fire.line_of_sight", subject,
              absl::StrFormat("%s: no line of fire; every line from the "
                              "firers' front to the target is blocked (by %s), "
                              "and fire passes no unit nearer than half the "
                              "%s gap.",
                              what(), m.blocked_by.Describe(state_),
                              rules::Cm(field_->rules.fire_gap_mm / 10.0)));
  }
  const bool charged = rules::daimyo::FirerBeingCharged(state_, shot);
  if (m.nearer_enemy >= 0 && !charged) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.fire.nearest";
    f.subject = subject;
    f.claimed = absl::StrCat(state_.profiles[shot.target].id, " at ",
                             rules::Cm(m.distance));
    f.computed = absl::StrCat(state_.profiles[m.nearer_enemy].id, " at ",
                              rules::Cm(m.nearer_distance));
    f.message = absl::StrCat(what(), " (", rules::Cm(m.distance),
                             "): ", UnitLabel(state_, m.nearer_enemy),
                             " is nearer (", rules::Cm(m.nearer_distance),
                             "), within range and arc and in sight; fire is at "
                             "the nearest enemy unit.");
    Report(std::move(f));
  }
}

void DaimyoEngine::MeasureShotFacts(rules::daimyo::Shot& shot,
                                    const rules::daimyo::ShotMeasure& m,
                                    Text what) {
  rules::daimyo::ShotFacts& facts = shot.facts;
  const int firer = shot.firer;
  facts.woods_limit =
      MeasuredFact("daimyo.table.fire.woods", firer, what,
                   "the woods limit (3 cm)", facts.woods_limit, m.woods_limit,
                   "the target is not in woods, and the line of fire runs no "
                   "more than 3 cm in the firers' woods");
  facts.target_in_cover = MeasuredFact(
      "daimyo.table.fire.cover", firer, what, "the target in cover",
      facts.target_in_cover, m.target_in_cover,
      m.target_in_building
          ? "the target is in a building, and a target in a building is "
            "not also in cover (the building's own factor applies, "
            "reading 5)"
          : "the target is not in woods and no linear obstacle on the line "
            "of fire lies within 3 cm of it");
  facts.target_in_building = MeasuredFact(
      "daimyo.table.fire.building", firer, what, "the target in a building",
      facts.target_in_building, m.target_in_building,
      "its footprint's centre is in no building");
  facts.firing_from_building = MeasuredFact(
      "daimyo.table.fire.building", firer, what, "firing from a building",
      facts.firing_from_building, m.firing_from_building,
      "the firers' footprint's centre is in no building");
  facts.target_in_column_or_flanked = MeasuredFact(
      "daimyo.table.fire.column_or_flanked", firer, what,
      "the target in column or flanked", facts.target_in_column_or_flanked,
      m.target_in_column_or_flanked,
      "it is not in column and the firers stand off its front");
  facts.firer_in_cover = MeasuredFact(
      "daimyo.table.fire.cover", firer, what, "the firers in cover",
      facts.firer_in_cover, m.firer_in_cover,
      "they are in no woods or building and behind no linear "
      "obstacle");
  const rules::UnitStatus& target = state_.units[shot.target];
  if (state_.IsChargedBy(firer, shot.target) && target.charge_start_mm >= 0) {
    const bool beyond =
        target.charge_start_mm > rules_.firing.effective_range_mm;
    facts.chargers_began_beyond_effective = MeasuredFact(
        "daimyo.table.fire.chargers_began_beyond_effective", firer, what,
        "chargers that began beyond effective range",
        facts.chargers_began_beyond_effective, beyond,
        absl::StrCat("they began their charge ",
                     rules::Cm(target.charge_start_mm / 10.0), " away"));
  }
}

void DaimyoEngine::MeasureMelee(rules::daimyo::MeleePairing& pairing) {
  const int a = pairing.sides[0].unit;
  const int b = pairing.sides[1].unit;
  if (!Measuring(a) || !Measuring(b)) return;
  for (int i = 0; i < 2; ++i) {
    rules::daimyo::MeleeSideInput& side = pairing.sides[i];
    const int enemy = pairing.sides[1 - i].unit;
    const rules::daimyo::MeleeMeasure m =
        rules::daimyo::MeasureMeleeSide(*field_, state_, side.unit, enemy);
    const auto what = [&] {
      return absl::StrCat(UnitLabel(state_, side.unit), " fighting ",
                          UnitLabel(state_, enemy));
    };
    // A pairing already fighting keeps its contact: only its result moves
    // part it (reading 38), not the stands it loses (reading 40).
    if (i == 0 && !m.in_contact && state_.FindMelee(a, b) == nullptr) {
      Finding f;
      f.severity = Severity::kViolation;
      f.rule_id = "daimyo.table.melee.contact";
      f.subject = state_.profiles[side.unit].id;
      f.claimed = "in contact";
      f.computed = absl::StrCat(rules::Cm(m.distance), " apart");
      f.message = absl::StrCat(what(), ": the two are ", rules::Cm(m.distance),
                               " apart on the table; units fight a melee in "
                               "base-to-base contact.");
      Report(std::move(f));
    }
    rules::daimyo::MeleeSideFacts& facts = side.facts;
    facts.measured = true;
    // The stands in front-edge contact, at a pairing's first round only:
    // after it, losses narrow the footprints while the fight stays whole
    // (reading 40). A side whose front is not against the enemy (fought in
    // its flank or rear) keeps its declared count (reading 45).
    if (pairing.round == 1 && m.front_stands_in_contact > 0) {
      if (facts.front_stands_in_contact > 0 &&
          facts.front_stands_in_contact != m.front_stands_in_contact) {
        Finding f;
        f.severity = Severity::kViolation;
        f.rule_id = "daimyo.table.melee.front_stands";
        f.subject = state_.profiles[side.unit].id;
        f.claimed =
            absl::StrCat(facts.front_stands_in_contact, " in front contact");
        f.computed =
            absl::StrCat(m.front_stands_in_contact, " in front contact");
        f.message = absl::StrFormat(
            "%s: the log gives %d stand%s in front-edge contact; on the "
            "table the enemy's base is against the front edge of %d of its "
            "front rank's stands, and that count is used.",
            what(), facts.front_stands_in_contact,
            facts.front_stands_in_contact == 1 ? "" : "s",
            m.front_stands_in_contact);
        Report(std::move(f));
      }
      facts.front_stands_in_contact = m.front_stands_in_contact;
    }
    facts.enemy_fighting_to_flank_or_rear =
        MeasuredFact("daimyo.table.melee.flank_or_rear", side.unit, what,
                     "the enemy fighting its flank or rear",
                     facts.enemy_fighting_to_flank_or_rear,
                     m.enemy_fighting_to_flank_or_rear,
                     "the enemy's front is against its front");
    facts.enemy_uphill_or_behind_obstacle = MeasuredFact(
        "daimyo.table.melee.uphill_or_obstacle", side.unit, what,
        "the enemy uphill or behind an obstacle",
        facts.enemy_uphill_or_behind_obstacle,
        m.enemy_uphill_or_behind_obstacle,
        "the enemy stands no higher on a hill and no linear obstacle between "
        "them lies within 3 cm of it");
    facts.enemy_in_building = MeasuredFact(
        "daimyo.table.melee.building", side.unit, what,
        "the enemy in a building", facts.enemy_in_building, m.enemy_in_building,
        "the enemy's footprint's centre is in no building");
    facts.in_building =
        MeasuredFact("daimyo.table.melee.building", side.unit, what,
                     "fighting from a building", facts.in_building,
                     m.in_building, "its footprint's centre is in no building");
  }
}

void DaimyoEngine::MeasureMorale(const v1::MoraleTest& test,
                                 rules::daimyo::MoraleTestInput& in,
                                 std::vector<int>& friends) {
  const int unit = in.unit;
  if (!Measuring(unit)) return;
  const rules::daimyo::MoraleMeasure m =
      rules::daimyo::MeasureMorale(rules_, *field_, state_, unit);
  const auto what = [&] {
    return absl::StrCat(UnitLabel(state_, unit), "'s morale test");
  };
  const auto within = [&] {
    return absl::StrCat("within ", rules::Cm(m.proximity));
  };
  rules::daimyo::MoraleFacts& facts = in.facts;
  facts.measured = true;
  facts.general_near = MeasuredFact(
      "daimyo.table.morale.general_near", unit, what,
      facts.general_near && !m.general_near
          ? absl::StrCat("a general ", within())
          : std::string(),
      facts.general_near, m.general_near,
      "no unit of its clan with its general attached is that near");
  facts.uphill_or_in_cover = MeasuredFact(
      "daimyo.table.morale.uphill_or_in_cover", unit, what,
      "uphill of all enemy near or in cover", facts.uphill_or_in_cover,
      m.uphill_or_in_cover,
      "it is in no woods or building, and not higher on a hill than every "
      "enemy near");
  facts.enemy_facing_flank_or_rear_near = MeasuredFact(
      "daimyo.table.morale.enemy_flank_or_rear", unit, what,
      facts.enemy_facing_flank_or_rear_near &&
              !m.enemy_facing_flank_or_rear_near
          ? absl::StrCat("an enemy facing its flank or rear ", within())
          : std::string(),
      facts.enemy_facing_flank_or_rear_near, m.enemy_facing_flank_or_rear_near,
      "no non-routing enemy that near has it in its front arc from off its "
      "flank or rear");
  facts.charged_frontally = MeasuredFact(
      "daimyo.table.morale.charged_frontally", unit, what,
      "being charged frontally", facts.charged_frontally, m.charged_frontally,
      "no charger's front is against its front");
  facts.leader_killed_near = MeasuredFact(
      "daimyo.table.morale.leader_killed_near", unit, what,
      "a leader killed near this turn", facts.leader_killed_near,
      state_.units[unit].leader_killed_near,
      "no leader of its clan died this turn with it within the distance (15 "
      "cm, 5 cm for a unit in melee) of his unit");
  if (m.out_of_command.has_value()) {
    facts.out_of_command = MeasuredFact(
        "daimyo.table.morale.out_of_command", unit, what,
        "out of command reach", facts.out_of_command, *m.out_of_command,
        absl::StrCat("a unit of its clan with its Daimyo or a General "
                     "attached is within the command reach, ",
                     rules::Cm(field_->rules.command_reach_mm / 10.0)));
  }
  CompareNear(unit, what, "friendly routers near", friends,
              m.friends_routing_near);
  friends = m.friends_routing_near;
  facts.friends_routing_near = friends;
  std::vector<int> enemies;
  ResolveUnitList(test.facts().enemies_routing_near(), "enemy router near",
                  enemies);
  CompareNear(unit, what, "enemy routers near", enemies,
              m.enemies_routing_near);
  facts.enemies_routing_near = static_cast<int>(m.enemies_routing_near.size());
}

void DaimyoEngine::CompareNear(int unit, Text what, absl::string_view list,
                               const std::vector<int>& declared,
                               const std::vector<int>& measured) {
  CompareListed(
      "daimyo.table.near", unit, what,
      [&] { return absl::StrCat("among its ", list); }, declared, measured,
      "on the table they are farther than the rules' distance");
}

void DaimyoEngine::CompareListed(absl::string_view rule_id, int unit, Text what,
                                 Text as, const std::vector<int>& declared,
                                 const std::vector<int>& measured,
                                 absl::string_view why_not) {
  std::vector<std::string> wrong;
  for (const int d : declared) {
    if (std::find(measured.begin(), measured.end(), d) == measured.end() &&
        state_.units[d].placed) {
      wrong.push_back(state_.profiles[d].id);
    }
  }
  if (wrong.empty()) return;
  const auto ids = [this](std::string* out, int u) {
    out->append(state_.profiles[u].id);
  };
  Finding f;
  f.severity = Severity::kViolation;
  f.rule_id = rule_id;
  f.subject = state_.profiles[unit].id;
  f.claimed = absl::StrJoin(declared, ", ", ids);
  f.computed = measured.empty() ? "none" : absl::StrJoin(measured, ", ", ids);
  f.message =
      absl::StrCat(what(), " lists ", absl::StrJoin(wrong, ", "), " ", as(),
                   ", but ", why_not, "; the measured list is used.");
  Report(std::move(f));
}

void DaimyoEngine::CompareThrough(int router,
                                  const std::vector<int>& measured) {
  CompareListed(
      "daimyo.table.rout.interpenetrated", router,
      [&] { return absl::StrCat(UnitLabel(state_, router), "'s rout move"); },
      [] { return std::string("as passed through"); }, list_units_, measured,
      "on the table its path does not cross their bases");
}

std::optional<rules::daimyo::MoveMeasure> DaimyoEngine::ResultMoveEnd(
    const v1::ResultMove& move, int unit) const {
  if (!Measuring(unit)) return std::nullopt;
  // The enemy it fought: the one a winner's move is owed against, or the
  // loser's melee contact.
  int fought = owed_move_opponent_[unit];
  for (const rules::MeleeContact& c : state_.melees) {
    if (fought < 0 && c.Involves(unit)) fought = c.a == unit ? c.b : c.a;
  }
  std::optional<rules::Pose> given;
  if (move.has_to()) {
    absl::StatusOr<rules::Pose> read =
        rules::PoseFromProto(move.to(), "result_move.to");
    if (read.ok()) given = *read;
  }
  return rules::daimyo::MeasureResultMove(
      rules_, *field_, state_, unit,
      rules::daimyo::ResultMoveKindFromProto(move.kind()),
      static_cast<int>(
          std::min<uint32_t>(move.distance_mm(), rules::kMaxTableMm)),
      given.has_value() ? &*given : nullptr, fought);
}

v1::MoveBlock DaimyoEngine::MeasuredBlock(const v1::ResultMove& move,
                                          const rules::daimyo::MoveMeasure& m) {
  if (m.blocked_by_enemy_or_edge) return v1::MOVE_BLOCK_ENEMY_OR_TABLE_EDGE;
  if (m.blocked_by_friends_or_impassable &&
      move.kind() != v1::RESULT_MOVE_KIND_ROUT) {
    return v1::MOVE_BLOCK_FRIENDS_OR_IMPASSABLE;
  }
  return v1::MOVE_BLOCK_NONE;
}

v1::MoveBlock DaimyoEngine::MeasureResultMove(const v1::ResultMove& move,
                                              int unit) {
  const std::optional<rules::daimyo::MoveMeasure> end =
      ResultMoveEnd(move, unit);
  if (!end.has_value()) return move.blocked();
  const rules::daimyo::MoveMeasure& m = *end;
  const bool routs = move.kind() == v1::RESULT_MOVE_KIND_ROUT;
  const v1::MoveBlock measured = MeasuredBlock(move, m);
  const bool pushed = move.kind() == v1::RESULT_MOVE_KIND_PUSH_BACK;
  const v1::MoveBlock declared = move.blocked() == v1::MOVE_BLOCK_UNSPECIFIED
                                     ? v1::MOVE_BLOCK_NONE
                                     : move.blocked();
  if ((pushed || routs) && declared != measured) {
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "daimyo.table.result_move.blocked";
    f.subject = move.unit();
    f.claimed = v1::MoveBlock_Name(declared);
    f.computed = v1::MoveBlock_Name(measured);
    f.message = absl::StrCat(
        UnitLabel(state_, unit), "'s ", pushed ? "push back" : "rout move",
        measured == v1::MOVE_BLOCK_NONE
            ? " is not blocked on the table"
            : absl::StrCat(" is blocked by ", m.blocked_by.Describe(state_)),
        ", but the log declares ",
        declared == v1::MOVE_BLOCK_NONE ? "no block" : f.claimed,
        "; the measured block applies.");
    Report(std::move(f));
  }
  if (routs) {
    measured_through_ =
        rules::daimyo::FriendsPassedThrough(*field_, state_, unit, m.to);
    // Routers go on until clear of the friends they meet (RULES.md): one
    // the log leaves on a friend's base has stopped short.
    // (Without `to` the engine's own pose is clear already.)
    if (move.has_to() && !m.blocked_by.any()) {
      const rules::Pose clear =
          rules::daimyo::ClearOfFriends(*field_, state_, unit, m.to);
      if (!(clear == m.to)) {
        const int under =
            rules::daimyo::OverlappedUnit(*field_, state_, unit, m.to);
        Violation(
            "daimyo.table.rout.clear", move.unit(),
            absl::StrCat(
                UnitLabel(state_, unit), "'s rout move ends on ",
                under >= 0 ? UnitLabel(state_, under) : "a friend",
                "'s base; a router that meets friends passes through them "
                "and goes on far enough to clear them, past its rout "
                "distance if need be (",
                rules::Cm(
                    std::hypot(clear.x_mm - m.to.x_mm, clear.y_mm - m.to.y_mm) /
                    10),
                " more here)."));
      }
    }
  }
  PlaceUnit(unit, m.to);
  return (pushed || routs) ? measured : move.blocked();
}

void DaimyoEngine::MeasureFriendsNear(int unit, Text what,
                                      std::vector<int>& near) {
  if (!Measuring(unit)) return;
  std::vector<int> measured =
      rules::daimyo::UnitsNear(rules_, *field_, state_, unit, true);
  CompareNear(unit, what, "friends near", near, measured);
  near = std::move(measured);
}

}  // namespace gunbai::rules::daimyo
