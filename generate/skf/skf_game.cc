#include "generate/skf/skf_game.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "generate/fault_planner.h"
#include "gunbai/v1/report.pb.h"
#include "replay/audit.h"
#include "rules/battle_state.h"
#include "rules/proto_enums.h"
#include "rules/skf/proto_enums.h"
#include "rules/skf/tables.h"
#include "rules/status_macros.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

constexpr SkfFaultSpec kSkfCatalogue[] = {
    {SkfFaultKind::kMeleeHitsWrong, "skf_melee_hits_wrong", "skf.melee.hit",
     v1::SEVERITY_DISPUTE},
    {SkfFaultKind::kBasesLostOverHits, "skf_bases_lost_over_hits",
     "skf.melee.bases_lost", v1::SEVERITY_VIOLATION},
    {SkfFaultKind::kMeleeDiceCount, "skf_melee_dice_count",
     "skf.melee.dice_count", v1::SEVERITY_VIOLATION},
    {SkfFaultKind::kMoraleMissing, "skf_morale_missing", "skf.morale.missing",
     v1::SEVERITY_VIOLATION},
    {SkfFaultKind::kMoraleResultWrong, "skf_morale_result_wrong",
     "skf.morale.result", v1::SEVERITY_DISPUTE},
    {SkfFaultKind::kMoraleTotalWrong, "skf_morale_total_wrong",
     "skf.morale.total", v1::SEVERITY_DISPUTE},
    {SkfFaultKind::kMoraleDiceCount, "skf_morale_dice_count",
     "skf.morale.dice_count", v1::SEVERITY_VIOLATION},
    {SkfFaultKind::kLeaderHitWrong, "skf_leader_hit_wrong",
     "skf.leader_hit.roll", v1::SEVERITY_DISPUTE},
    {SkfFaultKind::kLeaderHitMissing, "skf_leader_hit_missing",
     "skf.leader_hit.missing", v1::SEVERITY_VIOLATION},
    {SkfFaultKind::kLeaderHitNotOwed, "skf_leader_hit_not_owed",
     "skf.leader_hit.not_owed", v1::SEVERITY_VIOLATION},
    {SkfFaultKind::kWinnerWrong, "skf_winner_wrong", "game.victory.winner",
     v1::SEVERITY_DISPUTE},
    {SkfFaultKind::kPointsMismatch, "skf_points_mismatch",
     "skf.victory.points_mismatch", v1::SEVERITY_VIOLATION},
};

// Keeps the fault plan and the faults' choices apart from the game's own
// generator, so that asking for faults does not change the game before the
// first one is planted.
constexpr std::uint64_t kSkfFaultStream = 0x736b666661756c74ULL;  // "skffault"

// A fault planted at no particular time: the header, game_end.
constexpr int kAnyTime = std::numeric_limits<int>::max();

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
        fault_rng_(options.seed ^ kSkfFaultStream),
        turns_(options.turns > 0 ? options.turns : 8),
        units_per_clan_(options.units_per_clan),
        plan_(fault_rng_, options.faults, SkfFaultKindsFor(ruleset), 1,
              std::max(1, turns_ / 2)) {}

  absl::StatusOr<SkfGeneratedGame> Play() {
    BuildHeader();
    BuildOrderOfBattle();
    GUNBAI_RETURN_IF_ERROR(RestartReplay());
    for (turn_ = 1; turn_ <= static_cast<std::uint32_t>(turns_); ++turn_) {
      PlayTurn();
    }
    --turn_;
    v1::Event end;
    end.mutable_game_end();
    std::string winner = WinnerSoFar();
    if (wrong_winner_owed_) winner = WrongWinner(winner);
    if (!winner.empty()) end.mutable_game_end()->set_claimed_winner(winner);
    Emit(end);
    replay_->Finish(seq_);
    SkfGeneratedGame game;
    *game.log.mutable_header() = declared_.header();
    *game.log.mutable_order_of_battle() = declared_.order_of_battle();
    *game.log.mutable_events() = branch_;
    std::stable_sort(faults_.begin(), faults_.end(),
                     [](const SkfPlantedFault& a, const SkfPlantedFault& b) {
                       return a.seq < b.seq;
                     });
    game.faults = std::move(faults_);
    return game;
  }

 private:
  int Uniform(int lo, int hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<int>(rng_() % span);
  }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  // The faults' own draws.
  int FaultUniform(int lo, int hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<int>(fault_rng_() % span);
  }

  const rules::BattleState& state() const { return replay_->state(); }
  const std::string& UnitId(int unit) const {
    return state().profiles[static_cast<std::size_t>(unit)].id;
  }

  // How the generator replays: every event with the computed outcomes,
  // except the planted wrong claims, kept as claimed (as the audit plays
  // them).
  replay::AuditOptions FollowOptions() const {
    replay::AuditOptions follow;
    follow.follow_computed_from_seq = 1;
    follow.keep_claims_at = keep_claims_at_;
    return follow;
  }

  // Starts the replay afresh on the events declared so far (after a planted
  // claim joins keep_claims_at_); its branch is the log.
  absl::Status RestartReplay() {
    replay::AuditOptions follow = FollowOptions();
    branch_.Clear();
    report_.Clear();
    follow.branch_events = &branch_;
    GUNBAI_ASSIGN_OR_RETURN(
        auto replay,
        replay::Replay::Start(declared_, ruleset_, follow, &report_));
    replay_ = std::move(replay);
    for (const v1::Event& e : declared_.events()) replay_->Apply(e);
    return absl::OkStatus();
  }

  void BuildHeader() {
    v1::Header* h = declared_.mutable_header();
    // A game with planted faults is another game than the clean one.
    h->set_game_id(options_.faults > 0
                       ? absl::StrCat("generated-skf-", options_.seed,
                                      "-faults-", options_.faults)
                       : absl::StrCat("generated-skf-", options_.seed));
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
    PlantPointsMismatches(*victory);
  }

  // Each points fault gives one more point than the ruleset to the next
  // troop type the header lists, then to the camp; the ruleset's points are
  // scored, so the game is the same.
  void PlantPointsMismatches(v1::VictoryConditions& victory) {
    int next = 0;
    const int listed = victory.unit_points_size();
    const bool camp = victory.camp_sack_points() > 0;
    while (next < listed + (camp ? 1 : 0) &&
           plan_.Take(SkfFaultKind::kPointsMismatch, kAnyTime)) {
      SkfPlantedFault f = Fault(SkfFaultKind::kPointsMismatch, 0);
      if (next < listed) {
        v1::UnitPoints& entry = *victory.mutable_unit_points(next);
        const auto type = rules::TroopTypeFromProto(entry.troop_type());
        f.subject = type.has_value() ? std::string(rules::skf::TroopName(*type))
                                     : v1::TroopType_Name(entry.troop_type());
        f.description = absl::StrFormat(
            "header.scenario.victory.unit_points[%d] gives %s %d points; the "
            "ruleset gives %d",
            next, f.subject, entry.points() + 1, entry.points());
        entry.set_points(entry.points() + 1);
      } else {
        f.subject = "camp";
        f.description = absl::StrFormat(
            "header.scenario.victory.camp_sack_points is %d; the ruleset "
            "gives %d",
            victory.camp_sack_points() + 1, victory.camp_sack_points());
        victory.set_camp_sack_points(victory.camp_sack_points() + 1);
      }
      faults_.push_back(std::move(f));
      ++next;
    }
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

  SkfPlantedFault Fault(SkfFaultKind kind, std::uint64_t seq) const {
    return NewFault(SkfFaultCatalogue(), kind, seq);
  }

  // Writes `event` (its claims placeholders where the engine works them
  // out) and applies it; the engine writes the branch copy with the
  // computed claims. The findings of skipped checks and rolls fall on the
  // events that close their windows.
  void Emit(v1::Event event) {
    event.set_seq(++seq_);
    event.set_turn(turn_);
    DateAwaitedFindings(event);
    replay_->Apply(event);
    *declared_.add_events() = std::move(event);
  }

  // Gives the faults awaiting a later event the seq of `event` when it is
  // that event: one that closes the morale window (as the engine closes
  // it: a new melee, an activation, the turn's start or end, game_end), or
  // the turn_end.
  void DateAwaitedFindings(const v1::Event& event) {
    if (event.has_melee_round() || event.has_activation() ||
        event.has_turn_start() || event.has_turn_end() ||
        event.has_game_end()) {
      for (std::size_t i : awaiting_morale_close_) faults_[i].seq = seq_;
      awaiting_morale_close_.clear();
    }
    if (event.has_turn_end()) {
      for (std::size_t i : awaiting_turn_end_) faults_[i].seq = seq_;
      awaiting_turn_end_.clear();
    }
  }

  // Writes `event` with its claims kept as it states them (a planted wrong
  // claim): the replay starts afresh with its seq among the kept claims, so
  // the game goes on from the claimed outcome, as the audit plays it.
  // Returns the event's seq.
  std::uint64_t EmitKept(v1::Event event) {
    event.set_seq(++seq_);
    event.set_turn(turn_);
    keep_claims_at_.push_back(seq_);  // Seqs increase: stays sorted.
    DateAwaitedFindings(event);
    *declared_.add_events() = std::move(event);
    if (absl::Status s = RestartReplay(); !s.ok()) {
      // The same header and order of battle started the first replay.
      std::fprintf(stderr, "skf_game: %s\n", s.ToString().c_str());
      std::abort();
    }
    return seq_;
  }

  // Replays the events so far, then `extra` when not null, in a fresh
  // replay, and returns its report (outcomes recorded, finished when
  // `finish`); the branch copy of `extra` goes to `branch` when not null.
  v1::AuditReport DryRun(const v1::Event* extra, bool finish,
                         v1::Event* branch = nullptr) {
    v1::AuditReport report;
    google::protobuf::RepeatedPtrField<v1::Event> branch_events;
    replay::AuditOptions follow = FollowOptions();
    follow.record_outcomes = true;
    if (branch != nullptr) follow.branch_events = &branch_events;
    auto replay = replay::Replay::Start(declared_, ruleset_, follow, &report);
    if (!replay.ok()) return report;
    for (const v1::Event& e : declared_.events()) (*replay)->Apply(e);
    if (extra != nullptr) (*replay)->Apply(*extra);
    if (finish) (*replay)->Finish(seq_);
    if (branch != nullptr && !branch_events.empty()) {
      *branch = branch_events[branch_events.size() - 1];
    }
    return report;
  }

  // Returns `event` as the next event, with the claims the engine computes
  // for it (its branch copy), and the dry run's report in `report`.
  v1::Event WithComputedClaims(v1::Event event, v1::AuditReport& report) {
    event.set_seq(seq_ + 1);
    event.set_turn(turn_);
    v1::Event computed = event;
    report = DryRun(&event, false, &computed);
    return computed;
  }

  // The outcome of `kind` for `subject` at the next event, or "".
  std::string NextOutcome(const v1::AuditReport& report,
                          absl::string_view subject,
                          absl::string_view kind) const {
    for (const v1::Outcome& o : report.outcomes()) {
      if (o.seq() == seq_ + 1 && o.kind() == kind && o.subject() == subject) {
        return o.value();
      }
    }
    return "";
  }

  std::string WinnerSoFar() { return DryRun(nullptr, true).result().winner(); }

  // A winner other than `winner`: the other clan, or either when no clan
  // has won.
  std::string WrongWinner(const std::string& winner) {
    const std::string claimed = winner == kClanIds[0] ? kClanIds[1]
                                : winner == kClanIds[1]
                                    ? kClanIds[0]
                                    : kClanIds[FaultUniform(0, kClans - 1)];
    SkfPlantedFault f = Fault(SkfFaultKind::kWinnerWrong, seq_ + 1);
    f.subject = claimed;
    f.description = winner.empty() ? absl::StrCat("game_end claims ", claimed,
                                                  " won; no clan has")
                                   : absl::StrCat("game_end claims ", claimed,
                                                  " won; ", winner, " did");
    faults_.push_back(std::move(f));
    return claimed;
  }

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
    PlantNotOwedRolls();
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

  // At the start of a turn no leader owes a roll. The not-owed faults due
  // now are planted here; when the last turn starts, so is every fault
  // still to plant (but one wrong winner, for game_end), each as such a
  // roll in place of its kind.
  void PlantNotOwedRolls() {
    const int now = static_cast<int>(turn_);
    while (plan_.Take(SkfFaultKind::kLeaderHitNotOwed, now)) {
      PlantNotOwedRoll("");
    }
    if (now != turns_) return;
    bool winner_kept = false;
    for (SkfFaultKind kind : plan_.TakeAll()) {
      if (kind == SkfFaultKind::kWinnerWrong && !winner_kept) {
        winner_kept = true;  // Due at game_end.
        continue;
      }
      PlantNotOwedRoll(kind == SkfFaultKind::kLeaderHitNotOwed
                           ? ""
                           : std::string(SkfFaultSpecOf(kind).name));
    }
    wrong_winner_owed_ = winner_kept;
  }

  void PlantNotOwedRoll(const std::string& in_place_of) {
    const std::vector<rules::LeaderState>& leaders = state().leaders;
    const rules::LeaderState& leader = leaders[static_cast<std::size_t>(
        FaultUniform(0, static_cast<int>(leaders.size()) - 1))];
    v1::Event event;
    event.set_clan(kClanIds[leader.clan]);
    v1::LeaderLossRoll* roll = event.mutable_leader_loss();
    roll->set_leader(leader.id);
    roll->set_die(static_cast<std::uint32_t>(FaultUniform(1, 6)));
    roll->set_claimed_killed(false);
    SkfPlantedFault f = Fault(SkfFaultKind::kLeaderHitNotOwed, seq_ + 1);
    f.subject = leader.id;
    f.description =
        absl::StrCat(leader.id, " rolls for a leader hit at the start of turn ",
                     turn_, ", when no roll is owed");
    if (!in_place_of.empty()) {
      f.in_place_of = in_place_of;
      absl::StrAppend(&f.description, ", in place of a ", in_place_of,
                      " that found no chance");
    }
    faults_.push_back(std::move(f));
    Emit(event);
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
        side->set_unit(UnitId(unit));
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
      const SideHits hits = HitsOf(event);
      for (int s = 0; s < 2; ++s) {
        const int unit = s == 0 ? a : b;
        const int taken = hits.hits[static_cast<std::size_t>(1 - s)];
        if (taken == 0) continue;
        int lost = Chance(70) ? taken : Uniform(0, taken);
        lost = std::min(lost, left[static_cast<std::size_t>(unit)]);
        left[static_cast<std::size_t>(unit)] -= lost;
        round->mutable_sides(s)->set_claimed_stands_lost(
            static_cast<std::uint32_t>(lost));
      }
      if (!PlantMeleeFault(event, hits, {a, b}, left)) Emit(event);
      for (int unit : {a, b}) {
        fought_this_turn_[static_cast<std::size_t>(unit)] = true;
        if (std::find(fought.begin(), fought.end(), unit) == fought.end()) {
          fought.push_back(unit);
        }
      }
    }
    AfterMelee(fought, left);
  }

  struct SideHits {
    std::array<int, 2> hits = {0, 0};
    // Whether the engine works the side's hits out.
    std::array<bool, 2> known = {false, false};
  };

  // The hits each side of `round` scores, as the engine works them out.
  SideHits HitsOf(const v1::Event& round) {
    v1::Event candidate = round;
    candidate.set_seq(seq_ + 1);
    candidate.set_turn(turn_);
    const v1::AuditReport report = DryRun(&candidate, false);
    SideHits out;
    for (int s = 0; s < 2; ++s) {
      const std::string hits =
          NextOutcome(report, round.melee_round().sides(s).unit(), "hits");
      if (hits.empty()) continue;
      out.hits[static_cast<std::size_t>(s)] = std::stoi(hits);
      out.known[static_cast<std::size_t>(s)] = true;
    }
    return out;
  }

  // Plants a due melee fault in `event`, a pairing of `units`, and writes
  // it; returns false (writing nothing) when none is due or none fits.
  // `left` follows the bases the log claims lost.
  bool PlantMeleeFault(const v1::Event& event, const SideHits& hits,
                       std::array<int, 2> units, std::vector<int>& left) {
    const int now = static_cast<int>(turn_);
    const int s = FaultsDue() ? FaultUniform(0, 1) : 0;
    SkfFaultKind kind;
    if (plan_.Due(SkfFaultKind::kMeleeHitsWrong, now) &&
        hits.known[static_cast<std::size_t>(s)]) {
      kind = SkfFaultKind::kMeleeHitsWrong;
    } else if (plan_.Due(SkfFaultKind::kBasesLostOverHits, now)) {
      kind = SkfFaultKind::kBasesLostOverHits;
    } else if (plan_.Due(SkfFaultKind::kMeleeDiceCount, now)) {
      kind = SkfFaultKind::kMeleeDiceCount;
    } else {
      return false;
    }
    plan_.Take(kind, now);
    v1::AuditReport report;
    v1::Event planted = WithComputedClaims(event, report);
    v1::MeleeSide& side = *planted.mutable_melee_round()->mutable_sides(s);
    const v1::MeleeSide& enemy = planted.melee_round().sides(1 - s);
    SkfPlantedFault f = Fault(kind, seq_ + 1);
    f.subject = side.unit();
    if (kind == SkfFaultKind::kMeleeHitsWrong) {
      // One hit fewer only when the enemy claims no more bases lost than
      // that leaves it (else the enemy's claim would be a second finding).
      const int computed = static_cast<int>(side.claimed_hits());
      const bool fewer =
          computed > 0 &&
          static_cast<int>(enemy.claimed_stands_lost()) < computed &&
          FaultUniform(0, 1) == 0;
      const int claimed = fewer ? computed - 1 : computed + 1;
      side.set_claimed_hits(static_cast<std::uint32_t>(claimed));
      f.description = absl::StrFormat(
          "%s claims %d hit%s in melee with %s; its die gives %d", side.unit(),
          claimed, claimed == 1 ? "" : "s", enemy.unit(), computed);
    } else if (kind == SkfFaultKind::kBasesLostOverHits) {
      const int taken = static_cast<int>(enemy.claimed_hits());
      const int before = static_cast<int>(side.claimed_stands_lost());
      side.set_claimed_stands_lost(static_cast<std::uint32_t>(taken + 1));
      int& bases = left[static_cast<std::size_t>(units[s])];
      bases = std::max(0, bases - (taken + 1 - before));
      f.description =
          absl::StrFormat("%s claims %d base%s lost to the %d hit%s %s scores",
                          side.unit(), taken + 1, taken + 1 == 1 ? "" : "s",
                          taken, taken == 1 ? "" : "s", enemy.unit());
    } else {
      // Its hits are then not checked: they stand as computed for its
      // first die.
      const bool none = FaultUniform(0, 1) == 0;
      if (none) {
        side.clear_dice();
      } else {
        side.add_dice(static_cast<std::uint32_t>(FaultUniform(1, 6)));
      }
      f.description = absl::StrCat(side.unit(), " rolls ", none ? "no" : "two",
                                   " dice in melee with ", enemy.unit());
    }
    faults_.push_back(std::move(f));
    EmitKept(std::move(planted));
    return true;
  }

  bool FaultsDue() const { return options_.faults > 0; }

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
      test->set_unit(UnitId(unit));
      const int dice =
          std::max(1, static_cast<int>(ruleset_.data.skf().morale().dice()));
      for (int d = 0; d < dice; ++d) {
        test->add_dice(static_cast<std::uint32_t>(Uniform(1, 6)));
      }
      // Placeholders: the engine writes the result and total it computes.
      test->set_claimed_result(v1::MORALE_RESULT_NO_EFFECT);
      if (ruleset_.data.skf().has_morale()) test->set_claimed_total(0);
      if (!PlantMoraleFault(event)) Emit(event);
    }
    // By index, with a copy: planting a fault starts the replay afresh.
    for (std::size_t i = 0; i < state().leaders.size(); ++i) {
      const rules::LeaderState leader = state().leaders[i];
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
      if (!PlantLeaderFault(event)) Emit(event);
    }
  }

  // Plants a due morale fault in the check `event` (skipped, or written
  // with a wrong claim or dice); returns false when none is due or fits.
  bool PlantMoraleFault(const v1::Event& event) {
    const int now = static_cast<int>(turn_);
    const std::string& unit = event.morale_test().unit();
    if (plan_.Take(SkfFaultKind::kMoraleMissing, now)) {
      // The finding falls on the event that closes the window.
      SkfPlantedFault f = Fault(SkfFaultKind::kMoraleMissing, 0);
      f.subject = unit;
      f.description =
          absl::StrCat(unit, " fought a melee and does not check morale");
      awaiting_morale_close_.push_back(faults_.size());
      faults_.push_back(std::move(f));
      return true;
    }
    const bool result_due = plan_.Due(SkfFaultKind::kMoraleResultWrong, now) ||
                            plan_.Due(SkfFaultKind::kMoraleTotalWrong, now) ||
                            plan_.Due(SkfFaultKind::kMoraleDiceCount, now);
    if (!result_due) return false;
    v1::AuditReport report;
    v1::Event planted = WithComputedClaims(event, report);
    // Only a check the engine works out (its unit has a pass score).
    const std::string computed = NextOutcome(report, unit, "morale_result");
    if (computed.empty()) return false;
    v1::MoraleTest& test = *planted.mutable_morale_test();
    SkfPlantedFault f = Fault(SkfFaultKind::kMoraleResultWrong, seq_ + 1);
    f.subject = unit;
    if (plan_.Take(SkfFaultKind::kMoraleResultWrong, now)) {
      // Another result the check can give, and the game goes on from it.
      std::vector<v1::MoraleResult> others;
      for (v1::MoraleResult r :
           {v1::MORALE_RESULT_NO_EFFECT, v1::MORALE_RESULT_RETREAT,
            v1::MORALE_RESULT_ROUT}) {
        if (r != test.claimed_result()) others.push_back(r);
      }
      const v1::MoraleResult claimed = others[static_cast<std::size_t>(
          FaultUniform(0, static_cast<int>(others.size()) - 1))];
      f.description =
          absl::StrCat(unit, " claims ", v1::MoraleResult_Name(claimed),
                       " for its morale check; the dice give ",
                       v1::MoraleResult_Name(test.claimed_result()));
      test.set_claimed_result(claimed);
    } else if (plan_.Take(SkfFaultKind::kMoraleTotalWrong, now)) {
      f = Fault(SkfFaultKind::kMoraleTotalWrong, seq_ + 1);
      f.subject = unit;
      f.description = absl::StrFormat(
          "%s claims a morale total of %d; the dice and modifiers give %d",
          unit, test.claimed_total() + 1, test.claimed_total());
      test.set_claimed_total(test.claimed_total() + 1);
    } else {
      plan_.Take(SkfFaultKind::kMoraleDiceCount, now);
      f = Fault(SkfFaultKind::kMoraleDiceCount, seq_ + 1);
      f.subject = unit;
      // Its result then stands as computed for the dice it was owed.
      const bool fewer = test.dice_size() > 1 && FaultUniform(0, 1) == 0;
      if (fewer) {
        test.mutable_dice()->RemoveLast();
      } else {
        test.add_dice(static_cast<std::uint32_t>(FaultUniform(1, 6)));
      }
      f.description = absl::StrFormat(
          "%s checks morale with %d di%s; the check rolls %d", unit,
          test.dice_size(), test.dice_size() == 1 ? "e" : "ce",
          ruleset_.data.skf().morale().dice());
    }
    faults_.push_back(std::move(f));
    EmitKept(std::move(planted));
    return true;
  }

  // Plants a due leader-hit fault in the roll `event` (skipped, or claiming
  // the other fate); returns false when none is due or fits.
  bool PlantLeaderFault(const v1::Event& event) {
    const int now = static_cast<int>(turn_);
    const std::string& leader = event.leader_loss().leader();
    if (plan_.Take(SkfFaultKind::kLeaderHitMissing, now)) {
      // A unit fights once a turn, so its leaders owe one roll a turn; the
      // finding falls on the turn_end.
      SkfPlantedFault f = Fault(SkfFaultKind::kLeaderHitMissing, 0);
      f.subject = leader;
      f.description =
          absl::StrCat(leader, " does not roll the leader hit owed after ",
                       "the melee of his unit");
      awaiting_turn_end_.push_back(faults_.size());
      faults_.push_back(std::move(f));
      return true;
    }
    if (!plan_.Due(SkfFaultKind::kLeaderHitWrong, now)) return false;
    v1::AuditReport report;
    v1::Event planted = WithComputedClaims(event, report);
    if (NextOutcome(report, leader, "killed").empty()) return false;
    plan_.Take(SkfFaultKind::kLeaderHitWrong, now);
    v1::LeaderLossRoll& roll = *planted.mutable_leader_loss();
    roll.set_claimed_killed(!roll.claimed_killed());
    SkfPlantedFault f = Fault(SkfFaultKind::kLeaderHitWrong, seq_ + 1);
    f.subject = leader;
    f.description = absl::StrFormat(
        "%s rolls %d for a leader hit and claims he %s", leader, roll.die(),
        roll.claimed_killed() ? "is killed" : "survives");
    faults_.push_back(std::move(f));
    EmitKept(std::move(planted));
    return true;
  }

  const GeneratorOptions options_;
  const replay::LoadedRuleset& ruleset_;
  std::mt19937_64 rng_;
  std::mt19937_64 fault_rng_;
  const int turns_;
  const int units_per_clan_;
  internal::FaultPlanner<SkfFaultKind> plan_;

  v1::BattleLog declared_;  // As declared: claims are placeholders.
  google::protobuf::RepeatedPtrField<v1::Event> branch_;  // With the claims.
  v1::AuditReport report_;
  std::unique_ptr<replay::Replay> replay_;
  std::uint64_t seq_ = 0;
  std::uint32_t turn_ = 0;
  std::vector<bool> fought_this_turn_;
  // The seqs of the planted wrong claims, kept as claimed; ascending.
  std::vector<std::uint64_t> keep_claims_at_;
  std::vector<SkfPlantedFault> faults_;
  // Faults whose finding falls on a later event: a skipped morale check (the
  // event that closes the window) and a skipped leader roll (the turn_end).
  std::vector<std::size_t> awaiting_morale_close_;
  std::vector<std::size_t> awaiting_turn_end_;
  // A wrong winner still to claim at game_end.
  bool wrong_winner_owed_ = false;
};

}  // namespace

absl::Span<const SkfFaultSpec> SkfFaultCatalogue() { return kSkfCatalogue; }

const SkfFaultSpec& SkfFaultSpecOf(SkfFaultKind kind) {
  return CatalogueEntry(SkfFaultCatalogue(), kind);
}

std::vector<SkfFaultKind> SkfFaultKindsFor(
    const replay::LoadedRuleset& ruleset) {
  const v1::SkfRules& skf = ruleset.data.skf();
  const bool points =
      skf.has_victory() && (skf.victory().unit_points_size() > 0 ||
                            skf.victory().camp_sack_points() > 0);
  std::vector<SkfFaultKind> kinds;
  for (const SkfFaultSpec& spec : kSkfCatalogue) {
    switch (spec.kind) {
      case SkfFaultKind::kMoraleResultWrong:
      case SkfFaultKind::kMoraleTotalWrong:
      case SkfFaultKind::kMoraleDiceCount:
        if (!skf.has_morale()) continue;
        break;
      case SkfFaultKind::kLeaderHitWrong:
        if (skf.leader_hits().killed_at_or_below() == 0) continue;
        break;
      case SkfFaultKind::kPointsMismatch:
        if (!points) continue;
        break;
      default:
        break;
    }
    kinds.push_back(spec.kind);
  }
  return kinds;
}

absl::StatusOr<SkfGeneratedGame> GenerateSkfGameWithFaults(
    const GeneratorOptions& options, const replay::LoadedRuleset& ruleset) {
  if (ruleset.data.name() != "skf" || !ruleset.data.has_skf()) {
    return absl::InvalidArgumentError(
        "gunbai generate --ruleset skf needs a Samurai Knight Fever ruleset "
        "(name \"skf\" with an skf section)");
  }
  if (options.faults < 0 || options.faults > 1000) {
    return absl::InvalidArgumentError(
        "a Samurai Knight Fever game takes 0 to 1000 faults (--faults)");
  }
  if (options.units_per_clan < 2 || options.units_per_clan > 64) {
    return absl::InvalidArgumentError(
        "a Samurai Knight Fever game fields 2 to 64 units a clan (--units)");
  }
  return SkfPlayer(options, ruleset).Play();
}

absl::StatusOr<v1::BattleLog> GenerateSkfGame(
    const GeneratorOptions& options, const replay::LoadedRuleset& ruleset) {
  GUNBAI_ASSIGN_OR_RETURN(auto game,
                          GenerateSkfGameWithFaults(options, ruleset));
  return std::move(game.log);
}

std::string SkfManifestJsonLines(const std::vector<SkfPlantedFault>& faults) {
  return ManifestJsonLines(SkfFaultCatalogue(), faults);
}

}  // namespace gunbai::generate
