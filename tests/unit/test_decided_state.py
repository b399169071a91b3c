"""The engine's cache keeps the state its decision reached instead of folding a move's
records a second time (issue 35): that state must be the one an auditor folds from the
log, and a ruleset for which it is not is caught by the cache's sampled check."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Mapping
from typing import Any

import pytest
from structlog.testing import capture_logs

from services.engine.adapters.memory import InMemoryEventStore
from services.engine.domain.engine import Engine
from services.engine.domain.game import fold
from services.engine.domain.game_declaration import Capability
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import DEFAULT_CHECK_DECIDED_EVERY, SnapshotCache
from tests.event_schemas import sample_games
from tests.game_driver import play, registry
from tests.nim import NimRuleset, NimState


@pytest.mark.parametrize("fixture", sample_games(), ids=lambda f: f.name)
def test_every_decided_state_is_the_fold_of_its_records(
    fixture: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each sample game of every ruleset (hidden information, clocks, seats leaving and
    joining among them), every append checked: the decided state never differs from the
    fold of what was written, and the game's last state is the fold of its whole log."""
    monkeypatch.setenv("TEOTI_CHECK_DECIDED_EVERY", "1")
    reg = registry()
    with capture_logs() as logs:
        events, snapshot = asyncio.run(play(fixture, reg))
    assert [e for e in logs if e["event"] == "decided_state_differs"] == []
    refolded = fold(snapshot.game_id, events, reg, snapshot.private)
    assert refolded.state == snapshot.state
    assert refolded.version == snapshot.version == events[-1].version


class _MiscountingNim(NimRuleset):
    """Nim whose decision reaches a state its events do not give (a ruleset bug the
    contract test forbids): ``apply`` keeps the pile one stone short of its events."""

    declaration = dataclasses.replace(
        NimRuleset.declaration, capabilities=frozenset({Capability.SNAPSHOTS, Capability.APPLY})
    )

    def apply(
        self, state: NimState, seat: int, action: Mapping[str, Any], rng: random.Random
    ) -> tuple[list[DomainEvent], NimState]:
        events = self.decide(state, seat, action, rng)
        after = state
        for event in events:
            after = self.evolve(after, event)
        return events, dataclasses.replace(after, pile=after.pile - 1)


def _engine(check_every: int) -> Engine:
    reg = RulesetRegistry()
    reg.register("nim", _MiscountingNim)
    engine = Engine(InMemoryEventStore(), reg)
    cache: SnapshotCache = engine._snapshots
    cache.check_decided_every = check_every
    return engine


async def _two_moves(engine: Engine) -> str:
    seats = [SeatSpec(SeatKind.HUMAN, "a", "a" * 64), SeatSpec(SeatKind.HUMAN, "b", "b" * 64)]
    created = await engine.create_game("nim", seats, {"max_take": 3})
    for seat in (0, 1):
        await engine.submit_action(created.game_id, seat, {"take": 1})
    return created.game_id


def test_a_decided_state_that_is_not_the_fold_is_logged_and_the_fold_kept() -> None:
    engine = _engine(check_every=1)
    with capture_logs() as logs:
        game_id = asyncio.run(_two_moves(engine))
    differs = [e for e in logs if e["event"] == "decided_state_differs"]
    assert [(e["game_id"], e["ruleset"], e["log_level"]) for e in differs] == [
        (game_id, "nim", "error")
    ] * 2
    cached = engine._snapshots.cached(game_id)
    assert cached is not None
    assert engine._snapshots.decided_mismatches == 2
    start = asyncio.run(_pile_at_creation(engine, game_id))
    assert cached.state.pile == start - 2  # the log's two stones, not the decision's four


async def _pile_at_creation(engine: Engine, game_id: str) -> int:
    events = await engine.store.read(game_id)
    return int(next(e.payload["pile"] for e in events if e.type == "PileSet"))


def test_unchecked_appends_keep_the_decided_state() -> None:
    """Between checks the decided state is taken as it is (what saves the fold): with
    checks off, the miscounting ruleset's state is the cache's."""
    engine = _engine(check_every=0)
    game_id = asyncio.run(_two_moves(engine))
    cached = engine._snapshots.cached(game_id)
    assert cached is not None
    start = asyncio.run(_pile_at_creation(engine, game_id))
    assert cached.state.pile == start - 4


def test_check_interval_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InMemoryEventStore()
    monkeypatch.delenv("TEOTI_CHECK_DECIDED_EVERY", raising=False)
    assert SnapshotCache(store, RulesetRegistry()).check_decided_every == (
        DEFAULT_CHECK_DECIDED_EVERY
    )
    for text, every in (("1", 1), ("0", 0), ("-3", 0), ("x", DEFAULT_CHECK_DECIDED_EVERY)):
        monkeypatch.setenv("TEOTI_CHECK_DECIDED_EVERY", text)
        assert SnapshotCache(store, RulesetRegistry()).check_decided_every == every
