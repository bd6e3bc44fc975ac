"""Runs one command on a pseudo-terminal, as a person at a terminal would, and reports what
they would have seen.

Usage: python3 pty_run.py [OPTIONS] -- COMMAND [ARGS...]

  --answer PROMPT TEXT   once PROMPT has appeared on the terminal, type TEXT (a trailing \\n
                         is Enter); may be given several times, answered in order
  --stderr-pipe          stderr is a pipe (not the terminal), reported apart
  --stdin-null           stdin is /dev/null (not the terminal)
  --timeout SECONDS      kill the command after this long (default 60)

The command gets the terminal as its controlling terminal and as stdin, stdout and stderr
(except as the options say), 40 rows by 120 columns. The report, on stdout, is one JSON object:
{"transcript": everything written to the terminal, "stderr": what went to the pipe (with
--stderr-pipe), "status": the exit code (or -SIGNAL), "unanswered": prompts never seen,
"timed_out": bool}. The tests in tty.rs make every assertion; this script only drives.
Standard library only: pty, os, select.
"""

import json
import os
import pty
import select
import signal
import struct
import sys
import time


def parse(argv):
    answers, stderr_pipe, stdin_null, timeout = [], False, False, 60.0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return answers, stderr_pipe, stdin_null, timeout, argv[i + 1 :]
        if a == "--answer":
            answers.append((argv[i + 1], argv[i + 2].replace("\\n", "\n")))
            i += 3
        elif a == "--stderr-pipe":
            stderr_pipe, i = True, i + 1
        elif a == "--stdin-null":
            stdin_null, i = True, i + 1
        elif a == "--timeout":
            timeout, i = float(argv[i + 1]), i + 2
        else:
            sys.exit(f"pty_run.py: unknown option {a}")
    sys.exit("pty_run.py: no command (put it after --)")


def main():
    answers, stderr_pipe, stdin_null, timeout, cmd = parse(sys.argv[1:])
    if not cmd:
        sys.exit("pty_run.py: no command")
    err_r, err_w = os.pipe() if stderr_pipe else (None, None)
    pid, master = pty.fork()
    if pid == 0:
        # The child: the terminal is fds 0, 1 and 2 and the controlling terminal.
        import fcntl
        import termios

        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        if stderr_pipe:
            os.close(err_r)
            os.dup2(err_w, 2)
            os.close(err_w)
        if stdin_null:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    if stderr_pipe:
        os.close(err_w)

    transcript, stderr = bytearray(), bytearray()
    seen_from = 0  # answers look for their prompt after what the previous one saw
    pending = list(answers)
    deadline = time.monotonic() + timeout
    timed_out = False
    open_fds = [master] + ([err_r] if stderr_pipe else [])
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select(open_fds, [], [], min(left, 0.5))
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                data = b""
            if not data:
                open_fds.remove(fd)
                continue
            if fd == master:
                transcript += data
            else:
                stderr += data
        if pending:
            prompt, text = pending[0]
            where = transcript.find(prompt.encode(), seen_from)
            if where >= 0:
                # Let the program switch the terminal to read a key before typing.
                time.sleep(0.2)
                os.write(master, text.encode())
                seen_from = where + len(prompt)
                pending.pop(0)
    _, wstatus = os.waitpid(pid, 0)
    status = os.waitstatus_to_exitcode(wstatus)
    os.close(master)
    if stderr_pipe:
        os.close(err_r)
    json.dump(
        {
            "transcript": transcript.decode("utf-8", "replace"),
            "stderr": stderr.decode("utf-8", "replace"),
            "status": status,
            "unanswered": [p for p, _ in pending],
            "timed_out": timed_out,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
