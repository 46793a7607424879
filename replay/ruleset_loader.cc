#include "replay/ruleset_loader.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "absl/strings/str_cat.h"
#include "replay/proto_mapping.h"
#include "replay/text_errors.h"
#include "rules/digest.h"
#include "rules/engine.h"
#include "rules/proto_enums.h"
#include "rules/status_macros.h"

namespace gunbai::replay {

absl::StatusOr<LoadedRuleset> LoadRuleset(absl::string_view textproto,
                                          absl::string_view source_name) {
  LoadedRuleset loaded;
  GUNBAI_RETURN_IF_ERROR(ParseTextFormat(textproto, source_name, loaded.data));
  GUNBAI_RETURN_IF_ERROR(CheckTextUtf8(textproto, loaded.data, source_name,
                                       "reading the ruleset file"));
  if (loaded.data.name().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": the ruleset needs a name (one of ",
                     KnownRulesetNames(), ")."));
  }
  loaded.plugin = rules::FindRulesetPlugin(loaded.data.name());
  if (loaded.plugin == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": name: \"", Excerpt(loaded.data.name()),
        "\" is not a ruleset gunbai knows (it knows ", KnownRulesetNames(),
        "); a new ruleset needs its engine in rules/ (rules/README.md, "
        "\"Adding a "
        "ruleset\")."));
  }
  GUNBAI_RETURN_IF_ERROR(loaded.plugin->validate(loaded.data, source_name));
  loaded.digest = base::Sha256Hex(base::DeterministicBytes(loaded.data));
  return loaded;
}

absl::StatusOr<LoadedRuleset> BuiltinRuleset(absl::string_view name) {
  const rules::RulesetPlugin* plugin = rules::FindRulesetPlugin(name);
  if (plugin == nullptr) {
    return absl::NotFoundError(absl::StrCat("No built-in ruleset is named \"",
                                            Excerpt(name), "\" (there are ",
                                            KnownRulesetNames(), ")."));
  }
  return LoadRuleset(plugin->builtin_text, absl::StrCat("builtin:", name));
}

absl::string_view DefaultRulesetName() {
  return rules::RulesetPlugins().front().name;
}

std::string KnownRulesetNames() {
  std::string out;
  for (const rules::RulesetPlugin& plugin : rules::RulesetPlugins()) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", "\"", plugin.name, "\"");
  }
  return out;
}

absl::StatusOr<RulesetCatalog> RulesetCatalog::Builtin() {
  RulesetCatalog catalog;
  for (const rules::RulesetPlugin& plugin : rules::RulesetPlugins()) {
    GUNBAI_ASSIGN_OR_RETURN(LoadedRuleset loaded, BuiltinRuleset(plugin.name));
    catalog.Add(std::move(loaded));
  }
  return catalog;
}

void RulesetCatalog::Add(LoadedRuleset ruleset) {
  for (auto& have : rulesets_) {
    if (have->data.name() == ruleset.data.name() &&
        have->data.version() == ruleset.data.version()) {
      *have = std::move(ruleset);
      return;
    }
  }
  rulesets_.push_back(std::make_unique<LoadedRuleset>(std::move(ruleset)));
}

void RulesetCatalog::Replace(LoadedRuleset ruleset) {
  std::erase_if(rulesets_, [&](const std::unique_ptr<LoadedRuleset>& have) {
    return have->data.name() == ruleset.data.name();
  });
  rulesets_.push_back(std::make_unique<LoadedRuleset>(std::move(ruleset)));
}

absl::StatusOr<const LoadedRuleset*> RulesetCatalog::ForLog(
    const gunbai::v1::Header& header) const {
  // Logs written before rulesets were named are Daimyo logs.
  const std::string name = header.ruleset().name().empty()
                               ? std::string(DefaultRulesetName())
                               : header.ruleset().name();
  const LoadedRuleset* by_name = nullptr;
  for (const auto& have : rulesets_) {
    if (have->data.name() != name) continue;
    if (have->data.version() == header.ruleset().version()) return have.get();
    by_name = have.get();  // The last added: a user's file beats the builtin.
  }
  if (by_name != nullptr) return by_name;
  std::string known;
  for (const auto& have : rulesets_) {
    absl::StrAppend(&known, known.empty() ? "" : ", ", have->data.name(), " ",
                    have->data.version());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "header.ruleset.name: the log is for the ruleset \"", Excerpt(name),
      "\", which gunbai does not have (it has ", known,
      "). Give a ruleset file whose name is \"", Excerpt(name),
      "\" with --ruleset FILE, or correct the log's header."));
}

std::vector<const LoadedRuleset*> RulesetCatalog::all() const {
  std::vector<const LoadedRuleset*> out;
  for (const auto& have : rulesets_) out.push_back(have.get());
  return out;
}

}  // namespace gunbai::replay
