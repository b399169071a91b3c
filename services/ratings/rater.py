"""The rater: applies finished games outside tournaments to the one rating book and
tells their players (issue 32, docs/ratings.md).

It is handed the ids of finished games that no tournament owns (the tournament
director's consumer group over the ``finished`` streams hands them on:
services.tournament.director.FinishedGamesHandler), and for each game with a seat bound
to a player account:

1. a rated game (:class:`services.ratings.outcome.GameOutcome` ``rated``) is rated in
   the book under each player's ``player:<id>`` identity, once per game however often it
   is handed over (the book's compare-and-set refuses a game applied before), and each
   player's history gains an entry;
2. every seated player gets a ``game_finished`` notice ``{game_id, ruleset, seat, place}``
   plus ``rating_change`` ``{before, after, change, games}`` (ratings as shown: the
   conservative ordinal rounded) when the game was rated.

Notices are posted after the rating and marked sent per game (a key that expires after
NOTICE_MARK_S): a redelivery after the mark posts nothing; a crash between posting and
marking posts them again (at least once; a client drops a second notice for a game it
already heard of). A rating is applied exactly once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog

from services.engine.adapters.redis_client import RedisClient
from services.engine.domain.engine_events import upcast
from services.engine.domain.errors import GameNotFound
from services.engine.domain.reader import GameReader
from services.engine.transport.status_mapping import outage_of
from services.notices.inbox import RedisInbox
from services.notices.notice import Notice, NoticeKind
from services.ratings.outcome import GameOutcome, finished_at, outcome_of
from services.tournament.ratings_book import HistoryEntry, RatingsBook

log = structlog.get_logger(__name__)

NOTICE_MARK_S = 7 * 24 * 3600
"""How long a game's "notices sent" mark lives (longer than any redelivery waits)."""
HISTORY_LOOKBACK = 50
"""History entries searched for a game rated before (a redelivery's notices)."""


def rating_change(entry: HistoryEntry) -> dict[str, int]:
    """A notice's ``rating_change``: the ratings as shown before and after (the
    conservative ordinal rounded), their difference and the games now rated."""
    before, after = round(entry.before.ordinal), round(entry.after.ordinal)
    return {"before": before, "after": after, "change": after - before, "games": entry.after.games}


class GameRater:
    """Rates finished games and posts their ``game_finished`` notices (module doc).

    Args:
        reader: loads finished games (their fold and their last event).
        book: the rating book.
        inbox: players' inboxes.
        client: Redis (the notices-sent marks).
        prefix: the deployment's key prefix.
        clock_ms: ms since the epoch, for notices' ``at_ms``.
    """

    def __init__(
        self,
        reader: GameReader,
        book: RatingsBook,
        inbox: RedisInbox,
        client: RedisClient,
        prefix: str,
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self._reader = reader
        self._book = book
        self._inbox = inbox
        self._redis = client
        self._prefix = prefix
        self._clock_ms = clock_ms

    def _mark_key(self, game_id: str) -> str:
        return f"{self._prefix}:finished-noticed:{game_id}"

    async def games_finished(self, game_ids: Sequence[str]) -> None:
        """Handle finished games no tournament owns (see the module doc). Raises Redis
        errors on an outage (the caller leaves the entries pending); any other failure of
        one game is logged and the others go on."""
        for game_id in game_ids:
            try:
                await self.game_finished(game_id)
            except Exception as exc:
                if outage_of(exc) is not None:
                    raise
                log.exception("rater_game_failed", game_id=game_id)

    async def game_finished(self, game_id: str) -> GameOutcome | None:
        """Rate ``game_id`` if rated and post its notices; returns its outcome (None: not
        finished, or no player seated)."""
        try:
            if not await self._may_seat_players(game_id):
                return None
            snapshot = await self._reader.load(game_id)
            if not snapshot.is_terminal() or not any(s.player for s in snapshot.seats):
                return None
            last = await self._reader.events(game_id, snapshot.version - 1, 1)
        except GameNotFound:
            log.warning("rater_game_missing", game_id=game_id)
            return None
        outcome = outcome_of(snapshot, finished_at(last))
        if outcome is None:
            return None
        entries: dict[str, HistoryEntry] | None = None
        if outcome.rated:
            entries = await self._book.rate(
                outcome.ruleset, game_id, outcome.identities, outcome.player_places, outcome.at
            )
            if entries is None:  # rated before: a redelivery
                entries = await self._entries_of(outcome)
            else:
                log.info("game_rated", game_id=game_id, ruleset=outcome.ruleset)
        await self._notify(outcome, entries)
        return outcome

    async def _may_seat_players(self, game_id: str) -> bool:
        """Whether a player may sit in ``game_id``: a seat bound to a player at creation,
        or an open one (a player may have joined it). Read from the game as cached, else
        from its first event alone, so most finished games (bots, seat tokens) cost one
        short read rather than a fold (the director hands over every finished game)."""
        cached = self._reader.cached(game_id)
        if cached is not None:
            return any(seat.player or seat.is_open for seat in cached.seats)
        first = await self._reader.events(game_id, 0, 1)
        if not first:
            return False
        created = upcast(first[0].to_domain())
        seats = created.payload.get("seats", [])
        return any(seat.get("player") or seat.get("open") for seat in seats)

    async def _entries_of(self, outcome: GameOutcome) -> dict[str, HistoryEntry]:
        """The history entries a game rated before left (for a redelivery's notices)."""
        found = {}
        for identity in outcome.identities:
            for entry in await self._book.history(outcome.ruleset, identity, 0, HISTORY_LOOKBACK):
                if entry.game_id == outcome.game_id:
                    found[identity] = entry
                    break
        return found

    async def _notify(self, outcome: GameOutcome, entries: dict[str, HistoryEntry] | None) -> None:
        mark = self._mark_key(outcome.game_id)
        if await self._redis.exists(mark):
            return
        at_ms = self._clock_ms()
        for (seat, player), identity in zip(outcome.seats, outcome.identities, strict=True):
            data: dict[str, Any] = {
                "game_id": outcome.game_id,
                "ruleset": outcome.ruleset,
                "seat": seat,
                "place": outcome.places[seat],
            }
            entry = (entries or {}).get(identity)
            if entry is not None:
                data["rating_change"] = rating_change(entry)
            await self._inbox.post(player, Notice(NoticeKind.GAME_FINISHED, data, at_ms))
        await self._redis.set(mark, "1", ex=NOTICE_MARK_S)
