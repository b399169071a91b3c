"""Scripted games whose logs hold every leaving event and outcome (the schema registry's
samples, ``tests/event_schemas.py``; the engine tests, ``tests/unit/test_resign.py``),
played on the in-memory store with a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from services.engine.adapters import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import SeatKind, SeatSpec
from services.engine.domain.game_declaration import Capability
from services.engine.domain.leaving import LEAVING_EVENTS
from services.engine.domain.records import StoredEvent
from services.engine.domain.ruleset import Resignation
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.timing.time_control import TimeControl, TimeoutPolicy
from tests.clocks.helpers import BotNimRuleset, FakeClock, clock_registry
from tests.nim import NimState


class HandingNimRuleset(BotNimRuleset):
    """Nim whose rules hand a resigning seat to its bot (Capability.RESIGNATION)."""

    name = "handnim"
    declaration = replace(
        BotNimRuleset.declaration,
        name="handnim",
        ruleset="tests.leaving_samples:HandingNimRuleset",
        capabilities=BotNimRuleset.declaration.capabilities | {Capability.RESIGNATION},
    )

    def resignation(self, state: NimState, seat: int, seats_in: Sequence[int]) -> Resignation:
        """Every resignation hands the seat to the bot (no seat ever out)."""
        return Resignation.BOT_PLAYS


def leaving_registry() -> RulesetRegistry:
    """Nim, botnim (a bot of its own) and handnim (its own resignation rule)."""
    registry = clock_registry()
    registry.register("handnim", HandingNimRuleset)
    return registry


def _humans(n: int) -> list[SeatSpec]:
    return [SeatSpec(SeatKind.HUMAN, f"p{i}", f"{i}" * 64) for i in range(n)]


async def _play() -> list[StoredEvent]:
    clock = FakeClock()
    store = InMemoryEventStore()
    engine = Engine(store, leaving_registry(), clock=clock, seed_source=fixed_seed("leave"))
    games = []
    for ruleset, seats in (("nim", 2), ("nim", 3), ("handnim", 2)):
        game = (await engine.create_game(ruleset, _humans(seats), {})).game_id
        await engine.resign_seat(game, 0)
        games.append(game)
    absent = (await engine.create_game("botnim", _humans(2), {})).game_id
    clock.advance(engine.absence_ms)
    await engine.claim_seat_for_bot(absent, 0, 1)
    control = TimeControl(move_deadline_ms=60_000, policy=TimeoutPolicy.FORFEIT)
    late = (await engine.create_game("nim", _humans(3), {}, time_control=control)).game_id
    clock.advance(60_000)
    await engine.claim_seat_for_bot(late, 0, 2)
    events: list[StoredEvent] = []
    for game in (*games, absent, late):
        events += await store.read(game)
    return events


def leaving_event_samples() -> list[StoredEvent]:
    """Events of every leaving type, each outcome and reason (others left out: their
    rulesets' samples are elsewhere)."""
    return [e for e in asyncio.run(_play()) if e.type in LEAVING_EVENTS]
