#!/usr/bin/env bash
# The test suite on a fresh machine: install what is missing, build with
# AddressSanitizer and UBSan, run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/setup.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGUNBAI_SANITIZE=ON >/dev/null
cmake --build build-asan -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 --timeout 300
bash deploy/lint-proto.sh
