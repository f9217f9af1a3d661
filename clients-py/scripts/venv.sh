# Sourced by generate.sh and test.sh: makes sure $VENV holds exactly the tools pinned in requirements-dev.txt.
# Sets HERE (clients-py/), ROOT (the repository) and VENV (clients-py/.venv unless CLIENTS_PY_VENV names another).
# Fast when nothing changed: it reinstalls only when requirements-dev.txt or the Python version differ from
# what the venv was made with.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
VENV="${CLIENTS_PY_VENV:-$HERE/.venv}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

ensure_venv() {
  local python="${PYTHON:-python3}"
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "clients-py: $python not found (Python 3.11 or newer is needed)" >&2
    return 1
  fi
  if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
    echo "clients-py: $("$python" --version 2>&1) is too old (3.11 or newer is needed)" >&2
    return 1
  fi
  local want
  want="$("$python" -c 'import sys; print("python %d.%d" % sys.version_info[:2])') $(sha256sum "$HERE/requirements-dev.txt" | cut -d' ' -f1)"
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.clients-py-stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
    rm -rf "$VENV"
    "$python" -m venv "$VENV"
  fi
  echo "clients-py: installing the pinned tools into ${VENV#"$ROOT"/}" >&2
  "$VENV/bin/python" -m pip install -q -r "$HERE/requirements-dev.txt"
  "$VENV/bin/python" -m pip check >/dev/null
  echo "$want" > "$VENV/.clients-py-stamp"
}
