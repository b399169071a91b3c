"""A webhook receiver for tests: a plain HTTP/1.1 server on 127.0.0.1 that records every
request (headers lower-cased, body) and answers what its ``answer`` function says."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class Received:
    """One request: its path, headers (names lower-cased) and body."""

    path: str
    headers: dict[str, str]
    body: bytes


async def _ok(_request: Received) -> int:
    return 200


def answer_when(release: asyncio.Event) -> Callable[[Received], Awaitable[int]]:
    """An answer that hangs until ``release`` is set, then says 200 (a slow endpoint)."""

    async def held(_request: Received) -> int:
        await release.wait()
        return 200

    return held


@dataclass
class Receiver:
    """The running receiver: ``url`` to give a webhook, ``received`` so far."""

    port: int
    answer: Callable[[Received], Awaitable[int]] = _ok
    received: list[Received] = field(default_factory=list)
    arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def wait_for(self, count: int, timeout_s: float = 15.0) -> list[Received]:
        """The first ``count`` requests, once they came (TimeoutError after
        ``timeout_s``: a generous bound, not a measurement)."""
        async with asyncio.timeout(timeout_s), self.arrived:
            await self.arrived.wait_for(lambda: len(self.received) >= count)
        return self.received[:count]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1]
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            request = Received(path, headers, body)
            async with self.arrived:
                self.received.append(request)
                self.arrived.notify_all()
            status = await self.answer(request)
            writer.write(
                f"HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def webhook_receiver(
    answer: Callable[[Received], Awaitable[int]] = _ok,
) -> AsyncIterator[Receiver]:
    """A receiver listening on 127.0.0.1 (a free port) until the block ends."""
    receiver = Receiver(0, answer)
    server = await asyncio.start_server(receiver._serve, "127.0.0.1", 0)
    receiver.port = server.sockets[0].getsockname()[1]
    try:
        yield receiver
    finally:
        server.close()
        await server.wait_closed()
