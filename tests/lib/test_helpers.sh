# What the shell tests of the real binaries share; sourced, not run:
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_helpers.sh"

# fail MESSAGE...: says FAIL and ends the test.
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# ok MESSAGE...: one check passed.
ok() { echo "ok   $*"; }

# refuse WANT_TEXT CMD...: CMD must exit 2 with WANT_TEXT on its stderr
# (kept in refused.err of the current folder).
refuse() {
  local want=$1
  shift
  set +e
  "$@" > refused.out 2> refused.err
  local rc=$?
  set -e
  [[ ${rc} -eq 2 ]] || fail "$*: exit ${rc}, want 2"
  grep -qF -- "${want}" refused.err || fail "$*: stderr lacks '${want}': $(cat refused.err)"
  ok "refused: ${want}"
}

# same_report WHOLE WANT_RC OUT WHAT CMD...: CMD, its output kept in OUT,
# must exit WANT_RC and print exactly the file WHOLE (WHAT names it).
same_report() {
  local whole=$1 want_rc=$2 out=$3 what=$4
  shift 4
  set +e
  "$@" > "${out}"
  local rc=$?
  set -e
  [[ ${rc} -eq ${want_rc} ]] || fail "${what}: exit ${rc}, want ${want_rc}"
  cmp -s "${whole}" "${out}" || fail "${what} differs: $(diff "${whole}" "${out}" | head -10)"
  ok "${what} equal the unsharded report"
}
