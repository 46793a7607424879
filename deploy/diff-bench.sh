#!/usr/bin/env bash
# Times `gunbai diff` over a generated corpus, for a person to run (the test
# suite never runs it at this size): GAMES games of about EVENTS events each
# (`gunbai generate`, 8 units a side, binary logs), compared under the
# built-in Daimyo ruleset and under a copy whose firing hits on 7 instead of
# 8. Prints the time, the rate in logs/s and the summary; with SERVER=1 also
# the same diff through a gunbaid (AuditService.Diff).
#
# Usage: deploy/diff-bench.sh [GAMES] [EVENTS] [JOBS]
#   GAMES   default 10000      EVENTS  default 1000
#   JOBS    workers, default one per core (also used to generate)
# Environment:
#   GUNBAI=path/to/gunbai  use this binary (and the gunbaid beside it)
#                          instead of building build-release (Release)
#   WORK=DIR               keep the corpus and outputs in DIR (a corpus
#                          already there of the same size is reused)
#   FORMAT=text|binary     the logs' format (default binary)
#   SERVER=1               also time the diff through a gunbaid
set -euo pipefail
cd "$(dirname "$0")/.."

games=${1:-10000}
events=${2:-1000}
jobs=${3:-$(nproc)}
format=${FORMAT:-binary}
ext=$([[ ${format} == binary ]] && echo binpb || echo textproto)

if [[ -z "${GUNBAI:-}" ]]; then
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-release -j2 --target gunbai gunbaid
  GUNBAI=build-release/service/gunbai
fi
gunbai=$(realpath "${GUNBAI}")
gunbaid="$(dirname "${gunbai}")/gunbaid"

work=${WORK:-$(mktemp -d)}
mkdir -p "${work}/corpus"
daemon_pid=""
cleanup() {
  if [[ -n "${daemon_pid}" ]]; then
    kill "${daemon_pid}" 2>/dev/null || true
    wait "${daemon_pid}" 2>/dev/null || true
  fi
  [[ -n "${WORK:-}" ]] || rm -rf "${work}"
}
trap cleanup EXIT

# elapsed START [END]: seconds from START (date +%s.%N) to END or now.
elapsed() {
  awk -v a="$1" -v b="${2:-$(date +%s.%N)}" 'BEGIN { printf "%.3f", b - a }'
}

# The corpus: seeds 1..GAMES, generated on JOBS processes.
have=$(find "${work}/corpus" -name "*.${ext}" | wc -l)
if [[ ${have} -ne ${games} ]]; then
  rm -rf "${work}/corpus" && mkdir -p "${work}/corpus"
  echo "generating ${games} games of ${events} events (${format}) in ${work}/corpus ..."
  start=$(date +%s.%N)
  seq 1 "${games}" | xargs -P "${jobs}" -I{} "${gunbai}" generate --seed {} \
    --events "${events}" --units 8 --format="${format}" \
    -o "${work}/corpus/game-{}.${ext}"
  echo "generated in $(elapsed "${start}") s, $(du -sh "${work}/corpus" | cut -f1)"
fi

# The new ruleset: the first hit_score of the data file is the firing one.
awk '!done && /hit_score: 8/ { sub("hit_score: 8", "hit_score: 7"); done = 1 } { print }' \
  rules/daimyo/daimyo.textproto >"${work}/hit7.textproto"

# time_diff NAME ARGS...: runs gunbai diff, prints seconds, rate and summary.
time_diff() {
  local name=$1
  shift
  local start end rc
  start=$(date +%s.%N)
  set +e
  "${gunbai}" diff --quiet --format=json --jobs="${jobs}" \
    --new-ruleset="${work}/hit7.textproto" "$@" "${work}/corpus" \
    >"${work}/${name}.json"
  rc=$?
  set -e
  end=$(date +%s.%N)
  local seconds
  seconds=$(elapsed "${start}" "${end}")
  printf '%-8s %d logs in %.1f s: %.0f logs/s with %d jobs (exit %d)\n' \
    "${name}" "${games}" "${seconds}" \
    "$(awk -v n="${games}" -v s="${seconds}" 'BEGIN { print n / s }')" \
    "${jobs}" "${rc}"
  python3 - "${work}/${name}.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
rules = ", ".join(f"{r['rule_id']} +{r.get('added', 0)} -{r.get('removed', 0)}"
                  for r in s.get("findings_by_rule", []))
print(f"         {s.get('logs_compared', 0)} compared, {s.get('logs_changed', 0)} changed, "
      f"{s.get('events_changed', 0)} events and {s.get('outcomes_changed', 0)} outcomes changed, "
      f"{len(s.get('failed', []))} failed; {rules}")
EOF
}

time_diff local

if [[ "${SERVER:-0}" == 1 ]]; then
  "${gunbaid}" --listen 127.0.0.1:0 >"${work}/daemon.out" 2>"${work}/daemon.err" &
  daemon_pid=$!
  port=""
  for _ in $(seq 100); do
    if [[ "$(head -n 1 "${work}/daemon.out")" =~ :([0-9]+)$ ]]; then
      port=${BASH_REMATCH[1]}
      break
    fi
    sleep 0.1
  done
  [[ -n "${port}" ]] || { echo "gunbaid did not start" >&2; exit 1; }
  time_diff server --server="127.0.0.1:${port}"
  cmp -s "${work}/local.json" "${work}/server.json" &&
    echo "         the same output as local" ||
    echo "         DIFFERENT output from local" >&2
fi
