"""Drives a real `locker mcp` process with the official Python MCP SDK (`mcp` on PyPI).

Usage: python mcp_client.py MODE LOCKER_BIN REPO_DIR < steps.json > report.json

MODE is the SDK's connect mode: "legacy" (initialize handshake), "2026-07-28" (modern, no
handshake) or "auto". steps.json is a list of steps, run in order in ONE client session:
  {"list_tools": true}
  {"call": "tool_name", "args": {...}}
The report is {"protocol_version", "server_info", "instructions", "steps": [...]}, one entry per
step: tool listings as plain JSON, call results as {"is_error", "structured", "text"}, or
{"exception": "..."} when the SDK raised (e.g. an unknown tool, a schema violation).
The tests in locker_mcp.rs make every assertion; this script only drives the client.
"""

import json
import os
import sys

import anyio
from mcp import Client, StdioServerParameters


def tool_json(tool):
    return {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": tool.annotations.model_dump(by_alias=True, exclude_none=True)
        if tool.annotations
        else None,
    }


async def main():
    mode, locker, repo = sys.argv[1], sys.argv[2], sys.argv[3]
    steps = json.load(sys.stdin)
    env = {k: v for k, v in os.environ.items() if k.startswith("LOCKER_") or k in ("HOME", "PATH")}
    params = StdioServerParameters(command=locker, args=["-R", repo, "mcp"], env=env)
    report = {"steps": []}
    async with Client(params, mode=mode, read_timeout_seconds=30) as client:
        report["protocol_version"] = client.protocol_version
        info = client.server_info
        report["server_info"] = info.model_dump(exclude_none=True) if info else None
        report["instructions"] = client.instructions
        for step in steps:
            try:
                if step.get("list_tools"):
                    listed = await client.list_tools()
                    report["steps"].append({"tools": [tool_json(t) for t in listed.tools]})
                else:
                    result = await client.call_tool(step["call"], step.get("args", {}))
                    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
                    report["steps"].append(
                        {
                            "is_error": bool(result.is_error),
                            "structured": result.structured_content,
                            "text": texts[0] if texts else None,
                        }
                    )
            except Exception as e:  # the SDK raises for protocol errors and bad results
                report["steps"].append({"exception": f"{type(e).__name__}: {e}"})
    json.dump(report, sys.stdout)


anyio.run(main)
