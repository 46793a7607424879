#!/usr/bin/env bash
# Starting positions through the real `gunbai` binary, as an umpire uses
# them: the sample ruling audits as worked by hand (tests/data/README.md);
# `gunbai state --format=start` of its end, pasted after its order of
# battle in place of its position and events, is the same state (same
# digest); --impact's corrected branch keeps the position; a position with
# stands the unit never had is refused, exit 2,
# naming the unit and the field.
# Usage: starting_position_cli_test.sh GUNBAI DATA_DIR
set -euo pipefail
gunbai=$1
data=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT

code=0
"${gunbai}" audit "${data}/ruling-volley.textproto" >"${tmp}/report" || code=$?
[[ ${code} -eq 1 ]] || fail "audit exit ${code}, want 1 (one dispute)"
diff -u "${data}/ruling-volley.expected.txt" "${tmp}/report" ||
  fail "the ruling's report is not the expected one"

# The end of the ruling as a position of its own.
"${gunbai}" state --format=start "${data}/ruling-volley.textproto" >"${tmp}/start"
grep -q '^starting_position {$' "${tmp}/start" || fail "no starting_position block"
sed '/^starting_position {/,$d' "${data}/ruling-volley.textproto" >"${tmp}/again.textproto"
cat "${tmp}/start" >>"${tmp}/again.textproto"
want=$("${gunbai}" state "${data}/ruling-volley.textproto" | grep '^state digest')
got=$("${gunbai}" state "${tmp}/again.textproto" | grep '^state digest')
[[ "${got}" == "${want}" ]] || fail "pasted state: ${got}, want ${want}"
# Pasted whole, its digest checks out: no finding of the position.
"${gunbai}" audit "${tmp}/again.textproto" >"${tmp}/again.report" ||
  fail "the pasted position alone has findings: $(cat "${tmp}/again.report")"

# --impact's corrected branch keeps the position: it replays the volley
# with its computed 2 hits (2 carried + 2 = 4: one stand, 1 carried) and
# audits with no dispute.
"${gunbai}" audit --impact --branch-out="${tmp}/branches" \
  "${data}/ruling-volley.textproto" >/dev/null 2>&1 || true
branch="${tmp}/branches/ruling-volley-corrected-at-41.textproto"
[[ -f "${branch}" ]] || fail "no branch written: $(ls "${tmp}/branches" 2>&1)"
grep -q '^starting_position {' "${branch}" || fail "the branch lost the position"
"${gunbai}" audit "${branch}" >"${tmp}/branch.report" || true
grep -q '0 violations, 0 disputes' "${tmp}/branch.report" ||
  fail "branch: $(cat "${tmp}/branch.report")"
"${gunbai}" state "${branch}" | grep -qE '^tak-horse +takeda +2 +1 ' ||
  fail "branch state: $("${gunbai}" state "${branch}")"

# Refused: 9 stands for a unit of 6.
sed 's/id: "oda-teppo" stands: 4/id: "oda-teppo" stands: 9/' \
  "${data}/ruling-volley.textproto" >"${tmp}/bad.textproto"
code=0
"${gunbai}" audit "${tmp}/bad.textproto" >/dev/null 2>"${tmp}/err" || code=$?
[[ ${code} -eq 2 ]] || fail "bad position: exit ${code}, want 2"
grep -qF 'starting_position.units[0] (id "oda-teppo"): stands is 9, more than the 6' \
  "${tmp}/err" || fail "bad position: $(cat "${tmp}/err")"
echo "ok: starting positions through the gunbai binary"
