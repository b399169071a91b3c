"""``--engine``: one engine, several engines, or a gRPC target name."""

from __future__ import annotations

from services.engine.transport.remote import channel_target


def test_engine_targets() -> None:
    assert channel_target("127.0.0.1:50052") == "127.0.0.1:50052"
    assert channel_target("engine:50052") == "engine:50052"
    assert channel_target("10.0.0.1:1,10.0.0.2:2") == "ipv4:10.0.0.1:1,10.0.0.2:2"
    assert channel_target("[::1]:1,[::1]:2") == "ipv6:[::1]:1,[::1]:2"
    assert channel_target("ipv4:10.0.0.1:1,10.0.0.2:2") == "ipv4:10.0.0.1:1,10.0.0.2:2"
    assert channel_target("dns:///engines.internal:50052") == "dns:///engines.internal:50052"
