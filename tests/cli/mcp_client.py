"""Drives a real locker MCP server with the official Python MCP SDK (`mcp` on PyPI).

Usage: python mcp_client.py MODE LOCKER_BIN REPO_DIR < steps.json > report.json
       python mcp_client.py MODE URL < steps.json > report.json

With LOCKER_BIN and REPO_DIR it starts `locker -R REPO_DIR mcp` and speaks stdio; with an
`http://HOST:PORT/mcp` URL it speaks Streamable HTTP to a `locker serve` (the SDK's
`streamable_http_client`), or with MCP_TRANSPORT=sse and an `http://HOST:PORT/mcp/sse` URL the
2024-11-05 transport (the SDK's `sse_client`), sending `Authorization: Bearer $MCP_BEARER_TOKEN` when that is set
and the headers of $MCP_HEADERS (a JSON object) too. The report adds "http", every HTTP
answer the client got ("POST 200", …); when the client cannot connect (an HTTP refusal, say),
it is {"connect_error": "...", "http": [...]}.

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
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


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


def http_headers():
    headers = json.loads(os.environ.get("MCP_HEADERS") or "{}")
    token = os.environ.get("MCP_BEARER_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


async def run_steps(client, steps):
    report = {"steps": []}
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
    return report


def leaves(e):
    """The exceptions inside an exception group, or the exception itself."""
    if isinstance(e, BaseExceptionGroup):
        return [leaf for sub in e.exceptions for leaf in leaves(sub)]
    return [e]


async def main():
    mode, target = sys.argv[1], sys.argv[2]
    steps = json.load(sys.stdin)
    if target.startswith(("http://", "https://")):
        statuses = []

        async def record(response):
            statuses.append(f"{response.request.method} {response.status_code}")

        def client_factory(**kwargs):
            http = create_mcp_http_client(**kwargs)
            http.event_hooks = {"request": [], "response": [record]}
            return http

        try:
            if os.environ.get("MCP_TRANSPORT") == "sse":
                transport = sse_client(target, headers=http_headers(), httpx_client_factory=client_factory)
                async with Client(transport, mode=mode, read_timeout_seconds=30) as client:
                    report = await run_steps(client, steps)
            else:
                async with client_factory(headers=http_headers()) as http:
                    transport = streamable_http_client(target, http_client=http)
                    async with Client(transport, mode=mode, read_timeout_seconds=30) as client:
                        report = await run_steps(client, steps)
        except Exception as e:
            causes = "; ".join(f"{type(x).__name__}: {x}" for x in leaves(e))
            report = {"connect_error": causes}
        report["http"] = statuses
    else:
        repo = sys.argv[3]
        env = {k: v for k, v in os.environ.items() if k.startswith("LOCKER_") or k in ("HOME", "PATH")}
        params = StdioServerParameters(command=target, args=["-R", repo, "mcp"], env=env)
        async with Client(params, mode=mode, read_timeout_seconds=30) as client:
            report = await run_steps(client, steps)
    json.dump(report, sys.stdout)


anyio.run(main)
