#!/usr/bin/env bash
# Builds the container image (Containerfile) and checks it for real with Podman and the runc
# runtime: the image holds one static binary, the one given, byte for byte; the server answers
# on the loopback port it is published on; it runs as uid 65532, not root; it creates its
# repository on the volume with private modes; the CLI works inside beside the server (verify,
# backup); SIGTERM stops it cleanly; and its data survives both a restart and a new container
# on the same volume.
# compose.yaml is checked to publish on 127.0.0.1 only.
#
# Installs podman and runc from Debian if missing. Builds the statically linked binary
# (scripts/build-static.sh, as the release's static archive is built) unless --bin names one.
# Everything it creates (image, container, volume) is removed at the end. Prints one PASS/FAIL
# line per check; exits 1 if any failed.
#
# Usage: scripts/test-container.sh [--bin PATH]
set -euo pipefail

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
# The two binaries .containerignore lets into the build context: build-static.sh's (the
# Containerfile's default) and a copy of any other, passed with --build-arg.
default_bin="target/static/x86_64-unknown-linux-gnu/release/locker"
staged="target/container/locker"
bin=''
while [ "$#" -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "test-container: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
done
# Resolved where it was named, before the cd below.
[ -z "$bin" ] || bin="$(realpath -- "$bin")"
cd "$root"

if ! command -v podman >/dev/null 2>&1 || ! command -v runc >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q podman runc
fi
if [ -z "$bin" ]; then
    echo "test-container: building the static binary (scripts/build-static.sh)" >&2
    bin="$(scripts/build-static.sh)"
fi
build_arg=()
if [ "$(realpath "$bin")" != "$(realpath -m "$default_bin")" ]; then
    mkdir -p "$(dirname "$staged")"
    cp "$bin" "$staged"
    build_arg=(--build-arg "LOCKER_BIN=$staged")
fi

id="$$-$(date +%s)"
image="localhost/locker-test:$id"
ctr="locker-test-$id"
vol="locker-test-data-$id"
pod=(podman --runtime runc)
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
cleanup() {
    "${pod[@]}" rm -f -t 0 "$ctr" >/dev/null 2>&1 || true
    "${pod[@]}" volume rm -f "$vol" >/dev/null 2>&1 || true
    "${pod[@]}" rmi -f "$image" >/dev/null 2>&1 || true
    [ "${#build_arg[@]}" -eq 0 ] || rm -f "$staged"
}
trap cleanup EXIT

failed=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    /'; failed=1; }
check() { # check NAME COMMAND...: PASS when the command succeeds
    local name="$1"; shift
    local out
    if out="$("$@" 2>&1)"; then pass "$name"; else fail "$name" "$out"; fi
}

# A free loopback port.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
wait_healthy() {
    for _ in $(seq 1 100); do
        if curl -fsS -o /dev/null "$url/health" 2>/dev/null; then return 0; fi
        sleep 0.2
    done
    "${pod[@]}" logs "$ctr" 2>&1 | tail -n 20
    return 1
}
# The server and every `podman exec` in it pretend a disk with room to spare: the volume is on
# this machine's disk, whose free space (a few percent on CI's) is not what the checks are about.
run_server() {
    "${pod[@]}" run -d --name "$ctr" "${limits[@]}" -p "127.0.0.1:$port:8000" \
        -e LOCKER_DISK_SPACE=107374182400/214748364800 -v "$vol:/data" "$image" >/dev/null
}

# ---- the binary and the image ----------------------------------------------------------------
if ldd "$bin" 2>&1 | grep -Eq 'not a dynamic executable|statically linked'; then
    pass "the binary is statically linked"
else
    fail "the binary is statically linked" "$(ldd "$bin" 2>&1)"
fi
check "podman build (FROM scratch)" \
    "${pod[@]}" build "${limits[@]}" --layers=false -q -t "$image" -f Containerfile "${build_arg[@]}" .
files="$("${pod[@]}" run --rm "${limits[@]}" --entrypoint /usr/local/bin/locker "$image" --version 2>&1 || true)"
case "$files" in
    "locker "*) pass "the image's binary runs: $files" ;;
    *) fail "the image's binary runs" "$files" ;;
esac
# The image holds the binary it was given, byte for byte (not another build left in target/).
copy="$(mktemp)"
if "${pod[@]}" create --name "$ctr-copy" "$image" >/dev/null \
    && "${pod[@]}" cp "$ctr-copy:/usr/local/bin/locker" "$copy" && cmp -s "$bin" "$copy"; then
    pass "the image's binary is the one given ($bin)"
else
    fail "the image's binary is the one given ($bin)" "$(cmp "$bin" "$copy" 2>&1 || true)"
fi
"${pod[@]}" rm -f "$ctr-copy" >/dev/null 2>&1 || true
rm -f "$copy"
user="$("${pod[@]}" image inspect -f '{{.Config.User}}' "$image")"
if [ "$user" = "65532:65532" ]; then pass "the image runs as 65532:65532"; else fail "the image runs as 65532:65532" "$user"; fi

# ---- the server --------------------------------------------------------------------------------
"${pod[@]}" volume create "$vol" >/dev/null
run_server
if wait_healthy; then pass "the server answers GET /health on $url"; else fail "the server answers GET /health on $url"; fi
health="$(curl -fsS "$url/health" || true)"
case "$health" in *'"status":"ok"'*) pass "health: $health" ;; *) fail "health is ok" "$health" ;; esac

uids="$("${pod[@]}" top "$ctr" user huser 2>&1 | tail -n +2 | sort -u || true)"
if [ -n "$uids" ] && ! printf '%s\n' "$uids" | grep -Eq '(^|[[:space:]])(0|root)([[:space:]]|$)'; then
    pass "the server process is not root ($(printf '%s' "$uids" | tr -s ' \n' ' '))"
else
    fail "the server process is not root" "$uids"
fi
hostpid="$("${pod[@]}" inspect -f '{{.State.Pid}}' "$ctr")"
hostuid="$(ps -o uid= -p "$hostpid" | tr -d ' ')"
if [ "$hostuid" != 0 ]; then pass "on the host too (uid $hostuid)"; else fail "on the host too" "uid $hostuid"; fi

ports="$("${pod[@]}" port "$ctr")"
if printf '%s\n' "$ports" | grep -q "127.0.0.1:$port" && ! printf '%s\n' "$ports" | grep -q '0.0.0.0'; then
    pass "published on loopback only ($ports)"
else
    fail "published on loopback only" "$ports"
fi

mnt="$("${pod[@]}" volume inspect -f '{{.Mountpoint}}' "$vol")"
modes="$(stat -c '%a %u' "$mnt/.locker" "$mnt/.locker/locker.db" 2>&1 || true)"
if [ "$modes" = "$(printf '700 65532\n600 65532')" ]; then
    pass "the repository on the volume is private to uid 65532"
else
    fail "the repository on the volume is private to uid 65532" "$modes"
fi

# Some state: a pad with a block, and an artifact.
envelope='{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":null}'
# The image serves with --allow-remote-http, so write routes need an agent's token (#18): make
# one with the image's own binary on the volume, as an operator would (`podman exec` works too).
token="$("${pod[@]}" run --rm "${limits[@]}" -v "$vol:/data" --entrypoint /usr/local/bin/locker \
    "$image" -R /data --json token create --agent ci --scope default \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' 2>/dev/null || true)"
if [ -n "$token" ]; then pass "an agent token made in the container"; else fail "an agent token made in the container"; fi
created="$(curl -fsS -X POST -H 'content-type: application/json' -H "authorization: Bearer $token" \
    -d '{}' "$url/v1/pads" || true)"
pad="$(printf '%s' "$created" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pad_id"])' 2>/dev/null || true)"
key="$(printf '%s' "$created" | python3 -c 'import json,sys; print(json.load(sys.stdin)["write_key"])' 2>/dev/null || true)"
if [ -n "$pad" ]; then pass "POST /v1/pads created pad $pad"; else fail "POST /v1/pads" "$created"; fi
appended="$(curl -fsS -X POST -H 'content-type: application/json' -H "authorization: Bearer $key" \
    -d "$envelope" "$url/v1/pads/$pad/append" 2>&1 || true)"
head_before="$(curl -fsS "$url/v1/pads/$pad/manifest" | python3 -c 'import json,sys; m = json.load(sys.stdin); print(m["head_hash"], m["block_count"])' 2>&1 || true)"
case "$head_before" in
    *" 1") pass "the pad holds one block (head ${head_before% *})" ;;
    *) fail "append over HTTP" "$appended / $head_before" ;;
esac

# The CLI beside the running server, in the same container.
check "locker verify inside the running container" \
    "${pod[@]}" exec "$ctr" /usr/local/bin/locker -R /data verify
check "locker backup inside the running container" \
    "${pod[@]}" exec "$ctr" /usr/local/bin/locker -R /data backup /data/backups/b1
check "the backup verifies" \
    "${pod[@]}" exec "$ctr" /usr/local/bin/locker -R /data/backups/b1 verify

# SIGTERM: in-flight work finishes, exit 0.
"${pod[@]}" stop -t 20 "$ctr" >/dev/null
code="$("${pod[@]}" inspect -f '{{.State.ExitCode}}' "$ctr")"
if [ "$code" = 0 ]; then pass "podman stop: the server exits 0 on SIGTERM"; else fail "podman stop exits 0" "exit $code"; fi

# Data survives a restart of the container...
"${pod[@]}" start "$ctr" >/dev/null
wait_healthy >/dev/null || true
after="$(curl -fsS "$url/v1/pads/$pad/manifest" | python3 -c 'import json,sys; m = json.load(sys.stdin); print(m["head_hash"], m["block_count"])' 2>&1 || true)"
if [ "$after" = "$head_before" ]; then pass "the pad survives a restart"; else fail "the pad survives a restart" "$head_before != $after"; fi

# ...and a new container on the same volume.
"${pod[@]}" rm -f -t 20 "$ctr" >/dev/null
run_server
wait_healthy >/dev/null || true
after="$(curl -fsS "$url/v1/pads/$pad/manifest" | python3 -c 'import json,sys; m = json.load(sys.stdin); print(m["head_hash"], m["block_count"])' 2>&1 || true)"
if [ "$after" = "$head_before" ]; then pass "the pad survives a new container on the volume"; else fail "the pad survives a new container" "$head_before != $after"; fi
check "the repository still verifies" "${pod[@]}" exec "$ctr" /usr/local/bin/locker -R /data verify
check "compose.yaml's health check (locker doctor against the server) passes" \
    "${pod[@]}" exec "$ctr" /usr/local/bin/locker --quiet --remote http://127.0.0.1:8000 -R /data doctor

# ---- compose.yaml ------------------------------------------------------------------------------
if python3 - compose.yaml <<'PY'
import re, sys
text = open(sys.argv[1]).read()
try:
    import yaml
    doc = yaml.safe_load(text)
    ports = [str(p) for s in doc["services"].values() for p in s.get("ports", [])]
except ImportError:  # no PyYAML: every item of every `ports:` list
    ports = [m for block in re.findall(r"\n(\s*)ports:\n((?:\1\s+-.*\n)+)", text)
             for m in re.findall(r"-\s*\"?([^\"\n]+)", block[1])]
assert ports and all(p.startswith("127.0.0.1:") for p in ports), ports
PY
then
    pass "compose.yaml publishes on 127.0.0.1 only"
else
    fail "compose.yaml publishes on 127.0.0.1 only"
fi

[ "$failed" -eq 0 ] || exit 1
echo "test-container: all checks passed"
