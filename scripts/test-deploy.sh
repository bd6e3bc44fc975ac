#!/usr/bin/env bash
# Checks the systemd units in deploy/: `systemd-analyze verify` must pass on each, and the
# server's sandbox must rate at most 2.0 ("OK") in `systemd-analyze security --offline`.
#
# The units name /usr/local/bin/locker; the check runs on copies that name the binary built
# here instead (verify wants the executable to exist), with the generated man pages on MANPATH
# (verify checks every Documentation=man: page). Installs Debian's systemd if
# systemd-analyze is missing. Prints one PASS/FAIL line per check; exits 1 if any failed.
#
# Usage: scripts/test-deploy.sh [--bin PATH]   (default: target/debug/locker, built if missing)
set -euo pipefail

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
bin=''
while [ "$#" -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "test-deploy: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
done
cd "$root"
if [ -z "$bin" ]; then
    bin="$root/target/debug/locker"
    [ -x "$bin" ] || cargo build --quiet --locked
fi
if ! command -v systemd-analyze >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q systemd
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/units" "$tmp/man/man1"
cp man/*.1 "$tmp/man/man1/"
for unit in deploy/*.service deploy/*.timer; do
    sed "s#/usr/local/bin/locker#$bin#g" "$unit" > "$tmp/units/$(basename "$unit")"
done

failed=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    /'; failed=1; }

for unit in "$tmp"/units/*; do
    name="$(basename "$unit")"
    if out="$(MANPATH="$tmp/man" systemd-analyze verify "$unit" 2>&1)" && [ -z "$out" ]; then
        pass "systemd-analyze verify $name"
    else
        fail "systemd-analyze verify $name" "$out"
    fi
done
if out="$(systemd-analyze security --offline=true --threshold=20 "$tmp/units/locker.service" 2>&1)"; then
    pass "locker.service sandbox: $(printf '%s\n' "$out" | grep -o 'exposure level.*' || true)"
else
    fail "locker.service sandbox rates worse than 2.0" "$(printf '%s\n' "$out" | tail -n 25)"
fi
if grep -q '^ExecStart=/usr/local/bin/locker -R %S/locker serve --listen 127.0.0.1:8000$' \
    deploy/locker.service; then
    pass "locker.service serves its state directory on loopback only"
else
    fail "locker.service serves its state directory on loopback only"
fi

[ "$failed" -eq 0 ] || exit 1
echo "test-deploy: all checks passed"
