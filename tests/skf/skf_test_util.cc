#include "tests/skf/skf_test_util.h"

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "rules/skf/engine.h"

namespace gunbai::testing {

gunbai::v1::Ruleset ExampleRuleset() {
  gunbai::v1::Ruleset data;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      std::string(rules::SkfRulesetText()), &data));
  return data;
}

rules::skf::Tables ExampleTables() {
  auto tables = rules::skf::TablesFromProto(ExampleRuleset().skf(), "skf");
  EXPECT_TRUE(tables.ok()) << tables.status();
  return tables.ok() ? *tables : rules::skf::Tables();
}

std::vector<std::string> RuleIds(const std::vector<rules::Finding>& findings) {
  std::vector<std::string> ids;
  for (const rules::Finding& f : findings) ids.emplace_back(f.rule_id);
  return ids;
}

}  // namespace gunbai::testing
