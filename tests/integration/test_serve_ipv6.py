"""``teoti serve --host ::1``: an IPv6 literal is a host gRPC can bind (bracketed in the
address it is given) as it is for the web face; a real serve process answers health
checks and plays over IPv6."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.client import SeatInfo, TeotiClient
from tests.serve_process import serving


def _free_ipv6_port() -> int:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
        probe.bind(("::1", 0))
        return int(probe.getsockname()[1])


def test_serve_on_an_ipv6_host_answers_over_ipv6(tmp_path: Path) -> None:
    try:
        port = _free_ipv6_port()
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    with serving(tmp_path / "data", tmp_path / "serve.log", host="::1", port=port) as served:
        with grpc.insecure_channel(f"ipv6:[::1]:{port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=10
            )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        asyncio.run(_play_a_move(f"[::1]:{port}"))
        served.process.send_signal(signal.SIGTERM)
        assert served.process.wait(timeout=30) == 0, served.log.read_text()[-2000:]


async def _play_a_move(target: str) -> None:
    """Create a Nim game and play its first move through ``target`` (gateway and engine
    of the serve process)."""
    async with TeotiClient(target) as client:
        created = await client.create_game(
            [SeatInfo("human", "a"), SeatInfo("human", "b")], "nim", {"max_take": 3}
        )
        moved = await client.play(created.game_id, 0, created.seat_tokens[0], {"take": 1})
        assert moved.game.version > 0 and moved.game.seats_to_act == (1,)
