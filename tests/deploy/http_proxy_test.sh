#!/usr/bin/env bash
# The reverse proxy of deploy/k8s/http-proxy.yaml, run for real: its very
# nginx.conf (taken from the manifest's ConfigMap, only its addresses and
# paths changed to local ones) in front of a real gunbaid over TLS, as in
# the cluster. Checks, each from the manifest's settings:
#  - the web page and an API call pass through, with gunbaid's headers;
#  - a stream (audit:logStream) arrives whole, unbuffered, ending in `end`;
#  - a Content-Length over client_max_body_size (64 MiB) is 413 at once,
#    from nginx, no body sent;
#  - header lines past large_client_header_buffers (4 x 8 KiB) are 400
#    from nginx; gunbaid answers as before.
#
# Usage: http_proxy_test.sh GUNBAI GUNBAID SOURCE_DIR
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 GUNBAI GUNBAID SOURCE_DIR" >&2
  exit 2
fi
gunbai=$1
gunbaid=$2
src=$3
command -v nginx >/dev/null || {
  echo "FAIL: no nginx: run deploy/setup.sh (it installs nginx-light)" >&2
  exit 1
}
work=$(mktemp -d -t gunbai-proxy.XXXXXX)
chmod 0755 "${work}"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "${pid}" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "${work}"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  [[ -f "${work}/nginx.err" ]] && sed 's/^/nginx: /' "${work}/nginx.err" >&2
  exit 1
}
ok() { echo "ok   $*"; }
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# One certificate for both hops, as the manifest's two Secrets would be.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -days 2 -subj /CN=gunbaid.gunbai.svc \
  -addext "subjectAltName=DNS:gunbaid.gunbai.svc,IP:127.0.0.1" \
  -keyout "${work}/tls.key" -out "${work}/tls.crt" 2>/dev/null

"${gunbaid}" --listen=127.0.0.1:0 --http=127.0.0.1:0 \
  --tls-cert="${work}/tls.crt" --tls-key="${work}/tls.key" \
  --data-dir="${work}/data" >"${work}/gunbaid.out" 2>"${work}/gunbaid.err" &
pids+=($!)
for _ in $(seq 100); do
  grep -q "serving HTTP on" "${work}/gunbaid.out" && break
  sleep 0.1
done
http_port=$(sed -n 's/^gunbaid serving HTTP on 127.0.0.1://p' "${work}/gunbaid.out")
[[ -n "${http_port}" ]] || fail "gunbaid did not start: $(cat "${work}/gunbaid.err")"

# The manifest's nginx.conf, with local addresses and paths.
python3 - "${src}/deploy/k8s/http-proxy.yaml" >"${work}/manifest.conf" <<'PY'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc.get("kind") == "ConfigMap":
        sys.stdout.write(doc["data"]["nginx.conf"])
PY
proxy_port=$(free_port)
mkdir -m 0777 "${work}/nginx"
# (/tmp/ first: the paths put in after it are under /tmp too.)
sed -e "s#/tmp/#${work}/nginx/#g" \
  -e "s#/etc/nginx/tls/#${work}/#g" -e "s#/etc/nginx/upstream/#${work}/#g" \
  -e "s#server gunbaid.gunbai.svc:8080;#server 127.0.0.1:${http_port};#" \
  -e "s#listen 8443 ssl;#listen 127.0.0.1:${proxy_port} ssl;#" \
  "${work}/manifest.conf" >"${work}/nginx.conf"
if grep -qE '/etc/nginx|gunbaid.gunbai.svc:8080|listen 8443|[[:space:]]/tmp/[a-z_]+(;|\.pid)' \
  "${work}/nginx.conf" ||
  ! grep -q "server 127.0.0.1:${http_port};" "${work}/nginx.conf" ||
  ! grep -q "listen 127.0.0.1:${proxy_port} ssl;" "${work}/nginx.conf"; then
  fail "the manifest's nginx.conf changed: a path or address this test rewrites is gone"
fi
nginx -t -q -p "${work}/nginx" -c "${work}/nginx.conf" -e "${work}/nginx.err" \
  2>>"${work}/nginx.err" || fail "nginx -t refuses the manifest's nginx.conf"
ok "nginx -t takes the manifest's nginx.conf"
nginx -p "${work}/nginx" -c "${work}/nginx.conf" -e "${work}/nginx.err" \
  -g "daemon off;" 2>>"${work}/nginx.err" &
pids+=($!)
base="https://127.0.0.1:${proxy_port}"
curl_=(curl -sS --cacert "${work}/tls.crt" --max-time 20)
for _ in $(seq 100); do
  "${curl_[@]}" -o /dev/null "${base}/livez" 2>/dev/null && break
  sleep 0.1
done

# The page, with gunbaid's own headers.
"${curl_[@]}" -D "${work}/page.head" -o "${work}/page.html" "${base}/" ||
  fail "GET / through the proxy"
grep -q "^HTTP/1.1 200" "${work}/page.head" || fail "GET /: $(head -1 "${work}/page.head")"
grep -qi "^content-security-policy: default-src 'self'" "${work}/page.head" ||
  fail "GET / lost gunbaid's Content-Security-Policy"
ok "GET / through nginx: 200 with gunbaid's headers"

# An API call, and a stream.
"${gunbai}" generate --seed=7 --turns=2 --format=json -o "${work}/game.json"
printf '{"log": %s}' "$(cat "${work}/game.json")" >"${work}/audit.json"
status=$("${curl_[@]}" -o "${work}/audit.out" -w '%{http_code}' \
  -H 'Content-Type: application/json' --data-binary @"${work}/audit.json" \
  "${base}/v1/audit:log")
[[ "${status}" == 200 ]] || fail "audit:log: ${status} $(head -c 300 "${work}/audit.out")"
grep -q '"report"' "${work}/audit.out" || fail "audit:log answered no report"
ok "POST /v1/audit:log through nginx: 200 with a report"
"${curl_[@]}" -N -o "${work}/stream.out" -H 'Content-Type: application/json' \
  --data-binary @"${work}/audit.json" "${base}/v1/audit:logStream" ||
  fail "audit:logStream through the proxy"
tail -c 200 "${work}/stream.out" | grep -q "^event: end" ||
  fail "the stream did not end with event: end: $(tail -c 300 "${work}/stream.out")"
events=$(grep -c '^data: ' "${work}/stream.out")
ok "POST /v1/audit:logStream through nginx: ${events} events, then end"

# Refusals at the edge.
python3 - "${proxy_port}" "${work}/tls.crt" <<'PY' || fail "nginx's refusals"
import socket, ssl, sys, time
port, ca = int(sys.argv[1]), sys.argv[2]
context = ssl.create_default_context(cafile=ca)
def ask(head, wait=5.0):
    raw = socket.create_connection(("127.0.0.1", port), timeout=wait)
    s = context.wrap_socket(raw, server_hostname="127.0.0.1")
    start = time.monotonic()
    s.sendall(head)
    got = b""
    try:
        while b"\r\n\r\n" not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except (socket.timeout, ssl.SSLError, ConnectionError):
        pass
    s.close()
    return got.split(b"\r\n", 1)[0].decode(errors="replace"), time.monotonic() - start
line, took = ask(b"POST /v1/audit:log HTTP/1.1\r\nHost: g\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n")
assert " 413 " in line and took < 2, (line, took)
print(f"ok   Content-Length 100000000 through nginx: {line} in {took:.2f} s")
head = b"GET / HTTP/1.1\r\nHost: g\r\n" + b"".join(
    b"X-Flood-%d: %s\r\n" % (i, b"f" * 9000) for i in range(5)) + b"\r\n"
line, took = ask(head)
assert " 400 " in line, line
print(f"ok   5 header lines of 9 KB through nginx: {line}")
PY
"${curl_[@]}" -o /dev/null "${base}/livez" || fail "gunbaid no longer answers through nginx"
ok "gunbaid answers through nginx after the refusals"
