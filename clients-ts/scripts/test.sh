#!/usr/bin/env bash
# The TypeScript client's own suite: type-check clients-ts, check the publishable build compiles,
# then run its vitest suite against a live gateway started by test/support/live-gateway.ts.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/ensure-tools.sh"
cd "$root"
tsc -p clients-ts/tsconfig.json
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
tsc -p clients-ts/tsconfig.build.json --outDir "$build"
node test/support/live-gateway.ts -- vitest run --root clients-ts
