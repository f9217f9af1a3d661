#!/usr/bin/env bash
# Runs the Python admin client's own suite (clients-py/tests, pytest) against a live gateway started by
# test/support/live-gateway.ts. Installs the pinned tools (requirements-dev.txt) and the generated package
# (built from clients-py/ as a user would install it) into the venv first. Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
ensure_venv

node="$ROOT/node_modules/.bin/node"
if [ ! -x "$node" ]; then
  echo "clients-py: $node is missing: run 'make install' first" >&2
  exit 1
fi

# A regular (not editable) install of clients-py/, so the suite tests the built package; no build isolation, so
# the pinned pdm-backend from the venv is used and nothing is fetched; no deps, they are pinned in the venv.
export PYTHONDONTWRITEBYTECODE=1
"$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation --force-reinstall "$HERE"
# pdm-backend leaves its build folder beside the sources; the tree must stay as git has it.
rm -rf "$HERE/.pdm-build"

cd "$ROOT"
status=0
"$node" "$ROOT/test/support/live-gateway.ts" -- "$VENV/bin/python" -m pytest -q clients-py/tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "clients-py: pytest collected no tests" >&2
fi
exit "$status"
