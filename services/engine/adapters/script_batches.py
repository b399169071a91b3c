"""A script lane: ``EVALSHA`` calls (and the engine's other one-off commands, such as
the game-end notice's ``XADD``) on one connection of their own, batched while busy.

Each ``EVALSHA`` through redis-py costs its fixed share of Python work apart from the
bytes: take a pooled connection and give it back, a retry wrapper, a timeout around the
pool wait, another around the write and a third around the read (each asks asyncio for
the running loop: a ``getpid`` system call on Python 3.11), and the command packed in
pure Python (issue 16 measured redis-py at about a sixth of a server's CPU per move).
:class:`ScriptBatches` owns ONE connection, made by the client's pool from the pool's own
connection settings (login, TLS, Unix socket, database all carry over) but outside its
accounting, and has at most one round trip on it at a time: a call made while the lane
is idle goes out at once, calls made while it is busy wait and then go out together.
Every round trip is packed in C (``hiredis.pack_command``), written once, and its N
replies read under one deadline, the connection's configured socket timeout.

Each call still gets its own reply: a script's result, decoded as the client decodes it,
or its error (``NoScriptError`` included, so the caller falls back to ``EVAL`` as
before). Redis runs each script atomically whatever else the round trip holds, so what
each script sees and does is unchanged. The round trip runs in a task of the lane's, so a
caller that gives up (cancelled) never interrupts a write or a read half done; its reply
is read and dropped. A round trip that fails as a whole (connection error or deadline)
fails every call in it, after one more try on a fresh connection: the append script is
compare-and-set on the version and deduplicated on the command id, so sending one twice
never writes twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Coroutine
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.metrics.families import REDIS_ERRORS, REDIS_ROUND_TRIPS
from services.task_deadline import TaskDeadline

MAX_BATCH = 128
"""Most calls in one round trip (the rest wait for the next)."""

_Call = tuple[tuple[Any, ...], asyncio.Future[Any]]
_RETRIED = (RedisConnectionError, RedisTimeoutError, OSError)
"""What one more try on a fresh connection may cure (a broken or stalled socket)."""


class ScriptBatches:
    """``EVALSHA`` on a standalone client through a connection of the lane's own.

    Args:
        client: the store's standalone client; the lane's connection is made by its pool
            (a cluster client is not batched: see RedisEventStore).
    """

    def __init__(self, client: aioredis.Redis) -> None:
        self._pool = client.connection_pool
        self._connection: AbstractConnection | None = None
        self._deadline_s: float | None = None
        self._waiting: list[_Call] = []
        self._busy = False
        self._closed = False
        # Captured when the lane first runs on a loop: asking asyncio costs a getpid.
        self._loop: asyncio.AbstractEventLoop | None = None
        self.round_trips = 0
        """Round trips sent so far (tries included): a count for tests and metrics."""

    def evalsha(self, *args: Any) -> Coroutine[Any, Any, Any]:
        """``EVALSHA`` with ``args`` (sha, number of keys, keys, arguments): its reply,
        decoded as the client decodes it. Raises the reply's error (a ResponseError such
        as NoScriptError), redis ConnectionError / TimeoutError when Redis could not be
        reached within the deadline twice, or TypeError for an argument that is not
        str, bytes, int or float."""
        return self.execute("EVALSHA", *args)

    async def execute(self, *command: Any) -> Any:
        """Any single command (its name first), as :meth:`evalsha` sends a script: its
        reply decoded as the client decodes it (no redis-py response callback runs), or
        the errors :meth:`evalsha` names. A round trip that fails is sent once more, so
        the command must be one that may run twice (a compare-and-set script, or a
        notice whose consumers ignore a duplicate)."""
        loop = self._loop
        if self._busy and loop is not None:
            waiter: asyncio.Future[Any] = loop.create_future()
            self._waiting.append((command, waiter))
            return await waiter
        self._busy = True
        if loop is None or not loop.is_running():
            # Looked up only when the lane meets a new loop (a getpid system call on
            # Python 3.11, once a move otherwise: issue 35).
            self._loop = loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        _keep(loop.create_task(self._run([(command, waiter)])))
        return await waiter

    async def aclose(self) -> None:
        """Close the lane's connection; a call made afterwards raises ConnectionError."""
        self._closed = True
        if self._connection is not None:
            await self._connection.disconnect()

    async def _run(self, batch: list[_Call]) -> None:
        """Send ``batch``, then what waited meanwhile, until nothing waits."""
        try:
            while batch:
                await self._send(batch)
                batch = self._take()
        except BaseException:
            for _args, waiter in [*batch, *self._waiting]:
                waiter.cancel()
            del self._waiting[:]
            self._busy = False
            raise

    def _take(self) -> list[_Call]:
        """The next batch (callers that gave up left out), or [] and the lane idle."""
        batch = [call for call in self._waiting if not call[1].done()]
        del self._waiting[:]
        if not batch:
            self._busy = False
            return batch
        self._waiting.extend(batch[MAX_BATCH:])
        return batch[:MAX_BATCH]

    async def _send(self, batch: list[_Call]) -> None:
        """One round trip for ``batch``; each waiter gets its reply or its error."""
        commands: list[bytes] = []
        sent: list[_Call] = []
        for args, waiter in batch:
            if waiter.done():
                continue  # its caller gave up before it went out: never sent
            try:
                commands.append(hiredis.pack_command(args))
            except Exception as error:  # an argument that cannot be sent: this call's
                waiter.set_exception(error)
                continue
            sent.append((args, waiter))
        if not sent:
            return
        batch, payload = sent, b"".join(commands)
        try:
            replies = await self._round_trip(payload, len(batch))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the whole round trip failed: so did every call in it
            for _args, waiter in batch:
                if not waiter.done():
                    waiter.set_exception(exc)
            return
        if self._closed:  # closed while the lane connected: aclose found nothing to close
            await self._drop()
        for (_args, waiter), reply in zip(batch, replies, strict=True):
            if waiter.done():
                continue  # its caller gave up (cancelled): the reply is nobody's
            if isinstance(reply, ResponseError):
                waiter.set_exception(reply)
            else:
                waiter.set_result(reply)

    async def _round_trip(self, payload: bytes, count: int) -> list[Any]:
        """Write ``payload`` and read its ``count`` replies (errors among them as
        values), trying once more on a fresh connection when the first try fails. Each
        try is timed, each failed one counted (teoti_redis_round_trip_seconds,
        teoti_redis_errors_total: one observation per batch, not per command)."""
        start = time.perf_counter()
        try:
            replies = await self._try(payload, count)
        except _RETRIED:
            REDIS_ERRORS.inc()
            await self._drop()
            if self._closed:
                raise
        else:
            REDIS_ROUND_TRIPS.observe(time.perf_counter() - start)
            return replies
        start = time.perf_counter()
        try:
            replies = await self._try(payload, count)
        except _RETRIED:
            REDIS_ERRORS.inc()
            await self._drop()
            raise
        REDIS_ROUND_TRIPS.observe(time.perf_counter() - start)
        return replies

    async def _try(self, payload: bytes, count: int) -> list[Any]:
        """One try of a round trip under one deadline (RedisTimeoutError past it)."""
        if self._closed:
            raise RedisConnectionError("the store is closed")
        connection = self._connection or self._connect()
        self.round_trips += 1
        loop, task = self._loop, asyncio.current_task(self._loop)
        timer = (
            TaskDeadline(loop, loop.time() + self._deadline_s, task)
            if loop is not None and task is not None and self._deadline_s is not None
            else None
        )
        try:
            if not connection.is_connected:
                await connection.connect()  # type: ignore[no-untyped-call]
            await connection.send_packed_command(payload, check_health=False)
            replies: list[Any] = []
            for _ in range(count):
                try:
                    replies.append(await connection.read_response())
                except ResponseError as error:
                    replies.append(error)
            return replies
        except asyncio.CancelledError:
            if timer is not None and timer.caused_cancellation():
                raise RedisTimeoutError("Redis did not answer within the deadline") from None
            raise
        finally:
            if timer is not None:
                timer.cancel()

    def _connect(self) -> AbstractConnection:
        """The lane's connection, made by the pool with the pool's settings. Its own
        socket timeout is lifted: the lane's deadline (that timeout) covers the round
        trip as a whole instead of each write and each read."""
        connection: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        self._deadline_s = connection.socket_timeout
        connection.socket_timeout = None
        self._connection = connection
        return connection

    async def _drop(self) -> None:
        """Close the connection after a failed try (the next connects afresh)."""
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.disconnect(nowait=True)


_RUNNING: set[asyncio.Future[None]] = set()


def _keep(task: asyncio.Future[None]) -> None:
    """Hold a reference to ``task`` until it ends (the loop keeps only weak ones)."""
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
