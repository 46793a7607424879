#include "service/cli/remedy_cli.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "replay/audit.h"
#include "replay/log_parser.h"
#include "replay/remedy.h"
#include "replay/ruleset_loader.h"
#include "rules/status_macros.h"
#include "service/cli/cli_input.h"
#include "service/common/exit_codes.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kRemedyFooter[] =
    R"(What the error-resolution procedure the players agreed orders for a log
with errors: for each violation or dispute the audit finds, whether it
stands (a later legal roll by the other side sealed it, unless it was
raised before that roll) or play goes back; then, for the whole game, the
event after which play resumes, the clan that moves again, and every roll
to make again. With -o it writes the log up to that event: the game to go
on from, which audits with none of the findings but those that stand.

The procedure is a text file (proto/gunbai/v1/procedure.proto); without
--procedure, rules/procedures/pbem-default.textproto: a later roll seals,
a raised error stays open, an error re-rolls every roll of its segment
(the phase of the activation it falls in) and the erring side redoes its
move from the error. rules/README.md, "Remedies", says why.

Examples:
  gunbai remedy game.textproto
  gunbai remedy game.textproto --raised-at 41 -o resume.textproto
  gunbai remedy game.textproto --procedure strict.textproto --format=json

Exit codes: 0 nothing to redo (no error, or every error stands), 1 play
goes back (the plan says where), 2 the log or the procedure cannot be read.)";

struct RemedyCliOptions {
  std::string log_path;
  std::string ruleset_path;
  std::string procedure_path;
  std::vector<std::uint64_t> raised_at;
  std::string format = "text";
  std::string output_path;
};

std::string PlanText(const v1::AuditReport& report,
                     const replay::RemedyPlan& plan) {
  std::string out = absl::StrCat(
      "gunbai remedy of game \"", report.game_id(), "\" under procedure ",
      report.procedure().name(), " ", report.procedure().version(),
      " (sha256:", report.procedure().digest(), ")\n");
  for (const v1::Finding& f : report.findings()) {
    absl::StrAppend(&out, "  seq ", f.seq(), "  ", f.rule_id());
    if (!f.subject().empty()) absl::StrAppend(&out, "  [", f.subject(), "]");
    absl::StrAppend(&out, "\n    ", f.remedy().text(), "\n");
  }
  if (report.findings().empty()) {
    absl::StrAppend(&out, "  no finding: nothing to remedy\n");
  }
  if (!plan.redo) {
    absl::StrAppend(&out, "plan: play goes on from the end of the log");
    if (!plan.standing_seqs.empty()) {
      absl::StrAppend(&out, "; the errors at seq ",
                      absl::StrJoin(plan.standing_seqs, ", "), " stand");
    }
    absl::StrAppend(&out, "\n");
    return out;
  }
  absl::StrAppend(
      &out, "plan: keep the log up to seq ", plan.resume_after_seq, " (",
      plan.kept.events_size(), " events) and play again from there",
      plan.redo_clan.empty()
          ? std::string()
          : absl::StrCat("; ", plan.redo_clan, " makes its move again"),
      "\n");
  if (plan.reroll_seqs.empty()) {
    absl::StrAppend(&out, "  nothing is rolled again\n");
  } else {
    absl::StrAppend(&out, "  roll again (", plan.reroll_seqs.size(), "): seq ",
                    absl::StrJoin(plan.reroll_seqs, ", "), "\n");
  }
  if (!plan.standing_seqs.empty()) {
    absl::StrAppend(&out, "  the errors at seq ",
                    absl::StrJoin(plan.standing_seqs, ", "), " stand\n");
  }
  return out;
}

int Run(const RemedyCliOptions& o, std::ostream& out, std::ostream& err) {
  auto fail = [&err](const absl::Status& s) {
    err << "gunbai remedy: " << s.message() << "\n";
    return kExitBadInput;
  };
  auto bytes = ReadInputFile(o.log_path);
  if (!bytes.ok()) return fail(bytes.status());
  auto log =
      replay::ParseBattleLog(*bytes, replay::LogFormat::kAuto, o.log_path);
  if (!log.ok()) return fail(log.status());
  auto ruleset = RulesetFileOrBuiltin(o.ruleset_path, *log);
  if (!ruleset.ok()) return fail(ruleset.status());
  replay::LoadedProcedure procedure = replay::DefaultProcedure();
  if (!o.procedure_path.empty()) {
    auto text = ReadInputFile(o.procedure_path);
    if (!text.ok()) return fail(text.status());
    auto loaded = replay::LoadProcedure(*text, o.procedure_path);
    if (!loaded.ok()) return fail(loaded.status());
    procedure = *std::move(loaded);
  }
  auto report = replay::AuditLog(*log, *ruleset);
  if (!report.ok()) return fail(report.status());
  replay::RemedyOptions options;
  options.raised_at = o.raised_at;
  replay::AddRemedies(*log, procedure, options, *report);
  const replay::RemedyPlan plan = replay::PlanRemedy(*log, *report);
  if (!o.output_path.empty()) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(plan.kept, &text);
    absl::Status written = WriteOutputFile(o.output_path, text);
    if (!written.ok()) return fail(written);
  }
  if (o.format == "json") {
    v1::RemedyPlan message;
    *message.mutable_report() = *report;
    message.set_redo(plan.redo);
    message.set_resume_after_seq(plan.resume_after_seq);
    message.set_redo_clan(plan.redo_clan);
    for (std::uint64_t seq : plan.reroll_seqs) message.add_reroll_seqs(seq);
    for (std::uint64_t seq : plan.standing_seqs) {
      message.add_standing_seqs(seq);
    }
    message.set_kept_events(static_cast<uint32_t>(plan.kept.events_size()));
    google::protobuf::util::JsonPrintOptions json_options;
    json_options.preserve_proto_field_names = true;
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(message, &json,
                                                      json_options);
    out << json << "\n";
  } else {
    out << PlanText(*report, plan);
  }
  return plan.redo ? kExitFindings : kExitClean;
}

}  // namespace

void AddRemedyCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<RemedyCliOptions>();
  CLI::App* remedy = app.add_subcommand(
      "remedy",
      "what the agreed error-resolution procedure orders for a log's errors: "
      "what stands, what is rolled again, where play resumes (1: play goes "
      "back)");
  remedy->footer(kRemedyFooter);
  remedy->add_option("LOG", o->log_path, "the battle log (any format)")
      ->required();
  remedy
      ->add_option("--procedure", o->procedure_path,
                   "the error-resolution procedure file (default: "
                   "rules/procedures/pbem-default.textproto, built in)")
      ->type_name("FILE");
  remedy
      ->add_option("--raised-at", o->raised_at,
                   "the other side raised the errors found before event SEQ "
                   "before that event's roll (repeatable): with "
                   "raised_error_stays_open they are not sealed by it or any "
                   "later roll")
      ->type_name("SEQ");
  remedy
      ->add_option("--ruleset", o->ruleset_path,
                   "the ruleset file the game is played under, when not the "
                   "built-in one its header names")
      ->type_name("FILE");
  remedy->add_option("--format", o->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  remedy
      ->add_option("-o,--output", o->output_path,
                   "write the log up to the event after which play resumes "
                   "(text format)")
      ->type_name("FILE");
  remedy->callback(
      [o, &context] { context.code = Run(*o, context.out, context.err); });
}

}  // namespace gunbai::service
