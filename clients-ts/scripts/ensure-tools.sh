# Sourced by generate.sh and test.sh: puts the repo's own Node 24 first on PATH and makes sure the
# root node_modules hold the pinned tools (installed from package-lock.json when missing or stale).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PATH="$root/node_modules/.bin:$PATH"

installed_version() { # <package> -> the version in node_modules, or nothing
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$root/node_modules/$1/package.json" 2>/dev/null | head -n 1
}
if [ ! -x "$root/node_modules/.bin/node" ] || [ "$(installed_version @hey-api/openapi-ts)" != "0.99.0" ] \
  || [ "$(installed_version typescript)" != "5.9.3" ] || [ ! -x "$root/node_modules/.bin/vitest" ]; then
  echo "clients-ts: installing the pinned npm packages (npm ci)" >&2
  (cd "$root" && npm ci --no-audit --no-fund)
fi
