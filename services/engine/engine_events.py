"""Events the engine itself writes (the ruleset never sees them), and their upcasters.

- ``GameCreated`` v2 ``{ruleset, seats: [{kind, name, token_hash}], options,
  seed_commitment}``: every log's first event. v1 (older servers) held the seed in clear
  as ``seed`` and seats without ``token_hash``; :func:`upcast` turns it into v2.
- ``SeatJoined`` v1 ``{seat, name, token_hash}``: an open seat was claimed (JoinGame).
- ``SeedRevealed`` v1 ``{seed}``: appended with the events that end the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.fairness import commit
from services.engine.game_seats import SeatSpec
from services.engine.ruleset import DomainEvent

GAME_CREATED = "GameCreated"
GAME_CREATED_VERSION = 2
SEAT_JOINED = "SeatJoined"
SEED_REVEALED = "SeedRevealed"
ENGINE_EVENTS = frozenset({GAME_CREATED, SEAT_JOINED, SEED_REVEALED})


def game_created(
    ruleset: str, seats: Sequence[SeatSpec], options: Mapping[str, Any], seed: str
) -> DomainEvent:
    """The engine's first event of a game: commits to ``seed`` without revealing it."""
    return DomainEvent(
        GAME_CREATED,
        {
            "ruleset": ruleset,
            "seats": [seat.to_json() for seat in seats],
            "options": dict(options),
            "seed_commitment": commit(seed),
        },
        GAME_CREATED_VERSION,
    )


def seat_joined(seat: int, name: str, token_hash: str) -> DomainEvent:
    """An open seat claimed by a player holding the token hashed to ``token_hash``."""
    return DomainEvent(SEAT_JOINED, {"seat": seat, "name": name, "token_hash": token_hash})


def seed_revealed(seed: str) -> DomainEvent:
    """The secret seed, published once the game is over."""
    return DomainEvent(SEED_REVEALED, {"seed": seed})


def without_token_hashes(event: DomainEvent) -> DomainEvent:
    """``event`` as any API reader sees it: seat token hashes blanked (others as is).

    A token hash is an unsalted SHA-256, and clients may choose their own tokens: a weak
    one could be found offline from its hash. Only the engine needs the hashes (to check
    tokens), so GameService never shows them; the event's hash still covers them.
    """
    if event.type == GAME_CREATED:
        seats = [{**seat, "token_hash": ""} for seat in event.payload.get("seats", [])]
        return DomainEvent(event.type, {**event.payload, "seats": seats}, event.schema_version)
    if event.type == SEAT_JOINED:
        return DomainEvent(event.type, {**event.payload, "token_hash": ""}, event.schema_version)
    return event


def legacy_seed(event: DomainEvent) -> str | None:
    """The clear seed of a v1 GameCreated (public since it was written), else None."""
    if event.type == GAME_CREATED and event.schema_version == 1:
        return str(event.payload["seed"])
    return None


def upcast(event: DomainEvent) -> DomainEvent:
    """Bring an engine event to its current schema version (others are returned as is)."""
    if event.type == GAME_CREATED and event.schema_version == 1:
        payload = dict(event.payload)
        seed = str(payload.pop("seed"))
        payload["seed_commitment"] = commit(seed)
        payload["seats"] = [{**seat, "token_hash": ""} for seat in payload.get("seats", [])]
        return DomainEvent(GAME_CREATED, payload, GAME_CREATED_VERSION)
    return event
