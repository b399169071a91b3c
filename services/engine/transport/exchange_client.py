"""The gateway's side of the engine's ExchangeBatches streams: calls multiplexed on a few
open streams (each an engine link connection, services.engine.transport.link_client).

A call of its own costs the engine (and the caller) far more than a message on a stream
already open (docs/performance.md, issue 16). An :class:`ExchangePool` keeps a few
streams per stub and sends each call, tagged with a request id, on the next one; a
reader task per stream resolves the caller's future when its answer comes (in any
order). The calls queued on a stream by the time its writer runs go as one batch, and
the engine answers likewise (services.engine.transport.exchange_outbox).
"""

from __future__ import annotations

import asyncio
import itertools
import math
import random
import time
from collections.abc import Sequence
from typing import Any, cast

import grpc

from services.engine.transport.exchange_outbox import FRAMING_BYTES, Outbox
from services.engine.transport.exchange_server import (
    BATCH_FIELD,
    BATCHES_METADATA,
    MAX_IN_FLIGHT,
    repeated_field,
)
from services.rpc.generated import engine_service_pb2 as pb
from services.rpc.limits import MAX_REQUEST_BYTES
from services.task_deadline import TaskDeadline

STREAMS_PER_CHANNEL = 4
"""Streams each stub keeps open. A stream stays on the engine it was opened to, so a stub
spreads its calls over up to this many engines (each new link connection goes to the
next address of the target)."""
STREAM_MAX_AGE_S = 5.0
"""A stream older than this (+-25 %, at random) takes no new calls: it is half-closed
(its calls in flight still finish) and a new stream takes its place. So streams follow
the engines the target resolves to now, and the engines the
target resolves to now."""
UNIMPLEMENTED_GRACE_S = 1.0
"""How long a stream whose peer's headers lack BATCHES_METADATA may take to end by
itself before the client ends it: whatever answered is no engine of ours."""
CALLS_PER_TURN = 8
"""Calls of one event-loop turn that go on the same stream (so in one message) before the
next stream takes the turn's further calls: fewer messages, yet a burst still spreads
over the engines."""
MAX_BATCH_BYTES = MAX_REQUEST_BYTES // 2
"""Largest ExchangeBatches message of requests (a single larger request goes alone):
within what the engine accepts in one message (MAX_REQUEST_BYTES)."""
ID_BYTES = 17
"""Most bytes a request's request_id and timeout_ms add (tags and varints), set once it
is on a stream."""
MAX_CALL_BYTES = MAX_REQUEST_BYTES - FRAMING_BYTES - ID_BYTES
"""Largest request (before its id and timeout are set) a stream carries: with those and
its framing in an ExchangeBatches message, what the engine accepts in one message."""


def stream_failure(error: BaseException | None) -> grpc.aio.AioRpcError:
    """What a call on a stream that ended under it fails with: UNAVAILABLE, whatever the
    stream's own status (the engine going away surfaces as CANCELLED, INTERNAL, ...), so
    the gateway answers it as an engine outage. The stream's details are kept."""
    if isinstance(error, grpc.aio.AioRpcError):
        details = f"engine stream ended: {error.code().name}: {error.details() or ''}"
    else:
        details = "engine stream ended"
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details
    )


def too_large(size: int) -> grpc.aio.AioRpcError:
    """What a call whose request (``size`` bytes) is over MAX_CALL_BYTES fails with:
    RESOURCE_EXHAUSTED, as the engine refuses a unary call that large (on a stream it
    would end the whole stream, and every other call in flight on it)."""
    return grpc.aio.AioRpcError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details=f"Sent message larger than max ({size} vs. {MAX_CALL_BYTES})",
    )


def deadline_exceeded() -> grpc.aio.AioRpcError:
    """What a call whose deadline passed fails with (as a unary call's would)."""
    return grpc.aio.AioRpcError(
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details="Deadline Exceeded",
    )


def _request_size(request: pb.EngineServiceExchangeRequest | bytes) -> int:
    return len(request) if isinstance(request, bytes) else request.ByteSize()


class StreamRetired(Exception):
    """The stream retired (or ended) while a call waited for room on it: the engine
    never ran the call, so it may go on another stream (:meth:`ExchangePool.call`)."""


class ExchangeStream:
    """One open ExchangeBatches stream of ``stub`` (a
    :class:`~services.engine.transport.link_client.LinkStub`: one link connection), with
    ``metadata``.

    Opening is lazy: nothing waits in the constructor (it needs a running event loop).
    At most MAX_IN_FLIGHT calls are in flight on it; more wait their turn.
    """

    def __init__(self, stub: Any, metadata: Any = None) -> None:
        # A write cancelled midway would cancel the stream: so one task writes, and
        # callers only queue.
        self._requests: Outbox[pb.EngineServiceExchangeRequest | bytes] = Outbox(
            self._send, _request_size, MAX_BATCH_BYTES
        )
        # Batches written as their bytes when the stub's ExchangeBatches takes them (the
        # link's does): each request is serialized once, when queued, instead of copied
        # into a batch message and sized apart (issue 16).
        self._serialized = bool(getattr(stub, "serialized_batches", False))
        self._pending: dict[int, asyncio.Future[pb.EngineServiceExchangeResponse]] = {}
        self._ids = itertools.count(1)
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._call = stub.ExchangeBatches(metadata=metadata)
        self._retire_at = time.monotonic() + STREAM_MAX_AGE_S * (0.75 + 0.5 * random.random())
        self._retired = False
        self.ready = False
        """True once calls written now go out at once: a stream first waits for the
        engine's headers (:meth:`_engine_has_batches`)."""
        self.ended = False
        """True once the stream is over (its pending calls have failed)."""
        self.reader = asyncio.create_task(self._read())
        """The task reading the answers; done when the stream is over."""
        self._writer = asyncio.create_task(self._write())

    @property
    def has_room(self) -> bool:
        """True if a call now would not wait for one of the MAX_IN_FLIGHT places."""
        return not self._slots.locked()

    @property
    def usable(self) -> bool:
        """True while new calls may go on this stream (not over, not past its age)."""
        return self.open and time.monotonic() < self._retire_at

    @property
    def open(self) -> bool:
        """True while the stream takes calls at all (not over, not retired), even past its
        age (until :class:`ExchangePool` has its successor ready)."""
        return not self.ended and not self._retired

    def retire(self) -> None:
        """Send no more calls: half-close once what is queued is sent; the calls in
        flight are still answered. (Also when the engine asks for it: it is stopping.)"""
        if not self._retired:
            self._retired = True
            self._requests.close()

    def cancel(self) -> None:
        """End the stream now (its pending calls fail UNAVAILABLE)."""
        self._call.cancel()

    async def call(
        self, request: pb.EngineServiceExchangeRequest, timeout_s: float
    ) -> pb.EngineServiceExchangeResponse:
        """Send ``request`` (its request_id and timeout_ms are set here) and wait for its
        answer at most ``timeout_s`` seconds.

        Raises grpc.aio.AioRpcError: DEADLINE_EXCEEDED when the time is up, UNAVAILABLE
        (:func:`stream_failure`) when the stream ends first; StreamRetired, with nothing
        run, when the stream retired or ended while the call waited for room on it (its
        writer has half-closed or stopped: a request queued now would never be sent);
        RESOURCE_EXHAUSTED (:func:`too_large`),
        with nothing sent, for a request over MAX_CALL_BYTES.
        A caller that gives up (timeout or cancellation) has its request cancelled on the
        engine too.
        """
        loop = asyncio.get_running_loop()
        return await self.call_until(request, loop.time() + timeout_s, loop)

    async def call_until(
        self,
        request: pb.EngineServiceExchangeRequest,
        deadline: float,
        loop: asyncio.AbstractEventLoop,
    ) -> pb.EngineServiceExchangeResponse:
        """:meth:`call` until ``deadline`` (``loop.time()`` seconds; a past one fails at
        once) on ``loop``, the running loop: the pool has both already, and on Python 3.11
        each look-up of the running loop is a getpid system call (issue 16)."""
        if (size := request.ByteSize()) > MAX_CALL_BYTES:
            raise too_large(size)
        request_id = 0
        task = asyncio.current_task(loop)
        assert task is not None, "call_until runs in a task"
        timer = TaskDeadline(loop, deadline, task)
        try:
            await self._slots.acquire()
            try:
                if self.ended or self._retired:
                    # Nothing of this call was sent: another stream may carry it.
                    raise StreamRetired
                request_id = next(self._ids)
                request.request_id = request_id
                request.timeout_ms = max(1, math.ceil((deadline - loop.time()) * 1000))
                answer: asyncio.Future[pb.EngineServiceExchangeResponse] = loop.create_future()
                self._pending[request_id] = answer
                self._queue(request)
                return await answer
            finally:
                self._slots.release()
                if self._pending.pop(request_id, None) is not None and not self._retired:
                    # The caller gave up first: the engine need not finish the work.
                    self._queue(pb.EngineServiceExchangeRequest(request_id=request_id, cancel=True))
        except asyncio.CancelledError:
            # Only the deadline's own cancellation becomes DEADLINE_EXCEEDED (as
            # asyncio.timeout_at turns it into TimeoutError); the caller's propagates.
            if timer.caused_cancellation():
                raise deadline_exceeded() from None
            raise
        finally:
            timer.cancel()

    async def _write(self) -> None:
        try:
            if not await self._engine_has_batches():
                # Whatever answered without the header runs nothing of ours: end the
                # stream, so its calls fail now rather than at their deadlines and it is
                # not left open for good.
                await asyncio.sleep(UNIMPLEMENTED_GRACE_S)
                self._call.cancel()
                return
            self.ready = True
            await self._requests.run()
            await self._call.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass  # the stream is over: the reader fails what is pending

    async def _engine_has_batches(self) -> bool:
        """Wait for the engine's headers (a link connection's hello): True if they say it
        serves ExchangeBatches. Nothing is written before them (one round trip, once per
        stream), so a peer that is no engine of ours is never sent a command."""
        metadata = await self._call.initial_metadata()
        return metadata is not None and BATCHES_METADATA in metadata

    def _queue(self, request: pb.EngineServiceExchangeRequest) -> None:
        self._requests.put(request.SerializeToString() if self._serialized else request)

    async def _send(self, batch: list[pb.EngineServiceExchangeRequest | bytes]) -> None:
        if self._serialized:
            bodies = cast(list[bytes], batch)
            await self._call.write(b"".join(repeated_field(BATCH_FIELD, b) for b in bodies))
            return
        requests = cast(list[pb.EngineServiceExchangeRequest], batch)
        await self._call.write(pb.EngineServiceExchangeBatchesRequest(requests=requests))

    def _answered(self, response: pb.EngineServiceExchangeResponse) -> None:
        if response.drain:
            self.retire()
            return
        answer = self._pending.pop(response.request_id, None)
        if answer is not None and not answer.done():
            answer.set_result(response)

    async def _read(self) -> None:
        failure: BaseException | None = None
        try:
            async for message in self._call:
                for response in message.responses:
                    self._answered(response)
        except grpc.aio.AioRpcError as error:
            failure = error
        except asyncio.CancelledError as error:  # the call was cancelled (close), or this task
            failure = error
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
        finally:
            self.ended = True
            self._writer.cancel()
            pending, self._pending = self._pending, {}
            for answer in pending.values():
                if not answer.done():
                    answer.set_exception(stream_failure(failure))


class ExchangePool:
    """``streams_per_channel`` ExchangeBatches streams on each stub of ``stubs``, used in
    turn. A stream that ended is replaced on its next turn (reopening
    after an engine restart needs nothing else); one that aged out is replaced once its
    successor, opened on its next turn, is ready (so no call waits for a new stream's
    headers), and meanwhile still takes calls. ``metadata`` goes with every
    stream (the bot credential).
    """

    def __init__(
        self,
        stubs: Sequence[Any],
        metadata: Any = None,
        streams_per_channel: int = STREAMS_PER_CHANNEL,
    ) -> None:
        self._stubs = list(stubs)
        self._metadata = metadata
        self._streams: list[ExchangeStream | None] = [None] * (
            len(self._stubs) * max(streams_per_channel, 1)
        )
        self._turns = itertools.cycle(range(len(self._streams)))
        self._current: ExchangeStream | None = None
        self._calls_this_turn = 0
        # Each aged stream's successor while it waits for the engine's headers, by place.
        self._successors: dict[int, ExchangeStream] = {}
        # Retired streams still answering their calls (held so their tasks are not lost).
        self._retired: set[ExchangeStream] = set()
        # The loop the pool's streams run on, kept: on Python 3.11 each look-up of the
        # running loop is a getpid system call, one per call otherwise (issue 35).
        self._loop: asyncio.AbstractEventLoop | None = None

    def stream(self, loop: asyncio.AbstractEventLoop | None = None) -> ExchangeStream:
        """The stream for the next call (opened now if its place is empty or stale);
        ``loop``: the running loop, if the caller has it (default: looked up).

        Calls made in the same event-loop turn share a stream (up to CALLS_PER_TURN, and
        while it has room), so their requests go as one message; further calls, and the
        next turn's, go on the next stream: the calls still spread over every stream,
        and engine, turn by turn and within a burst."""
        current = self._current
        if current is None:
            (loop if loop is not None else asyncio.get_running_loop()).call_soon(self._next_turn)
        elif self._calls_this_turn < CALLS_PER_TURN and current.open and current.has_room:
            self._calls_this_turn += 1
            return current
        self._current = current = self._next_stream()
        self._calls_this_turn = 1
        return current

    def _next_turn(self) -> None:
        self._current = None

    def _next_stream(self) -> ExchangeStream:
        place = next(self._turns)
        stream = self._streams[place]
        if stream is not None and stream.usable:
            return stream
        successor = self._successors.get(place)
        if successor is None or not successor.open:
            successor = self._successors[place] = self._open(place)
        if stream is not None and stream.open and not successor.ready:
            return stream  # past its age: it carries on until its successor is ready
        del self._successors[place]
        if stream is not None:
            self._retire(stream)
        self._streams[place] = successor
        return successor

    def _open(self, place: int) -> ExchangeStream:
        return ExchangeStream(self._stubs[place % len(self._stubs)], self._metadata)

    async def call(
        self, request: pb.EngineServiceExchangeRequest, timeout_s: float
    ) -> pb.EngineServiceExchangeResponse:
        """:meth:`ExchangeStream.call` on the next stream, within ``timeout_s`` in all:
        a call whose stream retired before it was sent (an engine draining under load, a
        stream aging out) goes on the next stream instead of failing."""
        loop = self._loop
        if loop is None or not loop.is_running():
            loop = self._loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            try:
                return await self.stream(loop).call_until(request, deadline, loop)
            except StreamRetired:
                continue

    def _retire(self, stream: ExchangeStream) -> None:
        stream.retire()
        if not stream.reader.done():
            self._retired.add(stream)
            stream.reader.add_done_callback(lambda _: self._retired.discard(stream))

    async def close(self) -> None:
        """End every stream (calls still pending fail UNAVAILABLE)."""
        streams = [s for s in self._streams if s is not None] + list(self._retired)
        streams += self._successors.values()
        self._streams = [None] * len(self._streams)
        self._successors = {}
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*(s.reader for s in streams), return_exceptions=True)
