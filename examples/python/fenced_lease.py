#!/usr/bin/env python3
"""A fenced lease over HTTP: worker A stalls, worker B takes over, A's late writes are refused.

Worker A leases a work item (fencing token 1), commits a plan, logs a step and stops
heartbeating. While its lease lives, B is refused (409 `lease_held`). Once it has expired, B's
acquire abandons it and gets fencing token 2. When A wakes up, its heartbeat and steps are
refused (410 `gone`) and a publish fenced with its token 1 is refused as stale (409
`stale_fence`), even against the right version; B's publish under token 2 goes through.

    python3 fenced_lease.py --url http://127.0.0.1:8000 --token-a TOKEN --token-b TOKEN
"""

from __future__ import annotations

import time

from locker_http import Failed, Locker, arguments, check, main, run_id

args = arguments("A fenced lease: exclusive, expiring, and a stale holder refused.", tokens=2)
RUN = run_id()
WORK = f"examples/python/build-{RUN}"
KEY = f"examples/python/result-{RUN}.txt"
PLAN = ["fetch", "build", "publish"]
# A's lease is short so that the example does not wait long for it to expire. Expiry is checked
# in whole seconds, so a TTL of N seconds lasts at least N-1: keep it above 1.
A_TTL = 3


def acquire(server: Locker, ttl: int) -> tuple[int, dict]:
    return server.call("POST", "/lease", body={"work_ref": WORK, "ttl": ttl})


def step(server: Locker, lease: dict, name: str, executed: str) -> tuple[int, dict]:
    body = {"work_ref": WORK, "lease": lease["lease_id"], "step": name, "executed": executed}
    return server.call("POST", "/event", body=body)


def fenced_publish(server: Locker, fence: int, expected: int, op_id: str, content: str) -> tuple[int, dict]:
    # `fence` ("WORK:TOKEN") needs locker's own request shape, `format=locker`.
    body = {"key": KEY, "expected_version": expected, "operation_id": op_id, "content": content,
            "fence": f"{WORK}:{fence}"}
    return server.call("POST", "/v1/artifact", query={"format": "locker"}, body=body)


def take_over(b: Locker, held: dict) -> dict:
    """B waits for A's lease to expire (the refusal says when), then acquires it."""
    deadline = held["expires_at"] + 10
    while True:
        time.sleep(max(0.0, held["expires_at"] - time.time()) + 0.05)
        status, body = acquire(b, ttl=60)
        if status == 200:
            return body
        if status != 409 or body.get("error") != "lease_held" or time.time() > deadline:
            raise Failed(f"B's acquire after A's expiry answered {status}: {body}")
        held = body  # not yet expired by the server's clock: wait for the time it names


def run() -> None:
    a, b = Locker(args.url, args.token_a), Locker(args.url, args.token_b)

    status, lease_a = acquire(a, ttl=A_TTL)
    check(status == 200 and lease_a["fence"] == 1 and lease_a["state"] == "active",
          f"A's acquire: {status} {lease_a}")
    print(f"A: leased {WORK} (fencing token 1, holder {lease_a['holder']}, ttl {A_TTL} s)")
    plan = a.expect(200, "POST", "/manifest",
                    body={"work_ref": WORK, "lease": lease_a["lease_id"], "steps": PLAN})
    check(plan["version"] == 1 and plan["steps"] == PLAN, f"A's plan: {plan}")
    status, logged = step(a, lease_a, "fetch", "cloned the inputs")
    check(status == 200 and logged["fence"] == 1, f"A's step: {status} {logged}")
    print(f"A: committed the plan {PLAN} and logged 'fetch'")

    # The lease is exclusive: B is refused while A's lives, and told who holds it until when.
    held = b.refused(409, "lease_held", "POST", "/lease", body={"work_ref": WORK, "ttl": 60})
    check(held["holder"] == lease_a["holder"] and held["fence"] == 1, f"the refusal names {held}")
    print(f"B: refused (409 lease_held): {held['holder']} holds it until {held['expires_at']}")

    # A stalls: no heartbeat. B waits for the expiry and takes over.
    lease_b = take_over(b, held)
    check(lease_b["fence"] == 2 and lease_b["holder"] != lease_a["holder"],
          f"B's lease after the takeover: {lease_b}")
    print(f"B: A's lease expired; B leased {WORK} with fencing token 2")

    # A wakes up. Everything it tries under its old lease is refused and changes nothing.
    hb = a.refused(410, "gone", "POST", "/heartbeat",
                   body={"work_ref": WORK, "lease": lease_a["lease_id"]})
    check(hb["state"] == "abandoned" and hb["current_fence"] == 2, f"the refusal says {hb}")
    status, late = step(a, lease_a, "build", "built it anyway")
    check(status == 410 and late.get("error") == "gone", f"A's late step: {status} {late}")
    print("A: heartbeat and step refused (410 gone): the lease was abandoned, fence 2 holds")

    current = a.call("GET", "/v1/artifact", query={"key": KEY, "format": "locker"})
    check(current[0] == 404, f"{KEY} should not exist yet: {current}")
    status, stale = fenced_publish(a, 1, 0, f"a-{RUN}", "result from A\n")
    check(status == 409 and stale.get("error") == "stale_fence" and stale["current_fence"] == 2,
          f"A's publish under fence 1: {status} {stale}")
    print("A: publish with fencing token 1, against the right version: refused (409 stale_fence)")

    status, published = fenced_publish(b, 2, 0, f"b-{RUN}", "result from B\n")
    check(status == 200 and published["artifact"]["version"] == 1, f"B's publish: {status} {published}")
    print(f"B: published {KEY} v1 under fencing token 2")
    for name in PLAN:
        status, logged = step(b, lease_b, name, "done")
        check(status == 200 and logged["fence"] == 2, f"B's step {name}: {status} {logged}")
    done = b.expect(200, "POST", "/complete",
                    body={"work_ref": WORK, "lease": lease_b["lease_id"], "result": "published v1"})
    check(done["state"] == "completed" and done["diff"]["clean"] is True and done["diff"]["holes"] == [],
          f"B's completion: {done}")
    print(f"B: logged {PLAN} and completed the lease; the plan diff is clean")

    ledger = b.expect(200, "GET", "/ledger", query={"work": WORK})
    kinds = [e["kind"] for e in ledger["entries"]]
    check(ledger["integrity"] == "ok" and "lease.abandon" in kinds, f"the ledger: {ledger}")
    final = b.expect(200, "GET", "/v1/artifact", query={"key": KEY, "format": "locker"})
    check(final["version"] == 1 and final["content"] == "result from B\n", f"{KEY}: {final}")
    print(f"ledger: integrity ok; {', '.join(kinds)}")


main(run)
