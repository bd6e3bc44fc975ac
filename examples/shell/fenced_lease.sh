#!/usr/bin/env bash
# A fenced lease with the CLI against `locker serve`: worker A stalls, worker B takes over, A's
# late writes are refused.
#
# Worker A leases a work item (fencing token 1), commits a plan, logs a step and stops
# heartbeating. While its lease lives, B is refused (exit 4, `lease_held`). Once it has expired,
# B's acquire abandons it and gets fencing token 2. When A wakes up, its heartbeat and steps are
# refused (exit 7, `gone`) and a publish fenced with its token 1 is refused as stale (exit 4,
# `stale_fence`), even against the right version; B's publish under token 2 goes through.
#
#   LOCKER_URL=http://127.0.0.1:8000 LOCKER_TOKEN_A=… LOCKER_TOKEN_B=… examples/shell/fenced_lease.sh
#
# The two tokens are two agents of one scope (`locker token create --agent NAME --scope SCOPE`).
set -euo pipefail
# shellcheck source=examples/shell/lib.sh
. "$(dirname "$0")/lib.sh"
: "${LOCKER_TOKEN_A:?set LOCKER_TOKEN_A and LOCKER_TOKEN_B to two agents of one scope}"
: "${LOCKER_TOKEN_B:?set LOCKER_TOKEN_A and LOCKER_TOKEN_B to two agents of one scope}"
WORK=examples/shell/build-$RUN
KEY=examples/shell/result-$RUN.txt
# A's lease is short so that the example does not wait long for it to expire. Expiry is checked
# in whole seconds, so a TTL of N seconds lasts at least N-1: keep it above 1.
A_TTL=3

# as_a / as_b ARGS…: `lk ARGS…` as agent A or B.
as_a() { LOCKER_TOKEN=$LOCKER_TOKEN_A lk "$@"; }
as_b() { LOCKER_TOKEN=$LOCKER_TOKEN_B lk "$@"; }

lease_a=$(as_a 0 lease acquire "$WORK" --ttl "$A_TTL")
check "$lease_a" '.fence == 1 and .state == "active"' "A's acquire"
LEASE_A=$(jq -r .lease_id <<<"$lease_a")
holder_a=$(jq -r .holder <<<"$lease_a")
echo "A: leased $WORK (fencing token 1, holder $holder_a, ttl $A_TTL s)"
plan=$(as_a 0 manifest commit "$WORK" --lease "$LEASE_A" fetch build publish)
check "$plan" '.version == 1 and .steps == ["fetch", "build", "publish"]' "A's plan"
logged=$(as_a 0 step "$WORK" fetch --lease "$LEASE_A" --executed "cloned the inputs")
check "$logged" '.fence == 1' "A's step"
echo "A: committed the plan fetch, build, publish and logged fetch"

# The lease is exclusive: B is refused while A's lives, and told who holds it until when.
held=$(as_b 4 lease acquire "$WORK" --ttl 60)
check "$held" ".error == \"lease_held\" and .holder == \"$holder_a\" and .fence == 1" "B's acquire"
echo "B: refused (exit 4, lease_held): $holder_a holds it until $(jq .expires_at <<<"$held")"

# A stalls: no heartbeat. B waits for the expiry the refusal named, then takes over.
deadline=$(($(jq .expires_at <<<"$held") + 10))
while :; do
    wait_s=$(($(jq .expires_at <<<"$held") - $(date +%s)))
    [ "$wait_s" -le 0 ] || sleep "$wait_s"
    rc=0
    LOCKER_TOKEN=$LOCKER_TOKEN_B "$LOCKER" --json lease acquire "$WORK" --ttl 60 \
        >"$scratch/b.out" 2>"$scratch/b.err" || rc=$?
    [ "$rc" -eq 0 ] && break
    if [ "$rc" -ne 4 ] || ! jq -e '.error == "lease_held"' "$scratch/b.err" >/dev/null \
        || [ "$(date +%s)" -gt "$deadline" ]; then
        fail "B's acquire after A's expiry exited $rc: $(cat "$scratch/b.err")"
    fi
    held=$(cat "$scratch/b.err") # not yet expired by the server's clock: wait for the time it names
    sleep 0.1
done
lease_b=$(cat "$scratch/b.out")
check "$lease_b" ".fence == 2 and .holder != \"$holder_a\"" "B's lease after the takeover"
LEASE_B=$(jq -r .lease_id <<<"$lease_b")
echo "B: A's lease expired; B leased $WORK with fencing token 2"

# A wakes up. Everything it tries under its old lease is refused and changes nothing.
gone=$(as_a 7 lease heartbeat "$WORK" --lease "$LEASE_A")
check "$gone" '.error == "gone" and .state == "abandoned" and .current_fence == 2' "A's heartbeat"
gone=$(as_a 7 step "$WORK" build --lease "$LEASE_A" --executed "built it anyway")
check "$gone" '.error == "gone"' "A's late step"
echo "A: heartbeat and step refused (exit 7, gone): the lease was abandoned, fence 2 holds"

missing=$(as_a 3 artifact get "$KEY")
check "$missing" '.error == "not_found"' "$KEY should not exist yet"
stale=$(as_a 4 artifact publish "$KEY" --data "result from A" --expect 0 --op "a-$RUN" --fence "$WORK:1")
check "$stale" '.error == "stale_fence" and .current_fence == 2' "A's publish under fence 1"
echo "A: publish with --fence $WORK:1, against the right version: refused (exit 4, stale_fence)"

published=$(as_b 0 artifact publish "$KEY" --data "result from B" --expect 0 --op "b-$RUN" --fence "$WORK:2")
check "$published" '.artifact.version == 1' "B's publish"
echo "B: published $KEY v1 under fencing token 2"
for step in fetch build publish; do
    logged=$(as_b 0 step "$WORK" "$step" --lease "$LEASE_B" --executed ok)
    check "$logged" '.fence == 2' "B's step $step"
done
completed=$(as_b 0 lease complete "$WORK" --lease "$LEASE_B" --result "published v1")
check "$completed" '.state == "completed" and .diff.clean == true and .diff.holes == []' "B's completion"
echo "B: logged fetch, build, publish and completed the lease; the plan diff is clean"

history=$(as_b 0 lease history "$WORK")
check "$history" '.ok == true and any(.entries[]; .kind == "lease.abandon")' "the history"
final=$(as_b 0 artifact get "$KEY")
check "$final" '.version == 1 and .content == "result from B"' "$KEY"
echo "history: integrity ok; $(jq -r '[.entries[].kind] | join(", ")' <<<"$history")"
echo OK
