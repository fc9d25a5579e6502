#!/usr/bin/env sh
# Install Chromium from the OS packages, for tests/test_html_browser.py and scripts/measure_html.py.
# Without it the browser tests skip, except under .ci/run, which runs this first and fails on any skip.
# GitHub's Ubuntu runners already have google-chrome.
set -eu
if [ -x /usr/lib/chromium/chromium ] || command -v chromium >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then
  echo "a Chromium is already installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install Chromium with your OS's package manager (or set GRANULARITY_CHROMIUM to its binary)" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium
