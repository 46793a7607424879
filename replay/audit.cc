#include "replay/audit.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "replay/proto_mapping.h"
#include "replay/text_errors.h"
#include "rules/engine.h"
#include "rules/excerpt.h"
#include "rules/proto_enums.h"
#include "rules/status_macros.h"
#include "rules/victory.h"

namespace gunbai::replay {

namespace v1 = ::gunbai::v1;

namespace {

void Summarize(v1::AuditReport& report) {
  v1::AuditSummary* summary = report.mutable_summary();
  for (const v1::Finding& f : report.findings()) {
    switch (f.severity()) {
      case v1::SEVERITY_VIOLATION:
        summary->set_violations(summary->violations() + 1);
        break;
      case v1::SEVERITY_DISPUTE:
        summary->set_disputes(summary->disputes() + 1);
        break;
      case v1::SEVERITY_WARNING:
        summary->set_warnings(summary->warnings() + 1);
        break;
      case v1::SEVERITY_UNVERIFIABLE:
        summary->set_unverifiable(summary->unverifiable() + 1);
        break;
      default:
        break;
    }
  }
}

// Refuses a log for another ruleset; warns when the version differs.
absl::Status CheckRulesetRef(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  const auto& ref = log.header().ruleset();
  const std::string& name = ruleset.data.name();
  if (!ref.name().empty() && ref.name() != name) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "header.ruleset.name: the log is for the ruleset \"%s\", but it is "
        "being audited under \"%s\"; audit it under a \"%s\" ruleset (the "
        "built-in one is chosen by the header; or give a file with gunbai "
        "--ruleset, gunbaid --ruleset or the request's ruleset_textproto).",
        Excerpt(ref.name()), name, Excerpt(ref.name())));
  }
  if (!ref.version().empty() && ref.version() != ruleset.data.version()) {
    v1::Finding* f = findings->Add();
    f->set_severity(v1::SEVERITY_WARNING);
    f->set_rule_id("log.ruleset.version");
    f->set_message(absl::StrFormat(
        "The log names %s version %s; it is audited under version %s.",
        ref.name().empty() ? name : ref.name(), ref.version(),
        ruleset.data.version()));
  }
  return absl::OkStatus();
}

absl::StatusOr<rules::VictorySettings> VictoryFromProto(
    const v1::VictoryConditions& v) {
  rules::VictorySettings out;
  out.points_to_win =
      static_cast<int>(std::min<uint32_t>(v.points_to_win(), 1000000));
  out.camp_sack_points =
      static_cast<int>(std::min<uint32_t>(v.camp_sack_points(), 1000000));
  for (int i = 0; i < v.unit_points_size(); ++i) {
    auto type = rules::TroopTypeFromProto(v.unit_points(i).troop_type());
    if (!type.has_value()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "header.scenario.victory.unit_points[%d]: the troop type is not "
          "set.",
          i));
    }
    out.unit_points[static_cast<int>(*type)] =
        static_cast<int>(std::min<uint32_t>(v.unit_points(i).points(), 1000));
  }
  for (int i = 0; i < v.camp_sack_troop_types_size(); ++i) {
    auto type = rules::TroopTypeFromProto(
        static_cast<v1::TroopType>(v.camp_sack_troop_types(i)));
    if (!type.has_value()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "header.scenario.victory.camp_sack_troop_types[%d]: the troop type "
          "is not set.",
          i));
    }
    out.camp_sack_types[static_cast<int>(*type)] = true;
  }
  return out;
}

// The victory by points `log` is scored with: the ruleset's when its
// plug-in fixes the points, else the header's scenario as it stands.
// Returns nullopt when the game has no victory condition by points.
absl::StatusOr<std::optional<rules::VictorySettings>> VictoryOfLog(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  if (ruleset.plugin->victory != nullptr) {
    return ruleset.plugin->victory(log, ruleset.data, findings);
  }
  if (log.header().scenario().victory().points_to_win() == 0) {
    return std::nullopt;
  }
  GUNBAI_ASSIGN_OR_RETURN(auto settings,
                          VictoryFromProto(log.header().scenario().victory()));
  return settings;
}

// Appends a warning of the header (seq 0) to `findings`.
void StartWarning(absl::string_view rule_id, std::string subject,
                  std::string message,
                  google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  v1::Finding* f = findings->Add();
  f->set_severity(v1::SEVERITY_WARNING);
  f->set_rule_id(std::string(rule_id));
  f->set_subject(std::move(subject));
  f->set_message(std::move(message));
}

// Reports what the log's starting position gives but likely should not, as
// warnings of the header: log.start.digest when its digest is not the one
// of the state it gives (a state edited after `gunbai state` printed it, or
// pasted wrongly); log.start.leader_on_removed_unit for a live leader
// attached to a unit off the table, unless the digest checks out (the state
// is one a replay reached: games as played leave a leader so).
void CheckStartingPosition(
    const v1::BattleLog& log, const rules::BattleState& state,
    google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  if (!log.has_starting_position() || findings == nullptr) return;
  const std::string& given = log.starting_position().digest();
  const std::string digest = SnapshotFromState(state).digest();
  // A position written before digest version 2 carries a version 1 digest.
  if (!given.empty() && (digest == given || StateDigestV1(state) == given)) {
    return;
  }
  if (!given.empty()) {
    StartWarning(
        "log.start.digest", "",
        absl::StrFormat(
            "starting_position.digest is %s, but the state the starting "
            "position gives has digest %s: the state was changed after "
            "`gunbai state` printed it, or not pasted whole. Remove the "
            "digest when the change is meant (an umpire's what-if), else "
            "paste the state again.",
            rules::Excerpt(given), digest),
        findings);
  }
  for (const rules::LeaderState& l : state.leaders) {
    if (l.killed || l.attached_unit < 0 ||
        !state.units[l.attached_unit].removed) {
      continue;
    }
    StartWarning(
        "log.start.leader_on_removed_unit", l.id,
        absl::StrFormat(
            "The starting position attaches %s, alive, to %s, which is off "
            "the table: his loss rolls and his unit's tests would count a "
            "unit that is gone. Detach him (attached_unit empty) or mark him "
            "killed.",
            rules::Excerpt(l.id), rules::UnitLabel(state, l.attached_unit)),
        findings);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<rules::Engine>> CreateEngine(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    const AuditOptions& options, rules::EngineOutput output) {
  GUNBAI_RETURN_IF_ERROR(CheckRulesetRef(log, ruleset, output.findings));
  rules::EngineOptions engine_options;
  engine_options.follow_computed_at_seq = options.follow_computed_at_seq;
  engine_options.follow_computed_from_seq = options.follow_computed_from_seq;
  engine_options.keep_claims_at = options.keep_claims_at;
  output.branch_events = options.branch_events;
  GUNBAI_ASSIGN_OR_RETURN(
      std::unique_ptr<rules::Engine> engine,
      ruleset.plugin->create(log, ruleset.data, engine_options, output));
  CheckStartingPosition(log, engine->state(), output.findings);
  return engine;
}

struct Replay::Impl {
  v1::AuditReport* report = nullptr;
  std::unique_ptr<rules::Engine> engine;
  std::unique_ptr<rules::VictoryTracker> victory;

  int ClanIndex(absl::string_view id) const {
    const auto& clans = engine->state().clans;
    for (std::size_t i = 0; i < clans.size(); ++i) {
      if (clans[i] == id) return static_cast<int>(i);
    }
    return -1;
  }
  int UnitIndex(absl::string_view id) const {
    const auto& profiles = engine->state().profiles;
    for (std::size_t i = 0; i < profiles.size(); ++i) {
      if (profiles[i].id == id) return static_cast<int>(i);
    }
    return -1;
  }
  void AddFinding(const v1::Event& event, v1::Severity severity,
                  absl::string_view rule_id, absl::string_view subject,
                  std::string message, std::string claimed = "",
                  std::string computed = "") {
    v1::Finding* f = report->add_findings();
    f->set_seq(event.seq());
    f->set_turn(event.turn());
    f->set_severity(severity);
    f->set_rule_id(std::string(rule_id));
    f->set_subject(std::string(subject));
    f->set_message(std::move(message));
    f->set_claimed(std::move(claimed));
    f->set_computed(std::move(computed));
  }
  // Victory bookkeeping after the engine has applied `event`.
  void AfterEvent(const v1::Event& event);
};

void Replay::Impl::AfterEvent(const v1::Event& event) {
  if (victory == nullptr) return;
  const rules::BattleState& state = engine->state();
  if (event.has_move() && !event.move().touches_enemy_camp().empty()) {
    const int unit = UnitIndex(event.move().unit());
    const int camp = ClanIndex(event.move().touches_enemy_camp());
    if (unit < 0 || camp < 0) {
      AddFinding(event, v1::SEVERITY_VIOLATION, "game.victory.camp",
                 event.move().unit(),
                 absl::StrFormat("The move touches the camp of \"%s\", but "
                                 "that clan (or the unit) is not in the "
                                 "log; no points are scored.",
                                 event.move().touches_enemy_camp()));
    } else if (!victory->CampTouched(state, unit, camp)) {
      AddFinding(
          event, v1::SEVERITY_WARNING, "game.victory.camp", event.move().unit(),
          absl::StrFormat("%s touches the camp of %s, but the "
                          "scenario gives camp points only to enemy "
                          "units of the listed troop types; no points "
                          "are scored.",
                          rules::UnitLabel(state, unit), state.clans[camp]));
    }
  }
  if (event.has_turn_end()) victory->EndOfTurn(state);
  if (event.has_game_end() && !event.game_end().claimed_winner().empty()) {
    const std::string computed =
        victory->winner() < 0 ? "" : state.clans[victory->winner()];
    if (computed != event.game_end().claimed_winner()) {
      std::string points;
      for (std::size_t c = 0; c < state.clans.size(); ++c) {
        absl::StrAppend(&points, c == 0 ? "" : ", ", state.clans[c], " ",
                        victory->points(static_cast<int>(c)));
      }
      AddFinding(
          event, v1::SEVERITY_DISPUTE, "game.victory.winner",
          event.game_end().claimed_winner(),
          computed.empty()
              ? absl::StrFormat(
                    "The log claims %s won, but no clan has won: points at "
                    "the end of the last whole turn are %s, and %d wins "
                    "(clans tied at the top play another turn).",
                    event.game_end().claimed_winner(), points,
                    victory->points_to_win())
              : absl::StrFormat(
                    "The log claims %s won, but %s reached %d points first, "
                    "at the end of turn %d (points now: %s).",
                    event.game_end().claimed_winner(), computed,
                    victory->points_to_win(), victory->decided_turn(), points),
          absl::StrCat(event.game_end().claimed_winner(), " wins"),
          computed.empty() ? "no winner" : absl::StrCat(computed, " wins"));
    }
  }
}

Replay::Replay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Replay::~Replay() = default;

absl::StatusOr<std::unique_ptr<Replay>> Replay::Start(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    const AuditOptions& options, v1::AuditReport* report) {
  auto impl = std::make_unique<Impl>();
  impl->report = report;
  report->set_game_id(log.header().game_id());
  report->mutable_ruleset()->set_name(ruleset.data.name());
  report->mutable_ruleset()->set_version(ruleset.data.version());
  report->mutable_ruleset()->set_digest(ruleset.digest);
  rules::EngineOutput output;
  output.findings = report->mutable_findings();
  if (options.record_outcomes) {
    output.outcomes = report->mutable_outcomes();
    report->set_outcomes_recorded(true);
  }
  GUNBAI_ASSIGN_OR_RETURN(auto engine,
                          CreateEngine(log, ruleset, options, output));
  impl->engine = std::move(engine);
  GUNBAI_ASSIGN_OR_RETURN(auto settings,
                          VictoryOfLog(log, ruleset, output.findings));
  if (settings.has_value()) {
    impl->victory = std::make_unique<rules::VictoryTracker>(
        *settings, impl->engine->state());
    if (log.has_starting_position()) {
      impl->victory->StartFrom(impl->engine->state());
    }
  }
  return std::unique_ptr<Replay>(new Replay(std::move(impl)));
}

absl::StatusOr<Replay::Mark> Replay::MarkHere() const {
  Mark mark;
  GUNBAI_ASSIGN_OR_RETURN(mark.checkpoint, impl_->engine->SaveCheckpoint());
  if (impl_->victory != nullptr) mark.victory = *impl_->victory;
  mark.findings = impl_->report->findings_size();
  return mark;
}

absl::StatusOr<std::unique_ptr<Replay>> Replay::Resume(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    const AuditOptions& options, v1::AuditReport* report, const Mark& mark,
    const v1::AuditReport& from) {
  // The engine takes the checkpoint fresh: made from the game's terms
  // alone, without the starting position (which the checkpoint holds).
  v1::BattleLog terms;
  *terms.mutable_header() = log.header();
  *terms.mutable_order_of_battle() = log.order_of_battle();
  *terms.mutable_terrain() = log.terrain();
  if (log.has_table()) *terms.mutable_table() = log.table();
  GUNBAI_ASSIGN_OR_RETURN(std::unique_ptr<Replay> replay,
                          Start(terms, ruleset, options, report));
  // The findings up to the mark are the marked replay's (the start's
  // included), put back before the engine takes the checkpoint.
  auto* findings = report->mutable_findings();
  findings->Clear();
  for (int i = 0; i < mark.findings && i < from.findings_size(); ++i) {
    *findings->Add() = from.findings(i);
  }
  GUNBAI_RETURN_IF_ERROR(
      replay->impl_->engine->RestoreCheckpoint(mark.checkpoint));
  if (mark.victory.has_value()) {
    replay->impl_->victory =
        std::make_unique<rules::VictoryTracker>(*mark.victory);
  }
  return replay;
}

void Replay::Apply(const v1::Event& event) {
  impl_->engine->Apply(event);
  impl_->AfterEvent(event);
}

const rules::BattleState& Replay::state() const {
  return impl_->engine->state();
}

void Replay::Finish(std::uint64_t events) {
  impl_->engine->Finish();
  v1::AuditReport& report = *impl_->report;
  const rules::BattleState& state = impl_->engine->state();
  report.set_events_replayed(events);
  report.set_turns(static_cast<uint32_t>(state.turn));
  Summarize(report);
  const uint32_t disputes = report.summary().disputes();
  report.set_branch(
      disputes == 0
          ? "as logged: no outcome was disputed"
          : absl::StrFormat("as played: after each of the %d disputed "
                            "outcomes, replay went on with the outcome the "
                            "log claims",
                            disputes));
  report.set_final_state_digest(SnapshotFromState(state).digest());
  report.set_final_state_digest_version(kStateDigestVersion);
  v1::GameResult* result = report.mutable_result();
  for (std::size_t c = 0; c < state.clans.size(); ++c) {
    v1::ClanResult* clan = result->add_clans();
    clan->set_clan(state.clans[c]);
    for (std::size_t u = 0; u < state.units.size(); ++u) {
      if (state.profiles[u].clan != static_cast<int>(c)) continue;
      const rules::UnitStatus& s = state.units[u];
      if (s.removed) continue;
      clan->set_units_left(clan->units_left() + 1);
      clan->set_stands_left(clan->stands_left() +
                            static_cast<uint32_t>(s.stands));
      if (s.routing) clan->set_units_routing(clan->units_routing() + 1);
    }
    if (impl_->victory != nullptr) {
      clan->set_victory_points(
          static_cast<uint32_t>(impl_->victory->points(static_cast<int>(c))));
    }
  }
  if (impl_->victory != nullptr) {
    result->set_scored(true);
    if (impl_->victory->winner() >= 0) {
      result->set_winner(state.clans[impl_->victory->winner()]);
      result->set_decided_turn(
          static_cast<uint32_t>(impl_->victory->decided_turn()));
    }
  }
}

absl::StatusOr<v1::AuditReport> AuditLog(const v1::BattleLog& log,
                                         const LoadedRuleset& ruleset,
                                         const AuditOptions& options) {
  v1::AuditReport report;
  GUNBAI_ASSIGN_OR_RETURN(auto replay,
                          Replay::Start(log, ruleset, options, &report));
  int until_check = kCancelCheckEvents;
  for (const v1::Event& event : log.events()) {
    replay->Apply(event);
    if (--until_check == 0) {
      until_check = kCancelCheckEvents;
      if (options.cancelled && options.cancelled()) return CancelledAudit();
    }
  }
  replay->Finish(static_cast<uint64_t>(log.events_size()));
  return report;
}

absl::Status CancelledAudit() {
  return absl::CancelledError(
      "the audit was stopped: the caller no longer waits for it (the call "
      "was cancelled or its deadline passed)");
}

absl::StatusOr<v1::BattleStateSnapshot> StateAt(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    std::optional<std::uint64_t> seq) {
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  GUNBAI_ASSIGN_OR_RETURN(
      auto engine, CreateEngine(log, ruleset, AuditOptions(),
                                rules::EngineOutput{&findings, nullptr}));
  // A log with a starting position: its state is the one after the seq
  // the position follows.
  if (seq.has_value() && log.has_starting_position() &&
      log.starting_position().after_seq() == *seq) {
    return SnapshotFromState(engine->state());
  }
  for (const v1::Event& event : log.events()) {
    engine->Apply(event);
    if (seq.has_value() && event.seq() == *seq) {
      return SnapshotFromState(engine->state());
    }
  }
  if (seq.has_value()) {
    return absl::NotFoundError(absl::StrFormat(
        "No event has seq %d; `gunbai state LOG` without --at shows the end "
        "of the game.",
        *seq));
  }
  return SnapshotFromState(engine->state());
}

absl::Status ForEachEventState(
    const v1::BattleLog& log, const LoadedRuleset& ruleset,
    absl::FunctionRef<void(const v1::Event&, const rules::BattleState&)>
        visit) {
  google::protobuf::RepeatedPtrField<v1::Finding> findings;
  GUNBAI_ASSIGN_OR_RETURN(
      auto engine, CreateEngine(log, ruleset, AuditOptions(),
                                rules::EngineOutput{&findings, nullptr}));
  for (const v1::Event& event : log.events()) {
    engine->Apply(event);
    visit(event, engine->state());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<EventDigest>> StateDigests(
    const v1::BattleLog& log, const LoadedRuleset& ruleset) {
  std::vector<EventDigest> out;
  out.reserve(log.events_size());
  GUNBAI_RETURN_IF_ERROR(ForEachEventState(
      log, ruleset,
      [&out](const v1::Event& event, const rules::BattleState& s) {
        out.push_back({event.seq(), SnapshotFromState(s).digest()});
      }));
  return out;
}

bool ReportHasFailures(const v1::AuditReport& report) {
  const auto& s = report.summary();
  return s.violations() + s.disputes() + s.warnings() > 0;
}

}  // namespace gunbai::replay
