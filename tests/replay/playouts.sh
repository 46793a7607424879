#!/usr/bin/env bash
# Issue 28's playout figures: 10,000 random playouts through the
# legal-action list, both rulesets, with and without a table, each game
# audited from its first event (tests/replay/playout.h). For a person to
# run on a Release build (about 7.5 minutes on 2 cores; the suite runs the
# smoke versions, legal_playouts_smoke_*). Exits 1 when any playout fails.
#
# Usage: tests/replay/playouts.sh [BUILD_DIR]   (default: build)
set -euo pipefail
build="${1:-build}"
tool="${build}/tests/replay/legal_playouts"
[[ -x "${tool}" ]] || { echo "playouts.sh: build ${tool} first" >&2; exit 2; }
status=0
# Runs two playout runs side by side; a failure of either fails the script.
pair() {
  local a b
  "${tool}" $1 & a=$!
  "${tool}" $2 & b=$!
  wait "${a}" || status=1
  wait "${b}" || status=1
}
# 4,000 Daimyo games without a table, 3,000 on a table, 3,000 Samurai
# Knight Fever games: 10,000 in all.
pair "--games=2000 --seed=1" "--games=2000 --seed=2001"
pair "--games=1500 --seed=1 --table" "--games=1500 --seed=1501 --table"
# SKF under the example ruleset with a morale check: a server-dice game
# needs it (rules/skf/RULES.md, "Server dice").
skf="--ruleset-file=$(dirname "$0")/../../rules/skf/umpire-example.textproto"
pair "--games=1500 --seed=1 ${skf}" "--games=1500 --seed=1501 ${skf}"
exit "${status}"
