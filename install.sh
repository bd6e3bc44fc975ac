#!/bin/sh
# Installs a locker release for the current user: downloads the archive for this OS and CPU,
# verifies the signature on the release's SHA256SUMS (when this file carries the release's
# public key) and the archive's SHA-256 against it, and installs the binary, man pages and
# shell completions atomically, without sudo and without editing shell profiles.
# Run `sh install.sh --help` for everything it does and every knob it has.
set -eu

# The version installed when neither --version nor LOCKER_VERSION says otherwise.
# scripts/release.sh stamps it from VERSION; a test keeps it equal to VERSION in the source.
LOCKER_STAMPED_VERSION=0.1.0

# Where releases live: DEFAULT_BASE_URL/v<version>/locker-<version>-<target>.tar.gz.
# The repository's GitHub releases (Cargo.toml's `repository`); release.sh stamps it again
# (--base-url) and a test keeps it equal to Cargo.toml in the source.
DEFAULT_BASE_URL=https://github.com/locker-cli/locker-cli/releases/download

# The OpenSSH public key ("ssh-ed25519 AAAA...") whose signature on SHA256SUMS this installer
# requires. Empty in the source tree (checksums only); scripts/release.sh stamps the signer's.
LOCKER_RELEASE_PUBLIC_KEY=''

usage() {
    if [ -n "$LOCKER_RELEASE_PUBLIC_KEY" ]; then
        key_note="This installer requires SHA256SUMS.sig by: $LOCKER_RELEASE_PUBLIC_KEY"
    else
        key_note="This installer carries no release key (a source-tree copy): it checks checksums only."
    fi
    cat <<EOF
locker installer

Usage: sh install.sh [OPTIONS]

Downloads locker-<version>-<target>.tar.gz and SHA256SUMS from the release base URL;
with a release key it also downloads SHA256SUMS.sig and verifies that signature first.
It verifies the archive's SHA-256 against SHA256SUMS, checks that it holds exactly one
\`locker\` binary, and installs it into the bin directory. It never uses sudo and never
edits shell profiles. Any failure exits non-zero and leaves an existing install untouched.
$key_note

Options:
  --version VERSION   Install this version (X.Y.Z; a leading v is ignored).
                      Env: LOCKER_VERSION. Default: $LOCKER_STAMPED_VERSION.
  --base-url URL      Download from URL/locker-<version>-<target>.tar.gz, URL/SHA256SUMS
                      and URL/SHA256SUMS.sig. Env: LOCKER_BASE_URL.
                      Default: $DEFAULT_BASE_URL/v<version>
                      Only https:// URLs are accepted, except http://127.0.0.1[:PORT]/...
                      and http://localhost[:PORT]/... (a loopback server, for tests).
  --bin-dir DIR       Install the binary as DIR/locker. Env: LOCKER_INSTALL_DIR.
                      Default: \$HOME/.local/bin. DIR must not be a symlink.
  --data-dir DIR      Install man pages and completions under DIR. Env: LOCKER_DATA_DIR.
                      Default: \${XDG_DATA_HOME:-\$HOME/.local/share}.
  --public-key KEY    Require SHA256SUMS.sig to be a signature by KEY, an OpenSSH public
                      key line ("ssh-ed25519 AAAA..."), instead of the stamped key.
                      Env: LOCKER_PUBLIC_KEY. Default: the key release.sh stamped, if any
                      (that release's signer: another --version may need its own key).
  --target TARGET     Install the archive for TARGET instead of the one detected, e.g.
                      x86_64-unknown-linux-gnu for the build linked to the system's glibc
                      (its name service modules: LDAP or mDNS host and user lookups).
                      Env: LOCKER_TARGET.
  --no-docs           Install only the binary (no man pages, no completions).
                      Env: LOCKER_NO_DOCS=1.
  -h, --help          Print this help and exit (nothing is downloaded or changed).

What it does, in order:
  1. Detects the OS and CPU with uname: Linux or Darwin, x86_64/amd64 or arm64/aarch64.
     On Linux it installs ARCH-unknown-linux-gnu-static (glibc linked into the binary: it
     runs whatever the system's C library, and starts faster) when the release has it, else
     ARCH-unknown-linux-gnu; on macOS x86_64-apple-darwin or aarch64-apple-darwin.
     Anything else is refused before any download.
  2. Checks its tools: curl (preferred; --proto =https, ~/.curlrc ignored) or wget, tar, gzip,
     a SHA-256 tool (sha256sum, shasum or openssl) and, when it has a release key,
     ssh-keygen (OpenSSH 8.1 or later). Without them it refuses.
  3. Checks that the bin directory is not a symlink, that an existing DIR/locker is a
     regular file, and that the directory is writable (or can be created).
  4. Downloads SHA256SUMS. With a release key it downloads SHA256SUMS.sig and verifies it
     with \`ssh-keygen -Y verify\` (namespace locker-release) before it reads SHA256SUMS;
     a missing or bad signature is refused. (Without a key, SHA256SUMS comes from the same
     server as the archive: it proves the download intact, not who made it.) SHA256SUMS
     must hold exactly one well-formed line for the archive; then it downloads the
     archive and compares their SHA-256. A mismatch is refused.
  5. Checks that the archive holds exactly one file named locker, at
     locker-<version>-<target>/locker, and that it is a regular file. Files are read
     from the archive to stdout only, never extracted by their archive paths.
  6. Stages the binary in DIR/.locker-install.XXXXXXXX, runs it once with -V (it must
     print "locker <version>"), stages the docs, then renames everything into place:
       DIR/locker
       DATA/man/man1/locker*.1
       DATA/bash-completion/completions/locker
       DATA/zsh/site-functions/_locker
       DATA/fish/vendor_completions.d/locker.fish
  7. Runs DIR/locker --version and says what to add to PATH, MANPATH or fpath, if anything.

Skipping the checksum and the signature is possible only with
LOCKER_INSECURE_SKIP_CHECKSUM=1, which is dangerous: anyone who can alter the download can
then run code as you.

Examples:
  curl --proto '=https' --tlsv1.2 -fsSL $DEFAULT_BASE_URL/v$LOCKER_STAMPED_VERSION/install.sh | sh
  sh install.sh --version 0.1.0 --bin-dir "\$HOME/bin"
  LOCKER_BASE_URL=http://127.0.0.1:8080 sh install.sh --bin-dir /tmp/t/bin
EOF
}

say() {
    printf 'locker-install: %s\n' "$*" >&2
}

die() {
    printf 'locker-install: error: %s\n' "$*" >&2
    printf 'locker-install: %s\n' "$changed_note" >&2
    exit 1
}

has() {
    command -v "$1" >/dev/null 2>&1
}

# ---- cleanup: remove whatever this run created, on any exit ----------------------------------
tmp=''
stage=''
cleanup() {
    if [ -n "$stage" ]; then rm -rf "$stage"; fi
    if [ -n "$tmp" ]; then
        if [ -f "$tmp/staged" ]; then
            while IFS='|' read -r staged _; do rm -f "$staged"; done <"$tmp/staged"
        fi
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

changed_note='nothing was changed'

# ---- arguments ------------------------------------------------------------------------------
version="${LOCKER_VERSION:-}"
base_url="${LOCKER_BASE_URL:-}"
bin_dir="${LOCKER_INSTALL_DIR:-}"
data_dir="${LOCKER_DATA_DIR:-}"
no_docs="${LOCKER_NO_DOCS:-0}"
want_target="${LOCKER_TARGET:-}"
public_key="${LOCKER_PUBLIC_KEY:-}"

need_value() {
    if [ "$#" -lt 2 ] || [ -z "$2" ]; then
        die "$1 needs a non-empty value (see --help)"
    fi
}

while [ "$#" -gt 0 ]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --version) need_value "$@"; version="$2"; shift 2 ;;
        --version=*) version="${1#*=}"; shift ;;
        --base-url) need_value "$@"; base_url="$2"; shift 2 ;;
        --base-url=*) base_url="${1#*=}"; shift ;;
        --bin-dir) need_value "$@"; bin_dir="$2"; shift 2 ;;
        --bin-dir=*) bin_dir="${1#*=}"; shift ;;
        --data-dir) need_value "$@"; data_dir="$2"; shift 2 ;;
        --data-dir=*) data_dir="${1#*=}"; shift ;;
        --public-key) need_value "$@"; public_key="$2"; shift 2 ;;
        --public-key=*) public_key="${1#*=}"; shift ;;
        --target) need_value "$@"; want_target="$2"; shift 2 ;;
        --target=*) want_target="${1#*=}"; shift ;;
        --no-docs) no_docs=1; shift ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done

# ---- version --------------------------------------------------------------------------------
[ -n "$version" ] || version="$LOCKER_STAMPED_VERSION"
version="${version#v}"
case "$version" in
    '' | *[!0-9A-Za-z.-]*) die "version must look like X.Y.Z, got: $version" ;;
esac
if ! printf '%s\n' "$version" \
    | LC_ALL=C grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z]+(\.[0-9A-Za-z]+)*)?'; then
    die "version must look like X.Y.Z, got: $version"
fi

# ---- the release key: an OpenSSH public key line, its comment dropped ------------------------
[ -n "$public_key" ] || public_key="$LOCKER_RELEASE_PUBLIC_KEY"
if [ -n "$public_key" ]; then
    key_line="$public_key"
    public_key="$(printf '%s\n' "$key_line" | awk 'NR == 1 { print $1 " " $2 }')"
    if ! printf '%s\n' "$public_key" \
        | LC_ALL=C grep -Eqx '(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]+={0,2}'; then
        die "the release public key is not an OpenSSH public key line (\"ssh-ed25519 AAAA...\"): $key_line"
    fi
fi

# ---- OS and CPU (before any download) -------------------------------------------------------
has uname || die "uname not found"
os="$(uname -s 2>/dev/null || true)"
cpu="$(uname -m 2>/dev/null || true)"
case "$cpu" in
    x86_64 | amd64) arch=x86_64 ;;
    arm64 | aarch64) arch=aarch64 ;;
    *) die "unsupported CPU: ${cpu:-unknown} (prebuilt binaries exist for x86_64 and aarch64; build from source with cargo install)" ;;
esac
# The archives to install, in order of preference: the first one the release has.
case "$os" in
    Linux) targets="$arch-unknown-linux-gnu-static $arch-unknown-linux-gnu" ;;
    Darwin) targets="$arch-apple-darwin" ;;
    *) die "unsupported OS: ${os:-unknown} (prebuilt binaries exist for Linux and macOS; build from source with cargo install)" ;;
esac

if [ -n "$want_target" ]; then
    case "$want_target" in
        *[!A-Za-z0-9_.-]* | -*) die "not a target name: $want_target" ;;
    esac
    targets="$want_target"
fi

# ---- base URL: https only, except a loopback http server -----------------------------------
[ -n "$base_url" ] || base_url="$DEFAULT_BASE_URL/v$version"
while :; do
    case "$base_url" in
        */) base_url="${base_url%/}" ;;
        *) break ;;
    esac
done
case "$base_url" in
    *[!A-Za-z0-9._~:/%+=-]*) die "the base URL holds characters a release URL does not need: $base_url" ;;
esac
curl_proto='=https'
wget_extra=''
case "$base_url" in
    https://?*) ;;
    http://*)
        # The one exception to https: a server on this machine's loopback interface, for
        # tests. The host must be exactly 127.0.0.1 or localhost, optionally with a port.
        hostport="${base_url#http://}"
        hostport="${hostport%%/*}"
        case "$hostport" in
            127.0.0.1 | localhost) ;;
            127.0.0.1:?* | localhost:?*)
                case "${hostport#*:}" in
                    *[!0-9]*) die "refusing plain http to a non-loopback address: $base_url" ;;
                esac
                ;;
            *) die "refusing plain http to a non-loopback address: $base_url (use https)" ;;
        esac
        curl_proto='=http'
        wget_extra='--no-proxy'
        ;;
    *) die "the base URL must start with https:// (got: $base_url)" ;;
esac

# ---- tools ----------------------------------------------------------------------------------
if has curl; then
    downloader=curl
elif has wget; then
    downloader=wget
else
    die "neither curl nor wget found; install one of them"
fi
for tool in tar gzip awk mktemp; do
    has "$tool" || die "$tool not found"
done

skip_checksum=0
if [ "${LOCKER_INSECURE_SKIP_CHECKSUM:-}" = 1 ]; then
    skip_checksum=1
elif has sha256sum; then
    sha_tool=sha256sum
elif has shasum; then
    sha_tool=shasum
elif has openssl; then
    sha_tool=openssl
else
    die "no SHA-256 tool found (need sha256sum, shasum or openssl); refusing to install an unverified download"
fi

if [ -n "$public_key" ] && [ "$skip_checksum" != 1 ]; then
    has ssh-keygen \
        || die "ssh-keygen (OpenSSH 8.1 or later) is needed to verify the signature on this release's SHA256SUMS; install OpenSSH's client tools"
fi

sha256_of() {
    case "$sha_tool" in
        sha256sum) sha256sum "$1" | awk '{print $1}' ;;
        shasum) shasum -a 256 "$1" | awk '{print $1}' ;;
        openssl) openssl dgst -sha256 "$1" | awk '{print $NF}' ;;
    esac | tr 'ABCDEF' 'abcdef'
}

# ---- destinations ---------------------------------------------------------------------------
# Absolute, without trailing "/" or "/." (so a final symlink is seen by test -L).
absolute() {
    case "$1" in
        /*) p="$1" ;;
        *) p="$(pwd)/$1" ;;
    esac
    while :; do
        case "$p" in
            /) break ;;
            */) p="${p%/}" ;;
            */.) p="${p%/.}" ;;
            *) break ;;
        esac
    done
    printf '%s\n' "$p"
}

if [ -z "$bin_dir" ]; then
    [ -n "${HOME:-}" ] || die "HOME is not set; pass --bin-dir"
    bin_dir="$HOME/.local/bin"
fi
bin_dir="$(absolute "$bin_dir")"
if [ -z "$data_dir" ]; then
    if [ -n "${XDG_DATA_HOME:-}" ]; then
        data_dir="$XDG_DATA_HOME"
    else
        [ -n "${HOME:-}" ] || die "HOME is not set; pass --data-dir or --no-docs"
        data_dir="$HOME/.local/share"
    fi
fi
data_dir="$(absolute "$data_dir")"
dest="$bin_dir/locker"
for d in "$bin_dir" "$data_dir"; do
    case "$d" in
        *'|'* | *"
"*) die "directory names with | or a newline are not supported: $d" ;;
    esac
done

check_destination() {
    if [ -L "$bin_dir" ]; then
        die "the bin directory $bin_dir is a symlink; refusing to install through it (pass --bin-dir with a real directory)"
    fi
    if [ -e "$bin_dir" ] && [ ! -d "$bin_dir" ]; then
        die "$bin_dir exists and is not a directory"
    fi
    if [ -L "$dest" ]; then
        die "$dest is a symlink; refusing to replace it (remove it or pass another --bin-dir)"
    fi
    if [ -e "$dest" ] && [ ! -f "$dest" ]; then
        die "$dest exists and is not a regular file"
    fi
}
check_destination

# The nearest existing ancestor of DIR must be a writable directory, so that we fail before
# downloading anything.
check_writable() { # DIR OPTION
    probe="$1"
    while [ ! -e "$probe" ] && [ ! -L "$probe" ]; do probe="$(dirname "$probe")"; done
    if [ ! -d "$probe" ] || [ ! -w "$probe" ]; then
        die "cannot write to $probe (installing into $1); pass $2 with a directory you own (no sudo needed)"
    fi
}
check_writable "$bin_dir" --bin-dir
if [ "$no_docs" != 1 ]; then
    check_writable "$data_dir" '--data-dir (or --no-docs)'
fi

# ---- download and verify --------------------------------------------------------------------
asset_of() { printf 'locker-%s-%s.tar.gz' "$version" "$1"; }
# Each target's archive name, after PREFIX, joined by " or " (for an error message).
assets_or() { # PREFIX
    names=""
    for t in $targets; do names="${names:+$names or }$1$(asset_of "$t")"; done
    printf '%s' "$names"
}

download() { # URL FILE
    if [ "$downloader" = curl ]; then
        # --disable must come first: it makes curl ignore ~/.curlrc.
        if [ "$curl_proto" = '=http' ]; then
            curl --disable --fail --silent --show-error --location --max-redirs 5 \
                --proto "$curl_proto" --proto-redir "$curl_proto" --noproxy '*' \
                --connect-timeout 15 --max-time 300 --output "$2" "$1"
        else
            curl --disable --fail --silent --show-error --location --max-redirs 5 \
                --proto "$curl_proto" --proto-redir "$curl_proto" --tlsv1.2 \
                --connect-timeout 15 --max-time 300 --output "$2" "$1"
        fi
    else
        # shellcheck disable=SC2086 # $wget_extra is empty or one word
        wget --no-config --quiet --max-redirect=5 --timeout=60 --tries=2 \
            $wget_extra --output-document="$2" "$1"
    fi
}

tmp="$(mktemp -d "${TMPDIR:-/tmp}/locker-install.XXXXXXXX")" || die "cannot create a temporary directory"
say "installing locker $version from $base_url"

if [ "$skip_checksum" = 1 ]; then
    say "WARNING: LOCKER_INSECURE_SKIP_CHECKSUM=1: NOT verifying the archive's SHA-256 or the release's signature."
    say "WARNING: anyone who can alter the download can run code as $(id -un 2>/dev/null || echo you)."
else
    download "$base_url/SHA256SUMS" "$tmp/SHA256SUMS" \
        || die "cannot download $base_url/SHA256SUMS"
    if [ -n "$public_key" ]; then
        # Nothing in SHA256SUMS is read before its signature verifies.
        download "$base_url/SHA256SUMS.sig" "$tmp/SHA256SUMS.sig" \
            || die "cannot download $base_url/SHA256SUMS.sig; refusing to install a release without its signature"
        printf 'locker-release namespaces="locker-release" %s\n' "$public_key" >"$tmp/allowed_signers"
        if ! ssh-keygen -Y verify -f "$tmp/allowed_signers" -I locker-release -n locker-release \
            -s "$tmp/SHA256SUMS.sig" <"$tmp/SHA256SUMS" >"$tmp/verify.out" 2>&1; then
            die "the signature on SHA256SUMS does not verify with the release key $public_key
  ssh-keygen: $(head -n 3 "$tmp/verify.out" | tr '\n' ' ')
refusing to install"
        fi
        printf '%s\n' "$public_key" >"$tmp/release_key.pub"
        fingerprint="$(ssh-keygen -l -f "$tmp/release_key.pub" 2>/dev/null | awk '{ print $2 }')"
        say "verified the signature on SHA256SUMS (key ${fingerprint:-$public_key})"
    else
        say "note: this install.sh carries no release key: SHA256SUMS is checked for integrity only, not for who made it (see --public-key)"
    fi
    # The first target SHA256SUMS names, then exactly one line for its exact asset name
    # ("HASH  NAME" or binary-mode "HASH *NAME").
    target=""
    for t in $targets; do
        asset="$(asset_of "$t")"
        lines="$(LC_ALL=C awk -v a="$asset" '{ sub(/\r$/, "") } $2 == a || $2 == "*" a' "$tmp/SHA256SUMS")"
        count="$(printf '%s' "$lines" | awk 'END { print NR }')"
        if [ "$count" -gt 0 ]; then
            target="$t"
            break
        fi
    done
    if [ -z "$target" ]; then
        die "SHA256SUMS has no line for $(assets_or ''); refusing to install an unverified archive"
    elif [ "$count" -gt 1 ]; then
        die "SHA256SUMS has $count lines for $asset; refusing an ambiguous checksum"
    fi
    expected="$(printf '%s\n' "$lines" | LC_ALL=C awk 'NF == 2 && $1 ~ /^[0-9A-Fa-f]+$/ && length($1) == 64 { print tolower($1) }')"
    [ -n "$expected" ] || die "the SHA256SUMS line for $asset is malformed: $lines"
fi

if [ "$skip_checksum" = 1 ]; then
    # Nothing says which archives the release has: the first one that downloads.
    target=""
    for t in $targets; do
        asset="$(asset_of "$t")"
        if download "$base_url/$asset" "$tmp/$asset" 2>/dev/null; then
            target="$t"
            break
        fi
    done
    [ -n "$target" ] || die "cannot download $(assets_or "$base_url/")"
else
    download "$base_url/$asset" "$tmp/$asset" \
        || die "cannot download $base_url/$asset"
fi
prefix="locker-$version-$target"
say "installing $asset ($target)"

if [ "$skip_checksum" != 1 ]; then
    actual="$(sha256_of "$tmp/$asset")"
    if [ "$actual" != "$expected" ]; then
        die "checksum mismatch for $asset
  want: $expected
  got:  $actual
refusing to install"
    fi
    say "verified SHA-256 $actual ($sha_tool)"
fi

# ---- inspect the archive --------------------------------------------------------------------
# GNU tar reads options (even command hooks) from the environment; ignore them.
unset TAR_OPTIONS GZIP || true
# Decompress once; every later look at the archive reads the plain tar.
archive="$tmp/archive.tar"
gzip -dc "$tmp/$asset" >"$archive" 2>"$tmp/tar.err" \
    || die "$asset is not a readable .tar.gz: $(head -n 2 "$tmp/tar.err" | tr '\n' ' ')"
tar -tf "$archive" >"$tmp/members" 2>"$tmp/tar.err" \
    || die "$asset does not hold a readable tar archive: $(head -n 2 "$tmp/tar.err" | tr '\n' ' ')"
lockers="$(LC_ALL=C awk '$0 == "locker" || $0 ~ /\/locker$/' "$tmp/members")"
nlockers="$(printf '%s' "$lockers" | awk 'END { print NR }')"
if [ "$nlockers" -ne 1 ] || [ "$lockers" != "$prefix/locker" ]; then
    die "$asset must hold exactly one file named locker, at $prefix/locker; it holds $nlockers:
$lockers
refusing to install"
fi

# Prints a member's type letter from a verbose listing (- for a regular file), or nothing
# unless the member appears exactly once.
member_type() {
    tar -tvf "$archive" "$1" 2>/dev/null \
        | awk 'NR == 1 { t = substr($0, 1, 1) } END { if (NR == 1) print t }'
}

# Copies one regular-file member to FILE through stdout, so no archive path is ever written.
extract() { # MEMBER FILE
    [ "$(member_type "$1")" = - ] || die "$1 in $asset is not exactly one regular file"
    tar -xOf "$archive" "$1" >"$2" || die "cannot read $1 from $asset"
}

# ---- stage the binary in the bin directory and run it once ----------------------------------
umask 022
mkdir -p "$bin_dir" || die "cannot create $bin_dir"
check_destination
stage="$(mktemp -d "$bin_dir/.locker-install.XXXXXXXX")" \
    || die "cannot create a staging directory in $bin_dir"
extract "$prefix/locker" "$stage/locker"
[ -s "$stage/locker" ] || die "$prefix/locker in $asset is empty"
chmod 0755 "$stage/locker"
got="$("$stage/locker" -V 2>&1)" \
    || die "the downloaded binary does not run here: $got"
[ "$got" = "locker $version" ] \
    || die "the downloaded binary reports \"$got\", not \"locker $version\""

# ---- stage the docs -------------------------------------------------------------------------
# $tmp/plan: one "MEMBER|DESTINATION" line per file (MEMBER relative to the prefix).
: >"$tmp/plan"
: >"$tmp/staged"
if [ "$no_docs" != 1 ]; then
    LC_ALL=C awk -v p="$prefix/man/" '
        index($0, p) == 1 && substr($0, length(p) + 1) ~ /^locker[a-z0-9-]*\.1$/ {
            print substr($0, length(p) + 1)
        }' "$tmp/members" >"$tmp/pages"
    while IFS= read -r page; do
        printf '%s\n' "man/$page|$data_dir/man/man1/$page" >>"$tmp/plan"
    done <"$tmp/pages"
    for pair in \
        "completions/locker.bash|$data_dir/bash-completion/completions/locker" \
        "completions/_locker|$data_dir/zsh/site-functions/_locker" \
        "completions/locker.fish|$data_dir/fish/vendor_completions.d/locker.fish"; do
        if LC_ALL=C awk -v m="$prefix/${pair%%|*}" '$0 == m { f = 1 } END { exit !f }' "$tmp/members"; then
            printf '%s\n' "$pair" >>"$tmp/plan"
        fi
    done
fi

while IFS='|' read -r member target_file; do
    dir="$(dirname "$target_file")"
    mkdir -p "$dir" || die "cannot create $dir"
    if [ -L "$target_file" ] || { [ -e "$target_file" ] && [ ! -f "$target_file" ]; }; then
        die "$target_file is a symlink or not a regular file; refusing to replace it (or pass --no-docs)"
    fi
    doc_stage="$(mktemp "$dir/.locker-install.XXXXXXXX")" \
        || die "cannot write to $dir (or pass --no-docs)"
    printf '%s|%s\n' "$doc_stage" "$target_file" >>"$tmp/staged"
    extract "$prefix/$member" "$doc_stage"
    chmod 0644 "$doc_stage"
done <"$tmp/plan"

# ---- rename into place: docs first, the binary last -----------------------------------------
check_destination
while IFS='|' read -r staged target_file; do
    mv -f "$staged" "$target_file" || die "cannot move $target_file into place"
    changed_note="some man pages or completions were updated; the binary was not"
done <"$tmp/staged"
mv -f "$stage/locker" "$dest" || die "cannot move $dest into place"
changed_note="$dest was installed"

say "installed $dest"
if [ -s "$tmp/staged" ]; then
    pages="$(grep -c '/man/man1/' "$tmp/staged" || true)"
    say "installed $pages man pages into $data_dir/man/man1"
    scripts="$(grep -c -v '/man/man1/' "$tmp/staged" || true)"
    say "installed $scripts completion scripts (bash, zsh, fish) under $data_dir"
fi
version_line="$("$dest" --version)" || die "$dest --version failed after installation"
printf '%s\n' "$version_line"

case ":${PATH:-}:" in
    *":$bin_dir:"*) ;;
    *) say "note: $bin_dir is not on your PATH; add it, e.g. export PATH=\"$bin_dir:\$PATH\"" ;;
esac
if [ -s "$tmp/staged" ]; then
    say "note: zsh finds _locker if your fpath holds $data_dir/zsh/site-functions"
fi
