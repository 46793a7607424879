#!/usr/bin/env bash
# Measures what the most hostile request of each gunbaid RPC costs the
# daemon in memory, for a person to run (ctest runs it at 1 MiB,
# rpc_memory_smoke). For each case tests/e2e/rpc_memory starts a fresh
# gunbaid, warms it with a small request of the same RPC, sends the hostile
# one, and prints the growth of the daemon's peak resident set (VmHWM)
# beside the request's size, with the daemon's CPU time and the answer. The
# RPCs that only name a game (ReadEvents, GetGameState, AuditGame,
# WatchGame, ExportGame) are measured against the stored game's size, on a
# daemon restarted over a game that hostile appends filled. Exits 1 when a
# case costs more than MAX_RATIO times its size plus 24 MiB, or the daemon
# dies. About a minute at 16 MiB on this machine.
#
# Usage: deploy/rpc-memory.sh [BYTES]
#   BYTES  the size each hostile request aims at, default 16777216 (16 MiB,
#          a quarter of gunbaid's default --max-message-bytes)
# Environment:
#   RPC_MEMORY=path/to/rpc_memory  use this binary instead of building
#                                  build-release (Release)
#   MAX_RATIO=R                    the bar, default 8
#   ONLY=TEXT                      only the cases whose RPC and input
#                                  contain TEXT
set -euo pipefail
cd "$(dirname "$0")/.."

bytes=${1:-16777216}
if ! [[ ${bytes} =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: deploy/rpc-memory.sh [BYTES]   (BYTES a positive number)" >&2
  exit 2
fi

if [[ -z "${RPC_MEMORY:-}" ]]; then
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-release -j2 --target rpc_memory gunbaid >/dev/null
  RPC_MEMORY=build-release/tests/e2e/rpc_memory
fi

args=(--bytes="${bytes}" --max-ratio="${MAX_RATIO:-8}")
if [[ -n "${ONLY:-}" ]]; then
  args+=(--only="${ONLY}")
fi
echo "\$ ${RPC_MEMORY} ${args[*]}"
start=$(date +%s)
status=0
"${RPC_MEMORY}" "${args[@]}" || status=$?
echo "($(($(date +%s) - start)) s)"
exit "${status}"
