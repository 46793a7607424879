#!/usr/bin/env bash
# The test suite on a fresh machine, in one build: install what is missing,
# build everything with clang, AddressSanitizer, UBSan and libFuzzer's
# coverage (GUNBAI_FUZZ) and warnings as errors in gunbai's own code
# (GUNBAI_WERROR), then run every test with ctest: the unit, property,
# end-to-end, browser and deploy tests, and each libFuzzer target for a short
# bounded time over its seeds and regression inputs (label fuzz; about 20 s a
# target, GUNBAI_FUZZ_SMOKE_SECONDS to change it); then lint the protos.
#
# One build serves both: the fuzz targets need clang's libFuzzer, and the
# same sanitized tree runs the suite (before, a GCC tree with ASan ran the
# suite and a second, clang tree the fuzz targets: two full builds). -O1
# with line tables only: the sanitizers' reports keep file and line, the
# tests run about twice as fast as at -O0, and assertions stay on.
# GCC's warnings are checked by the developer build (README: "Build").
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/setup.sh
CC=clang CXX=clang++ cmake -S . -B build-check -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
  -DGUNBAI_FUZZ=ON -DGUNBAI_WERROR=ON \
  -DGUNBAI_FUZZ_SMOKE_SECONDS="${GUNBAI_FUZZ_SMOKE_SECONDS:-20}" \
  >/dev/null
cmake --build build-check -j2 --target all fuzz
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-check --output-on-failure -j2 --timeout 300
bash deploy/lint-proto.sh
