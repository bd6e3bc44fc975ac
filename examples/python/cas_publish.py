#!/usr/bin/env python3
"""Compare-and-swap publish over HTTP: two writers race, the loser re-reads and retries.

A publish names the version it read (`expected_version`, 0 to create) and an operation id. If
another writer got there first, the server refuses it with 409 `version_conflict` and the
current version; the writer re-reads, reapplies its edit and publishes again under a new
operation id. Sending the very same publish again (same operation id) is safe: it returns the
original result with `replayed: true` and writes nothing.

    python3 cas_publish.py --url http://127.0.0.1:8000 --token-a TOKEN --token-b TOKEN
"""

from __future__ import annotations

import threading

from locker_http import Failed, Locker, arguments, check, main, run_id

args = arguments("Compare-and-swap publish with retry on conflict.", tokens=2)
RUN = run_id()
KEY = f"examples/python/notes-{RUN}.md"
# `format=locker`: locker's own shapes (`{error, detail}` errors); without it the route speaks
# questlock's (`{code, message}`).
LOCKER_FORMAT = {"format": "locker"}


def read_head(server: Locker) -> dict:
    return server.expect(200, "GET", "/v1/artifact", query={"key": KEY, **LOCKER_FORMAT})


def publish(server: Locker, expected: int, op_id: str, content: str) -> tuple[int, dict]:
    request = {"key": KEY, "expected_version": expected, "operation_id": op_id, "content": content}
    return server.call("POST", "/v1/artifact", query=LOCKER_FORMAT, body=request)


def publish_with_retry(name: str, server: Locker, line: str, first_try: threading.Barrier,
                       attempts: int = 5) -> dict:
    """The CAS loop: read, edit, publish against what was read; on a conflict, start over."""
    for attempt in range(1, attempts + 1):
        head = read_head(server)
        content = head["content"] + line
        if attempt == 1:
            first_try.wait()  # both writers have read the same version: now they race
        op_id = f"{name}-{RUN}-{attempt}"  # a new operation id for each new request
        status, body = publish(server, head["version"], op_id, content)
        if status == 200:
            check(body["replayed"] is False and body["artifact"]["version"] == head["version"] + 1,
                  f"{name}: publishing against v{head['version']} gave {body}")
            print(f"{name}: published v{body['artifact']['version']} (attempt {attempt})")
            return {"attempts": attempt, "request": (head["version"], op_id, content), "result": body}
        if status == 409 and body.get("error") == "version_conflict":
            check(body["current_version"] > head["version"],
                  f"{name}: a conflict names v{body['current_version']}, not newer than v{head['version']}")
            print(f"{name}: version_conflict: expected v{head['version']}, "
                  f"the head is v{body['current_version']}; re-reading")
            continue
        raise Failed(f"{name}: publish answered {status}: {body}")
    raise Failed(f"{name}: no publish went through in {attempts} attempts")


def run() -> None:
    writers = {"writer-a": Locker(args.url, args.token_a), "writer-b": Locker(args.url, args.token_b)}
    a = writers["writer-a"]

    status, seed = publish(a, 0, f"seed-{RUN}", "# Notes\n")
    check(status == 200 and seed["artifact"]["version"] == 1, f"seeding {KEY}: {status} {seed}")
    print(f"writer-a: created {KEY} v1 (expected version 0)")

    # Two writers, two threads; the barrier lets both read v1 before either publishes.
    barrier = threading.Barrier(2, timeout=30)
    results: dict[str, dict] = {}
    errors: list[BaseException] = []

    def writer(name: str, server: Locker, line: str) -> None:
        try:
            results[name] = publish_with_retry(name, server, line, barrier)
        except BaseException as e:  # reported below, in the main thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=writer, args=(name, server, f"- from {name}\n"))
               for name, server in writers.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]

    tries = sorted(r["attempts"] for r in results.values())
    check(tries == [1, 2], f"expected one winner at once and one retry, got attempts {tries}")
    loser = next(n for n, r in results.items() if r["attempts"] == 2)
    final = read_head(a)
    check(final["version"] == 3, f"expected v3 after the seed and two edits, got v{final['version']}")
    check(final["content"].count("- from writer") == 2, f"an edit was lost: {final['content']!r}")
    print(f"both edits are in v3; {loser} lost the race once and retried:")
    print("  " + final["content"].replace("\n", "\n  ").rstrip())

    # A retry of an acknowledged publish (say, its answer was lost) is a replay, not a v4.
    expected, op_id, content = results[loser]["request"]
    status, replay = publish(writers[loser], expected, op_id, content)
    check(status == 200 and replay["replayed"] is True and replay["artifact"]["version"] == 3,
          f"resending {op_id} gave {status} {replay}")
    # The same operation id with a different request is refused.
    status, clash = publish(writers[loser], expected, op_id, content + "more\n")
    check(status == 409 and clash.get("error") == "operation_conflict",
          f"reusing {op_id} for another request gave {status} {clash}")
    log = a.expect(200, "GET", "/v1/artifact/log", query={"key": KEY})
    check([v["version"] for v in log["versions"]] == [1, 2, 3], f"the history is {log['versions']}")
    print(f"resending {op_id}: replayed v3; reusing it for other content: operation_conflict; "
          "history: v1, v2, v3")


main(run)
