"""Fault injection helpers: a real redis-server that can be killed -9, restarted on the
same port and have the last part of its append-only file cut, and ``teoti`` processes.

The embedded Redis (services.embedded_redis) picks a new port each start; processes
under test keep their URL, so this one keeps its port and data folder across restarts.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.embedded_redis import free_port, redis_server_binary

REPO = Path(__file__).resolve().parents[1]
BOT_SECRET = "fault-injection-bot-credential"


class RedisProcess:
    """redis-server on a fixed loopback port, AOF ``appendfsync everysec`` in ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """redis:// URL (db 0)."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def aof(self) -> Path:
        """The append-only file (Redis 6: one file)."""
        return self.data_dir / "appendonly.aof"

    def start(self, timeout_s: float = 20.0) -> RedisProcess:
        """Start (loading the AOF if any) and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(redis_server_binary()),
            *("--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir)),
            *("--save", "", "--appendonly", "yes", "--appendfsync", "everysec"),
            *("--aof-load-truncated", "yes", "--daemonize", "no"),
        ]
        with (self.data_dir / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited; see {self.data_dir}/redis.log")
            if self._ping():
                return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer in time")

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def kill9(self) -> None:
        """SIGKILL: what the AOF holds is what survives."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def cut_aof(self, keep: float) -> int:
        """Keep the first ``keep`` fraction of the AOF (Redis loads the cut last command
        as truncated): the acknowledged writes after it are lost. Returns bytes cut."""
        size = self.aof.stat().st_size
        kept = int(size * keep)
        with self.aof.open("r+b") as aof:
            aof.truncate(kept)
        return size - kept

    def stop(self) -> None:
        """Terminate (if running)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Proc:
    """One ``teoti`` subprocess with its output in a file; the bot credential in its env."""

    def __init__(self, args: list[str], log: Path, log_level: str = "WARNING") -> None:
        self.args = args
        self.log = log
        self.log_level = log_level
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Proc:
        """Start it (again)."""
        env = {**os.environ, "TEOTI_BOT_SECRET": BOT_SECRET}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "services.cli", "--log-level", self.log_level, *self.args],
                cwd=REPO,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        return self

    def kill9(self) -> None:
        """SIGKILL, and reap it."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """SIGTERM (then SIGKILL after 10 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


async def engine_serving(port: int, seconds: float = 60) -> None:
    """Wait until the ``teoti engine`` on gRPC ``port`` says SERVING (its engine link, if
    it serves one, listens before); AssertionError after ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if loop.time() > deadline:
                raise AssertionError(f"engine on {port} did not start")
            await asyncio.sleep(0.1)
