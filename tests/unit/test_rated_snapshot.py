"""A rated game stays rated through every way a game is rebuilt: the fold of its log
(GameCreated v5), a stored snapshot (services.engine.domain.snapshots), and the fold of
an older snapshot that has no ``rated`` key (unrated, as every game before v5)."""

from __future__ import annotations

import json

from services.engine.adapters.memory import InMemoryEventStore
from services.engine.domain.clock import fixed_seed
from services.engine.domain.engine import Engine
from services.engine.domain.game import fold
from services.engine.domain.game_seats import SeatKind, SeatSpec
from services.engine.domain.rulesets import RulesetRegistry
from services.engine.domain.snapshots import decode_snapshot, encode_snapshot

SEATS = [SeatSpec(SeatKind.HUMAN, "Ann", player="a1"), SeatSpec(SeatKind.HUMAN, "Bob", player="b2")]


async def test_rated_survives_the_fold_and_a_stored_snapshot(registry: RulesetRegistry) -> None:
    store = InMemoryEventStore()
    engine = Engine(store, registry, seed_source=fixed_seed("s"))
    game_id = (await engine.create_game("nim", SEATS, {}, rated=True)).game_id
    folded = fold(game_id, await store.read(game_id), registry)
    assert folded.rated
    text = encode_snapshot(folded)
    assert text is not None
    assert decode_snapshot(text, registry).rated
    older = json.loads(text)
    del older["rated"]  # a snapshot stored before rated games
    assert not decode_snapshot(json.dumps(older), registry).rated
