#!/usr/bin/env bash
# The web view (`locker serve`'s /ui/) in headless Chromium: builds a fixture repository with the
# CLI, serves it, visits every page as the operator and as an agent, and fails on a page that
# does not load, does not show the fixture's data, shows a secret, runs a script, or logs a
# console error or a CSP violation (tests/ui/check.mjs). Keeps a PNG screenshot of each page in
# target/ui-screenshots/ (CI keeps that directory as an artifact).
#   scripts/ui-check.sh
# Needs Debian's `chromium` (at CHROMIUM, default /usr/bin/chromium) and node (20+); installs
# tests/ui's pinned playwright-core with `npm ci` when it is missing. Uses the locker binary at
# LOCKER_BIN, or builds the debug one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

fail() {
    echo "ui-check: $*" >&2
    exit 1
}

chromium="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || fail "no Chromium at $chromium: apt-get install chromium (or set CHROMIUM)"
command -v node >/dev/null 2>&1 || fail "node is not installed"
if [ -z "${LOCKER_BIN:-}" ]; then
    cargo build --locked --quiet --bin locker
    LOCKER_BIN=target/debug/locker
fi
[ -x "$LOCKER_BIN" ] || fail "no locker binary at $LOCKER_BIN"
if [ ! -d tests/ui/node_modules/playwright-core ]; then
    npm ci --prefix tests/ui --no-audit --no-fund --loglevel=error
fi
echo "ui-check: $("$chromium" --version 2>/dev/null | head -n 1), $("$LOCKER_BIN" --version | head -n 1)"
LOCKER_BIN="$LOCKER_BIN" CHROMIUM="$chromium" UI_SCREENSHOTS="${UI_SCREENSHOTS:-target/ui-screenshots}" \
    node tests/ui/check.mjs
