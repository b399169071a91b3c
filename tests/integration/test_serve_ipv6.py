"""``teoti serve --host ::1``: an IPv6 literal is a host gRPC can bind (bracketed in the
address it is given) as it is for the web face; a real serve process answers health
checks and plays over IPv6."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.client import SeatInfo, TeotiClient
from tests.integration.test_serve_unix_redis import _wait_for
from tests.web_serve import ROOT


def _free_ipv6_port() -> int:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
        probe.bind(("::1", 0))
        return int(probe.getsockname()[1])


def test_serve_on_an_ipv6_host_answers_over_ipv6(tmp_path: Path) -> None:
    try:
        port = _free_ipv6_port()
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    log = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER_NODES")}
    args = [
        *(sys.executable, "-m", "services.cli", "--log-level", "INFO", "serve"),
        *("--host", "::1", "--port", str(port), "--web-port", "0"),
        *("--data-dir", str(tmp_path / "data"), "--extra-ruleset", "nim=tests.nim:NimRuleset"),
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            args, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, stdout=out, stderr=out
        )
    try:
        _wait_for(log, "serving", process)
        with grpc.insecure_channel(f"ipv6:[::1]:{port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=10
            )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        asyncio.run(_play_a_move(f"[::1]:{port}"))
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log.read_text()[-2000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def _play_a_move(target: str) -> None:
    """Create a Nim game and play its first move through ``target`` (gateway and engine
    of the serve process)."""
    async with TeotiClient(target) as client:
        created = await client.create_game(
            [SeatInfo("human", "a"), SeatInfo("human", "b")], "nim", {"max_take": 3}
        )
        moved = await client.play(created.game_id, 0, created.seat_tokens[0], {"take": 1})
        assert moved.game.version > 0 and moved.game.seats_to_act == (1,)
