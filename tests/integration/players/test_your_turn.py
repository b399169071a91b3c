"""``your_turn`` notices against a real ``all_in_one`` stack and Redis (issue 32): seats
bound to players get one notice per (game, version, seat) when their turn comes (game
creation, a join, a move, a resignation), on their own player's stream only; a
redelivered player turn posts nothing twice; a game with token seats only publishes no
player turn and costs no Redis write more."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from teoti_client import PlayerNotice, SeatInfo, TeotiClient

from services.app import Stack
from services.engine.domain.records import PlayerTurn
from services.notices.inbox import RedisInbox
from services.notices.notifier import GROUP, Notifier

WAIT_S = 10.0
"""Upper bound for a delivery (never reached when things work)."""


async def take(stream: AsyncIterator[PlayerNotice], n: int) -> list[PlayerNotice]:
    got = []
    async with asyncio.timeout(WAIT_S):
        while len(got) < n:
            got.append(await anext(stream))
    return got


async def quiet(stream: AsyncIterator[PlayerNotice], seconds: float = 0.5) -> list[PlayerNotice]:
    """Notices arriving within ``seconds`` (a check that none comes)."""
    got: list[PlayerNotice] = []
    try:
        async with asyncio.timeout(seconds):
            while True:
                got.append(await anext(stream))
    except TimeoutError:
        return got


def turn_of(notice: PlayerNotice) -> tuple[str, int, int]:
    assert notice.kind == "your_turn"
    return (str(notice.data["game_id"]), int(notice.data["seat"]), int(notice.data["version"]))


async def two_player_game(client: TeotiClient) -> tuple[str, str, str]:
    """A Nim game with seat 0 bound to Ann (its creator) and seat 1 to Bob (joined):
    (game id, Ann's credential, Bob's credential)."""
    ann = (await client.register_player("Ann")).credential
    bob = (await client.register_player("Bob")).credential
    created = await client.create_game(
        [SeatInfo("human", "", bind_to_caller=True), SeatInfo("human", "", open=True)],
        ruleset="nim",
        credential=ann,
    )
    await client.join_game(created.game_id, 1, "", credential=bob)
    return created.game_id, ann, bob


async def test_each_player_gets_your_turn_when_their_seat_must_act(client: TeotiClient) -> None:
    game, ann, bob = await two_player_game(client)
    ann_stream, bob_stream = client.watch_player(ann), client.watch_player(bob)
    (first,) = await take(ann_stream, 1)  # from the game's creation: Nim's seat 0 starts
    assert turn_of(first)[:2] == (game, 0)
    assert first.data["ruleset"] == "nim" and "deadline_ms" not in first.data
    moved = await client.submit_action(game, 0, ann, {"take": 1})
    (bobs,) = await take(bob_stream, 1)
    assert turn_of(bobs) == (game, 1, moved.version)
    again = await client.submit_action(game, 1, bob, {"take": 2})
    (anns,) = await take(ann_stream, 1)
    assert turn_of(anns) == (game, 0, again.version)
    assert await quiet(bob_stream) == []  # Ann's turn is never on Bob's stream
    await ann_stream.aclose()
    await bob_stream.aclose()


async def test_a_join_that_makes_the_seat_one_to_act_tells_its_player(
    client: TeotiClient,
) -> None:
    ann = (await client.register_player("Ann")).credential
    created = await client.create_game(
        [SeatInfo("human", "", open=True), SeatInfo("human", "bob", token="t" * 32)],
        ruleset="nim",
    )
    joined = await client.join_game(created.game_id, 0, "", credential=ann)
    assert joined == ""
    (notice,) = await take(client.watch_player(ann), 1)
    view = await client.get_game(created.game_id)  # the join (SeatJoined) is the last event
    assert turn_of(notice) == (created.game_id, 0, view.version)
    assert view.version == created.version + 1


async def test_a_resignation_ends_the_game_and_tells_nobody_to_play(
    client: TeotiClient, stack: Stack
) -> None:
    ann = (await client.register_player("Ann")).credential
    bob = (await client.register_player("Bob")).credential
    created = await client.create_game(
        [SeatInfo("human", "", bind_to_caller=True), SeatInfo("human", "", open=True)],
        ruleset="nim",
        credential=ann,
    )
    game = created.game_id
    await client.join_game(game, 1, "", credential=bob)
    bob_stream = client.watch_player(bob)
    await client.resign(game, 0, ann)  # the seat's player credential acts for it
    # A 2-seat game ends: nobody's turn (game_finished may come: it is no turn).
    assert [n for n in await quiet(bob_stream) if n.kind == "your_turn"] == []
    inbox = RedisInbox(stack.store.client, stack.store.keys.prefix)
    ann_notices = await inbox.since((await client.my_player(ann))[0].player_id)
    assert len([n for n in ann_notices if n.kind == "your_turn"]) == 1


async def test_a_redelivered_player_turn_posts_nothing_twice(stack: Stack) -> None:
    store = stack.store
    inbox = RedisInbox(store.client, store.keys.prefix)
    turn = PlayerTurn("g-redelivered", 1, 7, "p1", "nim")
    stream = store.keys.player_turns(0)
    quiet_notifier = Notifier(store.client, store.keys, inbox, consumer="test-consumer")
    await quiet_notifier.ensure_group()
    # Two deliveries of one turn (a notifier died between its post and its ack).
    entries: list[Any] = [("1-1", turn.to_fields()), ("1-2", turn.to_fields())]
    await quiet_notifier.handle(stream, entries[:1])
    await quiet_notifier.handle(stream, entries[1:])
    posted = await inbox.since("p1")
    assert [(n.data["game_id"], n.data["version"]) for n in posted] == [("g-redelivered", 7)]
    assert quiet_notifier.posted == 1
    assert GROUP == "notifiers"


async def _xadd_calls(stack: Stack) -> int:
    stats: Any = await stack.store.client.info("commandstats")
    return int(stats.get("cmdstat_xadd", {}).get("calls", 0))


async def _player_turns_added(stack: Stack) -> list[str]:
    """Each shard's player-turns stream's last id ever given (entries are deleted once
    posted, so the length says nothing; "0-0": never written)."""
    ids = []
    for shard in range(stack.store.keys.shards):
        info: Any = await stack.store.client.xinfo_stream(stack.store.keys.player_turns(shard))
        ids.append(str(info["last-generated-id"]))
    return ids


async def test_a_game_with_token_seats_only_publishes_no_player_turn(
    client: TeotiClient, stack: Stack
) -> None:
    await asyncio.sleep(0.2)  # the notifier has made its group (and streams)
    ann, bob = "a" * 32, "b" * 32
    turns_before = await _player_turns_added(stack)
    xadds_before = await _xadd_calls(stack)
    created = await client.create_game(
        [SeatInfo("human", "ann", token=ann), SeatInfo("human", "bob", token=bob)], ruleset="nim"
    )
    first = await client.submit_action(created.game_id, 0, ann, {"take": 1})
    second = await client.submit_action(created.game_id, 1, bob, {"take": 1})
    # Redis counts the XADDs its scripts make: the events' own, and not one more.
    assert await _xadd_calls(stack) - xadds_before == second.version
    assert first.version < second.version
    assert await _player_turns_added(stack) == turns_before
    keys = [k async for k in stack.store.client.scan_iter(match=f"{stack.store.keys.prefix}:*")]
    # No inbox, bell or marker: only the webhook dispatcher's own leases live there.
    assert not [k for k in keys if "{inbox:" in str(k) and ":webhook-lease" not in str(k)]
