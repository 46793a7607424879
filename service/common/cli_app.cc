#include "service/common/cli_app.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/stubs/common.h"
#include "grpcpp/grpcpp.h"
#include "replay/ruleset_loader.h"
#include "rules/engine.h"
#include "service/common/exit_codes.h"

#ifndef GUNBAI_VERSION
#define GUNBAI_VERSION "unknown"
#endif

namespace gunbai::service {

namespace {

// Returns "gunbai game create" for the app of that command.
std::string CommandPath(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    names.push_back(a->get_name());
  }
  std::reverse(names.begin(), names.end());
  return absl::StrJoin(names, " ");
}

// Returns the deepest command the parse selected.
const CLI::App& SelectedCommand(const CLI::App& app) {
  const CLI::App* a = &app;
  while (!a->get_subcommands().empty()) a = a->get_subcommands().front();
  return *a;
}

// Returns whether `option` takes a value (a flag's type name is empty).
bool TakesValue(const CLI::Option& option) {
  return !option.get_type_name().empty();
}

// Returns the valid values of an option added by AddChoiceOption (its type
// name ends in "{a,b,c}"), empty for others.
std::vector<std::string> Choices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const auto open = type.find('{');
  const auto close = type.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    return {};
  }
  return absl::StrSplit(type.substr(open + 1, close - open - 1), ',');
}

std::vector<const CLI::App*> Commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// Escapes `text` for roff: backslashes, and a line starting with a dot or
// an apostrophe (a request otherwise).
std::string Roff(absl::string_view text) {
  std::string escaped =
      absl::StrReplaceAll(text, {{"\\", "\\e"}, {"-", "\\-"}});
  std::vector<std::string> lines = absl::StrSplit(escaped, '\n');
  for (std::string& line : lines) {
    if (absl::StartsWith(line, ".") || absl::StartsWith(line, "'")) {
      line = absl::StrCat("\\&", line);
    }
  }
  return absl::StrJoin(lines, "\n");
}

std::string OptionSynopsis(const CLI::Option& option) {
  if (option.get_positional()) return option.get_name(true);
  std::vector<std::string> names;
  for (const std::string& s : option.get_snames()) names.push_back("-" + s);
  for (const std::string& l : option.get_lnames()) names.push_back("--" + l);
  std::string text = absl::StrJoin(names, ", ");
  if (TakesValue(option)) {
    absl::StrAppend(&text, "=", option.get_type_name());
  }
  return text;
}

void AppendManCommand(const CLI::App& app, std::string& page) {
  absl::StrAppend(&page, ".SS \"", Roff(CommandPath(app)), "\"\n",
                  Roff(app.get_description()), "\n");
  for (const CLI::Option* option : app.get_options()) {
    absl::StrAppend(&page, ".TP\n.B ", Roff(OptionSynopsis(*option)), "\n",
                    Roff(option->get_description()), "\n");
  }
  if (!app.get_footer().empty()) {
    absl::StrAppend(&page, ".PP\n.nf\n", Roff(app.get_footer()), "\n.fi\n");
  }
  for (const CLI::App* command : Commands(app)) {
    AppendManCommand(*command, page);
  }
}

// Appends the bash `case` arms for `app` and its commands: the words that
// may follow the command path, and the values of its enumerated options.
void AppendCompletionArms(const CLI::App& app, const std::string& path,
                          std::string& words, std::string& values) {
  std::vector<std::string> next;
  for (const CLI::App* command : Commands(app)) {
    next.push_back(command->get_name());
  }
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional()) continue;
    for (const std::string& l : option->get_lnames()) {
      next.push_back(absl::StrCat("--", l, TakesValue(*option) ? "=" : ""));
      const std::vector<std::string> choices = Choices(*option);
      if (!choices.empty()) {
        absl::StrAppend(&values, "    \"", path, " --", l, "\") echo \"",
                        absl::StrJoin(choices, " "), "\" ;;\n");
      }
    }
    for (const std::string& s : option->get_snames()) next.push_back("-" + s);
  }
  absl::StrAppend(&words, "    \"", path, "\") echo \"",
                  absl::StrJoin(next, " "), "\" ;;\n");
  for (const CLI::App* command : Commands(app)) {
    AppendCompletionArms(*command, absl::StrCat(path, " ", command->get_name()),
                         words, values);
  }
}

// Words of `text` in lines of at most `width` characters; paragraphs (and
// lines that start with a space, as in examples) kept.
std::string Wrap(absl::string_view text, std::size_t width) {
  std::string out;
  for (absl::string_view paragraph : absl::StrSplit(text, '\n')) {
    if (!out.empty()) out += '\n';
    std::string line;
    for (absl::string_view word :
         absl::StrSplit(paragraph, ' ', absl::SkipEmpty())) {
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        absl::StrAppend(&out, line, "\n");
        line.clear();
      }
      absl::StrAppend(&line, line.empty() ? "" : " ", word);
    }
    out += line;
  }
  return out;
}

// CLI11's help with the whole command path in the usage line and the
// descriptions wrapped to 80 columns.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string) const override {
    return CLI::Formatter::make_usage(app, CommandPath(*app));
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string description = CLI::Formatter::make_description(app);
    return description.empty() ? description : description + "\n";
  }
  // "--ruleset=FILE", as gunbai's docs write options, not "--ruleset FILE".
  std::string make_option_opts(const CLI::Option* option) const override {
    std::string opts = CLI::Formatter::make_option_opts(option);
    if (!option->get_positional() && absl::StartsWith(opts, " ")) {
      opts[0] = '=';
    }
    return opts;
  }
  std::string make_option_desc(const CLI::Option* option) const override {
    return Wrap(CLI::Formatter::make_option_desc(option), DescriptionWidth());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_name(),
                             Wrap(sub->get_description(), DescriptionWidth()),
                             get_column_width());
    return out.str();
  }

 private:
  std::size_t DescriptionWidth() const {
    return get_column_width() < 50 ? 80 - get_column_width() : 30;
  }
};

// Returns a message naming the first word of `args` that is not a command of
// the command it follows (`gunbai audti`, `gunbai game crate`), empty when
// every command named is known.
std::string UnknownCommand(CLI::App& app,
                           const std::vector<std::string>& args) {
  CLI::App* current = &app;
  for (const std::string& arg : args) {
    if (absl::StartsWith(arg, "-")) continue;
    std::vector<std::string> names;
    CLI::App* next = nullptr;
    for (CLI::App* command :
         current->get_subcommands([](CLI::App*) { return true; })) {
      names.push_back(command->get_name());
      if (command->get_name() == arg) next = command;
    }
    if (names.empty()) return "";
    if (next == nullptr) {
      return absl::StrCat("unknown command \"", arg, "\"; the commands are ",
                          absl::StrJoin(names, ", "));
    }
    current = next;
  }
  return "";
}

}  // namespace

void UseGunbaiHelpFormat(CLI::App& app) {
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->column_width(32);
  app.formatter(formatter);
}

CLI::Option* AddServerOption(CLI::App& app, std::string& server,
                             const std::string& what) {
  return app
      .add_option("--server", server,
                  absl::StrCat("the gunbaid at HOST:PORT ", what))
      ->type_name("HOST:PORT")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value.empty()) {
              return "give the daemon's address, HOST:PORT (e.g. "
                     "127.0.0.1:50051), not an empty value";
            }
            if (!absl::StrContains(value, ':')) {
              return absl::StrCat("\"", value,
                                  "\" has no port: give HOST:PORT (e.g. "
                                  "127.0.0.1:50051)");
            }
            return "";
          },
          ""));
}

CLI::Option* AddTlsCaOption(CLI::App& app, std::string& tls_ca) {
  return app
      .add_option("--tls-ca", tls_ca,
                  "talk TLS to a gunbaid started with --tls-cert, trusting "
                  "this PEM certificate (or its CA)")
      ->type_name("FILE");
}

CLI::Option* AddChoiceOption(CLI::App& app, const std::string& name,
                             std::string& value,
                             const std::vector<std::string>& choices,
                             const std::string& description) {
  const std::string list = absl::StrJoin(choices, ",");
  return app
      .add_option(name, value,
                  absl::StrCat(description, " (default ", value, ")"))
      ->type_name(absl::StrCat("{", list, "}"))
      ->check(CLI::Validator(
          [choices](std::string& given) -> std::string {
            if (std::find(choices.begin(), choices.end(), given) !=
                choices.end()) {
              return "";
            }
            return absl::StrCat("\"", given, "\" is not a valid value; give ",
                                absl::StrJoin(choices, ", "));
          },
          ""));
}

int RunParsed(CLI::App& app, const std::vector<std::string>& args,
              CliContext& context) {
  // CLI11 reads "--name=" as "--name" and takes the next argument as its
  // value; an empty value is never meant.
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (absl::StartsWith(arg, "--") && absl::EndsWith(arg, "=")) {
      context.err << app.get_name() << ": " << arg
                  << " gives an empty value: give one after the =\nRun `"
                  << app.get_name() << " --help` for usage.\n";
      return kExitBadInput;
    }
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    context.done = true;
    context.out << SelectedCommand(app).help();
    return kExitClean;
  } catch (const CLI::CallForAllHelp&) {
    context.done = true;
    context.out << SelectedCommand(app).help("", CLI::AppFormatMode::All);
    return kExitClean;
  } catch (const CLI::CallForVersion& e) {
    context.done = true;
    context.out << e.what();
    return kExitClean;
  } catch (const CLI::ParseError& e) {
    const std::string path = CommandPath(SelectedCommand(app));
    const std::string unknown = UnknownCommand(app, args);
    context.err << path << ": " << (unknown.empty() ? e.what() : unknown)
                << "\nRun `" << path << " --help` for usage.\n";
    return kExitBadInput;
  }
  return context.code;
}

std::string VersionText(absl::string_view program) {
  std::string text = absl::StrCat(program, " ", GUNBAI_VERSION, "\n");
  for (const rules::RulesetPlugin& plugin : rules::RulesetPlugins()) {
    auto ruleset = replay::BuiltinRuleset(plugin.name);
    absl::StrAppend(&text, "ruleset ", plugin.name, " ",
                    ruleset.ok() ? ruleset->data.version() : "?", " sha256:",
                    ruleset.ok() ? ruleset->digest
                                 : std::string(ruleset.status().message()),
                    "\n");
  }
  absl::StrAppend(
      &text, "gRPC ", grpc::Version(), ", protobuf ",
      google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION),
      ", CLI11 ", CLI11_VERSION, "\n");
  return text;
}

std::string ManPage(const CLI::App& app, int section) {
  std::string name = app.get_name();
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  // NAME is the description's first line; the rest opens DESCRIPTION.
  const std::string& description = app.get_description();
  const std::size_t first_end = description.find('\n');
  const std::string summary = description.substr(0, first_end);
  const std::string rest =
      first_end == std::string::npos ? "" : description.substr(first_end + 1);
  std::string page = absl::StrCat(
      ".\\\" Written by `", name, section == 1 ? " man" : " --man",
      "` from the definitions of its command line.\n", ".TH ", upper, " ",
      section, " \"\" \"", name, " ", GUNBAI_VERSION, "\" \"gunbai\"\n",
      ".SH NAME\n", name, " \\- ", Roff(summary), "\n", ".SH SYNOPSIS\n.B ",
      name, "\n",
      Commands(app).empty() ? "[OPTIONS]" : "COMMAND [OPTIONS] [ARGS]", "\n",
      ".SH DESCRIPTION\n", Roff(rest), "\n");
  const std::vector<const CLI::App*> commands = Commands(app);
  absl::StrAppend(&page, ".SS \"", Roff(name), "\"\n");
  for (const CLI::Option* option : app.get_options()) {
    absl::StrAppend(&page, ".TP\n.B ", Roff(OptionSynopsis(*option)), "\n",
                    Roff(option->get_description()), "\n");
  }
  if (!app.get_footer().empty()) {
    absl::StrAppend(&page, ".PP\n.nf\n", Roff(app.get_footer()), "\n.fi\n");
  }
  if (!commands.empty()) absl::StrAppend(&page, ".SH COMMANDS\n");
  for (const CLI::App* command : commands) AppendManCommand(*command, page);
  return page;
}

// The completion function of a program NAME, given _NAME_words PATH (the
// words that may follow the command path PATH) and _NAME_values "PATH
// --option" (an enumerated option's values).
// clang-format off: clang-format 14 breaks "${#" in a raw string.
constexpr char kCompletionFunction[] = R"sh(_NAME() {
  local cur=${COMP_WORDS[COMP_CWORD]} path="" i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case " $(_NAME_words "$path") " in
      *" $w "*) [[ $w == -* ]] || path="$path $w" ;;
    esac
  done
  if [[ $cur == --*=* ]]; then
    local values
    values=$(_NAME_values "$path ${cur%%=*}")
    COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$values" -- "${cur#*=}"))
    return 0
  fi
  COMPREPLY=($(compgen -W "$(_NAME_words "$path")" -- "$cur"))
  [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] &&
    compopt -o nospace 2>/dev/null
  [[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -F _NAME NAME
)sh";
// clang-format on

std::string BashCompletion(const CLI::App& app) {
  const std::string name = app.get_name();
  std::string words, values;
  AppendCompletionArms(app, "", words, values);
  return absl::StrCat(
      "# bash completion for ", name, ", written by `", name,
      Commands(app).empty() ? " --bash-completion" : " completion bash",
      "` from the definitions of its command line.\n", "_", name,
      "_words() {\n  case \"$1\" in\n", words, "  esac\n}\n", "_", name,
      "_values() {\n  case \"$1\" in\n", values, "  esac\n}\n",
      absl::StrReplaceAll(kCompletionFunction, {{"NAME", name}}));
}

}  // namespace gunbai::service
