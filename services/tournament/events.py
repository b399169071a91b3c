"""Events of a tournament's log (its own hash-chained stream; docs/events.md, "Tournaments").

Every type is at schema version 1, but PlayerRegistered, at 2 when a player account
entered (its ``player_id``; version 1 events fold as before):

- ``TournamentCreated`` ``{tournament_id, config, seed_commitment, created_at}``: the first
  event; ``config`` is :meth:`TournamentConfig.to_json`, ``seed_commitment`` the SHA-256
  hex of the secret pairing seed (as GameCreated's).
- ``PlayerRegistered`` ``{player, kind}``: ``kind`` "human" (plays with a player token,
  whose hash is kept service-only) or "bot"; v2 adds ``player_id``, the player account
  that entered (public: its tables' seats are bound to it, and it plays them with its
  player credential).
- ``PlayerWithdrew`` ``{player, reason}``: not paired from the next round on.
- ``TournamentStarted`` ``{entrants}``: registration closed; entrants in registration order.
- ``RoundPaired`` ``{round, tables: [{table, players, game_id}], byes}``.
- ``TableFinished`` ``{round, table, game_id, places, forfeited}``: ``places`` per seat.
- ``RoundFinished`` ``{round}``.
- ``TournamentFinished`` ``{ranking}``: player ids by final rank (a summary; standings
  recompute from the log).
- ``SeedRevealed`` ``{seed}``: with TournamentFinished; opens ``seed_commitment`` so
  anyone can re-run every pairing.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.engine.domain.fairness import commit
from services.engine.domain.ruleset import DomainEvent
from services.tournament.config import TournamentConfig
from services.tournament.model import Pairing, TableResult

TOURNAMENT_CREATED = "TournamentCreated"
PLAYER_REGISTERED = "PlayerRegistered"
PLAYER_WITHDREW = "PlayerWithdrew"
TOURNAMENT_STARTED = "TournamentStarted"
ROUND_PAIRED = "RoundPaired"
TABLE_FINISHED = "TableFinished"
ROUND_FINISHED = "RoundFinished"
TOURNAMENT_FINISHED = "TournamentFinished"
SEED_REVEALED = "SeedRevealed"

TOURNAMENT_EVENTS = frozenset(
    {
        TOURNAMENT_CREATED,
        PLAYER_REGISTERED,
        PLAYER_WITHDREW,
        TOURNAMENT_STARTED,
        ROUND_PAIRED,
        TABLE_FINISHED,
        ROUND_FINISHED,
        TOURNAMENT_FINISHED,
        SEED_REVEALED,
    }
)
"""Every tournament event type (all at schema version 1)."""

HUMAN = "human"
BOT = "bot"


def tournament_created(
    tournament_id: str, config: TournamentConfig, seed: str, created_at: str
) -> DomainEvent:
    """The first event: the config and a commitment to the secret pairing ``seed``."""
    return DomainEvent(
        TOURNAMENT_CREATED,
        {
            "tournament_id": tournament_id,
            "config": config.to_json(),
            "seed_commitment": commit(seed),
            "created_at": created_at,
        },
    )


def player_registered(player: str, kind: str, player_id: str = "") -> DomainEvent:
    """``player`` (a name, unique in the tournament) entered; ``kind`` human or bot.
    ``player_id``: the player account that entered (services.players), at schema
    version 2; a player entered with a tournament token has none (version 1)."""
    if player_id:
        payload = {"player": player, "kind": kind, "player_id": player_id}
        return DomainEvent(PLAYER_REGISTERED, payload, schema_version=2)
    return DomainEvent(PLAYER_REGISTERED, {"player": player, "kind": kind})


def player_withdrew(player: str, reason: str) -> DomainEvent:
    """``player`` left; ``reason`` e.g. "requested"."""
    return DomainEvent(PLAYER_WITHDREW, {"player": player, "reason": reason})


def tournament_started(entrants: Sequence[str]) -> DomainEvent:
    """Registration closed with ``entrants`` (registration order)."""
    return DomainEvent(TOURNAMENT_STARTED, {"entrants": list(entrants)})


def round_paired(pairing: Pairing, game_ids: Sequence[str]) -> DomainEvent:
    """A round's tables (with the game each plays, by table order) and byes."""
    if len(game_ids) != len(pairing.tables):
        raise ValueError("one game id per table")
    return DomainEvent(
        ROUND_PAIRED,
        {
            "round": pairing.round,
            "tables": [
                {"table": table.number, "players": list(table.players), "game_id": game_id}
                for table, game_id in zip(pairing.tables, game_ids, strict=True)
            ],
            "byes": list(pairing.byes),
        },
    )


def table_finished(round_: int, game_id: str, result: TableResult) -> DomainEvent:
    """Table ``result.table`` of round ``round_`` ended (places per seat)."""
    return DomainEvent(
        TABLE_FINISHED,
        {
            "round": round_,
            "table": result.table,
            "game_id": game_id,
            "places": list(result.places),
            "forfeited": list(result.forfeited),
        },
    )


def round_finished(round_: int) -> DomainEvent:
    """Every table of ``round_`` has finished."""
    return DomainEvent(ROUND_FINISHED, {"round": round_})


def tournament_finished(ranking: Sequence[str]) -> DomainEvent:
    """The last round is over; ``ranking`` is the final order of players."""
    return DomainEvent(TOURNAMENT_FINISHED, {"ranking": list(ranking)})


def seed_revealed(seed: str) -> DomainEvent:
    """Opens the seed commitment (appended with TournamentFinished)."""
    return DomainEvent(SEED_REVEALED, {"seed": seed})
