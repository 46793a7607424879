#!/usr/bin/env bash
# Runs the reference check over N situations (default 100,000): the
# independent model of tests/reference/ against the engine, in process.
# Builds reference_check in build-ref (RelWithDebInfo) first.
#   deploy/reference.sh [N] [extra reference_check flags...]
# Runtime: about 50 s for 100,000 (four kinds of situation) in process, on one
# core of a machine running other builds. With --gunbai=PATH (one process a
# situation) expect several minutes.
# Reproducers of every disagreement group are kept in build-ref/reference-failures/.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-100000}"
shift || true
build=build-ref
[ -f "$build/CMakeCache.txt" ] ||
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j1 --target reference_check >/dev/null
start=$(date +%s)
status=0
"$build/tests/reference/reference_check" --seed-from=1 --count="$n" \
  --keep-failures="$build/reference-failures" "$@" || status=$?
echo "reference.sh: $n situations in $(( $(date +%s) - start )) s (exit $status)"
exit "$status"
