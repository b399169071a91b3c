"""The gateway's side of the engine link: ExchangeBatches streams on plain TCP (issue 16).

:class:`LinkStub` is an :class:`~services.engine.transport.exchange_client.ExchangePool`'s stub:
its ``ExchangeBatches`` opens a :class:`LinkCall`, one TCP connection to the next engine of the
target, shaped as a grpc.aio stream call (``initial_metadata``, ``write``, ``done_writing``,
iteration over the answers, ``cancel``) and failing as one would: every way a connection can end
under its calls is a grpc.aio.AioRpcError, UNAVAILABLE unless the engine said otherwise in its
``E`` frame, which services.engine.transport.status_mapping maps for callers as it maps
GameService's own (services.engine.transport.link_frames says what goes on a connection)."""

from __future__ import annotations

import asyncio
import itertools
import random
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

import grpc
from google.protobuf.message import DecodeError

from services.engine.domain.bot_credential import BOT_KEY_METADATA
from services.engine.transport.exchange_server import BATCHES_METADATA
from services.engine.transport.link_frames import (
    BATCH,
    END,
    FINISH,
    HELLO,
    HELLO_MAGIC,
    FrameError,
    FrameReader,
    frame,
    tune,
)
from services.rpc.errors import rpc_error_from_status
from services.rpc.generated import engine_service_pb2 as pb

CONNECT_TIMEOUT_S = 5.0
"""How long a connection may take to open and get the engine's hello before it fails
UNAVAILABLE (its calls then go on another stream's connection, and engine)."""
MIN_ATTEMPT_S = 0.5
"""Least time one address of several gets to accept a connection before the next is
tried (each gets CONNECT_TIMEOUT_S shared by the addresses, at least this)."""
MAX_ANSWER_BYTES = 4 * 1024 * 1024
"""Largest frame the client reads (a gRPC client's default largest message): the engine
sends at most 1 MiB of answers in one batch, a single larger answer alone."""
RESOLVE_TTL_S = 1.0
"""How long the addresses a name resolved to are used before it is resolved again: new
connections (every stream's, about every 5 s) follow the engines the name lists now."""


def unavailable(details: str) -> grpc.aio.AioRpcError:
    """The failure of a call whose connection failed or ended under it."""
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details
    )


def parse_target(target: str) -> list[tuple[str, int]]:
    """The (host, port) pairs an engine target names, as ``--engine`` takes them
    (services.engine.transport.remote.channel_target): ``host:port``, ``[v6]:port``, a list
    ``a:p,b:p``, or a gRPC-style ``dns:///name:port``, ``ipv4:a:p,b:p``, ``ipv6:[a]:p``.
    Raises ValueError for a part without a port."""
    for prefix in ("dns:///", "dns:", "ipv4:", "ipv6:"):
        if target.startswith(prefix):
            target = target[len(prefix) :]
            break
    pairs = []
    for part in filter(None, (piece.strip() for piece in target.split(","))):
        host, colon, port = part.rpartition(":")
        if not colon or not port.isdigit() or not host:
            raise ValueError(f"engine link address {part!r} has no host:port")
        pairs.append((host.strip("[]"), int(port)))
    if not pairs:
        raise ValueError("no engine link address given")
    return pairs


class LinkTarget:
    """The engines of a target (:func:`parse_target`), one address after another: each
    :meth:`next_addresses` starts from the next of every address the target's names
    resolve to now (resolved again after RESOLVE_TTL_S), so the connections spread over
    the engines."""

    def __init__(self, target: str) -> None:
        self._pairs = parse_target(target)
        self._addresses: list[tuple[str, int]] = []
        self._resolved_at = -RESOLVE_TTL_S
        self._turn = itertools.count(random.randrange(1024))
        self._literal = all(_is_ip(host) for host, _ in self._pairs)
        if self._literal:
            self._addresses = list(self._pairs)

    async def next_addresses(self) -> list[tuple[str, int]]:
        """Every engine address, starting from the next one in turn (the others are
        where a connection goes when that one refuses it). Raises OSError when no name
        resolves."""
        if not self._literal and time.monotonic() - self._resolved_at >= RESOLVE_TTL_S:
            self._addresses = await self._resolve()
            self._resolved_at = time.monotonic()
        addresses = self._addresses
        first = next(self._turn) % len(addresses)
        return addresses[first:] + addresses[:first]

    async def _resolve(self) -> list[tuple[str, int]]:
        loop = asyncio.get_running_loop()
        found: list[tuple[str, int]] = []
        for host, port in self._pairs:
            if _is_ip(host):
                found.append((host, port))
                continue
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            for *_, address in infos:
                pair = (str(address[0]), int(address[1]))
                if pair not in found:
                    found.append(pair)
        if not found:
            raise OSError(f"no address for {self._pairs}")
        return found


def _is_ip(host: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        return False
    return True


class LinkStub:
    """The engine link as an :class:`~services.engine.transport.exchange_client.ExchangePool`'s
    stub: ``ExchangeBatches(metadata)`` opens a :class:`LinkCall` to the next engine of
    ``target`` (a :class:`LinkTarget`, shared by every stub of one client). The batches
    it writes are bytes (``serialized_batches``)."""

    serialized_batches = True

    def __init__(self, target: LinkTarget) -> None:
        self._target = target

    def ExchangeBatches(self, metadata: Sequence[tuple[str, str]] | None = None) -> LinkCall:
        """A new connection (opened in the background) carrying one stream; ``metadata``
        may hold the bot credential (``x-teoti-bot-key``), sent in the hello."""
        bot_key = next((v for k, v in metadata or () if k == BOT_KEY_METADATA), "")
        return LinkCall(self._target, bot_key)


class LinkCall(asyncio.Protocol):
    """One link connection as a grpc.aio stream-stream call of ExchangeBatches (the part
    of it an ExchangeStream uses). Connects at once, in the background (a running event
    loop is needed). See the module's docstring for how it fails."""

    def __init__(self, target: LinkTarget, bot_key: str) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._bot_key = bot_key
        self._reader = FrameReader(MAX_ANSWER_BYTES)
        self._transport: asyncio.Transport | None = None
        self._headers: asyncio.Future[grpc.aio.Metadata | None] = loop.create_future()
        self._answers: deque[Any] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self._writable: asyncio.Future[None] | None = None
        self._failure: BaseException | None = None
        self._over = False
        self._connecting = loop.create_task(self._connect(target))

    @property
    def over(self) -> bool:
        """True once the stream is over (cleanly, failed or cancelled)."""
        return self._over

    # What an ExchangeStream uses of a grpc.aio call.

    async def initial_metadata(self) -> grpc.aio.Metadata | None:
        """The engine's hello as the stream's headers (saying it serves ExchangeBatches),
        or None once the connection failed before it."""
        return await self._headers

    async def write(self, batch: bytes) -> None:
        """Send ``batch`` (an ExchangeBatches request, serialized); waits while the send
        buffer is full. Raises grpc.aio.AioRpcError once the connection is over."""
        if self._over or self._transport is None:
            raise self._failure_error()
        self._transport.write(frame(BATCH, batch))
        writable = self._writable
        if writable is not None and not writable.done():
            await writable
            if self._over:
                raise self._failure_error()

    async def done_writing(self) -> None:
        """Half-close: the engine answers what is in flight, then ends the connection."""
        if not self._over and self._transport is not None:
            self._transport.write(frame(FINISH))

    def cancel(self) -> bool:
        """End the connection now; reading the answers raises CancelledError (as a
        cancelled grpc call's does). Returns False if it was already over."""
        if self._over:
            return False
        self._finish(asyncio.CancelledError())
        return True

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._read()

    async def _read(self) -> AsyncIterator[Any]:
        """The engine's ExchangeBatches responses, until its ``E`` frame: returns on a
        code-0 end, raises the failure (grpc.aio.AioRpcError, or CancelledError after
        :meth:`cancel`) otherwise."""
        answers = self._answers
        while True:
            if answers:
                yield answers.popleft()
                continue
            if self._over:
                if self._failure is not None:
                    raise self._failure
                return
            self._wakeup = self._loop.create_future()
            await self._wakeup

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, only alike.
        transport = cast(asyncio.Transport, transport)
        if self._over:  # cancelled while connecting
            transport.close()
            return
        self._transport = transport
        tune(transport)
        transport.write(frame(HELLO, HELLO_MAGIC + self._bot_key.encode()))

    def data_received(self, data: bytes) -> None:
        if self._over:
            return
        try:
            frames = self._reader.feed(data)
        except FrameError as error:
            self._finish(unavailable(f"engine link: {error}"))
            return
        for kind, payload in frames:
            if self.over:  # an earlier frame of the chunk ended the stream
                return
            self._frame(kind, payload)

    def connection_lost(self, exc: Exception | None) -> None:
        detail = f": {exc}" if exc is not None else ""
        self._finish(unavailable(f"engine link connection lost{detail}"))

    def pause_writing(self) -> None:
        if self._writable is None or self._writable.done():
            self._writable = self._loop.create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    # Internals.

    def _frame(self, kind: int, payload: bytes) -> None:
        if not self._headers.done():
            if kind == HELLO and payload == HELLO_MAGIC:
                self._headers.set_result(grpc.aio.Metadata((BATCHES_METADATA, "1")))
                return
            if kind != END:
                self._finish(unavailable("engine link: the peer is no engine link"))
                return
        if kind == BATCH:
            try:
                self._answers.append(pb.EngineServiceExchangeBatchesResponse.FromString(payload))
            except DecodeError:
                self._finish(unavailable("engine link: an answer batch does not parse"))
                return
            self._wake()
        elif kind == END:
            self._end(payload)
        else:
            self._finish(unavailable(f"engine link: unexpected frame {chr(kind)!r}"))

    def _end(self, status: bytes) -> None:
        """The engine's ``E`` frame: the stream is over, failed unless its code is 0.

        UNIMPLEMENTED fails as an outage (UNAVAILABLE), as any peer that is no engine of
        ours does: there is no other transport to fall back on."""
        try:
            error = rpc_error_from_status(status)
        except DecodeError:
            self._finish(unavailable("engine link: an end frame does not parse"))
            return
        if error.code() == grpc.StatusCode.UNIMPLEMENTED:
            error = unavailable(f"engine link: UNIMPLEMENTED: {error.details() or ''}")
        self._finish(None if error.code() == grpc.StatusCode.OK else error)

    async def _connect(self, target: LinkTarget) -> None:
        """Connect to the target's next engine, or, refused or silent, to the others in
        turn (as a gRPC channel skips an address that is down), all within
        CONNECT_TIMEOUT_S: each address gets its share of it (at least
        MIN_ATTEMPT_S), so one that drops the connection attempt (a host gone) does not
        use up the time of those after it."""
        where = "the engine link"
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT_S):
                addresses = await target.next_addresses()
                share = max(CONNECT_TIMEOUT_S / len(addresses), MIN_ATTEMPT_S)
                for attempt, (host, port) in enumerate(addresses, 1):
                    where = f"{host}:{port}"
                    try:
                        await asyncio.wait_for(
                            self._loop.create_connection(lambda: self, host, port), share
                        )
                        break
                    except (OSError, TimeoutError):
                        if attempt == len(addresses):
                            raise
                await asyncio.shield(self._headers)
        except TimeoutError:
            self._finish(unavailable(f"engine link: no connection and hello from {where} in time"))
        except OSError as error:
            self._finish(unavailable(f"engine link: cannot connect to {where}: {error}"))

    def _finish(self, failure: BaseException | None) -> None:
        """The stream is over: with ``failure`` (None: a clean end)."""
        if self._over:
            return
        self._over = True
        self._failure = failure
        if not self._headers.done():
            self._headers.set_result(None)
        if not self._connecting.done() and self._connecting is not asyncio.current_task():
            self._connecting.cancel()
        if self._transport is not None:
            self._transport.close()
        self._wake()
        self.resume_writing()

    def _failure_error(self) -> BaseException:
        failure = self._failure
        if isinstance(failure, grpc.aio.AioRpcError):
            return cast(BaseException, failure)
        return cast(BaseException, unavailable("engine link connection closed"))

    def _wake(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)
