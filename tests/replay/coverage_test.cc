// RuleCoverage (gunbai generate --coverage): counts by hand.
#include "replay/coverage.h"

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace gunbai::replay {
namespace {

// Two findings of one rule count 2; an outcome whose trace names a factor
// twice and the hit rule once counts each id once; an empty rule id is not
// counted.
TEST(RuleCoverageTest, CountsFindingsAndEachOutcomesDistinctTraceIds) {
  gunbai::v1::AuditReport report;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        findings { rule_id: "daimyo.fire.hit" }
        findings { rule_id: "daimyo.fire.hit" }
        outcomes {
          kind: "hits"
          trace { rule_id: "daimyo.fire.factor.raw" }
          trace { rule_id: "daimyo.fire.factor.raw" }
          trace { rule_id: "daimyo.fire.hit" }
          trace { rule_id: "" }
        }
      )pb",
      &report));
  RuleCoverage coverage;
  coverage.Add(report);
  coverage.Add(report);
  EXPECT_EQ(coverage.CountOf("daimyo.fire.hit"), 6);         // (2 + 1) x 2
  EXPECT_EQ(coverage.CountOf("daimyo.fire.factor.raw"), 2);  // 1 x 2
  EXPECT_EQ(coverage.CountOf("daimyo.melee.hit"), 0);
  EXPECT_EQ(coverage.counts().size(), 2u);
}

}  // namespace
}  // namespace gunbai::replay
