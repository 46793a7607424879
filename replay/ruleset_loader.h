// Loads a ruleset data file (text format of gunbai.v1.Ruleset) into the
// plug-in of its name, which validates it, and computes its content digest.
// Thread-safe: functions only.
#ifndef GUNBAI_REPLAY_RULESET_LOADER_H_
#define GUNBAI_REPLAY_RULESET_LOADER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/ruleset.pb.h"
#include "rules/engine.h"

namespace gunbai::replay {

struct LoadedRuleset {
  // The engine of the ruleset's name; never null once loaded.
  const rules::RulesetPlugin* plugin = nullptr;
  // The ruleset's data; its engine builds its own tables from it.
  gunbai::v1::Ruleset data;
  // SHA-256 (hex) of the data's deterministic binary serialization: the
  // same for two files that differ only in comments, spacing or order.
  std::string digest;
};

// Parses and validates a ruleset in text format. `source_name` names it in
// errors. Returns InvalidArgument with line and column when the text does
// not parse, or naming the field when a value is out of range.
absl::StatusOr<LoadedRuleset> LoadRuleset(absl::string_view textproto,
                                          absl::string_view source_name);

// Returns the built-in ruleset named `name`; NotFound for an unknown name.
absl::StatusOr<LoadedRuleset> BuiltinRuleset(absl::string_view name);

// The names of the rulesets gunbai knows, quoted, for messages.
std::string KnownRulesetNames();

// The rulesets a replay may choose from: the built-in ones and any files the
// user gives, chosen for each log by its header's ruleset name and version.
class RulesetCatalog {
 public:
  // Every built-in ruleset.
  static absl::StatusOr<RulesetCatalog> Builtin();

  // Adds a ruleset; it replaces one of the same name and version. For a
  // name, the last added wins when no version matches the log exactly.
  void Add(LoadedRuleset ruleset);
  // Adds a ruleset that takes the place of every one of its name (a user's
  // file given with --ruleset).
  void Replace(LoadedRuleset ruleset);

  // Returns the ruleset for a log: by the header's name (DefaultRulesetName()
  // when the header names none) and version (an exact match first; a mismatch
  // is the engine's warning). InvalidArgument naming what is known otherwise.
  absl::StatusOr<const LoadedRuleset*> ForLog(
      const gunbai::v1::Header& header) const;

  std::vector<const LoadedRuleset*> all() const;

 private:
  // Pointers stay valid as rulesets are added.
  std::vector<std::unique_ptr<LoadedRuleset>> rulesets_;
};

// The ruleset a log that names none is read under: the first plug-in's
// (rules/plugins.cc), from before rulesets were named.
absl::string_view DefaultRulesetName();

}  // namespace gunbai::replay

#endif  // GUNBAI_REPLAY_RULESET_LOADER_H_
