"""Drives agent-locker's own MCP server (`lockermcp` 0.1.5 from PyPI) against a `locker serve`.

Usage: python lockermcp_session.py LOCKERMCP_EXECUTABLE LOCKER_URL

It connects with the `mcp` Python client over stdio, exactly as an agent would, and runs:
deposit, manifest (without and with a ticket and the expected head), read_blocks with the
expected head, and create/append/seal. It prints one JSON object with what each tool returned;
the Rust test decides what must hold.
"""
import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def result(r):
    if r.is_error:
        return {"isError": True, "text": [c.text for c in r.content if hasattr(c, "text")]}
    return json.loads(r.content[0].text)


async def main(lockermcp, url):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    env["LOCKER_URL"] = url
    params = StdioServerParameters(command=lockermcp, args=[], env=env)
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            out["tools"] = sorted(t.name for t in (await s.list_tools()).tools)
            envelope = {
                "schema": "locker.handoff.v1",
                "task_id": "interop-1",
                "from_agent": "planner",
                "to_agent": "worker",
                "constraints": ["touch only src/"],
                "artifacts": [{"name": "notes.md"}],
                "budget_usd": 1.5,
                "allowed_paths": ["src/**"],
            }
            dep = result(await s.call_tool("locker_deposit", {
                "envelope": envelope,
                "artifacts": ["plain text artifact\n", {"kind": "json", "n": 1}],
                "ttl_seconds": 3600,
            }))
            out["deposit"] = dep
            pad, ticket, head = dep.get("pad_id"), dep.get("read_ticket"), dep.get("head_hash")
            out["manifest_free"] = result(await s.call_tool("locker_manifest", {"pad_id": pad}))
            out["manifest_checked"] = result(await s.call_tool("locker_manifest", {
                "pad_id": pad, "ticket": ticket, "expected_head_hash": head}))
            out["read"] = result(await s.call_tool("locker_read_blocks", {
                "pad_id": pad, "ticket": ticket, "from_block": 0, "to_block": 2,
                "expected_head_hash": head}))
            out["read_wrong_head"] = result(await s.call_tool("locker_read_blocks", {
                "pad_id": pad, "ticket": ticket, "from_block": 0, "to_block": 2,
                "expected_head_hash": "0" * 64}))
            created = result(await s.call_tool("locker_create", {"ttl_seconds": 600, "max_blocks": 4}))
            out["create"] = created
            out["append"] = result(await s.call_tool("locker_append", {
                "pad_id": created["pad_id"], "write_key": created["write_key"], "payload": envelope}))
            out["append_text"] = result(await s.call_tool("locker_append", {
                "pad_id": created["pad_id"], "write_key": created["write_key"],
                "payload": "second block", "content_type": "text/plain"}))
            out["seal"] = result(await s.call_tool("locker_seal", {
                "pad_id": created["pad_id"], "write_key": created["write_key"]}))
            out["append_after_seal"] = result(await s.call_tool("locker_append", {
                "pad_id": created["pad_id"], "write_key": created["write_key"], "payload": "late"}))
            out["read_created"] = result(await s.call_tool("locker_read_blocks", {
                "pad_id": created["pad_id"], "ticket": created["read_ticket"], "from_block": 0,
                "to_block": 1, "expected_head_hash": out["seal"].get("head_hash")}))
    print(json.dumps(out))


anyio.run(main, sys.argv[1], sys.argv[2])
