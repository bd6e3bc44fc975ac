#!/usr/bin/env bash
# Compare-and-swap publish with the CLI against `locker serve`: two writers race, the loser
# re-reads and retries.
#
# A publish names the version it read (`--expect N`, 0 to create) and an operation id (`--op`).
# If another writer got there first, it is refused (exit 4, `version_conflict`, with the current
# version); the writer re-reads, reapplies its edit and publishes again under a new operation
# id. Sending the very same publish again (same operation id) is safe: it returns the original
# result with `replayed: true` and writes nothing.
#
#   LOCKER_URL=http://127.0.0.1:8000 LOCKER_TOKEN_A=… LOCKER_TOKEN_B=… examples/shell/cas_publish.sh
#
# The two tokens are two agents of one scope (`locker token create --agent NAME --scope SCOPE`).
set -euo pipefail
# shellcheck source=examples/shell/lib.sh
. "$(dirname "$0")/lib.sh"
: "${LOCKER_TOKEN_A:?set LOCKER_TOKEN_A and LOCKER_TOKEN_B to two agents of one scope}"
: "${LOCKER_TOKEN_B:?set LOCKER_TOKEN_A and LOCKER_TOKEN_B to two agents of one scope}"
KEY=examples/shell/notes-$RUN.md

# publish_with_retry NAME [HEAD]: the CAS loop, as the agent of LOCKER_TOKEN. Reads the head (or
# starts from HEAD, read earlier), appends a line, publishes against the version read; on a
# version_conflict, reads again and retries. Leaves the request that went through in
# $scratch/NAME.{txt,expect,op} and the number of attempts in $scratch/NAME.attempts.
publish_with_retry() {
    local name=$1 head=${2:-} attempt version rc
    for attempt in 1 2 3 4 5; do
        [ -n "$head" ] || head=$(lk 0 artifact get "$KEY")
        version=$(jq .version <<<"$head")
        { jq -j .content <<<"$head"; echo "- from $name"; } >"$scratch/$name.txt"
        rc=0
        "$LOCKER" --json artifact publish "$KEY" "$scratch/$name.txt" --expect "$version" \
            --op "$name-$RUN-$attempt" >"$scratch/$name.out" 2>"$scratch/$name.err" || rc=$?
        if [ "$rc" -eq 0 ]; then
            check "$(cat "$scratch/$name.out")" ".artifact.version == $((version + 1)) and .replayed == false" \
                "$name: publishing against v$version"
            echo "$name: published v$((version + 1)) (attempt $attempt)"
            echo "$attempt" >"$scratch/$name.attempts"
            echo "$version" >"$scratch/$name.expect"
            echo "$name-$RUN-$attempt" >"$scratch/$name.op"
            return 0
        fi
        if [ "$rc" -eq 4 ] && jq -e '.error == "version_conflict"' "$scratch/$name.err" >/dev/null; then
            echo "$name: version_conflict: expected v$version, the head is v$(jq .current_version "$scratch/$name.err"); re-reading"
            head=""
            continue
        fi
        fail "$name: publish exited $rc: $(cat "$scratch/$name.err")"
    done
    fail "$name: no publish went through in 5 attempts"
}

printf '# Notes\n' >"$scratch/seed.txt"
seed=$(LOCKER_TOKEN=$LOCKER_TOKEN_A lk 0 artifact publish "$KEY" "$scratch/seed.txt" --expect 0 --op "seed-$RUN")
check "$seed" '.artifact.version == 1' "seeding $KEY"
echo "writer-a: created $KEY v1 (--expect 0)"

# Both writers read v1, then both publish at once: exactly one can win.
head_a=$(LOCKER_TOKEN=$LOCKER_TOKEN_A lk 0 artifact get "$KEY")
head_b=$(LOCKER_TOKEN=$LOCKER_TOKEN_B lk 0 artifact get "$KEY")
LOCKER_TOKEN=$LOCKER_TOKEN_A publish_with_retry writer-a "$head_a" &
pid_a=$!
LOCKER_TOKEN=$LOCKER_TOKEN_B publish_with_retry writer-b "$head_b" &
pid_b=$!
wait "$pid_a" || fail "writer-a failed"
wait "$pid_b" || fail "writer-b failed"

tries=$(cat "$scratch/writer-a.attempts" "$scratch/writer-b.attempts" | sort | tr '\n' ' ')
[ "$tries" = "1 2 " ] || fail "expected one winner at once and one retry, got attempts $tries"
if [ "$(cat "$scratch/writer-a.attempts")" = 2 ]; then
    loser=writer-a loser_token=$LOCKER_TOKEN_A
else
    loser=writer-b loser_token=$LOCKER_TOKEN_B
fi
final=$(LOCKER_TOKEN=$LOCKER_TOKEN_A lk 0 artifact get "$KEY")
check "$final" '.version == 3' "expected v3 after the seed and two edits"
check "$final" '[.content | scan("- from writer")] | length == 2' "an edit was lost"
echo "both edits are in v3; $loser lost the race once and retried:"
jq -j .content <<<"$final" | sed 's/^/  /'

# A retry of an acknowledged publish (say, its answer was lost) is a replay, not a v4.
op=$(cat "$scratch/$loser.op")
expect=$(cat "$scratch/$loser.expect")
replay=$(LOCKER_TOKEN=$loser_token lk 0 artifact publish "$KEY" "$scratch/$loser.txt" --expect "$expect" --op "$op")
check "$replay" '.replayed == true and .artifact.version == 3' "resending $op"
# The same operation id with a different request is refused (exit 4).
echo more >>"$scratch/$loser.txt"
clash=$(LOCKER_TOKEN=$loser_token lk 4 artifact publish "$KEY" "$scratch/$loser.txt" --expect "$expect" --op "$op")
check "$clash" '.error == "operation_conflict"' "reusing $op for another request"
history=$(LOCKER_TOKEN=$LOCKER_TOKEN_A lk 0 artifact log "$KEY")
check "$history" '[.versions[].version] == [1, 2, 3]' "the history"
echo "resending $op: replayed v3; reusing it for other content: operation_conflict; history: v1, v2, v3"
echo OK
