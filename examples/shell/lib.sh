# shellcheck shell=bash
# The helpers the shell examples share (sourced, not run). Each example runs the `locker` CLI
# against a `locker serve` (LOCKER_URL), with `--json`, and reads the results with jq.

LOCKER=${LOCKER_BIN:-locker}
: "${LOCKER_URL:?set LOCKER_URL to the URL of a locker serve}"
export LOCKER_URL
# A fresh suffix, so that every run uses new pad, key and work item names.
# shellcheck disable=SC2034 # used by the examples that source this file
RUN=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
scratch=$(mktemp -d "${TMPDIR:-/tmp}/locker-example.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# lk EXIT ARGS…: runs `locker --json ARGS…`, which must exit with EXIT, and prints its JSON: the
# result on stdout (exit 0, or 1 for a clean "no" such as a failed verify), else the error object
# from stderr. Used as `x=$(lk …)`, a wrong exit code ends the example (set -e).
lk() {
    local want=$1 rc=0 out err
    shift
    out=$(mktemp "$scratch/out.XXXXXX")
    err=$(mktemp "$scratch/err.XXXXXX")
    "$LOCKER" --json "$@" >"$out" 2>"$err" || rc=$?
    [ "$rc" -eq "$want" ] || fail "locker $* exited $rc, not $want: $(cat "$err" "$out")"
    if [ "$want" -le 1 ]; then cat "$out"; else cat "$err"; fi
}

# check JSON FILTER WHAT: fails with WHAT unless the jq FILTER is true of JSON.
check() {
    jq -e "$2" <<<"$1" >/dev/null || fail "$3: $1"
}
