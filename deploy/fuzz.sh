#!/usr/bin/env bash
# Long fuzzing runs, for a person to start (the test suite runs each target
# for about 20 s):
#   deploy/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 3600, all five)
#   GUNBAI_FUZZ_RUNS=10000000 deploy/fuzz.sh 86400 http_request_fuzzer
#     stops each target after that many executions (or the seconds, first)
# 1. The coverage-guided libFuzzer targets of tests/fuzz (clang, ASan and
#    UBSan, build-fuzz), one after another, each for SECONDS_PER_TARGET:
#    binary_log_fuzzer, text_log_fuzzer, ruleset_fuzzer, rpc_fuzzer,
#    http_request_fuzzer. The
#    corpora grow in build-fuzz/corpus/<target> and carry over from run to
#    run; crashes, leaks, UB and timeouts land in build-fuzz/artifacts/ (turn
#    each into a regression input: tests/fuzz/regressions/<target>/).
# 2. The older seeded-mutation test (FuzzSmokeTest in build-asan) for
#    GUNBAI_MUTATION_ITERATIONS (default 100000; 0 skips it).
# Exit 1 when any run found something.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(binary_log_fuzzer text_log_fuzzer ruleset_fuzzer rpc_fuzzer
    http_request_fuzzer)
if [ -n "${GUNBAI_FUZZ_RUNS:-}" ]; then
  export GUNBAI_FUZZ_FLAGS="${GUNBAI_FUZZ_FLAGS:-} -runs=${GUNBAI_FUZZ_RUNS}"
fi

bash deploy/setup.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGUNBAI_FUZZ=ON >/dev/null
cmake --build build-fuzz -j2 --target fuzz

failed=()
for target in "${targets[@]}"; do
  echo "fuzz: $target for ${seconds}s"
  log=build-fuzz/fuzz-$target.log
  status=0
  bash tests/fuzz/run_fuzzer.sh "build-fuzz/tests/fuzz/$target" "$seconds" \
    "build-fuzz/corpus/$target" build-fuzz/artifacts \
    "build-fuzz/tests/fuzz/seeds/$target" "tests/fuzz/regressions/$target" \
    >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+ +INITED|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$log" || true
  [ "$status" -eq 0 ] || failed+=("$target")
done

iterations=${GUNBAI_MUTATION_ITERATIONS:-100000}
if [ "$iterations" -gt 0 ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGUNBAI_SANITIZE=ON >/dev/null
  cmake --build build-asan -j2 --target replay_test
  GUNBAI_FUZZ_ITERATIONS=$iterations \
    ./build-asan/tests/replay/replay_test --gtest_filter='FuzzSmokeTest.*' ||
    failed+=(mutation)
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: found something in: ${failed[*]} (see build-fuzz/artifacts/ and build-fuzz/fuzz-<target>.log)"
  exit 1
fi
echo "fuzz: nothing found"
