"""Command ids scoped to their sender and bound to their content.

A client's command id makes a retried command safe: the store records each command's
result under a key, and a command arriving again under that key appends nothing and gets
the original result. The key is never the bare id (docs/operations.md, "Command ids"):

- SubmitAction: ``seat:<seat>|<id>``. Seat B reusing seat A's id is a fresh command of
  B's; a person cannot pre-empt a bot's id (bot seats only take commands carrying the
  bot credential, see :mod:`services.engine.domain.bot_credential`).
- JoinGame: ``join:<seat>|<id>``: a seat is claimed once, so its joiners never share
  an id with another seat's.
- ResignSeat: ``resign:<seat>|<id>``; ClaimSeatForBot: ``claim:<claiming seat>|<id>``
  bound to the claimed seat (services.engine.domain.leaving).
- CreateGame: the game id itself is derived from the caller's scope and the id (see
  :func:`create_scope`); the key is ``create|<id>`` inside that game.

Each result is recorded with the SHA-256 of the request's content. The same key with
other content is refused with the rule ``command_id_reused`` (FAILED_PRECONDITION) and
changes nothing. Results recorded before hashes were kept carry none and are accepted as
before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from services.engine.domain.errors import InvalidArgument, RuleViolation
from services.engine.domain.game_seats import SeatSpec
from services.engine.domain.records import CommandKey, canonical_json

COMMAND_ID_REUSED = "command_id_reused"
MAX_COMMAND_ID = 200
"""Longest command id taken (characters): ids are stored in every event they produce."""


def check_command_id(command_id: str) -> str:
    """Return ``command_id`` if short enough; else raise InvalidArgument."""
    if len(command_id) > MAX_COMMAND_ID:
        raise InvalidArgument(f"command_id is longer than {MAX_COMMAND_ID} characters")
    return command_id


def request_hash(content: Mapping[str, Any]) -> str:
    """SHA-256 hex of ``content`` in canonical JSON (one digest per request content)."""
    return hashlib.sha256(canonical_json(dict(content)).encode("utf-8")).hexdigest()


def action_command(seat: int, command_id: str, action: Mapping[str, Any]) -> CommandKey | None:
    """The key of a SubmitAction of ``seat``; None without a command id.

    The content bound to the id is the action itself (the expected version is not part
    of it: a retry after a lost reply may carry a newer one and is still the same move).
    """
    if not check_command_id(command_id):
        return None
    return CommandKey(f"seat:{seat}|{command_id}", request_hash({"action": dict(action)}))


def join_command(
    seat: int, command_id: str, name: str, token_hash: str, player: str = ""
) -> CommandKey | None:
    """The key of a JoinGame of ``seat`` (by the player ``player``, if any); None without
    a command id."""
    if not check_command_id(command_id):
        return None
    content: dict[str, Any] = {"seat": seat, "name": name, "token_hash": token_hash}
    if player:  # absent otherwise: the hashes recorded before players stay the same
        content["player"] = player
    return CommandKey(f"join:{seat}|{command_id}", request_hash(content))


def resign_command(seat: int, command_id: str) -> CommandKey | None:
    """The key of a ResignSeat of ``seat``; None without a command id."""
    if not check_command_id(command_id):
        return None
    return CommandKey(f"resign:{seat}|{command_id}", request_hash({"resign": seat}))


def claim_command(claimed_by: int, seat: int, command_id: str) -> CommandKey | None:
    """The key of seat ``claimed_by``'s ClaimSeatForBot of ``seat``; None without a
    command id (the content bound to the id is the claimed seat)."""
    if not check_command_id(command_id):
        return None
    return CommandKey(f"claim:{claimed_by}|{command_id}", request_hash({"claim": seat}))


def create_content(
    ruleset: str, seats: Sequence[SeatSpec], options: Mapping[str, Any]
) -> dict[str, Any]:
    """What a CreateGame request says, as hashed (seats with their token hashes)."""
    return {
        "ruleset": ruleset,
        # A seat bound to no player hashes as before players existed (a retry across an
        # upgrade is still the same request).
        "seats": [
            {k: v for k, v in seat.to_json().items() if k != "player" or v} for seat in seats
        ],
        "options": dict(options),
    }


def create_scope(seats: Sequence[SeatSpec], content_hash: str) -> str:
    """Whose CreateGame command id it is: the hash of the token hashes of the seats the
    request claims (only their holder knows the tokens), or, for a request claiming no
    seat (bots and open seats only), its own content hash, so identical requests are one
    game and nobody else's request can meet it."""
    claimed = [seat.token_hash for seat in seats if seat.token_hash]
    # A seat bound to a player is claimed by that player: only its credential's holder
    # can ask the gateway to bind it (services.gateway), so only they share the scope.
    claimed += [f"player:{seat.player}" for seat in seats if seat.player]
    if not claimed:
        return content_hash
    return request_hash({"claimed_token_hashes": claimed})


def create_command(command_id: str, content_hash: str) -> CommandKey:
    """The key of a CreateGame inside the game its scoped id names."""
    return CommandKey(f"create|{check_command_id(command_id)}", content_hash)


def refuse_reuse(command: CommandKey, recorded_hash: str, command_id: str) -> None:
    """Raise RuleViolation ``command_id_reused`` if ``command``'s id was recorded with
    another request's hash ("" — recorded before hashes were kept — is accepted)."""
    if recorded_hash and recorded_hash != command.request_hash:
        raise RuleViolation(
            COMMAND_ID_REUSED,
            f"command id {command_id[:100]!r} was already used by this sender for a "
            "different request; choose a new command id for a new command (a retry must "
            "repeat the original request exactly)",
        )
