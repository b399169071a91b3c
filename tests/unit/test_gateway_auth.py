"""The gateway's seat-token check may use a cached game: stale can refuse, never accept."""

from __future__ import annotations

import pytest

from services.engine.clock import fixed_seed
from services.engine.engine import Engine
from services.engine.errors import InvalidArgument, NotAuthorized
from services.engine.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.reader import GameReader
from services.engine.rulesets import RulesetRegistry
from services.engine.store import InMemoryEventStore
from services.gateway.servicer import authorize_seat


async def test_a_seat_claimed_since_the_cache_is_checked_on_the_log(
    registry: RulesetRegistry,
) -> None:
    store = InMemoryEventStore()
    engine = Engine(store, registry, seed_source=fixed_seed("auth"))
    seats = [
        SeatSpec(SeatKind.HUMAN, "ann", hash_token("ann-token")),
        SeatSpec(SeatKind.HUMAN, ""),
        SeatSpec(SeatKind.BOT, "bot"),
    ]
    game = (await engine.create_game("nim", seats, {})).game_id
    reader = GameReader(store, registry)  # its own cache, as in a separate gateway
    await reader.load(game)
    await engine.join_game(game, 1, "bob", hash_token("bob-token"))
    cached = reader.cached(game)
    assert cached is not None and cached.seats[1].is_open  # the cache is behind
    await authorize_seat(reader, game, 0, "ann-token")
    await authorize_seat(reader, game, 1, "bob-token")  # refused on the cache, not the log
    for seat, token in [(0, "bob-token"), (1, "ann-token"), (1, ""), (2, "ann-token")]:
        with pytest.raises(NotAuthorized):
            await authorize_seat(reader, game, seat, token)
    with pytest.raises(InvalidArgument):
        await authorize_seat(reader, game, 3, "ann-token")
