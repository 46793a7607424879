#include "service/cli/diff_cli.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "gunbai/v1/game_service.grpc.pb.h"
#include "replay/corpus.h"
#include "replay/diff.h"
#include "replay/log_parser.h"
#include "replay/ruleset_loader.h"
#include "rules/status_macros.h"
#include "service/cli/audit_client.h"
#include "service/cli/cli.h"
#include "service/cli/cli_input.h"
#include "service/cli/client_channel.h"
#include "service/cli/game_client.h"
#include "service/cli/shard.h"
#include "service/common/cli_app.h"
#include "service/common/grpc_status.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

constexpr char kDiffFooter[] =
    R"(Rules authors change a table or a reading and want to know which outcomes of
real games it changes; organisers check a new gunbai release against the
last one's reports. gunbai diff replays every log of a corpus twice and
prints, for each log: every outcome the engine works out differently (hits,
stands lost, a leader killed, a morale result, a duel) with the terms of
both traces that differ, the findings that appear or disappear, and whether
the end of the game changed (units and stands left, routing units, victory
points, the winner, the final state); then a summary.

Usage:
  gunbai diff --new-ruleset=B [--old-ruleset=A] [options] CORPUS...
      Replay each log under A and under B: ruleset files (text format of
      gunbai.v1.Ruleset), or "builtin", the built-in ruleset the log's
      header names (the default for both).
  gunbai diff --baseline=SAVED [--new-ruleset=B] [options] CORPUS...
      Audit each log now (under B, or the built-in ruleset its header
      names) and compare with its saved report, the output of
      `gunbai audit --format=json`, matched to the log by game_id. SAVED is
      a report file or a folder of them (*.json, searched recursively);
      repeat --baseline for more. Logs with no saved report are listed, not
      compared. Outcomes are compared only when the saved reports carry
      them (`gunbai audit --outcomes`); findings and the end of the game
      always.

CORPUS is log files and folders, searched recursively for .textproto,
.txtpb, .pbtxt, .json, .pb and .binpb (a file named on the command line
may have any name): battle logs, or games from
`gunbai game export`. Logs are taken in sorted path order, and the output is
in that order whatever the number of workers.

Examples:
  # A house rule: copy the built-in ruleset, change a table, see what moves.
  cp rules/daimyo/daimyo.textproto house.textproto   # firing hit_score: 7
  gunbai diff --new-ruleset=house.textproto season-2024/

  # Before upgrading gunbai, save every report with the old release ...
  mkdir saved; for f in season-2024/*.textproto; do
    gunbai audit --outcomes --format=json "$f" > "saved/$(basename "$f").json"
  done
  # ... and after, compare the new release with them.
  gunbai diff --baseline=saved season-2024/

  # Every game a gunbaid keeps, under the house rule, replayed by gunbaid.
  GUNBAI_TOKEN=$(cat umpire.tok) gunbai diff --server=127.0.0.1:50051 \
      --stored-games --new-ruleset=house.textproto

A corpus too large for one host is split into N shards: each run with
--shard=I/N (I from 0 to N-1) compares only the logs whose path (game:ID for
a stored game) hashes to I, and with --format=json writes its part; merged,
the parts print exactly the report one run over the whole corpus prints, in
text or json, with its exit code. Give every run the same corpus paths (a
shared folder mounted at the same place) and the same options:
  # On 4 hosts, or the 4 pods of deploy/k8s/corpus-diff-job.yaml:
  gunbai diff --new-ruleset=house.textproto --format=json --shard=$I/4 \
      /corpus > /parts/part-$I.json
  # Then, anywhere:
  gunbai diff --merge /parts/part-*.json > report.txt
A merge refuses parts of different runs, a shard twice or missing, and a
part cut short, naming the file.

A changed log reads like this (tests/data/sekigahara.textproto with firing
hit_score 7; under each change, the terms of the two traces that differ):
  sekigahara.textproto (game sekigahara-demo): changed in 6 events, first
  at seq 5
    ...
    seq 21  hits of tok-yumi: 2 → 3
        old   7  stand 2: 4+5 -2 = 7, miss (8+ hits)     daimyo.fire.hit
        ...
        new   7  stand 2: 4+5 -2 = 7, hit (7+ hits)      daimyo.fire.hit
        ...
    finding removed: seq 21 DISPUTE daimyo.fire.hit [tok-yumi] claimed 3
    hits; computed 2 hits
and when replay lands a changed outcome (a log that claims none):
    end of game changed:
      asai: stands left 4 → 3
    final state changed: sha256:d33e37c53e21... → sha256:5ce8c9e823c6...

Exit codes:
  0  nothing changed
  1  something changed
  2  bad usage, or a log, ruleset or saved report could not be read (the
     other logs are still compared; the summary lists the failures)
  3  the daemon could not be reached)";

// Logs sent to the daemon in one Diff call, and the most bytes of logs (and
// baselines) in one request: well under gunbaid's default 64 MiB.
constexpr std::size_t kLogsPerCall = 64;
constexpr std::size_t kMaxRequestBytes = std::size_t{24} << 20;

struct DiffOptions {
  std::string old_ruleset;
  std::string new_ruleset;
  std::vector<std::string> baselines;
  std::vector<std::string> corpus;
  std::string server;
  std::string token_file;
  std::string tls_ca;
  std::string branch_out;
  std::string format = "text";
  int jobs = 0;
  bool stored_games = false;
  bool quiet = false;
  // --shard=I/N: this run's shard (0-based) of `shards`; shards 0: all.
  ShardChoice shard;
  // --merge: CORPUS is parts to combine.
  bool merge = false;
};

// The DiffPart.part_format this release writes and merges.
constexpr uint32_t kDiffPartFormat = 1;

// Returns a message saying what is wrong with the combination of options,
// empty when they make sense.
std::string CheckDiffOptions(const DiffOptions& o) {
  if (o.merge) {
    if (!o.old_ruleset.empty() || !o.new_ruleset.empty() ||
        !o.baselines.empty() || !o.server.empty() || o.stored_games ||
        o.shard.sharded() || !o.branch_out.empty()) {
      return "--merge combines parts already written: give it only the part "
             "files (and --format)";
    }
    if (o.corpus.empty()) {
      return "--merge needs the parts: the files `gunbai diff --shard=I/N "
             "--format=json` wrote, one per shard";
    }
    return "";
  }
  if (o.shard.sharded() && o.format != "json") {
    return "--shard writes a part for `gunbai diff --merge`: add "
           "--format=json";
  }
  const bool baseline_mode = !o.baselines.empty();
  if (baseline_mode && !o.old_ruleset.empty()) {
    return "--baseline and --old-ruleset both give the old side; give one";
  }
  if (!baseline_mode && o.old_ruleset.empty() && o.new_ruleset.empty()) {
    return "say what to compare: --new-ruleset=FILE (and --old-ruleset), or "
           "--baseline=SAVED_REPORTS";
  }
  if (!o.branch_out.empty() && (baseline_mode || !o.server.empty())) {
    return "--branch-out writes the games replayed under the new ruleset "
           "here: it needs two rulesets and no --server";
  }
  if (o.stored_games && o.server.empty()) {
    return "--stored-games reads the games of a gunbaid: give --server too";
  }
  if (o.corpus.empty() && !o.stored_games) {
    return "give the logs to compare: files or folders (or --server with "
           "--stored-games)";
  }
  return "";
}

// Reads the battle log at `path`, or the log of a game exported from
// gunbaid. Returns the parser's error (file, line and column) otherwise.
absl::StatusOr<v1::BattleLog> LoadLogFile(const std::string& path) {
  GUNBAI_ASSIGN_OR_RETURN(auto bytes, ReadInputFile(path));
  const replay::LogFormat format = replay::FormatFromFileName(path);
  auto log = replay::ParseBattleLog(bytes, format, path);
  if (log.ok()) return log;
  v1::ExportedGame game;
  if (replay::ParseMessage(bytes, format, path, game).ok() && game.has_log()) {
    return std::move(*game.mutable_log());
  }
  return log.status();
}

// Reads a saved audit report (gunbai audit --format=json; text and binary
// by extension too). Fields a later release added are ignored.
absl::StatusOr<v1::AuditReport> LoadBaselineFile(const std::string& path) {
  GUNBAI_ASSIGN_OR_RETURN(auto bytes, ReadInputFile(path));
  v1::AuditReport report;
  const replay::LogFormat format = replay::FormatFromFileName(path);
  const bool json =
      format == replay::LogFormat::kJson ||
      (format == replay::LogFormat::kAuto &&
       absl::StartsWith(absl::StripLeadingAsciiWhitespace(bytes), "{"));
  if (json) {
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    auto s =
        google::protobuf::util::JsonStringToMessage(bytes, &report, options);
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": not a saved audit report (gunbai audit --format=json): ",
          std::string(s.message())));
    }
    return report;
  }
  GUNBAI_RETURN_IF_ERROR(replay::ParseMessage(bytes, format, path, report));
  return report;
}

// Returns the files named by `paths`: files as given, folders searched
// recursively for files with `extensions`; sorted, each once. A path that
// does not exist is kept, so that reading it fails with its name.
std::vector<std::string> ExpandPaths(
    const std::vector<std::string>& paths,
    std::initializer_list<const char*> extensions) {
  std::vector<std::string> files = ExpandFolders(paths, extensions);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// One log of the corpus: a file, or a game stored in the daemon.
struct CorpusEntry {
  std::string name;
  std::string path;
  std::string stored_game_id;
};

// The old and new sides: a ruleset each (none: the built-in one the log's
// header names) or, in baseline mode, the saved reports by game id.
struct Sides {
  std::optional<replay::LoadedRuleset> old_ruleset;
  std::optional<replay::LoadedRuleset> new_ruleset;
  std::string old_text;
  std::string new_text;
  std::string old_label;
  std::string new_label;
  replay::RulesetCatalog builtin;
  bool baseline_mode = false;
  std::map<std::string, std::string> baseline_files;

  replay::DiffRulesets rulesets() const {
    return {old_ruleset ? &*old_ruleset : nullptr,
            new_ruleset ? &*new_ruleset : nullptr, &builtin};
  }
};

// Loads the ruleset at `path` ("builtin" or empty: none) into `ruleset`,
// its text into `text` and a description into `label`.
absl::Status LoadSide(const std::string& path,
                      std::optional<replay::LoadedRuleset>& ruleset,
                      std::string& text, std::string& label) {
  if (path.empty() || path == "builtin") {
    label = "the built-in ruleset each log's header names";
    return absl::OkStatus();
  }
  GUNBAI_ASSIGN_OR_RETURN(auto bytes, ReadInputFile(path));
  GUNBAI_ASSIGN_OR_RETURN(auto loaded, replay::LoadRuleset(bytes, path));
  label =
      absl::StrCat(path, " (", loaded.data.name(), " ", loaded.data.version(),
                   ", sha256:", loaded.digest.substr(0, 12), ")");
  text = std::move(bytes);
  ruleset = std::move(loaded);
  return absl::OkStatus();
}

// Finds the saved report of every game id in the files `paths` name.
// Returns InvalidArgument naming the file that is not a report, or the two
// files that hold the same game.
absl::StatusOr<std::map<std::string, std::string>> IndexBaselines(
    const std::vector<std::string>& paths, int jobs) {
  const std::vector<std::string> files = ExpandPaths(paths, {".json"});
  std::vector<absl::StatusOr<std::string>> ids(files.size(), std::string());
  replay::ParallelFor(files.size(), jobs, [&](std::size_t i) {
    auto report = LoadBaselineFile(files[i]);
    ids[i] = report.ok() ? absl::StatusOr<std::string>(report->game_id())
                         : report.status();
    return true;
  });
  std::map<std::string, std::string> index;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!ids[i].ok()) return ids[i].status();
    auto [it, inserted] = index.emplace(*ids[i], files[i]);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("saved reports ", it->second, " and ", files[i],
                       " are both of game \"", *ids[i], "\"; keep one"));
    }
  }
  if (files.empty()) {
    return absl::InvalidArgumentError(
        "--baseline names no saved report (*.json)");
  }
  return index;
}

// Returns the log's diff in baseline mode, `log` read already.
v1::LogDiff DiffWithBaseline(const std::string& name, const v1::BattleLog& log,
                             const Sides& sides) {
  auto it = sides.baseline_files.find(log.header().game_id());
  if (it == sides.baseline_files.end()) {
    return replay::DiffAgainstBaseline(name, log, nullptr, sides.rulesets());
  }
  auto baseline = LoadBaselineFile(it->second);
  if (!baseline.ok()) return replay::FailedLogDiff(name, baseline.status());
  return replay::DiffAgainstBaseline(name, log, &*baseline, sides.rulesets());
}

// ---- Output ----

std::string DigestPrefix(const std::string& digest) {
  return digest.empty() ? "(none)"
                        : absl::StrCat("sha256:", digest.substr(0, 12), "...");
}

std::string TermLine(absl::string_view side, const v1::Term& t) {
  const std::string value = t.origin() == v1::TERM_ORIGIN_DICE
                                ? absl::StrFormat("%3d", t.value())
                                : absl::StrFormat("%+3d", t.value());
  return absl::StrFormat("      %s %s  %-50s %s\n", side, value, t.label(),
                         t.rule_id());
}

bool SameTerm(const v1::Term& a, const v1::Term& b) {
  return a.value() == b.value() && a.label() == b.label() &&
         a.rule_id() == b.rule_id() && a.origin() == b.origin();
}

// Appends the terms of `from` that `other` lacks, in order.
void AppendTermsNotIn(absl::string_view side,
                      const google::protobuf::RepeatedPtrField<v1::Term>& from,
                      const google::protobuf::RepeatedPtrField<v1::Term>& other,
                      std::string& out) {
  std::vector<bool> used(other.size(), false);
  for (const v1::Term& t : from) {
    bool matched = false;
    for (int j = 0; j < other.size() && !matched; ++j) {
      if (!used[j] && SameTerm(t, other[j])) used[j] = matched = true;
    }
    if (!matched) out += TermLine(side, t);
  }
}

// Returns the terms of `trace` other than the per-die lines (origin dice).
google::protobuf::RepeatedPtrField<v1::Term> NotDice(
    const google::protobuf::RepeatedPtrField<v1::Term>& trace) {
  google::protobuf::RepeatedPtrField<v1::Term> out;
  for (const v1::Term& t : trace) {
    if (t.origin() != v1::TERM_ORIGIN_DICE) *out.Add() = t;
  }
  return out;
}

// Returns the per-die lines (a stand's roll and its verdict) of `trace`.
std::vector<const v1::Term*> DiceLines(
    const google::protobuf::RepeatedPtrField<v1::Term>& trace) {
  std::vector<const v1::Term*> out;
  for (const v1::Term& t : trace) {
    if (t.origin() == v1::TERM_ORIGIN_DICE) out.push_back(&t);
  }
  return out;
}

// True when a dice line says it hit ("..., hit (8+ hits)").
bool Hit(const v1::Term& t) { return absl::StrContains(t.label(), ", hit ("); }

// Appends the stand lines whose verdict changed (a hit that became a miss,
// or the reverse), old then new; the unchanged ones are left out.
void AppendChangedDiceLines(const v1::OutcomeChange& c, std::string& out) {
  const auto old_lines = DiceLines(c.old_outcome().trace());
  const auto new_lines = DiceLines(c.new_outcome().trace());
  const std::size_t n = std::max(old_lines.size(), new_lines.size());
  for (std::size_t i = 0; i < n; ++i) {
    const v1::Term* o = i < old_lines.size() ? old_lines[i] : nullptr;
    const v1::Term* w = i < new_lines.size() ? new_lines[i] : nullptr;
    if (o != nullptr && w != nullptr && Hit(*o) == Hit(*w)) continue;
    if (o != nullptr) out += TermLine("old", *o);
    if (w != nullptr) out += TermLine("new", *w);
  }
}

void AppendOutcomeChange(const v1::OutcomeChange& c, std::string& out) {
  const std::string old_value =
      c.has_old_outcome() ? c.old_outcome().value() : "(not worked out)";
  const std::string new_value =
      c.has_new_outcome() ? c.new_outcome().value() : "(not worked out)";
  absl::StrAppend(&out, "  seq ", c.seq(), "  ", c.kind(), " of ", c.subject(),
                  ": ", old_value, " → ", new_value, "\n");
  const auto old_terms = NotDice(c.old_outcome().trace());
  const auto new_terms = NotDice(c.new_outcome().trace());
  AppendTermsNotIn("old", old_terms, new_terms, out);
  AppendTermsNotIn("new", new_terms, old_terms, out);
  AppendChangedDiceLines(c, out);
}

void AppendFindingChange(absl::string_view what, const v1::Finding& f,
                         std::string& out) {
  absl::StrAppend(&out, "  finding ", what, ": seq ", f.seq(), " ",
                  v1::Severity_Name(f.severity()).substr(9), " ", f.rule_id());
  if (!f.subject().empty()) absl::StrAppend(&out, " [", f.subject(), "]");
  if (!f.claimed().empty() || !f.computed().empty()) {
    absl::StrAppend(&out, " claimed ", f.claimed(), "; computed ",
                    f.computed());
  }
  absl::StrAppend(&out, "\n      ", f.message(), "\n");
}

// Appends "name a → b" to `parts` when the values differ.
void AppendIfChanged(absl::string_view name, std::uint64_t a, std::uint64_t b,
                     std::vector<std::string>& parts) {
  if (a != b) parts.push_back(absl::StrCat(name, " ", a, " → ", b));
}

void AppendEndOfGame(const v1::LogDiff& d, std::string& out) {
  if (d.has_parted_at_seq()) {
    absl::StrAppend(&out, "  end of game not compared: the games part at seq ",
                    d.parted_at_seq(),
                    ", so the old end cannot be reached under the new rules (",
                    d.ends_differ_past_parting()
                        ? "the ends differ past the parting"
                        : "the ends agree all the same",
                    ")\n");
    return;
  }
  if (!d.result_compared()) {
    absl::StrAppend(&out,
                    "  end of game not compared: the baseline has no "
                    "result\n");
  } else if (d.result_changed()) {
    absl::StrAppend(&out, "  end of game changed:\n");
    const v1::GameResult& o = d.old_result();
    const v1::GameResult& n = d.new_result();
    for (const v1::ClanResult& nc : n.clans()) {
      v1::ClanResult oc;
      for (const v1::ClanResult& c : o.clans()) {
        if (c.clan() == nc.clan()) oc = c;
      }
      std::vector<std::string> parts;
      AppendIfChanged("units left", oc.units_left(), nc.units_left(), parts);
      AppendIfChanged("stands left", oc.stands_left(), nc.stands_left(), parts);
      AppendIfChanged("routing", oc.units_routing(), nc.units_routing(), parts);
      AppendIfChanged("victory points", oc.victory_points(),
                      nc.victory_points(), parts);
      if (!parts.empty()) {
        absl::StrAppend(&out, "    ", nc.clan(), ": ",
                        absl::StrJoin(parts, ", "), "\n");
      }
    }
    if (o.winner() != n.winner() || o.decided_turn() != n.decided_turn()) {
      absl::StrAppend(
          &out, "    winner: ", o.winner().empty() ? "(none)" : o.winner(),
          " → ", n.winner().empty() ? "(none)" : n.winner(), "\n");
    }
  }
  if (d.final_state_changed()) {
    absl::StrAppend(&out, "  final state changed: ",
                    DigestPrefix(d.old_final_state_digest()), " → ",
                    DigestPrefix(d.new_final_state_digest()), "\n");
  }
}

std::string Count(std::uint64_t n, absl::string_view one,
                  absl::string_view many);

std::string LogDiffText(const v1::LogDiff& d) {
  const std::string game =
      d.game_id().empty() ? "" : absl::StrCat(" (game ", d.game_id(), ")");
  switch (d.status()) {
    case v1::LOG_DIFF_STATUS_FAILED:
      return absl::StrCat(d.name(), ": FAILED: ", d.error(), "\n");
    case v1::LOG_DIFF_STATUS_NO_BASELINE:
      return absl::StrCat(d.name(), game,
                          ": no saved report of this game; not compared\n");
    case v1::LOG_DIFF_STATUS_SAME:
      return absl::StrCat(d.name(), game, ": unchanged\n");
    default:
      break;
  }
  std::string out = absl::StrCat(d.name(), game, ": changed");
  if (d.has_first_changed_seq()) {
    absl::StrAppend(&out, " in ", d.events_changed(),
                    d.events_changed() == 1 ? " event" : " events",
                    ", first at seq ", d.first_changed_seq());
  }
  absl::StrAppend(&out, "\n");
  if (!d.outcomes_compared()) {
    absl::StrAppend(&out,
                    "  outcomes not compared: the saved report has none "
                    "(save it with gunbai audit --outcomes)\n");
  }
  for (const v1::OutcomeChange& c : d.outcome_changes()) {
    AppendOutcomeChange(c, out);
  }
  for (const v1::Finding& f : d.findings_removed()) {
    AppendFindingChange("removed", f, out);
  }
  for (const v1::Finding& f : d.findings_added()) {
    AppendFindingChange("added", f, out);
  }
  if (d.has_parted_at_seq()) {
    absl::StrAppend(&out, "  the games part at seq ", d.parted_at_seq(), ": ",
                    d.parted_reason(), "\n");
    if (d.changes_after_parting() > 0) {
      absl::StrAppend(&out, "  ",
                      Count(d.changes_after_parting(), "change", "changes"),
                      " after it not listed\n");
    }
  }
  AppendEndOfGame(d, out);
  return out;
}

std::string Count(std::uint64_t n, absl::string_view one,
                  absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string SummaryText(const v1::DiffSummary& s) {
  std::string out =
      absl::StrCat("\nSummary: ", Count(s.logs_total(), "log", "logs"), ", ",
                   s.logs_compared(), " compared, ", s.logs_changed(),
                   " changed; ", Count(s.events_changed(), "event", "events"),
                   " and ", Count(s.outcomes_changed(), "outcome", "outcomes"),
                   " changed; the end of the game changed in ",
                   Count(s.results_changed(), "log", "logs"),
                   s.logs_parted() > 0 ? " that never part" : "", ".\n");
  if (s.outcomes_by_kind_size() > 0) {
    absl::StrAppend(&out, "Outcomes changed, by kind:\n");
    for (const v1::OutcomeKindChanges& k : s.outcomes_by_kind()) {
      std::vector<std::string> parts;
      if (k.more() > 0) parts.push_back(absl::StrCat(k.more(), " more"));
      if (k.fewer() > 0) parts.push_back(absl::StrCat(k.fewer(), " fewer"));
      if (k.other() > 0) parts.push_back(absl::StrCat(k.other(), " other"));
      absl::StrAppend(&out, absl::StrFormat("  %-20s %s\n", k.kind(),
                                            absl::StrJoin(parts, ", ")));
    }
  }
  if (s.winners_changed() > 0 || s.units_left_changed() > 0) {
    absl::StrAppend(&out, "The winner changed in ",
                    Count(s.winners_changed(), "log", "logs"),
                    "; the units left in ",
                    Count(s.units_left_changed(), "log", "logs"), ".\n");
  }
  if (s.logs_parted() > 0) {
    absl::StrAppend(&out,
                    "The two games part at an event the new rules make "
                    "impossible in ",
                    Count(s.logs_parted(), "log", "logs"),
                    "; their ends are not compared (they differ past the "
                    "parting in ",
                    s.logs_parted_ends_differ(),
                    "): the ends counted above are of games that never "
                    "part, and a parted game's outcomes only up to its "
                    "parting.\n");
  }
  if (s.outcomes_not_compared() > 0) {
    absl::StrAppend(&out, "Outcomes not compared in ",
                    Count(s.outcomes_not_compared(), "log", "logs"),
                    ": the saved reports have none.\n");
  }
  if (s.findings_by_rule_size() > 0) {
    absl::StrAppend(&out, "Findings added and removed, by rule:\n");
    for (const v1::RuleFindingChanges& r : s.findings_by_rule()) {
      absl::StrAppend(&out, absl::StrFormat("  %-50s +%d -%d\n", r.rule_id(),
                                            r.added(), r.removed()));
    }
  }
  if (s.no_baseline_size() > 0) {
    absl::StrAppend(&out, "No saved report, not compared (",
                    s.no_baseline_size(), "):\n");
    for (const std::string& name : s.no_baseline()) {
      absl::StrAppend(&out, "  ", name, "\n");
    }
  }
  if (s.failed_size() > 0) {
    absl::StrAppend(&out, "Failed (", s.failed_size(), "):\n");
    for (const v1::FailedLog& f : s.failed()) {
      absl::StrAppend(&out, "  ", f.name(), ": ", f.error(), "\n");
    }
  }
  return out;
}

std::string CompactJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

// Writes the per-log diffs as they come, in order, and the summary last:
// text, or one JSON object {"logs": [...], "summary": {...}}; or, for a
// shard (SetPart), a DiffPart: its header, each log with its place in the
// whole corpus, and the shard's summary.
class DiffPrinter {
 public:
  DiffPrinter(std::ostream& out, bool json) : out_(out), json_(json) {}

  // Makes the output the part `header` (its shard, the corpus size and the
  // sides) of logs at `positions` of the whole corpus, in order.
  void SetPart(const v1::DiffPart& header, std::vector<std::size_t> positions) {
    part_ = header;
    positions_ = std::move(positions);
  }

  // Writes the head: the sides compared, as the report's "old:" and "new:"
  // lines say them (SideLines).
  void Begin(const std::string& old_side, const std::string& new_side) {
    if (part_.has_value()) {
      part_->set_old_side(old_side);
      part_->set_new_side(new_side);
      std::string head = CompactJson(*part_);
      head.pop_back();  // The closing brace: the logs follow.
      out_ << head << (head.size() > 1 ? "," : "") << "\"logs\":[";
      return;
    }
    if (json_) {
      out_ << "{\"logs\":[";
      return;
    }
    out_ << "gunbai diff\n  old: " << old_side << "\n  new: " << new_side
         << "\n\n";
  }
  // Returns the diff of one log as printed. Thread-safe.
  std::string Render(const v1::LogDiff& diff) const {
    return json_ ? CompactJson(diff) : LogDiffText(diff);
  }
  // Prints the next log, as Render gave it.
  void Write(const std::string& rendered, bool flush) {
    if (json_) out_ << (logs_ == 0 ? "\n" : ",\n");
    if (part_.has_value()) {
      out_ << "{\"position\":" << positions_[logs_] << ",\"diff\":" << rendered
           << "}";
    } else {
      out_ << rendered;
    }
    if (flush) out_.flush();
    ++logs_;
  }
  void End(const v1::DiffSummary& summary) {
    if (json_) {
      out_ << "\n],\n\"summary\":" << CompactJson(summary) << "}\n";
    } else {
      out_ << SummaryText(summary);
    }
    out_.flush();
  }

 private:
  std::ostream& out_;
  const bool json_;
  std::size_t logs_ = 0;
  std::optional<v1::DiffPart> part_;
  std::vector<std::size_t> positions_;
};

// The report's "old:" and "new:" lines for `sides`.
std::pair<std::string, std::string> SideLines(const Sides& sides) {
  return {
      sides.baseline_mode ? "the saved reports (--baseline)" : sides.old_label,
      sides.new_label};
}

// Progress on stderr: a bar redrawn in place on a terminal, a plain line
// every 10% (or 1000 logs) otherwise, nothing when quiet.
class Progress {
 public:
  enum class Mode { kNone, kBar, kLines };

  Progress(std::ostream& err, Mode mode, std::size_t total)
      : err_(err),
        mode_(mode),
        total_(total),
        step_(std::clamp<std::size_t>(total / 10, 1, 1000)),
        start_(std::chrono::steady_clock::now()) {}

  // Wipes the bar, when one is drawn, before results go to the same
  // terminal; the next Update draws it again.
  void Clear() {
    if (mode_ != Mode::kBar || !drawn_) return;
    err_ << "\r\x1b[K";
    err_.flush();
    drawn_ = false;
  }

  void Update(std::size_t done) {
    if (mode_ == Mode::kNone) return;
    const auto now = std::chrono::steady_clock::now();
    if (mode_ == Mode::kLines) {
      if (done % step_ == 0 || done == total_) err_ << Line(done, now) << "\n";
      return;
    }
    if (drawn_ && done != total_ &&
        now - last_draw_ < std::chrono::milliseconds(100)) {
      return;
    }
    last_draw_ = now;
    drawn_ = done != total_;
    err_ << "\r" << Bar(done) << " " << Line(done, now) << "\x1b[K";
    if (done == total_) err_ << "\n";
    err_.flush();
  }

 private:
  std::string Bar(std::size_t done) const {
    constexpr int kWidth = 30;
    const int filled =
        total_ == 0 ? kWidth : static_cast<int>(kWidth * done / total_);
    return absl::StrCat("[", std::string(filled, '#'),
                        std::string(kWidth - filled, '-'), "]");
  }
  std::string Line(std::size_t done,
                   std::chrono::steady_clock::time_point now) const {
    const double seconds =
        std::chrono::duration<double>(now - start_).count() + 1e-9;
    const double rate = done / seconds;
    std::string out = absl::StrFormat("gunbai diff: %d/%d logs, %.1f logs/s",
                                      done, total_, rate);
    if (done < total_ && rate > 0) {
      const int left = static_cast<int>((total_ - done) / rate + 0.5);
      absl::StrAppend(&out, left < 60
                                ? absl::StrFormat(", about %ds left", left)
                                : absl::StrFormat(", about %dm%02ds left",
                                                  left / 60, left % 60));
    }
    return out;
  }

  std::ostream& err_;
  const Mode mode_;
  const std::size_t total_;
  const std::size_t step_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

// Takes the diffs in any order from any thread, prints them in corpus
// order, adds them up and shows progress. Bounds the diffs held back: a
// worker waits before starting a log too far ahead of the printed ones.
class OrderedCollector {
 public:
  // With `shared_terminal` the results and the progress bar go to one
  // terminal: the bar is wiped before results are printed.
  OrderedCollector(std::size_t window, DiffPrinter& printer, Progress& progress,
                   bool shared_terminal)
      : window_(window),
        printer_(printer),
        progress_(progress),
        shared_terminal_(shared_terminal) {}

  // Blocks until the log at `index` is near enough to the printed ones.
  void WaitForRoom(std::size_t index) {
    absl::MutexLock lock(&mu_);
    auto near = [this, index]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return index < next_ + window_;
    };
    mu_.Await(absl::Condition(&near));
  }

  // Takes the diff of the log at `index`; rendered by the calling thread,
  // printed once every log before it is.
  void Deliver(std::size_t index, const v1::LogDiff& diff) {
    std::string rendered = printer_.Render(diff);
    absl::MutexLock lock(&mu_);
    tally_.Add(index, diff);
    pending_.emplace(index, std::move(rendered));
    ++done_;
    for (auto it = pending_.find(next_); it != pending_.end();
         it = pending_.find(next_)) {
      if (shared_terminal_) progress_.Clear();
      printer_.Write(it->second, /*flush=*/shared_terminal_);
      pending_.erase(it);
      ++next_;
    }
    progress_.Update(done_);
  }

  v1::DiffSummary Summary() {
    absl::MutexLock lock(&mu_);
    return tally_.Summary();
  }
  bool AnyChanged() {
    absl::MutexLock lock(&mu_);
    return tally_.AnyChanged();
  }
  bool AnyFailed() {
    absl::MutexLock lock(&mu_);
    return tally_.AnyFailed();
  }

 private:
  const std::size_t window_;
  DiffPrinter& printer_;
  Progress& progress_;
  const bool shared_terminal_;
  absl::Mutex mu_;
  // Rendered logs waiting for the ones before them.
  std::map<std::size_t, std::string> pending_ ABSL_GUARDED_BY(mu_);
  std::size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  std::size_t done_ ABSL_GUARDED_BY(mu_) = 0;
  replay::DiffTally tally_ ABSL_GUARDED_BY(mu_);
};

// ---- Local replays ----

// Writes `branch`, the log at `position` of the corpus as it would have gone
// under the new ruleset, to DIR/NNNNNN-GAME_ID.textproto. Returns false
// when it cannot.
bool WriteBranchLog(const std::string& dir, std::size_t position,
                    const v1::BattleLog& branch) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(branch, &text);
  const std::string file =
      absl::StrFormat("%06d-%s.textproto", position, branch.header().game_id());
  std::ofstream out(std::filesystem::path(dir) / file,
                    std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

void RunLocally(const std::vector<CorpusEntry>& corpus, const Sides& sides,
                int jobs, const std::string& branch_out,
                const std::vector<std::size_t>& positions,
                OrderedCollector& collector) {
  replay::ParallelFor(corpus.size(), jobs, [&](std::size_t i) {
    collector.WaitForRoom(i);
    const CorpusEntry& entry = corpus[i];
    auto log = LoadLogFile(entry.path);
    if (!log.ok()) {
      collector.Deliver(i, replay::FailedLogDiff(entry.name, log.status()));
    } else if (sides.baseline_mode) {
      collector.Deliver(i, DiffWithBaseline(entry.name, *log, sides));
    } else {
      v1::BattleLog branch;
      v1::LogDiff diff =
          replay::DiffUnderRulesets(entry.name, *log, sides.rulesets(),
                                    branch_out.empty() ? nullptr : &branch);
      if (!branch_out.empty() && diff.status() != v1::LOG_DIFF_STATUS_FAILED &&
          !WriteBranchLog(branch_out, positions[i], branch)) {
        diff = replay::FailedLogDiff(
            entry.name, absl::InvalidArgumentError(absl::StrCat(
                            "--branch-out: cannot write into ", branch_out)));
      }
      collector.Deliver(i, std::move(diff));
    }
    return true;
  });
}

// ---- Through a daemon ----

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenDiffChannel(
    const DiffOptions& o) {
  return OpenClientChannel(o.server, o.tls_ca, 64 << 20, 256 << 20);
}

// The daemon's stored games, for --stored-games.
class StoredGames {
 public:
  StoredGames(std::shared_ptr<grpc::Channel> channel, std::string target,
              std::string token)
      : stub_(v1::GameService::NewStub(channel)),
        target_(std::move(target)),
        token_(std::move(token)) {}

  // Returns the ids of every stored game, sorted.
  absl::StatusOr<std::vector<std::string>> List() const {
    std::vector<std::string> ids;
    v1::ListGamesRequest request;
    do {
      grpc::ClientContext context;
      Prepare(context);
      v1::ListGamesResponse response;
      grpc::Status s = stub_->ListGames(&context, request, &response);
      if (!s.ok()) return FromGrpcStatus(s, target_);
      for (const v1::GameListing& g : response.games()) {
        ids.push_back(g.game_id());
      }
      request.set_page_token(response.next_page_token());
    } while (!request.page_token().empty());
    return ids;
  }

  // Returns the log of the stored game `id`.
  absl::StatusOr<v1::BattleLog> Export(const std::string& id) const {
    v1::ExportedGame game;
    grpc::Status s = ExportWholeGame(
        id,
        [this](const v1::ExportGameRequest& request,
               v1::ExportGameResponse* response) {
          grpc::ClientContext context;
          Prepare(context);
          return stub_->ExportGame(&context, request, response);
        },
        &game);
    if (!s.ok()) return FromGrpcStatus(s, target_);
    return std::move(*game.mutable_log());
  }

 private:
  void Prepare(grpc::ClientContext& context) const {
    context.AddMetadata("authorization", "Bearer " + token_);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(kAuditDeadlineSeconds));
  }

  std::unique_ptr<v1::GameService::Stub> stub_;
  const std::string target_;
  const std::string token_;
};

bool IsTransportFailure(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kDeadlineExceeded ||
         s.code() == absl::StatusCode::kInternal ||
         s.code() == absl::StatusCode::kUnknown ||
         s.code() == absl::StatusCode::kUnimplemented;
}

// Sends one Diff call for the logs `request` holds, which are the corpus
// entries `positions`, and delivers their diffs. A log the daemon refuses
// as too big fails alone; a daemon that cannot be reached stops the run.
absl::Status SendDiffCall(const DiffOptions& o,
                          const std::shared_ptr<grpc::Channel>& channel,
                          const v1::DiffRequest& request,
                          const std::vector<std::size_t>& positions,
                          OrderedCollector& collector) {
  std::vector<bool> delivered(positions.size(), false);
  const int deadline = 120 + 2 * static_cast<int>(positions.size());
  absl::Status s = DiffThroughServer(
      channel, o.server, request, deadline, [&](v1::DiffResponse& response) {
        const std::size_t k = response.index();
        if (!response.has_log() || k >= positions.size() || delivered[k]) {
          return;
        }
        delivered[k] = true;
        collector.Deliver(positions[k], response.log());
      });
  if (!s.ok() && (IsTransportFailure(s) ||
                  s.code() == absl::StatusCode::kInvalidArgument)) {
    return s;
  }
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (delivered[k]) continue;
    collector.Deliver(
        positions[k],
        replay::FailedLogDiff(
            request.logs(k).name(),
            s.ok() ? absl::InternalError("the daemon sent no result for it")
                   : s));
  }
  return absl::OkStatus();
}

// Reads the corpus entries [begin, end) on the pool: the inputs to send,
// with their baselines; entries that fail to read (or have no baseline) are
// delivered at once.
std::vector<std::optional<v1::DiffLogInput>> ReadBatch(
    const std::vector<CorpusEntry>& corpus, std::size_t begin, std::size_t end,
    const Sides& sides, const StoredGames* games, int jobs,
    OrderedCollector& collector) {
  std::vector<std::optional<v1::DiffLogInput>> inputs(end - begin);
  replay::ParallelFor(end - begin, jobs, [&](std::size_t k) {
    const CorpusEntry& entry = corpus[begin + k];
    auto log = entry.stored_game_id.empty()
                   ? LoadLogFile(entry.path)
                   : games->Export(entry.stored_game_id);
    if (!log.ok()) {
      collector.Deliver(begin + k,
                        replay::FailedLogDiff(entry.name, log.status()));
      return true;
    }
    v1::DiffLogInput input;
    input.set_name(entry.name);
    if (sides.baseline_mode) {
      auto it = sides.baseline_files.find(log->header().game_id());
      if (it == sides.baseline_files.end()) {
        collector.Deliver(begin + k,
                          replay::DiffAgainstBaseline(entry.name, *log, nullptr,
                                                      sides.rulesets()));
        return true;
      }
      auto baseline = LoadBaselineFile(it->second);
      if (!baseline.ok()) {
        collector.Deliver(begin + k,
                          replay::FailedLogDiff(entry.name, baseline.status()));
        return true;
      }
      *input.mutable_baseline() = *std::move(baseline);
    }
    *input.mutable_log() = *std::move(log);
    inputs[k] = std::move(input);
    return true;
  });
  return inputs;
}

// Packs the inputs read into Diff calls of at most kMaxRequestBytes and
// sends them in turn.
absl::Status SendBatch(const DiffOptions& o,
                       const std::shared_ptr<grpc::Channel>& channel,
                       const v1::DiffRequest& empty, std::size_t begin,
                       std::vector<std::optional<v1::DiffLogInput>> inputs,
                       OrderedCollector& collector) {
  v1::DiffRequest request = empty;
  std::vector<std::size_t> positions;
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].has_value()) continue;
    const std::size_t size = inputs[k]->ByteSizeLong();
    if (!positions.empty() && bytes + size > kMaxRequestBytes) {
      GUNBAI_RETURN_IF_ERROR(
          SendDiffCall(o, channel, request, positions, collector));
      request = empty;
      positions.clear();
      bytes = 0;
    }
    *request.add_logs() = std::move(*inputs[k]);
    positions.push_back(begin + k);
    bytes += size;
  }
  if (positions.empty()) return absl::OkStatus();
  return SendDiffCall(o, channel, request, positions, collector);
}

// Sends the corpus to the daemon a batch at a time, reading the next batch
// while the daemon works on the current one.
absl::Status RunThroughServer(const DiffOptions& o,
                              const std::shared_ptr<grpc::Channel>& channel,
                              const std::vector<CorpusEntry>& corpus,
                              const Sides& sides, const StoredGames* games,
                              OrderedCollector& collector) {
  v1::DiffRequest empty;
  empty.set_old_ruleset_textproto(sides.old_text);
  empty.set_new_ruleset_textproto(sides.new_text);
  empty.set_compare_to_baselines(sides.baseline_mode);
  auto read = [&](std::size_t begin) {
    return ReadBatch(corpus, begin,
                     std::min(corpus.size(), begin + kLogsPerCall), sides,
                     games, o.jobs, collector);
  };
  auto next = std::async(std::launch::async, read, 0);
  for (std::size_t begin = 0; begin < corpus.size(); begin += kLogsPerCall) {
    auto inputs = next.get();
    if (begin + kLogsPerCall < corpus.size()) {
      next = std::async(std::launch::async, read, begin + kLogsPerCall);
    }
    absl::Status s =
        SendBatch(o, channel, empty, begin, std::move(inputs), collector);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

int Fail(std::ostream& err, const absl::Status& status, int code) {
  err << "gunbai: " << status.message() << "\n";
  return code;
}

int ExitCodeOf(const absl::Status& status) {
  return IsTransportFailure(status) ? kExitServer : kExitBadInput;
}

absl::Status PrepareSides(const DiffOptions& o, Sides& sides) {
  GUNBAI_ASSIGN_OR_RETURN(auto builtin, replay::RulesetCatalog::Builtin());
  sides.builtin = std::move(builtin);
  GUNBAI_RETURN_IF_ERROR(LoadSide(o.old_ruleset, sides.old_ruleset,
                                  sides.old_text, sides.old_label));
  GUNBAI_RETURN_IF_ERROR(LoadSide(o.new_ruleset, sides.new_ruleset,
                                  sides.new_text, sides.new_label));
  sides.baseline_mode = !o.baselines.empty();
  if (sides.baseline_mode) {
    GUNBAI_ASSIGN_OR_RETURN(auto index, IndexBaselines(o.baselines, o.jobs));
    sides.baseline_files = std::move(index);
  }
  return absl::OkStatus();
}

std::vector<CorpusEntry> FileEntries(const std::vector<std::string>& paths) {
  std::vector<CorpusEntry> corpus;
  for (std::string& path : ExpandPaths(paths, kLogExtensions)) {
    corpus.push_back({path, path, ""});
  }
  return corpus;
}

Progress::Mode ProgressMode(const DiffOptions& o, const std::ostream& err) {
  if (o.quiet) return Progress::Mode::kNone;
  if (&err == &std::cerr && isatty(STDERR_FILENO)) return Progress::Mode::kBar;
  return Progress::Mode::kLines;
}

// ---- Shards and their merge ----

// `gunbai diff --merge PART...`: the report one host would have written.
int Merge(const DiffOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<v1::DiffPart> parts;
  for (const std::string& path : o.corpus) {
    auto part = LoadPart<v1::DiffPart>(path, "diff", kDiffPartFormat);
    if (!part.ok()) return Fail(err, part.status(), kExitBadInput);
    parts.push_back(*std::move(part));
  }
  std::vector<PartHeader> headers;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const v1::DiffPart& p = parts[i];
    headers.push_back(
        {o.corpus[i], p.shard(), p.shards(), p.corpus_logs(),
         absl::StrCat("logs; old: ", p.old_side(), "; new: ", p.new_side()),
         static_cast<uint64_t>(p.logs_size())});
  }
  if (absl::Status s = CheckPartsFit(headers); !s.ok()) {
    return Fail(err, s, kExitBadInput);
  }
  const uint64_t total = parts.front().corpus_logs();
  std::vector<const v1::LogDiff*> by_position(total, nullptr);
  PositionCheck positions(total);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (const v1::DiffPartLog& log : parts[i].logs()) {
      if (absl::Status s = positions.Fill(o.corpus[i], log.position());
          !s.ok()) {
        return Fail(err, s, kExitBadInput);
      }
      by_position[log.position()] = &log.diff();
    }
  }
  if (absl::Status s = positions.Complete(); !s.ok()) {
    return Fail(err, s, kExitBadInput);
  }
  DiffPrinter printer(out, o.format == "json");
  printer.Begin(parts.front().old_side(), parts.front().new_side());
  replay::DiffTally tally;
  for (uint64_t position = 0; position < total; ++position) {
    tally.Add(position, *by_position[position]);
    printer.Write(printer.Render(*by_position[position]), /*flush=*/false);
  }
  printer.End(tally.Summary());
  if (tally.AnyFailed()) return kExitBadInput;
  return tally.AnyChanged() ? kExitFindings : kExitClean;
}

int Diff(const DiffOptions& o, std::ostream& out, std::ostream& err) {
  if (std::string error = CheckDiffOptions(o); !error.empty()) {
    err << "gunbai diff: " << error
        << "\nRun `gunbai diff --help` for usage.\n";
    return kExitBadInput;
  }
  if (o.merge) return Merge(o, out, err);
  Sides sides;
  absl::Status prepared = PrepareSides(o, sides);
  if (!prepared.ok()) return Fail(err, prepared, kExitBadInput);
  std::vector<CorpusEntry> corpus = FileEntries(o.corpus);
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<StoredGames> games;
  if (!o.server.empty()) {
    auto opened = OpenDiffChannel(o);
    if (!opened.ok()) return Fail(err, opened.status(), kExitBadInput);
    channel = *opened;
  }
  if (o.stored_games) {
    auto token = ClientToken(o.token_file, "--stored-games");
    if (!token.ok()) return Fail(err, token.status(), kExitBadInput);
    games = std::make_unique<StoredGames>(channel, o.server, *token);
    auto ids = games->List();
    if (!ids.ok()) return Fail(err, ids.status(), ExitCodeOf(ids.status()));
    for (const std::string& id : *ids) {
      corpus.push_back({absl::StrCat("game:", id), "", id});
    }
  }
  if (corpus.empty()) {
    return Fail(err, absl::InvalidArgumentError("the corpus holds no logs"),
                kExitBadInput);
  }
  // Each log's place in the whole corpus; a shard keeps its own logs.
  std::vector<std::size_t> positions;
  const std::size_t corpus_logs = corpus.size();
  if (!o.shard.sharded()) {
    for (std::size_t i = 0; i < corpus.size(); ++i) positions.push_back(i);
  } else {
    std::vector<CorpusEntry> mine;
    for (std::size_t i = 0; i < corpus.size(); ++i) {
      if (!InShard(corpus[i].name, o.shard)) continue;
      positions.push_back(i);
      mine.push_back(std::move(corpus[i]));
    }
    corpus = std::move(mine);
  }
  DiffPrinter printer(out, o.format == "json");
  if (o.shard.sharded()) {
    v1::DiffPart header;
    header.set_part_format(kDiffPartFormat);
    header.set_shard(o.shard.shard);
    header.set_shards(o.shard.shards);
    header.set_corpus_logs(corpus_logs);
    printer.SetPart(header, positions);
  }
  const Progress::Mode mode = ProgressMode(o, err);
  Progress progress(err, mode, corpus.size());
  OrderedCollector collector(8 * replay::WorkerCount(o.jobs) + 16, printer,
                             progress,
                             mode == Progress::Mode::kBar &&
                                 &out == &std::cout && isatty(STDOUT_FILENO));
  {
    const auto [old_side, new_side] = SideLines(sides);
    printer.Begin(old_side, new_side);
  }
  if (channel == nullptr) {
    if (!o.branch_out.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o.branch_out, ec);
    }
    RunLocally(corpus, sides, o.jobs, o.branch_out, positions, collector);
  } else {
    absl::Status s =
        RunThroughServer(o, channel, corpus, sides, games.get(), collector);
    if (!s.ok()) return Fail(err, s, ExitCodeOf(s));
  }
  printer.End(collector.Summary());
  if (collector.AnyFailed()) return kExitBadInput;
  return collector.AnyChanged() ? kExitFindings : kExitClean;
}

}  // namespace

int RunDiffCli(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  std::vector<std::string> full = {"diff"};
  full.insert(full.end(), args.begin(), args.end());
  return RunCli(full, out, err);
}

void AddDiffCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* diff = app.add_subcommand(
      "diff",
      "which results of real games change under a new ruleset or a new "
      "gunbai release");
  diff->footer(kDiffFooter);
  diff->add_option("CORPUS", o->corpus, "log files and folders");
  diff->add_option("--old-ruleset", o->old_ruleset,
                   "replay each log under this ruleset file first, or "
                   "\"builtin\" (the default)")
      ->type_name("A");
  diff->add_option("--new-ruleset", o->new_ruleset,
                   "and then under this one, or \"builtin\" (the default)")
      ->type_name("B");
  diff->add_option("--baseline", o->baselines,
                   "compare with saved reports (`gunbai audit --format=json "
                   "--outcomes`): a report file or a folder of them; repeat "
                   "for more")
      ->type_name("SAVED")
      ->allow_extra_args(false);
  AddChoiceOption(*diff, "--format", o->format, {"text", "json"},
                  "text for people; json: one object {\"logs\": [LogDiff, "
                  "...], \"summary\": DiffSummary}");
  diff->add_option("--jobs", o->jobs,
                   "workers replaying logs (default: one per core)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  diff->add_flag("--quiet", o->quiet,
                 "no progress on stderr (otherwise a bar on a terminal, else "
                 "a line every 10% or 1000 logs)");
  AddServerOption(*diff, o->server,
                  "replays the logs (AuditService.Diff); the output is the "
                  "same");
  diff->add_flag("--stored-games", o->stored_games,
                 "with --server: also compare every game that gunbaid keeps "
                 "(named game:ID, after the files); needs the umpire's "
                 "credential");
  diff->add_option("--token-file", o->token_file,
                   "the umpire's credential, for --stored-games (else "
                   "GUNBAI_TOKEN)")
      ->type_name("F");
  AddTlsCaOption(*diff, o->tls_ca);
  diff->add_option("--branch-out", o->branch_out,
                   "with two rulesets, locally: write each log as its game "
                   "would have gone under the new ruleset to "
                   "DIR/NNNNNN-GAME_ID-under-new-ruleset.textproto")
      ->type_name("DIR");
  AddShardOption(*diff, o->shard,
                 "compare only shard I of N (0 <= I < N) of the corpus: the "
                 "logs whose path (game:ID for a stored game) hashes to I; "
                 "with --format=json the output is a part for --merge");
  diff->add_flag("--merge", o->merge,
                 "CORPUS is the N parts of a sharded run: print the report "
                 "one run over the whole corpus would have printed");
  diff->callback(
      [o, &context] { context.code = Diff(*o, context.out, context.err); });
}

}  // namespace gunbai::service
