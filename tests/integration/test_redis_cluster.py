"""The Redis Cluster client path on a real 3-master cluster started for this module.

Every key of a game hashes to one slot (asked of the server with CLUSTER KEYSLOT), games
are played to the end through the engine and the bot worker (which reads every shard's
stream, each in its own slot), the append script survives an empty script cache on every
node (EVALSHA -> NOSCRIPT -> EVAL), and the client follows ASK and MOVED while a game's
slot migrates to another node mid-game.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis

from services.app import StoreSettings, all_in_one
from services.client import SeatInfo, TeotiClient
from services.embedded_redis import EmbeddedRedisCluster
from services.engine.adapters import RedisEventStore, RedisKeys
from services.engine.adapters.redis_client import RedisConfig
from services.engine.adapters.redis_store import APPEND_SHA
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
from tests.integration.helpers import HUMANS, play_to_end

SHARDS = 8


@pytest.fixture
def config(cluster: EmbeddedRedisCluster) -> RedisConfig:
    return RedisConfig.cluster(cluster.nodes)


@pytest.fixture
async def store(config: RedisConfig) -> AsyncIterator[RedisEventStore]:
    prefix = f"cl-{uuid.uuid4().hex[:8]}"
    cluster_store = RedisEventStore.from_config(config, prefix=prefix, shards=SHARDS)
    yield cluster_store
    await cluster_store.close()


def node_clients(cluster: EmbeddedRedisCluster) -> list[redis.Redis]:
    return [redis.Redis(port=port, decode_responses=True) for port in cluster.ports]


def game_keys(keys: RedisKeys, game_id: str) -> list[str]:
    return [
        keys.events(game_id),
        keys.head(game_id),
        keys.commands(game_id),
        keys.secret(game_id),
        keys.snapshot(game_id),
        keys.games_of(game_id),
        keys.turns_of(game_id),
        keys.dead_letters(keys.shard_of(game_id)),
    ]


def stored_keys_of(cluster: EmbeddedRedisCluster, prefix: str, game_id: str) -> dict[str, int]:
    """Key of the game found by SCAN on each node -> that node's port."""
    found: dict[str, int] = {}
    for port, client in zip(cluster.ports, node_clients(cluster), strict=True):
        for key in client.scan_iter(match=f"{prefix}:*:game:{game_id}:*"):
            found[key] = port
        client.close()
    return found


async def test_every_key_of_a_game_and_its_shard_is_in_one_slot(config: RedisConfig) -> None:
    client: Any = config.client()
    try:
        keys = RedisKeys("teoti", 16)
        for game_id in [uuid.uuid4().hex for _ in range(20)]:
            slots = {await client.cluster_keyslot(key) for key in game_keys(keys, game_id)}
            assert len(slots) == 1, (game_id, slots)
        shard_slots = {await client.cluster_keyslot(keys.turns(k)) for k in range(keys.shards)}
        assert len(shard_slots) == keys.shards  # shards spread over distinct slots
    finally:
        await client.aclose()


@pytest.mark.slow  # long (issue 32's test-time trim): .ci/run's slow step
async def test_games_played_through_engine_and_bot_workers_on_a_cluster(
    cluster: EmbeddedRedisCluster, config: RedisConfig, registry: RulesetRegistry
) -> None:
    prefix = f"cl-{uuid.uuid4().hex[:8]}"
    async with (
        all_in_one(config, store=StoreSettings(prefix, shards=SHARDS), registry=registry) as stack,
        TeotiClient(f"127.0.0.1:{stack.port}") as client,
    ):
        teoti = await client.create_game([SeatInfo("bot", "b0"), SeatInfo("bot", "b1")])
        nims = [
            (
                await client.create_game(
                    [SeatInfo("bot", f"b{i}") for i in range(3)], ruleset="nim"
                )
            ).game_id
            for _ in range(8)
        ]
        games = [teoti.game_id, *nims]
        for _ in range(1200):
            views = [await client.get_game(game) for game in games]
            if all(view.finished for view in views):
                break
            await asyncio.sleep(0.1)
        assert all(view.finished for view in views), [v.version for v in views]
        assert views[0].version > 100  # a whole game of the default ruleset
        for game in games:
            assert (await client.verify(game)).ok
        keys = stack.store.keys
        cluster_client: Any = stack.store.client
        nodes = set()
        for game in games:
            stored = stored_keys_of(cluster, prefix, game)
            assert {keys.events(game), keys.head(game), keys.commands(game)} <= set(stored)
            slots = {await cluster_client.cluster_keyslot(key) for key in stored}
            assert len(slots) == 1 and len(set(stored.values())) == 1, stored
            nodes |= set(stored.values())
        assert len(nodes) >= 2  # the games' shards live on different masters
        for shard in range(SHARDS):
            assert await cluster_client.xlen(keys.dead_letters(shard)) == 0
            assert await cluster_client.xlen(keys.turns(shard)) == 0  # all acked and deleted


async def test_append_falls_back_to_eval_when_a_node_has_no_script(
    cluster: EmbeddedRedisCluster, store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = Engine(store, registry, seed_source=fixed_seed("noscript"))
    nodes = node_clients(cluster)
    for node in nodes:
        node.script_flush()
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    owner = [node for node in nodes if node.script_exists(APPEND_SHA)[0]]
    assert len(owner) == 1  # EVAL cached it on the node owning the game's slot only
    await engine.submit_action(game, 0, {"take": 1}, command_id="a")
    owner[0].script_flush()  # e.g. a restarted node
    await engine.submit_action(game, 1, {"take": 1}, command_id="b")
    assert await store.version(game) == 4  # GameCreated, PileSet, two moves
    assert (await GameReader(store, registry).audit(game)).ok
    for node in nodes:
        node.close()


async def test_the_client_follows_ask_and_moved_while_a_games_slot_migrates(
    cluster: EmbeddedRedisCluster, store: RedisEventStore, registry: RulesetRegistry
) -> None:
    engine = Engine(store, registry, seed_source=fixed_seed("moved"))
    game = (await engine.create_game("nim", HUMANS, {})).game_id
    await engine.submit_action(game, 0, {"take": 1}, command_id="before")
    keys = store.keys
    cluster_client: Any = store.client
    slot = await cluster_client.cluster_keyslot(keys.events(game))
    nodes = node_clients(cluster)
    ids = [node.execute_command("CLUSTER MYID") for node in nodes]
    source = next(
        i for i, node in enumerate(nodes) if node.execute_command("CLUSTER COUNTKEYSINSLOT", slot)
    )
    target = (source + 1) % len(nodes)
    src, dst = nodes[source], nodes[target]
    dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", ids[source])
    src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", ids[target])

    def migrate(names: list[str]) -> None:
        src.execute_command(
            "MIGRATE", "127.0.0.1", cluster.ports[target], "", 0, 5000, "KEYS", *names
        )

    # Mid-migration: the event stream has moved, the head has not. Reading the stream
    # gets ASK from the old owner, the client asks the new one; the head is still read
    # from the old owner.
    migrate([keys.events(game)])
    with pytest.raises(redis.exceptions.AskError):
        src.xlen(keys.events(game))
    assert [e.version for e in await store.read(game)] == [1, 2, 3]
    assert (await store.head(game))[0] == 3
    migrate(src.execute_command("CLUSTER GETKEYSINSLOT", slot, 100))
    for node in nodes:
        node.execute_command("CLUSTER SETSLOT", slot, "NODE", ids[target])
    with pytest.raises(redis.exceptions.MovedError):
        src.hgetall(keys.head(game))
    # The client's slot map still names the old owner: MOVED, then it follows.
    final = await play_to_end(engine, game)
    assert final > 3
    assert dst.execute_command("CLUSTER COUNTKEYSINSLOT", slot) > 0
    assert src.execute_command("CLUSTER COUNTKEYSINSLOT", slot) == 0
    assert (await GameReader(store, registry).audit(game)).ok
    for node in nodes:
        node.close()


async def test_turn_requests_are_read_acked_and_dead_lettered_per_shard_on_a_cluster(
    store: RedisEventStore,
) -> None:
    from services.bot.queue import TurnRequestQueue

    keys = store.keys
    client: Any = store.client
    queue = TurnRequestQueue(client, keys, consumer="c")
    assert queue.stream_groups() == [[stream] for stream in keys.all_turns()]
    await queue.ensure_group()
    good = await client.xadd(keys.turns(2), {"game_id": "g", "seat": "0", "version": "3"})
    await client.xadd(keys.turns(5), {"game_id": "g", "seat": "x"})
    got = [d for streams in queue.stream_groups() for d in await queue.read(10, 10, streams)]
    assert sorted(d.stream for d in got) == [keys.turns(2), keys.turns(5)]
    for delivery in got:
        if delivery.request is None:
            await queue.dead_letter(delivery, "malformed")
        else:
            assert delivery.entry_id == good
            await queue.ack(delivery)
    assert await client.xlen(keys.turns(2)) == await client.xlen(keys.turns(5)) == 0
    (dead,) = await client.xrange(keys.dead_letters(5))
    assert dead[1]["reason"] == "malformed" and dead[1]["seat"] == "x"
    assert await client.xpending(keys.turns(5), "bots") == {
        "pending": 0,
        "min": None,
        "max": None,
        "consumers": [],
    }


async def test_webhooks_are_delivered_from_every_shard_of_a_cluster(
    store: RedisEventStore,
) -> None:
    """The dispatcher's pipelines (leases, bells, retries) span the inbox shards' slots."""
    from services.notices.inbox import RedisInbox
    from services.notices.notice import Notice, NoticeKind
    from services.notices.webhook_dispatcher import WebhookDispatcher
    from services.notices.webhook_sender import WebhookSender
    from services.notices.webhook_state import RedisDeliveryStates
    from services.players.repository import PlayerRepository
    from services.players.service import PlayerService
    from services.players.webhooks import RedisWebhooks, Webhook, new_secret
    from tests.webhook_receiver import webhook_receiver

    def now_ms() -> int:
        return int(time.time() * 1000)

    client, prefix = store.client, store.keys.prefix
    players, inbox = PlayerService(PlayerRepository(client, prefix)), RedisInbox(client, prefix)
    webhooks = RedisWebhooks(client, prefix)
    dispatcher = WebhookDispatcher(
        inbox, webhooks, RedisDeliveryStates(client, prefix), WebhookSender(True), now_ms
    )
    async with webhook_receiver() as receiver:
        ids, shards = [], set()
        for n in range(8):
            player, credential, _ = await players.register(f"Player {n}")
            hook = Webhook(
                player.player_id, credential.credential_id, receiver.url, new_secret(), now_ms()
            )
            assert await webhooks.set(hook)
            ids.append(
                await inbox.post(player.player_id, Notice(NoticeKind.YOUR_TURN, {}, now_ms()))
            )
            shards.add(inbox.shard_of(player.player_id))
        assert len(shards) > 1
        stop = asyncio.Event()
        running = asyncio.create_task(dispatcher.run(stop))
        got = await receiver.wait_for(len(ids))
        stop.set()
        await running
        await dispatcher.close()
    assert sorted(r.headers["teoti-notice-id"] for r in got) == sorted(ids)
