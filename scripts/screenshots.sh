#!/bin/sh
# The manual's screenshots of the table in the browser, taken again by the browser tests
# (Playwright driving Debian's Chromium) into docs/screenshots/.
set -eu
cd "$(dirname "$0")/.."
CROUPIER_SCREENSHOTS=docs/screenshots exec .venv/bin/pytest tests/server/test_browser.py -p no:randomly -q "$@"
