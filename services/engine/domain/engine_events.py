"""Events the engine itself writes (the ruleset never sees them), and their upcasters.

Field by field in docs/events.md. Current versions:

- ``GameCreated`` v5 ``{ruleset, seats: [{kind, name, open, player}], options,
  seed_commitment, rated}``: every log's first event; ``player`` is the id of the player
  account bound to the seat ("" for none); ``rated``: the game counts for its players'
  ratings (services.engine.domain.rated). v4 had no ``rated`` (unrated), v3 no
  ``player``, v2 also held each seat's ``token_hash`` (an unsalted SHA-256 of its token)
  and v1 the seed in clear as ``seed``;
  :func:`upcast` brings each to v5.
- ``SeatJoined`` v3 ``{seat, name, player}``: an open seat was claimed (JoinGame), by the
  player account ``player`` ("" for a seat-token join). v2 had no ``player``; v1 also
  held ``token_hash``.
- ``SecretsRevealed`` v1 ``{secrets: [{id, value, nonce}]}``: opens earlier commitments
  (when the rules make them public, and every one left when the game ends).
- ``SeedRevealed`` v1 ``{seed}``: appended with the events that end the game.
- The clock events (``ClockStarted``, ``ClocksUpdated``, ``SeatTimedOut``,
  ``SeatTakenOver``, ``SeatForfeited``, ``SeatReclaimed``), all v1: see
  :mod:`services.engine.domain.timing.seat_clocks`.
- The leaving events (``SeatResigned``, ``SeatClaimedForBot``), v1: see
  :mod:`services.engine.domain.leaving`.

Token hashes of v2/v1 logs are honoured read-only: :func:`legacy_token_hashes` reads
them from the stored event (which cannot change without breaking the chain), nothing new
is ever written there; new bindings live in service-only storage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.domain.fairness import commit
from services.engine.domain.game_seats import SeatSpec
from services.engine.domain.leaving import LEAVING_EVENTS
from services.engine.domain.records import SecretValue
from services.engine.domain.ruleset import DomainEvent
from services.engine.domain.timing.seat_clocks import CLOCK_EVENTS

GAME_CREATED = "GameCreated"
GAME_CREATED_VERSION = 5
SEAT_JOINED = "SeatJoined"
SEAT_JOINED_VERSION = 3
SECRETS_REVEALED = "SecretsRevealed"
SEED_REVEALED = "SeedRevealed"
ENGINE_EVENTS = (
    frozenset({GAME_CREATED, SEAT_JOINED, SECRETS_REVEALED, SEED_REVEALED})
    | CLOCK_EVENTS
    | LEAVING_EVENTS
)
"""Every engine event type, the clocks' (services.engine.domain.timing.seat_clocks) and
the leaving ones (services.engine.domain.leaving) included."""


def game_created(
    ruleset: str,
    seats: Sequence[SeatSpec],
    options: Mapping[str, Any],
    seed: str,
    rated: bool = False,
) -> DomainEvent:
    """The engine's first event of a game: commits to ``seed`` without revealing it;
    ``rated``: the game counts for its players' ratings."""
    return DomainEvent(
        GAME_CREATED,
        {
            "ruleset": ruleset,
            "seats": [seat.to_json() for seat in seats],
            "options": dict(options),
            "seed_commitment": commit(seed),
            "rated": rated,
        },
        GAME_CREATED_VERSION,
    )


def seat_joined(seat: int, name: str, player: str = "") -> DomainEvent:
    """An open seat claimed, by the player account ``player`` if any (a token's binding
    is kept in service-only storage; the player id is public)."""
    return DomainEvent(
        SEAT_JOINED, {"seat": seat, "name": name, "player": player}, SEAT_JOINED_VERSION
    )


def secrets_revealed(secrets: Mapping[str, SecretValue]) -> DomainEvent:
    """Opens the commitments ``secrets`` (by id, in id order)."""
    return DomainEvent(
        SECRETS_REVEALED,
        {
            "secrets": [
                {"id": secret_id, "value": secret.value, "nonce": secret.nonce}
                for secret_id, secret in sorted(secrets.items())
            ]
        },
    )


def seed_revealed(seed: str) -> DomainEvent:
    """The secret seed, published once the game is over."""
    return DomainEvent(SEED_REVEALED, {"seed": seed})


def legacy_seed(event: DomainEvent) -> str | None:
    """The clear seed of a v1 GameCreated (public since it was written), else None."""
    if event.type == GAME_CREATED and event.schema_version == 1:
        return str(event.payload["seed"])
    return None


def legacy_token_hashes(event: DomainEvent) -> dict[int, str]:
    """Seat -> token hash written in clear by older servers (GameCreated v1/v2, SeatJoined
    v1), honoured read-only; empty for current events."""
    if event.type == GAME_CREATED and event.schema_version < GAME_CREATED_VERSION:
        return {
            index: str(seat["token_hash"])
            for index, seat in enumerate(event.payload.get("seats", []))
            if seat.get("token_hash")
        }
    if event.type == SEAT_JOINED and event.schema_version < SEAT_JOINED_VERSION:
        token_hash = str(event.payload.get("token_hash", ""))
        return {int(event.payload["seat"]): token_hash} if token_hash else {}
    return {}


def _public_seat(seat: Mapping[str, Any]) -> dict[str, Any]:
    """A v1/v2/v3 seat ``{kind, name, token_hash?, open?}`` as v4 ``{kind, name, open,
    player}`` (bound to no player: accounts came with v4)."""
    spec = SeatSpec.from_json(seat)
    return spec.to_json()


def upcast(event: DomainEvent) -> DomainEvent:
    """Bring an engine event to its current schema version (others are returned as is).

    GameCreated v1 -> v5: ``seed`` becomes ``seed_commitment``; v1/v2 -> v5: seats lose
    ``token_hash`` and gain ``open``; v1/v2/v3 -> v5: seats gain ``player: ""``; v1..v4 ->
    v5: ``rated: false`` (no game was rated before v5).
    SeatJoined v1 -> v3: ``token_hash`` dropped; v1/v2 -> v3: ``player: ""`` added.
    """
    if event.type == GAME_CREATED and event.schema_version < GAME_CREATED_VERSION:
        payload = dict(event.payload)
        if event.schema_version == 1:
            payload["seed_commitment"] = commit(str(payload.pop("seed")))
        payload["seats"] = [_public_seat(seat) for seat in payload.get("seats", [])]
        payload.setdefault("rated", False)
        return DomainEvent(GAME_CREATED, payload, GAME_CREATED_VERSION)
    if event.type == SEAT_JOINED and event.schema_version < SEAT_JOINED_VERSION:
        payload = {k: v for k, v in event.payload.items() if k != "token_hash"}
        payload.setdefault("player", "")
        return DomainEvent(SEAT_JOINED, payload, SEAT_JOINED_VERSION)
    return event
