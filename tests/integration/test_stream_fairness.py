"""Issue 30 item 3: a few addresses holding idle streams cannot block everyone's calls.

Seen: one address held 10,857 idle streams (Play streams opened with invented Bearer
tokens), a second 9,143, and GetGame from a third was refused 222 of 239 times (the
process's 20,000 calls in flight were all streams). Now streams (WatchGame and Play
together) have a budget of their own below the process's limit, so unary calls always
have room, and each address may hold at most its share of that budget; a Play stream
that has shown no seat token is ended once idle for a short grace.

Many clients on loopback: every 127.x.y.z is this host on Linux, and gRPC's client
cannot bind a local address, so each "address" connects through a small relay whose
upstream socket is bound to it (the server sees that address as the caller). The caps
are set small so the test runs in seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from teoti_client.proto import game_service_pb2, game_service_pb2_grpc

from services.app import Stack
from services.client import TeotiClient
from services.engine.transport.client import InProcessEngineClient
from services.gateway.server import create_server
from services.gateway.servicer import STREAM_END_METADATA
from services.rpc.limits import StreamBudget
from tests.integration.test_play_stream import TOKENS, new_game, submit

pb = game_service_pb2
DETAILS_KEY = "grpc-status-details-bin"


@contextlib.asynccontextmanager
async def from_address(ip: str, port: int) -> AsyncIterator[str]:
    """A target (``127.0.0.1:<relay port>``) whose connections reach the server at
    ``port`` from ``ip``: each is relayed over a socket bound to ``ip``."""
    relays: set[asyncio.Task[None]] = set()
    sockets: set[asyncio.StreamWriter] = set()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        relays.add(asyncio.current_task())  # type: ignore[arg-type]
        sockets.add(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(ip, 0)
            )
            sockets.add(up_writer)
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            writer.close()

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    try:
        yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        for writer in sockets:  # each pipe then reads its end and finishes
            writer.close()
        await asyncio.gather(*relays, return_exceptions=True)


async def opened(call: Any) -> str:
    """ "open" once the server accepted the stream (its headers came and the call goes
    on), else the reason it was refused with ("OK" if it ended without one)."""
    await asyncio.wait_for(call.initial_metadata(), 10)  # headers, or the call's end
    if not call.done():
        return "open"
    for key, value in await call.trailing_metadata() or ():
        if key == DETAILS_KEY:
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return str((await call.code()).name)


@contextlib.asynccontextmanager
async def gateway(stack: Stack, **limits: Any) -> AsyncIterator[int]:
    """A second public server on ``stack``'s game store with ``limits``; its port."""
    server, port = await create_server(
        "127.0.0.1:0", stack.reader, InProcessEngineClient(stack.engine), "nim", **limits
    )
    try:
        yield port
    finally:
        await server.stop(0)


async def test_addresses_holding_their_share_of_idle_streams_leave_others_calls_answered(
    stack: Stack,
) -> None:
    """Four addresses each try to hold 16 idle streams (8 Play streams under invented
    Bearer tokens, 8 watchers); each gets its share, 10, and the budget (40) is full.
    A fifth address's calls are then all answered: before, with the process's limit of
    calls in flight at 50, the attackers' 64 streams took every slot."""
    async with (
        gateway(
            stack, streams=StreamBudget(total=40, per_address=10), max_concurrent_rpcs=50
        ) as port,
        grpc.aio.insecure_channel(f"127.0.0.1:{port}") as control,
    ):
        control_stub = game_service_pb2_grpc.GameServiceStub(control)
        game = await new_game(control_stub)
        held: list[Any] = []
        outcomes: dict[str, list[str]] = {}
        async with contextlib.AsyncExitStack() as attackers:
            for n in range(2, 6):
                ip = f"127.0.0.{n}"
                target = await attackers.enter_async_context(from_address(ip, port))
                channel = await attackers.enter_async_context(grpc.aio.insecure_channel(target))
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                calls = [
                    stub.Play(metadata=(("authorization", f"Bearer invented-{ip}-{i}"),))
                    for i in range(8)
                ] + [
                    stub.WatchGame(pb.WatchGameRequest(game_id=game, from_version=1))
                    for _ in range(8)
                ]
                held += calls
                outcomes[ip] = list(await asyncio.gather(*(opened(call) for call in calls)))
            try:
                for ip, got in outcomes.items():
                    assert got.count("open") == 10, (ip, got)
                    assert set(got) == {"open", "too_many_streams"}, (ip, got)

                answered = refused = 0

                async def getter() -> None:
                    nonlocal answered, refused
                    for _ in range(50):
                        try:
                            await control_stub.GetGame(pb.GetGameRequest(game_id=game), timeout=5)
                            answered += 1
                        except grpc.aio.AioRpcError:
                            refused += 1

                await asyncio.gather(*(getter() for _ in range(4)))
                assert answered >= 0.99 * 200, f"{refused} of 200 refused"
                # A newcomer's stream is refused while the budget is full, and its
                # unary call still answered: streams cannot take the calls' room.
                newcomer = control_stub.WatchGame(pb.WatchGameRequest(game_id=game))
                assert await opened(newcomer) == "too_many_streams"
            finally:
                for call in held:
                    call.cancel()


async def test_a_play_stream_showing_no_seat_token_is_ended_once_idle(stack: Stack) -> None:
    """Its Bearer token is checked only with a request: a stream that sends none (or only
    public ones) is ended after the grace, giving its place back; one whose request
    passed a seat's token check is kept however long it idles."""
    async with (
        gateway(stack, streams=StreamBudget(total=10, per_address=2), play_grace_s=0.5) as port,
        grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel,
    ):
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game = await new_game(stub)
        idle = stub.Play(metadata=(("authorization", "Bearer invented-token"),))
        player = stub.Play()
        assert await opened(idle) == "open" and await opened(player) == "open"
        await player.write(pb.PlayRequest(request_id=1, submit_action=submit(game, 0)))
        reply = await asyncio.wait_for(player.read(), 10)
        assert reply.WhichOneof("response") == "submit_action"
        # The idle stream ends (OK, saying why); the player's stays.
        async with asyncio.timeout(5):
            assert await idle.read() is grpc.aio.EOF
        assert await idle.code() is grpc.StatusCode.OK
        trailers = dict(await idle.trailing_metadata())
        assert trailers[STREAM_END_METADATA].startswith("play_stream_idle: ")
        third = stub.Play()
        assert await opened(third) == "open"  # the ended stream's place is free again
        # Opened after the player's last answer, it ends a grace later: by then the
        # player's stream has idled past the grace too, and is kept.
        async with asyncio.timeout(5):
            assert await third.read() is grpc.aio.EOF
        await player.write(
            pb.PlayRequest(
                request_id=2,
                get_game=pb.GetGameRequest(game_id=game, seat=1, seat_token=TOKENS[1]),
            )
        )
        reply = await asyncio.wait_for(player.read(), 10)
        assert reply.WhichOneof("response") == "get_game"
        assert not player.done()
        player.cancel()


async def test_the_client_library_plays_on_after_its_idle_stream_is_ended(stack: Stack) -> None:
    """TeotiClient.connect() opens and awaits the stream's acknowledgement; if the stream
    is then ended for idling before the client's first move, the move opens a new one."""
    async with gateway(stack, play_grace_s=0.3) as port:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            game = await new_game(game_service_pb2_grpc.GameServiceStub(channel))
        async with TeotiClient(f"127.0.0.1:{port}", timeout_s=10) as client:
            await client.connect()
            play = client._play
            assert play is not None and play._open is not None and play._open.reader is not None
            # The server ends the idle stream (the client's reader sees it end).
            await asyncio.wait_for(asyncio.shield(play._open.reader), 5)
            assert not play.open
            moved = await client.submit_action(game, 0, TOKENS[0], {"take": 1})
            assert moved.version > 0
