// The umpire's tables (gunbai.v1.SkfRules) in domain form, and their
// validation. See rules/skf/engine.h.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rules/skf/engine.h"
#include "rules/skf/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::rules::skf {

namespace {

namespace v1 = ::gunbai::v1;

// Bounds that keep every product of the odds arithmetic well inside 64 bits.
constexpr int kMaxPerBase = 1000;
constexpr int kMaxOddsTerm = 100;
constexpr int kMaxScore = 100;
constexpr int kMaxHits = 64;
constexpr int kMaxModifier = 100;
constexpr int kMaxEntries = 1000;
// Victory points of a troop type or a camp, and the default total to win.
constexpr int kMaxVictoryPoints = 1000;
constexpr int kMaxPointsToWin = 1000000;

absl::Status FieldError(absl::string_view source, absl::string_view field,
                        absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": skf.", field, ": ", what));
}

absl::Status AddMeleeValues(const v1::SkfRules& d, absl::string_view source,
                            Tables& out) {
  for (int i = 0; i < d.melee_values_size(); ++i) {
    const v1::SkfMeleeValue& v = d.melee_values(i);
    const std::string field = absl::StrCat("melee_values[", i, "]");
    std::optional<TroopType> type = TroopTypeFromProto(v.troop_type());
    if (!type.has_value()) {
      return FieldError(source, field, "troop_type is not set.");
    }
    if (v.per_base() < 1 || v.per_base() > kMaxPerBase) {
      return FieldError(source, field,
                        absl::StrFormat("per_base is %d; it is 1 to %d.",
                                        v.per_base(), kMaxPerBase));
    }
    MeleeValue value;
    value.troop_type = *type;
    value.mobility = MobilityFromProto(v.mobility());
    value.per_base = static_cast<int>(v.per_base());
    for (const MeleeValue& have : out.melee_values) {
      if (have.troop_type == value.troop_type &&
          have.mobility == value.mobility) {
        return FieldError(source, field,
                          "a value for this troop type and mobility is "
                          "given twice.");
      }
    }
    out.melee_values.push_back(value);
  }
  return absl::OkStatus();
}

absl::Status ColumnFromProto(const v1::SkfOddsColumn& c,
                             absl::string_view source, const std::string& field,
                             OddsColumn& out) {
  if (c.own() < 1 || c.own() > kMaxOddsTerm || c.enemy() < 1 ||
      c.enemy() > kMaxOddsTerm) {
    return FieldError(source, field,
                      absl::StrFormat("own and enemy are 1 to %d (the column "
                                      "is %d-%d).",
                                      kMaxOddsTerm, c.own(), c.enemy()));
  }
  out.own = static_cast<int>(c.own());
  out.enemy = static_cast<int>(c.enemy());
  out.unmodified_six_scores_one_hit = c.unmodified_six_scores_one_hit();
  for (const v1::SkfHitLine& line : c.hits()) {
    if (std::abs(line.min_score()) > kMaxScore || line.hits() > kMaxHits) {
      return FieldError(source, field,
                        absl::StrFormat("a hit line's min_score is -%d to %d "
                                        "and its hits at most %d.",
                                        kMaxScore, kMaxScore, kMaxHits));
    }
    out.hits.push_back({line.min_score(), static_cast<int>(line.hits())});
  }
  std::sort(out.hits.begin(), out.hits.end(),
            [](const HitLine& a, const HitLine& b) {
              return a.min_score < b.min_score;
            });
  for (std::size_t i = 1; i < out.hits.size(); ++i) {
    if (out.hits[i].min_score == out.hits[i - 1].min_score) {
      return FieldError(
          source, field,
          absl::StrFormat("two hit lines start at %d.", out.hits[i].min_score));
    }
  }
  return absl::OkStatus();
}

absl::Status AddColumns(const v1::SkfRules& d, absl::string_view source,
                        Tables& out) {
  for (int i = 0; i < d.odds_columns_size(); ++i) {
    const std::string field = absl::StrCat("odds_columns[", i, "]");
    OddsColumn column;
    absl::Status s = ColumnFromProto(d.odds_columns(i), source, field, column);
    if (!s.ok()) return s;
    for (const OddsColumn& have : out.columns) {
      if (have.own * column.enemy == column.own * have.enemy) {
        return FieldError(
            source, field,
            absl::StrFormat("the odds %s are the odds of column %s, given "
                            "earlier.",
                            ColumnName(column), ColumnName(have)));
      }
    }
    out.columns.push_back(std::move(column));
  }
  std::sort(out.columns.begin(), out.columns.end(),
            [](const OddsColumn& a, const OddsColumn& b) {
              return a.own * b.enemy < b.own * a.enemy;
            });
  return absl::OkStatus();
}

absl::Status AddModifiers(const v1::SkfRules& d, absl::string_view source,
                          Tables& out) {
  for (int i = 0; i < d.modifiers_size(); ++i) {
    const v1::SkfModifier& m = d.modifiers(i);
    const std::string field = absl::StrCat("modifiers[", i, "]");
    if (m.name().empty()) return FieldError(source, field, "name is empty.");
    if (std::abs(m.value()) > kMaxModifier) {
      return FieldError(source, field,
                        absl::StrFormat("value is %d; it is -%d to %d.",
                                        m.value(), kMaxModifier, kMaxModifier));
    }
    for (const Modifier& have : out.modifiers) {
      if (have.name == m.name()) {
        return FieldError(
            source, field,
            absl::StrCat("the name \"", m.name(), "\" is used twice."));
      }
    }
    out.modifiers.push_back({m.name(), m.value(), m.description()});
  }
  return absl::OkStatus();
}

absl::Status MoraleFromProto(const v1::SkfMoraleTest& m,
                             absl::string_view source, MoraleTest& out) {
  if (m.dice() < 1 || m.dice() > 3) {
    return FieldError(source, "morale.dice", "the check rolls 1 to 3 dice.");
  }
  out.dice = static_cast<int>(m.dice());
  for (int i = 0; i < m.pass_scores_size(); ++i) {
    std::optional<Quality> q = QualityFromProto(m.pass_scores(i).quality());
    if (!q.has_value() || m.pass_scores(i).score() < 1 ||
        m.pass_scores(i).score() > static_cast<uint32_t>(kMaxScore)) {
      return FieldError(source, absl::StrCat("morale.pass_scores[", i, "]"),
                        absl::StrFormat("a pass score names a quality and a "
                                        "score of 1 to %d.",
                                        kMaxScore));
    }
    out.pass_scores[static_cast<std::size_t>(*q)] =
        static_cast<int>(m.pass_scores(i).score());
  }
  for (int i = 0; i < m.failures_size(); ++i) {
    const v1::SkfMoraleFailure& f = m.failures(i);
    if (f.fail_by() < 1 || f.fail_by() > static_cast<uint32_t>(kMaxScore) ||
        f.result() == v1::MORALE_RESULT_UNSPECIFIED) {
      return FieldError(source, absl::StrCat("morale.failures[", i, "]"),
                        "a failure names fail_by (1 or more) and a result.");
    }
    out.failures.push_back(
        {static_cast<int>(f.fail_by()), MoraleResultFromProto(f.result())});
  }
  std::sort(out.failures.begin(), out.failures.end(),
            [](const MoraleFailure& a, const MoraleFailure& b) {
              return a.fail_by < b.fail_by;
            });
  if (out.failures.empty() || out.failures.front().fail_by != 1) {
    return FieldError(source, "morale.failures",
                      "give the result of failing by 1 (fail_by: 1) and of "
                      "any larger margins.");
  }
  for (std::size_t i = 1; i < out.failures.size(); ++i) {
    if (out.failures[i].fail_by == out.failures[i - 1].fail_by) {
      return FieldError(source, "morale.failures",
                        "two failures have the same fail_by.");
    }
  }
  const int modifiers[] = {m.per_leader_touching(), m.per_base_lost(),
                           m.per_disorder_point()};
  for (int v : modifiers) {
    if (std::abs(v) > kMaxModifier) {
      return FieldError(source, "morale",
                        absl::StrFormat("a modifier is -%d to %d.",
                                        kMaxModifier, kMaxModifier));
    }
  }
  out.per_leader_touching = m.per_leader_touching();
  out.per_base_lost = m.per_base_lost();
  out.per_disorder_point = m.per_disorder_point();
  return absl::OkStatus();
}

// Reads the troop type of a victory entry at `field`; refuses an unset or
// repeated one (`seen` marks the types read so far).
absl::StatusOr<TroopType> VictoryTroopType(
    v1::TroopType proto, absl::string_view source, const std::string& field,
    std::array<bool, kTroopTypeCount>& seen) {
  std::optional<TroopType> type = TroopTypeFromProto(proto);
  if (!type.has_value()) {
    return FieldError(source, field, "the troop type is not set.");
  }
  bool& mark = seen[static_cast<int>(*type)];
  if (mark) {
    return FieldError(
        source, field,
        absl::StrCat("the troop type ", TroopName(*type), " is given twice."));
  }
  mark = true;
  return *type;
}

absl::Status VictoryFromProto(const v1::SkfVictory& v, absl::string_view source,
                              VictorySettings& out) {
  std::array<bool, kTroopTypeCount> seen{};
  for (int i = 0; i < v.unit_points_size(); ++i) {
    const std::string field = absl::StrCat("victory.unit_points[", i, "]");
    auto type =
        VictoryTroopType(v.unit_points(i).troop_type(), source, field, seen);
    if (!type.ok()) return type.status();
    if (v.unit_points(i).points() > static_cast<uint32_t>(kMaxVictoryPoints)) {
      return FieldError(
          source, field,
          absl::StrFormat("points is %d; it is 0 to %d.",
                          v.unit_points(i).points(), kMaxVictoryPoints));
    }
    out.unit_points[static_cast<int>(*type)] =
        static_cast<int>(v.unit_points(i).points());
  }
  if (v.camp_sack_points() > static_cast<uint32_t>(kMaxVictoryPoints)) {
    return FieldError(source, "victory.camp_sack_points",
                      absl::StrFormat("%d points; a camp gives 0 to %d.",
                                      v.camp_sack_points(), kMaxVictoryPoints));
  }
  out.camp_sack_points = static_cast<int>(v.camp_sack_points());
  seen = {};
  for (int i = 0; i < v.camp_sack_troop_types_size(); ++i) {
    GUNBAI_ASSIGN_OR_RETURN(
        auto type,
        VictoryTroopType(
            static_cast<v1::TroopType>(v.camp_sack_troop_types(i)), source,
            absl::StrCat("victory.camp_sack_troop_types[", i, "]"), seen));
    out.camp_sack_types[static_cast<int>(type)] = true;
  }
  if ((out.camp_sack_points > 0) != (v.camp_sack_troop_types_size() > 0)) {
    return FieldError(source, "victory.camp_sack_points",
                      "camp_sack_points and camp_sack_troop_types go "
                      "together: give both (the page: 2 points, for "
                      "ashigaru) or neither.");
  }
  if (v.default_points_to_win() > static_cast<uint32_t>(kMaxPointsToWin)) {
    return FieldError(
        source, "victory.default_points_to_win",
        absl::StrFormat("%d; give 0 (no default) to %d.",
                        v.default_points_to_win(), kMaxPointsToWin));
  }
  out.points_to_win = static_cast<int>(v.default_points_to_win());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tables> TablesFromProto(const v1::SkfRules& d,
                                       absl::string_view source) {
  if (d.melee_values_size() > kMaxEntries ||
      d.odds_columns_size() > kMaxEntries || d.modifiers_size() > kMaxEntries) {
    return FieldError(source, "",
                      absl::StrFormat("at most %d melee values, odds columns "
                                      "and modifiers each.",
                                      kMaxEntries));
  }
  Tables out;
  absl::Status s = AddMeleeValues(d, source, out);
  if (s.ok()) s = AddColumns(d, source, out);
  if (s.ok()) s = AddModifiers(d, source, out);
  if (!s.ok()) return s;
  out.rounding = OddsRoundingFromProto(d.odds_rounding());
  out.extreme_columns_open = d.extreme_columns_open();
  if (d.leader_hits().killed_at_or_below() > 5) {
    return FieldError(source, "leader_hits.killed_at_or_below",
                      "a leader dies on a die at or below this: 0 (not "
                      "given) to 5.");
  }
  out.leader_killed_at_or_below =
      static_cast<int>(d.leader_hits().killed_at_or_below());
  if (d.has_morale()) {
    MoraleTest morale;
    s = MoraleFromProto(d.morale(), source, morale);
    if (!s.ok()) return s;
    out.morale = std::move(morale);
  }
  if (d.has_victory()) {
    VictorySettings victory;
    s = VictoryFromProto(d.victory(), source, victory);
    if (!s.ok()) return s;
    out.victory = victory;
  }
  return out;
}

absl::Status ValidateSkfRuleset(const v1::Ruleset& data,
                                absl::string_view source) {
  return TablesFromProto(data.skf(), source).status();
}

bool SkfDiceInPairs(v1::Event::BodyCase roll, int dice) {
  return roll == v1::Event::kMoraleTest && dice == 2;
}

}  // namespace gunbai::rules::skf
