#!/usr/bin/env bash
# Benchmarks locker against agent-locker's daemon, side by side in one run, and prints one
# table (median, p99, ratio) of issue 9's scenarios:
#   seq         HTTP, one keep-alive client, sequential appends (locker serve vs lockerd)
#   concurrent  HTTP, 16 concurrent clients appending, and locker serve's resident memory
#   handoff     one full handoff over HTTP (create, envelope, artifact, seal, read all), with
#               the server's CPU and bytes per handoff and its floor (five durable commits:
#               create, two appends, seal, and the read ticket's lease)
#   mcp         locker_deposit + locker_read_blocks through `locker mcp` vs lockermcp + lockerd
#   cli         one `locker append` process vs a minimal Rust program committing one SQLite row
#   verify      `locker verify` of 1,000,000 blocks of 1 KiB: blocks/s and peak RSS, against
#               the floor (every row read once, each payload hashed once, each entry twice and
#               the Merkle tree's nodes, over the machine's cores)
#   verify-requests  `locker verify` of 60,000 blocks of 1 KiB appended one HTTP request each
#               (as agents write: a journal entry and a commit per block), beside the running
#               server and after it was killed
#   history     durable append latency at 1,000,000 journal entries vs at 1,000
#   multi       PostgreSQL store: 16 clients appending over 1, 2 and 3 `locker serve` processes
#               on one database (a throwaway loopback cluster, scripts/pg-cluster.sh; skipped
#               when PostgreSQL is not installed)
# It builds locker in release mode, installs the peer (lockermcp==0.1.5 from PyPI, which ships
# lockerd) into a virtual environment under target/test-deps/ (scripts/test-deps.sh), and runs
# the load generator examples/bench.rs. Large repositories are cached under target/bench/.
# The machine is shared and noisy: compare the ratios, not the absolute times.
#
# Usage: scripts/bench.sh [--quick] [--only NAME,...] [--fresh] [--no-peer]
#   --quick    smaller counts (for CI): every scenario runs, the targets are not judged
#   --only     run only the named scenarios (see above)
#   --fresh    rebuild the cached repositories
#   --no-peer  do not install or run the peer (its columns stay empty)
# Output: the table on stdout; raw figures in target/bench/results.json; logs in target/bench/.
# A full run of every scenario (no --quick, no --only) also writes the table, with the machine
# it ran on, between the markers of docs/performance.md.
set -euo pipefail

die() {
    echo "bench: error: $*" >&2
    exit 1
}

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
args=()
peer=1
full=1
while [ "$#" -gt 0 ]; do
    case "$1" in
        --quick) args+=("$1"); full=0; shift ;;
        --fresh) args+=("$1"); shift ;;
        --only) args+=(--only "${2:?--only needs a value}"); full=0; shift 2 ;;
        --only=*) args+=("$1"); full=0; shift ;;
        --no-peer) peer=0; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done

cd "$root"
echo "bench: building locker and the load generator (release)" >&2
# The binary users install: on Linux with glibc the release archive's static build
# (scripts/build-static.sh; install.sh prefers it), elsewhere what `cargo build --release`
# builds. Built on its own, not together with the examples: their dev-dependencies would give
# its dependencies other features, and with them other symbol names than the ones
# scripts/startup-order.txt lays out first (build.rs).
case "$(rustc -vV | sed -n 's/^host: //p')" in
    *-linux-gnu) locker="$("$root/scripts/build-static.sh")" ;;
    *)
        cargo build --release --locked --quiet --bin locker
        locker="$root/target/release/locker"
        ;;
esac
cargo build --release --locked --quiet --example bench --example sqlite_commit
bin="$root/target/release"

if [ "$peer" -eq 1 ]; then
    echo "bench: installing the peer (lockermcp==0.1.5) if missing" >&2
    ./scripts/test-deps.sh >/dev/null
    venv="${LOCKER_TEST_DEPS:-$root/target/test-deps}/venv"
    [ -x "$venv/bin/lockerd" ] || die "lockerd is missing from $venv"
    args+=(--lockerd "$venv/bin/lockerd" --lockermcp "$venv/bin/lockermcp")
fi

work="$root/target/bench"
mkdir -p "$work"

# The multi-server scenario needs PostgreSQL: a throwaway cluster, stopped on exit.
wants_multi=1
for a in "${args[@]}"; do
    case "$a" in --only=*) [[ ",${a#--only=}," == *,multi,* ]] || wants_multi=0 ;; esac
done
for i in "${!args[@]}"; do
    if [ "${args[$i]}" = "--only" ]; then
        [[ ",${args[$((i + 1))]}," == *,multi,* ]] || wants_multi=0
    fi
done
if [ "$wants_multi" -eq 1 ]; then
    pgdir="$(mktemp -d "${TMPDIR:-/tmp}/locker-bench-pg.XXXXXX")"
    chmod 0755 "$pgdir"
    trap '"$root/scripts/pg-cluster.sh" stop "$pgdir" || true; rm -rf "$pgdir"' EXIT
    if pgurl="$("$root/scripts/pg-cluster.sh" start "$pgdir")"; then
        args+=(--pg "$pgurl")
    else
        echo "bench: PostgreSQL is not available; the multi-server scenario is skipped" >&2
    fi
fi
machine="$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(uname -sr)"
echo "bench: $machine" >&2
table="$work/table.md"
"$bin/examples/bench" \
    --locker "$locker" \
    --baseline "$bin/examples/sqlite_commit" \
    --work "$work" \
    --json-out "$work/results.json" \
    "${args[@]}" | tee "$table"

# A full run is the one docs/performance.md shows.
doc="$root/docs/performance.md"
if [ "$full" -eq 1 ] && [ "$peer" -eq 1 ] && [ -f "$doc" ]; then
    {
        sed '/<!-- bench:begin -->/q' "$doc"
        echo "Run of $(date -u +%Y-%m-%d) on $machine, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), binary ${locker#"$root"/} ($(case "$(readelf -lW "$locker" 2>/dev/null)" in *'program interpreter'*) echo dynamically linked ;; *) echo statically linked ;; esac)):"
        echo
        cat "$table"
        sed -n '/<!-- bench:end -->/,$p' "$doc"
    } > "$doc.tmp"
    mv "$doc.tmp" "$doc"
    echo "bench: wrote the table into docs/performance.md" >&2
fi
