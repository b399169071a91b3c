"""A rematch ("play again", boardgame.io's lobby and Lichess's rematch): the players of a
finished game agree to play it again.

Any player of a finished game may offer it once: the same players in the same seats,
the same ruleset, options and time control, rated as before, a new game (a new game id,
so a new seed). The offer names every player of the game; the one who offers has
accepted. When every player has accepted, the rematch opens as a lobby table (the table
opener creates its game). A player may decline instead: the rematch is off. An offer not
accepted by all within its time to live (:data:`REMATCH_TTL_MS`) expires. There is one
rematch per finished game: a second offer while one is pending accepts it (both asked
for it); after it opened, was declined or expired, the game has had its rematch.

A rematch is offered within :data:`REMATCH_WINDOW_MS` of the game's end (the players
are still at the table, as on Lichess and Board Game Arena). That window is what lets
the store forget a settled rematch (:data:`REMATCH_KEEP_MS` after it could last be
accepted) and still keep "one rematch per game": by then the window is long shut, so
the game can't be offered again.

This module is pure: :func:`offer`, :func:`accept` and :func:`decline` decide on a
:class:`Rematch` and return the next one, or raise LobbyRefused naming the rule. The
Redis store (services.lobby.redis_rematches) applies a decision atomically.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from services.lobby.tables import LobbyRefused

REMATCH_TTL_MS = 10 * 60 * 1000
"""How long an offer waits for every player to accept (10 minutes)."""
REMATCH_WINDOW_MS = 24 * 3600 * 1000
"""How long after a game's end its rematch may be offered (1 day)."""
REMATCH_KEEP_MS = 7 * 24 * 3600 * 1000
"""How long a rematch is kept after its offer lapsed or would have (7 days, as lobby
tables: services.lobby.retention). Never less than :data:`REMATCH_WINDOW_MS`."""


class RematchStatus(StrEnum):
    """Where a rematch stands."""

    OFFERED = "offered"
    """Waiting for the players who have not accepted yet."""
    ACCEPTED = "accepted"
    """Every player accepted: ``table_id`` is the rematch's table."""
    DECLINED = "declined"
    """A player declined: no rematch."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """A rematch offer of one finished game.

    Attributes:
        game_id: the finished game.
        offer_id: the offer's id (public; derived from the game id).
        by: the player who offered.
        players: every player of the game (player ids, each once, in seat order).
        accepted: the players who accepted (the one who offered first).
        status: :class:`RematchStatus`.
        offered_ms: when it was offered (ms since the epoch).
        expires_ms: when an offer not accepted by all lapses.
        table_id: the rematch's lobby table (known from the offer on; opened on the
            accept that completed it).
        decided_ms: when it was accepted by all or declined (0 before).
    """

    game_id: str
    offer_id: str
    by: str
    players: tuple[str, ...]
    accepted: tuple[str, ...]
    status: RematchStatus
    offered_ms: int
    expires_ms: int
    table_id: str
    decided_ms: int = 0

    def expired(self, now_ms: int) -> bool:
        """True if still offered and past its time to live at ``now_ms``."""
        return self.status is RematchStatus.OFFERED and now_ms >= self.expires_ms

    def to_json(self) -> str:
        """Canonical JSON text (what the store keeps)."""
        return json.dumps(
            {
                "game_id": self.game_id,
                "offer_id": self.offer_id,
                "by": self.by,
                "players": list(self.players),
                "accepted": list(self.accepted),
                "status": self.status.value,
                "offered_ms": self.offered_ms,
                "expires_ms": self.expires_ms,
                "table_id": self.table_id,
                "decided_ms": self.decided_ms,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Rematch:
        """Inverse of :meth:`to_json`."""
        data: dict[str, Any] = json.loads(text)
        return cls(
            game_id=str(data["game_id"]),
            offer_id=str(data["offer_id"]),
            by=str(data["by"]),
            players=tuple(str(p) for p in data["players"]),
            accepted=tuple(str(p) for p in data["accepted"]),
            status=RematchStatus(data["status"]),
            offered_ms=int(data["offered_ms"]),
            expires_ms=int(data["expires_ms"]),
            table_id=str(data["table_id"]),
            decided_ms=int(data.get("decided_ms", 0)),
        )


def rematch_ids(game_id: str) -> tuple[str, str]:
    """(offer id, table id) of ``game_id``'s rematch: derived, so every gateway names
    them alike and the rematch's game create command id is stable."""
    digest = hashlib.sha256(f"rematch|{game_id}".encode()).hexdigest()
    return f"ro-{digest[:20]}", f"rm-{digest[20:40]}"


def check_window(
    game_id: str, ended_ms: int, now_ms: int, window_ms: int = REMATCH_WINDOW_MS
) -> None:
    """Refuse an offer made later than ``window_ms`` after the game ended at ``ended_ms``
    (ms since the epoch): LobbyRefused ``rematch_window_closed``."""
    if now_ms - ended_ms > window_ms:
        hours = window_ms / 3_600_000
        raise LobbyRefused(
            "rematch_window_closed",
            f"a rematch of {game_id} could be offered up to {hours:g} h after it ended",
        )


def offer(
    game_id: str,
    by: str,
    players: tuple[str, ...],
    now_ms: int,
    ttl_ms: int = REMATCH_TTL_MS,
) -> Rematch:
    """A new offer by ``by`` to ``players`` (the finished game's players). Raises
    LobbyRefused ``not_in_game`` (``by`` is not one of them)."""
    if by not in players:
        raise LobbyRefused("not_in_game", f"you did not play game {game_id}")
    offer_id, table_id = rematch_ids(game_id)
    status = RematchStatus.ACCEPTED if players == (by,) else RematchStatus.OFFERED
    return Rematch(
        game_id,
        offer_id,
        by,
        players,
        (by,),
        status,
        now_ms,
        now_ms + ttl_ms,
        table_id,
        now_ms if status is RematchStatus.ACCEPTED else 0,
    )


def _must_be_pending(rematch: Rematch, now_ms: int) -> None:
    if rematch.status is RematchStatus.DECLINED:
        raise LobbyRefused("rematch_declined", f"the rematch of {rematch.game_id} was declined")
    if rematch.expired(now_ms):
        raise LobbyRefused("rematch_expired", f"the rematch of {rematch.game_id} has expired")


def accept(rematch: Rematch, player: str, now_ms: int) -> Rematch:
    """``player`` accepts (idempotent); the last acceptance makes it ACCEPTED. Raises
    LobbyRefused ``not_in_game``, ``rematch_declined``, ``rematch_expired``."""
    if player not in rematch.players:
        raise LobbyRefused("not_in_game", f"you did not play game {rematch.game_id}")
    if player in rematch.accepted and rematch.status is not RematchStatus.DECLINED:
        return rematch
    _must_be_pending(rematch, now_ms)
    accepted = (*rematch.accepted, player)
    if set(accepted) == set(rematch.players):
        return replace(rematch, accepted=accepted, status=RematchStatus.ACCEPTED, decided_ms=now_ms)
    return replace(rematch, accepted=accepted)


def decline(rematch: Rematch, player: str, now_ms: int) -> Rematch:
    """``player`` declines: no rematch (idempotent once declined). Raises LobbyRefused
    ``not_in_game``, ``rematch_accepted`` (every player accepted already),
    ``rematch_expired``."""
    if player not in rematch.players:
        raise LobbyRefused("not_in_game", f"you did not play game {rematch.game_id}")
    if rematch.status is RematchStatus.DECLINED:
        return rematch
    if rematch.status is RematchStatus.ACCEPTED:
        raise LobbyRefused("rematch_accepted", f"the rematch of {rematch.game_id} is on")
    _must_be_pending(rematch, now_ms)
    return replace(rematch, status=RematchStatus.DECLINED, decided_ms=now_ms)
