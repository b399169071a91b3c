"""Matchmaking state in a real Redis (services.matchmaking.redis_pool and matcher), from
the issue: no player is ever placed at two tables for one request, cancelling is
immediate, several matchers (gateways) can run at once, and a restart loses nothing."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.engine.adapters.redis_client import RedisClient
from services.matchmaking.matcher import Matcher
from services.matchmaking.matching import Table, propose_tables
from services.matchmaking.redis_pool import RedisSeekPool
from services.matchmaking.seeks import RatingWindow, Seek

NOW = 1_700_000_000_000


def seek(n: int, *, seats: tuple[int, int] = (2, 2), rating: float = 0.0, pool: str = "ruleset-a",
         player: str | None = None, waited_s: float = 0.0) -> Seek:  # fmt: skip
    return Seek(
        seek_id=f"seek-{n}",
        player=player or f"player-{n}",
        ruleset=pool,
        min_seats=seats[0],
        max_seats=seats[1],
        rated=True,
        time_control="",
        rating=rating,
        window=RatingWindow(5.0, 0.5),
        created_ms=NOW - int(waited_s * 1000),
    )


@pytest.fixture
def pool(redis_client: RedisClient, key_prefix: str) -> RedisSeekPool:
    return RedisSeekPool(redis_client, key_prefix)


async def test_a_seek_waits_until_a_partner_comes(pool: RedisSeekPool) -> None:
    matcher = Matcher(pool, lambda: NOW, holder="m")
    assert (await pool.add(seek(1))).status == "added"
    assert await matcher.pass_once() == []
    assert (await pool.add(seek(2))).status == "added"
    placed = await matcher.pass_once()
    assert [p.seek_ids for p in placed] == [("seek-1", "seek-2")]
    assert await pool.waiting(seek(1).pool) == []
    entries = await pool._redis.xrange(pool.tables_key(seek(1).pool))
    table = json.loads(entries[0][1]["table"])
    assert table["table_id"] == placed[0].table_id
    assert [s["player"] for s in table["seeks"]] == ["player-1", "player-2"]


async def test_a_player_waits_once_per_pool_and_a_retry_is_recognised(pool: RedisSeekPool) -> None:
    assert (await pool.add(seek(1))).status == "added"
    again = await pool.add(seek(1))
    assert (again.status, again.seek_id) == ("waiting", "seek-1")
    other = await pool.add(seek(9, player="player-1"))
    assert (other.status, other.seek_id) == ("waiting", "seek-1")
    await pool.add(seek(2))
    await Matcher(pool, lambda: NOW, holder="m").pass_once()
    retried = await pool.add(seek(1))
    assert retried.status == "placed" and retried.table_id


async def test_cancelling_is_immediate_and_too_late_says_where(pool: RedisSeekPool) -> None:
    await pool.add(seek(1))
    assert (await pool.cancel(seek(1).pool, "seek-1", "player-2")).status == "unknown"
    assert (await pool.cancel(seek(1).pool, "seek-1", "player-1")).status == "cancelled"
    await pool.add(seek(2))
    assert await Matcher(pool, lambda: NOW, holder="m").pass_once() == []
    await pool.add(seek(3))
    placed = await Matcher(pool, lambda: NOW, holder="m").pass_once()
    late = await pool.cancel(seek(2).pool, "seek-2", "player-2")
    assert (late.status, late.table_id) == ("placed", placed[0].table_id)


async def test_a_table_is_placed_only_if_every_seek_still_waits(pool: RedisSeekPool) -> None:
    one, two = seek(1), seek(2)
    await pool.add(one)
    await pool.add(two)
    await pool.cancel(one.pool, one.seek_id, one.player)
    assert await pool.place(Table((one, two))) is None
    assert [s.seek_id for s in await pool.waiting(one.pool)] == ["seek-2"]


async def test_matchers_racing_never_seat_a_seek_twice(
    redis_client: RedisClient, key_prefix: str
) -> None:
    gateways = [RedisSeekPool(redis_client, key_prefix) for _ in range(3)]
    seeks = [
        seek(
            n,
            seats=(2, 4),
            rating=(n * 7) % 40,
            pool=("ruleset-a", "ruleset-b")[n % 2],
            waited_s=n % 50,
        )
        for n in range(300)
    ]
    for start in range(0, len(seeks), 30):
        chunk = enumerate(seeks[start : start + 30], start)
        await asyncio.gather(*(gateways[n % 3].add(s) for n, s in chunk))
    # Three matchers, each holding its own lease name, pass at once, several times; the
    # leases expire at once to force overlapping passes over one pool.
    matchers = [Matcher(g, lambda: NOW + 600_000, holder=f"m{i}") for i, g in enumerate(gateways)]
    placed = []
    for _ in range(4):
        for batch in await asyncio.gather(*(m.pass_once() for m in matchers)):
            placed.extend(batch)
        for p in await gateways[0].pools():
            await redis_client.delete(gateways[0]._key(p, "lease"))
    seated = [seek_id for table in placed for seek_id in table.seek_ids]
    assert len(seated) == len(set(seated))
    left = [s for p in await gateways[0].pools() for s in await gateways[0].waiting(p)]
    assert len(seated) + len(left) == len(seeks)
    assert len(seated) >= 290


async def test_a_restarted_gateway_finds_every_waiting_seek(
    redis_client: RedisClient, key_prefix: str
) -> None:
    await RedisSeekPool(redis_client, key_prefix).add(seek(1))
    restarted = RedisSeekPool(redis_client, key_prefix)
    await restarted.add(seek(2))
    placed = await Matcher(restarted, lambda: NOW, holder="m").pass_once()
    assert [p.seek_ids for p in placed] == [("seek-1", "seek-2")]


async def test_the_run_loop_places_and_stops(pool: RedisSeekPool) -> None:
    await pool.add(seek(1))
    await pool.add(seek(2))
    stop = asyncio.Event()
    loop = asyncio.create_task(Matcher(pool, lambda: NOW, holder="m").run(stop, tick_s=0.01))
    for _ in range(500):
        if not await pool.waiting(seek(1).pool):
            break
        await asyncio.sleep(0.01)
    stop.set()
    await loop
    assert await pool.waiting(seek(1).pool) == []


async def test_overlapping_proposals_placed_at_once_seat_each_seek_once(
    redis_client: RedisClient, key_prefix: str
) -> None:
    # Without leases: three gateways propose from one snapshot at different moments (so
    # their windows, and tables, differ and overlap) and place everything concurrently.
    gateways = [RedisSeekPool(redis_client, key_prefix) for _ in range(3)]
    seeks = [seek(n, seats=(2, 3), rating=(n * 13) % 60, waited_s=n % 30) for n in range(120)]
    for start in range(0, len(seeks), 30):
        await asyncio.gather(*(gateways[0].add(s) for s in seeks[start : start + 30]))
    snapshot = await gateways[0].waiting(seeks[0].pool)
    proposals = [propose_tables(snapshot, NOW + lag) for lag in (0, 20_000, 90_000)]
    assert proposals[0] != proposals[2]
    attempts = [(g, t) for g, tables in zip(gateways, proposals, strict=True) for t in tables]
    results = await asyncio.gather(*(g.place(t) for g, t in attempts))
    won = [t for (_g, t), tid in zip(attempts, results, strict=True) if tid is not None]
    seated = [s.seek_id for t in won for s in t.seeks]
    assert len(seated) == len(set(seated))
    assert len(won) < len(attempts)  # some proposals lost: they overlapped
    left = await gateways[0].waiting(seeks[0].pool)
    assert len(seated) + len(left) == len(seeks)


async def test_queue_sizes_count_the_seeks_waiting_and_the_oldest(pool: RedisSeekPool) -> None:
    """What /metrics shows of the matchmaker (issue 34): seeks waiting in every pool,
    the pools with one, and when the oldest was made; a placed or cancelled seek leaves."""
    assert await pool.queue_sizes() == (0, 0, None)
    await pool.add(seek(1, waited_s=30))
    await pool.add(seek(2, pool="ruleset-b", seats=(3, 3), waited_s=5))
    await pool.add(seek(3, pool="ruleset-b", seats=(3, 3)))
    assert await pool.queue_sizes() == (3, 2, NOW - 30_000)
    await pool.cancel(seek(1).pool, "seek-1", "player-1")
    assert await pool.queue_sizes() == (2, 1, NOW - 5_000)
    await pool.add(seek(4, pool="ruleset-b", seats=(3, 3)))
    await Matcher(pool, lambda: NOW, holder="m").pass_once()
    assert await pool.queue_sizes() == (0, 0, None)
