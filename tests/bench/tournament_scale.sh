#!/usr/bin/env bash
# The tournament desk at an event's scale (issue 35): PLAYERS players (200)
# and ROUNDS rounds (6) of Daimyo games of 8 turns, PLAYERS/2 games a round
# (600 in all), each a different generated game (`gunbai generate --count`,
# seeds 1 and up, the players' names taken out of the headers so the desk
# seats whoever the pairing says). Round r pairs player i with player
# PLAYERS/2 + (i + r) mod PLAYERS/2, so nobody meets twice. Then times
# `gunbai tournament standings` over the whole event (every game audited)
# and checks what it printed: every game verified (the generator's games
# audit clean), the standings final. A script a person runs for the figure
# the closing note quotes; the suite runs it small (tournament_scale_smoke:
# 20 players, 2 rounds).
#
# Usage: tournament_scale.sh GUNBAI [PLAYERS] [ROUNDS]
set -euo pipefail
gunbai=$1
players=${2:-200}
rounds=${3:-6}
half=$((players / 2))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
games=$((half * rounds))
"$gunbai" generate --count "$games" --out-dir "$work/raw" --turns 8 >/dev/null 2>&1
mkdir -p "$work/games"
for f in "$work"/raw/*.textproto; do
  sed '/^    player: /d' "$f" >"$work/games/$(basename "$f")"
done
t=$work/event.textproto
{
  echo 'name: "Scale" version: "1"'
  for ((i = 0; i < players; i++)); do echo "players { id: \"p$i\" }"; done
  echo 'scoring { win: 3 draw: 1 loss: 0 tie_breaks: TIE_BREAK_OPPONENTS_SCORE }'
  seed=1
  for ((r = 1; r <= rounds; r++)); do
    echo "rounds { number: $r ruleset: \"daimyo\""
    for ((i = 0; i < half; i++)); do
      echo "  games { table: $((i + 1)) first: \"p$i\" second: \"p$((half + (i + r) % half))\" log: \"games/game-$seed.textproto\" }"
      seed=$((seed + 1))
    done
    echo "}"
  done
} >"$t"
start=$(date +%s.%N)
code=0
"$gunbai" tournament standings "$t" >"$work/out.txt" 2>/dev/null || code=$?
end=$(date +%s.%N)
verified=$(grep -c '\[verified\]' "$work/out.txt" || true)
if [[ $code -ne 0 || $verified -ne $games ]]; then
  echo "FAIL: exit $code, $verified of $games games verified" >&2
  grep -v '\[verified\]' "$work/out.txt" | head -20 >&2
  exit 1
fi
grep -q "standings final" "$work/out.txt" || { echo "FAIL: not final" >&2; exit 1; }
printf 'ok   %d players, %d rounds, %d games of 8 turns: all verified, standings final in %.2f s\n' \
  "$players" "$rounds" "$games" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
