#include "tests/generate/test_ruleset.h"

#include <utility>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace gunbai::generate::test_support {

const replay::LoadedRuleset& DaimyoRuleset() {
  static const replay::LoadedRuleset* const ruleset = [] {
    absl::StatusOr<replay::LoadedRuleset> loaded =
        replay::BuiltinRuleset("daimyo");
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return new replay::LoadedRuleset(loaded.ok() ? *std::move(loaded)
                                                 : replay::LoadedRuleset());
  }();
  return *ruleset;
}

}  // namespace gunbai::generate::test_support
