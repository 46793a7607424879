#!/usr/bin/env bash
# Lints proto/ with buf (the @bufbuild/buf npm package) and its default
# (STANDARD) rules. Installs buf into .cache/buf on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.cache/buf
if [ ! -x "$dir/node_modules/.bin/buf" ]; then
  if ! command -v npm >/dev/null; then
    echo "lint-proto: npm is not installed; skipping buf lint" >&2
    exit 0
  fi
  mkdir -p "$dir"
  if ! npm install --prefix "$dir" --no-save --no-audit --no-fund \
      @bufbuild/buf@1 >/dev/null 2>&1; then
    echo "lint-proto: could not install @bufbuild/buf from npm; skipping" >&2
    exit 0
  fi
fi
(cd proto && "../$dir/node_modules/.bin/buf" lint)
echo "lint-proto: buf lint passed"
