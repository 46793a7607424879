// The built-in Daimyo ruleset, loaded once for the generator's tests.
// Thread-compatible: the first call loads it; later calls only read it.
#ifndef GUNBAI_TESTS_GENERATE_TEST_RULESET_H_
#define GUNBAI_TESTS_GENERATE_TEST_RULESET_H_

#include "replay/ruleset_loader.h"

namespace gunbai::generate::test_support {

// Returns the built-in Daimyo ruleset; a test fails (and the ruleset is
// empty) when it does not load.
const replay::LoadedRuleset& DaimyoRuleset();

}  // namespace gunbai::generate::test_support

#endif  // GUNBAI_TESTS_GENERATE_TEST_RULESET_H_
