#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

# agent-locker's real clients (lockermcp 0.1.5 and its scripts) for the interop tests.
./scripts/test-deps.sh
cargo test --locked "$@"
