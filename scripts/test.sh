#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --locked "$@"
