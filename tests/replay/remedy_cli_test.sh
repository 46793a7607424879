#!/usr/bin/env bash
# `gunbai remedy` and `gunbai audit --remedies` through the real binary:
# exit codes, words and the log written to go on from. Worked from
# tests/data: anegawa-clean has no finding (exit 0, nothing to remedy);
# sekigahara's leader-loss error at seq 7 is sealed by tokugawa's volley at
# seq 11, and the roll mitsunari owed at the end of turn 3 (found at seq 40)
# has no roll after it, so play goes back to the end-of-turn tests at 38
# (exit 1; kept up to seq 37, whose audit finds only the errors that
# stand); a procedure file that does not parse is refused with its line
# (exit 2).
#
# Usage: remedy_cli_test.sh GUNBAI DATA_DIR
set -euo pipefail
gunbai=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

code=0
"$gunbai" remedy "$data/anegawa-clean.textproto" >"$work/clean.out" || code=$?
[[ $code -eq 0 ]] || fail "a clean log: exit $code"
grep -q "no finding: nothing to remedy" "$work/clean.out" || fail "$(cat "$work/clean.out")"
echo "ok   a clean log: exit 0, nothing to remedy"

code=0
"$gunbai" remedy "$data/sekigahara.textproto" -o "$work/resume.textproto" >"$work/s.out" || code=$?
[[ $code -eq 1 ]] || fail "sekigahara: exit $code"
grep -q "stands: sealed by the roll at seq 11 (tokugawa)" "$work/s.out" || fail "$(cat "$work/s.out")"
grep -q "^plan: keep the log up to seq 37 (37 events) and play again from there; ishida makes its move again" "$work/s.out" ||
  fail "$(cat "$work/s.out")"
grep -q "roll again (2): seq 38, 39" "$work/s.out" || fail "$(cat "$work/s.out")"
echo "ok   sekigahara: exit 1, seq 7 stands, play goes back after seq 37"

# The kept log: 37 events, and its violations and disputes are exactly the
# errors the plan says stand (seq 7, 21, 21, 23, 34, 36).
"$gunbai" audit --format=json "$work/resume.textproto" >"$work/resume.json" || true
python3 - "$work/resume.json" <<'PY' || fail "the kept log's findings are not those that stand"
import json, sys
r = json.load(open(sys.argv[1]))
assert int(r["events_replayed"]) == 37, r["events_replayed"]
seqs = sorted(int(f.get("seq", 0)) for f in r.get("findings", [])
              if f["severity"] in ("SEVERITY_VIOLATION", "SEVERITY_DISPUTE"))
assert seqs == [7, 21, 21, 23, 34, 36], seqs
PY
echo "ok   the kept log audits with only the errors that stand"

# Raised before event 8 (so before tokugawa's roll at 11): the seq-7 error
# stays open. Mitsunari's leader-loss roll at 7 follows tokugawa's volleys at
# 4 and 5 in their firing segment (seq 3 is a move): play goes back to seq
# 4, kept up to 3, and ishida, who erred, makes its move again.
code=0
"$gunbai" remedy "$data/sekigahara.textproto" --raised-at 8 --format=json >"$work/raised.json" || code=$?
[[ $code -eq 1 ]] || fail "raised: exit $code"
python3 - "$work/raised.json" <<'PY' || fail "raised at 8: seq 7 should be a redo"
import json, sys
p = json.load(open(sys.argv[1]))
seven = [f for f in p["report"]["findings"] if int(f.get("seq", 0)) == 7][0]
assert seven["remedy"]["kind"] == "KIND_REDO", seven["remedy"]
assert seven["remedy"]["redo_clan"] == "ishida", seven["remedy"]
assert int(seven["remedy"]["resume_after_seq"]) == 3, seven["remedy"]
assert p["redo"] is True and int(p["resume_after_seq"]) == 3, p["resume_after_seq"]
PY
echo "ok   raised before the roll: seq 7 stays open, play goes back before it"

printf 'name: "x"\nversion: "1"\nreroll: 3\n' >"$work/bad.textproto"
code=0
"$gunbai" remedy "$data/sekigahara.textproto" --procedure "$work/bad.textproto" 2>"$work/bad.err" || code=$?
[[ $code -eq 2 ]] || fail "a bad procedure: exit $code"
grep -q "bad.textproto:3:" "$work/bad.err" || fail "$(cat "$work/bad.err")"
echo "ok   a bad procedure file: exit 2, naming its line"

code=0
"$gunbai" audit --remedies "$data/sekigahara.textproto" >"$work/audit.out" || code=$?
[[ $code -eq 1 ]] || fail "audit --remedies: exit $code"
grep -q "^remedies under procedure pbem-default 1.0 (sha256:" "$work/audit.out" || fail "$(cat "$work/audit.out")"
grep -q "    remedy: stands: sealed by the roll at seq 11" "$work/audit.out" || fail "$(cat "$work/audit.out")"
echo "ok   gunbai audit --remedies prints each finding's remedy"
