"""Which player seats an append tells it is their turn (services.engine.domain.
player_turns), over the in-memory store with the Nim test ruleset: every time a seat
bound to a player must act, its player was told since it last became one to act, once
per (game, version, seat); bot seats, seats a bot plays, seats bound to nobody and
ended games are told nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.records import PlayerTurn
from services.engine.domain.rulesets import RulesetRegistry


def make_engine(registry: RulesetRegistry) -> Engine:
    return Engine(
        InMemoryEventStore(),
        registry,
        clock=lambda: datetime(2024, 5, 1, tzinfo=UTC),
        seed_source=fixed_seed("s1"),
    )


def turns(engine: Engine) -> list[PlayerTurn]:
    store = engine.store
    assert isinstance(store, InMemoryEventStore)
    return list(store.player_turns)


def seat(player: str) -> SeatSpec:
    return SeatSpec(SeatKind.HUMAN, player or "anon", token_hash="h" * 64, player=player)


async def test_creation_and_moves_tell_the_player_whose_seat_must_act(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    game = await engine.create_game("nim", [seat("p-ann"), seat("p-bob")], {})
    (first,) = turns(engine)
    assert (first.seat, first.player, first.version, first.ruleset) == (0, "p-ann", 2, "nim")
    assert first.deadline_ms is None
    moved = await engine.submit_action(game.game_id, 0, {"take": 1})
    assert turns(engine)[1:] == [PlayerTurn(game.game_id, 1, moved.version, "p-bob", "nim")]


async def test_seats_bound_to_nobody_and_bot_seats_are_told_nothing(
    registry: RulesetRegistry,
) -> None:
    engine = make_engine(registry)
    tokens = await engine.create_game("nim", [seat(""), seat("")], {})
    await engine.submit_action(tokens.game_id, 0, {"take": 1})
    bots = await engine.create_game("nim", [SeatSpec(SeatKind.BOT, "b"), seat("p-bob")], {})
    assert turns(engine) == []  # the bot seat 0 starts: its turn is the bot worker's
    await engine.submit_action(bots.game_id, 0, {"take": 1}, bot_key=engine.bot_credential.secret)
    assert [(t.seat, t.player) for t in turns(engine)] == [(1, "p-bob")]


async def test_a_resignation_that_ends_the_game_tells_nobody(registry: RulesetRegistry) -> None:
    engine = make_engine(registry)
    game = await engine.create_game("nim", [seat("p-ann"), seat("p-bob")], {})
    await engine.resign_seat(game.game_id, 0)
    assert [t.player for t in turns(engine)] == ["p-ann"]  # the creation's only


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    bound=st.tuples(st.booleans(), st.booleans()),
    takes=st.lists(st.integers(min_value=1, max_value=3), min_size=1, max_size=12),
)
async def test_every_player_seat_to_act_was_told_since_it_last_became_one(
    registry: RulesetRegistry, bound: tuple[bool, bool], takes: list[int]
) -> None:
    engine = make_engine(registry)
    players = [f"p{i}" if b else "" for i, b in enumerate(bound)]
    game = await engine.create_game("nim", [seat(p) for p in players], {})
    history = [await engine.load(game.game_id)]
    for take in takes:
        snapshot = history[-1]
        if snapshot.is_terminal():
            break
        (to_act,) = snapshot.seats_to_act()
        legal = [a["take"] for a in snapshot.ruleset.legal_actions(snapshot.state, to_act)]
        await engine.submit_action(game.game_id, to_act, {"take": min(take, max(legal))})
        history.append(await engine.load(game.game_id))
    told = turns(engine)
    assert len({(t.game_id, t.version, t.seat) for t in told}) == len(told)  # once each
    for t in told:
        assert players[t.seat] == t.player != ""
    for snapshot in history:
        for s in snapshot.seats_to_act():
            if not players[s]:
                continue
            # The latest version at which s was not to act, or 0: told after it.
            since = max(
                (
                    h.version
                    for h in history
                    if h.version <= snapshot.version and s not in h.seats_to_act()
                ),
                default=0,
            )
            assert any(t.seat == s and since < t.version <= snapshot.version for t in told), (
                s,
                snapshot.version,
            )
