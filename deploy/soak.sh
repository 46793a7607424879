#!/usr/bin/env bash
# A long soak of live games for a person to start (the suite runs one cycle
# of it): the crash test, repeated. Each cycle starts a fresh gunbaid under
# AddressSanitizer, has four client threads append to three games (one of
# them with server dice) until 240 appends are acknowledged, kills gunbaid
# with SIGKILL mid-stream, restarts it on the same directory, and checks
# that every acknowledged event is stored once, in order, that the chains
# verify, that the games audit clean and that the server dice check out die
# by die (tests/e2e/README.md, "The crash test").
# Usage: deploy/soak.sh [CYCLES]   (default 50)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-50}
bash deploy/setup.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGUNBAI_SANITIZE=ON >/dev/null
cmake --build build-asan -j2 --target e2e_live_game_test gunbaid
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
./build-asan/tests/e2e/e2e_live_game_test \
  --gtest_filter='*AcknowledgedAppendsSurviveSigkill*' \
  --gtest_repeat="${cycles}" --gtest_break_on_failure
