#!/usr/bin/env bash
# A full handoff with the CLI against `locker serve`: a planner writes a sealed pad, a worker
# reads it and verifies it.
#
# The planner creates a pad, appends the `locker.handoff.v1` envelope (block 0) and a plan
# (block 1), seals it and mints a read ticket. It hands the worker three things: the pad id, the
# ticket and the head hash (never the write key). The worker acts only if the pad verifies,
# end to end, against that head. Secrets go through the environment (LOCKER_WRITE_KEY,
# LOCKER_TICKET), never on a command line.
#
#   LOCKER_URL=http://127.0.0.1:8000 examples/shell/handoff.sh
set -euo pipefail
# shellcheck source=examples/shell/lib.sh
. "$(dirname "$0")/lib.sh"

# --- the planner ---
pad=$(lk 0 pad create --ttl 10m --max-blocks 8)
PAD=$(jq -r .pad_id <<<"$pad")
export LOCKER_WRITE_KEY
LOCKER_WRITE_KEY=$(jq -r .write_key <<<"$pad")
echo "planner: created pad $PAD"

jq -n --arg task "fix-$RUN" '{schema: "locker.handoff.v1", task_id: $task, from_agent: "planner",
    to_agent: "worker", constraints: ["tests must pass"], artifacts: [{name: "plan"}],
    budget_usd: 5.0, allowed_paths: ["src/", "tests/"]}' >"$scratch/envelope.json"
printf '1. reproduce\n2. fix\n3. test\n' >"$scratch/plan.md"

head=0000000000000000000000000000000000000000000000000000000000000000
n=0
for block in envelope.json:application/json plan.md:text/markdown; do
    file=$scratch/${block%%:*} type=${block#*:}
    appended=$(lk 0 append "$PAD" "$file" --content-type "$type")
    # curr_hash = sha256(prev_hash as 64 ASCII hex characters ‖ payload bytes)
    head=$({ printf '%s' "$head"; cat "$file"; } | sha256sum | cut -c1-64)
    check "$appended" ".seq == $n and .curr_hash == \"$head\"" "block $n, expected curr_hash $head"
    echo "planner: appended block $n ($type), curr_hash ${head:0:12}…"
    n=$((n + 1))
done

sealed=$(lk 0 seal "$PAD")
check "$sealed" ".state == \"sealed\" and .head_hash == \"$head\"" "the seal, expected head $head"
echo "planner: sealed; head $head"

# Sealed means final: even the writer cannot add a block now (exit 4, conflict).
refused=$(lk 4 append "$PAD" --data 'one more thing' --content-type text/plain)
check "$refused" '.error == "conflict"' "an append after the seal"
echo "planner: an append after the seal is refused (exit 4, conflict)"

ticket=$(lk 0 pad ticket "$PAD" --type read_once)
check "$ticket" '.type == "read_once"' "a read_once ticket"
TICKET=$(jq -r .ticket <<<"$ticket")
echo "planner: minted a read_once ticket for the worker"

# The write key writes; it does not read. Only a ticket does (exit 5, unauthorized).
refused=$(LOCKER_TICKET=$LOCKER_WRITE_KEY lk 5 pad read "$PAD")
check "$refused" '.error == "unauthorized"' "reading with the write key"
echo "planner: reading with the write key is refused (exit 5): the worker needs the ticket"
unset LOCKER_WRITE_KEY

# --- the worker: all it holds is PAD, TICKET and head ---
shown=$(lk 0 pad show "$PAD")
check "$shown" ".state == \"sealed\" and .head_hash == \"$head\"" "the pad's manifest"
echo "worker: manifest: sealed, $(jq .block_count <<<"$shown") blocks, head matches"

refused=$(lk 5 pad read "$PAD")
check "$refused" '.error == "unauthorized"' "reading without a ticket"
echo "worker: reading without the ticket is refused (exit 5)"

export LOCKER_TICKET=$TICKET
# Against a server, `verify PAD` reads every block with the ticket and re-hashes the chain here,
# then compares it with the expected head.
verified=$(lk 0 verify "$PAD" --expect-head "$head")
check "$verified" ".ok == true and .computed_head == \"$head\" and .blocks_read == 2" "verify"
echo "worker: verify re-hashed $(jq .blocks_read <<<"$verified") blocks: $(jq -r .verdict <<<"$verified")"
wrong=$(lk 1 verify "$PAD" --expect-head ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff)
check "$wrong" '.ok == false' "verify against a wrong head"
echo "worker: verify against a wrong head says no (exit 1)"

# The worker can also recompute the chain itself from the exact bytes.
read=$(lk 0 pad read "$PAD")
prev=0000000000000000000000000000000000000000000000000000000000000000
while read -r n payload_b64 curr_hash; do
    prev=$({ printf '%s' "$prev"; base64 -d <<<"$payload_b64"; } | sha256sum | cut -c1-64)
    [ "$curr_hash" = "$prev" ] || fail "block $n does not hash to its curr_hash"
done < <(jq -r '.blocks[] | "\(.seq) \(.payload_b64) \(.curr_hash)"' <<<"$read")
[ "$prev" = "$head" ] || fail "the blocks hash to $prev, not the announced head $head"
envelope=$(jq -r '.blocks[0].payload_utf8' <<<"$read")
check "$envelope" '.schema == "locker.handoff.v1" and .to_agent == "worker"' "block 0"
echo "worker: recomputed the chain: it ends at the announced head"
echo "worker: task $(jq -r .task_id <<<"$envelope") from $(jq -r .from_agent <<<"$envelope"); plan:"
jq -j '.blocks[1].payload_utf8' <<<"$read" | sed 's/^/  /'
echo OK
