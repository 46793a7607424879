#!/usr/bin/env bash
# Runs the real `gunbai generate`, then `gunbai audit` on what it wrote:
# clean games audit with exit 0 in every format; games with planted faults
# exit 1, and their audit reports exactly the faults the manifest lists
# (same seq, same rule id) and nothing else; the same options give the same
# bytes; --help teaches and a bad command line exits 2. The same for
# Samurai Knight Fever games (--ruleset skf|FILE), and their --coverage
# lists every SKF rule id.
#
# Usage: generate_cli_test.sh GUNBAI
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 GUNBAI" >&2
  exit 2
fi
gunbai=$1
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Runs "$@" and checks its exit code is $1 (the rest is the command).
expect_exit() {
  local want=$1
  shift
  local got=0
  "$@" >"${work}/out" 2>"${work}/err" || got=$?
  if [[ ${got} -ne ${want} ]]; then
    fail "exit ${got}, want ${want}: $*"
    sed 's/^/    /' "${work}/err" >&2
  fi
}

# Clean games audit clean, in each format the audit reads.
for seed in 1 2 3; do
  game="--seed ${seed} --turns 6 --units 6"
  expect_exit 0 "${gunbai}" generate ${game} -o "${work}/clean.textproto"
  expect_exit 0 "${gunbai}" audit "${work}/clean.textproto"
  expect_exit 0 "${gunbai}" generate ${game} --format=json \
    -o "${work}/clean.json"
  expect_exit 0 "${gunbai}" audit "${work}/clean.json"
  expect_exit 0 "${gunbai}" generate ${game} --format binary \
    -o "${work}/clean.pb"
  expect_exit 0 "${gunbai}" audit "${work}/clean.pb"
  # The same game on standard output, and the same bytes every time.
  "${gunbai}" generate ${game} >"${work}/stdout.textproto"
  cmp -s "${work}/clean.textproto" "${work}/stdout.textproto" ||
    fail "seed ${seed}: -o and standard output differ"
  "${gunbai}" generate ${game} --format=binary -o "${work}/again.pb"
  cmp -s "${work}/clean.pb" "${work}/again.pb" ||
    fail "seed ${seed}: the same options gave different bytes"
done

# A game sized by events holds that many events.
expect_exit 0 "${gunbai}" generate --seed 4 --events 300 --units 5 \
  -o "${work}/sized.textproto"
expect_exit 0 "${gunbai}" audit "${work}/sized.textproto"
grep -q "^300 events over" "${work}/out" ||
  fail "--events 300: $(grep 'events over' "${work}/out")"

# Planted faults: the audit finds exactly the manifest.
for seed in 5 6 7 8; do
  for faults in 1 3 5; do
    name="seed ${seed}, ${faults} faults"
    expect_exit 0 "${gunbai}" generate --seed "${seed}" --turns 8 --units 7 \
      --faults "${faults}" --manifest "${work}/planted.jsonl" \
      -o "${work}/faulty.textproto"
    expect_exit 1 "${gunbai}" audit "${work}/faulty.textproto"
    cp "${work}/out" "${work}/report.txt"
    # What the manifest says must be found: "seq RULE", one a line.
    sed -E 's/^\{"seq": ([0-9]+), "rule_id": "([^"]+)".*/\1 \2/' \
      "${work}/planted.jsonl" | sort >"${work}/want"
    # What the audit found: lines "  seq N  SEVERITY  RULE  [subject]".
    sed -nE 's/^  seq ([0-9]+)  [A-Z]+  ([^ ]+)  .*/\1 \2/p' \
      "${work}/report.txt" | sort >"${work}/got"
    if [[ $(wc -l <"${work}/want") -ne ${faults} ]]; then
      fail "${name}: the manifest lists $(wc -l <"${work}/want") faults"
    fi
    if ! diff -u "${work}/want" "${work}/got" >"${work}/diff"; then
      fail "${name}: audit findings differ from the manifest"
      sed 's/^/    /' "${work}/diff" >&2
    fi
    grep -qE "events over [0-9]+ turns: [0-9]+ violations?, [0-9]+ disputes?, 0 warnings, 0 unverifiable" \
      "${work}/report.txt" || fail "${name}: warnings or unverifiable findings"
  done
done

# Without --manifest, the manifest goes to standard error.
"${gunbai}" generate --seed 5 --turns 8 --units 7 --faults 2 \
  >/dev/null 2>"${work}/manifest.err"
[[ $(grep -c '"rule_id"' "${work}/manifest.err") -eq 2 ]] ||
  fail "the manifest is not on standard error"

# Help and usage.
expect_exit 0 "${gunbai}" generate --help
grep -q "Exit codes" "${work}/out" || fail "generate --help lacks exit codes"
grep -q "skf.victory.points_mismatch" "${work}/out" ||
  fail "generate --help does not teach the SKF faults"
grep -q "gunbai generate" <("${gunbai}" --help) ||
  fail "gunbai --help does not list generate"
expect_exit 2 "${gunbai}" generate --turns 0
expect_exit 2 "${gunbai}" generate --units many
expect_exit 2 "${gunbai}" generate --format=yaml
expect_exit 2 "${gunbai}" generate --turns 3 --events 40
expect_exit 2 "${gunbai}" generate --frobnicate 1
# A game on a table (--positions): clean, with a table and positions, the
# same bytes twice; refused with --events, too many units or another
# ruleset.
expect_exit 0 "${gunbai}" generate --seed 5 --turns 5 --units 5 --positions \
  -o "${work}/table.textproto"
expect_exit 0 "${gunbai}" audit "${work}/table.textproto"
grep -q "width_mm: 1800" "${work}/table.textproto" ||
  fail "generate --positions writes no table"
grep -q "position {" "${work}/table.textproto" ||
  fail "generate --positions writes no positions"
cmp -s "${work}/table.textproto" \
  <("${gunbai}" generate --seed 5 --turns 5 --units 5 --positions) ||
  fail "generate --positions: the same options give other bytes"
grep -q -- "--positions" <("${gunbai}" generate --help) ||
  fail "generate --help does not teach --positions"
expect_exit 2 "${gunbai}" generate --events 300 --positions
# More than 256 units a clan do not fit even on the widened table.
expect_exit 2 "${gunbai}" generate --units 257 --turns 1 --positions
expect_exit 2 "${gunbai}" generate --ruleset skf --positions
expect_exit 2 "${gunbai}" generate --seed 1 -o "${work}/no/such/dir/game"

# Samurai Knight Fever: under the umpire's file (its path from this script's
# place in the tree) the game audits clean, exit 0; under the built-in
# example too (no morale check: no finding either, the results are claims).
umpire="$(cd "$(dirname "$0")/../.." && pwd)/rules/skf/umpire-example.textproto"
"${gunbai}" generate --ruleset "${umpire}" --seed 5 --turns 4 --units 5 \
  -o "${work}/skf.textproto" || fail "generate --ruleset FILE failed"
expect_exit 0 "${gunbai}" audit --ruleset "${umpire}" "${work}/skf.textproto"
grep -q 'version: "page6-example-1+morale"' "${work}/skf.textproto" ||
  fail "the SKF game's header does not name the umpire file's version"
"${gunbai}" generate --ruleset skf --seed 5 -o "${work}/skf-builtin.textproto"
expect_exit 0 "${gunbai}" audit "${work}/skf-builtin.textproto"
expect_exit 2 "${gunbai}" generate --ruleset no-such-ruleset
expect_exit 2 "${gunbai}" generate --ruleset skf --units 1
expect_exit 2 "${gunbai}" generate --ruleset skf --events 300

# Samurai Knight Fever games with planted faults, under the umpire's file
# (12 kinds: its morale check is on) and the built-in example (9 kinds):
# the audit exits 1 and reports exactly the manifest's seq, rule id and
# subject. The built-in example's one note that it has no morale check
# (skf.morale.unchecked, unverifiable), which a clean game has too, is set
# aside.
for ruleset in "${umpire}" skf; do
  audit_ruleset=()
  [[ ${ruleset} == skf ]] || audit_ruleset=(--ruleset "${ruleset}")
  for seed in 5 6 7; do
    for faults in 1 4 12; do
      name="SKF ${ruleset##*/}, seed ${seed}, ${faults} faults"
      expect_exit 0 "${gunbai}" generate --ruleset "${ruleset}" \
        --seed "${seed}" --turns 6 --units 6 --faults "${faults}" \
        --manifest "${work}/skf-planted.jsonl" -o "${work}/skf-faulty.textproto"
      expect_exit 1 "${gunbai}" audit "${audit_ruleset[@]}" \
        "${work}/skf-faulty.textproto"
      sed -E 's/^\{"seq": ([0-9]+), "rule_id": "([^"]+)".*"subject": "([^"]*)".*/\1 \2 \3/' \
        "${work}/skf-planted.jsonl" | sort >"${work}/want"
      sed -nE 's/^  seq ([0-9]+)  [A-Z]+  ([^ ]+)  \[([^]]*)\].*/\1 \2 \3/p' \
        "${work}/out" | grep -v ' skf.morale.unchecked ' | sort >"${work}/got"
      if [[ $(wc -l <"${work}/want") -ne ${faults} ]]; then
        fail "${name}: the manifest lists $(wc -l <"${work}/want") faults"
      fi
      if ! diff -u "${work}/want" "${work}/got" >"${work}/diff"; then
        fail "${name}: audit findings differ from the manifest"
        sed 's/^/    /' "${work}/diff" >&2
      fi
    done
  done
done
grep -q 'game_id: "generated-skf-7-faults-12"' \
  "${work}/skf-faulty.textproto" || fail "a faulty SKF game has no own game_id"
"${gunbai}" generate --ruleset skf --seed 7 --turns 6 --units 6 --faults 12 \
  --manifest "${work}/again.jsonl" -o "${work}/again.textproto"
cmp -s "${work}/skf-faulty.textproto" "${work}/again.textproto" &&
  cmp -s "${work}/skf-planted.jsonl" "${work}/again.jsonl" ||
  fail "SKF faults: the same options gave different bytes"

# SKF coverage: every rule id of rules/skf/RULES.md and rules/SCENARIO.md
# (the first cell of their tables) is listed with its count, 0 included,
# with and without faults; the planted faults' rules are exercised.
root="$(cd "$(dirname "$0")/../.." && pwd)"
for f in "${root}/rules/skf/RULES.md" "${root}/rules/SCENARIO.md"; do
  grep -E '^\| `' "${f}" | cut -d'|' -f2 | grep -oE '`[^`]+`' | tr -d '`' |
    grep -E '^(skf|log|game)\.'
done | sort >"${work}/documented"
for ruleset in skf "${umpire}"; do
  for faults in 0 3; do
    name="SKF coverage, ${ruleset##*/}, ${faults} faults"
    expect_exit 0 "${gunbai}" generate --coverage 20 --ruleset "${ruleset}" \
      --faults "${faults}"
    sed -nE 's/^ +[0-9]+  ([a-z_.]+)$/\1/p' "${work}/out" | sort \
      >"${work}/listed"
    diff -u "${work}/documented" "${work}/listed" >"${work}/diff" ||
      fail "${name}: the listing is not the documented ids"
    grep -qE "^ +0  skf.melee.too_many_pairings$" "${work}/out" ||
      fail "${name}: an id never exercised is not listed with 0"
    grep -q "of $(wc -l <"${work}/documented") documented rule ids" \
      "${work}/out" || fail "${name}: wrong total of documented ids"
    grep -qE "^ +[1-9][0-9]*  skf.melee.hit$" "${work}/out" ||
      fail "${name}: skf.melee.hit not exercised"
    if [[ ${faults} -gt 0 ]]; then
      for id in skf.melee.bases_lost skf.leader_hit.not_owed; do
        grep -qE "^ +[1-9][0-9]*  ${id}$" "${work}/out" ||
          fail "${name}: ${id} not exercised"
      done
    fi
  done
done

if [[ ${failures} -ne 0 ]]; then
  echo "${failures} failure(s)" >&2
  exit 1
fi
echo "PASS"
