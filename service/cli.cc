#include "service/cli.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "replay/audit.h"
#include "replay/dice_stats.h"
#include "replay/impact.h"
#include "replay/log_parser.h"
#include "replay/log_stream.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "service/audit_client.h"
#include "service/cli_input.h"
#include "service/diff_cli.h"
#include "service/explain_cli.h"
#include "service/game_cli.h"
#include "service/generate_cli.h"
#include "service/report_format.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

constexpr char kUsage[] =
    R"(gunbai - replay a wargame battle log and audit it against the rules

gunbai reads a battle log (the armies, then every declared action and every
die rolled, in order), replays it through the rules, and reports every rule
violation and every disputed outcome with the arithmetic that proves it.
Built-in rules: Daimyo, Samurai Wargames Rules 1550-1615 (firing, melee,
morale), and more (gunbai ruleset --list); each log is replayed under the
ruleset its header names.

Usage:
  gunbai audit [options] LOG     audit LOG and print the report
  gunbai state [options] LOG     print the battle state after an event
  gunbai ruleset [NAME | --ruleset F | --list] [--format=textproto]
                                 print a ruleset (default daimyo) and its
                                 digest, or list the built-in ones;
                                 textproto prints a ruleset file with the
                                 same digest (keep one before upgrading:
                                 live games are bound to their digest)
  gunbai game COMMAND ...        live games on a gunbaid: create, append,
                                 show, watch, export, audit (gunbai game
                                 --help)
  gunbai dice [--format=text|json] [--server=HOST:PORT] LOG...
                                 dice statistics per clan and player, a
                                 test of fairness, not proof (1: flagged)
  gunbai diff [options] CORPUS...
                                 which results of real games change under
                                 another ruleset, or against saved reports
                                 of an earlier release (gunbai diff --help)
  gunbai verify GAME [--ruleset=FILE]
                                 check an exported game for tampering: the
                                 chain of event hashes and, for server dice,
                                 every die against the revealed secret (and
                                 the dice count of every event under the
                                 game's ruleset: the built-in one its header
                                 names, or FILE)
  gunbai explain RULE            how gunbai reads a rule a finding names
                                 (e.g. daimyo.fire.hit), from its rules
                                 docs; a prefix or --list lists them
  gunbai generate [options]      write a random Daimyo game that audits
                                 clean, or one with known faults planted
                                 (gunbai generate --help)
  gunbai help                    print this help

LOG is a battle log (or a game from `gunbai game export`) in protobuf text
format (.textproto), JSON (.json) or binary
(.pb); the format is taken from the extension or, failing that, from the
content. "-" reads standard input.

Options:
  --format=text|json     text for people (default), json for scripts
  --ruleset=FILE         use this ruleset file (text format of
                         gunbai.v1.Ruleset) instead of the built-in ruleset
                         the log's header names (header.ruleset.name and
                         version; a log naming none is a Daimyo log)
  --input-format=auto|text|json|binary
                         how to read LOG (default auto)
  --server=HOST:PORT     audit: let a running gunbaid do the audit
  --at=SEQ               state: show the state right after event SEQ
                         (default: after the last event)
  --digests              state: print the state digest after every event
  --outcomes             audit: record every outcome worked out (in
                         --format=json), for baselines of gunbai diff
  --impact               audit: for each disputed outcome, replay the game
                         again with the computed outcome and report what
                         would have gone differently downstream (stands,
                         routs, removals, leaders, the winner), up to the
                         first event the corrected game makes impossible
  --branch-out=DIR       audit --impact: write each corrected branch as a
                         log, DIR/GAME-corrected-at-SEQ.textproto, whose
                         claims are the branch's outcomes, cut before the
                         event it makes impossible (it audits with no
                         dispute of its own)

Examples:
  gunbai audit tests/data/sekigahara.textproto
  gunbai audit --format=json game.json > report.json
  gunbai audit --impact tests/data/nagashino-melee.textproto
  gunbai state --at=12 tests/data/sekigahara.textproto
  gunbai audit --server=127.0.0.1:50051 game.textproto

Exit codes:
  0  clean: no violation, dispute or warning (unverifiable findings allowed)
  1  the audit found violations, disputes or warnings
  2  unusable input: unreadable file, malformed log or ruleset, bad order of
     battle, bad command line (the message says where)
  3  the daemon could not be reached or failed
)";

struct Options {
  std::string command;
  std::string log_path;
  std::string format = "text";
  std::string ruleset_path;
  std::string input_format = "auto";
  std::string server;
  std::optional<uint64_t> at;
  bool digests = false;
  bool list = false;
  bool impact = false;
  bool outcomes = false;
  std::string branch_out;
};

// Splits "--name=value" or "--name value" and fills `options`. Returns an
// error message, empty on success.
std::string ParseArgs(const std::vector<std::string>& args, Options& o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!absl::StartsWith(arg, "--") || arg == "-") {
      if (o.command.empty()) {
        o.command = arg;
      } else if (o.log_path.empty()) {
        o.log_path = arg;
      } else {
        return absl::StrCat("unexpected argument \"", arg, "\"");
      }
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "help") {
      o.command = "help";
      continue;
    }
    if (name == "digests") {
      o.digests = true;
      continue;
    }
    if (name == "outcomes") {
      o.outcomes = true;
      continue;
    }
    if (name == "list") {
      o.list = true;
      continue;
    }
    if (name == "impact") {
      o.impact = true;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size())
        return absl::StrCat("--", name, " needs a value");
      value = args[++i];
    }
    if (name == "format") {
      if (value != "text" && value != "json" && value != "textproto") {
        return "--format is text or json (or textproto, for gunbai ruleset)";
      }
      o.format = value;
    } else if (name == "ruleset") {
      o.ruleset_path = value;
    } else if (name == "input-format") {
      o.input_format = value;
    } else if (name == "branch-out") {
      o.branch_out = value;
    } else if (name == "server") {
      o.server = value;
    } else if (name == "at") {
      uint64_t seq = 0;
      if (!absl::SimpleAtoi(value, &seq)) return "--at takes an event seq";
      o.at = seq;
    } else {
      return absl::StrCat("unknown option --", name);
    }
  }
  return "";
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
  auto format = InputFormat(o);
  if (!format.ok()) return format.status();
  auto bytes = ReadInputFile(o.log_path);
  if (!bytes.ok()) return bytes.status();
  const std::string source = o.log_path == "-" ? "<stdin>" : o.log_path;
  auto log = replay::ParseBattleLog(*bytes, *format, source);
  if (log.ok()) return log;
  // An exported live game (gunbai game export) holds its log.
  v1::ExportedGame game;
  if (replay::ParseMessage(*bytes, *format, source, game).ok() &&
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
  if (o.ruleset_path.empty()) return replay::BuiltinDaimyoRuleset();
  auto text = RulesetText(o);
  if (!text.ok()) return text.status();
  return replay::LoadRuleset(*text, o.ruleset_path);
}

// The ruleset to replay `log` under: the --ruleset file when given (a log
// for another ruleset is then refused by the audit), otherwise the built-in
// ruleset the log's header names.
absl::StatusOr<replay::LoadedRuleset> RulesetForLog(const Options& o,
                                                    const v1::BattleLog& log) {
  if (!o.ruleset_path.empty()) return LoadRulesetFor(o);
  auto catalog = replay::RulesetCatalog::Builtin();
  if (!catalog.ok()) return catalog.status();
  auto chosen = catalog->ForLog(log.header());
  if (!chosen.ok()) return chosen.status();
  return **chosen;
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
  if (!o.server.empty() || o.impact || o.log_path.empty()) return std::nullopt;
  const absl::StatusOr<replay::LogFormat> format = InputFormat(o);
  if (!format.ok() || !IsBinaryLogFile(o.log_path, *format)) {
    return std::nullopt;
  }
  replay::AuditOptions options;
  options.record_outcomes = o.outcomes;
  absl::StatusOr<v1::AuditReport> report = replay::AuditBinaryLogStream(
      [&o] { return OpenFileStream(o.log_path); },
      [&o](const v1::BattleLog& head) { return RulesetForLog(o, head); },
      options, static_cast<std::int64_t>(replay::kMaxLogBytes));
  if (!report.ok()) return std::nullopt;
  return *std::move(report);
}

int PrintAudit(const Options& o, const v1::AuditReport& report,
               std::ostream& out) {
  Print(out,
        o.format == "json" ? FormatJson(report) : FormatReportText(report));
  return replay::ReportHasFailures(report) ? kExitFindings : kExitClean;
}

int RunAudit(const Options& o, std::ostream& out, std::ostream& err) {
  if (std::optional<v1::AuditReport> streamed = AuditStreamed(o)) {
    return PrintAudit(o, *streamed, out);
  }
  auto log = ReadLog(o);
  if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
  absl::StatusOr<v1::AuditReport> report;
  if (!o.server.empty()) {
    auto text = RulesetText(o);
    if (!text.ok()) return Fail(err, text.status(), kExitBadInput);
    report = AuditThroughServer(o.server, *log, *text, 256 << 20, o.outcomes,
                                o.impact);
    if (!report.ok()) {
      const bool bad_input =
          report.status().code() == absl::StatusCode::kInvalidArgument;
      return Fail(err, report.status(),
                  bad_input ? kExitBadInput : kExitServer);
    }
  } else {
    auto ruleset = RulesetForLog(o, *log);
    if (!ruleset.ok()) return Fail(err, ruleset.status(), kExitBadInput);
    replay::AuditOptions options;
    options.record_outcomes = o.outcomes;
    report = replay::AuditLog(*log, *ruleset, options);
    if (!report.ok()) return Fail(err, report.status(), kExitBadInput);
    if (o.impact) {
      std::vector<v1::BattleLog> branches;
      absl::Status impact = replay::AddImpacts(
          *log, *ruleset, *report, o.branch_out.empty() ? nullptr : &branches);
      if (!impact.ok()) return Fail(err, impact, kExitBadInput);
      absl::Status written = WriteBranches(o.branch_out, branches, err);
      if (!written.ok()) return Fail(err, written, kExitBadInput);
    }
  }
  return PrintAudit(o, *report, out);
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
  Print(out, o.format == "json" ? FormatJson(*state) : FormatStateText(*state));
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

// Runs `gunbai dice [--format=text|json] [--server=HOST:PORT] LOG...`: the
// dice statistics of one game or a corpus, worked out here or by a gunbaid
// (the same output). Exits 1 when a group is flagged.
int RunDice(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  Options o;
  o.command = "dice";
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--format=text" || arg == "--format=json") {
      o.format = arg.substr(sizeof("--format=") - 1);
    } else if (absl::StartsWith(arg, "--server=")) {
      o.server = arg.substr(sizeof("--server=") - 1);
    } else if (arg == "--server" && i + 1 < args.size()) {
      o.server = args[++i];
    } else if (absl::StartsWith(arg, "--")) {
      err << "gunbai: dice takes --format=text|json, --server=HOST:PORT and "
             "LOG files, not \""
          << arg << "\"\n";
      return kExitBadInput;
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty()) paths.push_back("");  // ReadLog says a LOG is needed
  std::vector<v1::BattleLog> logs;
  for (const std::string& path : paths) {
    o.log_path = path;
    auto log = ReadLog(o);
    if (!log.ok()) return Fail(err, log.status(), kExitBadInput);
    logs.push_back(*std::move(log));
  }
  absl::StatusOr<replay::DiceReport> report;
  if (o.server.empty()) {
    report = replay::SummarizeDice(logs);
  } else {
    auto remote = DiceStatsThroughServer(o.server, logs, 256 << 20);
    if (!remote.ok()) {
      const bool bad_input =
          remote.status().code() == absl::StatusCode::kInvalidArgument;
      return Fail(err, remote.status(),
                  bad_input ? kExitBadInput : kExitServer);
    }
    report = replay::DiceReportFromProto(*remote);
  }
  if (!report.ok()) return Fail(err, report.status(), kExitBadInput);
  Print(out, o.format == "json" ? replay::FormatDiceJson(*report)
                                : replay::FormatDiceText(*report));
  return report->AnyFlagged() ? kExitFindings : kExitClean;
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  if (!args.empty() && args[0] == "game") {
    return RunGameCli({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "dice") {
    return RunDice({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "diff") {
    return RunDiffCli({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "generate") {
    return RunGenerateCli({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "explain") {
    return RunExplainCli({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "verify") {
    return RunVerifyCli({args.begin() + 1, args.end()}, out, err);
  }
  Options o;
  const std::string error = ParseArgs(args, o);
  if (!error.empty()) {
    err << "gunbai: " << error << "\nRun `gunbai --help` for usage.\n";
    return kExitBadInput;
  }
  if (o.command.empty() || o.command == "help") {
    out << kUsage;
    return o.command.empty() && args.empty() ? kExitBadInput : kExitClean;
  }
  if (o.command == "audit") return RunAudit(o, out, err);
  if (o.command == "state") return RunState(o, out, err);
  if (o.command == "ruleset") return RunRuleset(o, out, err);
  err << "gunbai: unknown command \"" << o.command
      << "\"\nRun `gunbai --help` for usage.\n";
  return kExitBadInput;
}

}  // namespace gunbai::service
