// A corpus of generated games on which the rule edits a rules author tries
// first show in gunbai diff (issue 10, section 3): the melee factor for an
// enemy fighting to the flank or rear, the hatamoto's morale bonus, the
// building factors of firing and melee, the warrior monks' frenzy and the
// uphill factor. Each edit must change outcomes in some games, and in every
// game it changes, the first change must be the edit itself at work: the
// term of the edited rule carries the old value on the old side and the new
// value on the new side (or, for the frenzy threshold, a morale test whose
// result becomes or stops being frenzy). Knock-on changes after that first
// one are the counterfactual core's business (branch_property_test.cc).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "generate/daimyo/daimyo_game.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "gunbai/v1/battle_log.pb.h"
#include "gunbai/v1/diff.pb.h"
#include "replay/diff.h"
#include "replay/ruleset_loader.h"

namespace gunbai::generate {
namespace {

namespace v1 = ::gunbai::v1;

struct NamedEdit {
  std::string name;
  std::function<void(v1::Ruleset&)> edit;
  // The rule id of the edited term and its value before and after the edit
  // (from rules/daimyo/daimyo.textproto); empty for the frenzy threshold,
  // which is no term but a result.
  std::string rule_id;
  int old_value = 0;
  int new_value = 0;
};

// Returns the term of `outcome` carrying `rule_id`, or null.
const v1::Term* TermOf(const v1::Outcome& outcome, const std::string& rule_id) {
  for (const v1::Term& t : outcome.trace()) {
    if (t.rule_id() == rule_id) return &t;
  }
  return nullptr;
}

// Returns true when `change` is `edit` at work: the edited term with the old
// value in the old outcome and the new value in the new one; for the frenzy
// threshold, a morale result that becomes or stops being frenzy.
bool IsTheEditAtWork(const NamedEdit& edit, const v1::OutcomeChange& change) {
  if (edit.rule_id.empty()) {
    return change.kind() == "morale_result" &&
           (absl::StrContains(change.old_outcome().value(), "frenzy") !=
            absl::StrContains(change.new_outcome().value(), "frenzy"));
  }
  const v1::Term* old_term = TermOf(change.old_outcome(), edit.rule_id);
  const v1::Term* new_term = TermOf(change.new_outcome(), edit.rule_id);
  return old_term != nullptr && new_term != nullptr &&
         old_term->value() == edit.old_value &&
         new_term->value() == edit.new_value;
}

replay::LoadedRuleset Edited(const replay::LoadedRuleset& builtin,
                             const NamedEdit& edit) {
  v1::Ruleset data = builtin.data;
  edit.edit(data);
  std::string text;
  google::protobuf::TextFormat::PrintToString(data, &text);
  auto loaded = replay::LoadRuleset(text, edit.name);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return *loaded;
}

TEST(DiffCorpus, NamedRuleEditsShowAsChangesTheEditItselfStarts) {
  auto builtin = replay::BuiltinRuleset("daimyo");
  ASSERT_TRUE(builtin.ok()) << builtin.status();
  // Old and new values: the built-in data's value, and one point more in the
  // same direction (or, for the frenzy threshold, one point lower).
  const std::vector<NamedEdit> edits = {
      {"melee flank or rear -2 -> -3",
       [](v1::Ruleset& r) {
         r.mutable_melee()
             ->mutable_modifiers()
             ->set_enemy_fighting_to_flank_or_rear(-3);
       },
       "daimyo.melee.modifier.enemy_flank_or_rear", -2, -3},
      {"morale hatamoto +1 -> +2",
       [](v1::Ruleset& r) {
         r.mutable_morale()->mutable_modifiers()->set_hatamoto(2);
       },
       "daimyo.morale.modifier.hatamoto", 1, 2},
      {"melee enemy in building -2 -> -3",
       [](v1::Ruleset& r) {
         r.mutable_melee()->mutable_modifiers()->set_enemy_in_building(-3);
       },
       "daimyo.melee.modifier.enemy_in_building", -2, -3},
      {"firing target in building -2 -> -3",
       [](v1::Ruleset& r) {
         r.mutable_firing()->mutable_factors()->set_target_in_building(-3);
       },
       "daimyo.fire.factor.building", -2, -3},
      {"warrior monks frenzied from 10 instead of 11",
       [](v1::Ruleset& r) {
         r.mutable_morale()->set_frenzy_warrior_monk_from(10);
       },
       "", 0, 0},
      {"melee enemy uphill -1 -> -2",
       [](v1::Ruleset& r) {
         r.mutable_melee()
             ->mutable_modifiers()
             ->set_enemy_uphill_or_behind_obstacle(-2);
       },
       "daimyo.melee.modifier.enemy_uphill_or_obstacle", -1, -2},
  };
  std::vector<GeneratedGame> corpus;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    GeneratorOptions options;
    options.seed = seed;
    options.turns = 8;
    options.units_per_clan = 4 + static_cast<int>(seed % 6);
    corpus.push_back(GenerateGame(options));
  }
  int edits_changing_an_end = 0;
  for (const NamedEdit& edit : edits) {
    SCOPED_TRACE(edit.name);
    const replay::LoadedRuleset edited = Edited(*builtin, edit);
    replay::DiffTally tally;
    for (std::size_t g = 0; g < corpus.size(); ++g) {
      SCOPED_TRACE(absl::StrCat("game ", g + 1));
      const v1::LogDiff diff =
          replay::DiffUnderRulesets(absl::StrCat("game-", g + 1), corpus[g].log,
                                    {&*builtin, &edited, nullptr});
      ASSERT_NE(diff.status(), v1::LOG_DIFF_STATUS_FAILED) << diff.error();
      tally.Add(g, diff);
      if (diff.status() != v1::LOG_DIFF_STATUS_CHANGED) continue;
      ASSERT_TRUE(diff.has_first_changed_seq());
      // Nothing changes before the edit first bites, and where it first
      // bites some outcome change is the edited rule at work.
      bool edit_at_work = false;
      for (const v1::OutcomeChange& c : diff.outcome_changes()) {
        if (c.seq() != diff.first_changed_seq()) continue;
        edit_at_work = edit_at_work || IsTheEditAtWork(edit, c);
      }
      EXPECT_TRUE(edit_at_work)
          << "the first change, at seq " << diff.first_changed_seq()
          << ", is not the edited rule at work";
    }
    const v1::DiffSummary summary = tally.Summary();
    // Every edit bites somewhere in 60 games of 8 turns: the generator
    // declares these facts (flank or rear, building, uphill) and fields
    // hatamoto and warrior monks often enough.
    EXPECT_GE(summary.logs_changed(), 1u);
    if (summary.winners_changed() + summary.units_left_changed() > 0) {
      ++edits_changing_an_end;
    }
    RecordProperty(absl::StrCat("logs_changed: ", edit.name),
                   static_cast<int>(summary.logs_changed()));
  }
  // A changed factor changes who is left standing in some game: the what-if
  // follows the knock-on effects to the end of the game.
  EXPECT_GE(edits_changing_an_end, 1);
}

}  // namespace
}  // namespace gunbai::generate
