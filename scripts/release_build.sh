#!/usr/bin/env sh
# The release's build, as .ci/run and .github/workflows/release.yml both run it: the sdist and the wheel into dist/,
# checked as the package index checks them, then the wheel installed into a fresh virtualenv outside the clone and
# used from there (scripts/wheel_smoke.py). Needs build and twine (the test extra).
set -eu
cd "$(dirname "$0")/.."
rm -rf dist
python -m build
python -m twine check --strict dist/*
python scripts/wheel_smoke.py --dist dist
