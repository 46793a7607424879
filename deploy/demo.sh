#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, start the
# gunbaid daemon on a free port, audit the sample game through it, stop it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/setup.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j2 --target gunbaid gunbai

log=$(mktemp)
./build-release/service/gunbaid --listen 127.0.0.1:0 >"$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  grep -q "listening on" "$log" && break
  sleep 0.1
done
addr=$(sed -n 's/^gunbaid listening on //p' "$log")
[ -n "$addr" ] || { echo "demo: gunbaid did not start" >&2; exit 2; }
echo "demo: gunbaid is listening on $addr; auditing tests/data/sekigahara.textproto"
status=0
./build-release/service/gunbai audit --server "$addr" tests/data/sekigahara.textproto || status=$?
echo "demo: gunbai exited $status (0 clean, 1 findings, 2 bad input, 3 daemon)"
kill -TERM $pid
wait $pid || true
