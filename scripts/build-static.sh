#!/usr/bin/env bash
# Builds locker as the Linux release archive carries it, and prints the binary's path: glibc
# linked statically into a position-independent executable (`-C target-feature=+crt-static`,
# a static PIE: the address space is still randomised), with packed relative relocations
# (build.rs) and the CLI's functions laid out first (scripts/startup-order.txt).
#
# Why: a process of the dynamically linked build spends about a sixth of a CLI command's CPU in
# the dynamic loader (looking up 205 symbols in three shared libraries, mapping and relocating
# them) and in page faults on their data; the static build does none of that, and a `locker
# append` takes 0.24-0.33 ms less (docs/performance.md). The C library's name service then has
# only what glibc builds in: host names from /etc/hosts and DNS, users from /etc/passwd.
#
# The flag goes to rustc for this target only (`--target`): given for the host, it would reach
# the procedural macros, which cannot be linked statically. The build's paths are remapped as
# the release's are (this checkout to /locker-VERSION, cargo's home to /cargo), so that the
# binary names no path of the machine that built it. `--target` and the flags change the
# symbols' names (their hashes, which cargo derives from the flags too), so every static build
# goes through this script with the same flags: scripts/release.sh (`--target static`),
# scripts/bench.sh and scripts/startup-order.sh, which lists this build's names in
# scripts/startup-order.txt beside those of `cargo build --release`. The names depend on the
# checkout's path and the version: run scripts/startup-order.sh where the release is built.
# RUSTFLAGS and SOURCE_DATE_EPOCH from the environment are kept.
#
# Usage: scripts/build-static.sh [--profile release|dev|NAME] [--target-dir DIR] [--map FILE]
#        scripts/build-static.sh --print-rustflags   (the flags it builds with, for provenance)
#        scripts/build-static.sh --print-remap       (the path remapping alone, which
#                                                     scripts/release.sh's other builds use)
#   --profile     the cargo profile (default release)
#   --map FILE    also write the linker's map of the binary to FILE, names not demangled
#                 (scripts/startup-order.sh reads it)
#   --target-dir  where to build (default: the workspace's target directory's `static/`, apart
#                 from the dynamic build, whose dependencies the flag would otherwise rebuild)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
die() { echo "build-static: $*" >&2; exit 2; }
profile=release
dir=""
map=""
print_flags=0
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile="${2:?--profile needs a value}"; shift 2 ;;
        --target-dir) dir="${2:?--target-dir needs a value}"; shift 2 ;;
        --map) map="${2:?--map needs a value}"; shift 2 ;;
        --print-rustflags) print_flags=1; shift ;;
        --print-remap) print_flags=remap; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
cd "$root"
remap="--remap-path-prefix=$root=/locker-$(cat VERSION) --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo"
rustflags="${RUSTFLAGS:-}${RUSTFLAGS:+ }$remap -C target-feature=+crt-static"
case "$print_flags" in
    1) echo "$rustflags"; exit 0 ;;
    remap) echo "$remap"; exit 0 ;;
esac
host="$(rustc -vV | sed -n 's/^host: //p')"
case "$host" in
    *-linux-gnu) ;;
    *) die "a static glibc build is made on a Linux host with glibc (this is $host)" ;;
esac
if [ -z "$dir" ]; then
    dir="$(cargo metadata --format-version 1 --no-deps --locked 2>/dev/null \
        | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
    dir="${dir:-$root/target}/static"
fi
case "$profile" in
    dev) profile_dir=debug ;;
    *) profile_dir="$profile" ;;
esac
link=()
[ -z "$map" ] || link=(-- -C "link-arg=-Wl,-Map=$map" -C "link-arg=-Wl,--no-demangle")
RUSTFLAGS="$rustflags" cargo rustc --locked --quiet --profile "$profile" --target "$host" --bin locker --target-dir "$dir" "${link[@]}"
bin="$dir/$host/$profile_dir/locker"
[ -x "$bin" ] || die "the build did not produce $bin"
# Read whole, not piped into `grep -q` (readelf would die of SIGPIPE under pipefail).
headers="$(readelf -lW "$bin")" || die "readelf cannot read $bin"
case "$headers" in
    *'Requesting program interpreter'*) die "$bin is dynamically linked" ;;
esac
echo "$bin"
