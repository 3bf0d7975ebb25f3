#!/usr/bin/env bash
# Run the tests of ONE wheel against several protobuf runtimes and Pythons, each
# cell in its own fresh venv. A cell is PYTHON:REQUIREMENT:SUITE, where SUITE is
#   full   every test but the slow ones (wheel builds, 100 MB runs), with the test
#          extras (official client libraries, google-genai, mypy...) resolved for
#          that protobuf, and a googleapis-common-protos that installs beside it;
#   smoke  the core checks only (pytest -m smoke), with nothing but pytest and
#          hypothesis beside the wheel: for runtimes the extras no longer support.
# Pythons come from pyenv where present (else python3). Exit status is non-zero if
# any cell fails.
#
#   bash scripts/runtime_matrix.sh                          # the default matrix
#   bash scripts/runtime_matrix.sh "3.12:protobuf==5.29.6:smoke"   # chosen cells
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CELLS=("$@")
if [ ${#CELLS[@]} -eq 0 ]; then
  CELLS=(
    "3.10:protobuf==5.26.1:smoke"   # the oldest supported runtime, oldest Python
    "3.12:protobuf>=5.29,<6:full"   # newest 5.x
    "3.11:protobuf>=6.33,<7:full"   # newest 6.x
    "3.13:protobuf>=7,<8:full"      # newest 7.x, newest Python
  )
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
  IFS=: read -r minor spec suite <<<"$cell"
  py="$(python_for "$minor")"
  venv="$WORK/venv-$(echo "$cell" | tr -c 'a-zA-Z0-9' '_')"
  "$py" -m venv "$venv"
  if [ "$suite" = full ]; then
    "$venv/bin/python" -m pip install -q "$spec" "${WHEEL}[test]"
    selection=(-m "not slow")
  else
    "$venv/bin/python" -m pip install -q "$spec" "$WHEEL" pytest hypothesis
    selection=(-m smoke tests)
  fi
  label="$("$venv/bin/python" -c 'import sys, google.protobuf as p; from google.protobuf.internal import api_implementation as a; print(f"python {sys.version.split()[0]}, protobuf {p.__version__} ({a.Type()})")')"
  echo "== $label, $suite"
  # Run from the checkout (tests import tests.* and build_protos), against the wheel:
  # src/ is not on sys.path, and -p no:cacheprovider leaves the tree as it was.
  if (cd "$ROOT" && "$venv/bin/python" -m pytest "${selection[@]}" -q -p no:cacheprovider \
        --ignore=src --override-ini="addopts=--strict-markers -ra"); then
    summary+=("PASS  $label  [$suite]")
  else
    summary+=("FAIL  $label  [$suite]")
    failed=1
  fi
done
echo "== runtime matrix"
printf '%s\n' "${summary[@]}"
exit $failed
