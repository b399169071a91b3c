"""Script calls that arrive while one is in flight go out together, in one pipeline.

Each ``EVALSHA`` through redis-py costs its fixed share of Python work apart from the
bytes: take a pooled connection and give it back, a retry wrapper, a timeout around the
write and another around the read, the library's metrics hooks (issue 16 measured them at
about a third of an engine's CPU per move). :class:`ScriptBatches` sends a call at once
when none is in flight, exactly as before; calls made while one is in flight wait for it
and then go out as one non-transactional pipeline (redis-py's own batching), paying that
share once. Each call still gets its own reply: a script's result, or its error
(``NoScriptError`` included, so the caller falls back to ``EVAL`` as before). Redis runs
each script atomically whatever else the pipeline holds, so what each script sees and
does is unchanged; a pipeline that fails as a whole (the connection) fails every call in
it, and redis-py's retry sends it again as it would a single call: the append script is
compare-and-set on the version and deduplicated on the command id, so sending one twice
never writes twice.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

MAX_BATCH = 128
"""Most calls in one pipeline (the rest wait for the next)."""


class ScriptBatches:
    """``EVALSHA`` on a standalone client, pipelined while another is in flight.

    Args:
        client: the store's standalone client (a cluster client is not batched: its
            pipeline splits by node and redirects, see RedisEventStore).
    """

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self._waiting: list[tuple[tuple[Any, ...], asyncio.Future[Any]]] = []
        self._busy = False

    async def evalsha(self, *args: Any) -> Any:
        """``EVALSHA`` with ``args`` (sha, number of keys, keys, arguments): its reply.
        Raises what redis-py raises for it (ResponseError such as NoScriptError,
        ConnectionError, TimeoutError)."""
        if self._busy:
            waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiting.append((args, waiter))
            return await waiter
        self._busy = True
        try:
            return await self._client.evalsha(*args)
        finally:
            self._next()

    def _next(self) -> None:
        """Send what waited as one batch (in a task of its own: the call that just
        finished returns at once), or mark nothing in flight."""
        batch = [(args, waiter) for args, waiter in self._waiting if not waiter.done()]
        del self._waiting[:]
        if not batch:
            self._busy = False
            return
        self._waiting.extend(batch[MAX_BATCH:])
        _keep(asyncio.ensure_future(self._send(batch[:MAX_BATCH])))

    async def _send(self, batch: list[tuple[tuple[Any, ...], asyncio.Future[Any]]]) -> None:
        try:
            pipe = self._client.pipeline(transaction=False)
            for args, _waiter in batch:
                pipe.evalsha(*args)
            replies = await pipe.execute(raise_on_error=False)
        except asyncio.CancelledError:
            for _args, waiter in batch:
                waiter.cancel()
            raise
        except Exception as exc:  # the whole pipeline failed: so did every call in it
            for _args, waiter in batch:
                if not waiter.done():
                    waiter.set_exception(exc)
        else:
            for (_args, waiter), reply in zip(batch, replies, strict=True):
                if waiter.done():
                    continue  # its caller gave up (cancelled): the reply is nobody's
                if isinstance(reply, ResponseError):
                    waiter.set_exception(reply)
                else:
                    waiter.set_result(reply)
        finally:
            self._next()


_RUNNING: set[asyncio.Future[None]] = set()


def _keep(task: asyncio.Future[None]) -> None:
    """Hold a reference to ``task`` until it ends (the loop keeps only weak ones)."""
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
