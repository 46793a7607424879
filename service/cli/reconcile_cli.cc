#include "service/cli/reconcile_cli.h"

#include <memory>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "google/protobuf/util/json_util.h"
#include "gunbai/v1/game_service.pb.h"
#include "replay/log_parser.h"
#include "replay/reconcile.h"
#include "replay/ruleset_loader.h"
#include "rules/status_macros.h"
#include "service/cli/cli_input.h"
#include "service/common/exit_codes.h"

namespace gunbai::service {
namespace {

namespace v1 = ::gunbai::v1;

constexpr char kReconcileFooter[] =
    R"(Two copies of one game that disagree ("that is not what I sent"): each a
battle log or an exported live game (`gunbai game export`), in any format.
Prints the events both share from the first (the last one's seq and chain
hash), where they part and how (an event changed, inserted or dropped, two
swapped, the same event with other dice, one copy cut short, or the armies
themselves), the events from there side by side, each copy's violations and
disputes from there on under the game's ruleset, whether each export's chain
holds, and a verdict: the copy the rules alone support, if one.

Examples:
  gunbai reconcile mine.textproto theirs.textproto
  gunbai reconcile --format=json aki-export.json ben-export.json

Exit codes: 0 the copies agree, 1 they differ (the verdict says how),
2 a copy cannot be read, or they are not copies of one game under one
ruleset (the message says which).)";

struct ReconcileOptions {
  std::string a;
  std::string b;
  std::string ruleset_path;
  std::string format = "text";
};

// A copy as read: its log, and its export when it is one.
struct ReadCopy {
  v1::ExportedGame exported;
  bool is_export = false;
};

absl::StatusOr<ReadCopy> ReadGameCopy(const std::string& path) {
  GUNBAI_ASSIGN_OR_RETURN(std::string bytes, ReadInputFile(path));
  ReadCopy copy;
  // An export in text or JSON names its chain; only then, or for binary
  // bytes (which name nothing), is it worth parsing as one: a plain log is
  // parsed once.
  const bool may_be_export =
      absl::StrContains(bytes, "chain_hashes") ||
      absl::StrContains(bytes, "chainHashes") ||
      replay::SniffLogFormat(bytes, /*whole_input=*/true) ==
          replay::LogFormat::kBinary;
  if (may_be_export) {
    auto exported = replay::ParseExportedGame(bytes, path);
    if (exported.ok() && exported->chain_hashes_size() > 0) {
      copy.exported = *std::move(exported);
      copy.is_export = true;
      return copy;
    }
  }
  GUNBAI_ASSIGN_OR_RETURN(
      *copy.exported.mutable_log(),
      replay::ParseBattleLog(bytes, replay::LogFormat::kAuto, path));
  return copy;
}

int Run(const ReconcileOptions& o, std::ostream& out, std::ostream& err) {
  auto fail = [&err](const absl::Status& s) {
    err << "gunbai reconcile: " << s.message() << "\n";
    return kExitBadInput;
  };
  auto a = ReadGameCopy(o.a);
  if (!a.ok()) return fail(a.status());
  auto b = ReadGameCopy(o.b);
  if (!b.ok()) return fail(b.status());
  auto ruleset = RulesetFileOrBuiltin(o.ruleset_path, a->exported.log());
  if (!ruleset.ok()) return fail(ruleset.status());
  const replay::GameCopy copy_a{o.a, a->exported.log(),
                                a->is_export ? &a->exported : nullptr};
  const replay::GameCopy copy_b{o.b, b->exported.log(),
                                b->is_export ? &b->exported : nullptr};
  auto r = replay::Reconcile(copy_a, copy_b, *ruleset);
  if (!r.ok()) return fail(r.status());
  if (o.format == "json") {
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    options.always_print_primitive_fields = true;
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(*r, &json, options);
    out << json << "\n";
  } else {
    out << replay::FormatReconciliation(*r);
  }
  return r->shape() == v1::RECONCILE_SHAPE_SAME ? kExitClean : kExitFindings;
}

}  // namespace

void AddReconcileCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<ReconcileOptions>();
  CLI::App* reconcile = app.add_subcommand(
      "reconcile",
      "two copies of one game side by side: where they part and "
      "which the rules support (1: they differ)");
  reconcile->footer(kReconcileFooter);
  reconcile->add_option("A", o->a, "the first copy (a log or an export)")
      ->required();
  reconcile->add_option("B", o->b, "the second copy")->required();
  reconcile
      ->add_option("--ruleset", o->ruleset_path,
                   "the ruleset file the game is played under, when not the "
                   "built-in one its header names")
      ->type_name("FILE");
  reconcile->add_option("--format", o->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  reconcile->callback(
      [o, &context] { context.code = Run(*o, context.out, context.err); });
}

}  // namespace gunbai::service
