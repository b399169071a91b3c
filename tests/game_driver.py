"""Play whole games through the real engine (in-memory store) for recorded logs.

Used by ``scripts/record_fixture_logs.py`` (fixture logs) and the event schema guard
(``tests/event_schemas.py``): a fixed seed, game id and clock, and every move chosen by
a seeded policy, so the same spec always gives the same log.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from services.bot.policy import Policy, RulesetPolicy
from services.engine.adapters.deadlines import MemoryDeadlines
from services.engine.adapters.memory import InMemoryEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game import GameSnapshot
from services.engine.domain.game_seats import SeatKind, SeatSpec, hash_token
from services.engine.domain.records import StoredEvent
from services.engine.domain.rulesets import RulesetRegistry, default_registry
from services.engine.domain.timing.time_control import TimeControl
from services.engine.entrypoints.timekeeper import Timekeeper


@dataclass(frozen=True)
class Fixture:
    """One game to record.

    Attributes:
        name: file stem.
        ruleset: registered ruleset name.
        seats: seat specs at creation (open human seats have no name and no token).
        options: game options.
        joins: (seat, name, token) claimed with JoinGame right after creation.
        policy: picks every seat's move.
        stop_after: stop once the log has at least this many events (0: play to the end).
        time_control: the game's clock (None: no clock).
        timeouts: versions at which the seat to act lets its clock run out instead of
            moving (the timekeeper then appends the timeout).
        withdrawals: (version, seat): at that version the seat's tournament player
            withdraws (Engine.withdraw_seat applies the timeout policy at once).
        resignations: (version, seat): once the log reaches that version the seat
            resigns (Engine.resign_seat; what it does is the game's rule).
        claims: versions: once the log reaches one, the seat to act stays away for the
            absence time and the next human seat still in hands it to a bot
            (Engine.claim_seat_for_bot).
        player_joins: (seat, name, player id) claimed with JoinGame by a player account
            (no seat token) right after the token joins.
        rated: created rated (GameCreated v5 ``rated``; every seat a player's).
    """

    name: str
    ruleset: str
    seats: tuple[SeatSpec, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    joins: tuple[tuple[int, str, str], ...] = ()
    policy: Callable[[], Policy] = RulesetPolicy
    stop_after: int = 0
    time_control: TimeControl | None = None
    timeouts: tuple[int, ...] = ()
    withdrawals: tuple[tuple[int, int], ...] = ()
    resignations: tuple[tuple[int, int], ...] = ()
    claims: tuple[int, ...] = ()
    player_joins: tuple[tuple[int, str, str], ...] = ()
    rated: bool = False


def human(name: str) -> SeatSpec:
    # Fixture tokens are public test data; only their SHA-256 is in today's format.
    return SeatSpec(SeatKind.HUMAN, name, hash_token(f"fixture-token-{name}-0123456789abcdef"))


def player_seat(name: str, player: str) -> SeatSpec:
    """A human seat bound to the player account ``player`` (no seat token)."""
    return SeatSpec(SeatKind.HUMAN, name, player=player)


def bot(name: str) -> SeatSpec:
    return SeatSpec(SeatKind.BOT, name)


OPEN = SeatSpec(SeatKind.HUMAN, "")


def registry() -> RulesetRegistry:
    """The shipped rulesets plus the test Nim ruleset (tests/nim.py)."""
    from tests.nim import NimRuleset

    reg = default_registry()
    reg.register("nim", NimRuleset)
    return reg


class _Clock:
    """A clock that ticks one second per call (deterministic timestamps) and can be moved
    on by hand (a clock running out)."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def __call__(self) -> datetime:
        self._now += timedelta(seconds=1)
        return self._now

    def skip(self, ms: int) -> None:
        self._now += timedelta(milliseconds=ms)


async def play(fixture: Fixture, reg: RulesetRegistry) -> tuple[list[StoredEvent], GameSnapshot]:
    """Play ``fixture`` through the engine; returns its stored log and the final snapshot."""
    store = InMemoryEventStore()
    clock = _Clock(datetime(2026, 12, 1, tzinfo=UTC))
    engine = Engine(
        store,
        reg,
        clock=clock,
        seed_source=lambda: f"fixture-seed-{fixture.name}-00112233445566778899aabbccddeeff",
        id_source=lambda: f"fixture-{fixture.name}".replace("_", "-"),
    )
    keeper = Timekeeper(engine, MemoryDeadlines(store.deadlines))
    created = await engine.create_game(
        fixture.ruleset,
        fixture.seats,
        fixture.options,
        time_control=fixture.time_control,
        rated=fixture.rated,
    )
    game_id = created.game_id
    for seat, name, token in fixture.joins:
        await engine.join_game(game_id, seat, name, hash_token(token), command_id=f"join-{seat}")
    for seat, name, player in fixture.player_joins:
        await engine.join_game(game_id, seat, name, "", command_id=f"join-{seat}", player=player)
    policy = fixture.policy()
    snapshot = await engine.load(game_id)
    left: set[tuple[int, int]] = set()  # resignations and claims made
    while not snapshot.is_terminal():
        if fixture.stop_after and snapshot.version >= fixture.stop_after:
            break
        if snapshot.version in fixture.timeouts and fixture.time_control is not None:
            tc = fixture.time_control
            # Past any deadline: base time plus every increment a short game earns.
            clock.skip(2 * max(tc.base_ms, tc.move_deadline_ms) + 1_000)
            if not await keeper.run_once():
                raise RuntimeError(f"{fixture.name}: no clock ran out at {snapshot.version}")
            snapshot = await engine.load(game_id)
            continue
        withdrawn = [s for v, s in fixture.withdrawals if v == snapshot.version]
        if withdrawn:
            await engine.withdraw_seat(game_id, withdrawn[0])
            snapshot = await engine.load(game_id)
            continue
        resigning = [r for r in fixture.resignations if r[0] <= snapshot.version and r not in left]
        if resigning:
            left.add(resigning[0])
            seat = resigning[0][1]
            await engine.resign_seat(game_id, seat, command_id=f"resign-{seat}")
            snapshot = await engine.load(game_id)
            continue
        claiming = [v for v in fixture.claims if v <= snapshot.version and (v, -1) not in left]
        if claiming:
            left.add((claiming[0], -1))
            clock.skip(engine.absence_ms)
            absent = snapshot.seats_to_act()[0]
            n = len(snapshot.seats)
            by = next(
                s
                for s in (absent + k for k in range(1, n))
                if snapshot.seats[s % n].kind is SeatKind.HUMAN
                and s % n not in snapshot.control.forfeited
            )
            await engine.claim_seat_for_bot(game_id, absent, by % n, f"claim-{absent}")
            snapshot = await engine.load(game_id)
            continue
        seat = snapshot.seats_to_act()[0]
        legal = list(snapshot.ruleset.legal_actions(snapshot.state, seat))
        rng = random.Random(f"{fixture.name}:{snapshot.version}:{seat}")
        action = policy.choose(snapshot.ruleset, snapshot.state, seat, legal, rng)
        await engine.submit_action(
            game_id,
            seat,
            action,
            expected_version=snapshot.version,
            command_id=f"cmd-{snapshot.version}-{seat}",
            # Bot seats (and the zombies of seats out, the bots of resigned seats) act
            # under the bot worker's credential (issue 12); a taken-over seat's own move
            # reclaims it.
            bot_key=engine.bot_credential.secret
            if snapshot.seats[seat].kind is SeatKind.BOT
            or seat in snapshot.control.forfeited
            or seat in snapshot.control.resigned
            else "",
        )
        snapshot = await engine.load(game_id)
    return await store.read(game_id), snapshot
