#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time:
#   run_fuzzer.sh BINARY SECONDS CORPUS_DIR ARTIFACT_DIR [INPUT_DIR...]
# CORPUS_DIR (made if missing) receives the new inputs; each INPUT_DIR that
# exists (seeds, regressions) is read first, every file in it run once, so a
# regression input that still crashes fails the run. Crashes, leaks, UB and
# timeouts are written to ARTIFACT_DIR as <kind>-<target>-<sha1>. Used by
# the ctests of tests/fuzz and by deploy/fuzz.sh; extra libFuzzer flags come
# from GUNBAI_FUZZ_FLAGS. With GUNBAI_FUZZ_FRESH=1 (the ctests) CORPUS_DIR is
# emptied first, so every smoke run starts where CI's, on a clean clone, does:
# with the fixed seed a local run walks CI's inputs (as far as its speed
# lets it), and an input CI finds is found here too.
set -euo pipefail
binary=$1 seconds=$2 corpus=$3 artifacts=$4
shift 4
[ "${GUNBAI_FUZZ_FRESH:-0}" = 1 ] && rm -rf "$corpus"
mkdir -p "$corpus" "$artifacts"
inputs=()
for dir in "$@"; do
  [ -d "$dir" ] && inputs+=("$dir")
done
name=$(basename "$binary")
dict=$(dirname "${BASH_SOURCE[0]}")/${name%_fuzzer}.dict
# -entropic=0: with the hundreds of thousands of features a replay makes,
# the entropic scheduler of clang 14 spends nine tenths of the time updating
# feature frequencies (measured: 26 exec/s with it, 258 without, on
# binary_log_fuzzer, and more coverage in the same time).
flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -entropic=0
       -print_final_stats=1 -artifact_prefix="$artifacts/$name-")
[ -f "$dict" ] && flags+=(-dict="$dict")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:abort_on_error=1
# A target's own libFuzzer flags, one a line, from NAME.flags beside it.
flags_file=$(dirname "${BASH_SOURCE[0]}")/${name%_fuzzer}.flags
if [ -f "$flags_file" ]; then
  while read -r flag; do
    [[ -z "$flag" || "$flag" == \#* ]] || flags+=("$flag")
  done <"$flags_file"
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}:halt_on_error=1
# shellcheck disable=SC2086
exec "$binary" "${flags[@]}" ${GUNBAI_FUZZ_FLAGS:-} "$corpus" "${inputs[@]}"
