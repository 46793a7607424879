#!/usr/bin/env bash
# The test suite on a fresh machine: install what is missing, build with
# AddressSanitizer and UBSan and warnings as errors in gunbai's own code
# (GUNBAI_WERROR), run every test with ctest; then build the
# libFuzzer targets with clang (build-fuzz) and run each for a short bounded
# time over its seeds and regression inputs (ctest -L fuzz; about 20 s a
# target, GUNBAI_FUZZ_SMOKE_SECONDS to change it).
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/setup.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGUNBAI_SANITIZE=ON \
  -DGUNBAI_WERROR=ON >/dev/null
cmake --build build-asan -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2 --timeout 300
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGUNBAI_FUZZ=ON -DGUNBAI_WERROR=ON \
  -DGUNBAI_FUZZ_SMOKE_SECONDS="${GUNBAI_FUZZ_SMOKE_SECONDS:-20}" \
  >/dev/null
cmake --build build-fuzz -j2 --target fuzz
ctest --test-dir build-fuzz -L fuzz --output-on-failure -j2 --timeout 600
bash deploy/lint-proto.sh
