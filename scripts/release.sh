#!/usr/bin/env bash
# Builds a locker release into a directory outside the source tree:
#   locker-<version>-<label>.tar.gz           the stripped binary, man pages, completions, README,
#                                             docs/, LICENSE (one archive per target)
#   locker-<version>-<label>.provenance.json  source commit, dirty flag, toolchain, target, linkage,
#                                             hashes
#   install.sh                                the installer, stamped with <version>, the base URL
#                                             and the signer's public key
#   SHA256SUMS                                sha256sum lines for every file above (all targets)
#   SHA256SUMS.sig                            an SSH signature over SHA256SUMS (namespace
#                                             locker-release), which the stamped install.sh checks
#
# By default it builds two archives: the host's target (e.g. x86_64-unknown-linux-gnu, linked to
# the system's glibc) and a static one (`--target static`): glibc linked statically into a
# position-independent executable (scripts/build-static.sh), labelled
# x86_64-unknown-linux-gnu-static, which install.sh prefers on Linux: it runs on any Linux
# whatever its C library, and a CLI command starts about 0.3 ms sooner without the dynamic loader
# (docs/performance.md). A musl build is made when its triple is named
# (`--target x86_64-unknown-linux-musl`, after `rustup target add`; it also needs a musl C
# compiler, e.g. musl-gcc, for SQLite and ring); musl's allocator makes the server slower. It
# checks that a static binary is statically linked. Running it again into the same
# directory adds targets; SHA256SUMS and its signature then cover all of them.
#
# Usage: scripts/release.sh --signing-key FILE [OPTIONS] [--out-dir DIR | DIR]
#   --signing-key FILE  the OpenSSH private key that signs SHA256SUMS (`ssh-keygen -Y sign`); or
#                       its public key when the private key is in ssh-agent. Env:
#                       LOCKER_SIGNING_KEY. Its public key (FILE.pub, or derived from FILE) is
#                       stamped into install.sh.
#   --unsigned          no signature: install.sh is left without a key and checks checksums only
#                       (for test releases; a published release must be signed)
#   --target TRIPLE     a Rust target triple, or `static`; repeatable (default: the host's, and on
#                       Linux also `static`; other triples need `rustup target add`)
#   --base-url URL      where the release will be served, as install.sh's DEFAULT_BASE_URL:
#                       install.sh downloads from URL/v<version>/ (default: Cargo.toml's
#                       repository + /releases/download, i.e. the repository's GitHub releases).
#                       Env: LOCKER_RELEASE_BASE_URL
#   --profile PROFILE   the cargo profile (default release, which strips; dev is faster and only
#                       for tests)
#   --out-dir DIR       where to write (default: ../locker-dist beside the source tree)
#   --bin FILE          package this already-built binary instead of building one (exactly one
#                       --target, which FILE must be built for; for tests that already have a
#                       build: the archive, checksums, signature and stamping are the same)
# The archive is reproducible where practical: sorted names, ustar, owner and group 0,
# mtime = SOURCE_DATE_EPOCH (default: the last commit's time), gzip without name or time,
# paths in the binary remapped. It needs no network beyond crates.io (for `cargo build`).
set -euo pipefail

die() {
    echo "release: error: $*" >&2
    exit 1
}

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
targets=()
profile=release
out=''
signing_key="${LOCKER_SIGNING_KEY:-}"
unsigned=false
prebuilt=''
base_url="${LOCKER_RELEASE_BASE_URL:-}"
while [ "$#" -gt 0 ]; do
    case "$1" in
        --target) targets+=("${2:?--target needs a value}"); shift 2 ;;
        --target=*) targets+=("${1#*=}"); shift ;;
        --profile) profile="${2:?--profile needs a value}"; shift 2 ;;
        --profile=*) profile="${1#*=}"; shift ;;
        --out-dir) out="${2:?--out-dir needs a value}"; shift 2 ;;
        --out-dir=*) out="${1#*=}"; shift ;;
        --signing-key) signing_key="${2:?--signing-key needs a value}"; shift 2 ;;
        --signing-key=*) signing_key="${1#*=}"; shift ;;
        --unsigned) unsigned=true; shift ;;
        --bin) prebuilt="${2:?--bin needs a value}"; shift 2 ;;
        --bin=*) prebuilt="${1#*=}"; shift ;;
        --base-url) base_url="${2:?--base-url needs a value}"; shift 2 ;;
        --base-url=*) base_url="${1#*=}"; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) die "unknown option: $1 (see --help)" ;;
        *) [ -z "$out" ] || die "more than one output directory"; out="$1"; shift ;;
    esac
done
if [ -n "$prebuilt" ]; then # resolved where it was named, before the cd below
    { [ -f "$prebuilt" ] && [ -x "$prebuilt" ]; } || die "--bin $prebuilt is not an executable file"
    prebuilt="$(CDPATH='' cd -P -- "$(dirname -- "$prebuilt")" && pwd)/$(basename -- "$prebuilt")"
fi

cd "$root"

# ---- version and repository: Cargo.toml is the truth, VERSION its mirror -----------------------
package_field() { # NAME: a string field of [package]
    awk -v k="$1" '/^\[/ { pkg = ($0 == "[package]") }
        pkg && $0 ~ "^" k " *= *\"" { sub("^" k " *= *\"", ""); sub(/".*$/, ""); print; exit }' Cargo.toml
}
version="$(package_field version)"
[ -n "$version" ] || die "cannot read the package version from Cargo.toml"
[ "$(cat VERSION)" = "$version" ] || die "VERSION ($(cat VERSION)) differs from Cargo.toml ($version)"
if [ -z "$base_url" ]; then
    repository="$(package_field repository)"
    [ -n "$repository" ] || die "Cargo.toml has no repository; pass --base-url"
    base_url="${repository%/}/releases/download"
fi
base_url="${base_url%/}"
case "$base_url" in
    *[!A-Za-z0-9._~:/%+=-]*) die "the base URL holds characters install.sh refuses: $base_url" ;;
    https://?* | http://127.0.0.1[:/]* | http://127.0.0.1 | http://localhost[:/]* | http://localhost) ;;
    *) die "the base URL must be https:// (or http:// to loopback, for tests): $base_url" ;;
esac

# ---- tools --------------------------------------------------------------------------------------
host="$(rustc -vV | sed -n 's/^host: //p')"
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

# ---- the signing key, checked before anything is built ------------------------------------------
# A public key line as install.sh accepts it: type and base64, the comment dropped.
key_re='^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]+={0,2}$'
public_key=''
if [ -n "$signing_key" ]; then
    [ "$unsigned" = false ] || die "--unsigned and a signing key contradict each other"
    command -v ssh-keygen >/dev/null 2>&1 || die "ssh-keygen (OpenSSH 8.1 or later) is needed to sign"
    [ -r "$signing_key" ] || die "cannot read the signing key $signing_key"
    if [ -r "$signing_key.pub" ]; then
        key_text="$(head -n 1 "$signing_key.pub")"
    elif head -n 1 "$signing_key" | grep -Eq '^(ssh-|ecdsa-|sk-)'; then
        key_text="$(head -n 1 "$signing_key")" # a public key: the private half is in ssh-agent
    else
        key_text="$(ssh-keygen -y -f "$signing_key")" || die "cannot read the public key of $signing_key"
    fi
    public_key="$(printf '%s\n' "$key_text" | awk 'NR == 1 { print $1 " " $2 }')"
    printf '%s\n' "$public_key" | grep -Eq "$key_re" \
        || die "the signing key's public half is not an OpenSSH public key line: $key_text"
elif [ "$unsigned" = false ]; then
    die "no signing key: pass --signing-key FILE (or set LOCKER_SIGNING_KEY); --unsigned makes a test release install.sh cannot authenticate"
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

# ---- targets: TRIPLE|LABEL|LINKAGE ------------------------------------------------------------
# The label names the archive: the triple, or TRIPLE-static for glibc linked statically.
if [ -n "$prebuilt" ]; then
    [ "${#targets[@]}" -eq 1 ] || die "--bin packages one binary: name its one --target"
fi
if [ "${#targets[@]}" -eq 0 ]; then
    targets=("$host")
    case "$host" in *-linux-*) targets+=(static) ;; esac
fi
plan=()
for t in "${targets[@]}"; do
    case "$t" in
        static)
            case "$host" in
                *-linux-gnu) plan+=("$host|$host-static|static-glibc") ;;
                *-linux-musl*) plan+=("$host|$host|static-musl") ;; # a musl host's own build is static
                *) die "--target static is for Linux hosts with glibc or musl (this is $host)" ;;
            esac
            ;;
        *[!a-z0-9_.-]* | '') die "not a target triple: $t" ;;
        *-linux-musl*) plan+=("$t|$t|static-musl") ;;
        *) plan+=("$t|$t|dynamic") ;;
    esac
done

target_dir="$(cargo metadata --format-version 1 --no-deps --locked 2>/dev/null \
    | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
[ -n "$target_dir" ] || target_dir="$root/target"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

json_str() {
    local s="$1"
    s="${s//\\/\\\\}"
    s="${s//\"/\\\"}"
    printf '"%s"' "$s"
}

# How the binary is linked, from file(1), else ldd(1), else readelf(1): "static" or "dynamic".
linkage_of() {
    if command -v file >/dev/null 2>&1; then
        case "$(file -b "$1")" in
            *'statically linked'* | *'static-pie linked'*) echo static ;;
            *'dynamically linked'*) echo dynamic ;;
            *) echo unknown ;;
        esac
    elif command -v readelf >/dev/null 2>&1; then
        case "$(readelf -lW "$1")" in
            *'Requesting program interpreter'*) echo dynamic ;;
            *) echo static ;;
        esac
    elif command -v ldd >/dev/null 2>&1; then
        case "$(ldd "$1" 2>&1)" in
            *'statically linked'* | *'not a dynamic executable'*) echo static ;;
            *) echo dynamic ;;
        esac
    else
        echo unknown
    fi
}

built=()
build_one() { # TRIPLE LABEL LINKAGE
    local triple="$1" label="$2" linkage="$3"
    local rustflags what
    # Paths remapped so that the binary names none of this machine's (build-static.sh's rule).
    rustflags="${RUSTFLAGS:-}${RUSTFLAGS:+ }$("$root/scripts/build-static.sh" --print-remap)"
    local bin="$target_dir/$triple/$profile_dir/locker"
    case "$linkage" in
        static-glibc) what="static, glibc linked statically" ;;
        static-musl) what="static, musl" ;;
        *) what="dynamically linked to the system's C library" ;;
    esac
    if [ -n "$prebuilt" ]; then
        echo "release: packaging $prebuilt as locker $version for $label (built beforehand)" >&2
        bin="$prebuilt"
        rustflags="(prebuilt binary: its build's flags are not recorded)"
    elif [ "$linkage" = static-glibc ]; then
        echo "release: building locker $version for $label ($what; $profile profile)" >&2
        # With packed relative relocations (a static binary applies them itself, with this
        # machine's C library linked into it: build.rs), the paths remapped, and the same
        # flags as scripts/bench.sh's and scripts/startup-order.sh's static builds, so that
        # scripts/startup-order.txt names its functions.
        bin="$(SOURCE_DATE_EPOCH="$epoch" "$root/scripts/build-static.sh" --profile "$profile")" \
            || die "the static build failed for $label"
        rustflags="$("$root/scripts/build-static.sh" --print-rustflags)"
    else
        echo "release: building locker $version for $label ($what; $profile profile)" >&2
        # No packed relative relocations (build.rs, `DT_RELR`) unless asked for: they need
        # glibc 2.36 where the binary runs, and without them it runs on 2.34 (Ubuntu 22.04,
        # RHEL 9); a build from source on the host it runs on has them.
        LOCKER_NO_RELR="${LOCKER_NO_RELR-1}" RUSTFLAGS="$rustflags" SOURCE_DATE_EPOCH="$epoch" \
            cargo build --locked --quiet --profile "$profile" --target "$triple" --bin locker \
            || die "cargo build failed for $label (for another target: rustup target add $triple)"
    fi
    [ -f "$bin" ] || die "the build did not produce $bin"

    # ---- linkage and symbols ------------------------------------------------------------------
    local linked
    linked="$(linkage_of "$bin")"
    case "$linkage" in
        static-*)
            [ "$linked" = static ] || die "$label: the binary is not statically linked ($(file -b "$bin" 2>/dev/null || echo "$linked"))"
            ;;
    esac
    local stripped=unknown
    if command -v file >/dev/null 2>&1; then
        case "$(file -b "$bin")" in
            *'not stripped'*) stripped=false ;;
            *stripped*) stripped=true ;;
        esac
    fi
    if [ "$profile" = release ] && [ "$stripped" = false ]; then
        die "$label: the release binary is not stripped (Cargo.toml's [profile.release] strip = true)"
    fi

    # ---- stage ---------------------------------------------------------------------------------
    local name="locker-$version-$label"
    local stage="$tmp/$name"
    rm -rf "$stage" "$tmp/gen"
    mkdir -p "$stage/man" "$stage/completions"
    cp "$bin" "$stage/locker"
    cp man/*.1 "$stage/man/"
    cp completions/* "$stage/completions/"
    cp README.md LICENSE "$stage/"
    cp -R docs "$stage/docs" # the pages README.md links to

    # The committed docs must be what this binary generates (when it can run here).
    local runnable=false
    case "$triple" in
        "$host") runnable=true ;;
        "${host%%-*}"-unknown-linux-musl) case "$host" in *-linux-*) runnable=true ;; esac ;;
    esac
    if [ "$runnable" = true ]; then
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

    # ---- archive -------------------------------------------------------------------------------
    local archive="$name.tar.gz"
    (
        cd "$tmp"
        LC_ALL=C "$tar" --sort=name --format=ustar --owner=0 --group=0 --numeric-owner \
            --mtime="@$epoch" -cf - "$name" | gzip -n -9 >"$tmp/$archive"
    )
    mv -f "$tmp/$archive" "$out/$archive"

    # ---- provenance ----------------------------------------------------------------------------
    local archive_sha binary_sha archive_bytes binary_bytes provenance="$name.provenance.json"
    archive_sha="$(sha256 "$out/$archive" | awk '{print $1}')"
    binary_sha="$(sha256 "$stage/locker" | awk '{print $1}')"
    archive_bytes="$(wc -c <"$out/$archive" | tr -d ' ')"
    binary_bytes="$(wc -c <"$stage/locker" | tr -d ' ')"
    {
        printf '{\n'
        printf '  "schema": "locker.provenance.v1",\n'
        printf '  "version": %s,\n' "$(json_str "$version")"
        printf '  "target": %s,\n' "$(json_str "$label")"
        printf '  "rust_target": %s,\n' "$(json_str "$triple")"
        printf '  "linkage": %s,\n' "$(json_str "$linkage")"
        printf '  "stripped": %s,\n' "$([ "$stripped" = unknown ] && echo null || echo "$stripped")"
        printf '  "profile": %s,\n' "$(json_str "$profile")"
        printf '  "source": {"commit": %s, "dirty": %s, "date_epoch": %s},\n' \
            "$(json_str "$commit")" "$dirty" "$epoch"
        printf '  "toolchain": {"rustc": %s, "cargo": %s, "host": %s, "rustflags": %s},\n' \
            "$(json_str "$(rustc --version)")" "$(json_str "$(cargo --version)")" \
            "$(json_str "$host")" "$(json_str "$rustflags")"
        printf '  "artifacts": [\n'
        printf '    {"name": %s, "sha256": "%s", "bytes": %s},\n' "$(json_str "$archive")" "$archive_sha" "$archive_bytes"
        printf '    {"name": %s, "sha256": "%s", "bytes": %s}\n' "$(json_str "$name/locker")" "$binary_sha" "$binary_bytes"
        printf '  ]\n'
        printf '}\n'
    } >"$tmp/$provenance"
    mv -f "$tmp/$provenance" "$out/$provenance"

    local summary="$linked"
    case "$stripped" in
        true) summary="$summary, stripped" ;;
        false) summary="$summary, not stripped" ;;
    esac
    echo "release: wrote $out/$archive ($archive_bytes bytes; binary $binary_bytes bytes, $summary; $archive_sha)" >&2
    built+=("$out/$archive")
}

for entry in "${plan[@]}"; do
    IFS='|' read -r triple label linkage <<<"$entry"
    build_one "$triple" "$label" "$linkage"
done

# ---- the installer, stamped with this version, the base URL and the release key ---------------
for line in LOCKER_STAMPED_VERSION DEFAULT_BASE_URL LOCKER_RELEASE_PUBLIC_KEY; do
    [ "$(grep -c "^$line=" install.sh)" = 1 ] || die "install.sh must have exactly one $line= line"
done
# The values hold none of sed's | & \ (checked above: version, URL and key characters).
sed -e "s|^LOCKER_STAMPED_VERSION=.*|LOCKER_STAMPED_VERSION=$version|" \
    -e "s|^DEFAULT_BASE_URL=.*|DEFAULT_BASE_URL=$base_url|" \
    -e "s|^LOCKER_RELEASE_PUBLIC_KEY=.*|LOCKER_RELEASE_PUBLIC_KEY='$public_key'|" \
    install.sh >"$tmp/install.sh"
chmod 0755 "$tmp/install.sh"
mv -f "$tmp/install.sh" "$out/install.sh"

# ---- SHA256SUMS over every file of this version in the directory, and its signature ------------
(
    cd "$out"
    export LC_ALL=C # byte order for the glob below
    files=()
    for f in "locker-$version-"*.tar.gz "locker-$version-"*.provenance.json install.sh; do
        if [ -f "$f" ]; then files+=("$f"); fi
    done
    sha256 "${files[@]}" >SHA256SUMS.tmp
    mv -f SHA256SUMS.tmp SHA256SUMS
    rm -f SHA256SUMS.sig # a signature over an older SHA256SUMS
)
if [ -n "$public_key" ]; then
    ssh-keygen -q -Y sign -n locker-release -f "$signing_key" "$out/SHA256SUMS" \
        || die "ssh-keygen could not sign $out/SHA256SUMS with $signing_key"
    # Verify as install.sh will, with the key stamped into it.
    printf 'locker-release namespaces="locker-release" %s\n' "$public_key" >"$tmp/allowed_signers"
    ssh-keygen -Y verify -f "$tmp/allowed_signers" -I locker-release -n locker-release \
        -s "$out/SHA256SUMS.sig" <"$out/SHA256SUMS" >/dev/null 2>&1 \
        || die "the new signature does not verify with the stamped key $public_key"
    printf '%s\n' "$public_key" >"$tmp/key.pub"
    echo "release: signed SHA256SUMS with $(ssh-keygen -l -f "$tmp/key.pub" | awk '{ print $2 }') ($public_key)" >&2
else
    echo "release: warning: UNSIGNED (--unsigned): install.sh carries no key and checks checksums only" >&2
fi

echo "release: wrote $out/install.sh (for $base_url/v$version/) and $out/SHA256SUMS" >&2
printf '%s\n' "${built[@]}"
