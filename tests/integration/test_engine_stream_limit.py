"""Issue 16: calls from a gateway beyond the engine's streams per connection are not
lost. grpc's client does not hold them back reliably: the engine refuses the excess
(RST_STREAM REFUSED_STREAM, unprocessed; 199 of 300 calls at once on one connection
limited to 100 streams, as the engine was configured before issue 12), and the gateway
once answered INTERNAL for it. The gateway's client now sends a refused call again
(jittered backoff). A real EngineService over gRPC, a real Redis."""

from __future__ import annotations

import asyncio

import grpc

from services.engine.adapters import RedisEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.entrypoints.servicer import start_engine_server
from services.engine.transport.remote import RemoteEngineClient, refused_stream
from services.rpc.errors import outage_of

HUMANS = [SeatSpec(SeatKind.HUMAN, "a"), SeatSpec(SeatKind.HUMAN, "b")]
STREAMS = 2
CALLS = 60


async def test_calls_beyond_the_engines_stream_limit_are_retried_and_succeed(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    store = RedisEventStore.from_url(redis_url, prefix=key_prefix)
    engine = Engine(store, registry, seed_source=fixed_seed("streams"))
    server, port = await start_engine_server(
        engine, "127.0.0.1:0", max_streams_per_connection=STREAMS
    )
    # Unary calls: each is a stream of its own. (Exchange streams are few and long-lived:
    # an engine must allow every gateway's channels x STREAMS_PER_CHANNEL of them per
    # connection, which its limit of MAX_STREAMS_PER_CONNECTION does many times over.)
    client = RemoteEngineClient(f"127.0.0.1:{port}", timeout_s=60, channels=1, transport="unary")
    try:
        created = await asyncio.gather(
            *(client.create_game("nim", HUMANS, {"max_take": 3}) for _ in range(CALLS))
        )
        moved = await asyncio.gather(
            *(client.submit_action(c.game_id, 0, {"take": 1}) for c in created)
        )
        assert len({c.game_id for c in created}) == CALLS
        assert all(m.version == c.version + 1 for m, c in zip(moved, created, strict=True))
    finally:
        await client.close()
        await server.stop(None)
        await store.close()


def test_a_refused_stream_is_an_engine_outage_never_internal() -> None:
    """A stream the engine refused (RST_STREAM REFUSED_STREAM) is retried by the client;
    if the retries run out it is answered UNAVAILABLE with a retry hint, like any engine
    outage. Other UNAVAILABLE errors (the engine down) are not taken for it."""
    refused = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details="Stream removed (RST_STREAM error code 7)",
    )
    assert refused_stream(refused)
    outage = outage_of(refused)
    assert outage is not None and outage.service == "engine"
    down = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details="failed to connect to all addresses",
    )
    assert not refused_stream(down)
