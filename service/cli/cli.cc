#include "service/cli/cli.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "replay/all_readings.h"
#include "replay/audit.h"
#include "replay/dice_stats.h"
#include "replay/finding_readings.h"
#include "replay/impact.h"
#include "replay/log_parser.h"
#include "replay/log_stream.h"
#include "replay/map_scene.h"
#include "replay/proto_mapping.h"
#include "replay/remedy.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "rules/status_macros.h"
#include "service/cli/audit_client.h"
#include "service/cli/cli_input.h"
#include "service/cli/diff_cli.h"
#include "service/cli/explain_cli.h"
#include "service/cli/game_cli.h"
#include "service/cli/generate_cli.h"
#include "service/cli/health_cli.h"
#include "service/cli/key_cli.h"
#include "service/cli/reconcile_cli.h"
#include "service/cli/remedy_cli.h"
#include "service/cli/shard.h"
#include "service/cli/store_cli.h"
#include "service/cli/tournament_cli.h"
#include "service/common/cli_app.h"
#include "service/render/map_svg.h"
#include "service/render/report_format.h"
#include "service/render/report_html.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

constexpr char kDescription[] =
    R"(replay a wargame battle log and audit it against the rules

gunbai reads a battle log (the armies, then every declared action and every
die rolled, in order), replays it through the rules, and reports every rule
violation and every disputed outcome with the arithmetic that proves it.
Built-in rules: Daimyo, Samurai Wargames Rules 1550-1615 (firing, melee,
morale), and more (gunbai ruleset --list); each log is replayed under the
ruleset its header names. `gunbai COMMAND --help` describes each command.)";

constexpr char kFooter[] =
    R"(LOG is a battle log (or a game from `gunbai game export`) in protobuf text
format (.textproto), JSON (.json) or binary (.pb); the format is taken from
the extension or, failing that, from the content. "-" reads standard input.

Examples:
  gunbai audit tests/data/sekigahara.textproto
  gunbai audit --format=json game.json > report.json
  gunbai audit --impact tests/data/nagashino-melee.textproto
  gunbai state --at=12 tests/data/sekigahara.textproto
  gunbai audit --server=127.0.0.1:50051 game.textproto
  gunbai generate --help

Exit codes:
  0  clean: no violation, dispute or warning (unverifiable findings allowed)
  1  the audit found violations, disputes or warnings
  2  unusable input: unreadable file, malformed log or ruleset, bad order of
     battle, bad command line (the message says where)
  3  the daemon could not be reached or failed)";

constexpr char kAuditFooter[] =
    R"(The log is replayed under the built-in ruleset its header names
(header.ruleset.name and version; a log naming none is a Daimyo log), or
under --ruleset FILE. With --server a running gunbaid does the audit; the
report is the same.

Examples:
  gunbai audit tests/data/sekigahara.textproto
  gunbai audit --format=json --outcomes game.json > report.json
  gunbai audit --impact --branch-out=branches tests/data/nagashino-melee.textproto
  gunbai audit --format=html --impact -o report.html tests/data/sekigahara.textproto
  gunbai audit --server=127.0.0.1:50051 --tls-ca=cert.pem game.textproto

--format=html writes one self-contained page (no script, nothing fetched:
open it in any browser, or mail it): the verdict, the findings by turn with
their arithmetic and the rules they cite, every event with its outcomes,
each clan's dice against fair dice and each unit's stands over the game.

Exit codes: 0 clean, 1 violations, disputes or warnings, 2 unusable input
or bad command line, 3 the daemon could not be reached or failed.)";

constexpr char kStateFooter[] =
    R"(Examples:
  gunbai state tests/data/sekigahara.textproto
  gunbai state --at=12 --format=json tests/data/sekigahara.textproto
  gunbai state --digests tests/data/sekigahara.textproto
  gunbai state --at=20 --format=start tests/data/sekigahara.textproto

A log that starts from --format=start's block (pasted in after its order of
battle, with the events after SEQ) audits those events as the whole game does.

Exit codes: 0 printed, 2 unusable input or bad command line.)";

constexpr char kMapFooter[] =
    R"(The log must have a table (its size, each unit's position, and its
terrain: rules/README.md, "The table"). The picture shows the terrain, every unit on
the table in its clan's colour with its facing and markers (D disordered,
R routing, F frenzied, H halted, M in melee, +N hits carried, and the
leaders with it), and what the event did: a volley's line of fire with its
distance and the firer's reach at effective and long range, a charge's or a
move's path, a melee's contact; a legend and a 10 cm scale bar.

Examples:
  gunbai map tests/data/table-game.textproto -o start.svg
  gunbai map --at=7 tests/data/table-game.textproto -o volley.svg
  gunbai map --at=7 --scale=10 tests/data/table-game.textproto > big.svg
  rsvg-convert -o volley.png volley.svg     # a PNG, with Debian's librsvg2-bin

Exit codes: 0 drawn, 2 unusable input (no table, no such event) or bad
command line.)";

constexpr char kRulesetFooter[] =
    R"(Live games are bound to their ruleset's digest: keep a --format=textproto
copy (same digest) before upgrading gunbai.

Examples:
  gunbai ruleset --list
  gunbai ruleset skf
  gunbai ruleset --format=textproto > daimyo-0.1.textproto
  gunbai ruleset --ruleset=house.textproto

Exit codes: 0 printed, 2 an unknown name, an unusable file or a bad
command line.)";

constexpr char kDiceFooter[] =
    R"(A test of fairness, not proof: a group is flagged when its dice are
unlikely for fair dice.

What it tests, for each clan in each game and, over several games, each
player: the faces against 1/6 each and the 2d6 totals against 2d6 (any
unfairness), the longest run of one face, and three one-sided tests aimed
at loaded dice: too many 6s, too many of another face, a total too high.
The tests of a group and then the groups of the report are combined so
that fair dice flag a report at most 1 time in 100, however many games it
holds (most of that 1% goes to the one-sided tests, and over several games
half to the players). Measured: a player whose die shows 6 at 1.3/6 is
flagged in about 21% of single games, 92% of 5-game reports and all
20-game ones (deploy/dice-fpr.sh; tests/bench/README.md has the table).

Examples:
  gunbai dice season-2024/*.textproto
  gunbai dice season-2024            (every log under the folder, by path)
  gunbai dice --format=json --server=127.0.0.1:50051 game.textproto

A corpus too large for one host is split into N shards: each run with
--shard=I/N (I from 0 to N-1) counts only the logs whose path hashes to I
and writes its part (--format=json); the merge tests the counts of every
game in corpus order and prints the report one run would have, byte for byte:
  gunbai dice --format=json --shard=$I/4 corpus > part-$I.json
  gunbai dice --merge part-*.json
Give every shard the same paths in the same order (a folder is). A merge
refuses parts of different runs, a shard twice or missing, and a part cut
short or edited.

Exit codes: 0 nothing flagged, 1 a group is flagged, 2 unusable input or
bad command line, 3 the daemon could not be reached or failed.)";

struct Options {
  std::string command;
  std::string log_path;
  std::string format = "text";
  std::string ruleset_path;
  std::string input_format = "auto";
  std::string server;
  std::string tls_ca;
  std::optional<uint64_t> at;
  bool digests = false;
  bool list = false;
  bool impact = false;
  bool readings = false;
  bool all_readings = false;
  bool any_reading = false;
  bool remedies = false;
  std::string procedure_path;
  std::vector<uint64_t> raised_at;
  bool outcomes = false;
  std::string branch_out;
  std::string output_path;  // -o: write the report here, not to stdout
  double px_per_cm = 5;     // map: the picture's scale
};

// The exit code for a failure of a call to the daemon: 2 when the input
// (or a file the client reads) is at fault, else 3.
int ServerFailureCode(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument ||
                 status.code() == absl::StatusCode::kNotFound
             ? kExitBadInput
             : kExitServer;
}

absl::StatusOr<replay::LogFormat> InputFormat(const Options& o) {
  if (o.input_format == "auto") return replay::FormatFromFileName(o.log_path);
  if (o.input_format == "text") return replay::LogFormat::kText;
  if (o.input_format == "json") return replay::LogFormat::kJson;
  if (o.input_format == "binary") return replay::LogFormat::kBinary;
  return absl::InvalidArgumentError(
      "--input-format is auto, text, json or binary");
}

absl::StatusOr<v1::BattleLog> ReadLog(const Options& o) {
  if (o.log_path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gunbai ", o.command,
                     " needs a LOG file (or - for "
                     "standard input)"));
  }
  GUNBAI_ASSIGN_OR_RETURN(auto format, InputFormat(o));
  GUNBAI_ASSIGN_OR_RETURN(auto bytes, ReadInputFile(o.log_path));
  const std::string source = o.log_path == "-" ? "<stdin>" : o.log_path;
  auto log = replay::ParseBattleLog(bytes, format, source);
  if (log.ok()) return log;
  // An exported live game (gunbai game export) holds its log.
  v1::ExportedGame game;
  if (replay::ParseMessage(bytes, format, source, game).ok() &&
      game.has_log()) {
    return std::move(*game.mutable_log());
  }
  return log.status();
}

absl::StatusOr<std::string> RulesetText(const Options& o) {
  if (o.ruleset_path.empty()) return std::string();
  return ReadInputFile(o.ruleset_path);
}

absl::StatusOr<replay::LoadedRuleset> LoadRulesetFor(const Options& o) {
  if (o.ruleset_path.empty())
    return replay::BuiltinRuleset(replay::DefaultRulesetName());
  GUNBAI_ASSIGN_OR_RETURN(auto text, RulesetText(o));
  return replay::LoadRuleset(text, o.ruleset_path);
}

// The ruleset to replay `log` under: the --ruleset file when given (a log
// for another ruleset is then refused by the audit), otherwise the built-in
// ruleset the log's header names.
absl::StatusOr<replay::LoadedRuleset> RulesetForLog(const Options& o,
                                                    const v1::BattleLog& log) {
  if (!o.ruleset_path.empty()) return LoadRulesetFor(o);
  GUNBAI_ASSIGN_OR_RETURN(auto catalog, replay::RulesetCatalog::Builtin());
  GUNBAI_ASSIGN_OR_RETURN(auto chosen, catalog.ForLog(log.header()));
  return *chosen;
}

int Fail(std::ostream& err, const absl::Status& status, int code) {
  err << "gunbai: " << status.message() << "\n";
  return code;
}

void Print(std::ostream& out, const std::string& text) {
  out << text;
  if (!text.empty() && text.back() != '\n') out << "\n";
}

// Writes each branch log to DIR/GAME_ID.textproto and names it on `err`.
absl::Status WriteBranches(const std::string& dir,
                           const std::vector<v1::BattleLog>& branches,
                           std::ostream& err) {
  if (dir.empty()) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--branch-out: cannot create the folder ", dir, ": ", ec.message()));
  }
  for (const v1::BattleLog& branch : branches) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(branch, &text);
    const std::string path = (std::filesystem::path(dir) /
                              (branch.header().game_id() + ".textproto"))
                                 .string();
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      return absl::InvalidArgumentError(
          absl::StrCat("--branch-out: cannot write ", path));
    }
    err << "wrote the corrected branch " << path << "\n";
  }
  return absl::OkStatus();
}

// Audits the log as a stream of events, never holding it whole, when it is a
// binary log file and one replay of it is all the options need (not
// --server, which sends the log, nor --impact, which replays it again per
// dispute). Returns nullopt when the log is not audited so, for the caller
// to read it whole: a text or JSON log, standard input, or a log the
// streamed audit gives up on (malformed or refused: the whole read gives
// the error message).
std::optional<v1::AuditReport> AuditStreamed(const Options& o) {
  if (!o.server.empty() || o.impact || o.readings || o.all_readings ||
      o.remedies || o.log_path.empty()) {
    return std::nullopt;
  }
  const absl::StatusOr<replay::LogFormat> format = InputFormat(o);
  if (!format.ok() || !IsBinaryLogFile(o.log_path, *format)) {
    return std::nullopt;
  }
  replay::AuditOptions options;
  options.record_outcomes = o.outcomes;
  absl::StatusOr<replay::StreamedAuditResult> streamed =
      replay::AuditBinaryLogStreamOrGiveUp(
          [&o] { return OpenFileStream(o.log_path); },
          [&o](const v1::BattleLog& head) { return RulesetForLog(o, head); },
          options, static_cast<std::int64_t>(replay::kMaxLogBytes));
  // Given up on, or failed: the whole read gives the report or the error.
  if (!streamed.ok()) return std::nullopt;
  return std::move(streamed->report);
}

// Prints (or with -o writes) `text`, the report; returns the audit's exit
// code, or 2 when the file cannot be written.
int EmitAudit(const Options& o, const v1::AuditReport& report,
              const std::string& text, std::ostream& out, std::ostream& err) {
  if (o.output_path.empty()) {
    Print(out, text);
  } else {
    absl::Status written = WriteOutputFile(o.output_path, text);
    if (!written.ok()) return Fail(err, written, kExitBadInput);
  }
  const bool fails =
      report.all_readings_checked()
          ? replay::AllReadingsHaveFailures(report, o.any_reading)
          : replay::ReportHasFailures(report);
  return fails ? kExitFindings : kExitClean;
}

int PrintAudit(const Options& o, const v1::AuditReport& report,
               std::ostream& out, std::ostream& err) {
  return EmitAudit(
      o, report,
      o.format == "json" ? FormatJson(report) : FormatReportText(report), out,
      err);
}

// The HTML page of `report`, the audit of `log`: the dice statistics and the
// stands over the game are worked out here, under the ruleset `log` is
// replayed under, whoever did the audit.
int PrintAuditHtml(const Options& o, const v1::BattleLog& log,
                   const v1::AuditReport& report, std::ostream& out,
                   std::ostream& err) {
  auto ruleset = RulesetForLog(o, log);
  if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
  auto data = GatherHtmlReportData(report, log, *ruleset);
  if (!data.ok()) return Fail(err, data.status(), kExitBadInput);
  return EmitAudit(o, report, FormatReportHtml(*data), out, err);
}

int RunAudit(const Options& o, std::ostream& out, std::ostream& err) {
  const bool html = o.format == "html";
  if (!html) {
    if (std::optional<v1::AuditReport> streamed = AuditStreamed(o)) {
      return PrintAudit(o, *streamed, out, err);
    }
  }
  auto log = ReadLog(o);
  if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
  absl::StatusOr<v1::AuditReport> report;
  if (!o.server.empty() && (o.readings || o.all_readings)) {
    return Fail(err,
                absl::InvalidArgumentError(
                    "--readings and --all-readings audit the log again under "
                    "other readings, here: give them without --server (the "
                    "JSON API and AuditLog take all_readings)"),
                kExitBadInput);
  }
  if (o.any_reading && !o.all_readings) {
    return Fail(err,
                absl::InvalidArgumentError(
                    "--any-reading says which findings of --all-readings fail "
                    "the exit code: give both"),
                kExitBadInput);
  }
  if (!o.server.empty()) {
    auto text = RulesetText(o);
    if (!text.ok()) return Fail(err, text.status(), kExitBadInput);
    report = AuditThroughServer(o.server, *log, *text, 256 << 20,
                                o.outcomes || html, o.impact, o.tls_ca);
    if (!report.ok()) {
      return Fail(err, report.status(), ServerFailureCode(report.status()));
    }
  } else {
    auto ruleset = RulesetForLog(o, *log);
    if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
    replay::AuditOptions options;
    // The page lists every event's outcomes.
    options.record_outcomes = o.outcomes || html;
    if (o.all_readings) {
      // The report is the ruleset's own branch, labeled; the other
      // branches give the labels.
      absl::StatusOr<replay::AllReadingsAudit> all =
          replay::AuditAllReadings(*log, *ruleset, options);
      if (!all.ok()) return Fail(err, all.status(), kExitBadInput);
      v1::AuditReport labeled = all->branches[0].report;
      replay::LabelAllReadings(*all, labeled);
      report = std::move(labeled);
    } else {
      report = replay::AuditLog(*log, *ruleset, options);
    }
    if (!report.ok()) return Fail(err, report.status(), kExitBadInput);
    if (o.impact) {
      std::vector<v1::BattleLog> branches;
      absl::Status impact = replay::AddImpacts(
          *log, *ruleset, *report, o.branch_out.empty() ? nullptr : &branches);
      if (!impact.ok()) return Fail(err, impact, kExitBadInput);
      absl::Status written = WriteBranches(o.branch_out, branches, err);
      if (!written.ok()) return Fail(err, written, kExitBadInput);
    }
    if (o.readings) {
      absl::Status readings =
          replay::AddFindingReadings(*log, *ruleset, *report);
      if (!readings.ok()) return Fail(err, readings, kExitBadInput);
    }
  }
  if (o.remedies) {
    // The remedies read the report and the log only: they are ordered here
    // for a report from gunbaid too.
    replay::LoadedProcedure procedure = replay::DefaultProcedure();
    if (!o.procedure_path.empty()) {
      auto text = ReadInputFile(o.procedure_path);
      if (!text.ok()) return Fail(err, text.status(), kExitBadInput);
      auto loaded = replay::LoadProcedure(*text, o.procedure_path);
      if (!loaded.ok()) return Fail(err, loaded.status(), kExitBadInput);
      procedure = *std::move(loaded);
    }
    replay::RemedyOptions remedy_options;
    remedy_options.raised_at = o.raised_at;
    replay::AddRemedies(*log, procedure, remedy_options, *report);
  }
  if (html) return PrintAuditHtml(o, *log, *report, out, err);
  return PrintAudit(o, *report, out, err);
}

int RunState(const Options& o, std::ostream& out, std::ostream& err) {
  auto log = ReadLog(o);
  if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
  auto ruleset = RulesetForLog(o, *log);
  if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
  if (o.digests) {
    auto digests = replay::StateDigests(*log, *ruleset);
    if (!digests.ok()) return Fail(err, digests.status(), kExitBadInput);
    for (const auto& d : *digests) out << d.seq << " " << d.digest << "\n";
    return kExitClean;
  }
  auto state = replay::StateAt(*log, *ruleset, o.at);
  if (!state.ok()) return Fail(err, state.status(), kExitBadInput);
  if (o.format == "start") {
    std::string text;
    google::protobuf::TextFormat::PrintToString(
        replay::StartingPositionFromSnapshot(*state), &text);
    Print(out, absl::StrCat("starting_position {\n", text, "}\n"));
    return kExitClean;
  }
  Print(out, o.format == "json" ? FormatJson(*state) : FormatStateText(*state));
  return kExitClean;
}

int RunMap(const Options& o, std::ostream& out, std::ostream& err) {
  auto log = ReadLog(o);
  if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
  auto ruleset = RulesetForLog(o, *log);
  if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
  auto scene = replay::SceneAt(*log, *ruleset, o.at.value_or(0));
  if (!scene.ok()) return Fail(err, scene.status(), kExitBadInput);
  const std::string svg = RenderMapSvg(*scene, o.px_per_cm);
  if (o.output_path.empty()) {
    Print(out, svg);
    return kExitClean;
  }
  absl::Status written = WriteOutputFile(o.output_path, svg);
  if (!written.ok()) return Fail(err, written, kExitBadInput);
  return kExitClean;
}

int RunRuleset(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.list) {
    for (const rules::RulesetPlugin& plugin : rules::RulesetPlugins()) {
      auto ruleset = replay::BuiltinRuleset(plugin.name);
      if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
      out << plugin.name << " " << ruleset->data.version() << "  "
          << plugin.title << "\n  sha256:" << ruleset->digest << "\n";
    }
    return kExitClean;
  }
  auto ruleset = o.ruleset_path.empty() && !o.log_path.empty()
                     ? replay::BuiltinRuleset(o.log_path)
                     : LoadRulesetFor(o);
  if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
  if (o.format == "json") {
    Print(out, FormatJson(ruleset->data));
  } else if (o.format == "textproto") {
    // A file that loads to the same data, hence the same digest.
    std::string text;
    google::protobuf::TextFormat::PrintToString(ruleset->data, &text);
    out << "# The " << ruleset->data.name() << " ruleset "
        << ruleset->data.version() << ", sha256:" << ruleset->digest
        << "\n# proto-message: gunbai.v1.Ruleset\n"
        << text;
  } else {
    out << "ruleset " << ruleset->data.name() << " " << ruleset->data.version()
        << "\nsha256:" << ruleset->digest << "\n";
  }
  return kExitClean;
}

// The DicePart.part_format this release writes and merges.
constexpr uint32_t kDicePartFormat = 1;

// Returns a message saying what is wrong with the combination of dice
// options, empty when they make sense.
std::string CheckDiceOptions(const Options& o, const ShardChoice& shard,
                             bool merge) {
  if (merge && (shard.sharded() || !o.server.empty())) {
    return "--merge combines parts already written: give it only the part "
           "files (and --format)";
  }
  if (shard.sharded() && !o.server.empty()) {
    return "--shard runs here, on this host's share of the corpus: drop "
           "--server";
  }
  if (shard.sharded() && o.format != "json") {
    return "--shard writes a part for `gunbai dice --merge`: add "
           "--format=json";
  }
  return "";
}

// A part as one line of JSON, every field written (a position or a count
// of 0 too), for a person or a script that reads the parts.
std::string DiceJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

// `gunbai dice --merge PART...`: adds each game's tallies in corpus order,
// so the report is the one a single run over the whole corpus prints.
absl::StatusOr<replay::DiceReport> MergeDiceParts(
    const std::vector<std::string>& paths) {
  std::vector<v1::DicePart> parts;
  std::vector<PartHeader> headers;
  for (const std::string& path : paths) {
    GUNBAI_ASSIGN_OR_RETURN(
        auto part, LoadPart<v1::DicePart>(path, "dice", kDicePartFormat));
    headers.push_back({path, part.shard(), part.shards(), part.corpus_logs(),
                       "logs", static_cast<uint64_t>(part.logs_size())});
    parts.push_back(std::move(part));
  }
  GUNBAI_RETURN_IF_ERROR(CheckPartsFit(headers));
  const uint64_t total = parts.front().corpus_logs();
  std::vector<const v1::DicePartLog*> by_position(total, nullptr);
  PositionCheck positions(total);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (const v1::DicePartLog& log : parts[i].logs()) {
      GUNBAI_RETURN_IF_ERROR(positions.Fill(paths[i], log.position()));
      by_position[log.position()] = &log;
    }
  }
  GUNBAI_RETURN_IF_ERROR(positions.Complete());
  replay::DiceSummarizer summarizer;
  for (uint64_t position = 0; position < total; ++position) {
    std::vector<replay::DiceGroupStats> clans;
    for (const v1::DiceTally& tally : by_position[position]->clans()) {
      auto group = replay::DiceTallyFromProto(tally);
      if (!group.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "log ", position, " of the corpus: ", group.status().message(),
            "; write the part again, do not edit it"));
      }
      clans.push_back(*std::move(group));
    }
    summarizer.AddGame(std::move(clans));
  }
  return std::move(summarizer).Finish();
}

// Runs `gunbai dice`: the dice statistics of the logs at `paths`, one game
// or a corpus, worked out here or by a gunbaid (the same output); with
// `shard`, this host's part of them for a merge; with `merge`, the report
// of the parts at `paths`. Exits 1 when a group is flagged.
int RunDice(Options o, std::vector<std::string> paths, ShardChoice shard,
            bool merge, std::ostream& out, std::ostream& err) {
  if (std::string wrong = CheckDiceOptions(o, shard, merge); !wrong.empty()) {
    err << "gunbai dice: " << wrong << "\n";
    return kExitBadInput;
  }
  if (!merge) paths = ExpandFolders(paths, kLogExtensions);
  if (paths.empty()) paths.push_back("");  // ReadLog says a LOG is needed
  auto read = [&o](const std::string& path) {
    o.log_path = path;
    return ReadLog(o);
  };
  absl::StatusOr<replay::DiceReport> report;
  if (merge) {
    report = MergeDiceParts(paths);
  } else if (shard.sharded()) {
    v1::DicePart part;
    part.set_part_format(kDicePartFormat);
    part.set_shard(shard.shard);
    part.set_shards(shard.shards);
    part.set_corpus_logs(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (!InShard(paths[i], shard)) continue;
      auto log = read(paths[i]);
      if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
      auto clans = replay::TallyClans(*log);
      if (!clans.ok()) {
        return Fail(err,
                    absl::InvalidArgumentError(
                        absl::StrCat(paths[i], ": ", clans.status().message())),
                    kExitBadInput);
      }
      v1::DicePartLog* entry = part.add_logs();
      entry->set_position(i);
      for (const replay::DiceGroupStats& group : *clans) {
        *entry->add_clans() = replay::DiceTallyToProto(group);
      }
    }
    out << DiceJson(part) << "\n";
    return kExitClean;
  } else if (o.server.empty()) {
    // One log in memory at a time: a corpus of any size fits.
    replay::DiceSummarizer summarizer;
    for (const std::string& path : paths) {
      auto log = read(path);
      if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
      if (absl::Status s = summarizer.AddLog(*log); !s.ok()) {
        return Fail(err, s, kExitBadInput);
      }
    }
    report = std::move(summarizer).Finish();
  } else {
    std::vector<v1::BattleLog> logs;
    for (const std::string& path : paths) {
      auto log = read(path);
      if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
      logs.push_back(*std::move(log));
    }
    auto remote = DiceStatsThroughServer(o.server, logs, 256 << 20, o.tls_ca);
    if (!remote.ok()) {
      return Fail(err, remote.status(), ServerFailureCode(remote.status()));
    }
    report = replay::DiceReportFromProto(*remote);
  }
  if (!report.ok()) return Fail(err, report.status(), kExitBadInput);
  Print(out, o.format == "json" ? replay::FormatDiceJson(*report)
                                : replay::FormatDiceText(*report));
  return report->AnyFlagged() ? kExitFindings : kExitClean;
}

CLI::Option* AddFormatOption(CLI::App& command, Options& o) {
  return AddChoiceOption(command, "--format", o.format, {"text", "json"},
                         "text for people, json for scripts");
}

void AddLogOptions(CLI::App& command, Options& o) {
  command
      .add_option("LOG", o.log_path, "the battle log (\"-\": standard input)")
      ->required();
  command
      .add_option("--ruleset", o.ruleset_path,
                  "replay under this ruleset file (text format of "
                  "gunbai.v1.Ruleset) instead of the built-in ruleset the "
                  "log's header names")
      ->type_name("FILE");
  AddChoiceOption(command, "--input-format", o.input_format,
                  {"auto", "text", "json", "binary"}, "how to read LOG");
}

void AddAuditCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<Options>();
  o->command = "audit";
  CLI::App* audit = app.add_subcommand(
      "audit", "audit LOG against the rules and print the report");
  audit->footer(kAuditFooter);
  AddLogOptions(*audit, *o);
  AddChoiceOption(*audit, "--format", o->format, {"text", "json", "html"},
                  "text for people, json for scripts (gunbai.v1.AuditReport), "
                  "html: one self-contained page with pictures, for a "
                  "browser or a mail");
  audit
      ->add_option("-o,--output", o->output_path,
                   "write the report to FILE (whole or not at all) instead "
                   "of standard output")
      ->type_name("FILE")
      ->check(CLI::Validator(
          [](std::string& path) {
            return path.empty() ? std::string(
                                      "give a file name, not an "
                                      "empty value")
                                : std::string();
          },
          ""));
  AddServerOption(*audit, o->server, "does the audit");
  AddTlsCaOption(*audit, o->tls_ca);
  audit->add_flag("--outcomes", o->outcomes,
                  "record every outcome worked out (in --format=json), for "
                  "baselines of gunbai diff");
  audit->add_flag("--impact", o->impact,
                  "for each disputed outcome, replay the game again with the "
                  "computed outcome and report what would have gone "
                  "differently downstream (stands, routs, removals, leaders, "
                  "the winner), up to the first event the corrected game "
                  "makes impossible");
  audit->add_flag("--remedies", o->remedies,
                  "under each finding, what the agreed error-resolution "
                  "procedure orders: it stands (sealed by a later roll) or "
                  "play goes back, with the rolls to make again (gunbai "
                  "remedy writes the log to go on from)");
  audit
      ->add_option("--procedure", o->procedure_path,
                   "with --remedies: the procedure file (default "
                   "rules/procedures/pbem-default.textproto)")
      ->type_name("FILE");
  audit
      ->add_option("--raised-at", o->raised_at,
                   "with --remedies: the errors before event SEQ were raised "
                   "before its roll (repeatable)")
      ->type_name("SEQ");
  audit->add_flag("--readings", o->readings,
                  "audit the log again under each other reading of the "
                  "ruleset's options (rules/daimyo/RULES.md, \"Readings\") and "
                  "say of each finding whether it holds under every reading "
                  "or which it rests on");
  audit->add_flag(
      "--all-readings", o->all_readings,
      "audit the log under every combination of the ruleset's reading "
      "options at once (128 for Daimyo: they share one replay until a "
      "reading could change something) and say of each finding whether it "
      "holds under every reading or under which; findings only other "
      "readings give are listed too. The exit code then counts only "
      "findings that hold under every reading");
  audit->add_flag("--any-reading", o->any_reading,
                  "with --all-readings: a finding under any reading fails "
                  "the exit code");
  audit
      ->add_option("--branch-out", o->branch_out,
                   "with --impact, locally: write each corrected branch as a "
                   "log, DIR/GAME-corrected-at-SEQ.textproto, whose claims are "
                   "the branch's outcomes, cut before the event it makes "
                   "impossible")
      ->type_name("DIR");
  audit->callback(
      [o, &context] { context.code = RunAudit(*o, context.out, context.err); });
}

void AddStateCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<Options>();
  o->command = "state";
  CLI::App* state = app.add_subcommand(
      "state", "print the battle state after an event of LOG");
  state->footer(kStateFooter);
  AddLogOptions(*state, *o);
  AddChoiceOption(*state, "--format", o->format, {"text", "json", "start"},
                  "text for people, json for scripts, start: the state as a "
                  "log's starting_position (text format), to paste into the "
                  "log of the events after it");
  state
      ->add_option_function<uint64_t>(
          "--at", [o](const uint64_t& seq) { o->at = seq; },
          "show the state right after event SEQ (default: after the last "
          "event)")
      ->type_name("SEQ");
  state->add_flag("--digests", o->digests,
                  "print the state digest after every event");
  state->callback(
      [o, &context] { context.code = RunState(*o, context.out, context.err); });
}

void AddMapCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<Options>();
  o->command = "map";
  CLI::App* map =
      app.add_subcommand("map", "draw the table of LOG after an event, as SVG");
  map->footer(kMapFooter);
  AddLogOptions(*map, *o);
  map->add_option_function<uint64_t>(
         "--at", [o](const uint64_t& seq) { o->at = seq; },
         "draw the table right after event SEQ (default 0: before the first "
         "event)")
      ->type_name("SEQ");
  map->add_option("-o,--output", o->output_path,
                  "write the SVG to FILE (whole or not at all) instead of "
                  "standard output")
      ->type_name("FILE");
  map->add_option("--scale", o->px_per_cm,
                  "pixels a centimetre of table, 0.5 to 50 (default 5: a "
                  "180 cm table is 950 pixels wide with its margins)")
      ->type_name("PX")
      ->check(CLI::Range(0.5, 50.0));
  map->callback(
      [o, &context] { context.code = RunMap(*o, context.out, context.err); });
}

void AddRulesetCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<Options>();
  o->command = "ruleset";
  CLI::App* ruleset = app.add_subcommand(
      "ruleset",
      "print a ruleset (default daimyo) and its digest, or list the "
      "built-in ones");
  ruleset->footer(kRulesetFooter);
  ruleset->add_option("NAME", o->log_path,
                      "a built-in ruleset (gunbai ruleset --list)");
  ruleset
      ->add_option("--ruleset", o->ruleset_path,
                   "print this ruleset file instead (text format of "
                   "gunbai.v1.Ruleset)")
      ->type_name("FILE");
  ruleset->add_flag("--list", o->list,
                    "list the built-in rulesets with their digests");
  AddChoiceOption(*ruleset, "--format", o->format,
                  {"text", "json", "textproto"},
                  "text: name, version and digest; json: the whole ruleset; "
                  "textproto: a ruleset file with the same digest");
  ruleset->callback([o, &context] {
    context.code = RunRuleset(*o, context.out, context.err);
  });
}

void AddDiceCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<Options>();
  o->command = "dice";
  auto paths = std::make_shared<std::vector<std::string>>();
  auto shard = std::make_shared<ShardChoice>();
  auto merge = std::make_shared<bool>(false);
  CLI::App* dice = app.add_subcommand(
      "dice",
      "dice statistics per clan and player, a test of fairness, not proof "
      "(1: flagged)");
  dice->footer(kDiceFooter);
  dice->add_option("LOG", *paths,
                   "battle logs (\"-\": standard input), in the order given; "
                   "a folder: every log under it, by path; with --merge, the "
                   "parts")
      ->required();
  AddFormatOption(*dice, *o);
  AddServerOption(*dice, o->server, "works out the statistics");
  AddTlsCaOption(*dice, o->tls_ca);
  AddShardOption(*dice, *shard,
                 "count only shard I of N (0 <= I < N) of the logs: those "
                 "whose path hashes to I; with --format=json the output is a "
                 "part for --merge");
  dice->add_flag("--merge", *merge,
                 "LOG is the N parts of a sharded run: print the report one "
                 "run over the whole corpus would have printed");
  dice->callback([o, paths, shard, merge, &context] {
    context.code =
        RunDice(*o, *paths, *shard, *merge, context.out, context.err);
  });
}

// `gunbai help [COMMAND...]`, `gunbai completion bash` and `gunbai man`:
// what the definitions above say about themselves.
void AddSelfDescribingCommands(CLI::App& app, CliContext& context) {
  auto path = std::make_shared<std::vector<std::string>>();
  CLI::App* help =
      app.add_subcommand("help", "print this help, or a command's");
  help->add_option("COMMAND", *path, "a command, e.g. audit or game create");
  help->callback([&app, path, &context] {
    CLI::App* command = &app;
    for (const std::string& name : *path) {
      CLI::App* sub = nullptr;
      for (CLI::App* candidate :
           command->get_subcommands([](CLI::App*) { return true; })) {
        if (candidate->get_name() == name) sub = candidate;
      }
      if (sub == nullptr) {
        context.err << "gunbai help: no command \"" << name
                    << "\"\nRun `gunbai --help` for the commands.\n";
        context.code = kExitBadInput;
        return;
      }
      command = sub;
    }
    context.out << command->help();
  });
  auto shell = std::make_shared<std::string>("bash");
  CLI::App* completion = app.add_subcommand(
      "completion", "print a shell completion script for gunbai");
  completion->footer(
      "Example:\n  gunbai completion bash > "
      "/usr/share/bash-completion/completions/gunbai\n  source <(gunbai "
      "completion bash)");
  AddChoiceOption(*completion, "SHELL", *shell, {"bash"}, "the shell");
  // The callback holds `shell`, the option's variable, for the app's life.
  completion->callback(
      [&app, &context, shell] { context.out << BashCompletion(app); });
  CLI::App* man =
      app.add_subcommand("man", "print gunbai's man page (roff, section 1)");
  man->footer("Example:\n  gunbai man > gunbai.1 && man ./gunbai.1");
  man->callback([&app, &context] { context.out << ManPage(app, 1); });
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  CliContext context{out, err};
  CLI::App app(kDescription, "gunbai");
  app.footer(kFooter);
  app.set_version_flag(
      "--version", [] { return VersionText("gunbai"); },
      "print gunbai's version, its built-in rulesets' "
      "digests and the gRPC and protobuf versions");
  app.require_subcommand(1);
  UseGunbaiHelpFormat(app);
  AddAuditCommand(app, context);
  AddStateCommand(app, context);
  AddMapCommand(app, context);
  AddRulesetCommand(app, context);
  AddGameCommands(app, context);
  AddDiceCommand(app, context);
  AddDiffCommand(app, context);
  AddVerifyCommand(app, context);
  AddReconcileCommand(app, context);
  AddRemedyCommand(app, context);
  AddTournamentCommand(app, context);
  AddKeyCommand(app, context);
  AddStoreCommands(app, context);
  AddHealthCommand(app, context);
  AddExplainCommand(app, context);
  AddGenerateCommand(app, context);
  AddSelfDescribingCommands(app, context);
  if (args.empty()) {
    out << app.help();
    return kExitBadInput;
  }
  return RunParsed(app, args, context);
}

}  // namespace gunbai::service
