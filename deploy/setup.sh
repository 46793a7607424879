#!/usr/bin/env bash
# Installs every Debian 12 package gunbai needs to build, test and run.
# Idempotent: installs only what is missing. Run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev sqlite3 libssl-dev openssl
  libcli11-dev  # header-only flags library for gunbai and gunbaid (CLI11 2.1)
  libcpp-httplib-dev  # gunbaid's HTTP front door (--http): cpp-httplib 0.11, with OpenSSL
  clang libclang-rt-14-dev
  ccache  # optional: -DCMAKE_CXX_COMPILER_LAUNCHER=ccache for quicker rebuilds
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
