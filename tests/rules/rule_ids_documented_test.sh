#!/usr/bin/env bash
# Every rule has a stable id and its reading is documented: each rule id the
# code can report (a string literal such as "daimyo.fire.hit" under rules/,
# replay/ and service/, whose first word is a ruleset's name as `gunbai
# ruleset --list` gives them, or log or game) is explained by the real
# `gunbai explain` from the docs embedded in it; and the command's own
# behaviour (the entry of one rule, JSON, exit codes).
# Usage: rule_ids_documented_test.sh GUNBAI SOURCE_DIR
set -euo pipefail
gunbai=$1
src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

rulesets=$("${gunbai}" ruleset --list | grep -oE '^[a-z_0-9]+' | paste -sd '|')
[[ "${rulesets}" == *daimyo* && "${rulesets}" == *skf* ]] ||
  fail "ruleset --list gave \"${rulesets}\""
ids=$(cd "${src}" && grep -rhoE "\"(${rulesets}|log|game)\\.[a-z_0-9]+(\\.[a-z_0-9]+)*\"" \
  rules replay service --include='*.cc' --include='*.h' | tr -d '"' | sort -u)
count=$(wc -w <<<"${ids}")
[[ ${count} -ge 100 ]] || fail "found only ${count} rule ids in the sources"
undocumented=""
for id in ${ids}; do
  if ! out=$("${gunbai}" explain "${id}" 2>&1); then
    undocumented+=" ${id}"
    continue
  fi
  # The entry of the id itself, from a table row that states it (not a list
  # of ids under it, nor only a mention in a paragraph).
  [[ "$(head -n 1 <<<"${out}")" == "${id}" ]] || undocumented+=" ${id}"
done
[[ -z "${undocumented}" ]] || fail "no rules doc's table states:${undocumented}"
# --list lists them all.
listed=$("${gunbai}" explain --list | cut -d ' ' -f 1 | sort -u)
missing=$(comm -23 <(tr ' ' '\n' <<<"${ids}" | sed '/^$/d') <(echo "${listed}"))
[[ -z "${missing}" ]] || fail "explain --list lacks: ${missing}"
echo "ok: all ${count} rule ids in the sources are documented"

# One entry, worked from rules/SCENARIO.md's table row for it.
out=$("${gunbai}" explain game.victory.winner)
want='game.victory.winner
  scenario rules, every ruleset
  rules/SCENARIO.md, "Scenario rules: victory by points (any ruleset)"
  severity: dispute
  `game_end.claimed_winner` is not the clan the points make the winner (or no
  clan has won)'
[[ "${out}" == "${want}" ]] || fail "explain game.victory.winner printed:
${out}"
json=$("${gunbai}" explain game.victory.winner --format=json)
grep -q '"query": "game.victory.winner"' <<<"${json}" || fail "json: ${json}"
grep -q '"severity": "dispute"' <<<"${json}" || fail "json: ${json}"
# A prefix lists; an unknown id exits 2 and says what to run.
[[ $("${gunbai}" explain skf.leader_hit | grep -c '^skf.leader_hit') -eq 4 ]] ||
  fail "skf.leader_hit lists: $("${gunbai}" explain skf.leader_hit)"
set +e
err=$("${gunbai}" explain no.such.rule 2>&1 >/dev/null)
code=$?
set -e
[[ ${code} -eq 2 ]] || fail "unknown id exited ${code}"
grep -q "gunbai explain --list" <<<"${err}" || fail "unknown id said: ${err}"
"${gunbai}" explain --help | grep -q "Exit codes" || fail "no help"
echo "ok: gunbai explain"
