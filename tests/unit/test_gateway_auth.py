"""The gateway's seat-token check may use a cached game: stale can refuse, never accept."""

from __future__ import annotations

import pytest

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.errors import InvalidArgument, NotAuthorized
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.reader import GameReader
from services.engine.domain.rulesets import RulesetRegistry
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


async def test_a_token_hashed_by_the_caller_is_checked_as_the_token(
    registry: RulesetRegistry,
) -> None:
    store = InMemoryEventStore()
    engine = Engine(store, registry, seed_source=fixed_seed("auth-hash"))
    seats = [SeatSpec(SeatKind.HUMAN, "ann", hash_token("ann-token")), SeatSpec(SeatKind.BOT, "b")]
    game = (await engine.create_game("nim", seats, {})).game_id
    reader = GameReader(store, registry)
    await authorize_seat(reader, game, 0, "ann-token", hash_token("ann-token"))
    for seat, token in [(0, "bob-token"), (1, "ann-token"), (0, "")]:
        with pytest.raises(NotAuthorized):
            await authorize_seat(reader, game, seat, token, hash_token(token))
    snapshot = await reader.load(game)
    assert snapshot.seats[0].accepts_hash(hash_token("ann-token"))
    assert not snapshot.seats[0].accepts_hash(hash_token("bob-token"))
    assert not snapshot.seats[1].accepts_hash(hash_token(""))  # a bot seat has no hash
