#!/usr/bin/env bash
# Debian packages the test suite needs beyond npm (make test runs this first; safe to run again):
# each missing one is installed with apt-get, present ones are skipped. One package per line.
# With arguments, those packages instead (the bench asks for its load generator: `system-packages.sh wrk`).
set -euo pipefail

PACKAGES=(
  chromium   # headless browser for the sign-in page test (test/auth/sign-in-browser.test.ts)
  prometheus # promtool: checks the /metrics exposition in test/observability
  podman     # builds deploy/container/Containerfile in test/deploy/container-image.test.ts
  ca-certificates # the CA bundle the container image carries (build/container-context.ts)
  systemd    # systemd-analyze verify/security for deploy/systemd/gateway.service (test/deploy)
  sqlite3    # the read-only reader beside a serving gateway (test/e2e/store-single-writer.test.ts)
  postgresql # initdb/pg_ctl: a real PostgreSQL for the shared governance store (test/support/postgres.ts)
)
if [ "$#" -gt 0 ]; then PACKAGES=("$@"); fi

missing=()
for package in "${PACKAGES[@]}"; do
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    continue
  fi
  missing+=("$package")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "system packages present: ${PACKAGES[*]}"
  exit 0
fi

echo "installing system packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
