"""Player streams against a real Redis (services.notices): a notice posted reaches every
open stream of its player, none of another; a stream resumes after a disconnect without
missing or repeating a notice; a stalled stream is dropped, not waited for; idle streams
share one read loop per shard."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from services.engine.adapters.redis_client import RedisClient
from services.notices.hub import NoticeHub
from services.notices.inbox import INBOX_MAXLEN, RedisInbox
from services.notices.notice import MAX_DATA_BYTES, Notice, NoticeInvalid, NoticeKind
from services.rpc.limits import WatcherTooSlow

WAIT_S = 10.0
"""Upper bound for a delivery to arrive (never reached when things work)."""


@pytest.fixture
def inbox(redis_client: RedisClient, key_prefix: str) -> RedisInbox:
    return RedisInbox(redis_client, key_prefix, shards=4)


@pytest.fixture
async def hub(inbox: RedisInbox) -> AsyncIterator[NoticeHub]:
    notices = NoticeHub(inbox, block_ms=50, buffer=8)
    yield notices
    await notices.close()


def turn(game: str, version: int) -> Notice:
    return Notice(NoticeKind.YOUR_TURN, {"game_id": game, "version": version}, at_ms=1)


async def take(stream: AsyncIterator[Notice], n: int) -> list[Notice]:
    got = []
    async with asyncio.timeout(WAIT_S):
        while len(got) < n:
            got.append(await anext(stream))
    return got


async def test_a_posted_notice_reaches_every_stream_of_its_player_only(
    inbox: RedisInbox, hub: NoticeHub
) -> None:
    ann_1, ann_2, bob = hub.follow("ann"), hub.follow("ann"), hub.follow("bob")
    readers = [asyncio.create_task(take(s, 1)) for s in (ann_1, ann_2)]
    bob_reader = asyncio.create_task(take(bob, 1))
    await asyncio.sleep(0.2)  # the streams are open (no assertion rests on this)
    posted = await inbox.post("ann", turn("g1", 3))
    for got in await asyncio.gather(*readers):
        assert [(n.notice_id, n.kind, n.data) for n in got] == [
            (posted, NoticeKind.YOUR_TURN, {"game_id": "g1", "version": 3})
        ]
    assert not bob_reader.done()
    bob_reader.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await bob_reader
    for stream in (ann_1, ann_2, bob):
        await stream.aclose()
    assert hub.streams == 0


async def test_a_stream_resumes_after_a_disconnect_without_a_gap_or_a_repeat(
    inbox: RedisInbox, hub: NoticeHub
) -> None:
    stream = hub.follow("cat")
    reader = asyncio.create_task(take(stream, 2))
    await asyncio.sleep(0.1)
    await inbox.post("cat", turn("g1", 1))
    await inbox.post("cat", turn("g1", 2))
    first = await reader
    await stream.aclose()  # the redis_client goes away...
    await inbox.post("cat", turn("g1", 3))  # ...notices come meanwhile...
    await inbox.post("cat", turn("g2", 1))
    resumed = hub.follow("cat", after=first[-1].notice_id)  # ...and it comes back.
    reader = asyncio.create_task(take(resumed, 3))
    await asyncio.sleep(0.1)
    await inbox.post("cat", turn("g2", 2))
    again = await reader
    await resumed.aclose()
    versions = [(n.data["game_id"], n.data["version"]) for n in [*first, *again]]
    assert versions == [("g1", 1), ("g1", 2), ("g1", 3), ("g2", 1), ("g2", 2)]


async def test_from_the_start_a_stream_gives_every_kept_notice(
    inbox: RedisInbox, hub: NoticeHub
) -> None:
    for version in range(5):
        await inbox.post("dan", turn("g", version))
    stream = hub.follow("dan")
    got = await take(stream, 5)
    await stream.aclose()
    assert [n.data["version"] for n in got] == [0, 1, 2, 3, 4]


async def test_a_stalled_stream_is_dropped_and_others_go_on(
    inbox: RedisInbox, hub: NoticeHub
) -> None:
    stalled, live = hub.follow("eve"), hub.follow("eve")
    stalled_first = asyncio.create_task(take(stalled, 1))
    live_reader = asyncio.create_task(take(live, 20))
    await asyncio.sleep(0.2)
    for version in range(20):
        await inbox.post("eve", turn("g", version))
        await asyncio.sleep(0.01)
    assert len(await live_reader) == 20
    await stalled_first
    with pytest.raises(WatcherTooSlow):
        async with asyncio.timeout(WAIT_S):
            while True:
                await anext(stalled)
    await live.aclose()


async def test_idle_streams_share_one_read_loop_per_shard(hub: NoticeHub) -> None:
    streams = [hub.follow(f"player-{n}") for n in range(40)]
    readers = [asyncio.create_task(anext(s)) for s in streams]
    await _all_open(hub, 40)
    assert hub.read_loops <= 4
    for reader in readers:
        reader.cancel()
    assert await _all_ended(readers)
    for stream in streams:
        await stream.aclose()


async def _all_open(hub: NoticeHub, count: int) -> None:
    """Wait (bounded) until ``count`` streams are subscribed: each reads its backlog
    first, which takes a while on a busy machine (a fixed sleep would race)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            if hub.streams == count:
                return
            await asyncio.sleep(0.005)


async def _all_ended(readers: list[asyncio.Task[Notice]]) -> bool:
    """Every cancelled reader ended cancelled within WAIT_S (none waits on)."""
    _done, pending = await asyncio.wait(readers, timeout=WAIT_S)
    return not pending and all(reader.cancelled() for reader in readers)


async def test_streams_cancelled_as_they_open_all_end(hub: NoticeHub) -> None:
    # A client gone as its stream opens. The Redis client's blocking pool (redis-py
    # 8.2) can swallow a cancellation that lands as a command completes: the stream
    # then went on to wait for notices for ever, holding its subscription (found by
    # the players story, issue 32). Many streams, cancelled at several moments.
    for attempt in range(12):
        streams = [hub.follow(f"p{attempt}-{n}") for n in range(40)]
        readers = [asyncio.create_task(anext(s)) for s in streams]
        await asyncio.sleep(0.002 * (attempt % 6))
        for reader in readers:
            reader.cancel()
        assert await _all_ended(readers), f"a stream went on after its cancel ({attempt})"
        assert hub.streams == 0


async def test_inboxes_are_capped_and_notices_bounded(
    inbox: RedisInbox, redis_client: RedisClient
) -> None:
    with pytest.raises(NoticeInvalid):
        await inbox.post("fay", Notice(NoticeKind.MATCH_FOUND, {"x": "y" * MAX_DATA_BYTES}, 1))
    for version in range(INBOX_MAXLEN + 300):
        await inbox.post("fay", turn("g", version))
    assert await redis_client.xlen(inbox.key("fay")) < INBOX_MAXLEN + 300
