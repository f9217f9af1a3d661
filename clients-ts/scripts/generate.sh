#!/usr/bin/env bash
# spec/openapi.json -> clients-ts/src/gen/ with the pinned @hey-api/openapi-ts (0.99.0, from the
# root package.json), on the repo's Node 24. Deterministic: the whole folder is rewritten from the
# spec and the options in clients-ts/openapi-ts.config.ts, which carry no paths or timestamps.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/ensure-tools.sh"
cd "$root/clients-ts"
rm -rf src/gen
# JITI_FS_CACHE=false: loading the config leaves no cache under clients-ts/.
JITI_FS_CACHE=false openapi-ts --file openapi-ts.config.ts --silent
# Every generated file must carry the DO-NOT-EDIT header (set in openapi-ts.config.ts).
missing=$(grep -L '^// DO NOT EDIT' -r src/gen || true)
if [ -n "$missing" ]; then echo "clients-ts: generated files without the DO-NOT-EDIT header:"$'\n'"$missing" >&2; exit 1; fi
echo "clients-ts: src/gen/ generated from spec/openapi.json ($(find src/gen -type f | wc -l) files)"
