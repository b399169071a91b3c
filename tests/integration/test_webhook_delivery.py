"""Players' notices delivered to their webhooks (services.notices.webhook_dispatcher) from
a real Redis to a real HTTP receiver: signed, in order, after the webhook's creation only;
retried after a failure; given up (counted) after every retry failed, the next notice
afresh; none after the credential is revoked; none to an address the deployment does not
allow; one dispatcher per shard among several gateways; a hanging receiver does not hold
up another's notices; and the whole way from SetPlayerWebhook on a running stack to a
notice the Python client's verifier accepts."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from services.app import GatewaySettings, StoreSettings, all_in_one
from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.rulesets import RulesetRegistry
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind, notice_id_key
from services.notices.webhook_dispatcher import PLAYER_IN_FLIGHT, POLL_S, WebhookDispatcher
from services.notices.webhook_sender import WebhookSender
from services.notices.webhook_state import DeliveryState, RedisDeliveryStates
from services.players.repository import PlayerRepository
from services.players.service import PlayerService
from services.players.webhooks import RedisWebhooks, Webhook, new_secret
from tests.webhook_receiver import Received, answer_when, webhook_receiver

FAST = (0.05, 0.05)
"""Retry delays of the tests' dispatchers (seconds)."""


def _now_ms() -> int:
    return int(time.time() * 1000)


class World:
    """A deployment's keys: players, their inboxes and webhooks."""

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self.client = client
        self.players = PlayerService(PlayerRepository(client, prefix))
        self.inbox = RedisInbox(client, prefix)
        self.webhooks = RedisWebhooks(client, prefix)
        self.states = RedisDeliveryStates(client, prefix)

    async def hooked(self, name: str, url: str) -> Webhook:
        """A new player ``name`` whose first credential has a webhook to ``url``."""
        player, credential, _ = await self.players.register(name)
        hook = Webhook(player.player_id, credential.credential_id, url, new_secret(), _now_ms())
        assert await self.webhooks.set(hook)
        return hook

    async def notify(self, player: str, turn: int) -> str:
        notice = Notice(NoticeKind.YOUR_TURN, {"game_id": "g1", "version": turn}, _now_ms())
        return await self.inbox.post(player, notice)

    def dispatcher(self, allow_private: bool = True, timeout_s: float = 5.0) -> WebhookDispatcher:
        sender = WebhookSender(allow_private, timeout_s)
        return WebhookDispatcher(
            self.inbox, self.webhooks, self.states, sender, _now_ms, backoff_s=FAST
        )


@asynccontextmanager
async def running(*dispatchers: WebhookDispatcher) -> AsyncIterator[None]:
    stop = asyncio.Event()
    tasks = [asyncio.create_task(d.run(stop)) for d in dispatchers]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        for dispatcher in dispatchers:
            await dispatcher.close()


def _verified(hook: Webhook, request: Received) -> dict[str, object]:
    """The request's JSON after checking its signature as a receiver would."""
    fields = dict(part.split("=", 1) for part in request.headers["teoti-signature"].split(","))
    signed = f"{fields['t']}.".encode() + request.body
    expected = hmac.new(hook.secret.encode(), signed, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(fields["v1"], expected)
    assert abs(int(fields["t"]) - time.time()) < 60
    body: dict[str, object] = json.loads(request.body)
    return body


async def _state(
    world: World, hook: Webhook, until: Callable[[DeliveryState], bool]
) -> DeliveryState:
    """The webhook's state once ``until`` holds of it (polled: a deadline, not a timing)."""
    async with asyncio.timeout(15):
        while True:
            state = await world.states.get(hook)
            if until(state):
                return state
            await asyncio.sleep(0.02)


async def test_notices_arrive_signed_in_order_from_the_webhooks_creation_on(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    async with webhook_receiver() as receiver:
        player, credential, _ = await world.players.register("Ann")
        await world.notify(player.player_id, 1)  # before the webhook: never sent
        await asyncio.sleep(0.002)
        hook = Webhook(
            player.player_id, credential.credential_id, receiver.url, new_secret(), _now_ms()
        )
        assert await world.webhooks.set(hook)
        ids = [await world.notify(player.player_id, turn) for turn in (2, 3, 4)]
        async with running(world.dispatcher()):
            got = await receiver.wait_for(3)
            state = await _state(world, hook, lambda s: s.cursor == ids[-1])
    bodies = [_verified(hook, request) for request in got]
    assert [b["id"] for b in bodies] == ids
    assert [b["data"] for b in bodies] == [{"game_id": "g1", "version": t} for t in (2, 3, 4)]
    assert {b["kind"] for b in bodies} == {"your_turn"}
    assert {b["player_id"] for b in bodies} == {player.player_id}
    assert [r.headers["teoti-notice-id"] for r in got] == ids
    assert {r.headers["teoti-webhook"] for r in got} == {credential.credential_id}
    assert {r.headers["content-type"] for r in got} == {"application/json"}
    assert len(receiver.received) == 3
    assert state.last_ok_ms and not state.last_error and not state.dropped


async def test_a_failed_notice_is_retried_and_the_order_kept(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    answers = iter([500, 200, 200])

    async def flaky(_request: Received) -> int:
        return next(answers, 200)

    async with webhook_receiver(flaky) as receiver:
        hook = await world.hooked("Bo", receiver.url)
        ids = [await world.notify(hook.player_id, turn) for turn in (1, 2)]
        async with running(world.dispatcher()):
            got = await receiver.wait_for(3)
            state = await _state(world, hook, lambda s: s.cursor == ids[-1])
    assert [r.headers["teoti-notice-id"] for r in got] == [ids[0], ids[0], ids[1]]
    assert state.attempts == 0 and not state.last_error and not state.failing_since_ms


async def test_after_every_retry_failed_the_pending_notices_are_dropped_and_counted(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    healthy = asyncio.Event()

    async def down_until_healthy(_request: Received) -> int:
        return 200 if healthy.is_set() else 503

    async with webhook_receiver(down_until_healthy) as receiver:
        hook = await world.hooked("Cy", receiver.url)
        ids = [await world.notify(hook.player_id, turn) for turn in (1, 2)]
        async with running(world.dispatcher()):
            failed = await _state(world, hook, lambda s: s.dropped == 2)
            assert failed.cursor == ids[-1] and failed.last_error == "HTTP 503"
            assert failed.failing_since_ms
            assert len(receiver.received) == 1 + len(FAST)  # the first notice's tries
            healthy.set()
            later = await world.notify(hook.player_id, 3)
            await _state(world, hook, lambda s: s.cursor == later)
    assert receiver.received[-1].headers["teoti-notice-id"] == later


async def test_a_revoked_credentials_webhook_gets_nothing_more(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    async with webhook_receiver() as receiver:
        hook = await world.hooked("Di", receiver.url)
        other = await world.hooked("Ed", receiver.url)
        async with running(world.dispatcher()):
            await world.notify(hook.player_id, 1)
            await receiver.wait_for(1)
            await world.players.revoke(hook.player_id, hook.credential_id)
            await world.notify(hook.player_id, 2)
            last = await world.notify(other.player_id, 1)  # after Di's, on any shard
            await _state(world, other, lambda s: s.cursor == last)
    assert [r.headers["teoti-webhook"] for r in receiver.received] == [
        hook.credential_id,
        other.credential_id,
    ]
    assert not await redis_client.exists(
        f"{key_prefix}:{{account}}:player:{hook.player_id}:webhook-state"
    )


async def test_an_address_the_deployment_does_not_allow_is_never_connected_to(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    async with webhook_receiver() as receiver:
        hook = await world.hooked("Fi", receiver.url)
        await world.notify(hook.player_id, 1)
        async with running(world.dispatcher(allow_private=False)):
            state = await _state(world, hook, lambda s: s.dropped == 1)
    assert state.last_error == "refused: webhook_url_not_https"
    assert receiver.received == []


async def test_two_gateways_deliver_each_notice_once(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    async with webhook_receiver() as receiver:
        hooks = [await world.hooked(f"P{n}", receiver.url) for n in range(6)]
        async with running(world.dispatcher(), world.dispatcher()):
            ids = [await world.notify(h.player_id, turn) for turn in (1, 2) for h in hooks]
            got = await receiver.wait_for(len(ids))
            for hook in hooks:
                await _state(world, hook, lambda s: s.cursor in ids[-len(hooks) :])
    assert sorted(r.headers["teoti-notice-id"] for r in got) == sorted(ids)
    assert len(receiver.received) == len(ids)


async def test_a_hanging_receiver_does_not_hold_up_another(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    release = asyncio.Event()
    async with webhook_receiver(answer_when(release)) as stuck, webhook_receiver() as fine:
        slow = await world.hooked("Slow", stuck.url)
        quick = await world.hooked("Quick", fine.url)
        # Its requests may take a minute: the quick one must not wait for that.
        async with running(world.dispatcher(timeout_s=60)):
            await world.notify(slow.player_id, 1)
            await stuck.wait_for(1)  # its request is open now
            await world.notify(quick.player_id, 1)
            await fine.wait_for(1)  # and this one still arrives
            assert not release.is_set()
            release.set()
            await _state(world, slow, lambda s: s.last_ok_ms > 0)


async def test_a_player_sets_a_webhook_through_the_api_and_gets_a_verified_notice(
    redis_url: str, key_prefix: str, registry: RulesetRegistry
) -> None:
    """The whole way: SetPlayerWebhook on a running stack, a lobby table filled, and its
    ``game_started`` POSTed to the webhook, checked with the Python client's verifier."""
    from teoti_client import TeotiClient
    from teoti_client.webhooks import verify_webhook_signature

    limits = GatewaySettings(webhooks_allow_private=True).limits()
    async with (
        webhook_receiver() as receiver,
        all_in_one(
            redis_url,
            store=StoreSettings(key_prefix, shards=4),
            registry=registry,
            limits=limits,
            default_ruleset="nim",
        ) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}", play_stream=False) as client,
    ):
        ann = await client.register_player("Ann")
        bob = await client.register_player("Bob")
        _, secret = await client.set_player_webhook(ann.credential, receiver.url)
        table = await client.open_table(ann.credential, "nim", 2)
        await client.join_table(bob.credential, table.table_id)
        # The table filled, its game started and it is Ann's turn: in the order posted.
        got = await receiver.wait_for(3)
        notices = {json.loads(r.body)["kind"]: (r, json.loads(r.body)) for r in got}
        assert set(notices) == {"table_filled", "game_started", "your_turn"}
        assert [json.loads(r.body)["id"] for r in got] == sorted(
            (json.loads(r.body)["id"] for r in got), key=notice_id_key
        )
        started = notices["game_started"][1]
        assert started["player_id"] == ann.player.player_id
        assert started["data"]["table_id"] == table.table_id
        for request, _ in notices.values():
            signed = request.headers["teoti-signature"]
            assert verify_webhook_signature(secret, signed, request.body)
            assert not verify_webhook_signature(secret, signed, request.body + b" ")
        async with asyncio.timeout(15):  # the status shows it once recorded
            while True:
                shown = await client.get_player_webhook(ann.credential)
                if shown.last_delivered_ms:
                    break
                await asyncio.sleep(0.05)
        assert not shown.last_error and not shown.dropped


async def test_a_receiver_trickling_its_answer_is_cut_off_at_the_request_deadline() -> None:
    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
            writer.write(bytes([byte]))  # each byte well within a read timeout
            await writer.drain()
            await asyncio.sleep(0.1)
        writer.close()

    server = await asyncio.start_server(trickle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    hook = Webhook("p", "c", f"http://127.0.0.1:{port}/", new_secret(), _now_ms())
    sender = WebhookSender(allow_private=True, timeout_s=0.5)
    try:
        # The answer takes about 4 s to arrive whole; the request gets 0.5 s.
        assert await sender.send(hook, "1-0", b"{}", int(time.time())) == "timed out"
    finally:
        await sender.close()
        server.close()
        await server.wait_closed()


async def test_one_players_webhooks_hold_at_most_their_share_of_the_requests(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    release = asyncio.Event()
    async with webhook_receiver(answer_when(release)) as stuck, webhook_receiver() as fine:
        player, first, _ = await world.players.register("Many")
        credentials = [first] + [
            (await world.players.create_credential(player.player_id, f"c{n}"))[0]
            for n in range(PLAYER_IN_FLIGHT + 1)
        ]
        for credential in credentials:
            hook = Webhook(
                player.player_id, credential.credential_id, stuck.url, new_secret(), _now_ms()
            )
            assert await world.webhooks.set(hook)
        other = await world.hooked("Other", fine.url)
        async with running(world.dispatcher(timeout_s=60)):
            await world.notify(player.player_id, 1)  # one notice, six webhooks
            await stuck.wait_for(PLAYER_IN_FLIGHT)
            await world.notify(other.player_id, 1)
            await fine.wait_for(1)
            # The other two started with the first four, and still wait for a slot.
            assert len(stuck.received) == PLAYER_IN_FLIGHT
            release.set()
            await stuck.wait_for(len(credentials))


async def test_a_replaced_webhook_gets_no_notice_posted_after_it_was_replaced(
    redis_client: RedisClient, key_prefix: str
) -> None:
    """Set again while a request to the old URL is open: the notices after the
    replacement go to the new URL only, never to the old one with the old secret."""
    world = World(redis_client, key_prefix)
    release = asyncio.Event()
    async with webhook_receiver(answer_when(release)) as old, webhook_receiver() as new:
        first = await world.hooked("Rep", old.url)
        async with running(world.dispatcher(timeout_s=60)):
            await world.notify(first.player_id, 1)
            await old.wait_for(1)  # its request is open now
            await asyncio.sleep(0.002)
            second = Webhook(first.player_id, first.credential_id, new.url, new_secret(), _now_ms())
            assert await world.webhooks.set(second)
            later = await world.notify(first.player_id, 2)
            await asyncio.sleep(POLL_S * 3)  # the bell is read while the old one hangs
            release.set()
            got = await new.wait_for(1)
            await _state(world, second, lambda s: s.cursor == later)
            await asyncio.sleep(POLL_S * 2)  # and nothing more reaches the old URL
    assert [r.headers["teoti-notice-id"] for r in got] == [later]
    _verified(second, got[0])
    assert len(old.received) == 1


async def test_a_webhook_on_an_international_host_name_is_sent_to_its_ascii_form() -> None:
    """The name is resolved and sent in ``Host`` as IDNA (its ASCII form): a name with
    other letters must not make each delivery fail as a bug."""
    loop = asyncio.get_running_loop()
    asked: list[str] = []
    resolve = loop.getaddrinfo

    async def resolved_here(host: str, port: int, **kwargs: object) -> object:
        asked.append(host)
        return await resolve("127.0.0.1", port, **kwargs)  # type: ignore[arg-type]

    async with webhook_receiver() as receiver:
        hook = Webhook(
            "p", "c", f"http://bücher.example:{receiver.port}/h", new_secret(), _now_ms()
        )
        sender = WebhookSender(allow_private=True, timeout_s=5)
        loop.getaddrinfo = resolved_here  # type: ignore[method-assign,assignment]
        try:
            assert await sender.send(hook, "1-0", b"{}", int(time.time())) == ""
        finally:
            del loop.getaddrinfo
            await sender.close()
    assert asked == ["xn--bcher-kva.example"]
    assert receiver.received[0].headers["host"] == f"xn--bcher-kva.example:{receiver.port}"


async def test_a_stopped_dispatcher_starts_no_delivery_after_it_returned(
    redis_client: RedisClient, key_prefix: str
) -> None:
    """A webhook due once more when its running delivery is cancelled at stop is not
    started again: nothing runs after run() returned and the sender is closed."""
    world = World(redis_client, key_prefix)
    release = asyncio.Event()
    async with webhook_receiver(answer_when(release)) as stuck:
        hook = await world.hooked("Stop", stuck.url)
        dispatcher = world.dispatcher(timeout_s=60)
        stop = asyncio.Event()
        task = asyncio.create_task(dispatcher.run(stop))
        await world.notify(hook.player_id, 1)
        await stuck.wait_for(1)  # its request is open
        await world.notify(hook.player_id, 2)
        await asyncio.sleep(POLL_S * 3)  # read while it runs: due once more
        stop.set()
        await task
        await asyncio.sleep(0)  # the cancelled delivery's done callback runs
        delivering = "WebhookDispatcher._deliver"
        left = [
            t
            for t in asyncio.all_tasks()
            if getattr(t.get_coro(), "__qualname__", "") == delivering
        ]
        await dispatcher.close()
        for running_task in left:
            running_task.cancel()
        release.set()
    assert left == []


async def test_a_webhook_the_dispatcher_cannot_read_stops_no_one_elses(
    redis_client: RedisClient, key_prefix: str
) -> None:
    world = World(redis_client, key_prefix)
    async with webhook_receiver() as receiver:
        broken = await world.hooked("Broken", receiver.url)
        fine = await world.hooked("Fine", receiver.url)
        key = f"{key_prefix}:{{account}}:player:{broken.player_id}:webhooks"
        await redis_client.hset(key, broken.credential_id, "{not json")  # written by hand
        async with running(world.dispatcher()):
            await world.notify(broken.player_id, 1)
            await world.notify(fine.player_id, 1)
            await receiver.wait_for(1)
            last = await world.notify(fine.player_id, 2)  # and the next rounds go on
            await _state(world, fine, lambda s: s.cursor == last)
    assert {r.headers["teoti-webhook"] for r in receiver.received} == {fine.credential_id}


async def test_a_gateway_that_lost_a_shards_lease_stops_its_deliveries(
    redis_client: RedisClient, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.notices import webhook_dispatcher

    world = World(redis_client, key_prefix)
    release = asyncio.Event()
    async with webhook_receiver(answer_when(release)) as stuck:
        hook = await world.hooked("Held", stuck.url)
        dispatcher = world.dispatcher(timeout_s=60)
        async with running(dispatcher):
            await world.notify(hook.player_id, 1)
            await stuck.wait_for(1)  # its request is open
            assert dispatcher.in_flight == 1
            # Another gateway took every lease (this one stalled past them).
            for shard in range(world.inbox.shards):
                lease = world.inbox.bell(shard).removesuffix(":bell") + ":webhook-lease"
                await redis_client.set(lease, "another-gateway", px=60_000)
            monkeypatch.setattr(webhook_dispatcher, "LEASE_RENEW_S", 0.05)
            async with asyncio.timeout(15):  # its next renewal, in about 0.5 s
                while True:
                    if not dispatcher.in_flight:
                        break
                    await asyncio.sleep(0.02)
            release.set()
    assert (await world.states.get(hook)).last_ok_ms == 0  # never recorded as sent
