"""Upcasters: Teotihuacan events of older schema versions as the current ones.

Old logs wrote hidden information in clear (it was redacted only on display, after
hashing), so it is public there: an upcast event carries those values as ``sealed``
values without commitments, and folds exactly like a current event folded whole.
Each conversion is tested in services/games/teotihuacan/tests/test_upcast.py.

- ``GameSetUp`` v1 ``{state}`` -> v2 (see :mod:`.public_setup`).
- ``StartingTilesChosen`` v1 ``{seat, tiles}`` -> v2 ``{seat}`` + sealed ``choice:<seat>``.
- ``StartingTilesRevealed`` v1 ``{choices}`` -> v2 ``{choices, discoveries: []}`` (an old
  log's hands are known from its GameSetUp, discoveries included).
- ``StartingTilesReturned`` v1 ``{discoveries}`` -> v2 ``{count}`` + sealed
  ``returned_discoveries``.
"""

from __future__ import annotations

from services.engine.domain.ruleset import DomainEvent, Sealed

from .public_setup import upcast_setup
from .starting_tiles import (
    RETURNED_DISCOVERIES,
    STARTING_TILES_CHOSEN,
    STARTING_TILES_CHOSEN_VERSION,
    STARTING_TILES_RETURNED,
    STARTING_TILES_RETURNED_VERSION,
    STARTING_TILES_REVEALED,
    STARTING_TILES_REVEALED_VERSION,
    choice_id,
)

_UPCAST_TYPES = frozenset(
    {"GameSetUp", STARTING_TILES_CHOSEN, STARTING_TILES_REVEALED, STARTING_TILES_RETURNED}
)


def upcast(event: DomainEvent) -> DomainEvent:
    """``event`` at its type's current schema version (current events as they are)."""
    if event.schema_version != 1 or event.type not in _UPCAST_TYPES:
        return event
    p = event.payload
    if event.type == "GameSetUp":
        return upcast_setup(event)
    if event.type == STARTING_TILES_CHOSEN:
        seat = int(p["seat"])
        return DomainEvent(
            STARTING_TILES_CHOSEN,
            {"seat": seat},
            STARTING_TILES_CHOSEN_VERSION,
            {choice_id(seat): Sealed(list(p["tiles"]), (seat,))},
        )
    if event.type == STARTING_TILES_REVEALED:
        return DomainEvent(
            STARTING_TILES_REVEALED,
            {"choices": dict(p["choices"]), "discoveries": []},
            STARTING_TILES_REVEALED_VERSION,
        )
    if event.type == STARTING_TILES_RETURNED:
        returned = sorted(int(d) for d in p["discoveries"])
        return DomainEvent(
            STARTING_TILES_RETURNED,
            {"count": len(returned)},
            STARTING_TILES_RETURNED_VERSION,
            {RETURNED_DISCOVERIES: Sealed(returned, ())},
        )
    return event
