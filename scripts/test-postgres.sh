#!/usr/bin/env bash
# Runs the CLI test suite against PostgreSQL: starts a throwaway cluster on loopback
# (scripts/pg-cluster.sh), points LOCKER_TEST_STORE at it (every test repository gets a fresh
# database), runs `cargo test --test cli ARGS…` (the multi-server tests included), and stops and
# removes the cluster. Without PostgreSQL it fails, unless LOCKER_SKIP_INTEROP=1 (then it skips).
#   scripts/test-postgres.sh                 the whole suite on PostgreSQL
#   scripts/test-postgres.sh postgres_multi  only the multi-server tests
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

dir="$(mktemp -d "${TMPDIR:-/tmp}/locker-pg.XXXXXX")"
chmod 0755 "$dir"
cleanup() {
    "$root/scripts/pg-cluster.sh" stop "$dir" || true
    rm -rf "$dir"
}
trap cleanup EXIT

set +e
url="$("$root/scripts/pg-cluster.sh" start "$dir")"
rc=$?
set -e
if [ "$rc" -eq 3 ]; then
    if [ "${LOCKER_SKIP_INTEROP:-}" = "1" ]; then
        echo "test-postgres: PostgreSQL is not installed; skipped (LOCKER_SKIP_INTEROP=1)" >&2
        exit 0
    fi
    echo "test-postgres: PostgreSQL is not installed (apt-get install postgresql), or set LOCKER_SKIP_INTEROP=1" >&2
    exit 1
fi
[ "$rc" -eq 0 ] || exit "$rc"
echo "test-postgres: cluster at $url" >&2
LOCKER_TEST_STORE="$url" cargo test --test cli "$@"
