"""Rated games on a real Redis (issue 32, docs/ratings.md): the engine refuses a rated
game whose seats are not all distinct players' (a bot seat, one seat, a seat held by a
token alone, a player twice), names the rule, and creates nothing; a rated game's open
seat is joined by a player only, once; GameCreated v5 says the game is rated."""

from __future__ import annotations

import pytest

from services.engine.adapters import RedisEventStore
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rated import RATED_JOIN_RULE, RATED_SEATS_RULE, RatedSeatsInvalid
from services.engine.domain.ruleset import RuleViolation
from services.engine.domain.rulesets import RulesetRegistry
from tests.integration.ratings.helpers import ANN, BOB, player_seats, rig


async def test_game_created_says_the_game_is_rated(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    rated = await parts.engine.create_game("nim", player_seats([ANN, BOB]), {}, rated=True)
    unrated = await parts.engine.create_game("nim", player_seats([ANN, BOB]), {"max_take": 2})
    for game_id, expected in ((rated.game_id, True), (unrated.game_id, False)):
        [created] = await redis_store.read(game_id, 0, 1)
        assert (created.schema_version, created.payload["rated"]) == (5, expected)
        assert (await parts.reader.load(game_id)).rated is expected


@pytest.mark.parametrize(
    ("seats", "why"),
    [
        ([SeatSpec(SeatKind.HUMAN, "Ann", player=ANN), SeatSpec(SeatKind.BOT, "Robo")], "bot"),
        ([SeatSpec(SeatKind.HUMAN, "Ann", player=ANN)], "one seat"),
        (
            [SeatSpec(SeatKind.HUMAN, "Ann", player=ANN), SeatSpec(SeatKind.HUMAN, "T", "e" * 64)],
            "token",
        ),
        (player_seats([ANN, ANN]), "twice"),
    ],
)
async def test_a_rated_game_that_is_not_all_players_is_refused(
    redis_store: RedisEventStore,
    registry: RulesetRegistry,
    seats: list[SeatSpec],
    why: str,
) -> None:
    parts = rig(redis_store, registry)
    with pytest.raises(RatedSeatsInvalid) as refused:
        await parts.engine.create_game("nim", seats, {}, rated=True)
    assert refused.value.rule == RATED_SEATS_RULE, why
    assert RATED_SEATS_RULE in str(refused.value)
    assert await parts.reader.list_games(None, 10) == []  # nothing created


async def test_a_rated_game_s_open_seat_is_joined_by_a_player_only(
    redis_store: RedisEventStore, registry: RulesetRegistry
) -> None:
    parts = rig(redis_store, registry)
    seats = [*player_seats([ANN]), SeatSpec(SeatKind.HUMAN, "")]
    game_id = (await parts.engine.create_game("nim", seats, {}, rated=True)).game_id
    for token_hash, player in (("d" * 64, ""), ("", ANN)):
        with pytest.raises(RuleViolation) as refused:
            await parts.engine.join_game(game_id, 1, "Joiner", token_hash, player=player)
        assert refused.value.rule == RATED_JOIN_RULE
    assert (await parts.reader.load(game_id)).seats[1].is_open  # nothing changed
    await parts.engine.join_game(game_id, 1, "Bob", "", player=BOB)
    assert (await parts.reader.load(game_id)).seats[1].player == BOB
