#include "replay/dice_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace gunbai::replay {

namespace {

namespace v1 = ::gunbai::v1;

constexpr int kFaceDegreesOfFreedom = 5;
constexpr int kSumDegreesOfFreedom = 10;
constexpr int kSumWays[11] = {1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1};
constexpr int kMaxGammaIterations = 1000;
constexpr double kGammaEpsilon = 1e-15;
constexpr double kTiny = 1e-300;

// P(a, x) by its series; good for x < a + 1.
double LowerGammaSeries(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n <= kMaxGammaIterations; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kGammaEpsilon) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) by its continued fraction (modified Lentz); good for x >= a + 1.
double UpperGammaFraction(double a, double x) {
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i <= kMaxGammaIterations; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kGammaEpsilon) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

// Whom the dice of a game belong to: unit and leader ids to clan ids.
struct Owners {
  absl::flat_hash_map<std::string, std::string> unit_clan;
  absl::flat_hash_map<std::string, std::string> leader_clan;
};

Owners OwnersOf(const v1::OrderOfBattle& oob) {
  Owners owners;
  for (const v1::Unit& u : oob.units()) owners.unit_clan[u.id()] = u.clan();
  for (const v1::Leader& l : oob.leaders()) {
    owners.leader_clan[l.id()] = l.clan();
  }
  return owners;
}

absl::StatusOr<std::string> ClanOf(
    const absl::flat_hash_map<std::string, std::string>& clans,
    const std::string& id, const char* what, const v1::Event& event) {
  auto it = clans.find(id);
  if (it == clans.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("event ", event.seq(), ": ", what, " \"", id,
                     "\" is not in the order of battle"));
  }
  return it->second;
}

template <typename Repeated>
std::vector<std::uint32_t> ToVector(const Repeated& dice) {
  return std::vector<std::uint32_t>(dice.begin(), dice.end());
}

// Appends the dice of `event` to `out`.
absl::Status AttributeEvent(const v1::Event& event, const Owners& owners,
                            std::vector<AttributedDice>& out) {
  auto add = [&](const std::string& clan, std::vector<std::uint32_t> dice,
                 bool in_pairs) {
    if (clan.empty() || dice.empty()) return;
    out.push_back({event.seq(), clan, std::move(dice), in_pairs});
  };
  switch (event.body_case()) {
    case v1::Event::kTurnStart:
      add(event.clan(), ToVector(event.turn_start().initiative_dice()), false);
      break;
    case v1::Event::kFiring: {
      auto clan =
          ClanOf(owners.unit_clan, event.firing().unit(), "unit", event);
      if (!clan.ok()) return clan.status();
      add(*clan, ToVector(event.firing().dice()), true);
      break;
    }
    case v1::Event::kMeleeRound:
      for (const v1::MeleeSide& side : event.melee_round().sides()) {
        auto clan = ClanOf(owners.unit_clan, side.unit(), "unit", event);
        if (!clan.ok()) return clan.status();
        add(*clan, ToVector(side.dice()), true);
      }
      break;
    case v1::Event::kChallenge: {
      const v1::Challenge& c = event.challenge();
      auto challenger =
          ClanOf(owners.leader_clan, c.challenger(), "leader", event);
      if (!challenger.ok()) return challenger.status();
      auto challenged =
          ClanOf(owners.leader_clan, c.challenged(), "leader", event);
      if (!challenged.ok()) return challenged.status();
      for (int i = 0; i < c.dice_size(); ++i) {
        add(i % 2 == 0 ? *challenger : *challenged, {c.dice(i)}, false);
      }
      break;
    }
    case v1::Event::kMoraleTest: {
      auto clan =
          ClanOf(owners.unit_clan, event.morale_test().unit(), "unit", event);
      if (!clan.ok()) return clan.status();
      add(*clan, ToVector(event.morale_test().dice()), true);
      break;
    }
    case v1::Event::kLeaderLoss: {
      if (event.leader_loss().die() == 0) break;
      auto clan = ClanOf(owners.leader_clan, event.leader_loss().leader(),
                         "leader", event);
      if (!clan.ok()) return clan.status();
      add(*clan, {event.leader_loss().die()}, false);
      break;
    }
    case v1::Event::kResultMove:
      add(event.clan(), ToVector(event.result_move().dice()), false);
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

bool IsFace(std::uint32_t die) { return die >= 1 && die <= 6; }

// Adds the faces, the pair sums and the runs of `dice` to `group`.
void Tally(const std::vector<AttributedDice>& dice, DiceGroupStats& group) {
  int run = 0;
  std::uint32_t last = 0;
  for (const AttributedDice& roll : dice) {
    for (std::uint32_t die : roll.dice) {
      if (!IsFace(die)) {
        ++group.invalid_dice;
        run = 0;
        last = 0;
        continue;
      }
      ++group.dice;
      ++group.face_counts[die - 1];
      run = die == last ? run + 1 : 1;
      last = die;
      if (run > group.longest_run) {
        group.longest_run = run;
        group.longest_run_face = static_cast<int>(die);
      }
    }
    if (!roll.in_pairs) continue;
    for (std::size_t i = 0; i + 1 < roll.dice.size(); i += 2) {
      if (!IsFace(roll.dice[i]) || !IsFace(roll.dice[i + 1])) continue;
      ++group.pairs;
      ++group.sum_counts[roll.dice[i] + roll.dice[i + 1] - 2];
    }
  }
}

// Computes the statistics and the flag from the counts of `group`.
void Finish(DiceGroupStats& group) {
  group.face_chi_square = FaceChiSquare(group.face_counts);
  group.face_p_value = group.dice == 0 ? 1.0
                                       : ChiSquarePValue(group.face_chi_square,
                                                         kFaceDegreesOfFreedom);
  if (group.pairs >= kMinPairsForSumTest) {
    group.sum_chi_square = SumChiSquare(group.sum_counts);
    group.sum_p_value =
        ChiSquarePValue(*group.sum_chi_square, kSumDegreesOfFreedom);
  }
  group.run_probability = RunProbability(group.dice, group.longest_run);
  group.reasons.clear();
  if (group.face_p_value < kDiceFlagLevel) {
    group.reasons.push_back(absl::StrFormat("faces: chi-square %.2f, p = %.2g",
                                            group.face_chi_square,
                                            group.face_p_value));
  }
  if (group.sum_p_value.has_value() && *group.sum_p_value < kDiceFlagLevel) {
    group.reasons.push_back(
        absl::StrFormat("2d6 sums: chi-square %.2f, p = %.2g",
                        *group.sum_chi_square, *group.sum_p_value));
  }
  if (group.run_probability < kDiceFlagLevel) {
    group.reasons.push_back(absl::StrFormat(
        "run of %d %ds: probability about %.2g", group.longest_run,
        group.longest_run_face, group.run_probability));
  }
  group.flagged = !group.reasons.empty();
}

// Adds the counts of `from` to `into`; the longest run is the longest of
// either (runs do not join across games).
void Merge(const DiceGroupStats& from, DiceGroupStats& into) {
  into.dice += from.dice;
  into.invalid_dice += from.invalid_dice;
  into.pairs += from.pairs;
  for (int f = 0; f < 6; ++f) into.face_counts[f] += from.face_counts[f];
  for (int s = 0; s < 11; ++s) into.sum_counts[s] += from.sum_counts[s];
  if (from.longest_run > into.longest_run) {
    into.longest_run = from.longest_run;
    into.longest_run_face = from.longest_run_face;
  }
}

std::string PlayerOf(const v1::Clan& clan) {
  return clan.player().empty() ? absl::StrCat("(clan ", clan.id(), ")")
                               : clan.player();
}

std::string GroupTitle(const DiceGroupStats& g) {
  if (g.clan.empty()) return absl::StrCat("Player ", g.player, ", all games");
  return absl::StrCat("Game ", g.game_id, ", clan ", g.clan, " (player ",
                      g.player, ")");
}

void AppendGroupText(const DiceGroupStats& g, std::string& out) {
  absl::StrAppend(
      &out, "\n", GroupTitle(g), ": ", g.dice, " dice",
      g.invalid_dice > 0
          ? absl::StrCat(", ", g.invalid_dice, " outside 1-6 (not counted)")
          : "",
      g.flagged ? "  ** FLAGGED **" : "", "\n");
  const double expected = g.dice / 6.0;
  absl::StrAppend(&out, "  face  ");
  for (int f = 1; f <= 6; ++f) absl::StrAppendFormat(&out, "%6d", f);
  absl::StrAppend(&out, "\n  count ");
  for (auto c : g.face_counts) absl::StrAppendFormat(&out, "%6d", c);
  absl::StrAppendFormat(&out, "\n  expect%6.1f each\n", expected);
  absl::StrAppendFormat(&out, "  faces: chi-square %.2f (5 df), p = %.4f\n",
                        g.face_chi_square, g.face_p_value);
  if (g.sum_p_value.has_value()) {
    absl::StrAppendFormat(&out,
                          "  2d6 sums of %d pairs: chi-square %.2f (10 df), "
                          "p = %.4f\n",
                          g.pairs, *g.sum_chi_square, *g.sum_p_value);
  } else {
    absl::StrAppendFormat(&out,
                          "  2d6 sums of %d pairs: not tested (needs %d)\n",
                          g.pairs, kMinPairsForSumTest);
  }
  if (g.longest_run > 0) {
    absl::StrAppendFormat(
        &out,
        "  longest run: %d in a row of face %d, chance about %.4f "
        "(approximation)\n",
        g.longest_run, g.longest_run_face, g.run_probability);
  }
  for (const std::string& reason : g.reasons) {
    absl::StrAppend(&out, "  flag: ", reason, "\n");
  }
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

template <std::size_t N>
std::string JsonArray(const std::array<std::int64_t, N>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ","), "]");
}

std::string JsonNumber(double v) { return absl::StrFormat("%.6g", v); }

std::string GroupJson(const DiceGroupStats& g) {
  std::vector<std::string> reasons;
  for (const std::string& r : g.reasons) reasons.push_back(JsonString(r));
  std::string out = "{";
  if (!g.clan.empty()) {
    absl::StrAppend(&out, "\"game_id\":", JsonString(g.game_id),
                    ",\"clan\":", JsonString(g.clan), ",");
  }
  absl::StrAppend(&out, "\"player\":", JsonString(g.player),
                  ",\"dice\":", g.dice, ",\"invalid_dice\":", g.invalid_dice,
                  ",\"face_counts\":", JsonArray(g.face_counts),
                  ",\"face_chi_square\":", JsonNumber(g.face_chi_square),
                  ",\"face_p_value\":", JsonNumber(g.face_p_value),
                  ",\"pairs\":", g.pairs,
                  ",\"sum_counts\":", JsonArray(g.sum_counts));
  if (g.sum_p_value.has_value()) {
    absl::StrAppend(&out, ",\"sum_chi_square\":", JsonNumber(*g.sum_chi_square),
                    ",\"sum_p_value\":", JsonNumber(*g.sum_p_value));
  }
  absl::StrAppend(&out, ",\"longest_run\":", g.longest_run,
                  ",\"longest_run_face\":", g.longest_run_face,
                  ",\"run_probability\":", JsonNumber(g.run_probability),
                  ",\"flagged\":", g.flagged ? "true" : "false",
                  ",\"reasons\":[", absl::StrJoin(reasons, ","), "]}");
  return out;
}

std::string GroupsJson(const std::vector<DiceGroupStats>& groups) {
  std::vector<std::string> parts;
  for (const DiceGroupStats& g : groups) parts.push_back(GroupJson(g));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

constexpr char kCaveat[] =
    "Dice statistics - a test of fairness, not proof: a flag (p < 0.01) "
    "says the dice are unlikely under fair dice, and fair dice are flagged "
    "about once in a hundred groups.";

}  // namespace

bool DiceReport::AnyFlagged() const {
  for (const auto& g : clans) {
    if (g.flagged) return true;
  }
  for (const auto& g : players) {
    if (g.flagged) return true;
  }
  return false;
}

double RegularizedUpperGamma(double a, double x) {
  if (x <= 0 || a <= 0) return 1.0;
  if (x < a + 1.0) return 1.0 - LowerGammaSeries(a, x);
  return UpperGammaFraction(a, x);
}

double ChiSquarePValue(double chi_square, int degrees_of_freedom) {
  return RegularizedUpperGamma(degrees_of_freedom / 2.0, chi_square / 2.0);
}

double FaceChiSquare(const std::array<std::int64_t, 6>& face_counts) {
  std::int64_t n = 0;
  for (auto c : face_counts) n += c;
  if (n == 0) return 0;
  const double expected = n / 6.0;
  double chi = 0;
  for (auto c : face_counts) chi += (c - expected) * (c - expected) / expected;
  return chi;
}

double SumChiSquare(const std::array<std::int64_t, 11>& sum_counts) {
  std::int64_t n = 0;
  for (auto c : sum_counts) n += c;
  if (n == 0) return 0;
  double chi = 0;
  for (int s = 0; s < 11; ++s) {
    const double expected = n * kSumWays[s] / 36.0;
    chi += (sum_counts[s] - expected) * (sum_counts[s] - expected) / expected;
  }
  return chi;
}

double RunProbability(std::int64_t dice, int run) {
  if (run <= 1 || dice < run) return 1.0;
  const double p = static_cast<double>(dice - run + 1) * (5.0 / 6.0) *
                   std::pow(1.0 / 6.0, run - 1);
  return std::min(1.0, p);
}

absl::StatusOr<std::vector<AttributedDice>> AttributeDice(
    const v1::BattleLog& log) {
  const Owners owners = OwnersOf(log.order_of_battle());
  std::vector<AttributedDice> out;
  for (const v1::Event& event : log.events()) {
    absl::Status s = AttributeEvent(event, owners, out);
    if (!s.ok()) return s;
  }
  return out;
}

DiceGroupStats SummarizeGroup(const std::vector<AttributedDice>& dice,
                              const std::string& game_id,
                              const std::string& clan,
                              const std::string& player) {
  DiceGroupStats group;
  group.game_id = game_id;
  group.clan = clan;
  group.player = player;
  Tally(dice, group);
  Finish(group);
  return group;
}

absl::StatusOr<DiceReport> SummarizeDice(
    const std::vector<v1::BattleLog>& logs) {
  DiceReport report;
  report.games = static_cast<int>(logs.size());
  absl::flat_hash_map<std::string, std::size_t> player_index;
  for (const v1::BattleLog& log : logs) {
    auto dice = AttributeDice(log);
    if (!dice.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "game ", log.header().game_id(), ": ", dice.status().message()));
    }
    for (const v1::Clan& clan : log.header().clans()) {
      std::vector<AttributedDice> mine;
      for (const AttributedDice& d : *dice) {
        if (d.clan == clan.id()) mine.push_back(d);
      }
      report.clans.push_back(SummarizeGroup(mine, log.header().game_id(),
                                            clan.id(), PlayerOf(clan)));
      if (logs.size() < 2) continue;
      auto [it, inserted] =
          player_index.try_emplace(PlayerOf(clan), report.players.size());
      if (inserted) {
        report.players.emplace_back();
        report.players.back().player = PlayerOf(clan);
      }
      Merge(report.clans.back(), report.players[it->second]);
    }
  }
  for (DiceGroupStats& g : report.players) Finish(g);
  return report;
}

std::string FormatDiceText(const DiceReport& report) {
  std::string out = absl::StrCat(kCaveat, "\n");
  absl::StrAppend(
      &out,
      "Faces: chi-square against 1/6 each. 2d6 sums (firing, melee and "
      "morale pairs): chi-square against 1,2,...,6,...,2,1 in 36, tested "
      "from ",
      kMinPairsForSumTest,
      " pairs. Run chance: (n - L + 1) * 5/6 * (1/6)^(L-1), an "
      "approximation.\n");
  for (const DiceGroupStats& g : report.clans) AppendGroupText(g, out);
  for (const DiceGroupStats& g : report.players) AppendGroupText(g, out);
  int flagged = 0;
  for (const auto& g : report.clans) flagged += g.flagged;
  for (const auto& g : report.players) flagged += g.flagged;
  absl::StrAppend(&out, "\n", report.games, " game(s), ",
                  report.clans.size() + report.players.size(), " group(s), ",
                  flagged, " flagged.\n");
  return out;
}

std::string FormatDiceJson(const DiceReport& report) {
  return absl::StrCat(
      "{\"note\":", JsonString(kCaveat), ",\"games\":", report.games,
      ",\"clans\":", GroupsJson(report.clans),
      ",\"players\":", GroupsJson(report.players),
      ",\"flagged\":", report.AnyFlagged() ? "true" : "false", "}\n");
}

namespace {

v1::DiceGroupStats GroupToProto(const DiceGroupStats& g) {
  v1::DiceGroupStats out;
  out.set_game_id(g.game_id);
  out.set_clan(g.clan);
  out.set_player(g.player);
  out.set_dice(g.dice);
  out.set_invalid_dice(g.invalid_dice);
  for (std::int64_t c : g.face_counts) out.add_face_counts(c);
  out.set_face_chi_square(g.face_chi_square);
  out.set_face_p_value(g.face_p_value);
  out.set_pairs(g.pairs);
  for (std::int64_t c : g.sum_counts) out.add_sum_counts(c);
  if (g.sum_chi_square.has_value()) out.set_sum_chi_square(*g.sum_chi_square);
  if (g.sum_p_value.has_value()) out.set_sum_p_value(*g.sum_p_value);
  out.set_longest_run(g.longest_run);
  out.set_longest_run_face(g.longest_run_face);
  out.set_run_probability(g.run_probability);
  out.set_flagged(g.flagged);
  for (const std::string& r : g.reasons) out.add_reasons(r);
  return out;
}

absl::StatusOr<DiceGroupStats> GroupFromProto(const v1::DiceGroupStats& g) {
  DiceGroupStats out;
  if (g.face_counts_size() != 6 || g.sum_counts_size() != 11) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "dice group %s/%s/%s has %d face counts and %d sum counts; it needs "
        "6 and 11",
        g.game_id(), g.clan(), g.player(), g.face_counts_size(),
        g.sum_counts_size()));
  }
  out.game_id = g.game_id();
  out.clan = g.clan();
  out.player = g.player();
  out.dice = g.dice();
  out.invalid_dice = g.invalid_dice();
  std::copy(g.face_counts().begin(), g.face_counts().end(),
            out.face_counts.begin());
  out.face_chi_square = g.face_chi_square();
  out.face_p_value = g.face_p_value();
  out.pairs = g.pairs();
  std::copy(g.sum_counts().begin(), g.sum_counts().end(),
            out.sum_counts.begin());
  if (g.has_sum_chi_square()) out.sum_chi_square = g.sum_chi_square();
  if (g.has_sum_p_value()) out.sum_p_value = g.sum_p_value();
  out.longest_run = g.longest_run();
  out.longest_run_face = g.longest_run_face();
  out.run_probability = g.run_probability();
  out.flagged = g.flagged();
  out.reasons.assign(g.reasons().begin(), g.reasons().end());
  return out;
}

}  // namespace

v1::DiceStatsReport DiceReportToProto(const DiceReport& report) {
  v1::DiceStatsReport out;
  out.set_note(kCaveat);
  out.set_games(report.games);
  for (const DiceGroupStats& g : report.clans) {
    *out.add_clans() = GroupToProto(g);
  }
  for (const DiceGroupStats& g : report.players) {
    *out.add_players() = GroupToProto(g);
  }
  out.set_flagged(report.AnyFlagged());
  return out;
}

absl::StatusOr<DiceReport> DiceReportFromProto(
    const v1::DiceStatsReport& report) {
  DiceReport out;
  out.games = report.games();
  for (const v1::DiceGroupStats& g : report.clans()) {
    auto group = GroupFromProto(g);
    if (!group.ok()) return group.status();
    out.clans.push_back(*std::move(group));
  }
  for (const v1::DiceGroupStats& g : report.players()) {
    auto group = GroupFromProto(g);
    if (!group.ok()) return group.status();
    out.players.push_back(*std::move(group));
  }
  return out;
}

}  // namespace gunbai::replay
