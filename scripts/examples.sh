#!/usr/bin/env bash
# Runs the client examples (examples/python, examples/typescript, examples/shell) against a real
# `locker serve` on a temporary repository, prints each one's time, and exits non-zero if any
# fails. Builds nothing but the TypeScript examples (tsc):
#   LOCKER_BIN=target/debug/locker scripts/examples.sh
# Needs the locker binary at LOCKER_BIN (default target/debug/locker), python3 (3.11+), node
# (20+) with `npm ci --prefix examples/typescript` done, and jq.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

fail() {
    echo "examples: $*" >&2
    exit 1
}

bin="${LOCKER_BIN:-target/debug/locker}"
[ -x "$bin" ] || fail "no locker binary at $bin: build it (cargo build --locked --bin locker) or set LOCKER_BIN"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
for tool in python3 node npx jq; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed"
done
[ -x examples/typescript/node_modules/.bin/tsc ] \
    || fail "the TypeScript compiler is missing: run \`npm ci --prefix examples/typescript\`"

dir="$(mktemp -d "${TMPDIR:-/tmp}/locker-examples.XXXXXX")"
server_pid=""
drain_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        local rc=0
        wait "$server_pid" || rc=$?
        server_pid=""
        [ -z "$drain_pid" ] || wait "$drain_pid" || true
        drain_pid=""
        return "$rc"
    fi
}
cleanup() {
    stop_server || true
    rm -rf "$dir"
}
trap cleanup EXIT

# A repository, and two agents of one scope for the examples that need tokens.
repo="$dir/repo"
"$bin" --json init "$repo" >/dev/null
token_a="$("$bin" -R "$repo" -q --scope examples token create --agent example-a)"
token_b="$("$bin" -R "$repo" -q --scope examples token create --agent example-b)"

# The server on a port the system picks; its first line on stderr names the address.
mkfifo "$dir/serve.fifo"
"$bin" -R "$repo" serve --listen 127.0.0.1:0 2>"$dir/serve.fifo" &
server_pid=$!
exec 3<"$dir/serve.fifo"
url=""
while IFS= read -r -t 30 line <&3; do
    echo "$line" >>"$dir/serve.log"
    case "$line" in
        "locker listening on http://"*)
            url="http://${line#locker listening on http://}"
            break
            ;;
    esac
done
if [ -z "$url" ]; then
    cat "$dir/serve.log" >&2 || true
    fail "locker serve did not say where it listens"
fi
# Keep reading the server's log (a line per request), so that it never blocks on a full pipe.
cat <&3 >>"$dir/serve.log" &
drain_pid=$!
exec 3<&-
echo "examples: locker serve at $url (repository $repo)"

# What the examples get: the server, the two agents' tokens and the CLI; nothing inherited.
export LOCKER_URL="$url" LOCKER_TOKEN_A="$token_a" LOCKER_TOKEN_B="$token_b" LOCKER_BIN="$bin"
export PYTHONDONTWRITEBYTECODE=1
unset LOCKER_TOKEN LOCKER_DIR LOCKER_TICKET LOCKER_WRITE_KEY

passed=0
failed=()
# run NAME COMMAND…: runs one example, with its time.
run() {
    local name=$1 start=$EPOCHREALTIME rc=0
    shift
    echo "== $name"
    "$@" || rc=$?
    local us=$((${EPOCHREALTIME/./} - ${start/./}))
    local took
    took="$(printf '%d.%02d s' $((us / 1000000)) $((us % 1000000 / 10000)))"
    if [ "$rc" -eq 0 ]; then
        echo "-- $name: ok in $took"
        passed=$((passed + 1))
    else
        echo "-- $name: FAILED (exit $rc) after $took"
        failed+=("$name")
    fi
}

run "python/handoff" python3 examples/python/handoff.py
run "python/cas_publish" python3 examples/python/cas_publish.py
run "python/fenced_lease" python3 examples/python/fenced_lease.py

before=${#failed[@]}
run "typescript: compile (tsc)" bash -c 'cd examples/typescript && npx --no-install tsc'
if [ "${#failed[@]}" -eq "$before" ]; then
    run "typescript/handoff" node examples/typescript/dist/handoff.js
    run "typescript/cas_publish" node examples/typescript/dist/cas_publish.js
    run "typescript/fenced_lease" node examples/typescript/dist/fenced_lease.js
fi

run "shell/handoff" examples/shell/handoff.sh
run "shell/cas_publish" examples/shell/cas_publish.sh
run "shell/fenced_lease" examples/shell/fenced_lease.sh

# Whatever the examples did, the repository must still verify, and the server stop cleanly.
run "locker verify (the repository after the examples)" "$bin" -R "$repo" verify
rc=0
stop_server || rc=$?
[ "$rc" -eq 0 ] || failed+=("locker serve exited $rc on SIGTERM")

echo "examples: ${passed} passed, ${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then
    printf '  failed: %s\n' "${failed[@]}" >&2
    echo "-- the server's log, last lines:" >&2
    tail -n 20 "$dir/serve.log" >&2 || true
    exit 1
fi
