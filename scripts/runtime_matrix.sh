#!/usr/bin/env bash
# Run the tests of ONE wheel against several protobuf runtimes and Pythons, each
# cell in its own fresh venv. A cell is PYTHON:REQUIREMENT:SUITE, where SUITE is
#   full   every test but the slow ones (wheel builds, 100 MB runs), with the test
#          extras (official client libraries, google-genai, mypy...) resolved for
#          that protobuf, and a googleapis-common-protos that installs beside it;
#   smoke  the core checks only (pytest -m smoke), with nothing but pytest and
#          hypothesis beside the wheel: for runtimes the extras no longer support.
# Pythons come from pyenv where present (else python3.X on PATH); a cell whose Python
# is missing fails. Exit status is non-zero if any cell fails.
#
#   bash scripts/runtime_matrix.sh                          # the default matrix
#   bash scripts/runtime_matrix.sh "3.12:protobuf==5.29.6:smoke"   # chosen cells
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CELLS=("$@")
if [ ${#CELLS[@]} -eq 0 ]; then
  # Every older runtime on the oldest and on the newest promised Python (the
  # classifiers): each major's full suite once, its smoke tests on the other Python.
  # The newest runtime (7.x) is not here: CI's README commands already run the
  # suite against it on every promised Python.
  mapfile -t PYTHONS < <(python3 "$ROOT/scripts/python_versions.py")
  [ ${#PYTHONS[@]} -gt 0 ] || exit 1
  oldest="${PYTHONS[0]}" newest="${PYTHONS[-1]}"
  CELLS+=(
    "$oldest:protobuf==5.26.1:smoke"   # the oldest supported runtime
    "$newest:protobuf==5.26.1:smoke"
    "$oldest:protobuf>=5.29,<6:full"   # newest 5.x
    "$newest:protobuf>=5.29,<6:smoke"
    "$newest:protobuf>=6.33,<7:full"   # newest 6.x
    "$oldest:protobuf>=6.33,<7:smoke"
  )
fi

# A given Python minor: pyenv's newest patch release, else python3.X on PATH.
python_for() {
  local minor="$1" found
  found="$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$minor".*/bin/python3 2>/dev/null \
    | sort -V | tail -1 || true)"
  if [ -n "$found" ]; then echo "$found"; else command -v "python$minor" || true; fi
}

echo "== building one wheel"
python3 -m pip wheel --no-deps -q -w "$WORK/dist" "$ROOT"
WHEEL="$(ls "$WORK"/dist/grounding_protos-*.whl)"

failed=0
summary=()
for cell in "${CELLS[@]}"; do
  IFS=: read -r minor spec suite <<<"$cell"
  py="$(python_for "$minor")"
  if [ -z "$py" ]; then
    echo "== $cell: no Python $minor on this machine"
    summary+=("FAIL  python $minor not on this machine  [$spec, $suite]")
    failed=1
    continue
  fi
  start=$SECONDS
  venv="$WORK/venv-$(echo "$cell" | tr -c 'a-zA-Z0-9' '_')"
  "$py" -m venv "$venv"
  if [ "$suite" = full ]; then
    install=("$spec" "${WHEEL}[test]")
    selection=(-m "not slow")
  else
    install=("$spec" "$WHEEL" pytest hypothesis)
    selection=(-m smoke tests)
  fi
  if ! "$venv/bin/python" -m pip install -q "${install[@]}"; then
    echo "== $cell: pip install failed"
    summary+=("FAIL  python $minor, $spec  [$suite]  pip install failed")
    failed=1
    continue
  fi
  label="$("$venv/bin/python" -c 'import sys, google.protobuf as p; from google.protobuf.internal import api_implementation as a; print(f"python {sys.version.split()[0]}, protobuf {p.__version__} ({a.Type()})")')"
  echo "== $label, $suite"
  # Run from the checkout (tests import tests.* and build_protos), against the wheel:
  # src/ is not on sys.path, and -p no:cacheprovider leaves the tree as it was.
  rc=0
  (cd "$ROOT" && "$venv/bin/python" -m pytest "${selection[@]}" -q -p no:cacheprovider \
    --ignore=src --override-ini="addopts=--strict-markers -ra") || rc=$?
  took="$((SECONDS - start))s"
  case $rc in
    0) summary+=("PASS  $label  [$suite, $took]") ;;
    5) summary+=("FAIL  $label  [$suite, $took]  pytest exit 5: no tests ran"); failed=1 ;;
    *) summary+=("FAIL  $label  [$suite, $took]  pytest exit $rc"); failed=1 ;;
  esac
done
echo "== runtime matrix"
printf '%s\n' "${summary[@]}"
exit $failed
