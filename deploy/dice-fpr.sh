#!/usr/bin/env bash
# Measures the error rates of `gunbai dice` by simulation, for a person to
# run (ctest runs only a 300-trial smoke, dice_fpr_smoke): how often fair
# dice flag one clan's game alone (100-400 dice, and 20-100), and make a
# report of 1, 10 and 100 fair games exit 1; and how often a player whose
# dice show one face 30% more often is flagged over 1, 5 and 20 games. Each
# row is GROUPS simulated groups or reports, from a fixed seed: the same
# build prints the same table. Prints the table of tests/replay/dice_fpr
# (the functions of replay/dice_stats.h, as `gunbai dice` runs them), with
# a 95% interval for each rate and the rate without correction (each test
# at 1%, as before Holm) beside it. About 3 minutes at 20000 on one core.
#
# Usage: deploy/dice-fpr.sh [GROUPS]
#   GROUPS  trials a row, default 20000
# Environment:
#   DICE_FPR=path/to/dice_fpr  use this binary instead of building
#                              build-release (Release)
#   SEED=N                     another seed (default 20240611)
set -euo pipefail
cd "$(dirname "$0")/.."

groups=${1:-20000}
if ! [[ ${groups} =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: deploy/dice-fpr.sh [GROUPS]   (GROUPS a positive number)" >&2
  exit 2
fi

if [[ -z "${DICE_FPR:-}" ]]; then
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-release -j2 --target dice_fpr >/dev/null
  DICE_FPR=build-release/tests/replay/dice_fpr
fi

args=(--trials="${groups}")
if [[ -n "${SEED:-}" ]]; then
  args+=(--seed="${SEED}")
fi
echo "\$ ${DICE_FPR} ${args[*]}"
start=$(date +%s)
"${DICE_FPR}" "${args[@]}"
echo "($(($(date +%s) - start)) s)"
