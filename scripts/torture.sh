#!/usr/bin/env bash
# Reliability torture (issue 9), every part bounded in time:
#   crash  rounds of concurrent CLI writers, HTTP writers and depositors against `locker serve`,
#          a random process (the server included) killed with SIGKILL in each; after every round
#          each acknowledged write is stored exactly once, no chain forks, verify is clean
#   disk   the repository on a small tmpfs that fills up (CLI and serve), and on a read-only
#          one: exit 8 / 503 with a clear error, nothing half-written, all verifies once space
#          is back (needs root to mount; skipped otherwise)
#   load   64 concurrent HTTP clients doing a mix of every operation: only the expected
#          statuses (conflicts are expected), p99 and resident memory bounded, verify clean
#   prop   the property tests (chain, limits, lease state machine) with more cases
#   fuzz   every fuzz target (scripts/fuzz.sh)
#   api    schemathesis against the OpenAPI document (scripts/schemathesis.sh)
# The crash, disk and load parts are the torture tests of the normal suite
# (tests/cli/torture.rs), run here longer.
#
# Usage: scripts/torture.sh [--quick] [--only PART,...]
#   default  300 crash rounds, 60 s of load, 1024 cases per property, 5 min per fuzz target,
#            5 min per schemathesis run (about an hour in all)
#   --quick  20 crash rounds, 10 s of load, 256 cases, 30 s per fuzz target, 60 s per
#            schemathesis run (about 8 minutes once built; for CI)
#   --only   run only the named parts: crash, disk, load, prop, fuzz, api
set -euo pipefail

die() {
    echo "torture: error: $*" >&2
    exit 1
}

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
quick=0
only=''
while [ "$#" -gt 0 ]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --only) only="${2:?--only needs a value}"; shift 2 ;;
        --only=*) only="${1#*=}"; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
if [ "$quick" -eq 1 ]; then
    rounds=20 load=10 cases=256 fuzz=30 api=60
else
    rounds=300 load=60 cases=1024 fuzz=300 api=300
fi
wanted() {
    [ -z "$only" ] || case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac
}

cd "$root"
run_tests() {
    cargo test --locked --test cli -- "$@" --nocapture --test-threads 1
}
if wanted crash; then
    echo "torture: crash: $rounds SIGKILL rounds" >&2
    LOCKER_TORTURE_ROUNDS="$rounds" run_tests torture_sigkill
fi
if wanted disk; then
    echo "torture: disk full and read-only" >&2
    run_tests torture_disk torture_read_only
fi
if wanted load; then
    echo "torture: load: 64 clients for $load s" >&2
    LOCKER_TORTURE_LOAD_SECS="$load" run_tests torture_load
fi
if wanted prop; then
    echo "torture: property tests, $cases cases each" >&2
    PROPTEST_CASES="$cases" cargo test --locked --lib proptests
fi
if wanted fuzz; then
    ./scripts/fuzz.sh --seconds "$fuzz"
fi
if wanted api; then
    ./scripts/schemathesis.sh --seconds "$api"
fi
echo "torture: passed" >&2
