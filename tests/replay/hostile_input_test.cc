// Issue 11, amplification: a list in a log is bounded by the units it can
// name, and a report by kMaxFindingsPerLog, whatever the log repeats.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/daimyo/daimyo_engine.h"
#include "tests/replay/test_logs.h"

namespace gunbai::testing {
namespace {

namespace v1 = ::gunbai::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// blue activates; red-teppo takes a morale test (reason 8 is not owed, so
// the test itself is a finding too) whose friends-routing-near list is
// `ids` (text format), then the turn ends.
v1::BattleLog TestListing(const std::string& ids) {
  return LogWithEvents(absl::StrCat(
      R"pb(                                                       events { seq: 1 turn: 1 turn_start { initiative_clan: "red" } }
           events { seq: 2 turn: 1 clan: "red" activation {} }
           events {
             seq: 3
             turn: 1
             clan: "red"
             morale_test {
               unit: "red-teppo"
               reason: 1
               dice: [ 3, 3 ]
               facts { friends_routing_near: [)pb",
      ids, R"pb(                                                                                 ] }
                                                                                                 }
           }
           events { seq: 4 turn: 1 turn_end {} })pb"));
}

// 100,000 names of one friend that is not routing: one finding that it is
// listed more than once, one that it is not routing (and the test is not
// owed), not 100,000.
TEST(Regression, OneUnitNamedManyTimesIsOneFinding) {
  std::string ids = "\"red-samurai\"";
  for (int i = 1; i < 100000; ++i) absl::StrAppend(&ids, ", \"red-samurai\"");
  const v1::AuditReport report = AuditOrDie(TestListing(ids));
  EXPECT_THAT(FindingKeys(report),
              ElementsAre("3:SEVERITY_VIOLATION:log.unit.listed_twice",
                          "3:SEVERITY_VIOLATION:daimyo.morale.near_not_routing",
                          "3:SEVERITY_VIOLATION:daimyo.morale.not_owed"));
  EXPECT_THAT(report.findings(0).message(), HasSubstr("99999 repeats"));
}

// 50,000 ids not in the order of battle: one finding, with the count, and
// its quote is an excerpt.
TEST(Regression, ManyUnknownIdsAreOneFinding) {
  std::string ids = absl::StrCat("\"", std::string(5000, 'x'), "\"");
  for (int i = 1; i < 50000; ++i) absl::StrAppend(&ids, ", \"nobody\"");
  const v1::AuditReport report = AuditOrDie(TestListing(ids));
  ASSERT_EQ(report.findings_size(), 2);  // and the test not owed
  EXPECT_EQ(report.findings(0).rule_id(), "log.unit.unknown");
  EXPECT_THAT(report.findings(0).message(),
              HasSubstr("(nor 49999 more ids of the list)"));
  EXPECT_LT(report.findings(0).message().size(), 400u);
}

// A log breaking a rule at every event: the report lists kMaxFindingsPerLog
// findings and one more that counts the rest. 25,000 moves of an unknown
// unit, each a log.unit.unknown violation: 20,000 listed, 5,000 counted.
TEST(Regression, FindingsPerLogAreBounded) {
  std::string events = R"pb(
    events {
      seq: 1
      turn: 1
      turn_start { initiative_clan: "red" }
    }
    events {
      seq: 2
      turn: 1
      clan: "red"
      activation {}
    }
  )pb";
  for (int i = 0; i < 25000; ++i) {
    absl::StrAppend(&events, "events { seq: ", 3 + i,
                    " turn: 1 clan: \"red\" move { unit: \"ghost\" } }\n");
  }
  const v1::AuditReport report = AuditOrDie(LogWithEvents(events));
  ASSERT_EQ(report.findings_size(), rules::daimyo::kMaxFindingsPerLog + 1);
  const v1::Finding& last = report.findings(rules::daimyo::kMaxFindingsPerLog);
  EXPECT_EQ(last.rule_id(), "log.findings_truncated");
  EXPECT_THAT(last.message(), HasSubstr("5000 more are not (5000 violations"));
}

}  // namespace
}  // namespace gunbai::testing
