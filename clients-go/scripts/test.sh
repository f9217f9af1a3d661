#!/usr/bin/env bash
# Runs the Go admin client's own test suite (go test) against a live gateway started by
# test/support/live-gateway.ts, which passes GATEWAY_ENDPOINT, GATEWAY_ADMIN_TOKEN and GATEWAY_DATA_URL.
# Modules come from the Go module proxy at the versions go.mod and go.sum pin (no vendoring).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/.." && pwd))"

if ! command -v go >/dev/null 2>&1; then
  echo "clients-go: the Go toolchain (Go 1.25 or newer) is required and 'go' is not on PATH" >&2
  exit 1
fi
node="$root/node_modules/.bin/node"
if [ ! -x "$node" ]; then
  make -C "$root" install
fi

cd "$here"
# -count=1: never report a cached result; every run talks to a fresh gateway.
exec "$node" "$root/test/support/live-gateway.ts" -- go test -count=1 -v ./...
