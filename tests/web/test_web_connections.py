"""Issue 30, items 1 and 2 (the web face): hostile connections on loopback, bounded.
A huge header is refused (431) and closed, headers that never complete are closed after
the (short, settable) header timeout, and a normal client is served throughout."""

from __future__ import annotations

import asyncio
import time

from services.web.server import WebSettings
from tests.web.conftest import StackFactory

SHORT = WebSettings(header_timeout_s=0.5, keepalive_s=0.5)


async def closed(reader: asyncio.StreamReader, within_s: float) -> bytes:
    """Everything the server sent before it closed the connection (bounded wait)."""
    return await asyncio.wait_for(reader.read(), within_s)


async def test_a_one_megabyte_header_is_refused_and_closed(served: StackFactory) -> None:
    async with served(web=SHORT) as (stack, http):
        reader, writer = await asyncio.open_connection("127.0.0.1", stack.web_port)
        writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * 1_000_000)
        writer.write(b"\r\n\r\n")
        with_reset = b""
        try:
            await writer.drain()
            with_reset = await closed(reader, 10)
        except ConnectionResetError:
            pass  # closed while we were still sending: as good
        assert with_reset == b"" or with_reset.startswith(b"HTTP/1.1 431 "), with_reset[:80]
        writer.close()
        many = b"".join(b"x-%d: 1\r\n" % i for i in range(101))
        reader, writer = await asyncio.open_connection("127.0.0.1", stack.web_port)
        writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\n" + many + b"\r\n")
        assert (await closed(reader, 10)).startswith(b"HTTP/1.1 431 ")
        writer.close()
        assert (await http.get("/healthz")).status_code == 200


async def test_silent_and_slow_connections_are_closed(served: StackFactory) -> None:
    async with served(web=SHORT) as (stack, http):
        opened = [await asyncio.open_connection("127.0.0.1", stack.web_port) for _ in range(200)]
        for _reader, writer in opened[100:]:  # slow headers: a line, then silence
            writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")
        start = time.monotonic()
        answers = await asyncio.gather(*(closed(reader, 10) for reader, _ in opened))
        assert time.monotonic() - start < 5
        assert all(a == b"" or a.startswith(b"HTTP/1.1 408 ") for a in answers)
        for _, writer in opened:
            writer.close()
        # A kept-alive connection left idle is closed too; a normal client is served.
        reader, writer = await asyncio.open_connection("127.0.0.1", stack.web_port)
        writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        assert (await closed(reader, 10)).startswith(b"HTTP/1.1 200 ")
        writer.close()
        assert (await http.get("/healthz")).status_code == 200


async def test_connections_per_address_are_capped(served: StackFactory) -> None:
    capped = WebSettings(max_connections_per_address=20)
    async with served(web=capped) as (stack, _):
        opened = [await asyncio.open_connection("127.0.0.1", stack.web_port) for _ in range(30)]
        # Beyond the cap: closed at once, without a byte. (On Linux every 127.x.y.z is
        # loopback: another address is another client.)
        ends = await asyncio.gather(
            *(asyncio.wait_for(reader.read(), 10) for reader, _ in opened[20:])
        )
        assert ends == [b""] * 10
        other, writer = await asyncio.open_connection(
            "127.0.0.1", stack.web_port, local_addr=("127.0.0.2", 0)
        )
        writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        assert (await asyncio.wait_for(other.read(), 10)).startswith(b"HTTP/1.1 200 ")
        writer.close()
        for _, held in opened[:20]:
            held.close()
            await held.wait_closed()
        # Slots come back once the server has seen them close (a condition, polled).
        deadline = time.monotonic() + 10
        while True:
            again, writer = await asyncio.open_connection("127.0.0.1", stack.web_port)
            writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            answer = await asyncio.wait_for(again.read(), 10)
            writer.close()
            if answer.startswith(b"HTTP/1.1 200 ") or time.monotonic() > deadline:
                break
        assert answer.startswith(b"HTTP/1.1 200 "), answer
