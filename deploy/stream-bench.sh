#!/usr/bin/env bash
# The whole-process cost of `gunbai audit` on a big binary log (issue 11,
# "Stream the log"): generates a game of EVENTS events (default 1,000,000;
# a temporary file, deleted at the end), audits it streamed (`gunbai audit
# FILE.pb`) and read whole (the same bytes on standard input, which is not
# streamed), each under /usr/bin/time -v, and prints CPU per event and max
# RSS beside the in-process benchmark (replay_bench BM_ParseAndAudit and
# BM_StreamAudit, as many units a side as the log: $UNITS, 12 or 150,
# default 12). Release build in $BUILD (default build-stream-rel).
#
#   bash deploy/stream-bench.sh [EVENTS]
#   UNITS=150 bash deploy/stream-bench.sh
set -euo pipefail
EVENTS=${1:-1000000}
BUILD=${BUILD:-build-stream-rel}
UNITS=${UNITS:-12}
cd "$(dirname "$0")/.."

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD" -j1 --target gunbai replay_bench > /dev/null
GUNBAI="$BUILD/service/gunbai"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$GUNBAI" generate --seed 1 --events "$EVENTS" --units "$UNITS" \
  --format=binary \
  -o "$TMP/big.pb"
echo "log: $EVENTS events, $(stat -c %s "$TMP/big.pb") bytes"

# Runs "$@" under /usr/bin/time -v; prints CPU per event and max RSS.
measure() {
  local label=$1
  shift
  # Exit 1 (findings) is a result, not a failure.
  /usr/bin/time -v "$@" > "$TMP/out.txt" 2> "$TMP/time.txt" || true
  if ! grep -q "^gunbai audit of game" "$TMP/out.txt"; then
    echo "$label: no report" >&2
    cat "$TMP/time.txt" >&2
    exit 1
  fi
  awk -v label="$label" -v events="$EVENTS" -F': ' '
    /User time/ { user = $2 }
    /System time/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 }
    END {
      printf "%-34s %7.0f ns CPU an event (user %.2f s, sys %.2f s), max RSS %.1f MiB\n",
             label, (user + sys) * 1e9 / events, user, sys, rss / 1024
    }' "$TMP/time.txt"
}

measure "gunbai audit big.pb (streamed)" "$GUNBAI" audit "$TMP/big.pb"
measure "gunbai audit - < big.pb (whole)" \
  sh -c "exec '$GUNBAI' audit --input-format=binary - < '$TMP/big.pb'"

echo "in process (replay_bench, 10,000 events, median of 5, CPU an event):"
"$BUILD/tests/bench/replay_bench" \
  --benchmark_filter="BM_(ParseAndAudit|StreamAudit)/$UNITS\$" \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_format=csv 2> /dev/null |
  awk -F, '/_median"/ {
    gsub(/"/, "", $1)
    printf "  %-32s %7.0f ns\n", $1, $4 * 1000 / 10000
  }'
