"""Issue 16: calls from a gateway beyond the engine's streams per connection are not
lost. grpc's client does not hold them back reliably on a fresh connection: the engine
refuses the excess (RST_STREAM REFUSED_STREAM, unprocessed; 199 of 300 unary calls at
once on one connection limited to 100 streams, as the engine was configured before
issue 12), and the gateway once answered INTERNAL for it. The gateway's client now sends
a refused call again (jittered backoff) and reads a refusal that outlasts its retries
as an engine outage."""

from __future__ import annotations

import grpc

from services.engine.transport.remote import refused_stream
from services.rpc.errors import outage_of


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
