#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

# agent-locker's real clients (lockermcp 0.1.5 and its scripts) for the interop tests.
./scripts/test-deps.sh

# The real MCP clients the `locker mcp` and `locker skill` tests drive (Python SDK, MCP
# Inspector on Node 22, skills-ref) under target/test-deps/mcp-clients/; idempotent. Without
# them those tests fail (LOCKER_SKIP_INTEROP=1 skips them).
if [ "${LOCKER_SKIP_INTEROP:-0}" != "1" ]; then
    ./scripts/test-deps-mcp.sh
    # The local EVM node (anvil, npm) the pay-per-pad tests pay on; under
    # target/test-deps/chain/.
    ./scripts/test-deps-chain.sh
fi

cargo test --locked "$@"

# The same CLI suite on PostgreSQL (a throwaway cluster on loopback, three servers on one
# database among the tests); with arguments (a filter) only the SQLite run above.
if [ "$#" -eq 0 ]; then
    ./scripts/test-postgres.sh
fi
