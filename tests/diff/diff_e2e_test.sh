#!/usr/bin/env bash
# gunbai diff and gunbai dice through a real gunbaid on a free port
# (AuditService.Diff and DiceStats, GameService.ListGames): the daemon's
# answers print byte for byte what the local commands print, with the same
# exit codes, for files, for saved baselines and for a game stored in the
# daemon; a daemon that cannot be reached is exit 3. The changes themselves
# are worked by hand in tests/diff/diff_test.cc.
#
# Usage: diff_e2e_test.sh GUNBAID GUNBAI SOURCE_DIR
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 GUNBAID GUNBAI SOURCE_DIR" >&2
  exit 2
fi
gunbaid=$1
gunbai=$2
src=$3
unset GUNBAI_TOKEN GUNBAI_UMPIRE_TOKEN

work=$(mktemp -d)
daemon_pid=""
cleanup() {
  if [[ -n "${daemon_pid}" ]]; then
    kill -KILL "${daemon_pid}" 2>/dev/null || true
    wait "${daemon_pid}" 2>/dev/null || true
  fi
  rm -rf "${work}"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  [[ -f "${work}/daemon.err" ]] && { echo "--- gunbaid stderr:" >&2; cat "${work}/daemon.err" >&2; }
  exit 1
}
ok() { echo "ok   $*"; }

rc=0
# run NAME CMD...: stdout to ${work}/NAME.out, stderr to NAME.err, exit in rc.
run() {
  local name=$1
  shift
  set +e
  timeout 60 "$@" >"${work}/${name}.out" 2>"${work}/${name}.err"
  rc=$?
  set -e
}

# same LOCAL REMOTE WANT_RC WHAT: both ran with exit WANT_RC and printed the
# same bytes.
local_rc=0
same() {
  [[ ${local_rc} -eq $3 ]] || fail "$4: local exit ${local_rc}, want $3: $(cat "${work}/$1.err")"
  [[ ${rc} -eq $3 ]] || fail "$4: through gunbaid exit ${rc}, want $3: $(cat "${work}/$2.err")"
  cmp -s "${work}/$1.out" "${work}/$2.out" ||
    fail "$4: gunbaid's output differs: $(diff "${work}/$1.out" "${work}/$2.out" | head -20)"
  ok "$4"
}

# The corpus: the golden logs and volley; the new ruleset: firing hits on 7
# (the first hit_score of the data file is the firing one).
corpus="${work}/corpus"
mkdir -p "${corpus}/sub"
cp "${src}"/tests/data/{sekigahara,anegawa-clean,nagashino-melee}.textproto "${corpus}/"
cp "${src}/tests/diff/data/volley.textproto" "${corpus}/sub/"
fire7="${work}/fire7.textproto"
awk '!done && /hit_score: 8/ { sub("hit_score: 8", "hit_score: 7"); done = 1 } { print }' \
  "${src}/rules/daimyo/daimyo.textproto" >"${fire7}"
grep -q "hit_score: 7" "${fire7}" || fail "could not make the hit-on-7 ruleset"

# The daemon, with live games so that it stores one.
umpire="${work}/umpire.token"
(umask 077 && od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"${umpire}")
"${gunbaid}" --listen 127.0.0.1:0 --data-dir "${work}/data" \
  --umpire-token-file "${umpire}" >"${work}/daemon.out" 2>"${work}/daemon.err" &
daemon_pid=$!
port=""
for _ in $(seq 300); do
  line=$(head -n 1 "${work}/daemon.out")
  if [[ "${line}" =~ ^gunbaid\ listening\ on\ 127\.0\.0\.1:([0-9]+)$ ]]; then
    port=${BASH_REMATCH[1]}
    break
  fi
  kill -0 "${daemon_pid}" 2>/dev/null || break
  sleep 0.1
done
[[ -n "${port}" ]] || fail "gunbaid did not report its port"
server="127.0.0.1:${port}"

# 1. Two rulesets, text and JSON: 3 logs change (exit 1).
for format in text json; do
  run "local-${format}" "${gunbai}" diff --quiet --format=${format} \
    --new-ruleset="${fire7}" "${corpus}"
  local_rc=${rc}
  run "server-${format}" "${gunbai}" diff --quiet --format=${format} \
    --server="${server}" --new-ruleset="${fire7}" "${corpus}"
  same "local-${format}" "server-${format}" 1 "diff of two rulesets (${format})"
done
# Worked by hand in tests/diff/diff_test.cc (hits on 7: seq 5 lands 7 hits,
# the games part at seq 16).
grep -qF "  seq 5  hits of tok-teppo: 4 → 7" "${work}/local-text.out" ||
  fail "the text lacks seq 5's change: $(cat "${work}/local-text.out")"
grep -qF "Summary: 4 logs, 4 compared, 3 changed; " "${work}/local-text.out" ||
  fail "the summary: $(tail -5 "${work}/local-text.out")"

# 1b. --branch-out: sekigahara as it would have gone on 7+, cut before seq
# 16 where the games part; audited under fire7 it keeps only the old side's
# own dispute (seq 7, the leader roll as played) and nothing of its own.
run branch-out "${gunbai}" diff --quiet --new-ruleset="${fire7}" \
  --branch-out="${work}/branches" "${corpus}"
branch=$(ls "${work}/branches/"*sekigahara-demo-under-new-ruleset.textproto) ||
  fail "no branch written for sekigahara"
run branch-audit "${gunbai}" audit --ruleset="${fire7}" "${branch}"
grep -q "^  seq 16 " "${work}/branch-audit.out" &&
  fail "the branch is not cut before seq 16"
found=$(grep -E "^  seq [0-9]+  (VIOLATION|DISPUTE) " "${work}/branch-audit.out" |
  tr -s ' ')
[[ "${found}" == " seq 7 DISPUTE daimyo.leader_loss.roll [mitsunari]" ]] ||
  fail "the branch audits with findings of its own: ${found}"

# 2. Baselines saved by `gunbai audit --outcomes --format=json`, locally and
# through gunbaid (the same bytes); anegawa and volley have none.
mkdir -p "${work}/saved"
for name in sekigahara nagashino-melee; do
  run "audit-${name}" "${gunbai}" audit --outcomes --format=json "${corpus}/${name}.textproto"
  local_rc=${rc}
  run "audit-server-${name}" "${gunbai}" audit --outcomes --format=json \
    --server="${server}" "${corpus}/${name}.textproto"
  same "audit-${name}" "audit-server-${name}" 1 "audit --outcomes of ${name} through gunbaid"
  grep -q '"outcomes"' "${work}/audit-${name}.out" || fail "audit --outcomes has no outcomes"
  cp "${work}/audit-${name}.out" "${work}/saved/${name}.json"
done
run local-baseline "${gunbai}" diff --quiet --baseline="${work}/saved" \
  --new-ruleset="${fire7}" "${corpus}"
local_rc=${rc}
run server-baseline "${gunbai}" diff --quiet --baseline="${work}/saved" \
  --server="${server}" --new-ruleset="${fire7}" "${corpus}"
same local-baseline server-baseline 1 "diff against saved reports"
grep -qF "(game anegawa-clean): no saved report of this game; not compared" \
  "${work}/local-baseline.out" || fail "anegawa is not listed as without a baseline"
grep -qF "Summary: 4 logs, 2 compared, 1 changed; " "${work}/local-baseline.out" ||
  fail "baseline summary: $(tail -8 "${work}/local-baseline.out")"

# 3. A game stored in gunbaid (volley, appended by the umpire) reads as the
# same log on file, named game:volley.
sed '/^events/,$d' "${corpus}/sub/volley.textproto" >"${work}/volley-header.textproto"
sed -n '/^events/,$p' "${corpus}/sub/volley.textproto" >"${work}/volley-events.textproto"
run create "${gunbai}" game create --server="${server}" --token-file="${umpire}" \
  --policy=record "${work}/volley-header.textproto"
[[ ${rc} -eq 0 ]] || fail "game create: $(cat "${work}/create.err")"
run append "${gunbai}" game append --server="${server}" --token-file="${umpire}" \
  --game=volley "${work}/volley-events.textproto"
[[ ${rc} -eq 0 ]] || fail "game append: $(cat "${work}/append.err")"
run local-volley "${gunbai}" diff --quiet --new-ruleset="${fire7}" "${corpus}/sub/volley.textproto"
local_rc=${rc}
sed -i "s|${corpus}/sub/volley.textproto|game:volley|" "${work}/local-volley.out"
run stored "${gunbai}" diff --quiet --server="${server}" --stored-games \
  --token-file="${umpire}" --new-ruleset="${fire7}"
same local-volley stored 1 "diff of the games stored in gunbaid"
grep -qF "game:volley (game volley): changed in 2 events, first at seq 3" \
  "${work}/stored.out" || fail "stored game: $(cat "${work}/stored.out")"
run no-token "${gunbai}" diff --quiet --server="${server}" --stored-games \
  --new-ruleset="${fire7}"
[[ ${rc} -eq 2 ]] || fail "--stored-games without a credential: exit ${rc}"
ok "--stored-games needs the umpire's credential"

# 4. Dice statistics through gunbaid: the same text and JSON, exit codes.
for format in text json; do
  run "dice-${format}" "${gunbai}" dice --format=${format} "${corpus}"/*.textproto
  local_rc=${rc}
  run "dice-server-${format}" "${gunbai}" dice --format=${format} --server "${server}" \
    "${corpus}"/*.textproto
  same "dice-${format}" "dice-server-${format}" "${local_rc}" "dice statistics through gunbaid (${format})"
done
grep -qF "not proof" "${work}/dice-server-text.out" || fail "dice: no caveat"

# 5. Nobody at the address: exit 3.
run unreachable-diff "${gunbai}" diff --quiet --server=127.0.0.1:1 \
  --new-ruleset="${fire7}" "${corpus}"
[[ ${rc} -eq 3 ]] || fail "diff with no daemon: exit ${rc}: $(cat "${work}/unreachable-diff.err")"
run unreachable-dice "${gunbai}" dice --server=127.0.0.1:1 "${corpus}/sekigahara.textproto"
[[ ${rc} -eq 3 ]] || fail "dice with no daemon: exit ${rc}"
ok "no daemon at the address: exit 3"
