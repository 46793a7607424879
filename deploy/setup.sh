#!/usr/bin/env bash
# Installs every Debian 12 package gunbai needs to build, test and run, and
# the browser tests' npm driver (tests/browser).
# Idempotent: installs only what is missing. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev sqlite3 libssl-dev openssl
  libcli11-dev  # header-only flags library for gunbai and gunbaid (CLI11 2.1)
  libboost1.81-dev  # gunbaid's HTTP front door (--http): Boost.Beast and Asio, header-only, event-driven
  libcpp-httplib-dev  # the tests' HTTP client: cpp-httplib 0.11, with OpenSSL
  clang libclang-rt-14-dev
  ccache  # optional: -DCMAKE_CXX_COMPILER_LAUNCHER=ccache for quicker rebuilds
  chromium  # the browser tests (tests/browser): headless, /usr/bin/chromium
  libpq-dev  # the PostgreSQL event store (gunbaid --store=postgresql://...)
  prometheus-cpp-dev  # gunbaid's GET /metrics: prometheus-cpp 1.0, its core library (registry, text serializer)
  postgresql  # its tests: initdb and a server in a temporary directory (tests/store)
  python3-kubernetes  # tests/deploy: the Kubernetes API's types, to validate deploy/k8s offline
  python3-cryptography  # tests/replay/key_cli_test.sh: an independent Ed25519 and C2SP signed-note check of gunbai key
  librsvg2-bin libpng-dev  # the map tests (tests/map): rsvg-convert renders gunbai map's SVG, libpng reads its pixels
  nginx-light  # tests/deploy/http_proxy_test.sh runs deploy/k8s/http-proxy.yaml's nginx.conf (never started as a service here)
)
# Node.js and npm for the browser tests' driver: Debian's, unless a node and
# an npm are already there (another build of Node.js conflicts with them).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # No package may start a service (nginx's would take port 80): a
  # policy-rc.d saying so for the install, unless the machine has one.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 0755 "$policy"
  fi
  status=0
  { $SUDO apt-get update -qq &&
      $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } ||
    status=$?
  [ -z "$policy" ] || $SUDO rm -f "$policy"
  [ "$status" -eq 0 ] || exit "$status"
fi

# The browser tests' driver, puppeteer-core, as tests/browser/package-lock.json
# pins it (it downloads no browser: the tests use Debian's chromium). `npm ci`
# only when the lock file changed since the last install.
browser_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
stamp="$browser_dir/node_modules/.gunbai-lock-sha256"
want="$(sha256sum "$browser_dir/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "setup: tests/browser node modules already installed"
else
  echo "setup: npm ci in tests/browser"
  (cd "$browser_dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund \
    --loglevel=error)
  echo "$want" > "$stamp"
fi
