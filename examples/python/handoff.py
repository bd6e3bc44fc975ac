#!/usr/bin/env python3
"""A full handoff over HTTP: a planner writes a sealed pad, a worker reads it and verifies it.

The planner creates a pad, appends the `locker.handoff.v1` envelope (block 0) and a plan
(block 1), seals it and mints a read ticket. It hands the worker three things: the pad id, the
ticket and the head hash (never the write key). The worker acts only if the blocks it reads hash,
end to end, to that head.

    python3 handoff.py --url http://127.0.0.1:8000
"""

from __future__ import annotations

import base64
import json

from locker_http import ZERO_HASH, Locker, arguments, chain_hash, check, main, run_id

args = arguments("A full handoff: pad, blocks, seal, ticket, verified read.", tokens=1)
RUN = run_id()


def planner(server: Locker) -> dict:
    """Writes the pad; returns what the worker gets."""
    pad = server.expect(201, "POST", "/v1/pads", body={"ttl_seconds": 600, "max_blocks": 8})
    pad_id, write_key = pad["pad_id"], pad["write_key"]
    print(f"planner: created pad {pad_id}")

    envelope = {
        "schema": "locker.handoff.v1",
        "task_id": f"fix-{RUN}",
        "from_agent": "planner",
        "to_agent": "worker",
        "constraints": ["tests must pass"],
        "artifacts": [{"name": "plan"}],
        "budget_usd": 5.0,
        "allowed_paths": ["src/", "tests/"],
    }
    blocks = [
        (json.dumps(envelope).encode(), "application/json"),
        (b"1. reproduce\n2. fix\n3. test\n", "text/markdown"),
    ]
    head = ZERO_HASH
    for seq, (payload, content_type) in enumerate(blocks):
        # The raw body is the block; the write key is the bearer credential.
        block = server.expect(201, "POST", f"/v1/pads/{pad_id}/append",
                              raw=payload, content_type=content_type, bearer=write_key)
        head = chain_hash(head, payload)
        check(block["seq"] == seq and block["curr_hash"] == head,
              f"block {seq} came back as {block}, expected curr_hash {head}")
        print(f"planner: appended block {seq} ({content_type}), curr_hash {head[:12]}…")

    sealed = server.expect(200, "POST", f"/v1/pads/{pad_id}/seal", bearer=write_key)
    check(sealed["state"] == "sealed" and sealed["head_hash"] == head,
          f"the seal answered {sealed}, expected head {head}")
    print(f"planner: sealed; head {head}")

    # Sealed means final: even the writer cannot add a block now.
    server.refused(409, "conflict", "POST", f"/v1/pads/{pad_id}/append",
                   raw=b"one more thing", content_type="text/plain", bearer=write_key)
    print("planner: an append after the seal is refused (409 conflict)")

    ticket = server.expect(201, "POST", f"/v1/pads/{pad_id}/tickets",
                           body={"type": "read_once"}, bearer=write_key)
    check(ticket["type"] == "read_once", f"asked for a read_once ticket, got {ticket['type']}")
    print("planner: minted a read_once ticket for the worker")

    # The write key writes; it does not read. Only a ticket does.
    server.refused(401, "unauthorized", "GET", f"/v1/pads/{pad_id}/blocks", bearer=write_key)
    print("planner: reading with the write key is refused (401): the worker needs the ticket")
    return {"pad_id": pad_id, "head_hash": head, "ticket": ticket["ticket"]}


def worker(server: Locker, handoff: dict) -> None:
    """Reads the pad with the ticket and checks every byte against the announced head."""
    pad_id, head, ticket = handoff["pad_id"], handoff["head_hash"], handoff["ticket"]

    manifest = server.expect(200, "GET", f"/v1/pads/{pad_id}/manifest")
    check(manifest["state"] == "sealed" and manifest["head_hash"] == head,
          f"the manifest says {manifest['state']} at {manifest['head_hash']}, expected sealed at {head}")
    print(f"worker: manifest: sealed, {manifest['block_count']} blocks, head matches")

    # Without the ticket nothing is read.
    server.refused(401, "unauthorized", "GET", f"/v1/pads/{pad_id}/blocks")
    print("worker: reading without the ticket is refused (401)")

    read = server.expect(200, "GET", f"/v1/pads/{pad_id}/blocks", bearer=ticket)
    check(read["total_blocks"] == len(read["blocks"]) == 2,
          f"read {len(read['blocks'])} of {read['total_blocks']} blocks, expected 2")
    # Recompute the chain from the exact bytes: the server's word is not enough.
    prev = ZERO_HASH
    payloads = []
    for block in read["blocks"]:
        payload = base64.b64decode(block["payload_b64"], validate=True)
        check(block["prev_hash"] == prev, f"block {block['seq']} does not link to its predecessor")
        prev = chain_hash(prev, payload)
        check(block["curr_hash"] == prev, f"block {block['seq']} does not hash to its curr_hash")
        payloads.append(payload)
    check(prev == head, f"the blocks hash to {prev}, not the announced head {head}")
    print(f"worker: recomputed the chain of {len(payloads)} blocks: it ends at the announced head")

    envelope = json.loads(payloads[0])
    check(envelope.get("schema") == "locker.handoff.v1" and envelope.get("to_agent") == "worker",
          f"block 0 is not a handoff to this worker: {envelope}")
    print(f"worker: task {envelope['task_id']} from {envelope['from_agent']}, "
          f"constraints {envelope['constraints']}; plan: {payloads[1].decode().strip().splitlines()}")

    # The server's own verdict too: chain, accounting and the journal's record of the pad.
    report = server.expect(200, "GET", f"/v1/pads/{pad_id}/verify", query={"expect_head": head})
    check(report["ok"] is True and report["expected_head"]["matches"] is True,
          f"the server's verify says {report}")
    wrong = server.expect(200, "GET", f"/v1/pads/{pad_id}/verify", query={"expect_head": "f" * 64})
    check(wrong["ok"] is False and wrong["expected_head"]["matches"] is False,
          f"verify against a wrong head did not fail: {wrong}")
    print("worker: the server verifies the pad against the head, and rejects a wrong head")


def run() -> None:
    server = Locker(args.url, args.token)
    handoff = planner(server)
    # The worker is another process in real life; all it holds is pad id, ticket and head.
    worker(Locker(args.url), handoff)


main(run)
