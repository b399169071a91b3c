"""Resignations in any game, for the games' own tests (services/games/<name>/tests/
test_resign.py) and the generic property (tests/unit/test_resign_property.py): random
play through the engine on the in-memory store, a resignation, and the checks every game
must pass (the log audits, a fresh public fold agrees with the engine, the seat ranks
last once the game has a result)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.bot.policy import RandomPolicy
from services.engine.adapters import InMemoryEventStore
from services.engine.domain.audit import audit_log
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import GameSnapshot, SeatKind, SeatSpec, fold
from services.engine.domain.rulesets import RulesetRegistry
from tests.game_driver import registry as driver_registry


@dataclass
class Table:
    """A game being played through an engine on the in-memory store."""

    engine: Engine
    store: InMemoryEventStore
    game_id: str
    registry: RulesetRegistry

    async def snapshot(self) -> GameSnapshot:
        """The game now."""
        return await self.engine.load(self.game_id)

    async def play(self, moves: int, rng: random.Random) -> GameSnapshot:
        """Up to ``moves`` random legal moves (fewer if the game ends): bot seats and
        seats a bot plays move under the bot credential, people without it."""
        policy = RandomPolicy()
        key = self.engine.bot_credential.secret
        snapshot = await self.snapshot()
        for _ in range(moves):
            if snapshot.is_terminal():
                break
            seat = snapshot.seats_to_act()[0]
            legal = list(snapshot.ruleset.legal_actions(snapshot.state, seat))
            action = policy.choose(snapshot.ruleset, snapshot.state, seat, legal, rng)
            bot = snapshot.played_by_bot(seat)
            await self.engine.submit_action(self.game_id, seat, action, bot_key=key if bot else "")
            snapshot = await self.snapshot()
        return snapshot

    async def check_log(self) -> GameSnapshot:
        """The public log audits clean and folds, from a fresh reader without the
        service's records, to what the engine holds; returns the engine's game."""
        events = await self.store.read(self.game_id)
        report = audit_log(self.game_id, events, self.registry)
        assert report.ok, report.problems
        public = fold(self.game_id, events, self.registry)
        mine = await self.snapshot()
        assert public.version == mine.version and public.head_hash == mine.head_hash
        assert public.is_terminal() == mine.is_terminal()
        assert public.control == mine.control
        assert public.result() == mine.result()
        return mine


async def table(
    ruleset: str,
    seats: Sequence[SeatSpec],
    options: Mapping[str, Any],
    seed: str = "resign",
    registry: RulesetRegistry | None = None,
) -> Table:
    """A new game of ``ruleset`` (shipped games and Nim by default)."""
    reg = registry or driver_registry()
    store = InMemoryEventStore()
    engine = Engine(store, reg, seed_source=fixed_seed(seed))
    created = await engine.create_game(ruleset, seats, options)
    return Table(engine, store, created.game_id, reg)


def humans(n: int) -> list[SeatSpec]:
    """``n`` human seats (tokens never matter to the engine here)."""
    return [SeatSpec(SeatKind.HUMAN, f"p{i}", f"{i:x}" * 64) for i in range(n)]


async def resign_and_finish(
    ruleset: str, seats: int, options: Mapping[str, Any], moves: int, seat: int
) -> GameSnapshot:
    """``moves`` random moves of a ``seats``-player game (fewer if it ends), then
    ``seat`` resigns (if the game still runs) and random play finishes it: asserts the
    log audits and folds fresh, and that the result ranks ``seat`` last; returns the
    finished game."""
    game = await table(ruleset, humans(seats), options)
    if (await game.play(moves, random.Random(moves))).is_terminal():
        return await game.check_log()  # over before anyone could resign: nothing to test
    await game.engine.resign_seat(game.game_id, seat)
    await game.play(20_000, random.Random(seat))
    final = await game.check_log()
    result = final.result()
    assert final.is_terminal() and result is not None
    assert result.ranking[-1] == seat
    return final
