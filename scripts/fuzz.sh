#!/usr/bin/env bash
# Runs the fuzz targets in fuzz/ (cargo-fuzz, libFuzzer) for a bounded time each:
#   envelope       block-0 envelopes (locker.handoff.v1)
#   journal_entry  stored journal entries
#   wire           HTTP request bodies (create, tickets, deposit, revoke, publish, lease routes)
#   text           digests, integers, fences, plans and states from queries and arguments
#   http           whole HTTP requests (method, path, query, headers, body) through the router
#                  of a real server in memory: never a 5xx
# New inputs that reach new code are added to fuzz/corpus/TARGET/ (commit them; the normal
# test suite replays the corpus). A crash stops the run with the input in
# fuzz/artifacts/TARGET/; reproduce it with `cargo fuzz run TARGET fuzz/artifacts/TARGET/crash-…`
# (from fuzz/, with RUSTC_BOOTSTRAP=1 on a stable toolchain).
#
# Usage: scripts/fuzz.sh [--seconds N] [--cmin] [--scratch] [--dev] [TARGET...]
#   --seconds  time per target (default 60)
#   --dev      build without optimizations (sanitizer and coverage as usual): the build takes a
#              fraction of the optimized one's time (cargo-fuzz compiles the whole crate as one
#              codegen unit at opt-level 3), the targets run slower; for CI's bounded smoke run
#   --cmin     minimize each target's corpus afterwards (keeps what is committed small)
#   --scratch  read the committed corpus but write new inputs to a temporary directory, so the
#              checkout stays clean (CI); fuzz/Cargo.lock must then be current (checked)
# cargo-fuzz is installed with `cargo install` if missing. It needs nightly compiler flags:
# a nightly toolchain is used when installed, otherwise the stable one with RUSTC_BOOTSTRAP=1.
set -euo pipefail

die() {
    echo "fuzz: error: $*" >&2
    exit 1
}

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
seconds=60
cmin=0
scratch=0
mode=-O
targets=()
while [ "$#" -gt 0 ]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
        --seconds=*) seconds="${1#*=}"; shift ;;
        --cmin) cmin=1; shift ;;
        --scratch) scratch=1; shift ;;
        --dev) mode=--dev; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) die "unknown option: $1 (see --help)" ;;
        *) targets+=("$1"); shift ;;
    esac
done
case "$seconds" in '' | *[!0-9]*) die "--seconds takes a whole number" ;; esac
[ "${#targets[@]}" -gt 0 ] || targets=(envelope journal_entry wire text http)
[ "$scratch" -eq 0 ] || [ "$cmin" -eq 0 ] || die "--cmin rewrites the committed corpus; it cannot be combined with --scratch"


if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz
fi
toolchain=()
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

cd "$root/fuzz"
echo "fuzz: building the targets" >&2
cargo "${toolchain[@]}" fuzz build "$mode"
if [ "$scratch" -eq 1 ] && [ -d "$root/.git" ] && ! git -C "$root" diff --quiet -- fuzz/Cargo.lock; then
    die "fuzz/Cargo.lock is out of date with the crate's dependencies; run scripts/fuzz.sh once and commit it"
fi
new=""
if [ "$scratch" -eq 1 ]; then
    new="$(mktemp -d)"
    trap 'rm -rf "$new"' EXIT
fi
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    # libFuzzer writes new inputs to the first directory and reads all of them.
    dirs=("corpus/$t")
    if [ -n "$new" ]; then
        mkdir -p "$new/$t"
        dirs=("$new/$t" "corpus/$t")
    fi
    echo "fuzz: $t for ${seconds} s" >&2
    cargo "${toolchain[@]}" fuzz run "$mode" "$t" "${dirs[@]}" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    if [ "$cmin" -eq 1 ]; then
        cargo "${toolchain[@]}" fuzz cmin "$mode" "$t" "corpus/$t"
    fi
done
echo "fuzz: no crash in ${#targets[@]} target(s)" >&2
