#!/usr/bin/env bash
# API conformance: schemathesis (from PyPI) against `locker serve` and its own OpenAPI document
# (GET /openapi.json), bounded in time. Checks: no 5xx (not_a_server_error), and every status
# code, content type and response body as the document says (status_code_conformance,
# content_type_conformance, response_schema_conformance). It runs twice on a fresh repository:
# anonymously, then with an agent's bearer token so that the token routes are reached too.
#
# Usage: scripts/schemathesis.sh [--seconds N] [--release]
#   --seconds  time budget of each of the two runs (default 120)
#   --release  test the release build (default: the debug build)
# schemathesis 4 is installed into target/test-deps/schemathesis/ (a virtual environment) if
# missing. Logs: target/schemathesis/.
set -euo pipefail

die() {
    echo "schemathesis: error: $*" >&2
    exit 1
}

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
seconds=120
profile=debug
while [ "$#" -gt 0 ]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
        --seconds=*) seconds="${1#*=}"; shift ;;
        --release) profile=release; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
case "$seconds" in '' | *[!0-9]*) die "--seconds takes a whole number" ;; esac

cd "$root"
venv="${LOCKER_TEST_DEPS:-$root/target/test-deps}/schemathesis"
if ! "$venv/bin/schemathesis" --version >/dev/null 2>&1; then
    echo "schemathesis: installing schemathesis into $venv" >&2
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis>=4,<5"
fi
if [ "$profile" = release ]; then
    cargo build --release --locked --quiet --bin locker
else
    cargo build --locked --quiet --bin locker
fi
locker="$root/target/$profile/locker"

work="$root/target/schemathesis"
rm -rf "$work"
mkdir -p "$work"
repo="$work/repo"
"$locker" -R "$repo" init -q
token="$("$locker" -R "$repo" --json token create --agent schemathesis --scope demo |
    "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

"$locker" -R "$repo" serve --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
url=''
for _ in $(seq 1 200); do
    url="$(sed -n 's/^locker listening on \(http:[^ ]*\)$/\1/p' "$work/serve.log" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || die "locker serve exited: $(cat "$work/serve.log")"
    sleep 0.1
done
[ -n "$url" ] || die "locker serve did not start"
echo "schemathesis: $url/openapi.json, ${seconds} s per run" >&2

checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
status=0
for run in anonymous token; do
    auth=()
    [ "$run" = token ] && auth=(-H "Authorization: Bearer $token")
    echo "schemathesis: run $run" >&2
    (cd "$work" && "$venv/bin/schemathesis" run "$url/openapi.json" \
        --checks "$checks" --max-time "$seconds" --workers 1 --no-color \
        --suppress-health-check all "${auth[@]}") | tee "$work/$run.log" | tail -n 25 || status=1
done
if grep -q "status\":5[0-9][0-9]" "$work/serve.log"; then
    echo "schemathesis: the server answered 5xx (see $work/serve.log)" >&2
    status=1
fi
exit "$status"
