#include "replay/generator/skf_game.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "rules/battle_state.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

constexpr int kClans = 2;
constexpr const char* kClanIds[kClans] = {"uesugi", "takeda"};
constexpr const char* kClanNames[kClans] = {"Uesugi", "Takeda"};
constexpr const char* kUnitPrefix[kClans] = {"ues", "tak"};

// The troop kinds, in the order a clan's units take them.
struct Kind {
  v1::TroopType type;
  v1::Mobility mobility;
  const char* name;
};
constexpr Kind kKinds[] = {
    {v1::TROOP_TYPE_SAMURAI, v1::MOBILITY_FOOT, "Samurai"},
    {v1::TROOP_TYPE_ASHIGARU, v1::MOBILITY_FOOT, "Ashigaru"},
    {v1::TROOP_TYPE_LEGENDARY_SAMURAI, v1::MOBILITY_FOOT, "Legends"},
    {v1::TROOP_TYPE_SAMURAI, v1::MOBILITY_MOUNTED, "Horse Samurai"},
    {v1::TROOP_TYPE_RONIN, v1::MOBILITY_FOOT, "Ronin"},
    {v1::TROOP_TYPE_WARRIOR_MONK, v1::MOBILITY_FOOT, "Sohei"},
    {v1::TROOP_TYPE_PEASANT, v1::MOBILITY_FOOT, "Peasants"},
};
constexpr v1::Quality kQualities[] = {v1::QUALITY_RAW, v1::QUALITY_SEASONED,
                                      v1::QUALITY_VETERAN, v1::QUALITY_ELITE};

class SkfPlayer {
 public:
  SkfPlayer(const GeneratorOptions& options,
            const replay::LoadedRuleset& ruleset)
      : options_(options),
        ruleset_(ruleset),
        rng_(options.seed ^ 0x5f3759df2b7e1516ULL),
        turns_(options.turns > 0 ? options.turns : 8),
        units_per_clan_(options.units_per_clan) {}

  absl::StatusOr<v1::BattleLog> Play() {
    BuildHeader();
    BuildOrderOfBattle();
    replay::AuditOptions follow;
    follow.follow_computed_from_seq = 1;
    follow.branch_events = &branch_;
    auto replay = replay::Replay::Start(declared_, ruleset_, follow, &report_);
    if (!replay.ok()) return replay.status();
    replay_ = *std::move(replay);
    for (turn_ = 1; turn_ <= static_cast<std::uint32_t>(turns_); ++turn_) {
      PlayTurn();
    }
    --turn_;
    v1::Event end;
    end.mutable_game_end();
    const std::string winner = WinnerSoFar();
    if (!winner.empty()) end.mutable_game_end()->set_claimed_winner(winner);
    Emit(end);
    replay_->Finish(seq_);
    v1::BattleLog log;
    *log.mutable_header() = declared_.header();
    *log.mutable_order_of_battle() = declared_.order_of_battle();
    *log.mutable_events() = branch_;
    return log;
  }

 private:
  int Uniform(int lo, int hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<int>(rng_() % span);
  }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }

  const rules::BattleState& state() const { return replay_->state(); }

  void BuildHeader() {
    v1::Header* h = declared_.mutable_header();
    h->set_game_id(absl::StrCat("generated-skf-", options_.seed));
    h->mutable_ruleset()->set_name(ruleset_.data.name());
    h->mutable_ruleset()->set_version(ruleset_.data.version());
    h->set_event("gunbai generate --ruleset skf");
    for (int c = 0; c < kClans; ++c) {
      v1::Clan* clan = h->add_clans();
      clan->set_id(kClanIds[c]);
      clan->set_name(kClanNames[c]);
    }
    // Page 6's points, as the ruleset gives them; as many points to win as
    // units a clan, at least 3.
    const v1::SkfVictory& points = ruleset_.data.skf().victory();
    v1::VictoryConditions* victory = h->mutable_scenario()->mutable_victory();
    victory->set_points_to_win(
        static_cast<std::uint32_t>(std::max(3, units_per_clan_)));
    *victory->mutable_unit_points() = points.unit_points();
    victory->set_camp_sack_points(points.camp_sack_points());
    *victory->mutable_camp_sack_troop_types() = points.camp_sack_troop_types();
  }

  void BuildOrderOfBattle() {
    v1::OrderOfBattle* oob = declared_.mutable_order_of_battle();
    const int first_kind = Uniform(0, static_cast<int>(std::size(kKinds)) - 1);
    for (int c = 0; c < kClans; ++c) {
      for (int n = 1; n <= units_per_clan_; ++n) {
        const Kind& kind = kKinds[static_cast<std::size_t>(first_kind + n - 1) %
                                  std::size(kKinds)];
        v1::Unit* u = oob->add_units();
        u->set_id(absl::StrCat(kUnitPrefix[c], "-", n));
        u->set_clan(kClanIds[c]);
        u->set_name(absl::StrCat(kClanNames[c], " ", kind.name, " ", n));
        u->set_troop_type(kind.type);
        u->set_mobility(kind.mobility);
        u->set_quality(kQualities[Uniform(0, 3)]);
        u->set_stands(static_cast<std::uint32_t>(Uniform(2, 6)));
      }
      // The daimyo with the first unit; a general with the third.
      v1::Leader* daimyo = oob->add_leaders();
      daimyo->set_id(absl::StrCat(kUnitPrefix[c], "-daimyo"));
      daimyo->set_clan(kClanIds[c]);
      daimyo->set_name(absl::StrCat(kClanNames[c], " daimyo"));
      daimyo->set_kind(v1::LEADER_KIND_DAIMYO);
      daimyo->set_command_rating(static_cast<std::uint32_t>(Uniform(2, 4)));
      daimyo->set_attached_unit(absl::StrCat(kUnitPrefix[c], "-1"));
      if (units_per_clan_ >= 3) {
        v1::Leader* general = oob->add_leaders();
        general->set_id(absl::StrCat(kUnitPrefix[c], "-general"));
        general->set_clan(kClanIds[c]);
        general->set_name(absl::StrCat(kClanNames[c], " general"));
        general->set_kind(v1::LEADER_KIND_GENERAL);
        general->set_command_rating(static_cast<std::uint32_t>(Uniform(1, 3)));
        general->set_attached_unit(absl::StrCat(kUnitPrefix[c], "-3"));
      }
    }
  }

  // Writes `event` (its claims placeholders where the engine works them
  // out) and applies it; the engine writes the branch copy with the
  // computed claims.
  void Emit(v1::Event event) {
    event.set_seq(++seq_);
    event.set_turn(turn_);
    replay_->Apply(event);
    *declared_.add_events() = std::move(event);
  }

  // Replays the events so far, then `extra` when not null, in a fresh
  // replay, and returns its report (outcomes recorded, finished when
  // `finish`).
  v1::AuditReport DryRun(const v1::Event* extra, bool finish) {
    v1::AuditReport report;
    replay::AuditOptions follow;
    follow.follow_computed_from_seq = 1;
    follow.record_outcomes = true;
    auto replay = replay::Replay::Start(declared_, ruleset_, follow, &report);
    if (!replay.ok()) return report;
    for (const v1::Event& e : declared_.events()) (*replay)->Apply(e);
    if (extra != nullptr) (*replay)->Apply(*extra);
    if (finish) (*replay)->Finish(seq_);
    return report;
  }

  std::string WinnerSoFar() { return DryRun(nullptr, true).result().winner(); }

  bool MayFight(int unit) const {
    const rules::UnitStatus& s = state().units[static_cast<std::size_t>(unit)];
    return !s.removed && !s.routing && s.stands > 0 &&
           !fought_this_turn_[static_cast<std::size_t>(unit)];
  }

  std::vector<int> Fighters(int clan) const {
    std::vector<int> out;
    for (std::size_t u = 0; u < state().units.size(); ++u) {
      if (state().profiles[u].clan == clan && MayFight(static_cast<int>(u))) {
        out.push_back(static_cast<int>(u));
      }
    }
    return out;
  }

  int Pick(std::vector<int>& from) {
    const int i = Uniform(0, static_cast<int>(from.size()) - 1);
    const int unit = from[static_cast<std::size_t>(i)];
    from.erase(from.begin() + i);
    return unit;
  }

  void PlayTurn() {
    std::fill(fought_this_turn_.begin(), fought_this_turn_.end(), false);
    fought_this_turn_.resize(state().units.size(), false);
    const int first = static_cast<int>((turn_ - 1) % kClans);
    v1::Event start;
    start.mutable_turn_start()->set_initiative_clan(kClanIds[first]);
    Emit(start);
    for (int i = 0; i < kClans; ++i) {
      const int clan = (first + i) % kClans;
      v1::Event activation;
      activation.set_clan(kClanIds[clan]);
      activation.mutable_activation();
      Emit(activation);
      FightMelees(clan);
    }
    v1::Event end;
    end.mutable_turn_end();
    Emit(end);
  }

  // The active clan's melees: up to three, each a single pairing or, now
  // and then, one unit against two enemies.
  void FightMelees(int clan) {
    const int melees = Uniform(0, 3);
    for (int m = 0; m < melees; ++m) {
      std::vector<int> ours = Fighters(clan);
      std::vector<int> theirs = Fighters(1 - clan);
      if (ours.empty() || theirs.empty()) return;
      const int a = Pick(ours);
      const int a_stands = state().units[static_cast<std::size_t>(a)].stands;
      if (theirs.size() >= 2 && a_stands >= 2 && Chance(25)) {
        const int b = Pick(theirs);
        const int c = Pick(theirs);
        FightMelee(clan, {{a, b}, {a, c}});
      } else {
        FightMelee(clan, {{a, Pick(theirs)}});
      }
    }
  }

  // Declares the modifiers of one side from the umpire's table: charging
  // for the active side now and then, disordered when the unit carries
  // disorder, the others rarely.
  void DeclareModifiers(int unit, bool active, v1::MeleeSide& side) {
    const rules::UnitStatus& s = state().units[static_cast<std::size_t>(unit)];
    for (const v1::SkfModifier& m : ruleset_.data.skf().modifiers()) {
      bool named = false;
      if (m.name() == "disordered") {
        named = s.carried_hits > 0;
      } else if (m.name() == "charging") {
        named = active && Chance(40);
      } else {
        named = Chance(8);
      }
      if (named) side.add_modifiers(m.name());
    }
  }

  // One melee of `pairings` (the first unit of each is the active clan's):
  // the rounds, then the checks and leader rolls each unit that fought owes.
  void FightMelee(int clan, const std::vector<std::pair<int, int>>& pairings) {
    const bool multiple = pairings.size() > 1;
    const std::string melee_id =
        multiple ? absl::StrCat("melee-", turn_, "-", seq_ + 1) : "";
    std::vector<int> fought;
    // Bases each unit has left once the melee's losses are taken (the
    // engine removes them when the melee is settled, at the next event).
    std::vector<int> left;
    for (const rules::UnitStatus& u : state().units) left.push_back(u.stands);
    // In a multiple melee the shared unit splits its bases.
    const int shared = pairings[0].first;
    const int shared_stands =
        state().units[static_cast<std::size_t>(shared)].stands;
    const int split = multiple ? Uniform(1, shared_stands - 1) : shared_stands;
    for (std::size_t p = 0; p < pairings.size(); ++p) {
      const auto [a, b] = pairings[p];
      v1::Event event;
      event.set_clan(kClanIds[clan]);
      v1::MeleeRound* round = event.mutable_melee_round();
      if (multiple) round->set_melee_id(melee_id);
      for (int s = 0; s < 2; ++s) {
        const int unit = s == 0 ? a : b;
        const rules::UnitStatus& st =
            state().units[static_cast<std::size_t>(unit)];
        v1::MeleeSide* side = round->add_sides();
        side->set_unit(state().profiles[static_cast<std::size_t>(unit)].id);
        int bases = st.stands;
        if (multiple && s == 0) {
          bases = p == 0 ? split : shared_stands - split;
          side->set_front_stands_in_contact(static_cast<std::uint32_t>(bases));
        }
        side->set_stands_fighting(static_cast<std::uint32_t>(bases));
        side->add_dice(static_cast<std::uint32_t>(Uniform(1, 6)));
        side->set_claimed_hits(0);  // The engine works it out.
        DeclareModifiers(unit, s == 0, *side);
      }
      // Bases removed for the hits taken: most often all of them, now and
      // then fewer (the rest kept as disorder).
      const std::array<int, 2> hits = HitsOf(event);
      for (int s = 0; s < 2; ++s) {
        const int unit = s == 0 ? a : b;
        const int taken = hits[static_cast<std::size_t>(1 - s)];
        if (taken == 0) continue;
        int lost = Chance(70) ? taken : Uniform(0, taken);
        lost = std::min(lost, left[static_cast<std::size_t>(unit)]);
        left[static_cast<std::size_t>(unit)] -= lost;
        round->mutable_sides(s)->set_claimed_stands_lost(
            static_cast<std::uint32_t>(lost));
      }
      Emit(event);
      for (int unit : {a, b}) {
        fought_this_turn_[static_cast<std::size_t>(unit)] = true;
        if (std::find(fought.begin(), fought.end(), unit) == fought.end()) {
          fought.push_back(unit);
        }
      }
    }
    AfterMelee(fought, left);
  }

  // The hits each side of `round` scores, as the engine works them out.
  std::array<int, 2> HitsOf(const v1::Event& round) {
    v1::Event candidate = round;
    candidate.set_seq(seq_ + 1);
    candidate.set_turn(turn_);
    const v1::AuditReport report = DryRun(&candidate, false);
    std::array<int, 2> hits = {0, 0};
    for (const v1::Outcome& o : report.outcomes()) {
      if (o.seq() != seq_ + 1 || o.kind() != "hits") continue;
      for (int s = 0; s < 2; ++s) {
        if (o.subject() == round.melee_round().sides(s).unit()) {
          hits[static_cast<std::size_t>(s)] = std::stoi(o.value());
        }
      }
    }
    return hits;
  }

  // Each unit that fought and is still on the table checks morale once;
  // then each living leader attached to one of them rolls for a hit.
  void AfterMelee(const std::vector<int>& fought,
                  const std::vector<int>& left) {
    for (int unit : fought) {
      if (left[static_cast<std::size_t>(unit)] <= 0) continue;  // Removed.
      v1::Event event;
      event.set_clan(
          kClanIds[state().profiles[static_cast<std::size_t>(unit)].clan]);
      v1::MoraleTest* test = event.mutable_morale_test();
      test->set_unit(state().profiles[static_cast<std::size_t>(unit)].id);
      const int dice =
          std::max(1, static_cast<int>(ruleset_.data.skf().morale().dice()));
      for (int d = 0; d < dice; ++d) {
        test->add_dice(static_cast<std::uint32_t>(Uniform(1, 6)));
      }
      // Placeholders: the engine writes the result and total it computes.
      test->set_claimed_result(v1::MORALE_RESULT_NO_EFFECT);
      if (ruleset_.data.skf().has_morale()) test->set_claimed_total(0);
      Emit(event);
    }
    for (const rules::LeaderState& leader : state().leaders) {
      if (leader.killed || leader.attached_unit < 0 ||
          std::find(fought.begin(), fought.end(), leader.attached_unit) ==
              fought.end()) {
        continue;
      }
      v1::Event event;
      event.set_clan(kClanIds[leader.clan]);
      v1::LeaderLossRoll* roll = event.mutable_leader_loss();
      roll->set_leader(leader.id);
      roll->set_die(static_cast<std::uint32_t>(Uniform(1, 6)));
      roll->set_claimed_killed(false);  // The engine works it out.
      Emit(event);
    }
  }

  const GeneratorOptions options_;
  const replay::LoadedRuleset& ruleset_;
  std::mt19937_64 rng_;
  const int turns_;
  const int units_per_clan_;

  v1::BattleLog declared_;  // As declared: claims are placeholders.
  google::protobuf::RepeatedPtrField<v1::Event> branch_;  // With the claims.
  v1::AuditReport report_;
  std::unique_ptr<replay::Replay> replay_;
  std::uint64_t seq_ = 0;
  std::uint32_t turn_ = 0;
  std::vector<bool> fought_this_turn_;
};

}  // namespace

absl::StatusOr<v1::BattleLog> GenerateSkfGame(
    const GeneratorOptions& options, const replay::LoadedRuleset& ruleset) {
  if (ruleset.data.name() != "skf" || !ruleset.data.has_skf()) {
    return absl::InvalidArgumentError(
        "gunbai generate --ruleset skf needs a Samurai Knight Fever ruleset "
        "(name \"skf\" with an skf section)");
  }
  if (options.faults != 0) {
    return absl::InvalidArgumentError(
        "--faults is not available for Samurai Knight Fever games yet");
  }
  if (options.units_per_clan < 2 || options.units_per_clan > 64) {
    return absl::InvalidArgumentError(
        "a Samurai Knight Fever game fields 2 to 64 units a clan (--units)");
  }
  return SkfPlayer(options, ruleset).Play();
}

}  // namespace gunbai::generate
