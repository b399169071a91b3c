"""WatchPlayer over gRPC against a real ``all_in_one`` stack and Redis (issue 32): a
player's stream carries its own notices only, resumes after a disconnect without a gap
or a repeat, refuses a revoked (or no) credential, ends at the next notice once the
credential is revoked, and refuses a cursor that is no notice id."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from teoti_client import InvalidArgument, NotAuthorized, PlayerNotice, TeotiClient
from teoti_client.proto import player_service_pb2 as pb
from teoti_client.proto import player_service_pb2_grpc as pb_grpc

from services.app import Stack
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind

WAIT_S = 10.0
"""Upper bound for a delivery (never reached when things work)."""


@pytest.fixture
def inbox(stack: Stack) -> RedisInbox:
    return RedisInbox(stack.store.client, stack.store.keys.prefix)


def turn(game: str, version: int) -> Notice:
    return Notice(
        NoticeKind.YOUR_TURN,
        {"game_id": game, "ruleset": "nim", "seat": 0, "version": version},
        at_ms=1,
    )


async def take(stream: AsyncIterator[PlayerNotice], n: int) -> list[PlayerNotice]:
    got = []
    async with asyncio.timeout(WAIT_S):
        while len(got) < n:
            got.append(await anext(stream))
    return got


async def test_a_stream_carries_its_players_notices_backlog_then_live(
    client: TeotiClient, inbox: RedisInbox
) -> None:
    ann = await client.register_player("Ann")
    bob = await client.register_player("Bob")
    first = await inbox.post(ann.player.player_id, turn("g1", 2))
    await inbox.post(bob.player.player_id, turn("g9", 5))  # never on Ann's stream
    stream = client.watch_player(ann.credential)
    (backlog,) = await take(stream, 1)
    assert (backlog.notice_id, backlog.kind, backlog.v) == (first, "your_turn", 1)
    assert backlog.data == {"game_id": "g1", "ruleset": "nim", "seat": 0, "version": 2}
    live = asyncio.create_task(take(stream, 2))
    await asyncio.sleep(0.1)  # the stream is live (a later post is caught either way)
    await inbox.post(bob.player.player_id, turn("g9", 7))
    second = await inbox.post(ann.player.player_id, turn("g1", 4))
    third = await inbox.post(ann.player.player_id, turn("g1", 6))
    got = await live
    assert [n.notice_id for n in got] == [second, third]
    assert [n.data["game_id"] for n in got] == ["g1", "g1"]
    await stream.aclose()


async def test_opened_is_called_once_the_server_answered_before_any_notice(
    client: TeotiClient, inbox: RedisInbox
) -> None:
    ann = await client.register_player("Ann")
    live = asyncio.Event()
    seen: list[bool] = []  # was the stream live when each notice arrived?

    async def read() -> PlayerNotice:
        async for notice in client.watch_player(ann.credential, opened=live.set):
            seen.append(live.is_set())
            return notice
        raise AssertionError("the stream ended")

    reading = asyncio.create_task(read())
    async with asyncio.timeout(WAIT_S):
        await live.wait()  # no notice yet: the inbox is empty
    posted = await inbox.post(ann.player.player_id, turn("g1", 2))
    async with asyncio.timeout(WAIT_S):
        got = await reading
    assert (got.notice_id, seen) == (posted, [True])


async def test_a_stream_resumes_after_a_disconnect_with_no_gap_and_no_repeat(
    client: TeotiClient, inbox: RedisInbox
) -> None:
    ann = await client.register_player("Ann")
    player = ann.player.player_id
    await inbox.post(player, turn("g1", 2))
    stream = client.watch_player(ann.credential)
    (seen,) = await take(stream, 1)
    await stream.aclose()  # disconnected
    missed = [await inbox.post(player, turn("g1", v)) for v in (4, 6, 8)]
    resumed = client.watch_player(ann.credential, after=seen.notice_id)
    got = await take(resumed, 3)
    assert [n.notice_id for n in got] == missed
    later = await inbox.post(player, turn("g1", 10))
    (live,) = await take(resumed, 1)
    assert live.notice_id == later
    await resumed.aclose()


async def test_no_or_a_revoked_credential_cannot_open_a_stream(
    client: TeotiClient, stack: Stack
) -> None:
    ann = await client.register_player("Ann")
    info, phone = await client.create_player_credential(ann.credential, label="phone")
    await client.revoke_player_credential(ann.credential, info.credential_id)
    with pytest.raises(NotAuthorized) as refused:
        await anext(client.watch_player(phone))
    assert refused.value.reason == "player_credential_invalid"
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
        call = pb_grpc.PlayerServiceStub(channel).WatchPlayer(pb.WatchPlayerRequest())
        with pytest.raises(grpc.aio.AioRpcError) as bare:
            await call.read()
    assert bare.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_a_revoked_credential_ends_its_open_stream_at_the_next_notice(
    client: TeotiClient, inbox: RedisInbox
) -> None:
    ann = await client.register_player("Ann")
    info, phone = await client.create_player_credential(ann.credential, label="phone")
    player = ann.player.player_id
    await inbox.post(player, turn("g1", 2))
    stream = client.watch_player(phone)
    await take(stream, 1)
    await client.revoke_player_credential(ann.credential, info.credential_id)
    await inbox.post(player, turn("g1", 4))  # not for a revoked credential
    with pytest.raises(NotAuthorized) as ended:
        await take(stream, 1)
    assert ended.value.reason == "player_credential_invalid"


# The largest stream id: nothing can follow it (Redis itself refuses it as a range's
# exclusive start, which reached clients as INTERNAL).
LAST_ID = f"{2**64 - 1}-{2**64 - 1}"


@pytest.mark.parametrize("after", ["x", "1-2-3", "-", "9" * 60, "12-", LAST_ID])
async def test_a_cursor_that_is_no_notice_id_is_refused(client: TeotiClient, after: str) -> None:
    ann = await client.register_player("Ann")
    with pytest.raises(InvalidArgument) as refused:
        await anext(client.watch_player(ann.credential, after=after))
    assert refused.value.reason == "notice_cursor"
