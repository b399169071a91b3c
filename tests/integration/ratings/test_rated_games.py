"""Rated games outside tournaments on a real Redis (issue 32, docs/ratings.md): the
engine refuses a rated game that is not all players', a finished rated game moves its
players' ratings once (winner up) and leaves history entries, every seated player gets
a ``game_finished`` notice (with ``rating_change`` only when rated), a redelivered
finished game rates and tells nothing twice, an unrated game rates nothing, and the
director hands finished games no tournament owns to the rater."""

from __future__ import annotations

import uuid

from services.engine.adapters import RedisEventStore
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.transport.client import InProcessEngineClient
from services.notices.notice import NoticeKind
from services.tournament.conductor import Conductor
from services.tournament.director import Director, GameFinishedQueue
from services.tournament.ratings_book import account_identity
from services.tournament.repository import TournamentRepository
from tests.integration.ratings.helpers import (
    ANN,
    BOB,
    CAT,
    play_out,
    player_seats,
    rig,
    winner_of,
)


async def test_a_rated_game_moves_ratings_once_and_tells_its_players(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    created = await parts.engine.create_game("nim", player_seats([ANN, BOB]), {}, rated=True)
    game_id = created.game_id
    assert (await parts.reader.load(game_id)).rated
    await play_out(parts.engine, parts.reader, game_id, winner=1)
    winner = await winner_of(parts.reader, game_id)
    first, second = (BOB, ANN) if winner == 1 else (ANN, BOB)

    await parts.rater.games_finished([game_id])

    top = await parts.book.rating("nim", account_identity(first))
    low = await parts.book.rating("nim", account_identity(second))
    assert top is not None and low is not None
    assert top.games == low.games == 1
    assert top.mu > 25.0 > low.mu and top.ordinal > low.ordinal
    [entry] = await parts.book.history("nim", account_identity(first))
    assert (entry.game_id, entry.ruleset, entry.place) == (game_id, "nim", 1)
    assert entry.before.games == 0 and entry.after == top and entry.at
    [lost] = await parts.book.history("nim", account_identity(second))
    assert lost.place == 2 and lost.after == low

    [won_notice] = await parts.inbox.since(first)
    assert won_notice.kind is NoticeKind.GAME_FINISHED
    change = won_notice.data["rating_change"]
    assert won_notice.data["place"] == 1 and won_notice.data["game_id"] == game_id
    assert change["after"] == round(top.ordinal) and change["games"] == 1
    assert change["change"] == change["after"] - change["before"]
    [lost_notice] = await parts.inbox.since(second)
    assert lost_notice.data["place"] == 2
    assert lost_notice.data["rating_change"]["after"] == round(low.ordinal)

    # Redelivered (a director died before its ack): nothing rated or told twice.
    await parts.rater.games_finished([game_id, game_id])
    assert await parts.book.rating("nim", account_identity(first)) == top
    assert len(await parts.book.history("nim", account_identity(first))) == 1
    assert len(await parts.inbox.since(first)) == 1


async def test_notices_lost_before_their_mark_are_sent_on_redelivery_with_the_change(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    game_id = (
        await parts.engine.create_game("nim", player_seats([ANN, BOB]), {}, rated=True)
    ).game_id
    await play_out(parts.engine, parts.reader, game_id, winner=0)
    outcome = await parts.rater.game_finished(game_id)
    assert outcome is not None and outcome.rated
    # As if the rater died after rating, before its notices: the mark is not there.
    await redis_store.client.delete(f"{redis_store.keys.prefix}:finished-noticed:{game_id}")
    for player in (ANN, BOB):
        await redis_store.client.delete(parts.inbox.key(player))
    await parts.rater.games_finished([game_id])
    assert (await parts.book.rating("nim", account_identity(ANN)) or 0) != 0
    for player in (ANN, BOB):
        [notice] = await parts.inbox.since(player)
        assert notice.data["rating_change"]["games"] == 1


async def test_an_unrated_game_tells_its_players_and_rates_nothing(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    seats = [*player_seats([ANN]), SeatSpec(SeatKind.HUMAN, "Guest", "f" * 64)]
    game_id = (await parts.engine.create_game("nim", seats, {})).game_id
    await play_out(parts.engine, parts.reader, game_id, winner=0)
    await parts.rater.games_finished([game_id])
    assert await parts.book.ratings("nim") == {}
    assert await parts.book.history("nim", account_identity(ANN)) == []
    [notice] = await parts.inbox.since(ANN)
    assert notice.kind is NoticeKind.GAME_FINISHED and "rating_change" not in notice.data
    assert notice.data == {
        "game_id": game_id,
        "ruleset": "nim",
        "seat": 0,
        "place": 1 if await winner_of(parts.reader, game_id) == 0 else 2,
    }


async def test_a_resigned_seat_is_rated_last(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    game_id = (
        await parts.engine.create_game("nim", player_seats([ANN, BOB, CAT]), {}, rated=True)
    ).game_id
    await parts.engine.resign_seat(game_id, 1)
    await play_out(parts.engine, parts.reader, game_id, winner=0)
    await parts.rater.games_finished([game_id])
    [bob] = await parts.book.history("nim", account_identity(BOB))
    assert bob.place == 3
    assert {
        e.place for p in (ANN, CAT) for e in await parts.book.history("nim", account_identity(p))
    } == {1, 2}


async def test_the_director_hands_finished_games_to_the_rater_once(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    queue = GameFinishedQueue(redis_store.client, redis_store.keys, f"t-{uuid.uuid4().hex[:8]}")
    conductor = Conductor(
        TournamentRepository(redis_store),
        InProcessEngineClient(parts.engine),
        parts.reader,
        parts.book,
    )
    director = Director(queue, conductor, sweep_s=0, others=parts.rater)
    await queue.ensure_group()
    game_id = (
        await parts.engine.create_game("nim", player_seats([ANN, BOB]), {}, rated=True)
    ).game_id
    await play_out(parts.engine, parts.reader, game_id, winner=0)

    entries = []
    for streams in queue.stream_groups():
        entries += await queue.read(streams, 64, 100)
    assert [note.game_id for _s, _i, note in entries if note] == [game_id]
    await director.handle_all(entries)
    await director.handle_all(entries)  # a redelivery
    assert (await parts.book.rating("nim", account_identity(ANN)) or None) is not None
    assert len(await parts.book.history("nim", account_identity(BOB))) == 1
    assert len(await parts.inbox.since(BOB)) == 1


async def test_a_game_no_player_can_sit_in_is_passed_over(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    seats = [SeatSpec(SeatKind.HUMAN, "T", "e" * 64), SeatSpec(SeatKind.HUMAN, "U", "f" * 64)]
    game_id = (await parts.engine.create_game("nim", seats, {})).game_id
    await play_out(parts.engine, parts.reader, game_id, winner=0)
    fresh = rig(redis_store, registry).rater  # nothing cached: read from the first event
    assert await fresh.game_finished(game_id) is None
    assert await parts.rater.game_finished(game_id) is None  # from the game as cached
    assert (
        await redis_store.client.exists(f"{redis_store.keys.prefix}:finished-noticed:{game_id}")
        == 0
    )
