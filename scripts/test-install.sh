#!/usr/bin/env bash
# End-to-end test of install.sh against a real HTTP server on loopback.
#
# Builds a release for the host's target with scripts/release.sh (dev profile by default: same
# archive layout, faster), signed with a throwaway SSH key (ssh-keygen -t ed25519 -N '') and
# stamped with the loopback server's URL; serves it and deliberately broken variants of it with
# `python3 -m http.server` on 127.0.0.1, and runs the shipped (stamped) install.sh against each.
# A clean install must work; every broken case (a tampered archive, a tampered SHA256SUMS, a
# missing SHA256SUMS.sig, a signature by another key, no ssh-keygen, malformed checksums and
# archives, ...) must fail with a clear message and change nothing: the existing install stays
# byte-identical and no staging or temporary files are left behind.
# Prints one PASS/FAIL line per check (SKIP for optional tools this machine lacks) and exits 1
# if any check failed.
#
# Usage: scripts/test-install.sh [--profile dev|release] [--bin FILE] [--dist DIR]
#   --bin FILE   make the release from this already-built binary of the host's target (passed to
#                scripts/release.sh --bin; CI hands it the test suite's build instead of building
#                the crate once more); a copy is stripped first when strip(1) is here
#   --dist DIR   reuse a signed release already built by scripts/release.sh into DIR (no build;
#                the checks that need its stamped URL to be this test's server are skipped)
set -euo pipefail

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
profile=dev
dist=''
bin=''
while [ "$#" -gt 0 ]; do
    case "$1" in
        --profile) profile="${2:?--profile needs a value}"; shift 2 ;;
        --dist) dist="${2:?--dist needs a value}"; shift 2 ;;
        --bin) bin="${2:?--bin needs a value}"; shift 2 ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "test-install: unknown argument: $1" >&2; exit 2 ;;
    esac
done

for tool in python3 curl tar gzip sha256sum ssh-keygen; do
    command -v "$tool" >/dev/null 2>&1 || { echo "test-install: $tool is needed" >&2; exit 2; }
done

work="$(mktemp -d)"
chmod 0755 "$work" # an unprivileged user runs one check
server_pid=''
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

version="$(cat "$root/VERSION")"
host="$(rustc -vV | sed -n 's/^host: //p')"
target="$host"
prefix="locker-$version-$target"
asset="$prefix.tar.gz"
# What install.sh looks for in SHA256SUMS, in its order: on Linux the static archive first.
case "$target" in
    *-linux-gnu) wanted_assets="locker-$version-$target-static.tar.gz or $asset" ;;
    *) wanted_assets="$asset" ;;
esac

# ---- the server: one directory per case, started first (the release is stamped with its URL) --
srv="$work/srv"
mkdir -p "$srv"
python3 -u -m http.server --bind 127.0.0.1 --directory "$srv" 0 >"$work/http.log" 2>&1 &
server_pid=$!
port=''
for _ in $(seq 1 100); do
    port="$(sed -n 's/^Serving HTTP on .* port \([0-9]*\).*/\1/p' "$work/http.log")"
    [ -z "$port" ] || break
    sleep 0.1
done
[ -n "$port" ] || { echo "test-install: the HTTP server did not start" >&2; cat "$work/http.log" >&2; exit 2; }
base="http://127.0.0.1:$port"
curl -fsS -o /dev/null "$base/" || { echo "test-install: the HTTP server does not answer" >&2; exit 2; }

# ---- keys: the release's, another one (a signature by it must be refused) ------------------
keys="$work/keys"
mkdir -p "$keys"
for k in release other; do
    ssh-keygen -q -t ed25519 -N '' -C "locker test-install $k key" -f "$keys/$k"
done
test_key="$(awk '{ print $1 " " $2 }' "$keys/release.pub")"

# ---- the release ---------------------------------------------------------------------------
built=false
if [ -z "$dist" ]; then
    dist="$work/dist"
    started=$SECONDS
    bin_args=()
    if [ -n "$bin" ]; then
        # Stripped, as a release build is: a debug build's symbols are most of its 100 MB, and
        # every case below downloads and checks the archive.
        if command -v strip >/dev/null 2>&1; then
            strip -o "$work/locker" "$bin"
            bin="$work/locker"
        fi
        bin_args=(--bin "$bin")
        # What --bin refuses, it refuses before writing anything: two targets for one binary,
        # and a file that is not an executable.
        refusals=(
            "--target $host --target $host --bin $bin|--bin packages one binary"
            "--target $host --bin $work/keys/release.pub|is not an executable file"
            "--target $host --bin $work/missing|is not an executable file"
        )
        for case in "${refusals[@]}"; do
            read -r -a case_args <<<"${case%%|*}"
            if "$root/scripts/release.sh" --profile "$profile" "${case_args[@]}" \
                --signing-key "$keys/release" --out-dir "$work/refused" >/dev/null 2>"$work/refused.err"; then
                echo "test-install: release.sh ${case%%|*} was not refused" >&2
                exit 1
            fi
            grep -qF -- "${case#*|}" "$work/refused.err" || {
                echo "test-install: release.sh ${case%%|*} did not say '${case#*|}':" >&2
                cat "$work/refused.err" >&2
                exit 1
            }
            [ ! -e "$work/refused" ] || [ -z "$(ls -A "$work/refused")" ] || {
                echo "test-install: release.sh ${case%%|*} wrote into its output directory" >&2
                exit 1
            }
        done
        echo "test-install: release.sh --bin refused two targets and a non-executable file"
    fi
    "$root/scripts/release.sh" --profile "$profile" --target "$host" "${bin_args[@]}" --signing-key "$keys/release" \
        --base-url "$base/stamped" --out-dir "$dist" >/dev/null
    echo "test-install: scripts/release.sh $(if [ -n "$bin" ]; then echo packaged; else echo built; fi) and signed the release in $((SECONDS - started)) s"
    built=true
fi
dist="$(CDPATH='' cd -P -- "$dist" && pwd)"
[ -f "$dist/$asset" ] || { echo "test-install: $dist/$asset is missing" >&2; exit 2; }
installer="$dist/install.sh"
dist_key="$(sed -n "s/^LOCKER_RELEASE_PUBLIC_KEY='\(.*\)'\$/\1/p" "$installer")"
if [ -z "$dist_key" ] || [ ! -f "$dist/SHA256SUMS.sig" ]; then
    echo "test-install: $dist is not a signed release (install.sh has no key or SHA256SUMS.sig is missing)" >&2
    exit 2
fi
# Cases whose SHA256SUMS this test rewrites are signed again with the test's release key; the
# installer is told that key (the release's own when this test built it).
by_test_key=(--public-key "$test_key")
sum_line() { (cd "$1" && sha256sum "$asset"); }
sign() { # DIR [KEY [NAMESPACE]]: DIR/SHA256SUMS.sig, by KEY (default: the test's release key)
    rm -f "$1/SHA256SUMS.sig"
    ssh-keygen -q -Y sign -n "${3:-locker-release}" -f "${2:-$keys/release}" "$1/SHA256SUMS"
}
make_case() { # NAME: a copy of the release in $srv/NAME
    mkdir -p "$srv/$1"
    cp "$dist/$asset" "$dist/SHA256SUMS" "$dist/SHA256SUMS.sig" "$srv/$1/"
}

make_case good

make_case corrupt # one byte of the archive flipped; SHA256SUMS still has the original hash
python3 - "$srv/corrupt/$asset" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0, 2)
    middle = f.tell() // 2
    f.seek(middle)
    byte = f.read(1)[0]
    f.seek(middle)
    f.write(bytes([byte ^ 0x01]))
PY
cmp -s "$dist/$asset" "$srv/corrupt/$asset" && { echo "test-install: corruption failed" >&2; exit 2; }

make_case tampered-sums # the corrupted archive with SHA256SUMS rewritten to match; the old .sig
cp "$srv/corrupt/$asset" "$srv/tampered-sums/$asset"
{
    grep -v " $asset\$" "$dist/SHA256SUMS"
    sum_line "$srv/tampered-sums"
} >"$srv/tampered-sums/SHA256SUMS"

make_case missing-sig # no SHA256SUMS.sig
rm "$srv/missing-sig/SHA256SUMS.sig"

make_case unsigned # the same, for the source tree's install.sh (which has no key)
rm "$srv/unsigned/SHA256SUMS.sig"

make_case other-key # SHA256SUMS signed by a key the installer does not trust
sign "$srv/other-key" "$keys/other"

make_case other-namespace # the right key, but a signature made for another purpose
sign "$srv/other-namespace" "$keys/release" file

make_case garbage-sig # a .sig that is not a signature
printf 'not a signature\n' >"$srv/garbage-sig/SHA256SUMS.sig"

make_case test-key # the release signed again by the test's key (for the cases below)
sign "$srv/test-key"

# The stamped URL is $base/stamped (the GitHub layout: URL/v<version>/...).
mkdir -p "$srv/stamped"
cp -R "$srv/good" "$srv/stamped/v$version"

make_case missing-line # SHA256SUMS lists other files only
grep -v " $asset\$" "$dist/SHA256SUMS" >"$srv/missing-line/SHA256SUMS"
sign "$srv/missing-line"

make_case wrong-line # a well-formed line with another file's hash
{
    grep -v " $asset\$" "$dist/SHA256SUMS"
    printf '%s  %s\n' "$(sha256sum "$dist/install.sh" | awk '{print $1}')" "$asset"
} >"$srv/wrong-line/SHA256SUMS"
sign "$srv/wrong-line"

make_case dup-line # the right line, twice
grep " $asset\$" "$dist/SHA256SUMS" >>"$srv/dup-line/SHA256SUMS"
sign "$srv/dup-line"

make_case prefix-line # a line for a longer name only (e.g. a .tar.gz.sig)
{
    grep -v " $asset\$" "$dist/SHA256SUMS"
    printf '%s  %s\n' "$(sha256sum "$dist/$asset" | awk '{print $1}')" "$asset.old"
} >"$srv/prefix-line/SHA256SUMS"
sign "$srv/prefix-line"

# Archives rebuilt from the real one, each with a correct SHA256SUMS line.
unpacked="$work/unpacked"
mkdir -p "$unpacked"
tar -xzf "$dist/$asset" -C "$unpacked"
rebuild() { # NAME TAR-ARGS...: an archive made by tar in $unpacked, with a matching SHA256SUMS
    local name="$1"
    shift
    mkdir -p "$srv/$name"
    (cd "$unpacked" && tar --owner=0 --group=0 -cf "$work/$name.tar" "$@")
    gzip -n -1 -c "$work/$name.tar" >"$srv/$name/$asset"
    sum_line "$srv/$name" >"$srv/$name/SHA256SUMS"
    sign "$srv/$name"
}
cp "$unpacked/$prefix/locker" "$unpacked/locker"
rebuild two-lockers "$prefix" locker # a second `locker` at the top level
rebuild dup-member "$prefix" "$prefix/locker" # the same member twice
mkdir -p "$unpacked/link/$prefix"
ln -s /bin/sh "$unpacked/link/$prefix/locker"
rebuild symlink-member -C link "$prefix/locker" # locker is a symlink
printf 'not a tarball\n' >"$work/junk"
mkdir -p "$srv/not-a-tarball"
cp "$work/junk" "$srv/not-a-tarball/$asset"
sum_line "$srv/not-a-tarball" >"$srv/not-a-tarball/SHA256SUMS"
sign "$srv/not-a-tarball"
mkdir -p "$srv/wrong-version" # a binary that is not the version the archive claims
mkdir -p "$work/wv/$prefix"
printf '#!/bin/sh\necho "locker 9.9.9"\n' >"$work/wv/$prefix/locker"
chmod 0755 "$work/wv/$prefix/locker"
(cd "$work/wv" && tar --owner=0 --group=0 -czf "$srv/wrong-version/$asset" "$prefix")
sum_line "$srv/wrong-version" >"$srv/wrong-version/SHA256SUMS"
sign "$srv/wrong-version"
# A release with the static archive beside the dynamic one, as scripts/release.sh makes on
# Linux (the same binary, packed under the static archive's name: the installer picks an
# archive by its name and never looks at how its binary is linked).
static_asset="locker-$version-$target-static.tar.gz"
make_case with-static
mkdir -p "$work/st"
cp -R "$unpacked/$prefix" "$work/st/$prefix-static"
(cd "$work/st" && tar --owner=0 --group=0 -czf "$srv/with-static/$static_asset" "$prefix-static")
(cd "$srv/with-static" && sha256sum "$static_asset") >>"$srv/with-static/SHA256SUMS"
sign "$srv/with-static"
chmod -R a+rX "$srv" "$dist"

# ---- helpers ---------------------------------------------------------------------------------
failures=0
pass() { echo "PASS $1"; }
fail() {
    echo "FAIL $1: $2"
    failures=$((failures + 1))
    if [ -f "$work/out" ]; then sed 's/^/    | /' "$work/out"; fi
}

# Sets h to a new, empty home directory (HOME/.local/bin is the bin dir, HOME/.local/share
# the data dir), with its own TMPDIR.
n=0
new_home() {
    n=$((n + 1))
    h="$work/home$n"
    mkdir -p "$h" "$work/tmp$n"
    chmod 0755 "$h"
    chmod 1777 "$work/tmp$n"
}

# Runs the installer with a clean environment; extra VAR=VALUE words go before it.
# Output (stdout and stderr) lands in $work/out; returns the installer's status.
run_installer() { # HOME [VAR=VALUE...] -- ARGS...
    local h="$1"
    shift
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    local tmpdir="$work/tmp${h##*home}"
    env -i HOME="$h" PATH="$PATH" TMPDIR="$tmpdir" LC_ALL=C "${vars[@]}" \
        sh "$installer" "$@" >"$work/out" 2>&1
}

# Everything under DIR: paths, types and the SHA-256 of every file.
snapshot() {
    (
        cd "$1"
        find . -type d | LC_ALL=C sort | sed 's/^/d /'
        find . -type l | LC_ALL=C sort | sed 's/^/l /'
        find . -type f -exec sha256sum {} + | LC_ALL=C sort -k 2
        find . -type f -perm -u+x | LC_ALL=C sort | sed 's/^/x /'
    )
}

leftovers() { # HOME: staging or temporary files left behind
    find "$1" "$work/tmp${1##*home}" -name '.locker-install.*' -o -name 'locker-install.*' \
        | grep . || true
}

# Sets h to a home with locker already installed from the good release (a copy of the clean
# install's home): the existing install that failed runs must leave alone.
template=''
installed_home() {
    new_home
    if [ -z "$template" ]; then
        fail "setup" "no clean install to copy"
        return 1
    fi
    cp -Rp "$template/.local" "$h/"
}

# Expects the installer to fail with MESSAGE (an ERE) and to change nothing in HOME.
expect_refusal() { # CHECK HOME MESSAGE [VAR=VALUE...] -- ARGS...
    local check="$1" h="$2" message="$3"
    shift 3
    local before after status=0
    before="$(snapshot "$h")"
    run_installer "$h" "$@" || status=$?
    after="$(snapshot "$h")"
    if [ "$status" -eq 0 ]; then
        fail "$check" "the installer exited 0"
    elif ! grep -Eq "error: .*$message" "$work/out"; then
        fail "$check" "exit $status, but the output does not match /$message/"
    elif [ "$before" != "$after" ]; then
        fail "$check" "the home directory changed: $(diff <(echo "$before") <(echo "$after") | head -5 | tr '\n' ' ')"
    elif [ -n "$(leftovers "$h")" ]; then
        fail "$check" "left behind: $(leftovers "$h" | tr '\n' ' ')"
    elif [ -f "$h/.local/bin/locker" ] && ! cmp -s "$h/.local/bin/locker" "$unpacked/$prefix/locker"; then
        fail "$check" "the installed binary is not byte-identical"
    else
        pass "$check (exit $status: $(grep -E '^locker-install: error:' "$work/out" | head -1 | sed 's/^locker-install: error: //'))"
    fi
}

# Runs the installer (as expect_refusal does) and checks that it installed the release and said
# it installed ASSET for TARGET.
expect_install() { # CHECK HOME ASSET TARGET [VAR=VALUE...] -- ARGS...
    local check="$1" h="$2" want="installing $3 ($4)"
    shift 4
    if run_installer "$h" "$@" && [ "$("$h/.local/bin/locker" -V)" = "locker $version" ] \
        && grep -qF "$want" "$work/out"; then
        pass "$check"
    else
        fail "$check" "it did not install the release saying \"$want\""
    fi
}

# What the bash completion installed under home $1 offers for `locker pa`, asking the installed
# binary (the script registers dynamic completion: it calls `locker` back on every TAB).
completes() {
    PATH="$1/.local/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(locker pa); COMP_CWORD=1; COMP_TYPE=9
        _clap_complete_locker locker pa locker; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$1/.local/share/bash-completion/completions/locker" 2>/dev/null
}

# ---- checks ----------------------------------------------------------------------------------
echo "test-install: locker $version for $target from $base (release in $dist)"

# A clean install into an empty home.
new_home
if ! run_installer "$h" -- --base-url "$base/good"; then
    fail "clean install" "the installer failed"
elif [ "$("$h/.local/bin/locker" -V)" != "locker $version" ]; then
    fail "clean install" "the installed binary does not report locker $version"
elif ! grep -qE "^locker ${version//./\\.}( \(.*\))?$" "$work/out"; then
    fail "clean install" "the installer did not run the installed binary"
elif ! grep -q '^locker-install: verified the signature on SHA256SUMS (key SHA256:' "$work/out"; then
    fail "clean install" "the installer did not say it verified the signature"
elif ! cmp -s "$h/.local/share/man/man1/locker.1" "$root/man/locker.1"; then
    fail "clean install" "man/locker.1 was not installed"
elif [ "$(find "$h/.local/share/man/man1" -name 'locker*.1' | wc -l)" -ne "$(find "$root/man" -name '*.1' | wc -l)" ]; then
    fail "clean install" "not every man page was installed"
elif ! cmp -s "$h/.local/share/bash-completion/completions/locker" "$root/completions/locker.bash" \
    || ! cmp -s "$h/.local/share/zsh/site-functions/_locker" "$root/completions/_locker" \
    || ! cmp -s "$h/.local/share/fish/vendor_completions.d/locker.fish" "$root/completions/locker.fish"; then
    fail "clean install" "the completions were not installed"
elif [ "$(completes "$h")" != pad ]; then
    fail "clean install" "the installed bash completion does not complete \`locker pa\` to \`pad\`"
elif [ -n "$(leftovers "$h")" ]; then
    fail "clean install" "left behind: $(leftovers "$h" | tr '\n' ' ')"
elif [ "$(stat -c %a "$h/.local/bin/locker" 2>/dev/null || stat -f %Lp "$h/.local/bin/locker")" != 755 ]; then
    fail "clean install" "the binary's mode is not 0755"
else
    template="$h"
    pass "clean install (signature and SHA-256 verified; binary, $(find "$h/.local/share/man/man1" -name '*.1' | wc -l | tr -d ' ') man pages, bash/zsh/fish completions; bash completes through the installed binary)"
fi

# The stamped installer alone: its version, base URL and key, no options.
if [ "$built" = true ]; then
    new_home
    if run_installer "$h" -- && [ "$("$h/.local/bin/locker" -V)" = "locker $version" ] \
        && grep -q "installing locker $version from $base/stamped/v$version\$" "$work/out" \
        && grep -q "installing $asset ($target)\$" "$work/out" \
        && grep -q 'verified the signature on SHA256SUMS' "$work/out"; then
        pass "stamped install.sh with no options (its base URL and key)"
    else
        fail "stamped install.sh with no options (its base URL and key)" "it did not install"
    fi
else
    echo "SKIP stamped install.sh with no options (--dist: its base URL is not this server)"
fi

# install.sh from the source tree has no key: checksums only, and it says so.
new_home
installer="$root/install.sh"
sig_requests="$(grep -c 'SHA256SUMS.sig' "$work/http.log" || true)"
status=0
run_installer "$h" -- --base-url "$base/unsigned" || status=$?
installer="$dist/install.sh"
if [ "$status" -eq 0 ] && [ "$("$h/.local/bin/locker" -V)" = "locker $version" ] \
    && grep -q 'carries no release key: SHA256SUMS is checked for integrity only' "$work/out" \
    && [ "$sig_requests" = "$(grep -c 'SHA256SUMS.sig' "$work/http.log" || true)" ]; then
    pass "unstamped install.sh (the source tree's): checksums only, and it says so"
else
    fail "unstamped install.sh (the source tree's): checksums only, and it says so" "it did not install or did not say so"
fi

# Installing the same release again over an existing install works and changes no bytes.
installed_home && {
    before="$(snapshot "$h")"
    if run_installer "$h" -- --base-url "$base/good" && [ "$before" = "$(snapshot "$h")" ] \
        && [ -z "$(leftovers "$h")" ]; then
        pass "reinstall over an existing install"
    else
        fail "reinstall over an existing install" "it failed or changed bytes"
    fi
}

# --help downloads nothing and changes nothing.
installed_home && {
    before="$(snapshot "$h")"
    requests="$(grep -c 'GET ' "$work/http.log" || true)"
    if run_installer "$h" -- --help --base-url "$base/good" \
        && grep -q 'LOCKER_INSECURE_SKIP_CHECKSUM' "$work/out" \
        && grep -qF "requires SHA256SUMS.sig by: $dist_key" "$work/out" \
        && [ "$before" = "$(snapshot "$h")" ] \
        && [ "$requests" = "$(grep -c 'GET ' "$work/http.log" || true)" ]; then
        pass "--help explains and changes nothing"
    else
        fail "--help explains and changes nothing" "it failed or changed something"
    fi
}

# Refused on the signature: the archive is never downloaded.
not_fetched() { # CHECK CASE
    if grep -q "\"GET /$2/$asset " "$work/http.log"; then
        fail "$1" "the archive was downloaded before the signature was checked"
    fi
}
installed_home && expect_refusal "one-byte-corrupted archive (signed SHA256SUMS intact)" "$h" \
    'checksum mismatch' -- --base-url "$base/corrupt"
installed_home && expect_refusal "tampered archive and SHA256SUMS (the old signature)" "$h" \
    'the signature on SHA256SUMS does not verify' -- --base-url "$base/tampered-sums"
not_fetched "tampered archive and SHA256SUMS (the old signature)" tampered-sums
installed_home && expect_refusal "missing SHA256SUMS.sig" "$h" \
    'cannot download .*/SHA256SUMS.sig; refusing' -- --base-url "$base/missing-sig"
not_fetched "missing SHA256SUMS.sig" missing-sig
installed_home && expect_refusal "SHA256SUMS signed by another key" "$h" \
    'the signature on SHA256SUMS does not verify' -- --base-url "$base/other-key"
not_fetched "SHA256SUMS signed by another key" other-key
installed_home && expect_refusal "signature by the right key in another namespace" "$h" \
    'the signature on SHA256SUMS does not verify' -- --base-url "$base/other-namespace" "${by_test_key[@]}"
installed_home && expect_refusal "SHA256SUMS.sig that is not a signature" "$h" \
    'the signature on SHA256SUMS does not verify' -- --base-url "$base/garbage-sig"
installed_home && expect_refusal "--public-key of another key (LOCKER_PUBLIC_KEY)" "$h" \
    'the signature on SHA256SUMS does not verify' \
    LOCKER_PUBLIC_KEY="$(cat "$keys/other.pub")" -- --base-url "$base/good"
installed_home && expect_refusal "--public-key that is not a key" "$h" \
    'the release public key is not an OpenSSH public key line' -- --base-url "$base/good" \
    --public-key 'ssh-ed25519 not/base64!'
installed_home && expect_refusal "missing checksum line" "$h" \
    "SHA256SUMS has no line for $wanted_assets;" -- --base-url "$base/missing-line" "${by_test_key[@]}"
installed_home && expect_refusal "wrong checksum line" "$h" \
    'checksum mismatch' -- --base-url "$base/wrong-line" "${by_test_key[@]}"
installed_home && expect_refusal "duplicated checksum line" "$h" \
    "SHA256SUMS has 2 lines for $asset" -- --base-url "$base/dup-line" "${by_test_key[@]}"
installed_home && expect_refusal "checksum line for a longer name only" "$h" \
    "SHA256SUMS has no line for $wanted_assets;" -- --base-url "$base/prefix-line" "${by_test_key[@]}"
installed_home && expect_refusal "archive with two locker files" "$h" \
    'must hold exactly one file named locker' -- --base-url "$base/two-lockers" "${by_test_key[@]}"
installed_home && expect_refusal "archive with a duplicated locker member" "$h" \
    'must hold exactly one file named locker' -- --base-url "$base/dup-member" "${by_test_key[@]}"
installed_home && expect_refusal "archive whose locker is a symlink" "$h" \
    'is not exactly one regular file' -- --base-url "$base/symlink-member" "${by_test_key[@]}"
installed_home && expect_refusal "archive that is not a tarball" "$h" \
    'is not a readable .tar.gz: .*not in gzip format' -- --base-url "$base/not-a-tarball" "${by_test_key[@]}"
installed_home && expect_refusal "binary reporting another version" "$h" \
    'reports "locker 9.9.9"' -- --base-url "$base/wrong-version" "${by_test_key[@]}"
installed_home && expect_refusal "release missing from the server" "$h" \
    'cannot download' -- --base-url "$base/no-such-release"

# On Linux the static archive is preferred when the release has it; --target (LOCKER_TARGET)
# picks another; one the release does not have is refused before anything is downloaded but
# SHA256SUMS.
new_home
expect_install "the static archive is installed when the release has it" "$h" \
    "$static_asset" "$target-static" -- --base-url "$base/with-static" "${by_test_key[@]}"
if grep -q "/with-static/$asset HTTP" "$work/http.log"; then
    fail "the static archive is installed when the release has it" "the other archive was downloaded too"
fi
new_home
expect_install "LOCKER_TARGET picks the dynamically linked archive over the static one" "$h" \
    "$asset" "$target" LOCKER_TARGET="$target" -- --base-url "$base/with-static" "${by_test_key[@]}"
installed_home && expect_refusal "--target the release does not have" "$h" \
    "SHA256SUMS has no line for locker-$version-$target-nosuch.tar.gz" \
    -- --base-url "$base/with-static" "${by_test_key[@]}" --target "$target-nosuch"
installed_home && expect_refusal "--target that is not a target name" "$h" \
    'not a target name' -- --base-url "$base/with-static" --target '../x'

# The re-signed release installs with the test's key: the cases above fail for their own reason.
new_home
if run_installer "$h" -- --base-url "$base/test-key" "${by_test_key[@]}" \
    && [ "$("$h/.local/bin/locker" -V)" = "locker $version" ]; then
    pass "install with --public-key (the release signed again by the test's key)"
else
    fail "install with --public-key (the release signed again by the test's key)" "it did not install"
fi

# Unsupported OS and CPU: a fake uname first on PATH.
fake="$work/fake-uname"
mkdir -p "$fake/os" "$fake/cpu"
cat >"$fake/os/uname" <<'SH'
#!/bin/sh
case "$1" in -m) echo x86_64 ;; *) echo FreeBSD ;; esac
SH
cat >"$fake/cpu/uname" <<'SH'
#!/bin/sh
case "$1" in -m) echo riscv64 ;; *) echo Linux ;; esac
SH
chmod 0755 "$fake/os/uname" "$fake/cpu/uname"
installed_home && expect_refusal "unsupported OS" "$h" 'unsupported OS: FreeBSD' \
    PATH="$fake/os:$PATH" -- --base-url "$base/good"
installed_home && expect_refusal "unsupported CPU" "$h" 'unsupported CPU: riscv64' \
    PATH="$fake/cpu:$PATH" -- --base-url "$base/good"

# No SHA-256 tool: PATH holds only the other commands install.sh uses (if it starts using
# one more, this check fails with "not found" instead of the expected message).
nosha="$work/nosha-bin"
mkdir -p "$nosha"
for tool in sh uname curl tar gzip awk mktemp grep tr head dirname chmod mkdir mv rm id cat; do
    ln -s "$(command -v "$tool")" "$nosha/$tool"
done
installed_home && expect_refusal "no SHA-256 tool on PATH" "$h" 'no SHA-256 tool found' \
    PATH="$nosha" -- --base-url "$base/good"

# No ssh-keygen: a stamped installer refuses (before any download) rather than skip the signature.
nokeygen="$work/nokeygen-bin"
mkdir -p "$nokeygen"
for tool in sh uname curl tar gzip awk mktemp grep tr head dirname chmod mkdir mv rm id cat sha256sum; do
    ln -s "$(command -v "$tool")" "$nokeygen/$tool"
done
installed_home && expect_refusal "no ssh-keygen on PATH" "$h" 'ssh-keygen \(OpenSSH 8.1 or later\) is needed' \
    PATH="$nokeygen" -- --base-url "$base/good"

# Plain http to anything but loopback is refused before any download.
installed_home && expect_refusal "plain http to a non-loopback host" "$h" \
    'refusing plain http' -- --base-url "http://127.0.0.1.example.com:$port/good"

# A symlinked bin directory is refused.
installed_home && {
    mkdir -p "$h/real-bin"
    ln -s "$h/real-bin" "$h/link-bin"
    expect_refusal "symlinked bin directory" "$h" 'is a symlink' -- \
        --base-url "$base/good" --bin-dir "$h/link-bin/"
}

# An unwritable bin directory (holding an existing binary). root can write anywhere, so as
# root the installer runs as nobody.
installed_home && {
    chmod 0555 "$h/.local/bin"
    if [ "$(id -u)" -eq 0 ]; then
        if command -v setpriv >/dev/null 2>&1; then
            installer_cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
        else
            installer_cmd=()
            fail "unwritable bin directory" "running as root without setpriv: cannot drop privileges"
        fi
    else
        installer_cmd=()
    fi
    if [ "$(id -u)" -ne 0 ] || [ "${#installer_cmd[@]}" -gt 0 ]; then
        before="$(snapshot "$h")"
        status=0
        (cd "$work" && env -i HOME="$h" PATH="$PATH" TMPDIR="$work/tmp${h##*home}" LC_ALL=C \
            "${installer_cmd[@]}" sh "$installer" --base-url "$base/good") >"$work/out" 2>&1 || status=$?
        if [ "$status" -eq 0 ]; then
            fail "unwritable bin directory" "the installer exited 0"
        elif ! grep -q "error: cannot write to $h/.local/bin" "$work/out"; then
            fail "unwritable bin directory" "exit $status without the expected message"
        elif [ "$before" != "$(snapshot "$h")" ] || [ -n "$(leftovers "$h")" ]; then
            fail "unwritable bin directory" "something changed"
        else
            pass "unwritable bin directory (exit $status: $(grep -E '^locker-install: error:' "$work/out" | head -1 | sed 's/^locker-install: error: //'))"
        fi
    fi
    chmod 0755 "$h/.local/bin"
}

# Other downloaders and hash tools: wget with shasum, curl with openssl (PATH holds only the
# commands install.sh uses).
for combo in wget:shasum curl:openssl; do
    set -- "${combo%:*}" "${combo#*:}"
    if ! command -v "$1" >/dev/null 2>&1 || ! command -v "$2" >/dev/null 2>&1; then
        echo "SKIP clean install with $1 and $2 ($1 or $2 is not installed here)"
        continue
    fi
    only="$work/only-$1-$2"
    mkdir -p "$only"
    for tool in sh uname "$1" "$2" tar gzip awk mktemp grep tr head dirname chmod mkdir mv rm id cat ssh-keygen; do
        ln -s "$(command -v "$tool")" "$only/$tool"
    done
    if [ "$2" = shasum ]; then ln -s "$(command -v perl)" "$only/perl"; fi
    new_home
    if run_installer "$h" PATH="$only" -- --base-url "$base/good" \
        && grep -q "verified SHA-256 .*($2)" "$work/out" && grep -q 'verified the signature' "$work/out" \
        && [ "$("$h/.local/bin/locker" -V)" = "locker $version" ] && [ -z "$(leftovers "$h")" ]; then
        pass "clean install with $1 and $2"
    else
        fail "clean install with $1 and $2" "it did not install"
    fi
done

# Directories with spaces in their names.
new_home
if run_installer "$h" -- --base-url "$base/good" --bin-dir "$h/my bin" --data-dir "$h/my share" \
    && [ "$("$h/my bin/locker" -V)" = "locker $version" ] \
    && [ -f "$h/my share/man/man1/locker.1" ] && [ -z "$(leftovers "$h")" ]; then
    pass "directories with spaces"
else
    fail "directories with spaces" "it did not install"
fi

# The explicit escape hatch: LOCKER_INSECURE_SKIP_CHECKSUM=1 installs without SHA256SUMS,
# loudly.
new_home
if run_installer "$h" LOCKER_INSECURE_SKIP_CHECKSUM=1 -- --base-url "$base/missing-line" \
    && grep -q "WARNING: LOCKER_INSECURE_SKIP_CHECKSUM=1: NOT verifying the archive's SHA-256 or the release's signature" "$work/out" \
    && grep -q "installing $asset ($target)\$" "$work/out" \
    && [ "$("$h/.local/bin/locker" -V)" = "locker $version" ]; then
    pass "LOCKER_INSECURE_SKIP_CHECKSUM=1 installs with a loud warning"
else
    fail "LOCKER_INSECURE_SKIP_CHECKSUM=1 installs with a loud warning" "it did not"
fi
# Without SHA256SUMS it takes the first archive that downloads: the static one when there is
# one, and it says which it tried when none does.
new_home
expect_install "LOCKER_INSECURE_SKIP_CHECKSUM=1 installs the static archive when there is one" "$h" \
    "$static_asset" "$target-static" LOCKER_INSECURE_SKIP_CHECKSUM=1 -- --base-url "$base/with-static"
installed_home && expect_refusal "LOCKER_INSECURE_SKIP_CHECKSUM=1 with no archive to download" "$h" \
    "cannot download .*/no-such-release/$static_asset or .*/no-such-release/$asset\$" \
    LOCKER_INSECURE_SKIP_CHECKSUM=1 -- --base-url "$base/no-such-release"

if [ "$failures" -ne 0 ]; then
    echo "test-install: $failures check(s) FAILED"
    exit 1
fi
echo "test-install: all checks passed"
