#!/usr/bin/env bash
# Run the smoke tests (pytest -m smoke) of ONE wheel against several protobuf
# runtimes, each in its own fresh venv: the oldest supported (5.26.1), the newest
# 5.x (the first with datetime/dict conversion is 5.28), the newest 6.x and the
# newest 7.x, spread over Python 3.10-3.13 where pyenv has them (else python3).
# Exit status is non-zero if any cell fails.
#
#   bash scripts/runtime_matrix.sh            # the default matrix
#   bash scripts/runtime_matrix.sh "3.12:protobuf==5.29.6"   # chosen cells
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CELLS=("$@")
if [ ${#CELLS[@]} -eq 0 ]; then
  CELLS=("3.10:protobuf==5.26.1" "3.12:protobuf>=5.28,<6" "3.11:protobuf>=6,<7"
         "3.13:protobuf>=7,<8")
fi

# A given Python minor from pyenv if present, else the default python3.
python_for() {
  local minor="$1" found
  found="$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$minor".*/bin/python3 2>/dev/null | sort -V | tail -1 || true)"
  if [ -n "$found" ]; then echo "$found"; else command -v python3; fi
}

echo "== building one wheel"
python3 -m pip wheel --no-deps -q -w "$WORK/dist" "$ROOT"
WHEEL="$(ls "$WORK"/dist/grounding_protos-*.whl)"

failed=0
summary=()
for cell in "${CELLS[@]}"; do
  minor="${cell%%:*}"; spec="${cell#*:}"
  py="$(python_for "$minor")"
  venv="$WORK/venv-$(echo "$cell" | tr -c 'a-zA-Z0-9' '_')"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q "$spec" "$WHEEL" pytest hypothesis
  label="$("$venv/bin/python" -c 'import sys, google.protobuf as p; from google.protobuf.internal import api_implementation as a; print(f"python {sys.version.split()[0]}, protobuf {p.__version__} ({a.Type()})")')"
  echo "== $label"
  if (cd "$ROOT" && "$venv/bin/python" -m pytest -m smoke tests -q -p no:cacheprovider -o addopts="" ); then
    summary+=("PASS  $label")
  else
    summary+=("FAIL  $label")
    failed=1
  fi
done
echo "== runtime matrix"
printf '%s\n' "${summary[@]}"
exit $failed
