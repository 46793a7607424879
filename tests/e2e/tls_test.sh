#!/usr/bin/env bash
# gunbaid over TLS: a self-signed certificate made here, a real gunbaid on a
# free port, the gunbai CLI with --tls-ca. Also: plaintext is refused on a
# non-loopback address, and a plaintext client cannot talk to a TLS daemon.
# Usage: tls_test.sh GUNBAID GUNBAI DATA_DIR
set -euo pipefail
gunbaid=$1 gunbai=$2 data=$3
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
echo "tls-umpire-token-0123456789" > "$work/umpire.tok"
sed '/^events/,$d' "$data/anegawa-clean.textproto" > "$work/armies.textproto"

# Plaintext on a non-loopback address is refused (exit 2) before listening.
set +e
"$gunbaid" --listen 0.0.0.0:0 --umpire-token-file "$work/umpire.tok" \
  --data-dir "$work/d0" >/dev/null 2>"$work/err0"
code=$?
set -e
[ "$code" -eq 2 ] || fail "plaintext on 0.0.0.0 exited $code, want 2"
grep -q "only on loopback" "$work/err0" || fail "no loopback explanation: $(cat "$work/err0")"

"$gunbaid" --listen 127.0.0.1:0 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" \
  --umpire-token-file "$work/umpire.tok" --data-dir "$work/d1" \
  >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.1; done
port=$(sed -n 's/^gunbaid listening on 127.0.0.1://p' "$work/out")
[ -n "$port" ] || fail "gunbaid did not start: $(cat "$work/err")"

export GUNBAI_TOKEN
GUNBAI_TOKEN=$(cat "$work/umpire.tok")
"$gunbai" game create --server="127.0.0.1:$port" --tls-ca="$work/cert.pem" \
  "$work/armies.textproto" >"$work/created" || fail "create over TLS failed"
grep -q "^game anegawa-clean$" "$work/created" || fail "unexpected: $(cat "$work/created")"

# A plaintext client cannot talk to the TLS daemon: unreachable, exit 3.
set +e
"$gunbai" game show --server="127.0.0.1:$port" --game=anegawa-clean >/dev/null 2>&1
code=$?
set -e
[ "$code" -eq 3 ] || fail "plaintext client against TLS exited $code, want 3"

# The credential is still checked over TLS: a wrong token is refused.
set +e
GUNBAI_TOKEN=wrong-token-wrong-token "$gunbai" game show --server="127.0.0.1:$port" \
  --tls-ca="$work/cert.pem" --game=anegawa-clean >/dev/null 2>"$work/err2"
code=$?
set -e
[ "$code" -eq 2 ] || fail "wrong token over TLS exited $code, want 2: $(cat "$work/err2")"
grep -qi "credential" "$work/err2" || fail "no credential message: $(cat "$work/err2")"
echo "tls_test: 4 checks passed"
