#!/usr/bin/env bash
# The table check: N table situations (default 100,000; seeds FROM..FROM+N-1,
# FROM default 1), each a volley on a table measured by the reference
# geometry (table_model.h), audited in process by the engine. Prints the
# agreement count and each disagreement group with its smallest reproducer
# (kept in build-ref/table-failures/).
#   tests/reference/table_check.sh [N] [FROM] [extra reference_check flags...]
# Builds reference_check in build-ref (Release) first; one core.
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-100000}"
from="${2:-1}"
shift 2 || shift $# || true
build="${BUILD_DIR:-build-ref}"
[ -f "$build/CMakeCache.txt" ] ||
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j1 --target reference_check >/dev/null
start=$(date +%s)
status=0
"$build/tests/reference/reference_check" --kinds=table --seed-from="$from" \
  --count="$n" --keep-failures="$build/table-failures" "$@" || status=$?
echo "table_check.sh: $n table situations from seed $from in $(( $(date +%s) - start )) s (exit $status)"
exit "$status"
