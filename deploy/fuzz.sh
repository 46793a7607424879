#!/usr/bin/env bash
# A long run of the mutation fuzz test under AddressSanitizer and UBSan, for a
# person to start (the test suite runs a 300-iteration smoke of it).
# Usage: deploy/fuzz.sh [ITERATIONS]   (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGUNBAI_SANITIZE=ON >/dev/null
cmake --build build-asan -j2 --target replay_test
GUNBAI_FUZZ_ITERATIONS=${1:-100000} \
  ./build-asan/tests/replay/replay_test --gtest_filter='FuzzSmokeTest.*'
