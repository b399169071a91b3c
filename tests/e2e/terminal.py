"""Run ``teoti`` on a pseudo-terminal, as a person at a terminal would, and read it.

``Terminal`` starts the command in its own session on a pty of a given size (so the
full-screen table really draws), feeds keys and collects everything written.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

TEOTI = [sys.executable, "-m", "services.cli"]


def redis_children(pid: int) -> list[int]:
    """Pids of redis-server processes whose parent is ``pid`` (from /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            if ppid == pid and name.startswith("redis-server"):
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pids: list[int], within_s: float = 15.0) -> list[int]:
    """The pids of ``pids`` still alive after at most ``within_s``."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


class Terminal:
    """``teoti ARGS`` on a pty of ``size`` (columns, rows) in ``cwd``, without REDIS_URL
    (so ``play``/``watch``/``serve`` start their embedded Redis)."""

    def __init__(self, args: list[str], cwd: Path, size: tuple[int, int] = (100, 30)) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TEOTI_LOG_LEVEL")}
        env["TERM"] = "xterm-256color"
        root = Path(__file__).resolve().parents[2]
        env["PYTHONPATH"] = str(root)
        self.process = subprocess.Popen(
            [*TEOTI, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.output = b""

    @property
    def text(self) -> str:
        """Everything written so far (escape sequences included)."""
        return self.output.decode(errors="replace")

    def _read(self, timeout_s: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout_s)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the other side closed
            return False
        self.output += data
        return bool(data)

    def wait_for(self, marker: str, within_s: float = 60.0) -> None:
        """Read until ``marker`` was written; fails with the output if it never is."""
        deadline = time.monotonic() + within_s
        while marker not in self.text:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self._read(0.2)
                if marker in self.text:
                    return
                raise AssertionError(f"{marker!r} never shown; output:\n{self.text[-3000:]}")
            self._read(0.2)

    def press(self, keys: str) -> None:
        """Type ``keys``."""
        os.write(self.master, keys.encode())

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the command's process."""
        self.process.send_signal(sig)

    def finish(self, within_s: float = 30.0) -> int:
        """Read to the end; the exit code (negative: killed by that signal)."""
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline and self._read(0.2):
            pass
        try:
            return self.process.wait(max(0.1, deadline - time.monotonic()))
        finally:
            os.close(self.master)

    def kill(self) -> None:
        """End the command's whole session (test clean-up)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
