"""The plumbing the Python examples share: a small client for `locker serve`, standard library only.

Every call names the status it expects; anything else raises `Failed` with the server's answer,
so an example never carries on past a response it did not expect.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable

ZERO_HASH = "0" * 64


class Failed(Exception):
    """An unexpected answer, or a guarantee that did not hold."""


def check(ok: bool, what: str) -> None:
    """Assert a guarantee; unlike `assert`, it is never compiled away."""
    if not ok:
        raise Failed(what)


def chain_hash(prev_hash: str, payload: bytes) -> str:
    """A block's hash: sha256(prev_hash as 64 ASCII hex characters ‖ payload bytes)."""
    return hashlib.sha256(prev_hash.encode("ascii") + payload).hexdigest()


def run_id() -> str:
    """A fresh suffix, so that every run uses new pad, key and work item names."""
    return secrets.token_hex(4)


class Locker:
    """One caller of a `locker serve`: its base URL and, optionally, an agent's bearer token."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        # No proxy: the examples talk to a server on loopback, whatever http_proxy says.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: Any = None,
        raw: bytes | None = None,
        content_type: str = "application/json",
        bearer: str | None = None,
    ) -> tuple[int, Any]:
        """Sends one request; returns the status and the JSON body (None if there is none).

        `body` is sent as JSON, `raw` as exact bytes; `bearer` replaces the token (a pad's write
        key or read ticket). Every write goes as `content_type`: the server refuses the types a
        web page could post anywhere (415).
        """
        url = self.url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        headers = {"Accept": "application/json"}
        if method != "GET":
            headers["Content-Type"] = content_type
            data = b"" if data is None else data
        credential = bearer if bearer is not None else self.token
        if credential:
            headers["Authorization"] = f"Bearer {credential}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self.opener.open(request, timeout=30) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as e:  # 4xx and 5xx: the body says why
            status, text = e.code, e.read()
        except urllib.error.URLError as e:
            raise Failed(f"{method} {url}: cannot reach the server: {e.reason}") from e
        try:
            return status, json.loads(text) if text else None
        except json.JSONDecodeError as e:
            raise Failed(f"{method} {path}: {status} with a body that is not JSON: {text[:200]!r}") from e

    def expect(self, status: int, method: str, path: str, **kwargs: Any) -> Any:
        """`call`, requiring `status`; returns the body."""
        got, body = self.call(method, path, **kwargs)
        if got != status:
            raise Failed(f"{method} {path}: expected {status}, got {got}: {json.dumps(body)}")
        return body

    def refused(self, status: int, error: str, method: str, path: str, **kwargs: Any) -> dict:
        """`call`, requiring a refusal with this status and error code; returns the error body."""
        body = self.expect(status, method, path, **kwargs)
        check(
            isinstance(body, dict) and body.get("error") == error,
            f"{method} {path}: expected error {error!r}, got {json.dumps(body)}",
        )
        return body


def arguments(description: str, tokens: int) -> argparse.Namespace:
    """The command line: the server's URL and `tokens` agent tokens (0, 1 or 2)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--url", default=os.environ.get("LOCKER_URL"), help="the server (default: $LOCKER_URL)")
    if tokens == 1:
        p.add_argument("--token", default=os.environ.get("LOCKER_TOKEN"),
                       help="an agent token, if the server requires one (default: $LOCKER_TOKEN)")
    if tokens == 2:
        p.add_argument("--token-a", default=os.environ.get("LOCKER_TOKEN_A"),
                       help="agent A's token (default: $LOCKER_TOKEN_A)")
        p.add_argument("--token-b", default=os.environ.get("LOCKER_TOKEN_B"),
                       help="agent B's token, another agent in A's scope (default: $LOCKER_TOKEN_B)")
    args = p.parse_args()
    if not args.url:
        p.error("give the server's URL with --url or LOCKER_URL")
    if tokens == 2 and not (args.token_a and args.token_b):
        p.error("give two agents' tokens (`locker token create --agent NAME --scope SCOPE`, "
                "one scope) with --token-a/--token-b or LOCKER_TOKEN_A/LOCKER_TOKEN_B")
    return args


def main(run: Callable[[], None]) -> None:
    """Runs an example: exit 0 when every guarantee held, 1 with the reason otherwise."""
    try:
        run()
    except Failed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    print("OK")
