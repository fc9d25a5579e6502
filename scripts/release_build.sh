#!/usr/bin/env sh
# The release's build, as .ci/run and .github/workflows/release.yml both run it: the sdist and the wheel into dist/,
# checked as the package index checks them, then the wheel installed into a fresh virtualenv outside the clone and
# used from there (scripts/wheel_smoke.py). Needs build and twine (the test extra).
set -eu
cd "$(dirname "$0")/.."
rm -rf dist
# setuptools names every file it copies (about 1,000 lines): the log is shown only when the build fails
log=$(mktemp)
if python -m build >"$log" 2>&1; then
  tail -n 1 "$log"
  rm -f "$log"
else
  status=$?
  cat "$log"
  rm -f "$log"
  echo "python -m build failed (exit $status); its whole output is above" >&2
  exit "$status"
fi
python -m twine check --strict dist/*
python scripts/wheel_smoke.py --dist dist
