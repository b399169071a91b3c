"""Salted commitments: how hidden information enters the public log, and how it is checked.

Byte format (docs/events.md, "Commitments"), so an outside auditor can re-compute it::

    commitment = lowercase hex of SHA-256( nonce_bytes || canonical_json(value) )

- ``nonce_bytes``: the 32 bytes (256 bits) whose lowercase hex is the revealed ``nonce``,
  drawn from :func:`secrets.token_bytes` for each commitment (never from the game seed).
- ``canonical_json(value)``: UTF-8 of JSON with sorted keys, separators ``,`` and ``:``,
  no spaces, non-ASCII characters unescaped (``services.engine.domain.records``).

Without the nonce a guessed value cannot be tested against a commitment (2^256 nonces),
so a spectator learns nothing from it; once revealed, value and nonce open it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.domain.records import SecretValue, canonical_json
from services.engine.domain.ruleset import SEALED_KEY, DomainEvent

NONCE_BYTES = 32
"""Nonce length: 256 bits, above the 128-bit floor the issue sets."""


def new_nonce() -> str:
    """A fresh nonce (hex of NONCE_BYTES bytes from the OS's CSPRNG)."""
    return secrets.token_bytes(NONCE_BYTES).hex()


def commitment(value: Any, nonce: str) -> str:
    """SHA-256 hex over the nonce's bytes then the canonical JSON of ``value``.

    Raises ValueError if ``nonce`` is not hex.
    """
    digest = hashlib.sha256(bytes.fromhex(nonce))
    digest.update(canonical_json(value).encode("utf-8"))
    return digest.hexdigest()


def opens(commitment_hex: str, value: Any, nonce: str) -> bool:
    """True if ``value`` and ``nonce`` open ``commitment_hex`` (False for a non-hex nonce)."""
    try:
        return secrets.compare_digest(commitment(value, nonce), commitment_hex)
    except (ValueError, TypeError):
        return False


def seal(
    events: Sequence[DomainEvent], known: Mapping[str, SecretValue]
) -> tuple[list[DomainEvent], dict[str, SecretValue]]:
    """Each event with its sealed parts committed, and the new secrets to keep.

    The returned events carry ``payload["sealed"] = {id: {"commitment", "seats"}}`` and
    keep their ``sealed`` values (so the writer folds them whole). ``known`` are the
    game's secrets so far. Raises RuntimeError (a ruleset bug) for a payload using the
    reserved key or a secret id used twice in a game.
    """
    new: dict[str, SecretValue] = {}
    public: list[DomainEvent] = []
    for event in events:
        if SEALED_KEY in event.payload:
            raise RuntimeError(f"{event.type}: payload key {SEALED_KEY!r} is the engine's")
        if not event.sealed:
            public.append(event)
            continue
        committed: dict[str, dict[str, Any]] = {}
        for secret_id, part in event.sealed.items():
            if secret_id in known or secret_id in new:
                raise RuntimeError(f"{event.type}: secret id {secret_id!r} used twice")
            nonce = new_nonce()
            seats = tuple(sorted(set(part.seats)))
            new[secret_id] = SecretValue(part.value, nonce, seats)
            committed[secret_id] = {
                "commitment": commitment(part.value, nonce),
                "seats": list(seats),
            }
        payload = {**event.payload, SEALED_KEY: committed}
        public.append(
            DomainEvent(event.type, payload, event.schema_version, event.sealed, event.reveals)
        )
    return public, new


def committed_parts(payload: Mapping[str, Any]) -> dict[str, str]:
    """``{secret id: commitment hex}`` of a stored payload (empty if it commits nothing)."""
    parts = payload.get(SEALED_KEY)
    if not isinstance(parts, Mapping):
        return {}
    return {
        str(k): str(v.get("commitment", "")) for k, v in parts.items() if isinstance(v, Mapping)
    }
