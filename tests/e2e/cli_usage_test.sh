#!/usr/bin/env bash
# The command lines of gunbai and gunbaid (CLI11): --help and -h for every
# command, --version, the usage mistakes of issue 12 (each a usage error on
# stderr with exit 2 that says what is wrong), the input errors that say what
# they are, --tls-ca on every client command and the message of a plaintext
# client at a TLS daemon, the man pages and bash completion written from the
# same definitions, and `cmake --install`.
# Usage: cli_usage_test.sh GUNBAID GUNBAI DATA_DIR BUILD_DIR
set -euo pipefail
gunbaid=$1 gunbai=$2 data=$3 build=$4
work=$(mktemp -d)
pid=""
cleanup() {
  [[ -n "${pid}" ]] && kill "${pid}" 2>/dev/null
  wait 2>/dev/null
  rm -rf "${work}"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
checks=0

# Runs the command after the expected code and the text stderr must hold
# (fixed string; "" for none); stdout goes to $work/out, stderr to $work/err.
expect() {
  local want=$1 text=$2
  shift 2
  set +e
  "$@" >"${work}/out" 2>"${work}/err"
  local code=$?
  set -e
  [[ ${code} -eq ${want} ]] ||
    fail "$* exited ${code}, want ${want}; stderr: $(cat "${work}/err")"
  if [[ -n "${text}" ]]; then
    grep -qF -- "${text}" "${work}/err" ||
      fail "$*: stderr lacks \"${text}\": $(cat "${work}/err")"
  fi
  checks=$((checks + 1))
}

log="${data}/anegawa-clean.textproto"  # audits clean: exit 0

# --help and -h for every command: exit 0, the command's own usage line on
# stdout (so not the global help), nothing on stderr.
for command in "" audit state ruleset dice diff verify explain generate \
  "game create" "game append" "game show" "game watch" "game export" \
  "game audit" game help completion man; do
  for flag in --help -h; do
    # shellcheck disable=SC2086
    expect 0 "" "${gunbai}" ${command} ${flag}
    grep -qF "Usage: gunbai${command:+ }${command} [OPTIONS]" "${work}/out" ||
      fail "gunbai ${command} ${flag}: no usage line of its own: $(head -3 "${work}/out")"
    [[ ! -s "${work}/err" ]] || fail "gunbai ${command} ${flag} wrote to stderr"
  done
done
# The examples are in the per-command help. (grep reads the whole help: with
# -q it would stop at the match and the help, still writing, die of SIGPIPE,
# which pipefail reports as a failure; it did once the audit help grew.)
"${gunbai}" audit --help | grep -F "Examples:" >/dev/null || fail "audit --help: no examples"
"${gunbai}" game create --help | grep -F -- "--dice={recorded,server}" >/dev/null ||
  fail "game create --help: no --dice values"
expect 0 "" "${gunbaid}" --help
grep -qF "Usage: gunbaid [OPTIONS]" "${work}/out" || fail "gunbaid --help: no usage"
grep -qF -- "--max-cached-games" "${work}/out" || fail "gunbaid --help: no overload flags"
expect 0 "" "${gunbaid}" -h

# --version on both: the version, each built-in ruleset's digest (as
# `gunbai ruleset --list` prints it), gRPC and protobuf.
for binary in "${gunbai}" "${gunbaid}"; do
  expect 0 "" "${binary}" --version
  grep -qE "^gunbaid? [0-9]+\.[0-9]+\.[0-9]+$" <(head -1 "${work}/out") ||
    fail "$(basename "${binary}") --version first line: $(head -1 "${work}/out")"
  grep -qE "^gRPC [0-9.]+, protobuf [0-9.]+" "${work}/out" ||
    fail "--version: no gRPC and protobuf versions: $(cat "${work}/out")"
  for digest in $("${gunbai}" ruleset --list | sed -n 's/^  sha256://p'); do
    grep -qF "sha256:${digest}" "${work}/out" || fail "--version lacks ${digest}"
  done
done

# Enumerated values: a typo is a usage error listing the valid values, before
# anything is sent (no daemon listens on port 1).
expect 2 'gunbai game create: --dice: "servre" is not a valid value; give recorded, server' \
  "${gunbai}" game create --server=127.0.0.1:1 --dice=servre "${log}"
expect 2 'give strict, record' \
  "${gunbai}" game create --server=127.0.0.1:1 --policy=recrod "${log}"
expect 2 'give text, json' "${gunbai}" audit --format=xml "${log}"
expect 2 'give auto, text, json, binary' "${gunbai}" audit --input-format=yaml "${log}"
expect 2 'give text, json, binary' "${gunbai}" generate --format=csv
expect 2 'give text, json, textproto' "${gunbai}" ruleset --format=yaml
# --server= (empty) is a usage error, not a local audit.
expect 2 "--server= gives an empty value" "${gunbai}" audit --server= "${log}"
[[ ! -s "${work}/out" ]] || fail "audit --server= printed a report"
expect 2 "has no port" "${gunbai}" dice --server=localhost "${log}"
# Unknown commands and options, missing arguments, numbers out of range.
expect 2 'gunbai: unknown command "audti"; the commands are audit, state' "${gunbai}" audti "${log}"
expect 2 'gunbai game: unknown command "crate"; the commands are create, append' \
  "${gunbai}" game crate "${log}"
expect 2 "--bogus" "${gunbai}" audit --bogus "${log}"
expect 2 "LOG is required" "${gunbai}" audit
expect 2 "--game is required" "${gunbai}" game show --server=127.0.0.1:1
expect 2 "--units" "${gunbai}" generate --units=0
expect 2 "--at" "${gunbai}" state --at=-1 "${log}"
expect 2 "--max-watchers" "${gunbaid}" --max-watchers=0
expect 2 "--listen" "${gunbaid}" --listen=nowhere
expect 2 "" "${gunbai}"  # no command: the help on stdout, exit 2
grep -qF "Usage: gunbai [OPTIONS] SUBCOMMAND" "${work}/out" || fail "bare gunbai: no help"

# verify --head: a malformed hash is a usage error; a 12-digit prefix (as
# `game watch` prints) is looked up in the chain.
sed '/^events/,$d' "${data}/anegawa-clean.textproto" >"${work}/armies.textproto"
expect 2 'is not a head hash' "${gunbai}" verify --head=xyz "${log}"
expect 2 'is not a head hash' "${gunbai}" verify --head=sha256:12ab "${log}"

# Input errors say what they are.
expect 2 "${work}: is a folder, not a file" "${gunbai}" audit "${work}"
: >"${work}/empty.textproto"
expect 2 "${work}/empty.textproto: the file is empty" "${gunbai}" audit "${work}/empty.textproto"
# A UTF-8 byte-order mark is skipped: the same report as without it.
printf '\xef\xbb\xbf' | cat - "${log}" >"${work}/bom.textproto"
expect 0 "" "${gunbai}" audit "${log}"
cp "${work}/out" "${work}/plain.out"
expect 0 "" "${gunbai}" audit "${work}/bom.textproto"
cmp -s "${work}/out" "${work}/plain.out" || fail "a BOM changes the report"
# A JSON type error names its line and column: the key of events[1].seq is
# on line 5, after 4 spaces and the brace, so at column 6.
printf '{\n  "header": {"game_id": "a"},\n  "events": [\n    {"seq": 1},\n    {"seq": "abc"}\n  ]\n}\n' >"${work}/bad.json"
expect 2 "bad.json:5:6: (events[1].seq): invalid value \"abc\"" "${gunbai}" audit "${work}/bad.json"

# TLS: every client command takes --tls-ca; a plaintext client at a TLS
# daemon is told so (the certificates as tls_test.sh makes them).
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "${work}/key.pem" -out "${work}/cert.pem" 2>/dev/null
echo "usage-umpire-token-0123456789" >"${work}/umpire.tok"
"${gunbaid}" --listen 127.0.0.1:0 --tls-cert "${work}/cert.pem" \
  --tls-key "${work}/key.pem" --umpire-token-file "${work}/umpire.tok" \
  --data-dir "${work}/d" >"${work}/daemon.out" 2>"${work}/daemon.err" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "${work}/daemon.out" && break; sleep 0.1; done
port=$(sed -n 's/^gunbaid listening on 127.0.0.1://p' "${work}/daemon.out")
[[ -n "${port}" ]] || fail "gunbaid did not start: $(cat "${work}/daemon.err")"
server="127.0.0.1:${port}"
tls_said="the daemon at ${server} speaks TLS: give --tls-ca=FILE"
expect 0 "" "${gunbai}" audit --server="${server}" --tls-ca="${work}/cert.pem" "${log}"
cmp -s "${work}/out" "${work}/plain.out" || fail "audit over TLS differs from the local audit"
expect 3 "${tls_said}" "${gunbai}" audit --server="${server}" "${log}"
expect 0 "" "${gunbai}" dice --server="${server}" --tls-ca="${work}/cert.pem" "${log}"
expect 3 "${tls_said}" "${gunbai}" dice --server="${server}" "${log}"
export GUNBAI_TOKEN
GUNBAI_TOKEN=$(cat "${work}/umpire.tok")
expect 3 "${tls_said}" "${gunbai}" game show --server="${server}" --game=x
expect 0 "" "${gunbai}" game create --server="${server}" --tls-ca="${work}/cert.pem" \
  "${work}/armies.textproto"
expect 0 "" "${gunbai}" game export --server="${server}" --tls-ca="${work}/cert.pem" \
  --game=anegawa-clean
cp "${work}/out" "${work}/export.textproto"
head=$(sed -n 's/^chain_hashes: "\(.*\)"$/\1/p' "${work}/export.textproto" | tail -1)
if [[ -z "${head}" ]]; then  # no events yet: the genesis is the head
  expect 0 "" "${gunbai}" verify "${work}/export.textproto"
  head=$(sed -n 's/^ok: .* chain head \([0-9a-f]*\);.*/\1/p' "${work}/out")
fi
[[ ${#head} -eq 64 ]] || fail "no head hash in the export: $(cat "${work}/out")"
expect 0 "" "${gunbai}" verify --head="${head:0:12}" "${work}/export.textproto"
expect 0 "" "${gunbai}" verify --head="sha256:${head}" "${work}/export.textproto"
expect 1 "" "${gunbai}" verify --head=000000000000 "${work}/export.textproto"
grep -qF "TAMPERED: the head sha256:000000000000" "${work}/out" || fail "verify: $(cat "${work}/out")"
expect 0 "" "${gunbai}" diff --server="${server}" --tls-ca="${work}/cert.pem" \
  --new-ruleset=builtin --quiet "${log}"

# The man pages and bash completion, from the same definitions.
expect 0 "" "${gunbai}" man
grep -q '^\.TH GUNBAI 1' "${work}/out" || fail "gunbai man: no .TH"
grep -qF 'gunbai game create' "${work}/out" || fail "gunbai man: no game create"
[[ "$(grep -A1 '^\.SH NAME' "${work}/out" | tail -1)" == \
  'gunbai \- replay a wargame battle log and audit it against the rules' ]] ||
  fail "gunbai man: NAME is not one line: $(grep -A1 '^\.SH NAME' "${work}/out")"
grep -qF -- '\-\-impact=' "${work}/out" && fail "gunbai man: a flag shown taking a value"
grep -qF -- '\-\-dice={recorded,server}' "${work}/out" || fail "gunbai man: no --dice values"
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "${work}/out" 2>"${work}/groff.err" || fail "groff failed"
fi
expect 0 "" "${gunbaid}" --man
grep -q '^\.TH GUNBAID 8' "${work}/out" || fail "gunbaid --man: no .TH"
expect 0 "" "${gunbai}" completion bash
cp "${work}/out" "${work}/gunbai.bash"
bash -n "${work}/gunbai.bash" || fail "the completion script does not parse"
# Complete `gunbai game create --dice=s` and `gunbai ga` in a bash that
# sourced it.
completed=$(bash -c 'source "$1"; COMP_WORDS=(gunbai game create --dice=s);
  COMP_CWORD=3; _gunbai; echo "${COMPREPLY[*]}"' _ "${work}/gunbai.bash")
[[ "${completed}" == "--dice=server" ]] || fail "completion of --dice=s: ${completed}"
completed=$(bash -c 'source "$1"; COMP_WORDS=(gunbai ga); COMP_CWORD=1; _gunbai;
  echo "${COMPREPLY[*]}"' _ "${work}/gunbai.bash")
[[ "${completed}" == "game" ]] || fail "completion of ga: ${completed}"
# A flag completes without "=", an option taking a value with it.
completed=$(bash -c 'source "$1"; COMP_WORDS=(gunbai audit --imp); COMP_CWORD=2;
  _gunbai; echo "${COMPREPLY[*]}"' _ "${work}/gunbai.bash")
[[ "${completed}" == "--impact" ]] || fail "completion of --imp: ${completed}"
completed=$(bash -c 'source "$1"; COMP_WORDS=(gunbai audit --tls); COMP_CWORD=2;
  _gunbai; echo "${COMPREPLY[*]}"' _ "${work}/gunbai.bash")
[[ "${completed}" == "--tls-ca=" ]] || fail "completion of --tls: ${completed}"
expect 0 "" "${gunbaid}" --bash-completion
bash -n "${work}/out" || fail "gunbaid's completion script does not parse"

# cmake --install puts the binaries, man pages and completion in place.
cmake --install "${build}" --prefix "${work}/prefix" >/dev/null ||
  fail "cmake --install failed"
for f in bin/gunbai bin/gunbaid share/man/man1/gunbai.1 share/man/man8/gunbaid.8 \
  share/bash-completion/completions/gunbai share/bash-completion/completions/gunbaid; do
  [[ -s "${work}/prefix/${f}" ]] || fail "cmake --install did not write ${f}"
done
"${work}/prefix/bin/gunbai" --version >/dev/null || fail "the installed gunbai does not run"
cmp -s "${work}/prefix/share/bash-completion/completions/gunbai" "${work}/gunbai.bash" ||
  fail "the installed completion is not what gunbai completion bash prints"
echo "cli_usage_test: ${checks} checks passed"
