#!/usr/bin/env bash
# Builds a locker release for one target into a directory outside the source tree:
#   locker-<version>-<target>.tar.gz          the binary, man pages, completions, README, docs/, LICENSE
#   locker-<version>-<target>.provenance.json source commit, dirty flag, toolchain, target, hashes
#   install.sh                                the installer, stamped with <version>
#   SHA256SUMS                                sha256sum lines for every file above (all targets)
# Run it once per target into the same directory; SHA256SUMS then covers every target.
#
# Usage: scripts/release.sh [--target TRIPLE] [--profile release|dev] [--out-dir DIR | DIR]
#   --target   a Rust target triple (default: the host's; others need `rustup target add`)
#   --profile  the cargo profile (default release; dev is faster and only for tests)
#   --out-dir  where to write (default: ../locker-dist beside the source tree)
# The archive is reproducible where practical: sorted names, ustar, owner and group 0,
# mtime = SOURCE_DATE_EPOCH (default: the last commit's time), gzip without name or time,
# paths in the binary remapped. It needs no network beyond crates.io (for `cargo build`).
set -euo pipefail

die() {
    echo "release: error: $*" >&2
    exit 1
}

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
target=''
profile=release
out=''
while [ "$#" -gt 0 ]; do
    case "$1" in
        --target) target="${2:?--target needs a value}"; shift 2 ;;
        --target=*) target="${1#*=}"; shift ;;
        --profile) profile="${2:?--profile needs a value}"; shift 2 ;;
        --profile=*) profile="${1#*=}"; shift ;;
        --out-dir) out="${2:?--out-dir needs a value}"; shift 2 ;;
        --out-dir=*) out="${1#*=}"; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) die "unknown option: $1 (see --help)" ;;
        *) [ -z "$out" ] || die "more than one output directory"; out="$1"; shift ;;
    esac
done

cd "$root"

# ---- version: Cargo.toml is the truth, VERSION its mirror --------------------------------------
version="$(awk '/^\[/ { pkg = ($0 == "[package]") } pkg && /^version *= *"/ { gsub(/^version *= *"|".*$/, ""); print; exit }' Cargo.toml)"
[ -n "$version" ] || die "cannot read the package version from Cargo.toml"
[ "$(cat VERSION)" = "$version" ] || die "VERSION ($(cat VERSION)) differs from Cargo.toml ($version)"

# ---- tools --------------------------------------------------------------------------------------
host="$(rustc -vV | sed -n 's/^host: //p')"
[ -n "$target" ] || target="$host"
case "$target" in
    *[!a-z0-9_.-]* | '') die "not a target triple: $target" ;;
esac
case "$profile" in
    dev) profile_dir=debug ;;
    *[!a-z0-9_-]* | '') die "not a profile name: $profile" ;;
    *) profile_dir="$profile" ;;
esac
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
    tar=tar
elif command -v gtar >/dev/null 2>&1; then
    tar=gtar
else
    die "GNU tar is needed for a reproducible archive (on macOS: brew install gnu-tar)"
fi
if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$@"; }
elif command -v shasum >/dev/null 2>&1; then
    sha256() { shasum -a 256 "$@"; }
else
    die "sha256sum or shasum is needed"
fi

# ---- the output directory, outside the source tree ----------------------------------------------
[ -n "$out" ] || out="$root/../locker-dist"
mkdir -p "$out"
out="$(CDPATH='' cd -P -- "$out" && pwd)"
case "$out/" in
    "$root/"*) die "the output directory $out is inside the source tree $root; choose one outside it" ;;
esac

# ---- source provenance --------------------------------------------------------------------------
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    commit="$(git -C "$root" rev-parse HEAD)"
    if [ -n "$(git -C "$root" status --porcelain)" ]; then dirty=true; else dirty=false; fi
    commit_time="$(git -C "$root" log -1 --format=%ct)"
else
    commit=unknown
    dirty=true
    commit_time=0
fi
epoch="${SOURCE_DATE_EPOCH:-$commit_time}"
case "$epoch" in
    '' | *[!0-9]*) die "SOURCE_DATE_EPOCH must be integer seconds, got: $epoch" ;;
esac
[ "$dirty" = false ] || echo "release: warning: the source tree has uncommitted changes (recorded as dirty)" >&2

# ---- build --------------------------------------------------------------------------------------
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rustflags="${RUSTFLAGS:-}${RUSTFLAGS:+ }--remap-path-prefix=$root=/locker-$version --remap-path-prefix=$cargo_home=/cargo"
echo "release: building locker $version for $target ($profile profile)" >&2
RUSTFLAGS="$rustflags" SOURCE_DATE_EPOCH="$epoch" \
    cargo build --locked --quiet --profile "$profile" --target "$target" --bin locker \
    || die "cargo build failed (for another target: rustup target add $target)"
target_dir="$(cargo metadata --format-version 1 --no-deps --locked 2>/dev/null \
    | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
[ -n "$target_dir" ] || target_dir="$root/target"
bin="$target_dir/$target/$profile_dir/locker"
[ -f "$bin" ] || die "the build did not produce $bin"

# ---- stage --------------------------------------------------------------------------------------
name="locker-$version-$target"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
stage="$tmp/$name"
mkdir -p "$stage/man" "$stage/completions"
cp "$bin" "$stage/locker"
cp man/*.1 "$stage/man/"
cp completions/* "$stage/completions/"
cp README.md LICENSE "$stage/"
cp -R docs "$stage/docs"   # the pages README.md links to

# The committed docs must be what this binary generates (when it can run here).
if [ "$target" = "$host" ]; then
    "$bin" --quiet util generate-docs --out-dir "$tmp/gen" >/dev/null
    for dir in man completions; do
        diff -r "$stage/$dir" "$tmp/gen/$dir" >/dev/null \
            || die "$dir/ is stale for this binary; run scripts/gen-docs.sh and commit the result"
    done
    [ "$("$bin" -V)" = "locker $version" ] || die "the binary does not report locker $version"
fi

find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f -exec chmod 0644 {} +
chmod 0755 "$stage/locker"

# ---- archive ------------------------------------------------------------------------------------
archive="$name.tar.gz"
(
    cd "$tmp"
    LC_ALL=C "$tar" --sort=name --format=ustar --owner=0 --group=0 --numeric-owner \
        --mtime="@$epoch" -cf - "$name" | gzip -n -9 >"$tmp/$archive"
)
mv -f "$tmp/$archive" "$out/$archive"

# ---- provenance ---------------------------------------------------------------------------------
json_str() {
    local s="$1"
    s="${s//\\/\\\\}"
    s="${s//\"/\\\"}"
    printf '"%s"' "$s"
}
archive_sha="$(sha256 "$out/$archive" | awk '{print $1}')"
binary_sha="$(sha256 "$stage/locker" | awk '{print $1}')"
archive_bytes="$(wc -c <"$out/$archive" | tr -d ' ')"
provenance="$name.provenance.json"
{
    printf '{\n'
    printf '  "schema": "locker.provenance.v1",\n'
    printf '  "version": %s,\n' "$(json_str "$version")"
    printf '  "target": %s,\n' "$(json_str "$target")"
    printf '  "profile": %s,\n' "$(json_str "$profile")"
    printf '  "source": {"commit": %s, "dirty": %s, "date_epoch": %s},\n' \
        "$(json_str "$commit")" "$dirty" "$epoch"
    printf '  "toolchain": {"rustc": %s, "cargo": %s, "host": %s, "rustflags": %s},\n' \
        "$(json_str "$(rustc --version)")" "$(json_str "$(cargo --version)")" \
        "$(json_str "$host")" "$(json_str "$rustflags")"
    printf '  "artifacts": [\n'
    printf '    {"name": %s, "sha256": "%s", "bytes": %s},\n' "$(json_str "$archive")" "$archive_sha" "$archive_bytes"
    printf '    {"name": %s, "sha256": "%s"}\n' "$(json_str "$name/locker")" "$binary_sha"
    printf '  ]\n'
    printf '}\n'
} >"$tmp/$provenance"
mv -f "$tmp/$provenance" "$out/$provenance"

# ---- the installer, stamped with this version ---------------------------------------------------
grep -q '^LOCKER_STAMPED_VERSION=' install.sh || die "install.sh has no LOCKER_STAMPED_VERSION line"
sed "s/^LOCKER_STAMPED_VERSION=.*/LOCKER_STAMPED_VERSION=$version/" install.sh >"$tmp/install.sh"
chmod 0755 "$tmp/install.sh"
mv -f "$tmp/install.sh" "$out/install.sh"

# ---- SHA256SUMS over every file of this version in the directory --------------------------------
(
    cd "$out"
    export LC_ALL=C # byte order for the glob below
    files=()
    for f in "locker-$version-"*.tar.gz "locker-$version-"*.provenance.json install.sh; do
        if [ -f "$f" ]; then files+=("$f"); fi
    done
    sha256 "${files[@]}" >SHA256SUMS.tmp
    mv -f SHA256SUMS.tmp SHA256SUMS
)

echo "release: wrote $out/$archive ($archive_sha)" >&2
echo "release: wrote $out/$provenance, $out/install.sh and $out/SHA256SUMS" >&2
echo "$out/$archive"
