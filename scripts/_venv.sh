# Sourced by scripts/run and scripts/test: makes .venv and installs the project into it, again only
# when pyproject.toml has changed since the last install. Needs nothing but python3 (3.11+).
# Usage: . scripts/_venv.sh run|test   ("test" includes the test dependencies). Always name one:
# a bare `.` would hand this file the caller's own arguments (scripts/run --port 9000).
set -euo pipefail
case "${1:-}" in
  run) extra="" ;;
  test) extra="test" ;;
  *) echo "scripts/_venv.sh: say 'run' or 'test'" >&2; exit 2 ;;
esac
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "Blitzboard needs Python 3.11 or newer as '$python' (set PYTHON=/path/to/python3.11 to choose one)." >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$python" -m venv .venv
fi
want="$("$python" -c 'import hashlib,sys; print(hashlib.sha256(open("pyproject.toml","rb").read()).hexdigest())')-${extra:-run}"
stamp=".venv/.installed-${extra:-run}"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "==> installing Blitzboard${extra:+ with its $extra dependencies} into .venv"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extra:+[$extra]}"
  echo "$want" > "$stamp"
fi
