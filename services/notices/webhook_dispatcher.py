"""Delivering players' notices to their webhooks, from any number of gateways.

Every gateway runs a :class:`WebhookDispatcher`. For each inbox shard it tries to hold
the shard's lease (``<prefix>:{inbox:<shard>}:webhook-lease``, renewed while held; a
gateway that stops lets it lapse and another takes over). The holder reads the shard's
bell (services.notices.inbox: the id of each player just sent a notice) every POLL_S
from where the last holder stopped (``...:webhook-bell``), and for each such player with
a webhook (services.players.webhooks) sends, in order, the notices the webhook has not
had yet (services.notices.webhook_sender).

- **Order and retries.** A webhook gets one request at a time, oldest notice first. A
  failed one is tried again after BACKOFF_S (1 s, 5 s, 30 s, 2 min, 10 min, 30 min); the
  retries due are kept in ``...:webhook-retry`` (sorted set, by when), so a gateway that
  takes the shard over retries them too. When every retry failed, the notices then
  pending are given up (counted in the state's ``dropped``) and the next notice starts
  afresh: a dead endpoint costs a few requests an hour, never a backlog.
- **At least once.** A notice can arrive twice (a holder that stopped after sending but
  before recording it); receivers tell them apart by ``Teoti-Notice-Id``.
- **No webhook starves another.** Each runs in its own task, at most MAX_IN_FLIGHT
  requests at once per gateway and PLAYER_IN_FLIGHT per player, each at most TIMEOUT_S
  in all.
- A webhook is sent what its player's inbox holds: a webhook failing for longer than
  the inbox keeps (about 1,000 notices) misses the oldest, as a stream client would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import structlog
from redis.exceptions import RedisError

from services.metrics.families import WEBHOOK_DELIVERIES
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice
from services.notices.webhook_sender import WebhookSender
from services.notices.webhook_state import DeliveryState, RedisDeliveryStates
from services.players.webhooks import RedisWebhooks, Webhook

log = structlog.get_logger(__name__)

BACKOFF_S: tuple[float, ...] = (1.0, 5.0, 30.0, 120.0, 600.0, 1800.0)
"""Seconds before each retry of a failed notice; after the last, it is given up."""
MAX_IN_FLIGHT = 64
"""Webhook requests one gateway has open at once."""
PLAYER_IN_FLIGHT = 4
"""Of those, what one player's webhooks may hold (a player has up to 20 credentials, each
with a webhook: a few players with slow endpoints can't take every slot)."""
POLL_S = 0.5
"""Seconds between two reads of the held shards' bells: one pipelined round trip for
all of them, instead of a blocked pooled connection per shard (the pool serves moves)."""
LEASE_MS = 10_000
"""How long a shard's lease lasts unless renewed (ms)."""
LEASE_RENEW_S = 3.0
"""Seconds between two renewals of the leases."""
BELL_BATCH = 500
"""Bell entries (and retries due) read per shard per round."""
BATCH = 50
"""Notices read from an inbox at a time."""

# KEYS: 1 lease. ARGV: 1 holder, 2 ttl (ms). Takes a free lease or renews one's own.
_LEASE = """
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


class WebhookDispatcher:
    """Sends notices to webhooks for the shards it holds (see the module doc).

    Args:
        inbox: the players' inboxes (its client may read them and their bells).
        webhooks: the webhooks.
        states: their delivery states.
        sender: what makes the requests.
        now_ms: the time in ms since the epoch.
        backoff_s: seconds before each retry (tests shorten it).
        holder: this dispatcher's lease name (random by default).
    """

    def __init__(
        self,
        inbox: RedisInbox,
        webhooks: RedisWebhooks,
        states: RedisDeliveryStates,
        sender: WebhookSender,
        now_ms: Callable[[], int],
        backoff_s: Sequence[float] = BACKOFF_S,
        holder: str = "",
    ) -> None:
        self._inbox = inbox
        self._redis = inbox.client
        self._webhooks = webhooks
        self._states = states
        self._sender = sender
        self._now_ms = now_ms
        self._backoff_s = tuple(backoff_s)
        self._holder = holder or uuid.uuid4().hex
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._player_slots: dict[str, tuple[asyncio.Semaphore, int]] = {}
        """Player -> (its slots, the deliveries using them): dropped when unused."""
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._again: dict[tuple[str, str], Webhook] = {}
        """Webhooks to deliver once more when their running task ends (as last read: a
        webhook set again meanwhile is the new one)."""
        self._cursors: dict[int, str] = {}
        """Held shard -> the id of the last bell entry read."""
        self._lease_due_ms = 0

    async def close(self) -> None:
        """Close the sender's connections (after :meth:`run` returned)."""
        await self._sender.close()

    def _key(self, shard: int, name: str) -> str:
        return self._inbox.bell(shard).removesuffix(":bell") + f":webhook-{name}"

    async def run(self, stop: asyncio.Event) -> None:
        """Poll the shards it holds every POLL_S until ``stop`` is set; an outage is
        logged and waited out."""
        try:
            while not stop.is_set():
                try:
                    await self.poll()
                except (RedisError, OSError) as exc:
                    log.warning("webhook_poll_unavailable", error=type(exc).__name__)
                    self._lease_due_ms = 0
                except Exception:  # a bug: logged, and the next round tries again
                    log.exception("webhook_poll_failed")
                    self._lease_due_ms = 0
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), POLL_S)
        finally:
            self._again.clear()  # a cancelled delivery is not started again
            running = list(self._running.values())
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    async def poll(self) -> None:
        """One round: take or renew the shards' leases (every LEASE_RENEW_S), read the
        held shards' bells from where they stopped, and start the deliveries of the
        players they name and of the retries due. Redis errors propagate."""
        now = self._now_ms()
        if now >= self._lease_due_ms:
            await self._renew_leases()
            self._lease_due_ms = now + int(LEASE_RENEW_S * 1000)
        held = sorted(self._cursors)
        if not held:
            return
        pipe = self._redis.pipeline(transaction=False)
        for shard in held:
            pipe.xread({self._inbox.bell(shard): self._cursors[shard]}, count=BELL_BATCH)
            pipe.zrangebyscore(self._key(shard, "retry"), "-inf", now, start=0, num=BELL_BATCH)
        replies: list[Any] = await pipe.execute()
        players: dict[str, None] = {}
        due: list[tuple[int, str, str]] = []
        moved: dict[int, str] = {}
        for index, shard in enumerate(held):
            for _stream, entries in replies[2 * index] or []:
                for entry_id, fields in entries:
                    moved[shard] = _text(entry_id)
                    if player := _field(fields, "p"):
                        players[player] = None
            for member in replies[2 * index + 1] or []:
                player, _, credential = _text(member).partition("|")
                players[player] = None
                due.append((shard, player, credential))
        hooks: dict[tuple[str, str], Webhook] = {}
        for player in players:
            try:
                webhooks = await self._webhooks.of_player(player)
            except (ValueError, KeyError, TypeError):  # a stored webhook we can't read
                log.exception("webhook_unreadable", player_id=player)
                continue
            for webhook in webhooks:
                hooks[(player, webhook.credential_id)] = webhook
                self._start(webhook)
        for shard, player, credential in due:
            if (player, credential) not in hooks:  # deleted or revoked: no retry
                await self._redis.zrem(self._key(shard, "retry"), f"{player}|{credential}")
        if moved:
            pipe = self._redis.pipeline(transaction=False)
            for shard, cursor in moved.items():
                self._cursors[shard] = cursor
                pipe.set(self._key(shard, "bell"), cursor)
            await pipe.execute()

    async def _renew_leases(self) -> None:
        """Take or renew every shard's lease it can; start a newly held shard where its
        last holder stopped (its stored bell cursor); stop the deliveries of a shard it
        lost (a stall longer than the lease: its new holder sends them, at least once)."""
        shards = range(self._inbox.shards)
        pipe = self._redis.pipeline(transaction=False)
        for shard in shards:
            pipe.eval(_LEASE, 1, self._key(shard, "lease"), self._holder, LEASE_MS)
        held = [shard for shard, got in zip(shards, await pipe.execute(), strict=True) if int(got)]
        lost = {s for s in self._cursors if s not in held}
        for shard in lost:
            del self._cursors[shard]
        for key, task in list(self._running.items()):
            # Another gateway delivers these now: two at once would break their order.
            if self._inbox.shard_of(key[0]) in lost:
                self._again.pop(key, None)
                task.cancel()
        new = [shard for shard in held if shard not in self._cursors]
        if new:
            pipe = self._redis.pipeline(transaction=False)
            for shard in new:
                pipe.get(self._key(shard, "bell"))
            for shard, cursor in zip(new, await pipe.execute(), strict=True):
                # The first holder ever reads the whole bell (it is capped): a webhook
                # is sent only what came after its creation anyway (its state's cursor).
                self._cursors[shard] = "0-0" if cursor is None else _text(cursor)

    @property
    def in_flight(self) -> int:
        """Webhooks being delivered now (a delivery may be waiting for a slot)."""
        return len(self._running)

    def _start(self, webhook: Webhook) -> None:
        """Deliver ``webhook``'s pending notices in a task of its own (once more after
        the running one, if one runs)."""
        key = (webhook.player_id, webhook.credential_id)
        if key in self._running:
            self._again[key] = webhook
            return
        task = asyncio.create_task(self._deliver(webhook))
        self._running[key] = task
        task.add_done_callback(lambda _t: self._finished(key))

    def _finished(self, key: tuple[str, str]) -> None:
        self._running.pop(key, None)
        if (webhook := self._again.pop(key, None)) is not None:
            self._start(webhook)

    @contextlib.asynccontextmanager
    async def _player_slot(self, player: str) -> AsyncIterator[None]:
        """One of ``player``'s PLAYER_IN_FLIGHT request slots, for the block."""
        slots, users = self._player_slots.get(player, (asyncio.Semaphore(PLAYER_IN_FLIGHT), 0))
        self._player_slots[player] = (slots, users + 1)
        try:
            async with slots:
                yield
        finally:
            slots, users = self._player_slots[player]
            if users == 1:
                del self._player_slots[player]
            else:
                self._player_slots[player] = (slots, users - 1)

    async def _deliver(self, webhook: Webhook) -> None:
        bound = log.bind(player_id=webhook.player_id, credential_id=webhook.credential_id)
        try:
            await self._deliver_pending(webhook)
        except (RedisError, OSError) as exc:
            bound.warning("webhook_delivery_unavailable", error=type(exc).__name__)
        except Exception:  # a bug: logged, and the other webhooks go on
            bound.exception("webhook_delivery_failed")

    async def _deliver_pending(self, webhook: Webhook) -> None:
        state = await self._states.get(webhook)
        retry_key = self._key(self._inbox.shard_of(webhook.player_id), "retry")
        member = f"{webhook.player_id}|{webhook.credential_id}"
        if state.retry_ms > self._now_ms():
            await self._redis.zadd(retry_key, {member: state.retry_ms})
            return
        await self._redis.zrem(retry_key, member)
        while notices := await self._inbox.since(webhook.player_id, state.after(webhook), BATCH):
            for notice in notices:
                state = await self._send(webhook, state, notice)
                if not await self._states.put(webhook, state):
                    return  # deleted, revoked or set again meanwhile
                if state.retry_ms:
                    await self._redis.zadd(retry_key, {member: state.retry_ms})
                    return
                if state.cursor != notice.notice_id:
                    break  # given up through a later notice: read on from there

    async def _send(self, webhook: Webhook, state: DeliveryState, notice: Notice) -> DeliveryState:
        payload = {**notice.to_json(), "player_id": webhook.player_id}
        body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
        async with self._player_slot(webhook.player_id), self._slots:
            error = await self._sender.send(webhook, notice.notice_id, body, self._now_ms() // 1000)
        now = self._now_ms()
        if not error:
            WEBHOOK_DELIVERIES.inc("delivered")
            return state.delivered(notice.notice_id, now)
        WEBHOOK_DELIVERIES.inc("failed")
        log.info(
            "webhook_failed",
            player_id=webhook.player_id,
            credential_id=webhook.credential_id,
            error=error,
            attempts=state.attempts + 1,
        )
        if state.attempts < len(self._backoff_s):
            retry = now + int(self._backoff_s[state.attempts] * 1000)
            return state.failed(error, now, retry)
        pending = await self._inbox.since(webhook.player_id, state.after(webhook), 10_000)
        WEBHOOK_DELIVERIES.inc("dropped", amount=len(pending))
        log.warning(
            "webhook_notices_dropped",
            player_id=webhook.player_id,
            credential_id=webhook.credential_id,
            notices=len(pending),
        )
        return state.failed(error, now, 0).gave_up(pending[-1].notice_id, len(pending))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _field(fields: Any, name: str) -> str:
    for key, value in dict(fields).items():
        if _text(key) == name:
            return _text(value)
    return ""
