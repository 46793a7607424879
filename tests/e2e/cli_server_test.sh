#!/usr/bin/env bash
# Checks that `gunbai audit --server` prints byte for byte what a local
# `gunbai audit` prints, with the same exit code, for every golden log in
# the data directory (NAME.textproto with NAME.expected.txt beside it) and
# the Samurai Knight Fever sample, plainly and with --impact.
#
# Usage: cli_server_test.sh GUNBAID GUNBAI DATA_DIR
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 GUNBAID GUNBAI DATA_DIR" >&2
  exit 2
fi
gunbaid=$1
gunbai=$2
data_dir=$3

shopt -s nullglob
logs=()
for expected in "${data_dir}"/*.expected.txt; do
  log="${expected%.expected.txt}.textproto"
  [[ -f "${log}" ]] && logs+=("${log}")
done
# A Samurai Knight Fever log: the daemon must choose its ruleset by the
# header, as the CLI does.
logs+=("${data_dir}/skf-kawanakajima.textproto")
if [[ ${#logs[@]} -eq 0 ]]; then
  echo "SKIP: no golden logs (NAME.textproto with NAME.expected.txt) in" \
    "${data_dir} yet."
  exit 0
fi

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

"${gunbaid}" --listen 127.0.0.1:0 >"${work}/daemon.out" 2>"${work}/daemon.err" &
daemon_pid=$!

# Wait up to 15 s for "gunbaid listening on 127.0.0.1:PORT".
port=""
for _ in $(seq 150); do
  line=$(head -n 1 "${work}/daemon.out" 2>/dev/null || true)
  if [[ "${line}" =~ ^gunbaid\ listening\ on\ 127\.0\.0\.1:([0-9]+)$ ]]; then
    port=${BASH_REMATCH[1]}
    break
  fi
  if ! kill -0 "${daemon_pid}" 2>/dev/null; then break; fi
  sleep 0.1
done
if [[ -z "${port}" ]]; then
  echo "FAIL: gunbaid did not report its port; stderr:" >&2
  cat "${work}/daemon.err" >&2
  exit 1
fi

failures=0
# Each log plainly, and with --impact (the daemon replays the corrected
# branches too).
for run in "${logs[@]}" "${logs[@]/%/ --impact}"; do
  log=${run% --impact}
  flags=()
  name=$(basename "${log}" .textproto)
  if [[ "${run}" == *" --impact" ]]; then
    flags=(--impact)
    name+="-impact"
  fi
  set +e
  "${gunbai}" audit "${flags[@]}" --server "127.0.0.1:${port}" "${log}" \
    >"${work}/${name}.server.out" 2>"${work}/${name}.server.err"
  server_rc=$?
  "${gunbai}" audit "${flags[@]}" "${log}" \
    >"${work}/${name}.local.out" 2>"${work}/${name}.local.err"
  local_rc=$?
  set -e
  if [[ ${server_rc} -ne ${local_rc} ]]; then
    echo "FAIL ${name}: exit code ${server_rc} through the server," \
      "${local_rc} locally." >&2
    cat "${work}/${name}.server.err" >&2
    failures=$((failures + 1))
  elif ! cmp -s "${work}/${name}.server.out" "${work}/${name}.local.out"; then
    echo "FAIL ${name}: the server's report differs from the local one:" >&2
    diff "${work}/${name}.local.out" "${work}/${name}.server.out" >&2 || true
    failures=$((failures + 1))
  else
    echo "ok   ${name} (exit ${local_rc})"
  fi
done

# The HTML page (--format=html --impact): the daemon's report drawn here is
# the same page, byte for byte, as the local one.
for log in "${logs[@]}"; do
  name=$(basename "${log}" .textproto)-html
  set +e
  "${gunbai}" audit --format=html --impact --server "127.0.0.1:${port}" \
    "${log}" >"${work}/${name}.server.out" 2>"${work}/${name}.server.err"
  server_rc=$?
  "${gunbai}" audit --format=html --impact "${log}" \
    >"${work}/${name}.local.out" 2>"${work}/${name}.local.err"
  local_rc=$?
  set -e
  if [[ ${server_rc} -ne ${local_rc} ]] ||
    ! cmp -s "${work}/${name}.server.out" "${work}/${name}.local.out"; then
    echo "FAIL ${name}: exit ${server_rc} and a page through the server," \
      "exit ${local_rc} locally, the pages differ or not:" >&2
    cat "${work}/${name}.server.err" >&2
    failures=$((failures + 1))
  else
    echo "ok   ${name} (exit ${local_rc})"
  fi
done

# Generated battles with planted faults (gunbai generate --faults), in
# binary, through the daemon's AuditLogStream in pieces (one has over a MiB
# of outcomes, so more than one piece of them): the same text and JSON,
# with --outcomes and --impact, as the local audit.
generated=0
for spec in "3 12 4 6" "17 200 10 12"; do
  read -r seed units faults turns <<<"${spec}"
  log="${work}/generated-${seed}.pb"
  "${gunbai}" generate --seed "${seed}" --units "${units}" \
    --faults "${faults}" --turns "${turns}" --format binary >"${log}" \
    2>"${work}/generated-${seed}.faults"
  for flags in "--impact" "--outcomes --impact" \
      "--format=json --outcomes --impact" "--format=json"; do
    name="generated-${seed}${flags// /}"
    set +e
    # shellcheck disable=SC2086
    "${gunbai}" audit ${flags} --server "127.0.0.1:${port}" "${log}" \
      >"${work}/${name}.server.out" 2>"${work}/${name}.server.err"
    server_rc=$?
    # shellcheck disable=SC2086
    "${gunbai}" audit ${flags} "${log}" \
      >"${work}/${name}.local.out" 2>"${work}/${name}.local.err"
    local_rc=$?
    set -e
    if [[ ${server_rc} -ne ${local_rc} ]] ||
        ! cmp -s "${work}/${name}.server.out" "${work}/${name}.local.out"; then
      echo "FAIL ${name}: exit ${server_rc} through the server, ${local_rc}" \
        "locally, or the reports differ" >&2
      cat "${work}/${name}.server.err" >&2
      failures=$((failures + 1))
    else
      echo "ok   ${name} (exit ${local_rc})"
    fi
    generated=$((generated + 1))
  done
done
# The faults make findings and disputes: the reports compared are not
# empty (exit 1, findings, for each).
if ! grep -q '"impacts"' "${work}/generated-17--format=json--outcomes--impact.local.out"; then
  echo "FAIL: the generated battle's JSON report has no impacts" >&2
  failures=$((failures + 1))
fi

# The impact the daemon worked out is there (tests/data/README.md: seq 8 of
# nagashino-melee, corrected, ends the comparison at seq 11).
if ! grep -q "^What if seq 8 had gone as computed" "${work}/nagashino-melee-impact.server.out"; then
  echo "FAIL: no impact of seq 8 in the daemon's nagashino-melee report" >&2
  failures=$((failures + 1))
fi

kill -TERM "${daemon_pid}"
set +e
wait "${daemon_pid}"
daemon_rc=$?
set -e
daemon_pid=""
if [[ ${daemon_rc} -ne 0 ]]; then
  echo "FAIL: gunbaid exited ${daemon_rc} after SIGTERM." >&2
  failures=$((failures + 1))
fi

if [[ ${failures} -ne 0 ]]; then
  echo "${failures} failure(s)." >&2
  exit 1
fi
echo "All ${#logs[@]} golden logs audit the same through gunbaid, with and without --impact,"
echo "and ${generated} audits of generated battles with faults."
