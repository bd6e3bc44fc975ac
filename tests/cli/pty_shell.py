"""Types into an interactive shell running in a pseudo-terminal, as a person would.

Usage: python3 pty_shell.py SHELL_ARGV_JSON SETUP TYPED EXPECT [EXPECT...]

Starts SHELL_ARGV_JSON (e.g. ["bash", "--norc", "--noprofile", "-i"]) in a new pseudo-terminal
(the crate forbids unsafe code, so the Rust tests drive the terminal through Python's `pty`),
runs the SETUP lines and waits until they are done, then writes TYPED (TABs included) and reads
the terminal until every EXPECT string has appeared after it, or 20 seconds have passed. Prints
what the terminal showed after TYPED, and exits 0 when every EXPECT appeared, 1 otherwise.
The Rust test (completion.rs) makes the assertions; this script only drives the terminal.
"""

import json
import os
import pty
import select
import signal
import sys
import time

TIMEOUT = 20.0


def main():
    argv = json.loads(sys.argv[1])
    setup, typed, expects = sys.argv[2], sys.argv[3], sys.argv[4:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    out = bytearray()

    def read_until(done, timeout):
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out.extend(data)
        return done()

    # The marker is computed by the shell, so the echo of the typed line does not match it.
    os.write(fd, setup.encode() + b"\necho READY-$((6 * 7))\n")
    ready = read_until(lambda: b"READY-42" in out, TIMEOUT)
    start = len(out)
    ok = False
    if ready:
        os.write(fd, typed.encode())
        wanted = [e.encode() for e in expects]
        ok = read_until(lambda: all(w in out[start:] for w in wanted), TIMEOUT)
    # Leave the line unfinished and the shell with it.
    try:
        os.write(fd, b"\x03exit\n")
        read_until(lambda: False, 0.5)
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    shown = bytes(out[start:] if ready else out).decode("utf-8", "replace")
    sys.stdout.write(shown)
    if not ready:
        sys.stdout.write("\n[the setup did not finish]\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
