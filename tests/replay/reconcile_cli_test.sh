#!/usr/bin/env bash
# `gunbai reconcile` through the real binary: its exit codes and words.
# Copies of tests/data/anegawa-clean.textproto: the same (exit 0), B's
# volley at seq 6 rolled all 1s so its claim of 2 hits is disputed (exit 1,
# the rules support A; JSON parses), and another game (exit 2, saying so).
#
# Usage: reconcile_cli_test.sh GUNBAI DATA_DIR
set -euo pipefail
gunbai=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
a=$data/anegawa-clean.textproto
sed 's/dice: \[2, 2, 3, 2, 1, 1, 4, 4\]/dice: [1, 1, 1, 1, 1, 1, 1, 1]/' "$a" >"$work/b.textproto"
cmp -s "$a" "$work/b.textproto" && fail "the edit of seq 6's dice did not apply"
sed 's/game_id: "anegawa-clean"/game_id: "another"/' "$a" >"$work/other.textproto"

code=0
"$gunbai" reconcile "$a" "$a" >"$work/same.out" || code=$?
[[ $code -eq 0 ]] || fail "the same copies: exit $code"
grep -q "^The copies agree: 19 events" "$work/same.out" || fail "$(cat "$work/same.out")"
echo "ok   the same copies: exit 0"

code=0
"$gunbai" reconcile "$a" "$work/b.textproto" >"$work/diff.out" || code=$?
[[ $code -eq 1 ]] || fail "other dice: exit $code"
grep -q "The copies part at seq 6: the same event with other dice" "$work/diff.out" ||
  fail "$(cat "$work/diff.out")"
grep -q "The rules support copy A" "$work/diff.out" || fail "$(cat "$work/diff.out")"
echo "ok   other dice at seq 6: exit 1, the rules support A"

code=0
"$gunbai" reconcile --format=json "$a" "$work/b.textproto" >"$work/diff.json" || code=$?
[[ $code -eq 1 ]] || fail "json: exit $code"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["shape"]=="RECONCILE_SHAPE_OTHER_DICE" and r["rules_support"]=="A", r' "$work/diff.json" ||
  fail "the JSON: $(head -c 300 "$work/diff.json")"
echo "ok   the JSON parses, shape OTHER_DICE, rules support A"

code=0
"$gunbai" reconcile "$a" "$work/other.textproto" >/dev/null 2>"$work/other.err" || code=$?
[[ $code -eq 2 ]] || fail "another game: exit $code"
grep -q "not two copies of one game" "$work/other.err" || fail "$(cat "$work/other.err")"
echo "ok   another game: exit 2, saying so"
