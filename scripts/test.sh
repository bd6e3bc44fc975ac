#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

# The real MCP clients the `locker mcp` tests drive (Python SDK, MCP Inspector on Node 22),
# under target/test-deps/; idempotent. Without them those tests fail (LOCKER_SKIP_INTEROP=1
# skips them).
if [ "${LOCKER_SKIP_INTEROP:-0}" != "1" ]; then
    ./scripts/test-deps-mcp.sh
fi

cargo test --locked "$@"
