#include "service/cli/explain_cli.h"

#include <algorithm>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/rule_docs.pb.h"
#include "replay/explain.h"
#include "rules/engine.h"
#include "service/cli/cli.h"
#include "service/common/cli_app.h"
#include "service/render/report_format.h"

namespace gunbai::service {

namespace {

namespace v1 = ::gunbai::v1;

constexpr char kFooter[] =
    R"(Usage:
  gunbai explain RULE [--format=text|json]
      The rule a finding names (e.g. daimyo.fire.hit): the ruleset, the
      severity, the rule as the project states it, where it is documented,
      and every other passage of that doc that mentions it (the readings
      decided, the trace of a dispute...).
  gunbai explain PREFIX       every rule whose id starts with PREFIX, a line
                              each (e.g. daimyo.melee, skf., game.)
  gunbai explain --list       every documented rule id, a line each

The docs are rules/daimyo/RULES.md, rules/skf/RULES.md and rules/SCENARIO.md
(victory by points, any ruleset), embedded in the binary. An id stated by
two rulesets (log.die.range) is shown for each.
Examples:
  gunbai explain daimyo.fire.hit
  gunbai explain --format=json game.victory.winner
  gunbai explain skf.

Exit codes: 0 found, 2 no documented rule has that id or prefix, or a bad
command line.)";

// Words of `text` in lines of at most `width` characters, each line
// starting with `indent`.
std::string Wrap(absl::string_view text, absl::string_view indent,
                 std::size_t width = 78) {
  std::string out;
  std::string line(indent);
  for (absl::string_view word :
       absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    if (line.size() > indent.size() && line.size() + 1 + word.size() > width) {
      absl::StrAppend(&out, line, "\n");
      line = std::string(indent);
    }
    if (line.size() > indent.size()) line += ' ';
    absl::StrAppend(&line, word);
  }
  if (line.size() > indent.size()) absl::StrAppend(&out, line, "\n");
  return out;
}

std::string RulesetTitle(absl::string_view name) {
  if (name.empty()) return "scenario rules, every ruleset";
  const rules::RulesetPlugin* plugin = rules::FindRulesetPlugin(name);
  return plugin != nullptr ? std::string(plugin->title) : std::string(name);
}

// The whole entry of one rule.
std::string RuleText(const v1::DocumentedRule& rule) {
  std::string out = absl::StrCat(rule.id(), "\n");
  absl::StrAppend(&out, "  ", RulesetTitle(rule.ruleset()), "\n  ", rule.path(),
                  ", \"", rule.section(), "\"\n");
  if (!rule.severity().empty()) {
    absl::StrAppend(&out, "  severity: ", rule.severity(), "\n");
  }
  absl::StrAppend(&out, Wrap(rule.text(), "  "));
  for (const v1::RuleMention& m : rule.mentions()) {
    absl::StrAppend(&out, "\n  Also in \"", m.section(), "\":\n",
                    Wrap(m.text(), "    "));
  }
  return out;
}

// One line for a list: the id, the ruleset, the rule's first words.
std::string RuleLine(const v1::DocumentedRule& rule) {
  std::string text = rule.text();
  if (text.size() > 60) text = absl::StrCat(text.substr(0, 57), "...");
  return absl::StrCat(rule.id(), "  [",
                      rule.ruleset().empty() ? "scenario" : rule.ruleset(),
                      "]  ", text, "\n");
}

struct ExplainOptions {
  std::string query;
  std::string format = "text";
  bool list = false;
};

int Explain(const ExplainOptions& o, std::ostream& out, std::ostream& err) {
  const std::string& query = o.query;
  const std::string& format = o.format;
  const bool list = o.list;
  if (query.empty() && !list) {
    err << "gunbai explain: give a rule id (as a finding names it, e.g. "
           "daimyo.fire.hit), a prefix, or --list\nRun `gunbai explain "
           "--help`.\n";
    return kExitBadInput;
  }

  const replay::RuleLookup lookup = replay::ExplainRule(query, list);
  const v1::RuleExplanation& answer = lookup.answer;
  const bool exact = lookup.exact;
  if (answer.rules().empty() && answer.mentions().empty()) {
    err << "gunbai explain: no rules doc states a rule \"" << query
        << "\". Run `gunbai explain --list` for every documented id; a "
           "finding's id is the word after its severity.\n";
    return kExitBadInput;
  }
  if (format == "json") {
    out << FormatJson(answer);
    return kExitClean;
  }
  std::string text;
  if (exact) {
    for (int i = 0; i < answer.rules_size(); ++i) {
      if (i > 0) text += "\n";
      absl::StrAppend(&text, RuleText(answer.rules(i)));
    }
    if (!answer.mentions().empty()) {
      if (!text.empty()) text += "\n";
      absl::StrAppend(&text, query, answer.rules().empty() ? "" : " also",
                      " in the text of the rules docs\n");
      for (const v1::RuleMention& m : answer.mentions()) {
        absl::StrAppend(&text, "  ", m.path(), ", \"", m.section(), "\":\n",
                        Wrap(m.text(), "    "));
      }
    }
  } else {
    for (const v1::DocumentedRule& rule : answer.rules()) {
      absl::StrAppend(&text, RuleLine(rule));
    }
    if (!list) {
      absl::StrAppend(&text, "Run `gunbai explain ID` for one of them.\n");
    }
  }
  out << text;
  return kExitClean;
}

}  // namespace

int RunExplainCli(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  std::vector<std::string> full = {"explain"};
  full.insert(full.end(), args.begin(), args.end());
  return RunCli(full, out, err);
}

void AddExplainCommand(CLI::App& app, CliContext& context) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* explain = app.add_subcommand(
      "explain",
      "how gunbai reads a rule a finding names, from its rules docs");
  explain->footer(kFooter);
  explain->add_option("RULE", o->query,
                      "a rule id (e.g. daimyo.fire.hit) or a prefix of ids");
  explain->add_flag("--list", o->list, "list every documented rule id");
  AddChoiceOption(*explain, "--format", o->format, {"text", "json"},
                  "text for people, json: a gunbai.v1.RuleExplanation");
  explain->callback(
      [o, &context] { context.code = Explain(*o, context.out, context.err); });
}

}  // namespace gunbai::service
