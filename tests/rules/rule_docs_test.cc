// Reading the rules docs for `gunbai explain` (rules/rule_docs.h), on a
// small doc written here, and on the shipped docs: every id a doc's tables
// state is found, with the text its row gives.
#include "rules/rule_docs.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/builtin_rulesets.h"
#include "rules/engine.h"

namespace gunbai::rules {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kDoc[] = R"(# Test rules

Intro that names `t.a` in passing.

## Firing
| id | severity | rule |
|---|---|---|
| `t.a` | violation | A fires once. |
| `t.b`, `t.c` | dispute | B and C agree. |

Resolution (`t.a`): the dice and
the factors.

| id | value | applies when |
|---|---|---|
| `t.f` | +2 | first volley |

| not | a rule table |
|---|---|
| `t.z` | ignored |

## Readings
1. **Once.** `t.a` counts a volley
   per turn.
- `t.b` is read as written.

```
# not a heading, and `t.a` here is code
| id | rule |
|---|---|
| `t.code` | not a rule |
```
###
)";

RulesDoc Doc() { return {"rules/t/RULES.md", "t", kDoc}; }

TEST(RuleDocsTest, TableRowsStateRules) {
  const std::vector<DocumentedRule> rules = DocumentedRules(Doc());
  ASSERT_THAT(rules, SizeIs(4));
  EXPECT_EQ(rules[0].id, "t.a");
  EXPECT_EQ(rules[0].severity, "violation");
  EXPECT_EQ(rules[0].text, "A fires once.");
  EXPECT_EQ(rules[0].section, "Firing");
  EXPECT_EQ(rules[0].path, "rules/t/RULES.md");
  EXPECT_EQ(rules[0].ruleset, "t");
  // Two ids in one row share it.
  EXPECT_EQ(rules[1].id, "t.b");
  EXPECT_EQ(rules[2].id, "t.c");
  EXPECT_EQ(rules[2].text, "B and C agree.");
  // A table of several columns: each as "column: value".
  EXPECT_EQ(rules[3].id, "t.f");
  EXPECT_EQ(rules[3].severity, "");
  EXPECT_EQ(rules[3].text, "value: +2; applies when: first volley");
}

TEST(RuleDocsTest, MentionsArePassages) {
  const std::vector<Mention> a = Mentions(Doc(), "t.a");
  // The intro, the row, the resolution paragraph (its lines joined) and the
  // numbered reading (its continuation line joined).
  ASSERT_THAT(a, SizeIs(4));
  EXPECT_EQ(a[0].section, "Test rules");
  EXPECT_EQ(a[1].text, "| `t.a` | violation | A fires once. |");
  EXPECT_EQ(a[2].text, "Resolution (`t.a`): the dice and the factors.");
  EXPECT_EQ(a[2].section, "Firing");
  EXPECT_EQ(a[3].text, "1. **Once.** `t.a` counts a volley per turn.");
  EXPECT_EQ(a[3].section, "Readings");
  EXPECT_THAT(Mentions(Doc(), "t.b"), SizeIs(2));
  // Code blocks are not prose: their rows state nothing.
  EXPECT_THAT(Mentions(Doc(), "t.code"), IsEmpty());
  // Only whole ids in backquotes count.
  EXPECT_THAT(Mentions(Doc(), "t"), IsEmpty());
}

// The shipped docs: the scenario rules first, then one doc per plug-in, and
// the ids this test's author looked up in each.
TEST(RuleDocsTest, ShippedDocsStateTheirRules) {
  const std::vector<RulesDoc> docs = RulesDocs();
  ASSERT_THAT(docs, SizeIs(3));
  EXPECT_EQ(docs[0].path, "rules/SCENARIO.md");
  EXPECT_EQ(docs[1].path, "rules/daimyo/RULES.md");
  EXPECT_EQ(docs[2].path, "rules/skf/RULES.md");
  auto find = [](const RulesDoc& doc, const std::string& id) {
    for (const DocumentedRule& r : DocumentedRules(doc)) {
      if (r.id == id) return r;
    }
    return DocumentedRule{};
  };
  // rules/SCENARIO.md: "| `game.victory.winner` | dispute | ...".
  EXPECT_EQ(find(docs[0], "game.victory.winner").severity, "dispute");
  // rules/daimyo/RULES.md, Firing: the first-volley factor is +2, computed.
  EXPECT_EQ(find(docs[1], "daimyo.fire.factor.first_volley").text,
            "value: +2; applies when: the unit's first firing of the game, in "
            "good order; origin: computed");
  // rules/skf/RULES.md: each side rolls exactly one die.
  EXPECT_EQ(find(docs[2], "skf.melee.dice_count").text,
            "Each side rolls exactly one die.");
}

}  // namespace
}  // namespace gunbai::rules
