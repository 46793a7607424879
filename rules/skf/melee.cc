#include "rules/skf/melee.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace gunbai::rules::skf {

namespace {

constexpr absl::string_view kUnitValueRule = "skf.melee.unit_value";
constexpr absl::string_view kOddsRule = "skf.melee.odds";
constexpr absl::string_view kHitRule = "skf.melee.hit";

// Compares own/enemy with the column's own/enemy: <0, 0 or >0.
int CompareRatio(std::int64_t own, std::int64_t enemy, const OddsColumn& c) {
  const std::int64_t left = own * c.enemy;
  const std::int64_t right = static_cast<std::int64_t>(c.own) * enemy;
  return left < right ? -1 : (left > right ? 1 : 0);
}

// True when own/enemy is nearer `upper` than `lower` as a proportion:
// (own/enemy)^2 > lower x upper.
bool NearerUpper(std::int64_t own, std::int64_t enemy, const OddsColumn& lower,
                 const OddsColumn& upper) {
  return own * own * lower.enemy * upper.enemy >
         static_cast<std::int64_t>(lower.own) * upper.own * enemy * enemy;
}

const Modifier* FindModifier(const Tables& tables, absl::string_view name) {
  for (const Modifier& m : tables.modifiers) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

void ReportUnverifiable(FindingSink& sink, absl::string_view rule_id,
                        const MeleeSideInput& side, std::string message) {
  Finding f;
  f.severity = Severity::kUnverifiable;
  f.rule_id = rule_id;
  f.subject = side.id;
  f.message = std::move(message);
  sink.Report(std::move(f));
}

std::string OddsLabel(const Tables& tables, const OddsLookup& odds, int own,
                      int enemy) {
  const std::string name = ColumnName(tables.columns[odds.column]);
  if (odds.exact) {
    return absl::StrFormat("odds %d to %d are exactly %s: column %s", own,
                           enemy, name, name);
  }
  if (odds.open_end) {
    return absl::StrFormat(
        "odds %d to %d lie beyond the table: its end "
        "column %s",
        own, enemy, name);
  }
  return absl::StrFormat("odds %d to %d, %s: column %s", own, enemy,
                         RoundingName(tables.rounding), name);
}

// Reports why no column was found for `side`.
void ReportNoColumn(const Tables& tables, const MeleeSideInput& side,
                    const OddsLookup& odds, int own, int enemy,
                    FindingSink& sink) {
  std::string why;
  switch (odds.outcome) {
    case OddsLookup::Outcome::kNoColumns:
      why =
          "the ruleset has no melee table (add skf.odds_columns to the "
          "ruleset file)";
      break;
    case OddsLookup::Outcome::kNoRounding:
      why =
          "they fall between the table's columns and the ruleset does not "
          "say how odds are rounded (set skf.odds_rounding in the ruleset "
          "file)";
      break;
    case OddsLookup::Outcome::kBeyondTable:
      why =
          "they lie beyond the table's columns (add a column to "
          "skf.odds_columns, or set skf.extreme_columns_open, in the ruleset "
          "file)";
      break;
    case OddsLookup::Outcome::kFound:
      return;
  }
  ReportUnverifiable(
      sink, kOddsRule, side,
      absl::StrFormat("%s fights at odds %d to %d, but %s; its hits are not "
                      "checked.",
                      side.label, own, enemy, why));
}

// Reports unknown and repeated modifier names; returns false when a name is
// unknown.
bool CheckModifiers(const Tables& tables, const MeleeSideInput& me,
                    FindingSink& sink) {
  bool ok = true;
  for (std::size_t i = 0; i < me.modifiers.size(); ++i) {
    const std::string& name = me.modifiers[i];
    const auto earlier = me.modifiers.begin() + i;
    if (std::find(me.modifiers.begin(), earlier, name) != earlier) {
      Finding f;
      f.severity = Severity::kViolation;
      f.rule_id = "skf.melee.modifier.duplicate";
      f.subject = me.id;
      f.message = absl::StrFormat(
          "%s names the die roll modifier \"%s\" twice; it counts once.",
          me.label, name);
      sink.Report(std::move(f));
      continue;
    }
    if (FindModifier(tables, name) != nullptr) continue;
    std::vector<std::string> known;
    for (const Modifier& m : tables.modifiers) known.push_back(m.name);
    Finding f;
    f.severity = Severity::kViolation;
    f.rule_id = "skf.melee.modifier.unknown";
    f.subject = me.id;
    f.message = absl::StrFormat(
        "%s names the die roll modifier \"%s\", which the ruleset does not "
        "list (it lists: %s); its hits are not checked. Correct the name, or "
        "add the modifier to skf.modifiers in the ruleset file.",
        me.label, name, known.empty() ? "none" : absl::StrJoin(known, ", "));
    sink.Report(std::move(f));
    ok = false;
  }
  return ok;
}

}  // namespace

int MeleeValuePerBase(const Tables& tables, TroopType troop_type,
                      std::optional<Mobility> mobility) {
  int any = 0;
  for (const MeleeValue& v : tables.melee_values) {
    if (v.troop_type != troop_type) continue;
    if (!v.mobility.has_value()) {
      any = v.per_base;
    } else if (mobility.has_value() && *v.mobility == *mobility) {
      return v.per_base;
    }
  }
  return any;
}

OddsLookup FindOddsColumn(const Tables& tables, int own, int enemy) {
  OddsLookup out;
  const auto& columns = tables.columns;
  if (columns.empty() || own < 1 || enemy < 1) return out;
  int lower = -1;
  int upper = -1;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const int cmp = CompareRatio(own, enemy, columns[i]);
    if (cmp == 0) {
      out.outcome = OddsLookup::Outcome::kFound;
      out.column = static_cast<int>(i);
      out.exact = true;
      return out;
    }
    if (cmp > 0) lower = static_cast<int>(i);
    if (cmp < 0 && upper < 0) upper = static_cast<int>(i);
  }
  const auto found = [&out](int column, bool open_end) {
    out.outcome = OddsLookup::Outcome::kFound;
    out.column = column;
    out.open_end = open_end;
    return out;
  };
  const bool open = tables.extreme_columns_open;
  switch (tables.rounding) {
    case OddsRounding::kUnknown:
      if (open && upper < 0) return found(lower, true);
      if (open && lower < 0) return found(upper, true);
      out.outcome = OddsLookup::Outcome::kNoRounding;
      return out;
    case OddsRounding::kAgainstRoller:
      if (lower >= 0) return found(lower, false);
      if (open) return found(upper, true);
      break;
    case OddsRounding::kForRoller:
      if (upper >= 0) return found(upper, false);
      if (open) return found(lower, true);
      break;
    case OddsRounding::kNearest:
      if (lower >= 0 && upper >= 0) {
        return found(NearerUpper(own, enemy, columns[lower], columns[upper])
                         ? upper
                         : lower,
                     false);
      }
      if (open) return found(lower >= 0 ? lower : upper, true);
      break;
  }
  out.outcome = OddsLookup::Outcome::kBeyondTable;
  return out;
}

ColumnHits HitsOnColumn(const OddsColumn& column, int die, int modifier) {
  ColumnHits out;
  out.score = die + modifier;
  for (const HitLine& line : column.hits) {
    if (out.score >= line.min_score) out.hits = line.hits;
  }
  if (column.unmodified_six_scores_one_hit && die == 6 && out.hits < 1) {
    out.hits = 1;
    out.unmodified_six = true;
  }
  return out;
}

std::array<bool, 2> CheckMeleePairing(const Tables& tables,
                                      const MeleePairing& pairing,
                                      FindingSink& sink) {
  std::array<bool, 2> ok = {CheckModifiers(tables, pairing.sides[0], sink),
                            CheckModifiers(tables, pairing.sides[1], sink)};
  int values[2] = {0, 0};
  bool values_known = true;
  for (int s = 0; s < 2; ++s) {
    const MeleeSideInput& in = pairing.sides[s];
    values[s] = MeleeValuePerBase(tables, in.troop_type, in.mobility);
    if (values[s] > 0) continue;
    values_known = false;
    ReportUnverifiable(
        sink, kUnitValueRule, in,
        absl::StrFormat(
            "The ruleset gives no melee value per base for %s%s (%s), so the "
            "hits of this melee between %s and %s are not checked. Add an "
            "skf.melee_values entry for it to the ruleset file.",
            TroopName(in.troop_type),
            in.mobility.has_value()
                ? absl::StrCat(", ", MobilityName(*in.mobility))
                : std::string(),
            in.id, pairing.sides[0].label, pairing.sides[1].label));
  }
  if (!values_known || pairing.sides[0].bases_fighting < 1 ||
      pairing.sides[1].bases_fighting < 1) {
    return {false, false};
  }
  for (int s = 0; s < 2; ++s) {
    const int own = values[s] * pairing.sides[s].bases_fighting;
    const int enemy = values[1 - s] * pairing.sides[1 - s].bases_fighting;
    const OddsLookup odds = FindOddsColumn(tables, own, enemy);
    if (odds.outcome == OddsLookup::Outcome::kFound) continue;
    ReportNoColumn(tables, pairing.sides[s], odds, own, enemy, sink);
    ok[s] = false;
  }
  return ok;
}

MeleeSideResult ResolveMeleeSide(const Tables& tables,
                                 const MeleePairing& pairing, int side,
                                 Trace* trace) {
  const MeleeSideInput& me = pairing.sides[side];
  const MeleeSideInput& them = pairing.sides[1 - side];
  MeleeSideResult out;
  const int own_per_base =
      MeleeValuePerBase(tables, me.troop_type, me.mobility);
  const int enemy_per_base =
      MeleeValuePerBase(tables, them.troop_type, them.mobility);
  out.own_value = own_per_base * me.bases_fighting;
  out.enemy_value = enemy_per_base * them.bases_fighting;
  const OddsLookup odds =
      FindOddsColumn(tables, out.own_value, out.enemy_value);
  if (odds.outcome != OddsLookup::Outcome::kFound) return out;
  out.column = odds.column;
  const OddsColumn& column = tables.columns[odds.column];
  std::vector<const Modifier*> applied;
  for (std::size_t i = 0; i < me.modifiers.size(); ++i) {
    const Modifier* m = FindModifier(tables, me.modifiers[i]);
    if (m == nullptr ||
        std::find(applied.begin(), applied.end(), m) != applied.end()) {
      continue;
    }
    applied.push_back(m);
    out.modifier += m->value;
  }
  const ColumnHits hits = HitsOnColumn(column, me.die, out.modifier);
  out.score = hits.score;
  out.hits = hits.hits;
  out.unmodified_six = hits.unmodified_six;
  if (trace == nullptr) return out;
  trace->push_back({me.bases_fighting, absl::StrCat(me.id, ": bases fighting"),
                    kUnitValueRule, Origin::kDeclared});
  trace->push_back(
      {own_per_base,
       absl::StrCat("melee value per base of ", TroopName(me.troop_type)),
       kUnitValueRule, Origin::kComputed});
  trace->push_back({out.own_value,
                    absl::StrFormat("unit melee value: %d bases x %d",
                                    me.bases_fighting, own_per_base),
                    kUnitValueRule, Origin::kComputed});
  trace->push_back({out.enemy_value,
                    absl::StrFormat("%s unit melee value: %d bases x %d (%s)",
                                    them.id, them.bases_fighting,
                                    enemy_per_base, TroopName(them.troop_type)),
                    kUnitValueRule, Origin::kComputed});
  trace->push_back({0, OddsLabel(tables, odds, out.own_value, out.enemy_value),
                    kOddsRule, Origin::kComputed});
  trace->push_back({me.die, "die", kHitRule, Origin::kDice});
  for (const Modifier* m : applied) {
    trace->push_back(
        {m->value,
         m->description.empty()
             ? absl::StrCat("modifier \"", m->name, "\"")
             : absl::StrCat("modifier \"", m->name, "\": ", m->description),
         "skf.melee.modifier", Origin::kDeclared});
  }
  trace->push_back(
      {hits.score,
       absl::StrFormat("score: %d %+d = %d", me.die, out.modifier, hits.score),
       kHitRule, Origin::kComputed});
  if (hits.unmodified_six) {
    trace->push_back({1,
                      absl::StrFormat("an unmodified 6 at %s always scores 1 "
                                      "hit",
                                      ColumnName(column)),
                      "skf.melee.natural_six", Origin::kComputed});
  }
  trace->push_back(
      {hits.hits,
       absl::StrFormat(
           "column %s: %s (%s)", ColumnName(column),
           hits.unmodified_six
               ? std::string("1 hit")
               : absl::StrFormat("score %d scores %d hit%s", hits.score,
                                 hits.hits, hits.hits == 1 ? "" : "s"),
           DescribeHitLines(column)),
       kHitRule, Origin::kComputed});
  return out;
}

std::string DescribeHitLines(const OddsColumn& column) {
  if (column.hits.empty()) return "no score hits";
  std::vector<std::string> parts;
  for (const HitLine& line : column.hits) {
    parts.push_back(absl::StrFormat("%d+ %d hit%s", line.min_score, line.hits,
                                    line.hits == 1 ? "" : "s"));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace gunbai::rules::skf
