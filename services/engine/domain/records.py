"""Value types of the event store: stored event records, their metadata, turn requests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from services.engine.domain.ruleset import DomainEvent

SYSTEM_SEAT = -1
"""Seat recorded for events that no player caused (game creation)."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""The encoder ``json.dumps`` would build for these options on every call (built once: a
few calls per move, issue 16); the same class and options, so the same bytes."""

_MAKE_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_ENCODE_STRING: Any = json.encoder.encode_basestring


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: one byte string per value, stable across runs.

    Exactly ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``; raises what that raises (TypeError, ValueError)."""
    if _MAKE_C_ENCODER is None:  # an interpreter without the json module's C half
        return _CANONICAL.encode(value)
    # What JSONEncoder.encode does for these options, without its Python layers (a
    # closure and two calls, about 0.8 us of each of the 6-10 calls a move makes, issue
    # 35): the same C encoder, with its own circular-reference markers per call.
    encode = _MAKE_C_ENCODER(
        {}, _CANONICAL.default, _ENCODE_STRING, None, ":", ",", True, False, True
    )
    return "".join(encode(value, 0))


@dataclass(frozen=True, slots=True)
class EventMetadata:
    """Who, when and why of an appended batch of events.

    Attributes:
        command_id: idempotency key of the command that produced the events ("" if none).
        seat: seat index that issued the command; SYSTEM_SEAT for the engine itself.
        recorded_at: ISO 8601 UTC timestamp from the engine's injected clock.
    """

    command_id: str
    seat: int
    recorded_at: str


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event as recorded in a game's log.

    Attributes:
        version: 1-based position in the log; contiguous.
        type / schema_version / payload: the domain event (payload JSON-decoded).
        metadata: command id, seat, recorded time.
        hash: SHA-256 chaining this event onto the previous one (see ``store.chain``).
    """

    version: int
    type: str
    schema_version: int
    payload: Mapping[str, Any]
    metadata: EventMetadata
    hash: str = ""

    def to_domain(self) -> DomainEvent:
        """The domain event without its storage envelope."""
        return DomainEvent(type=self.type, payload=self.payload, schema_version=self.schema_version)


@dataclass(frozen=True, slots=True, order=True)
class GameIndexEntry:
    """A game in the games index, ordered by creation time then id (a paging cursor)."""

    created_ms: int
    game_id: str

    def to_token(self) -> str:
        """Opaque page token text."""
        return f"{self.created_ms}:{self.game_id}"

    @classmethod
    def from_token(cls, token: str) -> GameIndexEntry:
        """Inverse of :meth:`to_token`. Raises ValueError."""
        ms, sep, game_id = token.partition(":")
        if not sep or not game_id:
            raise ValueError(f"bad page token {token!r}")
        return cls(int(ms), game_id)


@dataclass(frozen=True, slots=True)
class SecretValue:
    """A committed hidden value, as kept in service-only storage (never in the log).

    Attributes:
        value: the JSON-safe hidden value.
        nonce: hex of the commitment's random nonce (see ``services.engine.domain.commitments``).
        seats: seats entitled to see it before it is revealed.
    """

    value: Any
    nonce: str
    seats: tuple[int, ...] = ()

    def to_json(self) -> str:
        """Stored form: canonical JSON ``{"value", "nonce", "seats"}``."""
        return canonical_json({"value": self.value, "nonce": self.nonce, "seats": list(self.seats)})

    @classmethod
    def from_json(cls, text: str) -> SecretValue:
        """Inverse of :meth:`to_json`. Raises ValueError/KeyError on bad text."""
        data = json.loads(text)
        return cls(data["value"], str(data["nonce"]), tuple(int(s) for s in data["seats"]))


@dataclass(frozen=True, slots=True)
class PrivateRecords:
    """A game's service-only records, kept next to its log in the same shard.

    Attributes:
        secrets: committed hidden values by secret id.
        token_hashes: seat -> SHA-256 hex of the token that may act for it (the
            token-to-seat binding; never in the log).
    """

    secrets: Mapping[str, SecretValue] = field(default_factory=dict)
    token_hashes: Mapping[int, str] = field(default_factory=dict)

    def merged(self, other: PrivateRecords) -> PrivateRecords:
        """These records plus ``other``'s (``other`` wins on a clash)."""
        if not other.secrets and not other.token_hashes:
            return self
        return PrivateRecords(
            {**self.secrets, **other.secrets}, {**self.token_hashes, **other.token_hashes}
        )


NO_PRIVATE = PrivateRecords()


@dataclass(frozen=True, slots=True)
class NewGame:
    """What the first append of a game records besides its events.

    Attributes:
        secret_seed: the seed, kept in a per-game key only the engine reads (never logged).
        created_ms: creation time (ms since the epoch), the game's score in the games index.
    """

    secret_seed: str
    created_ms: int


@dataclass(frozen=True, slots=True)
class Deadline:
    """A clocked game's entry in its shard's deadlines set, written by the same append.

    Attributes:
        at_ms: the earliest deadline of a running clock after the append (ms since the
            epoch); None: no clock runs any more, the game leaves the set.
    """

    at_ms: int | None


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """Ask the bot worker to play ``seat`` of ``game_id`` at log ``version``."""

    game_id: str
    seat: int
    version: int

    def to_fields(self) -> dict[str, str]:
        """Flat string fields as stored in the turn-request stream."""
        return {"game_id": self.game_id, "seat": str(self.seat), "version": str(self.version)}

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> TurnRequest:
        """Inverse of :meth:`to_fields`. Raises KeyError/ValueError on a malformed entry."""
        return cls(fields["game_id"], int(fields["seat"]), int(fields["version"]))


@dataclass(frozen=True, slots=True)
class PlayerTurn:
    """Tell ``player`` it is their turn at ``seat`` of ``game_id`` (a ``your_turn``
    notice, docs/players.md "Player streams"): published by the append that made the
    seat one to act, on its shard's player-turns stream, and posted to the player's inbox
    by the notifier (services.notices.notifier), once per (game, version, seat).

    Attributes:
        game_id / seat / version: the seat to act at log ``version``.
        player: the player account bound to the seat.
        ruleset: the game's ruleset name.
        deadline_ms: the game's next clock deadline after the append (ms since the
            epoch), None without a clock (or an append that left it unchanged).
    """

    game_id: str
    seat: int
    version: int
    player: str
    ruleset: str
    deadline_ms: int | None = None

    def to_fields(self) -> dict[str, str]:
        """Flat string fields as stored in the player-turns stream (no deadline: "")."""
        return {
            "game_id": self.game_id,
            "seat": str(self.seat),
            "version": str(self.version),
            "player": self.player,
            "ruleset": self.ruleset,
            "deadline_ms": "" if self.deadline_ms is None else str(self.deadline_ms),
        }

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> PlayerTurn:
        """Inverse of :meth:`to_fields`. Raises KeyError/ValueError on a malformed entry."""
        deadline = fields.get("deadline_ms", "")
        return cls(
            fields["game_id"],
            int(fields["seat"]),
            int(fields["version"]),
            fields["player"],
            fields["ruleset"],
            int(deadline) if deadline else None,
        )


Publication = TurnRequest | PlayerTurn
"""What an append publishes beside its events: a bot seat's turn request (to the bot
worker) or a player seat's turn (to the player's notices)."""


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What one append did.

    Attributes:
        first_version / last_version: versions of the command's events; for a command id
            applied before, those of that original append.
        written: the events this call stored, exactly as a read returns them (payload
            through canonical JSON, hash chained), so the writer can fold them without
            reading them back. Empty when the command id had already been applied and
            nothing was written.
        request_hash: for a command applied before, the hash of the request recorded
            with it ("" if none was, e.g. a command recorded before hashes were kept).
    """

    first_version: int
    last_version: int
    written: tuple[StoredEvent, ...] = ()
    request_hash: str = ""

    @property
    def duplicate(self) -> bool:
        """True if the command id had been applied before and this call wrote nothing."""
        return not self.written


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """Result of an already-applied command: the versions its events got, and the hash
    of the request it carried ("" for a command recorded without one)."""

    first_version: int
    last_version: int
    request_hash: str = ""

    def to_text(self) -> str:
        """Stored form: ``"<first>-<last>"``, then ``":<request hash>"`` when there is one."""
        text = f"{self.first_version}-{self.last_version}"
        return f"{text}:{self.request_hash}" if self.request_hash else text

    @classmethod
    def from_text(cls, text: str) -> CommandRecord:
        """Inverse of :meth:`to_text`; also reads the older ``"<first>-<last>"`` form."""
        versions, _sep, request_hash = text.partition(":")
        first, last = versions.split("-", 1)
        return cls(int(first), int(last), request_hash)


@dataclass(frozen=True, slots=True)
class CommandKey:
    """How the store deduplicates one command (docs/operations.md, "Command ids").

    Attributes:
        field: the key the result is recorded under in the game's command table: the
            sender's scope and the client's command id (e.g. ``seat:1|my-id``), so two
            senders never share an id.
        request_hash: SHA-256 hex of the request's content, recorded with the result so
            that a reuse of the id with other content can be refused.
    """

    field: str
    request_hash: str
