#!/usr/bin/env bash
# Live games through the `gunbai game` CLI against a real gunbaid: every case
# starts its own daemon on 127.0.0.1:0 over a fresh data directory, with the
# umpire credential in a file, and kills it on exit. The expected outputs
# are derived from service/cli/game_cli.cc, service/daemon/game_service.cc and the hand
# workings of tests/data/README.md.
#
# Usage: live_game_test.sh GUNBAID GUNBAI DATA_DIR CASE
# CASE: recorded | server_dice | skf_server_dice | stale | retry | policy |
#       credentials | tamper | watch | pbem | watch_stop | all
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 GUNBAID GUNBAI DATA_DIR CASE" >&2
  exit 2
fi
gunbaid=$1
gunbai=$2
data_dir=$3
case_name=$4

# Only the files given on the command line may carry credentials.
unset GUNBAI_TOKEN GUNBAI_UMPIRE_TOKEN

work=$(mktemp -d)
daemon_pid=""
watch_pid=""
cleanup() {
  if [[ -n "${watch_pid}" ]]; then
    kill -KILL "${watch_pid}" 2>/dev/null || true
    wait "${watch_pid}" 2>/dev/null || true
  fi
  if [[ -n "${daemon_pid}" ]]; then
    kill -KILL "${daemon_pid}" 2>/dev/null || true
    wait "${daemon_pid}" 2>/dev/null || true
  fi
  rm -rf "${work}"
}
trap cleanup EXIT

fail() {
  echo "FAIL [${case_name}]: $*" >&2
  if [[ -n "${daemon_pid}" && -f "${work}/daemon.err" ]]; then
    echo "--- gunbaid stderr:" >&2
    cat "${work}/daemon.err" >&2
  fi
  exit 1
}

# ---------------------------------------------------------------------------
# The daemon.

umpire_file="${work}/umpire.token"
server=""

# start_daemon [FLAGS...]: starts gunbaid over a fresh data directory, with
# FLAGS, and sets `server`.
start_daemon() {
  rm -rf "${work}/data"
  (umask 077 && od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"${umpire_file}")
  launch_daemon "$@"
}

# restart_daemon [FLAGS...]: stops gunbaid (SIGTERM) and starts it again on
# the same data directory, with FLAGS.
restart_daemon() {
  kill -TERM "${daemon_pid}"
  wait "${daemon_pid}" 2>/dev/null || true
  daemon_pid=""
  launch_daemon "$@"
}

# launch_daemon [FLAGS...]: starts gunbaid on ${work}/data; sets `server`.
launch_daemon() {
  : >"${work}/daemon.out"
  "${gunbaid}" --listen 127.0.0.1:0 --data-dir "${work}/data" \
    --umpire-token-file "${umpire_file}" "$@" \
    >"${work}/daemon.out" 2>"${work}/daemon.err" &
  daemon_pid=$!
  local port="" line
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
}

# ---------------------------------------------------------------------------
# Running commands.

rc=0
out=""
err=""
# run NAME CMD...: runs CMD with stdout in $out and stderr in $err (files),
# its exit code in $rc.
run() {
  local name=$1
  shift
  out="${work}/${name}.out"
  err="${work}/${name}.err"
  set +e
  timeout 120 "$@" >"${out}" 2>"${err}"
  rc=$?
  set -e
}

# game NAME TOKEN_FILE SUBCOMMAND ARGS...: `gunbai game` against the daemon.
game() {
  local name=$1 token=$2
  shift 2
  run "${name}" "${gunbai}" game "$@" --server="${server}" \
    --token-file="${token}"
}

expect_rc() {
  [[ ${rc} -eq $1 ]] ||
    fail "$2: exit ${rc}, want $1; stdout: $(cat "${out}"); stderr: $(cat "${err}")"
}

# expect_file_is FILE TEXT WHAT: FILE holds exactly TEXT.
expect_file_is() {
  local want
  want=$(printf '%s' "$2")
  [[ "$(cat "$1")" == "${want}" && "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" == '\n' ]] ||
    fail "$3: got
$(cat "$1")
want
${want}"
}

expect_contains() {
  grep -qF -- "$2" "$1" || fail "$3: $(basename "$1") lacks \"$2\"; it reads: $(cat "$1")"
}

expect_lacks() {
  if grep -qF -- "$2" "$1"; then fail "$3: $(basename "$1") has \"$2\""; fi
}

ok() { echo "ok   [${case_name}] $*"; }

# ---------------------------------------------------------------------------
# Logs and games.

logs="${work}/logs"
mkdir -p "${logs}"

# split_log LOG DIR: writes DIR/header.textproto (the log without events),
# DIR/ev-SEQ.textproto (one file per event) and DIR/manifest ("SEQ TURN
# CLAN" per event, "-" for no clan).
split_log() {
  mkdir -p "$2"
  awk -v dir="$2" '
    function emit(b,   seq, turn, clan) {
      match(b, /[ {]seq: [0-9]+/); seq = substr(b, RSTART + 6, RLENGTH - 6)
      match(b, /[ {]turn: [0-9]+/); turn = substr(b, RSTART + 7, RLENGTH - 7)
      clan = "-"
      if (match(b, /[ {]clan: "[^"]*"/)) clan = substr(b, RSTART + 8, RLENGTH - 9)
      printf "%s", b > (dir "/ev-" seq ".textproto")
      close(dir "/ev-" seq ".textproto")
      print seq, turn, clan > (dir "/manifest")
    }
    !inside && /^events[ ]*\{/ { inside = 1; depth = 0; block = "" }
    inside {
      block = block $0 "\n"
      line = $0
      depth += gsub(/\{/, "{", line) - gsub(/\}/, "}", line)
      if (depth == 0) { emit(block); inside = 0 }
      next
    }
    { print > (dir "/header.textproto") }
  ' "$1"
}

# batch FILE SEQ...: writes the events SEQ... of the anegawa log to FILE.
batch() {
  local file=$1
  shift
  : >"${file}"
  local seq
  for seq in "$@"; do cat "${logs}/anegawa/ev-${seq}.textproto" >>"${file}"; done
}

split_log "${data_dir}/anegawa-clean.textproto" "${logs}/anegawa"
[[ $(wc -l <"${logs}/anegawa/manifest") -eq 19 ]] ||
  fail "splitting anegawa-clean.textproto gave $(wc -l <"${logs}/anegawa/manifest") events, want 19"

# header_for ID: writes the anegawa header with game id ID and prints its path.
header_for() {
  local file="${logs}/header-$1.textproto"
  sed "s/game_id: \"anegawa-clean\"/game_id: \"$1\"/" \
    "${logs}/anegawa/header.textproto" >"${file}"
  echo "${file}"
}

# create ID [FLAGS...]: creates game ID from anegawa's armies and writes the
# credentials to ${work}/ID.CLAN.token.
create() {
  local id=$1
  shift
  game "create-${id}" "${umpire_file}" create "$@" "$(header_for "${id}")"
  expect_rc 0 "create ${id}"
  [[ "$(head -n 1 "${out}")" == "game ${id}" ]] ||
    fail "create ${id}: first line is \"$(head -n 1 "${out}")\""
  grep -qE '^dice secret sha256:[0-9a-f]{64}$' "${out}" ||
    fail "create ${id}: no dice commitment line"
  local clan
  for clan in oda asai; do
    grep -E "^credential for ${clan}: [0-9a-f]{64}$" "${out}" |
      sed 's/.*: //' | tr -d '\n' >"${work}/${id}.${clan}.token"
    [[ -s "${work}/${id}.${clan}.token" ]] || fail "create ${id}: no credential for ${clan}"
  done
  expect_contains "${out}" "Hand each player their credential; gunbaid keeps only its hash and cannot show it again." "create ${id}"
}

# append_ok NAME TOKEN ID FILE N V: appends FILE to game ID and expects N
# events accepted with V in the game and no findings. The reply is a line
# with the counts and the head, a line per event with dice or outcomes (its
# outcomes indented below it), and the state
# after the batch, which must be what `gunbai game show` prints. Sets `head`
# `dice_lines` (the events' seq and dice lines) and `outcome_lines` (all of them).
head=""
dice_lines=""
outcome_lines=""
append_ok() {
  local name=$1 token=$2 id=$3 file=$4 n=$5 v=$6
  game "${name}" "${token}" append --game="${id}" "${file}"
  expect_rc 0 "${name}"
  local reply="${out}"
  grep -qE "^appended ${n} events; the game has ${v} events, head sha256:[0-9a-f]{64}$" <(head -n 1 "${reply}") ||
    fail "${name}: got \"$(head -n 1 "${reply}")\", want ${n} appended and ${v} in the game"
  head=$(head -n 1 "${reply}" | sed 's/.*head sha256://')
  # Between the counts and the state: each event with dice or outcomes, its
  # seq and dice, then its outcomes indented (and findings, two spaces).
  outcome_lines=$(awk 'NR > 1 && /^state after seq / { exit } NR > 1 { print }' "${reply}")
  dice_lines=$(grep -E '^  seq [0-9]+ dice:' <<<"${outcome_lines}" || true)
  if grep -vqE '^  seq [0-9]+( dice:( [1-6])+)?$|^    [^ ]' <<<"${outcome_lines:-  seq 0 dice: 1}"; then
    fail "${name}: between the counts and the state: ${outcome_lines}"
  fi
  sed -n '/^state after seq /,$p' "${reply}" >"${work}/${name}.state"
  game "${name}-show" "${token}" show --game="${id}"
  expect_rc 0 "${name}: game show"
  cmp -s "${work}/${name}.state" "${out}" ||
    fail "${name}: the state in the reply is not the one game show prints: $(diff "${out}" "${work}/${name}.state")"
  out="${reply}"
}

# export_game NAME TOKEN ID FILE: exports game ID to FILE.
export_game() {
  game "$1" "$2" export --game="$3"
  expect_rc 0 "$1"
  cp "${out}" "$4"
}

# count_events FILE: the number of events in an exported game.
count_events() { grep -c '^  events {$' "$1" || true; }

# chain_hash FILE N: the chain hash of event N (1-based) of an export.
chain_hash() {
  grep -E '^chain_hashes: "' "$1" | sed -n "$2p" | sed 's/^chain_hashes: "//; s/"$//'
}

# sha256_of_hex HEX: the SHA-256 of the bytes HEX encodes.
sha256_of_hex() {
  # shellcheck disable=SC2001,SC2059
  printf "$(sed 's/../\\x&/g' <<<"$1")" | sha256sum | cut -d ' ' -f 1
}

# ---------------------------------------------------------------------------
# The cases.

# 1. Anegawa played turn by turn in recorded-dice mode: each run of events
# by one clan is appended by that clan's player, turn starts and ends by the
# umpire. The game then shows, audits and exports exactly as the offline log.
case_recorded() {
  # A checkpoint every 5 events: the 19 appended events cross 5, 10 and 15,
  # and the restart below loads the game from the latest checkpoint.
  start_daemon --checkpoint-every=5
  create anegawa-clean --policy=strict --dice=recorded
  local id=anegawa-clean
  # Batches: runs of one acting clan within a turn, in log order.
  local -a batches=()
  local seq turn clan current="" run_seqs="" version=0 n=0
  local heads=()
  while read -r seq turn clan; do
    if [[ "${turn}/${clan}" != "${current}" && -n "${current}" ]]; then
      batches+=("${current} ${run_seqs}")
      run_seqs=""
    fi
    current="${turn}/${clan}"
    run_seqs="${run_seqs} ${seq}"
  done <"${logs}/anegawa/manifest"
  batches+=("${current} ${run_seqs}")
  [[ ${#batches[@]} -eq 11 ]] || fail "anegawa splits into ${#batches[@]} batches, want 11"
  local b who token file refused=0
  local -A open_activation=()
  for b in "${batches[@]}"; do
    who=${b%% *}
    clan=${who#*/}
    # shellcheck disable=SC2086
    set -- ${b#* }
    n=$#
    version=$((version + n))
    file="${logs}/batch-${version}.textproto"
    batch "${file}" "$@"
    token="${work}/${id}.${clan}.token"
    [[ "${clan}" == "-" ]] && token="${umpire_file}"
    # The log was recorded by an umpire at the table: no clan sends its own
    # turn_end, so the second clan's activation comes while the first's is
    # open. A player may not do that (reading 32 of rules/daimyo/RULES.md):
    # the player's batch is refused and nothing is written; the umpire's is
    # taken.
    if [[ "${clan}" != "-" && -n "${open_activation[${who%%/*}]:-}" &&
      "${open_activation[${who%%/*}]}" != "${clan}" ]] &&
      grep -q "activation {" "${file}"; then
      game "refused-${version}" "${token}" append --game="${id}" "${file}"
      expect_rc 2 "${clan}'s activation while ${open_activation[${who%%/*}]}'s is open"
      expect_contains "${err}" "${open_activation[${who%%/*}]}'s activation is still open; ${clan} begins its own after ${open_activation[${who%%/*}]} ends its part of turn ${who%%/*} (its turn_end); nothing was written" "the refused activation"
      refused=$((refused + 1))
      token="${umpire_file}"
    fi
    grep -q "activation {" "${file}" && open_activation[${who%%/*}]="${clan}"
    append_ok "append-${version}" "${token}" "${id}" "${file}" "${n}" "${version}"
    heads+=("${version}:${head}")
  done
  [[ ${refused} -eq 2 ]] || fail "${refused} player activations refused, want 2 (asai's in turn 1, oda's in turn 2)"
  ok "11 batches appended turn by turn, each by the clan that acts (19 events); the 2 activations that open while the other clan's is open were refused to the player and taken from the umpire"

  # The state shown is the state the offline log replays to.
  game show "${work}/${id}.asai.token" show --game="${id}"
  expect_rc 0 "game show"
  run state-local "${gunbai}" state "${data_dir}/anegawa-clean.textproto"
  cmp -s "${work}/show.out" "${out}" ||
    fail "game show differs from gunbai state: $(diff "${out}" "${work}/show.out")"
  expect_contains "${work}/show.out" "state after seq 19: turn 2" "game show"
  expect_contains "${work}/show.out" ", game over" "game show"
  # oda-teppo: 6 stands, 2 + 2 hits from asai-yumi: 1 stand, 1 carried.
  # asai-cav: 3 stands, 3 + 3 hits from oda-teppo: 2 stands, none carried.
  grep -qE '^oda-teppo +oda +5 +1  ' "${work}/show.out" || fail "oda-teppo row: $(cat "${work}/show.out")"
  grep -qE '^asai-cav +asai +1 +0  ' "${work}/show.out" || fail "asai-cav row"
  grep -qE '^asai-yumi +asai +4 +0  ' "${work}/show.out" || fail "asai-yumi row"
  ok "game show prints the state gunbai state prints for the log"

  # The audit is clean and is the golden report of the offline log.
  game audit "${umpire_file}" audit --game="${id}"
  expect_rc 0 "game audit"
  cmp -s "${out}" "${data_dir}/anegawa-clean.expected.txt" ||
    fail "game audit differs from anegawa-clean.expected.txt: $(diff "${data_dir}/anegawa-clean.expected.txt" "${out}")"
  ok "game audit is clean (exit 0) and equals anegawa-clean.expected.txt"

  local exported="${work}/anegawa-export.textproto"
  export_game export "${work}/${id}.oda.token" "${id}" "${exported}"
  [[ "$(head -n 2 "${exported}")" == "# proto-file: gunbai/v1/game_service.proto
# proto-message: gunbai.v1.ExportedGame" ]] || fail "export header lines"
  [[ $(count_events "${exported}") -eq 19 ]] || fail "export has $(count_events "${exported}") events"
  local h
  for h in "${heads[@]}"; do
    [[ "$(chain_hash "${exported}" "${h%%:*}")" == "${h#*:}" ]] ||
      fail "the head after ${h%%:*} events is not chain hash ${h%%:*} of the export"
  done
  # The secret is revealed at game_end whatever the dice mode.
  local commitment secret
  commitment=$(grep '^dice secret sha256:' "${work}/create-${id}.out" | sed 's/.*sha256://')
  secret=$(grep '^  revealed_secret: "' "${exported}" | sed 's/.*: "//; s/"$//')
  [[ "$(sha256_of_hex "${secret}")" == "${commitment}" ]] ||
    fail "the revealed secret \"${secret}\" does not hash to ${commitment}"
  run audit-export "${gunbai}" audit "${exported}"
  expect_rc 0 "offline audit of the export"
  cmp -s "${out}" "${work}/audit.out" ||
    fail "offline audit of the export differs: $(diff "${work}/audit.out" "${out}")"
  ok "gunbai audit of the export prints byte for byte what gunbai game audit prints"

  # Merkle proofs (issue 34): every event's inclusion in the tree of 19 and
  # the tree of 19 extending each earlier size, as gunbai game proof gets
  # them, each checked by the CLI (exit 0) and again by the RFC 9162
  # algorithms written out in Python below, not gunbai's code.
  local k proofs="${work}/proofs.jsonl"
  : >"${proofs}"
  for k in $(seq 1 19); do
    game "proof-${k}" "${work}/${id}.oda.token" proof --game="${id}" \
      --seq="${k}" --first-size="${k}" --format=json
    expect_rc 0 "gunbai game proof --seq=${k} --first-size=${k}"
    cat "${out}" >>"${proofs}"
  done
  python3 - "${proofs}" <<'PY' || fail "a Merkle proof does not verify by RFC 9162"
import hashlib, json, sys
node = lambda l, r: hashlib.sha256(b"\x01" + l + r).digest()
def inclusion(index, size, leaf, path, root):
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0: return False
        if fn & 1 or fn == sn:
            r = node(p, r)
            while not fn & 1 and fn != 0: fn >>= 1; sn >>= 1
        else:
            r = node(r, p)
        fn >>= 1; sn >>= 1
    return sn == 0 and r == root
def consistency(m, n, first, second, proof):
    if m == n: return not proof and first == second
    if m & (m - 1) == 0: proof = [first] + proof
    fn, sn = m - 1, n - 1
    while fn & 1: fn >>= 1; sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0: return False
        if fn & 1 or fn == sn:
            fr, sr = node(c, fr), node(c, sr)
            while not fn & 1 and fn != 0: fn >>= 1; sn >>= 1
        else:
            sr = node(sr, c)
        fn >>= 1; sn >>= 1
    return fr == first and sr == second and sn == 0
h = bytes.fromhex
roots = set()
text, at, answers = open(sys.argv[1]).read(), 0, []
decoder = json.JSONDecoder()
while text[at:].strip():
    at += len(text[at:]) - len(text[at:].lstrip())
    answer, at = decoder.raw_decode(text, at)
    answers.append(answer)
assert len(answers) == 19, len(answers)
for p in answers:
    p = {k[0].lower() + "".join("_" + c.lower() if c.isupper() else c for c in k[1:]): v
         for k, v in p.items()}
    size = int(p["tree_size"]); root = h(p["root_hash"]); roots.add(p["root_hash"])
    assert size == 19, size
    assert inclusion(int(p.get("leaf_index", 0)), size, h(p["leaf_hash"]),
                     [h(x) for x in p.get("inclusion", [])], root), p
    assert consistency(int(p["first_size"]), size, h(p["first_root_hash"]), root,
                       [h(x) for x in p.get("consistency", [])]), p
assert len(roots) == 1, roots
PY
  # A root the player did not keep is no proof: exit 1, saying so.
  game proof-other "${work}/${id}.oda.token" proof --game="${id}" \
    --first-size=8 --first-root="$(printf 'ab%.0s' {1..32})"
  expect_rc 1 "a root the tree of 8 does not have"
  expect_contains "${out}" "NOT verified" "the refused consistency"
  ok "gunbai game proof: all 19 events' inclusion and each earlier size's consistency verify, in gunbai and by the RFC in Python"

  run verify "${gunbai}" verify "${exported}"
  expect_rc 0 "verify"
  expect_file_is "${out}" "ok: 19 events, chain head ${head}; dice recorded by the players (nothing to recompute)
" "verify"
  ok "gunbai verify: ok, the chain head is the head of the last append"

  # The heads a player was given: the first, printed at creation (the hash
  # of the game's terms), and the last append's are in the chain; a head
  # this chain never had is not.
  local first_head
  first_head=$(sed -n 's/^head sha256:\([0-9a-f]\{64\}\) .*/\1/p' "${work}/create-${id}.out")
  [[ "${first_head}" =~ ^[0-9a-f]{64}$ ]] || fail "create printed no head"
  [[ "${first_head}" != "$(printf '0%.0s' {1..64})" ]] || fail "the first head is zeros, not the terms'"
  run verify-heads "${gunbai}" verify "${exported}" --head="${first_head}" --head="sha256:${head}"
  expect_rc 0 "verify with the heads given"
  run verify-other-head "${gunbai}" verify "${exported}" --head="$(printf 'ab%.0s' {1..32})"
  expect_rc 1 "verify with a head the chain never had"
  expect_contains "${out}" "TAMPERED: the head sha256:" "verify with a head the chain never had"
  ok "gunbai verify --head: the heads given at creation and by the last append are in the chain, another is not"

  # After a restart the game is loaded from its checkpoint (after seq 15)
  # and the 4 events after it: it shows and audits as before.
  cp "${work}/show.out" "${work}/show-before-restart.out"
  restart_daemon --checkpoint-every=5
  game show-restarted "${work}/${id}.oda.token" show --game="${id}"
  expect_rc 0 "game show after a restart"
  cmp -s "${work}/show-restarted.out" "${work}/show-before-restart.out" ||
    fail "game show after a restart differs: $(diff "${work}/show-before-restart.out" "${work}/show-restarted.out")"
  game audit-restarted "${umpire_file}" audit --game="${id}"
  expect_rc 0 "game audit after a restart"
  cmp -s "${out}" "${data_dir}/anegawa-clean.expected.txt" ||
    fail "game audit after a restart differs: $(diff "${data_dir}/anegawa-clean.expected.txt" "${out}")"
  ok "after a restart with --checkpoint-every=5 the game shows and audits as before"
}

# The events of the server-dice game, declared without dice or claims.
write_server_dice_events() {
  cat >"${logs}/sd-1.textproto" <<'EOF'
events { seq: 1 turn: 1 turn_start { initiative_clan: "oda" } }
EOF
  # oda-teppo fires 2 of its 6 stands at asai-yumi: at most 2 hits, and a
  # stand goes at 3, so no stand is lost and nothing is owed.
  cat >"${logs}/sd-2.textproto" <<'EOF'
events { seq: 2 turn: 1 clan: "oda" activation {} }
events {
  seq: 3 turn: 1 clan: "oda"
  firing {
    unit: "oda-teppo" target: "asai-yumi" stands_firing: 2
    facts { range: RANGE_BAND_EFFECTIVE }
  }
}
EOF
  cat >"${logs}/sd-dice.textproto" <<'EOF'
events { seq: 4 turn: 1 clan: "oda" move { unit: "oda-teppo" kind: MOVE_KIND_MOVE distance_mm: 10 } }
events {
  seq: 5 turn: 1 clan: "oda"
  firing { unit: "oda-teppo" target: "asai-cav" stands_firing: 1 dice: [6, 6] }
}
EOF
  # Oda ends its part of the turn: a player's own turn_end closes its
  # activation (readings 31 and 32 of rules/daimyo/RULES.md).
  cat >"${logs}/sd-3.textproto" <<'EOF'
events { seq: 4 turn: 1 clan: "oda" turn_end {} }
EOF
  cat >"${logs}/sd-4.textproto" <<'EOF'
events { seq: 5 turn: 1 turn_end {} }
EOF
  cat >"${logs}/sd-5.textproto" <<'EOF'
events { seq: 6 turn: 1 game_end {} }
EOF
}

# play_server_dice_game ID: creates ID in server-dice mode and plays it to
# its end; sets `commitment` and `rolled` (the dice lines the appends
# printed), and leaves the export before the end in
# ${work}/ID-before-end.textproto and after it in ${work}/ID.textproto.
commitment=""
rolled=""
play_server_dice_game() {
  local id=$1
  write_server_dice_events
  create "${id}" --dice=server --seed=oda:0a1b2c --seed=asai:ffee
  commitment=$(grep '^dice secret sha256:' "${work}/create-${id}.out" | sed 's/.*sha256://')
  append_ok sd-append-1 "${umpire_file}" "${id}" "${logs}/sd-1.textproto" 1 1
  rolled="${dice_lines}"
  append_ok sd-append-2 "${work}/${id}.oda.token" "${id}" "${logs}/sd-2.textproto" 2 3
  rolled+=$'\n'"${dice_lines}"
  # A batch that carries dice is refused, and burns dice attempt 3.
  game sd-dice "${work}/${id}.oda.token" append --game="${id}" "${logs}/sd-dice.textproto"
  expect_rc 2 "a batch with dice in a server-dice game"
  grep -qE '^gunbai: event [0-9a-f]{32}: this game rolls its own dice: leave dice empty$' "${err}" ||
    fail "the refusal of dice says: $(cat "${err}")"
  append_ok sd-append-3 "${work}/${id}.oda.token" "${id}" "${logs}/sd-3.textproto" 1 4
  append_ok sd-append-4 "${umpire_file}" "${id}" "${logs}/sd-4.textproto" 1 5
  export_game sd-export-before "${work}/${id}.asai.token" "${id}" "${work}/${id}-before-end.textproto"
  append_ok sd-append-5 "${umpire_file}" "${id}" "${logs}/sd-5.textproto" 1 6
  export_game sd-export "${work}/${id}.oda.token" "${id}" "${work}/${id}.textproto"
}

# 2. A game whose dice gunbaid rolls: the players declare, gunbaid fills in
# the dice, keeps the secret until game_end, and anyone can then recompute
# every die.
case_server_dice() {
  start_daemon
  local id=live-server-dice
  play_server_dice_game "${id}"
  local before="${work}/${id}-before-end.textproto" after="${work}/${id}.textproto"

  expect_contains "${before}" "  secret_sha256: \"${commitment}\"" "export before the end"
  expect_lacks "${before}" "revealed_secret" "export before the end"
  run verify-before "${gunbai}" verify "${before}"
  expect_rc 2 "verify before the end"
  expect_contains "${out}" "INCOMPLETE: the chain of " "verify before the end"
  expect_contains "${out}" "dice can be checked only after game_end" "verify before the end"
  ok "before game_end the export has no revealed secret, and verify cannot recompute the dice"

  # Dice were filled: 1 initiative die per clan, 2 per firing stand, 1 to 6.
  local initiative firing
  initiative=$(awk '/^  events \{$/ { n++ } /initiative_dice: / && n == 1 { printf " %s", $2 }' "${after}")
  [[ "${initiative}" =~ ^\ [1-6]\ [1-6]$ ]] || fail "turn start dice: \"${initiative}\""
  firing=$(awk '/^  events \{$/ { n++ } /^      dice: / && n == 3 { printf " %s", $2 }' "${after}")
  [[ "${firing}" =~ ^\ [1-6]\ [1-6]\ [1-6]\ [1-6]$ ]] || fail "firing dice: \"${firing}\""
  [[ "${rolled}" == "  seq 1 dice:${initiative}
  seq 3 dice:${firing}" ]] || fail "the appends printed the dice \"${rolled}\"; the export has${initiative} and${firing}"
  # Each event records the roll attempt of its batch; the refused batch took 3.
  [[ "$(grep '^dice_attempts: ' "${after}" | sed 's/.*: //' | tr '\n' ' ')" == "1 2 2 4 5 6 " ]] ||
    fail "dice attempts: $(grep '^dice_attempts: ' "${after}" | tr '\n' ' ')"
  ok "gunbaid rolled 2 initiative dice and 4 firing dice, as the appends printed; the refused batch burnt attempt 3"

  local secret
  secret=$(grep '^  revealed_secret: "' "${after}" | sed 's/.*: "//; s/"$//')
  [[ "${secret}" =~ ^[0-9a-f]{64}$ ]] || fail "revealed secret: \"${secret}\""
  [[ "$(sha256_of_hex "${secret}")" == "${commitment}" ]] ||
    fail "the revealed secret does not hash to the commitment printed at creation"
  expect_contains "${after}" "  secret_sha256: \"${commitment}\"" "export after the end"
  run verify "${gunbai}" verify "${after}"
  expect_rc 0 "verify after the end"
  expect_file_is "${out}" "ok: 6 events, chain head ${head}; every server die recomputed from the revealed secret, which matches its commitment
" "verify after the end"
  ok "after game_end the secret is revealed, hashes to the commitment, and verify recomputes every die"

  game audit "${work}/${id}.oda.token" audit --game="${id}"
  expect_rc 0 "game audit of the server-dice game"
  expect_contains "${out}" "6 events over 1 turn: 0 violations, 0 disputes, 0 warnings, 0 unverifiable" "game audit"
  run audit-export "${gunbai}" audit "${after}"
  expect_rc 0 "offline audit"
  cmp -s "${out}" "${work}/audit.out" || fail "offline audit differs: $(diff "${work}/audit.out" "${out}")"
  ok "the server-dice game audits clean, online and offline alike"

  cat >"${logs}/sd-6.textproto" <<'EOF'
events { seq: 7 turn: 2 turn_start { initiative_clan: "asai" } }
EOF
  game after-end "${umpire_file}" append --game="${id}" "${logs}/sd-6.textproto"
  expect_rc 2 "append after game_end"
  expect_file_is "${err}" "gunbai: the game has ended
" "append after game_end"
  ok "an ended game takes no more events"
}

# 2b. A Samurai Knight Fever game whose dice gunbaid rolls, under the
# umpire's ruleset file with a morale check of 2 dice (the shipped example
# has none, and its server-dice games are refused). Page 6 rolls one die a
# side in a melee pairing, the morale check's dice, and 1d6 for a leader
# hit; no initiative die (rules/skf/RULES.md, "Server dice").
case_skf_server_dice() {
  local rules="${work}/skf-house.textproto"
  sed -e 's/^version: .*/version: "house-1"/' \
    -e '/^  # morale {/,/^  # }/ s/^  # /  /' \
    "${data_dir}/../../rules/skf/skf.textproto" >"${rules}"
  grep -q '^  morale {$' "${rules}" || fail "no morale block in ${rules}"
  grep -q '^    dice: 2$' "${rules}" || fail "the morale block does not roll 2 dice"
  start_daemon --ruleset "${rules}"
  local id=live-skf
  sed -e '/^events/,$d' -e "s/game_id: \"skf-kawanakajima\"/game_id: \"${id}\"/" \
    -e 's/version: "page6-example-1"/version: "house-1"/' \
    "${data_dir}/skf-kawanakajima.textproto" >"${logs}/skf-header.textproto"
  # The game is bound to the house file, byte for byte: its digest, as
  # `gunbai ruleset` prints it. Insisting on the built-in one is refused.
  local digest builtin_digest
  digest=$("${gunbai}" ruleset --ruleset="${rules}" | sed -n 's/^sha256://p')
  [[ "${digest}" =~ ^[0-9a-f]{64}$ ]] || fail "gunbai ruleset gave no digest"
  builtin_digest=$("${gunbai}" ruleset skf | sed -n 's/^sha256://p')
  [[ "${builtin_digest}" =~ ^[0-9a-f]{64}$ && "${builtin_digest}" != "${digest}" ]] ||
    fail "built-in skf digest \"${builtin_digest}\""
  game skf-create-pinned "${umpire_file}" create --policy=record --dice=server \
    --ruleset-digest="${builtin_digest}" "${logs}/skf-header.textproto"
  expect_rc 2 "create insisting on another ruleset"
  expect_contains "${err}" "settings.ruleset_digest" "create insisting on another ruleset"
  game skf-create "${umpire_file}" create --policy=record --dice=server \
    --seed=uesugi:5eed --seed=takeda:d1ce --ruleset-digest="${digest}" \
    "${logs}/skf-header.textproto"
  expect_rc 0 "create the SKF server-dice game"
  [[ "$(head -n 1 "${out}")" == "game ${id}" ]] || fail "create: $(head -n 1 "${out}")"
  expect_contains "${out}" "ruleset sha256:${digest}" "create names the ruleset digest"
  grep -E '^credential for uesugi: [0-9a-f]{64}$' "${out}" | sed 's/.*: //' | tr -d '\n' \
    >"${work}/${id}.uesugi.token"
  cat >"${logs}/skf-1.textproto" <<'EOF'
events { seq: 1 turn: 1 turn_start { initiative_clan: "uesugi" } }
events { seq: 2 turn: 1 clan: "uesugi" activation {} }
events {
  seq: 3 turn: 1 clan: "uesugi"
  melee_round {
    sides { unit: "ues-leg" stands_fighting: 3 claimed_hits: 1 }
    sides { unit: "tak-ash1" stands_fighting: 4 claimed_hits: 1 }
  }
}
events { seq: 4 turn: 1 clan: "uesugi" morale_test { unit: "ues-leg" claimed_result: MORALE_RESULT_NO_EFFECT } }
events { seq: 5 turn: 1 clan: "takeda" morale_test { unit: "tak-ash1" claimed_result: MORALE_RESULT_NO_EFFECT } }
events { seq: 6 turn: 1 clan: "uesugi" leader_loss { leader: "kenshin" claimed_killed: false } }
events { seq: 7 turn: 1 turn_end {} }
events { seq: 8 turn: 1 game_end {} }
EOF
  game skf-append "${umpire_file}" append --game="${id}" "${logs}/skf-1.textproto"
  # The claims are made before the dice, so some may be disputed: exit 0
  # or 1, never a refusal.
  [[ ${rc} -eq 0 || ${rc} -eq 1 ]] || fail "append: exit ${rc}: $(cat "${err}")"
  local dice_lines
  dice_lines=$(grep -E '^  seq [0-9]+ dice:' "${out}" || true)
  [[ "${dice_lines}" =~ ^"  seq 3 dice: "[1-6]" "[1-6]$'\n'"  seq 4 dice: "[1-6]" "[1-6]$'\n'"  seq 5 dice: "[1-6]" "[1-6]$'\n'"  seq 6 dice: "[1-6]$ ]] ||
    fail "gunbaid rolled: ${dice_lines}"
  ok "gunbaid rolled SKF's dice: 1 a side in the melee, 2 per morale check, 1 for the leader hit, none at the turn start"

  export_game skf-export "${umpire_file}" "${id}" "${work}/${id}.textproto"
  # The built-in SKF ruleset is another version, and Daimyo's file another
  # ruleset: their dice counts say nothing of this game, so no verdict.
  run skf-verify-builtin "${gunbai}" verify "${work}/${id}.textproto"
  expect_rc 2 "verify under the built-in SKF ruleset"
  expect_contains "${err}" "played under the \"skf\" ruleset house-1, and gunbai's built-in one is \"skf\" page6-example-1" "verify without the ruleset"
  expect_contains "${err}" "--ruleset=FILE" "verify without the ruleset"
  run skf-verify-daimyo "${gunbai}" verify "${work}/${id}.textproto" \
    --ruleset="${data_dir}/../../rules/daimyo/daimyo.textproto"
  expect_rc 2 "verify under Daimyo's ruleset file"
  expect_contains "${err}" "is \"daimyo\" 1.0" "verify under Daimyo's ruleset file"
  expect_lacks "${out}" "TAMPERED" "verify under Daimyo's ruleset file"
  # Same name and version, other tables: the digest tells them apart.
  sed 's/per_leader_touching: 1/per_leader_touching: 2/' "${rules}" >"${work}/skf-edited.textproto"
  run skf-verify-edited "${gunbai}" verify "${work}/${id}.textproto" \
    --ruleset="${work}/skf-edited.textproto"
  expect_rc 2 "verify under an edited copy of the house file"
  expect_contains "${err}" "played under ruleset sha256:${digest}" "verify under an edited copy"
  run skf-verify "${gunbai}" verify "${work}/${id}.textproto" --ruleset="${rules}"
  expect_rc 0 "verify under the house ruleset"
  expect_contains "${out}" "ok: 8 events, chain head " "verify under the house ruleset"
  expect_contains "${out}" "every server die recomputed from the revealed secret" "verify"
  ok "verify recomputes every die under the game's ruleset file, and gives no verdict under another"

  game skf-audit-impact "${umpire_file}" audit --game="${id}" --impact
  local online_rc=${rc}
  cp "${out}" "${work}/skf-impact.online"
  [[ ${online_rc} -eq 0 || ${online_rc} -eq 1 ]] || fail "game audit --impact: exit ${online_rc}: $(cat "${err}")"
  run skf-audit-impact-offline "${gunbai}" audit --impact --ruleset="${rules}" "${work}/${id}.textproto"
  [[ ${rc} -eq ${online_rc} ]] || fail "offline audit --impact exited ${rc}, online ${online_rc}"
  cmp -s "${out}" "${work}/skf-impact.online" ||
    fail "game audit --impact differs from the offline one: $(diff "${work}/skf-impact.online" "${out}")"
  ok "game audit --impact prints byte for byte what gunbai audit --impact prints of the export"

  # gunbaid restarted with its built-in SKF ruleset (no morale check, other
  # tables) would judge the game by rules it was not played under: it
  # refuses it, and says what to start it with.
  restart_daemon
  game skf-show-builtin "${umpire_file}" show --game="${id}"
  expect_rc 2 "a game under another ruleset digest"
  expect_contains "${err}" "sha256:${digest}" "the refusal names the game's ruleset"
  expect_contains "${err}" "start gunbaid with the ruleset file the game was created under" "the refusal says what to do"
  # Its player is told the same, not that the credential is wrong; and its
  # stored events can still be exported, the same bytes as before.
  game skf-show-player "${work}/${id}.uesugi.token" show --game="${id}"
  expect_rc 2 "the player's view of a game under another ruleset digest"
  expect_contains "${err}" "start gunbaid with the ruleset file" "the player's refusal"
  export_game skf-export-builtin "${umpire_file}" "${id}" "${work}/${id}-builtin.textproto"
  cmp -s "${work}/${id}.textproto" "${work}/${id}-builtin.textproto" ||
    fail "the export under another ruleset differs: $(diff "${work}/${id}.textproto" "${work}/${id}-builtin.textproto")"
  restart_daemon --ruleset "${rules}"
  game skf-show-house "${umpire_file}" show --game="${id}"
  expect_rc 0 "the game under its own ruleset again"
  ok "a gunbaid with another ruleset refuses to replay the game (naming its digest, to umpire and player alike) but still exports it"
}

# 3. A batch built on a stale version is refused whole, naming the version.
case_stale() {
  start_daemon
  create live-stale
  batch "${logs}/turn1.textproto" 1 2 3 4 5 6 7 8
  batch "${logs}/turn2.textproto" 9 10 11 12 13 14 15 16 17 18 19
  append_ok turn1 "${umpire_file}" live-stale "${logs}/turn1.textproto" 8 8
  local head8=${head}
  # Behind the game (5 of its 8 events seen), the caller reads from the
  # first event it has not seen, the 6th (seq 6: turn 1's seqs are 1-8);
  # ahead of it (9), from the start (service/store/game_store.h,
  # StaleVersionError: the one stale-version rule of gunbaid and the stores).
  local stale
  local -A said=(
    [5]="gunbai: stale version 5: the game has 8 events; read from seq 6 and append again with expected_version 8"
    [9]="gunbai: version 9 is ahead of the game: it has 8 events; read it from the start and retry")
  for stale in 5 9; do
    game "stale-${stale}" "${umpire_file}" append --game=live-stale \
      --expected-version="${stale}" "${logs}/turn2.textproto"
    expect_rc 2 "append with --expected-version=${stale}"
    expect_file_is "${err}" "${said[${stale}]}
" "append with --expected-version=${stale}"
    [[ ! -s "${out}" ]] || fail "a refused append printed: $(cat "${out}")"
  done
  export_game export "${umpire_file}" live-stale "${work}/stale.textproto"
  [[ $(count_events "${work}/stale.textproto") -eq 8 ]] ||
    fail "after the stale appends the game has $(count_events "${work}/stale.textproto") events"
  [[ "$(chain_hash "${work}/stale.textproto" 8)" == "${head8}" ]] || fail "the head moved"
  game show "${umpire_file}" show --game=live-stale
  expect_contains "${out}" "state after seq 8: turn 1" "show after the stale appends"
  ok "--expected-version=5 and =9 exit 2 naming version 8; the game keeps its 8 events"
  append_ok fresh "${umpire_file}" live-stale "${logs}/turn2.textproto" 11 19
  game fresh-explicit "${umpire_file}" append --game=live-stale --expected-version=19 \
    "${logs}/turn2.textproto"
  expect_rc 0 "a retry of the last batch at the new version"
  ok "the batch then goes in at version 8"
}

# 4. The same append twice writes once and answers twice alike.
case_retry() {
  start_daemon
  create live-retry
  batch "${logs}/turn1.textproto" 1 2 3 4 5 6 7 8
  batch "${logs}/turn2.textproto" 9 10 11 12 13 14 15 16 17 18 19
  append_ok first "${umpire_file}" live-retry "${logs}/turn1.textproto" 8 8
  cp "${out}" "${work}/first-answer.out"
  append_ok again "${umpire_file}" live-retry "${logs}/turn1.textproto" 8 8
  cmp -s "${out}" "${work}/first-answer.out" || fail "the retry answered differently: $(cat "${out}")"
  game again-v0 "${umpire_file}" append --game=live-retry --expected-version=0 \
    "${logs}/turn1.textproto"
  expect_rc 0 "the retry at the version the batch was built on"
  cmp -s "${out}" "${work}/first-answer.out" || fail "the retry at version 0 answered differently"
  export_game export "${umpire_file}" live-retry "${work}/retry.textproto"
  [[ $(count_events "${work}/retry.textproto") -eq 8 ]] ||
    fail "after the retries the game has $(count_events "${work}/retry.textproto") events"
  [[ $(grep -c '^event_ids: ' "${work}/retry.textproto") -eq 8 ]] || fail "event ids"
  [[ $(grep '^event_ids: ' "${work}/retry.textproto" | sort -u | wc -l) -eq 8 ]] ||
    fail "an event id is stored twice"
  ok "a retried append writes nothing and returns the first answer byte for byte"
  append_ok turn2 "${umpire_file}" live-retry "${logs}/turn2.textproto" 11 19
  game late-retry "${umpire_file}" append --game=live-retry "${logs}/turn1.textproto"
  expect_rc 0 "a late retry of turn 1"
  cmp -s "${out}" "${work}/first-answer.out" || fail "a late retry answered differently"
  export_game export2 "${umpire_file}" live-retry "${work}/retry2.textproto"
  [[ $(count_events "${work}/retry2.textproto") -eq 19 ]] || fail "19 events after turn 2"
  ok "a retry after later appends still gets its first answer (8 events) and writes nothing"
}

# A batch in which oda-teppo fires twice in turn 1: 2 stands at asai-yumi
# (no armour), effective range. First volley +2, effective +1: 1+1+3 = 5,
# no hit, twice. Then first volley spent, +1: 1+1+1 = 3, no hit, twice.
write_double_fire() {
  cat >"${logs}/clean3.textproto" <<'EOF'
events { seq: 1 turn: 1 turn_start { initiative_clan: "oda" } }
events { seq: 2 turn: 1 clan: "oda" activation {} }
events {
  seq: 3 turn: 1 clan: "oda"
  firing {
    unit: "oda-teppo" target: "asai-yumi" stands_firing: 2
    dice: [1, 1, 1, 1] facts { range: RANGE_BAND_EFFECTIVE } claimed_hits: 0
  }
}
EOF
  cp "${logs}/clean3.textproto" "${logs}/double-fire.textproto"
  cat >>"${logs}/double-fire.textproto" <<'EOF'
events {
  seq: 4 turn: 1 clan: "oda"
  firing {
    unit: "oda-teppo" target: "asai-yumi" stands_firing: 2
    dice: [1, 1, 1, 1] facts { range: RANGE_BAND_EFFECTIVE } claimed_hits: 0
  }
}
EOF
}

# 5. A violation is refused whole in a strict game, kept in a record game.
case_policy() {
  start_daemon
  write_double_fire
  create live-strict --policy=strict
  create live-record --policy=record
  local rule="daimyo.fire.eligibility.once_per_turn"

  game strict "${umpire_file}" append --game=live-strict "${logs}/double-fire.textproto"
  expect_rc 2 "a violation in a strict game"
  [[ "$(head -n 1 "${err}")" == "gunbai: the game is strict and the batch breaks the rules; nothing was written:" ]] ||
    fail "strict refusal: $(cat "${err}")"
  [[ $(wc -l <"${err}") -eq 2 ]] || fail "strict refusal lists more than the one finding: $(cat "${err}")"
  grep -qE "^seq 4 SEVERITY_VIOLATION ${rule}: .*oda-teppo" "${err}" ||
    fail "strict refusal: $(cat "${err}")"
  local message
  message=$(sed -n 2p "${err}" | sed "s/^seq 4 SEVERITY_VIOLATION ${rule}: //")
  export_game strict-export "${umpire_file}" live-strict "${work}/strict.textproto"
  [[ $(count_events "${work}/strict.textproto") -eq 0 ]] || fail "the strict game stored events"
  game strict-show "${umpire_file}" show --game=live-strict
  expect_contains "${out}" "state after seq 0: turn 0" "show after the refusal"
  ok "strict: exit 2, the finding listed, nothing written"
  append_ok strict-clean "${umpire_file}" live-strict "${logs}/clean3.textproto" 3 3
  ok "strict: the batch without the second volley goes in (3 events)"

  game record "${umpire_file}" append --game=live-record "${logs}/double-fire.textproto"
  expect_rc 1 "a violation in a record game"
  grep -qE "^appended 4 events; the game has 4 events, head sha256:[0-9a-f]{64}$" "${out}" ||
    fail "record append: $(cat "${out}")"
  # Dice of 1 and 1 make 2 a stand, far below the hit score of 8 whatever
  # the factors (tests/data/README.md): no hits, no stands lost.
  [[ "$(sed -n 2,12p "${out}")" == "  seq 1
    turn 1 starts: oda has the initiative
  seq 3 dice: 1 1 1 1
    oda-teppo scores 0 hits
    asai-yumi loses 0 stands
  seq 4 dice: 1 1 1 1
    oda-teppo scores 0 hits
    asai-yumi loses 0 stands
  seq 4  SEVERITY_VIOLATION  ${rule}
    ${message}
state after seq 4: turn 1, phase firing, initiative oda, active oda" ]] ||
    fail "record append: $(cat "${out}")"
  grep -qE '^oda-teppo +oda +6 +0  fired; first volley spent$' "${out}" ||
    fail "record append: oda-teppo's state: $(cat "${out}")"
  cp "${out}" "${work}/record-first.out"
  game record-again "${umpire_file}" append --game=live-record "${logs}/double-fire.textproto"
  expect_rc 1 "the retried record batch"
  cmp -s "${out}" "${work}/record-first.out" || fail "the retried record batch answered differently"
  game record-audit "${work}/live-record.asai.token" audit --game=live-record
  expect_rc 1 "game audit of the record game"
  expect_contains "${out}" "4 events over 1 turn: 1 violation, 0 disputes, 0 warnings, 0 unverifiable" "record audit"
  expect_contains "${out}" "${rule}" "record audit"
  expect_contains "${out}" "${message}" "record audit"
  export_game record-export "${umpire_file}" live-record "${work}/record.textproto"
  run record-offline "${gunbai}" audit "${work}/record.textproto"
  expect_rc 1 "offline audit of the record game"
  cmp -s "${out}" "${work}/record-audit.out" || fail "offline audit differs"
  ok "record: exit 1, the finding reported (again on a retry, from the stored answer) and in gunbai game audit"
}

# 6. Credentials, as the CLI shows them (tests/e2e/live_game_test.cc checks
# the gRPC codes).
case_credentials() {
  start_daemon
  create live-a
  create live-b
  local oda_a="${work}/live-a.oda.token" oda_b="${work}/live-b.oda.token"

  local args
  args=$(tr '\0' ' ' <"/proc/${daemon_pid}/cmdline")
  [[ "${args}" == *"--umpire-token-file ${umpire_file}"* ]] || fail "gunbaid command line: ${args}"
  if grep -qF -- "$(cat "${umpire_file}")" "/proc/${daemon_pid}/cmdline"; then
    fail "the umpire token is on gunbaid's command line"
  fi
  if grep -qF -- "$(cat "${umpire_file}")" "/proc/${daemon_pid}/environ"; then
    fail "the umpire token is in gunbaid's environment"
  fi
  ok "the umpire token is read from a file, on neither the command line nor the environment"

  run no-token "${gunbai}" game show --server="${server}" --game=live-a
  expect_rc 2 "no credential"
  expect_file_is "${err}" "gunbai: gunbai game needs a credential: --token-file=FILE or GUNBAI_TOKEN
" "no credential"
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"${work}/wrong.token"
  local denied="gunbai: this credential is neither the umpire's nor a player's of this game
"
  local what
  for what in show export audit watch; do
    game "wrong-${what}" "${work}/wrong.token" "${what}" --game=live-a
    expect_rc 2 "${what} with a wrong credential"
    expect_file_is "${err}" "${denied}" "${what} with a wrong credential"
  done
  ok "no credential: exit 2 before dialling; a wrong one: exit 2, permission denied"

  game own "${oda_a}" show --game=live-a
  expect_rc 0 "a player reading its own game"
  GUNBAI_TOKEN=$(cat "${work}/live-a.asai.token") run own-env "${gunbai}" game audit \
    --server="${server}" --game=live-a
  expect_rc 0 "a player's credential from GUNBAI_TOKEN"
  for what in show export audit watch; do
    game "other-${what}" "${oda_b}" "${what}" --game=live-a
    expect_rc 2 "${what} of another game"
    expect_file_is "${err}" "${denied}" "${what} of another game"
  done
  game unknown "${oda_a}" show --game=live-nowhere
  expect_rc 2 "a player naming an unknown game"
  expect_file_is "${err}" "${denied}" "a player naming an unknown game"
  ok "a player reads its own game, and is denied another one (and cannot tell it exists)"

  batch "${logs}/turn-start.textproto" 1
  batch "${logs}/oda-acts.textproto" 2
  append_ok umpire-starts "${umpire_file}" live-a "${logs}/turn-start.textproto" 1 1
  cat >"${logs}/turn-end.textproto" <<'EOF'
events { seq: 2 turn: 1 turn_end {} }
EOF
  cat >"${logs}/asai-acts.textproto" <<'EOF'
events { seq: 2 turn: 1 clan: "asai" activation {} }
EOF
  cat "${logs}/oda-acts.textproto" - >"${logs}/both-act.textproto" <<'EOF'
events { seq: 3 turn: 1 clan: "asai" activation {} }
EOF
  local file
  for file in asai-acts both-act turn-end; do
    game "foreign-${file}" "${oda_a}" append --game=live-a "${logs}/${file}.textproto"
    expect_rc 2 "oda appending ${file}"
    grep -qE '^gunbai: event [0-9a-f]{32}: the player of oda may append only events its clan acts in \(clan: "oda"\); nothing was written$' "${err}" ||
      fail "oda appending ${file}: $(cat "${err}")"
  done
  export_game export "${umpire_file}" live-a "${work}/a.textproto"
  [[ $(count_events "${work}/a.textproto") -eq 1 ]] || fail "a denied append wrote events"
  append_ok oda-acts "${oda_a}" live-a "${logs}/oda-acts.textproto" 1 2
  ok "a player appending another clan's event (alone, in a batch, or none's): denied, nothing written"

  game player-create "${oda_a}" create "$(header_for live-c)"
  expect_rc 2 "a player creating a game"
  expect_file_is "${err}" "gunbai: only the umpire may do this
" "a player creating a game"
  game wrong-create "${work}/wrong.token" create "$(header_for live-c)"
  expect_rc 2 "a stranger creating a game"
  game umpire-reads "${umpire_file}" show --game=live-nowhere
  expect_rc 2 "the umpire naming an unknown game"
  expect_lacks "${err}" "credential" "the umpire naming an unknown game"
  ok "only the umpire creates games; only the umpire learns a game does not exist"
}

# 7. verify finds every kind of tampering with an export.
case_tamper() {
  start_daemon
  create anegawa-clean
  batch "${logs}/all.textproto" $(seq 19)
  append_ok all "${umpire_file}" anegawa-clean "${logs}/all.textproto" 19 19
  local good="${work}/good.textproto"
  export_game export "${umpire_file}" anegawa-clean "${good}"
  run verify-good "${gunbai}" verify "${good}"
  expect_rc 0 "verify of the untouched export"

  local broken="${work}/broken.textproto"
  local mismatch="does not match its chain hash: it was edited, or an event before it was dropped, inserted or moved"
  # expect_tampered WHAT WANT: verify of ${broken} exits 1 printing WANT.
  expect_tampered() {
    run "verify-$1" "${gunbai}" verify "${broken}"
    expect_rc 1 "verify after $1"
    expect_file_is "${out}" "TAMPERED: $2
" "verify after $1"
    ok "$1: exit 1, $2"
  }
  # block SEQ: the lines of event SEQ of the export, "  events {" to "  }".
  block() {
    awk -v want="$1" '
      /^  events \{$/ { inside = 1; text = "" }
      inside { text = text $0 "\n" }
      inside && /^    seq: / { seq = $2 }
      /^  \}$/ && inside { inside = 0; if (seq == want) printf "%s", text }
    ' "${good}"
  }
  # without SEQ...: the export without the events SEQ...
  without() {
    awk -v drop=" $* " '
      /^  events \{$/ { inside = 1; text = "" }
      !inside { print; next }
      { text = text $0 "\n" }
      /^    seq: / { seq = $2 }
      /^  \}$/ {
        inside = 0
        if (index(drop, " " seq " ") == 0) printf "%s", text
      }
    ' "${good}"
  }

  # A die of the first volley (seq 3, index 2): its first die 1 becomes 2.
  awk '/^    seq: 3$/ { s = 1 } s && /^      dice: 1$/ && !done { sub(/1$/, "2"); done = 1 } { print }' \
    "${good}" >"${broken}"
  [[ $(diff "${good}" "${broken}" | grep -c '^>') -eq 1 ]] || fail "the die edit"
  expect_tampered "a die edited" "event at index 2 (seq 3) ${mismatch}"

  # The leader-loss roll of seq 4 dropped: seq 5 now sits at index 3.
  without 4 >"${broken}"
  expect_tampered "an event dropped" "event at index 3 (seq 5) ${mismatch}"

  # A morale test (seq 7's) inserted after seq 4 as seq 5: at index 4 it
  # meets the hash of the real seq 5.
  awk -v extra="$(block 7 | sed 's/^    seq: 7$/    seq: 5/')" '
    /^  events \{$/ { n++ } n == 5 && !done { print extra; done = 1 } { print }
  ' "${good}" >"${broken}"
  [[ $(count_events "${broken}") -eq 20 ]] || fail "the insertion"
  expect_tampered "an event inserted" "event at index 4 (seq 5) ${mismatch}"

  # An event added after the last one, numbered 20, has no hash at all.
  awk -v extra="$(block 18 | sed 's/^    seq: 18$/    seq: 20/')" '
    /^  events \{$/ { n++ } { print } /^  \}$/ && n == 19 && !done { print extra; done = 1 }
  ' "${good}" >"${broken}"
  expect_tampered "an event added at the end" \
    "event at index 19 (seq 20) has no chain hash (the export has 20 events and 19 chain hashes): it was inserted or added after the chain was made"

  # seq 6 (asai's volley) and seq 7 (asai-cav's morale test) swapped.
  local part="${work}/part"
  awk '/^  events \{$/ { n++ } n < 6 { print }' "${good}" >"${part}.before"
  awk '/^  events \{$/ { n++ } n > 7 || /^}$/ { p = 1 } p { print }' "${good}" >"${part}.after"
  block 6 >"${part}.6"
  block 7 >"${part}.7"
  cat "${part}.before" "${part}.7" "${part}.6" "${part}.after" >"${broken}"
  [[ $(count_events "${broken}") -eq 19 ]] || fail "the swap"
  [[ $(diff <(sort "${good}") <(sort "${broken}") | wc -l) -eq 0 ]] || fail "the swap changed lines"
  expect_tampered "two events swapped" \
    "event at index 5 (seq 7) ${mismatch}"

  # The same swap with the seqs renumbered so that they still increase.
  sed 's/^    seq: 7$/    seq: 6/' "${part}.7" >"${part}.7as6"
  sed 's/^    seq: 6$/    seq: 7/' "${part}.6" >"${part}.6as7"
  cat "${part}.before" "${part}.7as6" "${part}.6as7" "${part}.after" >"${broken}"
  expect_tampered "two events swapped and renumbered" "event at index 5 (seq 6) ${mismatch}"

  # The chain hashes swapped along with the events: the chain still breaks,
  # since each hash covers the one before it.
  awk -v a="$(chain_hash "${good}" 6)" -v b="$(chain_hash "${good}" 7)" '
    $0 == "chain_hashes: \"" a "\"" { print "chain_hashes: \"" b "\""; next }
    $0 == "chain_hashes: \"" b "\"" { print "chain_hashes: \"" a "\""; next }
    { print }
  ' <(cat "${part}.before" "${part}.7" "${part}.6" "${part}.after") >"${broken}"
  [[ $(diff "${good}" "${broken}" | grep -c '^>') -gt 2 ]] || fail "the swap with hashes"
  expect_tampered "two events swapped with their chain hashes" \
    "event at index 5 (seq 7) ${mismatch}"

  # The server-dice game: its revealed secret replaced.
  play_server_dice_game live-tamper-dice
  local sd="${work}/live-tamper-dice.textproto"
  run verify-sd "${gunbai}" verify "${sd}"
  expect_rc 0 "verify of the untouched server-dice export"
  sed -E 's/^(  revealed_secret: ")[0-9a-f]{64}"$/\1'"$(printf '%064d' 7)"'"/' "${sd}" >"${broken}"
  [[ $(diff "${sd}" "${broken}" | grep -c '^>') -eq 1 ]] || fail "the secret edit"
  expect_tampered "the revealed secret replaced" \
    "the revealed secret does not match the commitment published at creation"
}

# 8. A watch started before the appends prints each batch as it lands, and
# ends by itself after game_end.
case_watch() {
  start_daemon
  create anegawa-clean
  batch "${logs}/turn1.textproto" 1 2 3 4 5 6 7 8
  batch "${logs}/turn2.textproto" 9 10 11 12 13 14 15 16 17 18 19
  local watched="${work}/watch.out"
  "${gunbai}" game watch --server="${server}" --game=anegawa-clean \
    --token-file="${work}/anegawa-clean.asai.token" >"${watched}" 2>"${work}/watch.err" &
  watch_pid=$!
  sleep 1
  [[ ! -s "${watched}" ]] || fail "the watch printed before any append: $(cat "${watched}")"
  # wait_lines N: waits up to 20 s for N lines of watch output.
  # wait_lines N: waits up to 20 s for N events in the watch output (a line
  # each, its outcomes and findings indented below it).
  wait_lines() {
    for _ in $(seq 200); do
      [[ $(grep -c '^seq ' "${watched}") -ge $1 ]] && return 0
      sleep 0.1
    done
    fail "the watch printed $(grep -c '^seq ' "${watched}") events, want $1: $(cat "${watched}")"
  }
  append_ok turn1 "${umpire_file}" anegawa-clean "${logs}/turn1.textproto" 8 8
  wait_lines 8
  sleep 0.5
  [[ $(grep -c '^seq ' "${watched}") -eq 8 ]] || fail "the watch printed more than turn 1"
  kill -0 "${watch_pid}" 2>/dev/null || fail "the watch ended before game_end"
  ok "the watch printed turn 1's 8 events after the first append, and waits"
  append_ok turn2 "${umpire_file}" anegawa-clean "${logs}/turn2.textproto" 11 19
  wait_lines 19
  local code=""
  for _ in $(seq 100); do
    if ! kill -0 "${watch_pid}" 2>/dev/null; then
      set +e
      wait "${watch_pid}"
      code=$?
      set -e
      watch_pid=""
      break
    fi
    sleep 0.1
  done
  [[ "${code}" == "0" ]] || fail "the watch did not end with exit 0 after game_end (${code:-still running})"
  export_game export "${umpire_file}" anegawa-clean "${work}/watched.textproto"
  local want="" seq turn clan i=0
  local -a bodies=(turn_start activation firing leader_loss activation firing
    morale_test turn_end turn_start activation firing activation move firing
    leader_loss morale_test morale_test turn_end game_end)
  while read -r seq turn clan; do
    want+="seq ${seq} turn ${turn} ${clan} ${bodies[${i}]}  chain $(chain_hash "${work}/watched.textproto" "${seq}" | cut -c 1-12)
"
    i=$((i + 1))
  done <"${logs}/anegawa/manifest"
  grep -v '^ ' "${watched}" >"${work}/watched-events.out"
  expect_file_is "${work}/watched-events.out" "${want}" "the watch output"
  # Below each event, what the rules made of it: anegawa-clean's claims,
  # worked by hand in tests/data/README.md (the log audits clean, so the
  # rules' outcomes are its claims).
  local seq3 seq4 seq7
  seq3=$(awk '/^seq 3 /{f=1; next} /^seq /{f=0} f' "${watched}")
  [[ "${seq3}" == "    oda-teppo scores 3 hits
    asai-cav loses 1 stand" ]] || fail "the watch's outcomes of the volley: ${seq3}"
  seq4=$(awk '/^seq 4 /{f=1; next} /^seq /{f=0} f' "${watched}")
  [[ "${seq4}" == "    nagamasa survives" ]] || fail "the watch's leader roll: ${seq4}"
  seq7=$(awk '/^seq 7 /{f=1; next} /^seq /{f=0} f' "${watched}")
  [[ "${seq7}" == "    asai-cav tests morale: total 6: no effect" ]] ||
    fail "the watch's morale test: ${seq7}"
  expect_contains "${watched}" "    initiative: oda" "the watch's turn start"
  ok "the watch printed all 19 events with their chain hashes and outcomes, and exited 0 after game_end"
}

# initiative_of ODA_DIE ASAI_DIE LAST: the clan gunbaid gives the initiative
# by the rule of game_service.proto: the highest die (oda's first, asai's
# second); a tie to the first tied clan in header order after LAST, the
# clan that held it the turn before (with two clans, the other one; with
# none before, the first clan after the last in header order: oda).
initiative_of() {
  local oda=$1 asai=$2 last=$3
  if ((oda > asai)); then
    echo oda
  elif ((asai > oda)); then
    echo asai
  elif [[ "${last}" == oda ]]; then
    echo asai
  else
    echo oda
  fi
}

# wait_exit PID: waits up to 10 s for PID to end; sets `code` to its exit
# code, empty when it is still running.
wait_exit() {
  code=""
  for _ in $(seq 100); do
    if ! kill -0 "$1" 2>/dev/null; then
      set +e
      wait "$1"
      code=$?
      set -e
      return 0
    fi
    sleep 0.1
  done
}

# 10. The shipped play-by-email example (samples/pbem) played through by
# the umpire and both players with server dice, as samples/pbem/README.md walks through
# it: the players end their own turns, gunbaid starts the next turn with
# its initiative dice, each append says what the dice did, and the export
# verifies. Each volley is one stand's two dice: at most one hit (a stand
# scores one hit when its total reaches the hit score), and 3 hits make a
# stand lost (rules/daimyo/daimyo.textproto), which two volleys on asai-cav
# cannot reach: no stand is lost, and nothing else (morale tests, leader
# rolls) falls due, whatever the dice.
case_pbem() {
  local pbem="${data_dir}/../../samples/pbem"
  start_daemon
  game pbem-create "${umpire_file}" create --dice=server "${pbem}/armies.textproto"
  expect_rc 0 "create the example game"
  local id clan
  id=$(sed -n 's/^game //p' "${out}")
  [[ "${id}" =~ ^game-[0-9a-f]{16}$ ]] || fail "the example game's id: ${id}"
  for clan in oda asai; do
    sed -n "s/^credential for ${clan}: //p" "${out}" | tr -d '\n' >"${work}/${clan}.token"
  done
  "${gunbai}" game watch --server="${server}" --game="${id}" \
    --token-file="${work}/asai.token" >"${work}/pbem-watch.out" 2>"${work}/pbem-watch.err" &
  watch_pid=$!

  append_ok pbem-start "${umpire_file}" "${id}" "${pbem}/turn1-start.textproto" 1 1
  local d1 d2 first
  read -r _ _ _ d1 d2 <<<"$(head -n 1 <<<"${dice_lines}")"
  first=$(initiative_of "${d1}" "${d2}" none)
  expect_contains "${out}" "    turn 1 starts: ${first} has the initiative" "turn 1's initiative (dice ${d1} ${d2})"

  append_ok pbem-oda-1 "${work}/oda.token" "${id}" "${pbem}/turn1-oda.textproto" 3 4
  grep -qE '^  seq 3 dice: [1-6] [1-6]$' <<<"${outcome_lines}" || fail "oda's volley: ${outcome_lines}"
  grep -qE '^    oda-teppo scores [01] hits?$' <<<"${outcome_lines}" || fail "oda's hits: ${outcome_lines}"
  grep -qxF '    asai-cav loses 0 stands' <<<"${outcome_lines}" || fail "asai-cav's loss: ${outcome_lines}"
  ok "oda's turn file: gunbaid rolled the volley and said what it did"

  # Oda has ended turn 1: a second turn_end, or a move, waits for Asai.
  echo 'events { seq: 5 turn: 1 clan: "oda" turn_end {} }' >"${logs}/pbem-again.textproto"
  echo 'events { seq: 5 turn: 1 clan: "oda" move { unit: "oda-teppo" kind: MOVE_KIND_MOVE distance_mm: 50 } }' \
    >"${logs}/pbem-late.textproto"
  game pbem-again "${work}/oda.token" append --game="${id}" "${logs}/pbem-again.textproto"
  expect_rc 2 "oda ending turn 1 twice"
  grep -qE '^gunbai: event [0-9a-f]{32}: oda has already ended turn 1; the turn ends when asai end it too; nothing was written$' "${err}" ||
    fail "a second turn_end: $(cat "${err}")"
  game pbem-late "${work}/oda.token" append --game="${id}" "${logs}/pbem-late.textproto"
  expect_rc 2 "oda moving after its turn_end"
  expect_contains "${err}" "oda has ended turn 1, and until asai end it too it may append only what the end of the turn owes (morale_test, leader_loss, result_move, removal); nothing was written" "a move after the turn_end"
  ok "a clan that ended the turn may not end it again nor act until the others end it"

  append_ok pbem-asai-1 "${work}/asai.token" "${id}" "${pbem}/turn1-asai.textproto" 4 8
  grep -qE '^  seq 8 dice: [1-6] [1-6]$' <<<"${outcome_lines}" || fail "turn 2's dice: ${outcome_lines}"
  read -r _ _ _ d1 d2 <<<"$(grep '^  seq 8 ' <<<"${outcome_lines}")"
  local second
  second=$(initiative_of "${d1}" "${d2}" "${first}")
  expect_contains "${out}" "    turn 2 starts (gunbaid's turn_start): ${second} has the initiative" "turn 2's initiative (dice ${d1} ${d2}, ${first} held it)"
  ok "asai's turn_end ended turn 1, and gunbaid started turn 2 in the same reply (${second}'s initiative on ${d1} ${d2})"

  # A strict refusal, with --format=json: the findings as data on stdout
  # (from the status details), the message on stderr.
  {
    echo 'events { seq: 9 turn: 2 clan: "oda" activation {} }'
    echo 'events { seq: 10 turn: 2 clan: "oda" firing { unit: "oda-teppo" target: "asai-cav" stands_firing: 1 facts { range: RANGE_BAND_EFFECTIVE } } }'
    echo 'events { seq: 11 turn: 2 clan: "oda" firing { unit: "oda-teppo" target: "asai-cav" stands_firing: 1 facts { range: RANGE_BAND_EFFECTIVE } } }'
  } >"${logs}/pbem-twice.textproto"
  game pbem-twice "${work}/oda.token" append --game="${id}" --format=json "${logs}/pbem-twice.textproto"
  expect_rc 2 "a strict game's refusal"
  expect_contains "${err}" "the game is strict and the batch breaks the rules; nothing was written:" "the refusal's message"
  expect_contains "${out}" '"rule_id": "daimyo.fire.eligibility.once_per_turn"' "the refusal's details as JSON"
  expect_contains "${out}" '"seq": "11"' "the refusal's details as JSON"
  ok "a strict refusal's findings come as structured details (JSON on stdout)"

  game pbem-oda-2 "${work}/oda.token" append --game="${id}" --format=json "${pbem}/turn2-oda.textproto"
  expect_rc 0 "oda's turn 2, as JSON"
  expect_contains "${out}" '"kind": "hits"' "the reply's outcomes as JSON"
  expect_contains "${out}" '"kind": "stands_lost"' "the reply's outcomes as JSON"
  append_ok pbem-asai-2 "${work}/asai.token" "${id}" "${pbem}/turn2-asai.textproto" 4 15
  expect_contains "${out}" "    turn 3 starts (gunbaid's turn_start): " "turn 3's start"
  append_ok pbem-end "${umpire_file}" "${id}" "${pbem}/end.textproto" 1 16

  export_game pbem-export "${umpire_file}" "${id}" "${work}/pbem.textproto"
  run pbem-verify "${gunbai}" verify "${work}/pbem.textproto"
  expect_rc 0 "verify the example game"
  expect_file_is "${out}" "ok: 16 events, chain head ${head}; every server die recomputed from the revealed secret, which matches its commitment
" "verify the example game"
  run pbem-audit "${gunbai}" audit "${work}/pbem.textproto"
  expect_rc 0 "audit the example game"
  expect_contains "${out}" "16 events over 3 turns: 0 violations, 0 disputes, 0 warnings, 0 unverifiable" "audit the example game"
  # The stored log: each clan's own turn_end, and gunbaid's turn starts.
  [[ $(grep -c '^event_ids: "gunbaid:turn_start:seq=' "${work}/pbem.textproto") -eq 2 ]] ||
    fail "the export's gunbaid turn starts: $(grep 'event_ids: "gunbaid' "${work}/pbem.textproto")"
  ok "the example game exports, verifies (every die) and audits clean"

  wait_exit "${watch_pid}"
  watch_pid=""
  [[ "${code}" == "0" ]] ||
    fail "the watch did not end with exit 0 after game_end (${code:-still running}): $(cat "${work}/pbem-watch.err")"
  [[ $(grep -c '^seq ' "${work}/pbem-watch.out") -eq 16 ]] || fail "the watch: $(cat "${work}/pbem-watch.out")"
  grep -qxF '    asai-cav loses 0 stands' "${work}/pbem-watch.out" ||
    fail "the watch's outcomes: $(cat "${work}/pbem-watch.out")"
  grep -qxF "    initiative: ${second}" "${work}/pbem-watch.out" ||
    fail "the watch's initiative: $(cat "${work}/pbem-watch.out")"
  ok "a player's watch printed the 16 events with their outcomes, and exited 0 after game_end"
}

# 11. A watch whose daemon stops (SIGTERM, then SIGKILL) exits 3 and says
# so, instead of exiting 0 as if the game had ended; and a gunbaid without
# live games says that it has none.
case_watch_stop() {
  start_daemon
  create anegawa-clean
  local signal
  for signal in TERM KILL; do
    "${gunbai}" game watch --server="${server}" --game=anegawa-clean \
      --token-file="${umpire_file}" >"${work}/stop.out" 2>"${work}/stop.err" &
    watch_pid=$!
    sleep 1
    kill -0 "${watch_pid}" 2>/dev/null || fail "the watch ended before the daemon stopped: $(cat "${work}/stop.err")"
    kill "-${signal}" "${daemon_pid}"
    wait "${daemon_pid}" 2>/dev/null || true
    daemon_pid=""
    wait_exit "${watch_pid}"
    watch_pid=""
    [[ "${code}" == "3" ]] ||
      fail "SIG${signal}: the watch exited ${code:-never}, want 3: $(cat "${work}/stop.err")"
    grep -qE '^gunbai: the watch of game anegawa-clean broke off after seq 0: .*; watch again with --from=0$' "${work}/stop.err" ||
      fail "the watch's message after SIG${signal}: $(cat "${work}/stop.err")"
    if [[ "${signal}" == TERM ]]; then
      expect_contains "${work}/stop.err" "gunbaid is stopping" "the watch's message after SIGTERM"
    fi
    launch_daemon
  done
  ok "a watch whose daemon stops (SIGTERM or SIGKILL) exits 3, saying where to resume"

  kill -TERM "${daemon_pid}"
  wait "${daemon_pid}" 2>/dev/null || true
  daemon_pid=""
  : >"${work}/daemon.out"
  "${gunbaid}" --listen 127.0.0.1:0 --data-dir "${work}/data" \
    >"${work}/daemon.out" 2>"${work}/daemon.err" &
  daemon_pid=$!
  local port="" line
  for _ in $(seq 300); do
    line=$(head -n 1 "${work}/daemon.out")
    if [[ "${line}" =~ ^gunbaid\ listening\ on\ 127\.0\.0\.1:([0-9]+)$ ]]; then
      port=${BASH_REMATCH[1]}
      break
    fi
    sleep 0.1
  done
  [[ -n "${port}" ]] || fail "gunbaid without live games did not report its port"
  server="127.0.0.1:${port}"
  game off "${umpire_file}" show --game=anegawa-clean
  expect_rc 2 "a live-game call to a gunbaid without live games"
  expect_file_is "${err}" "gunbai: gunbaid at ${server} does not serve live games: it was started without an umpire credential. Start it with --umpire-token-file=F (or GUNBAI_UMPIRE_TOKEN) and --data-dir=DIR
" "the error when live games are off"
  ok "a gunbaid without live games says so, in plain words"
}

# 12. Checkpoints (issue 34): gunbaid started with a key `gunbai key --new`
# made signs the game's Merkle checkpoint, the same bytes each time it is
# asked for; python3-cryptography (sharing no code with gunbai) checks the
# signature by the C2SP rules written out here (key id: the first 4 bytes of
# SHA-256(name || 0x0A || 0x01 || public key); the signature over the text
# before the blank line). The checkpoint of turn 1's end is the tree of
# every event of turn 1 (all 6 of the server-dice game: its game_end is of
# turn 1), whose root `gunbai game proof` sends too. Turn 2 has not ended;
# a daemon without a key signs nothing.
case_checkpoint() {
  local vkey
  vkey=$("${gunbai}" key --new=gunbaid.test -o "${work}/daemon.key")
  start_daemon --signing-key-file "${work}/daemon.key"
  local id=live-checkpoint
  play_server_dice_game "${id}"

  game cp-1 "${work}/${id}.oda.token" checkpoint --game="${id}" --turn=1
  expect_rc 0 "checkpoint of turn 1"
  cp "${out}" "${work}/turn1.note"
  expect_contains "${err}" "signature of gunbaid.test verified" "checkpoint of turn 1"
  [[ "$(sed -n 1,2p "${work}/turn1.note")" == "gunbaid.test/${id}
6" ]] || fail "checkpoint text: $(cat "${work}/turn1.note")"
  game proof-6 "${work}/${id}.oda.token" proof --game="${id}" --tree-size=6
  expect_rc 0 "proof of 6 events"
  local root_hex root_b64
  root_hex=$(sed -n 's/.*root \([0-9a-f]\{64\}\).*/\1/p' "${out}" | head -1)
  root_b64=$(python3 -c 'import base64, sys; print(base64.b64encode(bytes.fromhex(sys.argv[1])).decode())' "${root_hex}")
  [[ "$(sed -n 3p "${work}/turn1.note")" == "${root_b64}" ]] ||
    fail "the checkpoint's root $(sed -n 3p "${work}/turn1.note") is not the proof's ${root_b64}"
  ok "the checkpoint of turn 1 names 6 events and the root gunbai game proof sends"

  game cp-again "${umpire_file}" checkpoint --game="${id}" --turn=1 --daemon-key="${vkey}"
  expect_rc 0 "checkpoint of turn 1 again, against the key held"
  cmp -s "${out}" "${work}/turn1.note" || fail "a second checkpoint of turn 1 differs"
  ok "asked again (by the umpire, against the key made), the same bytes"

  python3 - "${vkey}" "${work}/turn1.note" <<'PY' || fail "python3-cryptography refuses gunbaid's checkpoint"
import base64, hashlib, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
vkey, note_path = sys.argv[1:]
name, kid, key = vkey.split("+", 2)
raw = base64.b64decode(key)
assert raw[0] == 1 and len(raw) == 33
pub = raw[1:]
assert hashlib.sha256(name.encode() + b"\n\x01" + pub).hexdigest()[:8] == kid
note = open(note_path, "rb").read()
text, sigs = note[: note.rindex(b"\n\n") + 1], note[note.rindex(b"\n\n") + 2 :]
origin, size, root = text.decode().splitlines()
assert origin == name + "/live-checkpoint" and size == "6", text
line = sigs.decode().splitlines()[0]
assert line.startswith("\u2014 " + name + " "), line
blob = base64.b64decode(line.rsplit(" ", 1)[1])
assert blob[:4].hex() == kid
Ed25519PublicKey.from_public_bytes(pub).verify(blob[4:], text)
PY
  ok "python3-cryptography verifies the daemon's checkpoint"

  # The proofs too, by RFC 9162's algorithms written out here in Python
  # (2.1.3.2 inclusion, 2.1.4.2 consistency): event 3 is leaf 2 of the
  # checkpoint's tree, and that tree extends the tree of 2 events.
  game cp-proof "${work}/${id}.oda.token" proof --game="${id}" --seq=3 \
    --tree-size=6 --first-size=2 --format=json
  expect_rc 0 "proofs against the checkpoint"
  python3 - "${out}" "${work}/turn1.note" <<'PY' || fail "Python's RFC 9162 check refuses the daemon's proofs"
import base64, hashlib, json, sys
p = json.load(open(sys.argv[1]))
root = base64.b64decode(open(sys.argv[2]).read().split("\n")[2])
def node(l, r): return hashlib.sha256(b"\x01" + l + r).digest()
# Inclusion (RFC 9162 2.1.3.2).
fn, sn = int(p["leaf_index"]), int(p["tree_size"]) - 1
r = bytes.fromhex(p["leaf_hash"])
for h in map(bytes.fromhex, p["inclusion"]):
    assert sn != 0
    if fn % 2 == 1 or fn == sn:
        r = node(h, r)
        while fn % 2 == 0 and fn != 0:
            fn >>= 1; sn >>= 1
    else:
        r = node(r, h)
    fn >>= 1; sn >>= 1
assert sn == 0 and r == root, "inclusion"
# Consistency (RFC 9162 2.1.4.2).
first, second = int(p["first_size"]), int(p["tree_size"])
first_root = bytes.fromhex(p["first_root_hash"])
path = [bytes.fromhex(h) for h in p["consistency"]]
if first & (first - 1) == 0:
    path = [first_root] + path
fn, sn = first - 1, second - 1
while fn & 1:
    fn >>= 1; sn >>= 1
fr = sr = path[0]
for c in path[1:]:
    assert sn != 0
    if fn & 1 or fn == sn:
        fr = node(c, fr); sr = node(c, sr)
        while not fn & 1 and fn != 0:
            fn >>= 1; sn >>= 1
    else:
        sr = node(sr, c)
    fn >>= 1; sn >>= 1
assert sn == 0 and fr == first_root and sr == root, "consistency"
PY
  ok "Python checks the inclusion of event 3 and the consistency from 2 events against the checkpoint's root"

  # Offline: the ended game's export holds the checkpoint; cut short by its
  # last event (game_end), its chain still holds (a prefix of a chain is a
  # chain) but the checkpoint of 6 events does not.
  export_game cp-export "${work}/${id}.oda.token" "${id}" "${work}/cp.textproto"
  run cp-verify "${gunbai}" verify "${work}/cp.textproto" \
    --checkpoint="${work}/turn1.note" --key="${vkey}"
  expect_rc 0 "verify against the checkpoint"
  expect_contains "${out}" "; 1 checkpoint holds: the export's first 6 events are the ones signed" \
    "verify against the checkpoint"
  python3 - "${work}/cp.textproto" "${work}/cut.textproto" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# The last event of the log, its chain hash and its dice attempt go.
head, sep, rest = text.partition("\nlog {\n")
blocks = rest.split("\n  events {\n")
last = blocks[-1]
tail = last[last.index("\n  }\n") + 5:]
blocks[-2] = blocks[-2] + "\n" if not blocks[-2].endswith("\n") else blocks[-2]
rest = "\n  events {\n".join(blocks[:-1]) + tail
out = head + sep + rest
hashes = re.findall(r'^chain_hashes: ".*"\n', out, re.M)
out = out.replace(hashes[-1], "", 1)
attempts = re.findall(r'^dice_attempts: \d+\n', out, re.M)
out = out[::-1].replace(attempts[-1][::-1], "", 1)[::-1]
open(sys.argv[2], "w").write(out)
PY
  [[ "$(count_events "${work}/cut.textproto")" == 5 ]] || fail "the cut export has $(count_events "${work}/cut.textproto") events"
  run cp-verify-cut-chain "${gunbai}" verify "${work}/cut.textproto"
  expect_rc 0 "the cut export's chain alone"
  expect_contains "${out}" "ok: 5 events, chain head" "the cut export's chain alone"
  run cp-verify-cut "${gunbai}" verify "${work}/cut.textproto" \
    --checkpoint="${work}/turn1.note" --key="${vkey}"
  expect_rc 1 "verify a cut export against the checkpoint"
  expect_contains "${out}" "TAMPERED: the export has 5 events, but the checkpoint ${work}/turn1.note signs 6" \
    "verify a cut export"
  ok "offline, the export holds the turn-1 checkpoint; cut short, it does not"

  # Cosignatures: each player cosigns turn 1's checkpoint with a key of its
  # own (registered by the first cosign). After oda alone the umpire sees
  # asai waiting; after both the turn is agreed. The cosigned note opens
  # offline with all three keys; a note cosigned with another key than the
  # one registered is refused.
  local oda_vkey asai_vkey
  oda_vkey=$("${gunbai}" key --new=oda.player -o "${work}/oda.key")
  asai_vkey=$("${gunbai}" key --new=asai.player -o "${work}/asai.key")
  game cosign-oda "${work}/${id}.oda.token" cosign --game="${id}" --turn=1 \
    --key="${work}/oda.key" --daemon-key="${vkey}"
  expect_rc 0 "oda cosigns turn 1"
  expect_contains "${err}" "cosigned as oda.player; turn 1: 6 events" "oda cosigns turn 1"
  expect_contains "${err}" "waiting for asai (cosigned by oda)" "oda cosigns turn 1"
  game list-1 "${umpire_file}" checkpoints --game="${id}"
  expect_rc 0 "the umpire lists the checkpoints"
  expect_contains "${out}" "turn 1: 6 events, root ${root_hex}; waiting for asai (cosigned by oda)" \
    "the umpire sees asai waiting"
  ok "after oda's cosignature the umpire sees turn 1 waiting for asai"
  game cosign-asai "${work}/${id}.asai.token" cosign --game="${id}" --turn=1 \
    --key="${work}/asai.key"
  expect_rc 0 "asai cosigns turn 1"
  cp "${out}" "${work}/turn1-agreed.note"
  expect_contains "${err}" "agreed (cosigned by oda, asai)" "asai cosigns turn 1"
  "${gunbai}" key --open="${work}/turn1-agreed.note" --verifier="${vkey}" \
    --verifier="${oda_vkey}" --verifier="${asai_vkey}" >/dev/null ||
    fail "the agreed note does not open with the three keys"
  run cp-verify-agreed "${gunbai}" verify "${work}/cp.textproto" \
    --checkpoint="${work}/turn1-agreed.note" --key="${vkey}" --key="${oda_vkey}" --key="${asai_vkey}"
  expect_rc 0 "verify against the agreed checkpoint"
  ok "both cosign: turn 1 is agreed, and the note opens and verifies the export with all three keys"
  "${gunbai}" key --new=someone.else -o "${work}/other.key" >/dev/null
  game cosign-other "${work}/${id}.oda.token" cosign --game="${id}" --turn=1 \
    --key="${work}/other.key"
  expect_rc 2 "cosign with another key"
  expect_contains "${err}" "registered another checkpoint key" "cosign with another key"
  game cosign-umpire "${umpire_file}" cosign --game="${id}" --turn=1 --key="${work}/oda.key"
  expect_rc 2 "the umpire cosigns"
  expect_contains "${err}" "players" "the umpire cosigns"
  ok "another key than the one registered, and the umpire, are refused"
  restart_daemon --signing-key-file "${work}/daemon.key"
  game list-again "${umpire_file}" checkpoints --game="${id}"
  expect_rc 0 "the checkpoints after a restart"
  expect_contains "${out}" "turn 1: 6 events, root ${root_hex}; agreed (cosigned by oda, asai)" \
    "the checkpoints after a restart"
  ok "the keys and cosignatures are in the store: after a restart turn 1 is still agreed"

  # The store altered underneath the daemon: its last event (game_end) is
  # deleted from the SQLite file while gunbaid is stopped. Restarted, gunbaid
  # serves 5 events; its own checkpoint of turn 1 is now of 5 events, which
  # nobody cosigned (so the umpire sees it waiting again), and the export
  # fails offline against the agreed note both players kept.
  kill -TERM "${daemon_pid}"
  wait "${daemon_pid}" 2>/dev/null || true
  daemon_pid=""
  sqlite3 "${work}/data/gunbai.sqlite3" "DELETE FROM events WHERE game_id = '${id}' AND position = (SELECT MAX(position) FROM events WHERE game_id = '${id}')"
  launch_daemon --signing-key-file "${work}/daemon.key"
  game list-altered "${umpire_file}" checkpoints --game="${id}"
  expect_rc 0 "the checkpoints of the altered store"
  expect_contains "${out}" "turn 1: 5 events, root" "the checkpoints of the altered store"
  expect_contains "${out}" "waiting for oda, asai" "the checkpoints of the altered store"
  export_game cp-altered "${umpire_file}" "${id}" "${work}/altered.textproto"
  run cp-verify-altered "${gunbai}" verify "${work}/altered.textproto" \
    --checkpoint="${work}/turn1-agreed.note" --key="${vkey}" --key="${oda_vkey}" --key="${asai_vkey}"
  expect_rc 1 "verify the altered store's export against the agreed note"
  expect_contains "${out}" "TAMPERED: the export has 5 events, but the checkpoint ${work}/turn1-agreed.note signs 6" \
    "verify the altered store's export"
  ok "an event deleted from the store underneath gunbaid: turn 1 is no longer agreed, and the agreed note catches the export"

  game cp-2 "${work}/${id}.oda.token" checkpoint --game="${id}" --turn=2
  expect_rc 2 "checkpoint of turn 2"
  expect_contains "${err}" "turn 2 of game ${id} has not ended" "checkpoint of turn 2"
  ok "turn 2 has not ended: no checkpoint, saying so"

  restart_daemon
  game cp-nokey "${work}/${id}.oda.token" checkpoint --game="${id}"
  expect_rc 2 "checkpoint without a key"
  expect_contains "${err}" "--signing-key-file" "checkpoint without a key"
  ok "a daemon without a signing key refuses, naming the flag"
}

run_case() {
  case_name=$1
  case "$1" in
    recorded) case_recorded ;;
    server_dice) case_server_dice ;;
    skf_server_dice) case_skf_server_dice ;;
    stale) case_stale ;;
    retry) case_retry ;;
    policy) case_policy ;;
    credentials) case_credentials ;;
    tamper) case_tamper ;;
    watch) case_watch ;;
    pbem) case_pbem ;;
    watch_stop) case_watch_stop ;;
    checkpoint) case_checkpoint ;;
    *) echo "unknown case $1" >&2; exit 2 ;;
  esac
  if [[ -n "${daemon_pid}" ]]; then
    kill -TERM "${daemon_pid}"
    set +e
    wait "${daemon_pid}"
    local code=$?
    set -e
    daemon_pid=""
    [[ ${code} -eq 0 ]] || fail "gunbaid exited ${code} after SIGTERM"
  fi
}

if [[ "${case_name}" == all ]]; then
  for c in recorded server_dice skf_server_dice stale retry policy credentials \
    tamper watch; do
    run_case "${c}"
  done
else
  run_case "${case_name}"
fi
echo "PASS [${case_name}]"
