#!/usr/bin/env bash
# Debian packages the test suite needs beyond Node (one per line below). Installs only the ones
# missing, so it is cheap to run before every test run; needs root (or sudo) only when something
# is missing.
set -euo pipefail

PACKAGES=(
  prometheus # promtool: checks the /metrics exposition in test/observability
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing Debian packages: ${missing[*]}"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
