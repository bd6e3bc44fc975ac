#!/usr/bin/env bash
# Installs the local EVM node the pay-per-pad tests (tests/cli/payment.rs) run: the
# `@foundry-rs/anvil` package from the npm registry (its native binary ships in
# `@foundry-rs/anvil-linux-amd64`), under target/test-deps/chain/. Idempotent: with the right
# version in place it changes nothing. The tests find the binary at
#   target/test-deps/chain/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
# (or under LOCKER_TEST_DEPS=DIR); without it they fail unless LOCKER_SKIP_INTEROP=1.
set -euo pipefail
cd "$(dirname "$0")/.."

ANVIL_VERSION="1.7.1"

dir="${LOCKER_TEST_DEPS:-target/test-deps}/chain"
anvil="$dir/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
have="$("$anvil" --version 2>/dev/null | head -n1 || true)"
case "$have" in
    *"$ANVIL_VERSION"*) ;;
    *)
        echo "== @foundry-rs/anvil@$ANVIL_VERSION into $dir"
        mkdir -p "$dir"
        if [ ! -f "$dir/package.json" ]; then
            (cd "$dir" && npm init -y >/dev/null)
        fi
        (cd "$dir" && npm install --no-fund --no-audit --loglevel=error \
            "@foundry-rs/anvil@$ANVIL_VERSION")
        ;;
esac
test -x "$anvil" || { echo "anvil is missing: $anvil" >&2; exit 1; }
"$anvil" --version | head -n1
