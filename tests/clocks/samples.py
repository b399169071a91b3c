"""Scripted clocked games whose logs hold every clock event (the schema registry's
samples: ``tests/event_schemas.py``), played on the in-memory store with a fake clock."""

from __future__ import annotations

import asyncio

from services.engine.adapters import InMemoryEventStore
from services.engine.adapters.deadlines import MemoryDeadlines
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.records import StoredEvent
from services.engine.domain.timing.seat_clocks import CLOCK_EVENTS
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from services.engine.entrypoints.timekeeper import Timekeeper
from tests.clocks.helpers import FakeClock, clock_registry

_SEATS = [SeatSpec(SeatKind.HUMAN, "ann", "a" * 64), SeatSpec(SeatKind.HUMAN, "bob", "b" * 64)]


async def _play(ruleset: str, control: TimeControl) -> list[StoredEvent]:
    """Seat 0 times out at once; then everyone (the bot for a bot-played seat 0, the
    player reclaiming it when allowed) takes one stone a minute to the end."""
    clock = FakeClock()
    store = InMemoryEventStore()
    engine = Engine(store, clock_registry(), clock=clock, seed_source=fixed_seed("clocks"))
    keeper = Timekeeper(engine, MemoryDeadlines(store.deadlines))
    game = (await engine.create_game(ruleset, _SEATS, {}, time_control=control)).game_id
    clock.advance(control.move_deadline_ms or control.base_ms)
    await keeper.run_once()
    key = engine.bot_credential.secret
    turns = 0
    while not (snapshot := await engine.load(game)).is_terminal():
        clock.advance(60_000)
        (seat,) = snapshot.seats_to_act()
        forfeited = snapshot.clock is not None and seat in snapshot.clock.forfeited
        # A taken-over seat is reclaimed by its player on its second turn.
        by_bot = snapshot.played_by_bot(seat) and (forfeited or turns < 2)
        await engine.submit_action(game, seat, {"take": 1}, bot_key=key if by_bot else "")
        turns += 1
    return await store.read(game)


def clock_event_samples() -> list[StoredEvent]:
    """Events of every clock type and version (others left out: their rulesets' samples
    are elsewhere)."""
    controls = [
        ("botnim", TimeControl(move_deadline_ms=3_600_000, policy=TimeoutPolicy.BOT_TAKEOVER)),
        ("nim", TimeControl(300_000, 5_000, 3_600_000, TimeoutPolicy.FORFEIT)),
    ]
    events: list[StoredEvent] = []
    for ruleset, control in controls:
        events += [e for e in asyncio.run(_play(ruleset, control)) if e.type in CLOCK_EVENTS]
    return events
