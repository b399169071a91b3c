"""Issue 30 item 2 (the gRPC port): silent, slow and idle connections are closed, and
connections are capped below the process's file-descriptor limit.

Hostile, bounded and loopback only: raw sockets that send nothing, half an HTTP/2
preface, the preface without its SETTINGS frame, or a whole preface and then no call, at
a server built as every service builds its own (services.rpc.server.build_server). Before
the fix all of them were still open 40 s later (grpc's handshake default is 120 s and it
never closes an idle connection), and silent sockets piled up to the fd limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.rpc.server import HANDSHAKE_TIMEOUT_MS, build_server, connection_cap

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
"""The client connection preface (RFC 9113 3.4) without its SETTINGS frame."""
EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
"""A SETTINGS frame with no parameters: length 0, type 4, no flags, stream 0."""
SLACK_S = 2.0
"""Timers fire late on a busy 2-core CI machine; a socket left open is late by far more."""


async def closed_after(port: int, payload: bytes, within_s: float) -> float | None:
    """Connect to ``port``, send ``payload``, ignore whatever the server sends; seconds
    until the server closed the connection, or None if it was still open ``within_s``.
    The time counts from before the connect: the server's timer starts at its accept,
    later, so the figure is never below the server's own (a loaded loop may resume this
    coroutine well after the connect completed)."""
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if payload:
            writer.write(payload)
            await writer.drain()
        async with asyncio.timeout(within_s):
            while await reader.read(65536):
                pass  # the server's own SETTINGS, a GOAWAY: never answered
        return time.monotonic() - started
    except ConnectionResetError:
        return time.monotonic() - started
    except TimeoutError:
        return None
    finally:
        writer.close()


@pytest.fixture
async def server_port(request: pytest.FixtureRequest) -> AsyncIterator[int]:
    """A server with health only, built with the keyword arguments the test names (by
    ``@pytest.mark.parametrize("server_port", [{...}], indirect=True)``)."""
    options = getattr(request, "param", {})
    server, port, _ = build_server("127.0.0.1:0", [], [], **options)
    await server.start()
    try:
        yield port
    finally:
        await server.stop(0)


async def health_ok(port: int) -> bool:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


@pytest.mark.slow  # 3-6 s: .ci/run's slow step (the default run stays under 10 min)
@pytest.mark.parametrize("server_port", [{"max_connection_idle_ms": 1500}], indirect=True)
async def test_an_idle_connection_is_closed_after_the_idle_time(server_port: int) -> None:
    """A whole preface, then no call: closed after the idle time even though the client
    ignores the server's GOAWAY; a real client that goes idle reconnects on its next call."""
    took = await closed_after(server_port, PREFACE + EMPTY_SETTINGS, 1.5 + SLACK_S + 1)
    assert took is not None and took >= 1.0
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server_port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
        state = channel.get_state()
        assert state is grpc.ChannelConnectivity.READY
        async with asyncio.timeout(1.5 + SLACK_S + 1):
            while state is grpc.ChannelConnectivity.READY:  # until the server's GOAWAY
                await channel.wait_for_state_change(state)
                state = channel.get_state()
        await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # reconnects


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_400_silent_or_slow_sockets_from_one_address_are_closed_within_the_bound(
    server_port: int,
) -> None:
    """The issue's 400 connections, from one address, at the product's default bound
    (HANDSHAKE_TIMEOUT_MS, not one set for the test): silent, half a preface, the preface
    without SETTINGS. All are closed by the timeout (not refused at once), and calls are
    answered meanwhile. One address therefore holds at most (connections it opens per
    second) x 5 s of them: to reach the connection cap (half a 20,000 fd limit) it would
    have to open 2,000 a second for good."""
    bound = HANDSHAKE_TIMEOUT_MS / 1000
    payloads = [b"", PREFACE[:9], PREFACE] * 134  # 402
    flood = [
        asyncio.create_task(closed_after(server_port, payload, bound + SLACK_S))
        for payload in payloads[:400]
    ]
    try:
        assert await health_ok(server_port)  # served while the flood is held open
        took = await asyncio.gather(*flood)
    finally:
        for task in flood:
            task.cancel()
    assert all(t is not None for t in took), f"{sum(t is None for t in took)} of 400 still open"
    assert min(t for t in took if t is not None) >= bound - 0.5
    assert await health_ok(server_port)


@pytest.mark.parametrize(
    "server_port", [{"max_connections": 50, "handshake_timeout_ms": 1500}], indirect=True
)
async def test_connections_beyond_the_cap_are_refused_at_once(server_port: int) -> None:
    """At the cap a new connection is closed at once, so sockets never reach the
    process's fd limit; once the silent ones are gone, calls are served again."""
    bound = 1.5
    took = await asyncio.gather(
        *(closed_after(server_port, b"", bound + SLACK_S) for _ in range(120))
    )
    assert all(t is not None for t in took)
    refused = [t for t in took if t is not None and t < bound / 2]
    held = [t for t in took if t is not None and t >= bound / 2]
    assert len(held) <= 50 and len(refused) >= 70
    assert await health_ok(server_port)


def test_the_default_cap_leaves_half_the_fd_limit_free() -> None:
    assert connection_cap(20_000) == 10_000
    assert connection_cap(1024) == 512
    assert connection_cap(10) == 64  # never so few that a developer's machine cannot serve
