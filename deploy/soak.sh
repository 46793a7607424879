#!/usr/bin/env bash
# The crash test of live games, for a person to run for hours: a gunbaid
# (AddressSanitizer and UBSan build) on a data directory, APPENDERS client
# loops appending one event at a time through `gunbai game append` to GAMES
# record games (appender i owns games i, i+APPENDERS, ...), and CYCLES times:
# let them append for a random moment (up to MAX_RUN_MS), SIGKILL gunbaid,
# stop the clients, restart gunbaid on the same directory, and check every
# game:
#  - its export holds every acknowledged append, once, in order: positions
#    1..n hold seqs 1..n, no event id twice, and the chain hash at each
#    acknowledged position is the head its append's answer gave;
#  - the only event past the acknowledged ones is the one append that was in
#    flight when gunbaid died (its outcome unknown to the client); the next
#    cycle retries it unchanged and must get its answer (stored once) or
#    store it now;
#  - `gunbai verify` of the export is ok, and ok with --head= the last
#    acknowledged head.
# Any failure stops the run with exit 1 and keeps the work directory.
#
# Usage: deploy/soak.sh [CYCLES] [GAMES] [APPENDERS]   (default 50 32 8)
# Environment: MAX_RUN_MS (default 3000), BUILD_DIR (default build-asan),
# SOAK_DIR (the work directory; default a new one under /tmp),
# SKIP_BUILD=1 to use the binaries already in BUILD_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cycles=${1:-50}
games=${2:-32}
appenders=${3:-8}
max_run_ms=${MAX_RUN_MS:-3000}
build=${BUILD_DIR:-build-asan}

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  bash deploy/setup.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGUNBAI_SANITIZE=ON >/dev/null
  cmake --build "$build" -j2 --target gunbaid gunbai
fi
gunbaid="$root/$build/service/gunbaid"
gunbai="$root/$build/service/gunbai"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

work=${SOAK_DIR:-$(mktemp -d /tmp/gunbai-soak.XXXXXX)}
mkdir -p "$work/games"
echo "soak: $cycles cycles, $games games, $appenders appenders, in $work"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/umpire.tok"
chmod 600 "$work/umpire.tok"
export GUNBAI_TOKEN
GUNBAI_TOKEN=$(cat "$work/umpire.tok")

daemon_pid=""
addr="127.0.0.1:0"
appender_pids=()

cleanup() {
  for pid in "${appender_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$daemon_pid" ]; then kill -KILL "$daemon_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'echo "soak: line $LINENO failed: $BASH_COMMAND" >&2' ERR

fail() {
  echo "soak: FAILED: $*" >&2
  echo "soak: the work directory is kept: $work" >&2
  exit 1
}

# Starts gunbaid on the data directory (on the address it had before) and
# waits until it listens.
start_daemon() {
  "$gunbaid" --listen="$addr" --data-dir="$work/data" \
    --umpire-token-file="$work/umpire.tok" >>"$work/gunbaid.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 1 200); do
    local line
    line=$(grep -a 'listening on' "$work/gunbaid.log" | tail -1 || true)
    if [ -n "$line" ] && [ "$(grep -ac 'listening on' "$work/gunbaid.log")" -ge "$starts" ]; then
      addr=${line##*listening on }
      return 0
    fi
    kill -0 "$daemon_pid" 2>/dev/null || fail "gunbaid did not start: $(tail -5 "$work/gunbaid.log")"
    sleep 0.05
  done
  fail "gunbaid did not listen within 10 s"
}

# Writes the event at `seq` of a game: a turn start, then activations and
# moves (a record game stores them whatever the rules say of them).
write_event() {
  local seq=$1 file=$2
  if [ "$seq" -eq 1 ]; then
    echo "events { seq: 1 turn: 1 turn_start { initiative_clan: \"oda\" } }" >"$file"
  elif [ $((seq % 5)) -eq 2 ]; then
    echo "events { seq: $seq turn: 1 clan: \"oda\" activation {} }" >"$file"
  else
    echo "events { seq: $seq turn: 1 clan: \"oda\" move { unit: \"oda-teppo\" } }" >"$file"
  fi
}

# Appends the next event of game directory `dir` once; the acknowledged
# state (version, heads) changes only after an acknowledgement.
append_once() {
  local dir=$1 game version out rc head
  game=$(basename "$dir")
  version=$(cat "$dir/version")
  # An append in flight when gunbaid died is retried unchanged.
  [ -e "$dir/pending.textproto" ] || write_event $((version + 1)) "$dir/pending.textproto"
  set +e
  out=$("$gunbai" game append --server="$addr" --game="$game" \
    --expected-version="$version" "$dir/pending.textproto" 2>&1)
  rc=$?
  set -e
  case $rc in
    0 | 1)  # Acknowledged (1: with findings, which a record game keeps).
      head=$(echo "$out" | sed -n 's/.*the game has \([0-9]*\) events, head sha256:\([0-9a-f]*\).*/\1 \2/p')
      [ "${head%% *}" = $((version + 1)) ] || {
        echo "$game: acknowledged version is not $((version + 1)): $out" >>"$work/errors"
        return 1
      }
      echo "${head#* }" >>"$dir/heads"
      echo $((version + 1)) >"$dir/version.new"
      mv "$dir/version.new" "$dir/version"
      rm "$dir/pending.textproto"
      echo 1 >>"$dir/acked_this_cycle"
      ;;
    3) sleep 0.05 ;;  # gunbaid unreachable: the outcome is unknown.
    *)
      # Refused or failed; the daemon dying mid-call can surface as a
      # transport error too. Keep it pending and retry, but log it.
      echo "$game v$version rc=$rc: $(echo "$out" | head -2)" >>"$work/appender-errors.log"
      sleep 0.05
      ;;
  esac
}

appender() {
  local index=$1 dirs=() g
  for ((g = index; g < games; g += appenders)); do dirs+=("$work/games/soak-$g"); done
  while [ ! -e "$work/stop" ]; do
    for dir in "${dirs[@]}"; do
      [ -e "$work/stop" ] && break
      append_once "$dir" || return 1
    done
  done
}

# Checks one game's export against what was acknowledged.
check_game() {
  local dir=$1 game version count export_file n ids
  game=$(basename "$dir")
  version=$(cat "$dir/version")
  export_file="$work/export-$game.textproto"
  "$gunbai" game export --server="$addr" --game="$game" >"$export_file" ||
    fail "$game: export failed"
  count=$(grep -c '^chain_hashes:' "$export_file" || true)
  if [ -e "$dir/pending.textproto" ]; then
    [ "$count" -eq "$version" ] || [ "$count" -eq $((version + 1)) ] ||
      fail "$game: $count events stored, $version acknowledged and one in flight"
  else
    [ "$count" -eq "$version" ] ||
      fail "$game: $count events stored, $version acknowledged"
  fi
  # Positions 1..count hold seqs 1..count: in order, none twice or lost.
  n=$({ grep -o '^    seq: [0-9]*' "$export_file" || true; } |
    awk '{ if ($2 != NR) bad = 1 } END { print (bad ? -1 : NR) }')
  [ "$n" = "$count" ] || fail "$game: seqs out of order or repeated in the export"
  ids=$({ grep '^event_ids:' "$export_file" || true; } | sort | uniq -d | wc -l)
  [ "$ids" -eq 0 ] || fail "$game: an event id is stored twice"
  # The chain hash at each acknowledged position is the acknowledged head.
  if [ "$version" -gt 0 ]; then
    cmp -s <(grep '^chain_hashes:' "$export_file" | head -n "$version" | tr -d '"' | awk '{print $2}') \
      "$dir/heads" || fail "$game: a stored chain hash is not the head its append acknowledged"
    "$gunbai" verify --head="$(tail -1 "$dir/heads")" "$export_file" >"$work/verify.out" 2>&1 ||
      fail "$game: gunbai verify: $(cat "$work/verify.out")"
  fi
  "$gunbai" verify "$export_file" >"$work/verify.out" 2>&1 ||
    fail "$game: gunbai verify: $(cat "$work/verify.out")"
  rm "$export_file"
}

starts=1
start_daemon
sed -n '/^events/q;p' tests/data/anegawa-clean.textproto >"$work/armies.textproto"
for ((g = 0; g < games; ++g)); do
  dir="$work/games/soak-$g"
  mkdir -p "$dir"
  sed "s/game_id: \"anegawa-clean\"/game_id: \"soak-$g\"/" "$work/armies.textproto" >"$dir/armies.textproto"
  "$gunbai" game create --server="$addr" --policy=record "$dir/armies.textproto" >/dev/null ||
    fail "cannot create game soak-$g"
  echo 0 >"$dir/version"
  : >"$dir/heads"
done

total_acked=0
for ((cycle = 1; cycle <= cycles; ++cycle)); do
  rm -f "$work/stop" "$work"/games/*/acked_this_cycle
  appender_pids=()
  for ((i = 0; i < appenders; ++i)); do
    appender "$i" &
    appender_pids+=($!)
  done
  run_ms=$((200 + RANDOM % max_run_ms))
  sleep "$(awk -v ms="$run_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL "$daemon_pid"
  wait "$daemon_pid" 2>/dev/null || true
  touch "$work/stop"
  for pid in "${appender_pids[@]}"; do
    wait "$pid" || fail "an appender failed: $(cat "$work/errors" 2>/dev/null)"
  done
  appender_pids=()
  starts=$((starts + 1))
  start_daemon
  acked=$({ cat "$work"/games/*/acked_this_cycle 2>/dev/null || true; } | wc -l)
  in_flight=$({ ls "$work"/games/*/pending.textproto 2>/dev/null || true; } | wc -l)
  for ((g = 0; g < games; ++g)); do check_game "$work/games/soak-$g"; done
  total_acked=$((total_acked + acked))
  echo "soak: cycle $cycle: killed after ${run_ms} ms, $acked appends acknowledged, $in_flight in flight; every game checked"
done
kill -TERM "$daemon_pid"
wait "$daemon_pid" 2>/dev/null || true
daemon_pid=""
echo "soak: ok: $cycles cycles, $total_acked acknowledged appends over $games games, all stored once, in order, verified"
[ -s "$work/appender-errors.log" ] && echo "soak: calls that failed and were retried: $(wc -l <"$work/appender-errors.log") (see $work/appender-errors.log)"
[ -n "${SOAK_DIR:-}" ] || rm -rf "$work"
