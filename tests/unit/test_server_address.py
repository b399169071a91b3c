"""A second server on a port already served fails clearly instead of sharing the port."""

from __future__ import annotations

import pytest

from services.rpc.server import AddressInUse, build_server


async def test_a_busy_port_is_refused() -> None:
    first, port, _ = build_server("127.0.0.1:0", [], [])
    await first.start()
    try:
        with pytest.raises(AddressInUse, match=f"127.0.0.1:{port}"):
            build_server(f"127.0.0.1:{port}", [], [])
    finally:
        await first.stop(0)
